"""VG013: visibility timeout far longer than needed: crash recovery waits it out."""

from __future__ import annotations

import math

from visguard.linter.changes import set_queue, with_changes
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, fmt_seconds, queue_need_of
from visguard.linter.vocabulary import Text

RULE = Rule(
    id="VG013",
    title="Visibility timeout far longer than needed (slow crash recovery)",
    severity=Severity.INFO,
    rationale=(
        "When a consumer crashes or a Lambda invocation fails, its messages stay invisible until the visibility "
        "timeout expires; only then can they be retried. A timeout many times longer than the processing time "
        "(or than the 6 x function timeout guidance) adds that much latency to every failure without making "
        "duplicates any rarer. The rule fires when the timeout is more than long_visibility_factor (default 10) "
        "times what is needed and at least 5 minutes longer."
    ),
    source="https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-visibility-timeout.html",
    fix="Lower {visibility_timeout} towards what the consumers need (see the message), or use heartbeats for long jobs.",
    tags=("visibility", "latency", "recovery", "profile"),
    settings={"long_visibility_factor": 10},
    consumers_only=True,
)

_MIN_EXCESS = 300.0  # seconds: below this, a long timeout costs little


def check(queue, ctx):
    vt = ctx.visibility(queue)
    if vt is None or not queue.consumers:
        return
    if any(c.heartbeat_interval is not None for c in queue.consumers):
        return  # heartbeating consumers use a short window and extend it: the queue default is not the hold time
    if any(c.kind == "unknown" or (c.kind == "lambda" and c.function_id is None) for c in queue.consumers):
        return  # a consumer whose need is not known here may need all of it
    qn = queue_need_of(queue, ctx, profiled_only=True)  # the one visibility-need policy (visguard.policy)
    if qn is None:
        return
    need = float(qn.without_heartbeat)
    factor = float(ctx.setting("long_visibility_factor"))
    if vt > factor * need and vt - need >= _MIN_EXCESS:
        profiled = [c for c in queue.consumers if c.processing_p99 is not None]
        r = ctx.risk(vt, profiled[0]) if profiled else None
        recovery = r.recovery_p99 if r is not None and r.recovery_p99 is not None else vt
        est = {"recovery_p99": round(recovery, 3), "needed": need}
        yield with_changes(
            ctx.finding(
                queue,
                f"visibility timeout {fmt_seconds(vt)} is over {factor:g} x what its consumers need "
                f"({fmt_seconds(round(need))}): after a crash, messages wait about {fmt_seconds(round(recovery))} "
                f"before a retry",
                location=queue.location_of("visibility_timeout"),
                estimate=est,
                fix=Text(
                    "Lower {visibility_timeout} towards {need}.",
                    id="lower_visibility",
                    need=fmt_seconds(round(need)),
                    value=round(need),
                ),
            ),
            set_queue(queue, "visibility_timeout", int(math.ceil(need))),
        )
