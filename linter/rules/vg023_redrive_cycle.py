"""VG023: redrive policies that form a loop (a DLQ redriving back into its source, or into itself)."""

from __future__ import annotations

from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule

RULE = Rule(
    id="VG023",
    title="Redrive policies form a loop",
    severity=Severity.ERROR,
    rationale=(
        "A dead-letter queue is where failed messages stop. If the DLQ has its own redrive policy pointing back "
        "at its source (or at itself, or round a longer chain), failed messages circulate between the queues "
        "instead of coming to rest, their receive counts keep growing and nothing ever alarms on a stable DLQ."
    ),
    source="https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html",
    fix="Remove the redrive policy from the dead-letter queue (a DLQ should be the end of the chain).",
    tags=("sqs", "redrive", "dlq"),
)


def check(queue, ctx):
    seen = [queue.id]
    current = ctx.dlq_of(queue)
    while current is not None:
        if current.id == queue.id:
            if queue.id == min(seen):  # report a loop once, on its first queue by id
                yield ctx.finding(
                    queue,
                    "redrive loop: " + " -> ".join([*seen, queue.id]),
                    location=queue.locations.get("redrive.target") or queue.redrive.location,
                )
            return
        if current.id in seen:
            return  # a loop further down the chain, reported on its own queues
        seen.append(current.id)
        current = ctx.dlq_of(current)
