"""VG004: redrive target missing or not a queue."""

from __future__ import annotations

import re

from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, unresolved

RULE = Rule(
    id="VG004",
    title="Redrive target missing or not a queue",
    severity=Severity.ERROR,
    rationale=(
        "A redrive policy needs deadLetterTargetArn, the ARN of an existing SQS queue in the same account and "
        "Region. Without it, or pointing at something that is not a queue ARN (a topic, a function, the queue "
        "URL that Ref returns, a typo), the queue cannot be created or failed messages have nowhere to go."
    ),
    source="https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-configure-dead-letter-queue.html",
    fix="Set {dead_letter_target} to the queue's ARN, e.g. {dlq_arn_example}.",
    tags=("sqs", "redrive", "dlq"),
)

_SQS_ARN = r"^arn:aws[a-zA-Z-]*:sqs:[^:]+:[^:]+:[^:]+$"  # compiled by the re module on first use


def check(queue, ctx):
    r = queue.redrive
    if r is None:
        return
    loc = queue.locations.get("redrive.target") or r.location
    if r.target is not None:
        # Resolved in scope (a fleet inventory whose account and region were collected) yet absent: the DLQ
        # was deleted or never created, and failed messages have nowhere to go.
        if ctx.model.queues.get(r.target) is None:
            yield ctx.finding(queue, f"redrive target {r.target} does not exist", location=loc)
        return
    ref = r.target_ref
    if ref is None or (isinstance(ref, str) and not ref.strip()):
        yield ctx.finding(queue, "redrive policy has no deadLetterTargetArn", location=loc)
    elif unresolved(ref) or re.match(_SQS_ARN, ref):
        return  # a parameter, an import, or a queue in another stack: VG003/VG022 cannot check it
    else:
        what = f"redrive target {ref}" if "not " in ref else f"redrive target {ref} is not an SQS queue ARN"
        yield ctx.finding(queue, what, location=loc)
