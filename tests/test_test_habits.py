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
    ("conftest.py", "poll_until"): "the poll interval of a wait for a state with no event "
    "to wait on (another process's socket or /proc), with a deadline",
    ("conftest.py", "until"): "the poll interval of a wait for a Qt state on the running "
    "loop, where qtbot.waitUntil would block the loop's other tasks, with a deadline",
    ("ui/test_pause_and_rules.py", "test_a_note_held_during_the_hold_shows_after_resume"): "an "
    "observation window: a held note does not show while the loop turns",
    ("core/test_ipc_confirm.py", "test_a_restart_brings_back_undecided_requests_parked_and_"
     "keeps_decided_ones"): "until a request's known deadline has passed (time is the state)",
    ("e2e/test_card_swap_attack.py", "*"): "the attack itself: a click timed after the swap",
    ("ui/test_overlay_presenter.py", "test_idle_overlay_runs_no_timers"): "an observation "
    "window: it counts the timer ticks of an idle overlay over 600 ms",
    ("ui/test_overlay_glances.py", "test_hovering_pauses_a_glance_and_leaving_gives_it_time_to_"
     "finish"): "an observation window: a paused glance outlasts its own time",
    ("ui/test_overlay_glances.py", "test_a_pinned_glance_stays_until_dismissed"): "an "
    "observation window: a pinned glance outlasts its own time",
    ("core/test_ipc_connections.py", "test_a_quiet_client_connected_does_not_wake_notch_on_a_"
     "tick"): "an observation window: it counts the server's sweeps over several old ticks",
}  # fmt: skip


def _sources() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if "corpus" not in p.parts)


@functools.cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


@functools.cache
def _nodes(path: Path) -> list[tuple[ast.AST, str]]:
    """Every node of `path`'s source with its innermost enclosing function name
    ("<module>" at the top), in one walk per file per run: four checks look at every file
    under tests/ (only read, never changed)."""
    return list(_enclosing_function(_tree(path)).items())


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


# ---- what collecting the suite imports -------------------------------------------------

REPO = TESTS.parent

# Imported in the fixture or test that uses it (`if TYPE_CHECKING:` for annotations), never
# when pytest imports a test module: every worker collects the whole suite before it runs
# a test, so an import at the top costs each of them its time, even in runs that select
# none of the tests using it (`mcp`'s __init__ alone imports its client, server,
# starlette, uvicorn and httpx: ~0.8 s of each worker's collection).
SDKS_IMPORTED_WHERE_USED = frozenset(
    {"mcp", "mcp_types", "langchain", "langchain_core", "langgraph", "agents", "openai", "httpx"}
)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _run_at_import(body: list[ast.stmt]) -> list[ast.Import | ast.ImportFrom]:
    """The imports of `body` that run when its module is imported: at the top, in a class
    body, under `if`/`try`/`with`; not in a function, nor under `if TYPE_CHECKING:`."""
    found: list[ast.Import | ast.ImportFrom] = []
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif isinstance(node, ast.If):
            found += _run_at_import(node.orelse if _is_type_checking(node.test) else node.body)
            if not _is_type_checking(node.test):
                found += _run_at_import(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody):
                found += _run_at_import(block)
            for handler in node.handlers:
                found += _run_at_import(handler.body)
        elif isinstance(node, ast.With | ast.ClassDef):
            found += _run_at_import(node.body)
    return found


@functools.cache
def _module_file(name: str, root: Path) -> Path | None:
    """The file under `root` that module `name` is (a package's __init__.py), if any."""
    base = root.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _imported_names(node: ast.Import | ast.ImportFrom, path: Path, root: Path) -> list[str]:
    """The modules `node` imports, each with its parent packages (they run first)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        module = node.module or ""
        if node.level:  # relative, inside the package under `root`
            parts = list(path.relative_to(root).with_suffix("").parts)
            package = parts if parts[-1] == "__init__" else parts[:-1]
            package = package[: len(package) - (node.level - 1)]
            package = [p for p in package if p != "__init__"]
            module = ".".join([*package, *([module] if module else [])])
        names = [module, *(f"{module}.{alias.name}" for alias in node.names)]
    return [".".join(n.split(".")[:i]) for n in names for i in range(1, n.count(".") + 2)]


@functools.cache
def _imports_of(file: Path, root: Path) -> list[tuple[int, str, Path | None]]:
    """(line, module, its file under `root` for the package's own modules) for each import
    `file` runs when imported: once per file, however many test modules reach it. Only
    the tests' own trees are kept (the other checks read them too): keeping the package's
    as well had the garbage collector walk them all again and again (twice the time)."""
    tree = _tree(file) if file.is_relative_to(TESTS) else ast.parse(file.read_text("utf-8"))
    return [
        (node.lineno, name, _module_file(name, root) if name.split(".")[0] == "notch_app" else None)
        for node in _run_at_import(tree.body)
        for name in _imported_names(node, file, root)
    ]


def _sdks_imported(path: Path, root: Path = REPO) -> dict[str, str]:
    """Each SDK importing `path` imports, through `root`'s own modules, with the chain of
    imports that gets there (`file:line` each)."""
    found: dict[str, str] = {}
    came_from: dict[Path, tuple[Path, int] | None] = {path: None}
    queue = [path]

    def chain(file: Path, line: int) -> str:
        links = [f"{file.relative_to(root).as_posix()}:{line}"]
        while (back := came_from[file]) is not None:
            file, at = back
            links.insert(0, f"{file.relative_to(root).as_posix()}:{at}")
        return " → ".join(links)

    for file in queue:  # breadth first: the shortest chain to each SDK
        for line, name, inner in _imports_of(file, root):
            sdk = name.split(".")[0]
            if sdk in SDKS_IMPORTED_WHERE_USED and sdk not in found:
                found[sdk] = f"{chain(file, line)} imports {name}"
            elif inner is not None and inner not in came_from:
                came_from[inner] = (file, line)
                queue.append(inner)
    return found


def test_collecting_the_suite_imports_no_agent_or_mcp_sdk() -> None:
    found = [
        f"{sdk}: {chain}"
        for path in _sources()
        if path.name == "conftest.py" or path.name.startswith("test_")
        for sdk, chain in sorted(_sdks_imported(path).items())
    ]
    assert found == [], (
        "import these in the fixture or test that uses them (and under `if TYPE_CHECKING:` "
        "for annotations), not where pytest imports the module:\n" + "\n".join(found)
    )


def test_the_sdk_check_follows_the_package_and_skips_what_runs_later(tmp_path: Path) -> None:
    """An SDK reached through the package, a `try` or a class body is found; one under
    `if TYPE_CHECKING:` or in a function is not (the check itself can fail)."""
    (tmp_path / "notch_app" / "connect").mkdir(parents=True)
    (tmp_path / "notch_app" / "__init__.py").write_text("")
    (tmp_path / "notch_app" / "connect" / "__init__.py").write_text("from . import bridge\n")
    (tmp_path / "notch_app" / "connect" / "bridge.py").write_text("import mcp_types as t\n")
    module = tmp_path / "test_x.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import mcp\n"
        "from notch_app.connect import something\n"
        "try:\n    import agents\nexcept ImportError:\n    pass\n"
        "class Page:\n    from httpx import AsyncClient\n"
        "def fixture():\n    import langchain\n"
    )
    found = _sdks_imported(module, tmp_path)
    assert set(found) == {"mcp_types", "agents", "httpx"}
    assert found["mcp_types"] == (
        "test_x.py:4 → notch_app/connect/__init__.py:1 → "
        "notch_app/connect/bridge.py:1 imports mcp_types"
    )
