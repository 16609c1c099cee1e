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
# @agiledigital/serverless-sns-sqs-lambda (a Serverless plugin: an ``snsSqs`` event makes a queue subscribed to a
# topic, its dead-letter queue and the function's event source mapping): the defaults of the options its README lists
# (github.com/agiledigital/serverless-sns-sqs-lambda README "Usage", read at ae8fef8)
SNS_SQS_PLUGIN = "@agiledigital/serverless-sns-sqs-lambda"
SNS_SQS_PLUGIN_SOURCE = "https://github.com/agiledigital/serverless-sns-sqs-lambda#usage"
SNS_SQS_PLUGIN_DEFAULTS = {
    "batchSize": 10,
    "maxRetryCount": 5,
    "deadLetterQueueEnabled": True,
    "enabled": True,
}
# Event source mapping parameters only a stream, a broker or a document database source takes (StartingPosition is
# required for Kinesis, DynamoDB Streams, MSK and self-managed Kafka, and not supported for SQS; Topics for Kafka,
# Queues for Amazon MQ): a mapping that sets one reads no SQS queue, whatever its EventSourceArn says.
ESM_NOT_SQS = (
    "StartingPosition", "StartingPositionTimestamp", "Topics", "Queues", "SelfManagedEventSource",
    "SelfManagedKafkaEventSourceConfig", "AmazonManagedKafkaEventSourceConfig", "DocumentDBEventSourceConfig",
)  # fmt: skip
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
# The AWS SDK for Rust (aws-sdk-sqs) serializes a ReceiveMessage / ChangeMessageVisibility field only when it is set
# (``if let Some(v) = &input.visibility_timeout``), and then whatever its value: an option the code does not call is
# not sent (the queue's visibility applies); a ``visibility_timeout(0)`` is sent as 0 (unlike Go's v2).
RUST_SDK_SENDS_SET_VALUE = True
RUST_SDK_SQS_SERIALIZER = (
    "https://docs.rs/crate/aws-sdk-sqs/latest/source/src/protocol_serde/shape_receive_message_input.rs"
)


# ------------------------------------------------ Lambda Managed Instances and durable functions (issue 36: L7, L8)
# Lambda Managed Instances: a function with a capacity provider (CloudFormation CapacityProviderConfig) may have a
# Timeout of up to 5,400 s (90 min) for asynchronous and event source mapping invocations (except Amazon MQ and
# Amazon DocumentDB); other functions keep the 900 s maximum (MAX_LAMBDA_TIMEOUT). The English page indexed on the
# day still said only 900 s; the newer edition (read in its Italian machine translation) states the 5,400 s.
MANAGED_INSTANCES_TIMEOUT_SOURCE = (
    "https://docs.aws.amazon.com/it_it/lambda/latest/dg/configuration-timeout.md"
)
MAX_LAMBDA_TIMEOUT_MANAGED = 5_400
# Durable functions: DurableConfig.ExecutionTimeout 1..31,622,400 s (366 days), for the whole durable execution.
DURABLE_EXECUTION_TIMEOUT = Range(
    1,
    31_622_400,
    "s",
    "https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-properties-lambda-function-durableconfig.html",
)
# "Event source mappings invoke durable functions synchronously, waiting for the complete durable execution to
# finish before processing the next batch or marking records as processed. If the total durable execution time
# exceeds the applicable timeout limit (15 minutes by default, or up to 90 minutes for functions running on Lambda
# Managed Instances), the execution times out and fails." A mapped batch stays in flight for the durable
# execution, bounded by the ExecutionTimeout and by that limit. The page states no visibility multiple for it
# (the 6x guidance is stated for the function timeout only).
DURABLE_ESM_SOURCE = "https://docs.aws.amazon.com/gb_gb/lambda/latest/dg/durable-invoking-esm.md"
DURABLE_ESM_WAITS_FOR_EXECUTION = True


def lambda_max_timeout(managed_instances: bool) -> int:
    """The largest function Timeout Lambda accepts for a function invoked by an event source mapping: 5,400 s on
    Lambda Managed Instances (a capacity provider), else 900 s."""
    return MAX_LAMBDA_TIMEOUT_MANAGED if managed_instances else MAX_LAMBDA_TIMEOUT


