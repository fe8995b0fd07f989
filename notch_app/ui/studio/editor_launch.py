"""Open a file at a line in the author's own editor ($VISUAL, else $EDITOR).

The variable is split into an argv (`code --wait` is two words) and never given to a
shell; the file and line are added the way the editor takes them (`+LINE FILE` for the
vi and Emacs families, `--goto FILE:LINE` for VS Code, ...). The editor runs detached:
the studio neither waits for it nor ends it. Nothing here imports Qt.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Final

PLUS_LINE: Final = frozenset(
    {"vi", "vim", "nvim", "gvim", "mvim", "view", "nano", "pico", "emacs", "emacsclient",
     "micro", "kak", "joe", "jed", "mg", "ne", "gedit", "gnome-text-editor", "mousepad",
     "pluma", "xed", "geany", "leafpad", "ed", "vis", "helix", "hx"}
)  # fmt: skip
"""Editors that take `+LINE FILE` (helix takes FILE:LINE too; +LINE is the shared form)."""
GOTO_FLAG: Final = frozenset({"code", "codium", "code-insiders", "cursor", "windsurf"})
"""Editors that take `--goto FILE:LINE`."""
FILE_COLON_LINE: Final = frozenset({"subl", "sublime_text", "zed", "atom", "lapce", "idea"})
"""Editors that take `FILE:LINE` as the file argument."""
KATE_STYLE: Final = frozenset({"kate", "kwrite"})
TERMINAL_EDITORS: Final = frozenset(
    {"vi", "vim", "nvim", "view", "nano", "pico", "micro", "kak", "joe", "jed", "mg", "ne",
     "ed", "vis", "helix", "hx"}
)  # fmt: skip
"""These draw in a terminal: started from a window they get one of their own."""
TERMINALS: Final = ("x-terminal-emulator", "gnome-terminal", "konsole", "xfce4-terminal", "xterm")
NO_EDITOR: Final = (
    "No editor is set: set VISUAL or EDITOR to the command that opens a file "
    "(for example `export VISUAL=code` or `export EDITOR=vim`), then try again"
)


class EditorUnavailable(Exception):
    """The author's editor cannot be started; the message says why and what to do."""


def editor_argv(path: Path, line: int, env: Mapping[str, str] | None = None) -> list[str]:
    """The argv that opens `path` at `line` in the author's editor ($VISUAL, else
    $EDITOR). Raises EditorUnavailable when neither is set, the variable cannot be split,
    or its program is not found."""
    env = os.environ if env is None else env
    raw = (env.get("VISUAL") or "").strip() or (env.get("EDITOR") or "").strip()
    if not raw:
        raise EditorUnavailable(NO_EDITOR)
    which = "VISUAL" if (env.get("VISUAL") or "").strip() else "EDITOR"
    try:
        words = shlex.split(raw)
    except ValueError as exc:
        raise EditorUnavailable(f"${which} ({raw!r}) cannot be read as a command: {exc}") from exc
    if not words:
        raise EditorUnavailable(NO_EDITOR)
    program = shutil.which(words[0], path=env.get("PATH"))
    if program is None:
        raise EditorUnavailable(
            f"${which} names {words[0]!r}, which was not found on PATH; install it or set "
            f"{which} to an editor you have"
        )
    name = Path(words[0]).name.removesuffix(".exe")
    line = max(1, int(line))
    file = str(path)
    if name in PLUS_LINE:
        argv = [program, *words[1:], f"+{line}", file]
    elif name in GOTO_FLAG:
        argv = [program, *words[1:], "--goto", f"{file}:{line}"]
    elif name in FILE_COLON_LINE:
        argv = [program, *words[1:], f"{file}:{line}"]
    elif name in KATE_STYLE:
        argv = [program, *words[1:], "--line", str(line), file]
    else:
        argv = [program, *words[1:], file]  # an editor we do not know: the file alone
    if name in TERMINAL_EDITORS:
        terminal = next((t for t in TERMINALS if shutil.which(t, path=env.get("PATH"))), None)
        if terminal is not None:
            argv = [terminal, "-e", *argv]
    return argv


def open_in_editor(path: Path, line: int, env: Mapping[str, str] | None = None) -> list[str]:
    """Start the author's editor on `path` at `line`, detached, and return its argv.
    Raises EditorUnavailable (with the reason and the fix) when it cannot start."""
    argv = editor_argv(path, line, env)
    # Earlier editors that have ended are reaped here: no zombie outlives its next open.
    _started[:] = [p for p in _started if p.poll() is None]
    try:
        started = subprocess.Popen(  # an argv the author chose: never a shell string
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # detached: closing the studio leaves the editor open
            close_fds=True,
            env=dict(env) if env is not None else None,
        )
    except OSError as exc:
        raise EditorUnavailable(f"could not start {argv[0]!r}: {exc.strerror or exc}") from exc
    _started.append(started)
    return argv


_started: list[subprocess.Popen[bytes]] = []
