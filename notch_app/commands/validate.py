"""`notch validate PATH... [--json]`: check manifests and their preview fixtures.

Prints one line per problem, `FILE:LINE:COLUMN: error[RULE-ID]: message`, or with --json a
list of objects. Exit 0 without errors (warnings allowed), 1 with errors, 2 for usage
errors or unreadable paths. Never imports Qt, so it runs on a machine without a display.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="+",
        type=Path,
        metavar="PATH",
        help="a manifest file, an integration folder, or a folder of integrations",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print a JSON list of {file, line, column, pointer, rule, severity, message}",
    )


def run(args: argparse.Namespace) -> int:
    from notch_app.manifest.reading import Problem
    from notch_app.manifest.validate import UNREADABLE, validate_path

    problems: list[Problem] = []
    for path in args.paths:
        problems.extend(validate_path(path))
    if args.json:
        print(_printable(json.dumps([p.to_json() for p in problems], indent=2, ensure_ascii=False)))
    else:
        for problem in problems:
            print(_printable(problem.format()))
        errors = sum(1 for p in problems if p.is_error)
        warnings = len(problems) - errors
        if problems:
            print(
                f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}",
                file=sys.stderr,
            )
    if any(p.rule == UNREADABLE for p in problems):
        return 2
    return 1 if any(p.is_error for p in problems) else 0


def _printable(text: str) -> str:
    # A file name that is not UTF-8 reaches Python as lone surrogates, which no UTF-8
    # stream can write: show them escaped (\udcff) instead of failing mid-report.
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
