"""VG002: maxReceiveCount outside 1-1,000."""

from __future__ import annotations

from visguard.facts import MAX_RECEIVE_COUNT, MIN_RECEIVE_COUNT_LAMBDA
from visguard.linter.changes import set_queue, with_changes
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, unresolved

RULE = Rule(
    id="VG002",
    title="maxReceiveCount outside 1-1,000",
    severity=Severity.ERROR,
    rationale=(
        "The redrive policy's maxReceiveCount is the number of receives after which SQS moves a message to the "
        "dead-letter queue. SQS accepts a whole number from 1 to 1,000; anything else is rejected when the "
        "queue is created or updated."
    ),
    source="https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html",
    fix="Set {redrive_max_receive_count} to a whole number between 1 and 1000 (5 or more for Lambda consumers).",
    tags=("sqs", "redrive", "limits"),
)


def check(queue, ctx):
    r = queue.redrive
    if r is None:
        return
    m = r.max_receive_count
    loc = (
        queue.location_of("redrive.max_receive_count")
        if "redrive.max_receive_count" in queue.locations
        else r.location
    )
    if m is None:
        if not (r.target is None and unresolved(r.target_ref)):  # a policy only the deployed stack knows
            yield ctx.finding(queue, "redrive policy has no maxReceiveCount", location=loc)
        return
    if isinstance(m, str):
        return  # unresolved (a parameter without a value): nothing to judge
    if isinstance(m, bool) or m != int(m) or m not in MAX_RECEIVE_COUNT:
        finite = isinstance(m, (int, float)) and not isinstance(m, bool) and m == m and abs(m) != float("inf")
        value = int(MAX_RECEIVE_COUNT.clamp(round(m))) if finite else 5
        if any(c.kind == "lambda" for c in queue.consumers):
            value = max(value, MIN_RECEIVE_COUNT_LAMBDA)
        yield with_changes(
            ctx.finding(queue, f"maxReceiveCount {m!r} is not a whole number in 1-1000", location=loc),
            set_queue(queue, "redrive.max_receive_count", value),
        )
