"""The formats the fast path decides without jsonschema (manifest/schema/formats.py).

Each answers True only where jsonschema's own checker (the validator's) accepts too, so
the fast path stays never laxer; `date` is jsonschema's rule itself, so they agree both
ways. Loading the bundled integrations decides every fixture on the fast path, which is
what keeps jsonschema out of an idle Notch (tests/e2e/test_idle_imports.py).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from notch_app.manifest.model import Tool
from notch_app.manifest.schema.arguments import argument_problems
from notch_app.manifest.schema.fast_path import FAST_FORMATS, compile_fast_path, surely_valid
from notch_app.manifest.schema.formats import (
    FAST_CHECKS,
    SPECIAL_USE_DOMAINS,
    is_date,
    is_date_time,
    plain_address,
)
from notch_app.manifest.schema.validator import format_conforms
from notch_app.runtime.catalog import load_integrations

_JSONSCHEMA_DATE = Draft202012Validator.FORMAT_CHECKER

DATES = [
    "2026-12-03", "2024-02-29", "2023-02-29", "2026-13-01", "2026-00-10", "2026-1-01",
    "20261203", "2026-12-03T10:00:00Z", " 2026-12-03", "2026-12-03\n", "٢٠٢٦-١٢-٠٣",
    "0000-01-01", "9999-12-31", "", "2026-12-32",
]  # fmt: skip
DATE_TIMES = [
    "2026-12-03T10:00:00Z", "2026-12-03t10:00:00z", "2026-12-03T10:00:00.123+02:00",
    "2026-12-03T23:59:59-05:30", "2026-12-03 10:00:00Z", "2026-12-03T24:00:00Z",
    "2026-12-03T10:00:60Z", "2026-12-03T10:00:00", "2026-02-30T10:00:00Z",
    "2026-12-03T10:00Z", "tomorrow at ten", "2026-12-03T10:00:00+0200",
]  # fmt: skip


def test_date_is_jsonschemas_own_rule_on_a_corpus() -> None:
    for text in DATES:
        assert is_date(text) == _JSONSCHEMA_DATE.conforms(text, "date"), text
    assert is_date(42) is True  # not text: a format says nothing


@given(st.from_regex(r"\A[0-9٠-٩]{4}-[0-9]{1,2}-[0-9]{1,3}\Z") | st.text(max_size=12))
def test_date_agrees_with_jsonschema_on_generated_texts(text: str) -> None:
    assert is_date(text) == _JSONSCHEMA_DATE.conforms(text, "date")


def test_date_time_passes_rfc_3339_only() -> None:
    accepted = [text for text in DATE_TIMES if is_date_time(text)]
    assert accepted == DATE_TIMES[:4]


@given(st.text(max_size=40))
def test_every_fast_format_answer_is_one_the_validator_gives(text: str) -> None:
    for name, check in FAST_CHECKS.items():
        if check(text):
            assert format_conforms(name)(text), (name, text)


def _tool(schema: dict[str, Any]) -> Tool:
    return Tool.model_validate({"name": "t", "inputSchema": schema})


def test_a_date_time_argument_is_decided_on_the_fast_path_and_a_bad_one_still_worded() -> None:
    assert "date-time" in FAST_FORMATS
    tool = _tool(
        {"type": "object", "properties": {"at": {"type": "string", "format": "date-time"}}}
    )
    assert compile_fast_path(tool.input_schema) is not None
    assert surely_valid(tool, {"at": "2026-12-03T10:00:00Z"})
    assert not surely_valid(tool, {"at": "tomorrow"})  # not sure: jsonschema decides
    assert argument_problems(tool, {"at": 5}) != []


def test_every_bundled_fixture_is_decided_without_jsonschema() -> None:
    catalog, problems = load_integrations([])
    assert problems == []
    undecided = []
    for integration_id in catalog.ids():
        entry = catalog.entry(integration_id)
        assert entry is not None
        for name, fixture in entry.fixtures.tools.items() if entry.fixtures else []:
            tool = catalog.tool(integration_id, name)
            args = fixture.args
            if tool is not None and isinstance(args, dict) and not surely_valid(tool, args):
                undecided.append(f"{integration_id}/{name}")
    assert undecided == []


PLAIN = r"\A[A-Za-z0-9_+-]{1,70}(\.[A-Za-z0-9_+-]{1,8}){0,3}@([A-Za-z0-9-]{1,64}\.){0,4}[A-Za-z0-9-]{0,64}\Z"
"""Texts near the plain form and past its edges: long parts, hyphens at label ends, `--`."""
ADDRESSES = [
    "sam@example.com", "Sam.Lee+notch@Mail.Example.COM", "a@b", "a_b-c@x-y.io", "a@b.c1",
    "a@1.com", "a@b.1", "a@-b.com", "a@b-.com", "a@b..com", ".a@b.com", "a.@b.com", "a..b@c.d",
    "a@xn--bcher-kva.example", "a@ab--cd.com", "a@mail.test", "a@localhost", "a@x.onion",
    "a@example.arpa", "a@LOCAL", f"{'a' * 65}@b.com", f"a@{'b' * 64}.com", f"a@{'b' * 63}.com",
    f"{'a' * 64}@{'b' * 63}.{'c' * 63}.{'d' * 63}.{'e' * 57}", "a@b.com ", "a b@c.com",
]  # fmt: skip


def _email_validator_accepts(text: str, *, international: bool) -> bool:
    from email_validator import EmailNotValidError, validate_email

    try:
        validate_email(
            text, check_deliverability=False, globally_deliverable=False,
            allow_smtputf8=international, allow_quoted_local=True, allow_domain_literal=True,
        )  # fmt: skip
    except EmailNotValidError:
        return False
    return True


def test_the_plain_address_check_names_every_domain_email_validator_refuses() -> None:
    import email_validator

    assert set(email_validator.SPECIAL_USE_DOMAIN_NAMES) <= set(SPECIAL_USE_DOMAINS)


def test_a_plain_address_is_one_email_validator_accepts_on_a_corpus() -> None:
    said = {text: plain_address(text) for text in ADDRESSES}
    assert said["sam@example.com"] and said["Sam.Lee+notch@Mail.Example.COM"]
    for text, plain in said.items():
        if plain:
            for international in (False, True):
                assert _email_validator_accepts(text, international=international), text


@given(st.from_regex(PLAIN) | st.text(max_size=40))
def test_every_plain_address_is_one_email_validator_accepts(text: str) -> None:
    if plain_address(text):
        assert _email_validator_accepts(text, international=False), text
        assert _email_validator_accepts(text, international=True), text
