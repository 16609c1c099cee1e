"""What VG070-VG073 say about a consumer read from application code: a setting in the consumer's own terms (the
argument, the option, the config key), where it is written, and the visibility timeout in effect for it.

These are the short forms a code rule writes as ``setting = value`` (``visibilityTimeout = 60 s``);
``visguard.linter.consumer_words`` holds the longer forms a fix sentence uses (``the visibilityTimeout option of
Consumer.create``), keyed the same way.
"""

from __future__ import annotations

from visguard.linter.model import Consumer, Location, Queue
from visguard.linter.rules._base import fmt_seconds
from visguard.linter.vocabulary import Text

# (platform, source, field) -> the setting as the consumer's code or configuration writes it; (platform, None,
# field) for every source of a framework; (None, source, field) for SDK calls of a language.
TERMS = {
    ("sdk", "python", "visibility_override"): "VisibilityTimeout (receive_message)",
    ("sdk", "javascript", "visibility_override"): "VisibilityTimeout (ReceiveMessage input)",
    ("sdk", "typescript", "visibility_override"): "VisibilityTimeout (ReceiveMessage input)",
    ("sdk", "java", "visibility_override"): "visibilityTimeout (ReceiveMessageRequest)",
    ("sdk", "go", "visibility_override"): "VisibilityTimeout (sqs.ReceiveMessageInput)",
    ("sdk", "csharp", "visibility_override"): "VisibilityTimeout (ReceiveMessageRequest)",
    ("sdk", "php", "visibility_override"): "VisibilityTimeout (receiveMessage)",
    ("sdk", "ruby", "visibility_override"): "visibility_timeout (receive_message)",
    ("sqs-consumer", None, "visibility_override"): "visibilityTimeout",
    ("sqs-consumer", None, "heartbeat_interval"): "heartbeatInterval",
    ("sqs-consumer", None, "work_timeout"): "handleMessageTimeout",
    ("spring", None, "visibility_override"): "messageVisibility",
    ("spring", None, "work_timeout"): "the listener's time limit",
    ("laravel", None, "work_timeout"): "queue:work --timeout (or the job's $timeout)",
    ("celery", None, "work_timeout"): "task_time_limit",
    ("celery", None, "visibility_override"): "visibility_timeout (broker_transport_options)",
    ("shoryuken", None, "visibility_override"): "visibility_timeout (receive options)",
}


def term(c: Consumer, field: str) -> str:
    """The words of ``field`` for consumer ``c`` (its own name when no better one is known)."""
    for key in ((c.platform, c.source, field), (c.platform, None, field), (None, c.source, field)):
        if key in TERMS:
            return TERMS[key]
    return field


def place(loc: Location | None) -> str:
    """``file:line`` (or the file) of a location."""
    if loc is None:
        return "?"
    return f"{loc.file}:{loc.line}" if loc.line else str(loc.file)


def label(c: Consumer) -> str:
    """``sqs-consumer consumer app/index.js:12`` (the platform, and where the consumer is written)."""
    return f"{c.platform or c.kind} consumer {c.id}" + (
        f" ({place(c.location)})" if c.location and place(c.location) not in str(c.id) else ""
    )


def in_effect(ctx, c: Consumer, queue: Queue) -> tuple[float | None, Text]:
    """The visibility timeout in effect for ``c``'s messages (``ctx.visibility_for``: the consumer's own, else the
    queue's; None when not a usable number) and what sets it, in the consumer's words."""
    vt, where = ctx.visibility_for(queue, c), place(ctx.visibility_where(queue, c))
    if ctx.overrides(c):
        return vt, Text(
            "{what} = {value} at {where}", what=term(c, "visibility_override"),
            value=fmt_seconds(vt) if vt is not None else "?", where=where,
        )  # fmt: skip
    return vt, Text(
        "the queue's {visibility_timeout} {value} at {where}",
        value=fmt_seconds(vt) if vt is not None else "?",
        where=where,
    )
