"""VG022: dead-letter queue retention not longer than its source's."""

from __future__ import annotations

from visguard.facts import RETENTION
from visguard.linter.changes import set_queue, with_changes
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, fmt_seconds
from visguard.linter.vocabulary import Of, Text

RULE = Rule(
    id="VG022",
    title="Dead-letter queue retention not longer than the source queue's",
    severity=Severity.WARNING,
    rationale=(
        "For standard queues the enqueue timestamp of a message is kept when it moves to the dead-letter "
        "queue, so its retention counts from the original send. If the DLQ keeps messages no longer than the "
        "source, a message that spent most of its life being retried expires from the DLQ soon after it "
        "arrives, before anyone can look at it. AWS: always set the DLQ's retention longer than the source's."
    ),
    source="https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html",
    fix="Set the DLQ's {retention} to 1209600 (14 days), longer than the source queue's; if the DLQ "
    "already keeps 14 days, shorten the source queue's retention.",
    tags=("sqs", "dlq", "retention"),
)


def check(queue, ctx):
    dlq = ctx.dlq_of(queue)
    if dlq is None or queue.fifo or dlq.fifo:  # FIFO resets the enqueue timestamp on the move
        return
    if isinstance(queue.message_retention, str) or isinstance(dlq.message_retention, str):
        return  # unresolved
    src, dst = queue.effective_retention, dlq.effective_retention
    if dst <= src:
        yield with_changes(
            ctx.finding(
                queue,
                f"dead-letter queue {dlq.id} keeps messages {fmt_seconds(dst)}, not longer than {queue.id}'s "
                f"{fmt_seconds(src)}: messages that spent their life retrying expire soon after they arrive",
                location=_place(queue, dlq, src),
                fix=_fix(queue, dlq, src, dst),
            ),
            *(() if _cycle(queue, dlq, ctx) else _changes(queue, dlq, src, dst)),
        )


def _place(queue, dlq, src: float):
    """Where the value to change is written: the DLQ's retention (its declaration when it keeps the default), or,
    when the source already keeps the maximum, the source's retention (else its redrive, which names the DLQ)."""
    if src < RETENTION.hi:  # (a queue created by a helper's call: the attributes that call passes, or would)
        return dlq.locations.get("message_retention") or dlq.locations.get("attributes") or dlq.location
    return (
        queue.locations.get("message_retention")
        or queue.locations.get("redrive.target")
        or queue.redrive.location
    )


def _cycle(queue, dlq, ctx) -> bool:
    """The DLQ redrives back to ``queue`` (VG023): no retention makes each longer than the other, so no change."""
    seen, q = set(), dlq
    while q is not None and q.id not in seen:
        if q.id == queue.id:
            return True
        seen.add(q.id)
        q = ctx.dlq_of(q)
    return False


def _changes(queue, dlq, src: float, dst: float):
    top = int(RETENTION.hi)
    if src < RETENTION.hi:
        return (set_queue(dlq, "message_retention", top),)
    out = [set_queue(queue, "message_retention", int(max(RETENTION.lo, RETENTION.hi - 4 * 86_400)))]
    if dst < RETENTION.hi:
        out.append(set_queue(dlq, "message_retention", top))
    return tuple(out)


def _fix(queue, dlq, src: float, dst: float) -> Text:
    top = int(RETENTION.hi)
    if src < RETENTION.hi:
        return Text(
            "Set {dlq_retention} to {top} (14 days), longer than {queue}'s {src}.",
            id="VG022.fix",
            dlq_retention=Of("retention", dlq),
            top=top,
            queue=queue.id,
            src=fmt_seconds(src),
        )
    # The source keeps the maximum: only a shorter source retention makes the DLQ's longer.
    shorter = int(max(RETENTION.lo, RETENTION.hi - 4 * 86_400))
    raise_dlq = (
        ""
        if dst >= RETENTION.hi
        else Text("set {dlq_retention} to {top} (14 days) and ", dlq_retention=Of("retention", dlq))
    )
    return Text(
        "{queue} keeps the 14-day maximum, so no DLQ can keep longer: {raise_dlq}shorten {queue_retention}, e.g. "
        "to {shorter} ({days} days), so a message keeps days in the DLQ after it arrives.",
        id="VG022.fix",
        queue=queue.id,
        raise_dlq=raise_dlq,
        queue_retention=Of("retention", queue),
        top=top,
        shorter=shorter,
        days=shorter // 86_400,
    )
