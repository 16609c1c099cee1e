"""VG060: the visibility timeout in effect for a consumer is not the queue's declared one."""

from __future__ import annotations

import math

from visguard.facts import CELERY_SQS_SOURCE, RECEIVE_VISIBILITY_SOURCE, VISIBILITY_TIMEOUT
from visguard.linter.changes import set_queue, with_changes
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, as_number, fmt_seconds
from visguard.linter.vocabulary import Text

RULE = Rule(
    id="VG060",
    title="Visibility timeout in effect differs from the queue's declared one",
    severity=Severity.WARNING,
    rationale=(
        "A ReceiveMessage call's VisibilityTimeout replaces the queue's for the messages it returns, so a consumer "
        "that sets one (a receive argument, a framework option, an Elastic Beanstalk worker's sqsd, which always "
        "does: 300 s unless its VisibilityTimeout option says otherwise) never gets the queue's value. Whoever "
        "tunes the queue's VisibilityTimeout then changes nothing for that consumer, and the queue's value "
        "misleads every reviewer and rule that reads it. The reverse trap: Celery's broker_transport_options "
        "visibility_timeout is used only when Kombu creates the queue, so for a queue declared in infrastructure "
        "code it is silently ignored and the queue's value governs. The finding says which value wins and where "
        "each is written."
    ),
    source=RECEIVE_VISIBILITY_SOURCE,
    fix="Make the two agree, so the declared value is the one used: set the queue's {visibility_timeout} to the "
    "value in effect, or set {visibility_override} to the queue's.",
    tags=("visibility", "consumer", "worker"),
    consumers_only=True,
)


def check(queue, ctx):
    qvt = ctx.visibility(queue)
    if qvt is None:
        return  # unresolved or out of range: VG001's
    overriding = [c for c in queue.consumers if ctx.overrides(c)]
    values = {ctx.visibility_for(queue, c) for c in overriding}
    # one value in effect for every consumer, above the queue's: raising the queue's to it changes what nobody
    # receives with. One below it is the consumer's to raise: lowering the queue's would write the shorter
    # override (a default nobody chose, often) into the declaration
    change_to = next(iter(values)) if len(overriding) == len(queue.consumers) and len(values) == 1 else None
    if change_to is not None and change_to < qvt:
        change_to = None
    for c in queue.consumers:
        if ctx.overrides(c):
            vt = ctx.visibility_for(queue, c)
            if vt is None or vt == qvt or (c.visibility_override == 0 and c.kind == "worker"):
                continue  # (a receive with 0 gives every message back at once: VG070 says so)
            default = "" if c.visibility_override is not None else " (sqsd's default: the option is not set)"
            yield with_changes(
                ctx.finding(
                    queue,
                    Text(
                        "{label} receives with {visibility_override} {vt}{default}, {set_at} {at}; it wins over "
                        "the queue's {visibility_timeout} {qvt} ({queue_at}), which none of its messages get",
                        label=ctx.consumer_label(c),
                        vt=fmt_seconds(vt),
                        default=default,
                        set_at="set at" if c.visibility_override is not None else "environment at",
                        at=ctx.where(ctx.visibility_where(queue, c)),
                        qvt=fmt_seconds(qvt),
                        queue_at=ctx.queue_visibility_said(queue),
                    ),
                    # where the value to change is: the queue's when raising it fixes it, else the consumer's;
                    # a queue the code creates without a VisibilityTimeout (SQS's default) writes no value to
                    # point at: the consumer's written one
                    location=queue.location_of("visibility_timeout")
                    if change_to is not None
                    and not (queue.created_by and "visibility_timeout" not in queue.locations)
                    else _consumers_place(ctx, queue, c),
                    consumer=c,
                ),
                set_queue(queue, "visibility_timeout", int(math.ceil(change_to)))
                if change_to is not None
                else None,
            )
            continue
        created = as_number(c.settings.get("created_visibility"))
        if (
            created is not None
            and created != qvt
            and created in VISIBILITY_TIMEOUT
            and created == int(created)
            and not (queue.created_by and queue.id == c.settings.get("kombu_queue"))  # the queue it creates
        ):
            # (outside the SQS range: VG074's)
            queue_at = ctx.queue_visibility_said(queue)
            yield ctx.finding(
                queue,
                Text(
                    "{label} sets {created_visibility} {created} at {at}, but it applies only when the "
                    "framework creates the queue: this queue is declared, so its {visibility_timeout} {qvt} "
                    "({queue_at}) wins and the {created} is ignored",
                    label=ctx.consumer_label(c),
                    created=fmt_seconds(created),
                    at=ctx.where(c.locations.get("created_visibility") or c.location),
                    qvt=fmt_seconds(qvt),
                    queue_at=queue_at,
                ),
                location=c.locations.get("created_visibility") or c.location,
                consumer=c,
                fix=Text(
                    "Set the queue's {visibility_timeout} (at {queue_at}) to the value you meant and remove "
                    "{created_visibility}, which this queue never uses (" + CELERY_SQS_SOURCE + ").",
                    queue_at=queue_at,
                ),
            )


def _consumers_place(ctx, queue, c):
    """Where the consumer's value is to change: where it is written, unless that one place (a base class's
    default, a shared helper's parameter default) also sets the visibility of consumers it is right for, here
    one per call site: then the consumer's own place, the call that builds it, where this consumer's value can
    be given without changing theirs. (A shared default wrong for every consumer it sets is changed once, there.)"""
    at = ctx.visibility_where(queue, c)
    own = c.location
    if own is None or at is None or (own.file, own.line) == (at.file, at.line):
        return at
    return own if _right_for_others(ctx, at, c) else at


_SEEN: list = [None, None]  # (the model, {setter's place: consumers it sets right}) of the last model asked


def _right_for_others(ctx, at, c) -> bool:
    """Whether the written override at ``at`` is also the visibility of a consumer whose queue has that value."""
    if _SEEN[0] is not ctx.model:
        right: dict = {}
        for q in ctx.model.queues.values():
            qvt = ctx.visibility(q)
            for other in q.consumers:
                where = other.location_of("visibility_override")
                if where is not None and ctx.overrides(other) and ctx.visibility_for(q, other) == qvt:
                    key = (where.file, where.line, where.column)
                    right.setdefault(key, []).append(other)
        _SEEN[0], _SEEN[1] = ctx.model, right
    return any(o is not c for o in _SEEN[1].get((at.file, at.line, at.column), ()))
