"""Shared test setup: Qt renders offscreen unless a test starts its own X server; tests
that start the web engine run in a pytest process of their own; hypothesis profiles.

The suite runs on parallel workers (pytest-xdist, `addopts` in pyproject.toml), each
drawing whole modules. A test that starts QtWebEngine (Chromium) inside the test process
is marked `web_engine`: the worker runs its module's marked tests in one child pytest and
passes the child's reports on as its own, so a crash of Chromium (it has segfaulted
inside pytest-qt's event processing) fails those tests, not the whole run, and no other
test ever shares a process with a live engine. A test, or a module's import, that starts
the engine without the mark fails, saying so.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# ---- hypothesis profiles -----------------------------------------------------------------

# Every profile: no per-example deadline and no "too slow" health check. Both measure the
# machine, not the property: on a loaded 2-core machine running the suite on parallel
# workers an example can take longer than 200 ms, and that made a passing property fail.
# Example counts stay where each test sets them (each is chosen for its property).
settings.register_profile(
    "dev", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
# CI: the same examples on every run (a failure on CI replays anywhere with the same
# seed-free run) and no example database written into the clone.
settings.register_profile(
    "ci",
    parent=settings.get_profile("dev"),
    derandomize=True,
    database=None,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


# ---- how many parallel workers ------------------------------------------------------------

WORKERS_PER_CORE = 2
"""Most of the suite's time is waiting (for a window to settle, a card to arm, a process to
start, a deadline to pass), not computing: two workers per core keep the cores busy."""
WORKERS_VARIABLE = "NOTCH_TEST_WORKERS"


@pytest.hookimpl(optionalhook=True)  # an xdist hook: none without xdist (-p no:xdist)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` (addopts): WORKERS_PER_CORE per core this process may use, or
    $NOTCH_TEST_WORKERS; no more than the test files named on the command line, and none
    (everything in this process, no start-up of workers) for a single file."""
    if os.environ.get(WORKERS_VARIABLE, "").strip():
        return int(os.environ[WORKERS_VARIABLE])
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    workers = WORKERS_PER_CORE * (cores or 1)
    named = {arg.split("::")[0] for arg in config.args}
    if all(name.endswith(".py") for name in named):
        workers = min(workers, len(named))
    return workers if workers > 1 else 0


@pytest.fixture(scope="session", autouse=True)
def _fonts_are_installed() -> None:
    """Offscreen Qt draws text only with system fonts (PySide6 ships none): without them
    every card would render blank and the golden images would mean nothing."""
    found = ""
    if shutil.which("fc-list"):
        found = subprocess.run(
            ["fc-list", ":family=DejaVu Sans"], capture_output=True, text=True, check=False
        ).stdout
    if not found.strip():
        pytest.fail(
            "the DejaVu Sans font is not installed (fontconfig + fonts-dejavu-core): "
            "run scripts/setup.sh, which installs scripts/debian-packages.txt"
        )


# ---- tests that start the web engine: a pytest process of their own ----------------------

OWN_PROCESS = "NOTCH_TESTS_WEB_ENGINE_REPORTS"
"""Set in the child pytest that runs the `web_engine` tests: where it writes its reports."""
WEB_ENGINE_MODULE = "PySide6.QtWebEngineCore"
_CONFIG: list[pytest.Config] = []


def pytest_configure(config: pytest.Config) -> None:
    _CONFIG[:] = [config]
    config.addinivalue_line(
        "markers",
        "web_engine: starts QtWebEngine (Chromium) in the test process; runs in a pytest "
        "process of its own (tests/conftest.py)",
    )


def _heavy_first(item: pytest.Item) -> int:
    """Which files a worker should draw first (lower first): the longest ones, so that none
    starts last and keeps the whole run waiting for it. mypy on a fresh clone (no cache)
    is the longest single test; e2e files wait on windows and processes."""
    path = item.path.as_posix()
    if item.get_closest_marker("quality"):
        return 0
    if "/tests/e2e/" in path or item.get_closest_marker("web_engine"):
        return 1
    if item.get_closest_marker("packaging"):
        return 2
    return 3


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get(OWN_PROCESS):
        return
    items.sort(key=_heavy_first)  # stable: each file's tests keep their order
    for item in items:
        if "/tests/e2e/" in item.path.as_posix():
            item.add_marker(pytest.mark.e2e)  # `-m "not e2e"` leaves every one of them out
        if item.get_closest_marker("web_engine"):
            # The child's own pytest-timeout bounds each test; the module's first test
            # here waits for all of them.
            item.add_marker(pytest.mark.timeout(0))


