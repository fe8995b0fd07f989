"""Manifest fuzzing: `notch validate` never raises on any input, and a mutant it accepts
never crashes `notch render`.

2,000 mutants, seeded, each derived from one tool of a bundled integration (its manifest
cut to that tool, its preview fixture to that tool's entry) by one to three mutations of
the manifest (four in five) or of the fixture: values replaced by hostile ones (lone
surrogates, bidi overrides, NUL, huge and non-finite numbers, binding syntax, paths out
of the folder, nesting up to and past the depth limit), strings cut, grown or salted,
keys dropped, renamed or salted, list items repeated, types swapped, subtrees grafted
elsewhere; and a few text-level breakages (cut files, stray brackets, 1e999, invalid
UTF-8). Each runs through the `notch validate` command's code path (one in four with
--json) with its output written to a strict UTF-8 stream, as a terminal would take it.

Rendering every accepted mutant would take minutes, so a seeded sample of 100 of them
is drawn through the `notch render` command's code path (offscreen), each with one of
its tools, its own preview arguments, either theme and a width of 280, 440 or 1200 px,
and must exit 0.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import json
import random
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from notch_app.bundled import bundled_folder
from notch_app.commands import render as render_command
from notch_app.commands import validate as validate_command
from notch_app.manifest.limits import MAX_NESTING_DEPTH
from notch_app.manifest.validate import INTERNAL_ERROR

MUTANTS = 2_000
RENDERED = 100
SEED = 20261201

BUNDLED = bundled_folder("manifests")
HOSTILE_TEXT = [
    "\ud800",
    "a\udfffb",
    "\udc00\ud800",
    "\u202egnp.exe",
    "sam@ex\u0430mple.com",
    "\x00",
    "",
    " ",
    "{{",
    "}}",
    "{{nope}}",
    "{{a.b.c.d}}",
    "<<to>>",
    "{{ to }}",
    "x" * 5_000,
    "../../etc/passwd",
    "/etc/passwd",
    "file:///etc/passwd",
    "http://evil.example/x.png",
    "data:image/png;base64,AAAA",
    "NaN",
    "-Infinity",
    "1e999",
    "%s%n",
    "\\",
    '"',
    "🙂" * 10,
    "#/$defs/x",
]
HOSTILE_NUMBERS: list[Any] = [0, -1, 1, 2**63, -(2**63), 10**40, 10**400, 1.5, -0.0, 1e308]
KEYS = ["\ud800", "extra", "type", "$ref", "children", "bind", "visibleIf", "x-y", ""]


@dataclass(frozen=True)
class Mutant:
    seed: int
    integration: str
    tool: str
    manifest: bytes
    preview: bytes


def _hostile(rng: random.Random, depth: int = 0) -> Any:
    pick = rng.random()
    if pick < 0.35:
        return rng.choice(HOSTILE_TEXT)
    if pick < 0.55:
        return rng.choice(HOSTILE_NUMBERS)
    if pick < 0.65:
        return rng.choice([None, True, False])
    if pick < 0.75:
        return [_hostile(rng, depth + 1) for _ in range(rng.randint(0, 3))] if depth < 3 else []
    if pick < 0.85:
        return {rng.choice(KEYS): _hostile(rng, depth + 1)} if depth < 3 else {}
    # Nesting around the parser's limit: within it, and a little past it.
    value: Any = "deep"
    for _ in range(rng.randint(MAX_NESTING_DEPTH - 20, MAX_NESTING_DEPTH + 4)):
        value = [value] if rng.random() < 0.5 else {"k": value}
    return value


def _places(node: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [here]
    if isinstance(node, dict):
        for key, child in node.items():
            out.extend(_places(child, (*here, key)))
    elif isinstance(node, list):
        for index, child in enumerate(node):
            out.extend(_places(child, (*here, index)))
    return out


def _at(node: Any, place: tuple[Any, ...]) -> Any:
    for step in place:
        node = node[step]
    return node


def _mutate(doc: Any, rng: random.Random) -> None:
    places = [p for p in _places(doc) if p]
    if not places:
        return
    place = rng.choice(places)
    parent, key = _at(doc, place[:-1]), place[-1]
    value = parent[key]
    pick = rng.random()
    if pick < 0.35:
        parent[key] = _hostile(rng)
    elif pick < 0.5 and isinstance(value, str):
        cut = rng.randint(0, len(value))
        salt = rng.choice(HOSTILE_TEXT)
        parent[key] = rng.choice([value[:cut], value[:cut] + salt + value[cut:], value * 3])
    elif pick < 0.6:
        del parent[key]
    elif pick < 0.7 and isinstance(parent, dict):
        parent[rng.choice([*KEYS, f"{key}_"])] = parent.pop(key)
    elif pick < 0.8 and isinstance(parent, list):
        parent.insert(rng.randint(0, len(parent)), copy.deepcopy(value))
    elif pick < 0.9:
        swapped = {str: 1, int: "1", float: "1.5", list: {}, dict: [], bool: "true"}
        parent[key] = swapped.get(type(value), 0)
    else:
        graft = _at(doc, rng.choice(places)[:-1])
        parent[key] = copy.deepcopy(graft) if len(_places(graft)) < 400 else None


def _text(doc: Any, rng: random.Random) -> bytes:
    text = json.dumps(doc, ensure_ascii=rng.random() < 0.8, allow_nan=True)
    pick = rng.random()
    if pick < 0.02:
        text = text[: rng.randint(0, len(text))]
    elif pick < 0.04:
        at = rng.randint(0, len(text))
        text = text[:at] + rng.choice(',]}[{":') + text[at:]
    elif pick < 0.06:
        text = text.replace("1", "1e999", 1)
    data = text.encode("utf-8", "surrogatepass")  # ensure_ascii=False keeps raw surrogates
    if rng.random() < 0.01:
        data = data[:10] + b"\xff\xfe" + data[10:]
    return data


def _mutants() -> list[Mutant]:
    # Each bundled tool cut out once, as JSON text: a mutant starts from json.loads of
    # it, much cheaper than copying the whole manifest.
    bases: list[tuple[str, str, str, str]] = []
    for folder in sorted(p for p in BUNDLED.iterdir() if p.is_dir()):
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        preview = json.loads((folder / "preview.json").read_text(encoding="utf-8"))
        for tool in manifest["tools"]:
            cut = {**manifest, "tools": [tool]}
            fixtures = {k: v for k, v in preview["tools"].items() if k == tool["name"]}
            bases.append(
                (
                    folder.name,
                    tool["name"],
                    json.dumps(cut),
                    json.dumps({**preview, "tools": fixtures}),
                )
            )
    out = []
    for seed in range(SEED, SEED + MUTANTS):
        rng = random.Random(seed)
        integration, tool, manifest_text, preview_text = rng.choice(bases)
        manifest, preview = json.loads(manifest_text), json.loads(preview_text)
        target = preview if rng.random() < 0.2 else manifest
        for _ in range(rng.randint(1, 3)):
            _mutate(target, rng)
        out.append(Mutant(seed, integration, tool, _text(manifest, rng), _text(preview, rng)))
    return out


def _place(mutant: Mutant, root: Path) -> Path:
    """The mutant's integration folder: the bundled folder's icons and images, and the
    mutant's manifest.json and preview.json (the folder is reused; a file is rewritten
    only when it differs from what is there)."""
    folder = root / mutant.integration
    if not folder.exists():
        shutil.copytree(
            BUNDLED / mutant.integration,
            folder,
            ignore=shutil.ignore_patterns("scenarios", "*.json"),
        )
    for name, data in (("manifest.json", mutant.manifest), ("preview.json", mutant.preview)):
        target = folder / name
        if _written.get(target) != data:
            target.write_bytes(data)
            _written[target] = data
    return folder


_written: dict[Path, bytes] = {}


def _strict_utf8() -> io.TextIOWrapper:
    # What a terminal or pipe takes: a lone surrogate in the output fails here.
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")


def _validate(folder: Path, *, as_json: bool = False) -> tuple[int, str]:
    out = _strict_utf8()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = validate_command.run(argparse.Namespace(paths=[folder], json=as_json))
        out.flush()
    assert isinstance(out.buffer, io.BytesIO)
    return code, out.buffer.getvalue().decode("utf-8")


@pytest.fixture(scope="module")
def validated(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Mutant, int, str]]:
    root = tmp_path_factory.mktemp("fuzz")
    results = []
    for mutant in _mutants():
        folder = _place(mutant, root)
        try:
            # One in four reports as --json: both ways of printing must hold.
            code, output = _validate(folder, as_json=mutant.seed % 4 == 0)
        except BaseException as exc:  # report the seed, then fail
            raise AssertionError(f"notch validate raised on mutant seed {mutant.seed}") from exc
        results.append((mutant, code, output))
    return results


def test_notch_validate_never_raises_and_never_breaks_on_a_mutant(
    validated: list[tuple[Mutant, int, str]],
) -> None:
    assert len(validated) >= 2_000
    broken = [(m.seed, out) for m, _, out in validated if INTERNAL_ERROR in out]
    assert not broken, f"checks that broke (seed, output): {broken[:3]}"
    assert {code for _, code, _ in validated} <= {0, 1}
    accepted = sum(1 for _, code, _ in validated if code == 0)
    # The mutations must reach past the parser: some mutants stay valid, most do not.
    assert 50 <= accepted <= len(validated) - 1_000, accepted


def _drawable(mutant: Mutant) -> str | None:
    """The name of the mutant's tool when it has a card and preview arguments to draw it
    with (a mutation may have renamed the tool or dropped its fixture), else None."""
    tool = json.loads(mutant.manifest)["tools"][0]  # accepted, so it parses
    fixtures = json.loads(mutant.preview).get("tools", {})
    if tool.get("confirmation") is None or tool["name"] not in fixtures:
        return None
    return str(tool["name"])


def test_an_accepted_mutant_always_renders(
    validated: list[tuple[Mutant, int, str]], tmp_path: Path
) -> None:
    drawable = [(m, name) for m, code, _ in validated if code == 0 and (name := _drawable(m))]
    sample = random.Random(SEED).sample(drawable, min(RENDERED, len(drawable)))
    assert len(sample) >= RENDERED // 2, f"only {len(sample)} accepted mutants have a card"
    for mutant, tool in sample:
        folder = _place(mutant, tmp_path)
        png = tmp_path / "card.png"
        png.unlink(missing_ok=True)
        # Through the command's own parser, so a new flag's default is never missing here.
        parser = argparse.ArgumentParser()
        render_command.configure(parser)
        chooser = random.Random(mutant.seed)
        theme = chooser.choice(["dark", "light"])
        width = chooser.choice([280, 440, 1200])
        args = parser.parse_args(
            [str(folder), "--tool", tool, "--fixture", "-o", str(png), "--theme", theme,
             "--width", str(width)]
        )  # fmt: skip
        out = _strict_utf8()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            code = render_command.run(args)
            out.flush()
        assert isinstance(out.buffer, io.BytesIO)
        said = out.buffer.getvalue().decode("utf-8")
        assert code == 0, f"mutant seed {mutant.seed} was accepted but did not render: {said}"
        assert png.stat().st_size > 1_000


def _validate_text(folder: Path, manifest: str, *flags: str) -> tuple[int, str]:
    folder.mkdir(exist_ok=True)
    shutil.copy(BUNDLED / "mail" / "icon.svg", folder / "icon.svg")
    (folder / "manifest.json").write_text(manifest, encoding="utf-8")
    out = _strict_utf8()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = validate_command.run(argparse.Namespace(paths=[folder], json="--json" in flags))
        out.flush()
    assert isinstance(out.buffer, io.BytesIO)
    return code, out.buffer.getvalue().decode("utf-8")


def _mail_with(schema_change: dict[str, Any]) -> str:
    manifest = json.loads((BUNDLED / "mail" / "manifest.json").read_text(encoding="utf-8"))
    send = next(t for t in manifest["tools"] if t["name"] == "send_email")
    send["inputSchema"]["properties"]["subject"].update(schema_change)
    return json.dumps(manifest, indent=2)  # ASCII: a lone surrogate stays a \ud800 escape


@pytest.mark.parametrize("flags", [(), ("--json",)])
def test_a_lone_surrogate_in_a_pattern_is_refused_at_its_place(
    tmp_path: Path, flags: tuple[str, ...]
) -> None:
    text = _mail_with({"pattern": "\ud800"})
    code, out = _validate_text(tmp_path / "mail", text, *flags)
    assert code == 1
    assert "json-lone-surrogate" in out
    line = next(i for i, row in enumerate(text.splitlines(), 1) if '"pattern": "\\ud800"' in row)
    if not flags:
        assert f"manifest.json:{line}:" in out
    else:
        problem = next(p for p in json.loads(out) if p["rule"] == "json-lone-surrogate")
        assert problem["pointer"].endswith("/properties/subject/pattern")
        assert problem["line"] == line


def test_a_number_too_large_for_a_float_is_refused_at_its_place(tmp_path: Path) -> None:
    text = _mail_with({"maxLength": 7}).replace('"maxLength": 7', '"maxLength": 1e999')
    code, out = _validate_text(tmp_path / "mail", text)
    assert code == 1
    assert "error[json-number-range]" in out and "infinity" in out


def test_a_file_name_that_is_not_utf8_is_printed_escaped(tmp_path: Path) -> None:
    odd = tmp_path / "bad-\udcff.json"  # the byte 0xff, as Python names it
    try:
        odd.write_text("{", encoding="utf-8")
    except (OSError, UnicodeEncodeError):
        pytest.skip("this file system refuses a name that is not UTF-8")
    out = _strict_utf8()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = validate_command.run(argparse.Namespace(paths=[odd], json=False))
        out.flush()
    assert isinstance(out.buffer, io.BytesIO)
    assert code == 1
    assert "bad-\\udcff.json:1:2: error[json-syntax]" in out.buffer.getvalue().decode("utf-8")


def test_an_icon_name_too_long_for_the_file_system_is_a_problem_not_a_crash(
    tmp_path: Path,
) -> None:
    # Found by the fuzz above: the file system refuses a 300-character name (ENAMETOOLONG).
    manifest = json.loads((BUNDLED / "mail" / "manifest.json").read_text(encoding="utf-8"))
    manifest["icon"] = "icon" + "x" * 300 + ".svg"
    code, out = _validate_text(tmp_path / "mail", json.dumps(manifest))
    assert code == 1
    assert "error[icon-missing]" in out
    assert INTERNAL_ERROR not in out
