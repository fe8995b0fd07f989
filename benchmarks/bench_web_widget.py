"""HTML widget benchmarks (issue 11 §2): time to first paint, cold and warm, and memory.

    xvfb-run -a .venv/bin/python benchmarks/bench_web_widget.py [--warm 10]

Each figure comes from a fresh child process under the X server already set (DISPLAY),
as `notch run` shows widgets: a QApplication with AA_ShareOpenGLContexts, Notch's overlay
modules imported, one window shown.

1. First paint. The clock starts just before `make_html_widget` and stops when the page
   reports its first animation frame after `voiceos:init` (its `requestAnimationFrame`
   posts `voiceos:resize`, which Notch receives as `heightChanged`): the engine started
   (cold, the first widget) or reused (warm, every later one), the page served, parsed,
   given its init and painted once.
2. Memory. Resident memory of the Notch process (VmRSS) with the web engine never used,
   then after one widget was shown and closed; the engine's own processes (zygote,
   renderers, GPU) are counted apart.

Target (issue 11): warm ≤ 100 ms to first paint. Exit status 1 when it is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

PAGE = """<!doctype html><html><body style="font: 13px sans-serif">
<h3>Ride home</h3><p id="d">waiting</p><script>
window.addEventListener("message", function (e) {
  if (!e.data || e.data.type !== "voiceos:init") return;
  document.getElementById("d").textContent = JSON.stringify(e.data.data);
  requestAnimationFrame(function () {
    parent.postMessage({type: "voiceos:resize", height: 90 + (e.data.data.n % 7)}, "*");
  });
});
</script></body></html>"""

CHILD = r"""
import json, os, sys, time
from pathlib import Path
from PySide6.QtCore import QEventLoop, Qt, QTimer
from PySide6.QtWidgets import QApplication, QVBoxLayout, QWidget
QApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)
app = QApplication(["notch"])
import notch_app.app, notch_app.ui.notch_window  # what notch run has loaded
from notch_app.ui.web import make_html_widget
PAGE, WARM = sys.argv[1], int(sys.argv[2])

def rss_kib(pid=os.getpid()):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0

def engine_kib():
    kids, total = {}, 0
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                kids.setdefault(int((p / "stat").read_text().rsplit(")", 1)[1].split()[1]), []).append(int(p.name))
            except (OSError, ValueError, IndexError):
                pass
    todo = list(kids.get(os.getpid(), []))
    while todo:
        pid = todo.pop()
        todo.extend(kids.get(pid, []))
        try:
            total += rss_kib(pid)
        except OSError:
            pass
    return total

def settle(ms):
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()

window = QWidget(); column = QVBoxLayout(window); window.resize(420, 300); window.show()
settle(1500)
idle = rss_kib()

def first_paint(n):
    loop = QEventLoop()
    start = time.perf_counter()
    widget = make_html_widget(PAGE, data={"n": n}, theme="dark", height=60, label="bench")
    widget.heightChanged.connect(lambda h: loop.quit())
    QTimer.singleShot(30000, loop.quit)
    column.addWidget(widget)
    loop.exec()
    took = (time.perf_counter() - start) * 1000
    widget.close(); widget.deleteLater()
    return took

cold = first_paint(0)
warm = [first_paint(n) for n in range(1, WARM + 1)]
settle(1500)
after = rss_kib()
print(json.dumps({"idle_kib": idle, "after_kib": after, "engine_kib": engine_kib(),
                  "cold_ms": cold, "warm_ms": warm}))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--warm", type=int, default=10, help="warm widgets after the first")
    args = parser.parse_args()
    if not os.environ.get("DISPLAY"):
        print("run under an X server: xvfb-run -a .venv/bin/python " + sys.argv[0])
        return 2
    env = {**os.environ, "QT_QPA_PLATFORM": "xcb", "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, PAGE, str(args.warm)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    line = next((x for x in done.stdout.splitlines() if x.startswith("{")), None)
    if line is None:
        print(done.stdout, done.stderr[-3000:], file=sys.stderr)
        return 2
    result = json.loads(line)
    warm = sorted(result["warm_ms"])
    warm_p50 = statistics.median(warm)
    print(f"first widget (cold engine) to first paint: {result['cold_ms']:.0f} ms")
    print(
        f"later widgets (warm), n={len(warm)}: p50 {warm_p50:.0f} ms, "
        f"min {warm[0]:.0f} ms, max {warm[-1]:.0f} ms"
    )
    idle, after = result["idle_kib"] / 1024, result["after_kib"] / 1024
    print(f"Notch process RSS, web engine never used: {idle:.1f} MiB")
    print(
        f"Notch process RSS after widgets were shown and closed: {after:.1f} MiB (+{after - idle:.1f})"
    )
    print(
        f"the engine's own processes (zygotes, renderers, GPU): {result['engine_kib'] / 1024:.1f} MiB"
    )
    met = warm_p50 <= 100
    print(f"target warm p50 <= 100 ms: {'met' if met else 'MISSED'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
