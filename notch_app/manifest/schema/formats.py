"""The `format`s the fast path decides, without jsonschema.

`format: email` / `idn-email` are email-validator's syntax check, the very function the
validator registers for them (`validator.py`). `date` is jsonschema's own rule (four,
two and two digits, then a real calendar day), written again here so that checking a
plain schema never imports jsonschema: an idle Notch whose bundled fixtures are all
decided here stays ~4 MiB smaller (benchmarks/README-overlay.md). `date-time` is RFC 3339
read strictly (no leap second); jsonschema checks it only when `rfc3339-validator` is
installed, which accepts everything this does. Each predicate answers True only when the
value surely conforms; False sends the check to jsonschema, which words the problem.
A test holds them to jsonschema's checker on a corpus.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any, Final

MAX_EMAIL_CHARS: Final = 320
"""Longer than any address can be (RFC 5321: 64 before the @, 255 after): refused unread."""

_DATE: Final = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)
_DATE_TIME: Final = re.compile(
    r"(\d{4}-\d{2}-\d{2})[Tt](?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?"
    r"(?:[Zz]|[+-](?:[01]\d|2[0-3]):[0-5]\d)",
    re.ASCII,
)


def email_address(instance: object, *, international: bool) -> bool:
    """`format: email` as RFC 5321 writes an address (`idn-email`: RFC 6531, letters
    beyond ASCII too), through email-validator's syntax check: jsonschema's own check is
    only for an "@" somewhere, so "sam@" passed. No DNS: whether the domain takes mail is
    the tool's to find out. A domain without a dot is allowed (RFC 5321 allows it).
    Raises EmailNotValidError for a text that is not an address."""
    from email_validator import EmailNotValidError, validate_email

    if not isinstance(instance, str):
        return True
    if len(instance) > MAX_EMAIL_CHARS:
        raise EmailNotValidError("is longer than an email address can be")
    validate_email(
        instance,
        check_deliverability=False,
        globally_deliverable=False,
        allow_smtputf8=international,
        allow_quoted_local=True,
        allow_domain_literal=True,
    )
    return True


def _calendar_day(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def is_date(instance: object) -> bool:
    """jsonschema's `date`: YYYY-MM-DD (ASCII digits) naming a real day; not text: True."""
    if not isinstance(instance, str):
        return True
    return _DATE.fullmatch(instance) is not None and _calendar_day(instance)


def is_date_time(instance: object) -> bool:
    """RFC 3339 `date-time` (a real day, hours 00-23, seconds 00-59, an offset or Z);
    not text: True."""
    if not isinstance(instance, str):
        return True
    found = _DATE_TIME.fullmatch(instance)
    return found is not None and _calendar_day(found.group(1))


def _surely(conforms: Callable[[object], bool]) -> Callable[[Any], bool]:
    def surely(value: Any) -> bool:
        try:
            return conforms(value)
        except Exception:  # the checker refused it: not sure, jsonschema says what
            return False

    return surely


_PLAIN_ADDRESS: Final = re.compile(
    r"[A-Za-z0-9_+-]+(?:\.[A-Za-z0-9_+-]+)*"
    r"@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*(?:[A-Za-z0-9][A-Za-z0-9-]{0,61})?"
    r"[A-Za-z]",
    re.ASCII,
)
"""An address of the plainest kind (`sam.lee+notch@mail.example.com`): dot-separated
runs of letters, digits, `_ + -` before the @; after it, labels of letters, digits and
inner hyphens, the last one ending with a letter."""
SPECIAL_USE_DOMAINS: Final = ("arpa", "invalid", "local", "localhost", "onion", "test")
"""email-validator's `SPECIAL_USE_DOMAIN_NAMES`, which it refuses under any options (a
test holds this to the library's list)."""


def plain_address(text: str) -> bool:
    """True for an address email-validator surely accepts with the options `email_address`
    gives it, decided without importing it (its import compiles regular expressions over
    all of Unicode: ~30 ms of CPU, paid by every `notch` start whose fixtures hold an
    address). A subset of its rules: the plain form, within every length it counts
    (254 in all, 64 before the @, 253 after, 63 a label), no `--` anywhere after the @
    (its rule for labels like `ab--c`, Punycode's `xn--` included) and no special-use
    domain. False is "not sure": the caller asks email-validator."""
    if len(text) > 254 or _PLAIN_ADDRESS.fullmatch(text) is None:
        return False
    local, _, domain = text.partition("@")
    if len(local) > 64 or len(domain) > 253 or "--" in domain:
        return False
    domain = domain.lower()
    return not any(domain == d or domain.endswith("." + d) for d in SPECIAL_USE_DOMAINS)


def _email(value: object) -> bool:
    if isinstance(value, str) and plain_address(value):
        return True
    return email_address(value, international=False)


def _idn_email(value: object) -> bool:
    if isinstance(value, str) and plain_address(value):
        return True
    return email_address(value, international=True)


FAST_CHECKS: Final[dict[str, Callable[[Any], bool]]] = {
    "email": _surely(_email),
    "idn-email": _surely(_idn_email),
    "date": _surely(is_date),
    "date-time": _surely(is_date_time),
}
"""Per format the fast path decides: True when the value surely conforms."""
