"""The pure middle of the CDK constructs: how a GuardedQueue's settings become numbers and a linter Model.

Nothing here imports aws_cdk: durations arrive as seconds, so every rule of derivation is a small function
that tests call directly. ``GuardedQueue`` (guarded_queue.py) is the CDK edge around these functions; the
checks themselves are the linter's rules (``visguard.linter.api.lint_model``), never a copy of them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

from visguard.facts import RETENTION, durable_esm_bound
from visguard.linter.model import (
    DEFAULT_RETENTION,
    DEFAULT_VISIBILITY_TIMEOUT,
    MAX_VISIBILITY_TIMEOUT,
    Consumer,
    Location,
    Model,
    Queue,
    Redrive,
    lambda_guidance_visibility,
)
from visguard.linter.rules import DEFAULT_SETTINGS

# The derivation meets exactly what the rules demand, so the defaults come from the rules' own settings:
# - VG011, AWS Lambda Developer Guide (with-sqs.md / services-sqs-configure.html): "set your queue visibility
#   timeout to six times your function timeout, plus the value of MaximumBatchingWindowInSeconds".
LAMBDA_MULTIPLIER = float(DEFAULT_SETTINGS["lambda_multiplier"])
# - VG015: heartbeats at most half the window apart, so a heartbeating worker gets twice its interval (seed 002:
#   a heartbeat every 15 min under a 30 min timeout).
HEARTBEAT_FACTOR = 1.0 / float(DEFAULT_SETTINGS["heartbeat_max_fraction"])
# - VG012: without a heartbeat, the smallest timeout for which the engine's fast risk model expects at most this
#   share of messages to be processed twice (visguard.engine.risk.required_visibility).
DEFAULT_TARGET_DUPLICATE_RATE = float(DEFAULT_SETTINGS["target_duplicate_rate"])
# SQS MessageRetentionPeriod maximum (SetQueueAttributes API: 60..1,209,600 s). Standard DLQs keep the original
# enqueue timestamp, so the DLQ should keep messages longer than the source (SQS DG, dead-letter queues).
DLQ_RETENTION = int(RETENTION.hi)
# The age alarm never fires below this: SQS publishes queue metrics once a minute, and a few minutes of age is
# normal for any backlog.
MIN_AGE_ALARM_THRESHOLD = 300


@dataclass(frozen=True)
class LambdaSpec:
    """A Lambda event source mapping on a GuardedQueue, in seconds."""

    id: str  # construct path of the function
    function_timeout: float
    batch_size: int = 10
    batching_window: float | None = None
    report_batch_item_failures: bool = True
    max_concurrency: int | None = None
    reserved_concurrency: int | None = None
    capacity_provider: str | None = None  # Lambda Managed Instances: timeouts up to 5,400 s
    durable_execution_timeout: float | None = None  # a durable function's DurableConfig.ExecutionTimeout


@dataclass(frozen=True)
class WorkerSpec:
    """An ECS/EC2 worker fleet on a GuardedQueue: a processing profile and an optional heartbeat, in seconds."""

    id: str
    processing_p50: float
    processing_p99: float
    heartbeat_interval: float | None = None
    heartbeat_extend_by: float | None = None
    concurrency: int | None = None


@dataclass(frozen=True)
class QueueSettings:
    """Everything a GuardedQueue knows at synth time about its queue pair and consumers."""

    path: str  # construct path of the GuardedQueue
    template_file: str | None = None
    queue_name: str | None = None
    dlq_name: str | None = None
    fifo: bool = False
    visibility_timeout: float | None = None  # None: derive it
    retention: float | None = None
    delay: float | None = None
    max_receive_count: int | float = 5
    dlq_retention: float | None = DLQ_RETENTION
    processing_p50: float | None = None
    processing_p99: float | None = None
    arrival_rate: float | None = None
    target_duplicate_rate: float = DEFAULT_TARGET_DUPLICATE_RATE
    lambda_multiplier: float = LAMBDA_MULTIPLIER
    heartbeat_factor: float = HEARTBEAT_FACTOR
    lambdas: tuple[LambdaSpec, ...] = field(default_factory=tuple)
    workers: tuple[WorkerSpec, ...] = field(default_factory=tuple)

    @property
    def queue_id(self) -> str:
        return f"{self.path}/Queue"

    @property
    def dlq_id(self) -> str:
        return f"{self.path}/DeadLetterQueue"


def lambda_visibility(spec: LambdaSpec, multiplier: float = LAMBDA_MULTIPLIER) -> float:
    """6 x function timeout + maximum batching window (AWS Lambda DG); for a durable function at least its
    durable execution's bound + the window (no multiple: AWS states none for it; visguard.policy)."""
    window = spec.batching_window or 0.0
    guided = lambda_guidance_visibility(spec.function_timeout, window, multiplier)
    if spec.durable_execution_timeout is not None:
        bound, _ = durable_esm_bound(spec.durable_execution_timeout, spec.capacity_provider is not None)
        guided = max(guided, bound + window)
    return guided


