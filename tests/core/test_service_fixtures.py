"""The in-memory mail integration the service and IPC tests share (tests/core/conftest.py)
is what they assume: two tools that ask first and one read-only tool."""

from __future__ import annotations

from notch_app.runtime.catalog import Catalog


def test_the_sample_integration_loads_with_one_read_only_tool(mail_catalog: Catalog) -> None:
    tools = mail_catalog.describe()[0]["tools"]
    assert [t["name"] for t in tools if not t["confirms"]] == ["search_mail"]
