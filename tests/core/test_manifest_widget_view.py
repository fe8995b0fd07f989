"""A confirmation view whose root is a sandboxed HTML widget (issue 11 §2), as a manifest
author meets it in `notch validate`: valid as the root of Notch's own manifests and of
VoiceOS files, refused anywhere else with the fix, its page bounded, its data bindings
checked like any; and where QtWebEngine is missing, the tool asks with its generated card
exactly as before (nothing new to read in `notch validate`)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from notch_app.manifest.integration import load_integration
from notch_app.manifest.model import WidgetBlock
from notch_app.manifest.model import view as view_module
from notch_app.manifest.model.view import MAX_WIDGET_HTML_BYTES
from notch_app.manifest.reading import Problem
from notch_app.manifest.validate import check_file

PAGE = "<!doctype html><p id=to></p><script>addEventListener('message',()=>{})</script>"

TOOL: dict[str, Any] = {
    "name": "send_message",
    "title": "Send message",
    "description": "Send a chat message.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "to": {"type": "string"},
            "body": {"type": "string"},
            "urgent": {"type": "boolean"},
        },
        "required": ["to", "body"],
    },
    "confirmation": {
        "schemaVersion": 1,
        "root": {
            "type": "widget",
            "html": PAGE,
            "height": 180,
            "label": "The message as it will look",
            "data": {"to": "{{to}}", "body": "{{body}}", "line": "For {{to}}", "fixed": [1, 2]},
            "confirmLabel": "Send message",
        },
    },
}


def _manifest(tool: dict[str, Any]) -> dict[str, Any]:
    return {
        "schemaVersion": 1,
        "id": "com.example.chat",
        "version": "1.0.0",
        "name": "Chat",
        "summary": "Chat messages.",
        "tools": [tool],
    }


def _write(folder: Path, name: str, tool: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(_manifest(tool), indent=2), encoding="utf-8")
    return path


def _check(tmp_path: Path, tool: dict[str, Any], name: str = "manifest.json") -> list[Problem]:
    return check_file(_write(tmp_path / "chat", name, tool))


def _rules(problems: list[Problem], severity: str = "error") -> list[str]:
    return [p.rule for p in problems if p.severity == severity]


@pytest.fixture
def engine(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Say whether QtWebEngine is installed, whatever this machine has."""

    def set_installed(installed: bool) -> None:
        monkeypatch.setattr(view_module, "web_engine_installed", lambda: installed)

    set_installed(True)
    return set_installed


@pytest.mark.parametrize("name", ["manifest.json", "voiceos.integration.json"])
def test_a_widget_root_is_a_valid_view_drawn_as_a_widget(
    tmp_path: Path, engine: Any, name: str
) -> None:
    problems = _check(tmp_path, TOOL, name)
    assert _rules(problems) == [], [p.format() for p in problems]
    # Notch lists every argument under the page: no "argument not shown", no footer rules.
    assert _rules(problems, "warning") == [], [p.format() for p in problems]
    integration, _ = load_integration(tmp_path / "chat")
    assert integration is not None
    confirmation = integration.manifest.tools[0].confirmation
    assert confirmation is not None
    root = confirmation.root
    assert isinstance(root, WidgetBlock)
    assert root.html == PAGE and root.height == 180 and root.confirm_label == "Send message"


def test_a_widget_inside_a_card_is_an_error_naming_the_fix(tmp_path: Path, engine: Any) -> None:
    tool = copy.deepcopy(TOOL)
    widget = tool["confirmation"]["root"]
    tool["confirmation"]["root"] = {
        "type": "card",
        "title": "Send",
        "children": [{"type": "text", "text": "{{to}} {{body}} {{urgent}}"}, widget],
        "footer": [
            {
                "type": "actions",
                "items": [
                    {"label": "Cancel", "role": "cancel"},
                    {"label": "Send", "role": "confirm"},
                ],
            }
        ],
    }
    problems = _check(tmp_path, tool)
    nested = [p for p in problems if p.rule == "widget-not-root"]
    assert len(nested) == 1 and nested[0].is_error
    assert nested[0].pointer == "/tools/0/confirmation/root/children/1/type"
    assert "make it the root" in nested[0].message


