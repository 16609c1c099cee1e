"""VG032: Lambda function timeout above the Lambda maximum."""

from __future__ import annotations

import math

from visguard.facts import MAX_VISIBILITY, lambda_guidance_visibility
from visguard.linter.changes import set_consumer, set_queue, with_changes
from visguard.linter.model import MAX_LAMBDA_TIMEOUT, Severity
from visguard.linter.rules._base import Rule, fmt_seconds

RULE = Rule(
    id="VG032",
    title="Lambda function timeout outside 1-900 seconds",
    severity=Severity.ERROR,
    rationale=(
        "A Lambda function's timeout can be set from 1 to 900 seconds (15 minutes); CreateFunction rejects "
        "other values. (Functions on Lambda Managed Instances may allow longer timeouts: raise the "
        "lambda_max_timeout setting for those.)"
    ),
    source="https://docs.aws.amazon.com/lambda/latest/dg/configuration-timeout.html",
    fix="Set {function_timeout} to at most 900 s; move longer work to Step Functions, ECS or a worker fleet.",
    tags=("lambda", "limits"),
    settings={"lambda_max_timeout": MAX_LAMBDA_TIMEOUT},
    consumers_only=True,
    kinds=("lambda",),
)


def check(queue, ctx):
    limit = float(ctx.setting("lambda_max_timeout"))
    seen = set()
    for c in ctx.lambda_consumers(queue):
        t = c.function_timeout
        if t is None or c.function_id in seen:
            continue
        seen.add(c.function_id)
        if not 1 <= t <= limit:
            value = int(min(max(round(t), 1), limit)) if t == t and abs(t) != float("inf") else int(limit)
            yield with_changes(
                ctx.finding(
                    queue,
                    f"{ctx.consumer_label(c)} has timeout {fmt_seconds(t)}, outside 1-{limit:g} s",
                    location=c.location_of("function_timeout") or queue.location,
                    consumer=c,
                ),
                *_changes(queue, c, value, ctx),
            )


def _changes(queue, c, value: int, ctx):
    """The new timeout, and the queue's timeout raised with it when it would fall below it (VG010)."""
    out = [set_consumer(c, "function_timeout", value)]
    vt = ctx.visibility(queue)
    if vt is not None and vt < value:
        guided = lambda_guidance_visibility(value, c.effective_batching_window, ctx.multiplier)
        out.append(set_queue(queue, "visibility_timeout", int(min(math.ceil(guided), MAX_VISIBILITY))))
    return out