class _WebEngineBatch:
    """The `web_engine` tests of one module, run once in a child pytest (a worker draws
    whole modules: --dist loadfile); its reports by node id."""

    def __init__(self, session: pytest.Session, module: Path) -> None:
        self.session = session
        self.items = [
            i for i in session.items if i.get_closest_marker("web_engine") and i.path == module
        ]
        self.reports: dict[str, list[Any]] = {}
        self.crash = ""
        self._ran = False

    def reports_for(self, item: pytest.Item) -> list[Any]:
        if not self._ran:
            self._ran = True
            self._run()
        return self.reports.get(item.nodeid, [])

    def _run(self) -> None:
        config = self.session.config
        base = Path(tempfile.mkdtemp(prefix="notch-web-engine-"))
        out = base / "reports.jsonl"
        log = base / "child.log"
        argv = [
            sys.executable, "-m", "pytest", "-n", "0", "-p", "no:cacheprovider", "-q",
            f"--basetemp={base / 'tmp'}", *[i.nodeid for i in self.items],
        ]  # fmt: skip
        env = {**os.environ, OWN_PROCESS: str(out)}
        with log.open("wb") as said:
            child = subprocess.run(
                argv, cwd=config.rootpath, env=env, stdout=said, stderr=subprocess.STDOUT,
                timeout=120 + 300 * len(self.items), check=False,
            )  # fmt: skip
        if out.exists():
            for line in out.read_text(encoding="utf-8").splitlines():
                report = config.hook.pytest_report_from_serializable(
                    config=config, data=json.loads(line)
                )
                self.reports.setdefault(report.nodeid, []).append(report)
        code = child.returncode
        if code < 0 or code not in (0, 1):  # killed by a signal, or pytest's own failure
            how = f"signal {signal.Signals(-code).name}" if code < 0 else f"exit code {code}"
            tail = log.read_text(encoding="utf-8", errors="replace")[-6000:]
            self.crash = f"the web engine's test process ended with {how} ({log}):\n{tail}"
        else:
            shutil.rmtree(base, ignore_errors=True)


def _replay(item: pytest.Item, reports: list[Any], crash: str) -> None:
    from _pytest.reports import TestReport

    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    seen = {r.when for r in reports}
    for report in reports:
        item.ihook.pytest_runtest_logreport(report=report)
    if "teardown" not in seen:  # the child died before finishing this test
        why = crash or "the web engine's test process never reported this test"
        if crash and not seen:
            why = "not run: " + crash.split("\n", 1)[0] + " during an earlier test"
        for when, outcome in (("setup", "passed"), ("call", "failed"), ("teardown", "passed")):
            if when in seen:
                continue
            report = TestReport(
                item.nodeid, item.location, dict.fromkeys(item.keywords, 1), outcome,
                why if outcome == "failed" else None, when, [], 0.0,
            )  # fmt: skip
            item.ihook.pytest_runtest_logreport(report=report)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    if os.environ.get(OWN_PROCESS) or not item.get_closest_marker("web_engine"):
        return None
    batches = item.session.stash.setdefault(_BATCHES, {})
    if item.path not in batches:
        batches[item.path] = _WebEngineBatch(item.session, item.path)
    batch = batches[item.path]
    _replay(item, batch.reports_for(item), batch.crash)
    return True


_BATCHES = pytest.StashKey[dict[Path, _WebEngineBatch]]()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    target = os.environ.get(OWN_PROCESS)
    if not target:
        return
    config = _CONFIG[0]
    data = config.hook.pytest_report_to_serializable(config=config, report=report)
    with open(target, "a", encoding="utf-8") as out:
        out.write(json.dumps(data) + "\n")


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Iterator[Any]:
    """A test module that loads the web engine when imported fails to collect, naming the
    fix: every worker imports every module, so the engine would sit in all of them."""
    before = WEB_ENGINE_MODULE in sys.modules
    report = yield
    if (
        isinstance(collector, pytest.Module)
        and not before
        and WEB_ENGINE_MODULE in sys.modules
        and not os.environ.get(OWN_PROCESS)
    ):
        report.outcome = "failed"
        report.longrepr = (
            f"importing {collector.nodeid} loads the web engine ({WEB_ENGINE_MODULE}) into "
            "every test process: import it inside the tests of a module marked "
            "`pytest.mark.web_engine` (CONTRIBUTING.md)"
        )
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """A test that starts the web engine in a shared test process fails, naming the fix."""
    before = WEB_ENGINE_MODULE in sys.modules
    result = yield
    if not before and WEB_ENGINE_MODULE in sys.modules and not os.environ.get(OWN_PROCESS):
        raise AssertionError(
            f"{item.nodeid} started the web engine ({WEB_ENGINE_MODULE}) in a test process "
            "that other tests share: a crash of Chromium would end the whole run. Mark the "
            "module `pytestmark = pytest.mark.web_engine` (it then runs in a pytest process "
            "of its own: CONTRIBUTING.md)"
        )
    return result
