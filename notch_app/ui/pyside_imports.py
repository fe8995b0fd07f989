"""PySide's import hook, kept from holding the source of every module in memory.

Once shiboken loads, PySide6 replaces `__import__`; for each module imported after that,
it asks whether the module's source mentions "PySide6" (so `from __feature__ import …`
applies to it), through `inspect.getsource`. That answer is right, but `inspect` keeps
every line it read in `linecache` for the life of the process: the source of each module
Notch imports after Qt, ~3 MiB of an idle `notch run` (benchmarks/README-overlay.md,
"Idle resident memory"). Here the same question is answered from the module's own loader,
and the text is dropped once read. Tracebacks still show source lines: `linecache` reads
a file when one is shown.
"""

from __future__ import annotations

import sys
from types import ModuleType


def mentions_pyside(module: ModuleType) -> bool:
    """Whether `module`'s source text names PySide6, as PySide's own check decides it
    (`inspect.getsource(module)`), without keeping the text: False for a module without
    source (built in, compiled, or one whose source cannot be read)."""
    loader = getattr(module, "__loader__", None)
    get_source = getattr(loader, "get_source", None)
    if get_source is None:
        return False
    try:
        source = get_source(module.__name__)
    except Exception:  # PySide's check answers False for any failure to read too
        return False
    return isinstance(source, str) and "PySide6" in source


def read_sources_unkept() -> bool:
    """Load shiboken and make PySide's per-import check read each module's source without
    keeping it. Call before the bulk of Notch's Qt modules are imported. Returns whether the
    check was found (a PySide without it is left as it is)."""
    import shiboken6  # noqa: F401  (installs the import hook and its feature module)

    feature = sys.modules.get("shibokensupport.feature")
    if feature is None or not callable(getattr(feature, "_mod_uses_pyside", None)):
        return False
    feature._mod_uses_pyside = mentions_pyside  # type: ignore[attr-defined]
    return True
