"""`notch init [DIR] --name NAME [--id ID]`: a new integration folder, right the first time.

The folder holds manifest.json (one acting tool with a card, one read tool), preview.json
(sample arguments, and a sample result whose glance `notch validate` checks), two
scenarios (approve with an edit, decline), an icon.png drawn here, and server.py: a small
MCP server on the official `mcp` SDK that the manifest's runtime starts. `notch validate`,
`notch test`, `notch preview` and `notch mcp` work on it with no edits.

The files come from `resources/scaffold/` (shipped in the wheel), with the name, id and
slug filled in. Everything is written into a hidden folder beside DIR, checked with the
rules behind `notch validate`, then renamed into place in one step: a failure midway
leaves nothing behind. Exit 0 when made, 2 (nothing written) for a non-empty DIR, a NAME
that makes no valid id, or a folder that cannot be written.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import shutil
import sys
import tempfile
import unicodedata
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from notch_app.bundled import bundled_folder
from notch_app.manifest.limits import REVERSE_DNS
from notch_app.manifest.reading import Problem

MAX_NAME_CHARS: Final = 60
"""The name is the glance header's title, which shows at most 60 characters."""
MAX_SLUG_CHARS: Final = 40
ID_PREFIX: Final = "dev.local."
ICON_PX: Final = 256
ICON_FILE: Final = "icon.png"
_ICON_COLOURS: Final = ("#3B6FE0", "#7A4FD6", "#0F8F7E", "#C4572E", "#B8396B", "#4F7A28")
"""Monogram backgrounds (white letters read on each); the id picks one, so it is stable."""


class InitRefused(Exception):
    """`notch init` wrote nothing; the message names the place and the fix."""


@dataclass(frozen=True, slots=True)
class ScaffoldNames:
    """What the templates are filled with: the person's name for the integration, its
    reverse-DNS id, and the slug (lower-case letters, digits and `-`) the folder and the
    server are named after."""

    name: str
    id: str
    slug: str


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "folder",
        nargs="?",
        type=Path,
        metavar="DIR",
        help="the folder to create (it must not exist, or be empty; default: ./SLUG, the "
        "name in lower case with dashes)",
    )
    parser.add_argument(
        "--name",
        required=True,
        metavar="NAME",
        help=f'the integration\'s name as people read it, e.g. "Team tasks" (at most '
        f"{MAX_NAME_CHARS} characters)",
    )
    parser.add_argument(
        "--id",
        metavar="ID",
        help=f"its reverse-DNS id (default: {ID_PREFIX}SLUG; use your own domain before "
        "you ship, e.g. com.example.tasks)",
    )


def run(args: argparse.Namespace) -> int:
    try:
        names = scaffold_names(args.name, args.id)
        folder = args.folder if args.folder is not None else Path(names.slug)
        made, warnings = scaffold(folder, names)
    except InitRefused as exc:
        print(f"notch init: {exc}", file=sys.stderr)
        return 2
    shown = _shown(made)
    print(f"Made {shown} ({names.id}):")
    for path in sorted(p for p in made.rglob("*") if p.is_file()):
        print(f"  {path.relative_to(made).as_posix()}")
    for problem in warnings:
        print(problem.format(), file=sys.stderr)
    print(
        "Next:\n"
        f"  notch preview {shown}   (the cards, live as you edit)\n"
        f"  notch validate {shown}\n"
        f"  notch test {shown}/scenarios/*.json\n"
        f"  notch mcp {shown}   (what an MCP client starts)\n"
        "docs/writing-manifests.md walks through each step."
    )
    return 0


def scaffold_names(name: str, integration_id: str | None = None) -> ScaffoldNames:
    """The name (trimmed), id and slug for `name`. Raises InitRefused for an empty or
    over-long name, one holding control or invisible characters or binding marks (`{{`,
    `<<`), one with no Latin letter
    or digit to make an id from (unless `integration_id` is given), or an invalid id."""
    name = name.strip()
    if not name:
        raise InitRefused('--name is empty; name the integration, e.g. --name "Team tasks"')
    if len(name) > MAX_NAME_CHARS:
        raise InitRefused(
            f"--name is {len(name)} characters; keep it to {MAX_NAME_CHARS} (it titles the "
            "integration's glances)"
        )
    odd = next(
        (ch for ch in name if unicodedata.category(ch)[0] == "C" or ch in "\u2028\u2029"), None
    )
    if odd is not None:
        raise InitRefused(
            f"--name holds U+{ord(odd):04X}, a control or invisible character; use only "
            "characters a person can read"
        )
    marker = next((m for m in ("{{", "}}", "<<", ">>") if m in name), None)
    if marker is not None:
        raise InitRefused(
            f"--name holds {marker}, which a card reads as a binding; leave it out of the name"
        )
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-")[:MAX_SLUG_CHARS].strip("-")
    if integration_id is None:
        if not slug:
            raise InitRefused(
                f"--name {name!r} has no Latin letter or digit to make an id from; give the "
                "id yourself, e.g. --id com.example.tasks"
            )
        integration_id = ID_PREFIX + slug
    elif not re.fullmatch(REVERSE_DNS, integration_id) or len(integration_id) > 128:
        raise InitRefused(
            f"--id {integration_id!r} is not a reverse-DNS id; use lower-case letters, digits "
            "and dashes in two or more dot-separated parts, e.g. com.example.tasks"
        )
    if not slug:
        slug = integration_id.rsplit(".", 1)[-1]
    return ScaffoldNames(name=name, id=integration_id, slug=slug)


