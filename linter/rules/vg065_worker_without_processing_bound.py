"""VG065: a worker consumer without a declared processing time (how to declare it)."""

from __future__ import annotations

from visguard.linter.model import PROCESSING_P99_KEY, Severity
from visguard.linter.rules._base import Rule
from visguard.linter.vocabulary import Text

RULE = Rule(
    id="VG065",
    title="Worker consumer without a declared processing time",
    severity=Severity.INFO,
    rationale=(
        "How long one message's work takes is not in any infrastructure file, yet the visibility, stop-timeout "
        "and 12-hour checks (VG012, VG014, VG061, VG062) need it. visguard never guesses it: for a worker it "
        "found (an ECS task definition, a Beanstalk worker environment, a Deployment, a receive loop, a "
        "framework's consumer) without one, this note says once where to declare it: the tag or annotation "
        f"{PROCESSING_P99_KEY} (a duration: 20m, 90s, 600) on the consumer's resource, or a worker profile in "
        "visguard.yaml. A pipe whose target's timeout is known is bounded by it (VG064) and is not reported."
    ),
    source="https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-visibility-timeout.html",
    fix="Declare the processing time: {processing_bound}.",
    tags=("coverage", "consumer", "worker", "profile"),
    consumers_only=True,
    kinds=("worker",),
)

_NOT_WORKERS = (None, "lambda", "profile")


# frameworks whose declared per-message time limit (Consumer.work_timeout) is a processing bound
_FRAMEWORK_LIMITS = frozenset({"celery", "sqs-consumer", "laravel", "spring"})


def check(queue, ctx):
    for c in queue.consumers:
        if c.kind != "worker" or c.platform in _NOT_WORKERS or c.processing_p99 is not None:
            continue
        if c.settings.get("assumed_by_other_tool"):
            continue  # only its role is declared here: the loader's note says what was not checked
        if c.platform == "pipes" and c.work_timeout is not None:
            continue  # bounded by its target's timeout: VG064 judges it
        if c.platform in _FRAMEWORK_LIMITS and c.work_timeout is not None:
            continue  # the framework's own limit on one message bounds it: VG072 judges it
        label, at = ctx.consumer_label(c), ctx.where(c.location)
        yield ctx.finding(
            queue,
            Text(
                "{label}{at} consumes {queue} ({queue_at}) without a declared processing time: the "
                "visibility and stop-timeout checks cannot judge it{assumed}",
                label=label,
                at="" if at in label else f" ({at})",  # a consumer read from code is named by its file:line
                queue=queue.id,
                queue_at=ctx.where(queue.location),
                # given the queue's URL, its code not visible (linter.receiving): it may only send
                assumed=" (it is given the queue's URL and no code of it is visible: that it receives is assumed)"
                if c.settings.get("receive_assumed")
                else "",
            ),
            location=c.location or queue.location,
            consumer=c,
        )
