"""The SQS state machine: queues, messages and receipt handles on the virtual clock (engine/clock.py).

:class:`Engine` is a :class:`~visguard.engine.clock.Clock` holding SQS queues, the one class of the native API.
Its operations are functions in one module per concern, bound in the class body below as its methods (the
table names each one's module):

- engine/records.py: what it holds: ``Queue``, ``Message``, ``Receipt`` (and a FIFO group, a waiting poll);
- engine/registry.py: the queues: create, get (by name, URL or ARN), list, delete, attributes, tags, purge;
- engine/messages.py: send, receive, delete, change visibility: receipt handles, the 12-hour cap, the quota;
- engine/fifo.py: deduplication, the message-group order, ReceiveRequestAttemptId, retroactive delay;
- engine/redrive.py: the move to a dead-letter queue, ListDeadLetterSourceQueues;
- engine/longpoll.py: long polls waiting on the clock, served as messages become deliverable;
- engine/store.py: a queue's heaps and counters, and lazy time: a message that becomes visible again at time T
  is noticed by the first operation on its queue at or after T (``_settle``), so a message costs no event
  unless somebody long-polls.

Each function takes the engine first and calls the others through it (``eng._settle(q)``), as a method would.
Attribute parsing and validation live in engine/attributes.py (the codec); engine/registry.py applies what it
returns.

Every rule in these modules cites docs/reference/sqs-semantics-evidence.md ("ev. 1.3" = its section 1.3).
Options (all keyword-only, defaults follow recorded AWS behaviour):

- ``inflight_limit`` (120,000): in-flight quota per queue, standard and FIFO (ev. 1.9; current docs give FIFO
  120,000, not the old 20,000). Standard short poll -> ``OverLimit`` (HTTP 403); long poll and FIFO -> empty.
- ``stale_delete`` ("delete" | "ignore"): what a DeleteMessage with an older receipt handle does to a standard
  message that is in flight under a newer receipt. AWS: "will succeed, but the message might not be deleted"
  (ev. 1.3, undetermined). "delete" (moto, LocalStack) removes it; "ignore" returns success and keeps it.
- ``short_poll_sampling`` (False): AWS short polls sample a subset of servers (ev. 1.10). False = return as
  many messages as possible (deterministic); a float p in (0, 1] (True = 0.5) = each visible message of a
  standard queue is on a sampled server with probability p (seeded).
- ``cap_anchor`` ("receive" | "first_receive"): the 12-hour visibility cap counts from the current
  ReceiveMessage (DOC wording, ev. 1.2) or from the message's first receive (seed 000's reading).
- ``start_time``, ``seed``, ``region``, ``account_id``.
"""

from __future__ import annotations

import random
from heapq import heappop

from visguard import facts

from . import fifo, longpoll, messages, redrive, registry, store
from .attributes import INT_ATTRIBUTES, MAX_VISIBILITY, STR_ATTRIBUTES  # noqa: F401  (re-exported)
from .clock import INF, Clock
from .fifo import ATTEMPT_WINDOW, DEDUP_WINDOW  # noqa: F401  (re-exported)
from .records import DELAYED, GONE, INFLIGHT, STATE_NAMES, VISIBLE, Message, Queue, Receipt  # noqa: F401
from .registry import MAX_TAGS, NAME_REUSE_WAIT, PURGE_WAIT  # noqa: F401  (re-exported)


