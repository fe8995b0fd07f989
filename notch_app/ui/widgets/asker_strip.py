"""Who is asking: the strip Notch itself draws across the top of every card.

It names the integration as installed (its manifest's name and icon) and where it was
installed from (bundled with Notch, installed by the person, or added with
`--manifests`). The card frame draws it edge to edge above the title, outside the block
area: a manifest's blocks are laid out inside the card's margins, so none can draw over
it, and none can take its full-width band, its fill or its hairline.

When the process asking has many cards waiting (`set_crowd`), a second line names it as
the kernel reports it ("python3 (pid 4242)") with "Decline all from this asker": one
agent flooding the notch is cleared in one press, and no other agent's card goes with it.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QPainter, QPainterPath, QPaintEvent, QPixmap, QResizeEvent
from PySide6.QtWidgets import QWidget

from notch_app.manifest.model import Manifest
from notch_app.manifest.trust_rules import find_claim
from notch_app.runtime.askers import AskingProcess
from notch_app.runtime.catalog import CatalogEntry
from notch_app.ui.theme import Look
from notch_app.ui.widgets.buttons import PillButton
from notch_app.ui.widgets.integration_icon import InstalledIcon, kept_for_entry

ICON_SIZE = 16
_NAME_CHARS = 60
CROWD_AT = 3
"""Cards waiting from one asking process before its card names it and offers to decline
them all (a batch of two is an agent's turn, not a crowd)."""
DECLINE_ALL_FROM_ASKER = "Decline all from this asker"

BUNDLED = "Bundled with Notch"
INSTALLED = "Installed by you"
ADDED = "Added with --manifests"
IN_MEMORY = "Not from a folder"
THROUGH_GATEWAY = "Through notch mcp"


def _inside(folder: Path, parent: Path) -> bool:
    with contextlib.suppress(OSError, ValueError):
        folder.resolve().relative_to(parent.resolve())
        return True
    return False


@cache
def _places() -> tuple[Path, Path]:
    from notch_app.runtime.catalog import bundled_manifests_dir, user_integrations_dir

    return bundled_manifests_dir(), user_integrations_dir()


def installed_from(folder: Path | None, other: str = ADDED) -> str:
    """Where an integration folder was installed from, in the person's words: bundled
    with Notch, installed by the person (their integrations folder), else `other` (a
    folder named with `--manifests`, or on the command line)."""
    if folder is None:
        return IN_MEMORY
    bundled, installed = _places()
    if _inside(folder, bundled):
        return BUNDLED
    if _inside(folder, installed):
        return INSTALLED
    return other


@dataclass(frozen=True, slots=True)
class Asker:
    """Who asks for a card, as Notch loaded it (never as the card's blocks describe it)."""

    name: str
    source: str
    """`installed_from(...)`: "Bundled with Notch", "Installed by you", ..."""
    folder: Path | None = None
    """The integration's folder (shown on hover); its icon file is read from here."""
    icon: QPixmap | None = None
    claims: str | None = None
    """Whom the name claims to be ("Apple", "the system"), however it is spelled: the
    strip then marks it "unverified: claims to be Apple" (issue 18). None: no claim."""

    @property
    def mark(self) -> str | None:
        """The strip's words beside a name that claims to be someone, else None."""
        return f"unverified: claims to be {self.claims}" if self.claims else None


def source_of(entry: CatalogEntry) -> str:
    """Where a loaded integration came from: THROUGH_GATEWAY for one a `notch mcp`
    gateway brought (folder or not), else `installed_from` its folder. Worked out once
    per loaded entry (resolving its folder is file system calls on every card)."""
    return kept_for_entry(
        entry,
        "source",
        lambda: THROUGH_GATEWAY if entry.through_gateway else installed_from(entry.folder),
    )


def asker_for(
    manifest: Manifest,
    folder: Path | None,
    other: str = ADDED,
    *,
    source: str | None = None,
    installed: InstalledIcon | None = None,
) -> Asker:
    """The Asker of an integration loaded from `folder` (said as `source`, else as
    `installed_from` says it). Its icon is `installed` (a loaded entry's, worked out once
    per entry: `installed_icon`), else looked up now; drawn once per icon file as it
    stands, so an icon replaced by a reinstall into the same folder shows the new one."""
    found_icon = installed if installed is not None else InstalledIcon.of(manifest, folder)
    icon = found_icon.pixmap(ICON_SIZE)
    name = " ".join(manifest.name.split())[:_NAME_CHARS] or manifest.id
    found = find_claim(manifest.name)
    # Notch's own bundled integrations may say "Notch"; the strip already says so.
    where = source or installed_from(folder, other)
    claims = found.who if found and not (where == BUNDLED and found.who == "Notch itself") else None
    return Asker(name, where, folder, icon, claims)


_BANDS: dict[tuple[int, int, float, str, float], QPixmap] = {}


def _band(width: int, height: int, radius: float, look: Look, ratio: float) -> QPixmap:
    """The strip's background: its fill with the glass's rounded top corners and a hairline
    along the bottom, drawn once per size and theme (antialiased paths are slow to fill
    on every paint)."""
    key = (width, height, radius, look.name, ratio)
    band = _BANDS.get(key)
    if band is not None:
        return band
    band = QPixmap(round(width * ratio), round(height * ratio))
    band.setDevicePixelRatio(ratio)  # sharp on a HiDPI screen
    band.fill(Qt.GlobalColor.transparent)
    p = QPainter(band)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    rect = QRectF(1, 1, width - 2, height - 1)  # inside the glass's 1 px border
    r = max(radius - 1, 0.0)
    path = QPainterPath()  # rounded top corners, square bottom: the glass's own top
    path.moveTo(rect.left(), rect.bottom())
    path.lineTo(rect.left(), rect.top() + r)
    path.arcTo(QRectF(rect.left(), rect.top(), 2 * r, 2 * r), 180, -90)
    path.lineTo(rect.right() - r, rect.top())
    path.arcTo(QRectF(rect.right() - 2 * r, rect.top(), 2 * r, 2 * r), 90, -90)
    path.lineTo(rect.right(), rect.bottom())
    path.closeSubpath()
    p.fillPath(path, look.color("asker_fill"))
    p.fillRect(QRectF(1, height - 1, width - 2, 1), look.color("asker_line"))
    p.end()
    if len(_BANDS) > 32:
        _BANDS.clear()
    _BANDS[key] = band
    return band


class AskerStrip(QWidget):
    """The band across the top of the card: icon, integration name, where from; and, for
    an asking process with many cards waiting, a line naming it with a button to decline
    them all (`declineAllRequested`)."""

    declineAllRequested = Signal()
    """The person pressed "Decline all from this asker" (the overlay decides which cards)."""

    def __init__(self, look: Look, asker: Asker, radius: float, parent: QWidget | None = None):
        super().__init__(parent)
        self._look = look
        self.asker = asker
        self._radius = radius
        self.setObjectName("AskerStrip")
        mark = f", {asker.mark}" if asker.mark else ""
        self.setAccessibleName(f"Asked by {asker.name}{mark}, {asker.source}")
        where = f"{asker.source}: {asker.folder}" if asker.folder is not None else asker.source
        self.setToolTip(f"{asker.name}\n{where}")
        self._line = look.font_metrics("AskerName").height() + 14
        self.setFixedHeight(self._line)
        self.crowd: tuple[int, AskingProcess] | None = None
        """(cards waiting, the process asking them) while the line is shown."""
        # "Decline all from this asker" shows only for a crowd of cards: made then (or
        # when asked for), not built and polished hidden with every card.
        self._decline_all: PillButton | None = None

    @property
    def decline_all(self) -> PillButton:
        """The "Decline all from this asker" button (made on first need; hidden while
        there is no crowd). Tab reaches it right after the strip, as the first of the
        card's stops, wherever in the card's life it is made."""
        button = self._decline_all
        if button is None:
            button = PillButton(self._look, small=True, text=DECLINE_ALL_FROM_ASKER, parent=self)
            button.setObjectName("DeclineAllFromAsker")
            button.clicked.connect(self.declineAllRequested)
            button.hide()
            self._decline_all = button
            # A widget made now joins the window's focus chain at its end: moved to right
            # after the strip (Tab order is set only from a widget that takes focus).
            policy = self.focusPolicy()
            self.setFocusPolicy(Qt.FocusPolicy.TabFocus)
            QWidget.setTabOrder(self, button)
            self.setFocusPolicy(policy)
            self._place_button()
        return button

    def set_crowd(self, count: int, process: AskingProcess | None) -> None:
        """Say that `process` has `count` cards waiting, with "Decline all from this
        asker", from CROWD_AT cards on; fewer (or no process) takes the line away. The
        strip grows by that line and the card's content moves down with it."""
        crowd = (count, process) if count >= CROWD_AT and process is not None else None
        if crowd == self.crowd:
            return
        self.crowd = crowd
        if crowd is not None:
            who = crowd[1].label
            self.decline_all.setAccessibleName(f"Decline all {count} cards from {who}")
            self.decline_all.setToolTip(f"Decline the {count} cards {who} is asking, no others")
        self.decline_all.setVisible(crowd is not None)
        height = self._line + (self._crowd_height() if crowd is not None else 0)
        if height != self.height():
            grown = height - self.height()
            self.setFixedHeight(height)
            # The card lays its content out below this strip (its top margin); keep it so.
            parent = self.parentWidget()
            frame = parent.layout() if parent is not None else None
            if frame is not None:
                m = frame.contentsMargins()
                frame.setContentsMargins(m.left(), m.top() + grown, m.right(), m.bottom())
        self._place_button()
        self.update()

    @property
    def crowd_text(self) -> str:
        """The second line as the person reads it ("" when there is none)."""
        if self.crowd is None:
            return ""
        count, process = self.crowd
        return f"{count} cards from {process.label}"

    def _crowd_height(self) -> int:
        return self.decline_all.sizeHint().height() + 10

    def _place_button(self) -> None:
        hint = self.decline_all.sizeHint()
        self.decline_all.setGeometry(
            self.width() - 20 - hint.width(), self._line + 2, hint.width(), hint.height()
        )

    def resizeEvent(self, event: QResizeEvent) -> None:
        if self._decline_all is not None:
            self._place_button()
        super().resizeEvent(event)

    @property
    def text(self) -> str:
        """What the strip reads: "Mail · Bundled with Notch" (with "unverified: claims to
        be Apple" after a name that claims to be someone)."""
        mark = f" · {self.asker.mark}" if self.asker.mark else ""
        return f"{self.asker.name}{mark} · {self.asker.source}"

    def sizeHint(self) -> QSize:
        return QSize(200, self.height())

    def paintEvent(self, event: QPaintEvent) -> None:
        look = self._look
        p = QPainter(self)
        ratio = self.devicePixelRatioF()
        p.drawPixmap(0, 0, _band(self.width(), self.height(), self._radius, look, ratio))
        x = 20.0
        mid = self._line / 2
        icon = self.asker.icon
        if icon is not None and not icon.isNull():
            p.drawPixmap(
                QRectF(x, mid - ICON_SIZE / 2, ICON_SIZE, ICON_SIZE), icon, QRectF(icon.rect())
            )
            x += ICON_SIZE + 8
        name_fm = look.font_metrics("AskerName")
        source_fm = look.font_metrics("AskerSource")
        room = self.width() - x - 20
        source = "  ·  " + self.asker.source
        # A name that claims to be someone is quoted and marked, and the mark never
        # elides: the name gives way first.
        mark = f"  {self.asker.mark}" if self.asker.mark else ""
        shown_name = f"“{self.asker.name}”" if mark else self.asker.name
        name = name_fm.elidedText(
            shown_name,
            Qt.TextElideMode.ElideRight,
            int(
                max(
                    room - source_fm.horizontalAdvance(source + mark),
                    room / 4 if mark else room / 2,
                )
            ),
        )
        baseline = mid + (name_fm.ascent() - name_fm.descent()) / 2
        p.setFont(look.font("AskerName"))
        p.setPen(look.text_color("AskerName"))
        p.drawText(QPointF(x, baseline), name)
        x += name_fm.horizontalAdvance(name)
        if mark:
            p.setFont(look.font("AskerSource"))
            p.setPen(look.color("badge_warning_text"))
            p.drawText(QPointF(x, baseline), mark)
            x += source_fm.horizontalAdvance(mark)
        p.setFont(look.font("AskerSource"))
        p.setPen(look.text_color("AskerSource"))
        p.drawText(
            QPointF(x, baseline),
            source_fm.elidedText(source, Qt.TextElideMode.ElideRight, int(self.width() - x - 20)),
        )
        if self.crowd is not None:
            # Notch's own words about the process asking, left of its button.
            mid = self._line + self._crowd_height() / 2 - 3
            baseline = mid + (source_fm.ascent() - source_fm.descent()) / 2
            room = self.decline_all.x() - 20 - 12
            text = self.crowd_text
            count, process = self.crowd
            if source_fm.horizontalAdvance(text) > room and process.name:
                # The name is the process's own choice; its pid is the kernel's: keep the pid.
                rest = source_fm.horizontalAdvance(f"{count} cards from  (pid {process.pid})")
                name = source_fm.elidedText(
                    process.name, Qt.TextElideMode.ElideRight, int(max(room - rest, 0))
                )
                text = f"{count} cards from {name} (pid {process.pid})"
            p.setPen(look.color("badge_danger_text"))
            p.drawText(QPointF(20, baseline), text)
        p.end()
