"""Builds the card the notch shows for a request, from the integration's manifest.

The one place in the overlay that knows manifests: it looks the tool up in the running
service's catalog and hands it to `CardView` (part 2), with the integration's folder for
local images and its declared network domains for remote ones.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from PySide6.QtGui import QImage
from PySide6.QtWidgets import QWidget

from notch_app.runtime.catalog import Catalog
from notch_app.runtime.presenter import ConfirmationRequest, ResultGlance
from notch_app.ui.notch_window import ICON_SIZE
from notch_app.ui.overlay_presenter import BuiltCard
from notch_app.ui.theme import resolved_theme
from notch_app.ui.widgets.integration_icon import installed_icon

if TYPE_CHECKING:
    from notch_app.manifest.glance import GlanceBlock, WidgetBlock

MAX_TITLE_CHARS = 60


def _web_widgets() -> Callable[[WidgetBlock, str], QWidget] | None:
    """Builds glance `widget` blocks in the web sandbox when QtWebEngine is installed
    (the engine itself starts only when a widget is shown); else they show a quiet line."""
    from notch_app.ui.web import glance_widget_factory, web_engine_available

    return glance_widget_factory if web_engine_available() else None


def _paint_off_screen(view: QWidget) -> None:
    """Lay `view` out and paint it once into an image, never on screen: text shaping,
    glyphs and the chrome's cached shapes are then ready for the first real frame."""
    view.adjustSize()
    image = QImage(view.size(), QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(0)
    view.render(image)


def _warm_glance() -> tuple[GlanceBlock, ...]:
    """The glance `warm_glance` builds: display blocks only (no web widget). Read when
    needed: the glance code is not loaded by an idle Notch."""
    from notch_app.manifest.glance import read_glance

    return read_glance(
        {
            "blocks": [
                {"type": "header", "icon": "check", "title": "Done", "trailing": "1"},
                {"type": "keyValue", "pairs": [["Status", "ok"]]},
            ]
        }
    ).blocks


def _one_line(text: str, limit: int) -> str:
    """Untrusted text (an agent's name) made safe for a one-line label."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class ManifestCardFactory:
    """A `CardFactory` over a catalog. Raises LookupError for an unknown integration/tool."""

    def __init__(
        self,
        catalog: Catalog,
        *,
        theme: Literal["dark", "light", "system"] = "dark",
        width: int = 440,
    ) -> None:
        self._catalog = catalog
        self._theme = theme
        self._width = width

    def use_theme(self, theme: Literal["dark", "light", "system"]) -> None:
        """Build later cards and glances in `theme` (Settings → In the notch → Look)."""
        self._theme = theme

    @property
    def theme(self) -> Literal["dark", "light", "system"]:
        return self._theme

    def use_catalog(self, catalog: Catalog) -> None:
        """Build later cards from `catalog` (after Settings → Reload, Install or Remove)."""
        self._catalog = catalog

    def __call__(self, request: ConfirmationRequest, parent: QWidget | None = None) -> BuiltCard:
        from notch_app.ui.card_view import CardView  # Qt, only once a card is needed
        from notch_app.ui.widgets.asker_strip import asker_for, source_of

        entry = self._catalog.entry(request.integration_id)
        tool = self._catalog.tool(request.integration_id, request.tool_name)
        if entry is None or tool is None:
            raise LookupError(
                f"{request.integration_id}/{request.tool_name} is not a loaded integration tool"
            )
        card = CardView(
            tool,
            dict(request.arguments),
            base_dir=entry.folder,
            network_domains=entry.manifest.network_domains,
            theme=resolved_theme(self._theme),  # "system": the desktop as it is now
            width=self._width,
            notice=request.reason,
            asker=asker_for(
                entry.manifest,
                entry.folder,
                source=source_of(entry),
                installed=installed_icon(entry),
            ),
            scopes=True,
            changes=request.changes,
            parent=parent,
        )
        return BuiltCard(
            card,
            title=self.title(request),
            header=self.header(request),
            action=_one_line(tool.display_title, 40),
            # From the catalog's entry for the integration, as installed: nothing in the
            # request (arguments, context, its words) can choose the icon the notch shows.
            icon=installed_icon(entry),
        )

    def glance(self, result: ResultGlance, parent: QWidget | None = None) -> BuiltCard:
        """The view of a tool result's glance: its blocks, headed "Integration · Tool",
        with the installed integration's icon (from the catalog, never the sender's).
        Raises LookupError for an integration that is not loaded."""
        from notch_app.ui.glance import GlanceView  # Qt, only once a glance is shown

        entry = self._catalog.entry(result.integration_id)
        if entry is None:
            raise LookupError(f"{result.integration_id} is not a loaded integration")
        view = GlanceView(
            result.blocks,
            theme=resolved_theme(self._theme),  # "system": the desktop as it is now
            width=self._width,
            app_icon=installed_icon(entry),
            widget_factory=_web_widgets(),
            parent=parent,
        )
        title = _one_line(f"{entry.manifest.name} · {result.title}", MAX_TITLE_CHARS)
        return BuiltCard(
            view,
            title=title,
            action=_one_line(result.title, 40),
            icon=installed_icon(entry),
        )

    def warm_up(self, parent: QWidget, budget_s: float = 0.5) -> int:
        """Build and throw away a card for each acting tool (with its preview arguments),
        so the person's first cards do not pay for the process's first fonts, glyphs,
        pixmaps and code paths (a process's first card takes ~10× longer than later
        ones). Stops after `budget_s`; never raises (a tool that cannot be built is
        skipped). Returns how many cards were built."""
        return self._warm_cards(parent, time.monotonic() + budget_s)

    def warm_glance(self, parent: QWidget) -> bool:
        """Build and paint off screen one small glance (a header and a row) with the first
        loaded integration's icon, so the person's first result does not pay for the
        glance code's first use (~65 ms). Never a fixture's own sample: one holding a
        `widget` would start the web engine. Not part of `warm_up`: it costs the idle
        process ~5 MiB, so the overlay calls it once a card is on screen or a gateway
        attaches. Never raises; False when nothing was built."""
        ids = self._catalog.ids()
        if not ids:
            return False
        try:
            made = self.glance(ResultGlance(ids[0], "", "", _warm_glance()), parent)
            _paint_off_screen(made.widget)
        except Exception:  # a cache warm-up: a real result reports its own errors
            return False
        made.widget.hide()
        made.widget.deleteLater()
        return True

    def _warm_cards(self, parent: QWidget, deadline: float) -> int:
        built = 0
        for integration_id in self._catalog.ids():
            entry = self._catalog.entry(integration_id)
            if entry is None:
                continue
            fixtures = entry.fixtures
            for tool in entry.manifest.tools:
                if tool.confirmation is None:
                    continue
                if time.monotonic() > deadline:
                    return built
                request = ConfirmationRequest(
                    call_id="", integration_id=integration_id, tool_name=tool.name,
                    arguments=(fixtures.args_for(tool.name) if fixtures else None) or {},
                )  # fmt: skip
                try:
                    made = self(request, parent)
                    if made.icon is not None:  # the header's icon, decoded for the screen
                        made.icon.pixmap(ICON_SIZE, parent.devicePixelRatioF())
                    card = made.widget
                    _paint_off_screen(card)
                except Exception:  # a cache warm-up: the real request reports its own errors
                    continue
                card.hide()
                card.deleteLater()
                built += 1
        return built

    def title(self, request: ConfirmationRequest) -> str:
        """The card in words, for the side notch's menu and a parked card: "Mail
        assistant → Mail · Send email"."""
        manifest = self._catalog.integration(request.integration_id)
        tool = self._catalog.tool(request.integration_id, request.tool_name)
        title = (
            f"{manifest.name} · {tool.display_title}"
            if manifest is not None and tool is not None
            else f"{request.integration_id} · {request.tool_name}"
        )
        agent = request.context.get("agent") if isinstance(request.context, dict) else None
        if isinstance(agent, str) and agent.strip():
            title = f"{_one_line(agent, 28)} → {title}"
        return _one_line(title, MAX_TITLE_CHARS)

    @staticmethod
    def header(request: ConfirmationRequest) -> str:
        """The notch's header line over a card: who asks ("Asked by Mail assistant"), or
        nothing. The card's own strip is its one identity row (icon, integration, where
        it comes from) and its headline says the action: the header says neither again,
        so the key hint beside it never cuts a name."""
        agent = request.context.get("agent") if isinstance(request.context, dict) else None
        if isinstance(agent, str) and agent.strip():
            return _one_line(f"Asked by {_one_line(agent, 28)}", MAX_TITLE_CHARS)
        return ""