def scaffold(folder: Path, names: ScaffoldNames) -> tuple[Path, list[Problem]]:
    """Create the integration folder `folder` for `names`; returns its absolute path and
    the warnings `notch validate` has for it (none for an ordinary name). Raises
    InitRefused, having written nothing, when `folder` is a file or a non-empty folder,
    its parent does not exist or cannot be written, or the filled-in files break a rule
    of `notch validate` (a name that makes the manifest invalid)."""
    folder = Path(os.path.abspath(folder.expanduser()))
    _check_target(folder)
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.notch-init-", dir=folder.parent))
    except OSError as exc:
        raise InitRefused(f"cannot write in {folder.parent}: {exc.strerror}") from None
    try:
        _fill(staging, names)
        problems = _checked(staging, folder)
        errors = [p for p in problems if p.is_error]
        if errors:
            raise InitRefused(
                "the new folder would not pass notch validate, so nothing was written:\n"
                + "\n".join(p.format() for p in errors)
            )
        _move_into_place(staging, folder)
    except InitRefused:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise InitRefused(
            f"could not write {folder} ({exc.strerror or exc}); nothing was written"
        ) from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return folder, problems


def _check_target(folder: Path) -> None:
    if folder.is_symlink():
        raise InitRefused(f"{folder} is a symbolic link; give a new folder's path")
    if folder.exists():
        if not folder.is_dir():
            raise InitRefused(f"{folder} is a file; give a new folder's path")
        entries = sorted(p.name for p in folder.iterdir())
        if entries:
            listed = ", ".join(entries[:3]) + (
                f" and {len(entries) - 3} more" if len(entries) > 3 else ""
            )
            raise InitRefused(
                f"{folder} is not empty ({listed}); notch init never writes over files: "
                "give a new or empty folder"
            )
    elif not folder.parent.is_dir():
        raise InitRefused(f"{folder.parent} does not exist; create it first, or give another DIR")


def _templates() -> Iterator[tuple[Path, Path]]:
    """(template file, its path inside the new folder) for every scaffold file."""
    root = bundled_folder("resources") / "scaffold"
    for path in sorted(root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            yield path, path.relative_to(root)


def _fill(staging: Path, names: ScaffoldNames) -> None:
    # The name lands inside JSON strings and one Python "..." string: escaped the JSON way,
    # which for text without control characters is also a valid Python string body.
    name_text = json.dumps(names.name, ensure_ascii=False)[1:-1]
    for template, relative in _templates():
        text = template.read_text(encoding="utf-8")
        text = text.replace("__NAME__", name_text).replace("__ID__", names.id)
        text = text.replace("__SLUG__", names.slug)
        target = staging / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    (staging / ICON_FILE).write_bytes(monogram_png(names))


def _checked(staging: Path, folder: Path) -> list[Problem]:
    from notch_app.manifest.validate import validate_path

    inside, final = str(staging), str(folder)
    return [
        dataclasses.replace(p, file=p.file.replace(inside, final, 1))
        for p in validate_path(staging)
    ]


def _move_into_place(staging: Path, folder: Path) -> None:
    if folder.is_dir():
        os.chmod(staging, folder.stat().st_mode & 0o7777)  # the empty folder's own mode
    else:
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(staging, 0o777 & ~mask)  # mkdtemp made it owner-only
    try:
        # One rename: DIR appears whole, or (when it is an empty folder) is replaced whole.
        os.rename(staging, folder)
    except OSError as exc:
        if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
            raise InitRefused(
                f"{folder} was filled by something else while notch init worked; nothing "
                "was written"
            ) from None
        raise exc


def monogram_png(names: ScaffoldNames) -> bytes:
    """A square icon: the name's first letter or digit, white on a rounded tile of a
    colour the id picks. Drawn with Qt offscreen (no display needed)."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, Qt
    from PySide6.QtGui import QColor, QFont, QImage, QPainter

    from notch_app.ui.headless import headless_app

    headless_app()
    letter = next((ch for ch in names.name if ch.isalnum()), names.slug[:1] or "?").upper()
    colour = _ICON_COLOURS[zlib.crc32(names.id.encode()) % len(_ICON_COLOURS)]
    image = QImage(ICON_PX, ICON_PX, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(colour))
        tile = QRectF(0, 0, ICON_PX, ICON_PX)
        painter.drawRoundedRect(tile, ICON_PX * 0.22, ICON_PX * 0.22)
        font = QFont()
        font.setPixelSize(int(ICON_PX * 0.56))
        font.setBold(True)
        painter.setFont(font)
        painter.setPen(QColor("#FFFFFF"))
        painter.drawText(tile, Qt.AlignmentFlag.AlignCenter, letter)
    finally:
        painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):  # type: ignore[call-overload]  # str works; stubs say bytes
        raise InitRefused(
            "could not draw icon.png (Qt has no PNG writer here); nothing was written"
        )
    return bytes(data.data())


def _shown(path: Path) -> str:
    # The folder as the person can type it: relative to here when it is below here.
    try:
        relative = path.relative_to(Path.cwd())
    except ValueError:
        return str(path)
    return str(relative) if str(relative) != "." else str(path)
