"""VG033: reserved concurrency that throttles the SQS event source."""

from __future__ import annotations

from visguard.facts import MIN_RESERVED_CONCURRENCY, POLLERS, queue_kind
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule
from visguard.linter.vocabulary import Text

RULE = Rule(
    id="VG033",
    title="Reserved concurrency below 5 or below the mapping's maximum concurrency",
    severity=Severity.WARNING,
    rationale=(
        "The event source mapping does not size its pollers to the function's reserved concurrency: it starts "
        "with five concurrent batches and invokes above the reservation are throttled, and throttled batches "
        "count receives towards the DLQ. AWS: with reserved concurrency, set at least five; do not set the "
        "mapping's MaximumConcurrency higher than the reserved concurrency (use MaximumConcurrency rather than "
        "reserved concurrency to limit an SQS consumer). Reserved concurrency 0 stops the function entirely."
    ),
    source="https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html",
    fix="Limit concurrency with {max_concurrency_at}, and keep {reserved_concurrency} >= that value "
    "(and >= 5).",
    tags=("lambda", "concurrency", "throttling"),
    consumers_only=True,
    kinds=("lambda",),
)


def check(queue, ctx):
    for c in ctx.lambda_consumers(queue):
        rc, mc = c.reserved_concurrency, c.max_concurrency
        if rc is None:
            continue
        kw = {"location": c.location_of("reserved_concurrency") or queue.location, "consumer": c}
        label = ctx.consumer_label(c)
        if mc is not None and mc > rc:
            yield ctx.finding(
                queue,
                Text(
                    "{label}: {max_concurrency} {mc} is above the function's reserved concurrency {rc}",
                    label=label,
                    mc=mc,
                    rc=rc,
                ),
                **kw,
            )
        elif rc < MIN_RESERVED_CONCURRENCY:
            start = POLLERS[queue_kind(queue.fifo)].initial
            if rc == 0:
                what = "stops the function: every batch is throttled"
            elif start is not None:
                what = f"is below the {start} concurrent batches the event source mapping starts with: invokes are throttled"
            else:  # FIFO: one batch per active message group, not a fixed start
                what = (
                    f"is below AWS's minimum of {MIN_RESERVED_CONCURRENCY} for an SQS consumer: with more active "
                    "message groups than that, batches are throttled"
                )
            yield ctx.finding(queue, f"{label}: reserved concurrency {rc} {what}", **kw)
