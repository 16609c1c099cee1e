"""VG031: batch size > 1 without ReportBatchItemFailures."""

from __future__ import annotations

from visguard.linter.changes import set_consumer, with_changes
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, alone

RULE = Rule(
    id="VG031",
    title="Batches without ReportBatchItemFailures: one failure redelivers the whole batch",
    severity=Severity.WARNING,
    rationale=(
        "By default, if a Lambda function fails while processing a batch, every message in the batch becomes "
        "visible again after the visibility timeout, including the ones that were processed successfully: "
        "they are processed twice and their receive counts grow towards the DLQ. With FunctionResponseTypes "
        "[ReportBatchItemFailures] the function returns only the failed message ids. (Lambda also stops scaling "
        "down polling on function errors when partial batch responses are on.)"
    ),
    source="https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html",
    fix="Set {partial_batch} and return batchItemFailures from the handler.",
    tags=("lambda", "batching", "duplicates"),
    consumers_only=True,
    kinds=("lambda",),
)


def check(queue, ctx):
    for c in queue.consumers:
        if c.kind == "lambda" and c.effective_batch_size > 1 and not c.report_batch_item_failures:
            yield with_changes(
                ctx.finding(
                    queue,
                    f"{ctx.consumer_label(c)} takes batches of up to {c.effective_batch_size} without "
                    "ReportBatchItemFailures: one failed record makes the whole batch run again",
                    location=c.location_of("batch_size") or queue.location,
                    consumer=c,
                ),
                set_consumer(c, "report_batch_item_failures", True),
            )


def check_consumer(c, ctx):
    """A mapping whose queue is not in the run (a parameter, an import, another account's ARN): its batches are
    judged all the same; they do not depend on the queue."""
    if c.kind == "lambda" and c.effective_batch_size > 1 and not c.report_batch_item_failures:
        yield with_changes(
            ctx.finding(
                alone(c),
                f"{ctx.consumer_label(c)} takes batches of up to {c.effective_batch_size} without "
                "ReportBatchItemFailures: one failed record makes the whole batch run again",
                location=c.location_of("batch_size") or c.location,
                consumer=c,
            ),
            set_consumer(c, "report_batch_item_failures", True),
        )
