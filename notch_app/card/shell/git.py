"""Git: force pushes, remote branch deletes, history rewrites, thrown-away changes."""

from __future__ import annotations

from typing import Final

from notch_app.card.shell.reading import Reading, Run, on_host

GIT_WITH_VALUE: Final = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"})


def git(reading: Reading, run: Run) -> None:
    words = run.args
    i = 0
    while i < len(words) and words[i].literal and words[i].text.startswith("-"):
        i += 2 if words[i].text in GIT_WITH_VALUE else 1
    if i >= len(words) or not words[i].literal:
        return
    verb = words[i].text
    rest = [w for w in words[i + 1 :]]
    texts = [w.text for w in rest if w.literal]
    on = on_host(run.context)
    if verb == "push":
        plain = [t for t in texts if not t.startswith("-")]
        remote = plain[0] if plain else "the remote"
        forced = any(t in ("-f", "--force", "--mirror") or t.startswith("--force") for t in texts)
        forced = forced or any(t.startswith("+") for t in plain[1:])
        forced = forced or any(
            t.startswith("-") and not t.startswith("--") and "f" in t for t in texts
        )
        deleting = any(t in ("-d", "--delete", "--prune") for t in texts) or any(
            t.startswith(":") and len(t) > 1 for t in plain[1:]
        )
        if forced:
            reading.add(
                ("history",),
                f"Force-pushes to {remote}, replacing its history (git push --force)" + on,
            )
        if deleting:
            reading.add(("history",), f"Deletes branches on {remote} (git push --delete)" + on)
    elif verb == "reset" and "--hard" in texts:
        reading.add(("history",), "Throws away uncommitted changes (git reset --hard)" + on)
    elif verb in ("filter-branch", "filter-repo"):
        reading.add(("history",), f"Rewrites every commit of the history (git {verb})" + on)
    elif verb == "reflog" and texts[:1] in (["expire"], ["delete"]):
        reading.add(
            ("history",), f"Drops entries of the reflog for good (git reflog {texts[0]})" + on
        )
    elif verb == "gc" and any(t.startswith("--prune") for t in texts):
        reading.add(("history",), "Deletes unreachable commits for good (git gc --prune)" + on)
    elif verb == "stash" and texts[:1] in (["clear"], ["drop"]):
        reading.add(("history",), f"Deletes stashed changes (git stash {texts[0]})" + on)
    elif verb == "checkout" and (
        "--" in texts or "." in texts or "-f" in texts or "--force" in texts
    ):
        reading.add(("history",), "Throws away uncommitted changes (git checkout)" + on)
    elif verb == "restore" and "--staged" not in texts and "-S" not in texts:
        reading.add(("history",), "Throws away uncommitted changes (git restore)" + on)
    elif verb == "clean" and any(t == "--force" or (t.startswith("-") and not t.startswith("--") and "f" in t)
                                 for t in texts):  # fmt: skip
        reading.add(("delete",), "Deletes the files Git does not track (git clean)" + on)
    elif verb == "rebase" and not any(
        t in ("--abort", "--continue", "--skip", "--quit") for t in texts
    ):
        reading.add(("history",), "Rewrites this branch's history (git rebase)" + on, danger=False)
    elif verb == "commit" and "--amend" in texts:
        reading.add(
            ("history",), "Rewrites the last commit (git commit --amend)" + on, danger=False
        )
    elif verb == "branch" and any(t in ("-D",) for t in texts):
        branch = next((t for t in texts if not t.startswith("-")), "a branch")
        reading.add(("history",), f"Deletes branch {branch} even if not merged (git branch -D)" + on,
                 danger=False)  # fmt: skip