def durable_esm_bound(execution_timeout: float, managed_instances: bool) -> tuple[float, str]:
    """How long a batch an event source mapping delivers to a durable function can stay in the invocation, and
    what bounds it: ``"execution_timeout"``, the function's DurableConfig.ExecutionTimeout, or
    ``"invocation_limit"``, the mapping's invocation limit (900 s, or 5,400 s on Lambda Managed Instances) at
    which the durable execution times out. The one implementation."""
    limit = lambda_max_timeout(managed_instances)
    if execution_timeout <= limit:
        return float(execution_timeout), "execution_timeout"
    return float(limit), "invocation_limit"


# --- Spring Cloud AWS error handlers, Laravel 13 job attributes, Shoryuken 7 (issue 36, F4/F6/F7) ------------------
# Spring Cloud AWS 3.4.0 (2025-06-10) adds two AsyncErrorHandler implementations that change a failed message's
# visibility (ChangeMessageVisibility, counted from the call) so the next receive comes from the handler's
# settings, not the queue's timeout: ImmediateRetryAsyncErrorHandler sets 0 (retried at once);
# ExponentialBackoffErrorHandler sets initialVisibilityTimeoutSeconds * multiplier^(ApproximateReceiveCount - 1),
# capped by maxVisibilityTimeoutSeconds (defaults 100, 2.0, 43,200; a builder value outside 1-43,200 throws).
# 3.4.1 adds LinearBackoffErrorHandler (initial + increment * (receiveCount - 1), increment default 2, same cap)
# and jitter (Jitter.FULL: uniform in [0, t]; Jitter.HALF: [ceil(t/2), t]). Set as an AsyncErrorHandler @Bean of
# the auto-configured factory, or SqsMessageListenerContainerFactory.builder().errorHandler(...). Read in
# awspring/spring-cloud-aws at tags v3.3.1 (none), v3.4.0, v3.4.1 and main@98f0f4de (BackoffVisibilityConstants,
# ErrorHandlerVisibilityHelper.calculateVisibilityTimeoutExponentially/Linearly, docs sqs.adoc):
SPRING_ERROR_HANDLER_SOURCE = (
    "https://github.com/awspring/spring-cloud-aws/tree/v3.4.1/spring-cloud-aws-sqs/src/main/java/io/awspring/"
    "cloud/sqs/listener/errorhandler"
)
SPRING_ERROR_HANDLER_DOCS = "https://github.com/awspring/spring-cloud-aws/blob/main/docs/src/main/asciidoc/sqs.adoc#immediate-retry-error-handler"
SPRING_ERROR_HANDLERS_SINCE = {  # handler class -> the first release that has it
    "ImmediateRetryAsyncErrorHandler": (3, 4, 0),
    "ExponentialBackoffErrorHandler": (3, 4, 0),
    "LinearBackoffErrorHandler": (3, 4, 1),
}
SPRING_BACKOFF_INITIAL_DEFAULT = 100
SPRING_BACKOFF_MULTIPLIER_DEFAULT = 2.0
SPRING_BACKOFF_INCREMENT_DEFAULT = 2
SPRING_BACKOFF_MAX_DEFAULT = 43_200
# Laravel 13 (2026-03-17): job classes may declare their limits as class attributes (Illuminate\Queue\Attributes:
# #[Timeout(n)], #[Tries(n)], #[Backoff(n | [..])], #[FailOnTimeout], #[Queue('name')]); an attribute wins over the
# property of the same meaning (ReadsQueueAttributes::getAttributeValue reads the attribute first). A job that
# names no queue is pushed to the default queue of its connection ('queue' of config/queue.php's connection).
LARAVEL_ATTRIBUTES_SOURCE = "https://laravel.com/docs/13.x/queues#max-job-attempts-and-timeout"
LARAVEL_ATTRIBUTES_CODE = (
    "https://github.com/laravel/framework/blob/13.x/src/Illuminate/Queue/Attributes/ReadsQueueAttributes.php"
)
LARAVEL_JOB_ATTRIBUTES = ("Timeout", "Tries", "Backoff", "FailOnTimeout", "Queue")
# Shoryuken 7.0.3 (2026-07-10): the soft stop (USR1/TSTP) is bounded by `timeout` too (default 8 s, then the
# processors are killed; before it waited without bound), like the hard stop (TERM); 7.0.1: an exception named in
# non_retryable_exceptions deletes the message at once (it never reaches the dead-letter queue).
SHORYUKEN_CHANGELOG = "https://github.com/ruby-shoryuken/shoryuken/blob/main/CHANGELOG.md"
SHORYUKEN_SOFT_STOP_BOUNDED_SINCE = (7, 0, 3)
SHORYUKEN_NON_RETRYABLE_DELETES_SINCE = (7, 0, 1)
# `shoryuken sqs create QUEUE-NAME [-a|--attributes KEY:VALUE ...]` (Thor's hash option) calls CreateQueue with
# those attributes, and FifoQueue=true when the name ends with .fifo (bin/cli/sqs.rb)
SHORYUKEN_CLI = "https://github.com/ruby-shoryuken/shoryuken/blob/main/bin/cli/sqs.rb"
SHORYUKEN_CLI_CREATE = ("sqs", "create")
# ------------------------------------------------------ Lambda + SQS mapping: provisioned mode (issue 36, pollers)
# ProvisionedPollerConfig (fact-drift-2026-12 rows L1, L2; reference/lambda-sqs-esm.md section 6). "You can control
# the scaling behavior of your Amazon SQS event source mappings either through maximum concurrency settings or by
# enabling provisioned mode. These are mutually exclusive options" (services-sqs-scaling); "for Amazon SQS event
# sources, the maximum concurrency setting cannot be used with provisioned mode" (invocation-eventsourcemapping).
PROVISIONED_POLLER_API = LAMBDA_API + "API_ProvisionedPollerConfig.html"
PROVISIONED_MODE_SOURCE = (
    LAMBDA_DG + "invocation-eventsourcemapping.html#invocation-eventsourcemapping-provisioned-mode"
)
# SQS: MinimumPollers 2..200, default 2; MaximumPollers "between 2 and 10,000, with a default of 200" (the API model
# allowed at most 2,000 until 2026-06-18; the developer guide still says 2,000).
MIN_POLLERS = Range(2, 200, "pollers", PROVISIONED_POLLER_API)
MAX_POLLERS = Range(2, 10_000, "pollers", PROVISIONED_POLLER_API)
DEFAULT_MIN_POLLERS = 2
DEFAULT_MAX_POLLERS = 200
PROVISIONED_EXCLUDES_MAX_CONCURRENCY = True
# Each poller runs up to 10 concurrent invokes (and <= 1 MB/s, <= 10 SQS polls/s); Lambda adds "up to 1,000
# concurrency per minute" between the minimum and the maximum; the minimum pollers stay provisioned.
INVOKES_PER_POLLER = 10
PROVISIONED_ADDED_PER_MINUTE = 1_000
# aws-cdk-lib's SqsEventSource still validates SQS MaximumPollers 2..2,000 (through 2.276): a CDK app cannot
# synthesize more, though the API accepts up to 10,000.
CDK_MAX_POLLERS = 2_000
CDK_SQS_EVENT_SOURCE = (
    "https://github.com/aws/aws-cdk/blob/main/packages/aws-cdk-lib/aws-lambda-event-sources/lib/sqs.ts"
)


