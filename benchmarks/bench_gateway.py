"""`notch mcp` benchmarks, each a ratio against a baseline measured in the same run.

Every MCP figure is taken with the official SDK's own client (`stdio_client` +
`ClientSession`), as an MCP client would start the gateway, against the notes fixture
(tests/fixtures/mcp_servers/notes): `notch mcp FOLDER` wrapping the fixture's server,
beside the same server started directly. No `notch run` is needed (reads never ask);
the gateway gets a throw-away --socket and --data-dir in a temp dir, HOME and
XDG_CONFIG_HOME point there too, so nothing real is touched.

1. Read-tool passthrough: `call_tool("get_status", {})`, gateway vs the server
   directly, the sessions open at once, warmed up, then called in turn (which one goes
   first rotates each time). Targets: p50 ≤ 1.3× and ≤ 2 ms added. A third session, a
   bare SDK proxy (this file's `--serve-proxy`: the SDK's lowlevel Server forwarding to
   a ClientSession, no Notch code), is called in the same turns: the floor of the
   SDK-built gateway `notch mcp` was before it relayed lines. Beside it, each process's
   CPU per call.
2. Start-up: spawning the process → `initialize` → `list_tools` answered, gateway vs the
   server directly, alternated, ~10 times each (medians). Target: the first
   `get_status` answered ≤ the direct server's + 100 ms. Also shown:
   the first `get_status` answered (the gateway starts its server in the background) and
   the stages of a start (interpreter, each side's imports by package, the folder's
   manifest, the wrapped server's environment with its keyring lookup).
3. Card build (Qt, offscreen): a CardView built, shown and first painted (as in
   bench_card.py) from a generated view vs an authored view with the same inputs, in
   interleaved rounds, with an authored-vs-itself control for the noise and the
   generated card without the text it adds (description, help lines). Target: ratio
   ≤ 1.0 (met within a 5% noise tolerance).

    .venv/bin/python benchmarks/bench_gateway.py [--quick]
    .venv/bin/python benchmarks/bench_gateway.py --profile   # the gateway's CPU, by package
    .venv/bin/python benchmarks/bench_gateway.py --startup [--reps N]  # only start-up

Exit status 0 whether or not a target is met (the table says); 1 only on an error.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parents[1]
BENCHMARKS = Path(__file__).resolve().parent
NOTES = REPO / "tests" / "fixtures" / "mcp_servers" / "notes"
SERVER = NOTES / "server.py"
PYTHON = sys.executable
VENV_BIN = str(Path(PYTHON).parent)
CARD_TOLERANCE = 0.05
"""A card ratio up to 1.05 counts as "no slower": the authored-vs-itself control came
out at 0.96–1.02x on a shared 2-core machine."""


@dataclass
class Row:
    measure: str
    baseline: str
    gateway: str
    ratio: str
    target: str
    met: str


def yes(ok: bool) -> str:
    return "yes" if ok else "NO"


# --- the MCP servers, as a client starts them -------------------------------------------


class Place:
    """The throw-away places one run uses: HOME, config, socket, data dir, logs."""

    def __init__(self, tmp: Path) -> None:
        self.home = tmp / "home"
        self.home.mkdir()
        self.config = tmp / "config"
        self.config.mkdir()
        self.socket = tmp / "no-notch" / "notch.sock"  # nothing listens: reads need none
        self.data_dir = tmp / "data"
        self.errlog = tmp / "stderr.log"
        self.profile = tmp / "gateway.prof"

    def env(self) -> dict[str, str]:
        """What an MCP client gives its server: PATH (the venv first, so the manifest's
        `python` has the SDK), HOME, XDG_CONFIG_HOME (as tests/e2e/test_mcp_gateway.py)."""
        return {
            "PATH": f"{VENV_BIN}:{os.environ.get('PATH', '')}",
            "HOME": str(self.home),
            "PYTHONUNBUFFERED": "1",
            "XDG_CONFIG_HOME": str(self.config),
        }

    def gateway_args(self) -> list[str]:
        return [str(NOTES), "--socket", str(self.socket), "--data-dir", str(self.data_dir)]

    def gateway(self) -> StdioServerParameters:
        """`notch mcp FOLDER`, as an MCP client's config starts it."""
        return StdioServerParameters(
            command=PYTHON,
            args=["-m", "notch_app", "mcp", *self.gateway_args()],
            env=self.env(),
            cwd=str(REPO),
        )

    def direct(self) -> StdioServerParameters:
        # As the gateway starts it (the manifest's runtime): `python server.py`, cwd the
        # folder; `python` is the venv's, first on PATH.
        return StdioServerParameters(
            command="python", args=[str(SERVER)], env=self.env(), cwd=str(NOTES)
        )

    def proxy(self) -> StdioServerParameters:
        """The bare SDK proxy in front of the same server (`--serve-proxy`)."""
        return StdioServerParameters(
            command=PYTHON, args=[__file__, "--serve-proxy"], env=self.env(), cwd=str(REPO)
        )

    def profiled_gateway(self) -> StdioServerParameters:
        """The gateway run in this file (`--serve-gateway-profiled`) under cProfile."""
        return StdioServerParameters(
            command=PYTHON,
            args=[__file__, "--serve-gateway-profiled", str(self.profile),
                  *self.gateway_args()],
            env=self.env(),
            cwd=str(REPO),
        )  # fmt: skip


