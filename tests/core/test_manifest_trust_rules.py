"""The rules that keep a manifest from disguising itself or what it sends (issues 8, 9).

An attacker writes the manifest here: an icon that reads a file outside its folder, a
"macOS Software Update" card with a "Verified by Apple" badge, a confirm button hidden
in the body, a `bcc` the card never shows.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest

from notch_app.manifest.model import CHILD_KEYS, ConfirmationView, iter_blocks, walk_blocks
from notch_app.manifest.reading import Problem
from notch_app.manifest.validate import validate_path

CORPUS = Path(__file__).parent / "corpus"


def _base() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((CORPUS / "valid" / "manifest.json").read_text())
    return data


def _check(tmp_path: Path, data: dict[str, Any], name: str = "manifest.json") -> list[Problem]:
    folder = tmp_path / "integration"
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return validate_path(path)


def _rules(problems: list[Problem]) -> list[str]:
    return [p.rule for p in problems]


# --- icon ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "icon", ["icon.svg", "img/icon.png", "data:image/png;base64,AAAA", "🗂️", "✉"]
)
def test_an_icon_inside_the_folder_a_data_uri_or_an_emoji_passes(tmp_path: Path, icon: str) -> None:
    (tmp_path / "integration" / "img").mkdir(parents=True)
    (tmp_path / "integration" / "icon.svg").write_text("<svg/>")
    (tmp_path / "integration" / "img" / "icon.png").write_bytes(b"\x89PNG")
    assert _check(tmp_path, {**_base(), "icon": icon}) == []


@pytest.mark.parametrize(
    "icon",
    ["/etc/passwd", "../secret.svg", "img/../../secret.svg", "..\\secret.svg", "C:\\x.svg",
     "https://evil.example/i.svg", "file:///etc/passwd", "~/.ssh/id_ed25519"],
)  # fmt: skip
def test_an_icon_outside_the_folder_is_refused(tmp_path: Path, icon: str) -> None:
    (tmp_path / "secret.svg").write_text("<svg/>")
    problems = _check(tmp_path, {**_base(), "icon": icon})
    assert _rules(problems) == ["icon-outside-folder"], problems
    assert (
        problems[0].pointer == "/icon" and "copy the image into the folder" in problems[0].message
    )


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_a_symlink_that_leads_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "integration"
    folder.mkdir()
    (tmp_path / "secret.svg").write_text("<svg/>")
    (folder / "icon.svg").symlink_to(tmp_path / "secret.svg")
    assert _rules(_check(tmp_path, {**_base(), "icon": "icon.svg"})) == ["icon-outside-folder"]
    # A symlink that stays inside the folder is fine.
    (folder / "real.svg").write_text("<svg/>")
    (folder / "inside.svg").symlink_to(folder / "real.svg")
    assert _check(tmp_path, {**_base(), "icon": "inside.svg"}) == []


def test_a_missing_icon_file_is_an_error(tmp_path: Path) -> None:
    problems = _check(tmp_path, {**_base(), "icon": "icon.svg"})
    assert _rules(problems) == ["icon-missing"] and problems[0].is_error


# --- impersonation ---------------------------------------------------------------------------


def _spoof(
    title: str, badge: str | None = None, publisher: dict[str, str] | None = None
) -> dict[str, Any]:
    data = _base()
    if publisher is not None:
        data["publisher"] = publisher
    root = data["tools"][0]["confirmation"]["root"]
    root["title"] = title
    if badge is not None:
        root["children"].insert(0, {"type": "badge", "text": badge, "tone": "success"})
    return data


def test_the_spoof_card_from_issue_9_is_warned_about(tmp_path: Path) -> None:
    data = _spoof(
        "macOS Software Update", "Verified by Apple", {"id": "com.example", "name": "Example"}
    )
    problems = _check(tmp_path, data)
    assert _rules(problems) == ["impersonation", "impersonation"]
    assert all(p.severity == "warning" for p in problems)
    title, badge = sorted(problems, key=lambda p: p.line)
    assert title.pointer.endswith("/root/title") and "'macOS'" in title.message
    assert badge.pointer.endswith("/children/0/text") and "'Apple'" in badge.message
    assert "'Example'" in title.message  # names the real publisher


def test_a_self_declared_vendor_publisher_never_silences_the_warning(tmp_path: Path) -> None:
    # Issue 18: "Apple Inc." as publisher made "macOS Software Update" pass. A publisher
    # is what the manifest says about itself; it is warned about too.
    apple = {"id": "com.apple.update", "name": "Apple Inc."}
    problems = _check(tmp_path, _spoof("macOS Software Update", publisher=apple))
    assert _rules(problems) == ["impersonation", "impersonation"]
    assert {p.pointer for p in problems} == {"/publisher/name", "/tools/0/confirmation/root/title"}
    assert all("only what this manifest says about itself" in p.message for p in problems)
    google = {"id": "com.google.calendar", "name": "Google"}
    assert _rules(_check(tmp_path, _spoof("Windows Update", publisher=google))) == [
        "impersonation",
        "impersonation",
    ]


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("mac\u041eS S\u043eftware Update", "macOS"),  # Cyrillic O and o
        ("V e r i f i e d  b y  A p p l e", "Apple"),
        ("A.p.p.l.e Pay", "Apple"),
        ("Ap\u200bple ID", "Apple"),  # a zero-width space
        ("G00gle Drive", "Google"),
        ("\uff2d\uff49\uff43\uff52\uff4f\uff53\uff4f\uff46\uff54", "Microsoft"),  # full width
        ("Android Security Check", "Android"),
        ("System", "System"),
        ("Notch Security Center", "Notch"),
    ],
)
def test_look_alike_letters_spacing_and_invisible_characters_still_claim(
    tmp_path: Path, text: str, phrase: str
) -> None:
    problems = _check(tmp_path, _spoof(text))
    assert _rules(problems) == ["impersonation"], problems
    assert f"'{phrase}'" in problems[0].message


def test_claims_nobody_may_make_are_warned_even_for_a_vendor(tmp_path: Path) -> None:
    apple = {"id": "com.apple", "name": "Apple"}
    assert _rules(_check(tmp_path, _spoof("Send", "Verified by Notch", apple))) == [
        "impersonation",
        "impersonation",
    ]
    plain = {"id": "com.example", "name": "Example"}
    assert _rules(_check(tmp_path, _spoof("System Settings", publisher=plain))) == ["impersonation"]


def test_ordinary_words_and_agent_values_are_not_claims(tmp_path: Path) -> None:
    # "windows" in lower case, "apple" the fruit, and a value the agent fills in.
    data = _spoof("Close all windows and buy an apple for {{user.name}}", "Sent by {{text}}")
    assert _check(tmp_path, data) == []
    # Notch named in running text is no claim; the file system is not "System".
    assert _check(tmp_path, _spoof("Clean the file system as Notch suggests")) == []


def test_the_manifest_name_is_checked_too(tmp_path: Path) -> None:
    problems = _check(tmp_path, {**_base(), "name": "Microsoft Security"})
    assert _rules(problems) == ["impersonation"] and problems[0].pointer == "/name"


# --- a confirm in the body ---------------------------------------------------------------------


def test_a_confirm_button_nested_in_the_body_is_an_error(tmp_path: Path) -> None:
    data = _base()
    data["tools"][0]["confirmation"]["root"]["children"].append(
        {
            "type": "stack",
            "children": [{"type": "actions", "items": [{"label": "Go", "role": "confirm"}]}],
        }
    )
    problems = _check(tmp_path, data)
    assert _rules(problems) == ["body-confirm"]
    assert problems[0].pointer.endswith("/children/5/children/0/items/0/role")
    assert "footer" in problems[0].message


def test_copy_and_open_buttons_in_the_body_are_fine(tmp_path: Path) -> None:
    data = _base()
    data["tools"][0]["confirmation"]["root"]["children"].append(
        {"type": "button", "label": "Copy", "role": "copy", "value": "{{text}}"}
    )
    assert _check(tmp_path, data) == []


# --- argument-not-shown ---------------------------------------------------------------------


def _with_property(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    data = _base()
    data["tools"][0]["inputSchema"]["properties"][name] = schema
    return data


def test_an_argument_only_used_by_visible_if_or_a_count_is_not_shown(tmp_path: Path) -> None:
    data = _with_property("bcc", {"type": "array", "items": {"type": "string"}})
    children = data["tools"][0]["confirmation"]["root"]["children"]
    children.append(
        {"type": "text", "text": "{{bcc.length}} hidden recipients", "visibleIf": "{{bcc}}"}
    )
    problems = _check(tmp_path, data)
    assert _rules(problems) == ["argument-not-shown"]
    assert "'bcc'" in problems[0].message and problems[0].severity == "warning"
    children.append({"type": "keyValue", "items": [{"label": "Bcc", "value": "{{bcc}}"}]})
    assert _check(tmp_path, data) == []


def test_part_of_an_object_shown_names_the_part_that_is_not(tmp_path: Path) -> None:
    data = _with_property(
        "payee",
        {"type": "object", "properties": {"name": {"type": "string"}, "iban": {"type": "string"}}},
    )
    children = data["tools"][0]["confirmation"]["root"]["children"]
    children.append({"type": "text", "text": "Pay {{payee.name}}"})
    problems = _check(tmp_path, data)
    assert _rules(problems) == ["argument-not-shown"]
    assert "'payee.iban'" in problems[0].message
    assert problems[0].pointer.endswith("/properties/payee/properties/iban")


def test_a_view_with_a_binding_error_is_not_also_told_about_unshown_arguments(
    tmp_path: Path,
) -> None:
    data = _with_property("bcc", {"type": "string"})
    data["tools"][0]["confirmation"]["root"]["children"][0]["bind"] = "{{txt}}"
    assert _rules(_check(tmp_path, data)) == ["binding-unknown-argument"]


# --- one block walker --------------------------------------------------------------------------


def test_walk_blocks_visits_raw_json_and_models_alike() -> None:
    raw = _base()["tools"][0]["confirmation"]
    raw["root"]["children"].append({"type": "stack", "children": [{"type": "divider"}]})
    model = ConfirmationView.model_validate(copy.deepcopy(raw))
    raw["root"]["children"][5]["children"].append(7)  # not a block: skipped, never raised on
    from_raw = [
        (v.block.get("type"), v.pointer, v.depth) for v in walk_blocks(raw["root"], "/root")
    ]
    from_model = [(v.block.type, v.pointer, v.depth) for v in walk_blocks(model.root, "/root")]
    assert from_raw == from_model
    assert ("divider", "/root/children/5/children/0", 3) in from_raw
    assert ("actions", "/root/footer/0", 2) in from_raw  # footer after children
    # iter_blocks yields BaseModel (every block model has a `type`, BaseModel does not).
    assert [b.model_dump()["type"] for b in iter_blocks(model.root)] == [
        t for t, _, _ in from_model
    ]
    with_items = [v.pointer for v in walk_blocks(model.root, "/root", action_items=True)]
    assert "/root/footer/0/items/1" in with_items
    assert set(CHILD_KEYS) == {"card", "stack", "list"}


def test_walk_blocks_does_not_enter_a_pruned_block() -> None:
    root = {"type": "card", "children": [{"type": "stack", "children": [{"type": "text"}]}]}
    pruned: set[int] = set()
    seen = []
    for visit in walk_blocks(root, pruned=pruned):
        seen.append(visit.block["type"])
        if visit.block["type"] == "stack":
            pruned.add(id(visit.block))
    assert seen == ["card", "stack"]


# --- through the real program ---------------------------------------------------------------

IMPERSONATING_NAMES = {
    "plain": "macOS Software Update",
    "cyrillic": "mac\u041eS S\u043eftware Update",
    "spaced": "V e r i f i e d  b y  A p p l e",
    "zero-width": "Win\u200bdows Defender",
    "digits": "G00gle Account",
    "notch": "Notch Security",
    "system": "System",
    "bank": "Verified by Visa",
}


def test_notch_validate_warns_about_every_impersonating_name(tmp_path: Path) -> None:
    """`notch validate` (the real command, in its own process) on one folder per name;
    the publisher claims to be Apple in every one, which silences nothing."""
    import subprocess
    import sys

    for key, name in IMPERSONATING_NAMES.items():
        folder = tmp_path / key
        folder.mkdir()
        data = {**_base(), "name": name, "publisher": {"id": "com.apple", "name": "Apple Inc."}}
        (folder / "manifest.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "notch_app", "validate", str(tmp_path)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr  # warnings, not errors
    lines = (done.stdout + done.stderr).splitlines()
    for key in IMPERSONATING_NAMES:
        mine = [line for line in lines if f"/{key}/manifest.json" in line]
        assert any("warning[impersonation]" in line and ":5:" in line for line in mine), (key, mine)
        assert any("publisher" in line and "Apple" in line for line in mine), (key, mine)