def provisioned_pollers(min_pollers: int | None, max_pollers: int | None, fifo: bool = False) -> Pollers:
    """How a mapping in provisioned mode scales, for its MinimumPollers / MaximumPollers (None: the default): it
    starts with the minimum pollers' invokes, adds up to 1,000 concurrency a minute, up to 10 x MaximumPollers
    concurrent invokes. On a FIFO queue the active message groups still bound it (one batch per group)."""
    lo = DEFAULT_MIN_POLLERS if min_pollers is None else min_pollers
    hi = DEFAULT_MAX_POLLERS if max_pollers is None else max_pollers
    return Pollers(
        None if fifo else INVOKES_PER_POLLER * lo,
        PROVISIONED_ADDED_PER_MINUTE,
        INVOKES_PER_POLLER * hi,
        "MaximumPollers"
        + (
            " and the number of active message groups" if fifo else " and the function's reserved concurrency"
        ),
        source=PROVISIONED_MODE_SOURCE,
    )


def esm_pollers(fifo: bool, min_pollers: int | None = None, max_pollers: int | None = None) -> Pollers:
    """The scaling of one SQS event source mapping: provisioned mode when either poller count is set (a
    ProvisionedPollerConfig), else the queue type's standard mode (:data:`POLLERS`). The one place that decides."""
    if min_pollers is None and max_pollers is None:
        return POLLERS[queue_kind(fifo)]
    return provisioned_pollers(min_pollers, max_pollers, fifo)


