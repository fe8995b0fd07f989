"""The author's studio, `notch preview FOLDER`: the notch's own card for each tool of an
integration folder, live as the author edits the folder's files, with `notch validate`'s
problems, what the card would return, "Save as scenario" and "Try in the notch".

One small module per job: `window` (the composition), `tool_list`, `arguments_editor`,
`card_stage` (the card, dimmed when stale, and its glance), `live_result`,
`problems_list`, `folder_watcher`, `scenario_writer`, `notch_trial`, `editor_launch`;
`folder` reads the folder without Qt.
"""

from __future__ import annotations

from notch_app.ui.studio.window import StudioWindow

__all__ = ["StudioWindow"]
