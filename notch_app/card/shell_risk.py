"""The risk reading of a shell command: what it does that a person should see first.

A shell card used to look the same for `npm test` and `curl … | sh` (issue 20, finding
4). This reads the command with a real shell parser (`shell_parse.py`) and says, in one
plain line each, what it finds:

- `delete`: recursive, forced or bulk deletes ("Deletes build/ recursively"), git clean,
  rsync --delete, cloud deletes (`aws s3 rm`, `kubectl delete`, `terraform destroy`);
- `delete-outside`: a delete whose target lies outside the folder it runs in;
- `download-run`: a script downloaded and run (`curl … | sh`, `bash <(curl …)`,
  `sh -c "$(curl …)"`, a file downloaded then run);
- `root`: runs as root (`sudo`, `doas`, `su`, `pkexec`);
- `permissions`: permission or owner changes on many files (`chmod -R`, through `find`
  or `xargs`, a glob), world-writable modes, setuid;
- `history`: force pushes, remote branch deletes, history rewrites, thrown-away changes;
- `disk`: disk and filesystem tools (`dd of=/dev/…`, `mkfs`, `fdisk`, `wipefs`);
- `credentials`: writes to (or reads of secrets in) `~/.ssh`, `~/.aws`, keychains…;
- `startup`: changes to what runs at login or on a schedule (`~/.bashrc`, crontab);
- `sends`: files or environment sent to the network (`curl -d @file`, `env | nc`, scp);
- `hidden`: commands put together when they run (base64 into a shell, `eval`, a
  command name held in a variable);
- `system`: shutting the computer down, killing every process, a fork bomb;
- `unread`: part of the command could not be read ("Could not read this command fully").

Wrappers are looked through (`sudo`, `env`, `nohup`, `timeout`, `xargs`, `find -exec`,
`sh -c '…'`, `ssh host '…'`), so `sudo sh -c 'rm -rf /'` reads as a root recursive
delete. Qt-free; never raises. The corpus in `tests/core/corpus/shell_risk.json` (real
commands, with sources) holds what each reading should be.
"""

from __future__ import annotations

import posixpath
import urllib.parse
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Final

from notch_app.card import shell_places as places
from notch_app.card.shell_parse import Command, Script, Word, read_script

UNREAD_LINE: Final = "Could not read this command fully"
MAX_LINES: Final = 8
"""Findings a card lists before "and N more findings" (the log keeps them all)."""
MAX_NESTING: Final = 8
"""`sh -c` inside `ssh` inside `sudo`…: deeper than this is read as not complete."""

INTERPRETERS: Final = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash", "busybox", "python", "python2",
     "python3", "perl", "ruby", "node", "php", "pwsh", "lua", "Rscript", "osascript"}
)  # fmt: skip
SHELLS: Final = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash"})
FETCHERS: Final = frozenset({"curl", "wget", "fetch", "http", "https", "xh", "aria2c", "lwp-request",
                             "GET", "lynx", "elinks"})  # fmt: skip
DECODERS: Final = frozenset({"base64", "base32", "xxd", "uudecode", "openssl", "gunzip", "zcat",
                             "gzip", "bzip2", "bzcat", "xz", "xzcat", "rev", "tr", "perl"})  # fmt: skip
NETWORK: Final = frozenset({"nc", "ncat", "netcat", "socat", "telnet", "openssl", "curl", "wget",
                            "ssh", "ftp"})  # fmt: skip
READERS: Final = frozenset({"cat", "tar", "zip", "gzip", "base64", "xxd", "od", "head", "tail",
                            "tac", "strings", "less", "more", "find", "ls", "git", "7z"})  # fmt: skip
ENV_DUMPS: Final = frozenset({"env", "printenv", "set", "export", "declare"})
ROOT: Final = frozenset({"sudo", "doas", "pkexec", "run0"})
PASS_THROUGH: Final = frozenset({"nohup", "time", "exec", "builtin", "setsid", "unbuffer",
                                 "caffeinate", "stdbuf", "nice", "ionice", "chrt", "taskset",
                                 "timeout", "env", "command", "flock", "strace", "ltrace",
                                 "torsocks", "proxychains", "proxychains4"})  # fmt: skip
"""Commands that run the command after their own options."""
_WITH_VALUE: Final = {
    "sudo": frozenset("ugChpDrtTU"),
    "doas": frozenset("uC"),
    "nice": frozenset("n"),
    "ionice": frozenset("cnp"),
    "timeout": frozenset("sk"),
    "env": frozenset("uSC"),
    "stdbuf": frozenset("ioe"),
    "chrt": frozenset(),
    "taskset": frozenset(),
    "flock": frozenset("wEc"),
    "strace": frozenset("eopsuI"),
    "xargs": frozenset("ILnPdEsa"),  # -i, -l and -e take theirs attached, if any
    "ssh": frozenset("bcDEeFIiJLlmOopQRSWw"),
    "su": frozenset("cgGs"),
}
"""Per wrapper, its one-letter options that take a value (`sudo -u USER`)."""
GIT_WITH_VALUE: Final = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"})
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
CLOUD_DELETES: Final[dict[str, tuple[str, ...]]] = {
    "kubectl": ("delete", "drain"),
    "helm": ("uninstall", "delete"),
    "terraform": ("destroy",),
    "tofu": ("destroy",),
    "pulumi": ("destroy",),
    "dropdb": ("",),
    "gsutil": ("rm", "rb"),
    "az": ("delete",),
    "doctl": ("delete",),
    "heroku": ("apps:destroy", "destroy"),
    "fly": ("destroy",),
    "flyctl": ("destroy",),
    "vercel": ("remove", "rm"),
}
"""Tool → the words among its arguments that delete what it manages."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing the command does that a person should see, as one plain line."""

    kinds: tuple[str, ...]
    text: str
    danger: bool = True
    """Risky enough for the card's destructive style; False for a caution."""


@dataclass(frozen=True, slots=True)
class ShellReading:
    """What `read_command` found in a command."""

    findings: tuple[Finding, ...]
    complete: bool
    """The whole command was read (no syntax Notch could not follow)."""

    @property
    def kinds(self) -> frozenset[str]:
        """Every kind found, `unread` included when the command was not read whole."""
        found = {k for f in self.findings for k in f.kinds}
        if not self.complete:
            found.add("unread")
        return frozenset(found)

    @property
    def risky(self) -> bool:
        """A dangerous finding, or a command Notch could not read whole."""
        return not self.complete or any(f.danger for f in self.findings)

    def lines(self, most: int = MAX_LINES) -> list[str]:
        """The plain lines for the card, dangerous ones first, at most `most` of them (then
        "and N more findings"), then "Could not read this command fully"."""
        ordered = [f.text for f in self.findings if f.danger]
        ordered += [f.text for f in self.findings if not f.danger]
        if len(ordered) > most:
            ordered = [*ordered[: most - 1], f"and {len(ordered) - most + 1} more findings"]
        if not self.complete:
            ordered.append(UNREAD_LINE)
        return ordered


