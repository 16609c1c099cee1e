"""How a queue stores its messages: the heaps and counters every operation keeps right, and lazy time.

A queue (engine/records.py) holds every message in ``_live`` (send order) and files it in heaps: ``_visible``
(standard queues: visible messages, oldest send first), ``_hidden`` (in flight or delayed, by when each becomes
visible), ``_ret`` (by enqueue time, for retention) and, in FIFO queues, ``_gheap`` (message groups by when
each is ready). Changing a message gives it a new version (``ver``), which makes its older heap entries dead:
they are skipped when met and dropped in bulk (``compact``) once they outnumber the live messages. Counters
``_nvis``/``_ninflight``/``_ndelayed`` are exact at every moment.

State is lazy: a message whose time comes at T becomes visible (or expires) when the first operation on its
queue at or after T calls ``settle``, so a message costs no clock event unless somebody long-polls.

Functions of the engine, bound as its private methods in engine/core.py (``eng._settle(q)``).
"""

from __future__ import annotations

from heapq import heapify, heappop, heappush

from .records import DELAYED, GONE, INFLIGHT, VISIBLE, Group, Receipt


def enqueue(eng, q, m, delay):
    """Put ``m`` into ``q``: visible, or delayed for ``delay`` s; in a FIFO queue, at the end of its group."""
    now = eng.now
    q._live[m.seq] = m
    heappush(q._ret, (m.enqueued_at, m.seq, m))
    if delay > 0:
        m.state = DELAYED
        m.visible_at = t = now + delay
        m.ver = v = next(eng._seq)
        heappush(q._hidden, (t, v, m))
        q._ndelayed += 1
    else:
        m.state = VISIBLE
        m.visible_at = now
        q._nvis += 1
        if not q.fifo:
            heappush(q._visible, (m.seq, m))
    if q.fifo:
        g = q._groups.get(m.group_id)
        if g is None:
            g = q._groups[m.group_id] = Group(m.group_id)
        g.msgs.append(m)
        if len(g.msgs) == 1:
            eng._gtouch(q, g)


def deliver(eng, q, m, vt, now):
    """Hand ``m`` to a receive: count +1, a new receipt handle, hidden for ``vt`` s (0: stays visible)."""
    m.receive_count += 1
    if m.first_received_at is None:
        m.first_received_at = now
    n = q._nrecv
    q._nrecv = n + 1
    r = Receipt(f"{q._hprefix}{n:x}", m, now, m.receipt)
    m.receipt = r
    q._handles[r.handle] = r
    if vt > 0:
        q._nvis -= 1
        q._ninflight += 1
        m.state = INFLIGHT
        m.visible_at = t = now + vt
        m.ver = v = next(eng._seq)
        heappush(q._hidden, (t, v, m))
    else:
        m.visible_at = now  # VT 0: visible again at once, new handle each time (ev. 1.1, AWS-REC)
    return r


def remove(eng, q, m):
    """Take ``m`` out of ``q`` (deleted, expired, purged or moved) and forget its handles."""
    st = m.state
    if st == VISIBLE:
        q._nvis -= 1
    elif st == INFLIGHT:
        q._ninflight -= 1
    elif st == DELAYED:
        q._ndelayed -= 1
    m.state = GONE
    m.ver = 0
    q._dead += 2  # its retention entry, and its visible or hidden entry
    del q._live[m.seq]
    r = m.receipt
    hs = q._handles
    while r is not None:
        hs.pop(r.handle, None)
        r = r.prev
    m.receipt = None
    if q.fifo:
        g = q._groups[m.group_id]
        if g.msgs[0] is m:
            g.msgs.popleft()
            if g.msgs:
                eng._gtouch(q, g)
                if q._waiters:
                    eng._arm(q)  # deferred: _remove also runs inside a receive
            else:
                del q._groups[m.group_id]
                g.ver = -1
        else:
            g.msgs.remove(m)


def gtouch(eng, q, g):
    """Re-file FIFO group ``g`` in the ready heap at the time its head becomes (or became) visible."""
    g.ver = v = next(eng._seq)
    q._dead += 1
    t = g.msgs[0].visible_at
    heappush(q._gheap, (t if t > eng.now else eng.now, v, g))


def settle(eng, q):
    """Bring ``q`` up to ``now``: in-flight/delayed messages whose time came become visible; retention.

    Runs first in every receive, so it is also where dead heap entries are dropped (never mid-loop)."""
    if q._dead > 1024 and q._dead > len(q._live):
        eng._compact(q)
    now = eng.now
    h = q._hidden
    if h and h[0][0] <= now:
        vis = None if q.fifo else q._visible
        while h and h[0][0] <= now:
            _, ver, m = heappop(h)
            if m.ver != ver:
                continue  # stale entry: the message was changed, received again or is gone
            if m.state == INFLIGHT:
                q._ninflight -= 1
            else:
                q._ndelayed -= 1
            m.state = VISIBLE
            q._nvis += 1
            if vis is not None:
                heappush(vis, (m.seq, m))
    r = q._ret
    if r and r[0][0] + q.retention <= now:
        eng._expire(q)


def expire(eng, q):
    """Drop messages older than the retention period (DOC; counted from the enqueue time, ev. 1.6)."""
    r, limit = q._ret, eng.now - q.retention
    while r and r[0][0] <= limit:
        _, seq, m = heappop(r)
        if m.queue is q and m.state != GONE and m.seq == seq and m.enqueued_at <= limit:
            eng._remove(q, m)
            q.n_expired += 1


def compact(eng, q):
    """Drop dead heap entries once they outnumber live messages (keeps memory bounded by live messages)."""
    q._dead = 0
    q._hidden = [e for e in q._hidden if e[2].ver == e[1]]
    heapify(q._hidden)
    q._ret = [e for e in q._ret if e[2].queue is q and e[2].state != GONE and e[2].seq == e[1]]
    heapify(q._ret)
    if q.fifo:
        q._gheap = [e for e in q._gheap if e[2].ver == e[1]]
        heapify(q._gheap)
    else:
        q._visible = [e for e in q._visible if e[1].state == VISIBLE and e[1].queue is q]
        heapify(q._visible)
