"""The risk reading of a shell command: what it does that a person should see first.

A shell card used to look the same for `npm test` and `curl … | sh` (issue 20, finding
4). `read_command` reads the command with a real shell parser (`parse.py`) and says, in
one plain line each, what it finds, one module per family of findings:

- `delete` (`deletes.py`, `cloud.py`): recursive, forced or bulk deletes ("Deletes
  build/ recursively"), git clean, rsync --delete, cloud deletes (`aws s3 rm`,
  `kubectl delete`, `terraform destroy`);
- `delete-outside`: a delete whose target lies outside the folder it runs in;
- `download-run` (`wrappers.py`): a script downloaded and run (`curl … | sh`,
  `bash <(curl …)`, `sh -c "$(curl …)"`, a file downloaded then run);
- `root`: runs as root (`sudo`, `doas`, `su`, `pkexec`);
- `permissions` (`permissions.py`): permission or owner changes on many files
  (`chmod -R`, through `find` or `xargs`, a glob), world-writable modes, setuid;
- `history` (`git.py`): force pushes, remote branch deletes, history rewrites,
  thrown-away changes;
- `disk` and `system` (`system.py`): disk and filesystem tools (`dd of=/dev/…`, `mkfs`,
  `fdisk`, `wipefs`); shutting the computer down, killing every process, a fork bomb;
- `credentials` (`credentials.py`, `writes.py`): writes to (or reads of secrets in)
  `~/.ssh`, `~/.aws`, keychains…;
- `startup` (`startup.py`, `writes.py`): changes to what runs at login or on a schedule
  (`~/.bashrc`, crontab);
- `sends` (`network.py`): files or environment sent to the network (`curl -d @file`,
  `env | nc`, scp);
- `hidden` (`walk.py`, `wrappers.py`): commands put together when they run (base64 into a
  shell, `eval`, a command name held in a variable);
- `unread`: part of the command could not be read ("Could not read this command fully").

Wrappers are looked through (`sudo`, `env`, `nohup`, `timeout`, `xargs`, `find -exec`,
`sh -c '…'`, `ssh host '…'`; `walk.py`), so `sudo sh -c 'rm -rf /'` reads as a root
recursive delete. Which command goes to which family is one table (`checks.py`); what a
path means to the person (keys, startup files, disks) is `places.py`. Qt-free; never
raises. The corpus in `tests/core/corpus/shell_risk.json` (real commands, with sources)
holds what each reading should be.
"""

from notch_app.card.shell.findings import MAX_LINES, UNREAD_LINE, Finding, ShellReading
from notch_app.card.shell.parse import read_script
from notch_app.card.shell.walk import read_command

__all__ = ["MAX_LINES", "UNREAD_LINE", "Finding", "ShellReading", "read_command", "read_script"]
