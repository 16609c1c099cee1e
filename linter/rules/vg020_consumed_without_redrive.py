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
        "receives and keeps the message for inspection and redrive."
    ),
    source="https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html",
    fix="{add_redrive} with a DLQ of the same type.",
    tags=("sqs", "redrive", "dlq", "poison-messages"),
    consumers_only=True,
)


def check(queue, ctx):
    if queue.redrive is None and queue.consumers:
        who = ", ".join(ctx.consumer_label(c) for c in queue.consumers[:3])
        more = f" and {len(queue.consumers) - 3} more" if len(queue.consumers) > 3 else ""
        yield with_changes(
            ctx.finding(
                queue,
                f"queue {queue.id} is consumed by {who}{more} but has no redrive policy: "
                "a poison message is retried until retention expires",
            ),
            add_dlq(queue, ctx.model, MIN_RECEIVE_COUNT_LAMBDA),
        )
