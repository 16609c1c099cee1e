"""The one normalized model every door loads into (DESIGN.md, "One model, many doors").

A template, a cloud assembly, a visguard.yaml file and a fleet inventory all become a ``Model``: queues,
their redrive targets and their consumers. Rules are pure functions of one queue in its model.

Values are kept as they were written where a rule must judge them (an out-of-range visibility timeout is
data for VG001, not a loader error); ``None`` means "not set", and the ``effective_*`` helpers apply the
AWS defaults.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

# AWS defaults and limits live in visguard.facts (the one home, with sources); these names stay importable
# from here for the loaders, the constructs and the audit.
from visguard.facts import (  # noqa: F401 - re-exported
    DEFAULT_DELAY,
    DEFAULT_LAMBDA_TIMEOUT,
    DEFAULT_RETENTION,
    DEFAULT_SQS_BATCH_SIZE,
    DEFAULT_VISIBILITY_TIMEOUT,
    LAMBDA_VISIBILITY_MULTIPLIER,
    MAX_LAMBDA_TIMEOUT,
    lambda_guidance_visibility,
)
from visguard.facts import MAX_VISIBILITY as MAX_VISIBILITY_TIMEOUT  # noqa: F401 - re-exported

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Literal


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 3, "warning": 2, "info": 1}[self.value]


@dataclass(frozen=True)
class Location:
    """Where a thing was declared: the file, a line when the loader knows it, and a path inside the document
    (``Resources/Orders/Properties/VisibilityTimeout``) or a CDK construct path."""

    file: str
    line: int | None = None
    column: int | None = None
    path: str | None = None
    construct_path: str | None = None


@dataclass(frozen=True)
class Suppression:
    """A ``# visguard:ignore`` / ``Metadata`` / visguard.yaml suppression of ``rule`` (``*``: every rule)."""

    rule: str
    reason: str | None
    location: Location | None = None
    consumer: str | None = None  # declared on a consumer's resource: applies to findings about that consumer


@dataclass
class Redrive:
    """A queue's redrive policy: its dead-letter queue and maxReceiveCount."""

    target: str | None  # id of the DLQ in the same Model, or None when it could not be resolved
    target_ref: str | None  # as written: an ARN, a logical id, an import; for messages
    max_receive_count: int | float | str | None
    location: Location | None = None


@dataclass
class Consumer:
    """Something that receives from a queue: a Lambda event source mapping or a fleet of workers."""

    id: str
    kind: Literal["lambda", "worker", "unknown"]
    location: Location | None = None
    # Lambda function and event source mapping settings (None: not set, AWS default applies)
    function_id: str | None = None
    function_timeout: int | float | None = None
    batch_size: int | None = None
    batching_window: int | float | None = None
    report_batch_item_failures: bool = False
    reserved_concurrency: int | None = None
    max_concurrency: int | None = None
    enabled: bool = True
    # processing profile (declared in visguard.yaml, a GuardedQueue, or measured by CloudWatch)
    processing_p50: float | None = None
    processing_p99: float | None = None
    heartbeat_interval: float | None = None
    heartbeat_extend_by: float | None = None
    concurrency: int | None = None  # workers
    arrival_rate: float | None = None  # messages per second, when known
    note: str | None = None  # e.g. why the consumer is unknown ("function imported with Fn::ImportValue")
    # set when a tool writes this mapping, not the user, and takes few of its settings (SAM SqsSubscription)
    created_by: str | None = None
    locations: dict[str, Location] = field(default_factory=dict)  # field name -> where it was written

    def location_of(self, name: str) -> Location | None:
        """Where field ``name`` (e.g. ``batch_size``, ``function_timeout``) was written, else the consumer's."""
        return self.locations.get(name, self.location)

    @property
    def effective_function_timeout(self) -> float:
        return float(self.function_timeout if self.function_timeout is not None else DEFAULT_LAMBDA_TIMEOUT)

    @property
    def effective_batch_size(self) -> int:
        return int(self.batch_size if self.batch_size is not None else DEFAULT_SQS_BATCH_SIZE)

    @property
    def effective_batching_window(self) -> float:
        return float(self.batching_window or 0)