def worker_need(
    spec: WorkerSpec,
    target_duplicate_rate: float = DEFAULT_TARGET_DUPLICATE_RATE,
    heartbeat_factor: float = HEARTBEAT_FACTOR,
):
    """The visibility-need policy's answer for a worker (``visguard.policy.Need``): its timeout, and the
    heartbeat plan it should follow when a timeout alone cannot cover it (past the 12-hour cap)."""
    from visguard import policy

    work = policy.Work(
        "worker",
        p50=spec.processing_p50,
        p99=spec.processing_p99,
        heartbeat_interval=spec.heartbeat_interval,
        heartbeat_extend_by=spec.heartbeat_extend_by,
        label=spec.id,
    )
    return policy.need(
        work, target_duplicate_rate=target_duplicate_rate, heartbeat_max_fraction=1.0 / heartbeat_factor
    )


def heartbeat_required(
    spec: WorkerSpec,
    target_duplicate_rate: float = DEFAULT_TARGET_DUPLICATE_RATE,
    heartbeat_factor: float = HEARTBEAT_FACTOR,
) -> str | None:
    """Why a worker without a heartbeat cannot be covered by any visibility timeout, with the plan that works in
    CDK terms (one line, no construct path); None when a timeout can do it or the worker heartbeats.

    A timeout alone cannot when the target duplicate rate needs more than the 43,200 s cap: the policy's heartbeat
    plan is the fix. When even a heartbeat leaves more than the target running past 12 h (the cap counts from
    the receive), the work must be split (Step Functions) or checkpointed; a p99 at or past 12 h is VG014's
    error, otherwise VG012 is the rule the queue would fail."""
    from .fixes import heartbeat_fix

    if spec.heartbeat_interval:
        return None
    need = worker_need(spec, target_duplicate_rate, heartbeat_factor)
    if need.heartbeat is None or need.required <= MAX_VISIBILITY_TIMEOUT:
        return None
    from visguard import policy

    tail = policy.lognormal_sf(min(spec.processing_p50, spec.processing_p99), spec.processing_p99)(
        MAX_VISIBILITY_TIMEOUT
    )
    profile = f"p50 {_duration_text(spec.processing_p50)}, p99 {_duration_text(spec.processing_p99)}"
    needs = "more than 12 h" if math.isinf(need.required) else f"{need.required:,.0f} s"
    plan = heartbeat_fix(need.heartbeat.extend_by, need.heartbeat.interval, guarded=True)
    if spec.processing_p99 >= MAX_VISIBILITY_TIMEOUT:
        return (
            f"VG014 (error) worker ({profile}) runs past the 12-hour visibility cap: {tail:.2%} of attempts "
            f"last longer than 43200 s from the receive, which neither a timeout nor a heartbeat can cover. "
            "Fix: split the work into steps that each finish within 12 hours (Step Functions) or checkpoint it "
            "and re-enqueue; a heartbeat does not lift the cap."
        )
    text = (
        f"VG012 worker ({profile}) needs a heartbeat: for at most {target_duplicate_rate:.2%} "
        f"duplicates the visibility timeout would need {needs}, past the 43200 s maximum. Fix: {plan}"
    )
    if not need.feasible:
        text += (
            f" Even then {tail:.2%} of attempts run past the 12-hour cap, which no heartbeat can extend: split "
            "the work into steps (Step Functions) or checkpoint it."
        )
    return text


