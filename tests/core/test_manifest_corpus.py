"""One invalid manifest per rule: the rule id and the exact line and column reported.

The corpus lives in tests/core/corpus/. Each case also names the text that must start at
the reported place, so a position is checked twice: as numbers and against the source.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from notch_app.manifest import limits
from notch_app.manifest.reading import Problem
from notch_app.manifest.rules import RULES
from notch_app.manifest.validate import validate_path

CORPUS = Path(__file__).parent / "corpus"

# (corpus entry, rule, line, column, text that starts at that line and column)
CASES: list[tuple[str, str, int, int, str | None]] = [
    ("acting-tool-needs-confirmation.json", "acting-tool-needs-confirmation", 117, 15, '"post_update"'),
    ("binding-into-scalar.json", "binding-into-scalar", 85, 23, '"{{text.length}} characters"'),
    ("binding-malformed.json", "binding-malformed", 85, 23, '"Marked urgent for {{ user name }}"'),
    ("binding-unknown-argument.json", "binding-unknown-argument", 53, 23, '"{{txt}}"'),
    ("block-unknown-type.json", "block-unknown-type", 52, 23, '"textFeld"'),
    ("destructive-confirm-label.json", "destructive-confirm-label", 98, 28, '"OK"'),
    ("footer-cancel-count.json", "footer-cancel-count", 89, 21, "["),
    ("footer-confirm-count.json", "footer-confirm-count", 104, 27, '"confirm"'),
    ("input-schema-invalid.json", "input-schema-invalid", 17, 21, '"bool"'),
    ("input-type-mismatch.json", "input-type-mismatch", 65, 23, '"{{text}}"'),
    ("json-encoding.json", "json-encoding", 5, 16, None),
    ("json-syntax.json", "json-syntax", 5, 20, ",\n"),
    ("read-tool-has-confirmation.json", "read-tool-has-confirmation", 146, 23, "{"),
    ("reserved-block.json", "reserved-block", 89, 23, '"canvas"'),
    ("reserved-role.json", "reserved-role", 104, 27, '"custom"'),
    ("schema-structure.json", "schema-structure", 56, 27, '"yes"'),
    ("select-needs-options.json", "select-needs-options", 72, 26, "[]"),
    ("select-option-mismatch.json", "select-option-mismatch", 79, 28, '"randm"'),
    ("toggle-required.json", "toggle-required", 67, 27, "true"),
    ("tool-duplicate-name.json", "tool-duplicate-name", 117, 15, '"list_messages"'),
    ("unknown-key.json", "unknown-key", 115, 7, '"titel"'),
    ("unknown-property.json", "unknown-property", 86, 15, '"tex"'),
    ("view-schema-version.json", "view-schema-version", 46, 26, "2,"),
    ("body-confirm.json", "body-confirm", 91, 23, '"confirm"'),
    ("icon-missing.json", "icon-missing", 6, 11, '"corpus-icon.svg"'),
    ("icon-outside-folder.json", "icon-outside-folder", 6, 11, '"../../../manifests/mail/icon.svg"'),
    ("impersonation.json", "impersonation", 53, 20, '"macOS Software Update"'),
    ("argument-not-shown.json", "argument-not-shown", 25, 11, '"bcc"'),
    ("fixture-args-invalid", "fixture-args-invalid", 7, 19, '"yes"'),
    ("fixture-unknown-tool", "fixture-unknown-tool", 9, 5, '"send_mesage"'),
]  # fmt: skip


def _text_at(file: str, line: int, column: int) -> str:
    lines = Path(file).read_text(encoding="utf-8").split("\n")
    return "\n".join(lines[line - 1 :])[column - 1 :]


@pytest.mark.parametrize(("entry", "rule", "line", "column", "needle"), CASES)
def test_each_rule_is_reported_at_the_offending_value(
    entry: str, rule: str, line: int, column: int, needle: str | None
) -> None:
    problems = validate_path(CORPUS / entry)
    assert [(p.rule, p.line, p.column) for p in problems] == [(rule, line, column)], [
        p.format() for p in problems
    ]
    problem = problems[0]
    assert problem.severity == ("warning" if RULES[rule].startswith("(warning)") else "error")
    if needle is not None:
        assert _text_at(problem.file, line, column).startswith(needle)
    assert problem.format().startswith(
        f"{problem.file}:{line}:{column}: {problem.severity}[{rule}]: "
    )
    assert "\n" not in problem.message


def test_the_valid_corpus_entry_is_clean() -> None:
    assert validate_path(CORPUS / "valid") == []


def test_messages_say_how_to_fix() -> None:
    [unknown] = validate_path(CORPUS / "binding-unknown-argument.json")
    assert "did you mean 'text'?" in unknown.message
    assert "channel, text, to, urgent, user" in unknown.message  # the arguments that exist
    [block] = validate_path(CORPUS / "block-unknown-type.json")
    assert "did you mean 'textField'?" in block.message and "passwordField" in block.message
    [version] = validate_path(CORPUS / "view-schema-version.json")
    assert "reads schemaVersion 1" in version.message
    for entry in ("reserved-block.json", "reserved-role.json"):
        [reserved] = validate_path(CORPUS / entry)
        assert "reserved for a later schemaVersion" in reserved.message
    [fixture] = validate_path(CORPUS / "fixture-unknown-tool")
    assert "did you mean 'send_message'?" in fixture.message


def test_every_rule_id_is_documented() -> None:
    reported = {rule for _, rule, *_ in CASES}
    assert reported <= set(RULES)


# --- limits: generated, so the corpus stays small --------------------------------------


def _manifest_with_children(children: Sequence[object]) -> dict[str, object]:
    base: dict[str, Any] = json.loads((CORPUS / "valid" / "manifest.json").read_text())
    base["tools"][0]["confirmation"]["root"]["children"] = children
    return base


def _rules(problems: list[Problem]) -> list[tuple[str, int, int]]:
    return [(p.rule, p.line, p.column) for p in problems]


def test_a_file_over_the_size_limit_is_refused_without_parsing(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_text('{"x": "' + "a" * limits.MAX_FILE_BYTES + '"}')
    assert _rules(validate_path(big)) == [("limit-file-size", 1, 1)]


def test_a_manifest_nested_100000_levels_is_refused_cleanly(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text('{"tools": ' + "[" * 100_000 + "]" * 100_000 + "}")
    started = time.perf_counter()
    problems = validate_path(deep)
    elapsed = time.perf_counter() - started
    # The bracket that crosses the limit: `{` is level 1, so the 64th `[` is level 65.
    assert _rules(problems) == [("limit-nesting-depth", 1, 11 + limits.MAX_NESTING_DEPTH - 1)]
    assert elapsed < 5, "the depth check must not parse or recurse"


def test_blocks_nested_too_deep_are_refused(tmp_path: Path) -> None:
    block: dict[str, object] = {"type": "text", "text": "deep"}
    for _ in range(limits.MAX_VIEW_DEPTH):
        block = {"type": "stack", "children": [block]}
    path = tmp_path / "m.json"
    path.write_text(json.dumps(_manifest_with_children([block])))
    problems = validate_path(path)
    assert [p.rule for p in problems] == ["limit-nesting-depth"]
    assert problems[0].pointer.endswith("/children/0" * limits.MAX_VIEW_DEPTH)


def test_too_many_blocks_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    many = [{"type": "divider"}] * (limits.MAX_BLOCKS_PER_VIEW + 1)
    path.write_text(json.dumps(_manifest_with_children(many), indent=1))
    problems = validate_path(path)
    assert [p.rule for p in problems] == ["limit-block-count"]
    assert problems[0].pointer == "/tools/0/confirmation/root"


def test_an_overlong_string_is_refused_at_its_place(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    text = {"type": "text", "text": "x" * (limits.MAX_TEXT_CHARS + 1)}
    path.write_text(json.dumps(_manifest_with_children([text]), indent=2))
    [problem] = validate_path(path)
    assert problem.rule == "limit-string-length"
    assert problem.pointer == "/tools/0/confirmation/root/children/0/text"
    assert _text_at(problem.file, problem.line, problem.column).startswith('"xxx')


def test_an_overlong_list_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    options = [{"label": f"o{i}", "value": f"o{i}"} for i in range(limits.MAX_OPTIONS + 1)]
    select = {"type": "select", "bind": "{{text}}", "label": "Pick", "options": options}
    path.write_text(json.dumps(_manifest_with_children([select])))
    assert [p.rule for p in validate_path(path)] == ["limit-list-length"]


def test_nan_is_not_json(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    path.write_text('{\n  "schemaVersion": NaN\n}')
    assert _rules(validate_path(path)) == [("json-syntax", 2, 20)]


def test_a_missing_path_is_unreadable(tmp_path: Path) -> None:
    assert [p.rule for p in validate_path(tmp_path / "nope.json")] == ["file-unreadable"]
