"""AWS facts visguard relies on: limits, defaults and documented formulas, each with the page that states it.

The one home for every number AWS owns (issue 14): the engine, the linter, the constructs and the audit import
from here, and nothing else states such a number. It sits below all of them and imports nothing of visguard but
the record bases (``visguard.records``).
Numbers visguard chooses itself (thresholds, targets) live with the code that chooses them, not here.

Where AWS changed a number, the current one is kept and the change is noted (``reference/`` in the design
folder holds the evidence).
"""

from __future__ import annotations

from visguard.records import REQUIRED, Value

SQS_DG = "https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/"
SQS_API = "https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/"
LAMBDA_DG = "https://docs.aws.amazon.com/lambda/latest/dg/"
LAMBDA_API = "https://docs.aws.amazon.com/lambda/latest/api/"


class Range(Value):
    """An inclusive range AWS accepts, in ``unit``, with the page that states it."""

    __slots__ = ("lo", "hi", "unit", "source")

    def __contains__(self, value) -> bool:
        return not isinstance(value, bool) and isinstance(value, (int, float)) and self.lo <= value <= self.hi

    def clamp(self, value: float) -> float:
        return min(max(value, self.lo), self.hi)


# ---------------------------------------------------------------------------------------------- SQS queue
# CreateQueue / SetQueueAttributes: VisibilityTimeout 0..43,200 s (12 h), default 30.
VISIBILITY_TIMEOUT = Range(0, 43_200, "s", SQS_API + "API_SetQueueAttributes.html")
DEFAULT_VISIBILITY_TIMEOUT = 30
# The 12-hour cap also bounds ReceiveMessage's and ChangeMessageVisibility's VisibilityTimeout, and the total
# visibility of one receipt counted from the receive: extensions do not reset it ("Total VisibilityTimeout for
# the message is beyond the limit [43200 seconds]").
MAX_VISIBILITY = 43_200
VISIBILITY_CAP_SOURCE = SQS_DG + "sqs-visibility-timeout.html"
# MessageRetentionPeriod 60 s .. 1,209,600 s (14 days), default 345,600 (4 days).
RETENTION = Range(60, 1_209_600, "s", SQS_API + "API_SetQueueAttributes.html")
DEFAULT_RETENTION = 345_600
# DelaySeconds 0..900 (15 min), default 0; per-message DelaySeconds is not accepted on FIFO queues.
DELAY = Range(0, 900, "s", SQS_API + "API_SetQueueAttributes.html")
DEFAULT_DELAY = 0
# RedrivePolicy maxReceiveCount 1..1,000.
MAX_RECEIVE_COUNT = Range(1, 1_000, "receives", SQS_DG + "sqs-dead-letter-queues.html")
# A FIFO queue's name ends in ".fifo", and only a FIFO queue's name may: the other names allow letters, digits,
# hyphens and underscores only (CreateQueue, QueueName).
FIFO_SUFFIX = ".fifo"
FIFO_NAME_SOURCE = SQS_API + "API_CreateQueue.html"


def fifo_name_mismatch(name: str, fifo: bool) -> str | None:
    """What is wrong with a queue ``name`` for a queue that is (``fifo``) or is not FIFO; None when nothing."""
    if fifo and not name.endswith(FIFO_SUFFIX):
        return f"a FIFO queue's name must end in {FIFO_SUFFIX}"
    if not fifo and name.endswith(FIFO_SUFFIX):
        return f"only a FIFO queue's name may end in {FIFO_SUFFIX}"
    return None


