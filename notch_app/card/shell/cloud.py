"""Cloud and container deletes (`aws s3 rm`, `kubectl delete`, `terraform destroy`,
`docker system prune`) and privileged containers."""

from __future__ import annotations

from typing import Final

from notch_app.card.shell.reading import Reading, Run, literal_words, on_host

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


def aws(reading: Reading, run: Run) -> None:
    texts: list[str] = []
    words = literal_words(run)
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
        reading.add(
            ("delete",),
            f"Deletes cloud resources (aws {' '.join(texts[:2])})" + on_host(run.context),
        )


def gcloud(reading: Reading, run: Run) -> None:
    if "delete" in literal_words(run):
        reading.add(("delete",), "Deletes cloud resources (gcloud … delete)" + on_host(run.context))


def managed(reading: Reading, run: Run) -> None:
    """A tool of `CLOUD_DELETES` asked to delete what it manages."""
    name = run.name
    deleting = CLOUD_DELETES[name]
    said = literal_words(run)
    if deleting == ("",) or any(v in said for v in deleting):
        verb = next((v for v in deleting if v in said), "")
        reading.add(("delete",), f"Deletes what {name} manages ({name} {verb})".replace(" )", ")")
                    + on_host(run.context))  # fmt: skip


def docker(reading: Reading, run: Run) -> None:
    texts = literal_words(run)
    if texts[:2] in (["system", "prune"], ["volume", "prune"], ["volume", "rm"], ["image", "prune"],
                     ["container", "prune"], ["builder", "prune"]):  # fmt: skip
        reading.add(
            ("delete",),
            f"Deletes {run.name} data ({run.name} {' '.join(texts[:2])})" + on_host(run.context),
        )
    elif texts[:1] in (["rm"], ["rmi"]) and any(t in ("-f", "--force") for t in texts):
        reading.add(("delete",), f"Deletes {run.name} containers or images ({run.name} {texts[0]} -f)"
                 + on_host(run.context))  # fmt: skip
    if "--privileged" in texts:
        reading.add(("root",), "Runs a container with full access to this computer (--privileged)"
                 + on_host(run.context))  # fmt: skip
