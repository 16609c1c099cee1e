"""A worker consumer in its own words (issues 24 and 34): one table, keyed by (platform, source, field).

A finding about a worker consumer names the setting to change the way its owner writes it: the container
definition's ``StopTimeout`` in a CloudFormation task definition, ``stopTimeout`` in Terraform's
``container_definitions``, ``terminationGracePeriodSeconds`` in a Deployment, the ``VisibilityTimeout=`` argument
of boto3's ``receive_message``. ``platform`` and ``source`` are the consumer's (``Consumer.platform``,
``Consumer.source``: the input kind of the file it was read from, not the queue's); ``field`` is the model's name
of the setting (``visibility_override``, ``stop_timeout``, ``inactivity_timeout``, ``work_timeout``,
``heartbeat_interval``, ``batching_window``, ``created_visibility``) or ``processing_bound`` (where to declare the
processing time).

Each key has two forms of one name (:data:`WORDS`): the **short** form a message writes as ``setting = value``
(``visibilityTimeout``) and the **long** form a fix sentence uses (``the visibilityTimeout option of
Consumer.create``); the long form contains the short one (but for the short form's parenthesised tail, such as
``(receive_message)``): both name one setting. Rules write these fields as symbolic keys of a
:class:`visguard.linter.vocabulary.Text` (``{stop_timeout}``): the vocabulary asks :func:`for_consumer` first when
the finding is about a worker consumer (the long form); a message that writes ``setting = value`` asks :func:`term`
(the short form). A source of ``None`` in the table is any source of that platform; a field no platform entry
words has a generic pair (:data:`GENERIC`).

A consumer is named by :func:`label` in every rule (``receive loop app/worker.py:9``, ``ECS task definition
Task``, ``function Fn (mapping M)``): one label per consumer whatever rule fires (:data:`LABELS`).
"""

from __future__ import annotations

from visguard.linter.model import PROCESSING_P99_KEY

__all__ = [
    "FIELDS",
    "GENERATIONS",
    "GENERIC",
    "LABELS",
    "WORDS",
    "change_word",
    "for_consumer",
    "in_effect",
    "label",
    "place",
    "term",
    "word",
]

SHORT, LONG = 0, 1  # the two forms of a WORDS / GENERIC entry

_SQSD = "aws:elasticbeanstalk:sqsd"
_P99 = PROCESSING_P99_KEY
# a worker profile in visguard.yaml, in the schema's keys (linter/schemas/visguard-config.schema.json: p99)
_PROFILE_YAML = "a worker profile matching the queue in visguard.yaml (profiles: [{match: <queue>, kind: worker, p99: 1200}])"
_PROFILE = f"or {_PROFILE_YAML}"

# field -> (short, long) when the platform and source say nothing more (the long form is the catalogue's word)
GENERIC: dict[str, tuple[str, str]] = {
    "visibility_override": ("visibility timeout", "the visibility timeout the consumer sets on its receives"),
    "stop_timeout": (
        "stop timeout",
        "the consumer's stop timeout (the wait between the stop signal and the kill)",
    ),
    "inactivity_timeout": ("InactivityTimeout", f"{_SQSD} InactivityTimeout"),
    "work_timeout": ("limit on one message's work", "the consumer's limit on one message's work"),
    "heartbeat_interval": ("heartbeat", "a ChangeMessageVisibility heartbeat while the message is processed"),
    "created_visibility": ("visibility timeout option", "the framework's visibility timeout option"),
    "processing_bound": (
        "processing time p99",
        f"the processing time p99 ({_P99}: 20m on the consumer's resource, {_PROFILE})",
    ),
}
FIELDS = tuple(GENERIC)

