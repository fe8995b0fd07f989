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

import asyncio
import contextlib
import inspect
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
from hypothesis import HealthCheck, settings

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def _show_failures_despite_cpython_gh_106905() -> None:
    """CPython before 3.11.8 and 3.12.1 can raise SystemError("AST constructor recursion
    depth mismatch") from ast.parse when another thread builds an AST at the same moment
    (python/cpython#106905). pytest parses a failing test's source to show it; that
    SystemError became an INTERNALERROR that ended the worker and, with it, the whole run
    (seen twice on 3.11.7). Parse again, and else show the failure without the statement's
    extent, as pytest does for source it cannot parse."""
    from _pytest._code import code, source

    parse = source.getstatementrange_ast

    def parse_again(*args: Any, **kwargs: Any) -> Any:
        try:
            return parse(*args, **kwargs)
        except SystemError:
            try:
                return parse(*args, **kwargs)
            except SystemError as again:
                raise SyntaxError(str(again)) from again

    # `code` imports the function from `source` without re-exporting it.
    code.getstatementrange_ast = parse_again  # type: ignore[attr-defined]
    source.getstatementrange_ast = parse_again


if sys.version_info < (3, 11, 8) or (3, 12) <= sys.version_info < (3, 12, 1):
    _show_failures_despite_cpython_gh_106905()

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

WORKERS_PER_CORE = 3
"""Much of the suite's time is waiting (for a window to settle, a card to arm, a process to
start, a deadline to pass), not computing. With two workers per core the two cores were
idle a third of the time (5 min 30 s, 375 s of CPU in all); with three they are busy until
the last files (5 min 9 s under other load), and the timing tests, which measure, still
run after the workers, alone."""
WORKERS_VARIABLE = "NOTCH_TEST_WORKERS"


def _cores() -> int:
    """The cores this process may use."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return cores or 1


@pytest.hookimpl(optionalhook=True)  # an xdist hook: none without xdist (-p no:xdist)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` (addopts): WORKERS_PER_CORE per core this process may use, or
    $NOTCH_TEST_WORKERS; no more than the test files named on the command line, and none
    (everything in this process, no start-up of workers) for a single file."""
    if os.environ.get(WORKERS_VARIABLE, "").strip():
        return int(os.environ[WORKERS_VARIABLE])
    workers = WORKERS_PER_CORE * _cores()
    named = {arg.split("::")[0] for arg in config.args}
    if all(name.endswith(".py") for name in named):
        workers = min(workers, len(named))
    return workers if workers > 1 else 0


# ---- waiting for a state ------------------------------------------------------------------

POLL_S = 0.02
"""How often a wait for a state looks again: the one timed wait of the polls below."""


