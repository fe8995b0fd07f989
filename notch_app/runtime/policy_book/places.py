"""Where integrations come from: the bundled `manifests/` folder and the person's own."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from notch_app.bundled import bundled_folder
from notch_app.runtime.catalog import Catalog


def bundled_manifests_dir() -> Path:
    """The shipped `manifests/` folder: the bundled example integrations (the repository's
    top-level `manifests/` in a checkout; see `notch_app.bundled`)."""
    return bundled_folder("manifests")


def user_integrations_dir() -> Path:
    """The person's installed integrations: `<user config dir>/notch/integrations`."""
    import platformdirs

    return Path(platformdirs.user_config_dir("notch", appauthor=False)) / "integrations"


def integration_folders(extra: Sequence[Path] = ()) -> list[Path]:
    """Folders to load integrations from: bundled, then the person's, then `extra`.

    Folders that do not exist are left out, except those in `extra` (the person named
    them, so a typo must be reported). Duplicates are dropped, order kept.
    """
    out: list[Path] = []
    for folder in (bundled_manifests_dir(), user_integrations_dir()):
        if folder.is_dir():
            out.append(folder)
    out.extend(Path(p) for p in extra)
    seen: set[Path] = set()
    unique: list[Path] = []
    for folder in out:
        key = folder.resolve() if folder.exists() else folder
        if key not in seen:
            seen.add(key)
            unique.append(folder)
    return unique


def load_integrations(extra: Sequence[Path] = ()) -> tuple[Catalog, list[str]]:
    """Load every integration `notch run`, `notch policy` and `notch settings` know:
    bundled, the person's, then each of `extra` (`~` expanded). Returns the catalog and
    the problems found (`notch validate` lines); never raises for a bad manifest."""
    return Catalog.load(integration_folders([Path(p).expanduser() for p in extra]))
