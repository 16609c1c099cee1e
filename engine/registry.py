"""The queue registry: CreateQueue, GetQueueUrl, ListQueues, DeleteQueue, queue attributes, tags, PurgeQueue.

Queues are kept per region and name, and found by name, URL or ARN. Attribute values are parsed and checked
by engine/attributes.py (the codec); ``apply_attributes`` puts what it returns on the queue. Tags and the 60 s
purge window belong to the queue (every client sees them; they go with it).

Functions of the engine, bound as its methods in engine/core.py.
"""

from __future__ import annotations

from . import attributes as A
from . import errors as E
from .records import Queue

NAME_REUSE_WAIT = 60.0  # DOC (DeleteQueue): wait 60 s before creating a queue with the same name
PURGE_WAIT = 60.0  # DOC (PurgeQueue): one purge per queue every 60 seconds
MAX_TAGS = 50  # DOC (quotas): 50 tags per queue


def create_queue(
    eng, name: str, attributes: dict | None = None, *, strict: bool = False, region: str | None = None
) -> Queue:
    """CreateQueue. Idempotent for the same attributes; ``QueueAlreadyExists`` for different ones;
    ``QueueDeletedRecently`` within 60 s of deleting a queue of that name (DOC).

    Attribute values may be strings (as in AWS) or numbers; RedrivePolicy a JSON string or a dict. A name
    ending in ".fifo" makes a FIFO queue here; ``strict=True`` (the client) demands FifoQueue=true as AWS.
    ``region``: the queue's region (default the engine's); each region has its own queue names.
    """
    region = region or eng.region
    attributes = dict(attributes or {})
    if not strict:
        if name.endswith(".fifo"):
            attributes.setdefault("FifoQueue", "true")
        elif str(attributes.get("FifoQueue", "")).lower() == "false":
            del attributes["FifoQueue"]
    fifo_attr = str(attributes.get("FifoQueue", "false")).lower() == "true"
    A.check_queue_name(name, fifo_attr)
    existing = eng._queues.get((region, name))
    if existing is not None:
        diff = A.differing_attribute(
            eng.queue_attributes(existing), attributes, existing.fifo, existing.redrive_policy,
            eng._by_arn.get,
        )  # fmt: skip
        if diff is not None:
            raise E.SQSError(
                "QueueAlreadyExists",
                f"A queue already exists with the same name and a different value for attribute {diff}",
            )
        return existing
    gone = eng._deleted.get((region, name))
    if gone is not None and eng.now - gone < NAME_REUSE_WAIT:
        raise E.SQSError(
            "AWS.SimpleQueueService.QueueDeletedRecently",
            "You must wait 60 seconds after deleting a queue before you can create another with the same name.",
        )  # AWS-REC test_create_queue_recently_deleted (LocalStack, aws.validated)
    parsed = A.parse_queue_attributes(attributes, fifo=fifo_attr, creating=True, lookup=eng._by_arn.get)
    eng._nqueues += 1
    q = Queue(eng, name, eng._nqueues, region)
    q.fifo = fifo_attr
    eng._apply(q, parsed, creating=True)
    eng._queues[q._key] = q
    eng._by_arn[q.arn] = q
    eng._by_url[q.url] = q
    eng._deleted.pop(q._key, None)
    return q


def get_queue(eng, ref, region: str | None = None) -> Queue:
    """A queue by name (in ``region``, default the engine's), URL or ARN (or a Queue);
    ``AWS.SimpleQueueService.NonExistentQueue`` if none."""
    if isinstance(ref, Queue):
        if eng._queues.get(ref._key) is ref:
            return ref
        raise E.no_such_queue()
    if not isinstance(ref, str):
        raise E.no_such_queue()
    q = eng._by_url.get(ref)
    if q is not None:
        return q
    if ref.startswith("arn:"):
        q = eng._by_arn.get(ref)
    elif "/" in ref:
        parts = ref.rstrip("/").rsplit("/", 2)
        q = None
        if len(parts) == 3 and parts[1] == eng.account_id:
            host = parts[0].rsplit("/", 1)[-1].split(".")  # sqs.<region>.amazonaws.com, or a custom host
            if len(host) > 2 and host[0] == "sqs":
                r = host[1]
            elif len(host) > 3 and host[1] == "queue":  # the legacy https://<region>.queue.amazonaws.com
                r = host[0]
            else:
                r = region or eng.region
            q = eng._queues.get((r, parts[-1]))
    else:
        q = eng._queues.get((region or eng.region, ref))
    if q is None:
        raise E.no_such_queue()
    return q


