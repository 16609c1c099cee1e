"""VG011: visibility timeout below AWS guidance: 6 x function timeout + maximum batching window."""

from __future__ import annotations

from visguard.facts import LAMBDA_VISIBILITY_MULTIPLIER
from visguard.linter.changes import set_queue, with_changes
from visguard.linter.model import Severity
from visguard.linter.rules._base import (
    Rule,
    durable_bound_said,
    durable_facts,
    fmt_seconds,
    need_of,
    raise_visibility,
)
from visguard.linter.vocabulary import Text

RULE = Rule(
    id="VG011",
    title="Visibility timeout below 6 x function timeout + batching window",
    severity=Severity.WARNING,
    rationale=(
        "AWS recommends setting the queue's visibility timeout to at least six times the function timeout, plus "
        "MaximumBatchingWindowInSeconds. Records received early in a batching window already use up their "
        "visibility before the invoke, and a throttled invoke is retried only while the visibility lasts; a "
        "shorter timeout turns throttling into duplicate processing and receive counts towards the DLQ. "
        "(When the timeout is even below the function timeout, VG010 reports it instead.) A durable function "
        "(DurableConfig) holds its batch for the whole durable execution: the mapping invokes it synchronously and "
        "waits, up to the ExecutionTimeout and at most the invocation limit (900 s, 5,400 s on Lambda Managed "
        "Instances), at which the execution times out. AWS states no multiple for that bound, and visguard "
        "invents none: for a durable function the rule asks for the larger of the 6 x function timeout guidance "
        "and the durable bound itself plus the batching window, and says which one it used."
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
            if need_of(c, ctx).basis == "durable-bound":
                bound = c.durable_bound
                message = Text(
                    "visibility timeout {vt} is below the {bound} a durable execution of {label} can hold its batch "
                    "({said}){window} = {want}; AWS states no visibility multiple for durable executions, so the "
                    "bound itself is asked for, not {k} x it",
                    id="VG011.durable",
                    vt=fmt_seconds(vt),
                    bound=fmt_seconds(bound[0]),
                    label=ctx.consumer_label(c),
                    said=durable_bound_said(c),
                    window=window,
                    want=fmt_seconds(want),
                    k=f"{k:g}",
                )
            else:
                message = (
                    f"visibility timeout {fmt_seconds(vt)} is below {k:g} x the {fmt_seconds(t)} timeout of "
                    f"{ctx.consumer_label(c)}{window} = {fmt_seconds(want)}"
                )
            yield with_changes(
                ctx.finding(
                    queue,
                    message,
                    location=queue.location_of("visibility_timeout"),
                    consumer=c,
                    estimate=durable_facts(c),
                    fix=raise_visibility(fmt_seconds(want), want),
                ),
                set_queue(queue, "visibility_timeout", int(want)),
            )
