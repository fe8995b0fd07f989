"""`notch secrets`: an integration's API keys in the OS keyring, from a terminal.

    notch secrets set ID FIELD      the value is read from stdin; typed without echo at a terminal
    notch secrets clear ID FIELD
    notch secrets list ID           each auth field: set or not set (never the value)

The value is never taken from the command line: any user on the machine can read
another's command lines (`ps`). Pipe it (`notch secrets set com.example.mail API_KEY <
key.txt`) or type it when asked. `--manifests DIR` (repeatable) also loads integrations
from DIR, to check FIELD against the manifest. Exit 0 on success, 2 for bad usage, an
unknown field or no usable OS keyring.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from notch_app.manifest.model import Manifest


class _Refusal(Exception):
    """What `notch secrets` will not do (exit 2); the message says what to do instead."""


def configure(parser: argparse.ArgumentParser) -> None:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--manifests",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="also load integrations from DIR (repeatable) to check the field against",
    )
    sub = parser.add_subparsers(dest="secrets_command", metavar="ACTION", required=True)
    p = sub.add_parser(
        "set",
        parents=[common],
        help="keep an API key: typed without echo, or read from stdin",
        description="Read the value from stdin (typed without echo at a terminal) and keep "
        "it in the OS keyring. Never pass it as an argument: command lines are public.",
    )
    p.add_argument("integration", metavar="ID", help="the integration's id")
    p.add_argument("field", metavar="FIELD", help="the auth field's key, e.g. API_KEY")
    # Caught and refused without echoing it back: argparse would print it in its error.
    p.add_argument("value_on_argv", nargs="*", help=argparse.SUPPRESS)
    p = sub.add_parser("clear", parents=[common], help="remove an API key from the keyring")
    p.add_argument("integration", metavar="ID", help="the integration's id")
    p.add_argument("field", metavar="FIELD", help="the auth field's key")
    p = sub.add_parser("list", parents=[common], help="show which auth fields are set")
    p.add_argument("integration", metavar="ID", help="the integration's id")


def run(args: argparse.Namespace) -> int:
    from notch_app.runtime.secrets import SecretStore, SetupProblem

    try:
        store = SecretStore()
        if args.secrets_command == "set":
            return _set(args, store)
        if args.secrets_command == "clear":
            return _clear(args, store)
        return _list(args, store)
    except (_Refusal, SetupProblem) as exc:
        print(f"notch secrets: {exc}", file=sys.stderr)
        return 2


def _manifest(args: argparse.Namespace) -> Manifest | None:
    from notch_app.runtime.catalog import load_integrations

    for folder in args.manifests:
        if not Path(folder).expanduser().is_dir():
            raise _Refusal(f"--manifests {folder}: no such folder")
    catalog, _problems = load_integrations(args.manifests)
    return catalog.integration(args.integration)


def _secret_fields(manifest: Manifest) -> list[Any]:
    from notch_app.runtime.secrets import auth_specs

    return [f for f in auth_specs(manifest.auth) if f.secret]


def _check_field(args: argparse.Namespace) -> str:
    """The field's label when the manifest is loaded; refuses a field it does not declare."""
    manifest = _manifest(args)
    if manifest is None:
        print(
            f"notch secrets: note: {args.integration} is not among the loaded integrations "
            "(add --manifests DIR to check the field name)",
            file=sys.stderr,
        )
        return str(args.field)
    fields = _secret_fields(manifest)
    for field in fields:
        if field.key == args.field:
            return str(field.label)
    known = ", ".join(f.key for f in fields) or "none"
    raise _Refusal(
        f"{manifest.name} ({manifest.id}) has no secret auth field {args.field!r}; "
        f"its secret fields: {known}"
    )


def _read_value(label: str) -> str:
    from notch_app.runtime.secrets import MAX_SECRET_CHARS

    if sys.stdin is None:
        raise _Refusal("no standard input to read the value from; pipe it in")
    if sys.stdin.isatty():
        value = getpass.getpass(f"{label} (typing is not shown): ")
    else:
        value = sys.stdin.read(MAX_SECRET_CHARS + 2)
        # One trailing line end comes from `echo` or the file, not from the key.
        if value.endswith("\r\n"):
            value = value[:-2]
        elif value.endswith("\n"):
            value = value[:-1]
    return value


def _set(args: argparse.Namespace, store: Any) -> int:
    if args.value_on_argv:
        raise _Refusal(
            "the value is never taken from the command line (anyone on this machine can "
            "read command lines); run the command without it and type the value when "
            "asked, or pipe it on stdin"
        )
    problem = store.problem
    if problem is not None:  # said before the person types the key, not after
        raise _Refusal(problem)
    label = _check_field(args)
    value = _read_value(label)
    store.set(args.integration, args.field, value)
    print(f"Kept {args.field} for {args.integration} in the OS keyring.", file=sys.stderr)
    return 0


def _clear(args: argparse.Namespace, store: Any) -> int:
    if store.clear(args.integration, args.field):
        print(f"Removed {args.field} of {args.integration} from the keyring.", file=sys.stderr)
    else:
        print(f"{args.field} of {args.integration} was not set.", file=sys.stderr)
    return 0


def _list(args: argparse.Namespace, store: Any) -> int:
    from notch_app.runtime.secrets import auth_specs

    manifest = _manifest(args)
    if manifest is None:
        raise _Refusal(
            f"no integration {args.integration!r} is loaded; add --manifests DIR with its folder"
        )
    fields = auth_specs(manifest.auth)
    if not fields:
        print(f"{manifest.name} ({manifest.id}) has no auth fields.")
        return 0
    width = max(len(f.key) for f in fields)
    for field in fields:
        if field.secret:
            state = "set" if store.is_set(manifest.id, field.key) else "not set"
            kind = "secret"
        else:
            state, kind = "in Settings", "not secret"
        need = "required" if field.required else "optional"
        print(f"{field.key.ljust(width)}  {state:<11}  {kind}, {need}  {field.label}")
    return 0
