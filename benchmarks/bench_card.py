"""Card benchmarks: a 20-input card built, shown and first painted, side by side with
qt-jsonschema-form and magicgui building the same 20 fields; and one keystroke.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_card.py [--runs 40]

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
   Target: Python work under 1 ms.
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

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from PySide6.QtCore import QEvent, QObject  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication, QWidget  # noqa: E402

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
    from notch_app.ui.widgets.asker_strip import BUNDLED, Asker

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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--keys", type=int, default=400)
    opts = parser.parse_args()

    from notch_app.ui.headless import headless_app

    headless_app()
    tool = notch_tool()
    contenders: dict[str, Callable[[], QWidget]] = {
        "notch CardView": lambda: build_notch(tool),
        "qt-jsonschema-form": build_jsonschema_form,
        "magicgui": build_magicgui,
    }
    for build in contenders.values():  # warm imports and caches, untimed
        for _ in range(5):
            time_build(build)
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    gc.disable()
    try:
        for _ in range(opts.runs):
            for name, build in contenders.items():
                samples[name].append(time_build(build, name))
    finally:
        gc.enable()
    medians = {name: statistics.median(v) * 1000 for name, v in samples.items()}
    print(f"20-input card, build + show + first paint, median of {opts.runs} (ms):")
    for name, ms in medians.items():
        spread = sorted(samples[name])
        q1, q3 = spread[len(spread) // 4] * 1000, spread[(3 * len(spread)) // 4] * 1000
        print(f"  {name:<20} {ms:8.2f}   (quartiles {q1:.2f}–{q3:.2f})")
    faster_peer = min(medians["qt-jsonschema-form"], medians["magicgui"])
    ratio = faster_peer / medians["notch CardView"]
    print(f"  ratio (faster peer / notch): {ratio:.2f}×  (target ≥ 2×)")
    cpu = {name: statistics.median(v) * 1000 for name, v in CPU.items()}
    cpu_ratio = min(cpu["qt-jsonschema-form"], cpu["magicgui"]) / cpu["notch CardView"]
    print(
        "  process CPU time, same runs (ms): " + ", ".join(f"{n} {ms:.2f}" for n, ms in cpu.items())
    )
    print(f"  ratio by CPU time: {cpu_ratio:.2f}×")

    python, whole = keystrokes(tool, opts.keys)
    py_ms = statistics.median(python) * 1000
    py_p95 = sorted(python)[int(len(python) * 0.95)] * 1000
    whole_ms = statistics.median(whole) * 1000
    print(f"one keystroke in that card, median of {opts.keys}:")
    print(f"  Python work (CardState.set + re-interpolate + re-gate + sync): {py_ms:.3f} ms"
          f" (p95 {py_p95:.3f} ms; target < 1 ms)")  # fmt: skip
    print(f"  whole keystroke incl. Qt key event and repaint:               {whole_ms:.3f} ms")
    ok = ratio >= 2.0 and py_ms < 1.0
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
