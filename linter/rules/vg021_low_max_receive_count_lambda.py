"""VG021: maxReceiveCount below 5 with a Lambda consumer."""

from __future__ import annotations

from visguard.facts import MIN_RECEIVE_COUNT_LAMBDA
from visguard.linter.changes import set_queue, with_changes
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule

RULE = Rule(
    id="VG021",
    title="maxReceiveCount below 5 with a Lambda consumer",
    severity=Severity.WARNING,
    rationale=(
        "Every receive by the event source mapping counts towards maxReceiveCount, including batches whose "
        "invocation was throttled and never ran, and batches that failed because another record in them "
        "failed. AWS recommends maxReceiveCount of at least 5 so that throttling and transient errors do not "
        "send good messages to the dead-letter queue."
    ),
    source="https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-configure.html",
    fix="Set {redrive_max_receive_count} to 5 or more.",
    tags=("lambda", "redrive", "throttling"),
    settings={"lambda_min_receive_count": MIN_RECEIVE_COUNT_LAMBDA},
    consumers_only=True,
    kinds=("lambda",),
)


def check(queue, ctx):
    r = queue.redrive
    if r is None or isinstance(r.max_receive_count, (str, bool)) or r.max_receive_count is None:
        return
    floor = int(ctx.setting("lambda_min_receive_count"))
    lambdas = [c for c in queue.consumers if c.kind == "lambda"]
    if lambdas and 1 <= r.max_receive_count < floor:
        yield with_changes(
            ctx.finding(
                queue,
                f"maxReceiveCount {r.max_receive_count:g} with Lambda consumer {ctx.consumer_label(lambdas[0])}: "
                f"throttled or failed batches send good messages to the dead-letter queue (AWS recommends {floor}+)",
                location=queue.locations.get("redrive.max_receive_count") or r.location,
                consumer=lambdas[0],
            ),
            set_queue(queue, "redrive.max_receive_count", floor),
        )