def queues(eng, region: str | None = None) -> list[Queue]:
    """The queues of ``region`` (default the engine's), in creation order."""
    region = region or eng.region
    return [q for q in eng._queues.values() if q.region == region]


def delete_queue(eng, q) -> None:
    """DeleteQueue: its messages, tags and purge window go with it; the name is reserved for 60 s."""
    q = eng.get_queue(q)
    del eng._queues[q._key]
    del eng._by_arn[q.arn]
    del eng._by_url[q.url]
    eng._deleted[q._key] = eng.now
    if len(eng._deleted) > 1024:
        eng._deleted = {k: t for k, t in eng._deleted.items() if eng.now - t < NAME_REUSE_WAIT}
    for w in q._waiters:
        w.active = False
    q._waiters.clear()


def set_attributes(eng, q, attributes: dict) -> None:
    """SetQueueAttributes. A new VisibilityTimeout does not touch messages already in flight (DOC)."""
    q = eng.get_queue(q)
    parsed = A.parse_queue_attributes(dict(attributes), fifo=q.fifo, creating=False, lookup=eng._by_arn.get)
    eng._apply(q, parsed, creating=False)
    q.modified_at = eng.now


def apply_attributes(eng, q, new: dict, creating: bool) -> None:
    """Apply attributes the codec parsed (engine/attributes.py)."""
    for name, value in new.items():
        if name == "VisibilityTimeout":
            q.visibility_timeout = value  # in-flight messages keep their timeout (DOC)
        elif name == "DelaySeconds":
            q.delay_seconds = value
            if q.fifo and not creating:
                eng._redelay_fifo(q)  # DOC: retroactive for FIFO queues, not for standard ones (ev. 1.8)
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


def queue_attributes(eng, q) -> dict:
    """Every attribute of ``q`` as GetQueueAttributes(All) returns it, values as strings."""
    q = eng.get_queue(q)
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


def tag_queue(eng, q, tags: dict) -> None:
    """TagQueue: adds or overwrites; at most 50 tags per queue (DOC quotas)."""
    q = eng.get_queue(q)
    if not tags:
        raise E.SQSError("MissingParameter", "The request must contain the parameter Tags.")  # moto's text
    merged = {**q.tags, **tags}
    if len(merged) > MAX_TAGS:
        raise E.invalid_parameter(f"Too many tags added for queue {q.name}.")  # text unrecorded (moto's)
    q.tags = merged


def untag_queue(eng, q, keys) -> None:
    """UntagQueue: a key the queue does not have is ignored (LocalStack test_untag_queue_ignores_...)."""
    q = eng.get_queue(q)
    if not keys or any(not 1 <= len(k) <= 128 for k in keys):
        raise E.invalid_parameter("Tag keys must be between 1 and 128 characters in length.")  # moto's text
    for k in keys:
        q.tags.pop(k, None)


def purge_request(eng, q) -> None:
    """PurgeQueue as the API allows it: one per queue every 60 s, else ``PurgeQueueInProgress`` (HTTP 403,
    the status botocore's model gives the error); the window belongs to the queue, not to a client."""
    q = eng.get_queue(q)
    if q.purged_at is not None and eng.now - q.purged_at < PURGE_WAIT:
        raise E.SQSError(
            "AWS.SimpleQueueService.PurgeQueueInProgress",
            f"Only one PurgeQueue operation on {q.name} is allowed every 60 seconds.",
            403,
        )  # AWS-REC snapshot test_successive_purge_calls_fail
    q.purged_at = eng.now
    eng.purge(q)


def purge(eng, q) -> None:
    """PurgeQueue: every message goes, in flight or not; clears the FIFO deduplication cache (ev. 1.7)."""
    eng._settle(q)
    for m in list(q._live.values()):
        eng._remove(q, m)
        q.n_purged += 1
    q._dedup.clear()
    q._visible = []
    q._hidden = []
    q._ret = []
    q._gheap = []