def test_a_nested_widget_in_a_voiceos_file_asks_with_the_generated_card(
    tmp_path: Path, engine: Any
) -> None:
    tool = copy.deepcopy(TOOL)
    tool["confirmation"]["root"] = {
        "type": "card",
        "children": [tool["confirmation"]["root"]],
    }
    problems = _check(tmp_path, tool, "voiceos.integration.json")
    assert _rules(problems) == []
    assert "confirmation-generated" in _rules(problems, "warning")
    assert "widget-not-root" in _rules(problems, "warning")
    integration, _ = load_integration(tmp_path / "chat")
    assert integration is not None
    confirmation = integration.manifest.tools[0].confirmation
    assert confirmation is not None
    root = confirmation.root
    assert root.type == "card"


@pytest.mark.parametrize(
    ("data", "rule"),
    [
        ({"who": "{{recipient}}"}, "binding-unknown-argument"),
        ({"deep": {"list": ["{{to.name}}"]}}, "binding-into-scalar"),
        ({"who": "{{ to..x }}"}, "binding-malformed"),
    ],
)
def test_data_bindings_are_checked_like_any_binding(
    tmp_path: Path, engine: Any, data: dict[str, Any], rule: str
) -> None:
    tool = copy.deepcopy(TOOL)
    tool["confirmation"]["root"]["data"] = data
    problems = _check(tmp_path, tool)
    assert rule in _rules(problems), [p.format() for p in problems]
    assert all(p.pointer.startswith("/tools/0/confirmation/root/data") for p in problems)


def test_braces_in_the_page_itself_are_its_own_text(tmp_path: Path, engine: Any) -> None:
    tool = copy.deepcopy(TOOL)
    tool["confirmation"]["root"]["html"] = "<script>var t = `{{ not a binding }}`</script>"
    assert _rules(_check(tmp_path, tool)) == []


def test_a_page_over_the_size_limit_is_refused_with_its_size(tmp_path: Path, engine: Any) -> None:
    tool = copy.deepcopy(TOOL)
    # Within the character limit, over the byte limit: 3 bytes per character.
    tool["confirmation"]["root"]["html"] = "€" * (MAX_WIDGET_HTML_BYTES // 3 + 10)
    problems = _check(tmp_path, tool)
    assert any(
        p.is_error and p.pointer.endswith("/root/html") and f"{MAX_WIDGET_HTML_BYTES}" in p.message
        for p in problems
    ), [p.format() for p in problems]
    tool["confirmation"]["root"]["html"] = "x" * (MAX_WIDGET_HTML_BYTES + 1)
    assert "limit-string-length" in _rules(_check(tmp_path, tool))


@pytest.mark.parametrize(
    ("change", "where"),
    [
        ({"height": 0}, "height"),
        ({"height": 5000}, "height"),
        ({"html": ""}, "html"),
        ({"onApprove": "x"}, "onApprove"),
    ],
)
def test_the_block_is_closed_and_bounded(
    tmp_path: Path, engine: Any, change: dict[str, Any], where: str
) -> None:
    tool = copy.deepcopy(TOOL)
    tool["confirmation"]["root"].update(change)
    problems = [p for p in _check(tmp_path, tool) if p.is_error]
    assert problems and all(p.pointer.endswith("/root/" + where) for p in problems), [
        p.format() for p in problems
    ]


@pytest.mark.parametrize("name", ["manifest.json", "voiceos.integration.json"])
def test_without_qtwebengine_the_tool_asks_with_its_generated_card_as_before(
    tmp_path: Path, engine: Any, name: str
) -> None:
    engine(False)
    problems = _check(tmp_path, TOOL, name)
    assert _rules(problems) == []
    assert _rules(problems, "warning") == ["confirmation-generated"]
    assert "does not draw" in next(p.message for p in problems)
    integration, _ = load_integration(tmp_path / "chat")
    assert integration is not None
    tool = integration.manifest.tools[0]
    assert tool.confirmation is not None and tool.confirmation.root.type == "card"
    # The generated card keeps the author's words for the confirm button.
    assert "Send message" in json.dumps(tool.confirmation.model_dump(by_alias=True))


def test_the_engine_is_looked_up_without_importing_qt() -> None:
    import sys

    view_module.web_engine_installed.cache_clear()
    before = {m for m in sys.modules if m.startswith("PySide6.QtWebEngine")}
    found = view_module.web_engine_installed()
    assert isinstance(found, bool)
    assert {m for m in sys.modules if m.startswith("PySide6.QtWebEngine")} == before
