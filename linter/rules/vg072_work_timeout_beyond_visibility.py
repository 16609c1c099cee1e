"""VG072: a framework's limit on one message's work that the visibility timeout in effect does not cover."""

from __future__ import annotations

import math

from visguard.facts import MAX_VISIBILITY
from visguard.linter.changes import set_consumer, set_queue, with_changes
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, alone, as_number, fmt_seconds, of_queue
from visguard.linter.vocabulary import Text

# frameworks whose work_timeout lets one message be worked on that long before it is given up
FRAMEWORKS = ("laravel", "sqs-consumer", "celery", "spring")

RULE = Rule(
    id="VG072",
    title="Framework work timeout not covered by the visibility timeout",
    severity=Severity.WARNING,
    rationale=(
        "A worker framework lets one message run up to its own time limit: Laravel's queue:work --timeout (or "
        "a job's $timeout), sqs-consumer's handleMessageTimeout, Celery's task_time_limit when tasks are "
        "acknowledged late (task_acks_late), a Spring listener's limit. When that limit is not below the "
        "visibility timeout in effect (the consumer's own, else the queue's) and nothing extends visibility "
        "while the message is worked on, a slow message becomes visible again and a second worker starts it "
        "while the first is still running (Laravel: 'the second worker picked up the same job'). SQS has no "
        "retry_after: the visibility timeout is the only guard."
    ),
    source="https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-visibility-timeout.html",
    fix="Make the visibility timeout in effect longer than the framework's time limit (or lower the limit), or "
    "extend visibility while a message is worked on (a heartbeat).",
    tags=("visibility", "duplicates", "code"),
    consumers_only=True,
    kinds=("worker",),
)


def check(queue, ctx):
    if not any(c.kind == "worker" for c in queue.consumers):
        return
    if ctx.visibility(queue) is None:
        return
    for c in queue.consumers:
        yield from _judge(c, queue, ctx)


def check_consumer(c, ctx):
    """A consumer whose queue is not known, judged when it sets the visibility of its receives itself."""
    if c.kind == "worker" and ctx.overrides(c):
        yield from _judge(c, None, ctx)


def _judge(c, queue, ctx):
    from visguard.linter.consumer_words import in_effect, term  # worded only for a worker consumer

    limit = as_number(c.work_timeout)
    # the framework an ECS task's or a Deployment's start command runs, else the consumer's own platform
    framework = c.settings.get("framework") or c.platform
    if framework not in FRAMEWORKS or limit is None or c.heartbeat is True:
        return
    if framework == "celery" and not c.settings.get("acks_late"):
        return  # acknowledged on receipt: the message is gone before the task runs
    home = (
        queue if queue is not None else alone(c)
    )  # the stand-in: only the consumer's own visibility is read
    effect, what = in_effect(ctx, c, home)
    if effect is None or limit < effect:
        return
    at = c.location_of("work_timeout")
    need = math.ceil(limit * 1.1 + 5)  # above the limit, with room for the receive and the shutdown
    override = c.visibility_override is not None
    yield with_changes(
        ctx.finding(
            home,
            Text(
                "{work_name} = {limit} at {at} lets {consumer} work on a message{of_queue} "
                "for longer than the visibility timeout in effect, {what}, and it does not extend visibility: "
                "a slow message is received and started again while it is still running",
                work_name=term(c, "work_timeout"),
                limit=fmt_seconds(limit),
                at=ctx.where(at),
                consumer=ctx.consumer_label(c),
                of_queue=of_queue(queue, ctx),
                what=what,
            ),
            location=at,
            consumer=c,
            fix=Text(
                "Set {target} to at least {need} (above {work_name} {limit}), or lower {work_timeout}, or "
                "extend visibility while a message is worked on.",
                target=Text("{visibility_override}")
                if override
                else Text("the queue's {visibility_timeout}"),
                need=fmt_seconds(need),
                work_name=term(c, "work_timeout"),
                limit=fmt_seconds(limit),
            ),
        ),
        (
            None
            if need > MAX_VISIBILITY
            else set_consumer(c, "visibility_override", need)
            if override
            else set_queue(queue, "visibility_timeout", need)
        ),
    )