# A standard queue's DLQ keeps the enqueue timestamp (retention counts from the original send); a FIFO DLQ
# resets it.
DLQ_KEEPS_ENQUEUE_TIMESTAMP = {"standard": True, "fifo": False}
DLQ_SOURCE = SQS_DG + "sqs-dead-letter-queues.html"
# ReceiveMessage: MaxNumberOfMessages 1..10, WaitTimeSeconds 0..20.
RECEIVE_MAX_MESSAGES = Range(1, 10, "messages", SQS_API + "API_ReceiveMessage.html")
WAIT_TIME = Range(0, 20, "s", SQS_API + "API_ReceiveMessage.html")
# In-flight messages (received, not deleted, not expired): about 120,000 on standard queues (short polls then get
# OverLimit), and 120,000 on FIFO queues too in the current API text (the 2023 guide said 20,000; no error).
INFLIGHT_QUOTA = {"standard": 120_000, "fifo": 120_000}
INFLIGHT_SOURCE = SQS_DG + "quotas-messages.html"
# FIFO deduplication interval: 5 minutes.
FIFO_DEDUP_SECONDS = 300

# ------------------------------------------------------------------------------------- Lambda + SQS mapping
# Function timeout 1..900 s, default 3.
LAMBDA_TIMEOUT = Range(1, 900, "s", LAMBDA_DG + "configuration-timeout.html")
DEFAULT_LAMBDA_TIMEOUT = 3
MAX_LAMBDA_TIMEOUT = 900
# BatchSize: default 10; standard queues 1..10,000, FIFO 1..10; above 10 needs a batching window > 0.
SQS_BATCH_SIZE = {
    "standard": Range(1, 10_000, "records", LAMBDA_API + "API_CreateEventSourceMapping.html"),
    "fifo": Range(1, 10, "records", LAMBDA_API + "API_CreateEventSourceMapping.html"),
}
DEFAULT_SQS_BATCH_SIZE = 10
MAX_BATCH_WITHOUT_WINDOW = 10
# MaximumBatchingWindowInSeconds 0..300, default 0, whole seconds; not supported on FIFO queues.
BATCHING_WINDOW = Range(0, 300, "s", LAMBDA_API + "API_CreateEventSourceMapping.html")
BATCHING_WINDOW_ON_FIFO = False
# ScalingConfig.MaximumConcurrency 2..1,000.
ESM_MAX_CONCURRENCY = Range(2, 1_000, "invokes", LAMBDA_DG + "services-sqs-scaling.html")
# CreateEventSourceMapping fails when the queue's visibility timeout is below the function timeout.
ESM_REQUIRES_VISIBILITY_AT_LEAST_TIMEOUT = True
LAMBDA_SQS_CONFIGURE = LAMBDA_DG + "services-sqs-configure.html"
# Guidance: "set your queue visibility timeout to six times your function timeout, plus the value of
# MaximumBatchingWindowInSeconds".
LAMBDA_VISIBILITY_MULTIPLIER = 6
# Reserved concurrency on an SQS consumer: "set a minimum of five concurrent executions".
MIN_RESERVED_CONCURRENCY = 5
# maxReceiveCount with a Lambda consumer: "set the maxReceiveCount on the source queue's redrive policy to at
# least 5" (throttled and retried batches count receives).
MIN_RECEIVE_COUNT_LAMBDA = 5
LAMBDA_SQS_SCALING = LAMBDA_DG + "services-sqs-scaling.html"


class Pollers(Value):
    """How the event source mapping scales its concurrent invokes on a queue type (default mode)."""

    __slots__ = {
        # concurrent batches when messages first appear (None: not how this queue type scales)
        "initial": REQUIRED,
        "added_per_minute": REQUIRED,
        "ceiling": REQUIRED,  # concurrent invokes of one mapping (None: bounded by something else)
        "bounded_by": REQUIRED,  # what caps it besides MaximumConcurrency
        "source": LAMBDA_SQS_SCALING,
    }


# Standard: five batches at once, up to 300 more concurrent invokes a minute (since 2023-11-06; 60 before), up to
# 1,250. FIFO: concurrency is capped by the number of active message groups (or MaximumConcurrency, whichever is
# lower); the five-poller start does not describe it.
POLLERS = {
    "standard": Pollers(5, 300, 1_250, "MaximumConcurrency and the function's reserved concurrency"),
    "fifo": Pollers(None, 300, None, "the number of active message groups (one batch per group in flight)"),
}


