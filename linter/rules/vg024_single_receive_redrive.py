"""VG024: maxReceiveCount 1 with a non-Lambda consumer."""

from __future__ import annotations

from visguard.linter.changes import set_queue, with_changes
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule

RULE = Rule(
    id="VG024",
    title="maxReceiveCount 1: a single failed attempt moves the message to the DLQ",
    severity=Severity.WARNING,
    rationale=(
        "With maxReceiveCount 1, the next receive after any failed attempt moves the message to the "
        "dead-letter queue: a consumer restart during a deploy, a timeout or one transient error is enough. "
        "SQS delivers at least once and consumers crash, so one retry is rarely enough. (Lambda consumers "
        "are covered by VG021.)"
    ),
    source="https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html",
    fix="Set {max_receive_count} to 3-5 unless the consumer really must not retry (then say why in a suppression).",
    tags=("sqs", "redrive"),
    consumers_only=True,
)


def check(queue, ctx):
    r = queue.redrive
    if r is None or r.max_receive_count != 1 or isinstance(r.max_receive_count, bool):
        return
    others = [c for c in queue.consumers if c.kind != "lambda"]
    if others and not any(c.kind == "lambda" for c in queue.consumers):
        yield with_changes(
            ctx.finding(
                queue,
                f"maxReceiveCount 1 with {ctx.consumer_label(others[0])}: one crash or transient error sends a "
                "message to the dead-letter queue",
                location=queue.locations.get("redrive.max_receive_count") or r.location,
                consumer=others[0],
            ),
            set_queue(queue, "redrive.max_receive_count", 3),
        )