# ------------------------------------------------------------------ consumer library versions (issue 36: pyjs)
# What changed between releases of two consumer libraries (reference/fact-drift-2026-12.md F1, F2, F8), decided by
# the version a repository pins (linter/loaders/code/dependencies.py), else by the newest release below.
# Versions are tuples; "released" means a tag of the library's repository, checked 2026-12-02 with git (fetch).
#
# Kombu's SQS transport, every release up to the newest (5.6.2, 2025-12-29): Channel.visibility_timeout is
# `transport_options.get('visibility_timeout') or 1800`, so a visibility_timeout of 0 creates the queue with
# 1,800 s; and CreateQueue is sent Attributes {'VisibilityTimeout': str(value)}, so 21600.0 is sent as "21600.0",
# which SQS refuses (InvalidAttributeValue): the worker fails at start when Kombu creates the queue (a queue that
# exists already is only looked up: _new_queue resolves its URL first). main since 2415b0cb (2026-08-18, #2581):
# `int(float(v))`, an explicit 0 honoured; in no release.
KOMBU_NEWEST_RELEASE = (5, 6, 2)
KOMBU_VISIBILITY_FIX_RELEASE = None  # the first release with #2581: none yet
KOMBU_VISIBILITY_SOURCE = "https://github.com/celery/kombu/blob/v5.6.2/kombu/transport/SQS.py#L887-L889"
KOMBU_VISIBILITY_FIX = "https://github.com/celery/kombu/pull/2581"
# A rejected (requeued) message: before 5.6.0 ChangeMessageVisibility(VisibilityTimeout=0), visible at once; from
# 5.6.0 (2025-11-01, #2049, 68620dac) VisibilityTimeout=wait_time_seconds (default 10 s).
KOMBU_REJECT_WAITS_FROM = (5, 6, 0)
KOMBU_WAIT_TIME_DEFAULT = 10
KOMBU_CHANGELOG = "https://github.com/celery/kombu/blob/v5.6.2/Changelog.rst"
# The Kombu a Celery release installs (requirements/default.txt of each Celery tag): (first Celery version, Kombu
# range, the newest Kombu release that range admits today). A repository that pins Celery (celery[sqs]) but not
# Kombu gets that newest admitted Kombu: what pip resolves it to.
CELERY_KOMBU = (
    ((5, 3, 0), "kombu>=5.3.4,<6.0", (5, 6, 2)),
    ((5, 5, 0), "kombu>=5.5.2,<5.6", (5, 5, 4)),
    ((5, 6, 0), "kombu>=5.6.0", (5, 6, 2)),
)
CELERY_REQUIREMENTS_SOURCE = "https://github.com/celery/celery/blob/v5.6.2/requirements/default.txt"
#
# Node sqs-consumer (bbc): from 14.0.0 (2025-09-01, #583) the result of handleMessage decides the delete:
# executeHandler returns the handler's result when it is an object, else null (before 14: the message itself
# unless the result was an object), and processMessage deletes only when that result's MessageId is the
# message's. So a handler that returns nothing (undefined, void), or true, or any non-object, leaves the message
# in the queue: it is received again after its visibility timeout, until maxReceiveCount moves it to the DLQ, or
# forever without one. handleMessageBatch: only the messages of the array it returns are deleted (none when it
# returns no array). alwaysAcknowledge: true (default false) deletes every message whatever the handler returns;
# shouldDeleteMessages: false deletes none. Newest release 15.0.3 (2026-07-17), same semantics.
SQS_CONSUMER_RETURN_ACKS_FROM = (14, 0, 0)
SQS_CONSUMER_NEWEST_RELEASE = (15, 0, 3)
SQS_CONSUMER_ACK_SOURCE = "https://github.com/bbc/sqs-consumer/blob/v14.0.0/src/consumer.ts#L545-L575"
SQS_CONSUMER_ACK_CHANGE = "https://github.com/bbc/sqs-consumer/pull/583"
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