_ECS_TAG = (_P99, f"a Tag {_P99} (Value: 20m) on the task definition, {_PROFILE}")
_SQSD_VT = ("sqsd VisibilityTimeout", f"the {_SQSD} VisibilityTimeout option setting")
_SQSD_IT = ("sqsd InactivityTimeout", f"the {_SQSD} InactivityTimeout option setting")
_PIPE_WINDOW = (
    "MaximumBatchingWindowInSeconds",
    "SourceParameters.SqsQueueParameters.MaximumBatchingWindowInSeconds of the pipe",
)
_JS_RECEIVE = (
    "VisibilityTimeout (ReceiveMessage input)",
    "VisibilityTimeout of the ReceiveMessageCommand (receiveMessage) input",
)
_JS_HEARTBEAT = (
    "ChangeMessageVisibilityCommand",
    "a ChangeMessageVisibilityCommand while the message is processed",
)

# (platform, source or None for any, field) -> (short, long): the setting as the consumer's owner writes it
WORDS: dict[tuple[str, str | None, str], tuple[str, str]] = {
    # ECS / Fargate task definitions
    ("ecs", "cloudformation", "stop_timeout"): ("StopTimeout", "the container definition's StopTimeout"),
    ("ecs", "sam", "stop_timeout"): ("StopTimeout", "the container definition's StopTimeout"),
    ("ecs", "cdk", "stop_timeout"): (
        "stop_timeout",
        "stop_timeout of the container (add_container(..., "
        "stop_timeout=Duration.seconds(N)); StopTimeout in the synthesized template)",
    ),
    ("ecs", "terraform", "stop_timeout"): (
        "stopTimeout",
        "stopTimeout of the container in container_definitions",
    ),
    ("ecs", "inventory", "stop_timeout"): (
        "stopTimeout",
        "containerDefinitions[].stopTimeout (RegisterTaskDefinition)",
    ),
    ("ecs", "cloudformation", "processing_bound"): _ECS_TAG,
    ("ecs", "sam", "processing_bound"): _ECS_TAG,
    ("ecs", "cdk", "processing_bound"): (_P99, f"Tags.of(task_definition).add('{_P99}', '20m'), {_PROFILE}"),
    ("ecs", "cdk-typescript", "stop_timeout"): (
        "stopTimeout",
        "stopTimeout of the container (addContainer(id, { stopTimeout: Duration.seconds(N) }); StopTimeout in the "
        "synthesized template)",
    ),
    ("ecs", "cdk-typescript", "processing_bound"): (
        _P99,
        f"Tags.of(taskDefinition).add('{_P99}', '20m'), {_PROFILE}",
    ),
    ("ecs", "terraform", "processing_bound"): (
        _P99,
        f'tags = {{ "{_P99}" = "20m" }} on the aws_ecs_task_definition, {_PROFILE}',
    ),
    # Elastic Beanstalk worker environments (sqsd)
    ("beanstalk", "cloudformation", "visibility_override"): _SQSD_VT,
    ("beanstalk", "sam", "visibility_override"): _SQSD_VT,
    ("beanstalk", "cdk", "visibility_override"): (_SQSD_VT[0], f"{_SQSD_VT[1]} (optionSettings)"),
    ("beanstalk", "terraform", "visibility_override"): (
        '"VisibilityTimeout"',
        f'setting {{ namespace = "{_SQSD}" name = "VisibilityTimeout" }}',
    ),
    ("beanstalk", "ebextensions", "visibility_override"): (
        "VisibilityTimeout",
        f"option_settings {_SQSD}: VisibilityTimeout",
    ),
    ("beanstalk", "inventory", "visibility_override"): (
        "sqsd VisibilityTimeout",
        f"OptionSettings {_SQSD} VisibilityTimeout (UpdateEnvironment)",
    ),
    ("beanstalk", "cloudformation", "inactivity_timeout"): _SQSD_IT,
    ("beanstalk", "sam", "inactivity_timeout"): _SQSD_IT,
    ("beanstalk", "cdk", "inactivity_timeout"): (_SQSD_IT[0], f"{_SQSD_IT[1]} (optionSettings)"),
    ("beanstalk", "terraform", "inactivity_timeout"): (
        '"InactivityTimeout"',
        f'setting {{ namespace = "{_SQSD}" name = "InactivityTimeout" }}',
    ),
    ("beanstalk", "ebextensions", "inactivity_timeout"): (
        "InactivityTimeout",
        f"option_settings {_SQSD}: InactivityTimeout",
    ),
    ("beanstalk", "inventory", "inactivity_timeout"): (
        "sqsd InactivityTimeout",
        f"OptionSettings {_SQSD} InactivityTimeout (UpdateEnvironment)",
    ),
    ("beanstalk", None, "heartbeat_interval"): (
        "heartbeat",
        "a heartbeat, which sqsd cannot send (the application never sees the receipt handle)",
    ),
    ("beanstalk", None, "processing_bound"): (
        _P99,
        f"a Tag {_P99} (20m) on the worker environment, {_PROFILE}",
    ),
    # EventBridge Pipes with an SQS source
    ("pipes", "cloudformation", "batching_window"): _PIPE_WINDOW,
    ("pipes", "sam", "batching_window"): _PIPE_WINDOW,
    ("pipes", "cdk", "batching_window"): _PIPE_WINDOW,
    ("pipes", "terraform", "batching_window"): (
        "maximum_batching_window_in_seconds",
        "source_parameters.sqs_queue_parameters.maximum_batching_window_in_seconds of the aws_pipes_pipe",
    ),
    ("pipes", None, "work_timeout"): (
        "pipe target's timeout",
        "the pipe target's timeout (a Lambda function's Timeout, "
        "5 min for an Express workflow, 5 s for an API destination)",
    ),
    ("pipes", None, "heartbeat_interval"): ("heartbeat", "a heartbeat, which a pipe cannot send"),
    ("pipes", "terraform", "processing_bound"): (
        _P99,
        f'tags = {{ "{_P99}" = "20m" }} on the aws_pipes_pipe, {_PROFILE}',
    ),
    ("pipes", None, "processing_bound"): (_P99, f"a Tag {_P99}: 20m on the pipe (Tags), {_PROFILE}"),
    # Kubernetes Deployments (plain, or scaled by KEDA)
    ("kubernetes", None, "stop_timeout"): (
        "terminationGracePeriodSeconds",
        "terminationGracePeriodSeconds of the pod template (spec.template.spec; preStop included)",
    ),
    ("keda", None, "stop_timeout"): (
        "terminationGracePeriodSeconds",
        "terminationGracePeriodSeconds of the scaled "
        "Deployment's pod template (spec.template.spec; preStop included)",
    ),
    ("kubernetes", None, "processing_bound"): (
        _P99,
        f"the annotation {_P99}: 20m in the Deployment's metadata.annotations, {_PROFILE}",
    ),
    ("keda", None, "processing_bound"): (
        _P99,
        f"the annotation {_P99}: 20m in the ScaledObject's or the "
        f"Deployment's metadata.annotations, {_PROFILE}",
    ),
    # SDK receive loops
    ("sdk", "python", "visibility_override"): (
        "VisibilityTimeout (receive_message)",
        "the VisibilityTimeout= argument of receive_message",
    ),
    ("sdk", "javascript", "visibility_override"): _JS_RECEIVE,
    ("sdk", "typescript", "visibility_override"): _JS_RECEIVE,
    ("sdk", "java", "visibility_override"): (
        "visibilityTimeout (ReceiveMessageRequest)",
        "visibilityTimeout(...) of the ReceiveMessageRequest",
    ),
    ("sdk", "kotlin", "visibility_override"): (
        "visibilityTimeout (receiveMessage)",
        "visibilityTimeout of the ReceiveMessageRequest (its builder or builder lambda)",
    ),
    ("sdk", "go", "visibility_override"): (
        "VisibilityTimeout (sqs.ReceiveMessageInput)",
        "VisibilityTimeout of the sqs.ReceiveMessageInput",
    ),
    ("sdk", "csharp", "visibility_override"): (
        "VisibilityTimeout (ReceiveMessageRequest)",
        "VisibilityTimeout of the ReceiveMessageRequest",
    ),
    ("sdk", "php", "visibility_override"): (
        "VisibilityTimeout (receiveMessage)",
        "'VisibilityTimeout' of the receiveMessage arguments",
    ),
    ("sdk", "ruby", "visibility_override"): (
        "visibility_timeout (receive_message)",
        "visibility_timeout: of receive_message",
    ),
    ("sdk", "rust", "visibility_override"): (
        "visibility_timeout (receive_message)",
        ".visibility_timeout(...) of the receive_message() builder",
    ),
    ("sdk", "shell", "visibility_override"): (
        "--visibility-timeout (aws sqs receive-message)",
        "--visibility-timeout of aws sqs receive-message",
    ),
    ("sdk", "shell", "heartbeat_interval"): (
        "aws sqs change-message-visibility",
        "an aws sqs change-message-visibility command while the message is processed",
    ),
    ("sdk", "python", "heartbeat_interval"): (
        "change_message_visibility",
        "a change_message_visibility call while the message is processed",
    ),
    ("sdk", "javascript", "heartbeat_interval"): _JS_HEARTBEAT,
    ("sdk", "typescript", "heartbeat_interval"): _JS_HEARTBEAT,
    ("sdk", None, "processing_bound"): ("p99", _PROFILE_YAML),
    # frameworks
    ("sqs-consumer", None, "visibility_override"): (
        "visibilityTimeout",
        "the visibilityTimeout option of Consumer.create",
    ),
    ("sqs-consumer", None, "heartbeat_interval"): (
        "heartbeatInterval",
        "the heartbeatInterval option of Consumer.create",
    ),
    ("sqs-consumer", None, "work_timeout"): (
        "handleMessageTimeout",
        "the handleMessageTimeout option (ms) of Consumer.create",
    ),
    ("celery", None, "created_visibility"): (
        "visibility_timeout",
        'broker_transport_options["visibility_timeout"]',
    ),
    ("celery", None, "visibility_override"): (
        "visibility_timeout (broker_transport_options)",
        'broker_transport_options["visibility_timeout"]',
    ),
    ("celery", None, "work_timeout"): ("task_time_limit", "task_time_limit"),
    ("spring", None, "visibility_override"): (
        "messageVisibility",
        "messageVisibilitySeconds of @SqsListener (SqsContainerOptions messageVisibility)",
    ),
    # Spring Cloud AWS 2.x: the auto-configured container's properties (facts.SPRING2_PROPERTIES); its @SqsListener
    # has no visibility attribute, so the words of 3.x would name a setting the project's version does not have
    ("spring2", None, "visibility_override"): (
        "cloud.aws.sqs.listener.visibility-timeout",
        "cloud.aws.sqs.listener.visibility-timeout (Spring Cloud AWS 2.x)",
    ),
    ("spring", None, "stop_timeout"): (
        "listenerShutdownTimeout",
        "listenerShutdownTimeout of the container options",
    ),
    ("spring", None, "work_timeout"): ("the listener's time limit", "the listener's time limit"),
    ("laravel", None, "work_timeout"): (
        "queue:work --timeout (or the job's $timeout)",
        "queue:work --timeout (or the job's $timeout)",
    ),
    ("shoryuken", None, "visibility_override"): (
        "visibility_timeout (receive options)",
        "visibility_timeout in Shoryuken.sqs_client_receive_message_opts",
    ),
    ("shoryuken", None, "stop_timeout"): ("timeout", "timeout in shoryuken.yml (-t)"),
    ("squiss", None, "visibility_override"): (
        "visibilityTimeoutSecs",
        "the visibilityTimeoutSecs option of new Squiss",
    ),
    ("squiss", None, "heartbeat_interval"): (
        "autoExtendTimeout",
        "autoExtendTimeout: true in the options of new Squiss",
    ),
    ("activejob", None, "visibility_override"): (
        "visibility_timeout (aws_active_job_sqs.yml)",
        "visibility_timeout in config/aws_active_job_sqs.yml (the queue's own, or the global one)",
    ),
    ("activejob", None, "stop_timeout"): (
        "shutdown_timeout (aws_active_job_sqs.yml)",
        "shutdown_timeout in config/aws_active_job_sqs.yml",
    ),
    ("shoryuken", None, "heartbeat_interval"): (
        "auto_visibility_timeout",
        "auto_visibility_timeout: true in shoryuken_options",
    ),
}

