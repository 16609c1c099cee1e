"""Structured fixes (issue 14 §3): build them in rules, apply them to a model, and say them in the words of the
door a queue came from (§5).

A rule attaches ``Change`` objects (visguard.linter.model) to a finding when its fix is mechanical. ``apply``
returns a new model with the changes made (the property test lints it again: the finding is gone and no new
error appears); ``visguard lint --fix`` (linter/fix.py) writes the same changes into the template. ``words``
names a change as the input names it: CloudFormation properties for templates and cdk.out, API attributes for
the fleet audit, Terraform arguments for HCL (``visguard.linter.vocabulary.CHANGE_NAMES``).
"""

from __future__ import annotations

import copy
import json

from visguard import facts
from visguard.linter.model import Change, Consumer, Finding, Location, Model, Queue, Redrive
from visguard.linter.vocabulary import CHANGE_NAMES, change_name

# model field -> (CloudFormation property path on the resource, API attribute, Terraform argument), per scope
QUEUE_WORDS = {
    f: CHANGE_NAMES[f]
    for f in ("visibility_timeout", "message_retention", "delay", "redrive.max_receive_count", "redrive")
}
CONSUMER_WORDS = {
    f: CHANGE_NAMES[f]
    for f in ("report_batch_item_failures", "batch_size", "batching_window", "function_timeout")
}
# a worker consumer's settings (issue 24; scope "consumer", target a consumer id): (CloudFormation words, API
# words, Terraform words) of the infrastructure platform that writes each (visguard.linter.consumer_words); the
# fix adapters of those platforms read them, the Lambda mapping adapters never see them (CONSUMER_WORDS)
WORKER_FIELDS = (
    "visibility_override",
    "stop_timeout",
    "inactivity_timeout",
    "work_timeout",
    "heartbeat_interval",
)


def worker_words() -> dict[str, tuple[str, str, str]]:
    """A worker field -> its (CloudFormation, API, Terraform) words (linter.consumer_words, imported on use)."""
    from visguard.linter import consumer_words

    return {
        f: tuple(consumer_words.change_word(f, door) for door in ("cloudformation", "inventory", "terraform"))
        for f in WORKER_FIELDS
    }


# -------------------------------------------------------------------------------------------- building
def set_queue(queue: Queue, field: str, value) -> Change:
    if field == "redrive.max_receive_count":
        loc = (
            queue.locations.get(field)
            or (queue.redrive.location if queue.redrive else None)
            or queue.location
        )
    else:
        loc = queue.location_of(field)
    return Change("queue", queue.id, field, value, loc)


def set_consumer(c: Consumer, field: str, value) -> Change:
    return Change("consumer", c.id, field, value, c.location_of(field) or c.location)


def add_dlq(queue: Queue, model: Model, max_receive_count: int) -> Change:
    """A new dead-letter queue of the same type, keeping messages the 14-day maximum, and the redrive to it."""
    base = f"{queue.id}DLQ" if "/" not in queue.id and ":" not in queue.id else f"{queue.id}-dlq"
    dlq_id, n = base, 2
    while dlq_id in model.queues:
        dlq_id, n = f"{base}{n}", n + 1
    value = {"id": dlq_id, "max_receive_count": int(max_receive_count), "retention": int(facts.RETENTION.hi)}
    return Change("queue", queue.id, "redrive", value, queue.location)


def with_changes(finding: Finding, *changes: Change) -> Finding:
    return finding.replace(changes=tuple(c for c in changes if c is not None))


# -------------------------------------------------------------------------------------------- applying
def apply(model: Model, changes) -> Model:
    """A copy of ``model`` with ``changes`` made (the original is untouched)."""
    out = copy.deepcopy(model)
    for ch in changes:
        if ch.scope == "consumer":
            _apply_consumer(out, ch)
            continue
        q = out.queues[ch.target]
        if ch.field == "redrive":
            v = ch.value
            dlq = Queue(
                id=v["id"], location=Location(q.location.file), fifo=q.fifo, message_retention=v["retention"],
                source=q.source,
            )  # fmt: skip
            out.add(dlq)
            q.redrive = Redrive(dlq.id, dlq.id, v["max_receive_count"], q.location)
        elif ch.field == "redrive.max_receive_count":
            q.redrive.max_receive_count = ch.value
        else:
            setattr(q, ch.field, ch.value)
    return out


def _apply_consumer(model: Model, ch: Change) -> None:
    target = [c for q in model.queues.values() for c in q.consumers if c.id == ch.target]
    if ch.field == "function_timeout":  # a function's timeout is shared by all its mappings
        fns = {c.function_id for c in target}
        target = [c for q in model.queues.values() for c in q.consumers if c.function_id in fns]
    for c in target:
        if (
            ch.field == "inactivity_timeout"
        ):  # sqsd's InactivityTimeout: a setting, and the work limit it sets
            c.settings = {**c.settings, "inactivity_timeout": ch.value}
            if c.platform == "beanstalk":
                c.work_timeout = ch.value
        else:
            setattr(c, ch.field, ch.value)


# -------------------------------------------------------------------------------------------- words
def words(change: Change, source: str = "cloudformation") -> tuple[str, str]:
    """(name, value) of a change as the door ``source`` writes it: ``("VisibilityTimeout", "185")`` for a
    template, ``("visibility_timeout_seconds", "185")`` for Terraform."""
    if change.scope == "consumer" and change.field in WORKER_FIELDS:
        from visguard.linter import consumer_words

        name = consumer_words.change_word(change.field, source)
    else:
        name = change_name(change.field, source)
    v = change.value
    if change.field == "report_batch_item_failures":
        text = '["ReportBatchItemFailures"]' if v else "[]"
    elif change.field == "redrive":
        text = json.dumps(
            {"deadLetterTargetArn": f"<{v['id']} ARN>", "maxReceiveCount": v["max_receive_count"]}
        )
    elif isinstance(v, float) and v == int(v):
        text = str(int(v))
    else:
        text = str(v)
    return name, text


def describe(change: Change, source: str = "cloudformation") -> str:
    name, text = words(change, source)
    if change.field == "redrive":
        return f"add a dead-letter queue {change.value['id']} and set {change.target}'s {name} to {text}"
    return f"set {name} of {change.target} to {text}"
