"""Group commit: the service's store writes, queued and committed in batches off the loop.

Writes queue in the loop and go to disk in batches on one writer thread, so an fsync
never stalls the loop and a flood costs a few fsyncs, not one each. The writer is FIFO:
a write queued after another is committed with it or after it, never before (the
service relies on this: a decision queued behind its request's row). Each write's
`written` callback runs back in the loop once its batch is committed (or failed), a
slice at a time for a big batch, so announcing a flood never stalls the loop either.
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
        self._queued: list[tuple[WriteOp, Written]] = []
        self._flushing = False
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="notch-store")
        self._closed = False
        self._drained: list[asyncio.Future[None]] = []
        self._loop: asyncio.AbstractEventLoop | None = None

    def write(self, op: WriteOp, written: Written) -> None:
        """Queue `op`; `written` runs in the loop once its batch is committed or failed.
        Must be called with the loop running."""
        self._queued.append((op, written))
        if not self._flushing:
            self._flushing = True
            if self._loop is None:
                self._loop = asyncio.get_running_loop()
            self._loop.call_soon(self._flush)

    async def drain(self) -> None:
        """Wait until every write queued so far is on disk (and its callback has run)."""
        if self._flushing:
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._drained.append(waiter)
            await waiter

    def close(self) -> None:
        """Wait for the batch being committed, then commit what is still queued here, on
        this thread. Callbacks no longer run: whoever closes is going away."""
        self._closed = True
        self._writer.shutdown(wait=True)
        if self._queued:
            self.store.write([op for op, _ in self._queued])
            self._queued.clear()

    def _flush(self) -> None:
        if self._closed:
            return
        batch, self._queued = self._queued, []
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
        if self._queued:
            self._flush()
        else:
            self._flushing = False
            for waiter in self._drained:
                if not waiter.done():
                    waiter.set_result(None)
            self._drained.clear()