# ------------------------------------------------------------------ AWS CDK construct defaults (CDK source reader)
# The defaults the CDK source reader (linter/loaders/code/cdk_source.py) relies on, where a construct is written
# without the property. Each equals what CloudFormation/the service applies when the synthesized property is absent,
# so the reader leaves the property out and the CloudFormation loader's defaults apply; SST's differs and is set.
# aws-cdk-lib SqsEventSourceProps: batchSize "@default 10", reportBatchItemFailures "@default false",
# maxBatchingWindow "@default - no batching window" (aws-lambda-event-sources/lib/sqs.ts, read in its v2 docs page).
CDK_SQS_EVENT_SOURCE_PROPS = "https://docs.aws.amazon.com/cdk/api/v2/docs/aws-cdk-lib.aws_lambda_event_sources.SqsEventSourceProps.html"
CDK_SQS_EVENT_SOURCE_BATCH_SIZE = 10
CDK_SQS_EVENT_SOURCE_REPORTS_FAILURES = False
# aws-cdk-lib QueueProps: visibilityTimeout "Duration.seconds(30)" (the docs' example marks it "// default"),
# retentionPeriod "Duration.days(4)"; both SQS's own defaults (DEFAULT_VISIBILITY_TIMEOUT, DEFAULT_RETENTION).
CDK_QUEUE_PROPS = "https://docs.aws.amazon.com/cdk/api/v2/docs/aws-cdk-lib.aws_sqs.QueueProps.html"
CDK_QUEUE_VISIBILITY_DEFAULT = DEFAULT_VISIBILITY_TIMEOUT
CDK_QUEUE_RETENTION_DEFAULT = DEFAULT_RETENTION
# aws-cdk-lib FunctionOptions.timeout "@default Duration.seconds(3)": Lambda's own default.
CDK_FUNCTION_OPTIONS = (
    "https://docs.aws.amazon.com/cdk/api/v2/docs/aws-cdk-lib.aws_lambda.FunctionOptions.html"
)
CDK_FUNCTION_TIMEOUT_DEFAULT = 3
# SST v2 Function (sst/constructs): timeout "@default 10 seconds", Function.normalizeTimeout: `timeout || 10`, unless
# the app's setDefaultFunctionProps/addDefaultFunctionProps says otherwise (merged into every function's props). SST's
# Queue consumer is an SqsEventSource with the consumer's cdk.eventSource props (CDK's defaults above).
SST_FUNCTION_SOURCE = "https://github.com/sst/sst/blob/v2/packages/sst/src/constructs/Function.ts"
SST_FUNCTION_TIMEOUT = 10
SST_QUEUE_SOURCE = "https://github.com/sst/sst/blob/v2/packages/sst/src/constructs/Queue.ts"
SST_QUEUE_CONSUMER_IS_SQS_EVENT_SOURCE = True
# aws-cdk-lib ecs_patterns QueueProcessingFargateService / QueueProcessingEc2Service (QueueProcessingServiceBase): a
# given `queue` is used as is (retentionPeriod, visibilityTimeout, maxReceiveCount are then rejected at synth); else
# the pattern makes `EcsProcessingDeadLetterQueue` (retentionPeriod "@default Duration.days(14)": the DLQ's) and
# `EcsProcessingQueue` (visibilityTimeout "@default Duration.seconds(30)", left unset: SQS's; deadLetterQueue
# {queue: the DLQ, maxReceiveCount: `props.maxReceiveCount || 3`}); the container (containerName
# "QueueProcessingContainer") gets `QUEUE_NAME: queue.queueName` over the props' environment, and
# `queue.grantConsumeMessages(taskDefinition.taskRole)`: the service's tasks are the queue's consumer.
CDK_QUEUE_PROCESSING_SOURCE = (
    "https://github.com/aws/aws-cdk/blob/main/packages/aws-cdk-lib/aws-ecs-patterns/lib/base/"
    "queue-processing-service-base.ts"
)
CDK_QUEUE_PROCESSING_MAX_RECEIVE_COUNT = 3
CDK_QUEUE_PROCESSING_DLQ_RETENTION = 14 * 86_400
CDK_QUEUE_PROCESSING_VISIBILITY_DEFAULT = DEFAULT_VISIBILITY_TIMEOUT
CDK_QUEUE_PROCESSING_QUEUE_ENV = "QUEUE_NAME"
CDK_QUEUE_PROCESSING_CONTAINER = "QueueProcessingContainer"

