"""VG014: processing p99 or heartbeat plan beyond the 12-hour visibility cap."""

from __future__ import annotations

from visguard.facts import MAX_VISIBILITY as MAX_VISIBILITY_TIMEOUT
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, fmt_seconds, need_fix, need_of
from visguard.linter.vocabulary import Text

RULE = Rule(
    id="VG014",
    title="Processing time or heartbeat plan exceeds the 12-hour visibility cap",
    severity=Severity.ERROR,
    rationale=(
        "A message's total visibility per receive is capped at 12 hours (43,200 s) from the moment it was "
        "received; ChangeMessageVisibility cannot extend it further and fails with 'Total VisibilityTimeout for "
        "the message is beyond the limit [43200 seconds]'. Processing that can run longer is always received "
        "again by another consumer, no matter how the heartbeat is planned; a heartbeat that asks for more than "
        "43,200 s is rejected outright."
    ),
    source="https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-visibility-timeout.html",
    fix="Split the work into steps that finish within 12 hours (e.g. Step Functions), or store progress and "
    "re-enqueue; keep heartbeat extensions at or below 43200 s.",
    tags=("visibility", "heartbeat", "limits", "profile"),
    consumers_only=True,
)


def check(queue, ctx):
    for c in queue.consumers:
        p99 = c.processing_p99
        if p99 is not None and p99 >= MAX_VISIBILITY_TIMEOUT:
            yield ctx.finding(
                queue,
                f"processing p99 {fmt_seconds(p99)} of {ctx.consumer_label(c)} reaches the 12 h cap: those "
                "messages will be received again while still being processed",
                location=c.location or queue.location,
                consumer=c,
                fix=_fix_long(queue, c, ctx),
            )
        ext = c.heartbeat_extend_by
        if c.heartbeat_interval is not None and ext is not None and ext > MAX_VISIBILITY_TIMEOUT:
            yield ctx.finding(
                queue,
                f"heartbeat of {ctx.consumer_label(c)} extends visibility by {fmt_seconds(ext)}, above the "
                "43200 s maximum: ChangeMessageVisibility rejects it",
                location=c.location or queue.location,
                consumer=c,
                fix=f"Extend by at most {MAX_VISIBILITY_TIMEOUT} s minus the time since the receive (the 12-hour "
                "cap counts from the receive and extensions do not reset it), e.g. ChangeMessageVisibility("
                f"{fmt_seconds(min(ext, 2 * c.heartbeat_interval, MAX_VISIBILITY_TIMEOUT)).split()[0]}) every "
                f"{fmt_seconds(c.heartbeat_interval)}.",
            )


def _fix_long(queue, c, ctx) -> str:
    need = need_of(c, ctx)
    base = "Split the work into steps that each finish within 12 hours (Step Functions), or checkpoint and re-enqueue."
    if need is not None and need.heartbeat is not None and need.basis != "heartbeat":
        return Text("{base} Until then: {plan_fix}", base=base, plan_fix=need_fix(need))
    return base
