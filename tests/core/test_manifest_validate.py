"""`notch validate` as a person uses it: output lines, JSON, exit codes, no Qt."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from notch_app.cli import main
from notch_app.manifest.integration import Integration, load_integration
from notch_app.manifest.reading import find_integrations

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).parent / "corpus"
SPEC_CONFIRMATION = (CORPUS / "elevenlabs-spec-confirmation.txt").read_text(encoding="utf-8")


def _elevenlabs_manifest() -> str:
    """A manifest whose generate_speech tool holds the spec's confirmation, verbatim."""
    return (
        "{\n"
        '  "schemaVersion": 1,\n'
        '  "id": "io.elevenlabs",\n'
        '  "version": "1.0.0",\n'
        '  "name": "ElevenLabs",\n'
        '  "tools": [\n'
        "    {\n"
        '      "name": "generate_speech",\n'
        '      "inputSchema": {"type": "object", "properties": {\n'
        '        "text": {"type": "string"},\n'
        '        "voice": {"type": "string", "enum": ["rachel", "adam", "bella"]}},\n'
        '        "required": ["text", "voice"]},\n' + SPEC_CONFIRMATION + "\n    }\n  ]\n}\n"
    )


def test_the_spec_elevenlabs_card_validates_verbatim(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "manifest.json"
    path.write_text(_elevenlabs_manifest(), encoding="utf-8")
    assert main(["validate", str(path)]) == 0
    assert capsys.readouterr().out == ""
    integration, problems = load_integration(path)
    assert problems == []
    assert isinstance(integration, Integration)
    tool = integration.manifest.tool("generate_speech")
    assert tool is not None and tool.confirmation is not None


def test_a_problem_prints_one_line_and_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    path = CORPUS / "binding-unknown-argument.json"
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr()
    assert out.out.splitlines() == [
        f"{path}:53:23: error[binding-unknown-argument]: 'txt' is not an argument of this "
        "tool (did you mean 'text'?); the inputSchema has: channel, text, to, urgent, user"
    ]
    assert "1 error, 0 warnings" in out.err


def test_warnings_alone_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(CORPUS / "toggle-required.json")]) == 0
    assert "warning[toggle-required]" in capsys.readouterr().out


def test_json_output_lists_every_field(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--json", str(CORPUS / "fixture-args-invalid")]) == 1
    [entry] = json.loads(capsys.readouterr().out)
    assert entry == {
        "file": str(CORPUS / "fixture-args-invalid" / "preview.json"),
        "line": 7,
        "column": 19,
        "pointer": "/tools/send_message/args/urgent",
        "rule": "fixture-args-invalid",
        "severity": "error",
        "message": "sample argument 'urgent' must be true or false (per the inputSchema of "
        "'send_message'); change the fixture to a value the tool accepts",
    }


def test_json_output_for_a_clean_file_is_an_empty_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--json", str(CORPUS / "valid")]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_unreadable_paths_and_usage_errors_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", str(tmp_path / "missing.json")]) == 2
    assert "error[file-unreadable]" in capsys.readouterr().out
    assert main(["validate"]) == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["validate", str(empty)]) == 2


def test_invalid_json_gets_the_parsers_position_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{\n  "schemaVersion": 1\n  "id": "x"\n}\n')
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"{path}:3:3: error[json-syntax]: invalid JSON: Expecting ',' delimiter")
    assert "Traceback" not in out


def test_a_folder_of_integrations_and_of_manifest_files(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "manifest.json").write_text("{}")
    (tmp_path / "a" / "scenarios").mkdir()
    (tmp_path / "a" / "scenarios" / "s.json").write_text("{}")
    (tmp_path / "b.json").write_text("{}")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "manifest.json").write_text("{}")
    assert find_integrations(tmp_path) == [tmp_path / "a" / "manifest.json", tmp_path / "b.json"]
    assert find_integrations(tmp_path / "a") == [tmp_path / "a" / "manifest.json"]


