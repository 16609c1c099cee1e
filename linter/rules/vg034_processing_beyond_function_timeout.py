"""VG034: declared processing time above the Lambda function timeout."""

from __future__ import annotations

import math

from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, durable_bound_said, fmt_rate, fmt_seconds
from visguard.linter.vocabulary import Text
from visguard.policy import z99

RULE = Rule(
    id="VG034",
    title="Declared processing p99 above the Lambda function timeout",
    severity=Severity.WARNING,
    rationale=(
        "An invocation that runs past the function timeout fails, and without a response the whole batch "
        "becomes visible again after the visibility timeout: every record of it is processed again and its "
        "receive count grows towards the DLQ. A declared processing p99 above the function timeout means at "
        "least 1 % of invocations time out. A durable function behind an event source mapping holds its batch "
        "for its whole durable execution (several invocations), so its p99 is judged against the durable "
        "execution's bound instead: the ExecutionTimeout, at most the mapping's invocation limit (900 s, 5,400 s on "
        "Lambda Managed Instances)."
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
        # a durable function's batch runs for its whole durable execution, over several invocations (L8)
        p99, t = c.processing_p99, c.batch_hold
        if p99 is None or p99 <= t:
            continue
        share = _tail(t, c.processing_p50, p99)
        limit = (
            f"its timeout {fmt_seconds(t)}"
            if c.durable_bound is None
            else Text(
                "the {bound} bound of its durable execution ({said})",
                bound=fmt_seconds(t),
                said=durable_bound_said(c),
            )
        )
        yield ctx.finding(
            queue,
            Text(
                "processing p99 {p99} of {label} is above {limit}: about {share} of invocations time out and their "
                "batch runs again",
                id="VG034.message",
                p99=fmt_seconds(p99),
                label=ctx.consumer_label(c),
                limit=limit,
                share=fmt_rate(share),
            ),
            location=c.location_of("function_timeout") or queue.location,
            consumer=c,
            estimate={"timeout_rate": round(share, 6), "source": "lognormal tail"},
        )
