"""VG010: visibility timeout shorter than a Lambda consumer's function timeout."""

from __future__ import annotations

from visguard.linter.changes import set_queue, with_changes
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, fmt_seconds, need_of, raise_visibility
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
            want = need_of(c, ctx).visibility_timeout
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
                    fix=raise_visibility(
                        f"{ctx.multiplier:g} x {fmt_seconds(t)}"
                        + (f" + batching window {fmt_seconds(w)}" if w else "")
                        + f" = {fmt_seconds(want)}",
                        want,
                    ),
                ),
                set_queue(queue, "visibility_timeout", int(want)),
            )
