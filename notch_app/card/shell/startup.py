"""What runs at login or on a schedule: crontab, `at`, timers, launch agents."""

from __future__ import annotations

from notch_app.card.shell.reading import Reading, Run, literal_words, on_host


def crontab(reading: Reading, run: Run) -> None:
    texts = literal_words(run)
    if "-r" in texts:
        reading.add(
            ("delete",), "Removes all your scheduled jobs (crontab -r)" + on_host(run.context)
        )
    elif "-l" not in texts:
        reading.add(("startup",), "Changes your scheduled jobs (crontab)" + on_host(run.context))


def later(reading: Reading, run: Run) -> None:
    """`at` and `batch`, unless they only list or remove jobs."""
    name = run.name
    if "-l" not in literal_words(run) and "-r" not in literal_words(run):
        reading.add(
            ("startup",), f"Schedules commands to run later ({name})" + on_host(run.context)
        )


def systemd_run(reading: Reading, run: Run) -> None:
    if any(t.startswith(("--on-", "--timer-property")) for t in literal_words(run)):
        reading.add(("startup",), "Schedules a command to run again and again (systemd-run)"
                    + on_host(run.context))  # fmt: skip


def launchctl(reading: Reading, run: Run) -> None:
    if literal_words(run)[:1] in (["load"], ["bootstrap"], ["enable"], ["submit"]):
        reading.add(("startup",), f"Starts a job at every login (launchctl {literal_words(run)[0]})"
                    + on_host(run.context))  # fmt: skip
