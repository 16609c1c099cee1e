"""The words of each input kind, and the one function that puts a finding into them.

A rule says what it found as a :class:`Text`: a template (``str.format`` fields) and its arguments. A field that
is not an argument is a symbolic key of a setting or a snippet (``visibility_timeout``, ``batch_size``,
``add_redrive``...), and the vocabulary of the input the queue came from names it: ``VisibilityTimeout`` in a
template, ``visibility_timeout_seconds`` (or the module input it is written as) in Terraform,
``resources.Resources.OrdersQueue.Properties.VisibilityTimeout`` in serverless.yml,
``visibility_timeout=Duration.seconds(360)`` for a CDK app. A vocabulary may also word a whole sentence its own
way (a template id it knows: the audit says the mapping exists; Terraform writes ``name = value``).

:func:`word` is called once per finding, where ``lint_model`` finalises the findings of a queue; nothing re-words
a finding afterwards. The catalogue (``visguard rules``, ``explain``, SARIF rule metadata) reads the rules' fixes
in CloudFormation words (:func:`catalogue`).

Names a ``Change`` field has per door (``visguard lint --fix`` messages, the audit's API calls) are in
:data:`CHANGE_NAMES`. A worker consumer's settings (``{stop_timeout}``, ``{visibility_override}``...) are worded
in the consumer's own terms, whatever the queue's input: ``visguard.linter.consumer_words``.
"""

from __future__ import annotations

import re

from visguard.linter.model import Finding, Location, Queue

__all__ = ["JOINED_BY", "Text", "Of", "word", "render", "catalogue", "change_name", "VOCABULARIES"]

# a finding whose consumer was joined to its queue through an environment binding says where that binding is
JOINED_BY = "joined to the queue by the environment binding at {place}"


class Text:
    """A message or fix before it is worded: ``template`` with ``args``; ``id`` lets a vocabulary word the whole
    sentence its own way (``VG010.message``, ``raise_visibility``)."""

    __slots__ = ("id", "template", "args")

    def __init__(self, template: str, id: str | None = None, **args):
        self.id = id
        self.template = template
        self.args = args

    def __repr__(self) -> str:
        return f"Text({self.template!r}, id={self.id!r}, **{self.args!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Text) and (self.id, self.template, self.args) == (
            other.id,
            other.template,
            other.args,
        )

    __hash__ = None  # type: ignore[assignment]


class Of:
    """A setting of another queue than the finding's (``OrdersDLQ's MessageRetentionPeriod``)."""

    __slots__ = ("key", "queue")

    def __init__(self, key: str, queue: Queue):
        self.key = key
        self.queue = queue


class Scene:
    """What a word may depend on: the finding's queue, where the finding points, its consumer, the template's
    arguments, and whether a message or a fix is being worded."""

    __slots__ = ("queue", "location", "consumer", "args", "part", "used")

    def __init__(self, queue: Queue, location: Location | None, consumer_id: str | None, part: str):
        self.queue = queue
        self.location = location
        self.consumer = (
            next((c for c in queue.consumers if c.id == consumer_id), None) if consumer_id else None
        )
        self.args: dict = {}
        self.part = part
        self.used: set[str] = set()  # the keys worded so far (Serverless: a Lift queue's timeout)


