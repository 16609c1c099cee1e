"""VG079: a Spring Cloud AWS backoff error handler whose schedule hits the 12-hour cap or outlives the retention."""

from __future__ import annotations

import math

from visguard.facts import MAX_VISIBILITY, RETENTION, SPRING_BACKOFF_MAX_DEFAULT, SPRING_ERROR_HANDLERS_SINCE
from visguard.linter.changes import set_queue, with_changes
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, fmt_seconds, of_queue
from visguard.linter.rules._spring_retry import queue_max_receive_count, rejected, schedule, time_to_dlq
from visguard.linter.vocabulary import Text

BACKOFF = tuple(k for k in SPRING_ERROR_HANDLERS_SINCE if "Backoff" in k)

RULE = Rule(
    id="VG079",
    title="Spring backoff error handler beyond the 12-hour cap or the queue's retention",
    severity=Severity.WARNING,
    rationale=(
        "ExponentialBackoffErrorHandler and LinearBackoffErrorHandler (Spring Cloud AWS 3.4+) set a failed "
        "message's visibility, counted from the failure, growing with its receive count up to "
        f"maxVisibilityTimeoutSeconds (default {SPRING_BACKOFF_MAX_DEFAULT:,}). SQS caps a receipt's visibility at 12 hours from the "
        "receive, extensions included: a change to 43,200 s made after any work is 'beyond the limit [43200 "
        "seconds]' and rejected, so the handler's longest waits never happen and the message comes back after "
        "the visibility it had. And retention counts from the original send: when the waits over maxReceiveCount "
        "receives (a rejected one counted as the visibility in effect) add up to more than the queue's retention "
        "period, SQS deletes the message before the receive "
        "that would move it to the dead-letter queue. It is lost, and the DLQ never shows it. (A builder value "
        "outside what the handler accepts, maxVisibilityTimeoutSeconds above 43,200 for one, throws at start.)"
    ),
    source="https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-visibility-timeout.html",
    fix="Keep maxVisibilityTimeoutSeconds below 43,200 less the work of one attempt, and the sum of the waits over "
    "{max_receive_count} receives below the queue's {retention} (raise the retention or lower the count).",
    tags=("redrive", "dlq", "retention", "code", "spring"),
    consumers_only=True,
    kinds=("worker",),
)


def check(queue, ctx):
    mrc = queue_max_receive_count(queue)
    if mrc is None:
        return
    if isinstance(queue.message_retention, str):
        return
    retention = queue.effective_retention
    for c in queue.consumers:
        handler = c.settings.get("error_handler")
        if c.platform != "spring" or not isinstance(handler, dict) or handler.get("class") not in BACKOFF:
            continue
        at = c.location_of("error_handler")
        why = rejected(handler)
        if why is not None:
            yield ctx.finding(
                queue,
                Text(
                    "{handler} at {at}, the error handler of {consumer}{of_queue}: {why}, so its builder throws "
                    "IllegalArgumentException and the application does not start",
                    handler=handler["class"],
                    at=ctx.where(at),
                    consumer=ctx.consumer_label(c),
                    of_queue=of_queue(queue, ctx),
                    why=why,
                ),
                location=at,
                consumer=c,
                estimate={"handler": handler["class"], "invalid": why},
                fix=Text(
                    "Keep initialVisibilityTimeoutSeconds and maxVisibilityTimeoutSeconds of {handler} within "
                    "1-{cap} s (initial at most max), multiplier and increment at least 1.",
                    handler=handler["class"],
                    cap=MAX_VISIBILITY,
                ),
            )
            continue
        waits = schedule(handler, mrc)
        if waits is None:
            continue
        work = float(c.processing_p99) if c.processing_p99 is not None else 0.0
        # the waits SQS rejects: the change is made `work` seconds (at least some) after the receive
        capped = [n for n, w in enumerate(waits, 1) if w + work > MAX_VISIBILITY or w >= MAX_VISIBILITY]
        mean = float(c.processing_p50) if c.processing_p50 is not None else 0.0
        # a rejected change leaves the message the visibility it had: back after the visibility in effect
        vt = ctx.visibility_for(queue, c)
        if capped and vt is None:
            vt = 0.0
        spent = [max(0.0, float(vt) - mean) if n in capped else w for n, w in enumerate(waits, 1)]
        total = time_to_dlq(spent, mean)
        common = {
            "handler": handler["class"],
            "max_receive_count": mrc,
            "waits": spent,
            "time_to_dlq": round(total, 3),
            "retention": retention,
            "jitter": handler.get("jitter"),
        }
        if capped:
            yield ctx.finding(
                queue,
                Text(
                    "{handler} at {at} asks SQS for {wait} of visibility after failed receive {n} of {consumer}"
                    "{of_queue}, counted from the failure{work}: beyond the 12-hour total of a receipt, the change "
                    "is rejected and the message returns after the visibility it had",
                    handler=handler["class"],
                    at=ctx.where(at),
                    wait=fmt_seconds(waits[capped[0] - 1]),
                    n=capped[0],
                    consumer=ctx.consumer_label(c),
                    of_queue=of_queue(queue, ctx),
                    work=f" up to {fmt_seconds(work)} after the receive" if work else " after the receive",
                ),
                location=at,
                consumer=c,
                estimate={**common, "cap": MAX_VISIBILITY, "rejected_receives": capped},
                fix=Text(
                    "Set maxVisibilityTimeoutSeconds of {handler} to at most {most}.",
                    handler=handler["class"],
                    most=fmt_seconds(max(1, math.floor(MAX_VISIBILITY - max(work, 60.0)))),
                ),
            )
        if total > retention:
            need = math.ceil(total * 1.1)
            yield with_changes(
                ctx.finding(
                    queue,
                    Text(
                        "{handler} at {at} spaces the {mrc} receives of {consumer}{of_queue} over {total}, longer "
                        "than the queue's retention of {retention}: a message that keeps failing is deleted before "
                        "it reaches the dead-letter queue",
                        handler=handler["class"],
                        at=ctx.where(at),
                        mrc=mrc,
                        consumer=ctx.consumer_label(c),
                        of_queue=of_queue(queue, ctx),
                        total=fmt_seconds(round(total)),
                        retention=fmt_seconds(retention),
                    ),
                    location=queue.locations.get("message_retention")
                    or queue.locations.get("redrive.max_receive_count")
                    or queue.location,
                    consumer=c,
                    estimate=common,
                    fix=Text(
                        "Set the queue's {retention} to at least {need} (the time to the dead-letter queue and a "
                        "tenth), or lower {max_receive_count} or maxVisibilityTimeoutSeconds of {handler}.",
                        need=fmt_seconds(need),
                        handler=handler["class"],
                    )
                    if need <= RETENTION.hi
                    else Text(
                        "Lower {max_receive_count} or maxVisibilityTimeoutSeconds of {handler}: the receives take "
                        "longer than the longest retention SQS keeps ({most}).",
                        handler=handler["class"],
                        most=fmt_seconds(RETENTION.hi),
                    ),
                ),
                set_queue(queue, "message_retention", need) if need <= RETENTION.hi else None,
            )
