"""What a wrapper runs: `su -c`, `eval`, `ssh host '…'`, `source`, an interpreter's `-c`
string, script file or input; downloaded or hidden code among them."""

from __future__ import annotations

from dataclasses import replace

from notch_app.card.shell.network import sends_stdin
from notch_app.card.shell.parse import Word
from notch_app.card.shell.reading import Reading, Run, on_host
from notch_app.card.shell.words import (
    DECODERS,
    SHELLS,
    after_options,
    decodes,
    fetched_site,
    file_key,
)


def su(reading: Reading, run: Run) -> None:
    args = run.args
    user = next((a.text for a in args if a.literal and not a.text.startswith("-")), "root")
    reading.add(
        ("root",), f"Runs as {'root' if user == 'root' else user} (su)" + on_host(run.context)
    )
    for i, word in enumerate(args):
        if word.literal and word.text in ("-c", "--command") and i + 1 < len(args):
            value = args[i + 1]
            if value.literal:
                reading.inner(value.text, replace(run.context, root="su"))
            else:
                built_at_run_time(reading, run, value)


def evaluates(reading: Reading, run: Run) -> None:
    fetched = fetched_site(w for a in run.args for w in a.inner)
    if fetched is not None:
        reading.add(
            ("download-run",), f"Runs a script downloaded from {fetched}" + on_host(run.context)
        )
    reading.add(("hidden",), "Runs text put together when it runs (eval)" + on_host(run.context))
    if all(a.literal for a in run.args):
        reading.inner(" ".join(a.text for a in run.args), run.context)


def ssh(reading: Reading, run: Run) -> None:
    rest = after_options("ssh", run.args)
    if not rest:
        return
    host = rest[0].text if rest[0].literal else rest[0].source
    host = host.rsplit("@", 1)[-1]
    words = rest[1:]
    if words and all(w.literal for w in words):
        remote = replace(run.context, host=host, cwd=None, root=None, bulk=None, stdin=())
        reading.inner(" ".join(w.text for w in words), remote)
    if run.context.stdin:
        sends_stdin(reading, run, host, "ssh")


def source(reading: Reading, run: Run) -> None:
    if not run.args:
        return
    target = run.args[0]
    site = fetched_site(target.inner)
    if site is None and target.literal:
        site = reading.downloads.get(file_key(target.text, run.cwd))
    if site is not None:
        reading.add(
            ("download-run",), f"Runs a script downloaded from {site}" + on_host(run.context)
        )


def interpreter(reading: Reading, run: Run) -> None:
    """sh/bash/python…: a `-c` string, a script file, or commands on its input."""
    args = run.args
    shell = run.name in SHELLS
    script_word: Word | None = None
    reads_stdin = True
    i = 0
    while i < len(args):
        word = args[i]
        text = word.text if word.literal else ""
        if word.literal and text.startswith("-") and len(text) > 1 and not text.startswith("--"):
            if "c" in text[1:] and (
                shell or run.name in ("python", "python2", "python3", "perl", "ruby", "node", "php")
            ):
                code = args[i + 1] if i + 1 < len(args) else None
                reads_stdin = False
                if code is not None:
                    inline_code(reading, run, code, shell)
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
        site = fetched_site(script_word.inner)
        if site is None and script_word.literal:
            site = reading.downloads.get(file_key(script_word.text, run.cwd))
        if site is not None:
            reading.add(
                ("download-run",), f"Runs a script downloaded from {site}" + on_host(run.context)
            )
    heredoc = next((r.heredoc for r in run.command.redirects if r.heredoc is not None), None)
    if reads_stdin and heredoc is not None and shell:
        reading.inner(heredoc, run.context)
        return
    if reads_stdin and run.context.stdin:
        stdin_into(reading, run)


def inline_code(reading: Reading, run: Run, code: Word, shell: bool) -> None:
    """The `-c` string of an interpreter: downloaded, read as a script, or built when it runs."""
    site = fetched_site(code.inner)
    if site is not None:
        reading.add(
            ("download-run",), f"Runs a script downloaded from {site}" + on_host(run.context)
        )
        return
    if not shell:
        return
    if code.literal:
        reading.inner(code.text, run.context)
    else:
        built_at_run_time(reading, run, code)


def built_at_run_time(reading: Reading, run: Run, code: Word) -> None:
    decoded = any(c.base in DECODERS and decodes(c) for c in code.inner)
    what = "hidden in base64 or compressed text" if decoded else "put together when it runs"
    reading.add(("hidden",), f"Runs a command {what} ({run.name} -c)" + on_host(run.context))


def stdin_into(reading: Reading, run: Run) -> None:
    feeders = run.context.stdin
    site = fetched_site(feeders)
    if site is not None:
        reading.add(
            ("download-run",), f"Runs a script downloaded from {site}" + on_host(run.context)
        )
        return
    if any(c.base in DECODERS and decodes(c) for c in feeders):
        reading.add(("hidden",), f"Runs a command hidden in base64 or compressed text ({run.name})"
                 + on_host(run.context))  # fmt: skip
        return
    if all(c.base == "cat" and all(a.literal for a in c.args) for c in feeders):
        return  # a script file read whole: what runs is that file
    reading.add(("hidden",), f"Runs text piped into {run.name}" + on_host(run.context))