# ----------------------------------------------------------------------------------------------- CloudFormation
CLOUDFORMATION = {
    "visibility_timeout": "VisibilityTimeout",
    "retention": "MessageRetentionPeriod",
    "delay": "DelaySeconds",
    "max_receive_count": "maxReceiveCount",
    "redrive_max_receive_count": "RedrivePolicy.maxReceiveCount",
    "dead_letter_target": "RedrivePolicy.deadLetterTargetArn",
    "dlq_arn_example": "!GetAtt OrdersDLQ.Arn",
    "add_redrive": "Add RedrivePolicy {deadLetterTargetArn: !GetAtt <Name>DLQ.Arn, maxReceiveCount: 5}",
    "fifo_true": "FifoQueue: true",
    "batch_size": "BatchSize",
    "batching_window": "MaximumBatchingWindowInSeconds",
    "max_concurrency": "MaximumConcurrency",
    "max_concurrency_at": "ScalingConfig.MaximumConcurrency on the mapping",
    # provisioned mode (issue 36)
    "provisioned_poller_config": "ProvisionedPollerConfig",
    "min_pollers": "ProvisionedPollerConfig.MinimumPollers",
    "max_pollers": "ProvisionedPollerConfig.MaximumPollers",
    "partial_batch": "FunctionResponseTypes: [ReportBatchItemFailures] on the event source mapping",
    "function_timeout": "the function Timeout",
    "reserved_concurrency": "the function's ReservedConcurrentExecutions",
    "capacity_provider": "CapacityProviderConfig",
    "durable_execution_timeout": "DurableConfig.ExecutionTimeout",
    "suppress_example": 'Metadata: {visguard: {suppress: [{rule: VG020, reason: "why this is safe"}]}}',
}


class Vocabulary:
    """CloudFormation's words (templates, SAM, cdk.out, visguard.yaml queues); the other inputs override them.

    ``name`` words a key in a message, ``address`` in a fix (where to write it), ``of`` a setting of another
    queue; ``templates`` maps a template id to this input's own sentence (a format string, or a function of the
    scene); ``finish`` may frame a worded fix (Serverless Lift)."""

    words: dict = CLOUDFORMATION
    templates: dict = {}  # noqa: RUF012 - read only

    def name(self, key: str, scene: Scene) -> str:
        return self.words[key]

    def address(self, key: str, scene: Scene) -> str:
        return self.name(key, scene)

    def of(self, key: str, queue: Queue, scene: Scene) -> str:
        return f"{queue.id}'s {self.address(key, scene)}"

    def finish(self, text: str, scene: Scene) -> str:
        return text


class _Fields(dict):
    """``str.format_map`` lookups: an argument as given (a nested Text worded, an ``Of`` named), anything else a
    key of the vocabulary."""

    def __init__(self, vocab: Vocabulary, scene: Scene):
        super().__init__()
        self.vocab, self.scene = vocab, scene

    def __missing__(self, key: str):
        scene = self.scene
        if key in scene.args:
            v = scene.args[key]
            if isinstance(v, Text):
                return render(v, self.vocab, scene)
            if isinstance(v, Of):
                scene.used.add(v.key)
                return self.vocab.of(v.key, v.queue, scene)
            return v
        scene.used.add(key)
        from visguard.linter import consumer_words  # imported when a finding is worded, not at start-up

        own = consumer_words.for_consumer(key, scene.consumer)  # a worker consumer's setting: its own words
        if own is not None:
            return own
        if scene.part == "message":
            return self.vocab.name(key, scene)
        return self.vocab.address(key, scene)


def render(text: Text, vocab: Vocabulary, scene: Scene) -> str:
    """``text`` in ``vocab``'s words (nested Texts share the scene: their arguments come first)."""
    outer = scene.args
    scene.args = {**outer, **text.args}
    try:
        template = vocab.templates.get(text.id, text.template) if text.id else text.template
        if callable(template):
            return template(scene)
        return template.format_map(_Fields(vocab, scene))
    finally:
        scene.args = outer


def word(f: Finding, queue: Queue, vocabulary: str | None = None) -> Finding:
    """The finding ``f`` on ``queue`` with its message and fix in the words of ``vocabulary`` (default: the
    input the queue came from, ``queue.source``). Strings are left as they are (already words)."""
    key = vocabulary or queue.source
    if key == "cdk" and vocabulary is None:  # a CDK app read from its source: the words of its language
        key = cdk_language(getattr(queue.location, "file", None))
    vocab = VOCABULARIES.get(key) or VOCABULARIES["cloudformation"]
    message, fix = f.message, f.fix
    if isinstance(message, Text):
        message = render(message, vocab, Scene(queue, f.location, f.consumer, "message"))
    if isinstance(fix, Text):
        scene = Scene(queue, f.location, f.consumer, "fix")
        fix = vocab.finish(render(fix, vocab, scene), scene)
    if message is f.message and fix is f.fix:
        return f
    return f.replace(message=message, fix=fix)


