"""The 34 drawings of the VoiceOS glance set, our own, each a function returning its
`IconDrawing`; `ICON_DRAWINGS` names them. A new icon is one function and one entry."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QPainterPath, QPolygonF, QTransform

from notch_app.ui.glance.icons.pen import IconDrawing, dot, line, new_path


def _calendar() -> IconDrawing:
    s = new_path()
    s.addRoundedRect(QRectF(3, 5, 18, 16), 2.5, 2.5)
    line(s, (3, 10), (21, 10))
    line(s, (8, 2.8), (8, 7))
    line(s, (16, 2.8), (16, 7))
    f = new_path()
    for x in (8, 12, 16):
        dot(f, x, 14, 1.1)
    for x in (8, 12):
        dot(f, x, 17.5, 1.1)
    return IconDrawing(s, f)


def _clock() -> IconDrawing:
    s = new_path()
    s.addEllipse(QPointF(12, 12), 9, 9)
    line(s, (12, 7), (12, 12), (15.5, 14))
    return IconDrawing(s)


def _timer() -> IconDrawing:
    s = new_path()
    s.addEllipse(QPointF(12, 13.5), 7.5, 7.5)
    line(s, (9.5, 2.5), (14.5, 2.5))
    line(s, (12, 2.5), (12, 6))
    line(s, (12, 13.5), (12, 9.5))
    line(s, (18, 7.5), (19.6, 5.9))
    return IconDrawing(s)


def _bed() -> IconDrawing:
    s = new_path()
    line(s, (3, 5), (3, 19.5))
    line(s, (3, 16), (21, 16), (21, 19.5))
    s.moveTo(3, 12)
    s.lineTo(17.5, 12)
    s.quadTo(21, 12, 21, 15.5)
    s.lineTo(21, 16)
    s.addRoundedRect(QRectF(5.5, 8, 5, 4), 1.5, 1.5)
    return IconDrawing(s)


def _car() -> IconDrawing:
    s = new_path()
    s.moveTo(5, 17)
    s.lineTo(4, 17)
    s.quadTo(2.5, 17, 2.5, 15.5)
    s.lineTo(2.5, 13)
    s.quadTo(2.5, 11, 4.5, 11)
    s.lineTo(19.5, 11)
    s.quadTo(21.5, 11, 21.5, 13)
    s.lineTo(21.5, 15.5)
    s.quadTo(21.5, 17, 20, 17)
    s.lineTo(19, 17)
    line(s, (9, 17), (15, 17))
    s.moveTo(5, 11)
    s.lineTo(6.8, 7.2)
    s.quadTo(7.3, 6, 8.6, 6)
    s.lineTo(15.4, 6)
    s.quadTo(16.7, 6, 17.2, 7.2)
    s.lineTo(19, 11)
    s.addEllipse(QPointF(7, 17), 2, 2)
    s.addEllipse(QPointF(17, 17), 2, 2)
    return IconDrawing(s)


def _mail() -> IconDrawing:
    s = new_path()
    s.addRoundedRect(QRectF(3, 5.5, 18, 13), 2.5, 2.5)
    line(s, (3.8, 7.2), (12, 13), (20.2, 7.2))
    return IconDrawing(s)


def _message() -> IconDrawing:
    s = new_path()
    s.moveTo(6, 4)
    s.lineTo(18, 4)
    s.arcTo(QRectF(15, 4, 6, 6), 90, -90)
    s.lineTo(21, 14)
    s.arcTo(QRectF(15, 11, 6, 6), 0, -90)
    s.lineTo(12.5, 17)
    s.lineTo(8, 21)
    s.lineTo(8, 17)
    s.lineTo(6, 17)
    s.arcTo(QRectF(3, 11, 6, 6), 270, -90)
    s.lineTo(3, 7)
    s.arcTo(QRectF(3, 4, 6, 6), 180, -90)
    s.closeSubpath()
    f = new_path()
    for x in (8, 12, 16):
        dot(f, x, 10.5, 1.1)
    return IconDrawing(s, f)


def _music() -> IconDrawing:
    s = new_path()
    line(s, (9, 17.5), (9, 5.5), (20, 3.5), (20, 15.5))
    line(s, (9, 9), (20, 7))
    s.addEllipse(QPointF(6.5, 17.5), 2.5, 2.5)
    s.addEllipse(QPointF(17.5, 15.5), 2.5, 2.5)
    return IconDrawing(s)


def _sun() -> IconDrawing:
    s = new_path()
    s.addEllipse(QPointF(12, 12), 4, 4)
    for i in range(8):
        a = math.radians(i * 45)
        c, n = math.cos(a), math.sin(a)
        line(s, (12 + 7 * c, 12 + 7 * n), (12 + 9.5 * c, 12 + 9.5 * n))
    return IconDrawing(s)


def _moon() -> IconDrawing:
    outer = new_path()
    outer.addEllipse(QPointF(11.5, 12.5), 8.5, 8.5)
    bite = new_path()
    bite.addEllipse(QPointF(17, 7.5), 7, 7)
    return IconDrawing(outer.subtracted(bite))


def _cloud_shape(dy: float) -> QPainterPath:
    # One outline round three puffs on a flat base: each part is united in turn (in one
    # path the overlaps would cancel out under the odd-even rule).
    shape = new_path()
    shape.addRect(QRectF(7.5, 12 + dy, 9.5, 6))
    for x, y, r in ((7.5, 14.0, 4.0), (12.5, 10.5, 5.5), (17.0, 13.5, 4.5)):
        puff = new_path()
        puff.addEllipse(QPointF(x, y + dy), r, r)
        shape = shape.united(puff)
    return shape.simplified()


def _cloud() -> IconDrawing:
    return IconDrawing(_cloud_shape(0.5))


def _rain() -> IconDrawing:
    s = _cloud_shape(-3.5)
    for x in (8.5, 12.5, 16.5):
        line(s, (x, 17.5), (x - 1.2, 21))
    return IconDrawing(s)


def _star() -> IconDrawing:
    points = []
    for i in range(10):
        r = 9.5 if i % 2 == 0 else 4.2
        a = math.radians(-90 + i * 36)
        points.append(QPointF(12 + r * math.cos(a), 12.8 + r * math.sin(a)))
    s = new_path()
    s.addPolygon(QPolygonF(points))
    s.closeSubpath()
    return IconDrawing(s)


def _folder() -> IconDrawing:
    s = new_path()
    s.moveTo(3, 6.5)
    s.quadTo(3, 5, 4.5, 5)
    s.lineTo(9, 5)
    s.lineTo(11, 7.5)
    s.lineTo(19.5, 7.5)
    s.quadTo(21, 7.5, 21, 9)
    s.lineTo(21, 17.5)
    s.quadTo(21, 19, 19.5, 19)
    s.lineTo(4.5, 19)
    s.quadTo(3, 19, 3, 17.5)
    s.closeSubpath()
    line(s, (3, 10.5), (21, 10.5))
    return IconDrawing(s)


def _file() -> IconDrawing:
    s = new_path()
    s.moveTo(14, 3)
    s.lineTo(7, 3)
    s.quadTo(5.5, 3, 5.5, 4.5)
    s.lineTo(5.5, 19.5)
    s.quadTo(5.5, 21, 7, 21)
    s.lineTo(17, 21)
    s.quadTo(18.5, 21, 18.5, 19.5)
    s.lineTo(18.5, 7.5)
    s.closeSubpath()
    line(s, (14, 3), (14, 7.5), (18.5, 7.5))
    line(s, (9, 12.5), (15, 12.5))
    line(s, (9, 16), (13, 16))
    return IconDrawing(s)


def _globe() -> IconDrawing:
    s = new_path()
    s.addEllipse(QPointF(12, 12), 9, 9)
    s.addEllipse(QPointF(12, 12), 4, 9)
    line(s, (3, 12), (21, 12))
    line(s, (4.6, 7.5), (19.4, 7.5))
    line(s, (4.6, 16.5), (19.4, 16.5))
    return IconDrawing(s)


def _pin() -> IconDrawing:
    s = new_path()
    s.moveTo(12, 21.5)
    s.cubicTo(12, 21.5, 5.5, 15.5, 5.5, 10)
    s.arcTo(QRectF(5.5, 3.5, 13, 13), 180, -180)
    s.cubicTo(18.5, 15.5, 12, 21.5, 12, 21.5)
    s.closeSubpath()
    s.addEllipse(QPointF(12, 10), 2.5, 2.5)
    return IconDrawing(s)


def _phone() -> IconDrawing:
    s = new_path()
    s.addRoundedRect(QRectF(6.5, 2.5, 11, 19), 2.5, 2.5)
    line(s, (10.5, 5.5), (13.5, 5.5))
    f = new_path()
    dot(f, 12, 18, 1.1)
    return IconDrawing(s, f)


def _person() -> IconDrawing:
    s = new_path()
    s.addEllipse(QPointF(12, 8), 4, 4)
    s.moveTo(4.5, 21)
    s.cubicTo(4.5, 16.5, 8, 14, 12, 14)
    s.cubicTo(16, 14, 19.5, 16.5, 19.5, 21)
    return IconDrawing(s)


def _heart() -> IconDrawing:
    s = new_path()
    s.moveTo(12, 20.5)
    s.cubicTo(12, 20.5, 3, 15, 3, 9)
    s.cubicTo(3, 6, 5.3, 4, 7.7, 4)
    s.cubicTo(9.6, 4, 11.2, 5.2, 12, 7)
    s.cubicTo(12.8, 5.2, 14.4, 4, 16.3, 4)
    s.cubicTo(18.7, 4, 21, 6, 21, 9)
    s.cubicTo(21, 15, 12, 20.5, 12, 20.5)
    s.closeSubpath()
    return IconDrawing(s)


def _bolt() -> IconDrawing:
    s = new_path()
    s.addPolygon(
        QPolygonF(
            [
                QPointF(13.5, 2.5),
                QPointF(5, 13.5),
                QPointF(11.5, 13.5),
                QPointF(10.5, 21.5),
                QPointF(19, 10.5),
                QPointF(12.5, 10.5),
            ]
        )
    )
    s.closeSubpath()
    return IconDrawing(s)


def _check() -> IconDrawing:
    s = new_path()
    line(s, (4.5, 12.5), (9.5, 17.5), (19.5, 6.5))
    return IconDrawing(s)


def _x() -> IconDrawing:
    s = new_path()
    line(s, (6, 6), (18, 18))
    line(s, (18, 6), (6, 18))
    return IconDrawing(s)


def _mic() -> IconDrawing:
    s = new_path()
    s.addRoundedRect(QRectF(9, 2.5, 6, 11.5), 3, 3)
    s.moveTo(5.5, 11)
    s.arcTo(QRectF(5.5, 4.5, 13, 13), 180, 180)
    line(s, (12, 17.5), (12, 21))
    line(s, (8.5, 21), (15.5, 21))
    return IconDrawing(s)


def _note() -> IconDrawing:
    s = new_path()
    s.moveTo(4, 5.5)
    s.quadTo(4, 4, 5.5, 4)
    s.lineTo(18.5, 4)
    s.quadTo(20, 4, 20, 5.5)
    s.lineTo(20, 14)
    s.lineTo(14, 20)
    s.lineTo(5.5, 20)
    s.quadTo(4, 20, 4, 18.5)
    s.closeSubpath()
    line(s, (20, 14), (14, 14), (14, 20))
    line(s, (7.5, 8.5), (16.5, 8.5))
    line(s, (7.5, 11.5), (12.5, 11.5))
    return IconDrawing(s)


def _list() -> IconDrawing:
    s = new_path()
    f = new_path()
    for y in (6.5, 12, 17.5):
        line(s, (9, y), (20.5, y))
        dot(f, 4.8, y, 1.3)
    return IconDrawing(s, f)


def _battery() -> IconDrawing:
    s = new_path()
    s.addRoundedRect(QRectF(2.5, 7, 17, 10), 2.5, 2.5)
    line(s, (21.5, 10.5), (21.5, 13.5))
    f = new_path()
    f.addRoundedRect(QRectF(5, 9.5, 8, 5), 1, 1)
    return IconDrawing(s, f)


def _chart() -> IconDrawing:
    s = new_path()
    line(s, (3.5, 3.5), (3.5, 20.5), (20.5, 20.5))
    s.addRoundedRect(QRectF(7, 12, 3, 5.5), 0.8, 0.8)
    s.addRoundedRect(QRectF(11.5, 6, 3, 11.5), 0.8, 0.8)
    s.addRoundedRect(QRectF(16, 9.5, 3, 8), 0.8, 0.8)
    return IconDrawing(s)


def _dollar() -> IconDrawing:
    s = new_path()
    s.moveTo(16.5, 7.6)
    s.cubicTo(16, 5.9, 14.3, 5, 12, 5)
    s.cubicTo(9.2, 5, 7.5, 6.4, 7.5, 8.3)
    s.cubicTo(7.5, 10.3, 9.3, 11.1, 12, 11.8)
    s.cubicTo(14.9, 12.5, 16.7, 13.4, 16.7, 15.6)
    s.cubicTo(16.7, 17.6, 14.8, 19, 12, 19)
    s.cubicTo(9.5, 19, 7.8, 18.1, 7.2, 16.3)
    line(s, (12, 2.5), (12, 21.5))
    return IconDrawing(s)


def _home() -> IconDrawing:
    s = new_path()
    line(s, (2.8, 11.5), (12, 3.5), (21.2, 11.5))
    line(s, (5.5, 9.5), (5.5, 20), (18.5, 20), (18.5, 9.5))
    line(s, (10, 20), (10, 14.5), (14, 14.5), (14, 20))
    return IconDrawing(s)


def _wifi() -> IconDrawing:
    s = new_path()
    for r in (3.8, 7.6, 11.4):
        rect = QRectF(12 - r, 18 - r, 2 * r, 2 * r)
        s.arcMoveTo(rect, 45)
        s.arcTo(rect, 45, 90)
    f = new_path()
    dot(f, 12, 18.5, 1.5)
    return IconDrawing(s, f)


def _coffee() -> IconDrawing:
    s = new_path()
    s.moveTo(4, 9.5)
    s.lineTo(17, 9.5)
    s.lineTo(17, 15.5)
    s.quadTo(17, 20, 12.5, 20)
    s.lineTo(8.5, 20)
    s.quadTo(4, 20, 4, 15.5)
    s.closeSubpath()
    s.moveTo(17, 11.5)
    s.lineTo(18.5, 11.5)
    s.quadTo(21, 11.5, 21, 14)
    s.quadTo(21, 16.5, 18.5, 16.5)
    s.lineTo(17, 16.5)
    for x in (8.5, 12.5):
        s.moveTo(x, 2.8)
        s.cubicTo(x - 1.2, 4, x + 1.2, 5.2, x, 6.6)
    return IconDrawing(s)


def _plane() -> IconDrawing:
    body = QPolygonF(
        [
            QPointF(12, 2.5),
            QPointF(13.2, 4),
            QPointF(13.2, 9.5),
            QPointF(21, 14),
            QPointF(21, 16),
            QPointF(13.2, 13.5),
            QPointF(13.2, 18.2),
            QPointF(15.8, 20.2),
            QPointF(15.8, 21.5),
            QPointF(12, 20.5),
            QPointF(8.2, 21.5),
            QPointF(8.2, 20.2),
            QPointF(10.8, 18.2),
            QPointF(10.8, 13.5),
            QPointF(3, 16),
            QPointF(3, 14),
            QPointF(10.8, 9.5),
            QPointF(10.8, 4),
        ]
    )
    s = new_path()
    s.addPolygon(body)
    s.closeSubpath()
    # Flying up and to the right, as a plane icon is read.
    turn = QTransform().translate(12, 12).rotate(45).translate(-12, -12)
    return IconDrawing(turn.map(s))


def _four_point(s: QPainterPath, cx: float, cy: float, r: float) -> None:
    k = r * 0.12
    s.moveTo(cx, cy - r)
    s.quadTo(cx + k, cy - k, cx + r, cy)
    s.quadTo(cx + k, cy + k, cx, cy + r)
    s.quadTo(cx - k, cy + k, cx - r, cy)
    s.quadTo(cx - k, cy - k, cx, cy - r)
    s.closeSubpath()


def _sparkle() -> IconDrawing:
    s = new_path()
    _four_point(s, 10.5, 13, 8.5)
    _four_point(s, 18.5, 5.5, 3.2)
    return IconDrawing(s)


ICON_DRAWINGS: dict[str, Callable[[], IconDrawing]] = {
    "calendar": _calendar,
    "clock": _clock,
    "timer": _timer,
    "bed": _bed,
    "car": _car,
    "mail": _mail,
    "message": _message,
    "music": _music,
    "sun": _sun,
    "moon": _moon,
    "cloud": _cloud,
    "rain": _rain,
    "star": _star,
    "folder": _folder,
    "file": _file,
    "globe": _globe,
    "pin": _pin,
    "phone": _phone,
    "person": _person,
    "heart": _heart,
    "bolt": _bolt,
    "check": _check,
    "x": _x,
    "mic": _mic,
    "note": _note,
    "list": _list,
    "battery": _battery,
    "chart": _chart,
    "dollar": _dollar,
    "home": _home,
    "wifi": _wifi,
    "coffee": _coffee,
    "plane": _plane,
    "sparkle": _sparkle,
}
"""Icon name → its drawing, one entry per name of the glance set (GLANCE_ICONS)."""


@cache
def icon_drawing(name: str) -> IconDrawing | None:
    """The drawing of a glance icon, made once; None for a name outside the set."""
    make = ICON_DRAWINGS.get(name)
    return make() if make is not None else None
