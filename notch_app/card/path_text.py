"""File paths as a person reads them: the home folder as `~`, a shared folder said once.

`folder_and_names(["/home/maya/Downloads/a.dmg", "/home/maya/Downloads/old/b.pkg"])` →
("~/Downloads", ["a.dmg", "old/b.pkg"]) for maya. Pure string work on POSIX or Windows
spellings (the agent's machine decides, not this one); never touches the disk.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Final

_WINDOWS_ROOT: Final = re.compile(r"^[A-Za-z]:[\\/]")


def _separator(path: str) -> str:
    return "\\" if _WINDOWS_ROOT.match(path) or ("\\" in path and "/" not in path) else "/"


def looks_like_path(value: object) -> bool:
    """A string that names a file or folder: absolute, `~/…`, `./…` or a drive path."""
    if not isinstance(value, str) or not value or len(value) > 4096 or "\n" in value:
        return False
    return value.startswith(("/", "~/", "./", "../")) or bool(_WINDOWS_ROOT.match(value))


def home_short(path: str, home: str | None = None) -> str:
    """`path` with the person's home folder written `~` ("/home/maya/x" → "~/x")."""
    base = (home if home is not None else os.path.expanduser("~")).rstrip("/\\")
    if base and base not in ("/", "~") and (path == base or path.startswith(base + "/")):
        return "~" + path[len(base) :]
    return path


def base_name(path: str) -> str:
    """The last part of a path ("acme-contract.pdf"); the path itself for a root."""
    sep = _separator(path)
    trimmed = path.rstrip(sep) or path
    return trimmed.rsplit(sep, 1)[-1] or trimmed


def parent_folder(path: str) -> str:
    """The folder that holds `path` ("/a/b/c.pdf" → "/a/b"); "" for a bare name."""
    sep = _separator(path)
    trimmed = path.rstrip(sep)
    head, found, _ = trimmed.rpartition(sep)
    if not found:
        return ""
    return head or sep


def folder_and_names(paths: Sequence[str], home: str | None = None) -> tuple[str, list[str]]:
    """The deepest folder every path lies in (home as `~`), and each path below it.

    A path equal to that folder reads as its own name. With no shared folder (different
    roots, or relative names) the folder is "" and the paths come back home-shortened.
    """
    if home is None:
        home = os.path.expanduser("~")  # once, not once per path
    short = [home_short(p, home) for p in paths]
    if not short:
        return "", []
    sep = _separator(short[0])
    split = [p.split(sep) for p in short]
    # Compare folders only: the last part of each path is a file or folder name, never
    # the shared prefix of itself ("report.pdf" alone says "in ~/x", not "in report.pdf").
    folders = [parts[:-1] for parts in split]
    shared: list[str] = []
    for column in zip(*folders, strict=False):
        if all(part == column[0] for part in column):
            shared.append(column[0])
        else:
            break
    if not shared or shared == [""]:
        return "", short
    folder = sep.join(shared) or sep
    names = [
        sep.join(parts[len(shared) :]) or base_name(p)
        for parts, p in zip(split, short, strict=True)
    ]
    return folder, names


def break_points(path: str) -> str:
    """`path` with a zero-width space after each separator, so a label wraps it between
    folders ("~/Documents/​Contracts/​2025/​acme.pdf"), never inside a name."""
    sep = _separator(path)
    return path.replace(sep, sep + "\u200b")


__all__ = [
    "base_name",
    "break_points",
    "folder_and_names",
    "home_short",
    "looks_like_path",
    "parent_folder",
]
