"""The words every family of findings reads alike: which commands wrap, fetch or decode,
and a command's options, operands, sites and hosts as a person would name them."""

from __future__ import annotations

import posixpath
import urllib.parse
from collections.abc import Iterable, Iterator
from typing import Final

from notch_app.card.shell import places
from notch_app.card.shell.parse import Command, Word

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
ROOT: Final = frozenset({"sudo", "doas", "pkexec", "run0"})
PASS_THROUGH: Final = frozenset({"nohup", "time", "exec", "builtin", "setsid", "unbuffer",
                                 "caffeinate", "stdbuf", "nice", "ionice", "chrt", "taskset",
                                 "timeout", "env", "command", "flock", "strace", "ltrace",
                                 "torsocks", "proxychains", "proxychains4"})  # fmt: skip
"""Commands that run the command after their own options."""
WITH_VALUE: Final = {
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


def base(word: Word) -> str:
    return word.text.rsplit("/", 1)[-1] if word.literal else ""


def starting_points(name: str, args: list[Word]) -> tuple[Word, ...]:
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


def effective(command: Command) -> tuple[str, list[Word]]:
    """The name and arguments of what `command` runs, `sudo`, `env` and the like looked
    through (`sudo find /x` → find, [/x])."""
    name, args = command.base, list(command.args)
    for _ in range(MAX_NESTING):
        if name not in ROOT and name not in PASS_THROUGH:
            break
        rest = after_options(name, args)
        if name == "timeout" and rest:
            rest = rest[1:]
        if not rest or not rest[0].literal:
            break
        name, args = base(rest[0]), rest[1:]
    return name, args


def plain_args(args: Iterable[Word]) -> Iterator[Word]:
    for word in args:
        if word.literal and not word.text.startswith("-"):
            yield word


def after_options(name: str, args: list[Word], valued: Iterable[str] | None = None) -> list[Word]:
    """The words after `name`'s own options (and `NAME=value` for env, `--`): the command
    it runs. `valued`: its one-letter options that take the next word."""
    takes = frozenset(valued) if valued is not None else WITH_VALUE.get(name, frozenset())
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


def flags_and_operands(args: list[Word], valued: Iterable[str] = ()) -> tuple[set[str], list[Word]]:
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


def decodes(command: Command) -> bool:
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


def fetched_site(commands: Iterable[Command]) -> str | None:
    """The site a fetcher among `commands` downloads from, or None when none fetches."""
    for command in commands:
        name = command.base
        if name in ROOT or name in PASS_THROUGH:
            inner = after_options(name, command.args)
            if inner and inner[0].literal and base(inner[0]) in FETCHERS:
                return site_of(inner[1:]) or "a site only known when it runs"
        if name in FETCHERS:
            return site_of(command.args) or "a site only known when it runs"
    return None


def site_of(args: Iterable[Word]) -> str | None:
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


def remote_host(word: Word) -> str | None:
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


def file_key(path: str, cwd: str | None) -> str:
    if path.startswith("/") or cwd is None:
        return posixpath.normpath(path)
    return posixpath.normpath(posixpath.join(cwd, path))


def under_cwd(path: str, cwd: str | None) -> bool:
    if cwd is None:
        return path not in ("/",)
    return places.inside(path, cwd)


def cut(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def listed(names: list[str]) -> str:
    names = [n for n in names if n]
    if len(names) <= 3:
        return ", ".join(names)
    return ", ".join(names[:3]) + f" and {len(names) - 3} more"
