"""What an idle `notch run` would hold if only its shell were loaded at start (issue 19).

A measurement of a design, not of the product: the notch's idle pill, the side notch, the
tray, the decision store opened and the socket listening under the qasync loop, with
pydantic blocked (an import of it fails here) and nothing of the confirmation service, the
socket's methods or the manifest models imported. After `--idle` seconds it prints the
process's resident memory, then imports the rest of `notch run` and loads the bundled
integrations, as the first request would have to, and prints what that took.

    xvfb-run -a .venv/bin/python benchmarks/bench_idle_shell.py [--idle 12]

Compare the first line with the minimal window of `benchmarks/bench_idle_memory.sh` run on
the same machine; README-overlay.md ("Idle resident memory") has the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import sys
import tempfile
import time
import types
from pathlib import Path


def _rss_mib() -> float:
    status = Path("/proc/self/status").read_text()
    return int(status.split("VmRSS:")[1].split()[0]) / 1024


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def _measure(idle_s: float, folder: Path) -> None:
    from notch_app.runtime.store import DecisionStore
    from notch_app.ui.notch_window import NotchWindow
    from notch_app.ui.overlay_settings import OverlaySettings
    from notch_app.ui.side_notch import SideNotch
    from notch_app.ui.tray import NotchTray

    store = DecisionStore(folder / "data")
    settings = OverlaySettings()
    window, side = NotchWindow(settings), SideNotch(settings)
    window.show_idle()
    tray = None
    if NotchTray.available():
        tray = NotchTray(quit=lambda: None, open_settings=lambda _tray: None)
        tray.show()

    async def answer(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.close()

    server = await asyncio.start_unix_server(answer, str(folder / "notch.sock"))
    await asyncio.sleep(idle_s)
    loaded = sys.modules.get("pydantic") is not None
    print(f"idle shell: {_rss_mib():.1f} MiB resident, {_cpu_s():.2f} s CPU since start")
    print(f"  pydantic imported: {loaded}")
    # The first request would pay the rest: the service, the socket's methods, pydantic,
    # the manifest models, and the bundled integrations read and checked.
    del sys.modules["pydantic"], sys.modules["notch_app.manifest.model"]
    wall, cpu = time.perf_counter(), _cpu_s()
    import notch_app.app  # noqa: F401
    from notch_app.runtime.catalog import load_integrations

    imported = time.perf_counter()
    load_integrations([])
    done = time.perf_counter()
    print(
        f"first request would pay: imports {1000 * (imported - wall):.0f} ms, catalog "
        f"{1000 * (done - imported):.0f} ms ({1000 * (_cpu_s() - cpu):.0f} ms CPU); "
        f"then {_rss_mib():.1f} MiB resident"
    )
    server.close()
    store.close()
    window.close()
    side.close()
    if tray is not None:
        tray.hide()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--idle", type=float, default=12.0, help="seconds idle before")
    args = parser.parse_args()
    sys.modules["pydantic"] = None  # type: ignore[assignment]  (fails loudly if imported)
    # The notch's icon code names the manifest model for its types only.
    stand_in = types.ModuleType("notch_app.manifest.model")
    stand_in.Manifest = object  # type: ignore[attr-defined]
    sys.modules["notch_app.manifest.model"] = stand_in
    from notch_app.ui.pyside_imports import read_sources_unkept

    read_sources_unkept()  # as `notch run` does, before the Qt modules
    import qasync  # type: ignore[import-untyped]
    from PySide6.QtWidgets import QApplication

    app = QApplication(sys.argv[:1])
    app.setQuitOnLastWindowClosed(False)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with tempfile.TemporaryDirectory(prefix="notch-shell-") as folder, loop:
        Path(folder).chmod(0o700)
        loop.run_until_complete(_measure(args.idle, Path(folder)))


if __name__ == "__main__":
    main()