@dataclass
class Queue:
    """One SQS queue as written, with its redrive policy, consumers and suppressions."""

    id: str  # logical id, name, or ARN: unique within a Model
    location: Location
    name: str | None = None
    arn: str | None = None
    fifo: bool = False
    visibility_timeout: int | float | str | None = None
    message_retention: int | float | str | None = None
    delay: int | float | str | None = None
    redrive: Redrive | None = None
    consumers: list[Consumer] = field(default_factory=list)
    suppressions: list[Suppression] = field(default_factory=list)
    tags: dict[str, str] = field(default_factory=dict)
    account: str | None = None
    region: str | None = None
    source: str = "cloudformation"  # cloudformation | sam | cdk | config | inventory | construct
    arrival_rate: float | None = None
    # field name -> where it was written: visibility_timeout, message_retention, delay, fifo, name, redrive,
    # redrive.target, redrive.max_receive_count (set by the loaders when they know it)
    locations: dict[str, Location] = field(default_factory=dict)
    # RedriveAllowPolicy as a mapping: {"redrivePermission": "allowAll" | "denyAll" | "byQueue",
    # "sourceQueueArns": [queue ids of this model, or ARNs as written]}; None when not set (allowAll)
    redrive_allow: dict | None = None
    # set when a tool creates this queue with default settings, not the user (SAM SqsSubscription: true)
    created_by: str | None = None

    def location_of(self, name: str) -> Location:
        """Where field ``name`` was written (``Resources/Orders/Properties/VisibilityTimeout``), else the queue's."""
        return self.locations.get(name, self.location)

    @property
    def effective_visibility_timeout(self) -> float:
        v = self.visibility_timeout
        return float(v) if isinstance(v, (int, float)) else float(DEFAULT_VISIBILITY_TIMEOUT)

    @property
    def effective_retention(self) -> float:
        v = self.message_retention
        return float(v) if isinstance(v, (int, float)) else float(DEFAULT_RETENTION)


@dataclass
class Model:
    """Queues of one document (or one account/region partition), keyed by id."""

    queues: dict[str, Queue] = field(default_factory=dict)
    source_file: str | None = None

    def add(self, queue: Queue) -> Queue:
        self.queues[queue.id] = queue
        return queue

    def dlq_of(self, queue: Queue) -> Queue | None:
        if queue.redrive is None or queue.redrive.target is None:
            return None
        return self.queues.get(queue.redrive.target)

    def sources_of(self, dlq: Queue) -> list[Queue]:
        return [q for q in self.queues.values() if q.redrive is not None and q.redrive.target == dlq.id]

    def is_dlq(self, queue: Queue) -> bool:
        return any(q.redrive is not None and q.redrive.target == queue.id for q in self.queues.values())


@dataclass(frozen=True)
class Change:
    """A fix a machine can apply (issue 14 §3): set ``field`` of the queue or consumer ``target`` to ``value``, or
    (``field == "redrive"``) add a dead-letter queue ``value`` ({"id", "max_receive_count", "retention"}) and a
    redrive policy to it.

    ``field`` is the model's name (``visibility_timeout``, ``message_retention``, ``delay``,
    ``redrive.max_receive_count``, ``report_batch_item_failures``, ``batch_size``, ``batching_window``,
    ``function_timeout``); ``scope`` says what ``target`` is (a queue id, or a consumer id of that queue);
    ``location`` is where the value is written (or the resource to add it to) when the loader knew it. Words
    for people (CloudFormation property, API attribute, Terraform argument) come from ``visguard.linter.changes``.
    """

    scope: Literal["queue", "consumer"]
    target: str
    field: str
    value: object
    location: Location | None = None


@dataclass(frozen=True)
class Finding:
    """What a rule reports about one queue (and consumer), with the fix."""

    rule: str
    severity: Severity
    message: str
    queue: str  # queue id
    location: Location
    fix: str | None = None
    consumer: str | None = None
    estimate: dict | None = None  # engine figures quoted in the message (duplicate_rate, recovery_p99, ...)
    changes: tuple[Change, ...] = ()  # the fix as structured changes, when it is mechanical (see Change)


@dataclass
class ProfileMatch:
    """A consumer profile from visguard.yaml, matched to queues by logical id, name or glob."""

    match: str  # glob over queue id and name ("orders-*", "OrdersQueue")
    kind: Literal["lambda", "worker"] = "worker"
    processing_p50: float | None = None
    processing_p99: float | None = None
    heartbeat_interval: float | None = None
    heartbeat_extend_by: float | None = None
    concurrency: int | None = None
    arrival_rate: float | None = None
    location: Location | None = None


@dataclass
class LintConfig:
    """Rule settings, severity overrides, suppressions and profiles (visguard.yaml, or defaults)."""

    settings: dict = field(default_factory=dict)  # e.g. {"lambda_multiplier": 6, "p99_multiplier": ...}
    severity_overrides: dict[str, Severity] = field(default_factory=dict)  # rule id -> severity
    disabled: set[str] = field(default_factory=set)  # rule ids turned off
    suppressions: list[Suppression] = field(
        default_factory=list
    )  # global, each matched by rule (+ queue glob)
    suppression_queues: dict[int, str] = field(default_factory=dict)  # index in suppressions -> queue glob
    # index in suppressions -> {"account": glob, "tags": {key: glob}}: further conditions (fleet audit inventories)
    suppression_where: dict[int, dict] = field(default_factory=dict)
    profiles: list[ProfileMatch] = field(default_factory=list)
    source_file: str | None = None
