"""`notch uninstall`: remove exactly what `notch install` wrote, nothing else.

Reads the record `notch install` kept (each file with its SHA-256 when written): a file
still as written is removed; one changed since is left where it is and named; one
already gone is said so. Notch's settings, decisions and integrations are not touched.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import sys


def configure(parser: argparse.ArgumentParser) -> None:
    parser.epilog = (
        "Removes the autostart entry or systemd user unit, launcher entry and icon (Linux) "
        "or the LaunchAgent (macOS) that `notch install` wrote; your settings and decisions "
        "stay."
    )


def run(args: argparse.Namespace) -> int:
    from notch_app.commands.install import login_start_files, record_path, recorded

    record = record_path()
    files = recorded()
    try:
        # Only the files `notch install` writes, by name: a record that lists any other
        # file (edited by hand, or by a program) never makes this remove it.
        ours = {f.path for f in login_start_files()}
    except NotImplementedError:
        ours = set()
    with contextlib.suppress(NotImplementedError):  # and what `install --systemd` writes
        ours |= {f.path for f in login_start_files(systemd=True)}
    if not files:
        print(
            f"notch uninstall: nothing to remove: `notch install` has written nothing here "
            f"(no record at {record})"
        )
        return 0
    kept = 0
    for path, sha256 in files.items():
        if path not in ours:
            print(f"  left {path}: not a file `notch install` writes")
            kept += 1
            continue
        try:
            data = path.read_bytes()  # a unit's enabling link: the unit it points to
        except FileNotFoundError:
            if path.is_symlink():  # its unit is gone already: the dangling link goes too
                path.unlink()
                print(f"  removed {path}")
                continue
            print(f"  already gone: {path}")
            continue
        except OSError as exc:
            print(f"  cannot read {path} ({exc.strerror or exc}); left it", file=sys.stderr)
            kept += 1
            continue
        if hashlib.sha256(data).hexdigest() != sha256:
            print(f"  left {path}: changed since `notch install` wrote it; remove it yourself")
            kept += 1
            continue
        try:
            path.unlink()
        except OSError as exc:
            print(f"  cannot remove {path} ({exc.strerror or exc})", file=sys.stderr)
            kept += 1
            continue
        print(f"  removed {path}")
    record.unlink(missing_ok=True)
    if kept:
        print(f"notch uninstall: done; {kept} file{'s' * (kept != 1)} left as said above")
    else:
        print("notch uninstall: done; Notch no longer starts at login")
    if any(p.name == "dev.notch.Notch.service" for p in files):
        print("A Notch the unit started runs on until you quit it (or: systemctl --user stop "
              "dev.notch.Notch.service; systemctl --user daemon-reload).")  # fmt: skip
    return 0
