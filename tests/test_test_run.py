"""The test run itself (tests/conftest.py): a crash of the web engine fails its own tests
and the run goes on; the engine started outside its own process fails the test that did
it; `timing` tests run alone after the workers. Checked on a small suite of its own, run
the way README's command runs this one (the same conftest and pytest options, two
workers)."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.quality

ROOT = Path(__file__).resolve().parents[1]

CRASHING = """
import os, signal
import pytest

pytestmark = pytest.mark.web_engine


def test_before_the_crash():
    assert os.environ.get("NOTCH_TESTS_WEB_ENGINE_REPORTS"), "not in a process of its own"


def test_the_engine_crashes():
    os.kill(os.getpid(), signal.SIGSEGV)


def test_after_the_crash():
    pass
"""

SHARED = """
import os, sys


def test_a_worker_never_holds_the_engine():
    assert "PySide6.QtWebEngineCore" not in sys.modules


def test_loading_the_engine_here_fails():
    import PySide6.QtWebEngineCore  # noqa: F401
"""

TIMED = """
import os
import pytest


@pytest.mark.timing
def test_a_bound_is_measured_alone():
    assert os.environ.get("NOTCH_TESTS_WEB_ENGINE_REPORTS"), "beside the workers"


@pytest.mark.timing(waits=True)
@pytest.mark.parametrize("n", [1, 2])
def test_a_wait_is_measured_one_per_core(n):
    assert os.environ.get("NOTCH_TESTS_WEB_ENGINE_REPORTS"), "beside the workers"
    cores = len(os.sched_getaffinity(0))
    assert os.environ.get("PYTEST_XDIST_WORKER") or cores < 2, "not one per core"
"""

HANGING = """
import asyncio
import pytest


@pytest.mark.timeout(12)
@pytest.mark.asyncio
async def test_waits_for_what_never_comes():
    await asyncio.get_running_loop().create_future()
"""


def _run_with_the_suites_conftest(
    tmp_path: Path, files: dict[str, str], workers: str
) -> tuple[int, str]:
    """pytest on `files` (paths under tmp_path/tests) with this suite's conftest and
    options (`workers`: "-n 2", "-n 0"…); its exit code and what it said."""
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    ini = options["tool"]["pytest"]["ini_options"]
    tests = tmp_path / "tests"
    tests.mkdir(exist_ok=True)
    shutil.copy(ROOT / "tests" / "conftest.py", tests / "conftest.py")
    for name, source in files.items():
        (tests / name).parent.mkdir(parents=True, exist_ok=True)
        (tests / name).write_text(source, encoding="utf-8")
    addopts = " ".join(a for a in ini["addopts"] if a not in ("-n", "auto"))
    (tmp_path / "pytest.ini").write_text(
        f"[pytest]\naddopts = {addopts} {workers} -p no:cacheprovider -rA\n"
        f"qt_api = {ini['qt_api']}\ntimeout = 120\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "tests"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    return done.returncode, done.stdout + done.stderr


def test_a_crash_fails_its_tests_and_the_run_goes_on(tmp_path: Path) -> None:
    if importlib.util.find_spec("PySide6.QtWebEngineCore") is None:
        pytest.skip("QtWebEngine is not installed (the web extra)")
    sources = {"crashing": CRASHING, "shared": SHARED, "timed": TIMED}
    code, said = _run_with_the_suites_conftest(
        tmp_path, {f"test_{name}.py": text for name, text in sources.items()}, "-n 2"
    )
    assert code == 1, said  # tests failed; not killed (-11), not INTERNALERROR (3)
    lines = [line for line in said.splitlines() if line.startswith(("PASSED", "FAILED"))]
    outcome = {line.split()[1].split("::")[1]: line.split()[0] for line in lines}
    assert outcome == {
        "test_before_the_crash": "PASSED",
        "test_the_engine_crashes": "FAILED",
        "test_after_the_crash": "FAILED",
        "test_a_worker_never_holds_the_engine": "PASSED",
        "test_loading_the_engine_here_fails": "FAILED",
        "test_a_bound_is_measured_alone": "PASSED",
        "test_a_wait_is_measured_one_per_core[1]": "PASSED",
        "test_a_wait_is_measured_one_per_core[2]": "PASSED",
    }, said
    assert "the web engine's test process ended with signal SIGSEGV" in said, said
    assert "not run: the web engine's test process ended with signal SIGSEGV" in said, said
    assert "started the web engine" in said and "pytest.mark.web_engine" in said, said


def test_an_async_widget_test_hung_on_the_qt_loop_fails_at_its_await(tmp_path: Path) -> None:
    """pytest-timeout cannot end a wait inside Qt's event loop (Qt swallows what its alarm
    handler raises in a slot): tests/ui/conftest.py's loop ends it before the limit."""
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    ini = options["tool"]["pytest"]["ini_options"]
    (tmp_path / "tests" / "ui").mkdir(parents=True)
    shutil.copy(ROOT / "tests" / "conftest.py", tmp_path / "tests" / "conftest.py")
    shutil.copy(ROOT / "tests" / "ui" / "conftest.py", tmp_path / "tests" / "ui" / "conftest.py")
    (tmp_path / "tests" / "ui" / "test_hanging.py").write_text(HANGING, encoding="utf-8")
    (tmp_path / "pytest.ini").write_text(
        f"[pytest]\naddopts = {' '.join(ini['addopts'])} -p no:cacheprovider\n"
        f"qt_api = {ini['qt_api']}\nasyncio_default_fixture_loop_scope = function\n",
        encoding="utf-8",
    )
    # As in the real run: this child inherits its worker's list folder for timing tests.
    outer = tmp_path / "outer-timing-list"
    outer.mkdir()
    (outer / "gw0.txt").write_text("alone\ttests/test_x.py::test_bound", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/ui/test_hanging.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=90, check=False,
        env={**os.environ, "NOTCH_TESTS_TIMING_LIST": str(outer)},
    )  # fmt: skip
    said = done.stdout + done.stderr
    assert done.returncode == 1, said
    assert "CancelledError: hung: still waiting after the test's limit of 12 s" in said, said
    assert "await asyncio.get_running_loop().create_future()" in said, said
    # A pytest run inside a test once removed its outer run's folder, and the outer run's
    # 39 timing tests never ran, without a word.
    assert (outer / "gw0.txt").exists(), "a run inside a test removed the outer run's list"


def test_a_test_after_the_web_engines_tests_in_another_folder_sets_up(tmp_path: Path) -> None:
    """A normal test, then a web_engine module's tests (replayed from their child) in the
    same folder, then a test in another folder, on one worker: the replayed tests left
    the first folder set up and the last test failed its setup with "previous item was
    not torn down properly" (seen in whole runs once files were drawn longest first)."""
    order = {"tests/one/test_first.py": 3, "tests/one/test_page.py": 2, "tests/two/test_last.py": 1}
    code, said = _run_with_the_suites_conftest(
        tmp_path,
        {
            "one/test_first.py": "def test_first():\n    pass\n",
            "one/test_page.py": "import pytest\n\npytestmark = pytest.mark.web_engine\n\n\n"
            "def test_page():\n    pass\n",
            "two/test_last.py": "def test_last():\n    pass\n",
            "file_seconds.json": json.dumps(order),
        },
        "-n 0",
    )
    assert code == 0, said
    ran = [line.split()[1] for line in said.splitlines() if line.startswith("PASSED")]
    assert ran == [
        "tests/one/test_first.py::test_first",
        "tests/one/test_page.py::test_page",
        "tests/two/test_last.py::test_last",
    ], said
