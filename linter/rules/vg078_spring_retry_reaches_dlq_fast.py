"""VG078: a Spring Cloud AWS error handler that retries so soon that a transient failure reaches the DLQ in seconds."""

from __future__ import annotations

from visguard.facts import (
    SPRING_BACKOFF_INITIAL_DEFAULT,
    SPRING_BACKOFF_MULTIPLIER_DEFAULT,
    SPRING_ERROR_HANDLER_DOCS,
    SPRING_ERROR_HANDLERS_SINCE,
)
from visguard.linter.changes import set_queue, with_changes
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, fmt_seconds, of_queue
from visguard.linter.rules._spring_retry import (
    queue_max_receive_count,
    receive_count_for,
    rejected,
    schedule,
    time_to_dlq,
)
from visguard.linter.vocabulary import Text

RULE = Rule(
    id="VG078",
    title="Spring error handler retries so fast that a transient failure reaches the DLQ in seconds",
    severity=Severity.WARNING,
    rationale=(
        "Since Spring Cloud AWS 3.4 an error handler sets a failed message's visibility itself: "
        "ImmediateRetryAsyncErrorHandler sets it to 0, so the message is received again at once; "
        "ExponentialBackoffErrorHandler and (3.4.1) LinearBackoffErrorHandler set it from the receive count and "
        f"their settings (exponential by default: {SPRING_BACKOFF_INITIAL_DEFAULT} s x "
        f"{SPRING_BACKOFF_MULTIPLIER_DEFAULT:g}^(receives - 1)). The queue's visibility timeout no longer spaces the retries: the handler does. With a "
        "small maxReceiveCount the retries are spent within seconds, so a failure that would have passed in a "
        "minute (a dependency restarting, throttling, a lock) moves the message to the dead-letter queue. The time "
        "to the DLQ is the sum of the handler's waits over maxReceiveCount receives (plus the work of each attempt); "
        f"the handlers and their defaults: {SPRING_ERROR_HANDLER_DOCS}"
    ),
    source="https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html",
    fix="Space the retries over longer than a transient failure lasts: a backoff handler "
    "(ExponentialBackoffErrorHandler) with a larger initialVisibilityTimeoutSeconds, or a larger "
    "{max_receive_count}.",
    tags=("redrive", "dlq", "code", "spring"),
    settings={"min_time_to_dlq": 60},
    consumers_only=True,
    kinds=("worker",),
)


def check(queue, ctx):
    mrc = queue_max_receive_count(queue)
    if mrc is None:
        return
    floor = float(ctx.setting("min_time_to_dlq"))
    for c in queue.consumers:
        handler = c.settings.get("error_handler")
        if c.platform != "spring" or not isinstance(handler, dict):
            continue
        if handler.get("class") not in SPRING_ERROR_HANDLERS_SINCE:
            continue
        if rejected(handler) is not None:
            continue  # the application does not start: VG079
        waits = schedule(handler, mrc)
        if waits is None:
            continue
        work = float(c.processing_p50) if c.processing_p50 is not None else 0.0
        total = time_to_dlq(waits, work)
        if total >= floor:
            continue
        at = c.location_of("error_handler")
        need = receive_count_for(handler, floor, work)
        shown = ", ".join(f"{w:g}" for w in waits[:6]) + (", ..." if len(waits) > 6 else "")
        yield with_changes(
            ctx.finding(
                queue,
                Text(
                    "{handler} at {at} sets the visibility of a failed message of {consumer}{of_queue}: with "
                    "maxReceiveCount {mrc} it is retried after {waits} s and moved to the dead-letter queue "
                    "{total} after its first receive{work}, sooner than the {floor} a transient failure may last",
                    handler=handler["class"],
                    at=ctx.where(at),
                    consumer=ctx.consumer_label(c),
                    of_queue=of_queue(queue, ctx),
                    mrc=mrc,
                    waits=shown,
                    total=fmt_seconds(round(total, 3)),
                    work=f" (with {fmt_seconds(work)} of work per attempt)" if work else "",
                    floor=fmt_seconds(floor),
                ),
                location=at,
                consumer=c,
                estimate={
                    "handler": handler["class"],
                    "max_receive_count": mrc,
                    "waits": waits,
                    "work_per_attempt": work,
                    "time_to_dlq": round(total, 3),
                    "min_time_to_dlq": floor,
                    "jitter": handler.get("jitter"),
                },
                fix=Text(
                    "Space the retries: {how}.",
                    how=Text("set {max_receive_count} to {n}", n=need)
                    if need is not None
                    else Text(
                        "use ExponentialBackoffErrorHandler (or a larger initialVisibilityTimeoutSeconds) "
                        "instead of an immediate retry, or a larger {max_receive_count} once retries are spaced"
                    ),
                ),
            ),
            set_queue(queue, "redrive.max_receive_count", need) if need is not None else None,
        )
