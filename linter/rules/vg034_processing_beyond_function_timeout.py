"""VG034: declared processing time above the Lambda function timeout."""

from __future__ import annotations

import math

from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, fmt_rate, fmt_seconds
from visguard.policy import z99

RULE = Rule(
    id="VG034",
    title="Declared processing p99 above the Lambda function timeout",
    severity=Severity.WARNING,
    rationale=(
        "An invocation that runs past the function timeout fails, and without a response the whole batch "
        "becomes visible again after the visibility timeout: every record of it is processed again and its "
        "receive count grows towards the DLQ. A declared processing p99 above the function timeout means at "
        "least 1 % of invocations time out."
    ),
    source="https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html",
    fix="Raise {function_timeout} above the processing p99 (and the queue's {visibility_timeout} with it), or "
    "make the batch smaller.",
    tags=("lambda", "timeout", "profile"),
    consumers_only=True,
    kinds=("lambda",),
)


def _tail(t: float, p50: float | None, p99: float) -> float:
    """P(processing > t) for a lognormal with the given p50/p99 (1 % at p99 when p50 is unknown)."""
    if p50 is None or not 0 < p50 < p99:
        return 0.01
    if t <= 0:
        return 1.0  # a timeout of 0 (or less, VG032's) kills every invocation
    sigma = math.log(p99 / p50) / z99()
    return 0.5 * math.erfc((math.log(t) - math.log(p50)) / (sigma * math.sqrt(2)))


def check(queue, ctx):
    for c in ctx.lambda_consumers(queue):
        p99, t = c.processing_p99, c.effective_function_timeout
        if p99 is None or p99 <= t:
            continue
        share = _tail(t, c.processing_p50, p99)
        yield ctx.finding(
            queue,
            f"processing p99 {fmt_seconds(p99)} of {ctx.consumer_label(c)} is above its timeout "
            f"{fmt_seconds(t)}: about {fmt_rate(share)} of invocations time out and their batch runs again",
            location=c.location_of("function_timeout") or queue.location,
            consumer=c,
            estimate={"timeout_rate": round(share, 6), "source": "lognormal tail"},
        )
