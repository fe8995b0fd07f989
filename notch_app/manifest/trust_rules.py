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

from notch_app.manifest.acting import read_only_contradicted
from notch_app.manifest.model import walk_blocks
from notch_app.manifest.paths import join_pointer
from notch_app.manifest.reading import Problem, SourceDocument, quote

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
    who: str
    """Whom the words claim to be, as the person reads it: "Apple", "the system"."""


def _words(text: str, *, case: bool = False) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w])(?:{text})(?![\w])", 0 if case else re.IGNORECASE)


CLAIMS: Final = (
    _Claim(_words("Apple", case=True), "Apple"),
    _Claim(_words(r"mac\s?OS|OS\s?X|iOS|iPadOS|iCloud|iPhone|iPad"), "Apple"),
    _Claim(_words(r"Software\s+Update"), "the system"),
    _Claim(
        _words(r"Microsoft|Windows\s+Update|Windows\s+Security|Windows\s+Defender"), "Microsoft"
    ),
    _Claim(_words("Windows", case=True), "Microsoft"),
    _Claim(_words(r"Google|Android|Gmail|Chrome\s?OS"), "Google"),
    _Claim(_words("System", case=True), "the system"),
    _Claim(_words(r"Security\s+(?:Update|Alert|Check)|Operating\s+System"), "the system"),
    _Claim(_words(r"Verified\s+by|Verified\s+publisher|Official\s+verification"), "a verifier"),
    # Notch in running text ("than Notch knows") is no claim; a text that opens with it,
    # or says Notch vouches, speaks as Notch.
    _Claim(
        re.compile(
            r"^\W*Notch(?![\w])|(?<![\w])Notch\s+(?:verified|approved|official|security|"
            r"update|system|alert|says|asks|confirms?)(?![\w])",
            re.IGNORECASE,
        ),
        "Notch itself",
    ),
)
"""Words that claim to be the operating system, a platform vendor, Notch itself or a
verifier. No publisher silences them: `publisher` is what the manifest says about
itself, and nothing checks it (issue 18: a self-declared "Apple Inc." made "macOS
Software Update" pass)."""

_SCREEN: Final = (
    "apple", "mac", "os x", "ios", "icloud", "iphone", "ipad", "update", "microsoft",
    "windows", "google", "android", "gmail", "chrome", "system", "security", "verified",
    "verification", "notch",
)  # fmt: skip
"""A word every claim holds (lower case, in the text's plain-letter reading): text with
none of them claims nothing, and is passed over without running the patterns."""

_BINDING_RE: Final = re.compile(r"\{\{.*?\}\}|<<.*?>>", re.DOTALL)
_TEXT_KEYS: Final = ("title", "subtitle", "text", "label")
_INVISIBLE: Final = frozenset({"Cf", "Mn", "Me", "Cc"})
"""Zero-width joiners and spaces, combining marks, controls: dropped before reading."""
_JOINERS_RE: Final = re.compile(r"(?<=[^\W_])[._\-·•*'’`~|/\\]+(?=[^\W_])")
"""Punctuation between two letters (`Ap.ple`, `mac-OS`): dropped before reading."""
_SPACED_RE: Final = re.compile(r"(?<![^\W_])[^\W_](?:[ \t\u00a0._\-·•*]{1,2}[^\W_]){2,}(?![^\W_])")
"""Three or more single letters each set apart (`V e r i f i e d`, `A.p.p.l.e`)."""
_SEPARATOR_RE: Final = re.compile(r"[ \t\u00a0._\-·•*]")
_DIGITS_AS_LETTERS: Final = str.maketrans({"0": "o", "1": "l", "|": "l"})


@dataclass(frozen=True, slots=True)
class FoundClaim:
    """A phrase that claims to be someone, as Notch read it."""

    phrase: str
    """The words as read (after look-alike letters and spacing were undone)."""
    who: str
    """Whom it claims to be: "Apple", "Microsoft", "Google", "the system", "Notch itself",
    "a verifier"."""
    disguised: bool
    """Only found once look-alike letters, spacing or invisible characters were undone."""


def _plain_letters(text: str) -> str:
    """`text` with every character that looks like a Latin letter or digit written as
    one (Unicode's confusables data, via `confusable-homoglyphs`), compatibility forms
    folded (NFKC: full-width, mathematical bold) and invisible characters dropped."""
    folded = unicodedata.normalize("NFKC", text)
    kept = "".join(ch for ch in folded if unicodedata.category(ch) not in _INVISIBLE)
    if kept.isascii():
        return kept
    from confusable_homoglyphs.confusables import confusables_data  # 0.1 s: only when needed

    out: list[str] = []
    for ch in kept:
        if ch.isascii():
            out.append(ch)
            continue
        latin = next(
            (
                h["c"]
                for h in confusables_data.get(ch, ())
                if len(h["c"]) == 1 and h["c"].isascii() and h["c"].isalnum()
            ),
            None,
        )
        if latin is None:  # an accented letter reads as its base letter: Ápple → Apple
            base = unicodedata.normalize("NFKD", ch)[:1]
            latin = base if base.isascii() and base.isalpha() else ch
        out.append(latin)
    return "".join(out)


