"""The decision digest is RFC 8785 (JCS): a JavaScript executor recomputes the same bytes.

Issue 9 finding 8: the digest was Python's `json.dumps` spelling, which disagrees with
JCS and JavaScript for `1250.0` and `1e-7`. Here Node (on every developer machine and on
CI) recomputes every digest of a corpus with sorted keys + JSON.stringify, and also runs
the ten-line example the README gives executors.
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from notch_app.runtime.decision import NotDigestible, arguments_digest, canonical_json

README = Path(__file__).resolve().parents[2] / "README.md"
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed (CI has it)")

# sorted keys + JSON.stringify is JCS for the values JSON can carry (DESIGN.md).
JCS_IN_NODE = r"""
const { createHash } = require("node:crypto");
function jcs(v) {
  if (Array.isArray(v)) return "[" + v.map(jcs).join(",") + "]";
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  return "{" + Object.keys(v).sort().map((k) => JSON.stringify(k) + ":" + jcs(v[k])).join(",") + "}";
}
const values = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(values.map((v) => {
  const text = jcs(v);
  return [text, "sha256:" + createHash("sha256").update(text, "utf8").digest("hex")];
})));
"""

HAND_PICKED: list[dict[str, Any]] = [
    {"amount": 1250.0},  # JCS and JS: 1250; json.dumps: 1250.0
    {"tiny": 1e-7},  # JCS and JS: 1e-7; json.dumps: 1e-07
    {"floats": [0.1, 0.5, 1.5, 123456789.125, -2.5e-8, 1e21, 1e20, 5e-324]},
    {"edges": [1.7976931348623157e308, 2.2250738585072014e-308, 1e-6, 1e-7, 999999999999999.9]},
    {"negative zero": -0.0, "zero": 0, "ints": [2**53 - 1, -(2**53 - 1), 0, -1, 10**15]},
    {"text": 'é 日本 😀 \u2028\u2029 \u007f "quoted" \\ back', "ctl": "\u0000\u001f\b\f\n\r\t"},
    {"b": 1, "a": 2, "B": 3, "é": 4, "\ue000": 5, "😀": 6, "": 7, "a\u0000": 8},
    {"nested": {"z": [{"y": {"x": [[], {}, None, True, False]}}], "a": {"b": {"c": "d"}}}},
    {"to": ["sam@example.com"], "subject": "Hi", "body": "See you at 3.", "cc": []},
    {},
]


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(8 if depth < 3 else 5)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind == 1:
        return rng.randint(-(2**53 - 1), 2**53 - 1)
    if kind == 2:
        value = rng.choice([rng.uniform(-1e6, 1e6), rng.random() * 10 ** rng.randint(-30, 30)])
        return value if math.isfinite(value) else 0.0
    if kind == 3:
        return float(rng.randint(-(10**6), 10**6))  # integral floats: 3.0 must read 3
    if kind == 4:
        alphabet = 'aZ09 é日😀\u2028"\\\n\t\u0001\uffff\ue000'
        return "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
    if kind in (5, 6):
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    keys = ["a", "b", "A", "é", "😀", "\ue000", "key", "k2", ""]
    return {rng.choice(keys): _random_value(rng, depth + 1) for _ in range(rng.randrange(5))}


def corpus() -> list[dict[str, Any]]:
    rng = random.Random(8785)
    generated = [{"v": _random_value(rng)} for _ in range(400)]
    return HAND_PICKED + generated


def node_digests(script: str, values: list[dict[str, Any]]) -> list[list[str]]:
    assert NODE is not None
    done = subprocess.run(
        [NODE, "-e", script],
        input=json.dumps(values),  # the stdlib's spelling; JSON.parse reads the same numbers
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    result: list[list[str]] = json.loads(done.stdout)
    return result


@needs_node
def test_every_digest_in_the_corpus_matches_a_javascript_executors() -> None:
    values = corpus()
    from_node = node_digests(JCS_IN_NODE, values)
    mismatches = [
        (value, ours, theirs)
        for value, ours, theirs in zip(
            values,
            ((canonical_json(v), arguments_digest(v)) for v in values),
            from_node,
            strict=True,
        )
        if list(ours) != theirs
    ]
    assert mismatches == []
    # The two spellings json.dumps got wrong, as JavaScript prints them.
    assert from_node[0][0] == '{"amount":1250}' and from_node[1][0] == '{"tiny":1e-7}'


@needs_node
def test_the_readme_example_recomputes_the_digest() -> None:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("### Digest") :]
    example = re.search(r"```js\n(.*?)```", section, re.S)
    assert example is not None, "README's Digest section has a ```js example"
    code = example.group(1)
    assert len(code.strip().splitlines()) <= 10
    script = code + (
        "\nconst vs = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));"
        "\nprocess.stdout.write(JSON.stringify(vs.map((v) => [canonical(v), digest(v)])));"
    )
    values = corpus()
    assert node_digests(script, values) == [
        [canonical_json(v), arguments_digest(v)] for v in values
    ]


@pytest.mark.parametrize(
    ("arguments", "place", "words"),
    [
        ({"amount": math.nan}, "arguments.amount", "not a JSON number"),
        ({"a": [1, {"b": math.inf}]}, "arguments.a.1.b", "not a JSON number"),
        ({"a": -math.inf}, "arguments.a", "not a JSON number"),
        ({"to": "sam\ud800"}, "arguments.to", "lone surrogate (U+D800)"),
        ({"big": 2**53}, "arguments.big", "send it as a string"),
        ({"x": {1: "y"}}, "arguments.x", "key 1 is not text"),
        ({"x": {1, 2}}, "arguments.x", "set is not a JSON value"),
    ],
)
def test_values_without_a_canonical_form_are_refused_naming_the_place(
    arguments: dict[str, Any], place: str, words: str
) -> None:
    with pytest.raises(NotDigestible) as refused:
        arguments_digest(arguments)
    assert refused.value.path == place
    assert words in str(refused.value) and str(refused.value).startswith(place + ":")
    assert isinstance(refused.value, ValueError)  # callers' ValueError handling still holds


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"arguments": {"to": "a", "subject": math.nan}}, "arguments.subject"),
        ({"arguments": {"to": "a", "body": math.inf}}, "arguments.body"),
        ({"arguments": {"to": "a\ud800"}}, "arguments.to"),
        ({"arguments": {"to": "a", "n": 2**60}}, "arguments.n"),
        ({"arguments": {"to": "a"}, "context": {"note": "\udfff"}}, "context.note"),
    ],
)
async def test_a_request_with_no_digest_is_refused_naming_the_field(
    base: Path, running_notch: Any, params: dict[str, Any], field: str
) -> None:
    async with running_notch(base) as (notch, cards):
        reader, writer = await asyncio.open_unix_connection(str(notch.server.path))
        try:
            line = {"jsonrpc": "2.0", "id": 1, "method": "confirm.request",
                    "params": {"callId": "c", "integration": "com.example.mail",
                               "tool": "send_email", "wait": False, **params}}  # fmt: skip
            writer.write(json.dumps(line).encode() + b"\n")  # NaN, escapes: as the stdlib sends
            await writer.drain()
            reply = json.loads(await asyncio.wait_for(reader.readline(), 5))
        finally:
            writer.close()
        assert reply["error"]["code"] == -32602, reply
        assert reply["error"]["message"].startswith(field + ":")
        assert cards.presented == [] and notch.service.store.pending() == []
