"""What every glance icon is drawn with: a 24-unit grid, one line width, and a drawing
made of a stroked outline and small filled parts."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF
from PySide6.QtGui import QPainterPath

GRID = 24.0
"""Every drawing is made on a 24×24 grid and scaled to the size it is shown at."""

STROKE = 1.8
"""Line width in grid units (about 1.3 px at an 18 px icon)."""


@dataclass(frozen=True, slots=True)
class IconDrawing:
    """One icon: the outline to stroke and the small solid parts to fill."""

    stroke: QPainterPath
    fill: QPainterPath | None = None


def new_path() -> QPainterPath:
    return QPainterPath()


def dot(path: QPainterPath, x: float, y: float, r: float) -> None:
    path.addEllipse(QPointF(x, y), r, r)


def line(path: QPainterPath, *points: tuple[float, float]) -> None:
    path.moveTo(*points[0])
    for p in points[1:]:
        path.lineTo(*p)
