"""VG061: the visibility a consumer sets on its receives is below its processing bound, with no heartbeat."""

from __future__ import annotations

import math

from visguard import facts
from visguard.facts import RECEIVE_VISIBILITY_SOURCE
from visguard.linter.changes import set_consumer, with_changes
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, as_number, fmt_rate, fmt_seconds, need_of, zero_in_a_test
from visguard.linter.vocabulary import Text

RULE = Rule(
    id="VG061",
    title="Visibility the consumer receives with is below its processing time, with no heartbeat",
    severity=Severity.WARNING,
    rationale=(
        "A consumer that sets the visibility of the messages it receives (sqsd's VisibilityTimeout, a receive's "
        "VisibilityTimeout argument, a framework option) holds each message for that long, whatever the queue "
        "says. When its work can take longer (the declared processing p99, or the limit its platform puts on "
        "one message's work) and nothing extends the visibility while it works, the message becomes visible "
        "again mid-work: another worker processes it a second time and its receive count grows towards the "
        "dead-letter queue. VG012 judges the queue's own timeout for consumers that use it; work limits of "
        "Beanstalk, Pipes and the frameworks are VG063, VG064 and VG072. A receive with 0 written in a test is "
        "not judged (a test's 0 is on purpose: VG070)."
    ),
    source=RECEIVE_VISIBILITY_SOURCE,
    fix="Raise {visibility_override} above the processing time, or extend the visibility while the message "
    "is processed ({heartbeat_interval}).",
    tags=("visibility", "duplicates", "consumer", "worker", "profile"),
    consumers_only=True,
)

# platforms whose limit on one message's work another rule compares with the visibility in effect
JUDGED_ELSEWHERE = {"beanstalk", "pipes", "celery", "laravel", "sqs-consumer", "spring"}


def _bound(c) -> tuple[float, str, object] | None:
    """(seconds, what, where) of the consumer's processing bound: the declared p99, else its platform's limit on
    one message's work when no other rule judges it."""
    if c.processing_p99 is not None:
        p99 = as_number(c.processing_p99)
        return (p99, "processing p99", c.locations.get("processing_p99")) if p99 is not None else None
    wt = as_number(c.work_timeout)
    if c.platform not in JUDGED_ELSEWHERE and wt is not None:
        return wt, "work limit", c.locations.get("work_timeout")
    return None


def check(queue, ctx):
    limit = float(ctx.setting("target_duplicate_rate"))
    mrc = queue.redrive.max_receive_count if queue.redrive else None
    for c in queue.consumers:
        if not ctx.overrides(c) or c.heartbeat is True or c.heartbeat_interval is not None:
            continue  # the queue's timeout is VG012's; heartbeats VG015's
        if zero_in_a_test(c):
            continue  # a test's receive with 0: on purpose (VG070's rationale)
        vt, bound = ctx.visibility_for(queue, c), _bound(c)
        if vt is None or bound is None:
            continue
        seconds, what, declared = bound
        share = estimate = None
        if what == "processing p99":  # the one judgement VG012 makes, on the visibility in effect
            r = ctx.risk(vt, c, mrc)
            if r is None or r.duplicate_rate <= limit:
                continue
            share, estimate = r.duplicate_rate, r.as_dict()  # the figure the message quotes, as data
        elif vt >= seconds:
            continue
        need = need_of(c.replace(processing_p99=seconds, processing_p50=c.processing_p50), ctx)
        value = None
        if need is not None and need.heartbeat is None:
            value = max(int(math.ceil(need.visibility_timeout)), int(math.ceil(seconds)) + 1)
            value = (
                value if value in facts.VISIBILITY_TIMEOUT else None
            )  # past 12 h: a heartbeat, not a timeout
        dup = f": about {fmt_rate(share)} of messages will be processed twice" if share is not None else ""
        yield with_changes(
            ctx.finding(
                queue,
                Text(
                    "{label} receives with {visibility_override} {vt} ({at}), below its {what} {bound}{decl} and "
                    "with no heartbeat{dup}; the queue's {visibility_timeout} ({queue_at}) does not apply to its "
                    "messages",
                    label=ctx.consumer_label(c),
                    vt=fmt_seconds(vt),
                    at=ctx.visibility_said(queue, c),
                    what=what,
                    bound=fmt_seconds(seconds),
                    decl=f" (declared at {ctx.where(declared)})" if declared is not None else "",
                    dup=dup,
                    queue_at=ctx.queue_visibility_said(queue),
                ),
                location=ctx.visibility_where(queue, c),
                consumer=c,
                estimate=estimate,
            ),
            set_consumer(c, "visibility_override", value) if value is not None else None,
        )