# ------------------------------------------------- CloudFormation stacks that own deployed resources (issue 39 §1)
# The stack statuses whose resources exist, out of the StackStatus enum (botocore 1.44.8's cloudformation model,
# read 2026-12-03; the ListStacks API reference lists the same values): the stable ones (CREATE_COMPLETE,
# UPDATE_COMPLETE, UPDATE_ROLLBACK_COMPLETE, IMPORT_COMPLETE, IMPORT_ROLLBACK_COMPLETE) and those an update or a
# failed delete leaves the resources in. Not: DELETE_COMPLETE (gone), ROLLBACK_COMPLETE / ROLLBACK_IN_PROGRESS /
# CREATE_* (a creation that did not finish), REVIEW_IN_PROGRESS (a change set, nothing created).
CFN_OWNING_STATUSES = (
    "CREATE_COMPLETE",
    "UPDATE_IN_PROGRESS",
    "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS",
    "UPDATE_COMPLETE",
    "UPDATE_FAILED",
    "UPDATE_ROLLBACK_IN_PROGRESS",
    "UPDATE_ROLLBACK_FAILED",
    "UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS",
    "UPDATE_ROLLBACK_COMPLETE",
    "DELETE_FAILED",
    "ROLLBACK_FAILED",
    "IMPORT_COMPLETE",
    "IMPORT_ROLLBACK_FAILED",
    "IMPORT_ROLLBACK_COMPLETE",
)
CFN_STACK_STATUS_SOURCE = (
    "https://docs.aws.amazon.com/AWSCloudFormation/latest/APIReference/API_ListStacks.html"
)
# A template's size: 51,200 bytes passed inline, 1 MB from S3 (CloudFormation quotas, "Template body size in an
# Amazon S3 object"). GetTemplate returns the original or the processed template (a SAM transform's output can be
# larger than what was uploaded).
CFN_TEMPLATE_MAX_BYTES = 1_000_000
CFN_QUOTAS_SOURCE = (
    "https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cloudformation-limits.html"
)
# The metadata key the CDK writes on every resource it synthesizes (aws-cdk-lib, cxapi.PATH_METADATA_KEY).
CDK_PATH_METADATA = "aws:cdk:path"
CDK_PATH_METADATA_SOURCE = (
    "https://docs.aws.amazon.com/cdk/v2/guide/ref-cli-cmd-synth.html"  # --path-metadata
)


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
checked("2026-12-04", LAMBDA_API + "API_CreateEventSourceMapping.html", "ESM_NOT_SQS")
checked("2026-12-04", SNS_SQS_PLUGIN_SOURCE, "SNS_SQS_PLUGIN", "SNS_SQS_PLUGIN_DEFAULTS")
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
checked("2026-12-03", RUST_SDK_SQS_SERIALIZER, "RUST_SDK_SENDS_SET_VALUE")
checked("2026-12-03", SHORYUKEN_CLI, "SHORYUKEN_CLI_CREATE")
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
# Lambda Managed Instances and durable functions (issue 36, rows L7 and L8), read on the day given
checked("2026-12-02", MANAGED_INSTANCES_TIMEOUT_SOURCE, "MAX_LAMBDA_TIMEOUT_MANAGED", "lambda_max_timeout")
checked("2026-12-02", DURABLE_EXECUTION_TIMEOUT.source, "DURABLE_EXECUTION_TIMEOUT")
checked("2026-12-02", DURABLE_ESM_SOURCE, "DURABLE_ESM_WAITS_FOR_EXECUTION", "durable_esm_bound")