def lambda_guidance_visibility(
    function_timeout: float, batching_window: float = 0.0, multiplier: float = LAMBDA_VISIBILITY_MULTIPLIER
) -> float:
    """The visibility timeout AWS recommends for a Lambda consumer: multiplier x function timeout + the
    maximum batching window (Lambda DG, services-sqs-configure). The one implementation."""
    return multiplier * function_timeout + (batching_window or 0.0)


def queue_kind(fifo: bool) -> str:
    return "fifo" if fifo else "standard"


# ---------------------------------------------------------------------------------------------- worker consumers
# (issues 24, 25; evidence and failure modes: reference/consumers.md). Where a consumer platform or framework sets
# the visibility of the messages it receives itself, that value replaces the queue's for those receives
# (ReceiveMessage VisibilityTimeout: "applies to the returned messages only").
RECEIVE_VISIBILITY_SOURCE = SQS_API + "API_ReceiveMessage.html"

# ECS: a container's stopTimeout, the wait between SIGTERM and SIGKILL: default 30 s, at most 120 s on Fargate
# (EC2: the agent's ECS_CONTAINER_STOP_TIMEOUT, default 30 s).
ECS_STOP_TIMEOUT = Range(
    2, 120, "s", "https://docs.aws.amazon.com/AmazonECS/latest/APIReference/API_ContainerDefinition.html"
)
DEFAULT_ECS_STOP_TIMEOUT = 30

# Kubernetes: a pod's terminationGracePeriodSeconds (preStop hook included), default 30 s; SIGKILL follows.
DEFAULT_K8S_GRACE_PERIOD = 30
K8S_GRACE_SOURCE = "https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-termination"

# Elastic Beanstalk worker environments: the aws:elasticbeanstalk:sqsd options, their defaults and ranges.
# sqsd's VisibilityTimeout is the one in effect for the messages it receives (it overrides the queue's), and its
# RetentionPeriod likewise; the application never sees a receipt handle, so it cannot extend visibility.
SQSD_SOURCE = (
    "https://docs.aws.amazon.com/elasticbeanstalk/latest/dg/command-options-general.html"
    "#command-options-general-elasticbeanstalksqsd"
)
SQSD_NAMESPACE = "aws:elasticbeanstalk:sqsd"
SQSD_OPTIONS = {  # option name -> (model name, default, Range)
    "VisibilityTimeout": ("visibility_override", 300, Range(0, 43_200, "s", SQSD_SOURCE)),
    "InactivityTimeout": ("inactivity_timeout", 299, Range(1, 36_000, "s", SQSD_SOURCE)),
    "ErrorVisibilityTimeout": ("error_visibility_timeout", 2, Range(0, 43_200, "s", SQSD_SOURCE)),
    "MaxRetries": ("max_retries", 10, Range(1, 100, "attempts", SQSD_SOURCE)),
    "RetentionPeriod": ("retention_period", 345_600, Range(60, 1_209_600, "s", SQSD_SOURCE)),
    "ConnectTimeout": ("connect_timeout", 5, Range(1, 60, "s", SQSD_SOURCE)),
    "HttpConnections": ("http_connections", 50, Range(1, 100, "connections", SQSD_SOURCE)),
}

