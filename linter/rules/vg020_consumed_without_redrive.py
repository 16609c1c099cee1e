"""VG020: a consumed queue without a redrive policy."""

from __future__ import annotations

from visguard.facts import MIN_RECEIVE_COUNT_LAMBDA
from visguard.linter.changes import add_dlq, with_changes
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule

RULE = Rule(
    id="VG020",
    title="Consumed queue without a redrive policy (no dead-letter queue)",
    severity=Severity.WARNING,
    rationale=(
        "Without a redrive policy a message that always fails (a poison message) is received, fails and "
        "becomes visible again until its retention period ends, costing an invocation or a worker slot every "
        "visibility timeout and hiding real failures. A dead-letter queue stops the loop after maxReceiveCount "
        "receives and keeps the message for inspection and redrive. This holds for every consumer: an EventBridge "
        "pipe has no dead-letter queue of its own for an SQS source (it retries up to the queue's "
        "maxReceiveCount), and an SNS subscription's redrive policy only catches deliveries SNS could not make."
    ),
    source="https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html",
    fix="{add_redrive} with a DLQ of the same type.",
    tags=("sqs", "redrive", "dlq", "poison-messages"),
    consumers_only=True,
)


def check(queue, ctx):
    if queue.redrive is None and queue.consumers:
        who = ", ".join(f"{ctx.consumer_label(c)}{_at(c, ctx)}" for c in queue.consumers[:3])
        more = f" and {len(queue.consumers) - 3} more" if len(queue.consumers) > 3 else ""
        also = ""
        if any(c.platform == "pipes" for c in queue.consumers):
            also += "; Pipes has no dead-letter queue of its own for an SQS source: the queue's redrive policy is the only stop"
        subs = [s for s in queue.subscriptions if s.redrive is not None or s.redrive_ref is not None]
        if subs:
            also += (
                f"; the redrive policy of subscription {subs[0].id} ({ctx.where(subs[0].locations.get('redrive') or subs[0].location)}) "
                "only catches deliveries SNS could not make, not messages its consumers fail"
            )
        yield with_changes(
            ctx.finding(
                queue,
                f"queue {queue.id} is consumed by {who}{more} but has no redrive policy: "
                f"a poison message is retried until retention expires{also}",
            ),
            add_dlq(queue, ctx.model, MIN_RECEIVE_COUNT_LAMBDA),
        )


def _at(c, ctx) -> str:
    """`` (file:line)`` of a worker consumer read from another place than the queue (a message names both)."""
    if c.platform in (None, "lambda", "profile") or c.location is None:
        return ""
    return f" ({ctx.where(c.location)})"
