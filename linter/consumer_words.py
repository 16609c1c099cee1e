"""A worker consumer's settings in the consumer's own words (issue 24): one table, keyed by (platform, source, field).

A finding about a worker consumer names the setting to change the way its owner writes it: the container
definition's ``StopTimeout`` in a CloudFormation task definition, ``stopTimeout`` in Terraform's
``container_definitions``, ``terminationGracePeriodSeconds`` in a Deployment, the ``VisibilityTimeout=`` argument
of boto3's ``receive_message``. ``platform`` and ``source`` are the consumer's (``Consumer.platform``,
``Consumer.source``: the input kind of the file it was read from, not the queue's); ``field`` is the model's name
of the setting (``visibility_override``, ``stop_timeout``, ``inactivity_timeout``, ``work_timeout``,
``heartbeat_interval``, ``batching_window``, ``created_visibility``) or ``processing_bound`` (where to declare the
processing time).

Rules write these fields as symbolic keys of a :class:`visguard.linter.vocabulary.Text` (``{stop_timeout}``); the
vocabulary asks :func:`for_consumer` first when the finding is about a worker consumer. A source of ``None`` in the
table is any source of that platform; a field no platform entry words has a generic word (:data:`GENERIC`).
"""

from __future__ import annotations

from visguard.linter.model import PROCESSING_P99_KEY

__all__ = ["FIELDS", "GENERIC", "WORDS", "change_word", "for_consumer", "word"]

_SQSD = "aws:elasticbeanstalk:sqsd"
_P99 = PROCESSING_P99_KEY
# a worker profile in visguard.yaml, in the schema's keys (linter/schemas/visguard-config.schema.json: p99)
_PROFILE_YAML = "a worker profile matching the queue in visguard.yaml (profiles: [{match: <queue>, kind: worker, p99: 1200}])"
_PROFILE = f"or {_PROFILE_YAML}"

# field -> the word when the platform and source say nothing more (also the catalogue's word)
GENERIC = {
    "visibility_override": "the visibility timeout the consumer sets on its receives",
    "stop_timeout": "the consumer's stop timeout (the wait between the stop signal and the kill)",
    "inactivity_timeout": f"{_SQSD} InactivityTimeout",
    "work_timeout": "the consumer's limit on one message's work",
    "heartbeat_interval": "a ChangeMessageVisibility heartbeat while the message is processed",
    "created_visibility": "the framework's visibility timeout option",
    "processing_bound": f"the processing time p99 ({_P99}: 20m on the consumer's resource, {_PROFILE})",
}
FIELDS = tuple(GENERIC)