# EventBridge Pipes with an SQS source: BatchSize 1..10,000 (default 10), MaximumBatchingWindowInSeconds 0..300;
# the messages stay hidden for the queue's visibility timeout; the source parameters have no dead-letter field,
# so the queue's redrive policy is the only stop for a poison message.
PIPES_SQS_SOURCE = (
    "https://docs.aws.amazon.com/eventbridge/latest/pipes-reference/API_PipeSourceSqsQueueParameters.html"
)
PIPES_SQS_GUIDE = "https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-sqs.html"
PIPES_BATCH_SIZE = Range(1, 10_000, "messages", PIPES_SQS_SOURCE)
DEFAULT_PIPES_BATCH_SIZE = 10
PIPES_BATCHING_WINDOW = Range(0, 300, "s", PIPES_SQS_SOURCE)
# A Step Functions Express workflow runs at most 5 minutes; an API destination call times out after 5 s.
STEP_FUNCTIONS_EXPRESS_MAX = 300
API_DESTINATION_TIMEOUT = 5

# SNS -> SQS subscriptions: a subscription's RedrivePolicy (deadLetterTargetArn only) catches delivery failures
# from SNS to the queue; a FIFO topic needs a FIFO dead-letter queue, a standard topic a standard one; same account
# and Region.
SNS_DLQ_SOURCE = "https://docs.aws.amazon.com/sns/latest/dg/sns-dead-letter-queues.html"

# KEDA aws-sqs-queue scaler defaults.
KEDA_SQS_SOURCE = "https://keda.sh/docs/latest/scalers/aws-sqs/"
KEDA_SCALE_ON_IN_FLIGHT = True

# Frameworks (reference/consumers.md §3): Celery/Kombu's SQS visibility_timeout default (used only when Kombu
# creates the queue), Laravel's queue:work --timeout default, sqs-consumer's unit of handleMessageTimeout (ms).
CELERY_SQS_VISIBILITY_DEFAULT = 1_800
CELERY_SQS_SOURCE = "https://docs.celeryq.dev/en/stable/getting-started/backends-and-brokers/sqs.html"
# Kombu's SQS transport creates each queue a worker consumes when it is not there yet (Channel._new_queue: ListQueues
# by the name first, then CreateQueue with Attributes {VisibilityTimeout: the transport option visibility_timeout,
# default 1800; FifoQueue: "true" for a name ending in .fifo}, no RedrivePolicy), named queue_name_prefix + the
# Celery queue's name, '.' written '-' and other punctuation but '-' and '_' written '_' (Channel.entity_name; a
# .fifo suffix kept). With broker_transport_options predefined_queues it creates none (it uses their urls).
# Checked 2026-12-02 in the source and the transport's reference page:
KOMBU_SQS_SOURCE = "https://github.com/celery/kombu/blob/main/kombu/transport/SQS.py"
KOMBU_SQS_DOCS = "https://docs.celeryq.dev/projects/kombu/en/stable/reference/kombu.transport.SQS.html"
LARAVEL_WORK_TIMEOUT_DEFAULT = 60
LARAVEL_QUEUES_SOURCE = "https://laravel.com/docs/12.x/queues#job-expirations-and-timeouts"
SPRING_LISTENER_SHUTDOWN_DEFAULT = 20
SHORYUKEN_SHUTDOWN_TIMEOUT_DEFAULT = 8
# aws-activejob-sqs (and aws-sdk-rails' SqsActiveJob before it): config/aws_active_job_sqs.yml
# (config/aws_sqs_active_job.yml) maps each ActiveJob queue to its SQS URL (or {url:, visibility_timeout:,
# max_messages:}); a visibility_timeout given (globally or per queue) is sent on every receive, else the queue's
# applies; shutdown_timeout (default 15 s) is the poller's wait for running jobs at shutdown. Checked 2026-12-02:
ACTIVEJOB_SQS_SOURCE = (
    "https://github.com/aws/aws-activejob-sqs-ruby/blob/main/lib/aws/active_job/sqs/configuration.rb"
)
ACTIVEJOB_SQS_SHUTDOWN_TIMEOUT_DEFAULT = 15
# Go SDK v2 sends ReceiveMessage's VisibilityTimeout only when it is not 0: a literal 0 there means "the queue's".
GO_SDK_ZERO_NOT_SENT = True