def catalogue(template: str) -> str:
    """A rule's fix as the catalogue shows it (CloudFormation's words, no queue)."""
    return template.format_map(_Static(CLOUDFORMATION))


class _Static(dict):
    def __init__(self, words: dict):
        super().__init__()
        self.words = words

    def __missing__(self, key: str):
        if key in self.words:
            return self.words[key]
        from visguard.linter import consumer_words

        return consumer_words.word(key)


class _Seen(dict):
    """The fields a ``str.format_map`` asks for (``keys``), each answered with an empty text."""

    def __missing__(self, key: str) -> str:
        self.setdefault("", set()).add(key)
        return ""


def keys(template: str) -> set[str]:
    """The fields of a template (tests: every key a rule uses has a word in every vocabulary). By ``format_map``,
    not ``string.Formatter``: the ``string`` module is an import (~1 ms) at every start for a test-only helper."""
    seen = _Seen()
    template.format_map(seen)
    return seen.get("", set())


# ----------------------------------------------------------------------------------------------- Terraform
TERRAFORM = {
    "visibility_timeout": "visibility_timeout_seconds",
    "retention": "message_retention_seconds",
    "delay": "delay_seconds",
    "max_receive_count": "maxReceiveCount",
    "redrive_max_receive_count": "maxReceiveCount in redrive_policy",
    "dead_letter_target": "deadLetterTargetArn in redrive_policy",
    "dlq_arn_example": "aws_sqs_queue.<name>.arn",
    "add_redrive": (
        "Add redrive_policy = jsonencode({ deadLetterTargetArn = aws_sqs_queue.<name>_dlq.arn, "
        "maxReceiveCount = 5 })"
    ),
    "fifo_true": "fifo_queue = true",
    "batch_size": "batch_size",
    "batching_window": "maximum_batching_window_in_seconds",
    "max_concurrency": "scaling_config.maximum_concurrency",
    "max_concurrency_at": "scaling_config.maximum_concurrency on the mapping",
    # provisioned mode (issue 36)
    "provisioned_poller_config": "provisioned_poller_config",
    "min_pollers": "provisioned_poller_config.minimum_pollers",
    "max_pollers": "provisioned_poller_config.maximum_pollers",
    "partial_batch": 'function_response_types = ["ReportBatchItemFailures"] on the event source mapping',
    "function_timeout": "the function's timeout",
    "reserved_concurrency": "the function's reserved_concurrent_executions",
    "capacity_provider": "capacity_provider_config",
    "durable_execution_timeout": "durable_config.execution_timeout",
    "suppress_example": "# visguard:ignore VG020 why this is safe (a comment on the resource)",
}
# model field -> the AWS provider's argument (the Terraform loader's notes of values not known here)
TERRAFORM_NOTES = {
    "visibility_timeout": "visibility_timeout_seconds",
    "message_retention": "message_retention_seconds",
    "delay": "delay_seconds",
    "fifo": "fifo_queue",
    "redrive_allow": "redrive_allow_policy",
    "redrive": "redrive_policy",
    "batch_size": "batch_size",
    "batching_window": "maximum_batching_window_in_seconds",
    "report_batch_item_failures": "function_response_types",
    "reserved_concurrency": "reserved_concurrent_executions",
    "max_concurrency": "scaling_config.maximum_concurrency",
    "function_timeout": "timeout",
    "max_receive_count": "maxReceiveCount in redrive_policy",
}
# key -> the model field whose written name (a module input, a variable) a finding on it uses
_TERRAFORM_FIELDS = {
    "visibility_timeout": "visibility_timeout",
    "retention": "message_retention",
    "delay": "delay",
    "batch_size": "batch_size",
    "batching_window": "batching_window",
    "max_concurrency": "max_concurrency",
}
_RESOURCE = r"(^|\.)aws_[a-z0-9_]+\.[^./]+"  # compiled by the re module's cache on first use


