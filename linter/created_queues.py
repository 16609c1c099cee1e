"""Queues that exist because code creates them at run time (issue 35): a CreateQueue call of an AWS SDK, and the
queue Kombu's SQS transport creates for a Celery worker.

Such a queue is a :class:`~visguard.linter.model.Queue` of the code file's model (``source="code"``), located at
the call (or the Celery app's transport options), with ``created_by`` saying so: "created by <file:line> at run
time", which every finding's fix on it carries (``linter.api``). Its settings are the attributes the call passes
(``VisibilityTimeout``, ``MessageRetentionPeriod``, ``DelaySeconds``, ``FifoQueue``, ``RedrivePolicy`` parsed from
its JSON string), SQS's defaults for the others.

A queue declared by an input of the run (a template, Terraform, a shell script, an inventory) is the queue that
exists: a CreateQueue of an existing name creates nothing. So before the join (:func:`settle`, called by
``linter.consumers.join``):

- a code-created queue whose name a declared queue of the run has is dropped;
- a queue created under the name an environment variable gives (``$VAR``, :func:`env_id`) is dropped when a binding
  of the variable names a declared queue; else the consumers of the run that read the variable (no default) read it;
- the others are joined as any queue (``linter.consumers``): a test's creation too (tests create real queues
  against moto, LocalStack or ElasticMQ, and their consumers read them); where a consumer's reference fits the
  creations of several files, and none is of its own file, the join names every candidate;
- the queue Kombu would create for a Celery consumer (the consumer's ``settings["kombu_queue"]``, its id) is kept
  only when no other queue of the run has the name the consumer reads: then the consumer is attached to it.
  A name read from an environment variable is the one its applicable binding gives (a ``.env`` value is private:
  the queue is then named by the variable, ``$VAR``, never by the value), else the code's default; with neither,
  the queue is dropped and the consumer's note stays.

Kombu's facts (what it creates, its name translation) are ``visguard.facts.KOMBU_SQS_SOURCE``'s.
"""

from __future__ import annotations

import json

from visguard import facts
from visguard.linter.model import Location, Model, Queue, Redrive

SOURCE = "code"  # Queue.source of a queue created at run time
COMPUTED_TARGET = "<computed by the code>"  # a dead-letter target the code computes (rules: unresolved)
# an attribute's API name -> the Queue field it sets
ATTRIBUTES = {
    "VisibilityTimeout": "visibility_timeout",
    "MessageRetentionPeriod": "message_retention",
    "DelaySeconds": "delay",
}


def _place(loc: Location) -> str:
    return f"{loc.file}:{loc.line}" if loc.line else loc.file


def created_by(loc: Location, by: str, advice: str = "") -> str:
    """The sentence a finding's fix on a run-time queue ends with: where and by what it is created, and how."""
    advice = advice or (
        "set the attribute in the Attributes that call passes, or declare the queue (with its dead-letter queue) "
        "in the infrastructure code"
    )
    return f"The queue is created by {_place(loc)} at run time ({by}): {advice}."


KOMBU_ADVICE = (
    "Kombu creates it with a VisibilityTimeout (broker_transport_options visibility_timeout) and nothing else, so "
    "declare the queue with its dead-letter queue in the infrastructure code (and name it in predefined_queues), "
    "see " + facts.KOMBU_SQS_DOCS
)


UNNAMED_PREFIX = "<name built at "  # the id of a queue whose name is known only at run time (unnamed_id)


def unnamed_id(loc: Location) -> str:
    """The id of a queue created at ``loc`` under a name known only at run time (``"test-#{SecureRandom.uuid}"``,
    a helper's parameter): named by where it is built, never a name another queue or reference can have."""
    return f"{UNNAMED_PREFIX}{_place(loc)}>"


ENV_PREFIX = "$"  # the id of a queue created under the name an environment variable gives (env_id)


def env_id(var: str) -> str:
    """The id of a queue created under the name (or the URL's last segment) the environment variable ``var``
    holds: ``$VAR``, the queue every consumer reading ``var`` reads when no input of the run names another."""
    return f"{ENV_PREFIX}{var}"


