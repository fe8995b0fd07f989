"""Builds the card the notch shows for a request, from the integration's manifest.

The one place in the overlay that knows manifests: it looks the tool up in the running
service's catalog and hands it to `CardView` (part 2), with the integration's folder for
local images and its declared network domains for remote ones.
"""

from __future__ import annotations

from typing import Literal

from PySide6.QtWidgets import QWidget

from notch_app.runtime.catalog import Catalog
from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.ui.overlay_presenter import BuiltCard

MAX_TITLE_CHARS = 60


def _one_line(text: str, limit: int) -> str:
    """Untrusted text (an agent's name) made safe for a one-line label."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class ManifestCardFactory:
    """A `CardFactory` over a catalog. Raises LookupError for an unknown integration/tool."""

    def __init__(
        self, catalog: Catalog, *, theme: Literal["dark", "light"] = "dark", width: int = 440
    ) -> None:
        self._catalog = catalog
        self._theme = theme
        self._width = width

    def use_catalog(self, catalog: Catalog) -> None:
        """Build later cards from `catalog` (after Settings → Reload, Install or Remove)."""
        self._catalog = catalog

    def __call__(self, request: ConfirmationRequest, parent: QWidget | None = None) -> BuiltCard:
        from notch_app.ui.card_view import CardView  # Qt, only once a card is needed

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
            theme=self._theme,
            width=self._width,
            parent=parent,
        )
        return BuiltCard(card, title=self.title(request), action=_one_line(tool.display_title, 40))

    def title(self, request: ConfirmationRequest) -> str:
        """The notch's header line: "Mail assistant → Mail · Send email"."""
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