def poll_until(condition: Callable[[], Any], what: str, timeout: float = 10.0) -> Any:
    """`condition()`'s value once it is truthy, looked at every POLL_S; fails after
    `timeout` naming `what`. For a state with no event to wait on (another process's
    socket or /proc)."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(POLL_S)
    return value


async def until(condition: Callable[[], Any], what: str, timeout: float = 10.0) -> Any:
    """As poll_until, on the running event loop (Qt paints and fires timers meanwhile);
    `condition` may return an awaitable (a page's script run in a browser). Not
    qtbot.waitUntil: that spins Qt inside the test's task, where qasync cannot step
    another task (a server accepting a connection)."""
    deadline = time.monotonic() + timeout
    while not (value := await _value_of(condition())):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        await asyncio.sleep(POLL_S)
    return value


async def _value_of(result: Any) -> Any:
    return await result if inspect.isawaitable(result) else result


@pytest.fixture(scope="session", name="poll_until")
def poll_until_fixture() -> Callable[..., Any]:
    """`poll_until(condition, what, timeout=10)`: see `poll_until`."""
    return poll_until


@pytest.fixture(scope="session", name="until")
def until_fixture() -> Callable[..., Any]:
    """`await until(condition, what, timeout=10)`: see `until`."""
    return until


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


TIMING_LIST = "NOTCH_TESTS_TIMING_LIST"
"""A folder the main process makes when it runs workers: each writes the `timing` tests it
left out there."""


def pytest_configure(config: pytest.Config) -> None:
    _CONFIG[:] = [config]
    config.addinivalue_line(
        "markers",
        "web_engine: starts QtWebEngine (Chromium) in the test process; runs in a pytest "
        "process of its own (tests/conftest.py)",
    )
    config.addinivalue_line(
        "markers",
        "timing: asserts how long something takes (a latency, a budget, a click inside a "
        "delay); on parallel workers it runs after them, alone (tests/conftest.py). "
        "timing(waits=True): its bound is a wait (a client's timeout) with a second of "
        "slack, not a computation: runs beside other such tests, one per core",
    )
    distributing = config.getoption("dist", "no") != "no" and config.getoption("tx", None)
    timing = _TimingAlone()
    if hasattr(config, "workerinput"):
        timing.folder = os.environ.get(TIMING_LIST)
    elif distributing and not os.environ.get(OWN_PROCESS):
        timing.folder = tempfile.mkdtemp(prefix="notch-timing-")
        os.environ[TIMING_LIST] = timing.folder  # for its workers
    else:
        # A pytest run inside a test (tests/test_test_run.py) inherits its worker's
        # variable: it must neither write to nor remove the outer run's folder.
        os.environ.pop(TIMING_LIST, None)
    config.pluginmanager.register(timing, "notch-timing-alone")


# ---- assertion rewriting: once per run, not once per worker -----------------------------

_REWRITE_ONCE = """
import sys
from pathlib import Path
from _pytest.assertion import rewrite

class Quiet:
    def trace(self, *_):
        pass

for name in sys.argv[1:]:
    source = Path(name)
    pyc = rewrite.get_cache_dir(source) / (source.name[:-3] + rewrite.PYC_TAIL)
    if rewrite._read_pyc(source, pyc) is None:
        source_hash, code = rewrite._rewrite_test(source, None)
        rewrite.try_makedirs(pyc.parent)
        rewrite._write_pyc(Quiet(), code, source_hash, pyc)
"""


def _compile_the_package(package: Path) -> None:
    """Write notch_app's bytecode before any test starts a Notch process. Where
    PYTHONDONTWRITEBYTECODE is set (this VM and CI set it) nothing writes it, and each of
    the run's ~700 `notch …` processes (`notch run`, hooks, `notch mcp`, the CLI) compiled
    every module it imports from source again: `notch run` imports in 0.92 s of CPU
    without bytecode, 0.63 s with it. Only stale or missing files are compiled (a few
    milliseconds when nothing changed, ~2.5 s on a fresh clone); __pycache__ is ignored
    by git."""
    import compileall

    compileall.compile_dir(package, quiet=1)


COLD_SDK = "NOTCH_TESTS_COLD_SDK"
"""Set (to 1): no warm SDK for this run; each fixture server imports the SDK itself."""


def _start_the_warm_sdk(script: Path) -> None:
    """Start the run's warm MCP SDK (tests/fixtures/warm_sdk.py) unless one is up: the
    SDK fixture servers `notch mcp` starts (~50 in a run) then fork from it instead of
    importing the SDK each (1 s of CPU each). Not waited for: a server started before it
    listens imports the SDK itself. It ends after this process, once its forks have."""
    import runpy
    import socket

    with socket.socket(socket.AF_UNIX) as probe, contextlib.suppress(OSError):
        probe.connect(runpy.run_path(str(script))["socket_path"]())
        return  # another run's is up (its forks run the same files)
    subprocess.Popen(
        [sys.executable, str(script), str(os.getpid())],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/")},
        start_new_session=True,  # a Ctrl+C of the run is not its: it ends after the run
    )


def pytest_sessionstart(session: pytest.Session) -> None:
    """Before the workers start (xdist starts them last): rewrite the asserts of every test
    module and conftest once, in one child per core, into pytest's own cache beside them
    (`__pycache__/*-pytest-*.pyc`, checked by the source's hash). Otherwise each worker
    rewrote all of them itself, at the same moment on a fresh clone: ~5 s of CPU each, and
    nothing is cached at all where PYTHONDONTWRITEBYTECODE is set. Best effort: a module
    left out is rewritten by the worker, as before."""
    config = session.config
    distributing = config.getoption("dist", "no") != "no" and config.getoption("tx", None)
    if not hasattr(config, "workerinput") and not os.environ.get(OWN_PROCESS):
        _compile_the_package(config.rootpath / "notch_app")
        if distributing and not os.environ.get(COLD_SDK):  # a run of many files: it pays
            _start_the_warm_sdk(config.rootpath / "tests" / "fixtures" / "warm_sdk.py")
    if not distributing or hasattr(config, "workerinput") or os.environ.get(OWN_PROCESS):
        return
    tests = config.rootpath / "tests"
    modules = sorted(
        str(p)
        for p in tests.rglob("*.py")
        if (p.name.startswith("test_") or p.name == "conftest.py")
        and not {"corpus", "fixtures", "__pycache__"} & set(p.relative_to(tests).parts)
    )
    cores = _cores()
    shares = [modules[i::cores] for i in range(cores)]
    children = [
        subprocess.Popen(
            [sys.executable, "-c", _REWRITE_ONCE, *share],
            cwd=config.rootpath,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for share in shares
        if share
    ]
    for child in children:
        try:
            child.wait(120)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


PRESTART_AT = 0.8
"""The share of the workers' tests reported when the timing tests' children start: their
start-up (a pytest and its workers collecting) then runs beside the workers' last tests,
which are the short ones (at 0.97, and 0.93, it was still in the tail)."""
WAITS_PER_CORE = 3
"""The waits lanes. They are the run's tail, after the workers, and all but idle (3 % of
the two cores in a 15 s sample). Their only CPU is starting a client process (~0.2–0.5
s), which each bound allows a second for (STARTUP_S in tests/core/test_waits_bounded.py).
Two per core once failed a bound in a dozen runs while other work loaded the machine; in
the tail there is none. Drawn longest first (their seconds in FILE_SECONDS), three per
core end with the longest one (10 s), where two per core took ~16 s."""


class _TimingAlone:
    """Tests marked `timing` assert how long something takes. Beside other workers they
    would measure the machine's load as much as the code (a 100 ms latency bound failed at
    131 ms with four workers on two cores), so the workers leave them out, and once every
    worker is done the main process runs them in one child pytest, alone, and reports them
    with the rest. Those marked `timing(waits=True)` mostly wait out a client's timeout
    (~63 s in a row, a few per cent of the CPU): they run beside each other only,
    WAITS_PER_CORE at a time per core; the others, latencies of a computation, after
    them one at a time. Both children start and collect while the workers finish their
    last tests, and run nothing until the workers are done. Without workers
    (`-n 0`) they run in their place."""

    folder: str | None = None
    """Where the workers write the timing tests they left out: made by the main process of
    a run with workers (never read from the environment there, where a run inside a test
    finds its outer run's folder), handed to its workers."""

    @pytest.hookimpl(trylast=True)  # after -m and -k chose
    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        folder = self.folder
        if not folder or not hasattr(config, "workerinput"):
            return
        timed = [i for i in items if i.get_closest_marker("timing")]
        items[:] = [i for i in items if not i.get_closest_marker("timing")]
        worker = config.workerinput["workerid"]
        lines = [f"{_timing_kind(i)}\t{i.nodeid}" for i in timed]
        Path(folder, f"{worker}.txt").write_text("\n".join(lines), "utf-8")

    session: pytest.Session | None = None
    children: dict[str, _Child] | None = None
    """The timing tests' children, started gated as the workers near their end."""
    reported = 0

    def _kinds(self) -> dict[str, list[str]] | None:
        """The timing tests by kind, from the first worker's list; None without lists."""
        lists = sorted(Path(self.folder or "").glob("*.txt")) if self.folder else []
        if not lists:
            return None
        kinds: dict[str, list[str]] = {"waits": [], "alone": []}
        for line in lists[0].read_text("utf-8").splitlines():
            if line:
                kind, nodeid = line.split("\t", 1)
                kinds[kind].append(nodeid)
        return kinds

    def _start(self, kind: str, nodeids: list[str], gated: bool = False) -> _Child:
        assert self.session is not None
        lanes = min(WAITS_PER_CORE * _cores(), len(nodeids)) if kind == "waits" else 1
        timeout = 120 + 300 * len(nodeids)
        if kind == "waits":  # the longest waits first, so the lanes end together
            recorded = _recorded_seconds()
            nodeids = sorted(nodeids, key=lambda n: -recorded.get(n, UNRECORDED_WAIT_S))
        return _Child(
            self.session.config, nodeids, "the timing tests' process", timeout, lanes, gated
        )

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """When the workers have PRESTART_AT of their tests done, the timing tests'
        children start and collect, then wait for their turn (GATE): their start-up
        (a pytest and its workers collecting) no longer adds to the run's tail."""
        session = self.session
        if report.when != "teardown" or self.children is not None or session is None:
            return
        if not self.folder or hasattr(session.config, "workerinput") or session.shouldstop:
            return
        self.reported += 1
        if session.testscollected and self.reported >= PRESTART_AT * session.testscollected:
            kinds = self._kinds() or {}
            self.children = {k: self._start(k, ids, gated=True) for k, ids in kinds.items() if ids}

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, object, object]:
        self.session = session
        result = yield
        folder = self.folder
        if not folder or hasattr(session.config, "workerinput"):
            return result
        kinds = self._kinds()
        if session.config.option.collectonly:  # `--co`: the workers run nothing
            shutil.rmtree(folder, ignore_errors=True)
            return result
        stopped = session.shouldstop or session.shouldfail or session.testsfailed
        if kinds is None and not stopped and session.testscollected:
            # Once a run inside a test removed this folder, and 39 timing tests were left
            # out of every run without a word. Never silently again.
            raise RuntimeError(
                f"no worker's list of timing tests is in {folder}: they would not run"
            )
        shutil.rmtree(folder, ignore_errors=True)
        children = self.children or {}
        _TIMING_TESTS.update((n, k) for k, ids in (kinds or {}).items() for n in ids)
        for kind, nodeids in (kinds or {}).items():
            started = children.pop(kind, None)
            if not nodeids or session.shouldstop:
                if started is not None:
                    started.end()
                continue
            reports, crash = (started or self._start(kind, nodeids)).reports()
            for nodeid in nodeids:
                got = reports.get(nodeid, [])
                location = got[0].location if got else (nodeid.split("::")[0], None, nodeid)
                _replay(session.config.hook, nodeid, location, got, crash)
            # The workers left them out of what they collected: count them back in (a
            # run of timing tests alone said "no tests collected", exit code 5).
            session.testscollected += len(nodeids)
        for child in children.values():
            child.end()
        return result


