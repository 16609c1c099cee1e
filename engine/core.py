"""The SQS state machine: queues, messages and receipt handles on the virtual clock (engine/clock.py).

:class:`Engine` is a :class:`~visguard.engine.clock.Clock` holding SQS queues. Queue state is lazy: a message
that becomes visible again at time T is noticed by the first operation on its queue at or after T
(``_settle``), so a message costs no event unless somebody long-polls. Attribute parsing and validation live in
engine/attributes.py (the codec); this module applies what it returns.

Every rule below cites docs/reference/sqs-semantics-evidence.md ("ev. 1.3" = its section 1.3).
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

import hashlib
import math
import random
from collections import deque
from heapq import heapify, heappop, heappush

from visguard import facts

from . import attributes as A
from . import errors as E
from .attributes import INT_ATTRIBUTES, MAX_VISIBILITY, STR_ATTRIBUTES  # noqa: F401  (re-exported)
from .clock import INF, Clock

DEDUP_WINDOW = 300.0  # FIFO deduplication interval, 5 minutes (ev. 1.7)
ATTEMPT_WINDOW = 300.0  # a FIFO ReceiveRequestAttemptId can be used for 5 minutes after the receive (ev. 1.7)
NAME_REUSE_WAIT = 60.0  # DOC (DeleteQueue): wait 60 s before creating a queue with the same name
PURGE_WAIT = 60.0  # DOC (PurgeQueue): one purge per queue every 60 seconds
MAX_TAGS = 50  # DOC (quotas): 50 tags per queue

# message states (Message.state)
VISIBLE, INFLIGHT, DELAYED, GONE = 0, 1, 2, 3
_STATE_NAMES = {VISIBLE: "visible", INFLIGHT: "inflight", DELAYED: "delayed"}


class Message:
    """One SQS message. ``tag`` is a free slot for callers (the simulator); the engine never reads it.

    ``attributes`` holds the caller's message attributes (SendMessage ``MessageAttributes``), or None.
    """

    __slots__ = (
        "id", "body", "receive_count", "sent_at", "first_received_at", "group_id", "dedup_id", "attributes",
        "tag", "seq", "queue", "state", "visible_at", "ver", "receipt", "enqueued_at", "dlq_source_arn",
        "system_attributes", "sequence_number",
    )  # fmt: skip

    def __init__(self, mid, body, seq, queue, now, group_id, dedup_id, attributes):
        self.id = mid
        self.body = body
        self.seq = seq
        self.queue = queue
        self.sent_at = now
        self.enqueued_at = now
        self.receive_count = 0
        self.first_received_at = None
        self.group_id = group_id
        self.dedup_id = dedup_id
        self.attributes = attributes
        self.tag = None
        self.state = VISIBLE
        self.visible_at = now
        self.ver = 0
        self.receipt = None
        self.dlq_source_arn = None
        self.system_attributes = None
        self.sequence_number = None

    def __repr__(self):
        return f"<Message {self.id} {_STATE_NAMES.get(self.state, 'gone')} rc={self.receive_count}>"


class Receipt:
    """The result of one receive: a new ``handle`` each time (ev. 1.3)."""

    __slots__ = ("handle", "message", "received_at", "prev")

    def __init__(self, handle, message, received_at, prev):
        self.handle = handle
        self.message = message
        self.received_at = received_at
        self.prev = prev  # the message's previous receipt (to forget every handle when the message goes)

    def __repr__(self):
        return f"<Receipt {self.handle} of {self.message.id}>"


class _Group:
    __slots__ = ("id", "msgs", "ver")

    def __init__(self, gid):
        self.id = gid
        self.msgs = deque()  # messages of the group still in the queue, in send order
        self.ver = 0  # the valid entry of this group in Queue._gheap


class _Waiter:
    __slots__ = ("cb", "max", "vt", "active", "deadline")

    def __init__(self, cb, max_messages, vt, deadline):
        self.cb, self.max, self.vt, self.active, self.deadline = cb, max_messages, vt, True, deadline


# queue attributes: name -> (min, max, default) for the integer ones (DOC: CreateQueue attribute table)
class Queue:
    """An SQS queue. Read ``url``, ``arn``, ``name``, ``fifo``, ``visibility_timeout``; call ``counts()``."""

    __slots__ = (
        "engine", "name", "url", "arn", "fifo", "visibility_timeout", "delay_seconds", "retention",
        "max_message_size", "wait_time", "content_dedup", "dedup_scope_group", "redrive_policy", "extra",
        "created_at", "modified_at", "n_sent", "n_deleted", "n_expired", "n_moved_in", "n_moved_out", "n_purged",
        "_dlq_arn", "_max_rc", "_live", "_handles", "_hprefix", "_nrecv", "_visible", "_hidden", "_ret",
        "_nvis", "_ninflight", "_ndelayed", "_groups", "_gheap", "_dedup", "_waiters", "_wake_at", "_serial",
        "_seqno", "_dead", "_dedup_gc", "_wtimer_at", "_wmono", "_attempts", "tags", "purged_at", "region", "_key",
    )  # fmt: skip

    def __init__(self, engine, name, serial, region=None):
        self.engine = engine
        self.name = name
        self.region = region = region or engine.region
        self._key = (region, name)
        self.url = f"https://sqs.{region}.amazonaws.com/{engine.account_id}/{name}"
        self.arn = f"arn:aws:sqs:{region}:{engine.account_id}:{name}"
        self.fifo = name.endswith(".fifo")
        self.visibility_timeout = facts.DEFAULT_VISIBILITY_TIMEOUT
        self.delay_seconds = facts.DEFAULT_DELAY
        self.retention = facts.DEFAULT_RETENTION
        self.max_message_size = 1_048_576
        self.wait_time = 0
        self.content_dedup = False
        self.dedup_scope_group = False
        self.redrive_policy = None  # the JSON string, as set
        self.extra = {}  # other string attributes, kept as given
        self.created_at = self.modified_at = engine.now
        self.n_sent = self.n_deleted = self.n_expired = self.n_moved_in = self.n_moved_out = self.n_purged = 0
        self._dlq_arn = None
        self._max_rc = 0  # 0 = no redrive
        self._live = {}  # seq -> Message, every message in the queue, send order
        self._handles = {}  # live handle -> Receipt
        digest = hashlib.sha256(f"{engine.seed}:{self.arn}:{serial}".encode()).hexdigest()
        self._hprefix = f"AQEB{digest[:24]}/{serial:x}/"
        self._serial = serial
        self._nrecv = 0
        # standard: heap (seq, msg) of visible messages, oldest send first (may hold GONE ones: skipped). An
        # expired message is re-received ahead of later ones (AWS-REC test_inflight_message_requeue; moto too).
        self._visible = []
        self._hidden = []  # heap (visible_at, ver, msg) of in-flight and delayed messages
        self._ret = []  # heap (enqueued_at, ver, msg) for retention
        self._nvis = self._ninflight = self._ndelayed = 0
        self._groups = {}  # FIFO: group id -> _Group
        self._gheap = []  # FIFO: heap (ready_at, ver, group)
        self._dedup = {}  # FIFO: dedup key -> (expires_at, MessageId)
        self._waiters = deque()  # long polls waiting, in arrival order (served FIFO)
        self._wake_at = INF
        self._wtimer_at = INF  # when the armed poll-timeout event fires (one event for all waiters)
        self._wmono = True  # waiter deadlines ascend along _waiters (true when every poll waits as long)
        self._seqno = 0  # FIFO SequenceNumber
        self._dead = 0  # heap entries made stale since the last compaction
        self._dedup_gc = 4096  # size of _dedup that triggers dropping expired ids
        self._attempts = {}  # FIFO ReceiveRequestAttemptId -> (usable until, receipts of that receive)
        self.tags = {}  # TagQueue: belongs to the queue (every client sees it; it goes with the queue)
        self.purged_at = None  # the last PurgeQueue request (one per 60 s)

    def __repr__(self):
        return f"<Queue {self.name}>"

    def counts(self) -> dict:
        """ApproximateNumberOfMessages / ...NotVisible / ...Delayed, exactly, at ``engine.now``.

        In FIFO queues, messages blocked behind their group's in-flight message count as visible (ev. 2.2,
        test_approximate_number_of_messages_not_visible, validated).
        """
        self.engine._settle(self)
        return {"visible": self._nvis, "inflight": self._ninflight, "delayed": self._ndelayed}

    @property
    def max_receive_count(self):
        return self._max_rc or None

    @property
    def dead_letter_target_arn(self):
        return self._dlq_arn


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

    # ---------------------------------------------------------------- the clock's guarded events
    def _idle(self, t, fn, q):
        """A wake-up or poll-timeout event of ``q`` with no long poll left to serve: disarm it, skip it."""
        if q._waiters:
            return False
        if fn is self._wake_fn:
            if t >= q._wake_at:
                q._wake_at = INF
        elif t >= q._wtimer_at:
            q._wtimer_at = INF
        return True

    # ---------------------------------------------------------------- queues
    def create_queue(
        self, name: str, attributes: dict | None = None, *, strict: bool = False, region: str | None = None
    ) -> Queue:
        """CreateQueue. Idempotent for the same attributes; ``QueueAlreadyExists`` for different ones;
        ``QueueDeletedRecently`` within 60 s of deleting a queue of that name (DOC).

        Attribute values may be strings (as in AWS) or numbers; RedrivePolicy a JSON string or a dict. A name
        ending in ".fifo" makes a FIFO queue here; ``strict=True`` (the client) demands FifoQueue=true as AWS.
        ``region``: the queue's region (default the engine's); each region has its own queue names.
        """
        region = region or self.region
        attributes = dict(attributes or {})
        if not strict:
            if name.endswith(".fifo"):
                attributes.setdefault("FifoQueue", "true")
            elif str(attributes.get("FifoQueue", "")).lower() == "false":
                del attributes["FifoQueue"]
        fifo_attr = str(attributes.get("FifoQueue", "false")).lower() == "true"
        A.check_queue_name(name, fifo_attr)
        existing = self._queues.get((region, name))
        if existing is not None:
            diff = A.differing_attribute(
                self.queue_attributes(existing), attributes, existing.fifo, existing.redrive_policy,
                self._by_arn.get,
            )  # fmt: skip
            if diff is not None:
                raise E.SQSError(
                    "QueueAlreadyExists",
                    f"A queue already exists with the same name and a different value for attribute {diff}",
                )
            return existing
        gone = self._deleted.get((region, name))
        if gone is not None and self.now - gone < NAME_REUSE_WAIT:
            raise E.SQSError(
                "AWS.SimpleQueueService.QueueDeletedRecently",
                "You must wait 60 seconds after deleting a queue before you can create another with the same name.",
            )  # AWS-REC test_create_queue_recently_deleted (LocalStack, aws.validated)
        parsed = A.parse_queue_attributes(attributes, fifo=fifo_attr, creating=True, lookup=self._by_arn.get)
        self._nqueues += 1
        q = Queue(self, name, self._nqueues, region)
        q.fifo = fifo_attr
        self._apply(q, parsed, creating=True)
        self._queues[q._key] = q
        self._by_arn[q.arn] = q
        self._by_url[q.url] = q
        self._deleted.pop(q._key, None)
        return q

    def get_queue(self, ref, region: str | None = None) -> Queue:
        """A queue by name (in ``region``, default the engine's), URL or ARN (or a Queue);
        ``AWS.SimpleQueueService.NonExistentQueue`` if none."""
        if isinstance(ref, Queue):
            if self._queues.get(ref._key) is ref:
                return ref
            raise E.no_such_queue()
        if not isinstance(ref, str):
            raise E.no_such_queue()
        q = self._by_url.get(ref)
        if q is not None:
            return q
        if ref.startswith("arn:"):
            q = self._by_arn.get(ref)
        elif "/" in ref:
            parts = ref.rstrip("/").rsplit("/", 2)
            q = None
            if len(parts) == 3 and parts[1] == self.account_id:
                host = parts[0].rsplit("/", 1)[-1].split(".")  # sqs.<region>.amazonaws.com, or a custom host
                if len(host) > 2 and host[0] == "sqs":
                    r = host[1]
                elif len(host) > 3 and host[1] == "queue":  # the legacy https://<region>.queue.amazonaws.com
                    r = host[0]
                else:
                    r = region or self.region
                q = self._queues.get((r, parts[-1]))
        else:
            q = self._queues.get((region or self.region, ref))
        if q is None:
            raise E.no_such_queue()
        return q

    def queues(self, region: str | None = None) -> list[Queue]:
        """The queues of ``region`` (default the engine's), in creation order."""
        region = region or self.region
        return [q for q in self._queues.values() if q.region == region]

    def delete_queue(self, q) -> None:
        """DeleteQueue: its messages, tags and purge window go with it; the name is reserved for 60 s."""
        q = self.get_queue(q)
        del self._queues[q._key]
        del self._by_arn[q.arn]
        del self._by_url[q.url]
        self._deleted[q._key] = self.now
        if len(self._deleted) > 1024:
            self._deleted = {k: t for k, t in self._deleted.items() if self.now - t < NAME_REUSE_WAIT}
        for w in q._waiters:
            w.active = False
        q._waiters.clear()

    def set_attributes(self, q, attributes: dict) -> None:
        """SetQueueAttributes. A new VisibilityTimeout does not touch messages already in flight (DOC)."""
        q = self.get_queue(q)
        parsed = A.parse_queue_attributes(
            dict(attributes), fifo=q.fifo, creating=False, lookup=self._by_arn.get
        )
        self._apply(q, parsed, creating=False)
        q.modified_at = self.now

    def _apply(self, q, new: dict, creating: bool) -> None:
        """Apply attributes the codec parsed (engine/attributes.py)."""
        for name, value in new.items():
            if name == "VisibilityTimeout":
                q.visibility_timeout = value  # in-flight messages keep their timeout (DOC)
            elif name == "DelaySeconds":
                q.delay_seconds = value
                if q.fifo and not creating:
                    self._redelay_fifo(q)  # DOC: retroactive for FIFO queues, not for standard ones (ev. 1.8)
            elif name == "MessageRetentionPeriod":
                q.retention = value
            elif name == "MaximumMessageSize":
                q.max_message_size = value
            elif name == "ReceiveMessageWaitTimeSeconds":
                q.wait_time = value
            elif name == "ContentBasedDeduplication":
                q.content_dedup = value
            elif name == "DeduplicationScope":
                # AWS-REC snapshots test_fifo_change_to_high_throughput_after_creation and
                # ..._to_regular_throughput_...: GetQueueAttributes shows the new scope at once, but sends keep
                # deduplicating with the scope the queue was created with
                if creating:
                    q.dedup_scope_group = value == "messageGroup"
                q.extra[name] = value
            elif name == "RedrivePolicy":
                if value is None:
                    q._dlq_arn, q._max_rc, q.redrive_policy = None, 0, None
                else:
                    q._dlq_arn, q._max_rc, q.redrive_policy = value
            else:
                q.extra[name] = value

    def _redelay_fifo(self, q) -> None:
        """A new DelaySeconds on a FIFO queue applies to the messages still delayed, from their send time."""
        self._settle(q)
        for m in q._live.values():
            if m.state == DELAYED:
                m.visible_at = t = m.enqueued_at + q.delay_seconds
                m.ver = v = next(self._seq)
                q._dead += 1
                heappush(q._hidden, (t, v, m))
                g = q._groups[m.group_id]
                if g.msgs[0] is m:
                    self._gtouch(q, g)
        self._settle(q)
        if q._waiters:
            self._arm(q)

    def queue_attributes(self, q) -> dict:
        """Every attribute of ``q`` as GetQueueAttributes(All) returns it, values as strings."""
        q = self.get_queue(q)
        c = q.counts()
        out = {
            "QueueArn": q.arn,
            "ApproximateNumberOfMessages": str(c["visible"]),
            "ApproximateNumberOfMessagesNotVisible": str(c["inflight"]),
            "ApproximateNumberOfMessagesDelayed": str(c["delayed"]),
            "CreatedTimestamp": str(int(q.created_at)),
            "LastModifiedTimestamp": str(int(q.modified_at)),
            "VisibilityTimeout": str(q.visibility_timeout),
            "MaximumMessageSize": str(q.max_message_size),
            "MessageRetentionPeriod": str(q.retention),
            "DelaySeconds": str(q.delay_seconds),
            "ReceiveMessageWaitTimeSeconds": str(q.wait_time),
            "SqsManagedSseEnabled": q.extra.get("SqsManagedSseEnabled", "true"),
        }
        if q.redrive_policy:
            out["RedrivePolicy"] = q.redrive_policy
        if q.fifo:
            out["FifoQueue"] = "true"
            out["ContentBasedDeduplication"] = "true" if q.content_dedup else "false"
            out["DeduplicationScope"] = q.extra.get(
                "DeduplicationScope", "messageGroup" if q.dedup_scope_group else "queue"
            )
            out["FifoThroughputLimit"] = q.extra.get("FifoThroughputLimit", "perQueue")
        for k, v in A.visible_string_attributes(q.extra).items():
            out.setdefault(k, v)
        return out

    def dead_letter_sources(self, q) -> list[Queue]:
        q = self.get_queue(q)
        return [s for s in self._queues.values() if s._dlq_arn == q.arn]

    # ---------------------------------------------------------------- tags (the queue's, not a client's)
    def tag_queue(self, q, tags: dict) -> None:
        """TagQueue: adds or overwrites; at most 50 tags per queue (DOC quotas)."""
        q = self.get_queue(q)
        if not tags:
            raise E.SQSError(
                "MissingParameter", "The request must contain the parameter Tags."
            )  # moto's text
        merged = {**q.tags, **tags}
        if len(merged) > MAX_TAGS:
            raise E.invalid_parameter(f"Too many tags added for queue {q.name}.")  # text unrecorded (moto's)
        q.tags = merged

    def untag_queue(self, q, keys) -> None:
        """UntagQueue: a key the queue does not have is ignored (LocalStack test_untag_queue_ignores_...)."""
        q = self.get_queue(q)
        if not keys or any(not 1 <= len(k) <= 128 for k in keys):
            raise E.invalid_parameter(
                "Tag keys must be between 1 and 128 characters in length."
            )  # moto's text
        for k in keys:
            q.tags.pop(k, None)

    def purge_request(self, q) -> None:
        """PurgeQueue as the API allows it: one per queue every 60 s, else ``PurgeQueueInProgress`` (HTTP 403,
        the status botocore's model gives the error); the window belongs to the queue, not to a client."""
        q = self.get_queue(q)
        if q.purged_at is not None and self.now - q.purged_at < PURGE_WAIT:
            raise E.SQSError(
                "AWS.SimpleQueueService.PurgeQueueInProgress",
                f"Only one PurgeQueue operation on {q.name} is allowed every 60 seconds.",
                403,
            )  # AWS-REC snapshot test_successive_purge_calls_fail
        q.purged_at = self.now
        self.purge(q)

    # ---------------------------------------------------------------- lazy state
    def _settle(self, q):
        """Bring ``q`` up to ``now``: in-flight/delayed messages whose time came become visible; retention.

        Runs first in every receive, so it is also where dead heap entries are dropped (never mid-loop)."""
        if q._dead > 1024 and q._dead > len(q._live):
            self._compact(q)
        now = self.now
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
            self._expire(q)

    def _expire(self, q):
        """Drop messages older than the retention period (DOC; counted from the enqueue time, ev. 1.6)."""
        r, limit = q._ret, self.now - q.retention
        while r and r[0][0] <= limit:
            _, seq, m = heappop(r)
            if m.queue is q and m.state != GONE and m.seq == seq and m.enqueued_at <= limit:
                self._remove(q, m)
                q.n_expired += 1

    def _compact(self, q):
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

    def _remove(self, q, m):
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
                    self._gtouch(q, g)
                    if q._waiters:
                        self._arm(q)  # deferred: _remove also runs inside a receive
                else:
                    del q._groups[m.group_id]
                    g.ver = -1
            else:
                g.msgs.remove(m)

    def _gtouch(self, q, g):
        """Re-file FIFO group ``g`` in the ready heap at the time its head becomes (or became) visible."""
        g.ver = v = next(self._seq)
        q._dead += 1
        t = g.msgs[0].visible_at
        heappush(q._gheap, (t if t > self.now else self.now, v, g))

    # ---------------------------------------------------------------- send
    def send(self, q, body, *, delay=None, group_id=None, dedup_id=None, message_attributes=None):
        """SendMessage. Returns the Message, or None when a FIFO deduplication id was seen in the last 5 min."""
        now = self.now
        if q.fifo:
            if delay:
                raise E.fifo_delay(delay)  # ev. 1.8: per-message DelaySeconds rejected on FIFO
            if group_id is None:
                raise E.missing_group_id()
            if dedup_id is None:
                if not q.content_dedup:
                    raise E.missing_dedup_id()
                dedup_id = hashlib.sha256(body.encode()).hexdigest()  # DOC: SHA-256 of the body
            key = (group_id, dedup_id) if q.dedup_scope_group else dedup_id
            seen = q._dedup.get(key)
            if seen is not None and seen[0] > now:
                return None  # DOC: "accepted successfully but aren't delivered"; outlives delete (ev. 1.7)
            if len(q._dedup) > q._dedup_gc:  # forget ids older than 5 minutes, amortised O(1) per send
                q._dedup = {k: v for k, v in q._dedup.items() if v[0] > now}
                q._dedup_gc = max(4096, 2 * len(q._dedup))
        elif delay is not None and not facts.DELAY.lo <= delay <= facts.DELAY.hi:
            raise E.delay_range(delay)
        self._nmsg += 1
        m = Message(f"{self._idbase}{self._nmsg:012x}", body, next(self._seq), q, now, group_id, dedup_id,
                    message_attributes)  # fmt: skip
        if q.fifo:
            q._dedup[key] = (now + DEDUP_WINDOW, m.id)
            q._seqno += 1
            m.sequence_number = q._seqno
        q.n_sent += 1
        # DOC: FIFO queues take no per-message delay (0 is accepted and does not override the queue's delay)
        d = q.delay_seconds if delay is None or q.fifo else delay
        if q._waiters and not d and not q.fifo and self._hand_over(q, m):
            return m
        self._enqueue(q, m, d)
        if q._waiters:
            if d > 0:
                self._arm(q)
            else:
                self._serve(q)
        return m

    def deduplicated_id(self, q, body, group_id=None, dedup_id=None):
        """The MessageId a FIFO send of these values is deduplicated against (within 5 minutes), or None."""
        if not q.fifo:
            return None
        if dedup_id is None:
            dedup_id = hashlib.sha256(body.encode()).hexdigest()
        seen = q._dedup.get((group_id, dedup_id) if q.dedup_scope_group else dedup_id)
        return seen[1] if seen is not None and seen[0] > self.now else None

    def _hand_over(self, q, m):
        """Fast path of send (standard queue, no delay, a long poll waiting), the hot path of a simulation:
        give ``m`` straight to the oldest waiter, exactly as _enqueue + _serve would when nothing else is
        visible, without the visible heap and the generic receive. False (nothing done): take the generic
        path (something else visible, quota reached, or a VT 0 receive that keeps the message visible)."""
        self._settle(q)  # messages coming back at this instant are older: they would go first
        if q._nvis or q._ninflight >= self.inflight_limit:
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
        now = self.now
        q._live[m.seq] = m  # _enqueue, minus the visible heap (visible for no time at all)
        heappush(q._ret, (m.enqueued_at, m.seq, m))
        q._nvis += 1
        r = self._deliver(q, m, vt, now)
        ws.popleft()
        w.active = False
        self._soon.append((next(self._seq), w.cb, ([r],)))  # as _serve: the callback is an event now
        if ws:
            self._arm(q)
        return True

    def _enqueue(self, q, m, delay):
        now = self.now
        q._live[m.seq] = m
        heappush(q._ret, (m.enqueued_at, m.seq, m))
        if delay > 0:
            m.state = DELAYED
            m.visible_at = t = now + delay
            m.ver = v = next(self._seq)
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
                g = q._groups[m.group_id] = _Group(m.group_id)
            g.msgs.append(m)
            if len(g.msgs) == 1:
                self._gtouch(q, g)

    # ---------------------------------------------------------------- receive
    def receive(self, q, max_messages=1, *, visibility_timeout=None, attempt_id=None):
        """ReceiveMessage as a short poll (never blocks). Returns a list of Receipts (maybe empty).

        Raises ``OverLimit`` (HTTP 403) on a standard queue at the in-flight limit (ev. 1.9). ``attempt_id``:
        FIFO ReceiveRequestAttemptId (see ``replay_attempt``); ignored on standard queues.
        """
        if attempt_id is not None and q.fifo:
            rs = self.replay_attempt(q, attempt_id, visibility_timeout)
            if rs is not None:
                return rs
        rs = self._receive(q, max_messages, visibility_timeout, False)
        if attempt_id is not None and q.fifo:
            self.remember_attempt(q, attempt_id, rs)
        return rs

    def replay_attempt(self, q, attempt_id, visibility_timeout=None):
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
        now = self.now
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
            anchor = r.received_at if self.cap_anchor == "receive" else r.message.first_received_at
            self.change_visibility(q, r.handle, max(0, min(vt, math.floor(anchor + MAX_VISIBILITY - now))))
        return list(rs)

    def remember_attempt(self, q, attempt_id, receipts) -> None:
        """Keep a FIFO receive's receipts under its ReceiveRequestAttemptId for 5 minutes (empty ones: not)."""
        if not receipts:
            q._attempts.pop(attempt_id, None)
            return
        if len(q._attempts) >= 1024:  # forget ids past their window, amortised O(1) per receive
            now = self.now
            q._attempts = {k: v for k, v in q._attempts.items() if v[0] >= now}
        q._attempts[attempt_id] = (self.now + ATTEMPT_WINDOW, list(receipts))

    def _receive(self, q, max_messages, vt, long, serving=False):
        """``serving``: called by _serve for a waiting long poll (which must not serve the waiters again)."""
        self._settle(q)
        room = self.inflight_limit - q._ninflight
        if room <= 0:
            if long or q.fifo:
                return []  # DOC: long polling and FIFO queues return no error
            raise E.over_limit()
        if not q._nvis:
            return []  # nothing visible (FIFO: blocked messages count as visible, so this holds there too)
        if vt is None:
            vt = q.visibility_timeout
        take = max_messages if max_messages < room else room
        out = self._receive_fifo(q, take, vt) if q.fifo else self._receive_std(q, take, vt, long)
        if out and q._waiters and not serving:
            if vt > 0:
                self._arm(q)
            else:
                self._serve(q)
        return out

    def _deliver(self, q, m, vt, now):
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
            m.ver = v = next(self._seq)
            heappush(q._hidden, (t, v, m))
        else:
            m.visible_at = now  # VT 0: visible again at once, new handle each time (ev. 1.1, AWS-REC)
        return r

    def _receive_std(self, q, take, vt, long):
        now = self.now
        vis = q._visible
        out = []
        again = None  # received with VT 0: stay visible, but not twice in one response
        skipped = None
        p = 0.0 if long else self.short_poll_sampling
        max_rc = q._max_rc
        hprefix, handles, hidden, seq = q._hprefix, q._handles, q._hidden, self._seq
        while vis and len(out) < take:
            m = heappop(vis)[1]
            if m.state != VISIBLE or m.queue is not q:
                continue
            if p and self._rng.random() >= p:
                skipped = skipped or []
                skipped.append(m)
                continue
            if max_rc and m.receive_count >= max_rc and self._move_to_dlq(q, m):
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

    def _receive_fifo(self, q, take, vt):
        """FIFO: groups in the order they became ready; from each, its prefix of visible messages (ev. 1.7:
        only the messages before the group's first in-flight message are deliverable)."""
        now = self.now
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
                if max_rc and m.receive_count >= max_rc and self._move_to_dlq(q, m):
                    continue  # removed from msgs: index i now holds the next message
                out.append(self._deliver(q, m, vt, now))
                i += 1
            touched.append(g)
        for g in touched:
            if g.msgs and q._groups.get(g.id) is g:
                self._gtouch(q, g)
        return out

    def _move_to_dlq(self, q, m):
        """Lazy redrive (ev. 1.6): on the receive that would exceed maxReceiveCount; that receive is not
        counted, the count carries over, DeadLetterQueueSourceArn is set, the MessageId is kept. Standard:
        the enqueue timestamp is kept (retention from the original send); FIFO: it restarts (DESIGN.md).
        FIFO -> FIFO: the deduplication id becomes the MessageId (DOC)."""
        dlq = self._by_arn.get(q._dlq_arn)
        if dlq is None or dlq is q:
            return False  # target gone: AWS cannot move it either; the message stays deliverable
        self._remove(q, m)
        q.n_moved_out += 1
        m.queue = dlq
        m.dlq_source_arn = q.arn
        m.seq = next(self._seq)
        if q.fifo:
            m.enqueued_at = self.now
        if dlq.fifo:
            m.dedup_id = m.id
            dlq._dedup[m.id] = (self.now + DEDUP_WINDOW, m.id)
            dlq._seqno += 1
            m.sequence_number = dlq._seqno
        dlq.n_moved_in += 1
        self._enqueue(dlq, m, 0)  # no DLQ delay applied (unconfirmed either way)
        if dlq._waiters:
            self._arm(dlq)  # deferred: we are inside a receive on the source queue
        return True

    # ---------------------------------------------------------------- long poll
    def poll(self, q, callback, *, max_messages=1, wait=20, visibility_timeout=None):
        """Long poll on the shared heap. ``callback(receipts)`` runs at once (synchronously, inside this
        call) if messages are deliverable; otherwise it is scheduled at the moment one becomes visible
        (send, delay end, expiry, CMV 0, a delete unblocking a FIFO group, a DLQ move), or with [] after
        ``wait`` seconds. Waiters are served in FIFO order. Never raises OverLimit (ev. 1.9)."""
        rs = self._receive(q, max_messages, visibility_timeout, True)
        if rs or wait <= 0:
            callback(rs)
            return
        d = self.now + wait
        w = _Waiter(callback, max_messages, visibility_timeout, d)
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
            heappush(self._heap, (d, next(self._seq), self._timeout_fn, (q,)))
        self._arm(q)

    def _poll_timeouts(self, q):
        """The poll-timeout event of ``q``: every waiter whose wait is over gets [], earliest deadline first
        (ties in arrival order, as one event per poll would run them); then re-arm for the next deadline."""
        now = self.now
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
            heappush(self._heap, (d, next(self._seq), self._timeout_fn, (q,)))
        for w in expired:
            w.active = False
        for w in expired:
            w.cb([])

    def _next_visible(self, q):
        """When the next hidden message of ``q`` becomes visible (FIFO: the next group becomes ready). At the
        in-flight quota nothing is deliverable before an in-flight message comes back (or is deleted: FIFO
        deletes serve the waiters themselves), so the next hidden message is the answer for FIFO too (a
        ready group would re-arm a wake-up at this same instant forever)."""
        if q.fifo and q._ninflight < self.inflight_limit:
            gh = q._gheap
            while gh and gh[0][2].ver != gh[0][1]:
                heappop(gh)
            return gh[0][0] if gh else INF
        h = q._hidden
        while h and h[0][2].ver != h[0][1]:
            heappop(h)
        return h[0][0] if h else INF

    def _arm(self, q):
        """Make sure a wake-up event is on the heap for the next moment ``q`` gets a deliverable message."""
        if not q.fifo:  # quick exit (hot path): the earliest hidden entry, stale or not, is not before it
            h = q._hidden
            if not h or h[0][0] >= q._wake_at:
                return
        t = self._next_visible(q)
        if t < q._wake_at:
            q._wake_at = t
            heappush(self._heap, (t if t > self.now else self.now, next(self._seq), self._wake_fn, (q,)))

    def _wake(self, q):
        if self.now >= q._wake_at:
            q._wake_at = INF
        if self._queues.get(q._key) is not q:
            return
        self._serve(q)
        if q._waiters:
            self._arm(q)

    def _serve(self, q):
        """Hand what is deliverable to the waiting long polls, oldest first; each callback runs as an event
        at the current time (as ``schedule(0, ...)``: the caller's operation finishes first)."""
        ws = q._waiters
        soon, seq = self._soon, self._seq
        while ws:
            w = ws[0]
            if not w.active:
                ws.popleft()
                continue
            rs = self._receive(q, w.max, w.vt, True, True)
            if not rs:
                break
            ws.popleft()
            w.active = False
            soon.append((next(seq), w.cb, (rs,)))
            if not q._nvis:
                break  # exact: that receive settled the queue at this instant; nothing left to hand out
        if ws:
            self._arm(q)

    # ---------------------------------------------------------------- delete / change visibility
    def _lookup(self, q, handle):
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

    def handle_queue(self, handle):
        """The queue whose receipt handles ``handle`` has the form of (any region), or None."""
        if isinstance(handle, str) and handle.startswith("AQEB"):
            for q in self._queues.values():
                if handle.startswith(q._hprefix):
                    return q
        return None

    def delete(self, q, handle) -> None:
        """DeleteMessage (ev. 1.3, 1.4): deleted/moved/expired message -> success; garbage ->
        ReceiptHandleIsInvalid; FIFO outside the handle's window -> InvalidParameterValue "...expired."."""
        r = q._handles.get(handle)
        if r is None and self._lookup(q, handle) is None:
            return  # already gone: 200, repeatable (AWS-REC)
        m = r.message
        if q.fifo:
            # DOC: "DeleteMessage operations will fail if the request is received outside of the visibility
            # timeout window". A stale handle's window ended before the newer receive (open question 4).
            if r is not m.receipt or m.visible_at <= self.now:
                raise E.fifo_handle_expired(handle)
        elif r is not m.receipt and self.stale_delete == "ignore" and m.visible_at > self.now:
            return  # DOC: "the request will succeed, but the message might not be deleted"
        self._remove(q, m)
        q.n_deleted += 1
        if q.fifo and q._waiters:
            self._serve(q)  # a delete unblocks the group at once (AWS-REC test_fifo_message_group_visibility)

    def change_visibility(self, q, handle, timeout) -> None:
        """ChangeMessageVisibility (ev. 1.1-1.4): counts from this call, not additive, this receipt only;
        0 = visible at once; on an expired message: success, no effect; 12 h cap per ``cap_anchor``."""
        if not 0 <= timeout <= MAX_VISIBILITY:
            raise E.visibility_range(timeout)
        r = self._lookup(q, handle)
        if r is None:
            raise E.cmv_message_gone(handle)
        m = r.message
        now = self.now
        if m.state != INFLIGHT or m.visible_at <= now:
            return  # AWS-REC: 200 after expiry; no effect (no MessageNotInflight)
        anchor = r.received_at if self.cap_anchor == "receive" else m.first_received_at
        if now + timeout - anchor > MAX_VISIBILITY:
            raise E.visibility_cap(timeout)
        m.ver = v = next(self._seq)
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
                self._gtouch(q, q._groups[m.group_id])
            if q._waiters:
                self._serve(q)
        else:
            m.visible_at = t = now + timeout
            heappush(q._hidden, (t, v, m))
            if head:
                self._gtouch(q, q._groups[m.group_id])
            if q._waiters:
                self._arm(q)

    def purge(self, q) -> None:
        """PurgeQueue: every message goes, in flight or not; clears the FIFO deduplication cache (ev. 1.7)."""
        self._settle(q)
        for m in list(q._live.values()):
            self._remove(q, m)
            q.n_purged += 1
        q._dedup.clear()
        q._visible = []
        q._hidden = []
        q._ret = []
        q._gheap = []

    # ---------------------------------------------------------------- inspection
    def peek(self, queue) -> list[dict]:
        """Every message of a queue with its state, changing nothing (seed 004's "peek")."""
        q = self.get_queue(queue)
        now = self.now
        out = []
        for m in q._live.values():
            st = "visible" if m.visible_at <= now else _STATE_NAMES[m.state]
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


def _deadline(w):
    return w.deadline