@asynccontextmanager
async def session(params: StdioServerParameters, errlog: TextIO) -> AsyncIterator[ClientSession]:
    async with stdio_client(params, errlog) as (read, write), ClientSession(read, write) as s:
        yield s


def check_status(result: types.CallToolResult) -> None:
    if result.is_error or (result.structured_content or {}).get("notes") != 3:
        text = " ".join(c.text for c in result.content if isinstance(c, types.TextContent))
        raise RuntimeError(f"get_status failed: {text}")


async def serve_proxy() -> None:
    """`--serve-proxy`: the least an MCP proxy on the SDK can be. Starts the notes server
    with the SDK's client, and serves `tools/list` and `tools/call` on stdio with the
    SDK's lowlevel Server by forwarding them: no manifest, no checks, no Notch code."""
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    inner_params = StdioServerParameters(
        command="python", args=[str(SERVER)], env=dict(os.environ), cwd=str(NOTES)
    )
    async with (
        stdio_client(inner_params, sys.stderr) as (read, write),
        ClientSession(read, write) as inner,
    ):
        await inner.initialize()

        async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
            return await inner.list_tools()

        async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> Any:
            return await inner.call_tool(params.name, dict(params.arguments or {}))

        server: Any = Server("proxy", on_list_tools=list_tools, on_call_tool=call_tool)
        async with stdio_server() as (r, w):
            await server.run(r, w, server.create_initialization_options())


def serve_gateway_profiled(out: str, argv: list[str]) -> None:
    """`--serve-gateway-profiled OUT FOLDER --socket S --data-dir D`: `notch mcp`'s own
    code path (commands/mcp.py's `run`) under cProfile, stats written to OUT when the
    client closes stdin (so only the main thread's work is seen: the SDK reads stdin
    and writes stdout in worker threads)."""
    import cProfile

    import notch_app.commands.mcp
    import notch_app.gateway.fronts
    import notch_app.gateway.gateway  # noqa: F401  (imported before profiling starts)
    from notch_app.cli import main as notch_main

    profiler = cProfile.Profile()
    profiler.enable()
    try:
        notch_main(["mcp", *argv])
    finally:
        profiler.disable()
        profiler.dump_stats(out)


# --- per-process CPU (Linux /proc) -------------------------------------------------------

TICK = os.sysconf("SC_CLK_TCK")


