"""What only FIFO queues do: deduplication, the message-group order, ReceiveRequestAttemptId, retroactive delay.

- Deduplication (ev. 1.7): an id (given, or the SHA-256 of the body with ContentBasedDeduplication) seen in
  the last 5 minutes makes a send a no-op; it outlives delete and is cleared by purge; the scope (queue or
  message group) is the one the queue was created with.
- Groups (ev. 1.7): groups in the order they became ready; from each, only the visible messages before its
  first in-flight message are deliverable. The group records and their ready heap are kept by engine/store.py.
- ReceiveRequestAttemptId: a retry within 5 minutes returns the same receipts (see ``replay_attempt``).
- A new queue DelaySeconds applies to the messages still delayed (ev. 1.8; not in standard queues).

Functions of the engine, bound as its methods in engine/core.py.
"""

from __future__ import annotations

import hashlib
import math
from heapq import heappop, heappush

from . import errors as E
from .attributes import MAX_VISIBILITY
from .records import DELAYED, INFLIGHT

DEDUP_WINDOW = 300.0  # FIFO deduplication interval, 5 minutes (ev. 1.7)
ATTEMPT_WINDOW = 300.0  # a FIFO ReceiveRequestAttemptId can be used for 5 minutes after the receive (ev. 1.7)


def admit(eng, q, body, delay, group_id, dedup_id):
    """The FIFO checks of a SendMessage: no per-message delay, a group id, a deduplication id. Returns the
    deduplication id (SHA-256 of the body with ContentBasedDeduplication), or None when it was seen in the
    last 5 minutes: the send is accepted but delivers nothing."""
    if delay:
        raise E.fifo_delay(delay)  # ev. 1.8: per-message DelaySeconds rejected on FIFO
    if group_id is None:
        raise E.missing_group_id()
    if dedup_id is None:
        if not q.content_dedup:
            raise E.missing_dedup_id()
        dedup_id = hashlib.sha256(body.encode()).hexdigest()  # DOC: SHA-256 of the body
    now = eng.now
    key = (group_id, dedup_id) if q.dedup_scope_group else dedup_id  # the scope the queue was created with
    seen = q._dedup.get(key)
    if seen is not None and seen[0] > now:
        return None
    if len(q._dedup) > q._dedup_gc:  # forget ids older than 5 minutes, amortised O(1) per send
        q._dedup = {k: v for k, v in q._dedup.items() if v[0] > now}
        q._dedup_gc = max(4096, 2 * len(q._dedup))
    return dedup_id


def record(eng, q, m) -> None:
    """After a FIFO send: remember its deduplication id for 5 minutes; the queue's next SequenceNumber."""
    key = (m.group_id, m.dedup_id) if q.dedup_scope_group else m.dedup_id
    q._dedup[key] = (eng.now + DEDUP_WINDOW, m.id)
    q._seqno += 1
    m.sequence_number = q._seqno


def deduplicated_id(eng, q, body, group_id=None, dedup_id=None):
    """The MessageId a FIFO send of these values is deduplicated against (within 5 minutes), or None."""
    if not q.fifo:
        return None
    if dedup_id is None:
        dedup_id = hashlib.sha256(body.encode()).hexdigest()
    seen = q._dedup.get((group_id, dedup_id) if q.dedup_scope_group else dedup_id)
    return seen[1] if seen is not None and seen[0] > eng.now else None


def receive_fifo(eng, q, take, vt):
    """FIFO: groups in the order they became ready; from each, its prefix of visible messages (ev. 1.7:
    only the messages before the group's first in-flight message are deliverable)."""
    now = eng.now
    gh = q._gheap
    out = []
    touched = []
    max_rc = q._max_rc
    while gh and len(out) < take and gh[0][0] <= now:
        _, ver, g = heappop(gh)
        if g.ver != ver or g in touched:
            continue
        msgs = g.msgs
        i = 0
        while i < len(msgs) and len(out) < take:
            m = msgs[i]
            if m.visible_at > now:
                break
            if max_rc and m.receive_count >= max_rc and eng._move_to_dlq(q, m):
                continue  # removed from msgs: index i now holds the next message
            out.append(eng._deliver(q, m, vt, now))
            i += 1
        touched.append(g)
    for g in touched:
        if g.msgs and q._groups.get(g.id) is g:
            eng._gtouch(q, g)
    return out


def replay_attempt(eng, q, attempt_id, visibility_timeout=None):
    """FIFO ReceiveRequestAttemptId (ev. 1.7, DOC): "During a visibility timeout, subsequent calls with the
    same ReceiveRequestAttemptId return the same messages and receipt handles. If a retry occurs within the
    deduplication interval, it resets the visibility timeout", for 5 minutes after the receive.

    Returns the earlier receive's receipts (same handles, receive counts unchanged, each hidden again for
    the visibility timeout from now, within the 12-hour cap) when every one of them is still in flight
    under that receipt; else None, and the caller receives afresh. AWS does not say what a retry gets
    after one of the messages was deleted or came back (unrecorded): here it is a fresh receive."""
    entry = q._attempts.get(attempt_id)
    if entry is None:
        return None
    until, rs = entry
    now = eng.now
    if until < now or not all(
        r.message.queue is q
        and r.message.state == INFLIGHT
        and r.message.receipt is r
        and r.message.visible_at > now
        for r in rs
    ):
        del q._attempts[attempt_id]
        return None
    vt = q.visibility_timeout if visibility_timeout is None else visibility_timeout
    for r in rs:
        anchor = r.received_at if eng.cap_anchor == "receive" else r.message.first_received_at
        eng.change_visibility(q, r.handle, max(0, min(vt, math.floor(anchor + MAX_VISIBILITY - now))))
    return list(rs)


def remember_attempt(eng, q, attempt_id, receipts) -> None:
    """Keep a FIFO receive's receipts under its ReceiveRequestAttemptId for 5 minutes (empty ones: not)."""
    if not receipts:
        q._attempts.pop(attempt_id, None)
        return
    if len(q._attempts) >= 1024:  # forget ids past their window, amortised O(1) per receive
        now = eng.now
        q._attempts = {k: v for k, v in q._attempts.items() if v[0] >= now}
    q._attempts[attempt_id] = (eng.now + ATTEMPT_WINDOW, list(receipts))


def redelay(eng, q) -> None:
    """A new DelaySeconds on a FIFO queue applies to the messages still delayed, from their send time."""
    eng._settle(q)
    for m in q._live.values():
        if m.state == DELAYED:
            m.visible_at = t = m.enqueued_at + q.delay_seconds
            m.ver = v = next(eng._seq)
            q._dead += 1
            heappush(q._hidden, (t, v, m))
            g = q._groups[m.group_id]
            if g.msgs[0] is m:
                eng._gtouch(q, g)
    eng._settle(q)
    if q._waiters:
        eng._arm(q)
