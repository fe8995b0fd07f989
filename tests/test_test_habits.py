"""The tests' own habits, checked on their source: helpers come from conftest.py fixtures
(no test module imports another test module, a conftest or a helper file beside it), and
no test waits a fixed time — it waits for a state, an event or a signal."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

pytestmark = pytest.mark.quality

# Each timed wait that stays, with why it is not a guess at how long something takes.
TIMED_WAITS_ALLOWED = {
    ("e2e/conftest.py", "wait_for"): "the poll interval of a wait for a state, with a deadline",
    ("core/conftest.py", "_loop_turns"): "sleep(0): one turn of the loop, no time passes",
    ("ui/test_settings_window.py", "until"): "the poll interval of a wait for a Qt state",
    ("ui/test_pause_and_rules.py", "until"): "the poll interval of a wait for a Qt state",
    ("ui/test_withdrawn_says_why.py", "until"): "the poll interval of a wait for a Qt state "
    "on the loop, where qtbot.waitUntil would block the server's tasks",
    ("ui/test_pause_and_rules.py", "test_a_note_held_during_the_hold_shows_after_resume"): "an "
    "observation window: a held note does not show while the loop turns",
    ("core/test_ipc_confirm.py", "test_a_restart_brings_back_undecided_requests_parked_and_"
     "keeps_decided_ones"): "until a request's known deadline has passed (time is the state)",
    ("e2e/test_card_swap_attack.py", "*"): "the attack itself: a click timed after the swap",
    ("core/test_ipc_connections.py", "notch_process"): "the poll interval of a wait for "
    "another process's server to answer, with a deadline",
    ("core/test_ipc_connections.py", "until_rss"): "the poll interval of a wait for another "
    "process's RSS (/proc has no event), with a deadline",
    ("ui/test_overlay_presenter.py", "test_idle_overlay_runs_no_timers"): "an observation "
    "window: it counts the timer ticks of an idle overlay over 600 ms",
    ("ui/test_overlay_glances.py", "test_hovering_pauses_a_glance_and_leaving_gives_it_time_to_"
     "finish"): "an observation window: a paused glance outlasts its own time",
    ("ui/test_overlay_glances.py", "test_a_pinned_glance_stays_until_dismissed"): "an "
    "observation window: a pinned glance outlasts its own time",
    ("core/test_repeat_replaces.py", "_open_for"): "until a card's age passes the same-turn "
    "window (time is the state), polled with a deadline",
    ("e2e/phone/conftest.py", "wait_js"): "the poll interval of a wait for a state in a "
    "browser's page (it has no event to await from here), with a deadline",
    ("ui/test_reply_unclear.py", "test_an_unclear_reply_asks_once_more_then_waits_for_a_"
     "click"): "the poll interval of a wait for the overlay's armed state on the qasync "
    "loop, with a deadline",
}  # fmt: skip


def _sources() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if "corpus" not in p.parts)


@functools.cache
def _nodes(path: Path) -> list[tuple[ast.AST, str]]:
    """Every node of `path`'s source with its innermost enclosing function name
    ("<module>" at the top), in one walk per file per run: four checks look at every file
    under tests/ (only read, never changed)."""
    return list(_enclosing_function(ast.parse(path.read_text(encoding="utf-8"))).items())


def _local_modules() -> set[str]:
    """Names a test could import a file under tests/ by (tests/ has no packages)."""
    return {p.stem for p in _sources()}


def test_no_test_module_imports_another_file_under_tests() -> None:
    local = _local_modules()
    found = []
    for path in _sources():
        for node, _ in _nodes(path):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            elif isinstance(node, ast.ImportFrom) and node.level:
                names = ["." * node.level + (node.module or "")]
            for name in names:
                if name.startswith((".", "tests.")) or name.split(".")[0] in local:
                    found.append(f"{path.relative_to(TESTS)}:{node.lineno} imports {name}")
    assert found == [], "take helpers as conftest.py fixtures instead:\n" + "\n".join(found)


def _is_timed_wait(call: ast.Call) -> bool:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if name in ("sleep", "qWait", "msleep"):
        return True
    if name == "wait" and getattr(getattr(func, "value", None), "id", "") == "qtbot":
        return True  # qtbot.wait(ms); waitUntil and waitSignal wait for a state
    if name in ("call_later", "singleShot") and call.args:
        delay = call.args[0]
        return not (isinstance(delay, ast.Constant) and delay.value == 0)  # 0: next turn
    # xdotool's own `sleep` step, e.g. x.xdotool("sleep", "0.3", "key", ...).
    return any(isinstance(a, ast.Constant) and a.value == "sleep" for a in call.args)


def _enclosing_function(tree: ast.Module) -> dict[ast.AST, str]:
    """Each node's innermost enclosing function name ("<module>" at the top)."""
    owner: dict[ast.AST, str] = {}

    def visit(node: ast.AST, name: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = (
                child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else name
            )
            owner[child] = inner
            visit(child, inner)

    visit(tree, "<module>")
    return owner


def test_no_test_waits_a_fixed_time() -> None:
    found = []
    for path in _sources():
        where = path.relative_to(TESTS).as_posix()
        for node, name in _nodes(path):
            if not (isinstance(node, ast.Call) and _is_timed_wait(node)):
                continue
            if (where, name) in TIMED_WAITS_ALLOWED or (where, "*") in TIMED_WAITS_ALLOWED:
                continue
            found.append(f"{where}:{node.lineno} in {name}")
    assert found == [], (
        "wait for a state, event or signal (qtbot.waitUntil/waitSignal, an asyncio.Event, "
        "a conftest wait_for) instead of a fixed time:\n" + "\n".join(sorted(found))
    )


def test_async_tests_run_on_the_plugin_not_a_hand_made_loop() -> None:
    """pytest-asyncio runs `async def` tests (on qasync's loop under tests/ui)."""
    found = []
    for path in _sources():
        for node, _ in _nodes(path):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                owner = node.func.value
                called = f"{getattr(owner, 'id', '')}.{node.func.attr}"
                if called == "asyncio.run" or node.func.attr in (
                    "run_until_complete", "new_event_loop", "QEventLoop",
                ):  # fmt: skip
                    found.append(f"{path.relative_to(TESTS)}:{node.lineno} calls {called}")
    # tests/ui/conftest.py's loop factory makes the one qasync loop the plugin runs on.
    found = [f for f in found if not f.startswith("ui/conftest.py:")]
    assert found == [], "write an async test instead:\n" + "\n".join(found)


def test_every_allowed_timed_wait_still_exists() -> None:
    """An entry left behind after its wait was removed would quietly allow a new one."""
    defined = {(p.relative_to(TESTS).as_posix(), "*") for p in _sources()}
    for path in _sources():
        for node, _ in _nodes(path):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                defined.add((path.relative_to(TESTS).as_posix(), node.name))
    assert set(TIMED_WAITS_ALLOWED) <= defined, set(TIMED_WAITS_ALLOWED) - defined
