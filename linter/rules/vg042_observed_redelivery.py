"""VG042: CloudWatch shows the queue's messages received more often than deleted (observed redelivery)."""

from __future__ import annotations

from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, fmt_rate, fmt_seconds

RULE = Rule(
    id="VG042",
    title="Messages observed redelivered: received more often than deleted",
    severity=Severity.WARNING,
    rationale=(
        "Every receive of a message that is not followed by its delete is a delivery that will be repeated: "
        "the visibility timeout expired under the consumer, the consumer crashed, or processing failed. "
        "CloudWatch counts both (NumberOfMessagesReceived, NumberOfMessagesDeleted), so the surplus of receives "
        "over deletes measures redelivery whatever reads the queue (Lambda, workers, something nobody linted): "
        "observed rate = received / deleted - 1. It is what happened, not an estimate, so it ranks before the "
        "engine's estimates. Only the fleet audit has these metrics (visguard audit collect --metrics); a "
        "queue without receives never fires. How sure it is: low with few receives, lower for FIFO queues "
        "(a ReceiveMessage retried with the same ReceiveRequestAttemptId returns the same messages again) and "
        "when the DLQ shows inflow (messages that exhausted maxReceiveCount were received and never deleted: "
        "failures, not only timeouts). Deletes of a message already deleted also count, so the rate can only "
        "understate. Dead-letter queues without a known consumer are skipped: receives there are people "
        "inspecting messages. A Lambda event source mapping with metrics on (MetricsConfig EventCount) adds its "
        "own counts of events polled, failed to invoke and deleted (AWS/Lambda, per EventSourceMappingUUID); "
        "one without is told how to turn them on."
    ),
    source="https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-available-cloudwatch-metrics.html",
    fix="Find why messages come back (the message names the likeliest cause): raise {visibility_timeout} to what "
    "processing needs or heartbeat with ChangeMessageVisibility, turn on ReportBatchItemFailures for Lambda "
    "batches, fix or dead-letter the messages that fail (a redrive policy), and watch the rate fall.",
    tags=("observed", "duplicates", "cloudwatch"),
    settings={"observed_redelivery_rate": 0.01, "observed_min_surplus": 10},
)

LOW_VOLUME = 1_000  # receives in the window below which a rate says little


def check(queue, ctx):
    obs = queue.observed
    if obs is None or not obs.received or obs.received <= 0 or obs.deleted is None:
        return  # no metrics, or no traffic
    received, deleted = float(obs.received), max(float(obs.deleted), 0.0)
    surplus = received - deleted
    if surplus < float(ctx.setting("observed_min_surplus")):
        return
    rate = received / deleted - 1 if deleted > 0 else None  # None: nothing deleted at all
    if rate is not None and rate < float(ctx.setting("observed_redelivery_rate")):
        return
    known = [c for c in queue.consumers if c.kind in ("lambda", "worker")]
    if (obs.is_dlq or ctx.is_dlq(queue)) and not known:
        return  # receives on a DLQ are people looking at messages
    days = obs.window / 86_400
    seen = f"{received:,.0f} receives vs {deleted:,.0f} deletes in {days:g} days"
    if obs.age_oldest is not None:
        seen += f", oldest message {_age(obs.age_oldest)} old"
    level, why = _confidence(queue, ctx, received)
    said = "nothing deleted" if rate is None else f"observed redelivery {fmt_rate(rate)}"
    estimate = {
        "observed_redelivery_rate": None if rate is None else round(rate, 6),
        "received": received,
        "deleted": deleted,
        "age_oldest": obs.age_oldest,
        "window_days": days,
        "confidence": level,
    }
    esm, esm_said = _mapping_counts(queue)
    if esm:
        estimate["esm"] = esm
    yield ctx.finding(
        queue,
        f"{said} ({seen}): most likely {_cause(queue, ctx, rate)}; confidence {level}"
        + (f" ({'; '.join(why)})" if why else "")
        + esm_said,
        estimate=estimate,
    )


# the event source mapping's own counts (MetricsConfig EventCount; issue 36, fact-drift row L4): how many of the
# events it polled failed to invoke the function, and how many it deleted; a mapping without them is told how to
# turn them on (the audit speaks the AWS API's and CLI's words)
TURN_ON = (
    "MetricsConfig {{Metrics: [{value}]}}: aws lambda update-event-source-mapping --uuid {uuid} --metrics-config "
    "Metrics={value}"
)


