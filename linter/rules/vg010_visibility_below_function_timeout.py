"""VG010: visibility timeout shorter than a Lambda consumer's function timeout."""

from __future__ import annotations

from visguard.linter.changes import set_queue, with_changes
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, durable_facts, fmt_seconds, need_of, raise_visibility
from visguard.linter.vocabulary import Text

RULE = Rule(
    id="VG010",
    title="Visibility timeout shorter than the Lambda function timeout",
    severity=Severity.ERROR,
    rationale=(
        "Lambda validates that the function timeout is less than or equal to the queue's visibility timeout "
        "when an event source mapping is created or updated, and fails with 'Queue visibility timeout: X "
        "seconds is less than Function timeout: Y seconds' otherwise: the stack does not deploy. If the function "
        "timeout is raised later, messages become visible again while still being processed."
    ),
    source="https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-configure.html",
    fix="Raise the queue's {visibility_timeout} to at least 6 x the function timeout + {batching_window}.",
    tags=("lambda", "visibility", "deploy"),
    consumers_only=True,
    kinds=("lambda",),
)


def check(queue, ctx):
    vt = ctx.visibility(queue)
    if vt is None:
        return
    for c in ctx.lambda_consumers(queue):
        t = c.effective_function_timeout
        if vt < t:
            w = c.effective_batching_window
            need = need_of(c, ctx)
            want = need.visibility_timeout
            if need.basis == "durable-bound":  # a durable function: its execution holds the batch longer (L8)
                how = f"the {fmt_seconds(c.durable_bound[0])} durable execution bound" + (
                    f" + batching window {fmt_seconds(w)}" if w else ""
                )
                how += f" = {fmt_seconds(want)}"
            else:
                how = (
                    f"{ctx.multiplier:g} x {fmt_seconds(t)}"
                    + (f" + batching window {fmt_seconds(w)}" if w else "")
                    + f" = {fmt_seconds(want)}"
                )
            yield with_changes(
                ctx.finding(
                    queue,
                    Text(
                        "{said}: creating the event source mapping fails",
                        id="VG010.message",
                        said=f"visibility timeout {fmt_seconds(vt)} is less than the timeout {fmt_seconds(t)} of "
                        f"{ctx.consumer_label(c)}",
                    ),
                    location=queue.location_of("visibility_timeout"),
                    consumer=c,
                    estimate=durable_facts(c),
                    fix=raise_visibility(how, want),
                ),
                set_queue(queue, "visibility_timeout", int(want)),
            )
