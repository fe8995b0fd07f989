"""The glance icons: the 34 names of the VoiceOS glance set, each a line drawing of our
own on a 24-unit grid (QPainterPath), stroked in the colour it is given.

Drawn in code, not from files: a glance shows an icon per list row, and a path scaled
to the row's size is sharp at any pixel ratio with nothing to install or decode. Each
drawing is a stroke (the outline) and an optional fill (small solid parts: dots, a
battery's charge; `pen.py`); `ICON_DRAWINGS` maps a name to its drawing, so a new icon is
one function and one entry (`drawings.py`); `painting.py` puts them on screen.
"""

from notch_app.ui.glance.icons.drawings import ICON_DRAWINGS, icon_drawing
from notch_app.ui.glance.icons.painting import GlanceIcon, glance_icon_pixmap, paint_glance_icon
from notch_app.ui.glance.icons.pen import GRID, STROKE, IconDrawing

__all__ = [
    "GRID",
    "ICON_DRAWINGS",
    "STROKE",
    "GlanceIcon",
    "IconDrawing",
    "glance_icon_pixmap",
    "icon_drawing",
    "paint_glance_icon",
]
