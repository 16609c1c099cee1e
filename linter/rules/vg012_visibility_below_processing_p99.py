"""VG012: visibility timeout too short for the declared processing time (engine duplicate estimate)."""

from __future__ import annotations

from visguard.linter.changes import set_queue, with_changes
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, fmt_rate, fmt_seconds, need_fix, need_of

RULE = Rule(
    id="VG012",
    title="Visibility timeout too short for the declared processing time",
    severity=Severity.WARNING,
    rationale=(
        "A message becomes visible again when its visibility timeout expires, even if a consumer is still "
        "processing it; another consumer then receives and processes it a second time. With a declared "
        "processing profile (p50/p99 in visguard.yaml or on a GuardedQueue) visguard's risk model estimates "
        "the share of messages processed twice; the rule fires above target_duplicate_rate (default 0.1 %). "
        "Consumers that send heartbeats (ChangeMessageVisibility) are judged by VG015 instead, and consumers "
        "that set their own visibility on their receives (sqsd, a receive's VisibilityTimeout) by VG061."
    ),
    source="https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-visibility-timeout.html",
    fix="Raise {visibility_timeout} to what the profile needs, or, past the 12-hour cap, heartbeat (see the message).",
    tags=("visibility", "duplicates", "profile"),
    settings={"target_duplicate_rate": 0.001},
    consumers_only=True,
)


def check(queue, ctx):
    vt = ctx.visibility(queue)
    if vt is None:
        return
    limit = float(ctx.setting("target_duplicate_rate"))
    mrc = queue.redrive.max_receive_count if queue.redrive else None
    for c in queue.consumers:
        if c.processing_p99 is None or c.heartbeat_interval is not None or ctx.overrides(c):
            continue  # heartbeats are VG015's; a consumer's own visibility on its receives is VG061's
        # Lambda: records wait in the batching window while their visibility already runs; only if the rest
        # can end before the function timeout (a durable function: its durable execution's bound) is the queue's
        # timeout to blame (timeouts are VG034's).
        if c.kind == "lambda" and (c.function_id is None or vt - c.effective_batching_window >= c.batch_hold):
            continue
        r = ctx.risk(vt, c, mrc)
        if r is None or r.duplicate_rate <= limit:
            continue
        p50 = f"p50 {fmt_seconds(c.processing_p50)}, " if c.processing_p50 is not None else ""
        how = "" if r.source == "engine" else f" ({r.source} estimate)"
        need = need_of(c, ctx)  # the one visibility-need policy (visguard.policy)
        fix = need_fix(need) if need is not None else None
        change = None
        if need is not None and (need.heartbeat is None or need.basis == "heartbeat"):
            change = set_queue(queue, "visibility_timeout", max(int(need.visibility_timeout), int(vt)))
        yield with_changes(
            ctx.finding(
                queue,
                f"visibility timeout {fmt_seconds(vt)} is short for {ctx.consumer_label(c)} with "
                f"{p50}p99 {fmt_seconds(c.processing_p99)}: about {fmt_rate(r.duplicate_rate)} of messages "
                f"will be processed twice{how}",
                location=queue.location_of("visibility_timeout"),
                consumer=c,
                estimate=r.as_dict(),
                fix=fix,
            ),
            change,
        )
