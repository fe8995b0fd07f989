"""Batch benchmark (issue 14 §2): a batch of 20 calls submitted with `confirm.batch` →
all 20 cards queued at the presenter, against one call's round trip (`confirm()` of
one acting call the scripted person approves at once: request stored, card shown,
decision stored and answered), interleaved in the same run. Target: ≤ 2×.

Also reported: one call → its card queued (the batch's per-card cost is the interesting
part: 20 cards for about the price of one round trip means one transaction, not 20).

    .venv/bin/python benchmarks/bench_batch.py [--rounds 60] [--size 20]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from notch_app.client import AsyncNotchClient, BatchCall
from notch_app.headless import start
from notch_app.manifest.model import Manifest
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.runtime.scripted import ScriptedPresenter

MANIFEST = {
    "schemaVersion": 1, "id": "com.example.bench", "version": "1", "name": "Bench",
    "tools": [
        {"name": "send_note",
         "inputSchema": {"type": "object", "properties": {"to": {"type": "string"},
                                                          "n": {"type": "integer"}},
                         "required": ["to"]},
         "confirmation": {"schemaVersion": 1, "root": {"type": "card", "title": "Send",
             "children": [{"type": "textField", "bind": "{{to}}", "label": "To"}],
             "footer": [{"type": "actions", "items": [{"label": "Cancel", "role": "cancel"},
                                                      {"label": "Send", "role": "confirm"}]}]}}},
    ],
}  # fmt: skip
BENCH = "com.example.bench"


class _Timed(ScriptedPresenter):
    """Records when each card reached the presenter; approves the ones named `rt-*`
    at once (the round-trip calls), leaves the batch's cards for the benchmark."""

    def __init__(self, sink: Any) -> None:
        super().__init__(sink, rule=self._approve_round_trips)
        self.arrived: dict[str, float] = {}

    @staticmethod
    def _approve_round_trips(request: ConfirmationRequest) -> tuple[bool, None] | None:
        return (True, None) if request.call_id.startswith("rt-") else None

    def present(self, request: ConfirmationRequest) -> None:
        self.arrived[request.call_id] = time.perf_counter()
        super().present(request)


async def _round(
    client: AsyncNotchClient, cards: _Timed, index: int, size: int
) -> tuple[float, float, float]:
    """(one call's round trip, one call → its card queued, batch → all cards queued), s."""
    began = time.perf_counter()
    decision = await client.confirm(BENCH, "send_note", {"to": "sam", "n": index},
                                    call_id=f"rt-{index}")  # fmt: skip
    round_trip = time.perf_counter() - began
    assert decision.outcome == "approved"
    one_card = cards.arrived[f"rt-{index}"] - began

    calls = [BatchCall(BENCH, "send_note", {"to": "sam", "n": k}, call_id=f"b{index}-{k}")
             for k in range(size)]  # fmt: skip
    began = time.perf_counter()
    asking = asyncio.ensure_future(client.confirm_many(calls))
    await cards.wait_for(lambda: all(c.call_id in cards.arrived for c in calls), timeout=30)
    queued = max(cards.arrived[c.call_id] for c in calls) - began
    shown = [c for c in cards.cards.values() if c.batch_id is not None]
    assert len(shown) == size and {c.batch_size for c in shown} == {size}
    for card in shown:
        cards.decline(card.call_id)
    results = await asking
    assert all(getattr(r, "outcome", None) == "declined" for r in results)
    return round_trip, one_card, queued


async def main(rounds: int, size: int) -> None:
    with tempfile.TemporaryDirectory(prefix="notch-b") as name:
        base = Path(name)
        catalog = Catalog([Manifest.model_validate(MANIFEST)])
        notch = await start(base / "s" / "notch.sock", base / "data", presenter=_Timed,
                            catalog=catalog)  # fmt: skip
        cards = notch.presenter
        assert isinstance(cards, _Timed)
        try:
            async with AsyncNotchClient(notch.server.path) as client:
                for warm in range(5):
                    await _round(client, cards, -1 - warm, size)
                samples = [await _round(client, cards, i, size) for i in range(rounds)]
        finally:
            await notch.close()
    trips, ones, batches = (sorted(s[k] for s in samples) for k in range(3))
    p50 = statistics.median
    print(f"rounds: {rounds}, batch size: {size}, load: {os.getloadavg()[0]:.1f}")
    print(f"one call's round trip (approved at once): p50 {p50(trips) * 1e3:.2f} ms")
    print(f"one call → its card queued:               p50 {p50(ones) * 1e3:.2f} ms")
    print(f"batch of {size} → all {size} cards queued:      p50 {p50(batches) * 1e3:.2f} ms")
    ratio = p50(batches) / p50(trips)
    print(f"batch queued / one round trip: {ratio:.2f}x (target ≤ 2x) — "
          f"{'met' if ratio <= 2 else 'MISSED'}")  # fmt: skip
    print(f"batch queued / one card queued: {p50(batches) / p50(ones):.2f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--size", type=int, default=20)
    options = parser.parse_args()
    asyncio.run(main(options.rounds, options.size))
