"""Property tests: random operation sequences on standard and FIFO queues with redrive.

An independent model (who holds which message until when, receive counts, send order per group) checks:
no message is lost, no message is held by two live receipts, receive counts never decrease (each receive adds
exactly one), FIFO order holds within a group, and the same seed replays the same history.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from visguard.engine import Engine, SQSError
from visguard.engine.core import GONE

_SEND = st.tuples(st.just("send"), st.integers(0, 1), st.sampled_from([0, 0, 0, 4]))
_RECV = st.tuples(st.just("recv"), st.integers(1, 10), st.sampled_from([None, 0, 3, 10]))
OPS = st.one_of(
    _SEND,
    _SEND,
    _RECV,
    _RECV,
    st.tuples(st.just("dlqrecv"), st.integers(1, 10), st.sampled_from([None, 0, 5])),
    st.tuples(st.just("del"), st.integers(0, 10_000), st.just(0)),
    st.tuples(st.just("cmv"), st.integers(0, 10_000), st.sampled_from([0, 2, 20])),
    st.tuples(st.just("cmv"), st.integers(0, 10_000), st.sampled_from([0, 9])),
    st.tuples(st.just("adv"), st.sampled_from([0.5, 1, 3, 7, 31, 95]), st.just(0)),
    st.tuples(st.just("poll"), st.integers(1, 10), st.sampled_from([1, 5, 20])),
    st.tuples(st.just("purge"), st.just(0), st.just(0)),
)

PROPS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def build(fifo, seed=0, **opts):
    eng = Engine(seed=seed, **opts)
    sfx = ".fifo" if fifo else ""
    extra = {"ContentBasedDeduplication": "true"} if fifo else {}
    dlq = eng.create_queue(f"dlq{sfx}", {**extra, "MessageRetentionPeriod": "90"})
    pol = json.dumps({"deadLetterTargetArn": dlq.arn, "maxReceiveCount": 2})
    src = eng.create_queue(f"src{sfx}", {**extra, "VisibilityTimeout": "5", "MessageRetentionPeriod": "60",
                                         "RedrivePolicy": pol})  # fmt: skip
    return eng, src, dlq


class Model:
    def __init__(self, eng, src, dlq):
        self.eng, self.src, self.dlq = eng, src, dlq
        self.receipts = []  # (queue, Receipt)
        self.hold = {}  # message id -> held until (virtual time)
        self.current = {}  # message id -> handle of its latest receipt
        self.count = {}  # message id -> receive count seen
        self.order = {}  # (queue name, group) -> [Message] in send order
        self.sent = 0
        self.history = []

    def check_delivery(self, q, rs):
        now = self.eng.now
        batch = set()
        for r in rs:
            m = r.message
            assert m.queue is q
            # no two live receipts: the previous one must have ended
            assert self.hold.get(m.id, -1) <= now, f"{m.id} delivered while held until {self.hold[m.id]}"
            # receive counts: +1 per delivery, never down (also across the move to the DLQ)
            assert m.receive_count == self.count.get(m.id, 0) + 1
            self.count[m.id] = m.receive_count
            if q.fifo:
                # FIFO: earlier messages of the group still in the queue are not held by an older receipt,
                # and a batch lists a group's messages in send order
                for e in self.order.get((q.name, m.group_id), []):
                    if e is m:
                        break
                    if e.state != GONE and e.queue is q and e.id not in batch:
                        assert self.hold.get(e.id, -1) <= now, "FIFO order broken within a group"
                batch.add(m.id)
            self.hold[m.id] = r.message.visible_at
            self.current[m.id] = r.handle
            self.receipts.append((q, r))
        self.history.append(
            ("rcv", q.name, now, [(r.message.id, r.handle, r.message.receive_count) for r in rs])
        )

    def note_moves(self):
        """After a receive on the source queue: the messages it moved to the DLQ join the end of their group's
        DLQ list (a redrive enqueues them anew). One receive walks a group in send order and moves only its
        visible prefix, so the moves of one receive follow the source group's send order."""
        if not self.src.fifo:
            return
        for (qname, gid), msgs in list(self.order.items()):
            if qname != self.src.name:
                continue
            dl = self.order.setdefault((self.dlq.name, gid), [])
            for m in msgs:
                if m.queue is self.dlq and m not in dl:
                    dl.append(m)

    def conserved(self):
        s, d = self.eng.stats(self.src), self.eng.stats(self.dlq)
        for st_ in (s, d):
            assert st_["sent"] + st_["moved_in"] == (
                st_["deleted"] + st_["visible"] + st_["inflight"] + st_["delayed"] + st_["moved_out"]
                + st_["expired"] + st_["purged"]
            )  # fmt: skip
        assert s["moved_out"] == d["moved_in"]
        assert s["sent"] == self.sent
        live = len(self.eng.peek(self.src)) + len(self.eng.peek(self.dlq))
        assert (
            live == s["visible"] + s["inflight"] + s["delayed"] + d["visible"] + d["inflight"] + d["delayed"]
        )

    def apply(self, op):
        eng, kind, a, b = self.eng, *op
        src = self.src
        if kind == "send":
            m = eng.send(
                src, f"b{self.sent}", group_id=f"g{a}" if src.fifo else None, delay=None if src.fifo else b
            )
            assert m is not None  # bodies are unique, so content-based dedup never drops one
            self.sent += 1
            if m.group_id:
                self.order.setdefault((src.name, m.group_id), []).append(m)
            self.history.append(("send", m.id))
        elif kind in ("recv", "dlqrecv"):
            q = src if kind == "recv" else self.dlq
            rs = eng.receive(q, a, visibility_timeout=b)
            self.check_delivery(q, rs)
            if kind == "recv":
                self.note_moves()
        elif kind == "poll":
            q = src
            got = []
            eng.poll(q, got.append, max_messages=a, wait=b)
            if not got:
                eng.advance(b)
            assert len(got) == 1
            if got[0]:
                # the receive happened when the message became visible; model that moment
                at = got[0][0].received_at
                now, eng.now = eng.now, at
                self.check_delivery(q, got[0])
                eng.now = now
            self.note_moves()  # a long poll's receive redrives too
        elif kind in ("del", "cmv") and self.receipts:
            q, r = self.receipts[-1 - a % min(len(self.receipts), 6)]  # mostly recent receipts
            m = r.message
            gone = m.state == GONE or m.queue is not q
            now = eng.now
            try:
                if kind == "del":
                    eng.delete(q, r.handle)
                else:
                    eng.change_visibility(q, r.handle, b)
            except SQSError as e:
                if kind == "cmv":
                    assert gone and e.code == "InvalidParameterValue" and "does not exist" in e.message
                else:  # FIFO: outside this handle's window
                    assert q.fifo and not gone
                    assert (
                        r.handle != self.current[m.id] or now >= self.hold[m.id]
                    )  # the boundary instant: expired
                self.history.append((kind, "err", e.code))
                return
            if kind == "del":
                if q.fifo and not gone:
                    assert r.handle == self.current[m.id] and now < self.hold[m.id]
                kept = (
                    eng.stale_delete == "ignore"
                    and r.handle != self.current[m.id]
                    and self.hold.get(m.id, -1) > now
                )
                if not gone and kept:
                    assert m.state != GONE  # held under a newer receipt: the stale delete is ignored
                elif not gone:
                    assert m.state == GONE
                    self.hold.pop(m.id, None)
            elif not gone and self.hold.get(m.id, -1) > now:
                self.hold[m.id] = now + b  # counts from the call, for the current holder
            else:
                assert gone or m.visible_at <= now  # after expiry: no effect
            self.history.append((kind, r.handle))
        elif kind == "adv":
            eng.advance(a)
        elif kind == "purge":
            eng.purge(src)
        self.conserved()