class Engine(Clock):
    """Exact SQS visibility semantics on a virtual clock (see the module docstring for the options)."""

    def __init__(
        self,
        *,
        inflight_limit: int = facts.INFLIGHT_QUOTA["standard"],
        stale_delete: str = "delete",
        short_poll_sampling: bool | float = False,
        cap_anchor: str = "receive",
        start_time: float = 1_767_225_600.0,
        seed: int = 0,
        region: str = "us-east-1",
        account_id: str = "123456789012",
    ):
        if stale_delete not in ("delete", "ignore"):
            raise ValueError(f"stale_delete must be 'delete' or 'ignore', not {stale_delete!r}")
        if cap_anchor not in ("receive", "first_receive"):
            raise ValueError(f"cap_anchor must be 'receive' or 'first_receive', not {cap_anchor!r}")
        p = 0.5 if short_poll_sampling is True else float(short_poll_sampling or 0.0)
        if not 0.0 <= p <= 1.0:
            raise ValueError("short_poll_sampling must be False, True or a probability in (0, 1]")
        if inflight_limit < 1:
            raise ValueError("inflight_limit must be >= 1")
        self.inflight_limit = int(inflight_limit)
        self.stale_delete = stale_delete
        self.short_poll_sampling = p
        self.cap_anchor = cap_anchor
        super().__init__(start_time)
        self.seed = seed
        self.region = region
        self.account_id = account_id
        self._rng = random.Random(seed)
        b = self._rng.getrandbits(80)
        h = f"{b:020x}"
        self._idbase = f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[b & 3]}{h[17:20]}-"
        self._nmsg = 0
        self._queues = {}  # (region, name) -> Queue
        self._by_arn = {}
        self._by_url = {}  # the URL the engine gave each queue (the client's hot lookup)
        self._nqueues = 0
        # one bound method each, so the event loop can recognise (and drop) idle wake-ups and poll timeouts
        self._wake_fn = self._guard_a = self._wake
        self._timeout_fn = self._guard_b = self._poll_timeouts
        self._deleted = {}  # queue name -> when it was deleted (the name cannot be reused for 60 s)

    # ---------------------------------------------------------------- the operations, one module per concern
    # queues (engine/registry.py)
    create_queue = registry.create_queue
    get_queue = registry.get_queue
    queues = registry.queues
    delete_queue = registry.delete_queue
    set_attributes = registry.set_attributes
    queue_attributes = registry.queue_attributes
    tag_queue = registry.tag_queue
    untag_queue = registry.untag_queue
    purge_request = registry.purge_request
    purge = registry.purge
    _apply = registry.apply_attributes

    # the message lifecycle (engine/messages.py)
    send = messages.send
    receive = messages.receive
    delete = messages.delete
    change_visibility = messages.change_visibility
    handle_queue = messages.handle_queue
    _receive = messages.receive_core
    _receive_std = messages.receive_standard
    _lookup = messages.lookup

    # FIFO queues (engine/fifo.py)
    deduplicated_id = fifo.deduplicated_id
    replay_attempt = fifo.replay_attempt
    remember_attempt = fifo.remember_attempt
    _fifo_admit = fifo.admit
    _fifo_record = fifo.record
    _receive_fifo = fifo.receive_fifo
    _redelay_fifo = fifo.redelay

    # dead-letter queues (engine/redrive.py)
    dead_letter_sources = redrive.dead_letter_sources
    _move_to_dlq = redrive.move_to_dlq

    # long polls (engine/longpoll.py); _wake and _poll_timeouts are the clock's guarded events, _idle their guard
    poll = longpoll.poll
    _serve = longpoll.serve
    _hand_over = longpoll.hand_over
    _arm = longpoll.arm
    _next_visible = longpoll.next_visible
    _wake = longpoll.wake
    _poll_timeouts = longpoll.poll_timeouts
    _idle = longpoll.idle

    # a queue's heaps, counters and lazy time (engine/store.py)
    _enqueue = store.enqueue
    _deliver = store.deliver
    _remove = store.remove
    _gtouch = store.gtouch
    _settle = store.settle
    _expire = store.expire
    _compact = store.compact

    # ---------------------------------------------------------------- inspection
    def peek(self, queue) -> list[dict]:
        """Every message of a queue with its state, changing nothing (seed 004's "peek")."""
        q = self.get_queue(queue)
        now = self.now
        out = []
        for m in q._live.values():
            st = "visible" if m.visible_at <= now else STATE_NAMES[m.state]
            out.append(
                {
                    "MessageId": m.id,
                    "Body": m.body,
                    "State": st,
                    "VisibleAt": m.visible_at,
                    "ReceiveCount": m.receive_count,
                    "SentTimestamp": int(m.sent_at * 1000),
                    "FirstReceiveTimestamp": None
                    if m.first_received_at is None
                    else int(m.first_received_at * 1000),
                    "GroupId": m.group_id,
                    "ReceiptHandle": None if m.receipt is None else m.receipt.handle,
                    "DeadLetterQueueSourceArn": m.dlq_source_arn,
                }
            )
        return out

    def stats(self, queue) -> dict:
        """Conservation counters: sent + moved_in = deleted + visible + inflight + delayed + moved_out +
        expired + purged."""
        q = self.get_queue(queue)
        c = q.counts()
        return {
            "sent": q.n_sent, "moved_in": q.n_moved_in, "deleted": q.n_deleted, "moved_out": q.n_moved_out,
            "expired": q.n_expired, "purged": q.n_purged, **c,
        }  # fmt: skip

    def next_change_time(self) -> float:
        """The earliest moment after ``now`` at which a queue changes by itself, with no event on the heap: a
        hidden or delayed message becomes visible, or one reaches its retention (INF if none). What a short
        poll can notice; the test kit's rule for a spinning caller waits for it (engine/testing.py)."""
        t = INF
        for q in self._queues.values():
            self._settle(q)  # lazy state up to now: what remains hidden comes back after now
            h = q._hidden
            while h and h[0][2].ver != h[0][1]:
                heappop(h)
            if h and h[0][0] < t:
                t = h[0][0]
            if q._ret and q._ret[0][0] + q.retention < t:
                t = q._ret[0][0] + q.retention
        return t

    def block_until(self, done) -> None:
        """Run events until ``done()`` is true or none is left (a client's long poll waits here). The test kit
        (engine/testing.py) replaces it on an engine whose clock other threads share."""
        step = self.step
        while not done() and step():
            pass

    def client(self, region: str | None = None):
        """A boto3-shaped SQS client over this engine (engine/client.py), in ``region`` (default the
        engine's): queue names are per region, URLs and ARNs carry it."""
        from .client import EngineClient

        return EngineClient(self, region)
