"""VG011: visibility timeout below AWS guidance: 6 x function timeout + maximum batching window."""

from __future__ import annotations

from visguard.facts import LAMBDA_VISIBILITY_MULTIPLIER
from visguard.linter.changes import set_queue, with_changes
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, fmt_seconds, need_of, raise_visibility

RULE = Rule(
    id="VG011",
    title="Visibility timeout below 6 x function timeout + batching window",
    severity=Severity.WARNING,
    rationale=(
        "AWS recommends setting the queue's visibility timeout to at least six times the function timeout, plus "
        "MaximumBatchingWindowInSeconds. Records received early in a batching window already use up their "
        "visibility before the invoke, and a throttled invoke is retried only while the visibility lasts; a "
        "shorter timeout turns throttling into duplicate processing and receive counts towards the DLQ. "
        "(When the timeout is even below the function timeout, VG010 reports it instead.)"
    ),
    source="https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-configure.html",
    fix="Raise {visibility_timeout} to 6 x function timeout + {batching_window} (setting lambda_multiplier).",
    tags=("lambda", "visibility", "throttling"),
    settings={"lambda_multiplier": LAMBDA_VISIBILITY_MULTIPLIER},
    consumers_only=True,
    kinds=("lambda",),
)


def check(queue, ctx):
    vt = ctx.visibility(queue)
    if vt is None:
        return
    k = ctx.multiplier
    for c in ctx.lambda_consumers(queue):
        t, w = c.effective_function_timeout, c.effective_batching_window
        want = need_of(c, ctx).visibility_timeout  # visguard.policy: the guidance, whole seconds, capped
        if t <= vt < want:
            window = f" + batching window {fmt_seconds(w)}" if w else ""
            yield with_changes(
                ctx.finding(
                    queue,
                    f"visibility timeout {fmt_seconds(vt)} is below {k:g} x the {fmt_seconds(t)} timeout of "
                    f"{ctx.consumer_label(c)}{window} = {fmt_seconds(want)}",
                    location=queue.location_of("visibility_timeout"),
                    consumer=c,
                    fix=raise_visibility(fmt_seconds(want), want),
                ),
                set_queue(queue, "visibility_timeout", int(want)),
            )