def written_name(scene: Scene, field: str | None) -> str | None:
    """The name written where the finding points, when that is where ``field`` got its value and it is not the
    resource argument itself: a module input (``visibility_timeout``), a variable in a .tfvars file, or a
    variable's default."""
    if field is None:
        return None
    q = scene.queue
    locs: list[Location] = [q.locations[field]] if field in q.locations else []
    locs += [c.locations[field] for c in q.consumers if field in c.locations]
    for loc in locs:
        if loc != scene.location or not loc.path or "/" not in loc.path:
            continue
        owner, name = loc.path.rsplit("/", 1)
        if re.search(_RESOURCE, owner):
            return None  # the resource's own argument: the provider's name
        if name == "default":
            return f"the default of {owner}"
        if owner == "locals":
            return f"local.{name}"
        return name.rsplit(".", 1)[-1]
    return None


def _awscc(scene: Scene, word: str) -> str:
    """``word`` for a queue of the Cloud Control provider (``awscc_sqs_queue``): its own argument names
    (``visibility_timeout``, ``message_retention_period``) and resource type, as ``--fix`` writes them."""
    if "awscc_" not in scene.queue.id:
        return word
    from visguard.linter.loaders.terraform import awscc  # only for such a queue

    rtype = next((p for p in reversed(scene.queue.id.split(".")) if p.startswith("awscc_")), "")
    own = awscc.RESOURCES.get(rtype, ("", {}))[1]
    return own.get(word) or word.replace("aws_sqs_queue.", "awscc_sqs_queue.")


def _terraform_raise(scene: Scene) -> str:
    """``Set visibility_timeout_seconds = 360 (at least 6 x 60 s = 360 s (6 min)).``: HCL assigns a value."""
    name = written_name(scene, "visibility_timeout") or _awscc(scene, TERRAFORM["visibility_timeout"])
    value = scene.args["value"]
    setting = f"{name} to {value}" if name.startswith("the default") else f"{name} = {value}"
    return f"Set {setting} (at least {scene.args['how']})."


class Terraform(Vocabulary):
    words = TERRAFORM
    templates = {"raise_visibility": _terraform_raise}  # noqa: RUF012

    def name(self, key: str, scene: Scene) -> str:
        if key == "max_concurrency_at":  # the argument, where it is written
            return f"{self.name('max_concurrency', scene)} on the mapping"
        if key == "reserved_concurrency":
            return f"the function's {written_name(scene, key) or 'reserved_concurrent_executions'}"
        return _awscc(scene, written_name(scene, _TERRAFORM_FIELDS.get(key)) or self.words[key])


# ----------------------------------------------------------------------------------------------- Serverless
# mapping keys -> (the sqs event's key, the Lift construct's key)
_EVENT_KEYS = {
    "batch_size": ("batchSize", "batchSize"),
    "batching_window": ("maximumBatchingWindow", "maxBatchingWindow"),
    "max_concurrency": ("maximumConcurrency", "maxConcurrency"),
}


# a function's settings in serverless.yml (functions.<name>.<key>); the Framework documents no durable functions
_FUNCTION_KEYS = {
    "function_timeout": "timeout",
    "reserved_concurrency": "reservedConcurrency",
    "capacity_provider": "capacityProvider",
}

# provisioned-mode keys -> the consumer field whose location names the override that sets them (issue 36)
_POLLER_KEYS = {
    "min_pollers": "min_pollers",
    "max_pollers": "max_pollers",
    "provisioned_poller_config": "provisioned",
}


