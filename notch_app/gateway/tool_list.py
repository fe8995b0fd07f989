"""The tools the client is offered: the manifest's, or the server's own list, read again when it changes."""

from __future__ import annotations

import logging
from typing import Any

from notch_app.gateway.launch import ServerGone
from notch_app.gateway.messages import (
    INTERNAL_ERROR,
    OWN_INIT_WAIT_S,
    encode,
)
from notch_app.gateway.server_side import ServerSide
from notch_app.gateway.tools import GatewayTool, from_server

log = logging.getLogger(__name__)


class ToolList(ServerSide):
    """The tools offered and what is known of each (a part of Gateway)."""

    def _list_tools(self, request_id: Any) -> None:
        self._reply(request_id, {"tools": [t.listed for t in (self._tools or {}).values()]})

    async def _list_tools_when_checked(self, request_id: Any) -> None:
        try:
            await self.checked()
        except Exception as exc:
            self._error(request_id, INTERNAL_ERROR, f"{self.front.name}: {exc}")
            return
        self._list_tools(request_id)

    async def tools(self) -> dict[str, GatewayTool]:
        """The tools offered: the manifest's, or the bare server's own list (read once,
        and again after it says the list changed). Raises ServerGone (or what the
        environment raised) for a bare server that cannot be started."""
        await self.checked()
        if self._tools is not None:
            return self._tools
        assert self._listing is not None
        async with self._listing:
            if self._tools is None:
                if not self._usable and not await self._start_server():
                    raise self._start_problem or ServerGone("not running")
                listed: list[Any] = []
                cursor: Any = None
                for _page in range(100):
                    params = {"cursor": cursor} if cursor else {}
                    page = await self._own_request("tools/list", params, OWN_INIT_WAIT_S)
                    listed.extend(page.get("tools") or ())
                    cursor = page.get("nextCursor")
                    if not cursor:
                        break
                self._know([t for t in listed if isinstance(t, dict)])
            assert self._tools is not None
            return self._tools

    def _know(self, listed: list[dict[str, Any]], *, whole: bool = True) -> dict[str, GatewayTool]:
        """A bare server's tools, as it listed them (`whole`: all of them; else one page
        of its answer to the client). Notch generates their cards from these very
        documents, so it is told again only when one changed (an "Always allow" is
        bound to the card). Returns the tools of `listed`."""
        fresh = from_server(listed, self._once_acting)
        self._once_acting.update(name for name, t in fresh.items() if t.acts)
        raw = {} if whole else dict(self._raw_tools)
        raw.update((str(t["name"]), t) for t in listed if isinstance(t.get("name"), str))
        known = {} if whole or self._tools is None else dict(self._tools)
        known.update(fresh)
        self._tools = known
        if raw != self._raw_tools:
            self._raw_tools = raw
            self._attachment["tools"] = list(raw.values())
            if self._confirmations is not None:
                self._confirmations.attachment["tools"] = list(raw.values())
                self._confirmations.reattach()
        return fresh

    def _learn_tools(self, message: dict[str, Any], line: bytes) -> bytes:
        """A bare server's answer to the client's `tools/list`: remembered (one page at a
        time is enough to decide those tools), and passed on with acting tools' words."""
        result = message.get("result")
        page = result.get("tools") if isinstance(result, dict) else None
        if not isinstance(page, list):
            return line
        fresh = self._know([t for t in page if isinstance(t, dict)], whole=False)
        assert isinstance(result, dict)
        return encode(
            {**message, "result": {**result, "tools": [t.listed for t in fresh.values()]}}
        )

    async def _relist(self) -> None:
        """The bare server's tools changed: read them again before the next call."""
        self._tools = None
        try:
            await self.tools()
        except Exception as exc:
            log.warning("%s: could not read its new tool list: %s", self.front.name, exc)
