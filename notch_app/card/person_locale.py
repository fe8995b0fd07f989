"""Money and times as the person reads them: their locale, their time zone.

`money_text(1250, "EUR", locale="en_GB")` → "€1,250.00"; `when_text("2025-06-03T14:00",
minutes=30, ...)` → "Tue 3 Jun, 14:00–14:30 (in 2 days)". The formats come from CLDR
through Babel, so a German desktop reads "1.250,00 €" and "Di., 3. Juni". Qt-free; every
function here returns None (or the value as written) rather than raise on odd input.
"""

from __future__ import annotations

import functools
import math
import os
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any, Final

# Babel (its locale data, ~2 MiB) loads with the first amount or time said, not with
# every idle Notch (the headline code is imported by the overlay).
if TYPE_CHECKING:
    from babel import Locale

_FALLBACK: Final = "en"
_CURRENCY_CODE: Final = re.compile(r"^[A-Za-z]{3}$")
_MAX_AMOUNT: Final = Decimal(10) ** 15
"""Past this an amount is shown as written: no locale grouping makes 10^300 readable."""


_LOCALE_NAMES: Final = ("LC_ALL", "LC_MONETARY", "LC_TIME", "LANG")


def person_locale() -> str:
    """The desktop's locale for numbers and dates (`LC_ALL`, `LC_MONETARY`/`LC_TIME`,
    `LANG`), as a Babel identifier ("de_DE"); "en" where it says C/POSIX or nothing."""
    return _locale_of(tuple(os.environ.get(name, "") for name in _LOCALE_NAMES))


@functools.lru_cache(maxsize=8)
def _locale_of(values: tuple[str, ...]) -> str:
    # Kept per environment: a headline formats its amounts and times on every edit of
    # them, and parsing the locale was most of the cost.
    from babel import Locale, UnknownLocaleError

    for raw in values:
        tag = raw.split(".", 1)[0].split("@", 1)[0]
        if not tag or tag in ("C", "POSIX"):
            continue
        try:
            return str(Locale.parse(tag.replace("-", "_")))
        except (ValueError, UnknownLocaleError):
            continue
    return _FALLBACK


def _locale(locale: str | None) -> Locale:
    return _parsed_locale(locale or person_locale())


@functools.lru_cache(maxsize=16)
def _parsed_locale(identifier: str) -> Locale:
    from babel import Locale, UnknownLocaleError

    try:
        return Locale.parse(identifier)
    except (ValueError, TypeError, UnknownLocaleError):
        return Locale.parse(_FALLBACK)


# --- money ----------------------------------------------------------------------------


