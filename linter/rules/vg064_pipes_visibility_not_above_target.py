"""VG064: a pipe's source queue visibility is not above the target's timeout plus the batching window."""

from __future__ import annotations

import math

from visguard import facts
from visguard.linter.changes import set_queue, with_changes
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, as_number, fmt_seconds
from visguard.linter.vocabulary import Text

RULE = Rule(
    id="VG064",
    title="Pipes: queue visibility not above the target's timeout plus the batching window",
    severity=Severity.WARNING,
    rationale=(
        "An EventBridge pipe with an SQS source hides the messages it reads for the queue's visibility timeout "
        "(a pipe has no visibility setting of its own) while they wait in the batching window and the target "
        "works on them. When the target's timeout (a Lambda function's Timeout, 5 minutes for a Step Functions "
        "Express workflow, 5 seconds for an API destination) plus MaximumBatchingWindowInSeconds reaches the "
        "visibility timeout, a batch still in the target becomes visible again and is delivered a second time. "
        "With a BatchSize of 1 the window holds no message (the batch is full when its message arrives)."
    ),
    source=facts.PIPES_SQS_GUIDE,
    fix="Raise the queue's {visibility_timeout} above the target's timeout plus {batching_window}.",
    tags=("pipes", "consumer", "visibility", "duplicates"),
    consumers_only=True,
)


def check(queue, ctx):
    for c in queue.consumers:
        if c.platform != "pipes":
            continue
        target = as_number(c.work_timeout)
        window = as_number(c.batching_window) if c.batching_window is not None else 0.0
        if c.batch_size == 1:
            window = 0.0  # a batch of one is full with its first message: the window never holds it
        vt = ctx.visibility(queue)  # a pipe has no visibility of its own: the queue's is in effect
        if target is None or window is None or vt is None or vt > target + window:
            continue
        window_at = c.locations.get("batching_window")
        value = int(math.floor(target + window)) + 1
        yield with_changes(
            ctx.finding(
                queue,
                Text(
                    "visibility timeout {vt} of {queue} ({queue_at}) is not above what {label} holds a batch: "
                    "{its} {target} ({target_at}) + {batching_window} {window}{window_at}; a "
                    "batch still in the target is delivered again",
                    vt=fmt_seconds(vt),
                    queue=queue.id,
                    queue_at=ctx.queue_visibility_said(queue),
                    label=ctx.consumer_label(c),
                    its="its enrichment's and target's timeouts"
                    if as_number(c.settings.get("enrichment_timeout"))
                    else "its target's timeout",
                    target=fmt_seconds(target),
                    target_at=ctx.where(c.location_of("work_timeout")),
                    window=fmt_seconds(window),
                    window_at=f" ({ctx.where(window_at)})" if window_at is not None else "",
                ),
                location=queue.location_of("visibility_timeout"),
                consumer=c,
            ),
            # past the 12-hour cap no queue timeout covers it: the target's timeout has to come down
            set_queue(queue, "visibility_timeout", value) if value in facts.VISIBILITY_TIMEOUT else None,
        )
