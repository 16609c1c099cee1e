"""The virtual clock: one heap of timed events ``(time, seq, fn, args)``, equal times in FIFO order (as SimPy).

Public API: ``now``, ``schedule``, ``schedule_series``, ``peek``, ``step``, ``run`` (a loop over what ``step``
does, inlined for speed), ``advance``. The SQS state machine (engine/core.py) subclasses :class:`Clock` and
uses its protected members directly on its hot paths: ``_heap`` (push ``(t, next(_seq), fn, args)``),
``_soon`` (events at ``now``: append ``(next(_seq), fn, args)``) and ``_seq``; and it names two "guarded"
event functions whose events are first offered to ``_idle(t, fn, arg)``: an idle one is dropped without
running and without moving the clock (a long-poll wake-up nobody waits for any more).
"""

from __future__ import annotations

import itertools
from collections import deque
from heapq import heappop, heappush

INF = float("inf")


class Clock:
    """A discrete-event clock in virtual epoch seconds."""

    def __init__(self, start_time: float = 0.0):
        self.now = float(start_time)
        self._heap = []
        # Events at the current instant (delay 0) wait in this FIFO, not the heap, as (seq, fn, args): one runs
        # before the heap's head whenever that head is later, or at the same time with a larger seq, which is
        # exactly the heap's (time, seq) order (cheaper: no heap push and pop for the commonest event).
        self._soon = deque()
        # schedule_series: [times, next index, fn], and the (time, seq) of its next call as if it were a heap
        # event (INF: none)
        self._series = None
        self._series_at = INF
        self._series_seq = 0
        self._seq = itertools.count(1)
        self._guard_a = self._guard_b = object()  # the guarded event functions (none by default)

    def _idle(self, t, fn, arg) -> bool:
        """A guarded event that has nothing left to do (dropped unrun); subclasses decide."""
        return False

    # ------------------------------------------------------------------ scheduling
    def schedule(self, delay, fn, *args):
        """Run ``fn(*args)`` at ``now + delay`` on the shared heap; equal times run in FIFO order."""
        if delay > 0:
            heappush(self._heap, (self.now + delay, next(self._seq), fn, args))
        elif delay == 0:
            self._soon.append((next(self._seq), fn, args))
        else:
            raise ValueError("delay must be >= 0")

    def schedule_series(self, times, fn):
        """Call ``fn(i)`` at each virtual epoch time ``times[i]`` (non-decreasing, not in the past) without a
        heap event per call: run() merges the series with the heap. The calls of one instant run together,
        ordered among other events as one event scheduled now (the first instant) or by the previous
        instant's calls (the next ones): the order of a chain of events each scheduling the next. One series
        at a time (a simulation's precomputed arrivals)."""
        if self._series is not None:
            raise ValueError("a series is already scheduled")
        times = list(times)
        if times and (times[0] < self.now or any(b < a for a, b in zip(times, times[1:], strict=False))):
            raise ValueError("series times must be non-decreasing and not in the past")
        if times:
            self._series = [times, 0, fn]
            self._series_at, self._series_seq = times[0], next(self._seq)

    def _series_call(self):
        """Run every call of the series' next instant, then place the following instant."""
        s = self._series
        times, i, fn = s
        t = times[i]
        if t > self.now:
            self.now = t
        n = len(times)
        while i < n and times[i] <= t:
            s[1] = i + 1
            fn(i)
            i += 1
        if i < n:
            self._series_at, self._series_seq = times[i], next(self._seq)
        else:
            self._series, self._series_at = None, INF

    # ------------------------------------------------------------------ running
    def next_event_time(self) -> float:
        """The time of the next event (``now`` for zero-delay ones), INF when there is none. A guarded event
        that turns out idle may make this earlier than the next event that really runs."""
        if self._soon:
            return self.now
        t = self._heap[0][0] if self._heap else INF
        return t if t < self._series_at else self._series_at

    def step(self) -> bool:
        """Run the next event (in the order run() would); False when there is none."""
        heap, soon = self._heap, self._soon
        ga, gb = self._guard_a, self._guard_b
        while True:
            if soon and self._soon_first():
                _, fn, args = soon.popleft()
                fn(*args)
                return True
            if (
                not heap
                or self._series_at < heap[0][0]
                or (self._series_at == heap[0][0] and self._series_seq < heap[0][1])
            ):
                if self._series is None:
                    return False
                self._series_call()
                return True
            t, _, fn, args = heappop(heap)
            if (fn is ga or fn is gb) and self._idle(t, fn, args[0]):
                continue
            if t > self.now:
                self.now = t
            fn(*args)
            return True

    def run(self, until=None):
        """Run events until there are none, or up to ``until`` (virtual epoch seconds, inclusive); then, if
        ``until`` is later than ``now``, move ``now`` there. The body is ``step`` inlined (the hot loop)."""
        heap, soon = self._heap, self._soon
        ga, gb = self._guard_a, self._guard_b
        lim = INF if until is None else until
        while True:
            # three sources in (time, seq) order: zero-delay events (at now), the heap, the series
            if soon and (  # inlined _soon_first (hot path)
                not (heap and heap[0][0] <= self.now and heap[0][1] < soon[0][0])
                and (self._series_at > self.now or self._series_seq > soon[0][0])
            ):
                if self.now > lim:
                    break
                _, fn, args = soon.popleft()
                fn(*args)
                continue
            if (
                not heap
                or self._series_at < heap[0][0]
                or (self._series_at == heap[0][0] and self._series_seq < heap[0][1])
            ):
                if self._series is None or self._series_at > lim:
                    break
                self._series_call()
                continue
            if heap[0][0] > lim:
                break
            t, _, fn, args = heappop(heap)
            if (fn is ga or fn is gb) and self._idle(t, fn, args[0]):
                continue  # nothing left to do: the event neither runs nor moves the clock
            if t > self.now:
                self.now = t
            fn(*args)
        if until is not None and until > self.now:
            self.now = float(until)

    def advance(self, seconds):
        """Run every event up to ``now + seconds``, then set ``now`` there."""
        if not seconds >= 0:
            raise ValueError("cannot move the virtual clock backwards")
        self.run(self.now + seconds)

    def _soon_first(self):
        """The head of the zero-delay FIFO (time now) comes before the heap's head and the series' next call."""
        seq, now, heap = self._soon[0][0], self.now, self._heap
        if heap and heap[0][0] <= now and heap[0][1] < seq:
            return False
        return self._series_at > now or self._series_seq > seq
