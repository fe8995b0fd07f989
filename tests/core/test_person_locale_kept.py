"""Amounts and times are said once per value and day, then kept: the kept words are the
words said fresh, and anything the words depend on (the type of a length, the locale, the
day, the zone) makes them be said again."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from notch_app.card import person_locale
from notch_app.card.person_locale import money_text, when_text

LONDON = timezone(timedelta(hours=1), "BST")
BERLIN = timezone(timedelta(hours=2), "CEST")
NOW = datetime(2025, 6, 1, 9, 0, tzinfo=LONDON)


def _fresh_when(start: Any, **kwargs: Any) -> str | None:
    person_locale._when_kept.cache_clear()
    return when_text(start, **kwargs)


def _fresh_money(amount: Any, currency: Any = None, **kwargs: Any) -> str | None:
    person_locale._money_said.cache_clear()
    return money_text(amount, currency, **kwargs)


@pytest.mark.parametrize(
    ("start", "kwargs"),
    [
        ("2025-06-03T14:00", {"minutes": 30}),
        ("2025-06-03T14:00", {"minutes": 30.0}),
        ("2025-06-03T14:00", {"minutes": "30"}),
        ("2025-06-03T14:00", {"minutes": True}),  # no length, though True == 1
        ("2025-06-03T14:00", {"minutes": 1}),
        ("2025-06-03T14:00", {"end": "2025-06-03T15:30"}),
        ("2025-06-03T14:00:00+02:00", {"minutes": 30}),
        ("2025-06-02", {}),
        ("2026-01-05T09:00", {}),
        ("2025-06-03T14:00", {"minutes": [30]}),  # unhashable: said, never kept
    ],
)
def test_a_kept_time_reads_as_the_time_said_fresh(start: str, kwargs: dict[str, Any]) -> None:
    for locale in ("en_GB", "de_DE"):
        fresh = _fresh_when(start, locale=locale, now=NOW, zone=LONDON, **kwargs)
        again = when_text(start, locale=locale, now=NOW, zone=LONDON, **kwargs)
        assert again == fresh


def test_a_length_of_true_and_a_length_of_one_are_said_apart() -> None:
    person_locale._when_kept.cache_clear()
    one = when_text("2025-06-03T14:00", minutes=1, locale="en_GB", now=NOW, zone=LONDON)
    true = when_text("2025-06-03T14:00", minutes=True, locale="en_GB", now=NOW, zone=LONDON)
    assert one == "Tue 3 Jun, 14:00–14:01 (in 2 days)"
    assert true == "Tue 3 Jun, 14:00 (in 2 days)"


def test_the_next_day_says_the_same_time_again() -> None:
    person_locale._when_kept.cache_clear()
    at = "2025-06-03T14:00"
    assert when_text(at, locale="en_GB", now=NOW, zone=LONDON) == "Tue 3 Jun, 14:00 (in 2 days)"
    later = NOW + timedelta(days=1)
    assert when_text(at, locale="en_GB", now=later, zone=LONDON) == "Tue 3 Jun, 14:00 (tomorrow)"
    next_year = datetime(2026, 1, 1, 9, 0, tzinfo=LONDON)
    said = when_text(at, locale="en_GB", now=next_year, zone=LONDON)
    assert said == "Tue, 3 Jun 2025, 14:00 (7 months ago)"


def test_another_zone_or_locale_says_the_time_again() -> None:
    person_locale._when_kept.cache_clear()
    at = "2025-06-03T14:00:00+02:00"
    here = when_text(at, locale="en_GB", now=NOW, zone=LONDON)
    assert here == "Tue 3 Jun, 14:00 UTC+2 (13:00 your time, in 2 days)"
    assert when_text(at, locale="en_GB", now=NOW, zone=BERLIN) == "Tue 3 Jun, 14:00 (in 2 days)"
    assert when_text(at, locale="de_DE", now=NOW, zone=LONDON) != here


@pytest.mark.parametrize(
    ("amount", "currency"),
    [
        (1250, "EUR"),
        (1250.0, "EUR"),
        ("1250.50", "eur "),
        (1250, "usd"),
        (1250.5, None),
        (1250, "not a code"),
        (0.1, "JPY"),
        (10**16, "EUR"),
        (True, "EUR"),
        ("soon", "EUR"),
    ],
)
def test_a_kept_amount_reads_as_the_amount_said_fresh(amount: Any, currency: Any) -> None:
    for locale in ("en_GB", "de_DE"):
        fresh = _fresh_money(amount, currency, locale=locale)
        assert money_text(amount, currency, locale=locale) == fresh


def test_the_desktop_locale_is_read_for_each_amount(monkeypatch: pytest.MonkeyPatch) -> None:
    person_locale._money_said.cache_clear()
    for name in ("LC_ALL", "LC_MONETARY", "LC_TIME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "en_GB.UTF-8")
    assert money_text(1250, "EUR") == "€1,250.00"
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    assert money_text(1250, "EUR") == "1.250,00\xa0€"
