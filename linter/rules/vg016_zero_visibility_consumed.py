"""VG016: visibility timeout 0 on a queue that workers consume."""

from __future__ import annotations

from visguard.facts import DEFAULT_VISIBILITY_TIMEOUT
from visguard.linter.changes import set_queue, with_changes
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, queue_need_of

RULE = Rule(
    id="VG016",
    title="Visibility timeout 0 on a consumed queue",
    severity=Severity.WARNING,
    rationale=(
        "With a visibility timeout of 0 a received message is visible again at once: the next ReceiveMessage, "
        "by any consumer, returns it again while the first one is still processing it, so every message can "
        "be processed several times in parallel and its receive count races towards the DLQ. A timeout of 0 "
        "only makes sense on a ReceiveMessage or ChangeMessageVisibility call that deliberately releases a "
        "message, not as the queue's default. (Lambda consumers are covered by VG010.)"
    ),
    source="https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-visibility-timeout.html",
    fix="Set {visibility_timeout} to a value above the consumers' processing time (declare a profile to get a "
    "recommendation), and release messages early with ChangeMessageVisibility 0 where that is intended.",
    tags=("visibility", "duplicates"),
    consumers_only=True,
)


def check(queue, ctx):
    if ctx.visibility(queue) != 0:
        return
    # a Lambda consumer is VG010's, unless its function is not known here (any timeout is above 0); a consumer
    # that sets its own visibility on its receives does not use the queue's (a 0 there is VG070's)
    workers = [
        c for c in queue.consumers if (c.kind != "lambda" or c.function_id is None) and not ctx.overrides(c)
    ]
    if workers:
        qn = queue_need_of(queue, ctx)
        value = qn.visibility_timeout if qn is not None else DEFAULT_VISIBILITY_TIMEOUT
        yield with_changes(
            ctx.finding(
                queue,
                f"visibility timeout 0 on {queue.id}, consumed by {ctx.consumer_label(workers[0])}: every receive "
                "leaves the message visible to the next one",
                location=queue.location_of("visibility_timeout"),
                consumer=workers[0],
            ),
            set_queue(queue, "visibility_timeout", int(max(value, 1))),
        )
