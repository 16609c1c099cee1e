"""VG076: sqs-consumer 14+ with a handler that returns no message: nothing is deleted, every message comes back."""

from __future__ import annotations

from visguard.facts import SQS_CONSUMER_ACK_CHANGE, SQS_CONSUMER_ACK_SOURCE, SQS_CONSUMER_RETURN_ACKS_FROM
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, alone, of_queue
from visguard.linter.vocabulary import Text

RULE = Rule(
    id="VG076",
    title="sqs-consumer 14+ handler returns no message: messages are never deleted (alwaysAcknowledge not set)",
    severity=Severity.ERROR,
    rationale=(
        "From sqs-consumer 14.0.0 ("
        + SQS_CONSUMER_ACK_CHANGE
        + ") a message is deleted only when handleMessage "
        "returns it (an object with its MessageId), and with handleMessageBatch only the messages of the array "
        "it returns. A handler that returns nothing (undefined, void), or true, leaves every message in the "
        "queue: it is received and processed again after each visibility timeout, until maxReceiveCount moves "
        "it to the dead-letter queue, or forever without one. Before 14 the same handler deleted the message. "
        "alwaysAcknowledge: true deletes whatever the handler returns. The release is the one the repository "
        "pins (package.json, its lock file); without one nothing is judged. sqs-consumer's source: "
        + SQS_CONSUMER_ACK_SOURCE
    ),
    source="https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_DeleteMessage.html",
    fix="Return the message from handleMessage (the array of processed messages from handleMessageBatch), or set "
    "alwaysAcknowledge: true.",
    tags=("duplicates", "dlq", "code", "sqs-consumer"),
    consumers_only=True,
    kinds=("worker",),
)

_SAID = {"nothing": "returns nothing", "not a message": "returns no message (only literals)"}


def check(queue, ctx):
    for c in queue.consumers:
        yield from _judge(c, queue, ctx)


def check_consumer(c, ctx):
    """A consumer whose queue is not known: the library deletes nothing, whatever the queue."""
    yield from _judge(c, None, ctx)


def _release(c) -> tuple[int, ...] | None:
    """The sqs-consumer release the repository pins (``settings["library"]``), as numbers, or None."""
    lib = c.settings.get("library") or {}
    if lib.get("name") != "sqs-consumer" or not isinstance(lib.get("version"), str):
        return None
    parts = lib["version"].split(".")
    return tuple(int(p) for p in parts if p.isdigit()) if parts[0].isdigit() else None


def _judge(c, queue, ctx):
    if c.kind != "worker" or c.platform != "sqs-consumer":
        return
    returns = c.settings.get("handler_returns")
    if returns not in _SAID:
        return  # it returns a value (taken as the message), or the handler is not read
    if c.settings.get("always_acknowledge", False) is not False:
        return  # alwaysAcknowledge: true deletes every message (or it is computed: not known)
    if c.settings.get("should_delete", True) is not True:
        return  # shouldDeleteMessages: false (or computed): the application deletes, not the library
    release = _release(c)
    if release is None:
        return  # no pin found: not judged (the module docstring of loaders/code/library_versions.py)
    if tuple(release) + (0,) * (3 - len(release)) < SQS_CONSUMER_RETURN_ACKS_FROM:
        return  # before 14 the library deleted the message whatever the handler returned
    from visguard.linter.consumer_words import library_said  # worded only for a worker consumer

    handler = c.settings.get("handler") or "handleMessage"
    at = c.locations.get("handler") or c.location
    after = (
        "until maxReceiveCount moves it to the dead-letter queue"
        if queue is not None and queue.redrive is not None
        else "forever (no dead-letter queue)"
        if queue is not None
        else "until a redrive policy moves it, or forever"
    )
    yield ctx.finding(
        queue if queue is not None else alone(c),
        Text(
            "{consumer}{of_queue}: its {handler} at {at} {returns}, and with {library} a message is deleted only "
            "when the handler returns it: every message is received and processed again after each visibility "
            "timeout, {after}",
            consumer=ctx.consumer_label(c),
            of_queue=of_queue(queue, ctx),
            handler=handler,
            at=ctx.where(at),
            returns=_SAID[returns],
            library=library_said(c, ctx),
            after=after,
        ),
        location=at,
        consumer=c,
        fix=Text(
            "Return the message from {handler} at {at} on success"
            + (" (the array of the messages processed)" if handler == "handleMessageBatch" else "")
            + ", or set alwaysAcknowledge: true in the options of Consumer.create.",
            handler=handler,
            at=ctx.where(at),
        ),
    )
