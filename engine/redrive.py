"""Redrive: the lazy move of a message to its dead-letter queue, and ListDeadLetterSourceQueues.

A queue's RedrivePolicy is parsed and checked by engine/attributes.py and kept on the queue
(``_dlq_arn``, ``_max_rc``) by engine/queues.py; the receive paths (engine/messages.py, engine/fifo.py) call
``move_to_dlq`` for a message that has reached maxReceiveCount.
"""

from __future__ import annotations

from .fifo import DEDUP_WINDOW
from .records import Queue


def move_to_dlq(eng, q, m):
    """Lazy redrive (ev. 1.6): on the receive that would exceed maxReceiveCount; that receive is not
    counted, the count carries over, DeadLetterQueueSourceArn is set, the MessageId is kept. Standard:
    the enqueue timestamp is kept (retention from the original send); FIFO: it restarts (DESIGN.md).
    FIFO -> FIFO: the deduplication id becomes the MessageId (DOC)."""
    dlq = eng._by_arn.get(q._dlq_arn)
    if dlq is None or dlq is q:
        return False  # target gone: AWS cannot move it either; the message stays deliverable
    eng._remove(q, m)
    q.n_moved_out += 1
    m.queue = dlq
    m.dlq_source_arn = q.arn
    m.seq = next(eng._seq)
    if q.fifo:
        m.enqueued_at = eng.now
    if dlq.fifo:
        m.dedup_id = m.id
        dlq._dedup[m.id] = (eng.now + DEDUP_WINDOW, m.id)
        dlq._seqno += 1
        m.sequence_number = dlq._seqno
    dlq.n_moved_in += 1
    eng._enqueue(dlq, m, 0)  # no DLQ delay applied (unconfirmed either way)
    if dlq._waiters:
        eng._arm(dlq)  # deferred: we are inside a receive on the source queue
    return True


def dead_letter_sources(eng, q) -> list[Queue]:
    """ListDeadLetterSourceQueues: the queues whose RedrivePolicy names ``q``, in creation order."""
    q = eng.get_queue(q)
    return [s for s in eng._queues.values() if s._dlq_arn == q.arn]