# a worker consumer's platform, as its label names it (``ECS task definition orders-worker``)
LABELS = {
    "ecs": "ECS task definition",
    "beanstalk": "Beanstalk worker environment",
    "pipes": "pipe",
    "keda": "KEDA-scaled workload",
    "kubernetes": "Deployment",
    "sdk": "receive loop",
    "celery": "Celery worker",
    "sqs-consumer": "sqs-consumer",
    "spring": "Spring listener",
    "laravel": "Laravel worker",
    "shoryuken": "Shoryuken worker",
    "activejob": "ActiveJob SQS poller",
    "squiss": "Squiss poller",
    "jms": "JMS consumer",
}

# a library generation whose settings have other names than its platform's words (``settings["words"]``) -> that
# platform: only the fields the table words for the generation take its words, the rest stay the platform's
GENERATIONS = {"spring2": "spring"}

# a consumer known only by the role it assumes: who assumes it, per platform (``ECS tasks of role TaskRole``)
_ROLE_WORKLOADS = {"ecs": "ECS tasks", "kubernetes": "pods"}

# platforms that are not worker consumers of their own (their settings keep the queue input's words)
_NOT_WORKERS = (None, "lambda", "profile")
# the infrastructure platforms whose settings a file fix writes, per field, in lookup order (change_word)
_IAC = ("beanstalk", "ecs", "kubernetes", "keda", "pipes")
_WRITTEN = ("visibility_override", "stop_timeout", "inactivity_timeout", "batching_window")


