"""VG030: event source mapping batch settings that Lambda rejects."""

from __future__ import annotations

from visguard.facts import BATCHING_WINDOW, MAX_BATCH_WITHOUT_WINDOW, SQS_BATCH_SIZE
from visguard.linter.changes import set_consumer, with_changes
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule
from visguard.linter.vocabulary import Text

RULE = Rule(
    id="VG030",
    title="Batch size > 10 without a batching window, or batching settings on a FIFO queue",
    severity=Severity.ERROR,
    rationale=(
        "For SQS event sources, a BatchSize greater than 10 requires MaximumBatchingWindowInSeconds of at least "
        "1 ('Maximum batch window in seconds must be greater than 0 if maximum batch size is greater than 10'). "
        "FIFO queues do not support a batching window and accept a BatchSize of at most 10; standard queues at "
        "most 10,000. Lambda rejects the event source mapping otherwise, so the stack fails to deploy."
    ),
    source="https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-parameters.html",
    fix="Set {batching_window} >= 1 for {batch_size} > 10; on FIFO queues remove the batching window "
    "and keep {batch_size} <= 10.",
    tags=("lambda", "batching", "fifo", "deploy"),
    consumers_only=True,
    kinds=("lambda",),
)


def check(queue, ctx):
    for c in queue.consumers:
        if c.kind != "lambda":
            continue
        b, w = c.effective_batch_size, c.effective_batching_window
        label = ctx.consumer_label(c)
        at = {"batch": c.location_of("batch_size"), "window": c.location_of("batching_window")}
        at = {k: v or queue.location for k, v in at.items()}
        if queue.fifo:
            if w > 0:
                yield with_changes(
                    ctx.finding(
                        queue,
                        f"{label} sets a batching window of {w:g} s on FIFO queue {queue.id}",
                        location=at["window"],
                        consumer=c,
                    ),
                    set_consumer(c, "batching_window", 0),
                )
            if b > SQS_BATCH_SIZE["fifo"].hi:
                yield with_changes(
                    ctx.finding(
                        queue,
                        Text(
                            "{label} sets {batch_size} {b} on FIFO queue {queue} (maximum {most:g})",
                            label=label,
                            b=b,
                            queue=queue.id,
                            most=SQS_BATCH_SIZE["fifo"].hi,
                        ),
                        location=at["batch"],
                        consumer=c,
                    ),
                    set_consumer(c, "batch_size", int(SQS_BATCH_SIZE["fifo"].hi)),
                )
        else:
            if b > MAX_BATCH_WITHOUT_WINDOW and w < 1:
                yield with_changes(
                    ctx.finding(
                        queue,
                        Text(
                            "{label} sets {batch_size} {b} (> 10) without {batching_window} >= 1",
                            label=label,
                            b=b,
                        ),
                        location=at["batch"],
                        consumer=c,
                    ),
                    set_consumer(c, "batching_window", 1),
                )
            if b > SQS_BATCH_SIZE["standard"].hi:
                yield with_changes(
                    ctx.finding(
                        queue,
                        Text(
                            "{label} sets {batch_size} {b} (maximum {most:g})",
                            label=label,
                            b=b,
                            most=SQS_BATCH_SIZE["standard"].hi,
                        ),
                        location=at["batch"],
                        consumer=c,
                    ),
                    set_consumer(c, "batch_size", int(SQS_BATCH_SIZE["standard"].hi)),
                )
        if b < 1 or w not in BATCHING_WINDOW:
            yield with_changes(
                ctx.finding(
                    queue,
                    Text(
                        "{label} sets {batch_size} {b} / batching window {w:g} s outside 1-10000 / 0-300 s",
                        label=label,
                        b=b,
                        w=w,
                    ),
                    location=at["batch"],
                    consumer=c,
                ),
                *_clamp(c, b, w, queue.fifo),
            )


def _clamp(c, b, w, fifo: bool):
    out = []
    if b < 1:
        out.append(set_consumer(c, "batch_size", 1))
    if w not in BATCHING_WINDOW:
        finite = w == w and abs(w) != float("inf")
        out.append(
            set_consumer(
                c, "batching_window", int(BATCHING_WINDOW.clamp(round(w))) if finite and not fifo else 0
            )
        )
    return out