def code_queue(
    name: str | None, loc: Location, attributes: dict, by: str = "a CreateQueue call"
) -> tuple[Queue, list[str]]:
    """The queue a CreateQueue call of ``name`` at ``loc`` creates, and what of its ``attributes`` was not read.

    ``name`` None: a name known only at run time. The queue is still the one declared at that call (id
    :func:`unnamed_id`, ``name`` None): rules that judge it alone run on it; no join by name picks it (only a
    consumer of the very binding the call's name is, ``linter.loaders.code.creates``).

    ``attributes``: API name -> (value, Location): a number, a string (``"60"``, the RedrivePolicy's JSON, "true"),
    a bool, or None for a value the code computes (named in the returned list)."""
    qid = name if name is not None else unnamed_id(loc)
    q = Queue(id=qid, location=loc, name=name, source=SOURCE, created_by=created_by(loc, by))
    q.locations["name"] = loc
    q.fifo = bool(name and name.endswith(".fifo"))
    unread = []
    for key, (value, at) in attributes.items():
        if key in ATTRIBUTES:
            n = _number(value)
            if n is None:  # kept as written: no rule judges a value it cannot read
                unread.append(key)
                n = (
                    value
                    if isinstance(value, str) and value.startswith("<")
                    else f"<computed: {value!r:.60}>"
                )
            setattr(q, ATTRIBUTES[key], n)
            q.locations[ATTRIBUTES[key]] = at
        elif key == "FifoQueue":
            q.fifo = value is True or str(value).strip().lower() == "true"
            q.locations["fifo"] = at
        elif key == "RedrivePolicy":  # written: a policy, whose target (or all of it) may not be read
            r = redrive(value, at)
            if r is None:
                unread.append(key)
                r = Redrive(target=None, target_ref=COMPUTED_TARGET, max_receive_count=None, location=at)
            q.redrive = r
            q.locations["redrive"] = at
    return q, unread


def _number(value) -> int | float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) <= 15:
        return int(value.strip())
    return None


def redrive(value, at: Location) -> Redrive | None:
    """A RedrivePolicy attribute (its JSON string, or a dict the code writes) as a Redrive; None when not read."""
    if isinstance(value, str):
        if len(value) > 10_000:
            return None
        try:
            value = json.loads(value)
        except ValueError:
            return None
    if not isinstance(value, dict):
        return None
    target = value.get("deadLetterTargetArn")
    count = _number(value.get("maxReceiveCount"))
    if not isinstance(target, str) or not target:
        target = COMPUTED_TARGET
    return Redrive(target=None, target_ref=target, max_receive_count=count, location=at)


# ----------------------------------------------------------------------------------------------- Kombu
_PUNCTUATION = {ord(c): "_" for c in "!\"#$%&'()*+,/:;<=>?@[\\]^`{|}~"}
_PUNCTUATION[ord(".")] = "-"


def kombu_name(prefix: str, name: str) -> str:
    """The SQS name Kombu gives a Celery queue (``Channel.canonical_queue_name``): prefix + name, '.' as '-', other
    punctuation but '-' and '_' as '_', a ``.fifo`` suffix kept."""
    full = prefix + name
    if full.endswith(".fifo"):
        return full[:-5].translate(_PUNCTUATION) + ".fifo"
    return full.translate(_PUNCTUATION)


def kombu_queue(
    qid: str, name: str | None, loc: Location, visibility, visibility_at: Location | None
) -> Queue:
    """The queue Kombu creates for a Celery worker: ``visibility`` from the transport options (Kombu's default when
    None), FIFO by its name, no redrive policy."""
    q = Queue(
        id=qid,
        location=loc,
        name=name,
        source=SOURCE,
        created_by=created_by(loc, "by Kombu at worker start", KOMBU_ADVICE),
    )
    q.fifo = bool(name and name.endswith(".fifo"))
    q.visibility_timeout = facts.CELERY_SQS_VISIBILITY_DEFAULT if visibility is None else visibility
    q.locations["visibility_timeout"] = visibility_at or loc
    return q