def _form(form: str) -> int:
    return SHORT if form == "short" else LONG


def _entry(field: str, platform: str | None, source: str | None) -> tuple[str, str] | None:
    base = "cdk" if source == "cdk-typescript" else source  # TypeScript's own word, else the CDK's
    for key in ((platform, source, field), (platform, base, field), (platform, None, field)):
        if key in WORDS:
            return WORDS[key]
    return None


def word(field: str, platform: str | None = None, source: str | None = None, form: str = "long") -> str:
    """``field`` of a ``platform`` consumer read from a ``source`` file, in that consumer's words (``form``:
    "long", a fix's, or "short", a message's)."""
    pair = _entry(field, platform, source) or GENERIC.get(field)
    return pair[_form(form)] if pair else field


def _platform(c, field: str) -> str | None:
    """Whose words ``field`` of ``c`` is in: the worker framework its start command runs (an ECS task's or a
    Deployment's ``settings["framework"]``, visguard.linter.loaders.commandline) for its work limit; the library
    generation whose words the table has for it (``settings["words"]``: ``spring2`` for a listener of Spring Cloud
    AWS 2.x); else its platform's."""
    settings = getattr(c, "settings", None) or {}
    if field == "work_timeout" and settings.get("framework"):
        return settings["framework"]
    generation = settings.get("words")
    if GENERATIONS.get(generation) == getattr(c, "platform", None) and (generation, None, field) in WORDS:
        return generation
    return getattr(c, "platform", None)