# issue 36 (Spring Cloud AWS error handlers, Laravel 13 attributes, Shoryuken 7): read in the sources today
checked(
    "2026-12-02",
    SPRING_ERROR_HANDLER_SOURCE,
    "SPRING_ERROR_HANDLERS_SINCE",
    "SPRING_BACKOFF_INITIAL_DEFAULT",
    "SPRING_BACKOFF_MULTIPLIER_DEFAULT",
    "SPRING_BACKOFF_INCREMENT_DEFAULT",
    "SPRING_BACKOFF_MAX_DEFAULT",
)
checked("2026-12-02", LARAVEL_ATTRIBUTES_CODE, "LARAVEL_JOB_ATTRIBUTES")
checked(
    "2026-12-01",
    SHORYUKEN_CHANGELOG,
    "SHORYUKEN_SOFT_STOP_BOUNDED_SINCE",
    "SHORYUKEN_NON_RETRYABLE_DELETES_SINCE",
)

# Lambda + SQS mapping, provisioned mode (issue 36, pollers): read 2026-12-02 in the docs corpus (the API reference's
# current English text, and the scaling page with its provisioned-mode section); CDK's bound from the reference
# document (fact-drift-2026-12 row L2).
checked(
    "2026-12-02",
    PROVISIONED_POLLER_API,
    "MIN_POLLERS",
    "MAX_POLLERS",
    "DEFAULT_MIN_POLLERS",
    "DEFAULT_MAX_POLLERS",
)
checked(
    "2026-12-02",
    LAMBDA_SQS_SCALING,
    "PROVISIONED_EXCLUDES_MAX_CONCURRENCY",
    "INVOKES_PER_POLLER",
    "PROVISIONED_ADDED_PER_MINUTE",
    "provisioned_pollers",
    "esm_pollers",
)
checked("2026-12-01", CDK_SQS_EVENT_SOURCE, "CDK_MAX_POLLERS")

# consumer library versions (issue 36: pyjs): read in the libraries' repositories with git on 2026-12-02
checked(
    "2026-12-02",
    KOMBU_VISIBILITY_SOURCE,
    "KOMBU_NEWEST_RELEASE",
    "KOMBU_VISIBILITY_FIX_RELEASE",
    "KOMBU_WAIT_TIME_DEFAULT",
)
checked("2026-12-02", KOMBU_CHANGELOG, "KOMBU_REJECT_WAITS_FROM")
checked("2026-12-02", CELERY_REQUIREMENTS_SOURCE, "CELERY_KOMBU")
checked("2026-12-02", SQS_CONSUMER_ACK_SOURCE, "SQS_CONSUMER_RETURN_ACKS_FROM", "SQS_CONSUMER_NEWEST_RELEASE")

# ECS capacity types and ESM metrics (issue 36, fact-drift rows P2 and L4; helper ecsmi)
checked("2026-12-02", ECS_STOP_TIMEOUT.source, "ECS_STOP_TIMEOUT_CAPS", "ECS_MANAGED_INSTANCES_STOP_TIMEOUT_CAP",
        "ecs_stop_timeout_cap")  # fmt: skip