# ----------------------------------------------------------------------------------------------- the settling
def settle(models: list[Model]) -> None:
    """Keep the run-time queues that are the queues their code uses (see the module docstring)."""
    created = [(m, q) for m in models for q in m.queues.values() if q.source == SOURCE]
    if not created:
        return
    from visguard.linter import consumers

    kombu = {
        (id(m), c.settings["kombu_queue"]): c
        for m in models
        for c in m.pending
        if c.settings.get("kombu_queue")
    }
    declared = consumers.QueueIndex([_without(m, SOURCE) for m in models])
    # CreateQueue calls: a declared queue of the name wins (a test's creation is kept: the join decides)
    for m, q in created:
        if (id(m), q.id) not in kombu and declared.by_name.get(q.name):
            del m.queues[q.id]
    # Kombu's queues: only where no queue of the run has the consumer's name
    others = consumers.QueueIndex([_without(m, None, kombu, id(m)) for m in models])
    env = consumers._bindings(models)
    _settle_env_named(models, [(m, q) for m, q in created if (id(m), q.id) not in kombu], declared, env)
    for m in models:
        for c in list(m.pending):
            qid = c.settings.get("kombu_queue")
            q = m.queues.get(qid) if qid else None
            if q is None:
                continue
            name = _kombu_target(c, q, m, others, env)
            if name is None:
                del m.queues[qid]
                continue
            if name != q.id:
                del m.queues[qid]
                if name in m.queues:  # another app of the file reads it too: one queue
                    q = m.queues[name]
                    q.consumers.append(c)
                    m.pending.remove(c)
                    continue
                q.id = name
                m.queues[name] = q
                if not name.startswith("$"):  # a name the run says in the open (else: the variable's)
                    q.name, q.fifo = name, name.endswith(".fifo")
            q.consumers.append(c)
            m.pending.remove(c)


def _settle_env_named(models: list[Model], created: list, declared, env: dict) -> None:
    """A queue created under the name an environment variable gives (``$VAR``, :func:`env_id`): where a binding of
    the run names a declared queue for it, that queue is the one (the create changes nothing); else the consumers
    of the run that read ``VAR`` (without a default) read it (the first such create of the run, where several
    files create it)."""
    taken: set[str] = set()
    for m, q in created:
        if not q.id.startswith(ENV_PREFIX) or q.id not in m.queues:
            continue
        var = q.id[len(ENV_PREFIX) :]
        bound = env.get(var, [])
        if var in taken or any(
            (b.queue is not None and b.queue in bm.queues and bm.queues[b.queue].source != SOURCE)
            or (b.ref is not None and declared.candidates(b.ref, None))
            for bm, b in bound
        ):
            del m.queues[q.id]  # a declared queue is the one; or another file's create of it is
            continue
        taken.add(var)
        for cm in models:  # (a binding that names a queue no input declares: the queue this create makes)
            for c in list(cm.pending):
                ref = c.queue_ref
                if ref is not None and ref.kind == "env" and ref.value == var and ref.fallback is None:
                    q.consumers.append(c)
                    cm.pending.remove(c)


def _without(m: Model, source: str | None, kombu=None, mid=None) -> Model:
    """A view of ``m`` without its queues of ``source`` (None: without Kombu's own)."""
    out = Model(source_file=m.source_file)
    for k, q in m.queues.items():
        if (source is not None and q.source == source) or (kombu is not None and (mid, k) in kombu):
            continue
        out.queues[k] = q
    return out


def _kombu_target(c, q: Queue, m: Model, others, env) -> str | None:
    """The id of the queue Kombu creates for ``c``, or None when another queue of the run is the one it reads, or
    its name is not known (an environment variable with no binding and no default)."""
    from visguard.linter import consumers

    ref = c.queue_ref
    if ref is None:
        return None
    if ref.kind != "env":
        return None if others.candidates(ref, None) else q.id
    bound = consumers._applicable(env.get(ref.value, []), c)
    names = []
    for bm, b in bound:
        if b.queue is not None and b.queue in bm.queues:
            return None  # the binding names a queue of its own input
        if b.ref is None:
            continue
        if others.candidates(b.ref, None):
            return None
        names.append(b.ref)
    if names:
        public = {r.value for r in names if not r.private and r.kind == "name"}
        if len(public) == 1 and len(names) == 1:
            return public.pop()
        return f"${ref.value}"
    if ref.fallback is not None and ref.fallback.kind == "name":
        return None if others.candidates(ref.fallback, None) else ref.fallback.value
    return None
