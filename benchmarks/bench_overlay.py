"""Overlay benchmarks: request → first painted frame of its card, and an idle notch's cost.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_overlay.py [--requests 200]
    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_overlay.py --requests 200 --base 11eee8b

1. Paint latency. The real composition (`NotchApp`: catalog of the bundled integrations,
   SQLite store, service, Unix-socket server, notch window, CardView) on a qasync loop.
   An executor process sends `confirm.request` with the real client; the clock starts just
   before the request is written to the socket and stops when the overlay reports
   `shown` (the card's first Paint event, reported on the next loop turn — so the figure
   includes that hop). The notch is idle before each request (the previous card declined
   and the eased shrink finished), so every request pays for building its card and the
   first frame of the expand animation. Requests rotate over five bundled acting tools.
2. Idle. With nothing pending, count every QTimer event delivered in the process and
   every asyncio loop iteration (callbacks run) over a few seconds; report resident memory.

With `--base REV` the same measurement runs on today's tree and on REV's (a git worktree)
in one run: each tree in its own process, rounds of `--round` requests interleaved (see
`side_by_side.py`). Target then: today's p50 and p99 ≤ the base's.

Targets alone (docs: benchmarks/README-overlay.md): p50 ≤ 16 ms, p99 ≤ 33 ms, idle
wakeups 0. Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

sys.path.insert(0, str(Path(__file__).resolve().parent))
from side_by_side import TREE, Pair, base_tree, commands, load, percentile, reply

sys.path.insert(0, str(TREE))

TOOLS = [
    ("io.elevenlabs", "elevenlabs", "generate_speech"),
    ("dev.notch.examples.mail", "mail", "send_email"),
    ("dev.notch.examples.calendar", "calendar", "book_meeting"),
    ("dev.notch.examples.payments", "payments", "pay_invoice"),
    ("dev.notch.examples.files", "files", "delete_files"),
]
STAGES = ("socket_to_present", "present_build_card", "to_first_paint")


EXECUTOR = """
import json, sys, time
from notch_app.client import NotchClient
client = NotchClient(sys.argv[1])
client.integrations()
print("ready", flush=True)
for line in sys.stdin:
    call_id, integration, tool, args = json.loads(line)
    t = time.perf_counter()
    client.submit(integration, tool, args, call_id=call_id)
    print(t, flush=True)
