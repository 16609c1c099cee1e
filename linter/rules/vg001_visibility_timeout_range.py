"""VG001: VisibilityTimeout outside 0-43,200 seconds."""

from __future__ import annotations

from visguard.facts import VISIBILITY_TIMEOUT
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule

RULE = Rule(
    id="VG001",
    title="Visibility timeout outside 0-43,200 seconds",
    severity=Severity.ERROR,
    rationale=(
        "SQS accepts a queue visibility timeout from 0 to 43,200 seconds (12 hours), in whole seconds. "
        "CreateQueue and SetQueueAttributes reject anything else, so the stack fails to deploy."
    ),
    source="https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SetQueueAttributes.html",
    fix="Set VisibilityTimeout to a whole number of seconds between 0 and 43200.",
    tags=("sqs", "visibility", "limits"),
)


def check(queue, ctx):
    v = queue.visibility_timeout
    if v is None or isinstance(v, str):
        return  # unset (30 s default) or unresolved: nothing to judge
    if isinstance(v, bool) or v not in VISIBILITY_TIMEOUT or v != int(v):
        yield ctx.finding(
            queue,
            f"visibility timeout {v!r} is not a whole number of seconds in 0-43200",
            location=queue.location_of("visibility_timeout"),
        )