checked("2026-12-02", ECS_CAPACITY_SOURCE, "ECS_CAPACITY_TYPES", "ECS_FARGATE_PROVIDERS")
checked("2026-12-02", ECS_MANAGED_INSTANCES_SOURCE, "ECS_MANAGED_INSTANCES_MAX_LIFETIME_DAYS")
checked("2026-12-02", ECS_TASK_PROTECTION_SOURCE, "ECS_TASK_PROTECTION_COVERS")
checked("2026-12-02", ESM_METRICS_CONFIG_SOURCE, "ESM_METRICS_VALUE")
checked("2026-12-02", ESM_METRIC_NAMES_SOURCE, "ESM_METRIC_NAMESPACE", "ESM_METRIC_DIMENSION", "ESM_METRICS")

# AWS CDK construct defaults (the CDK source reader)
checked(
    "2026-12-03",
    CDK_SQS_EVENT_SOURCE_PROPS,
    "CDK_SQS_EVENT_SOURCE_BATCH_SIZE",
    "CDK_SQS_EVENT_SOURCE_REPORTS_FAILURES",
)
checked("2026-12-03", CDK_QUEUE_PROPS, "CDK_QUEUE_VISIBILITY_DEFAULT", "CDK_QUEUE_RETENTION_DEFAULT")
checked("2026-12-03", CDK_FUNCTION_OPTIONS, "CDK_FUNCTION_TIMEOUT_DEFAULT")
checked("2026-12-03", SST_FUNCTION_SOURCE, "SST_FUNCTION_TIMEOUT")
checked("2026-12-03", SST_QUEUE_SOURCE, "SST_QUEUE_CONSUMER_IS_SQS_EVENT_SOURCE")
checked(
    "2026-12-03",
    CDK_QUEUE_PROCESSING_SOURCE,
    "CDK_QUEUE_PROCESSING_MAX_RECEIVE_COUNT",
    "CDK_QUEUE_PROCESSING_DLQ_RETENTION",
    "CDK_QUEUE_PROCESSING_VISIBILITY_DEFAULT",
    "CDK_QUEUE_PROCESSING_QUEUE_ENV",
    "CDK_QUEUE_PROCESSING_CONTAINER",
)

# CloudFormation stacks that own deployed resources (issue 39 §1; helper owners)
checked("2026-12-03", CFN_STACK_STATUS_SOURCE, "CFN_OWNING_STATUSES")
checked("2026-12-03", CFN_QUOTAS_SOURCE, "CFN_TEMPLATE_MAX_BYTES")
checked("2026-12-03", CDK_PATH_METADATA_SOURCE, "CDK_PATH_METADATA")

# Spring Cloud AWS 2.x (io.awspring.cloud 2.3/2.4, spring-cloud-aws-autoconfigure SqsProperties): the
# auto-configured SimpleMessageListenerContainer takes cloud.aws.sqs.listener.{max-number-of-messages,
# visibility-timeout (seconds, sent on every ReceiveMessage when set), wait-timeout, queue-stop-timeout,
# back-off-time, auto-startup}; the QueueMessageHandler takes cloud.aws.sqs.handler.default-deletion-policy
# (ALWAYS, NEVER, NO_REDRIVE, ON_SUCCESS). Read in awspring/spring-cloud-aws@a130ec45
# (SqsAutoConfigurationTest: configuration_withCustomProperties_shouldBeUsedByTheContainer / ...QueueMessageHandler).
SPRING2_PROPERTIES_SOURCE = (
    "https://github.com/awspring/spring-cloud-aws/blob/a130ec45f462ae12e38b626179bc90a060972f68/"
    "spring-cloud-aws-autoconfigure/src/test/java/io/awspring/cloud/autoconfigure/messaging/"
    "SqsAutoConfigurationTest.java"
)
SPRING2_PROPERTIES = {  # property -> what it sets on every @SqsListener of the auto-configured container
    "cloud.aws.sqs.listener.visibility-timeout": "visibility_override",
    "cloud.aws.sqs.listener.max-number-of-messages": "max_messages",
    "cloud.aws.sqs.listener.wait-timeout": "wait_time",
    "cloud.aws.sqs.handler.default-deletion-policy": "deletion_policy",
}
checked("2026-12-03", SPRING2_PROPERTIES_SOURCE, "SPRING2_PROPERTIES")
