"""VG074: a consumer's own visibility timeout (on its receives, or a framework's option) outside 0-43,200 seconds."""

from __future__ import annotations

import math

from visguard.facts import DEFAULT_VISIBILITY_TIMEOUT, RECEIVE_VISIBILITY_SOURCE, VISIBILITY_TIMEOUT
from visguard.linter.changes import set_consumer, with_changes
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, alone, need_of, of_queue, unknown_queue_said
from visguard.linter.vocabulary import Text

RULE = Rule(
    id="VG074",
    title="Consumer's own visibility timeout outside 0-43,200 seconds",
    severity=Severity.ERROR,
    rationale=(
        "The visibility timeout a consumer sets itself has the same range as the queue's (VG001): a whole number "
        "of seconds from 0 to 43,200 (12 hours) on ReceiveMessage and ChangeMessageVisibility. A receive's "
        "VisibilityTimeout outside it (50000, a mistyped 21-digit number, a negative value) is rejected with "
        "InvalidParameterValue, or by the SDK before it is sent, on every poll: the worker receives nothing "
        "while its queue fills up. The same holds for a framework option that becomes that VisibilityTimeout "
        "(sqs-consumer's visibilityTimeout, Spring's messageVisibility, sqsd's VisibilityTimeout option) and "
        "for the visibility a framework gives the queue it creates (Celery's broker_transport_options "
        "visibility_timeout: CreateQueue fails)."
    ),
    source=RECEIVE_VISIBILITY_SOURCE,
    fix="Set {visibility_override} to a whole number of seconds between 0 and 43200, above the processing time "
    "(the queue's own {visibility_timeout} when it is long enough).",
    tags=("visibility", "limits", "consumer", "worker", "code"),
    consumers_only=True,
    kinds=("worker",),
)


def _out_of_range(v) -> bool:
    """A number outside the SQS range (not an unresolved string, an unset value or a flag). A fraction of a
    second is not judged: it is what a framework's unit conversion gives (Spring's Duration of milliseconds),
    and the framework sends whole seconds."""
    if v is None or isinstance(v, (str, bool)) or not isinstance(v, (int, float)):
        return False  # unset, or not known here: nothing to judge
    return v not in VISIBILITY_TIMEOUT


def _said(v) -> str:
    finite = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
    return str(int(v)) if finite and v == int(v) else repr(v)


def check(queue, ctx):
    for c in queue.consumers:
        yield from _judge(c, queue, ctx)


def check_consumer(c, ctx):
    """A consumer whose queue is not known: a value SQS rejects is rejected whatever the queue."""
    yield from _judge(c, None, ctx)


def _judge(c, queue, ctx):
    if c.kind != "worker":
        return
    home = queue if queue is not None else alone(c)  # the finding's queue: the stand-in when it is not known
    v = c.visibility_override
    if _out_of_range(v):
        at = c.location_of("visibility_override") or c.location or home.location
        yield with_changes(
            ctx.finding(
                home,
                Text(
                    "{label} receives{from_queue} with {visibility_override} {v} ({at}), outside 0-43200 s: SQS "
                    "rejects every receive with it, and the worker gets no messages{unknown}",
                    label=ctx.consumer_label(c),
                    from_queue=of_queue(queue, ctx, " from {queue} ({queue_at})"),
                    v=_said(v),
                    at=ctx.where(at),
                    unknown="" if queue is not None else f" ({unknown_queue_said(c)})",
                ),
                location=at,
                consumer=c,
            ),
            # the queue not known: no value to write (the queue's timeout would be a guess)
            set_consumer(c, "visibility_override", _value(c, queue, ctx)) if queue is not None else None,
        )
    created = c.settings.get("created_visibility")
    if _out_of_range(created):
        at = c.locations.get("created_visibility") or c.location or home.location
        yield ctx.finding(
            home,
            Text(
                "{label} sets {created_visibility} {v} at {at}{for_queue}, outside 0-43200 s: "
                "creating the queue with it fails",
                label=ctx.consumer_label(c),
                for_queue=of_queue(queue, ctx, " for {queue} ({queue_at})"),
                v=_said(created),
                at=ctx.where(at),
            ),
            location=at,
            consumer=c,
            fix=Text(
                "Set {created_visibility} to a whole number of seconds between 0 and 43200, or remove it."
            ),
        )


def _value(c, queue, ctx) -> int:
    """The value to write: the queue's own timeout (the receive then agrees with it: no VG060), at least what the
    consumer needs (no VG061), within the range. Not VG001's clamp to 43200: a 12-hour hold would be a guess."""
    value = int(ctx.visibility(queue) or DEFAULT_VISIBILITY_TIMEOUT)  # (0 gives every message back: VG070)
    need = need_of(c, ctx)
    if need is not None and need.heartbeat is None:
        value = max(value, math.ceil(need.visibility_timeout))
    return int(VISIBILITY_TIMEOUT.clamp(value))