def run(fifo, ops, seed=0, **opts):
    model = Model(*build(fifo, seed, **opts))
    for op in ops:
        model.apply(op)
    return model


@PROPS
@given(st.lists(OPS, min_size=30, max_size=80))
def test_standard_queue_properties(ops):
    run(False, ops)


@PROPS
@given(st.lists(OPS, min_size=30, max_size=80))
def test_fifo_queue_properties(ops):
    run(True, ops)


# Shrunk from a random run that failed with "FIFO order broken within a group": a long poll redrove the
# head of group g1 to the DLQ, a later receive redrove the group's next message, and after CMV 0 on the
# head's DLQ receipt the head was received again while the second message was still in flight. That is
# the prefix rule (ev. 1.7, AWS-REC test_fifo_message_group_visibility_after_terminate_visibility_timeout);
# the model had missed moves made by a long poll, so it did not know the head came first in the DLQ.
REDRIVE_BY_POLL = [
    ("send", 0, 0), ("send", 1, 0), ("recv", 1, None), ("del", 0, 0), ("send", 1, 0), ("del", 0, 0),
    ("send", 0, 0), ("send", 1, 0), ("recv", 1, None), ("del", 1, 0), ("del", 1, 0), ("send", 0, 0),
    ("adv", 7, 0), ("del", 0, 0), ("del", 0, 0), ("del", 0, 0), ("recv", 4, None), ("poll", 3, 20),
    ("del", 0, 0), ("send", 1, 0), ("send", 1, 0), ("send", 1, 0), ("send", 1, 0), ("recv", 1, None),
    ("send", 0, 0), ("dlqrecv", 2, None), ("recv", 1, None), ("dlqrecv", 2, None), ("cmv", 196, 0),
    ("dlqrecv", 1, None),
]  # fmt: skip


def test_fifo_dlq_head_redriven_by_a_long_poll_is_delivered_before_the_in_flight_rest():
    model = run(True, REDRIVE_BY_POLL)
    head, second = [m for m in model.order[("src.fifo", "g1")] if m.queue is model.dlq]
    assert (head.body, second.body) == ("b1", "b2")  # the first two messages sent to g1
    assert model.order[("dlq.fifo", "g1")] == [head, second]  # redriven in that order
    kind, qname, now, got = model.history[-1]
    assert (kind, qname) == ("rcv", "dlq.fifo")
    assert [(mid, rc) for mid, _, rc in got] == [(head.id, 4)]  # the head again, after CMV 0
    assert second.state != GONE and second.visible_at > now  # while the group's second message is held


@settings(max_examples=30, deadline=None)
@given(st.lists(OPS, min_size=20, max_size=60), st.booleans(), st.integers(0, 3))
def test_same_seed_same_history(ops, fifo, seed):
    a = run(fifo, ops, seed=seed, short_poll_sampling=0.7)
    b = run(fifo, ops, seed=seed, short_poll_sampling=0.7)
    assert a.history == b.history
    assert a.eng.peek(a.src) == b.eng.peek(b.src)


@settings(max_examples=60, deadline=None)
@given(st.lists(OPS, min_size=30, max_size=80))
def test_standard_queue_properties_with_stale_deletes_ignored(ops):
    run(False, ops, stale_delete="ignore")
