"""VG077: a Celery visibility_timeout of 0 on SQS: Kombu takes it as unset and creates the queue with 1,800 s."""

from __future__ import annotations

from visguard.facts import KOMBU_VISIBILITY_FIX, KOMBU_VISIBILITY_SOURCE
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, fmt_seconds
from visguard.linter.vocabulary import Text

RULE = Rule(
    id="VG077",
    title="Celery visibility_timeout 0 is Kombu's 1,800 s: the queue it creates hides messages for 30 minutes",
    severity=Severity.WARNING,
    rationale=(
        "Kombu's SQS transport reads broker_transport_options visibility_timeout as `value or 1800`: a 0 is "
        "taken as unset, and the queue Kombu creates at worker start gets a visibility timeout of 1,800 s. A "
        "message a worker received and did not delete (a crash, a lost worker) waits 30 minutes before another "
        "worker sees it, where the configuration says it is visible at once. Every Kombu release so far (up to "
        "5.6.2) does so; honouring 0 ("
        + KOMBU_VISIBILITY_FIX
        + ") is in no release yet. The finding names the "
        "Kombu release it assumed: the one the repository pins (kombu, or celery as it requires kombu), else the "
        "newest. Kombu's source: " + KOMBU_VISIBILITY_SOURCE
    ),
    source="https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-visibility-timeout.html",
    fix="Write the visibility timeout the queue really gets ({created_visibility} = 1800), or the one you mean "
    "(above the tasks' run time).",
    tags=("visibility", "code", "celery", "kombu"),
    consumers_only=True,
    kinds=("worker",),
)


def check(queue, ctx):
    for c in queue.consumers:
        read_as = c.settings.get("kombu_zero_read_as")
        if c.platform != "celery" or read_as is None:
            continue
        if queue.id != c.settings.get("kombu_queue") or not queue.created_by:
            continue  # a declared queue: its own timeout applies (VG060 says the option is ignored)
        from visguard.linter.consumer_words import library_said, term  # worded only for a worker consumer

        at = c.locations.get("created_visibility") or c.location
        # no Change: the fixer writes no framework option of application code (as VG074's created_visibility)
        yield ctx.finding(
            queue,
            Text(
                "{consumer} sets {name} = 0 at {at}: {library} takes 0 as unset and creates {queue} with "
                "{read_as}, so a message not deleted (a crashed worker) stays hidden for {read_as}, not 0",
                consumer=ctx.consumer_label(c),
                name=term(c, "created_visibility"),
                at=ctx.where(at),
                library=library_said(c, ctx),
                queue=queue.name or queue.id,
                read_as=fmt_seconds(read_as),
            ),
            location=at,
            consumer=c,
            fix=Text(
                "Write {created_visibility} = {value} at {at} (what Kombu gives the queue), or the timeout you "
                "mean, above the tasks' run time.",
                value=str(int(read_as)),
                at=ctx.where(at),
            ),
        )
