"""The `notch` command. Subcommands import their modules lazily so `validate` never loads Qt."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    print("notch: not yet", file=sys.stderr)
    return 2
