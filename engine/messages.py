"""The message lifecycle: SendMessage, ReceiveMessage, DeleteMessage, ChangeMessageVisibility.

Receipt handles (a new one per receive, stale ones honoured, malformed ones refused), the visibility timeout
(counted from the receive or the ChangeMessageVisibility call, 0 = visible at once) and its 12-hour cap per
receipt (``cap_anchor``), the in-flight quota on receive. What only FIFO queues do (deduplication, the group
order, ReceiveRequestAttemptId) is in engine/fifo.py, the move to a dead-letter queue in engine/redrive.py,
long polls in engine/longpoll.py, the heaps and counters in engine/store.py.

Functions of the engine, bound as its methods in engine/core.py; each reaches the others through the engine
(``eng._settle(q)``), as a method would. Evidence: docs/reference/sqs-semantics-evidence.md ("ev. 1.3").
"""

from __future__ import annotations

from heapq import heappop, heappush

from visguard import facts

from . import errors as E
from .attributes import MAX_VISIBILITY
from .records import INFLIGHT, VISIBLE, Message, Receipt


def send(eng, q, body, *, delay=None, group_id=None, dedup_id=None, message_attributes=None):
    """SendMessage. Returns the Message, or None when a FIFO deduplication id was seen in the last 5 min."""
    now = eng.now
    if q.fifo:
        dedup_id = eng._fifo_admit(q, body, delay, group_id, dedup_id)  # engine/fifo.py
        if dedup_id is None:
            return None  # DOC: "accepted successfully but aren't delivered"; outlives delete (ev. 1.7)
    elif delay is not None and not facts.DELAY.lo <= delay <= facts.DELAY.hi:
        raise E.delay_range(delay)
    eng._nmsg += 1
    m = Message(f"{eng._idbase}{eng._nmsg:012x}", body, next(eng._seq), q, now, group_id, dedup_id,
                message_attributes)  # fmt: skip
    if q.fifo:
        eng._fifo_record(q, m)
    q.n_sent += 1
    # DOC: FIFO queues take no per-message delay (0 is accepted and does not override the queue's delay)
    d = q.delay_seconds if delay is None or q.fifo else delay
    if q._waiters and not d and not q.fifo and eng._hand_over(q, m):
        return m
    eng._enqueue(q, m, d)
    if q._waiters:
        if d > 0:
            eng._arm(q)
        else:
            eng._serve(q)
    return m


def receive(eng, q, max_messages=1, *, visibility_timeout=None, attempt_id=None):
    """ReceiveMessage as a short poll (never blocks). Returns a list of Receipts (maybe empty).

    Raises ``OverLimit`` (HTTP 403) on a standard queue at the in-flight limit (ev. 1.9). ``attempt_id``:
    FIFO ReceiveRequestAttemptId (see ``replay_attempt``); ignored on standard queues.
    """
    if attempt_id is not None and q.fifo:
        rs = eng.replay_attempt(q, attempt_id, visibility_timeout)
        if rs is not None:
            return rs
    rs = eng._receive(q, max_messages, visibility_timeout, False)
    if attempt_id is not None and q.fifo:
        eng.remember_attempt(q, attempt_id, rs)
    return rs


def receive_core(eng, q, max_messages, vt, long, serving=False):
    """Every receive (short poll, long poll, a waiter served): settle, the in-flight quota, then the standard
    or the FIFO order. ``serving``: called by _serve for a waiting long poll (which must not serve the waiters
    again)."""
    eng._settle(q)
    room = eng.inflight_limit - q._ninflight
    if room <= 0:
        if long or q.fifo:
            return []  # DOC: long polling and FIFO queues return no error
        raise E.over_limit()
    if not q._nvis:
        return []  # nothing visible (FIFO: blocked messages count as visible, so this holds there too)
    if vt is None:
        vt = q.visibility_timeout
    take = max_messages if max_messages < room else room
    out = eng._receive_fifo(q, take, vt) if q.fifo else eng._receive_std(q, take, vt, long)
    if out and q._waiters and not serving:
        if vt > 0:
            eng._arm(q)
        else:
            eng._serve(q)
    return out