def _timing_kind(item: pytest.Item) -> str:
    """ "waits" for a `timing(waits=True)` test, else "alone"."""
    marker = item.get_closest_marker("timing")
    return "waits" if marker is not None and marker.kwargs.get("waits") else "alone"


FILE_SECONDS = Path(__file__).with_name("file_seconds.json")
"""Each test file's seconds in a full run (its tests' setup, call and teardown), the
longest first. The workers draw whole files in the order of the items, so the longest
start first and none starts last and keeps the run waiting alone (in alphabetical order
the 2-minute MCP-client file started at 71 s and the web sandbox's at 119 s, and the run
ended on a file of 6-second waits). Written by a whole run with
NOTCH_TESTS_RECORD_SECONDS=1 (CONTRIBUTING.md); a file it does not name yet is placed by
its kind."""
RECORD_SECONDS = "NOTCH_TESTS_RECORD_SECONDS"
_SECONDS: dict[str, float] = {}
_TIMING_TESTS: dict[str, str] = {}
"""The run's timing tests by kind; FILE_SECONDS keeps each `waits` one's own seconds."""
UNRECORDED_WAIT_S = 5.0


def _recorded_seconds() -> dict[str, float]:
    try:
        seconds = json.loads(FILE_SECONDS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in seconds.items()} if isinstance(seconds, dict) else {}