def _readings(text: str) -> Iterator[tuple[str, bool]]:
    """The ways a person may read `text`, each with whether it differs from the letters
    as written: as written; with look-alike letters and invisible characters undone; with
    punctuation between letters and spaced-out letters joined."""
    literal = _BINDING_RE.sub(" ", text)
    yield literal, False
    plain = _plain_letters(literal)
    if plain != literal:
        yield plain, True
    joined = _JOINERS_RE.sub("", plain)
    if joined != plain:
        yield joined, True
    spaced = _SPACED_RE.findall(plain)
    if spaced:
        # Each spaced-out run read as a word; a wider gap between runs stays a space.
        squashed = _SPACED_RE.sub(lambda m: _SEPARATOR_RE.sub("", m.group(0)), plain)
        yield squashed, True
        for run in spaced:  # "VerifiedbyApple": the claim's words with no space between
            yield " ".join(re.findall(r"[A-Z][a-z]*|[a-z]+|\d+", _SEPARATOR_RE.sub("", run))), True
    digits = plain.translate(_DIGITS_AS_LETTERS)
    if digits != plain:  # G00gle, App1e
        yield digits, True


def find_claim(text: str) -> FoundClaim | None:
    """The first phrase of `text` that claims to be the operating system, a platform
    vendor, Notch itself or a verifier, also when spelled with look-alike letters, spaced
    out or with invisible characters; None when it claims nothing. Bindings are skipped:
    their values are the agent's. Bounded: text past 2,000 characters is not read."""
    text = text[:2000]
    for reading, disguised in _readings(text):
        lowered = reading.lower()
        if not any(word in lowered for word in _SCREEN):
            continue
        for claim in CLAIMS:
            found = claim.pattern.search(reading)
            if found is not None:
                return FoundClaim(" ".join(found.group(0).split()), claim.who, disguised)
    return None


def claim_in(text: str, publisher: str = "") -> str | None:
    """The first phrase of `text` that claims to be someone (see `find_claim`), else
    None. `publisher` is accepted for older callers and ignored: a publisher is what a
    manifest says about itself, so it never makes a claim true."""
    found = find_claim(text)
    return found.phrase if found is not None else None


def _claim_message(found: FoundClaim, what: str, publisher: str) -> str:
    how = " (written with look-alike letters, spacing or invisible characters)" * found.disguised
    return (
        f"{quote(found.phrase)}{how} claims to be {found.who}, but {what} is only what this "
        f"manifest says about itself (publisher: {publisher}); Notch shows who is really "
        "asking in the card's header and marks this name as unverified — describe what the "
        "integration does in its own words"
    )


def impersonation_problems(doc: SourceDocument, data: dict[str, Any]) -> Iterator[Problem]:
    """Warnings (`impersonation`) for a manifest name, summary, publisher, tool title or
    card text that claims to be the operating system, a platform vendor, Notch itself
    or a verifier, also when spelled with look-alike letters or spaced out. The publisher
    never silences them: it is self-declared."""
    raw_publisher = data.get("publisher")
    shown = f"{raw_publisher.get('name')!r}" if isinstance(raw_publisher, dict) else "not declared"
    if isinstance(raw_publisher, dict):
        for key in ("name", "id"):
            value = raw_publisher.get(key)
            found = find_claim(value) if isinstance(value, str) else None
            # Notch's own integrations say "Notch"; the strip's "Bundled with Notch",
            # which no manifest can write, is what tells them apart.
            if found is not None and found.who != "Notch itself":
                yield doc.problem(
                    f"/publisher/{key}",
                    "impersonation",
                    _claim_message(found, "the publisher", shown),
                    severity="warning",
                )
                break
    for pointer, text in _texts(data):
        found = find_claim(text)
        if found is not None:
            yield doc.problem(
                pointer,
                "impersonation",
                _claim_message(found, "its publisher", shown),
                severity="warning",
            )


def read_only_hint_problems(doc: SourceDocument, data: dict[str, Any]) -> Iterator[Problem]:
    """Warnings (`read-only-hint-contradicted`) for a tool marked `readOnlyHint: true`
    whose name or description says it deletes, sends, pays or writes: marked so, it runs
    without a card; through `notch mcp` as a bare server, Notch does not believe it."""
    tools = data.get("tools")
    for index, tool in enumerate(tools if isinstance(tools, list) else []):
        why = read_only_contradicted(tool) if isinstance(tool, dict) else None
        if why is not None:
            yield doc.problem(
                join_pointer("/tools", index, "annotations", "readOnlyHint"),
                "read-only-hint-contradicted",
                f"tool {quote(str(tool.get('name')))} says readOnlyHint: true, but {why}; "
                "Notch does not believe the hint and asks first (a card is generated if it "
                "has none), so if it acts remove the hint, and if it only reads, say so in "
                "its name and description",
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


__all__ = [
    "CLAIMS",
    "FoundClaim",
    "claim_in",
    "find_claim",
    "icon_problems",
    "impersonation_problems",
    "read_only_hint_problems",
]