# (platform, source or None for any, field) -> the setting as the consumer's owner writes it
WORDS: dict[tuple[str, str | None, str], str] = {
    # ECS / Fargate task definitions
    ("ecs", "cloudformation", "stop_timeout"): "the container definition's StopTimeout",
    ("ecs", "sam", "stop_timeout"): "the container definition's StopTimeout",
    ("ecs", "cdk", "stop_timeout"): "stop_timeout of the container (add_container(..., stop_timeout=Duration."
    "seconds(N)); StopTimeout in the synthesized template)",
    ("ecs", "terraform", "stop_timeout"): "stopTimeout of the container in container_definitions",
    ("ecs", "inventory", "stop_timeout"): "containerDefinitions[].stopTimeout (RegisterTaskDefinition)",
    (
        "ecs",
        "cloudformation",
        "processing_bound",
    ): f"a Tag {_P99} (Value: 20m) on the task definition, {_PROFILE}",
    ("ecs", "sam", "processing_bound"): f"a Tag {_P99} (Value: 20m) on the task definition, {_PROFILE}",
    ("ecs", "cdk", "processing_bound"): f"Tags.of(task_definition).add('{_P99}', '20m'), {_PROFILE}",
    (
        "ecs",
        "terraform",
        "processing_bound",
    ): f'tags = {{ "{_P99}" = "20m" }} on the aws_ecs_task_definition, {_PROFILE}',
    # Elastic Beanstalk worker environments (sqsd)
    ("beanstalk", "cloudformation", "visibility_override"): f"the {_SQSD} VisibilityTimeout option setting",
    ("beanstalk", "sam", "visibility_override"): f"the {_SQSD} VisibilityTimeout option setting",
    (
        "beanstalk",
        "cdk",
        "visibility_override",
    ): f"the {_SQSD} VisibilityTimeout option setting (optionSettings)",
    ("beanstalk", "terraform", "visibility_override"): f'setting {{ namespace = "{_SQSD}" name = '
    '"VisibilityTimeout" }',
    ("beanstalk", "ebextensions", "visibility_override"): f"option_settings {_SQSD}: VisibilityTimeout",
    ("beanstalk", "cloudformation", "inactivity_timeout"): f"the {_SQSD} InactivityTimeout option setting",
    ("beanstalk", "sam", "inactivity_timeout"): f"the {_SQSD} InactivityTimeout option setting",
    (
        "beanstalk",
        "cdk",
        "inactivity_timeout",
    ): f"the {_SQSD} InactivityTimeout option setting (optionSettings)",
    ("beanstalk", "terraform", "inactivity_timeout"): f'setting {{ namespace = "{_SQSD}" name = '
    '"InactivityTimeout" }',
    ("beanstalk", "ebextensions", "inactivity_timeout"): f"option_settings {_SQSD}: InactivityTimeout",
    (
        "beanstalk",
        "inventory",
        "visibility_override",
    ): f"OptionSettings {_SQSD} VisibilityTimeout (UpdateEnvironment)",
    (
        "beanstalk",
        "inventory",
        "inactivity_timeout",
    ): f"OptionSettings {_SQSD} InactivityTimeout (UpdateEnvironment)",
    (
        "beanstalk",
        None,
        "heartbeat_interval",
    ): "a heartbeat, which sqsd cannot send (the application never sees the receipt handle)",
    ("beanstalk", None, "processing_bound"): f"a Tag {_P99} (20m) on the worker environment, {_PROFILE}",
    # EventBridge Pipes with an SQS source
    ("pipes", "cloudformation", "batching_window"): "SourceParameters.SqsQueueParameters."
    "MaximumBatchingWindowInSeconds of the pipe",
    (
        "pipes",
        "sam",
        "batching_window",
    ): "SourceParameters.SqsQueueParameters.MaximumBatchingWindowInSeconds of the pipe",
    (
        "pipes",
        "cdk",
        "batching_window",
    ): "SourceParameters.SqsQueueParameters.MaximumBatchingWindowInSeconds of the pipe",
    ("pipes", "terraform", "batching_window"): "source_parameters.sqs_queue_parameters."
    "maximum_batching_window_in_seconds of the aws_pipes_pipe",
    ("pipes", None, "work_timeout"): "the pipe target's timeout (a Lambda function's Timeout, 5 min for an "
    "Express workflow, 5 s for an API destination)",
    ("pipes", None, "heartbeat_interval"): "a heartbeat, which a pipe cannot send",
    (
        "pipes",
        "terraform",
        "processing_bound",
    ): f'tags = {{ "{_P99}" = "20m" }} on the aws_pipes_pipe, {_PROFILE}',
    ("pipes", None, "processing_bound"): f"a Tag {_P99}: 20m on the pipe (Tags), {_PROFILE}",
    # Kubernetes Deployments (plain, or scaled by KEDA)
    (
        "kubernetes",
        None,
        "stop_timeout",
    ): "terminationGracePeriodSeconds of the pod template (spec.template.spec; preStop included)",
    ("keda", None, "stop_timeout"): "terminationGracePeriodSeconds of the scaled Deployment's pod template "
    "(spec.template.spec; preStop included)",
    ("kubernetes", None, "processing_bound"): f"the annotation {_P99}: 20m in the Deployment's metadata."
    f"annotations, {_PROFILE}",
    (
        "keda",
        None,
        "processing_bound",
    ): f"the annotation {_P99}: 20m in the ScaledObject's or the Deployment's "
    f"metadata.annotations, {_PROFILE}",
    # SDK receive loops
    ("sdk", "python", "visibility_override"): "the VisibilityTimeout= argument of receive_message",
    (
        "sdk",
        "javascript",
        "visibility_override",
    ): "VisibilityTimeout of the ReceiveMessageCommand (receiveMessage) input",
    (
        "sdk",
        "typescript",
        "visibility_override",
    ): "VisibilityTimeout of the ReceiveMessageCommand (receiveMessage) input",
    ("sdk", "java", "visibility_override"): "visibilityTimeout(...) of the ReceiveMessageRequest",
    ("sdk", "go", "visibility_override"): "VisibilityTimeout of the sqs.ReceiveMessageInput",
    ("sdk", "csharp", "visibility_override"): "VisibilityTimeout of the ReceiveMessageRequest",
    ("sdk", "php", "visibility_override"): "'VisibilityTimeout' of the receiveMessage arguments",
    ("sdk", "ruby", "visibility_override"): "visibility_timeout: of receive_message",
    (
        "sdk",
        "python",
        "heartbeat_interval",
    ): "a change_message_visibility call while the message is processed",
    (
        "sdk",
        "javascript",
        "heartbeat_interval",
    ): "a ChangeMessageVisibilityCommand while the message is processed",
    (
        "sdk",
        "typescript",
        "heartbeat_interval",
    ): "a ChangeMessageVisibilityCommand while the message is processed",
    (
        "sdk",
        None,
        "processing_bound",
    ): _PROFILE_YAML,
    # frameworks
    ("sqs-consumer", None, "visibility_override"): "the visibilityTimeout option of Consumer.create",
    ("sqs-consumer", None, "heartbeat_interval"): "the heartbeatInterval option of Consumer.create",
    ("sqs-consumer", None, "work_timeout"): "the handleMessageTimeout option (ms) of Consumer.create",
    ("celery", None, "created_visibility"): 'broker_transport_options["visibility_timeout"]',
    ("celery", None, "work_timeout"): "task_time_limit",
    ("spring", None, "visibility_override"): "messageVisibilitySeconds of @SqsListener (SqsContainerOptions "
    "messageVisibility)",
    ("spring", None, "stop_timeout"): "listenerShutdownTimeout of the container options",
    ("laravel", None, "work_timeout"): "queue:work --timeout (or the job's $timeout)",
    (
        "shoryuken",
        None,
        "visibility_override",
    ): "visibility_timeout in Shoryuken.sqs_client_receive_message_opts",
    ("shoryuken", None, "stop_timeout"): "timeout in shoryuken.yml (-t)",
    ("shoryuken", None, "heartbeat_interval"): "auto_visibility_timeout: true in shoryuken_options",
}