def as_amount(value: Any) -> Decimal | None:
    """A number an argument holds (1250, 1250.5, "1250.50"), or None: booleans, NaN,
    infinities and words are not amounts."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value):
            return None
        return Decimal(str(value))
    if isinstance(value, str) and value.strip():
        try:
            number = Decimal(value.strip().replace(",", ""))
        except InvalidOperation:
            return None
        return number if number.is_finite() else None
    return None


def money_text(amount: Any, currency: Any = None, *, locale: str | None = None) -> str | None:
    """`amount` with its currency in the person's locale ("€1,250.00"), the number alone
    when there is no usable ISO 4217 code ("1,250"), None when `amount` is no number."""
    number = as_amount(amount)
    if number is None:
        return None
    if abs(number) >= _MAX_AMOUNT:
        shown = format(number, "f")
        return f"{shown} {currency}".strip() if isinstance(currency, str) else shown
    code = currency.strip().upper() if isinstance(currency, str) else ""
    if not _CURRENCY_CODE.match(code):
        code = ""
    # The number's own digits are the key (1250 and 1250.0 may be said apart).
    return _money_said(str(number), code, locale or person_locale())


@functools.lru_cache(maxsize=256)
def _money_said(number: str, currency: str, locale: str) -> str:
    # Kept per amount: one card says its amount three or four times (the headline, the
    # author's title and the confirm button), and Babel's formatting is ~0.1 ms each.
    from babel.numbers import format_currency, format_decimal

    loc = _parsed_locale(locale)
    if currency:
        return str(format_currency(Decimal(number), currency, locale=loc))
    return str(format_decimal(Decimal(number), locale=loc))


# --- times ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Moment:
    """A time an argument holds: a date alone, or a date and time (with the zone it was
    written in, when it had one)."""

    at: datetime
    has_time: bool
    zoned: bool


def as_moment(value: Any) -> Moment | None:
    """An ISO 8601 date or date-time string ("2025-06-03", "2025-06-03T14:00",
    "2025-06-03T14:00:00+02:00", "…Z"), or None."""
    if not isinstance(value, str) or not 8 <= len(value.strip()) <= 40:
        return None
    text = value.strip()
    year = text[:4]
    if not (year.isascii() and year.isdigit()):
        return None  # every form fromisoformat reads starts with the year: no exception
    try:
        if "T" not in text and " " not in text:
            return Moment(
                datetime.combine(date.fromisoformat(text), datetime.min.time()), False, False
            )
        at = datetime.fromisoformat(text.replace("z", "Z"))
    except ValueError:
        return None
    return Moment(at, True, at.tzinfo is not None)


def current_time() -> datetime:
    """Now, in the system's zone. The one clock the card's words read: tests and golden
    pictures replace it to fix "(in 2 days)"."""
    return datetime.now().astimezone()


def _here(zone: tzinfo | None) -> tzinfo:
    if zone is not None:
        return zone
    local = current_time().tzinfo
    assert local is not None
    return local


def _offset_name(at: datetime) -> str:
    offset = at.utcoffset()
    if offset is None:
        return ""
    if offset == timedelta(0):
        return "UTC"
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "−"
    hours, rest = divmod(abs(minutes), 60)
    return f"UTC{sign}{hours}" + (f":{rest:02d}" if rest else "")


def _relative_day(day: date, today: date, loc: Locale) -> str:
    from babel.dates import format_timedelta

    days = (day - today).days
    if loc.language == "en":
        named = {0: "today", 1: "tomorrow", -1: "yesterday"}
        if days in named:
            return named[days]
    if days == 0:
        return str(format_timedelta(timedelta(0), locale=loc, granularity="day"))
    return str(
        format_timedelta(timedelta(days=days), add_direction=True, granularity="day", locale=loc)
    )


def when_text(
    start: Any,
    *,
    end: Any = None,
    minutes: Any = None,
    locale: str | None = None,
    now: datetime | None = None,
    zone: tzinfo | None = None,
) -> str | None:
    """A time in words: "Tue 3 Jun, 14:00–14:30 (in 2 days)"; None when `start` is no
    ISO date or date-time. `end` (a date-time) or `minutes` make it a span. A time
    written in another zone than the person's keeps its own clock and names the zone,
    with the person's clock beside it: "14:00 UTC+2 (13:00 your time)". The year shows
    only when it is not this year."""
    if as_moment(start) is None:
        return None
    here = _here(zone)
    reference = now or current_time()
    current = reference.astimezone(here) if reference.tzinfo else reference.replace(tzinfo=here)
    # The words depend on the clock only through today's date (the year, "tomorrow").
    # Types are part of the key: `minutes=True` is no length, though True == 1.
    identifier, today = locale or person_locale(), current.date()
    try:
        hash((end, minutes, here))
    except TypeError:  # an odd `end` or `minutes` (a list): said without keeping it
        return _when_words(start, end, minutes, identifier, here, today)
    kinds = f"{type(end).__name__} {type(minutes).__name__}"
    return _when_kept(start, end, minutes, kinds, identifier, here, today)


@functools.lru_cache(maxsize=256)
def _when_kept(
    start: Any, end: Any, minutes: Any, _kinds: str, locale: str, here: tzinfo, today: date
) -> str | None:
    # Kept per time and day: a card says its time in the headline and again in its
    # folded facts, and Babel's date formats take ~0.05–0.2 ms each.
    return _when_words(start, end, minutes, locale, here, today)


def _when_words(
    start: Any, end: Any, minutes: Any, locale: str, here: tzinfo, today: date
) -> str | None:
    from babel.dates import format_interval, format_skeleton, format_time

    moment = as_moment(start)
    if moment is None:
        return None
    loc = _parsed_locale(locale)
    at = moment.at
    if moment.zoned:
        local_at = at.astimezone(here)
        foreign = local_at.utcoffset() != at.utcoffset()
    else:
        at = at.replace(tzinfo=here)
        local_at, foreign = at, False
    finish: datetime | None = None
    end_moment = as_moment(end)
    if end_moment is not None and end_moment.has_time:
        finish = end_moment.at if end_moment.zoned else end_moment.at.replace(tzinfo=at.tzinfo)
        finish = finish.astimezone(at.tzinfo)
    else:
        length = as_amount(minutes)
        if length is not None and 0 < length <= 60 * 24 * 31:
            finish = at + timedelta(minutes=float(length))
    skeleton = "MMMEd" if at.year == today.year else "yMMMEd"
    day = str(format_skeleton(skeleton, at, locale=loc))
    relative = _relative_day(local_at.date(), today, loc)
    if not moment.has_time:
        return f"{day} ({relative})"
    if finish is not None and finish.date() == at.date() and finish > at:
        clock = str(format_interval(at, finish, "Hm" if _h24(loc) else "hm", locale=loc))
    else:
        clock = str(format_time(at, "short", locale=loc))
        if finish is not None and finish > at:
            clock += " – " + str(format_skeleton("MMMEd", finish, locale=loc)) + ", "
            clock += str(format_time(finish, "short", locale=loc))
    text = f"{day}, {clock}"
    if foreign:
        mine = str(format_time(local_at, "short", locale=loc))
        if local_at.date() != at.date():
            mine = str(format_skeleton("MMMEd", local_at, locale=loc)) + ", " + mine
        text += f" {_offset_name(at)} ({mine} your time, {relative})"
    else:
        text += f" ({relative})"
    return text


def _h24(loc: Locale) -> bool:
    pattern = str(loc.time_formats["short"].pattern)
    return "H" in pattern or "k" in pattern


def duration_text(minutes: Any) -> str | None:
    """ "30 min", "1 h 30 min", "2 h"; None for no number."""
    length = as_amount(minutes)
    if length is None or length <= 0:
        return None
    whole = int(length)
    hours, rest = divmod(whole, 60)
    if not hours:
        return f"{rest} min"
    return f"{hours} h" + (f" {rest} min" if rest else "")


__all__ = [
    "Moment",
    "as_amount",
    "as_moment",
    "current_time",
    "duration_text",
    "money_text",
    "person_locale",
    "when_text",
]
