"""VG003: dead-letter queue of a different type (FIFO vs standard) than its source."""

from __future__ import annotations

from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule

RULE = Rule(
    id="VG003",
    title="Dead-letter queue type differs from its source (FIFO vs standard)",
    severity=Severity.ERROR,
    rationale=(
        "The dead-letter queue of a FIFO queue must also be a FIFO queue, and the dead-letter queue of a "
        "standard queue must be a standard queue. SQS rejects a redrive policy that mixes them."
    ),
    source="https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html",
    fix="Point the redrive policy at a dead-letter queue of the same type ({fifo_true} for a FIFO source).",
    tags=("sqs", "redrive", "dlq", "fifo"),
)


def _kind(fifo: bool) -> str:
    return "FIFO" if fifo else "standard"


def check(queue, ctx):
    dlq = ctx.dlq_of(queue)
    if dlq is not None and dlq.fifo != queue.fifo:
        loc = queue.locations.get("redrive.target") or (queue.redrive.location if queue.redrive else None)
        yield ctx.finding(
            queue,
            f"{_kind(queue.fifo)} queue {queue.id} sends failed messages to {_kind(dlq.fifo)} queue {dlq.id}",
            location=loc,
        )
