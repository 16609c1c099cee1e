"""VG068: a KEDA aws-sqs-queue scaler that does not count in-flight messages scales busy workers in."""

from __future__ import annotations

from visguard import facts
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, fmt_seconds
from visguard.linter.vocabulary import Text

RULE = Rule(
    id="VG068",
    title="KEDA scales on visible messages only: busy workers are scaled in mid-message",
    severity=Severity.WARNING,
    rationale=(
        "KEDA's aws-sqs-queue scaler counts the messages in flight (received, not yet deleted) by default "
        "(scaleOnInFlight: true). With scaleOnInFlight set to false it counts only the visible backlog: as soon "
        "as the workers have taken every message the target is 0 and the HPA removes replicas that are still "
        "processing. The removed pods get their termination grace period and are then killed; the message comes "
        "back after the visibility timeout, is processed again and its receive count grows towards the "
        "dead-letter queue (kedacore/keda#1663, #5948)."
    ),
    source=facts.KEDA_SQS_SOURCE,
    fix='Remove scaleOnInFlight: "false" from the aws-sqs-queue trigger (the default counts messages in flight).',
    tags=("consumer", "worker", "kubernetes", "scaling", "duplicates"),
    consumers_only=True,
)


def check(queue, ctx):
    for c in queue.consumers:
        if c.platform != "keda" or c.settings.get("scale_on_in_flight") is not False:
            continue
        grace, p99 = c.effective_stop_timeout, c.processing_bound
        worse = (
            f": its grace period {fmt_seconds(grace)} is shorter than the processing p99 {fmt_seconds(p99)}, so "
            "that work is killed and delivered again"
            if grace is not None and p99 is not None and grace < p99
            else ": each removed pod has only its grace period to finish what it holds"
        )
        yield ctx.finding(
            queue,
            Text(
                "{label} is scaled by KEDA on {queue}'s visible messages only (scaleOnInFlight: false, {at}): "
                "when the backlog is taken the scaler removes replicas that are still processing{worse}",
                label=ctx.consumer_label(c),
                queue=queue.id,
                at=ctx.where(c.locations.get("scale_on_in_flight") or c.location),
                worse=worse,
            ),
            location=c.locations.get("scale_on_in_flight") or c.location,
            consumer=c,
        )
