"""What the engine holds: queues, messages, receipts (and a FIFO group, a waiting long poll).

Plain records with ``__slots__``; the engine's operations (engine/core.py lists them, one module per concern)
read and change them. A queue keeps its messages in a few heaps whose entries carry a version (``ver``): an
entry whose version no longer matches its message is dead and skipped (engine/store.py).
"""

from __future__ import annotations

import hashlib
from collections import deque

from visguard import facts

from .clock import INF

# message states (Message.state)
VISIBLE, INFLIGHT, DELAYED, GONE = 0, 1, 2, 3
STATE_NAMES = {VISIBLE: "visible", INFLIGHT: "inflight", DELAYED: "delayed"}


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
        return f"<Message {self.id} {STATE_NAMES.get(self.state, 'gone')} rc={self.receive_count}>"


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


class Group:
    """A FIFO message group: its messages in send order; the queue files it in a heap by when it is ready."""

    __slots__ = ("id", "msgs", "ver")

    def __init__(self, gid):
        self.id = gid
        self.msgs = deque()  # messages of the group still in the queue, in send order
        self.ver = 0  # the valid entry of this group in Queue._gheap


class Waiter:
    """A long poll waiting for messages (engine/longpoll.py); ``active`` is False once answered or cancelled."""

    __slots__ = ("cb", "max", "vt", "active", "deadline")

    def __init__(self, cb, max_messages, vt, deadline):
        self.cb, self.max, self.vt, self.active, self.deadline = cb, max_messages, vt, True, deadline


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
        self._groups = {}  # FIFO: group id -> Group
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
