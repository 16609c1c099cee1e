"""VG032: Lambda function timeout above the Lambda maximum."""

from __future__ import annotations

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
    fix="Set the function Timeout to at most 900 s; move longer work to Step Functions, ECS or a worker fleet.",
    tags=("lambda", "limits"),
    settings={"lambda_max_timeout": MAX_LAMBDA_TIMEOUT},
    consumers_only=True,
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
            yield ctx.finding(
                queue,
                f"{ctx.consumer_label(c)} has timeout {fmt_seconds(t)}, outside 1-{limit:g} s",
                location=c.location_of("function_timeout") or queue.location,
                consumer=c,
            )