class Serverless(Vocabulary):
    """serverless.yml: queues are CloudFormation resources (``resources.Resources.X.Properties...``) or Lift
    constructs (``constructs.jobs``); a subscription is an ``events[].sqs`` of a function, or a Lift worker."""

    def name(self, key: str, scene: Scene) -> str:
        c = scene.consumer
        if c is not None and key in _EVENT_KEYS:
            return _EVENT_KEYS[key][c.id.startswith("constructs.")]
        if c is not None and c.function_id and key == "capacity_provider":
            return f"functions.{c.function_id}.{_FUNCTION_KEYS[key]}"
        return self.words[key]

    @staticmethod
    def _lift(queue: Queue) -> str | None:
        return (
            queue.id[len("constructs.") :].removesuffix(".dlq")
            if queue.id.startswith("constructs.")
            else None
        )

    @staticmethod
    def properties(queue: Queue) -> str:
        """Where the queue's CloudFormation properties are written."""
        if queue.id.startswith("constructs."):
            lift = queue.id[len("constructs.") :]
            if lift.endswith(".dlq"):
                return f"constructs.{lift[: -len('.dlq')]}.extensions.dlq.Properties"
            return f"constructs.{lift}.extensions.queue.Properties"
        path = queue.location.path or ""
        if path.startswith("resources") and path.endswith(f".{queue.id}"):
            return f"{path}.Properties"
        return f"resources.Resources.{queue.id}.Properties"

    def address(self, key: str, scene: Scene) -> str:
        q, c = scene.queue, scene.consumer
        lift = self._lift(q)
        props = self.properties(q)
        if key in ("visibility_timeout", "retention", "delay"):
            return f"{props}.{self.words[key]}"
        if key in ("max_receive_count", "redrive_max_receive_count"):
            if lift:
                return f"constructs.{lift}.maxRetries"
            return (
                f"{props}.RedrivePolicy.maxReceiveCount" if key != "max_receive_count" else "maxReceiveCount"
            )
        if key == "dead_letter_target" and not lift:
            return f"{props}.RedrivePolicy.deadLetterTargetArn"
        if key == "add_redrive":
            return f"Add to {props}: {self.words[key][len('Add ') :]}"
        on_lift = c is not None and c.id.startswith("constructs.")
        if c is not None and on_lift and lift:
            lifted = {
                "partial_batch": "partial batch responses (Lift turns them on)",
                "batching_window": f"constructs.{lift}.maxBatchingWindow",
                "max_concurrency_at": f"constructs.{lift}.maxConcurrency",
                "batch_size": f"constructs.{lift}.batchSize",
            }
            if key in lifted:
                return lifted[key]
        elif c is not None:
            sqs = f"{c.id}.sqs"
            event = {
                "partial_batch": f"functionResponseType: ReportBatchItemFailures on {sqs}",
                "batching_window": f"{sqs}.maximumBatchingWindow",
                "max_concurrency_at": f"{sqs}.maximumConcurrency",
                "batch_size": f"{sqs}.batchSize",
            }
            if key in event:
                return event[key]
        if (
            c is not None and key in _POLLER_KEYS
        ):  # no sqs event key: the mapping's resources.Resources override
            loc = c.locations.get(_POLLER_KEYS[key]) or c.locations.get("provisioned")
            path = loc.path if loc is not None and loc.path else ""
            if path.startswith("resources.Resources."):
                head = path.split(".Properties.", 1)[0]
                return f"{head}.Properties.{self.words[key]}"
            return (
                f"{self.words[key]} in a resources.Resources override of the mapping (the sqs event has no "
                "key for it)"
            )
        if c is not None and c.function_id and key in _FUNCTION_KEYS:
            fn = f"constructs.{lift}.worker" if on_lift and lift else f"functions.{c.function_id}"
            return f"{fn}.{_FUNCTION_KEYS[key]}"
        return self.words[key]

    def of(self, key: str, queue: Queue, scene: Scene) -> str:
        if key == "retention":
            return f"{self.properties(queue)}.{self.words[key]}"
        return super().of(key, queue, scene)

    def finish(self, text: str, scene: Scene) -> str:
        """A fix that sets a Lift queue's visibility timeout says first how Lift derives it."""
        q = scene.queue
        lift = self._lift(q)
        if not lift or q.id.endswith(".dlq") or "visibility_timeout" not in scene.used:
            return text
        own = text[:1].lower() + text[1:]
        if scene.consumer is not None and scene.consumer.id == f"constructs.{lift}.worker":
            return (
                f"Lift sets the visibility timeout to 6 x constructs.{lift}.worker.timeout + maxBatchingWindow, "
                "with 6 s when the worker sets no timeout (provider.timeout is not used): set "
                f"constructs.{lift}.worker.timeout to the function's real timeout, or {own}"
            )
        return (
            f"Lift derives this queue's visibility timeout from its worker only (6 x constructs.{lift}."
            f"worker.timeout + maxBatchingWindow), not from other consumers: {own}"
        )


