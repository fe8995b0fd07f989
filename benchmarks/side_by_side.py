"""One benchmark, two checkouts of Notch, one run: each tree in its own process, rounds
interleaved, so the machine's load lands on both alike.

A benchmark with a `--base REV` option starts itself twice in worker mode (`--worker`),
once with today's tree first on the import path and once with REV's (a detached git
worktree under the temp folder, made once and reused), and asks each worker for one
round at a time, alternating which goes first (A B B A …). Workers speak one JSON object
a line on their stdin/stdout; anything else a worker prints is passed over.

    from side_by_side import Pair, base_tree
    with Pair(__file__, base_tree("11eee8b"), ["--worker"]) as pair:
        rounds = pair.interleaved(10, {"do": "requests", "n": 20})

In a worker: `for cmd in commands(): reply({...})`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
TREE = Path(os.environ.get("NOTCH_TREE") or REPO)
"""The checkout this process measures: today's unless started as a worker for another."""
BASE = "11eee8b"
"""The commit issue 19 measures against: the code before the card, trust and gateway work
that made the overlay slower and heavier."""
_MARK = "@@side_by_side "


def base_tree(rev: str = BASE) -> Path:
    """A detached worktree of `rev` (made on first use, then reused; never main's tree)."""
    full = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--short=12", f"{rev}^{{commit}}"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    where = Path(tempfile.gettempdir()) / f"notch-tree-{full}"
    if not (where / "notch_app").is_dir():
        subprocess.run(
            ["git", "-C", str(REPO), "worktree", "add", "-q", "--detach", str(where), full],
            check=True,
        )
    return where


def tree_env(tree: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["NOTCH_TREE"] = str(tree)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(tree), env.get("PYTHONPATH")) if p)
    return env


def load() -> str:
    """The machine's load averages (1, 5, 15 min), to print beside each figure."""
    one, five, fifteen = os.getloadavg()
    return f"{one:.1f} / {five:.1f} / {fifteen:.1f}"


class Worker:
    """One benchmark process measuring one tree."""

    def __init__(self, label: str, script: str, tree: Path, argv: list[str]) -> None:
        self.label = label
        self.tree = tree
        self.process = subprocess.Popen(
            [sys.executable, script, *argv],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=tree_env(tree),
        )  # fmt: skip
        self.ready = self._read()

    def ask(self, command: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        return self._read()

    def _read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.startswith(_MARK):
                got: dict[str, Any] = json.loads(line[len(_MARK) :])
                if "error" in got:
                    raise RuntimeError(f"{self.label} worker: {got['error']}")
                return got
        raise RuntimeError(f"the {self.label} worker ended (status {self.process.wait()})")

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()


class Pair:
    """Today's tree and the base tree, each in a worker of the same script."""

    def __init__(self, script: str, base: Path, argv: list[str]) -> None:
        self.base = Worker("base", script, base, argv)
        self.now = Worker("now", script, REPO, argv)

    def __enter__(self) -> Pair:
        return self

    def __exit__(self, *_: object) -> None:
        self.base.close()
        self.now.close()

    def interleaved(self, rounds: int, command: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
        """`rounds` rounds of `command` on each tree, the first to go alternating."""
        out: dict[str, list[dict[str, Any]]] = {"base": [], "now": []}
        for r in range(rounds):
            order = (self.base, self.now) if r % 2 == 0 else (self.now, self.base)
            for worker in order:
                out[worker.label].append(worker.ask(command))
        return out


def reply(payload: dict[str, Any]) -> None:
    """A worker's answer (one line on stdout)."""
    sys.stdout.write(_MARK + json.dumps(payload) + "\n")
    sys.stdout.flush()


def commands() -> Iterator[dict[str, Any]]:
    """A worker's commands, one per stdin line, until the parent closes stdin."""
    for line in sys.stdin:
        if line.strip():
            yield json.loads(line)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)