def read_command(command: str, cwd: str | None = None, home: str | None = None) -> ShellReading:
    """The risk reading of `command` run in `cwd` (None: not known), with `home` the
    home folder (`~`; the person's own when None). Never raises."""
    if home is None:
        home = posixpath.expanduser("~")
    if cwd is not None:
        cwd = places.resolved(cwd, None, home) if cwd.startswith(("/", "~")) else None
    reading = _Reading(home, cwd)
    try:
        reading.script(read_script(command, cwd), _Context(cwd))
    except RecursionError:  # pragma: no cover - nesting is bounded; belt and braces
        reading.complete = False
    return ShellReading(tuple(reading.findings), reading.complete)


@dataclass(frozen=True, slots=True)
class _Context:
    """How a command is reached: through sudo, from find or xargs, on another host."""

    cwd: str | None
    root: str | None = None
    bulk: str | None = None
    """"find" or "xargs": its arguments are completed with a list only known when it runs."""
    roots: tuple[Word, ...] = ()
    """For `find -exec`: find's starting folders (what `{}` lies under); for `xargs`, where
    the command before it lists from."""
    lister: str = "the command before it"
    """For `xargs`: what makes its list (`find`, `ls`)."""
    host: str | None = None
    depth: int = 0
    stdin: tuple[Command, ...] = ()
    """The commands whose output this one reads (its pipeline's earlier stages)."""


@dataclass(slots=True)
class _Run:
    """A command as it runs, wrappers looked through."""

    name: str
    args: list[Word]
    command: Command
    context: _Context

    @property
    def cwd(self) -> str | None:
        return self.context.cwd


