"""Where the files shipped with Notch live: the example integrations (`manifests/`), the
published JSON Schemas (`schemas/`) and the theme and icons (`resources/`).

The three folders sit at the top of the repository, where an integration author looks
for them. The package reaches them through `notch_app/_data/`, whose entries are relative
symlinks to those folders; the wheel build follows the symlinks and ships real copies
under `notch_app/_data/` (pyproject.toml, `package-data`). So one lookup,
`importlib.resources.files("notch_app")`, finds them in a checkout, an editable install
and an installed wheel alike. Nothing here imports anything but the standard library, so
every layer may use it.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Literal

BundledFolder = Literal["manifests", "schemas", "resources"]


def bundled_folder(name: BundledFolder) -> Path:
    """The shipped folder `name` as a real path (symlinks resolved, so messages in a
    checkout name the file a developer edits).

    Raises RuntimeError when Notch is installed in a way that has no real folders (for
    example zipped): Qt and `notch validate` read these files by path.
    """
    folder = files("notch_app").joinpath("_data", name)
    if not isinstance(folder, Path):
        raise RuntimeError(
            f"Notch's bundled {name}/ folder is not on the file system ({folder}); "
            "install Notch unpacked (pip install, not a zipped package)"
        )
    return folder.resolve()
