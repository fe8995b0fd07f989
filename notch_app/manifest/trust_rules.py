"""Rules about who a manifest says it is: its icon file, and words that claim to be the
operating system or another vendor.

Notch's own chrome names the integration and its publisher on every card; these rules
keep a manifest from dressing up as something else inside the card (issue 9: a
"macOS Software Update" card with a "Verified by Apple" badge validated clean).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PureWindowsPath
from typing import Any, Final

from notch_app.manifest.problems import Problem, join_pointer, quote
from notch_app.manifest.source import SourceDocument
from notch_app.manifest.view import walk_blocks

_SCHEME_RE: Final = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_EMOJI_CATEGORIES: Final = frozenset({"So", "Sk", "Mn", "Me", "Cf"})


def _is_emoji(icon: str) -> bool:
    # "A single emoji" (model.py): symbols with their joiners and variation selectors.
    return 0 < len(icon) <= 16 and all(unicodedata.category(ch) in _EMOJI_CATEGORIES for ch in icon)


def icon_problems(doc: SourceDocument, data: dict[str, Any]) -> Iterator[Problem]:
    """`icon`: a data: URI, a single emoji, or a file inside the integration's folder
    that exists. A missing file is `icon-missing`; an absolute path, `..`, a URL or a
    symlink that leads out of the folder is `icon-outside-folder`."""
    icon = data.get("icon")
    if not isinstance(icon, str) or icon.startswith("data:") or _is_emoji(icon):
        return
    folder = doc.path.parent
    written = icon.replace("\\", "/")
    outside = (
        written.startswith(("/", "~"))  # "~" is never expanded: it means a home folder
        or PureWindowsPath(icon).is_absolute()
        or bool(PureWindowsPath(icon).drive)
        or _SCHEME_RE.match(icon) is not None
        or ".." in written.split("/")
    )
    found = False
    if not outside:
        try:
            target = (folder / written).resolve()
            outside = not target.is_relative_to(folder.resolve())
            found = target.is_file()
        except RuntimeError:  # a symlink loop: it leads nowhere inside
            outside = True
        except (OSError, ValueError):  # a NUL byte, a name too long: no such file
            found = False
    if outside:
        yield doc.problem(
            "/icon",
            "icon-outside-folder",
            f"icon {quote(icon)} points outside the integration's folder ({folder.name}); "
            "Notch reads nothing outside it — copy the image into the folder and name it "
            'relative to the manifest, e.g. "icon.svg"',
        )
        return
    if not found:
        yield doc.problem(
            "/icon",
            "icon-missing",
            f"icon {quote(icon)} names no file in the integration's folder ({folder.name}); "
            "add the file or fix the name",
        )


@dataclass(frozen=True, slots=True)
class _Claim:
    pattern: re.Pattern[str]
    owner: str | None
    """The vendor who may say it (matched against the publisher), None: nobody."""


def _words(text: str, *, case: bool = False) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w])(?:{text})(?![\w])", 0 if case else re.IGNORECASE)


CLAIMS: Final = (
    _Claim(_words("Apple", case=True), "apple"),
    _Claim(_words(r"mac\s?OS|OS\s?X|iOS|iCloud|iPhone|iPad"), "apple"),
    _Claim(_words(r"Software\s+Update"), "apple"),
    _Claim(
        _words(r"Microsoft|Windows\s+Update|Windows\s+Security|Windows\s+Defender"), "microsoft"
    ),
    _Claim(_words("Windows", case=True), "microsoft"),
    _Claim(_words(r"Google|Android|Gmail|Chrome\s?OS"), "google"),
    _Claim(_words(r"System\s+(?:Update|Settings|Preferences|Alert|Message|Notification)"), None),
    _Claim(_words(r"Security\s+(?:Update|Alert)|Operating\s+System"), None),
    _Claim(_words(r"Verified\s+by|Notch\s+(?:verified|approved)"), None),
)
"""Words that claim to be the operating system or a vendor. Short on purpose: it catches
the usual disguises, and a real vendor's publisher may still use its own name."""

_SCREEN: Final = (
    "apple", "mac", "os x", "ios", "icloud", "iphone", "ipad", "update", "microsoft",
    "windows", "google", "android", "gmail", "chrome", "system", "security", "verified",
    "approved",
)  # fmt: skip
"""A word every claim holds (lower case): text with none of them claims nothing, and is
passed over without running the patterns."""


def _may_claim(text: str) -> bool:
    lowered = text.lower()
    return any(word in lowered for word in _SCREEN)


_BINDING_RE: Final = re.compile(r"\{\{.*?\}\}|<<.*?>>", re.DOTALL)
_TEXT_KEYS: Final = ("title", "subtitle", "text", "label")


def claim_in(text: str, publisher: str) -> str | None:
    """The first phrase of `text` that claims to be someone `publisher` (its name and id,
    lower case) is not, else None. Bindings are skipped: their values are the agent's."""
    if not _may_claim(text):
        return None
    literal = _BINDING_RE.sub(" ", text)
    for claim in CLAIMS:
        found = claim.pattern.search(literal)
        if found is not None and (claim.owner is None or claim.owner not in publisher):
            return found.group(0)
    return None


def impersonation_problems(doc: SourceDocument, data: dict[str, Any]) -> Iterator[Problem]:
    """Warnings (`impersonation`) for a manifest name, tool title or card text that
    claims to be the operating system or a vendor other than the publisher."""
    if not _may_claim(doc.text):
        return  # one pass over the file: most manifests claim nothing anywhere
    raw_publisher = data.get("publisher")
    publisher = ""
    if isinstance(raw_publisher, dict):
        publisher = " ".join(
            str(raw_publisher.get(k, ""))
            for k in ("id", "name")
            if isinstance(raw_publisher.get(k), str)
        ).lower()
    shown = f"{raw_publisher.get('name')!r}" if isinstance(raw_publisher, dict) else "not declared"
    for pointer, text in _texts(data):
        phrase = claim_in(text, publisher)
        if phrase is not None:
            yield doc.problem(
                pointer,
                "impersonation",
                f"{quote(phrase)} claims to be the operating system or a vendor, but this "
                f"integration's publisher is {shown}; Notch shows who is really asking in "
                "the card's header — describe what the integration does in its own words",
                severity="warning",
            )


def _texts(data: dict[str, Any]) -> Iterator[tuple[str, str]]:
    for key in ("name", "summary"):
        if isinstance(data.get(key), str):
            yield "/" + key, data[key]
    tools = data.get("tools")
    if not isinstance(tools, list):
        return
    for index, tool in enumerate(tools):
        if not isinstance(tool, dict):
            continue
        base = join_pointer("/tools", index)
        if isinstance(tool.get("title"), str):
            yield base + "/title", tool["title"]
        view = tool.get("confirmation")
        root = view.get("root") if isinstance(view, dict) else None
        if not isinstance(root, dict):
            continue
        for visit in walk_blocks(root, base + "/confirmation/root", action_items=True):
            block = visit.block
            for key in _TEXT_KEYS:
                if isinstance(block.get(key), str):
                    yield join_pointer(visit.pointer, key), block[key]
            items = block.get("items") if block.get("type") in ("keyValue", "metadata") else None
            for i, item in enumerate(items if isinstance(items, list) else []):
                for key in ("label", "value"):
                    if isinstance(item, dict) and isinstance(item.get(key), str):
                        yield join_pointer(visit.pointer, "items", i, key), item[key]


__all__ = ["CLAIMS", "claim_in", "icon_problems", "impersonation_problems"]
