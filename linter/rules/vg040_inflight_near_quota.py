"""VG040: expected in-flight messages near the 120,000 quota."""

from __future__ import annotations

import math

from visguard import facts
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, fmt_seconds
from visguard.policy import z99

RULE = Rule(
    id="VG040",
    title="Expected in-flight messages near the 120,000 quota",
    severity=Severity.WARNING,
    rationale=(
        "A queue holds at most about 120,000 in-flight messages (received, not yet deleted or expired). Beyond "
        "that, short-poll receives fail with OverLimit and long polls return nothing, so consumers stall while "
        "the backlog grows. By Little's law the in-flight count is the arrival rate times how long each message "
        "is held (batching wait + processing), capped by what the consumers can hold at once: a Lambda mapping "
        "holds one batch per concurrent invoke, at most 1,250 (or MaximumConcurrency) in standard mode and 10 x "
        "MaximumPollers in provisioned mode. The rule fires at inflight_warn_fraction (default 80 %) of "
        "inflight_quota."
    ),
    source="https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-messages.html",
    fix="Hold messages for less time (smaller batches, shorter batching window, delete as soon as done), spread "
    "the load over more queues, or cap consumer concurrency.",
    tags=("sqs", "quota", "throughput", "profile"),
    settings={"inflight_quota": facts.INFLIGHT_QUOTA["standard"], "inflight_warn_fraction": 0.8},
    consumers_only=True,
)


def _mean_processing(p50: float | None, p99: float | None) -> float | None:
    if p99 is None:
        return p50
    if p50 is None or not 0 < p50 < p99:
        return p99
    sigma = math.log(p99 / p50) / z99()
    return p50 * math.exp(sigma * sigma / 2)  # lognormal mean


def _hold_and_cap(c) -> tuple[float | None, float | None]:
    """Seconds a message stays in flight with this consumer, and the most it can hold at once (if known)."""
    hold = _mean_processing(c.processing_p50, c.processing_p99)
    if c.kind == "lambda":
        if hold is None:
            hold = (
                c.batch_hold
            )  # upper bound: a batch runs at most the function timeout (a durable execution: its bound)
        hold += c.effective_batching_window
        # An SQS event source mapping runs at most 1,250 concurrent invokes (or its MaximumConcurrency) in standard
        # mode, 10 x MaximumPollers in provisioned mode, each holding one batch (Lambda developer guide,
        # services-sqs-scaling; facts.esm_pollers). FIFO: the standard ceiling stands in (groups bound it lower).
        pollers = facts.esm_pollers(False, c.min_pollers, c.max_pollers)
        provisioned = c.min_pollers is not None or c.max_pollers is not None
        ceiling = pollers.ceiling if provisioned else (c.max_concurrency or pollers.ceiling)
        return hold, ceiling * c.effective_batch_size
    cap = c.concurrency * 10 if c.concurrency else None  # a receive returns at most 10 messages
    return hold, cap


def check(queue, ctx):
    rate = queue.arrival_rate
    if rate is None:
        rates = [c.arrival_rate for c in queue.consumers if c.arrival_rate is not None]
        rate = sum(rates) if rates else None
    if not rate or not queue.consumers:
        return
    holds = [_hold_and_cap(c) for c in queue.consumers]
    known = [h for h, _ in holds if h is not None]
    if not known:
        return
    hold = max(known)
    inflight = rate * hold
    caps = [cap for _, cap in holds]
    if all(cap is not None for cap in caps):
        inflight = min(inflight, sum(caps))
    quota = float(ctx.setting("inflight_quota"))
    if inflight >= float(ctx.setting("inflight_warn_fraction")) * quota:
        yield ctx.finding(
            queue,
            f"about {inflight:,.0f} messages in flight expected ({rate:g} msg/s x {fmt_seconds(round(hold, 1))} "
            f"held), {inflight / quota:.0%} of the {quota:,.0f} quota",
            estimate={"inflight": round(inflight), "quota": quota},
        )
