"""Result glances and background work: glance.show, work.begin and work.end."""

from __future__ import annotations

from typing import Any, Final

from pydantic import Field

from notch_app.ipc.methods.wire import CallId, Token, Wire

MAX_GLANCE_ITEMS: Final = 64
"""Blocks one message may carry (at most 3 show; the rest are reported as dropped)."""


class GlanceShowParams(Wire):
    """A tool result's glance to show the person for a moment (display only)."""

    integration: str = Field(max_length=200, description="The integration's id.")
    tool: str = Field(max_length=200, description="The tool whose result this is.")
    blocks: list[Any] = Field(
        max_length=MAX_GLANCE_ITEMS,
        description="The result's `_voiceos_glance.blocks` as the tool returned them. "
        "Blocks off the glance schema are dropped (and listed in the reply); at most 3 show.",
    )
    call_id: CallId | None = Field(
        default=None,
        description="The approved request this is the result of (it must have run, for "
        "this integration and tool); send its `token` too.",
    )
    token: Token | None = Field(default=None, description="The `callId`'s token.")


class DroppedGlanceBlock(Wire):
    index: int = Field(description="The block's position in `blocks`.")
    kind: str = Field(description="Its `type`, or ? when it has none.")
    reason: str = Field(description="Why it does not show, and the fix.")


class GlanceShowResult(Wire):
    shown: int = Field(description="How many blocks show (0: nothing is shown).")
    dropped: list[DroppedGlanceBlock]


class WorkBeginParams(Wire):
    """A tool started running in the background: list it in the side notch."""

    integration: str = Field(max_length=200)
    tool: str = Field(max_length=200)
    call_id: CallId | None = Field(
        default=None, description="The approved request that started it (with its `token`)."
    )
    token: Token | None = None
    estimated_duration_ms: int | None = Field(
        default=None,
        ge=0,
        le=86_400_000,
        description="How long it should take; default: the manifest's "
        "`execution.estimatedDurationMs`.",
    )


class WorkBeginResult(Wire):
    work_id: str = Field(description="Send it with `work.end` on this connection.")


class WorkEndParams(Wire):
    """Background work ended: its glance shows, or a short failure line."""

    work_id: str = Field(min_length=1, max_length=64)
    ok: bool = Field(description="true: it finished; false: it failed.")
    message: str | None = Field(
        default=None, max_length=2000, description="Why it failed, in one sentence."
    )
    blocks: list[Any] | None = Field(
        default=None,
        max_length=MAX_GLANCE_ITEMS,
        description="The result's `_voiceos_glance.blocks`, shown when it finished.",
    )


class WorkEndResult(Wire):
    shown: int
    dropped: list[DroppedGlanceBlock]
