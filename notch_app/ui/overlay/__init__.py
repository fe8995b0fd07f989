"""The overlay presenter's parts, one responsibility each (`notch_app.ui.overlay_presenter`
puts them together as `OverlayPresenter`).

`state` (what they share: entries, built cards, the queue), `arming` (confirm held until
the card has been in view), `voice_rounds` (answering by voice), `glances` (result
glances), `batches` (one agent turn's calls and one asker's many cards), `parking` (the
side notch).
"""
