"""VG001: VisibilityTimeout outside 0-43,200 seconds."""

from __future__ import annotations

from visguard.facts import DEFAULT_VISIBILITY_TIMEOUT, VISIBILITY_TIMEOUT
from visguard.linter.changes import set_queue, with_changes
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, queue_need_of

RULE = Rule(
    id="VG001",
    title="Visibility timeout outside 0-43,200 seconds",
    severity=Severity.ERROR,
    rationale=(
        "SQS accepts a queue visibility timeout from 0 to 43,200 seconds (12 hours), in whole seconds. "
        "CreateQueue and SetQueueAttributes reject anything else, so the stack fails to deploy."
    ),
    source="https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SetQueueAttributes.html",
    fix="Set {visibility_timeout} to a whole number of seconds between 0 and 43200.",
    tags=("sqs", "visibility", "limits"),
)


def check(queue, ctx):
    v = queue.visibility_timeout
    if v is None or isinstance(v, str):
        return  # unset (30 s default) or unresolved: nothing to judge
    if isinstance(v, bool) or v not in VISIBILITY_TIMEOUT or v != int(v):
        finite = isinstance(v, (int, float)) and not isinstance(v, bool) and v == v and abs(v) != float("inf")
        value = int(VISIBILITY_TIMEOUT.clamp(round(v))) if finite else DEFAULT_VISIBILITY_TIMEOUT
        need = queue_need_of(queue, ctx)  # in range, and at least what the consumers need
        if need is not None:
            value = max(value, need.visibility_timeout)
        yield with_changes(
            ctx.finding(
                queue,
                f"visibility timeout {v!r} is not a whole number of seconds in 0-43200",
                location=queue.location_of("visibility_timeout"),
            ),
            set_queue(queue, "visibility_timeout", value),
        )
