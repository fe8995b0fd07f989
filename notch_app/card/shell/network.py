"""What goes to the network: files or environment sent (`curl -d @file`, `env | nc`,
scp), downloads kept for a later run, a cloud machine's access keys."""

from __future__ import annotations

import urllib.parse
from typing import Final

from notch_app.card.shell.parse import Word
from notch_app.card.shell.reading import Reading, Run, on_host
from notch_app.card.shell.words import (
    cut,
    effective,
    file_key,
    flags_and_operands,
    listed,
    plain_args,
    remote_host,
    site_of,
)

NETWORK: Final = frozenset({"nc", "ncat", "netcat", "socat", "telnet", "openssl", "curl", "wget",
                            "ssh", "ftp"})  # fmt: skip
READERS: Final = frozenset({"cat", "tar", "zip", "gzip", "base64", "xxd", "od", "head", "tail",
                            "tac", "strings", "less", "more", "find", "ls", "git", "7z"})  # fmt: skip
ENV_DUMPS: Final = frozenset({"env", "printenv", "set", "export", "declare"})


def to_network(reading: Reading, run: Run) -> None:
    """What `curl` and `wget` fetch and send; what is piped into another network tool."""
    name = run.name
    if name in ("curl", "wget"):
        fetch(reading, run)
    elif name in NETWORK and name not in ("ssh", "openssl") and run.context.stdin:
        host = next((a.text for a in plain_args(run.args)), "a network address")
        sends_stdin(reading, run, host, name)


def fetch(reading: Reading, run: Run) -> None:
    args = run.args
    site = site_of(args) or "a site only known when it runs"
    texts = [a.text if a.literal else a.source for a in args]
    on = on_host(run.context)
    # A file the download is written to, to know it when it runs later.
    for i, text in enumerate(texts):
        out: str | None = None
        if text in ("-o", "--output", "-O", "--output-document") and i + 1 < len(texts):
            out = texts[i + 1] if not (run.name == "curl" and text == "-O") else None
        elif text.startswith("--output-document="):
            out = text.split("=", 1)[1]
        if out and out != "-":
            reading.downloads[file_key(out, run.cwd)] = site
    remote_name = any(t == "--remote-name" or (t.startswith("-") and not t.startswith("--") and "O" in t)
                      for t in texts)  # fmt: skip
    if (run.name == "curl" and remote_name) or (run.name == "wget" and not any(
        t in ("-O", "-qO-", "-O-") or t.startswith(("-qO", "--output-document")) for t in texts
    )):  # fmt: skip
        url = next((t for t in texts if "://" in t), None)
        if url is not None:
            name = urllib.parse.urlsplit(url).path.rsplit("/", 1)[-1]
            if name:
                reading.downloads[file_key(name, run.cwd)] = site
    for redirect in run.command.redirects:
        if redirect.op in (">", ">>") and redirect.target is not None and redirect.target.literal:
            reading.downloads[file_key(redirect.target.text, run.cwd)] = site
    if site in ("169.254.169.254", "metadata.google.internal", "100.100.100.200") and any(
        "credential" in t or "token" in t or "service-accounts" in t for t in texts
    ):
        reading.add(
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
                reading.add(("sends",), f"Sends your environment variables (where keys often are) to {site}"
                         + on)  # fmt: skip
            else:
                shown = cut(" ".join(w.source for w in [sources[0].name, *sources[0].args]), 40)
                reading.add(("sends",), f"Sends the output of `{shown}` to {site}" + on)
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
            sends_stdin(reading, run, site, run.name)
        else:
            reading.add(("sends",), f"Sends {cut(path, 50)} to {site} ({run.name})" + on)


def sends_stdin(reading: Reading, run: Run, host: str, tool: str) -> None:
    on = on_host(run.context)
    feeders = run.context.stdin
    files = [r.target for r in run.command.redirects if r.op == "<" and r.target is not None]
    if any(c.base in ENV_DUMPS for c in feeders):
        reading.add(
            ("sends",),
            f"Sends your environment variables (where keys often are) to {host} ({tool})" + on,
        )
        return
    for command in feeders:
        name, args = effective(command)
        if name not in READERS:
            continue
        names = [a for a in args if not (a.literal and a.text.startswith("-"))]
        if name == "tar" and names and names[0].literal and names[0].text.isalpha():
            names = names[1:]  # `tar czf - dir`: the first word is tar's options
        files.extend(n for n in names if not (n.literal and n.text == "-"))
    if files:
        shown = listed([cut(f.text if f.literal else f.source, 40) for f in files[:3]])
        reading.add(("sends",), f"Sends {shown} to {host} ({tool})" + on)


def copy_out(reading: Reading, run: Run, tool: str) -> None:
    _flags, operands = flags_and_operands(run.args, {"P", "i", "o", "F", "c", "l", "S", "J"})
    if len(operands) < 2:
        return
    *sources, dest = operands
    host = remote_host(dest)
    if host is None and not dest.literal and ":" in dest.source.split("/", 1)[0]:
        host = "a host only known when it runs"  # `$1:~/.ssh/key.pub`
    if host is None or any(remote_host(s) is not None for s in sources):
        return
    shown = reading.targets(sources, run.context)
    reading.add(
        ("sends",), f"Copies {shown} to {host} ({tool})" + on_host(run.context), danger=False
    )


def scp(reading: Reading, run: Run) -> None:
    copy_out(reading, run, "scp")


def sftp(reading: Reading, run: Run) -> None:
    """`sftp host <<< 'put file'`: files sent to the host by the batch it is given."""
    host = next((remote_host(w) for w in plain_args(run.args) if remote_host(w)), None)
    batch = " ".join(r.heredoc or "" for r in run.command.redirects)
    puts = [line.split()[1] for line in batch.splitlines() if line.split()[:1] == ["put"]
            and len(line.split()) > 1]  # fmt: skip
    if host is not None and puts:
        reading.add(("sends",), f"Copies {listed(puts)} to {host} (sftp put)" + on_host(run.context),
                 danger=False)  # fmt: skip


def rsync(reading: Reading, run: Run) -> None:
    flags, operands = flags_and_operands(run.args, {"e", "-rsh", "-rsync-path", "-exclude", "-include",
                                                     "-filter", "f", "-password-file", "-port"})  # fmt: skip
    if any(f.startswith("delete") or f == "-del" or f == "del" for f in flags):
        dest = operands[-1] if operands else None
        shown = reading.targets([dest], run.context) if dest is not None else "the destination"
        text = f"Deletes files in {shown} that are not in the source (rsync --delete)"
        kinds = ["delete"]
        if dest is not None and remote_host(dest) is None and reading.outside([dest], run.context):
            kinds.append("delete-outside")
            text += f", outside {reading.where(reading.project)}"
        reading.add(kinds, text + on_host(run.context))
    copy_out(reading, run, "rsync")