# ------------------------------------------------------------------ ECS capacity types and ESM metrics (issue 36)
# (fact-drift-2026-12.md rows P2 and L4.) Where an ECS task runs: the task definition's requiresCompatibilities and a
# service's launchType take one of these (ECS API Compatibility / LaunchType enums, botocore 1.44.8's ecs model,
# read 2026-12-02). A capacity provider strategy names FARGATE / FARGATE_SPOT or a capacity provider of the cluster.
ECS_CAPACITY_TYPES = ("EC2", "FARGATE", "EXTERNAL", "MANAGED_INSTANCES")
ECS_FARGATE_PROVIDERS = ("FARGATE", "FARGATE_SPOT")
ECS_CAPACITY_SOURCE = (
    "https://docs.aws.amazon.com/AmazonECS/latest/APIReference/API_RegisterTaskDefinition.html"
)
# ContainerDefinition.stopTimeout: "For tasks that use the Fargate launch type, the max stop timeout value is 120
# seconds"; "The valid values for Fargate are 2-120 seconds"; for EC2 the default is the agent's
# ECS_CONTAINER_STOP_TIMEOUT. No maximum is stated for EC2, EXTERNAL or MANAGED_INSTANCES (re-read 2026-12-02 on
# the API reference and in botocore 1.44.8's model; the Managed Instances guide pages found state none either): so
# visguard applies Fargate's cap where the task may run on Fargate (FARGATE in requiresCompatibilities: the task
# definition is validated against it) or where it cannot tell, and none elsewhere. Unconfirmed, not invented.
ECS_STOP_TIMEOUT_CAPS = {"FARGATE": 120}
ECS_MANAGED_INSTANCES_STOP_TIMEOUT_CAP = None  # no source states one (see above)
# ECS Managed Instances replaces its hosts for patching: "Amazon ECS Managed Instances have a maximum lifetime of 14
# days. Plan for task replacement", replaced inside maintenance windows (EC2 event windows); AWS Batch's guide:
# "initiates draining at day 14 from instance launch". Draining stops the host's tasks (SIGTERM, then stopTimeout).
ECS_MANAGED_INSTANCES_SOURCE = (
    "https://docs.aws.amazon.com/AmazonECS/latest/developerguide/migrate-fargate-to-managed-instances.html"
)
ECS_MANAGED_INSTANCES_MAX_LIFETIME_DAYS = 14
# Task scale-in protection covers "scale-in events from either service auto scaling or deployments" (not a host's
# draining).
ECS_TASK_PROTECTION_SOURCE = (
    "https://docs.aws.amazon.com/AmazonECS/latest/developerguide/task-scale-in-protection.html"
)
ECS_TASK_PROTECTION_COVERS = ("service auto scaling", "deployments")


def ecs_stop_timeout_cap(capacity: str | None, compatibilities=None) -> int | None:
    """The largest stopTimeout ECS documents for a task: Fargate's where the task may run on Fargate (its
    ``capacity`` is FARGATE, or its ``compatibilities`` name FARGATE, or neither is known), else None (none
    documented: EC2, EXTERNAL, MANAGED_INSTANCES)."""
    fargate = ECS_STOP_TIMEOUT_CAPS["FARGATE"]
    if compatibilities and "FARGATE" in compatibilities:
        return fargate
    if capacity is None:
        return None if compatibilities else fargate
    return ECS_STOP_TIMEOUT_CAPS.get(capacity)


