"""Compose the service and its socket without any UI: `notch run` calls this with its
overlay as the presenter; tests and benchmarks call it with a test presenter.

    async with await start(socket_path, data_dir, manifest_dirs, presenter) as notch:
        ...                      # notch.service, notch.server, notch.problems

or `await serve(...)` to run until cancelled.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable, Sequence
from pathlib import Path

from notch_app.ipc.server import NotchServer
from notch_app.runtime.approval_memory import ApprovalMemory
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.policy import Policy
from notch_app.runtime.presenter import DecisionSink, Presenter
from notch_app.runtime.redaction import facts_in
from notch_app.runtime.service import ConfirmationService
from notch_app.runtime.store import DecisionStore

PresenterOrFactory = Presenter | Callable[[DecisionSink], Presenter] | None


class RunningNotch:
    """A started service and server. `close()` (or leaving `async with`) stops both;
    open requests stay in the store and come back parked on the next start."""

    def __init__(
        self,
        service: ConfirmationService,
        server: NotchServer,
        problems: list[str],
        presenter: Presenter | None = None,
    ) -> None:
        self.service = service
        self.server = server
        self.presenter = presenter
        self.problems = problems
        """Manifests that were skipped, as `notch validate` lines."""

    async def __aenter__(self) -> RunningNotch:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self.server.close()
        self.service.close()


def settle_heap() -> None:
    """Take everything allocated so far (modules, manifests, compiled schemas: alive for
    the whole run anyway) out of the cyclic garbage collector's scans (`gc.freeze()`).

    A full collection walks every tracked object; with a loaded app that is tens of
    milliseconds with the event loop stopped, and a burst of requests triggers them.
    After this, full collections only walk what was allocated since. Call once, after
    startup; cheap (no collection is run), safe to call again.
    """
    gc.freeze()


async def start(
    socket_path: Path,
    data_dir: Path,
    manifest_dirs: Sequence[Path] = (),
    presenter: PresenterOrFactory = None,
    *,
    catalog: Catalog | None = None,
    policy: Policy | None = None,
) -> RunningNotch:
    """Load integrations (skipping invalid ones), open the store, recover undecided
    requests as parked cards, and listen on `socket_path`. Then `settle_heap()`.

    `presenter` is the card UI, or a factory given the service (its DecisionSink).
    Pass `catalog` to use integrations already loaded instead of `manifest_dirs`, and
    `policy` for the person's per-action choices (default: every acting tool asks).
    Raises StoreError or SocketError with a message naming the path and the fix.
    """
    problems: list[str] = []
    if catalog is None:
        catalog, problems = Catalog.load(list(manifest_dirs))
    loaded = catalog
    # Secret values never reach the file (an older store is scrubbed as it opens); which
    # they are follows the catalog in use.
    store = DecisionStore(data_dir, secrets_of=lambda i, t: facts_in(loaded, i, t))
    service = ConfirmationService(catalog, store, policy=policy)
    service.memory = ApprovalMemory.in_data_dir(data_dir)
    store.secrets_of = lambda integration, tool: facts_in(service.catalog, integration, tool)
    shown: Presenter | None = None
    try:
        if presenter is not None:
            shown = presenter(service) if callable(presenter) else presenter
            service.set_presenter(shown)
        await service.start()
        server = NotchServer(service, socket_path)
        await server.start()
    except BaseException:
        service.close()
        raise
    settle_heap()
    return RunningNotch(service, server, problems, shown)


async def serve(
    socket_path: Path,
    data_dir: Path,
    manifest_dirs: Sequence[Path] = (),
    presenter: PresenterOrFactory = None,
) -> None:
    """`start()` and run until cancelled, then close cleanly."""
    notch = await start(socket_path, data_dir, manifest_dirs, presenter)
    try:
        await asyncio.Event().wait()
    finally:
        await notch.close()
