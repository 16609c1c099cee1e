"""VG075: a fractional Celery visibility_timeout on SQS: Kombu's CreateQueue fails and the worker does not start."""

from __future__ import annotations

from visguard.facts import KOMBU_VISIBILITY_FIX, KOMBU_VISIBILITY_SOURCE
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule
from visguard.linter.vocabulary import Text

RULE = Rule(
    id="VG075",
    title="Celery visibility_timeout not a whole number: Kombu's CreateQueue fails (the worker does not start)",
    severity=Severity.ERROR,
    rationale=(
        "When a Celery worker on SQS starts and its queue does not exist, Kombu creates it with "
        "VisibilityTimeout = str(broker_transport_options['visibility_timeout']). A float (21600.0, or what "
        "timedelta(hours=6).total_seconds() returns) is sent as '21600.0', which SQS refuses "
        "(InvalidAttributeValue): the worker fails at start. Every Kombu release so far (up to 5.6.2) sends it "
        "as written; the fix (int(float(v)), "
        + KOMBU_VISIBILITY_FIX
        + ") is in no release yet. A queue that "
        "already exists is only looked up, so only a queue Kombu creates is affected. The finding names the "
        "Kombu release it assumed: the one the repository pins (kombu, or celery as it requires kombu), else "
        "the newest. Kombu's source: " + KOMBU_VISIBILITY_SOURCE
    ),
    source="https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_CreateQueue.html",
    fix="Write {created_visibility} as a whole number of seconds (an int).",
    tags=("deploy", "code", "celery", "kombu"),
    consumers_only=True,
    kinds=("worker",),
)


def check(queue, ctx):
    for c in queue.consumers:
        if c.platform != "celery" or not c.settings.get("kombu_fractional"):
            continue
        if queue.id != c.settings.get("kombu_queue") or not queue.created_by:
            continue  # a declared queue: Kombu only looks it up (VG060 says the option is ignored)
        from visguard.linter.consumer_words import library_said, term  # worded only for a worker consumer

        vt = c.settings.get("created_visibility")
        at = c.locations.get("created_visibility") or c.location
        whole = int(vt)
        # no Change: the fixer writes no framework option of application code (as VG074's created_visibility)
        yield ctx.finding(
            queue,
            Text(
                "{consumer} sets {name} = {v} at {at}: {library} creates {queue} with VisibilityTimeout "
                '"{v}", which SQS refuses (InvalidAttributeValue), and the worker fails at start',
                consumer=ctx.consumer_label(c),
                name=term(c, "created_visibility"),
                v=repr(float(vt)),
                at=ctx.where(at),
                library=library_said(c, ctx),
                queue=queue.name or queue.id,
            ),
            location=at,
            consumer=c,
            fix=Text(
                "Write {created_visibility} as {whole} (an int) at {at}.",
                whole=str(whole),
                at=ctx.where(at),
            ),
        )
