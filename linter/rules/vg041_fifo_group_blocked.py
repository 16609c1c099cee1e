"""VG041: a long FIFO visibility timeout blocks a message group after a crash."""

from __future__ import annotations

import math

from visguard.linter.changes import set_queue, with_changes
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, fmt_seconds, queue_need_of

RULE = Rule(
    id="VG041",
    title="FIFO visibility timeout blocks its message group for long after a crash",
    severity=Severity.INFO,
    rationale=(
        "In a FIFO queue, no later message of a message group is delivered while an earlier one is in flight. "
        "If a consumer crashes holding a message, its whole group waits for the rest of the visibility timeout "
        "before anything in it moves again. The rule fires when a FIFO queue's visibility timeout is above "
        "fifo_block_seconds (default 900 s) and more than twice what its consumers need."
    ),
    source="https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/FIFO-queues-understanding-logic.html",
    fix="Keep the FIFO visibility timeout close to what processing needs and extend it with heartbeats for "
    "the rare long message.",
    tags=("fifo", "visibility", "latency", "recovery"),
    settings={"fifo_block_seconds": 900},
)


def check(queue, ctx):
    vt = ctx.visibility(queue)
    if not queue.fifo or vt is None or vt <= float(ctx.setting("fifo_block_seconds")):
        return
    qn = queue_need_of(queue, ctx, profiled_only=True)  # the one visibility-need policy (visguard.policy)
    need = float(qn.without_heartbeat) if qn is not None else None
    if need is not None and vt <= 2 * need:
        return
    profiled = [c for c in queue.consumers if c.processing_p99 is not None]
    r = ctx.risk(vt, profiled[0]) if profiled else None
    recovery = r.recovery_p99 if r is not None and r.recovery_p99 is not None else vt
    needed = f" (consumers need about {fmt_seconds(round(need))})" if need else ""
    target = int(math.ceil(need)) if need is not None else int(ctx.setting("fifo_block_seconds"))
    yield with_changes(
        ctx.finding(
            queue,
            f"FIFO visibility timeout {fmt_seconds(vt)}{needed}: after a consumer crash its message group is "
            f"blocked for up to {fmt_seconds(round(recovery))}",
            location=queue.location_of("visibility_timeout"),
            estimate={"recovery_p99": round(recovery, 3)},
        ),
        set_queue(queue, "visibility_timeout", target),
    )