def test_fixtures_beside_a_manifest_are_checked_with_it() -> None:
    integration, problems = load_integration(CORPUS / "valid")
    assert problems == []
    assert integration is not None and integration.fixtures is not None
    assert integration.fixtures.args_for("send_message") == {
        "text": "hi",
        "to": ["a@b.c"],
        "urgent": True,
        "channel": "general",
        "user": {"name": "Sam"},
    }
    broken, problems = load_integration(CORPUS / "fixture-unknown-tool")
    assert broken is None
    assert [p.rule for p in problems] == ["fixture-unknown-tool"]


def test_bundled_manifests_validate_clean(capsys: pytest.CaptureFixture[str]) -> None:
    # The examples authors copy from: no errors, and no warnings either (each card shows
    # every argument it sends, names its consequence, claims no one else's name).
    bundled = ROOT / "manifests"
    assert len(list(bundled.glob("*/manifest.json"))) >= 6
    assert main(["validate", str(bundled)]) == 0
    out = capsys.readouterr().out
    assert "warning[" not in out, out


def test_validate_never_imports_qt() -> None:
    code = (
        "import sys\n"
        "from notch_app.cli import main\n"
        f"rc = main(['validate', {str(CORPUS / 'valid')!r}])\n"
        "loaded = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'qasync')]\n"
        "assert rc == 0 and not loaded, loaded\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr


def test_a_dangling_ref_in_an_input_schema_is_reported_not_raised(tmp_path: Path) -> None:
    manifest = json.loads((CORPUS / "valid" / "manifest.json").read_text())
    manifest["tools"][0]["inputSchema"]["properties"]["user"] = {"$ref": "#/$defs/person"}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest, indent=2))
    (tmp_path / "preview.json").write_text((CORPUS / "valid" / "preview.json").read_text())
    integration, problems = load_integration(tmp_path)
    assert integration is None
    assert [(p.rule, p.pointer) for p in problems] == [
        ("input-schema-invalid", "/tools/0/inputSchema/properties/user/$ref")
    ]
    # With the definition in place, the dotted binding {{user.name}} walks through the $ref.
    manifest["tools"][0]["inputSchema"]["$defs"] = {
        "person": {"type": "object", "properties": {"name": {"type": "string"}}}
    }
    (tmp_path / "manifest.json").write_text(json.dumps(manifest, indent=2))
    assert load_integration(tmp_path)[1] == []


def test_many_problems_are_each_placed_on_their_own_key(tmp_path: Path) -> None:
    # More problems than are placed by counting newlines, so both ways of placing them
    # (counting, then the table of line starts) must agree with the text.
    tools = [
        {"name": f"list_items_{i}", "inputSchema": {"type": "object"}, f"extra{i}": i}
        for i in range(40)
    ]
    text = json.dumps(
        {"schemaVersion": 1, "id": "a.b", "version": "1.0.0", "name": "N", "tools": tools}, indent=2
    )
    path = tmp_path / "many.json"
    path.write_text(text, encoding="utf-8")
    from notch_app.manifest.validate import validate_path

    problems = validate_path(path)
    assert [p.rule for p in problems] == ["unknown-key"] * 40
    lines = text.split("\n")
    for i, problem in enumerate(problems):
        assert problem.pointer == f"/tools/{i}/extra{i}"
        line = lines[problem.line - 1]
        assert line[problem.column - 1 :].startswith(f'"extra{i}"'), (problem.format(), line)


def test_checking_pauses_garbage_collection_only_while_it_runs(tmp_path: Path) -> None:
    import gc

    from notch_app.manifest.validate import gc_paused, validate_path

    path = tmp_path / "m.json"
    path.write_text(
        '{"schemaVersion": 1, "id": "a.b", "version": "1.0.0", "name": "N", "tools": []}',
        encoding="utf-8",
    )
    assert gc.isenabled()
    assert validate_path(path) == []
    assert gc.isenabled()
    with pytest.raises(RuntimeError), gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer pause still holds
        raise RuntimeError("boom")
    assert gc.isenabled()
    gc.disable()
    try:
        validate_path(path)
        assert not gc.isenabled()  # a caller that turned it off keeps it off
    finally:
        gc.enable()
