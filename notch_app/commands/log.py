"""`notch log`: past decisions from the data dir, newest last, password values redacted.

Each row says which scope approved a call that ran (once, session, always) and, with
`--json`, the sentence the model was given (`forModel`)."""

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
    from notch_app.runtime.store import DB_NAME, DecisionStore, StoreError, default_data_dir

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
    for e in entries:
        when = datetime.fromtimestamp(e.decided_at).strftime("%Y-%m-%d %H:%M:%S")
        edited = ", ".join(e.edited_paths) or "-"
        scope = e.scope or "-"
        rows.append(
            (when, e.integration_id, e.tool_name, e.outcome, e.decided_by, scope, edited, e.call_id)
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)) + "  " + r[-1])
    return 0