# ----------------------------------------------------------------------------------------------- CDK
def duration_expr(seconds: float) -> str:
    """A whole number of seconds as the CDK Duration a user would write: hours, minutes, else seconds."""
    n = int(seconds) if seconds == int(seconds) else int(seconds) + 1
    if n and n % 3600 == 0:
        return f"Duration.hours({n // 3600})"
    if n and n % 60 == 0:
        return f"Duration.minutes({n // 60})"
    return f"Duration.seconds({n})"


def heartbeat_fix(extend_by: int, interval: int, *, guarded: bool, split: bool = False) -> str:
    """A heartbeat plan (the workers call ChangeMessageVisibility(extend_by) every interval) in CDK terms; with
    ``split`` the advice for work that runs past the 12-hour cap even with a heartbeat."""
    calls = (
        f"the workers call ChangeMessageVisibility({extend_by}) every {interval} s while processing, asking for "
        "at most 43200 s minus the time since the receive (the 12-hour cap is not reset)"
    )
    if guarded:
        text = (
            f"add_worker_consumer(..., heartbeat_interval={duration_expr(interval)}, "
            f"heartbeat_extend_by={duration_expr(extend_by)}), where {calls}; with visibility_timeout left out, "
            f"GuardedQueue then derives {duration_expr(extend_by)} from the heartbeat."
        )
    else:
        text = f"visibility_timeout={duration_expr(extend_by)} on the aws_sqs.Queue, and {calls}."
    if split:
        text += (
            " Some work still runs past 12 h: split the work into steps (Step Functions) or checkpoint it."
        )
    return text


class Cdk(Vocabulary):
    """A CDK app (cdk.out, the CDK validation report): messages keep the synthesized template's words; fixes
    name the construct properties a CDK user writes, on an ``aws_sqs.Queue`` (``guarded``: a GuardedQueue)."""

    guarded = False

    def __init__(self) -> None:
        g = self.guarded
        self.templates = {
            "raise_visibility": lambda s: (
                f"visibility_timeout=Duration.seconds({s.args['value']}) on the GuardedQueue, or leave "
                "visibility_timeout out and GuardedQueue derives it from the consumers you add."
                if g
                else f"visibility_timeout=Duration.seconds({s.args['value']}) on the aws_sqs.Queue."
            ),
            "heartbeat": lambda s: heartbeat_fix(
                s.args["extend_by"], s.args["interval"], guarded=g, split=s.args["split"]
            ),
            "lower_visibility": lambda s: (
                f"visibility_timeout=Duration.seconds({s.args['value']}), or leave visibility_timeout out "
                "(derived from the consumers); for long jobs add_worker_consumer(..., heartbeat_interval=...)."
                if g
                else f"visibility_timeout=Duration.seconds({s.args['value']}) on the aws_sqs.Queue."
            ),
            "VG020.fix": (
                "visguard.constructs.GuardedQueue (a DLQ of the same type, 14 days, max_receive_count=5), or "
                "dead_letter_queue=sqs.DeadLetterQueue(queue=dlq, max_receive_count=5) on the aws_sqs.Queue."
            ),
            "VG021.fix": (
                "GuardedQueue(..., max_receive_count=5) (the default)."
                if g
                else "sqs.DeadLetterQueue(queue=dlq, max_receive_count=5)."
            ),
            "VG022.fix": (
                "leave the DLQ's retention at GuardedQueue's 14 days (no retention_period in "
                "dead_letter_queue_props), and keep the queue's retention_period shorter."
                if g
                else "retention_period=Duration.days(14) on the dead-letter queue, longer than the source's."
            ),
            "VG030.fix": (
                "batch_size above 10 needs max_batching_window=Duration.seconds(1) or more; a FIFO queue takes no "
                "max_batching_window."
            ),
            "VG031.fix": (
                "add_lambda_consumer(fn, ..., report_batch_item_failures=True) and return batchItemFailures."
                if g
                else "SqsEventSource(queue, ..., report_batch_item_failures=True) and return batchItemFailures."
            ),
            "VG032.fix": lambda s: (
                f"timeout=Duration.seconds({s.args.get('limit', '900')}) at most on the lambda_.Function"
                f"{s.args.get('on', '')}; move longer work to a worker fleet."
            ),
        }