def children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        with suppress(OSError):  # a thread that just ended
            found |= {int(p) for p in (task / "children").read_text().split()}
    return found


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process `pid` so far (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


# --- 1. read-tool passthrough -----------------------------------------------------------

SIDES = ("direct", "proxy", "gateway")


async def bench_passthrough(place: Place, calls: int, warm: int) -> dict[str, Any]:
    makers = {"direct": place.direct, "proxy": place.proxy, "gateway": place.gateway}
    me = os.getpid()
    async with AsyncExitStack() as stack:
        err = stack.enter_context(place.errlog.open("a", encoding="utf-8"))
        sides: dict[str, ClientSession] = {}
        procs: dict[str, list[int]] = {}  # the side's process, then its wrapped server
        for name in SIDES:
            before = children(me)
            sides[name] = await stack.enter_async_context(session(makers[name](), err))
            await sides[name].initialize()
            (pid,) = children(me) - before
            procs[name] = [pid]
        for _ in range(warm):  # also starts each wrapped server and fills SDK caches
            for s in sides.values():
                check_status(await s.call_tool("get_status", {}))
        for name in ("proxy", "gateway"):
            procs[name] += sorted(children(procs[name][0]))
        pids = [pid for name in SIDES for pid in procs[name]]
        took: dict[str, list[float]] = {name: [] for name in SIDES}
        cpu_before = {pid: cpu_seconds(pid) for pid in pids}
        gc.disable()
        try:
            for i in range(calls):
                if i % 50 == 0:
                    gc.collect()  # untimed, so no collection lands inside a call
                turn = SIDES[i % 3 :] + SIDES[: i % 3]  # each side goes first in turn
                for name in turn:
                    started = time.perf_counter()
                    result = await sides[name].call_tool("get_status", {})
                    took[name].append(time.perf_counter() - started)
                    check_status(result)
        finally:
            gc.enable()
        cpu = {pid: cpu_seconds(pid) - cpu_before[pid] for pid in pids}
    out: dict[str, Any] = {"calls": calls}
    for name, values in took.items():
        deciles = statistics.quantiles(values, n=10)
        out[f"{name}_p50_ms"] = statistics.median(values) * 1000
        out[f"{name}_p90_ms"] = deciles[8] * 1000
        # CPU per call of the side's own process, and of the server behind it.
        out[f"{name}_cpu_ms"] = [cpu[pid] / calls * 1000 for pid in procs[name]]
    # The gateway/direct ratio in each half of the run, to show how steady it is.
    halves = []
    for part in (slice(0, calls // 2), slice(calls // 2, calls)):
        halves.append(
            statistics.median(took["gateway"][part]) / statistics.median(took["direct"][part])
        )
    out["halves"] = halves
    return out


async def bench_profile(place: Place, calls: int) -> list[tuple[str, float]]:
    """`--profile`: `calls` get_status through the gateway under cProfile; its main
    thread's own time per call, by package (cProfile slows Python: read the shares)."""
    import pstats

    with place.errlog.open("a", encoding="utf-8") as err:
        async with session(place.profiled_gateway(), err) as gw:
            await gw.initialize()
            for _ in range(calls):
                check_status(await gw.call_tool("get_status", {}))
    for _ in range(100):  # the child writes its stats as it exits
        if place.profile.exists() and place.profile.stat().st_size:
            break
        await asyncio.sleep(0.1)
    stats = pstats.Stats(str(place.profile))
    by: dict[str, float] = {}
    for (file, _line, fn), (_cc, _nc, own, _cum, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        if any(wait in fn for wait in WAITS):
            continue  # waiting for the next message, not work
        by[package_of(file, fn)] = by.get(package_of(file, fn), 0.0) + own
    return sorted(((k, v / calls * 1000) for k, v in by.items()), key=lambda kv: -kv[1])


WAITS = ("'poll' of 'select.epoll'", "'acquire' of '_thread.lock'")
"""Functions in which the main thread waits (for the pipe, for a worker thread)."""


def package_of(file: str, fn: str) -> str:
    """What a profiled function belongs to: notch_app, mcp, pydantic, anyio, asyncio…"""
    if file.startswith("~") or file.startswith("<"):
        name = fn.split("'")[1] if "'" in fn else fn.removeprefix("<built-in method ")
        return "C " + name.rstrip(">")
    parts = Path(file).parts
    if "site-packages" in parts:
        return parts[parts.index("site-packages") + 1].split(".")[0]
    if "notch_app" in parts:
        return "notch_app"
    stem = Path(file).parent.name if Path(file).name == "__init__.py" else Path(file).stem
    return "stdlib " + (Path(file).parent.name if Path(file).parent.name == "asyncio" else stem)


# --- 2. start-up ------------------------------------------------------------------------


async def one_start(params: StdioServerParameters, errlog: TextIO) -> dict[str, float]:
    """Seconds from spawning to each answer: initialize, list_tools, a first get_status."""
    started = time.perf_counter()
    async with session(params, errlog) as s:
        await s.initialize()
        initialized = time.perf_counter()
        listed = await s.list_tools()
        tools_listed = time.perf_counter()
        if "get_status" not in {t.name for t in listed.tools}:
            raise RuntimeError("tools/list has no get_status")
        check_status(await s.call_tool("get_status", {}))
        first_call = time.perf_counter()
    return {
        "initialize": initialized - started,
        "tools_list": tools_listed - started,
        "first_call": first_call - started,
    }


async def bench_startup(place: Place, reps: int) -> dict[str, Any]:
    got: dict[str, list[dict[str, float]]] = {"direct": [], "gateway": []}
    makers = {"direct": place.direct, "gateway": place.gateway}
    with place.errlog.open("a", encoding="utf-8") as err:
        for name in makers:  # warm the page cache and .pyc files, untimed
            await one_start(makers[name](), err)
        for r in range(reps):
            order = ("direct", "gateway") if r % 2 == 0 else ("gateway", "direct")
            for name in order:
                got[name].append(await one_start(makers[name](), err))
                await asyncio.sleep(0.2)  # let the last process tree finish exiting
    out: dict[str, Any] = {"reps": reps}
    for name, runs in got.items():
        for step in ("initialize", "tools_list", "first_call"):
            out[f"{name}_{step}_ms"] = statistics.median(r[step] for r in runs) * 1000
    return out


def time_python(argv: list[str], reps: int, env: dict[str, str], cwd: Path = REPO) -> float:
    """Median wall seconds of `python ARGV` run to its end (a start-up stage)."""
    took = []
    for _ in range(reps):
        started = time.perf_counter()
        subprocess.run([PYTHON, *argv], cwd=cwd, check=True, env=env)
        took.append(time.perf_counter() - started)
    return statistics.median(took)


SERVER_IMPORTS = (
    "import anyio, mcp_types; from mcp.server.lowlevel import Server; "
    "from mcp.server.stdio import stdio_server"
)
GATEWAY_IMPORTS = (
    "import anyio, notch_app.cli, notch_app.commands.mcp; "
    "from notch_app.gateway.fronts import folder_front; "
    "from notch_app.gateway.gateway import Gateway"
)
FRONT = (
    "import sys, time; " + GATEWAY_IMPORTS + "; from pathlib import Path; "
    "t = time.perf_counter(); "
    f"front = folder_front(Path({str(NOTES)!r}), Path(sys.argv[1])); "
    "u = time.perf_counter(); front.environment(); "
    "print(u - t, time.perf_counter() - u)"
)


def bench_start_stages(place: Place, reps: int) -> dict[str, float]:
    """Where a start goes (medians, ms): whole `python -c` runs for the interpreter and
    each side's imports; in a fresh process with the gateway's imports done, the folder's
    manifest read and checked (`folder_front`), and the wrapped server's environment
    worked out (`Front.environment()`: preferences, and the keyring for NOTES_TOKEN),
    which the gateway does on its event loop as it starts (`_warm_up`)."""
    env = place.env()
    out = {
        "interpreter": time_python(["-c", "pass"], reps, env),
        "server_imports": time_python(["-c", SERVER_IMPORTS], reps, env, NOTES),
        "gateway_imports": time_python(["-c", GATEWAY_IMPORTS], reps, env),
    }
    fronts, environments = [], []
    settings = place.data_dir / "notch-settings.json"
    for _ in range(reps):
        done = subprocess.run([PYTHON, "-c", FRONT, str(settings)], cwd=REPO, check=True,
                              capture_output=True, text=True, env=env)  # fmt: skip
        front, environment = done.stdout.split()
        fronts.append(float(front))
        environments.append(float(environment))
    out["folder_front"] = statistics.median(fronts)
    out["environment"] = statistics.median(environments)
    return {k: v * 1000 for k, v in out.items()}


def import_self_ms(code: str, cwd: Path, reps: int = 3) -> dict[str, float]:
    """ms each top-level package's own modules take to import in `python -c CODE`
    (`-X importtime` self times; per package, the median of `reps` runs), largest first."""
    runs: list[dict[str, float]] = []
    for _ in range(reps):
        done = subprocess.run([PYTHON, "-X", "importtime", "-c", code], cwd=cwd, check=True,
                              capture_output=True, text=True)  # fmt: skip
        by: dict[str, float] = {}
        for line in done.stderr.splitlines():
            if not line.startswith("import time:"):
                continue
            own, _cumulative, name = line[len("import time:") :].split("|")
            if not own.strip().isdigit():
                continue  # the header line
            package = name.strip().split(".")[0]
            by[package] = by.get(package, 0.0) + int(own) / 1000
        runs.append(by)
    packages = {package for by in runs for package in by}
    median = {k: statistics.median(by.get(k, 0.0) for by in runs) for k in packages}
    return dict(sorted(median.items(), key=lambda kv: -kv[1]))


# --- 3. card build ----------------------------------------------------------------------


def card_tools() -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """Per case: the tools to build a card for, and the arguments. "generated" is the
    authored tool without its card, given the card Notch generates from its inputSchema
    (done once per tool when its manifest loads, as the catalog does); "generated, no
    description" is that card without the tool's description (a text block the
    generated card adds) and without help lines (the schema's property descriptions),
    to show what that extra text costs."""
    sys.path.insert(0, str(BENCHMARKS))
    import bench_card

    from notch_app.manifest.generated import generated_view, tool_document
    from notch_app.manifest.model import ConfirmationView, Manifest

    def generated(tool: Any, extra_text: bool = True) -> Any:
        view = generated_view(tool_document(tool.model_copy(update={"confirmation": None})))
        if not extra_text:
            children = view["root"]["children"]
            assert children[0]["type"] == "text"
            del children[0]
            for block in children:
                block.pop("help", None)
        return tool.model_copy(update={"confirmation": ConfirmationView.model_validate(view)})

    manifest = Manifest.model_validate(json.loads((NOTES / "manifest.json").read_text()))
    send = next(t for t in manifest.tools if t.name == "send_message")
    twenty = bench_card.notch_tool().model_copy(
        update={"title": "Send thing", "description": "Send a thing with twenty inputs."}
    )
    cases = {
        "notes send_message, 2 inputs": (send, {"to": "sam", "body": "Lunch at noon?"}),
        "bench_card's card, 20 inputs": (twenty, bench_card.arguments()),
    }
    return {
        case: (
            {
                "authored": tool,
                "generated": generated(tool),
                "authored again": tool,  # the control: the same card timed twice
                "generated, no extra text": generated(tool, extra_text=False),
            },
            arguments,
        )
        for case, (tool, arguments) in cases.items()
    }


def generation_us(tool: Any, n: int = 200) -> float:
    """µs to generate and validate one tool's view (once per tool, at load)."""
    from notch_app.manifest.generated import generated_view, tool_document
    from notch_app.manifest.model import ConfirmationView

    bare = tool_document(tool.model_copy(update={"confirmation": None}))
    took = []
    for _ in range(n):
        started = time.perf_counter()
        ConfirmationView.model_validate(generated_view(bare))
        took.append(time.perf_counter() - started)
    return statistics.median(took) * 1e6


def delete_closed_cards() -> None:
    """Untimed, after each build: really delete the card `time_build` closed. Its
    `deleteLater()` + `processEvents()` never runs the deferred delete (Qt runs those
    only from an event loop, or when asked, as here), so without this every card built
    stays alive, hidden: after ~250 cards (26,000 widgets) each build took twice as long."""
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)


def bench_cards(runs: int, warm: int) -> dict[str, dict[str, Any]]:
    """Median ms to build + show + first-paint each tool's card (bench_card's
    `time_build`), the contenders of a case interleaved (each goes first in turn)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sys.path.insert(0, str(BENCHMARKS))
    import bench_card

    from notch_app.ui.card_view import CardView
    from notch_app.ui.headless import headless_app
    from notch_app.ui.widgets.asker_strip import BUNDLED, Asker

    headless_app()
    out: dict[str, dict[str, Any]] = {}
    for case, (tools, arguments) in card_tools().items():

        def build(tool: Any, arguments: dict[str, Any] = arguments) -> Callable[[], Any]:
            # As the notch builds it: with Notch's "who is asking" strip.
            return lambda: CardView(tool, arguments, asker=Asker("Bench", BUNDLED))

        contenders = {name: build(tool) for name, tool in tools.items()}
        for make in contenders.values():
            for _ in range(warm):
                bench_card.time_build(make)
                delete_closed_cards()
        took: dict[str, list[float]] = {name: [] for name in contenders}
        names = list(contenders)
        gc.disable()
        try:
            for r in range(runs):
                gc.collect()  # untimed, between rounds
                turn = names[r % len(names) :] + names[: r % len(names)]
                for name in turn:
                    took[name].append(bench_card.time_build(contenders[name]))
                    delete_closed_cards()
        finally:
            gc.enable()
        med = {name: statistics.median(v) * 1000 for name, v in took.items()}
        out[case] = {
            "ms": med,
            "ratio": med["generated"] / med["authored"],
            "control": med["authored again"] / med["authored"],
            "plain": med["generated, no extra text"] / med["authored"],
            "generation_us": generation_us(tools["authored"]),
            "blocks": {name: len(tool.confirmation.root.children) for name, tool in tools.items()},
        }
    return out


# --- the table --------------------------------------------------------------------------


def print_table(rows: list[Row]) -> None:
    head = Row("measure", "baseline", "gateway", "ratio", "target", "met?")
    cols = list(vars(head))
    width = {c: max(len(getattr(r, c)) for r in [head, *rows]) for c in cols}
    for i, r in enumerate([head, *rows]):
        print("  ".join(getattr(r, c).ljust(width[c]) for c in cols).rstrip())
        if i == 0:
            print("  ".join("-" * width[c] for c in cols))


def ms(value: float) -> str:
    return f"{value:.2f} ms" if value < 100 else f"{value:.0f} ms"


def startup_only(reps: int) -> int:
    """`--startup`: spawn → initialize → tools/list → first get_status, both sides."""
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="notch-bench-gw") as name:
        place = Place(Path(name))
        try:
            st = asyncio.run(bench_startup(place, reps))
        except Exception:
            sys.stderr.write(place.errlog.read_text() if place.errlog.exists() else "")
            raise
    later = st["gateway_first_call_ms"] - st["direct_first_call_ms"]
    print(
        f"start-up, median of {reps} starts each, ms from spawn: initialize / tools/list /"
        f" first get_status (load {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end)"
    )
    for side in ("direct", "gateway"):
        print(f"  {side:8} {st[side + '_initialize_ms']:6.0f} / {st[side + '_tools_list_ms']:6.0f}"
              f" / {st[side + '_first_call_ms']:6.0f}")  # fmt: skip
    print(f"first get_status: gateway {later:+.0f} ms vs direct (target ≤ +100 ms: "
          f"{yes(later <= 100)})")  # fmt: skip
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations (a smoke run)")
    parser.add_argument(
        "--profile", action="store_true", help="only: the gateway's CPU per call by package"
    )
    parser.add_argument(
        "--startup", action="store_true", help="only: start-up, gateway vs the server directly"
    )
    parser.add_argument(
        "--reps", type=int, default=None, help="starts of each side (default 10; --quick 3)"
    )
    parser.add_argument("--serve-proxy", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--serve-gateway-profiled", metavar="OUT", help=argparse.SUPPRESS)
    opts, rest = parser.parse_known_args()
    if opts.serve_proxy:
        import anyio

        anyio.run(serve_proxy)
        return 0
    if opts.serve_gateway_profiled:
        serve_gateway_profiled(opts.serve_gateway_profiled, rest)
        return 0
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if opts.profile:
        with tempfile.TemporaryDirectory(prefix="notch-bench-gw") as name:
            shares = asyncio.run(bench_profile(Place(Path(name)), 1000))
        total = sum(v for _, v in shares)
        print(f"gateway main thread under cProfile, own time per get_status: {total:.2f} ms")
        for package, per_call in shares[:16]:
            print(f"  {package:28} {per_call:6.3f} ms  {per_call / total:5.1%}")
        notch = dict(shares).get("notch_app", 0.0)
        print(f"  notch_app's own code: {notch:.3f} ms a call ({notch / total:.1%})")
        return 0

    calls, warm, reps, card_runs = (60, 10, 3, 12) if opts.quick else (400, 50, 10, 60)
    reps = opts.reps or reps
    if opts.startup:
        return startup_only(reps)
    print(f"notch mcp benchmarks ({'quick' if opts.quick else 'full'}): {os.cpu_count()} "
          f"cores, load {os.getloadavg()[0]:.1f}, Python {sys.version.split()[0]}")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="notch-bench-gw") as name:
        place = Place(Path(name))
        try:
            pt = asyncio.run(bench_passthrough(place, calls, warm))
            st = asyncio.run(bench_startup(place, reps))
        except Exception:
            sys.stderr.write(place.errlog.read_text() if place.errlog.exists() else "")
            raise
        stages = bench_start_stages(place, max(3, reps // 2))
    imports = {
        "server": import_self_ms(SERVER_IMPORTS, NOTES),
        "gateway": import_self_ms(GATEWAY_IMPORTS, REPO),
    }
    cards = bench_cards(card_runs, 3 if opts.quick else 8)

    rows: list[Row] = []
    ratio = pt["gateway_p50_ms"] / pt["direct_p50_ms"]
    added = pt["gateway_p50_ms"] - pt["direct_p50_ms"]
    rows.append(Row(f"get_status p50 ({calls} calls each)", ms(pt["direct_p50_ms"]),
                    ms(pt["gateway_p50_ms"]), f"{ratio:.2f}x", "≤ 1.3x",
                    yes(ratio <= 1.3)))  # fmt: skip
    rows.append(Row("get_status p50, added", "", f"+{added:.2f} ms", "", "≤ 2 ms",
                    yes(added <= 2.0)))  # fmt: skip
    p90 = pt["gateway_p90_ms"] / pt["direct_p90_ms"]
    rows.append(Row("get_status p90", ms(pt["direct_p90_ms"]), ms(pt["gateway_p90_ms"]),
                    f"{p90:.2f}x", "-", "-"))  # fmt: skip
    floor = pt["proxy_p50_ms"] / pt["direct_p50_ms"]
    rows.append(Row("get_status p50, bare SDK proxy (floor)", ms(pt["direct_p50_ms"]),
                    ms(pt["proxy_p50_ms"]) + " proxy", f"{floor:.2f}x", "-", "-"))  # fmt: skip
    up = st["gateway_tools_list_ms"] / st["direct_tools_list_ms"]
    rows.append(Row(f"start → tools/list (median of {reps})", ms(st["direct_tools_list_ms"]),
                    ms(st["gateway_tools_list_ms"]), f"{up:.2f}x", "≤ 1.5x",
                    yes(up <= 1.5)))  # fmt: skip
    first = st["gateway_first_call_ms"] / st["direct_first_call_ms"]
    later = st["gateway_first_call_ms"] - st["direct_first_call_ms"]
    rows.append(Row("start → first get_status answered", ms(st["direct_first_call_ms"]),
                    ms(st["gateway_first_call_ms"]) + f" ({later:+.0f} ms)", f"{first:.2f}x",
                    "≤ direct + 100 ms", yes(later <= 100)))  # fmt: skip
    for case, c in cards.items():
        rows.append(Row(f"card build: {case}", ms(c["ms"]["authored"]) + " authored",
                        ms(c["ms"]["generated"]) + " generated", f"{c['ratio']:.2f}x",
                        f"≤ 1.0x (+{CARD_TOLERANCE:.0%} noise)",
                        yes(c["ratio"] <= 1 + CARD_TOLERANCE)))  # fmt: skip
    print()
    print_table(rows)
    print()
    low, high = sorted(pt["halves"])
    print(f"passthrough: gateway/direct p50 in each half of the run {low:.2f}x–{high:.2f}x")
    print("  CPU per call (ms; the side's process + the server behind it; the client "
          "process not counted):")  # fmt: skip
    for side in SIDES:
        parts = pt[f"{side}_cpu_ms"]
        print(f"    {side:8} " + " + ".join(f"{v:.2f}" for v in parts)
              + (f" = {sum(parts):.2f}" if len(parts) > 1 else ""))  # fmt: skip
    print("start-up, median ms from spawn: initialize / tools/list / first get_status")
    for side in ("direct", "gateway"):
        print(f"  {side:8} {st[side + '_initialize_ms']:6.0f} / {st[side + '_tools_list_ms']:6.0f}"
              f" / {st[side + '_first_call_ms']:6.0f}")  # fmt: skip
    print("start-up stages, median ms of a whole `python -c` run:")
    print(f"  interpreter alone {stages['interpreter']:.0f}; the server's imports (SDK) "
          f"{stages['server_imports']:.0f}; the gateway's imports {stages['gateway_imports']:.0f}; "
          f"folder_front (read + check the manifest) {stages['folder_front']:.1f}; the "
          f"server's environment (preferences + keyring, first use) "
          f"{stages['environment']:.0f}")  # fmt: skip
    for side, by in imports.items():
        print(f"  {side} imports by package (-X importtime self ms, median of 3, total "
              f"{sum(by.values()):.0f}): "
              + ", ".join(f"{pkg} {v:.0f}" for pkg, v in list(by.items())[:8]))  # fmt: skip
    for case, c in cards.items():
        print(f"card {case}: control (authored vs itself) {c['control']:.2f}x; generated "
              f"without its extra text (description, help) {c['plain']:.2f}x; body blocks "
              + ", ".join(f"{k} {v}" for k, v in c["blocks"].items())
              + f"; generating + validating the view (once, at load) "
              f"{c['generation_us']:.0f} µs")  # fmt: skip
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
