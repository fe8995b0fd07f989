"""The overlay presenter's parts, one responsibility each (`notch_app.ui.overlay_presenter`
puts them together as `OverlayPresenter`).

`state` (what they share: entries, built cards, the queue), `arming` (confirm held until
the card has been in view), `decisions` (stored before the card goes; the done note),
`parking` (the side notch), `resting` (the resting pill's words, recent decisions),
`glances` (result glances), `batches` (one agent turn's calls and one asker's many
cards), `voice_rounds` (answering by voice).
"""
