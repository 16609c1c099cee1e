"""What VG070-VG073 say about a consumer read from application code: a setting in the consumer's own terms (the
argument, the option, the config key), where it is written, and the visibility timeout in effect for it.

The (platform, source, field) -> words table belongs in ``visguard.linter.consumer_words`` (issue 24's table of
consumer-side words); it lives here until that module lands, with the same key shape so it moves as is.
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


def in_effect(c: Consumer, queue: Queue, vt: float) -> tuple[float, Text]:
    """The visibility timeout in effect for ``c``'s messages and what sets it: the consumer's override, or the
    queue's ``vt`` (the caller's ``ctx.visibility(queue)``; Go SDK v2 does not send a 0 on receive)."""
    o = c.visibility_override
    zero_not_sent = bool(c.settings.get("zero_not_sent")) and o == 0
    if isinstance(o, (int, float)) and not isinstance(o, bool) and not zero_not_sent:
        return float(o), Text(
            "{what} = {value} at {where}", what=term(c, "visibility_override"), value=fmt_seconds(o),
            where=place(c.location_of("visibility_override")),
        )  # fmt: skip
    return vt, Text(
        "the queue's {visibility_timeout} {value} at {where}",
        value=fmt_seconds(vt),
        where=place(queue.location_of("visibility_timeout")),
    )