# Lambda event source mapping metrics (MetricsConfig.Metrics: ["EventCount"]; off by default; EventCount is the only
# value for SQS, ErrorCount and KafkaMetrics are Kafka's). Namespace AWS/Lambda, dimension EventSourceMappingUUID.
# The metric names are defined on LAMBDA_DG monitoring-metrics-types.html#event-source-mapping-metrics, a page the
# search corpus does not hold: they were read 2026-12-02 in Grafana's CloudWatch metric list (below), and match
# Elastic's AWS integration (elastic/integrations#11907) and public Terraform/CDK alarms on them. The audit reads
# only the three it uses as evidence (polled, failed to invoke, deleted).
ESM_METRICS_CONFIG_SOURCE = LAMBDA_API + "API_EventSourceMappingMetricsConfig.html"
ESM_METRICS_VALUE = "EventCount"
ESM_METRIC_NAMES_SOURCE = (
    "https://github.com/grafana/grafana-aws-sdk/blob/main/pkg/cloudWatchConsts/metrics.go"
)
ESM_METRIC_NAMESPACE = "AWS/Lambda"
ESM_METRIC_DIMENSION = "EventSourceMappingUUID"
ESM_METRICS = {
    "polled": "PolledEventCount",
    "failed": "FailedInvokeEventCount",
    "deleted": "DeletedEventCount",
}


# ----------------------------------------------------------------------------------------- when each was checked
class Checked(Value):
    """Where a fact is stated, and the day (ISO 8601) someone last read it there and found it still true."""

    __slots__ = ("source", "checked")


# fact name -> Checked. Every public fact of this module has an entry (tests/common/test_facts_checked.py): a
# number without a page and a date is folklore. Strings that are pages (https://...) are sources, not facts.
CHECKED: dict[str, Checked] = {}


def checked(day: str, source: str, *names: str) -> None:
    """Record that the facts ``names`` were read at ``source`` on ``day`` (YYYY-MM-DD)."""
    for name in names:
        CHECKED[name] = Checked(source, day)


def sources_of(names) -> list[tuple[str, Checked]]:
    """The (name, Checked) of each fact in ``names`` that has one, in the order given, once each."""
    seen: dict[str, Checked] = {}
    for name in names:
        if name in CHECKED and name not in seen:
            seen[name] = CHECKED[name]
    return list(seen.items())