def _waits_mostly(item: pytest.Item) -> bool:
    """e2e and web-engine files: their seconds are mostly waits on windows and processes."""
    return "/tests/e2e/" in item.path.as_posix() or bool(item.get_closest_marker("web_engine"))


def _heavy_first(items: list[pytest.Item], recorded: dict[str, float]) -> list[pytest.Item]:
    """The order in which workers should draw files: mypy on a fresh clone (no cache)
    first, the longest it has to do; then the longest files by their recorded seconds (a
    file not recorded yet by its kind), the files that compute taking turns with the ones
    that mostly wait (e2e): all workers starting on e2e files at once left the cores a
    third idle for the run's second half-minute, while the computing files queued."""

    def seconds(item: pytest.Item) -> float:
        guess = 10.0 if _waits_mostly(item) else 1.0
        if item.get_closest_marker("packaging"):
            guess = 15.0
        return recorded.get(_file_of(item.nodeid), guess)

    first = [i for i in items if i.get_closest_marker("quality")]
    rest = [i for i in items if not i.get_closest_marker("quality")]
    lanes: list[list[list[pytest.Item]]] = []
    for waits in (True, False):
        files: dict[str, list[pytest.Item]] = {}
        for item in rest:
            if _waits_mostly(item) == waits:
                files.setdefault(_file_of(item.nodeid), []).append(item)
        lanes.append(sorted(files.values(), key=lambda f: -seconds(f[0])))  # stable
    ordered = list(first)
    waiting, computing = lanes
    for turn in range(max(len(waiting), len(computing))):
        for lane in (computing, waiting):
            if turn < len(lane):
                ordered += lane[turn]
    return ordered