def for_consumer(field: str, consumer, form: str = "long") -> str | None:
    """``field`` in the words of ``consumer`` (a model Consumer, or None): its platform's word for a worker
    consumer, the generic word for a consumer-only field, None for a key the queue's vocabulary words."""
    platform = _platform(consumer, field)
    pair = _entry(field, platform, _source(consumer)) if platform not in _NOT_WORKERS else None
    pair = pair or GENERIC.get(field)
    return pair[_form(form)] if pair else None


def term(c, field: str) -> str:
    """The short words of ``field`` for consumer ``c``: what a message writes as ``setting = value``."""
    return word(field, _platform(c, field), _source(c), "short")


def _source(c) -> str | None:
    """The input kind whose words ``c``'s settings are in: a CDK app's language (TypeScript's camelCase) too."""
    if c.source == "cdk":
        from visguard.linter.vocabulary import cdk_language

        return cdk_language(getattr(getattr(c, "location", None), "file", None))
    return c.source


def change_word(field: str, source: str = "cloudformation") -> str:
    """A consumer Change's ``field`` as a file of ``source`` writes it (``visguard lint --fix`` messages): the
    infrastructure platform that has that setting in such a file, else the generic word."""
    if field in _WRITTEN:
        for src in (source, None):  # a word of that very source first, then a platform's any-source word
            for platform in _IAC:
                if (platform, src, field) in WORDS:
                    return WORDS[(platform, src, field)][LONG]
    return GENERIC[field][LONG] if field in GENERIC else field


