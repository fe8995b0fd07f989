"""What a path means to the person: their keys, their startup files, a whole disk.

The shell risk reading (`shell/`) asks of each path a command reads or writes
whether it holds credentials (`~/.ssh`, `~/.aws`, a keychain), runs at every login or
shell (`~/.bashrc`, crontabs, autostart entries), is a disk device, or lies outside the
folder the command runs in. Paths are compared as text, `~` and `$HOME` expanded, `.`
and `..` resolved; nothing here touches the file system. Qt-free.
"""

from __future__ import annotations

import functools
import posixpath
from typing import Final

SECRET_PLACES: Final = (
    (".ssh", "your SSH keys and who may log in over SSH"),
    (".aws", "your AWS keys"),
    (".gnupg", "your GnuPG keys"),
    (".kube", "your Kubernetes logins"),
    (".config/gcloud", "your Google Cloud logins"),
    (".azure", "your Azure logins"),
    (".docker/config.json", "your Docker registry logins"),
    (".password-store", "your passwords (pass)"),
    (".local/share/keyrings", "your keyring"),
    ("Library/Keychains", "your keychain"),
    (".config/gh", "your GitHub login"),
    (".netrc", "your saved logins (.netrc)"),
    (".git-credentials", "your saved Git passwords"),
    (".npmrc", "your npm token"),
    (".pypirc", "your PyPI token"),
    (".vault-token", "your Vault token"),
    (".terraform.d/credentials.tfrc.json", "your Terraform Cloud token"),
)
"""Under the home folder: where credentials live, and what they are, in a few words."""
SYSTEM_SECRETS: Final = (
    ("/etc/shadow", "the system's password hashes"),
    ("/etc/gshadow", "the system's group passwords"),
    ("/etc/sudoers", "who may run commands as root"),
    ("/etc/sudoers.d", "who may run commands as root"),
    ("/etc/passwd", "the system's accounts"),
)
NOT_SECRET: Final = frozenset({"config", "known_hosts", "known_hosts.old"})
"""Files under ~/.ssh that hold no secret: reading them is no risk (writing still is)."""
STARTUP_FILES: Final = (
    ".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zprofile",
    ".zshenv", ".zlogin", ".config/fish/config.fish", ".config/autostart",
    ".config/systemd/user", "Library/LaunchAgents", ".ssh/rc", ".xprofile", ".xinitrc",
)  # fmt: skip
"""Under the home folder: what runs at every login or new shell."""
SYSTEM_STARTUP: Final = (
    "/etc/cron.d", "/etc/crontab", "/etc/cron.hourly", "/etc/cron.daily", "/etc/cron.weekly",
    "/etc/cron.monthly", "/var/spool/cron", "/etc/systemd/system", "/etc/rc.local",
    "/etc/profile", "/etc/profile.d", "/etc/bash.bashrc", "/etc/init.d",
    "/Library/LaunchAgents", "/Library/LaunchDaemons", "/etc/ld.so.preload",
)  # fmt: skip
DISKS: Final = ("sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "md", "dm-", "loop",
                "mapper/")  # fmt: skip
"""Names under /dev of block devices: a write there overwrites a disk, not a file."""


def expanded(path: str, home: str) -> str:
    """`path` with a leading `~`, `$HOME` or `${HOME}` written as `home`."""
    for lead in ("${HOME}", "$HOME", "~"):
        if path == lead or path.startswith(lead + "/"):
            return home + path[len(lead) :]
    return path


def resolved(path: str, cwd: str | None, home: str) -> str | None:
    """`path` made absolute (against `cwd`), `..` resolved; None when it cannot be (a
    relative path with no known working directory, or `~user`)."""
    path = expanded(path, home)
    if path.startswith("~"):
        return None
    if not path.startswith("/"):
        if cwd is None:
            return None
        base = expanded(cwd, home)
        if not base.startswith("/"):
            return None
        path = posixpath.join(base, path)
    return posixpath.normpath(path)


def fixed_part(path: str) -> str:
    """The part of a glob before its first wildcard's folder (`/var/www/*.php` →
    `/var/www`); the path itself when it has none."""
    for i, ch in enumerate(path):
        if ch in "*?[":
            return path[:i].rsplit("/", 1)[0] if "/" in path[:i] else ""
    return path


def inside(path: str, folder: str) -> bool:
    """`path` is `folder` or lies under it (both absolute and normalised)."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


@functools.cache
def _places_under(home: str) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    """The secret places and startup files as absolute paths, for `home`."""
    secrets = tuple((posixpath.join(home, place), what) for place, what in SECRET_PLACES)
    startup = tuple(posixpath.join(home, f) for f in STARTUP_FILES) + SYSTEM_STARTUP
    return secrets + SYSTEM_SECRETS, startup


def secret_place(path: str, home: str) -> str | None:
    """What `path` (absolute) holds when it is, or lies in, a place of credentials."""
    for place, what in _places_under(home)[0]:
        if inside(path, place):
            return what
    return None


def secret_file(path: str, home: str) -> str | None:
    """What `path` (absolute) holds when reading it reads a secret: a private key, an
    access key, a password file. A public key, an SSH config or known_hosts is none."""
    what = secret_place(path, home)
    if what is None or path in ("/etc/passwd", "/etc/sudoers") or inside(path, "/etc/sudoers.d"):
        return None
    name = posixpath.basename(path)
    if name.endswith(".pub") or name in NOT_SECRET or name.endswith(".pub.old"):
        return None
    if name == "authorized_keys":
        return None  # the keys that may log in: public, no secret to read
    if path.rstrip("/") == posixpath.join(home, ".ssh"):
        return "your SSH keys"  # the whole folder, private keys and all
    if inside(path, posixpath.join(home, ".ssh")):
        return "your SSH private key"
    if path == posixpath.join(home, ".aws", "config"):
        return None
    return what


def startup_file(path: str, home: str) -> bool:
    """`path` (absolute) runs at login, in every new shell, or on a schedule."""
    return any(inside(path, f) for f in _places_under(home)[1])


def disk_device(path: str) -> bool:
    """`path` names a block device (a disk or a partition): `/dev/sda`, `/dev/nvme0n1p2`."""
    if not path.startswith("/dev/"):
        return False
    name = path[5:]
    return any(name.startswith(prefix) for prefix in DISKS)


def shortened(path: str, home: str, limit: int = 60) -> str:
    """`path` as a person reads it: the home folder as `~`, cut in the middle past `limit`."""
    if home and (path == home or path.startswith(home.rstrip("/") + "/")):
        path = "~" + path[len(home.rstrip("/")) :]
    if len(path) > limit:
        keep = (limit - 1) // 2
        path = path[:keep] + "…" + path[-keep:]
    return path


__all__ = [
    "disk_device",
    "expanded",
    "fixed_part",
    "inside",
    "resolved",
    "secret_file",
    "secret_place",
    "shortened",
    "startup_file",
]
