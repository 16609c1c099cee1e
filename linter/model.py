"""The one normalized model every door loads into (DESIGN.md, "One model, many doors").

A template, a cloud assembly, a visguard.yaml file and a fleet inventory all become a ``Model``: queues,
their redrive targets and their consumers. Rules are pure functions of one queue in its model.

Values are kept as they were written where a rule must judge them (an out-of-range visibility timeout is
data for VG001, not a loader error); ``None`` means "not set", and the ``effective_*`` helpers apply the
AWS defaults.
"""

from __future__ import annotations

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
from visguard.records import Record, Value

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


class Location(Value):
    """Where a thing was declared: the file, a line when the loader knows it, and a path inside the document
    (``Resources/Orders/Properties/VisibilityTimeout``) or a CDK construct path."""

    __slots__ = ("file", "line", "column", "path", "construct_path")

    def __init__(
        self,
        file: str,
        line: int | None = None,
        column: int | None = None,
        path: str | None = None,
        construct_path: str | None = None,
    ):
        self.file = file
        self.line = line
        self.column = column
        self.path = path
        self.construct_path = construct_path


class Suppression(Value):
    """A ``# visguard:ignore`` / ``Metadata`` / visguard.yaml suppression of ``rule`` (``*``: every rule)."""

    # consumer: declared on a consumer's resource, the suppression applies to findings about that consumer
    __slots__ = ("rule", "reason", "location", "consumer")

    def __init__(
        self, rule: str, reason: str | None, location: Location | None = None, consumer: str | None = None
    ):
        self.rule = rule
        self.reason = reason
        self.location = location
        self.consumer = consumer


class Redrive(Record):
    """A queue's redrive policy: its dead-letter queue and maxReceiveCount."""

    # target: id of the DLQ in the same Model, or None when it could not be resolved; target_ref: as written (an
    # ARN, a logical id, an import), for messages
    __slots__ = ("target", "target_ref", "max_receive_count", "location")

    def __init__(
        self,
        target: str | None,
        target_ref: str | None,
        max_receive_count: int | float | str | None,
        location: Location | None = None,
    ):
        self.target = target
        self.target_ref = target_ref
        self.max_receive_count = max_receive_count
        self.location = location


class Consumer(Record):
    """Something that receives from a queue: a Lambda event source mapping or a fleet of workers.

    Lambda function and event source mapping settings are None when not set (the AWS default applies). The
    processing profile (``processing_*``, ``heartbeat_*``, ``concurrency`` of workers, ``arrival_rate`` in messages
    per second) is declared in visguard.yaml or a GuardedQueue, or measured by CloudWatch. ``note`` says why a
    consumer is unknown ("function imported with Fn::ImportValue"); ``created_by`` is set when a tool writes the
    mapping, not the user, and takes few of its settings (SAM SqsSubscription); ``locations`` maps a field name to
    where it was written.
    """

    __slots__ = (
        "id",
        "kind",
        "location",
        "function_id",
        "function_timeout",
        "batch_size",
        "batching_window",
        "report_batch_item_failures",
        "reserved_concurrency",
        "max_concurrency",
        "enabled",
        "processing_p50",
        "processing_p99",
        "heartbeat_interval",
        "heartbeat_extend_by",
        "concurrency",
        "arrival_rate",
        "note",
        "created_by",
        "locations",
    )

    def __init__(
        self,
        id: str,
        kind: Literal["lambda", "worker", "unknown"],
        location: Location | None = None,
        function_id: str | None = None,
        function_timeout: int | float | None = None,
        batch_size: int | None = None,
        batching_window: int | float | None = None,
        report_batch_item_failures: bool = False,
        reserved_concurrency: int | None = None,
        max_concurrency: int | None = None,
        enabled: bool = True,
        processing_p50: float | None = None,
        processing_p99: float | None = None,
        heartbeat_interval: float | None = None,
        heartbeat_extend_by: float | None = None,
        concurrency: int | None = None,
        arrival_rate: float | None = None,
        note: str | None = None,
        created_by: str | None = None,
        locations: dict[str, Location] | None = None,
    ):
        self.id = id
        self.kind = kind
        self.location = location
        self.function_id = function_id
        self.function_timeout = function_timeout
        self.batch_size = batch_size
        self.batching_window = batching_window
        self.report_batch_item_failures = report_batch_item_failures
        self.reserved_concurrency = reserved_concurrency
        self.max_concurrency = max_concurrency
        self.enabled = enabled
        self.processing_p50 = processing_p50
        self.processing_p99 = processing_p99
        self.heartbeat_interval = heartbeat_interval
        self.heartbeat_extend_by = heartbeat_extend_by
        self.concurrency = concurrency
        self.arrival_rate = arrival_rate
        self.note = note
        self.created_by = created_by
        self.locations = {} if locations is None else locations

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


