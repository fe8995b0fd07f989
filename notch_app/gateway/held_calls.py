"""An acting call held for the person's yes: asked, kept alive, forwarded once, answered once."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from typing import Any

from notch_app.gateway import sentences
from notch_app.gateway.messages import (
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    REMEMBERED_CALLS,
    SECRET_SHOWN,
    WAITING,
    Asked,
    Forwarded,
    HeldTask,
    encode,
    glance_blocks,
    now_text,
    tool_error,
)
from notch_app.gateway.tool_list import ToolList
from notch_app.gateway.tools import GatewayTool
from notch_app.manifest.canonical_json import canonical_json
from notch_app.runtime.call_ids import call_id_of

log = logging.getLogger(__name__)


class HeldCalls(ToolList):
    """Each `tools/call` (or task) of an acting tool, from the card to its one run (a part
    of Gateway)."""

    async def _tool_call(self, request_id: Any, params: dict[str, Any], line: bytes) -> None:
        name = params.get("name")
        known = self._tools.get(name) if self._tools is not None and isinstance(name, str) else None
        if known is not None and known.reads and not known.background:
            # A read goes on as it came, before the front's check too (the same rule).
            await self._send_to_server(line, request_id, Forwarded("tools/call", known.name))
            return
        try:
            tools = await self.tools()
        except Exception as exc:
            self._reply(request_id, tool_error(self._start_sentence(exc)))
            return
        tool = tools.get(name) if isinstance(name, str) else None
        if tool is None:
            names = ", ".join(sorted(tools)) or "none"
            self._reply(request_id, tool_error(
                f"There is no tool named {name!r} here; the tools are {names}."
            ))  # fmt: skip
            return
        if tool.reads and not tool.background:  # the fast path: the line as it came
            await self._send_to_server(line, request_id, Forwarded("tools/call", tool.name))
            return
        raw = params.get("arguments")
        arguments = dict(raw) if isinstance(raw, dict) else {}
        if tool.reads:
            result = await self.forward(tool, request_id, params, arguments)
            self._reply(request_id, result)
            return
        await self._acting_call(request_id, params, tool, arguments)

    async def _acting_call(
        self, request_id: Any, params: dict[str, Any], tool: GatewayTool, arguments: dict[str, Any]
    ) -> None:
        call_id = call_id_of(self._scope, str(request_id))
        try:
            what = canonical_json({"tool": tool.name, "arguments": arguments})
        except ValueError as exc:
            self._reply(request_id, tool_error(
                f"The arguments cannot be checked ({exc}); nothing was run."
            ))  # fmt: skip
            return
        known = self._calls.get(call_id)
        if known is not None and known.what != what:
            self._reply(request_id, tool_error(
                f"Request id {request_id!r} was already used in this session for another "
                "call; a request id names one call. Nothing was run: send this call with a "
                "new request id."
            ))  # fmt: skip
            return
        if known is not None and (known.task is None or known.task.done()):
            self._reply(request_id, tool_error(
                f"Request id {request_id!r} was already answered in this session: this is a "
                f"duplicate of that call, and “{tool.title}” runs at most once, so nothing "
                "was run again. To do it again, send a new request id."
            ))  # fmt: skip
            return
        if known is not None:  # a repeat while the call is open joins it: one card, one run
            known.copies += 1
            return
        context = {"agent": self._session.client_name, "via": f"notch mcp · {self.front.name}"}
        if isinstance(params.get("task"), dict):
            self._start_task(call_id, what, request_id, params, tool, arguments, context)
            return
        task = asyncio.ensure_future(
            self._ask_then_forward(call_id, request_id, params, tool, arguments, context)
        )
        asked = Asked(what, task)
        self._remember(call_id, asked)
        try:
            result = await asyncio.shield(task)
        except asyncio.CancelledError:
            self._answered(call_id, asked)
            return  # withdrawn (the card taken away): a cancelled request gets no answer
        except Exception as exc:  # never a protocol error: one sentence the model reads
            log.exception("notch mcp: %s failed", tool.name)
            result = tool_error(f"{exc}; {sentences.nothing_done(tool.name)}.")
        for _ in range(asked.copies):
            self._reply(request_id, result)
        self._answered(call_id, asked)

    async def _ask_then_forward(
        self,
        call_id: str,
        request_id: Any,
        params: dict[str, Any],
        tool: GatewayTool,
        arguments: dict[str, Any],
        context: dict[str, Any],
    ) -> dict[str, Any]:
        progress = self._keep_alive(params)
        try:
            answer = await self.confirmations.ask(call_id, tool.name, arguments, context)
        except asyncio.CancelledError:
            why = self._withdraw_why.pop(call_id, None)
            await asyncio.shield(self.confirmations.withdraw(call_id, why))
            raise
        finally:
            if progress is not None:
                progress.cancel()
        if answer.not_running:
            return tool_error(sentences.notch_not_running(tool.title, tool.name, answer.problem))
        decision = answer.decision
        if decision is None:
            return tool_error(f"{answer.problem}; {sentences.nothing_done(tool.name)}.")
        if not decision.runs:
            return tool_error(
                sentences.refusal(decision.outcome, tool.title, tool.name, decision.for_model)
            )
        if decision.outcome == "notRequired" and tool.acts:
            return tool_error(
                f"Notch has no card for “{tool.title}”, so the person cannot confirm it; "
                f"{sentences.nothing_done(tool.name)}."
            )
        if decision.already_decided:
            return tool_error(
                f"“{tool.title}” was already decided for this request id and runs at most "
                "once; send a new request to do it again."
            )
        ran = dict(decision.arguments or {})
        result = await self.forward(tool, request_id, params, ran, call_id)
        if decision.edited_paths and not result.get("isError"):
            # The live decision carries secret values (to run with); the model never reads them.
            told = tool.facts().masked(ran, SECRET_SHOWN)
            shown = json.dumps(told, ensure_ascii=False, sort_keys=True)
            content = list(result.get("content") or [])
            content.append({"type": "text", "text": f"The person changed "
                            f"{', '.join(decision.edited_paths)} before approving; it ran "
                            f"with {shown}."})  # fmt: skip
            result = {**result, "content": content}
        return result

    def _start_task(
        self,
        call_id: str,
        what: str,
        request_id: Any,
        params: dict[str, Any],
        tool: GatewayTool,
        arguments: dict[str, Any],
        context: dict[str, Any],
    ) -> None:
        """An acting call sent as a task: answered at once with a task of the gateway's
        own (`working` while the card waits), run once the person says yes; the client
        polls it with tasks/get and tasks/result, or cancels it (the card is withdrawn)."""
        self._own_ids += 1
        task_id = f"{self._scope}-task-{self._own_ids}"
        plain = {k: v for k, v in params.items() if k != "task"}
        work = asyncio.ensure_future(
            self._ask_then_forward(call_id, task_id, plain, tool, arguments, context)
        )
        held = HeldTask(task_id, now_text(), params["task"].get("ttl"), work, call_id)
        self._held_tasks[task_id] = held
        asked = Asked(what, work)
        self._remember(call_id, asked)

        def ended(done: asyncio.Task[dict[str, Any]]) -> None:
            self._answered(call_id, asked)
            held.updated = now_text()
            if done.cancelled():
                held.status, held.message = "cancelled", "Withdrawn before the person decided"
            elif done.exception() is not None:
                held.status, held.message = "failed", str(done.exception())
            else:
                held.status, held.message = "completed", "Done"
            self._write(encode({"jsonrpc": "2.0", "method": "notifications/tasks/status",
                                 "params": held.document()}))  # fmt: skip

        work.add_done_callback(ended)
        self._reply(request_id, {"task": held.document()})

    async def _own_task(self, method: str, request_id: Any, held: HeldTask) -> None:
        """tasks/get, tasks/result or tasks/cancel for a task of the gateway's own."""
        if method == "tasks/cancel":
            if not held.work.done():
                self._withdraw_why[held.call_id] = (
                    f"{self._session.client_name} cancelled the task "
                    f"after {self._waited(held.call_id)} s"
                )
                held.work.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await held.work
            self._reply(request_id, held.document())
        elif method == "tasks/result":
            try:
                result = await asyncio.shield(held.work)
            except asyncio.CancelledError:
                self._error(request_id, INVALID_REQUEST, f"Task {held.task_id} was cancelled")
                return
            except Exception as exc:
                result = tool_error(str(exc))
            meta = {"io.modelcontextprotocol/related-task": {"taskId": held.task_id}}
            self._reply(request_id, {**result, "_meta": {**result.get("_meta", {}), **meta}})
        elif method == "tasks/get":
            self._reply(request_id, held.document())
        else:
            self._error(request_id, METHOD_NOT_FOUND, f"Method not found: {method}")

    def _keep_alive(self, params: dict[str, Any]) -> asyncio.Task[None] | None:
        """While the person decides: `notifications/progress` every `progress_every`
        seconds, when the client gave a progress token (the TypeScript SDK resets its
        request timeout on each, with `resetTimeoutOnProgress`)."""
        meta = params.get("_meta")
        token = meta.get("progressToken") if isinstance(meta, dict) else None
        if not isinstance(token, str | int) or isinstance(token, bool):
            return None

        async def tick() -> None:
            started = time.monotonic()
            while True:
                await asyncio.sleep(self.progress_every)
                waited = round(time.monotonic() - started)
                self._write(encode({"jsonrpc": "2.0", "method": "notifications/progress",
                                     "params": {"progressToken": token, "progress": waited,
                                                "message": WAITING}}))  # fmt: skip

        return asyncio.ensure_future(tick())

    def _waited(self, call_id: str) -> int:
        asked = self._calls.get(call_id)
        return round(time.monotonic() - asked.asked_at) if asked is not None else 0

    def _cancelled(self, said: Any, asked: Asked) -> str:
        """Why the client's `notifications/cancelled` withdraws a card, in words the person
        reads (quoted as the agent's, by Notch), the gist first (the notch shows one line):
        who stopped waiting and after how long, then the client's own reason when it is
        not a timeout ("claude-ai stopped waiting after 60 s")."""
        client = self._session.client_name
        waited = round(time.monotonic() - asked.asked_at)
        reason = " ".join(said.split())[:100] if isinstance(said, str) else ""
        if "timed out" in reason.lower() or "timeout" in reason.lower():
            return f"{client} stopped waiting after {waited} s"
        return f"{client} cancelled it after {waited} s" + (f" ({reason})" if reason else "")

    async def _show_glance(self, tool: str, result: Any) -> None:
        try:
            await self.checked()  # the integration's id, and its client
        except Exception:
            return
        blocks = glance_blocks(result)
        if blocks is not None and not (isinstance(result, dict) and result.get("isError")):
            await self.confirmations.show_glance(tool, blocks, None)

    def _remember(self, call_id: str, asked: Asked) -> None:
        """Keep what `call_id` asked; forget the oldest answered ones past
        REMEMBERED_CALLS (open ones are never forgotten: they hold a card)."""
        self._calls[call_id] = asked
        extra = len(self._calls) - REMEMBERED_CALLS
        if extra > 0:
            for old in [k for k, v in self._calls.items() if v.task is None][:extra]:
                del self._calls[old]

    def _answered(self, call_id: str, asked: Asked) -> None:
        """`call_id`'s call has answered: keep only what it asked (a repeat is refused)."""
        self._withdraw_why.pop(call_id, None)
        if self._calls.get(call_id) is asked:
            self._calls[call_id] = Asked(asked.what, None)