class GuardedQueue(Cdk):
    guarded = True


# a CDK app's TypeScript/JavaScript source (the cdk-source loader): CDK's own camelCase names
_TS_ENDINGS = (".ts", ".mts", ".cts", ".tsx", ".js", ".mjs", ".cjs")


def cdk_language(file: str | None) -> str:
    """The vocabulary of a CDK app read from ``file``: ``cdk-typescript`` for TypeScript/JavaScript source, else
    ``cdk`` (Python source, a cdk.out assembly, the CDK plugin: the Python words)."""
    return "cdk-typescript" if file and file.endswith(_TS_ENDINGS) else "cdk"


def heartbeat_fix_ts(extend_by: int, interval: int, *, split: bool = False) -> str:
    """:func:`heartbeat_fix` in TypeScript CDK terms."""
    text = (
        f"visibilityTimeout: {duration_expr(extend_by)} on the sqs.Queue, and the workers call "
        f"ChangeMessageVisibility({extend_by}) every {interval} s while processing, asking for at most 43200 s "
        "minus the time since the receive (the 12-hour cap is not reset)."
    )
    if split:
        text += (
            " Some work still runs past 12 h: split the work into steps (Step Functions) or checkpoint it."
        )
    return text


class CdkTypeScript(Vocabulary):
    """A CDK app read from its TypeScript/JavaScript source: messages keep the synthesized template's words; fixes
    name the construct properties as TypeScript writes them (``visibilityTimeout: Duration.seconds(N)``)."""

    templates = {  # noqa: RUF012 - read only
        "raise_visibility": lambda s: (
            f"visibilityTimeout: Duration.seconds({s.args['value']}) on the sqs.Queue."
        ),
        "heartbeat": lambda s: heartbeat_fix_ts(
            s.args["extend_by"], s.args["interval"], split=s.args["split"]
        ),
        "lower_visibility": lambda s: (
            f"visibilityTimeout: Duration.seconds({s.args['value']}) on the sqs.Queue."
        ),
        "VG020.fix": "deadLetterQueue: {{ queue: dlq, maxReceiveCount: 5 }} on the sqs.Queue.",
        "VG021.fix": "deadLetterQueue: {{ queue: dlq, maxReceiveCount: 5 }} on the sqs.Queue.",
        "VG022.fix": "retentionPeriod: Duration.days(14) on the dead-letter queue, longer than the source's.",
        "VG030.fix": (
            "batchSize above 10 needs maxBatchingWindow: Duration.seconds(1) or more; a FIFO queue takes no "
            "maxBatchingWindow."
        ),
        "VG031.fix": (
            "new SqsEventSource(queue, {{ ..., reportBatchItemFailures: true }}) and return batchItemFailures."
        ),
        "VG032.fix": lambda s: (
            f"timeout: Duration.seconds({s.args.get('limit', '900')}) at most on the lambda.Function"
            f"{s.args.get('on', '')}; move longer work to a worker fleet."
        ),
    }


# ----------------------------------------------------------------------------------------------- the audit
_MAPPING_EXISTS = (
    ": the mapping exists, so the timeout was lowered after it was created; Lambda now rejects any update to it "
    "(UpdateEventSourceMapping), and messages become visible again while still being processed"
)


class Api(Vocabulary):
    """The fleet audit: existing resources, changed with the AWS API (SQS attributes are CloudFormation's
    names); the mapping of VG010 was created, so its consequence is not a failed deployment."""

    templates = {"VG010.message": lambda s: s.args["said"] + _MAPPING_EXISTS}  # noqa: RUF012