def _file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get(OWN_PROCESS):
        return
    items[:] = _heavy_first(items, _recorded_seconds())  # a file's tests keep their order
    for item in items:
        if "/tests/e2e/" in item.path.as_posix():
            item.add_marker(pytest.mark.e2e)  # `-m "not e2e"` leaves every one of them out
        if item.get_closest_marker("web_engine"):
            # The child's own pytest-timeout bounds each test; the module's first test
            # here waits for all of them.
            item.add_marker(pytest.mark.timeout(0))


GATE = "NOTCH_TESTS_GATE"
"""Set in a child started ahead of its turn: the pipe it reads "go" from before it runs."""
GATE_WAIT_S = 1800.0


@pytest.hookimpl(wrapper=True)
def pytest_runtestloop(session: pytest.Session) -> Generator[None, object, object]:
    """A gated child (_Child) has collected, its workers too; it waits for its turn."""
    gate = os.environ.pop(GATE, None)  # not for the processes its tests start
    if gate and not hasattr(session.config, "workerinput"):
        fd = int(gate)
        ready, _, _ = select.select([fd], [], [], GATE_WAIT_S)
        said = os.read(fd, 2) if ready else b""
        os.close(fd)
        if said != b"go":
            raise RuntimeError("the run ended before this child pytest's turn")
    return (yield)


