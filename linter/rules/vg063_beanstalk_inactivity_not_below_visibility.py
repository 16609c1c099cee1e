"""VG063: an Elastic Beanstalk worker's sqsd InactivityTimeout is not below its VisibilityTimeout."""

from __future__ import annotations

from visguard import facts
from visguard.linter.changes import set_consumer, with_changes
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, as_number, fmt_seconds
from visguard.linter.vocabulary import Text

RULE = Rule(
    id="VG063",
    title="Beanstalk worker: sqsd InactivityTimeout not below its VisibilityTimeout",
    severity=Severity.WARNING,
    rationale=(
        "An Elastic Beanstalk worker environment's sqsd receives each message with its own VisibilityTimeout "
        "(300 s by default; the queue's does not apply) and waits up to InactivityTimeout (299 s by default) for "
        "the application's answer. When InactivityTimeout is not below VisibilityTimeout, a message that takes "
        "longer than the visibility becomes visible again while sqsd still waits for the first answer: another "
        "instance receives and posts it again, and the application cannot extend the visibility (it never sees "
        "the receipt handle)."
    ),
    source=facts.SQSD_SOURCE,
    fix="Raise {visibility_override} above {inactivity_timeout} (or lower {inactivity_timeout} below it if no "
    "message needs that long).",
    tags=("beanstalk", "consumer", "worker", "visibility", "duplicates"),
    consumers_only=True,
)

_DEFAULT_INACTIVITY = facts.SQSD_OPTIONS["InactivityTimeout"][1]


def inactivity_of(c) -> tuple[float | None, object]:
    """sqsd's InactivityTimeout of a Beanstalk consumer (as set, else its default) and where it is set (None:
    not set)."""
    for key in ("inactivity_timeout", "work_timeout"):
        v = c.settings.get(key) if key == "inactivity_timeout" else c.work_timeout
        if v is not None:
            return as_number(v), c.locations.get(key) or c.location
    return float(_DEFAULT_INACTIVITY), None


def check(queue, ctx):
    for c in queue.consumers:
        if c.platform != "beanstalk":
            continue
        inactivity, at = inactivity_of(c)
        vt = ctx.visibility_for(queue, c)
        if inactivity is None or vt is None or inactivity < vt:
            continue
        value = int(inactivity + 1)
        # past sqsd's (and SQS's) 12 h cap no visibility covers the wait: lowering InactivityTimeout is the fix
        change = set_consumer(c, "visibility_override", value) if value <= facts.MAX_VISIBILITY else None
        yield with_changes(
            ctx.finding(
                queue,
                Text(
                    "{label} waits up to {inactivity_timeout} {wait} ({wait_at}) for the application, not less "
                    "than the visibility it receives with, {visibility_override} {vt} ({vt_at}): a message still "
                    "being worked on is visible again and posted to another instance (the queue's "
                    "{visibility_timeout}, {queue_at}, does not apply)",
                    label=ctx.consumer_label(c),
                    wait=fmt_seconds(inactivity),
                    wait_at=ctx.where(at)
                    if at is not None
                    else f"sqsd's default, environment at {ctx.where(c.location)}",
                    vt=fmt_seconds(vt),
                    vt_at=ctx.visibility_said(queue, c),
                    queue_at=ctx.queue_visibility_said(queue),
                ),
                location=ctx.visibility_where(queue, c),
                consumer=c,
            ),
            change,
        )
