"""`notch test SCENARIO.json...`: confirmation scenarios, headless, through the real card.

Prints `PASS name` or `FAIL name: reason` per scenario and `N passed, N failed`; exits 0
when all pass, 1 when any failed, 2 when a scenario file is unreadable or invalid (its
problems are printed as FILE:LINE:COLUMN: error[RULE]: message).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "scenarios",
        nargs="+",
        type=Path,
        metavar="SCENARIO.json",
        help="scenario files, or folders (their scenarios/*.json files, recursively)",
    )


def _expand(paths: list[Path]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out.extend(sorted(q for q in p.rglob("*.json") if q.parent.name == "scenarios"))
        else:
            out.append(p)
    return out


def _display(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


def run(args: argparse.Namespace) -> int:
    from notch_app.card.scenario import load_scenario

    files = _expand(list(args.scenarios))
    if not files:
        print("notch test: no scenario files found", file=sys.stderr)
        return 2
    loaded = []
    invalid = False
    for path in files:
        scenario, problems = load_scenario(path, _display(path))
        for problem in problems:
            print(problem.format(), file=sys.stderr)
        if scenario is None:
            invalid = True
        else:
            loaded.append((path, scenario))

    passed = failed = 0
    if loaded:
        from notch_app.ui.headless import headless_app

        headless_app()
        from notch_app.ui.scenario_runner import ScenarioRunner

        runner = ScenarioRunner()
        for path, scenario in loaded:
            result = runner.run(scenario, path, scenario.name or _display(path))
            if result.passed:
                passed += 1
                print(f"PASS {result.name}")
            else:
                failed += 1
                print(f"FAIL {result.name}: {result.reason}")
            sys.stdout.flush()
    print(f"{passed} passed, {failed} failed")
    if invalid:
        return 2
    return 1 if failed else 0