class _Child:
    """A child pytest running `nodeids`; `reports()` waits for it and returns its reports
    by node id, and why it ended early ("" when it did not: a signal, or pytest's own
    failure). With `lanes` above 1 the child runs that many tests at a time (workers
    drawing single tests), else all in its own process."""

    def __init__(
        self,
        config: pytest.Config,
        nodeids: list[str],
        what: str,
        timeout: float,
        lanes: int = 1,
        gated: bool = False,
    ) -> None:
        """`gated`: the child starts and collects now but runs no test until `open()`."""
        self.config, self.what, self.timeout = config, what, timeout
        workers = ["-n", str(lanes), "--dist", "load"] if lanes > 1 else ["-n", "0"]
        self.base = Path(tempfile.mkdtemp(prefix="notch-child-"))
        self.out = self.base / "reports.jsonl"
        self.log = self.base / "child.log"
        argv = [
            sys.executable, "-m", "pytest", *workers, "-p", "no:cacheprovider", "-q",
            f"--basetemp={self.base / 'tmp'}", *nodeids,
        ]  # fmt: skip
        env = {**os.environ, OWN_PROCESS: str(self.out)}
        env.pop(TIMING_LIST, None)
        env.pop(GATE, None)
        self.gate: int | None = None
        read_end = -1
        if gated:
            read_end, self.gate = os.pipe()
            env[GATE] = str(read_end)
        try:
            with self.log.open("wb") as said:
                self.process = subprocess.Popen(
                    argv, cwd=config.rootpath, env=env, stdout=said,
                    stderr=subprocess.STDOUT, pass_fds=(read_end,) if gated else (),
                )  # fmt: skip
        finally:
            if gated:
                os.close(read_end)

    def open(self, go: bool = True) -> None:
        """Let a gated child run its tests (or, `go` false, end without running them)."""
        if self.gate is not None:
            with contextlib.suppress(OSError):  # a child that died first: its reports say
                if go:
                    os.write(self.gate, b"go")
            os.close(self.gate)
            self.gate = None

    def end(self) -> None:
        """Stop a child whose tests will not be run (the run stopped first)."""
        self.open(go=False)
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        shutil.rmtree(self.base, ignore_errors=True)

    def reports(self) -> tuple[dict[str, list[Any]], str]:
        self.open()
        try:
            code = self.process.wait(self.timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise
        reports: dict[str, list[Any]] = {}
        if self.out.exists():
            for line in self.out.read_text(encoding="utf-8").splitlines():
                report = self.config.hook.pytest_report_from_serializable(
                    config=self.config, data=json.loads(line)
                )
                reports.setdefault(report.nodeid, []).append(report)
        if code < 0 or code not in (0, 1, 5):  # a signal, or pytest's own failure
            how = f"signal {signal.Signals(-code).name}" if code < 0 else f"exit code {code}"
            tail = self.log.read_text(encoding="utf-8", errors="replace")[-6000:]
            return reports, f"{self.what} ended with {how} ({self.log}):\n{tail}"
        shutil.rmtree(self.base, ignore_errors=True)
        return reports, ""


def _run_child(
    config: pytest.Config, nodeids: list[str], what: str, timeout: float, lanes: int = 1
) -> tuple[dict[str, list[Any]], str]:
    """Run `nodeids` in a child pytest (_Child) and wait for its reports."""
    return _Child(config, nodeids, what, timeout, lanes).reports()


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
            self.reports, self.crash = _run_child(
                self.session.config,
                [i.nodeid for i in self.items],
                "the web engine's test process",
                120 + 300 * len(self.items),
            )
        return self.reports.get(item.nodeid, [])


def _replay(
    hook: Any, nodeid: str, location: tuple[str, int | None, str], reports: list[Any], crash: str
) -> None:
    """Log a child's reports of one test as this process's own; a test the child did not
    finish (it died) fails with why."""
    from _pytest.reports import TestReport

    hook.pytest_runtest_logstart(nodeid=nodeid, location=location)
    seen = {r.when for r in reports}
    for report in reports:
        hook.pytest_runtest_logreport(report=report)
    if "teardown" not in seen:
        why = crash or "the child test process never reported this test"
        if crash and not seen:
            why = "not run: " + crash.split("\n", 1)[0] + " during an earlier test"
        steps: tuple[tuple[Literal["setup", "call", "teardown"], Literal["passed", "failed"]], ...]
        steps = (("setup", "passed"), ("call", "failed"), ("teardown", "passed"))
        for when, outcome in steps:
            if when in seen:
                continue
            report = TestReport(
                nodeid, location, {}, outcome, why if outcome == "failed" else None, when, [], 0.0
            )
            hook.pytest_runtest_logreport(report=report)
    hook.pytest_runtest_logfinish(nodeid=nodeid, location=location)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    if os.environ.get(OWN_PROCESS) or not item.get_closest_marker("web_engine"):
        return None
    batches = item.session.stash.setdefault(_BATCHES, {})
    if item.path not in batches:
        batches[item.path] = _WebEngineBatch(item.session, item.path)
    batch = batches[item.path]
    _replay(item.ihook, item.nodeid, item.location, batch.reports_for(item), batch.crash)
    # As pytest's own protocol does after each test (runner.py): take down what the next
    # test does not share. Skipped, the folder of the last test run here stayed set up,
    # and the next test from another folder failed its setup ("previous item was not
    # torn down properly").
    item.session._setupstate.teardown_exact(nextitem)
    return True


_BATCHES = pytest.StashKey[dict[Path, _WebEngineBatch]]()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.nodeid not in _TIMING_TESTS:  # not a worker's: not its file's seconds
        file = _file_of(report.nodeid)
        _SECONDS[file] = _SECONDS.get(file, 0.0) + report.duration
    elif report.when == "call" and _TIMING_TESTS[report.nodeid] == "waits":
        _SECONDS[report.nodeid] = report.duration  # its lane's place (_TimingAlone._start)
    target = os.environ.get(OWN_PROCESS)
    config = _CONFIG[0]
    if not target or hasattr(config, "workerinput"):  # a child's workers: its main writes
        return
    data = config.hook.pytest_report_to_serializable(config=config, report=report)
    data.pop("node", None)  # the child's worker that ran it (xdist's): not the parent's
    with open(target, "a", encoding="utf-8") as out:
        out.write(json.dumps(data) + "\n")


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
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


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """With NOTCH_TESTS_RECORD_SECONDS=1, a whole run that passed writes FILE_SECONDS."""
    config = session.config
    if (
        not os.environ.get(RECORD_SECONDS)
        or hasattr(config, "workerinput")
        or os.environ.get(OWN_PROCESS)
        or exitstatus != 0
        or config.args_source != pytest.Config.ArgsSource.TESTPATHS  # not some files only
        or config.option.markexpr
        or config.option.keyword
    ):
        return
    seconds = {f: round(s, 1) for f, s in sorted(_SECONDS.items(), key=lambda fs: -fs[1])}
    FILE_SECONDS.write_text(json.dumps(seconds, indent=1) + "\n", encoding="utf-8")
