"""VG070: a consumer receives with VisibilityTimeout 0 and works on the messages."""

from __future__ import annotations

from visguard.linter.changes import set_consumer, with_changes
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, alone, unknown_queue_said, zero_in_a_test
from visguard.linter.vocabulary import Text

RULE = Rule(
    id="VG070",
    title="Receive with visibility timeout 0 in a consumer that works on the messages",
    severity=Severity.WARNING,
    rationale=(
        "A VisibilityTimeout on ReceiveMessage replaces the queue's for the messages of that receive. With 0 a "
        "received message is visible again at once: the next receive, by this worker or another, returns it "
        "while the first one is still working on it, so messages are processed several times in parallel and "
        "their receive count races towards the dead-letter queue. 0 belongs on ChangeMessageVisibility to "
        "release a message early, not on the receive of a worker. (Go SDK v2 does not send a 0 on receive: "
        "there the queue's timeout applies, and this rule stays quiet. A receive written in a test, a file "
        "under tests/ or named test_*, is not judged: a test sets 0 on purpose, to see a message it does not "
        "delete come back at once against an emulator, and no worker of the application receives so.)"
    ),
    source="https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_ReceiveMessage.html",
    fix="Remove the VisibilityTimeout of the receive (the queue's {visibility_timeout} then applies) or set it "
    "above the processing time.",
    tags=("visibility", "duplicates", "code"),
    consumers_only=True,
    kinds=("worker",),
)


def check(queue, ctx):
    if not any(c.kind == "worker" for c in queue.consumers):
        return
    for c in queue.consumers:
        yield from _judge(c, queue, ctx)


def check_consumer(c, ctx):
    """A consumer whose queue is not known: its receive's 0 is a finding whatever the queue."""
    yield from _judge(c, None, ctx)


def _judge(c, queue, ctx):
    o = c.visibility_override
    if o is None or isinstance(o, bool) or o != 0 or c.settings.get("zero_not_sent") or c.kind != "worker":
        return
    if zero_in_a_test(c):  # a test's receive: 0 on purpose, to see a message come back at once
        return
    from visguard.linter.consumer_words import term  # worded only for a worker consumer

    at = c.location_of("visibility_override")
    what = term(c, "visibility_override")
    if queue is None:  # the queue is not known: the consumer alone, and no value to write (a guess)
        yield ctx.finding(
            alone(c),
            Text(
                "{consumer} receives with {what} = 0 ({at}): each message is visible again at once, and the next "
                "receive returns it while it is being worked on ({unknown})",
                consumer=ctx.consumer_label(c),
                what=what,
                at=ctx.where(at),
                unknown=unknown_queue_said(c),
            ),
            location=at,
            consumer=c,
            fix=Text(
                "Remove {visibility_override} at {at} (the queue's visibility timeout then applies) or set it "
                "above the processing time.",
                at=ctx.where(at),
            ),
        )
        return
    vt = ctx.visibility(queue)
    fix = Text(
        "Remove {visibility_override} at {at} (the queue's {visibility_timeout}, {queue_at}, then applies) or "
        "set it above the processing time.",
        at=ctx.where(at),
        queue_at=ctx.where(queue.location_of("visibility_timeout")),
    )
    yield with_changes(
        ctx.finding(
            queue,
            Text(
                "{consumer} receives from {queue} ({queue_at}) with {what} = 0 ({at}): each "
                "message is visible again at once, and the next receive returns it while it is being worked on",
                consumer=ctx.consumer_label(c),
                what=what,
                queue=queue.id,
                queue_at=ctx.where(queue.location),
                at=ctx.where(at),
            ),
            location=at,
            consumer=c,
            fix=fix,
        ),
        # the queue's timeout, written on the receive (a queue of 0 has none to offer)
        set_consumer(c, "visibility_override", int(vt)) if vt else None,
    )
