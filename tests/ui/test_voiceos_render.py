"""`notch render` draws every card of a VoiceOS folder with its fixture: the folder's own
cards, and the ones Notch generates for tools that ask without declaring one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QImage

from notch_app.cli import main
from notch_app.runtime.catalog import Catalog

FOLDERS = Path(__file__).resolve().parents[1] / "fixtures" / "voiceos"
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"


def _cards() -> list[tuple[str, str, bool]]:
    out = []
    for folder in sorted(p for p in FOLDERS.iterdir() if p.is_dir()):
        catalog = Catalog.load([folder])[0]
        for integration_id in catalog.ids():
            entry = catalog.entry(integration_id)
            assert entry is not None
            sampled = entry.fixtures.tools if entry.fixtures is not None else {}
            for tool in entry.manifest.tools:
                if tool.confirmation is not None:
                    out.append((folder.name, tool.name, tool.name in sampled))
    return out


CARDS = _cards()


def test_the_folders_have_cards_of_their_own_and_generated_ones() -> None:
    tools = {tool for _, tool, _ in CARDS}
    assert {"run_task", "cancel_task", "purge_workspace"} <= tools  # own, and generated
    assert len(CARDS) >= 8


@pytest.mark.parametrize(("folder", "tool", "sampled"), CARDS)
def test_render_draws_the_card(
    qtbot: Any, capsys: Any, folder: str, tool: str, sampled: bool
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    out = ARTIFACTS / f"voiceos-{folder}-{tool}.png"
    how = ["--fixture"] if sampled else ["--args", "{}"]
    code = main(["render", str(FOLDERS / folder), "--tool", tool, *how, "-o", str(out)])
    said = capsys.readouterr().err
    if not sampled and code == 2 and "is required" in said:
        pytest.skip(f"{folder} has no sample for {tool} and it needs arguments")
    assert code == 0, said
    image = QImage(str(out))
    assert image.width() == 440 and image.height() > 120


def test_render_of_a_widget_card_draws_a_still_panel_without_the_web_engine(
    tmp_path: Path,
) -> None:
    """As a fresh process, the way an author runs it: the PNG holds a still panel naming
    the page (a picture cannot hold a live page), the web engine is never started for a
    picture, the process exits cleanly, and the author is told where the page runs."""
    import os
    import subprocess
    import sys

    out = tmp_path / "widget.png"
    program = (
        "import sys\n"
        "from notch_app.cli import main\n"
        "code = main(sys.argv[1:])\n"
        "print('engine started' if 'PySide6.QtWebEngineCore' in sys.modules else 'no engine')\n"
        "sys.exit(code)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program, "render", str(FOLDERS / "chat-widget"),
         "--tool", "send_message", "--fixture", "-o", str(out)],
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "no engine" in done.stdout
    assert QImage(str(out)).height() > 120
    assert "still panel" in done.stderr and "notch preview" in done.stderr


def test_a_card_drawn_without_live_pages_names_the_page_in_its_place(qtbot: Any) -> None:
    from PySide6.QtWidgets import QLabel

    from notch_app.ui.blocks.widget import STILL_TEXT, StillPage
    from notch_app.ui.card_view import CardView

    catalog = Catalog.load([FOLDERS / "chat-widget"])[0]
    entry = catalog.entry(catalog.ids()[0])
    assert entry is not None and entry.fixtures is not None
    tool = next(t for t in entry.manifest.tools if t.name == "send_message")
    view = CardView(tool, entry.fixtures.tools["send_message"].args, live_pages=False)
    qtbot.addWidget(view)
    view.show()
    still = view.findChild(StillPage)
    assert still is not None and still.isVisible() and still.height() >= 56
    texts = [label.text() for label in still.findChildren(QLabel)]
    assert texts[1] == STILL_TEXT and texts[0]  # the page's label, then where it runs
    assert view.findChild(QLabel, "WidgetNote") is None