class Observed(Value):
    """What CloudWatch saw a deployed queue do over ``window`` seconds (the fleet audit's collector; a template
    never has it): sums of NumberOfMessagesReceived and NumberOfMessagesDeleted, the maximum
    ApproximateAgeOfOldestMessage in seconds (None: not collected), and ``is_dlq``: the queue is another queue's
    dead-letter queue (the audit knows it from the joins, where the sources are not in the queue's model)."""

    __slots__ = ("received", "deleted", "age_oldest", "window", "is_dlq")

    def __init__(
        self,
        received: float | None = None,
        deleted: float | None = None,
        age_oldest: float | None = None,
        window: float = 14 * 86_400,
        is_dlq: bool = False,
    ):
        self.received = received
        self.deleted = deleted
        self.age_oldest = age_oldest
        self.window = window
        self.is_dlq = is_dlq


class Queue(Record):
    """One SQS queue as written, with its redrive policy, consumers and suppressions.

    ``id`` is a logical id, name or ARN, unique within a Model; ``source`` is cloudformation, sam, cdk, config,
    inventory or construct. ``locations`` maps a field name to where it was written: visibility_timeout,
    message_retention, delay, fifo, name, redrive, redrive.target, redrive.max_receive_count (set by the loaders
    when they know it). ``redrive_allow`` is the RedriveAllowPolicy as a mapping, {"redrivePermission": "allowAll"
    | "denyAll" | "byQueue", "sourceQueueArns": [queue ids of this model, or ARNs as written]}, None when not set
    (allowAll). ``created_by`` is set when a tool creates this queue with default settings, not the user (SAM
    SqsSubscription: true). ``observed``: what CloudWatch saw the deployed queue do (:class:`Observed`; the fleet
    audit only).
    """

    __slots__ = (
        "id",
        "location",
        "name",
        "arn",
        "fifo",
        "visibility_timeout",
        "message_retention",
        "delay",
        "redrive",
        "consumers",
        "suppressions",
        "tags",
        "account",
        "region",
        "source",
        "arrival_rate",
        "locations",
        "redrive_allow",
        "created_by",
        "observed",
    )

    def __init__(
        self,
        id: str,
        location: Location,
        name: str | None = None,
        arn: str | None = None,
        fifo: bool = False,
        visibility_timeout: int | float | str | None = None,
        message_retention: int | float | str | None = None,
        delay: int | float | str | None = None,
        redrive: Redrive | None = None,
        consumers: list[Consumer] | None = None,
        suppressions: list[Suppression] | None = None,
        tags: dict[str, str] | None = None,
        account: str | None = None,
        region: str | None = None,
        source: str = "cloudformation",
        arrival_rate: float | None = None,
        locations: dict[str, Location] | None = None,
        redrive_allow: dict | None = None,
        created_by: str | None = None,
        observed: Observed | None = None,
    ):
        self.id = id
        self.location = location
        self.name = name
        self.arn = arn
        self.fifo = fifo
        self.visibility_timeout = visibility_timeout
        self.message_retention = message_retention
        self.delay = delay
        self.redrive = redrive
        self.consumers = [] if consumers is None else consumers
        self.suppressions = [] if suppressions is None else suppressions
        self.tags = {} if tags is None else tags
        self.account = account
        self.region = region
        self.source = source
        self.arrival_rate = arrival_rate
        self.locations = {} if locations is None else locations
        self.redrive_allow = redrive_allow
        self.created_by = created_by
        self.observed = observed

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


class Model(Record):
    """Queues of one document (or one account/region partition), keyed by id, and the loader's notes: what it
    could not evaluate there, and why (Terraform, Serverless; each reported once, as VG902)."""

    __slots__ = ("queues", "source_file", "notes")

    def __init__(
        self,
        queues: dict[str, Queue] | None = None,
        source_file: str | None = None,
        notes: list | None = None,
    ):
        self.queues = {} if queues is None else queues
        self.source_file = source_file
        self.notes = [] if notes is None else notes

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