def label(c) -> str:
    """The one name of consumer ``c`` in every message: ``function Fn (mapping M)``, ``ECS task definition Task``,
    ``receive loop app/worker.py:9`` (a consumer read from code is named by its file and line; ``... in Lambda
    function F`` when a function's environment gave it its queue)."""
    if c.kind == "lambda" and c.function_id is None:
        return f"mapping {c.id} (its function is not known here)"
    if c.kind == "lambda":
        fn = c.function_id
        return f"function {fn}" + (f" (mapping {c.id})" if c.id and c.id != fn else "")
    if c.settings.get("assumed_by_other_tool"):  # only its role is declared (loaders/consumers_cfn.role)
        return f"{_ROLE_WORKLOADS.get(c.platform, 'workload')} of role {c.id}"
    fn = c.settings.get("function")  # code run by a Lambda function (its environment bound the queue)
    return f"{LABELS.get(c.platform, 'consumer')} {c.id}" + (f" in Lambda function {fn}" if fn else "")


def place(loc) -> str:
    """``file:line`` of a location (the file and the path in it when the line is not known)."""
    from visguard.linter.rules._base import fmt_location

    return fmt_location(loc)


def in_effect(ctx, c, queue):
    """(the visibility timeout in effect for ``c``'s messages, what sets it) (``ctx.visibility_for``: the
    consumer's own, else the queue's; None when not a usable number), in the consumer's words."""
    from visguard.linter.rules._base import fmt_seconds
    from visguard.linter.vocabulary import Text

    vt, where = ctx.visibility_for(queue, c), place(ctx.visibility_where(queue, c))
    value = fmt_seconds(vt) if vt is not None else "?"
    if ctx.overrides(c):
        return vt, Text(
            "{what} = {value} at {where}", what=term(c, "visibility_override"), value=value, where=where
        )
    return vt, Text("the queue's {visibility_timeout} {value} at {where}", value=value, where=where)


# ------------------------------------------------------------------ library releases (issue 36: pyjs)
_LIBRARY_NAMES = {"kombu": "Kombu", "sqs-consumer": "sqs-consumer"}


def library_said(c, ctx) -> str:
    """The library release a consumer was judged by, and how it is known (``settings["library"]``, set by
    ``loaders/code/library_versions.py``): ``Kombu 5.5.4 (poetry.lock:12)``, ``sqs-consumer 14.0.0 (the lower
    bound of ^14.0.0, package.json:5)``, ``Kombu 5.5.4 (the newest Celery 5.5.3 admits, kombu>=5.5.2,<5.6:
    requirements.txt:1)``, ``Kombu 5.6.2 (the newest release: no pin found)``."""
    lib = c.settings.get("library") or {}
    name = _LIBRARY_NAMES.get(lib.get("name"), lib.get("name") or "the library")
    version = lib.get("version") or "of unknown version"
    at = c.locations.get("library")
    where = ctx.where(at) if at is not None else None
    basis = lib.get("basis")
    if basis == "newest":
        how = "the newest release: no pin found"
    elif basis == "celery":
        how = f"the newest {lib.get('via')} admits, {lib.get('spec')}: {where}"
    elif basis == "range":
        how = f"the lower bound of {lib.get('spec')}, {where}"
    else:
        how = where or "as found"
    return f"{name} {version} ({how})"
