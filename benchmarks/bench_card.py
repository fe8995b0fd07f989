"""Card benchmarks: a 20-input card built, shown and first painted, side by side with
qt-jsonschema-form and magicgui building the same 20 fields; and one keystroke.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_card.py [--runs 40]
    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_card.py --runs 80 --base 11eee8b

1. Build + show + first paint. The same 20 fields (12 text, 3 integer, 2 boolean,
   2 choice, 1 list of strings) three ways, interleaved in one process so every peer
   sees the same machine state: Notch's CardView (bindings, live text, gating, the glass
   theme and its footer included), qt-jsonschema-form's `WidgetBuilder.create_form` and a
   magicgui `Container` of `create_widget`s (both through qtpy on PySide6). Each run
   constructs the widget, shows it and runs the event loop until the window's first
   paint event has been delivered (the whole first frame: Qt paints a window's widgets
   in one pass), then closes and deletes it. Warm-up runs first (imports, font and glyph
   caches), garbage collection off while timing. Reported: the median per contender.
   Target: Notch's median at least 2× faster than the faster peer.
2. One keystroke in that card: a key typed into a bound text field (QTest.keyClick) →
   CardState.set → re-interpolate the live texts, re-gate confirm, sync editors →
   repaint. Reported: the Python work per keystroke (CardState.set plus CardView's
   reaction, timed around the edit handler) and the whole keystroke including Qt's paint.
   Target: Python work under 0.15 ms (issue 19; it was 1 ms).
With `--base REV` both run on today's tree and on REV's (a git worktree) in one run: each
tree in its own process (the peers measured in each, beside its card), rounds
interleaved (`side_by_side.py`); the targets are today's.
Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")

sys.path.insert(0, str(Path(__file__).resolve().parent))
from side_by_side import TREE, Pair, base_tree, commands, load, reply

sys.path.insert(0, str(TREE))

from PySide6.QtCore import QEvent, QObject
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

TEXT = [f"text_{i}" for i in range(12)]
INTS = [f"count_{i}" for i in range(3)]
BOOLS = [f"flag_{i}" for i in range(2)]
ENUMS = [f"choice_{i}" for i in range(2)]
LISTS = ["tags"]


def schema() -> dict[str, Any]:
    props: dict[str, Any] = {}
    for n in TEXT:
        props[n] = {"type": "string", "title": n.replace("_", " ").title()}
    for n in INTS:
        props[n] = {"type": "integer", "title": n.replace("_", " ").title()}
    for n in BOOLS:
        props[n] = {"type": "boolean", "title": n.replace("_", " ").title()}
    for n in ENUMS:
        props[n] = {"type": "string", "enum": ["a", "b", "c"], "title": n.title()}
    for n in LISTS:
        props[n] = {"type": "array", "items": {"type": "string"}, "title": "Tags"}
    return {"type": "object", "properties": props, "required": TEXT[:4]}


def arguments() -> dict[str, Any]:
    args: dict[str, Any] = {n: f"value of {n}" for n in TEXT}
    args.update({n: i for i, n in enumerate(INTS)})
    args.update({n: False for n in BOOLS})
    args.update({n: "a" for n in ENUMS})
    args["tags"] = ["one", "two"]
    return args


def notch_tool() -> Any:
    from notch_app.manifest.model import Tool

    inputs: list[dict[str, Any]] = []
    for n in TEXT:
        inputs.append(
            {
                "type": "textField",
                "bind": f"{{{{{n}}}}}",
                "label": n.title(),
                "required": n in TEXT[:4],
            }
        )
    for n in INTS:
        inputs.append({"type": "textField", "bind": f"{{{{{n}}}}}", "label": n.title()})
    for n in BOOLS:
        inputs.append({"type": "toggle", "bind": f"{{{{{n}}}}}", "label": n.title()})
    for n in ENUMS:
        inputs.append(
            {
                "type": "select",
                "bind": f"{{{{{n}}}}}",
                "label": n.title(),
                "options": [{"label": x.upper(), "value": x} for x in "abc"],
            }
        )
    inputs.append({"type": "chips", "bind": "{{tags}}", "label": "Tags"})
    root = {
        "type": "card",
        "title": "Send {{text_0}}",
        "subtitle": "to {{text_1}}",
        "children": [
            {"type": "text", "text": "About to send {{text_0}} ({{count_0}} copies)"},
            *inputs,
        ],
        "footer": [
            {
                "type": "actions",
                "items": [
                    {"label": "Cancel", "role": "cancel"},
                    {"label": "Send {{count_0}} copies", "role": "confirm"},
                ],
            }
        ],
    }
    return Tool.model_validate(
        {
            "name": "send_thing",
            "inputSchema": schema(),
            "confirmation": {"schemaVersion": 1, "root": root},
        }
    )


def build_notch(tool: Any) -> QWidget:
    from notch_app.ui.card_view import CardView

    try:
        from notch_app.ui.widgets.asker_strip import BUNDLED, Asker
    except ImportError:  # a tree from before the strip (`--base`)
        return CardView(tool, arguments())
    # As the notch builds it: with Notch's "who is asking" strip.
    return CardView(tool, arguments(), asker=Asker("Bench", BUNDLED))


def build_jsonschema_form() -> QWidget:
    from qt_jsonschema_form import WidgetBuilder

    form = WidgetBuilder().create_form(schema(), {})
    form.widget.state = arguments()
    return form  # type: ignore[no-any-return]


def build_magicgui() -> QWidget:
    from magicgui.widgets import Container, create_widget

    args = arguments()
    widgets = []
    for name, prop in schema()["properties"].items():
        if "enum" in prop:
            w = create_widget(value=args[name], name=name, label=prop["title"],
                              options={"choices": prop["enum"]})  # fmt: skip
        elif prop["type"] == "array":
            w = create_widget(value=", ".join(args[name]), name=name, label=prop["title"])
        else:
            w = create_widget(value=args[name], name=name, label=prop["title"])
        widgets.append(w)
    return Container(widgets=widgets).native  # type: ignore[no-any-return]


class FirstPaint(QObject):
    """Notices the first paint event of the window it watches."""

    def __init__(self) -> None:
        super().__init__()
        self.painted = False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.painted = True
        return False


CPU: dict[str, list[float]] = {}
"""Process CPU seconds per run, by contender (beside the wall-clock seconds): on a
machine shared with other jobs, wall time also counts the waits for a core."""


def time_build(build: Callable[[], QWidget], name: str = "") -> float:
    """Seconds from nothing to the first frame on screen: build, show, paint. The same
    measurement for every contender. Raises RuntimeError if the window never paints."""
    app = QApplication.instance()
    assert app is not None
    first = FirstPaint()
    cpu = time.process_time()
    started = time.perf_counter()
    w = build()
    w.installEventFilter(first)
    w.show()
    turns = 0
    while not first.painted and turns < 1000:
        app.processEvents()  # returns once the whole window is painted and flushed
        turns += 1
    elapsed = time.perf_counter() - started
    if name:
        CPU.setdefault(name, []).append(time.process_time() - cpu)
    w.removeEventFilter(first)
    w.close()
    w.deleteLater()
    app.processEvents()
    if not first.painted:
        raise RuntimeError(f"{type(w).__name__} was shown but never painted")
    return elapsed


def keystrokes(tool: Any, count: int) -> tuple[list[float], list[float]]:
    from notch_app.ui.card_view import CardView

    view = CardView(tool, arguments())
    view.show()
    QApplication.processEvents()  # exposed and painted once, so repaint() really paints
    field = view.input_widget("text_0")
    field.setFocus()
    state = view.state()
    python: list[float] = []
    original_set = state.set

    def timed_set(path: str, raw: Any) -> None:
        started = time.perf_counter()
        original_set(path, raw)  # CardState.set and, through subscribe, CardView's reaction
        python.append(time.perf_counter() - started)

    state.set = timed_set  # type: ignore[method-assign]
    whole: list[float] = []
    for i in range(count):
        started = time.perf_counter()
        QTest.keyClick(field, "abcdefghij"[i % 10])
        view.repaint()
        whole.append(time.perf_counter() - started)
    assert "abcdefghij"[(count - 1) % 10] in state.text("{{text_0}}")
    assert len(python) == count
    view.close()
    return python, whole


CONTENDERS = ("notch CardView", "qt-jsonschema-form", "magicgui")
TARGET_RATIO = 2.0
TARGET_KEY_MS = 0.15


def contenders(tool: Any) -> dict[str, Callable[[], QWidget]]:
    builds: dict[str, Callable[[], QWidget]] = {
        "notch CardView": lambda: build_notch(tool),
        "qt-jsonschema-form": build_jsonschema_form,
        "magicgui": build_magicgui,
    }
    for build in builds.values():  # warm imports and caches, untimed
        for _ in range(5):
            time_build(build)
    return builds


def builds(builders: dict[str, Callable[[], QWidget]], runs: int) -> dict[str, list[float]]:
    """`runs` interleaved builds of each contender: wall seconds (CPU seconds in CPU)."""
    samples: dict[str, list[float]] = {name: [] for name in builders}
    gc.disable()
    try:
        for _ in range(runs):
            for name, build in builders.items():
                samples[name].append(time_build(build, name))
    finally:
        gc.enable()
    return samples


def build_figures(wall: dict[str, list[float]], cpu: dict[str, list[float]]) -> dict[str, Any]:
    medians = {name: statistics.median(v) * 1000 for name, v in wall.items()}
    cpu_ms = {name: statistics.median(v) * 1000 for name, v in cpu.items()}
    peer = min(medians["qt-jsonschema-form"], medians["magicgui"])
    cpu_peer = min(cpu_ms["qt-jsonschema-form"], cpu_ms["magicgui"])
    return {
        "wall_ms": medians,
        "cpu_ms": cpu_ms,
        "ratio": peer / medians["notch CardView"],
        "cpu_ratio": cpu_peer / cpu_ms["notch CardView"],
    }


def worker() -> int:
    """`--worker`: answer `builds` and `keys` commands for the tree on the import path."""
    from notch_app.ui.headless import headless_app

    headless_app()
    tool = notch_tool()
    builders = contenders(tool)
    reply({"ready": True})
    for command in commands():
        if command["do"] == "builds":
            CPU.clear()
            wall = builds(builders, command["runs"])
            reply({"wall": wall, "cpu": dict(CPU)})
        else:
            python, whole = keystrokes(tool, command["n"])
            reply({"python": python, "whole": whole})
    return 0


def side_by_side(opts: argparse.Namespace) -> int:
    rounds = max(1, min(opts.runs, 10))
    per_round, keys = max(1, opts.runs // rounds), max(1, opts.keys // rounds)
    started = load()
    with Pair(__file__, base_tree(opts.base), ["--worker"]) as pair:
        built = pair.interleaved(rounds, {"do": "builds", "runs": per_round})
        typed = pair.interleaved(rounds, {"do": "keys", "n": keys})
    ended = load()
    print(
        f"20-input card, build + show + first paint: {rounds} interleaved rounds of "
        f"{per_round} runs per contender per tree (load {started} → {ended})"
    )
    print(f"  {'(median ms)':<22}{'base ' + opts.base:>16}{'now':>12}")
    figures: dict[str, dict[str, Any]] = {}
    for label in ("base", "now"):
        wall = {n: [x for r in built[label] for x in r["wall"][n]] for n in CONTENDERS}
        cpu = {n: [x for r in built[label] for x in r["cpu"][n]] for n in CONTENDERS}
        figures[label] = build_figures(wall, cpu)
        python = [x for r in typed[label] for x in r["python"]]
        whole = [x for r in typed[label] for x in r["whole"]]
        figures[label]["key_ms"] = statistics.median(python) * 1000
        figures[label]["key_p95_ms"] = sorted(python)[int(len(python) * 0.95)] * 1000
        figures[label]["whole_key_ms"] = statistics.median(whole) * 1000
    base, now = figures["base"], figures["now"]
    for name in CONTENDERS:
        print(f"  {name:<22}{base['wall_ms'][name]:>16.2f}{now['wall_ms'][name]:>12.2f}")
    print(
        f"  {'faster peer / notch':<22}{base['ratio']:>15.2f}×{now['ratio']:>11.2f}×  (target ≥ 2×)"
    )
    print(f"  {'the same by CPU time':<22}{base['cpu_ratio']:>15.2f}×{now['cpu_ratio']:>11.2f}×")
    print(f"one keystroke, median of {keys * rounds} per tree (ms):")
    print(f"  {'Python work':<22}{base['key_ms']:>16.3f}{now['key_ms']:>12.3f}  (target < 0.15)")
    print(f"  {'Python work p95':<22}{base['key_p95_ms']:>16.3f}{now['key_p95_ms']:>12.3f}")
    print(f"  {'whole keystroke':<22}{base['whole_key_ms']:>16.3f}{now['whole_key_ms']:>12.3f}")
    ok = now["ratio"] >= TARGET_RATIO and now["key_ms"] < TARGET_KEY_MS
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--keys", type=int, default=400)
    parser.add_argument("--base", help="also measure this git revision, interleaved")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.worker:
        return worker()
    if opts.base:
        return side_by_side(opts)

    from notch_app.ui.headless import headless_app

    headless_app()
    tool = notch_tool()
    builders = contenders(tool)
    wall = builds(builders, opts.runs)
    figures = build_figures(wall, CPU)
    medians = figures["wall_ms"]
    print(f"20-input card, build + show + first paint, median of {opts.runs} (ms):")
    for name, ms in medians.items():
        spread = sorted(wall[name])
        q1, q3 = spread[len(spread) // 4] * 1000, spread[(3 * len(spread)) // 4] * 1000
        print(f"  {name:<20} {ms:8.2f}   (quartiles {q1:.2f}–{q3:.2f})")
    ratio = figures["ratio"]
    print(f"  ratio (faster peer / notch): {ratio:.2f}×  (target ≥ 2×)")
    print(
        "  process CPU time, same runs (ms): "
        + ", ".join(f"{n} {ms:.2f}" for n, ms in figures["cpu_ms"].items())
    )
    print(f"  ratio by CPU time: {figures['cpu_ratio']:.2f}×")

    python, whole = keystrokes(tool, opts.keys)
    py_ms = statistics.median(python) * 1000
    py_p95 = sorted(python)[int(len(python) * 0.95)] * 1000
    whole_ms = statistics.median(whole) * 1000
    print(f"one keystroke in that card, median of {opts.keys}:")
    print(f"  Python work (CardState.set + re-interpolate + re-gate + sync): {py_ms:.3f} ms"
          f" (p95 {py_p95:.3f} ms; target < {TARGET_KEY_MS} ms)")  # fmt: skip
    print(f"  whole keystroke incl. Qt key event and repaint:               {whole_ms:.3f} ms")
    ok = ratio >= TARGET_RATIO and py_ms < TARGET_KEY_MS
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