def _mapping_counts(queue) -> tuple[dict, str]:
    """(uuid -> counts, the sentence) for the queue's Lambda consumers: what each mapping counted, or how to make it
    count."""
    from visguard import facts

    counts, said = {}, []
    for c in queue.consumers:
        if c.kind != "lambda":
            continue
        m = (c.settings or {}).get("esm_metrics")
        if m:
            counts[c.id] = m
            polled, failed, deleted = (m.get(k) for k in ("polled", "failed", "deleted"))
            part = f"mapping {c.id} counted " + ", ".join(
                f"{v:,.0f} {what}"
                for v, what in ((polled, "polled"), (failed, "failed to invoke"), (deleted, "deleted"))
                if v is not None
            )
            if failed:
                part += ": failed invocations bring messages back"
            elif failed == 0 and polled:
                part += ": no failed invocation, so the timeout expiring (or another reader) is likelier"
            said.append(part)
        elif facts.ESM_METRICS_VALUE not in (c.metrics or ()):
            said.append(
                f"mapping {c.id} publishes no event counts of its own; turn them on to tell failed invocations "
                f"from expired timeouts ({TURN_ON.format(value=facts.ESM_METRICS_VALUE, uuid=c.id)})"
            )
    return counts, "".join(f"; {x}" for x in said)


def _age(seconds: float) -> str:
    for unit, size in (("days", 86_400), ("h", 3_600), ("min", 60)):
        if seconds >= 2 * size:
            return f"{seconds / size:.1f} {unit}"
    return fmt_seconds(round(seconds))


def _confidence(queue, ctx, received: float) -> tuple[str, list[str]]:
    why, level = [], 2  # 2 high, 1 medium, 0 low
    if received < LOW_VOLUME:
        why.append(f"only {received:,.0f} receives")
        level = 0
    if queue.fifo:
        why.append(
            "FIFO: a receive retried with the same ReceiveRequestAttemptId returns the same messages again"
        )
        level = min(level, 1)
    dlq = ctx.dlq_of(queue)
    if dlq is not None and dlq.observed is not None and (dlq.observed.age_oldest or 0) > 0:
        mrc = queue.redrive.max_receive_count if queue.redrive else None
        times = f"{mrc:g} times" if isinstance(mrc, (int, float)) else "several times"
        why.append(
            f"DLQ inflow: messages that failed {times} moved to {dlq.name or dlq.id}, never deleted here"
        )
        level = min(level, 1)
    return ("low", "medium", "high")[level], why


def _cause(queue, ctx, rate: float | None) -> str:
    """The likeliest reason, from the queue's settings and its known consumers."""
    if rate is None:
        return (
            "every message fails, or the reader never deletes (a tool or person that only looks at messages)"
        )
    vt = ctx.visibility(queue)
    causes = []
    for c in queue.consumers:
        if c.kind == "lambda" and c.function_id is not None:
            need = c.effective_function_timeout * ctx.multiplier + c.effective_batching_window
            if vt is not None and vt < need:
                causes.append(
                    f"the visibility timeout ({fmt_seconds(vt)}) expiring under function {c.function_id} (it "
                    f"needs {fmt_seconds(need)}: {ctx.multiplier:g} x timeout + batching window)"
                )
            elif c.effective_batch_size > 1 and not c.report_batch_item_failures:
                causes.append(
                    f"failed batches of up to {c.effective_batch_size} redelivered whole (no "
                    "ReportBatchItemFailures)"
                )
            else:
                causes.append(
                    f"errors or throttling of function {c.function_id} (a throttled batch comes back)"
                )
        elif c.kind == "worker" and c.processing_p99 is not None and vt is not None and vt < c.processing_p99:
            causes.append(
                f"the visibility timeout ({fmt_seconds(vt)}) expiring under workers whose processing p99 is "
                f"{fmt_seconds(c.processing_p99)}"
            )
        elif c.kind == "worker":
            causes.append("workers crashing or failing messages (or processing longer than the timeout)")
    if not causes:
        causes.append(
            "the visibility timeout expiring under slow processing, crashes or failures of a consumer visguard "
            "does not know (declare it: visguard:consumer tags or a profile)"
        )
    text = "; or ".join(dict.fromkeys(causes))
    if queue.redrive is None:
        text += "; with no redrive policy a message that always fails is received until retention ends"
        age = queue.observed.age_oldest
        if age is not None and age >= queue.effective_retention / 2:
            text += " (the oldest message is near it)"
    return text
