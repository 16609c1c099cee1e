"""VG071: a Celery countdown, eta or retry delay beyond the visibility timeout in effect on SQS."""

from __future__ import annotations

import math

from visguard.facts import MAX_VISIBILITY
from visguard.linter.changes import set_queue, with_changes
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, as_number, fmt_seconds
from visguard.linter.vocabulary import Text

RULE = Rule(
    id="VG071",
    title="Celery countdown, eta or retry delay beyond the visibility timeout (SQS broker)",
    severity=Severity.WARNING,
    rationale=(
        "On SQS, Celery keeps a task with a countdown or eta (a retry with countdown is one) received and "
        "unacknowledged in a worker until it is due. Once the visibility timeout runs out the message is "
        "visible again, another worker receives it, and the task runs once per timeout that passed: 'executed "
        "again, and again in a loop' (Celery's SQS caveats). The timeout in effect is the queue's: Celery's "
        "broker_transport_options visibility_timeout is only sent when Kombu creates the queue. A queue created "
        "by infrastructure code keeps its own."
    ),
    source="https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-visibility-timeout.html",
    fix="Keep countdown/eta below the queue's {visibility_timeout} (schedule longer delays another way), or raise "
    "the queue's {visibility_timeout} above the delay plus the task's run time (at most 43200 s).",
    tags=("visibility", "duplicates", "code", "celery"),
    consumers_only=True,
    kinds=("worker",),
)


def check(queue, ctx):
    if not any(c.kind == "worker" for c in queue.consumers):
        return
    from visguard.linter.consumer_words import in_effect  # worded only for a worker consumer

    vt = ctx.visibility(queue)
    if vt is None:
        return
    for c in queue.consumers:
        if c.platform != "celery":
            continue
        effect, what = in_effect(ctx, c, queue)
        if effect is None:
            continue
        run = as_number(c.work_timeout) or as_number(c.processing_p99) or 0.0
        for d in c.settings.get("delays") or ():
            seconds = as_number(d.get("seconds")) if isinstance(d, dict) else None
            if seconds is None or seconds < effect:
                continue
            at = d.get("location") or c.location_of("delays")
            need = math.ceil((seconds + run + 60) / 60) * 60  # the delay, the task's run, a minute of margin
            fix = None
            if need <= MAX_VISIBILITY:
                fix = Text(
                    "Keep {delay} below {effect} (schedule longer delays another way), or set the queue's "
                    "{visibility_timeout} to at least {need}.",
                    delay=d.get("what") or "the delay",
                    effect=fmt_seconds(effect),
                    need=fmt_seconds(need),
                )
            yield with_changes(
                ctx.finding(
                    queue,
                    Text(
                        "{delay} {seconds} at {at} is not below the visibility timeout in effect for {consumer} "
                        "on {queue} ({queue_at}), {what}: the message is visible again before the task is due, and the task "
                        "runs once more for each timeout that passes",
                        delay=d.get("what") or "delay",
                        seconds=fmt_seconds(seconds),
                        at=ctx.where(at),
                        consumer=ctx.consumer_label(c),
                        queue=queue.id,
                        queue_at=ctx.where(queue.location),
                        what=what,
                    ),
                    location=at,
                    consumer=c,
                    fix=fix,
                ),
                set_queue(queue, "visibility_timeout", need)
                if fix is not None and c.visibility_override is None
                else None,
            )
