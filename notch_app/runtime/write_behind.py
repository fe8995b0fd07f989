"""Group commit: the service's store writes, queued and committed in batches off the loop.

Writes queue in the loop and go to disk in batches on one writer thread, so an fsync
never stalls the loop and a flood costs a few fsyncs, not one each. The writer is FIFO:
a write queued after another is committed with it or after it, never before (the
service relies on this: a decision queued behind its request's row). Each write's
`written` callback runs back in the loop once its batch is committed (or failed), a
slice at a time for a big batch, so announcing a flood never stalls the loop either.

A write may be held (`write(..., hold_s=...)`): it is not a reason to commit by itself,
and waits for `commit_held()`, for any write that is not held, for `drain`/`close`, or
at most `hold_s` seconds. Held writes at the head of the queue are committed in a batch
of their own, before what came after them: a later write's failure (a decision on a full
disk) cannot undo them, as when they were committed at once. The service holds a card's
request row until the card's first frame is painted, so the commit's Python does not
compete with that paint for the GIL (benchmarks/README-overlay.md, session 6, helper W).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Final

from notch_app.runtime.store import DecisionStore, StoreDamaged, StoreError, WriteOp

log = logging.getLogger("notch.service")

Written = Callable[[StoreError | None], None]
"""Told, in the loop, whether its write was committed (None) or why it was not."""

_ANNOUNCE_SLICE_S: Final = 0.004
"""Callbacks run per loop turn after a commit, before yielding to the loop."""

MAX_REASON_CHARS: Final = 160
"""An unknown failure is told in its own words, cut here: it goes on a card, not in a log."""

# Why a write failed, in the person's words: by SQLite's primary result code
# (https://sqlite.org/rescode.html), by the OS's errno, then by SQLite's fixed messages.
_BY_SQLITE_CODE: Final = {
    13: "the disk is full",  # SQLITE_FULL
    8: "the store's disk or file is read-only",  # SQLITE_READONLY
    10: "the disk reported an error while writing (I/O error)",  # SQLITE_IOERR
    14: "the store's file cannot be opened",  # SQLITE_CANTOPEN
    11: "the store's file is damaged",  # SQLITE_CORRUPT
    26: "the store's file is damaged",  # SQLITE_NOTADB
    5: "another program is holding the store",  # SQLITE_BUSY
    6: "another program is holding the store",  # SQLITE_LOCKED
    3: "Notch is not allowed to write the store's file",  # SQLITE_PERM
}
_BY_ERRNO: Final = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "your disk quota is used up",
    errno.EROFS: "the store's disk or file is read-only",
    errno.EIO: "the disk reported an error while writing (I/O error)",
    errno.EACCES: "Notch is not allowed to write the store's file",
    errno.EPERM: "Notch is not allowed to write the store's file",
}
_BY_SQLITE_MESSAGE: Final = (
    ("database or disk is full", _BY_SQLITE_CODE[13]),
    ("readonly database", _BY_SQLITE_CODE[8]),
    ("disk i/o error", _BY_SQLITE_CODE[10]),
    ("unable to open database file", _BY_SQLITE_CODE[14]),
    ("database disk image is malformed", _BY_SQLITE_CODE[11]),
    ("database is locked", _BY_SQLITE_CODE[5]),
)


def why_not_stored(error: StoreError) -> str:
    """Why a write failed, short and in plain words for a card ("the disk is full"), from
    the SQLite or OS error behind `error` (its `__cause__`) or its message; an error it
    does not know is told in its own words, cut to MAX_REASON_CHARS. Never raises."""
    cause = error.__cause__
    if isinstance(cause, sqlite3.Error):
        code = getattr(cause, "sqlite_errorcode", None)
        if isinstance(code, int) and (code & 0xFF) in _BY_SQLITE_CODE:
            return _BY_SQLITE_CODE[code & 0xFF]  # extended codes keep the primary in the low byte
    if isinstance(cause, OSError) and cause.errno in _BY_ERRNO:
        return _BY_ERRNO[cause.errno]
    said = str(cause if cause is not None else error)
    lowered = said.lower()
    for words, reason in _BY_SQLITE_MESSAGE:
        if words in lowered:
            return reason
    flat = " ".join(said.split()) or type(cause or error).__name__
    return flat if len(flat) <= MAX_REASON_CHARS else flat[: MAX_REASON_CHARS - 1] + "…"


class WriteBehind:
    """Queues `DecisionStore` writes and commits them in batches on one writer thread.

    Single-threaded on the caller's side: `write`, `drain` and `close` run on the loop.
    """

    def __init__(
        self, store: DecisionStore, damaged: Callable[[StoreDamaged], None] | None = None
    ) -> None:
        """`damaged` hears, before any write's own callback, that a batch found the store's
        file damaged (it will not heal: the service stops taking requests)."""
        self.store = store
        self._damaged = damaged
        self._queued: list[tuple[WriteOp, Written, bool]] = []
        """(op, its callback, held) in the order written."""
        self._flushing = False
        """A batch is scheduled or being committed (its end looks at what queued since)."""
        self._urgent = False
        """Something queued must be committed as soon as the writer is free."""
        self._held_until: float | None = None
        """The loop time by which the held writes still queued must be committed."""
        self._hold_timer: asyncio.TimerHandle | None = None
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="notch-store")
        self._closed = False
        self._drained: list[asyncio.Future[None]] = []
        self._loop: asyncio.AbstractEventLoop | None = None

    def write(self, op: WriteOp, written: Written, *, hold_s: float | None = None) -> None:
        """Queue `op`; `written` runs in the loop once its batch is committed or failed.
        With `hold_s`, `op` may wait that many seconds at most for `commit_held()` (or
        for a write that is not held) before its commit starts. Must be called with the
        loop running."""
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        self._queued.append((op, written, hold_s is not None))
        if hold_s is None:
            self._urgent = True
        else:
            due = self._loop.time() + max(0.0, hold_s)
            self._held_until = due if self._held_until is None else min(self._held_until, due)
        if not self._flushing:
            self._schedule()

    def commit_held(self) -> None:
        """Commit the held writes now (with whatever else is queued), or as soon as the
        batch being committed is done."""
        if self._queued and not self._closed:
            self._urgent = True
            if not self._flushing:
                self._schedule()

    async def drain(self) -> None:
        """Wait until every write queued so far is on disk (and its callback has run),
        held ones included."""
        self.commit_held()
        if self._flushing:
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._drained.append(waiter)
            await waiter

    def close(self) -> None:
        """Wait for the batch being committed, then commit what is still queued here, on
        this thread. Callbacks no longer run: whoever closes is going away."""
        self._closed = True
        if self._hold_timer is not None:
            self._hold_timer.cancel()
            self._hold_timer = None
        self._writer.shutdown(wait=True)
        if self._queued:
            self.store.write([op for op, _, _ in self._queued])
            self._queued.clear()

    def _schedule(self) -> None:
        """Nothing is being committed and something is queued: commit it on the next loop
        turn if any of it is urgent, else when the earliest held write is due."""
        loop = self._loop or asyncio.get_running_loop()
        if self._urgent:
            if self._hold_timer is not None:
                self._hold_timer.cancel()
                self._hold_timer = None
            self._flushing = True
            loop.call_soon(self._flush)
        elif self._hold_timer is None and self._held_until is not None:
            self._hold_timer = loop.call_at(self._held_until, self._hold_ended)

    def _hold_ended(self) -> None:
        self._hold_timer = None
        self.commit_held()

    def _flush(self) -> None:
        if self._closed:
            return
        queued = self._queued
        cut = len(queued)
        if queued and queued[0][2]:
            # Held writes first, alone: the batch behind them may fail without them.
            cut = next((i for i, (_, _, held) in enumerate(queued) if not held), cut)
        batch, self._queued = [(op, w) for op, w, _ in queued[:cut]], queued[cut:]
        self._urgent = bool(self._queued)  # what is left starts with a write not held
        self._held_until = None
        loop = self._loop or asyncio.get_running_loop()
        job = loop.run_in_executor(self._writer, self.store.write, [op for op, _ in batch])
        job.add_done_callback(lambda done: self._flushed(batch, done))

    def _flushed(
        self, batch: list[tuple[WriteOp, Written]], job: asyncio.Future[list[StoreError | None]]
    ) -> None:
        if self._closed:
            return
        try:
            results = job.result()
        except Exception as exc:  # the writer thread itself failed: nothing is stored
            failed = StoreError(f"{self.store.path}: {exc}")
            failed.__cause__ = exc
            results = [failed for _ in batch]
        broken = next((e for e in results if isinstance(e, StoreDamaged)), None)
        if broken is not None and self._damaged is not None:
            try:
                self._damaged(broken)
            except Exception:
                log.exception("after the store was found damaged")
        self._announce(list(zip([w for _, w in batch], results, strict=True)), 0)

    def _announce(self, done: list[tuple[Written, StoreError | None]], start: int) -> None:
        # A big batch (a flood) is announced a slice at a time, so the loop never stalls.
        began = time.perf_counter()
        index = start
        while index < len(done):
            written, error = done[index]
            index += 1
            try:
                written(error)
            except Exception:
                log.exception("after a store write")
            if index < len(done) and time.perf_counter() - began > _ANNOUNCE_SLICE_S:
                (self._loop or asyncio.get_running_loop()).call_soon(self._announce, done, index)
                return
        if self._closed:
            return
        if self._queued and self._urgent:
            self._flush()
            return
        self._flushing = False
        if self._queued:  # only held writes came meanwhile (after any drain): they wait
            self._schedule()
        for waiter in self._drained:
            if not waiter.done():
                waiter.set_result(None)
        self._drained.clear()