class _Reading:
    def __init__(self, home: str, project: str | None) -> None:
        self.home = home
        self.project = project
        """The folder the agent works in (the card's "In"): what a delete must stay under,
        wherever a `cd` in the command moved to."""
        self.findings: list[Finding] = []
        self.complete = True
        self._downloads: dict[str, str] = {}
        """Files a fetcher wrote (path → the site it came from), for a later run of them."""

    def add(self, kinds: Sequence[str], text: str, danger: bool = True) -> None:
        for found in self.findings:
            if found.text == text:
                return
        self.findings.append(Finding(tuple(kinds), text, danger))

    # --- walking ----------------------------------------------------------------------

    def script(self, script: Script, context: _Context) -> None:
        if not script.complete:
            self.complete = False
        for command in script.commands:
            cwd = command.cwd if command.cwd is not None or context.depth == 0 else context.cwd
            if cwd is not None:
                cwd = places.resolved(cwd, None, self.home)
            here = replace(context, cwd=cwd, stdin=tuple(command.piped_from))
            self.command(command, here)
        self._fork_bomb(script)

    def inner(self, text: str, context: _Context) -> None:
        """Read `text` (a `sh -c` string, an ssh command) as a script of its own."""
        if context.depth >= MAX_NESTING:
            self.complete = False
            return
        self.script(read_script(text, context.cwd), replace(context, depth=context.depth + 1))

    def command(self, command: Command, context: _Context) -> None:
        name = command.name
        self._redirects(command, context)
        if not name.literal or name.escaped:
            if name.text == "" and not name.source:
                return  # a bare redirect
            if not name.literal:
                self.add(
                    ("hidden",), f"Runs a command only known when it runs ({_cut(name.source)})"
                )
                return
            self.add(
                ("hidden",), f"Runs {_cut(name.text)} written in escapes ({_cut(name.source)})"
            )
        self.run(_Run(command.base, list(command.args), command, context))

    def run(self, run: _Run) -> None:
        """Look through a wrapper to what it runs; then check what runs."""
        name, args, context = run.name, run.args, run.context
        if name in ROOT:
            self.add(("root",), f"Runs as root ({name})" + _on(context))
            rest = _after_options(name, args)
            if rest:
                self.run(replace(run, name=_base(rest[0]), args=rest[1:],
                                 context=replace(context, root=name)))  # fmt: skip
            return
        if name == "su":
            self._su(run)
            return
        if name in PASS_THROUGH:
            rest = _after_options(name, args)
            if name == "timeout" and rest:
                rest = rest[1:]  # the duration
            if name == "command" and any(a.text in ("-v", "-V") for a in args if a.literal):
                return  # a look-up, not a run
            if rest and rest[0].literal:
                self.run(replace(run, name=_base(rest[0]), args=rest[1:]))
            elif rest:
                self.add(
                    ("hidden",), f"Runs a command only known when it runs ({_cut(rest[0].source)})"
                )
            return
        if name == "xargs":
            rest = _after_options(name, args)
            target = rest[0] if rest else Word("echo", True, "echo")
            # The list comes from the command before: `find /tmp … | xargs rm` deletes
            # under /tmp, wherever xargs runs.
            listers = [_effective(c) for c in reversed(context.stdin)]
            lister = next((found for found in listers if found[0] in ("find", "ls")), None)
            roots = _starting_points(*lister) if lister is not None else ()
            source = lister[0] if lister is not None else "the command before it"
            if target.literal:
                self.run(replace(run, name=_base(target), args=rest[1:],
                                 context=replace(context, bulk="xargs", roots=roots,
                                                 lister=source)))  # fmt: skip
            return
        if name == "watch":
            rest = _after_options(name, args, {"n", "d", "x"})
            text = " ".join(w.text for w in rest if w.literal)
            if text:
                self.inner(text, context)
            return
        if name in ("eval",):
            self._eval(run)
            return
        if name == "alias":
            # `alias ls='rm -rf ~'; ls`: what the alias runs is read as if run.
            for word in args:
                if word.literal and "=" in word.text:
                    self.inner(word.text.split("=", 1)[1], context)
            return
        if name == "ssh":
            self._ssh(run)
            return
        if name in ("source", "."):
            self._source(run)
            return
        if name in INTERPRETERS:
            self._interpreter(run)
        self.check(run)

    # --- wrappers ---------------------------------------------------------------------

    def _su(self, run: _Run) -> None:
        args = run.args
        user = next((a.text for a in args if a.literal and not a.text.startswith("-")), "root")
        self.add(("root",), f"Runs as {'root' if user == 'root' else user} (su)" + _on(run.context))
        for i, word in enumerate(args):
            if word.literal and word.text in ("-c", "--command") and i + 1 < len(args):
                value = args[i + 1]
                if value.literal:
                    self.inner(value.text, replace(run.context, root="su"))
                else:
                    self._built_at_run_time(run, value)

    def _eval(self, run: _Run) -> None:
        fetched = _fetched_site(w for a in run.args for w in a.inner)
        if fetched is not None:
            self.add(
                ("download-run",), f"Runs a script downloaded from {fetched}" + _on(run.context)
            )
        self.add(("hidden",), "Runs text put together when it runs (eval)" + _on(run.context))
        if all(a.literal for a in run.args):
            self.inner(" ".join(a.text for a in run.args), run.context)

    def _ssh(self, run: _Run) -> None:
        rest = _after_options("ssh", run.args)
        if not rest:
            return
        host = rest[0].text if rest[0].literal else rest[0].source
        host = host.rsplit("@", 1)[-1]
        words = rest[1:]
        if words and all(w.literal for w in words):
            remote = replace(run.context, host=host, cwd=None, root=None, bulk=None, stdin=())
            self.inner(" ".join(w.text for w in words), remote)
        if run.context.stdin:
            self._sends_stdin(run, host, "ssh")

    def _source(self, run: _Run) -> None:
        if not run.args:
            return
        target = run.args[0]
        site = _fetched_site(target.inner)
        if site is None and target.literal:
            site = self._downloads.get(_file_key(target.text, run.cwd))
        if site is not None:
            self.add(("download-run",), f"Runs a script downloaded from {site}" + _on(run.context))

    def _interpreter(self, run: _Run) -> None:
        """sh/bash/python…: a `-c` string, a script file, or commands on its input."""
        args = run.args
        shell = run.name in SHELLS
        script_word: Word | None = None
        reads_stdin = True
        i = 0
        while i < len(args):
            word = args[i]
            text = word.text if word.literal else ""
            if (
                word.literal
                and text.startswith("-")
                and len(text) > 1
                and not text.startswith("--")
            ):
                if "c" in text[1:] and (
                    shell
                    or run.name in ("python", "python2", "python3", "perl", "ruby", "node", "php")
                ):
                    code = args[i + 1] if i + 1 < len(args) else None
                    reads_stdin = False
                    if code is not None:
                        self._code(run, code, shell)
                    break
                if text in ("-s", "-"):
                    break
                if text in ("-e", "-E") and run.name in ("perl", "ruby", "node"):
                    reads_stdin = False
                    break
                i += 1
                continue
            if word.literal and text == "-":
                break
            script_word = word
            reads_stdin = False
            break
        if script_word is not None:
            site = _fetched_site(script_word.inner)
            if site is None and script_word.literal:
                site = self._downloads.get(_file_key(script_word.text, run.cwd))
            if site is not None:
                self.add(
                    ("download-run",), f"Runs a script downloaded from {site}" + _on(run.context)
                )
        heredoc = next((r.heredoc for r in run.command.redirects if r.heredoc is not None), None)
        if reads_stdin and heredoc is not None and shell:
            self.inner(heredoc, run.context)
            return
        if reads_stdin and run.context.stdin:
            self._stdin_into(run)

    def _code(self, run: _Run, code: Word, shell: bool) -> None:
        site = _fetched_site(code.inner)
        if site is not None:
            self.add(("download-run",), f"Runs a script downloaded from {site}" + _on(run.context))
            return
        if not shell:
            return
        if code.literal:
            self.inner(code.text, run.context)
        else:
            self._built_at_run_time(run, code)

    def _built_at_run_time(self, run: _Run, code: Word) -> None:
        decoded = any(c.base in DECODERS and _decodes(c) for c in code.inner)
        what = "hidden in base64 or compressed text" if decoded else "put together when it runs"
        self.add(("hidden",), f"Runs a command {what} ({run.name} -c)" + _on(run.context))

    def _stdin_into(self, run: _Run) -> None:
        feeders = run.context.stdin
        site = _fetched_site(feeders)
        if site is not None:
            self.add(("download-run",), f"Runs a script downloaded from {site}" + _on(run.context))
            return
        if any(c.base in DECODERS and _decodes(c) for c in feeders):
            self.add(("hidden",), f"Runs a command hidden in base64 or compressed text ({run.name})"
                     + _on(run.context))  # fmt: skip
            return
        if all(c.base == "cat" and all(a.literal for a in c.args) for c in feeders):
            return  # a script file read whole: what runs is that file
        self.add(("hidden",), f"Runs text piped into {run.name}" + _on(run.context))

    # --- what runs --------------------------------------------------------------------

    def check(self, run: _Run) -> None:
        name = run.name
        if name == "rm":
            self._rm(run)
        elif name == "unlink":
            self._delete(run, run.args[-1:], False, False, "unlink")
        elif name == "shred":
            self._shred(run)
        elif name == "find":
            self._find(run)
        elif name in ("chmod", "chown", "chgrp", "chflags"):
            self._permissions(run)
        elif name == "git":
            self._git(run)
        elif name == "dd":
            self._dd(run)
        elif name.split(".")[0] in DISK_TOOLS:
            self._disk_tool(run)
        elif name == "diskutil":
            verbs = [a.text for a in run.args if a.literal]
            if any(v.lower().startswith(("erase", "partition", "zero", "random", "secure", "reformat"))
                   for v in verbs):  # fmt: skip
                self.add(("disk",), f"Erases a disk (diskutil {verbs[0]})" + _on(run.context))
        elif name in SYSTEM_STOP or (
            name in ("init", "telinit") and _words(run)[:1] in (["0"], ["6"])
        ):
            self.add(
                ("system",), f"Shuts down or restarts the computer ({name})" + _on(run.context)
            )
        elif name == "systemctl":
            self._systemctl(run)
        elif name == "kill":
            self._kill(run)
        elif name == "crontab":
            self._crontab(run)
        elif name == "rsync":
            self._rsync(run)
        elif name == "scp":
            self._copy_out(run, name)
        elif name == "sftp":
            self._sftp(run)
        elif name in ("at", "batch") and "-l" not in _words(run) and "-r" not in _words(run):
            self.add(("startup",), f"Schedules commands to run later ({name})" + _on(run.context))
        elif name == "systemd-run" and any(
            t.startswith(("--on-", "--timer-property")) for t in _words(run)
        ):
            self.add(("startup",), "Schedules a command to run again and again (systemd-run)"
                     + _on(run.context))  # fmt: skip
        elif name == "launchctl" and _words(run)[:1] in (
            ["load"],
            ["bootstrap"],
            ["enable"],
            ["submit"],
        ):
            self.add(("startup",), f"Starts a job at every login (launchctl {_words(run)[0]})"
                     + _on(run.context))  # fmt: skip
        elif name == "ssh-keygen":
            self._ssh_keygen(run)
        elif name in ("security", "secret-tool", "pass", "gpg"):
            self._keychain(run)
        elif name == "aws":
            self._aws(run)
        elif name in ("gcloud",) and "delete" in _words(run):
            self.add(("delete",), "Deletes cloud resources (gcloud … delete)" + _on(run.context))
        elif name in CLOUD_DELETES:
            deleting = CLOUD_DELETES[name]
            said = _words(run)
            if deleting == ("",) or any(v in said for v in deleting):
                verb = next((v for v in deleting if v in said), "")
                self.add(("delete",), f"Deletes what {name} manages ({name} {verb})".replace(" )", ")")
                         + _on(run.context))  # fmt: skip
        elif name == "docker" or name == "podman":
            self._docker(run)
        if name in ("curl", "wget"):
            self._fetch(run)
        elif name in NETWORK and name not in ("ssh", "openssl") and run.context.stdin:
            host = next((a.text for a in _plain_args(run.args)), "a network address")
            self._sends_stdin(run, host, name)
        self._reads_secrets(run)
        self._writes_by_copy(run)

    # delete ----------------------------------------------------------------------------

    def _rm(self, run: _Run) -> None:
        flags, targets = _flags_and_operands(run.args)
        recursive = bool({"r", "R", "recursive"} & flags)
        forced = bool({"f", "force"} & flags)
        self._delete(run, targets, recursive, forced, "rm")

    def _shred(self, run: _Run) -> None:
        _flags, targets = _flags_and_operands(
            run.args, {"n", "s", "-iterations", "-size", "-random-source"}
        )
        disks = [t for t in targets if t.literal and places.disk_device(t.text)]
        if disks:
            self.add(("disk",), f"Overwrites the disk {disks[0].text} (shred)" + _on(run.context))
            return
        self._delete(run, targets, False, True, "shred", verb="Destroys")

    def _delete(self, run: _Run, targets: list[Word], recursive: bool, forced: bool, tool: str,
                verb: str = "Deletes") -> None:  # fmt: skip
        context = run.context
        bulk = context.bulk is not None or any(t.substituted for t in targets)
        bulk = bulk or (run.command.in_loop and any(not t.literal for t in targets))
        if context.bulk == "xargs":
            targets = [t for t in targets if not (t.literal and "{}" in t.text)]
        listed = list(context.roots) if context.bulk == "xargs" else []
        away = [t for t in [*targets, *listed] if self._outside([t], context)]
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
        secrets = self._secret_targets(targets, context)
        if secrets:
            kinds.append("credentials")
        if not kinds:
            return
        # What lies outside the project is named first, never lost in "and 2 more", as
        # the path it is (`cd ~ && rm -rf .ssh` deletes ~/.ssh).
        what = self._targets(away, context, resolve=True) if away else ""
        what = what or self._targets(near, context) or "files"
        if context.bulk == "find":
            what = (
                f"every file find lists under {self._targets(list(context.roots), context) or '.'}"
            )
        elif context.bulk == "xargs":
            what = f"the files {context.lister} lists"
            if context.roots:
                what += " under " + self._targets(list(context.roots), context)
            if targets:
                what = f"{self._targets(targets, context)} and {what}"
        text = f"{verb} {what}"
        if how:
            text += (", " if context.bulk else " ") + ", ".join(how)
        if away:
            text += f", outside {self._where(self.project)}"
            if near and context.bulk is None:
                text += f" (and {self._targets(near, context)})"
        if any(not t.literal and not t.substituted for t in targets) and context.bulk is None:
            text += ", at a path only known when it runs"
        if secrets:
            text += f" — {secrets}"
        self.add(kinds, text + f" ({tool})" + _on(context))

    def _targets(self, targets: list[Word], context: _Context, resolve: bool = False) -> str:
        """The targets as a person reads them, at most three named; `resolve`: each as the
        absolute path it is (home as `~`) rather than as written."""
        names = []
        for word in targets:
            if word.literal and word.text == "{}" and context.roots:
                names.append(
                    self._targets(list(context.roots), replace(context, roots=()), resolve)
                )
                continue
            text = word.text if word.literal else word.source
            if word.substituted and word.inner:
                lister = " ".join(w.source for w in [word.inner[-1].name, *word.inner[-1].args])
                text = f"the files `{_cut(lister, 40)}` lists"
            if resolve and word.literal:
                path = places.resolved(text, context.cwd, self.home)
                if path is not None:
                    text = places.shortened(path, self.home)
            names.append(_cut(text, 50))
        return _listed(names)

    def _outside(self, targets: Iterable[Word], context: _Context) -> bool:
        if context.host is not None:
            return False
        for word in targets:
            for path in self._paths_of(word, context):
                if path is not None and not _under_cwd(path, self.project):
                    return True
        return False

    def _paths_of(self, word: Word, context: _Context) -> Iterator[str | None]:
        """The absolute paths `word` names (None for one only known when it runs)."""
        if word.literal and word.text == "{}" and context.roots:
            for root in context.roots:
                yield from self._paths_of(root, replace(context, roots=()))
            return
        text = word.text if word.literal else word.source.strip('"')
        if not word.literal and not text.startswith(("$HOME", "${HOME}", "~")):
            yield None
            return
        if not word.literal and any(c in text[5:] for c in "$`"):
            yield None
            return
        yield places.resolved(places.fixed_part(text) or ".", context.cwd, self.home)

    def _secret_targets(self, targets: Iterable[Word], context: _Context) -> str | None:
        if context.host is not None:
            return None
        for word in targets:
            for path in self._paths_of(word, context):
                if path is not None:
                    what = places.secret_place(path, self.home)
                    if what is not None:
                        return what
        return None

    def _where(self, cwd: str | None) -> str:
        return places.shortened(cwd, self.home) if cwd else "the folder it runs in"

    def _find(self, run: _Run) -> None:
        args = run.args
        roots = _starting_points("find", args)
        i = next((j for j, a in enumerate(args) if a.literal and a.text[:1] in ("-", "(", "!")
                  and a.text not in ("-H", "-L", "-P")), len(args))  # fmt: skip
        context = replace(run.context, bulk="find", roots=roots)
        secret = next(
            (args[j + 1].text for j in range(i, len(args) - 1)
             if args[j].literal and args[j].text in ("-name", "-iname", "-path", "-ipath")
             and args[j + 1].literal and _secret_name(args[j + 1].text)),
            None,
        )  # fmt: skip
        if secret is not None:
            self.add(("credentials",), f"Looks for {_secret_name(secret)} everywhere under "
                     f"{self._targets(list(roots), run.context)} (find -name {secret})" + _on(run.context))  # fmt: skip
        while i < len(args):
            word = args[i]
            text = word.text if word.literal else ""
            if text == "-delete":
                self._delete(replace(run, args=[Word("{}", True, "{}")], context=context),
                             [Word("{}", True, "{}")], True, False, "find -delete")  # fmt: skip
            elif text in ("-exec", "-execdir", "-ok", "-okdir"):
                end = i + 1
                while end < len(args) and not (args[end].literal and args[end].text in (";", "+")):
                    end += 1
                inner = args[i + 1 : end]
                if inner and inner[0].literal:
                    self.run(_Run(_base(inner[0]), inner[1:], run.command, context))
                i = end
            i += 1

    # permissions ----------------------------------------------------------------------

    def _permissions(self, run: _Run) -> None:
        name = run.name
        flags, operands = _flags_and_operands(run.args, {"-reference"})
        if not operands and run.context.bulk is None:
            return
        # The mode, owner, group or flags, then the files; from xargs both may come.
        mode = operands[0] if operands else Word("", True, "")
        targets = operands[1:]
        if name == "chmod" and mode.literal and mode.text.startswith("-"):
            return
        recursive = bool({"R", "recursive"} & flags)
        bulk = run.context.bulk is not None or any(t.substituted for t in targets)
        globbed = any(t.literal and any(c in t.text for c in "*?[") for t in targets)
        what = {"chmod": "permissions", "chown": "owner", "chgrp": "group"}.get(name, "flags")
        shown = self._targets(targets, run.context)
        if not shown and run.context.bulk == "xargs":
            shown = f"what {run.context.lister} lists"
            if run.context.roots:
                shown += " under " + self._targets(list(run.context.roots), run.context)
        shown = shown or "files"
        on = _on(run.context)
        if recursive:
            self.add(
                ("permissions",), f"Changes the {what} of everything under {shown} ({name} -R)" + on
            )
        elif run.context.bulk == "find":
            under = self._targets(list(run.context.roots), run.context) or "."
            self.add(
                ("permissions",),
                f"Changes the {what} of every file find lists under {under} ({name})" + on,
            )
        elif bulk:
            self.add(
                ("permissions",),
                f"Changes the {what} of a list of files only known when it runs ({name})" + on,
            )
        elif globbed:
            self.add(
                ("permissions",), f"Changes the {what} of every file matching {shown} ({name})" + on
            )
        if name == "chmod" and mode.literal:
            text = mode.text
            if _world_writable(text):
                self.add(("permissions",), f"Lets anyone write to {shown} (chmod {text})" + on)
            if _setuid(text):
                self.add(
                    ("permissions",),
                    f"Makes {shown} run with its owner's rights (setuid, chmod {text})" + on,
                )

    # git --------------------------------------------------------------------------------

    def _git(self, run: _Run) -> None:
        words = run.args
        i = 0
        while i < len(words) and words[i].literal and words[i].text.startswith("-"):
            i += 2 if words[i].text in GIT_WITH_VALUE else 1
        if i >= len(words) or not words[i].literal:
            return
        verb = words[i].text
        rest = [w for w in words[i + 1 :]]
        texts = [w.text for w in rest if w.literal]
        on = _on(run.context)
        if verb == "push":
            plain = [t for t in texts if not t.startswith("-")]
            remote = plain[0] if plain else "the remote"
            forced = any(
                t in ("-f", "--force", "--mirror") or t.startswith("--force") for t in texts
            )
            forced = forced or any(t.startswith("+") for t in plain[1:])
            forced = forced or any(
                t.startswith("-") and not t.startswith("--") and "f" in t for t in texts
            )
            deleting = any(t in ("-d", "--delete", "--prune") for t in texts) or any(
                t.startswith(":") and len(t) > 1 for t in plain[1:]
            )
            if forced:
                self.add(
                    ("history",),
                    f"Force-pushes to {remote}, replacing its history (git push --force)" + on,
                )
            if deleting:
                self.add(("history",), f"Deletes branches on {remote} (git push --delete)" + on)
        elif verb == "reset" and "--hard" in texts:
            self.add(("history",), "Throws away uncommitted changes (git reset --hard)" + on)
        elif verb in ("filter-branch", "filter-repo"):
            self.add(("history",), f"Rewrites every commit of the history (git {verb})" + on)
        elif verb == "reflog" and texts[:1] in (["expire"], ["delete"]):
            self.add(
                ("history",), f"Drops entries of the reflog for good (git reflog {texts[0]})" + on
            )
        elif verb == "gc" and any(t.startswith("--prune") for t in texts):
            self.add(("history",), "Deletes unreachable commits for good (git gc --prune)" + on)
        elif verb == "stash" and texts[:1] in (["clear"], ["drop"]):
            self.add(("history",), f"Deletes stashed changes (git stash {texts[0]})" + on)
        elif verb == "checkout" and (
            "--" in texts or "." in texts or "-f" in texts or "--force" in texts
        ):
            self.add(("history",), "Throws away uncommitted changes (git checkout)" + on)
        elif verb == "restore" and "--staged" not in texts and "-S" not in texts:
            self.add(("history",), "Throws away uncommitted changes (git restore)" + on)
        elif verb == "clean" and any(t == "--force" or (t.startswith("-") and not t.startswith("--") and "f" in t)
                                     for t in texts):  # fmt: skip
            self.add(("delete",), "Deletes the files Git does not track (git clean)" + on)
        elif verb == "rebase" and not any(
            t in ("--abort", "--continue", "--skip", "--quit") for t in texts
        ):
            self.add(("history",), "Rewrites this branch's history (git rebase)" + on, danger=False)
        elif verb == "commit" and "--amend" in texts:
            self.add(
                ("history",), "Rewrites the last commit (git commit --amend)" + on, danger=False
            )
        elif verb == "branch" and any(t in ("-D",) for t in texts):
            branch = next((t for t in texts if not t.startswith("-")), "a branch")
            self.add(("history",), f"Deletes branch {branch} even if not merged (git branch -D)" + on,
                     danger=False)  # fmt: skip

    # disks and the system ------------------------------------------------------------

    def _dd(self, run: _Run) -> None:
        for word in run.args:
            if word.literal and word.text.startswith("of="):
                target = word.text[3:]
                if places.disk_device(target):
                    self.add(
                        ("disk",), f"Writes raw data over the disk {target} (dd)" + _on(run.context)
                    )
                else:
                    self._write_to(run, Word(target, True, target), "dd")

    def _disk_tool(self, run: _Run) -> None:
        name = run.name
        tool = name.split(".")[0]
        texts = _words(run)
        if tool in ("fdisk", "sfdisk", "gdisk", "sgdisk", "parted") and any(
            t in ("-l", "--list", "print", "-p", "--print", "-s", "--show") for t in texts
        ):
            return  # listing the partitions
        if tool == "mdadm" and not any(t in ("--zero-superblock", "--create", "-C") for t in texts):
            return
        if tool == "cryptsetup" and not any(
            t in ("luksFormat", "erase", "luksErase") for t in texts
        ):
            return
        device = next((t for t in texts if t.startswith("/dev/")), "a disk")
        self.add(
            ("disk",), f"{DISK_TOOLS[tool]} {device} ({name})".replace("  ", " ") + _on(run.context)
        )

    def _systemctl(self, run: _Run) -> None:
        texts = _words(run)
        if any(t in ("poweroff", "reboot", "halt", "kexec", "soft-reboot") for t in texts):
            self.add(
                ("system",), "Shuts down or restarts the computer (systemctl)" + _on(run.context)
            )
        elif "enable" in texts:
            unit = next((t for t in texts if not t.startswith("-") and t != "enable"), "a service")
            self.add(("startup",), f"Starts {unit} at every boot (systemctl enable)" + _on(run.context),
                     danger=False)  # fmt: skip

    def _kill(self, run: _Run) -> None:
        texts = _words(run)
        if "-1" in texts[1:] or (texts and texts[-1] == "-1" and len(texts) > 1):
            self.add(("system",), "Stops every process you own (kill -1)" + _on(run.context))

    def _fork_bomb(self, script: Script) -> None:
        for command in script.commands:
            if (
                command.in_function is not None
                and command.base == command.in_function
                and (command.piped_to or command.piped_from or command.background)
            ):
                self.add(("system",), "Starts copies of itself without end (a fork bomb)")
                return

    def _crontab(self, run: _Run) -> None:
        texts = _words(run)
        if "-r" in texts:
            self.add(("delete",), "Removes all your scheduled jobs (crontab -r)" + _on(run.context))
        elif "-l" not in texts:
            self.add(("startup",), "Changes your scheduled jobs (crontab)" + _on(run.context))

    def _docker(self, run: _Run) -> None:
        texts = _words(run)
        if texts[:2] in (["system", "prune"], ["volume", "prune"], ["volume", "rm"], ["image", "prune"],
                         ["container", "prune"], ["builder", "prune"]):  # fmt: skip
            self.add(
                ("delete",),
                f"Deletes {run.name} data ({run.name} {' '.join(texts[:2])})" + _on(run.context),
            )
        elif texts[:1] in (["rm"], ["rmi"]) and any(t in ("-f", "--force") for t in texts):
            self.add(("delete",), f"Deletes {run.name} containers or images ({run.name} {texts[0]} -f)"
                     + _on(run.context))  # fmt: skip
        if "--privileged" in texts:
            self.add(("root",), "Runs a container with full access to this computer (--privileged)"
                     + _on(run.context))  # fmt: skip

    def _aws(self, run: _Run) -> None:
        texts: list[str] = []
        words = _words(run)
        i = 0
        while i < len(words):
            if words[i] in ("--profile", "--region", "--output", "--endpoint-url", "--query",
                            "--color", "--ca-bundle", "--cli-read-timeout"):  # fmt: skip
                i += 2
                continue
            if not words[i].startswith("-"):
                texts.append(words[i])
            i += 1
        if not texts:
            return
        deleting = texts[:2] in (["s3", "rm"], ["s3", "rb"]) or any(
            t.startswith(("delete-", "terminate-", "remove-", "deregister-")) for t in texts[1:3]
        )
        if deleting:
            self.add(
                ("delete",),
                f"Deletes cloud resources (aws {' '.join(texts[:2])})" + _on(run.context),
            )

    # credentials and startup files ---------------------------------------------------

    def _redirects(self, command: Command, context: _Context) -> None:
        for redirect in command.redirects:
            target = redirect.target
            if target is None or (redirect.op in ("<", "<&", ">&") and not target.literal):
                continue
            if redirect.op in ("<", "<&"):
                continue
            if target.literal and target.text.startswith(("/dev/tcp/", "/dev/udp/")):
                host = target.text.split("/")[3] if target.text.count("/") >= 3 else "the network"
                self.add(("sends",), f"Sends data to {host} (/dev/tcp)" + _on(context))
                continue
            if target.literal and target.text == "/proc/sysrq-trigger":
                self.add(("system",), "Restarts or stops the computer at once (/proc/sysrq-trigger)"
                         + _on(context))  # fmt: skip
                continue
            if target.literal and places.disk_device(target.text):
                self.add(("disk",), f"Writes raw data over the disk {target.text}" + _on(context))
                continue
            run = _Run(command.base, list(command.args), command, context)
            self._write_to(run, target, redirect.op)

    def _write_to(self, run: _Run, target: Word, how: str) -> None:
        context = run.context
        if context.host is not None:
            return
        for path in self._paths_of(target, context):
            if path is None:
                continue
            what = places.secret_place(path, self.home)
            shown = places.shortened(path, self.home)
            if what is not None:
                if posixpath.basename(path) == "authorized_keys":
                    text = f"Lets another key log in to this computer: writes {shown}"
                else:
                    text = f"Writes to {shown}, {what}"
                self.add(("credentials",), text + _on(context))
            elif places.startup_file(path, self.home):
                self.add(("startup",), f"Changes what runs at login or on a schedule: writes {shown}"
                         + _on(context))  # fmt: skip

    def _writes_by_copy(self, run: _Run) -> None:
        name = run.name
        if name in ("cp", "mv", "install", "ln", "tee", "sed", "truncate", "touch"):
            _flags, operands = _flags_and_operands(
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
                self._write_to(run, target, name)

    def _reads_secrets(self, run: _Run) -> None:
        if run.name in ("chmod", "chown", "chgrp", "ls", "stat", "test", "[", "[[", "touch", "mkdir",
                        "rm", "shred", "ssh-keygen", "ssh", "ssh-add", "find", "cd", "echo"):  # fmt: skip
            return
        if run.context.host is not None:
            return
        words = list(run.args)
        words += [r.target for r in run.command.redirects if r.op in ("<", "<&") and r.target]
        for word in words:
            text = word.text if word.literal else ""
            for lead in ("@", "--data-binary=@", "--upload-file="):
                if text.startswith(lead):
                    text = text[len(lead) :]
            if "=@" in text:
                text = text.split("=@", 1)[1]
            if not text or not (text.startswith(("~", "/", ".")) or "/" in text):
                if not word.literal and word.source.startswith(("$HOME", "${HOME}", '"$HOME')):
                    text = word.source.strip('"')
                else:
                    continue
            path = places.resolved(text, run.cwd, self.home)
            if path is None:
                continue
            what = places.secret_file(path, self.home)
            if what is not None:
                shown = places.shortened(path, self.home)
                self.add(("credentials",), f"Reads {shown}, {what} ({run.name})" + _on(run.context))

    def _ssh_keygen(self, run: _Run) -> None:
        texts = _words(run)
        reading = {"-l", "-F", "-y", "-e", "-i", "-B", "-L", "-Q", "-D", "-K", "-Y", "-k", "-s"}
        path: str | None = None
        for i, t in enumerate(texts):
            if t == "-f" and i + 1 < len(texts):
                path = texts[i + 1]
            elif t.startswith("-f") and len(t) > 2 and not t.startswith("--"):
                path = t[2:]
        changes_known = any(t in ("-R", "-H") or (t.startswith("-") and "H" in t[1:] and "f" in t)
                            for t in texts)  # fmt: skip
        if changes_known:
            target = path or "~/.ssh/known_hosts"
            self._write_to(run, Word(target, True, target), "ssh-keygen")
            return
        if any(t in reading or (t.startswith("-") and not t.startswith("--") and t[1:2] in "lFyeiBLQDKYks"
                                and len(t) == 2) for t in texts):  # fmt: skip
            return
        target = path or "~/.ssh/id_key"
        if path is None:
            self.add(("credentials",), "Makes a new SSH key in ~/.ssh, your SSH keys (ssh-keygen)"
                     + _on(run.context))  # fmt: skip
        else:
            self._write_to(run, Word(target, True, target), "ssh-keygen")

    def _keychain(self, run: _Run) -> None:
        texts = _words(run)
        verb = texts[0] if texts else ""
        name = run.name
        on = _on(run.context)
        if name == "security":
            if verb.startswith(
                ("add-", "delete-", "set-", "import", "create-keychain", "unlock-keychain")
            ):
                self.add(("credentials",), f"Changes your keychain (security {verb})" + on)
            elif verb == "dump-keychain" or (verb.startswith("find-") and any(
                t.startswith("-") and not t.startswith("--") and ("w" in t or "g" in t) for t in texts
            )):  # fmt: skip
                self.add(
                    ("credentials",), f"Reads passwords from your keychain (security {verb})" + on
                )
        elif name == "secret-tool":
            if verb in ("store", "clear"):
                self.add(("credentials",), f"Changes your keyring (secret-tool {verb})" + on)
            elif verb == "lookup":
                self.add(
                    ("credentials",), "Reads a password from your keyring (secret-tool lookup)" + on
                )
        elif name == "pass" and verb in ("insert", "rm", "generate", "edit", "mv", "cp", "init"):
            self.add(("credentials",), f"Changes your passwords (pass {verb})" + on)
        elif name == "gpg":
            if any(t.startswith("--delete-secret") or t == "--import" for t in texts):
                self.add(("credentials",), "Changes your GnuPG keys (gpg)" + on)
            elif any(t.startswith("--export-secret") for t in texts):
                self.add(
                    ("credentials",), "Reads your GnuPG secret keys (gpg --export-secret-keys)" + on
                )

    # the network -------------------------------------------------------------------

    def _fetch(self, run: _Run) -> None:
        args = run.args
        site = _site_of(args) or "a site only known when it runs"
        texts = [a.text if a.literal else a.source for a in args]
        on = _on(run.context)
        # A file the download is written to, to know it when it runs later.
        for i, text in enumerate(texts):
            out: str | None = None
            if text in ("-o", "--output", "-O", "--output-document") and i + 1 < len(texts):
                out = texts[i + 1] if not (run.name == "curl" and text == "-O") else None
            elif text.startswith("--output-document="):
                out = text.split("=", 1)[1]
            if out and out != "-":
                self._downloads[_file_key(out, run.cwd)] = site
        remote_name = any(t == "--remote-name" or (t.startswith("-") and not t.startswith("--") and "O" in t)
                          for t in texts)  # fmt: skip
        if (run.name == "curl" and remote_name) or (run.name == "wget" and not any(
            t in ("-O", "-qO-", "-O-") or t.startswith(("-qO", "--output-document")) for t in texts
        )):  # fmt: skip
            url = next((t for t in texts if "://" in t), None)
            if url is not None:
                name = urllib.parse.urlsplit(url).path.rsplit("/", 1)[-1]
                if name:
                    self._downloads[_file_key(name, run.cwd)] = site
        for redirect in run.command.redirects:
            if (
                redirect.op in (">", ">>")
                and redirect.target is not None
                and redirect.target.literal
            ):
                self._downloads[_file_key(redirect.target.text, run.cwd)] = site
        if site in ("169.254.169.254", "metadata.google.internal", "100.100.100.200") and any(
            "credential" in t or "token" in t or "service-accounts" in t for t in texts
        ):
            self.add(
                ("credentials",), "Reads this cloud machine's access keys (instance metadata)" + on
            )
        # Files or output sent with the request.
        data_options = ("-d", "--data", "--data-binary", "--data-urlencode", "-F", "--form", "-T",
                        "--upload-file", "--json", "--post-file", "--body-file", "--post-data")  # fmt: skip
        for i, word in enumerate(args):
            text = word.text if word.literal else ""
            value: Word | None = None
            option = text
            if text in data_options and i + 1 < len(args):
                value = args[i + 1]
            elif "=" in text and text.split("=", 1)[0] in data_options:
                option, rest = text.split("=", 1)
                value = Word(rest, True, rest)
            if value is None:
                continue
            if value.substituted:
                sources = value.inner
                if any(c.base in ENV_DUMPS for c in sources):
                    self.add(("sends",), f"Sends your environment variables (where keys often are) to {site}"
                             + on)  # fmt: skip
                else:
                    shown = _cut(
                        " ".join(w.source for w in [sources[0].name, *sources[0].args]), 40
                    )
                    self.add(("sends",), f"Sends the output of `{shown}` to {site}" + on)
                continue
            if not value.literal:
                continue
            raw = value.text
            path: str | None = None
            if option in ("-T", "--upload-file", "--post-file", "--body-file"):
                path = raw
            elif "@" in raw and option in ("-F", "--form"):
                path = raw.split("@", 1)[1].split(";", 1)[0]
            elif raw.startswith("@"):
                path = raw[1:]
            if path is None:
                continue
            if path == "-":
                self._sends_stdin(run, site, run.name)
            else:
                self.add(("sends",), f"Sends {_cut(path, 50)} to {site} ({run.name})" + on)

    def _sends_stdin(self, run: _Run, host: str, tool: str) -> None:
        on = _on(run.context)
        feeders = run.context.stdin
        files = [r.target for r in run.command.redirects if r.op == "<" and r.target is not None]
        if any(c.base in ENV_DUMPS for c in feeders):
            self.add(
                ("sends",),
                f"Sends your environment variables (where keys often are) to {host} ({tool})" + on,
            )
            return
        for command in feeders:
            name, args = _effective(command)
            if name not in READERS:
                continue
            names = [a for a in args if not (a.literal and a.text.startswith("-"))]
            if name == "tar" and names and names[0].literal and names[0].text.isalpha():
                names = names[1:]  # `tar czf - dir`: the first word is tar's options
            files.extend(n for n in names if not (n.literal and n.text == "-"))
        if files:
            shown = _listed([_cut(f.text if f.literal else f.source, 40) for f in files[:3]])
            self.add(("sends",), f"Sends {shown} to {host} ({tool})" + on)

    def _copy_out(self, run: _Run, tool: str) -> None:
        _flags, operands = _flags_and_operands(run.args, {"P", "i", "o", "F", "c", "l", "S", "J"})
        if len(operands) < 2:
            return
        *sources, dest = operands
        host = _remote_host(dest)
        if host is None and not dest.literal and ":" in dest.source.split("/", 1)[0]:
            host = "a host only known when it runs"  # `$1:~/.ssh/key.pub`
        if host is None or any(_remote_host(s) is not None for s in sources):
            return
        shown = self._targets(sources, run.context)
        self.add(("sends",), f"Copies {shown} to {host} ({tool})" + _on(run.context), danger=False)

    def _sftp(self, run: _Run) -> None:
        """`sftp host <<< 'put file'`: files sent to the host by the batch it is given."""
        host = next((_remote_host(w) for w in _plain_args(run.args) if _remote_host(w)), None)
        batch = " ".join(r.heredoc or "" for r in run.command.redirects)
        puts = [line.split()[1] for line in batch.splitlines() if line.split()[:1] == ["put"]
                and len(line.split()) > 1]  # fmt: skip
        if host is not None and puts:
            self.add(("sends",), f"Copies {_listed(puts)} to {host} (sftp put)" + _on(run.context),
                     danger=False)  # fmt: skip

    def _rsync(self, run: _Run) -> None:
        flags, operands = _flags_and_operands(run.args, {"e", "-rsh", "-rsync-path", "-exclude", "-include",
                                                         "-filter", "f", "-password-file", "-port"})  # fmt: skip
        if any(f.startswith("delete") or f == "-del" or f == "del" for f in flags):
            dest = operands[-1] if operands else None
            shown = self._targets([dest], run.context) if dest is not None else "the destination"
            text = f"Deletes files in {shown} that are not in the source (rsync --delete)"
            kinds = ["delete"]
            if (
                dest is not None
                and _remote_host(dest) is None
                and self._outside([dest], run.context)
            ):
                kinds.append("delete-outside")
                text += f", outside {self._where(self.project)}"
            self.add(kinds, text + _on(run.context))
        self._copy_out(run, "rsync")


# --- small readers ------------------------------------------------------------------------


def _base(word: Word) -> str:
    return word.text.rsplit("/", 1)[-1] if word.literal else ""


def _starting_points(name: str, args: list[Word]) -> tuple[Word, ...]:
    """Where `find` starts (its paths before the first expression, after -H/-L/-P), or
    what `ls` lists; the working directory (`.`) when none is given."""
    found: list[Word] = []
    for word in args:
        if word.literal and word.text[:1] in ("-", "(", "!"):
            if name == "find" and word.text not in ("-H", "-L", "-P"):
                break
            continue
        found.append(word)
    return tuple(found) or (Word(".", True, "."),)


def _effective(command: Command) -> tuple[str, list[Word]]:
    """The name and arguments of what `command` runs, `sudo`, `env` and the like looked
    through (`sudo find /x` → find, [/x])."""
    name, args = command.base, list(command.args)
    for _ in range(MAX_NESTING):
        if name not in ROOT and name not in PASS_THROUGH:
            break
        rest = _after_options(name, args)
        if name == "timeout" and rest:
            rest = rest[1:]
        if not rest or not rest[0].literal:
            break
        name, args = _base(rest[0]), rest[1:]
    return name, args


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


def _secret_name(pattern: str) -> str | None:
    """What a `find -name PATTERN` looks for when it looks for secrets, else None."""
    pattern = pattern.removeprefix("*/")
    return SECRET_NAMES.get(pattern)


def _words(run: _Run) -> list[str]:
    return [a.text for a in run.args if a.literal]


def _plain_args(args: Iterable[Word]) -> Iterator[Word]:
    for word in args:
        if word.literal and not word.text.startswith("-"):
            yield word


def _after_options(name: str, args: list[Word], valued: Iterable[str] | None = None) -> list[Word]:
    """The words after `name`'s own options (and `NAME=value` for env, `--`): the command
    it runs. `valued`: its one-letter options that take the next word."""
    takes = frozenset(valued) if valued is not None else _WITH_VALUE.get(name, frozenset())
    i = 0
    while i < len(args):
        word = args[i]
        if not word.literal:
            break
        text = word.text
        if text == "--":
            i += 1
            break
        if name == "env" and "=" in text and not text.startswith("-"):
            i += 1
            continue
        if name == "nice" and text.startswith("-") and text[1:].isdigit():
            i += 1
            continue
        if not text.startswith("-") or text == "-":
            break
        if text.startswith("--"):
            i += 2 if ("=" not in text and text[2:] in ("user", "group", "signal", "kill-after",
                                                           "max-args", "max-procs", "delimiter",
                                                           "replace", "max-lines", "arg-file",
                                                           "preserve-env", "chdir")) else 1  # fmt: skip
            continue
        letters = text[1:]
        last = next((j for j, ch in enumerate(letters) if ch in takes), None)
        i += 1
        if last is not None and last == len(letters) - 1:
            i += 1  # the option's value is the next word
    return args[i:]


def _flags_and_operands(
    args: list[Word], valued: Iterable[str] = ()
) -> tuple[set[str], list[Word]]:
    """Short flags (each letter), long flags (without `--`) and the operands of a
    command; `valued` names options that take the next word ("n", "-size")."""
    takes = set(valued)
    flags: set[str] = set()
    operands: list[Word] = []
    i = 0
    done = False
    while i < len(args):
        word = args[i]
        text = word.text if word.literal else ""
        if not word.literal and word.source.startswith("-") and not done:
            flags.add(word.source.lstrip("-").split("=", 1)[0])  # `--rsh="ssh -p$2"`
        elif done or not text.startswith("-") or text == "-" or not word.literal:
            operands.append(word)
        elif text == "--":
            done = True
        elif text.startswith("--"):
            key = text[2:].split("=", 1)[0]
            flags.add(key)
            if "-" + key in takes and "=" not in text:
                i += 1
        else:
            letters = text[1:]
            flags.update(letters)
            if letters and letters[-1] in takes:
                i += 1
        i += 1
    return flags, operands


def _decodes(command: Command) -> bool:
    texts = [a.text for a in command.args if a.literal]
    name = command.base
    if name in ("base64", "base32"):
        return any(
            t in ("-d", "--decode", "-D") or (t.startswith("-") and "d" in t[1:]) for t in texts
        )
    if name == "xxd":
        return any("r" in t[1:] for t in texts if t.startswith("-"))
    if name == "openssl":
        return any(t in ("-d", "-base64", "base64", "enc") for t in texts) and "-d" in texts
    if name in ("gzip", "bzip2", "xz"):
        return any(t in ("-d", "--decompress", "-dc", "-cd") for t in texts)
    if name == "perl":
        return False
    return name in ("uudecode", "gunzip", "zcat", "bzcat", "xzcat", "rev")


def _fetched_site(commands: Iterable[Command]) -> str | None:
    """The site a fetcher among `commands` downloads from, or None when none fetches."""
    for command in commands:
        name = command.base
        if name in ROOT or name in PASS_THROUGH:
            inner = _after_options(name, command.args)
            if inner and inner[0].literal and _base(inner[0]) in FETCHERS:
                return _site_of(inner[1:]) or "a site only known when it runs"
        if name in FETCHERS:
            return _site_of(command.args) or "a site only known when it runs"
    return None


def _site_of(args: Iterable[Word]) -> str | None:
    for word in args:
        if not word.literal:
            continue
        text = word.text
        if text.startswith("-"):
            continue
        if "://" in text:
            host = urllib.parse.urlsplit(text).hostname
            if host:
                return host
        elif "." in text.split("/", 1)[0] and not text.startswith((".", "/", "~")):
            head = text.split("/", 1)[0]
            if (
                all(part.isalnum() or "-" in part for part in head.split("."))
                and head[-1:].isalpha()
            ):
                return head
    return None


def _remote_host(word: Word) -> str | None:
    """`user@host:path` → host; `rsync://host/…` and `host::module` too; else None."""
    if not word.literal:
        return None
    text = word.text
    if text.startswith("rsync://"):
        return urllib.parse.urlsplit(text).hostname
    if "::" in text:
        return text.split("::", 1)[0].rsplit("@", 1)[-1] or None
    head, sep, _ = text.partition(":")
    if not sep or "/" in head or not head:
        return None
    return head.rsplit("@", 1)[-1]


def _file_key(path: str, cwd: str | None) -> str:
    if path.startswith("/") or cwd is None:
        return posixpath.normpath(path)
    return posixpath.normpath(posixpath.join(cwd, path))


def _under_cwd(path: str, cwd: str | None) -> bool:
    if cwd is None:
        return path not in ("/",)
    return places.inside(path, cwd)


def _world_writable(mode: str) -> bool:
    if mode.isdigit() and len(mode) >= 3:
        return mode[-1] in "2367"
    for clause in mode.split(","):
        who, _, perms = clause.partition("+")
        if "w" in perms and ("o" in who or "a" in who):
            return True
    return False


def _setuid(mode: str) -> bool:
    if mode.isdigit() and len(mode) == 4:
        return mode[0] in "4567"
    return any(c.startswith(("u+", "+")) and "s" in c.split("+", 1)[1] for c in mode.split(","))


def _on(context: _Context) -> str:
    return f" on {context.host}" if context.host else ""


def _cut(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _listed(names: list[str]) -> str:
    names = [n for n in names if n]
    if len(names) <= 3:
        return ", ".join(names)
    return ", ".join(names[:3]) + f" and {len(names) - 3} more"


__all__ = ["UNREAD_LINE", "Finding", "ShellReading", "read_command"]
