"""VG005: MessageRetentionPeriod or DelaySeconds outside the SQS range."""

from __future__ import annotations

from visguard.facts import DELAY, RETENTION
from visguard.linter.changes import set_queue, with_changes
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule
from visguard.linter.vocabulary import Text

RULE = Rule(
    id="VG005",
    title="Retention period or delay outside the SQS range",
    severity=Severity.ERROR,
    rationale=(
        "SQS accepts MessageRetentionPeriod from 60 seconds to 1,209,600 seconds (14 days) and DelaySeconds "
        "from 0 to 900 seconds, in whole seconds; CreateQueue and SetQueueAttributes reject other values."
    ),
    source="https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SetQueueAttributes.html",
    fix="Set {retention} within 60-1209600 and {delay} within 0-900.",
    tags=("sqs", "retention", "limits"),
)

_RANGES = (
    ("message_retention", "retention", RETENTION.lo, RETENTION.hi),
    ("delay", "delay", DELAY.lo, DELAY.hi),
)


def check(queue, ctx):
    for attr, key, lo, hi in _RANGES:
        v = getattr(queue, attr)
        if v is None or isinstance(v, str):
            continue
        if isinstance(v, bool) or v != int(v) or not lo <= v <= hi:
            finite = (
                isinstance(v, (int, float)) and not isinstance(v, bool) and v == v and abs(v) != float("inf")
            )
            value = int(min(max(round(v), lo), hi)) if finite else int(lo)
            yield with_changes(
                ctx.finding(
                    queue,
                    Text(
                        "{" + key + "} {value} is not a whole number of seconds in {lo}-{hi}",
                        value=repr(v),
                        lo=lo,
                        hi=hi,
                    ),
                    location=queue.location_of(attr),
                ),
                set_queue(queue, attr, value),
            )
