"""Deletes: recursive, forced or bulk (`rm -rf`, `find -delete`, `xargs rm`), outside the
folder the command runs in, or of credentials; and `find` looking for secrets."""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from notch_app.card.shell import places
from notch_app.card.shell.parse import Word
from notch_app.card.shell.reading import Reading, Run, on_host
from notch_app.card.shell.words import base, flags_and_operands, starting_points

SECRET_NAMES: Final = {
    "id_rsa": "SSH private keys",
    "id_dsa": "SSH private keys",
    "id_ecdsa": "SSH private keys",
    "id_ed25519": "SSH private keys",
    ".ssh": "SSH keys",
    ".gnupg": "GnuPG keys",
    ".netrc": "saved logins (.netrc)",
    ".git-credentials": "saved Git passwords",
    "credentials": "cloud access keys",
    ".aws": "AWS keys",
    "*.pem": "private keys",
    "*.key": "private keys",
    ".env": "secrets in .env files",
    "wallet.dat": "crypto wallets",
}


def rm(reading: Reading, run: Run) -> None:
    flags, targets = flags_and_operands(run.args)
    recursive = bool({"r", "R", "recursive"} & flags)
    forced = bool({"f", "force"} & flags)
    delete(reading, run, targets, recursive, forced, "rm")


def unlink(reading: Reading, run: Run) -> None:
    delete(reading, run, run.args[-1:], False, False, "unlink")


def shred(reading: Reading, run: Run) -> None:
    _flags, targets = flags_and_operands(
        run.args, {"n", "s", "-iterations", "-size", "-random-source"}
    )
    disks = [t for t in targets if t.literal and places.disk_device(t.text)]
    if disks:
        reading.add(
            ("disk",), f"Overwrites the disk {disks[0].text} (shred)" + on_host(run.context)
        )
        return
    delete(reading, run, targets, False, True, "shred", verb="Destroys")


def delete(reading: Reading, run: Run, targets: list[Word], recursive: bool, forced: bool, tool: str,
            verb: str = "Deletes") -> None:  # fmt: skip
    context = run.context
    bulk = context.bulk is not None or any(t.substituted for t in targets)
    bulk = bulk or (run.command.in_loop and any(not t.literal for t in targets))
    if context.bulk == "xargs":
        targets = [t for t in targets if not (t.literal and "{}" in t.text)]
    listed = list(context.roots) if context.bulk == "xargs" else []
    away = [t for t in [*targets, *listed] if reading.outside([t], context)]
    far = {id(t) for t in away}
    near = [t for t in targets if id(t) not in far]
    how = []
    if recursive:
        how.append("recursively")
    if forced:
        how.append("without asking")
    kinds = []
    if recursive or forced or bulk:
        kinds.append("delete")
    if away:
        kinds.append("delete-outside")
    secrets = reading.secret_targets(targets, context)
    if secrets:
        kinds.append("credentials")
    if not kinds:
        return
    # What lies outside the project is named first, never lost in "and 2 more", as
    # the path it is (`cd ~ && rm -rf .ssh` deletes ~/.ssh).
    what = reading.targets(away, context, resolve=True) if away else ""
    what = what or reading.targets(near, context) or "files"
    if context.bulk == "find":
        what = f"every file find lists under {reading.targets(list(context.roots), context) or '.'}"
    elif context.bulk == "xargs":
        what = f"the files {context.lister} lists"
        if context.roots:
            what += " under " + reading.targets(list(context.roots), context)
        if targets:
            what = f"{reading.targets(targets, context)} and {what}"
    text = f"{verb} {what}"
    if how:
        text += (", " if context.bulk else " ") + ", ".join(how)
    if away:
        text += f", outside {reading.where(reading.project)}"
        if near and context.bulk is None:
            text += f" (and {reading.targets(near, context)})"
    if any(not t.literal and not t.substituted for t in targets) and context.bulk is None:
        text += ", at a path only known when it runs"
    if secrets:
        text += f" — {secrets}"
    reading.add(kinds, text + f" ({tool})" + on_host(context))


def find(reading: Reading, run: Run) -> None:
    args = run.args
    roots = starting_points("find", args)
    i = next((j for j, a in enumerate(args) if a.literal and a.text[:1] in ("-", "(", "!")
              and a.text not in ("-H", "-L", "-P")), len(args))  # fmt: skip
    context = replace(run.context, bulk="find", roots=roots)
    secret = next(
        (args[j + 1].text for j in range(i, len(args) - 1)
         if args[j].literal and args[j].text in ("-name", "-iname", "-path", "-ipath")
         and args[j + 1].literal and secret_name(args[j + 1].text)),
        None,
    )  # fmt: skip
    if secret is not None:
        reading.add(("credentials",), f"Looks for {secret_name(secret)} everywhere under "
                 f"{reading.targets(list(roots), run.context)} (find -name {secret})" + on_host(run.context))  # fmt: skip
    while i < len(args):
        word = args[i]
        text = word.text if word.literal else ""
        if text == "-delete":
            delete(reading, replace(run, args=[Word("{}", True, "{}")], context=context),
                         [Word("{}", True, "{}")], True, False, "find -delete")  # fmt: skip
        elif text in ("-exec", "-execdir", "-ok", "-okdir"):
            end = i + 1
            while end < len(args) and not (args[end].literal and args[end].text in (";", "+")):
                end += 1
            inner = args[i + 1 : end]
            if inner and inner[0].literal:
                reading.run(Run(base(inner[0]), inner[1:], run.command, context))
            i = end
        i += 1


def secret_name(pattern: str) -> str | None:
    """What a `find -name PATTERN` looks for when it looks for secrets, else None."""
    pattern = pattern.removeprefix("*/")
    return SECRET_NAMES.get(pattern)
