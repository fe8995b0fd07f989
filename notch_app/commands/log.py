"""`notch log`: past decisions from the data dir, newest last, password values redacted.

Each row says how the decision was given (click, key, voice, policy, …), which scope
approved a call that ran (once, session, always), and the person's words: what they typed
or said to decide, or the change they asked for (a revision), under the row. With
`--json`: every field, and the sentence the model was given (`forModel`)."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print a JSON array")
    parser.add_argument("--data-dir", type=Path, metavar="DIR", help="Notch's data folder")
    parser.add_argument("--limit", type=int, default=50, metavar="N", help="newest N (default 50)")


def run(args: argparse.Namespace) -> int:
    from notch_app.runtime.folders import default_data_dir
    from notch_app.runtime.store import DB_NAME, DecisionStore, StoreError

    data_dir: Path = args.data_dir or default_data_dir()
    if not (data_dir / DB_NAME).exists():
        if args.json:
            print("[]")
        else:
            print(f"no decisions yet in {data_dir}", file=sys.stderr)
        return 0
    try:
        store = DecisionStore(data_dir)
        try:
            entries = store.log(args.limit)
        finally:
            store.close()
    except StoreError as exc:
        print(f"notch log: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps([e.to_json() for e in entries], ensure_ascii=False, indent=2))
        return 0
    rows = [("TIME", "INTEGRATION", "TOOL", "OUTCOME", "DECIDED BY", "SCOPE", "EDITED", "CALL ID")]
    said: list[str | None] = []
    for e in entries:
        when = datetime.fromtimestamp(e.decided_at).strftime("%Y-%m-%d %H:%M:%S")
        edited = ", ".join(e.edited_paths) or "-"
        scope = e.scope or "-"
        outcome = "revise" if e.reason == "revise" else e.outcome
        rows.append(
            (when, e.integration_id, e.tool_name, outcome, e.decided_by, scope, edited, e.call_id)
        )
        said.append(_said(e.words, e.feedback if e.reason == "revise" else None))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    for r, words in zip(rows, [None, *said], strict=True):
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)) + "  " + r[-1])
        if words:
            print(f"    {words}")
    return 0


def _said(words: str | None, change: str | None) -> str | None:
    """The line under a decision given in words: “yes, send it” / asked: “make it shorter”."""
    if change:
        return f"asked: “{change}”"
    return f"said: “{words}”" if words else None