# ----------------------------------------------------------------------------------------------- visguard.yaml
class Config(Vocabulary):
    words = {
        **CLOUDFORMATION,
        "suppress_example": (
            'suppressions: [{rule: VG020, queue: "orders-*", reason: "why this is safe"}] '
            "(or a queue's suppress: list)"
        ),
    }


# ----------------------------------------------------------------------------------------------- code
class Code(Vocabulary):
    """A queue the application's code creates at run time (visguard.linter.created_queues): the API's attribute
    names, as the CreateQueue call passes them."""

    words = {  # noqa: RUF012 - read only
        **CLOUDFORMATION,
        "dlq_arn_example": "the dead-letter queue's QueueArn (GetQueueAttributes)",
        "add_redrive": (
            'Add a RedrivePolicy attribute, a JSON string {"deadLetterTargetArn": <the dead-letter queue\'s ARN>, '
            '"maxReceiveCount": 5},'
        ),
        "fifo_true": 'FifoQueue: "true" in the Attributes',
        "suppress_example": Config.words["suppress_example"],
    }


# ----------------------------------------------------------------------------------------------- AWS CLI scripts
class Shell(Vocabulary):
    """A queue an AWS CLI command creates (``aws sqs create-queue`` in a script or Makefile: the shell loader): the
    attribute names are the API's, written in the command's ``--attributes``."""

    words = {  # noqa: RUF012 - read only
        **CLOUDFORMATION,
        "dlq_arn_example": "the DLQ's QueueArn (aws sqs get-queue-attributes --attribute-names QueueArn)",
        "add_redrive": (
            "Add RedrivePolicy "
            '(\'{"RedrivePolicy": "{\\"deadLetterTargetArn\\":\\"<DLQ ARN>\\",\\"maxReceiveCount\\":\\"5\\"}"}\') '
            "to the create-queue's --attributes"
        ),
        "fifo_true": "FifoQueue=true in --attributes",
        "suppress_example": (
            'suppressions: [{rule: VG020, queue: "orders", reason: "why this is safe"}] in visguard.yaml'
        ),
    }


VOCABULARIES: dict[str, Vocabulary] = {
    "code": Code(),
    "cloudformation": Vocabulary(),
    "sam": Vocabulary(),
    "config": Config(),
    "terraform": Terraform(),
    "serverless": Serverless(),
    "cdk": Cdk(),
    "cdk-typescript": CdkTypeScript(),
    "construct": GuardedQueue(),
    "inventory": Api(),
    "shell": Shell(),
}


# ----------------------------------------------------------------------------------------------- Change names
# Change.field -> (CloudFormation property path, API attribute, Terraform argument)
CHANGE_NAMES = {
    "visibility_timeout": ("VisibilityTimeout", "VisibilityTimeout", "visibility_timeout_seconds"),
    "message_retention": ("MessageRetentionPeriod", "MessageRetentionPeriod", "message_retention_seconds"),
    "delay": ("DelaySeconds", "DelaySeconds", "delay_seconds"),
    "redrive.max_receive_count": (
        "RedrivePolicy.maxReceiveCount",
        "RedrivePolicy.maxReceiveCount",
        "redrive_policy.maxReceiveCount",
    ),
    "redrive": ("RedrivePolicy", "RedrivePolicy", "redrive_policy"),
    "report_batch_item_failures": (
        "FunctionResponseTypes",
        "FunctionResponseTypes",
        "function_response_types",
    ),
    "batch_size": ("BatchSize", "BatchSize", "batch_size"),
    "batching_window": (
        "MaximumBatchingWindowInSeconds",
        "MaximumBatchingWindowInSeconds",
        "maximum_batching_window_in_seconds",
    ),
    "function_timeout": ("Timeout", "Timeout", "timeout"),
}
_COLUMN = {"inventory": 1, "terraform": 2}


def change_name(field: str, source: str = "cloudformation") -> str:
    """A Change field's name as the door ``source`` writes it (an unknown field: its own name)."""
    names = CHANGE_NAMES.get(field)
    return names[_COLUMN.get(source, 0)] if names else field