# platforms that are not worker consumers of their own (their settings keep the queue input's words)
_NOT_WORKERS = (None, "lambda", "profile")
# the infrastructure platforms whose settings a file fix writes, per field, in lookup order (change_word)
_IAC = ("beanstalk", "ecs", "kubernetes", "keda", "pipes")
_WRITTEN = ("visibility_override", "stop_timeout", "inactivity_timeout", "batching_window")


def word(field: str, platform: str | None = None, source: str | None = None) -> str:
    """``field`` of a ``platform`` consumer read from a ``source`` file, in that consumer's words."""
    for key in ((platform, source, field), (platform, None, field)):
        if key in WORDS:
            return WORDS[key]
    return GENERIC.get(field, field)


def for_consumer(field: str, consumer) -> str | None:
    """``field`` in the words of ``consumer`` (a model Consumer, or None): its platform's word for a worker
    consumer, the generic word for a consumer-only field, None for a key the queue's vocabulary words."""
    platform = getattr(consumer, "platform", None)
    if platform not in _NOT_WORKERS and (
        (platform, consumer.source, field) in WORDS or (platform, None, field) in WORDS
    ):
        return word(field, platform, consumer.source)
    return GENERIC.get(field)


def change_word(field: str, source: str = "cloudformation") -> str:
    """A consumer Change's ``field`` as a file of ``source`` writes it (``visguard lint --fix`` messages): the
    infrastructure platform that has that setting in such a file, else the generic word."""
    if field in _WRITTEN:
        for src in (source, None):  # a word of that very source first, then a platform's any-source word
            for platform in _IAC:
                if (platform, src, field) in WORDS:
                    return WORDS[(platform, src, field)]
    return GENERIC.get(field, field)
