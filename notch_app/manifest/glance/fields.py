"""The fields a glance block is made of: bounded plain text, numbers that read as
JavaScript prints them, the icon set, apps' icons and time zones.

A field that breaks its rule (an over-long string, a control character, an unknown icon)
drops its whole block, with a reason that names the field and the fix (`reasons.py`).
"""

from __future__ import annotations

import functools
import math
import re
import zoneinfo
from typing import Annotated, Final, Literal, get_args

from pydantic import AfterValidator, BeforeValidator, Strict, StringConstraints
from pydantic_core import PydanticCustomError

MAX_GLANCE_TITLE_CHARS: Final = 60

_IconName = Literal[
    "calendar", "clock", "timer", "bed", "car", "mail", "message", "music", "sun", "moon",
    "cloud", "rain", "star", "folder", "file", "globe", "pin", "phone", "person", "heart",
    "bolt", "check", "x", "mic", "note", "list", "battery", "chart", "dollar", "home", "wifi",
    "coffee", "plane", "sparkle",
]  # fmt: skip
GLANCE_ICONS: Final[tuple[str, ...]] = get_args(_IconName)
"""The icon names a glance may use, each drawn by the notch in both themes."""

Tone = Literal["neutral", "good", "bad"]

# --- bounds (each one a whole-block drop with a reason, as VoiceOS drops over-cap blocks) --

_MAX_SUBTITLE_CHARS: Final = 80  # the public integrations trim subtitles to 72
_MAX_VALUE_CHARS: Final = 80  # ... and keyValue values to 64
_MAX_LABEL_CHARS: Final = 32
_MAX_TRAILING_CHARS: Final = 40  # header trailing: trimmed to 24 and 40 in the wild
_MAX_BADGE_CHARS: Final = 32
_MAX_DELTA_CHARS: Final = 24
_MAX_UNIT_CHARS: Final = 12
_MAX_APP_ICON_CHARS: Final = 64
_MAX_NUMBER: Final = 1e15
"""Numbers to draw stay within ±1e15 (beyond it a float no longer counts in ones)."""

# --- text -------------------------------------------------------------------------------

# C0 controls other than tab/newline/CR, DEL, and lone UTF-16 surrogates (not characters).
_UNSHOWABLE: Final = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
SURROGATE: Final = re.compile(r"[\ud800-\udfff]")
_APP_ICON: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_TZ_NAME: Final = re.compile(r"[A-Za-z][A-Za-z0-9_+\-]*(?:/[A-Za-z0-9_+\-]+)*")
_ICON_SET: Final = frozenset(GLANCE_ICONS)


def _showable(text: str) -> str:
    found = _UNSHOWABLE.search(text)
    if found is not None:
        what = "a lone surrogate" if "\ud800" <= found.group() <= "\udfff" else "a control"
        raise PydanticCustomError(
            "glance_text", f"holds {what} character; remove it (plain text only)"
        )
    return text


def number_as_text(value: object) -> object:
    """A JSON number written where text is shown (a stat's value, a trailing count) reads as
    the text JavaScript would print; anything else goes on to the text check unchanged."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        if abs(value) > _MAX_NUMBER:
            raise PydanticCustomError(
                "glance_number", "a number too large to show; write it as text"
            )
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value) or abs(value) > _MAX_NUMBER:
            raise PydanticCustomError("glance_number", "not a finite number; write it as text")
        return str(int(value)) if value.is_integer() else repr(value)
    return value


def _glance_icon(name: str) -> str:
    if name not in _ICON_SET:
        raise PydanticCustomError(
            "glance_icon",
            "{name} is not a glance icon; use one of " + ", ".join(GLANCE_ICONS),
            {"name": repr(name[:40])},
        )
    return name


def _app_icon(name: str) -> str:
    if _APP_ICON.fullmatch(name) is None:
        raise PydanticCustomError(
            "glance_app_icon", "is an app's name (letters, digits, . _ -), like 'whatsapp'"
        )
    return name


@functools.lru_cache(maxsize=256)
def _zone_known(name: str) -> bool:
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        return False
    return True


def time_zone(name: str) -> str:
    if _TZ_NAME.fullmatch(name) is None or ".." in name or not _zone_known(name):
        raise PydanticCustomError(
            "glance_tz",
            "{name} is not a time zone this machine knows; write an IANA name like "
            "'Europe/Madrid' or 'UTC'",
            {"name": repr(name[:40])},
        )
    return name


def _finite(value: float) -> float:
    if not math.isfinite(value) or abs(value) > _MAX_NUMBER:
        raise PydanticCustomError("glance_number", "must be a finite number within ±1e15")
    return value


# Text fields: strictly text (a number is not coerced), bounded, plain characters only.
Title = Annotated[
    str,
    Strict(),
    StringConstraints(min_length=1, max_length=MAX_GLANCE_TITLE_CHARS),
    AfterValidator(_showable),
]
Subtitle = Annotated[
    str, Strict(), StringConstraints(max_length=_MAX_SUBTITLE_CHARS), AfterValidator(_showable)
]
Label = Annotated[
    str,
    Strict(),
    StringConstraints(min_length=1, max_length=_MAX_LABEL_CHARS),
    AfterValidator(_showable),
]
ChartLabel = Annotated[
    str, Strict(), StringConstraints(max_length=_MAX_LABEL_CHARS), AfterValidator(_showable)
]
Unit = Annotated[
    str, Strict(), StringConstraints(max_length=_MAX_UNIT_CHARS), AfterValidator(_showable)
]
BadgeText = Annotated[
    str,
    Strict(),
    StringConstraints(min_length=1, max_length=_MAX_BADGE_CHARS),
    AfterValidator(_showable),
]
# Values to display: a JSON number is read as the text JavaScript would print.
Trailing = Annotated[
    str,
    Strict(),
    StringConstraints(max_length=_MAX_TRAILING_CHARS),
    BeforeValidator(number_as_text),
    AfterValidator(_showable),
]
ShownValue = Annotated[
    str,
    Strict(),
    StringConstraints(max_length=_MAX_VALUE_CHARS),
    BeforeValidator(number_as_text),
    AfterValidator(_showable),
]
StatValue = Annotated[
    str,
    Strict(),
    StringConstraints(max_length=_MAX_LABEL_CHARS),
    BeforeValidator(number_as_text),
    AfterValidator(_showable),
]
Delta = Annotated[
    str,
    Strict(),
    StringConstraints(max_length=_MAX_DELTA_CHARS),
    BeforeValidator(number_as_text),
    AfterValidator(_showable),
]
Icon = Annotated[str, Strict(), AfterValidator(_glance_icon)]
AppIcon = Annotated[
    str,
    Strict(),
    StringConstraints(min_length=1, max_length=_MAX_APP_ICON_CHARS),
    AfterValidator(_app_icon),
]
Number = Annotated[float, Strict(), AfterValidator(_finite)]
