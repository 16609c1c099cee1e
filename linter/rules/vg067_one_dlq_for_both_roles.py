"""VG067: one dead-letter queue for both a subscription's failed deliveries and the queue's failed messages."""

from __future__ import annotations

from visguard import facts
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule
from visguard.linter.vocabulary import Text

RULE = Rule(
    id="VG067",
    title="One dead-letter queue for SNS delivery failures and the queue's processing failures",
    severity=Severity.INFO,
    rationale=(
        "An SNS subscription's redrive policy catches deliveries SNS could not make to the queue (a policy that "
        "denies SNS, a key SNS cannot use); the queue's own redrive policy catches messages its consumers failed "
        "maxReceiveCount times. The two failures have different causes and fixes: one dead-letter queue for both "
        "mixes them, so an alarm on it cannot say which broke, and the SNS envelopes (unless raw delivery is on) "
        "sit next to the queue's own messages."
    ),
    source=facts.SNS_DLQ_SOURCE,
    fix="Give the subscription a dead-letter queue of its own (its RedrivePolicy deadLetterTargetArn), separate "
    "from the queue's {dead_letter_target}.",
    tags=("sns", "subscription", "dlq"),
)


def check(queue, ctx):
    if queue.redrive is None or queue.redrive.target is None:
        return
    for sub in queue.subscriptions:
        if sub.redrive is None or sub.redrive != queue.redrive.target:
            continue
        yield ctx.finding(
            queue,
            Text(
                "subscription {sub} of topic {topic} ({sub_at}) and queue {queue} itself ({queue_at}) both send "
                "their failures to {dlq}: delivery and processing failures cannot be told apart",
                sub=sub.id,
                topic=sub.topic or "?",
                sub_at=ctx.where(sub.locations.get("redrive") or sub.location),
                queue=queue.id,
                queue_at=ctx.where(queue.locations.get("redrive.target") or queue.location_of("redrive")),
                dlq=queue.redrive.target,
            ),
            location=sub.locations.get("redrive") or sub.location,
        )
