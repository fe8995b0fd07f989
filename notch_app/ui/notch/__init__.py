"""The notch window's parts (`notch_app.ui.notch_window` puts them together).

`glass` (how the notch is drawn and floats above windows), `shape` (where it is and how
it grows between looks), `header` (the row over a card or glance), `fitting` (a card's
final size at once, and whether it takes typing).
"""
