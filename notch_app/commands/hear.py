"""`notch hear [--lang xx] TEXT...`: how Notch takes each reply to a card.

Prints one `verdict<TAB>text` line per reply (yes, no, revise or unclear), for integration
authors, bug reports and scripted checks. With no TEXT it reads one reply per line from
stdin. Always exits 0 once the replies are read; a usage error (an unknown --lang) is 2.
"""

from __future__ import annotations

import argparse
import io
import sys

from notch_app.reply import SUPPORTED_LANGUAGES


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lang",
        metavar="XX",
        default=None,
        help=f"the replies' language, one of {', '.join(SUPPORTED_LANGUAGES)} "
        "(default: detect it per reply)",
    )
    parser.add_argument(
        "text",
        nargs="*",
        metavar="TEXT",
        help="one reply per argument (quote replies with spaces); none: read lines from stdin",
    )


def run(args: argparse.Namespace) -> int:
    from notch_app.reply import classify_reply

    language: str | None = args.lang.strip().lower() if args.lang else None
    if language is not None and language not in SUPPORTED_LANGUAGES:
        print(
            f"notch hear: --lang {args.lang!r} is not supported; "
            f"use one of {', '.join(SUPPORTED_LANGUAGES)} or leave it out to detect it",
            file=sys.stderr,
        )
        return 2
    if not args.text and isinstance(sys.stdin, io.TextIOWrapper):
        sys.stdin.reconfigure(errors="replace")  # a stray byte is a reply's noise, not a crash
    replies = args.text if args.text else (line.rstrip("\r\n") for line in sys.stdin)
    for text in replies:
        reply = classify_reply(text, language)
        print(f"{reply.verdict}\t{reply.text}", flush=not args.text)
    return 0
