"""Long polls on the virtual clock, and the in-flight quota's effect on them.

A long poll (``poll``; the client's WaitTimeSeconds) that finds nothing deliverable waits on its queue
(``q._waiters``, served in arrival order). It is answered at the first moment a message becomes deliverable
(a send, the end of a delay or a visibility timeout, CMV 0, a FIFO delete unblocking a group, a DLQ move) or
with [] when its wait is over. The waiters of a queue share its events on the clock's heap: a wake-up at the
next moment something may become deliverable (``arm``) and a poll timeout at the earliest deadline, each
superseding a later one; both are "guarded" events the clock drops unrun when no waiter is left (``idle``,
engine/clock.py). At the in-flight
quota a long poll gets nothing and no error (ev. 1.9). A send to a standard queue hands its message straight
to the oldest waiter when nothing else is visible (``hand_over``, the simulator's hot path).

Functions of the engine, bound as its methods in engine/core.py.
"""

from __future__ import annotations

from heapq import heappop, heappush

from .clock import INF
from .records import Waiter


def poll(eng, q, callback, *, max_messages=1, wait=20, visibility_timeout=None):
    """Long poll on the shared heap. ``callback(receipts)`` runs at once (synchronously, inside this
    call) if messages are deliverable; otherwise it is scheduled at the moment one becomes visible
    (send, delay end, expiry, CMV 0, a delete unblocking a FIFO group, a DLQ move), or with [] after
    ``wait`` seconds. Waiters are served in FIFO order. Never raises OverLimit (ev. 1.9)."""
    rs = eng._receive(q, max_messages, visibility_timeout, True)
    if rs or wait <= 0:
        callback(rs)
        return
    d = eng.now + wait
    w = Waiter(callback, max_messages, visibility_timeout, d)
    ws = q._waiters
    if not ws:
        q._wmono = True
    elif d < ws[-1].deadline:
        q._wmono = False  # a shorter wait behind a longer one: expiry must scan every waiter
    ws.append(w)
    # One timeout event per queue, at the earliest deadline, rather than one per poll (most polls are
    # served before their wait ends, and each event would cost a heap push and pop).
    if d < q._wtimer_at:
        q._wtimer_at = d
        heappush(eng._heap, (d, next(eng._seq), eng._timeout_fn, (q,)))
    eng._arm(q)


def serve(eng, q):
    """Hand what is deliverable to the waiting long polls, oldest first; each callback runs as an event
    at the current time (as ``schedule(0, ...)``: the caller's operation finishes first)."""
    ws = q._waiters
    soon, seq = eng._soon, eng._seq
    while ws:
        w = ws[0]
        if not w.active:
            ws.popleft()
            continue
        rs = eng._receive(q, w.max, w.vt, True, True)
        if not rs:
            break
        ws.popleft()
        w.active = False
        soon.append((next(seq), w.cb, (rs,)))
        if not q._nvis:
            break  # exact: that receive settled the queue at this instant; nothing left to hand out
    if ws:
        eng._arm(q)


def hand_over(eng, q, m):
    """Fast path of send (standard queue, no delay, a long poll waiting), the hot path of a simulation:
    give ``m`` straight to the oldest waiter, exactly as _enqueue + _serve would when nothing else is
    visible, without the visible heap and the generic receive. False (nothing done): take the generic
    path (something else visible, quota reached, or a VT 0 receive that keeps the message visible)."""
    eng._settle(q)  # messages coming back at this instant are older: they would go first
    if q._nvis or q._ninflight >= eng.inflight_limit:
        return False
    ws = q._waiters
    while ws and not ws[0].active:
        ws.popleft()
    if not ws:
        return False
    w = ws[0]
    vt = q.visibility_timeout if w.vt is None else w.vt
    if vt <= 0:
        return False
    now = eng.now
    q._live[m.seq] = m  # _enqueue, minus the visible heap (visible for no time at all)
    heappush(q._ret, (m.enqueued_at, m.seq, m))
    q._nvis += 1
    r = eng._deliver(q, m, vt, now)
    ws.popleft()
    w.active = False
    eng._soon.append((next(eng._seq), w.cb, ([r],)))  # as _serve: the callback is an event now
    if ws:
        eng._arm(q)
    return True


def arm(eng, q):
    """Make sure a wake-up event is on the heap for the next moment ``q`` gets a deliverable message."""
    if not q.fifo:  # quick exit (hot path): the earliest hidden entry, stale or not, is not before it
        h = q._hidden
        if not h or h[0][0] >= q._wake_at:
            return
    t = eng._next_visible(q)
    if t < q._wake_at:
        q._wake_at = t
        heappush(eng._heap, (t if t > eng.now else eng.now, next(eng._seq), eng._wake_fn, (q,)))


def next_visible(eng, q):
    """When the next hidden message of ``q`` becomes visible (FIFO: the next group becomes ready). At the
    in-flight quota nothing is deliverable before an in-flight message comes back (or is deleted: FIFO
    deletes serve the waiters themselves), so the next hidden message is the answer for FIFO too (a
    ready group would re-arm a wake-up at this same instant forever)."""
    if q.fifo and q._ninflight < eng.inflight_limit:
        gh = q._gheap
        while gh and gh[0][2].ver != gh[0][1]:
            heappop(gh)
        return gh[0][0] if gh else INF
    h = q._hidden
    while h and h[0][2].ver != h[0][1]:
        heappop(h)
    return h[0][0] if h else INF


def wake(eng, q):
    """The wake-up event of ``q``: serve its waiters, then re-arm for the next message they may get."""
    if eng.now >= q._wake_at:
        q._wake_at = INF
    if eng._queues.get(q._key) is not q:
        return
    eng._serve(q)
    if q._waiters:
        eng._arm(q)


def poll_timeouts(eng, q):
    """The poll-timeout event of ``q``: every waiter whose wait is over gets [], earliest deadline first
    (ties in arrival order, as one event per poll would run them); then re-arm for the next deadline."""
    now = eng.now
    if now != q._wtimer_at:
        return  # superseded: an earlier deadline re-armed the timer
    q._wtimer_at = INF
    ws = q._waiters
    if q._wmono:  # deadlines ascend: the expired waiters are at the front
        expired = []
        while ws and (not ws[0].active or ws[0].deadline <= now):
            w = ws.popleft()
            if w.active:
                expired.append(w)
    else:
        live = [w for w in ws if w.active]
        expired = sorted((w for w in live if w.deadline <= now), key=_deadline)
        ws.clear()
        ws.extend(w for w in live if w.deadline > now)
        ds = [w.deadline for w in ws]
        q._wmono = ds == sorted(ds)
    if ws:
        d = ws[0].deadline if q._wmono else min(w.deadline for w in ws)
        q._wtimer_at = d
        heappush(eng._heap, (d, next(eng._seq), eng._timeout_fn, (q,)))
    for w in expired:
        w.active = False
    for w in expired:
        w.cb([])


def idle(eng, t, fn, q):
    """A wake-up or poll-timeout event of ``q`` with no long poll left to serve: disarm it, skip it."""
    if q._waiters:
        return False
    if fn is eng._wake_fn:
        if t >= q._wake_at:
            q._wake_at = INF
    elif t >= q._wtimer_at:
        q._wtimer_at = INF
    return True


def _deadline(w):
    return w.deadline