# The rows below were re-read on the day given; 2026-12-01 is the fact-drift review (design folder,
# reference/fact-drift-2026-12.md), which found each of these unchanged since 2024 (rows S3-S5, L3, L5, L6, P1,
# P3-P5, F2).
_SET_QUEUE = SQS_API + "API_SetQueueAttributes.html"
checked(
    "2026-12-01",
    _SET_QUEUE,
    "VISIBILITY_TIMEOUT",
    "DEFAULT_VISIBILITY_TIMEOUT",
    "RETENTION",
    "DEFAULT_RETENTION",
    "DELAY",
    "DEFAULT_DELAY",
)
checked("2026-12-01", VISIBILITY_CAP_SOURCE, "MAX_VISIBILITY")
checked("2026-12-01", DLQ_SOURCE, "MAX_RECEIVE_COUNT", "DLQ_KEEPS_ENQUEUE_TIMESTAMP")
checked("2026-12-01", FIFO_NAME_SOURCE, "FIFO_SUFFIX", "fifo_name_mismatch")
checked("2026-12-01", SQS_API + "API_ReceiveMessage.html", "RECEIVE_MAX_MESSAGES", "WAIT_TIME")
checked("2026-12-01", INFLIGHT_SOURCE, "INFLIGHT_QUOTA")
checked("2026-12-01", SQS_DG + "FIFO-queues-exactly-once-processing.html", "FIFO_DEDUP_SECONDS")
checked(
    "2026-12-01",
    LAMBDA_DG + "configuration-timeout.html",
    "LAMBDA_TIMEOUT",
    "DEFAULT_LAMBDA_TIMEOUT",
    "MAX_LAMBDA_TIMEOUT",
)
checked(
    "2026-12-01",
    LAMBDA_API + "API_CreateEventSourceMapping.html",
    "SQS_BATCH_SIZE",
    "DEFAULT_SQS_BATCH_SIZE",
    "MAX_BATCH_WITHOUT_WINDOW",
    "BATCHING_WINDOW",
    "BATCHING_WINDOW_ON_FIFO",
)
checked(
    "2026-12-01",
    LAMBDA_SQS_SCALING,
    "ESM_MAX_CONCURRENCY",
    "MIN_RESERVED_CONCURRENCY",
    "MIN_RECEIVE_COUNT_LAMBDA",
    "POLLERS",
)
checked(
    "2026-12-01",
    LAMBDA_SQS_CONFIGURE,
    "ESM_REQUIRES_VISIBILITY_AT_LEAST_TIMEOUT",
    "LAMBDA_VISIBILITY_MULTIPLIER",
    "lambda_guidance_visibility",
)
checked("2026-12-01", RECEIVE_VISIBILITY_SOURCE, "GO_SDK_ZERO_NOT_SENT")
checked("2026-12-01", ECS_STOP_TIMEOUT.source, "ECS_STOP_TIMEOUT", "DEFAULT_ECS_STOP_TIMEOUT")
checked("2026-12-01", K8S_GRACE_SOURCE, "DEFAULT_K8S_GRACE_PERIOD")
checked("2026-12-01", SQSD_SOURCE, "SQSD_NAMESPACE", "SQSD_OPTIONS")
checked(
    "2026-12-01",
    PIPES_SQS_SOURCE,
    "PIPES_BATCH_SIZE",
    "DEFAULT_PIPES_BATCH_SIZE",
    "PIPES_BATCHING_WINDOW",
)
checked(
    "2026-12-01",
    "https://docs.aws.amazon.com/step-functions/latest/dg/choosing-workflow-type.html",
    "STEP_FUNCTIONS_EXPRESS_MAX",
)
checked(
    "2026-12-01",
    "https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-api-destinations.html",
    "API_DESTINATION_TIMEOUT",
)
checked("2026-12-01", KEDA_SQS_SOURCE, "KEDA_SCALE_ON_IN_FLIGHT")
checked("2026-12-02", KOMBU_SQS_SOURCE, "CELERY_SQS_VISIBILITY_DEFAULT")
checked("2026-12-01", LARAVEL_QUEUES_SOURCE, "LARAVEL_WORK_TIMEOUT_DEFAULT")
checked(
    "2026-12-01",
    "https://docs.awspring.io/spring-cloud-aws/docs/3.4.0/reference/html/index.html#sqs-integration",
    "SPRING_LISTENER_SHUTDOWN_DEFAULT",
)
checked(
    "2026-12-01",
    "https://github.com/ruby-shoryuken/shoryuken/blob/main/lib/shoryuken/options.rb",
    "SHORYUKEN_SHUTDOWN_TIMEOUT_DEFAULT",
)
checked("2026-12-02", ACTIVEJOB_SQS_SOURCE, "ACTIVEJOB_SQS_SHUTDOWN_TIMEOUT_DEFAULT")

# ECS capacity types and ESM metrics (issue 36, fact-drift rows P2 and L4; helper ecsmi)
checked("2026-12-02", ECS_STOP_TIMEOUT.source, "ECS_STOP_TIMEOUT_CAPS", "ECS_MANAGED_INSTANCES_STOP_TIMEOUT_CAP",
        "ecs_stop_timeout_cap")  # fmt: skip
checked("2026-12-02", ECS_CAPACITY_SOURCE, "ECS_CAPACITY_TYPES", "ECS_FARGATE_PROVIDERS")
checked("2026-12-02", ECS_MANAGED_INSTANCES_SOURCE, "ECS_MANAGED_INSTANCES_MAX_LIFETIME_DAYS")
checked("2026-12-02", ECS_TASK_PROTECTION_SOURCE, "ECS_TASK_PROTECTION_COVERS")
checked("2026-12-02", ESM_METRICS_CONFIG_SOURCE, "ESM_METRICS_VALUE")
checked("2026-12-02", ESM_METRIC_NAMES_SOURCE, "ESM_METRIC_NAMESPACE", "ESM_METRIC_DIMENSION", "ESM_METRICS")
