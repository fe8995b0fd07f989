"""Writes into credentials and startup files: redirects, `cp`, `tee`, `sed -i`…; raw
writes to a disk, `/dev/tcp` and the kernel's restart switch."""

from __future__ import annotations

import posixpath

from notch_app.card.shell import places
from notch_app.card.shell.parse import Command, Word
from notch_app.card.shell.reading import Context, Reading, Run, on_host
from notch_app.card.shell.words import flags_and_operands


def redirects(reading: Reading, command: Command, context: Context) -> None:
    for redirect in command.redirects:
        target = redirect.target
        if target is None or (redirect.op in ("<", "<&", ">&") and not target.literal):
            continue
        if redirect.op in ("<", "<&"):
            continue
        if target.literal and target.text.startswith(("/dev/tcp/", "/dev/udp/")):
            host = target.text.split("/")[3] if target.text.count("/") >= 3 else "the network"
            reading.add(("sends",), f"Sends data to {host} (/dev/tcp)" + on_host(context))
            continue
        if target.literal and target.text == "/proc/sysrq-trigger":
            reading.add(("system",), "Restarts or stops the computer at once (/proc/sysrq-trigger)"
                     + on_host(context))  # fmt: skip
            continue
        if target.literal and places.disk_device(target.text):
            reading.add(
                ("disk",), f"Writes raw data over the disk {target.text}" + on_host(context)
            )
            continue
        run = Run(command.base, list(command.args), command, context)
        write_to(reading, run, target, redirect.op)


def write_to(reading: Reading, run: Run, target: Word, how: str) -> None:
    context = run.context
    if context.host is not None:
        return
    for path in reading.paths_of(target, context):
        if path is None:
            continue
        what = places.secret_place(path, reading.home)
        shown = places.shortened(path, reading.home)
        if what is not None:
            if posixpath.basename(path) == "authorized_keys":
                text = f"Lets another key log in to this computer: writes {shown}"
            else:
                text = f"Writes to {shown}, {what}"
            reading.add(("credentials",), text + on_host(context))
        elif places.startup_file(path, reading.home):
            reading.add(("startup",), f"Changes what runs at login or on a schedule: writes {shown}"
                     + on_host(context))  # fmt: skip


def by_copy(reading: Reading, run: Run) -> None:
    name = run.name
    if name in ("cp", "mv", "install", "ln", "tee", "sed", "truncate", "touch"):
        _flags, operands = flags_and_operands(
            run.args, {"t", "-target-directory", "m", "o", "g", "e"}
        )
        if name == "tee":
            targets = operands
        elif name == "sed":
            if not any(a.literal and a.text.startswith("-i") for a in run.args):
                return
            targets = operands[1:]
        elif name in ("truncate", "touch"):
            targets = operands
        else:
            targets = operands[-1:] if len(operands) >= 2 else []
        for target in targets:
            write_to(reading, run, target, name)
