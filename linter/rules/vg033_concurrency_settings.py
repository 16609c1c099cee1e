"""VG033: reserved concurrency that throttles the SQS event source."""

from __future__ import annotations

from visguard.facts import INVOKES_PER_POLLER, MIN_RESERVED_CONCURRENCY, esm_pollers
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
        "reserved concurrency to limit an SQS consumer). Reserved concurrency 0 stops the function entirely. "
        "In provisioned mode (ProvisionedPollerConfig) the mapping starts with its MinimumPollers, each running "
        "up to 10 concurrent invokes, and grows by up to 1,000 concurrency a minute to 10 x MaximumPollers: a "
        "reserved concurrency below that start, or below that ceiling, is throttled the same way."
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
        provisioned = c.min_pollers is not None or c.max_pollers is not None
        pollers = esm_pollers(queue.fifo, c.min_pollers, c.max_pollers)
        # with pollers, MaximumConcurrency is VG035's error (Lambda rejects the pair)
        if mc is not None and mc > rc and not provisioned:
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
        elif rc == 0:
            yield ctx.finding(
                queue, f"{label}: reserved concurrency 0 stops the function: every batch is throttled", **kw
            )
        elif provisioned and pollers.initial is not None and rc < pollers.initial:
            yield ctx.finding(
                queue,
                Text(
                    "{label}: reserved concurrency {rc} is below the {start} concurrent invokes its "
                    "{min_pollers} ({n}) keep warm ({per} a poller): invokes are throttled",
                    label=label,
                    rc=rc,
                    start=pollers.initial,
                    n=pollers.initial // INVOKES_PER_POLLER,
                    per=INVOKES_PER_POLLER,
                ),
                fix=_provisioned_fix(pollers.ceiling),
                **kw,
            )
        elif provisioned and rc < pollers.ceiling:
            yield ctx.finding(
                queue,
                Text(
                    "{label}: reserved concurrency {rc} is below the {ceiling:,} concurrent invokes {max_pollers} "
                    "allows ({per} a poller, up to {per_minute:,} more a minute): under a backlog invokes above "
                    "{rc} are throttled and count receives",
                    label=label,
                    rc=rc,
                    ceiling=pollers.ceiling,
                    per=INVOKES_PER_POLLER,
                    per_minute=pollers.added_per_minute,
                ),
                fix=_provisioned_fix(pollers.ceiling),
                **kw,
            )
        elif rc < MIN_RESERVED_CONCURRENCY:
            start = pollers.initial
            if start is not None:
                what = f"is below the {start} concurrent batches the event source mapping starts with: invokes are throttled"
            else:  # FIFO: one batch per active message group, not a fixed start
                what = (
                    f"is below AWS's minimum of {MIN_RESERVED_CONCURRENCY} for an SQS consumer: with more active "
                    "message groups than that, batches are throttled"
                )
            yield ctx.finding(queue, f"{label}: reserved concurrency {rc} {what}", **kw)


def _provisioned_fix(ceiling: int) -> Text:
    """In provisioned mode MaximumPollers is the concurrency control (10 invokes a poller)."""
    return Text(
        "Keep {reserved_concurrency} >= 10 x {max_pollers} ({ceiling}), or lower {max_pollers} and "
        "{min_pollers} to what the reservation allows (a tenth of it).",
        ceiling=ceiling,
    )