client.close()
"""


def rss_mib() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


class Rig:
    """A started `NotchApp` and an executor process, the clock around each request."""

    def __init__(self, app: Any, loop: Any) -> None:
        from notch_app.app import BUNDLED_MANIFESTS, NotchConfig
        from notch_app.ui.overlay_settings import OverlaySettings

        self.app = app
        self.loop = loop
        self.fixtures = {
            folder: json.loads((BUNDLED_MANIFESTS / folder / "preview.json").read_text())["tools"]
            for _, folder, _ in TOOLS
        }
        scratch = Path(tempfile.mkdtemp(prefix="notch-bench-"))
        # The person's default look and animation; a short done note keeps the run quick
        # (it is not part of the measured span: the notch is idle before each request).
        # The park time comes from the settings file unless overridden: parking stays off.
        self.config = NotchConfig(
            scratch / "s.sock",
            scratch / "data",
            settings=OverlaySettings(done_ms=10, park_after_s=0),
            tray=False,
            park_after_override_s=0,
        )
        self.sent = 0

    async def start(self) -> None:
        from notch_app.app import NotchApp
        from notch_app.ui.overlay_presenter import OverlayPresenter

        self.notch = notch = NotchApp(self.config)
        await notch.start()
        presenter = notch.presenter
        assert isinstance(presenter, OverlayPresenter) and notch.service is not None
        self.presenter = presenter
        self.shown_at: dict[str, float] = {}
        service = notch.service
        shown_at = self.shown_at

        class TimedSink:
            """The service as the presenter's sink, with `shown` stamped first."""

            def shown(self, call_id: str) -> None:
                shown_at[call_id] = time.perf_counter()
                service.shown(call_id)

            def __getattr__(self, name: str) -> Any:
                return getattr(service, name)

        presenter._sink = TimedSink()
        self.present_at: dict[str, tuple[float, float]] = {}
        real_present = presenter.present

        def timed_present(request: Any) -> None:
            t = time.perf_counter()
            real_present(request)
            self.present_at[request.call_id] = (t, time.perf_counter())

        presenter.present = timed_present  # type: ignore[method-assign]
        # The executor is another process, as in real use (and so it never competes with
        # the overlay for this interpreter's GIL). It reads one request per stdin line and
        # prints the perf_counter (CLOCK_MONOTONIC, shared by processes) it sent it at.
        self.executor = await asyncio.create_subprocess_exec(
            sys.executable, "-c", EXECUTOR, str(self.config.socket_path),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            cwd=TREE,  # `-c` puts the working folder first on the import path
        )  # fmt: skip
        assert self.executor.stdout is not None
        await self.executor.stdout.readline()  # "ready": connected

    async def _until(self, predicate: Any, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise TimeoutError("the overlay did not reach the expected state")
            await asyncio.sleep(0.002)

    async def requests(self, count: int) -> list[tuple[str, float, tuple[float, ...]]]:
        """`count` requests one after another: (tool, ms to `shown`, stages in ms)."""
        executor, presenter = self.executor, self.presenter
        assert executor.stdin is not None and executor.stdout is not None
        out: list[tuple[str, float, tuple[float, ...]]] = []
        for _ in range(count):
            i = self.sent
            self.sent += 1
            integration, folder, tool = TOOLS[i % len(TOOLS)]
            call_id = f"bench-{i}"
            line = json.dumps([call_id, integration, tool, self.fixtures[folder][tool]["args"]])
            executor.stdin.write(line.encode() + b"\n")
            await executor.stdin.drain()
            await self._until(lambda cid=call_id: cid in self.shown_at)
            sent = float((await executor.stdout.readline()).decode())
            shown = self.shown_at[call_id]
            p0, p1 = self.present_at[call_id]
            stages = ((p0 - sent) * 1000, (p1 - p0) * 1000, (shown - p1) * 1000)
            out.append((tool, (shown - sent) * 1000, stages))
            card = presenter.window.card
            assert card is not None
            # Decline: the same path back to idle as approving, without filling the PIN
            # some cards gate on.
            card.press("cancel")
            await self._until(
                lambda: presenter.window.look == "idle" and not presenter.window.is_animating()
            )
        return out

    async def idle(self, seconds: float) -> dict[str, Any]:
        """Nothing pending, the notch is the pill: what the process does for `seconds`."""
        from PySide6.QtCore import QEvent, QObject

        class Counter(QObject):
            def __init__(self) -> None:
                super().__init__()
                self.timers = self.socket_wakeups = self.events = 0

            def eventFilter(self, watched: QObject, event: QEvent) -> bool:
                self.events += 1
                if event.type() == QEvent.Type.Timer:
                    self.timers += 1
                elif event.type() == QEvent.Type.SockAct:
                    self.socket_wakeups += 1
                return False

        await asyncio.sleep(0.5)
        counter = Counter()
        self.app.installEventFilter(counter)
        start_rss = rss_mib()
        # Sleep with a plain thread-side wait so the measurement itself schedules nothing
        # on the loop: a future completed from another thread after N seconds.
        done = self.loop.create_future()
        counted: dict[str, int] = {}

        def end_idle() -> None:
            # Read the counts from this thread before waking the loop: the wakeup that
            # ends the measurement is not part of it.
            counted.update(
                timers=counter.timers, sockets=counter.socket_wakeups, events=counter.events
            )
            self.loop.call_soon_threadsafe(done.set_result, None)

        threading.Timer(seconds, end_idle).start()
        await done
        self.app.removeEventFilter(counter)
        presenter = self.presenter
        return {
            "seconds": seconds,
            "qt_timer_events": counted["timers"],
            "socket_wakeups": counted["sockets"],
            "qt_events_total": counted["events"],
            "rss_mib": round(rss_mib(), 1),
            "rss_mib_at_start_of_idle": round(start_rss, 1),
            "pending_cards": len(presenter.waiting) + len(presenter.parked_requests),
        }

    async def stop(self) -> None:
        assert self.executor.stdin is not None
        self.executor.stdin.close()
        await self.executor.wait()
        await self.notch.stop()


def run_on_loop(work: Any) -> Any:
    """Run `work(rig)` on a qasync loop around a started rig; returns its result."""
    import qasync  # type: ignore[import-untyped]
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    rig = Rig(app, loop)
    result: list[Any] = []

    async def main() -> None:
        await rig.start()
        try:
            result.append(await work(rig))
        finally:
            await rig.stop()

    with loop:
        loop.run_until_complete(main())
    return result[0]


def figures(samples: list[tuple[str, float, tuple[float, ...]]]) -> dict[str, Any]:
    all_ms = [ms for _, ms, _ in samples]
    by_tool: dict[str, list[float]] = {}
    for tool, ms, _ in samples:
        by_tool.setdefault(tool, []).append(ms)
    return {
        "requests": len(all_ms),
        "p50_ms": round(statistics.median(all_ms), 2),
        "p99_ms": round(percentile(all_ms, 99), 2),
        "max_ms": round(max(all_ms), 2),
        "per_tool_p50_ms": {k: round(statistics.median(v), 2) for k, v in by_tool.items()},
        "per_tool_p90_ms": {k: round(percentile(v, 90), 2) for k, v in by_tool.items()},
        "stages_p50_ms": {
            name: round(statistics.median(s[i] for _, _, s in samples), 2)
            for i, name in enumerate(STAGES)
        },
    }


def worker(opts: argparse.Namespace) -> int:
    """`--worker`: answer `requests` and `idle` commands for the tree on the import path."""

    async def work(rig: Rig) -> None:
        lines: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

        def read() -> None:
            for command in commands():
                rig.loop.call_soon_threadsafe(lines.put_nowait, command)
            rig.loop.call_soon_threadsafe(lines.put_nowait, None)

        threading.Thread(target=read, daemon=True).start()
        reply({"ready": True})
        while (command := await lines.get()) is not None:
            if command["do"] == "requests":
                reply({"samples": await rig.requests(command["n"])})
            else:
                reply({"idle": await rig.idle(command["seconds"])})

    run_on_loop(work)
    return 0


def side_by_side(opts: argparse.Namespace) -> int:
    rounds = max(1, opts.requests // opts.round)
    started = load()
    with Pair(__file__, base_tree(opts.base), ["--worker"]) as pair:
        pair.interleaved(1, {"do": "requests", "n": opts.warmup})
        got = pair.interleaved(rounds, {"do": "requests", "n": opts.round})
        idle = {w.label: w.ask({"do": "idle", "seconds": opts.idle_seconds}) for w in (pair.base, pair.now)}  # fmt: skip
    ended = load()
    result = {
        label: figures([tuple(s) for r in got[label] for s in r["samples"]])  # type: ignore[misc]
        for label in ("base", "now")
    }
    base, now = result["base"], result["now"]
    if opts.json:
        print(json.dumps({"load": [started, ended], "paint": result, "idle": idle}, indent=2))
    print(
        f"request → card painted, {now['requests']} requests each, {rounds} interleaved "
        f"rounds of {opts.round} (load {started} → {ended})"
    )
    print(f"  {'':<22}{'base ' + opts.base:>16}{'now':>12}{'now/base':>10}")
    for key in ("p50_ms", "p99_ms", "max_ms"):
        print(f"  {key:<22}{base[key]:>16.2f}{now[key]:>12.2f}{now[key] / base[key]:>9.2f}×")
    for stage in STAGES:
        b, n = base["stages_p50_ms"][stage], now["stages_p50_ms"][stage]
        print(f"  p50 {stage:<18}{b:>16.2f}{n:>12.2f}")
    for tool in base["per_tool_p50_ms"]:
        b, n = base["per_tool_p50_ms"][tool], now["per_tool_p50_ms"][tool]
        b90, n90 = base["per_tool_p90_ms"][tool], now["per_tool_p90_ms"][tool]
        print(f"  p50 {tool:<18}{b:>16.2f}{n:>12.2f}    p90 {b90:.2f} → {n90:.2f}")
    for label in ("base", "now"):
        i = idle[label]["idle"]
        print(
            f"  idle {label}: {i['qt_timer_events']} Qt timer events, {i['socket_wakeups']} "
            f"socket wakeups in {i['seconds']} s; resident {i['rss_mib']} MiB"
        )
    ok = now["p50_ms"] <= base["p50_ms"] and now["p99_ms"] <= base["p99_ms"]
    print("PASS (p50 and p99 ≤ the base's)" if ok else "MISSED: slower than the base")
    return 0 if ok else 1


def alone(opts: argparse.Namespace) -> int:
    async def work(rig: Rig) -> dict[str, Any]:
        await rig.requests(opts.warmup)
        paint = figures(await rig.requests(opts.requests))
        return {"paint": paint, "idle": await rig.idle(opts.idle_seconds)}

    results = run_on_loop(work)
    paint, idle = results["paint"], results["idle"]
    ok = paint["p50_ms"] <= 16 and paint["p99_ms"] <= 33 and idle["qt_timer_events"] == 0
    if opts.json:
        print(json.dumps(results, indent=2))
    else:
        print(
            f"paint latency over {paint['requests']} requests: p50 {paint['p50_ms']} ms "
            f"(target ≤ 16), p99 {paint['p99_ms']} ms (target ≤ 33), max {paint['max_ms']} ms"
        )
        print("  stages p50:", paint["stages_p50_ms"])
        for tool, ms in paint["per_tool_p50_ms"].items():
            print(f"  p50 {tool:<16} {ms} ms")
        print(
            f"idle {idle['seconds']} s: {idle['qt_timer_events']} Qt timer events (target 0), "
            f"{idle['socket_wakeups']} socket wakeups, {idle['qt_events_total']} Qt events "
            f"in all; resident memory {idle['rss_mib']} MiB"
        )
        print("PASS" if ok else "MISSED a target")
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=10, help="requests not counted (first cards)")
    parser.add_argument("--idle-seconds", type=float, default=5.0)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--base", help="also measure this git revision, interleaved")
    parser.add_argument("--round", type=int, default=20, help="requests per round (--base)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.worker:
        return worker(opts)
    if opts.base:
        return side_by_side(opts)
    return alone(opts)


if __name__ == "__main__":
    raise SystemExit(main())
