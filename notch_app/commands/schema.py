"""`notch schema [--check] [--out DIR]`: write or check the published JSON Schemas and
the OpenRPC document of the socket API."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--check",
        action="store_true",
        help="do not write; exit 1 if the files differ from what the models generate",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="DIR",
        help="folder for the schema files (default: the project's schemas/)",
    )


def run(args: argparse.Namespace) -> int:
    from notch_app.card.scenario import scenario_schema
    from notch_app.ipc.openrpc import FILE_NAME as OPENRPC_FILE
    from notch_app.ipc.openrpc import socket_openrpc
    from notch_app.manifest.model import default_schema_dir, stale_schemas, write_schemas

    # The socket API's OpenRPC document is checked and written like the JSON Schemas.
    extra = {"scenario.schema.json": scenario_schema(), OPENRPC_FILE: socket_openrpc()}
    out: Path = args.out if args.out is not None else default_schema_dir()
    if args.check:
        stale = stale_schemas(out, extra)
        for name in stale:
            print(
                f"{out / name}: out of date with the models; run `notch schema` to regenerate",
                file=sys.stderr,
            )
        return 1 if stale else 0
    try:
        written = write_schemas(out, extra)
    except OSError as exc:
        print(f"notch schema: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0
