"""Disks and the system: `dd` over a disk, formatting and partitioning tools, shutting the
computer down, killing every process, a fork bomb."""

from __future__ import annotations

from typing import Final

from notch_app.card.shell import places
from notch_app.card.shell.parse import Script, Word
from notch_app.card.shell.reading import Reading, Run, literal_words, on_host
from notch_app.card.shell.writes import write_to

DISK_TOOLS: Final = {
    "mkfs": "Formats", "mke2fs": "Formats", "mkswap": "Formats", "mkdosfs": "Formats",
    "mkntfs": "Formats", "newfs": "Formats", "wipefs": "Wipes the filesystem signatures on",
    "fdisk": "Changes the partitions of", "sfdisk": "Changes the partitions of",
    "gdisk": "Changes the partitions of", "sgdisk": "Changes the partitions of",
    "cfdisk": "Changes the partitions of", "parted": "Changes the partitions of",
    "blkdiscard": "Discards every block of", "mdadm": "Changes the disk array",
    "lvremove": "Removes the volume", "vgremove": "Removes the volume group",
    "pvremove": "Removes the physical volume", "cryptsetup": "Changes the encrypted disk",
}  # fmt: skip
SYSTEM_STOP: Final = frozenset({"shutdown", "reboot", "poweroff", "halt"})


def dd(reading: Reading, run: Run) -> None:
    for word in run.args:
        if word.literal and word.text.startswith("of="):
            target = word.text[3:]
            if places.disk_device(target):
                reading.add(
                    ("disk",), f"Writes raw data over the disk {target} (dd)" + on_host(run.context)
                )
            else:
                write_to(reading, run, Word(target, True, target), "dd")


def disk_tool(reading: Reading, run: Run) -> None:
    name = run.name
    tool = name.split(".")[0]
    texts = literal_words(run)
    if tool in ("fdisk", "sfdisk", "gdisk", "sgdisk", "parted") and any(
        t in ("-l", "--list", "print", "-p", "--print", "-s", "--show") for t in texts
    ):
        return  # listing the partitions
    if tool == "mdadm" and not any(t in ("--zero-superblock", "--create", "-C") for t in texts):
        return
    if tool == "cryptsetup" and not any(t in ("luksFormat", "erase", "luksErase") for t in texts):
        return
    device = next((t for t in texts if t.startswith("/dev/")), "a disk")
    reading.add(
        ("disk",), f"{DISK_TOOLS[tool]} {device} ({name})".replace("  ", " ") + on_host(run.context)
    )


def diskutil(reading: Reading, run: Run) -> None:
    verbs = [a.text for a in run.args if a.literal]
    if any(v.lower().startswith(("erase", "partition", "zero", "random", "secure", "reformat"))
           for v in verbs):  # fmt: skip
        reading.add(("disk",), f"Erases a disk (diskutil {verbs[0]})" + on_host(run.context))


def stop(reading: Reading, run: Run) -> None:
    """`shutdown`, `reboot`…, and `init 0` or `init 6`."""
    name = run.name
    if name in SYSTEM_STOP or (
        name in ("init", "telinit") and literal_words(run)[:1] in (["0"], ["6"])
    ):
        reading.add(
            ("system",), f"Shuts down or restarts the computer ({name})" + on_host(run.context)
        )


def systemctl(reading: Reading, run: Run) -> None:
    texts = literal_words(run)
    if any(t in ("poweroff", "reboot", "halt", "kexec", "soft-reboot") for t in texts):
        reading.add(
            ("system",), "Shuts down or restarts the computer (systemctl)" + on_host(run.context)
        )
    elif "enable" in texts:
        unit = next((t for t in texts if not t.startswith("-") and t != "enable"), "a service")
        reading.add(("startup",), f"Starts {unit} at every boot (systemctl enable)" + on_host(run.context),
                 danger=False)  # fmt: skip


def kill(reading: Reading, run: Run) -> None:
    texts = literal_words(run)
    if "-1" in texts[1:] or (texts and texts[-1] == "-1" and len(texts) > 1):
        reading.add(("system",), "Stops every process you own (kill -1)" + on_host(run.context))


def fork_bomb(reading: Reading, script: Script) -> None:
    for command in script.commands:
        if (
            command.in_function is not None
            and command.base == command.in_function
            and (command.piped_to or command.piped_from or command.background)
        ):
            reading.add(("system",), "Starts copies of itself without end (a fork bomb)")
            return