def _duration_text(seconds: float) -> str:
    for unit, size in (("h", 3600), ("min", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{int(seconds // size)} {unit}"
    return f"{seconds:g} s"


@lru_cache(maxsize=1024)
def profile_visibility(
    p50: float, p99: float, target_duplicate_rate: float = DEFAULT_TARGET_DUPLICATE_RATE
) -> float:
    """The smallest visibility timeout for which at most ``target_duplicate_rate`` of attempts run longer, for a
    lognormal profile (p50, p99): the visibility-need policy's number (equal to the engine's
    ``required_visibility``); may exceed 43,200 s."""
    from visguard import policy

    return policy.required_timeout(policy.lognormal_sf(p50, p99), target_duplicate_rate, guess=p99)


def worker_visibility(
    spec: WorkerSpec,
    target_duplicate_rate: float = DEFAULT_TARGET_DUPLICATE_RATE,
    heartbeat_factor: float = HEARTBEAT_FACTOR,
) -> float:
    """With a heartbeat: comfortably above the interval (and at least one extension); without: from the profile,
    at most the 12-hour cap (past it the policy's heartbeat plan is the advice: VG012/VG014 print it)."""
    need = worker_need(spec, target_duplicate_rate, heartbeat_factor)
    return float(need.visibility_timeout if spec.heartbeat_interval else need.without_heartbeat)


def derive_visibility_timeout(settings: QueueSettings) -> int:
    """The visibility timeout a GuardedQueue synthesizes: the one given, else the largest need of its consumers
    (and of the queue's own processing profile), rounded up to whole seconds and capped at the 12 h maximum.
    A queue with no known consumer keeps the SQS default of 30 s."""
    if settings.visibility_timeout is not None:
        return int(math.ceil(settings.visibility_timeout))
    needs = [lambda_visibility(spec, settings.lambda_multiplier) for spec in settings.lambdas]
    needs += [
        worker_visibility(spec, settings.target_duplicate_rate, settings.heartbeat_factor)
        for spec in settings.workers
    ]
    if settings.processing_p50 is not None and settings.processing_p99 is not None:
        needs.append(
            profile_visibility(
                settings.processing_p50, settings.processing_p99, settings.target_duplicate_rate
            )
        )
    if not needs:
        return DEFAULT_VISIBILITY_TIMEOUT
    return min(int(math.ceil(max(needs))), MAX_VISIBILITY_TIMEOUT)


def age_alarm_threshold(settings: QueueSettings, visibility_timeout: float) -> int:
    """Age of the oldest message above which the queue is stuck rather than retrying.

    A message that keeps failing is received ``maxReceiveCount`` times, each hold lasting up to the visibility
    timeout, before SQS moves it to the DLQ: until then its age is normal retry behaviour (the DLQ alarm covers
    failures). Older than that, consumers are not keeping up or not running. The threshold never goes below 5
    minutes, and stays at or below half the retention period so the alarm fires well before messages expire.
    """
    mrc = float(settings.max_receive_count) if isinstance(settings.max_receive_count, (int, float)) else 5.0
    retry_window = mrc * visibility_timeout + (settings.processing_p99 or 0.0)
    retention = settings.retention if settings.retention is not None else DEFAULT_RETENTION
    return int(math.ceil(max(MIN_AGE_ALARM_THRESHOLD, min(retry_window, retention / 2))))


def rule_settings(config=None) -> dict:
    """The derivation parameters from a LintConfig's rule settings (visguard.yaml ``settings:``), else the
    rules' defaults: ``target_duplicate_rate``, ``lambda_multiplier``, ``heartbeat_factor``."""
    own = dict(getattr(config, "settings", None) or {})

    def get(name):
        return float(own.get(name, DEFAULT_SETTINGS[name]))

    return {
        "target_duplicate_rate": get("target_duplicate_rate"),
        "lambda_multiplier": get("lambda_multiplier"),
        "heartbeat_factor": 1.0 / get("heartbeat_max_fraction"),
    }


def build_model(settings: QueueSettings, visibility_timeout: float | None = None) -> Model:
    """The linter Model of one GuardedQueue: its queue, its DLQ and its consumers (source="construct")."""
    vt = derive_visibility_timeout(settings) if visibility_timeout is None else visibility_timeout
    file = settings.template_file or "<cdk>"
    qloc = Location(file=file, construct_path=settings.queue_id)
    consumers = [_lambda_consumer(spec, settings, file) for spec in settings.lambdas]
    consumers += [_worker_consumer(spec, settings, file) for spec in settings.workers]
    queue = Queue(
        id=settings.queue_id,
        location=qloc,
        name=settings.queue_name,
        fifo=settings.fifo,
        visibility_timeout=vt,
        message_retention=settings.retention,
        delay=settings.delay,
        redrive=Redrive(
            target=settings.dlq_id,
            target_ref=settings.dlq_id,
            max_receive_count=settings.max_receive_count,
            location=qloc,
        ),
        consumers=consumers,
        source="construct",
        arrival_rate=settings.arrival_rate,
    )
    dlq = Queue(
        id=settings.dlq_id,
        location=Location(file=file, construct_path=settings.dlq_id),
        name=settings.dlq_name,
        fifo=settings.fifo,
        message_retention=settings.dlq_retention,
        source="construct",
    )
    model = Model(source_file=file)
    model.add(queue)
    model.add(dlq)
    return model


def _lambda_consumer(spec: LambdaSpec, settings: QueueSettings, file: str) -> Consumer:
    return Consumer(
        id=spec.id,
        kind="lambda",
        location=Location(file=file, construct_path=spec.id),
        function_id=spec.id,
        function_timeout=spec.function_timeout,
        batch_size=spec.batch_size,
        batching_window=spec.batching_window,
        report_batch_item_failures=spec.report_batch_item_failures,
        reserved_concurrency=spec.reserved_concurrency,
        max_concurrency=spec.max_concurrency,
        capacity_provider=spec.capacity_provider,
        durable_execution_timeout=spec.durable_execution_timeout,
        processing_p50=settings.processing_p50,
        processing_p99=settings.processing_p99,
        arrival_rate=settings.arrival_rate,
    )


def _worker_consumer(spec: WorkerSpec, settings: QueueSettings, file: str) -> Consumer:
    return Consumer(
        id=spec.id,
        kind="worker",
        location=Location(file=file, construct_path=spec.id),
        processing_p50=spec.processing_p50,
        processing_p99=spec.processing_p99,
        heartbeat_interval=spec.heartbeat_interval,
        heartbeat_extend_by=spec.heartbeat_extend_by,
        concurrency=spec.concurrency,
        arrival_rate=settings.arrival_rate,
    )


def format_finding(finding, construct_path: str | None = None) -> str:
    """One line for a synth error or annotation: rule id, what is wrong, how to fix it; prefixed with the
    construct path when CDK does not add it (exceptions raised while the tree is built)."""
    fix = f" Fix: {finding.fix}" if finding.fix else ""
    where = f"{construct_path}: " if construct_path else ""
    return f"{where}{finding.rule} ({finding.severity.value}) {finding.message}{fix}"
