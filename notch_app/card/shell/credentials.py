"""Secrets read or changed: key files sent or printed, SSH keys made, keychains, GnuPG."""

from __future__ import annotations

from notch_app.card.shell import places
from notch_app.card.shell.parse import Word
from notch_app.card.shell.reading import Reading, Run, literal_words, on_host
from notch_app.card.shell.writes import write_to


def reads_secrets(reading: Reading, run: Run) -> None:
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
        path = places.resolved(text, run.cwd, reading.home)
        if path is None:
            continue
        what = places.secret_file(path, reading.home)
        if what is not None:
            shown = places.shortened(path, reading.home)
            reading.add(
                ("credentials",), f"Reads {shown}, {what} ({run.name})" + on_host(run.context)
            )


def ssh_keygen(reading: Reading, run: Run) -> None:
    texts = literal_words(run)
    only_reads = {"-l", "-F", "-y", "-e", "-i", "-B", "-L", "-Q", "-D", "-K", "-Y", "-k", "-s"}
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
        write_to(reading, run, Word(target, True, target), "ssh-keygen")
        return
    if any(t in only_reads or (t.startswith("-") and not t.startswith("--") and t[1:2] in "lFyeiBLQDKYks"
                            and len(t) == 2) for t in texts):  # fmt: skip
        return
    target = path or "~/.ssh/id_key"
    if path is None:
        reading.add(("credentials",), "Makes a new SSH key in ~/.ssh, your SSH keys (ssh-keygen)"
                 + on_host(run.context))  # fmt: skip
    else:
        write_to(reading, run, Word(target, True, target), "ssh-keygen")


def keychain(reading: Reading, run: Run) -> None:
    texts = literal_words(run)
    verb = texts[0] if texts else ""
    name = run.name
    on = on_host(run.context)
    if name == "security":
        if verb.startswith(
            ("add-", "delete-", "set-", "import", "create-keychain", "unlock-keychain")
        ):
            reading.add(("credentials",), f"Changes your keychain (security {verb})" + on)
        elif verb == "dump-keychain" or (verb.startswith("find-") and any(
            t.startswith("-") and not t.startswith("--") and ("w" in t or "g" in t) for t in texts
        )):  # fmt: skip
            reading.add(
                ("credentials",), f"Reads passwords from your keychain (security {verb})" + on
            )
    elif name == "secret-tool":
        if verb in ("store", "clear"):
            reading.add(("credentials",), f"Changes your keyring (secret-tool {verb})" + on)
        elif verb == "lookup":
            reading.add(
                ("credentials",), "Reads a password from your keyring (secret-tool lookup)" + on
            )
    elif name == "pass" and verb in ("insert", "rm", "generate", "edit", "mv", "cp", "init"):
        reading.add(("credentials",), f"Changes your passwords (pass {verb})" + on)
    elif name == "gpg":
        if any(t.startswith("--delete-secret") or t == "--import" for t in texts):
            reading.add(("credentials",), "Changes your GnuPG keys (gpg)" + on)
        elif any(t.startswith("--export-secret") for t in texts):
            reading.add(
                ("credentials",), "Reads your GnuPG secret keys (gpg --export-secret-keys)" + on
            )
