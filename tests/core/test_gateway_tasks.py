"""An acting call sent as a task (MCP 2025-11-25's `params.task`) is answered at once with
a task of the gateway's own, `working` while the card waits; the person's yes runs it
and `tasks/result` gives the server's result; `tasks/cancel` withdraws the card and
nothing runs. Spoken in raw JSON-RPC lines to the real `notch mcp` process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
NOTES = REPO / "tests" / "fixtures" / "mcp_servers" / "notes"
MESSAGE = {"to": "sam", "body": "Lunch at noon?"}


def _task_call(request_id: Any) -> dict[str, Any]:
    params = {"name": "send_message", "arguments": MESSAGE, "task": {"ttl": 60000}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def _tasks(request_id: Any, method: str, task_id: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {"taskId": task_id}}


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_a_task_waits_for_the_card_then_gives_the_servers_result(
    base: Path, running_notch: Any, mcp_gateway: Any, tmp_path: Path
) -> None:
    async with (
        running_notch(base) as (notch, cards),
        mcp_gateway(NOTES, notch.server.path, tmp_path) as gateway,
    ):
        await gateway.send(_task_call(1))
        (created,) = await gateway.replies_to(1)
        task = created["result"]["task"]
        assert task["status"] == "working"
        assert task["statusMessage"] == "Waiting for your answer in Notch"
        (card,) = await cards.wait_for_cards(1, timeout=30)
        await gateway.send(_tasks(2, "tasks/get", task["taskId"]))
        (polled,) = await gateway.replies_to(2)
        assert polled["result"]["status"] == "working" and gateway.ran() == []
        cards.approve(card.call_id)
        await gateway.send(_tasks(3, "tasks/result", task["taskId"]))
        (result,) = await gateway.replies_to(3)
        await gateway.send(_tasks(4, "tasks/get", task["taskId"]))
        (done,) = await gateway.replies_to(4)
    assert result["result"].get("isError") is not True, result
    meta = result["result"]["_meta"]["io.modelcontextprotocol/related-task"]
    assert meta == {"taskId": task["taskId"]}
    assert done["result"]["status"] == "completed"
    assert [(c["tool"], c["arguments"]) for c in gateway.ran()] == [("send_message", MESSAGE)]


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_cancelling_the_task_withdraws_the_card_and_runs_nothing(
    base: Path, running_notch: Any, mcp_gateway: Any, tmp_path: Path
) -> None:
    async with (
        running_notch(base) as (notch, cards),
        mcp_gateway(NOTES, notch.server.path, tmp_path) as gateway,
    ):
        await gateway.send(_task_call(1))
        (created,) = await gateway.replies_to(1)
        task_id = created["result"]["task"]["taskId"]
        (card,) = await cards.wait_for_cards(1, timeout=30)
        await gateway.send(_tasks(2, "tasks/cancel", task_id))
        (cancelled,) = await gateway.replies_to(2)
        await cards.wait_for(lambda: card.call_id not in cards.cards, timeout=30)
        await gateway.barrier("after")  # anything the gateway would still do, it has done
        assert (card.call_id, "withdrawn") in cards.dismissed
    assert cancelled["result"]["status"] == "cancelled"
    assert gateway.ran() == []


def test_the_gateway_looks_for_the_glance_key_of_the_manifest() -> None:
    from notch_app.gateway.messages import GLANCE_MARK
    from notch_app.manifest.glance import GLANCE_KEY

    assert GLANCE_KEY.encode() == GLANCE_MARK
