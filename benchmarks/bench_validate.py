"""How `notch validate` scales, and what it costs beside a bare jsonschema pass.

Run:  .venv/bin/python benchmarks/bench_validate.py

1. Manifests of 10, 100 and 1,000 tools (two acting tools with a full card for every
   read-only tool): time per manifest and the growth ratio. Target: 1,000 tools cost at
   most 12x what 100 cost (linear, not quadratic).
2. One 50-tool manifest: the full check (`validate_path`: read, depth scan, parse,
   structure, every rule, positions of the problems found) beside jsonschema's
   Draft202012Validator on the published manifest schema alone (validator compiled once,
   document already parsed), in the same run. Target: the full check at least 4x faster.

Every manifest's last tool carries one unknown key, so each run also finds the position
of that warning, as deep into the file as it gets: positions are part of what is timed.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from notch_app.manifest.model import default_schema_dir  # noqa: E402
from notch_app.manifest.validate import validate_path  # noqa: E402


def acting_tool(i: int) -> dict[str, Any]:
    """A mail-like acting tool whose property names differ per tool (no cache can help)."""
    p = f"f{i}_"
    return {
        "name": f"send_message_{i}",
        "title": f"Send message {i}",
        "description": "Send a message to one or more people.",
        "inputSchema": {
            "type": "object",
            "properties": {
                f"{p}to": {"type": "array", "items": {"type": "string"}},
                f"{p}subject": {"type": "string", "maxLength": 200},
                f"{p}body": {"type": "string"},
                f"{p}urgent": {"type": "boolean"},
                f"{p}channel": {"type": "string", "enum": ["email", "chat", "sms"]},
                f"{p}sender": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "email": {"type": "string"}},
                },
            },
            "required": [f"{p}to", f"{p}body"],
        },
        "annotations": {"readOnlyHint": False},
        "confirmation": {
            "schemaVersion": 1,
            "root": {
                "type": "card",
                "title": f"Send {{{{{p}subject}}}}",
                "children": [
                    {"type": "chips", "bind": f"{{{{{p}to}}}}", "label": "To", "required": True},
                    {"type": "textField", "bind": f"{{{{{p}subject}}}}", "label": "Subject"},
                    {
                        "type": "textField",
                        "bind": f"<<{p}body>>",
                        "label": "Message",
                        "multiline": True,
                        "required": True,
                    },
                    {
                        "type": "select",
                        "bind": f"{{{{{p}channel}}}}",
                        "label": "Send by",
                        "options": [
                            {"label": "Email", "value": "email"},
                            {"label": "Chat", "value": "chat"},
                            {"label": "Text message", "value": "sms"},
                        ],
                    },
                    {"type": "toggle", "bind": f"{{{{{p}urgent}}}}", "label": "Urgent"},
                    {
                        "type": "keyValue",
                        "items": [
                            {"label": "From", "value": f"{{{{{p}sender.name}}}}"},
                            {"label": "Address", "value": f"{{{{{p}sender.email}}}}"},
                        ],
                    },
                    {
                        "type": "badge",
                        "text": "Urgent",
                        "tone": "warning",
                        "visibleIf": f"{{{{{p}urgent}}}}",
                    },
                    {
                        "type": "text",
                        "text": f"Goes out as {{{{{p}sender.name}}}}.",
                        "variant": "muted",
                    },
                ],
                "footer": [
                    {
                        "type": "actions",
                        "items": [
                            {"label": "Cancel", "role": "cancel"},
                            {"label": "Copy", "role": "copy", "value": f"{{{{{p}body}}}}"},
                            {"label": "Send", "role": "confirm", "color": "accent"},
                        ],
                    }
                ],
            },
        },
    }


def read_tool(i: int) -> dict[str, Any]:
    return {
        "name": f"list_messages_{i}",
        "description": "Recent messages.",
        "inputSchema": {
            "type": "object",
            "properties": {f"q{i}": {"type": "string"}, "limit": {"type": "integer"}},
        },
    }


def manifest(tools: int) -> dict[str, Any]:
    out: dict[str, Any] = {
        "schemaVersion": 1,
        "id": "com.example.bench",
        "version": "1.0.0",
        "name": "Bench",
        "tools": [acting_tool(i) if i % 3 else read_tool(i) for i in range(tools)],
    }
    # One unknown key on the last tool: one warning to place, as far into the file as
    # it gets, so finding its position costs the most it can.
    out["tools"][-1]["homepage"] = "https://example.com"
    return out


def timed(fn: Callable[[], object], repeat: int) -> float:
    """Median seconds per call over `repeat` calls (after one warm-up)."""
    fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> int:
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        files: dict[int, Path] = {}
        for n in (10, 50, 100, 1000):
            files[n] = Path(tmp) / f"m{n}.json"
            files[n].write_text(json.dumps(manifest(n), indent=2), encoding="utf-8")
            problems = validate_path(files[n])
            assert [p.rule for p in problems] == ["unknown-key"], [p.format() for p in problems]

        # The sizes are timed in interleaved rounds (10, 100, 1000, 10, 100, 1000, ...), so a
        # burst of other work on a shared machine lands on every size alike, not on one.
        print("notch validate — manifests of N tools (median of 9 interleaved rounds)")
        inner = {10: 10, 100: 3, 1000: 1}  # calls per round, averaged: each round ~0.1–0.4 s
        samples: dict[int, list[float]] = {n: [] for n in inner}
        for n in inner:
            validate_path(files[n])  # warm-up
        for _ in range(9):
            for n, calls in inner.items():
                start = time.perf_counter()
                for _ in range(calls):
                    validate_path(files[n])
                samples[n].append((time.perf_counter() - start) / calls)
        per = {n: statistics.median(s) for n, s in samples.items()}
        for n in inner:
            size = files[n].stat().st_size / 1024
            print(f"  {n:>5} tools  {size:8.0f} KiB  {per[n] * 1000:9.2f} ms/manifest")
        growth = per[1000] / per[100]
        rounds = sorted(b / a for a, b in zip(samples[100], samples[1000], strict=True))
        print(
            f"  growth 1000/100 tools: {growth:.1f}x  (target <= 12x; "
            f"per round {rounds[0]:.1f}–{rounds[-1]:.1f}x)"
        )
        ok &= growth <= 12

        schema = json.loads((default_schema_dir() / "manifest.schema.json").read_text())
        validator = Draft202012Validator(schema)
        data = json.loads(files[50].read_text())
        assert validator.is_valid(data)
        full = timed(lambda: validate_path(files[50]), 15)
        bare = timed(lambda: validator.validate(data), 5)
        ratio = bare / full
        print("one 50-tool manifest, same run")
        print(f"  notch validate (structure + rules + positions): {full * 1000:8.2f} ms")
        print(f"  jsonschema Draft202012Validator, schema only:  {bare * 1000:8.2f} ms")
        print(f"  full check is {ratio:.1f}x faster  (target >= 4x)")
        ok &= ratio >= 4
    print("targets met" if ok else "TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