class Change(Value):
    """A fix a machine can apply (issue 14 §3): set ``field`` of the queue or consumer ``target`` to ``value``, or
    (``field == "redrive"``) add a dead-letter queue ``value`` ({"id", "max_receive_count", "retention"}) and a
    redrive policy to it.

    ``field`` is the model's name (``visibility_timeout``, ``message_retention``, ``delay``,
    ``redrive.max_receive_count``, ``report_batch_item_failures``, ``batch_size``, ``batching_window``,
    ``function_timeout``); ``scope`` says what ``target`` is (a queue id, or a consumer id of that queue);
    ``location`` is where the value is written (or the resource to add it to) when the loader knew it. Words
    for people (CloudFormation property, API attribute, Terraform argument) come from ``visguard.linter.changes``.
    """

    __slots__ = ("scope", "target", "field", "value", "location")

    def __init__(
        self,
        scope: Literal["queue", "consumer"],
        target: str,
        field: str,
        value: object,
        location: Location | None = None,
    ):
        self.scope = scope
        self.target = target
        self.field = field
        self.value = value
        self.location = location


class Finding(Value):
    """What a rule reports about one queue (and consumer), with the fix.

    ``queue`` is the queue's id; ``estimate`` holds the engine's figures quoted in the message (duplicate_rate,
    recovery_p99, ...); ``changes`` is the fix as structured changes, when it is mechanical (see :class:`Change`).
    """

    __slots__ = ("rule", "severity", "message", "queue", "location", "fix", "consumer", "estimate", "changes")

    def __init__(
        self,
        rule: str,
        severity: Severity,
        message: str,
        queue: str,
        location: Location,
        fix: str | None = None,
        consumer: str | None = None,
        estimate: dict | None = None,
        changes: tuple[Change, ...] = (),
    ):
        self.rule = rule
        self.severity = severity
        self.message = message
        self.queue = queue
        self.location = location
        self.fix = fix
        self.consumer = consumer
        self.estimate = estimate
        self.changes = changes


class ProfileMatch(Record):
    """A consumer profile from visguard.yaml, matched to queues by logical id, name or glob (``match``, over queue
    id and name: "orders-*", "OrdersQueue")."""

    __slots__ = (
        "match",
        "kind",
        "processing_p50",
        "processing_p99",
        "heartbeat_interval",
        "heartbeat_extend_by",
        "concurrency",
        "arrival_rate",
        "location",
    )

    def __init__(
        self,
        match: str,
        kind: Literal["lambda", "worker"] = "worker",
        processing_p50: float | None = None,
        processing_p99: float | None = None,
        heartbeat_interval: float | None = None,
        heartbeat_extend_by: float | None = None,
        concurrency: int | None = None,
        arrival_rate: float | None = None,
        location: Location | None = None,
    ):
        self.match = match
        self.kind = kind
        self.processing_p50 = processing_p50
        self.processing_p99 = processing_p99
        self.heartbeat_interval = heartbeat_interval
        self.heartbeat_extend_by = heartbeat_extend_by
        self.concurrency = concurrency
        self.arrival_rate = arrival_rate
        self.location = location


class LintConfig(Record):
    """Rule settings, severity overrides, suppressions and profiles (visguard.yaml, or defaults).

    ``settings`` holds rule settings ({"lambda_multiplier": 6, ...}); ``severity_overrides`` maps a rule id to a
    severity; ``disabled`` holds the rule ids turned off; ``suppressions`` are global, each matched by rule (and
    queue glob); ``suppression_queues`` maps an index in ``suppressions`` to its queue glob, and
    ``suppression_where`` to further conditions ({"account": glob, "tags": {key: glob}}, for fleet audit
    inventories).
    """

    __slots__ = (
        "settings",
        "severity_overrides",
        "disabled",
        "suppressions",
        "suppression_queues",
        "suppression_where",
        "profiles",
        "source_file",
    )

    def __init__(
        self,
        settings: dict | None = None,
        severity_overrides: dict[str, Severity] | None = None,
        disabled: set[str] | None = None,
        suppressions: list[Suppression] | None = None,
        suppression_queues: dict[int, str] | None = None,
        suppression_where: dict[int, dict] | None = None,
        profiles: list[ProfileMatch] | None = None,
        source_file: str | None = None,
    ):
        self.settings = {} if settings is None else settings
        self.severity_overrides = {} if severity_overrides is None else severity_overrides
        self.disabled = set() if disabled is None else disabled
        self.suppressions = [] if suppressions is None else suppressions
        self.suppression_queues = {} if suppression_queues is None else suppression_queues
        self.suppression_where = {} if suppression_where is None else suppression_where
        self.profiles = [] if profiles is None else profiles
        self.source_file = source_file
