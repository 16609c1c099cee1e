"""VG066: an SNS subscription's dead-letter queue of the wrong type, account or Region for its topic."""

from __future__ import annotations

import re

from visguard import facts
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule
from visguard.linter.vocabulary import Text

RULE = Rule(
    id="VG066",
    title="SNS subscription dead-letter queue of the wrong type, account or Region",
    severity=Severity.ERROR,
    rationale=(
        "An SNS subscription's redrive policy keeps the messages SNS could not deliver to the queue (a queue or "
        "key policy that denies SNS, a deleted queue). Its dead-letter queue must be a FIFO queue for a FIFO "
        "topic and a standard queue for a standard topic, in the same account and Region as the subscription; "
        "otherwise SNS cannot move failed deliveries there and they are lost."
    ),
    source=facts.SNS_DLQ_SOURCE,
    fix="Point the subscription's RedrivePolicy deadLetterTargetArn at a queue of the topic's type (FIFO for a "
    "FIFO topic) in the subscription's account and Region.",
    tags=("sns", "subscription", "dlq", "fifo"),
)

_ARN = re.compile(r"^arn:aws[a-z-]*:(sns|sqs):([^:]*):([^:]*):([^:/]+)$")


def _arn(text) -> tuple[str, str, str] | None:
    """(region, account, name) of an SNS/SQS ARN as written; None otherwise."""
    m = _ARN.match(text) if isinstance(text, str) else None
    return (m.group(2), m.group(3), m.group(4)) if m else None


def _kind(fifo: bool) -> str:
    return "FIFO" if fifo else "standard"


def _dlq_facts(sub, ctx) -> tuple[str, bool | None, str | None, str | None, object]:
    """(name, fifo, region, account, location) of a subscription's dead-letter queue, as far as known."""
    q = ctx.model.queues.get(sub.redrive) if sub.redrive is not None else None
    if q is not None:
        parsed = _arn(q.arn)
        region = q.region or (parsed[0] if parsed else None)
        account = q.account or (parsed[1] if parsed else None)
        return q.id, bool(q.fifo), region or None, account or None, q.location
    parsed = _arn(sub.redrive_ref)
    if parsed is None:
        return str(sub.redrive_ref), None, None, None, None
    return parsed[2], parsed[2].endswith(facts.FIFO_SUFFIX), parsed[0] or None, parsed[1] or None, None


def check(queue, ctx):
    for sub in queue.subscriptions:
        if sub.redrive is None and sub.redrive_ref is None:
            continue
        name, dlq_fifo, dlq_region, dlq_account, dlq_loc = _dlq_facts(sub, ctx)
        topic = _arn(sub.topic)
        topic_fifo = sub.topic_fifo
        if topic_fifo is None and isinstance(sub.topic, str):
            topic_fifo = sub.topic.endswith(facts.FIFO_SUFFIX) if topic is not None else None
        problems = []
        if topic_fifo is not None and dlq_fifo is not None and topic_fifo != dlq_fifo:
            problems.append(f"a {_kind(dlq_fifo)} queue for a {_kind(topic_fifo)} topic")
        if topic is not None:
            if dlq_account and topic[1] and dlq_account != topic[1]:
                problems.append(f"in account {dlq_account}, not the subscription's {topic[1]}")
            if dlq_region and topic[0] and dlq_region != topic[0]:
                problems.append(f"in Region {dlq_region}, not the subscription's {topic[0]}")
        if not problems:
            continue
        where = sub.locations.get("redrive") or sub.location
        yield ctx.finding(
            queue,
            Text(
                "subscription {sub} of topic {topic} to {queue} ({queue_at}) sends failed deliveries to {dlq}"
                "{dlq_at}: {problems}",
                sub=sub.id,
                topic=sub.topic or "?",
                queue=queue.id,
                queue_at=ctx.where(queue.location),
                dlq=name,
                dlq_at=f" ({ctx.where(dlq_loc)})" if dlq_loc is not None else "",
                problems="; ".join(problems),
            ),
            location=where,
        )
