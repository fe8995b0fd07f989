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


def test_render_of_a_widget_card_exits_cleanly_and_says_the_page_is_not_drawn(
    tmp_path: Path,
) -> None:
    """As a fresh process, the way an author runs it: the web page goes before the web
    engine's profile (it crashed on the way out), and the empty page area is explained."""
    import os
    import subprocess
    import sys

    out = tmp_path / "widget.png"
    done = subprocess.run(
        [sys.executable, "-m", "notch_app", "render", str(FOLDERS / "chat-widget"),
         "--tool", "send_message", "--fixture", "-o", str(out)],
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert QImage(str(out)).height() > 120
    assert "is not drawn in a PNG" in done.stderr and "notch preview" in done.stderr
