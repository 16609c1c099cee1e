"""VG073: sqs-consumer's heartbeatInterval not below its visibilityTimeout (the library refuses to start)."""

from __future__ import annotations

from visguard.facts import MAX_VISIBILITY
from visguard.linter.changes import set_consumer, with_changes
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, alone, as_number, fmt_seconds, of_queue
from visguard.linter.vocabulary import Text

RULE = Rule(
    id="VG073",
    title="sqs-consumer heartbeatInterval not below visibilityTimeout (the consumer does not start)",
    severity=Severity.ERROR,
    rationale=(
        "The Node library sqs-consumer extends a message's visibility every heartbeatInterval seconds by "
        "visibilityTimeout seconds (ChangeMessageVisibility). It checks its options when it is created and "
        "throws 'heartbeatInterval must be less than visibilityTimeout.' when heartbeatInterval is set and "
        "visibilityTimeout is not set or not greater: the worker never starts. Catch it before it is deployed."
    ),
    source="https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_ChangeMessageVisibility.html",
    fix="Set visibilityTimeout above heartbeatInterval (about twice it), or remove heartbeatInterval.",
    tags=("heartbeat", "deploy", "code", "sqs-consumer"),
    consumers_only=True,
    kinds=("worker",),
)


def check(queue, ctx):
    for c in queue.consumers:
        yield from _judge(c, queue, ctx)


def check_consumer(c, ctx):
    """A consumer whose queue is not known: the library's check of its own options needs no queue."""
    yield from _judge(c, None, ctx)


def _judge(c, queue, ctx):
    hb = as_number(c.heartbeat_interval)
    if c.kind != "worker" or c.platform != "sqs-consumer" or hb is None or hb <= 0:
        return
    vt = as_number(c.visibility_override)
    if vt is not None and hb < vt:
        return
    from visguard.linter.consumer_words import term  # worded only for a worker consumer

    at = c.location_of("heartbeat_interval")
    said = "without visibilityTimeout" if vt is None else f"not below visibilityTimeout {fmt_seconds(vt)}"
    yield with_changes(
        ctx.finding(
            queue if queue is not None else alone(c),
            Text(
                "{consumer}{of_queue} sets {hb_name} = {hb} at {at} {said}: "
                "sqs-consumer throws when the consumer is created, and the worker does not start",
                consumer=ctx.consumer_label(c),
                of_queue=of_queue(queue, ctx),
                hb_name=term(c, "heartbeat_interval"),
                hb=fmt_seconds(hb),
                at=ctx.where(at),
                said=said,
            ),
            location=at,
            consumer=c,
            fix=Text(
                "Set {visibility_override} to {want} (twice {hb_name} {hb}) at {at}, or remove "
                "{heartbeat_interval}.",
                hb_name=term(c, "heartbeat_interval"),
                want=fmt_seconds(2 * hb),
                hb=fmt_seconds(hb),
                at=ctx.where(c.location_of("visibility_override")),
            ),
        ),
        set_consumer(c, "visibility_override", int(2 * hb)) if 2 * hb <= MAX_VISIBILITY else None,
    )
