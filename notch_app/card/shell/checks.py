"""What runs, checked: one entry per command name, to the family that reads it.

A new command Notch should read is one entry here and one function in its family's
module, never a branch in a ladder. Every command is also read for what it sends to the
network, the secrets it reads and the files it writes by copying.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from notch_app.card.shell import (
    cloud,
    credentials,
    deletes,
    git,
    network,
    permissions,
    startup,
    system,
    writes,
)
from notch_app.card.shell.reading import Reading, Run

Check = Callable[[Reading, Run], None]

CHECKS: Final[Mapping[str, Check]] = {
    "rm": deletes.rm,
    "unlink": deletes.unlink,
    "shred": deletes.shred,
    "find": deletes.find,
    **dict.fromkeys(("chmod", "chown", "chgrp", "chflags"), permissions.changes),
    "git": git.git,
    "dd": system.dd,
    "diskutil": system.diskutil,
    **dict.fromkeys((*system.SYSTEM_STOP, "init", "telinit"), system.stop),
    "systemctl": system.systemctl,
    "kill": system.kill,
    "crontab": startup.crontab,
    "rsync": network.rsync,
    "scp": network.scp,
    "sftp": network.sftp,
    "at": startup.later,
    "batch": startup.later,
    "systemd-run": startup.systemd_run,
    "launchctl": startup.launchctl,
    "ssh-keygen": credentials.ssh_keygen,
    **dict.fromkeys(("security", "secret-tool", "pass", "gpg"), credentials.keychain),
    "aws": cloud.aws,
    "gcloud": cloud.gcloud,
    **dict.fromkeys(cloud.CLOUD_DELETES, cloud.managed),
    "docker": cloud.docker,
    "podman": cloud.docker,
}
"""Command name → the check that reads it. Disk tools are found by the name before any
dot (`mkfs.ext4`), in `system.DISK_TOOLS`."""
EVERY: Final[tuple[Check, ...]] = (network.to_network, credentials.reads_secrets, writes.by_copy)
"""Checks that read every command, after its own."""


def check(reading: Reading, run: Run) -> None:
    """Add to `reading` what `run` does that a person should see."""
    own = CHECKS.get(run.name)
    if own is None and run.name.split(".")[0] in system.DISK_TOOLS:
        own = system.disk_tool
    if own is not None:
        own(reading, run)
    for every in EVERY:
        every(reading, run)
