"""The time a voice round waits on: the wall clock for a person, a file's own time for tests.

Everything in a round that waits asks the channel's clock: the WAV input's pace, how long
the read-back lasts, the listening spell after the question. `WallClock` is the real one:
a person speaks in real time, so a WAV file is played at the pace a person would say it,
and the read-back plays on the speakers.

`FileClock` plays a WAV file as fast as the recognizer can take it, with the same meaning:
the audio is stamped in the file's own time, the read-back lasts its length in that time
(on no device), the listening spell is counted in it, and the file is followed by silence.
Time stands still while the read-back is rendered or the hearing thread has audio left to
take, so nothing real-time (espeak-ng, the decoder) shifts the file against the question:
a word whose audio falls before the read-back's end is discarded exactly as on the wall
clock, to the sample. Only a test makes one, inside the notch's own process
(`OverlayPresenter(..., voice_clock=FileClock())`); nothing in the environment or on the
socket reaches it, and a voice channel refuses it for a microphone.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import Protocol

from PySide6.QtCore import QObject, QTimer

TICK_MS = 30
"""The WAV input hands on this much audio at a time (as a microphone does, about)."""
TICKS_PER_TURN = 32
"""FileClock: audio ticks between two turns of the event loop (about 1 s of file time),
so that the notch still paints and the socket still answers while a file plays."""


class Timer(Protocol):
    """A single-shot wait (QTimer's own face)."""

    def start(self, msec: int) -> None: ...
    def stop(self) -> None: ...
    def isActive(self) -> bool: ...


class Ticks(Protocol):
    """Calls its owner with the clock's time every TICK_MS while started."""

    def start(self) -> None: ...
    def stop(self) -> None: ...
    def isActive(self) -> bool: ...


class VoiceClock(Protocol):
    """What a voice round waits on (`WallClock` or `FileClock`)."""

    @property
    def real_time(self) -> bool:
        """True for the wall clock: the read-back plays on the speakers."""
        ...

    def now(self) -> float:
        """Seconds, on this clock (only differences mean anything)."""
        ...

    def one_shot(self, parent: QObject, on_timeout: Callable[[], None]) -> Timer:
        """A single-shot timer owned by `parent` calling `on_timeout`."""
        ...

    def ticks(self, parent: QObject, on_tick: Callable[[float], None]) -> Ticks:
        """Ticks owned by `parent` calling `on_tick(now)`."""
        ...

    def hold(self, who: object) -> None:
        """Time stands still while `who` works (rendering, hearing); no-op on the wall."""
        ...

    def release(self, who: object) -> None:
        """`who` is done: time goes on (once nothing else holds it)."""
        ...


class WallClock:
    """Real time: QTimers and `time.monotonic()`. What `notch run` always uses."""

    real_time = True

    def now(self) -> float:
        return time.monotonic()

    def one_shot(self, parent: QObject, on_timeout: Callable[[], None]) -> Timer:
        timer = QTimer(parent)
        timer.setSingleShot(True)
        timer.timeout.connect(on_timeout)
        return timer

    def ticks(self, parent: QObject, on_tick: Callable[[float], None]) -> Ticks:
        timer = QTimer(parent)
        timer.setInterval(TICK_MS)
        timer.timeout.connect(lambda: on_tick(time.monotonic()))
        return timer

    def hold(self, who: object) -> None:
        """Real time never stands still."""

    def release(self, who: object) -> None:
        """Real time never stands still."""


class FileClock(QObject):
    """A WAV file's own time, run as fast as the hearing takes it (tests only; see the
    module's docstring). Starts at 0 and moves only forward: to the next timer due, or
    TICK_MS at a time while a WAV input is open, and never while something holds it."""

    real_time = False

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._now = 0.0
        self._order = itertools.count()
        self._due: dict[_FileTimer, tuple[float, int]] = {}
        self._ticking: list[_FileTicks] = []
        self._holds: set[object] = set()
        # Each turn ends in the event loop: queued signals (the hearing thread's) are
        # delivered, and the notch paints, before time moves on.
        self._turn = QTimer(self)
        self._turn.setSingleShot(True)
        self._turn.setInterval(0)
        self._turn.timeout.connect(self._run)

    def now(self) -> float:
        return self._now

    def one_shot(self, parent: QObject, on_timeout: Callable[[], None]) -> Timer:
        timer = _FileTimer(self, on_timeout)
        parent.destroyed.connect(timer.stop)
        return timer

    def ticks(self, parent: QObject, on_tick: Callable[[float], None]) -> Ticks:
        ticks = _FileTicks(self, on_tick)
        parent.destroyed.connect(ticks.stop)
        return ticks

    def hold(self, who: object) -> None:
        self._holds.add(who)

    def release(self, who: object) -> None:
        self._holds.discard(who)
        self._go_on()

    @property
    def held(self) -> bool:
        """True while something holds time still."""
        return bool(self._holds)

    # ---- for _FileTimer and _FileTicks --------------------------------------------

    def _arm(self, timer: _FileTimer, msec: int) -> None:
        self._due[timer] = (self._now + max(0, msec) / 1000, next(self._order))
        self._go_on()

    def _disarm(self, timer: _FileTimer) -> None:
        self._due.pop(timer, None)

    def _is_armed(self, timer: _FileTimer) -> bool:
        return timer in self._due

    def _start_ticks(self, ticks: _FileTicks) -> None:
        if ticks not in self._ticking:
            self._ticking.append(ticks)
        self._go_on()

    def _stop_ticks(self, ticks: _FileTicks) -> None:
        if ticks in self._ticking:
            self._ticking.remove(ticks)

    def _is_ticking(self, ticks: _FileTicks) -> bool:
        return ticks in self._ticking

    # ---- moving on ----------------------------------------------------------------

    def _go_on(self) -> None:
        if not self._holds and (self._due or self._ticking) and not self._turn.isActive():
            self._turn.start()

    def _run(self) -> None:
        """One turn: fire what is due, else move on by one tick (or to the next timer
        when no input is open); stop at once when something holds time still."""
        for _ in range(TICKS_PER_TURN):
            if self._holds:
                return  # `release` starts the next turn
            nearest = min(self._due.items(), key=lambda item: item[1], default=None)
            if nearest is not None and nearest[1][0] <= self._now:
                timer = nearest[0]
                del self._due[timer]
                timer.fire()
                continue
            if not self._ticking:
                if nearest is None:
                    return  # nothing waits: idle until a timer or an input starts
                self._now = nearest[1][0]
                continue
            # Audio up to a timer's moment is heard before the timer fires: the
            # read-back's end splits the tick, to the sample.
            upto = self._now + TICK_MS / 1000
            if nearest is not None:
                upto = min(upto, nearest[1][0])
            self._now = upto
            for ticks in list(self._ticking):
                ticks.fire(upto)
        self._go_on()


class _FileTimer:
    """A FileClock's single-shot timer."""

    def __init__(self, clock: FileClock, on_timeout: Callable[[], None]) -> None:
        self._clock = clock
        self._on_timeout = on_timeout

    def start(self, msec: int) -> None:
        self._clock._arm(self, msec)

    def stop(self) -> None:
        self._clock._disarm(self)

    def isActive(self) -> bool:
        return self._clock._is_armed(self)

    def fire(self) -> None:
        self._on_timeout()


class _FileTicks:
    """A FileClock's ticks: called at every step of the file's time while started."""

    def __init__(self, clock: FileClock, on_tick: Callable[[float], None]) -> None:
        self._clock = clock
        self._on_tick = on_tick

    def start(self) -> None:
        self._clock._start_ticks(self)

    def stop(self) -> None:
        self._clock._stop_ticks(self)

    def isActive(self) -> bool:
        return self._clock._is_ticking(self)

    def fire(self, now: float) -> None:
        self._on_tick(now)