def receive_standard(eng, q, take, vt, long):
    """Standard queues: the oldest visible messages first; a short poll may sample (``short_poll_sampling``)."""
    now = eng.now
    vis = q._visible
    out = []
    again = None  # received with VT 0: stay visible, but not twice in one response
    skipped = None
    p = 0.0 if long else eng.short_poll_sampling
    max_rc = q._max_rc
    hprefix, handles, hidden, seq = q._hprefix, q._handles, q._hidden, eng._seq
    while vis and len(out) < take:
        m = heappop(vis)[1]
        if m.state != VISIBLE or m.queue is not q:
            continue
        if p and eng._rng.random() >= p:
            skipped = skipped or []
            skipped.append(m)
            continue
        if max_rc and m.receive_count >= max_rc and eng._move_to_dlq(q, m):
            continue
        # deliver (as _deliver, inlined: this is the hot path of every simulation)
        m.receive_count += 1
        if m.first_received_at is None:
            m.first_received_at = now
        n = q._nrecv
        q._nrecv = n + 1
        r = Receipt(f"{hprefix}{n:x}", m, now, m.receipt)
        m.receipt = r
        handles[r.handle] = r
        out.append(r)
        if vt > 0:
            q._nvis -= 1
            q._ninflight += 1
            m.state = INFLIGHT
            m.visible_at = t = now + vt
            m.ver = v = next(seq)
            heappush(hidden, (t, v, m))
        else:
            m.visible_at = now
            again = again or []
            again.append(m)
    for m in skipped or ():
        heappush(vis, (m.seq, m))
    for m in again or ():
        heappush(vis, (m.seq, m))
    return out


def lookup(eng, q, handle):
    """The live Receipt of ``handle``; None for a handle ``q`` issued whose message is gone; else
    ReceiptHandleIsInvalid."""
    r = q._handles.get(handle)
    if r is not None:
        return r
    # not live: a handle this queue issued for a message that is gone, or garbage (ev. 1.3)
    if isinstance(handle, str) and handle.startswith(q._hprefix):
        rest = handle[len(q._hprefix) :]
        try:
            n = int(rest, 16)
        except ValueError:
            n = -1
        if 0 <= n < q._nrecv and rest == f"{n:x}":
            return None
    raise E.receipt_handle_invalid(handle)


def handle_queue(eng, handle):
    """The queue whose receipt handles ``handle`` has the form of (any region), or None."""
    if isinstance(handle, str) and handle.startswith("AQEB"):
        for q in eng._queues.values():
            if handle.startswith(q._hprefix):
                return q
    return None


def delete(eng, q, handle) -> None:
    """DeleteMessage (ev. 1.3, 1.4): deleted/moved/expired message -> success; garbage ->
    ReceiptHandleIsInvalid; FIFO outside the handle's window -> InvalidParameterValue "...expired."."""
    r = q._handles.get(handle)
    if r is None and eng._lookup(q, handle) is None:
        return  # already gone: 200, repeatable (AWS-REC)
    m = r.message
    if q.fifo:
        # DOC: "DeleteMessage operations will fail if the request is received outside of the visibility
        # timeout window". A stale handle's window ended before the newer receive (open question 4).
        if r is not m.receipt or m.visible_at <= eng.now:
            raise E.fifo_handle_expired(handle)
    elif r is not m.receipt and eng.stale_delete == "ignore" and m.visible_at > eng.now:
        return  # DOC: "the request will succeed, but the message might not be deleted"
    eng._remove(q, m)
    q.n_deleted += 1
    if q.fifo and q._waiters:
        eng._serve(q)  # a delete unblocks the group at once (AWS-REC test_fifo_message_group_visibility)


def change_visibility(eng, q, handle, timeout) -> None:
    """ChangeMessageVisibility (ev. 1.1-1.4): counts from this call, not additive, this receipt only;
    0 = visible at once; on an expired message: success, no effect; 12 h cap per ``cap_anchor``."""
    if not 0 <= timeout <= MAX_VISIBILITY:
        raise E.visibility_range(timeout)
    r = eng._lookup(q, handle)
    if r is None:
        raise E.cmv_message_gone(handle)
    m = r.message
    now = eng.now
    if m.state != INFLIGHT or m.visible_at <= now:
        return  # AWS-REC: 200 after expiry; no effect (no MessageNotInflight)
    anchor = r.received_at if eng.cap_anchor == "receive" else m.first_received_at
    if now + timeout - anchor > MAX_VISIBILITY:
        raise E.visibility_cap(timeout)
    m.ver = v = next(eng._seq)
    q._dead += 1
    head = q.fifo and q._groups[m.group_id].msgs[0] is m
    if timeout == 0:
        m.state = VISIBLE
        m.visible_at = now
        q._ninflight -= 1
        q._nvis += 1
        if not q.fifo:
            heappush(q._visible, (m.seq, m))
        if head:
            eng._gtouch(q, q._groups[m.group_id])
        if q._waiters:
            eng._serve(q)
    else:
        m.visible_at = t = now + timeout
        heappush(q._hidden, (t, v, m))
        if head:
            eng._gtouch(q, q._groups[m.group_id])
        if q._waiters:
            eng._arm(q)
