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
from visguard.records import REQUIRED, Record, Value, fresh

# The annotation/tag a team puts on a worker (task definition, Deployment, Beanstalk environment, pipe) to declare
# its processing time: a duration such as 20m (linter.consumers.parse_duration).
PROCESSING_P99_KEY = "visguard.io/processing-p99"
PROCESSING_P50_KEY = "visguard.io/processing-p50"


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return _RANKS[self]  # a StrEnum member is its value as a key (no Enum.value lookup: per finding)


_RANKS = {"error": 3, "warning": 2, "info": 1}


class Location(Value):
    """Where a thing was declared: the file, a line when the loader knows it, and a path inside the document
    (``Resources/Orders/Properties/VisibilityTimeout``) or a CDK construct path."""

    __slots__ = {"file": REQUIRED, "line": None, "column": None, "path": None, "construct_path": None}


class Suppression(Value):
    """A ``# visguard:ignore`` / ``Metadata`` / visguard.yaml suppression of ``rule`` (``*``: every rule)."""

    # consumer: declared on a consumer's resource, the suppression applies to findings about that consumer
    __slots__ = {"rule": REQUIRED, "reason": REQUIRED, "location": None, "consumer": None}


class Redrive(Record):
    """A queue's redrive policy: its dead-letter queue and maxReceiveCount."""

    # target: id of the DLQ in the same Model, or None when it could not be resolved; target_ref: as written (an
    # ARN, a logical id, an import), for messages
    __slots__ = {"target": REQUIRED, "target_ref": REQUIRED, "max_receive_count": REQUIRED, "location": None}


class Consumer(Record):
    """Something that receives from a queue: a Lambda event source mapping or a fleet of workers.

    Lambda function and event source mapping settings are None when not set (the AWS default applies). The
    processing profile (``processing_*``, ``heartbeat_*``, ``concurrency`` of workers, ``arrival_rate`` in messages
    per second) is declared in visguard.yaml or a GuardedQueue, or measured by CloudWatch. ``note`` says why a
    consumer is unknown ("function imported with Fn::ImportValue"); ``created_by`` is set when a tool writes the
    mapping, not the user, and takes few of its settings (SAM SqsSubscription); ``locations`` maps a field name to
    where it was written.
    """

    __slots__ = {
        "id": REQUIRED,
        "kind": REQUIRED,  # lambda | worker | unknown
        "location": None,
        "function_id": None,
        "function_timeout": None,
        "batch_size": None,
        "batching_window": None,
        "report_batch_item_failures": False,
        "reserved_concurrency": None,
        "max_concurrency": None,
        # --- Lambda settings of issue 36 (reference: fact-drift-2026-12.md L1, L4, L7, L8) -----------------------
        # the function's Lambda Managed Instances capacity provider as written (CapacityProviderConfig); set: its
        # invocations from an event source mapping may run up to facts' managed-instances maximum, not 900 s
        "capacity_provider": None,
        # the function's DurableConfig.ExecutionTimeout in seconds (durable function); set: a mapped batch stays
        # in flight for the whole durable execution, not one invocation's Timeout
        "durable_execution_timeout": None,
        # the mapping's ProvisionedPollerConfig (provisioned mode) MinimumPollers / MaximumPollers; both None:
        # standard mode
        "min_pollers": None,
        "max_pollers": None,
        # the mapping's MetricsConfig.Metrics (e.g. ["EventCount"]); None: not set (no ESM metrics)
        "metrics": None,
        "enabled": True,
        "processing_p50": None,
        "processing_p99": None,
        "heartbeat_interval": None,
        "heartbeat_extend_by": None,
        "concurrency": None,
        "arrival_rate": None,
        "note": None,
        "created_by": None,
        "locations": fresh(dict),
        # field -> [environment variable, seconds per unit] of a setting the code reads from that variable (its
        # default, or no value): linter.consumers.join gives it the number the consumer's environment sets
        "from_env": fresh(dict),
        # --- worker consumers (issues 24, 25: linter/consumers.py; reference/consumers.md) ---------------------
        # platform: lambda | ecs | beanstalk | pipes | keda | kubernetes | sdk | celery | sqs-consumer | spring |
        # laravel | shoryuken | profile. source: the input kind of the file the consumer was read from
        # (cloudformation, sam, cdk, terraform, serverless, ebextensions, kubernetes, python, javascript, java, go,
        # csharp, php, ruby, rust, config); the words of its settings are that input's.
        "platform": None,
        "source": None,
        # how the consumer was joined to its queue: env | secret | iam | trigger | source | literal | name |
        # profile, and what carried the link (the variable's name, the role, the literal as written)
        "link": None,
        "link_ref": None,
        # the visibility timeout the consumer sets on the messages it receives (sqsd VisibilityTimeout,
        # ReceiveMessage VisibilityTimeout, a framework option), replacing the queue's for them; None: the queue's
        "visibility_override": None,
        # seconds between the stop signal and the kill (ECS stopTimeout, terminationGracePeriodSeconds, a
        # framework's shutdown timeout); None: the platform's default (effective_stop_timeout)
        "stop_timeout": None,
        # the platform's or framework's limit on one message's work (Celery task_time_limit, sqs-consumer
        # handleMessageTimeout, Laravel --timeout, sqsd InactivityTimeout, a Pipes target's timeout), seconds
        "work_timeout": None,
        # True: the consumer extends visibility while it works (a ChangeMessageVisibility heartbeat); False: it
        # cannot (sqsd, Pipes); None: not known
        "heartbeat": None,
        # platform- or framework-specific settings in model names (error_visibility_timeout, max_retries,
        # desired_count, max_count, delays: [{"seconds", "what"}], acks_late, ...), located in ``locations``
        "settings": fresh(dict),
        # a consumer read before its queue is known (another file, another input): what names the queue
        # (linter.consumers.QueueRef); linter.consumers.join attaches it
        "queue_ref": None,
    }

    def value_for(self, name: str, queue: str | None = None):
        """Field ``name``'s value; with ``queue`` (an id), the one the workload whose environment joined that queue
        gives (``settings["setting_for"]``: linter.consumers._settings_from_env), when it differs per queue."""
        if queue is not None:
            per = (self.settings.get("setting_for") or {}).get(name) or {}
            if queue in per:
                return per[queue]
        return getattr(self, name) if name in type(self).__slots__ else self.settings.get(name)

    def location_of(self, name: str, queue: str | None = None) -> Location | None:
        """Where field ``name`` (e.g. ``batch_size``, ``function_timeout``) was written, else the consumer's; with
        ``queue`` (an id), where the workload whose environment joined that queue sets it, when that is known
        (``settings["setting_at"]``: linter.consumers._settings_from_env)."""
        if queue is not None:
            at = ((self.settings.get("setting_at") or {}).get(name) or {}).get(queue)
            if at is not None:
                return at
        return self.locations.get(name, self.location)

    @property
    def effective_stop_timeout(self) -> float | None:
        """The stop/grace timeout in effect: as declared, else the platform's default (None: no such limit)."""
        if self.stop_timeout is not None:
            return float(self.stop_timeout)
        from visguard import facts

        return {
            "ecs": facts.DEFAULT_ECS_STOP_TIMEOUT,
            "kubernetes": facts.DEFAULT_K8S_GRACE_PERIOD,
            "keda": facts.DEFAULT_K8S_GRACE_PERIOD,
        }.get(self.platform)

    @property
    def processing_bound(self) -> float | None:
        """The declared processing time of one message (a profile's or annotation's p99), seconds."""
        return None if self.processing_p99 is None else float(self.processing_p99)

    @property
    def effective_function_timeout(self) -> float:
        return float(self.function_timeout if self.function_timeout is not None else DEFAULT_LAMBDA_TIMEOUT)

    # --- Lambda Managed Instances and durable functions (issue 36: fact-drift L7, L8) ---------------------------
    @property
    def max_function_timeout(self) -> int:
        """The largest Timeout Lambda accepts for this consumer's function: 5,400 s with a capacity provider
        (Lambda Managed Instances), else 900 s."""
        from visguard.facts import lambda_max_timeout

        return lambda_max_timeout(self.capacity_provider is not None)

    @property
    def durable_bound(self) -> tuple[float, str] | None:
        """A durable function's (seconds, basis): how long a mapped batch can stay in the invocation, bounded by
        the ExecutionTimeout (basis ``execution_timeout``) or the mapping's invocation limit (``invocation_limit``);
        None for a function that is not durable, or whose ExecutionTimeout is not a number."""
        d = self.durable_execution_timeout
        if isinstance(d, bool) or not isinstance(d, (int, float)) or not d > 0:
            return None
        from visguard.facts import durable_esm_bound

        return durable_esm_bound(d, self.capacity_provider is not None)

    @property
    def batch_hold(self) -> float:
        """How long one batch can stay in the function's invocation: the function timeout, or for a durable
        function the durable execution's bound when that is longer."""
        t = self.effective_function_timeout
        bound = self.durable_bound
        return max(t, bound[0]) if bound is not None else t

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

    __slots__ = {
        "received": None,
        "deleted": None,
        "age_oldest": None,
        "window": 14 * 86_400,
        "is_dlq": False,
    }


class Subscription(Record):
    """An SNS topic's subscription that delivers to a queue (issue 24): not a consumer (SNS sends, it does not
    receive), but its own redrive policy catches delivery failures SNS -> SQS, separate from the queue's.
    ``topic``: the topic's id or reference as written; ``topic_fifo``: True/False when known; ``redrive``: the
    subscription's dead-letter queue as a queue id of the model (``redrive_ref`` as written when it is not one);
    ``raw_delivery``: RawMessageDelivery."""

    __slots__ = {
        "id": REQUIRED,
        "location": REQUIRED,
        "topic": None,
        "topic_fifo": None,
        "redrive": None,
        "redrive_ref": None,
        "raw_delivery": None,
        "source": None,
        "locations": fresh(dict),
    }


class Queue(Record):
    """One SQS queue as written, with its redrive policy, consumers and suppressions.

    ``id`` is a logical id, name or ARN, unique within a Model; ``source`` is cloudformation, sam, cdk, config,
    inventory, construct, shell (a queue an AWS CLI script creates) or code (a queue the application's code
    creates at run time: linter.created_queues). ``locations`` maps a field name to where it was written: visibility_timeout,
    message_retention, delay, fifo, name, redrive, redrive.target, redrive.max_receive_count (set by the loaders
    when they know it). ``redrive_allow`` is the RedriveAllowPolicy as a mapping, {"redrivePermission": "allowAll"
    | "denyAll" | "byQueue", "sourceQueueArns": [queue ids of this model, or ARNs as written]}, None when not set
    (allowAll). ``created_by`` is set when a tool creates this queue with default settings, not the user (SAM
    SqsSubscription: true). ``observed``: what CloudWatch saw the deployed queue do (:class:`Observed`; the fleet
    audit only). ``stack``: the stack name the input deploys the queue as, when it says (cdk.out, Serverless).
    """

    __slots__ = {
        "id": REQUIRED,
        "location": REQUIRED,
        "name": None,
        "arn": None,
        "fifo": False,
        "visibility_timeout": None,
        "message_retention": None,
        "delay": None,
        "redrive": None,
        "consumers": fresh(list),
        "suppressions": fresh(list),
        "tags": fresh(dict),
        "account": None,
        "region": None,
        "source": "cloudformation",
        "arrival_rate": None,
        "locations": fresh(dict),
        "redrive_allow": None,
        "created_by": None,
        "observed": None,
        "subscriptions": fresh(list),  # SNS subscriptions delivering to this queue (Subscription)
        # the CloudFormation stack the queue is deployed in, when the input names it (a cdk.out manifest's stack,
        # the top one for a nested stack; a Serverless service's service-stage); the fleet audit's --sources join
        "stack": None,
        # how other stacks may name it: its template's Outputs whose value is the queue's URL or ARN
        # ("output:<OutputKey>", with ``stack``: Serverless's ${cf:<stack>.<OutputKey>}) and their exports
        # ("export:<Export.Name>": Fn::ImportValue); linter.consumers.QueueIndex joins such references
        "exports": fresh(list),
    }

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


class Note(Record):
    """Something a loader could not read or join, and why (VG902, info): ``address`` names what it is about;
    ``fix`` what to do when VG902's general advice does not fit."""

    __slots__ = {"message": REQUIRED, "location": REQUIRED, "address": None, "fix": None}


class Model(Record):
    """Queues of one document (or one account/region partition), keyed by id, and the loader's notes: what it
    could not evaluate there, and why (Terraform, Serverless; each reported once, as VG902).

    ``pending``: consumers whose queue is not in this model (``Consumer.queue_ref`` names it: a URL, an ARN, a
    name, an environment variable); ``env``: the environment variables this input gives its workloads
    (``linter.consumers.EnvBinding``: an ECS container, a Deployment, a Beanstalk environment, a ``.env`` file).
    ``linter.consumers.join`` attaches pending consumers to queues across every input of one lint run; those it
    cannot attach to one queue stay in ``unjoined`` (the rules that judge a consumer alone run on them)."""

    __slots__ = {
        "queues": fresh(dict),
        "source_file": None,
        "notes": fresh(list),
        "pending": fresh(list),
        "env": fresh(list),
        "unjoined": fresh(list),
    }

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

    __slots__ = {
        "scope": REQUIRED,
        "target": REQUIRED,
        "field": REQUIRED,
        "value": REQUIRED,
        "location": None,
    }


class Finding(Value):
    """What a rule reports about one queue (and consumer), with the fix.

    ``queue`` is the queue's id; ``estimate`` holds the engine's figures quoted in the message (duplicate_rate,
    recovery_p99, ...); ``changes`` is the fix as structured changes, when it is mechanical (see :class:`Change`);
    ``joined_by``: where the environment binding is that joined the consumer to the queue (a ``.env`` line, a
    container's ``environment``), when the join went through one (``linter.consumers.join``).
    """

    __slots__ = {
        "rule": REQUIRED,
        "severity": REQUIRED,
        "message": REQUIRED,
        "queue": REQUIRED,
        "location": REQUIRED,
        "fix": None,
        "consumer": None,
        "estimate": None,
        "changes": (),
        "joined_by": None,
    }


class ProfileMatch(Record):
    """A consumer profile from visguard.yaml, matched to queues by logical id, name or glob (``match``, over queue
    id and name: "orders-*", "OrdersQueue")."""

    __slots__ = {
        "match": REQUIRED,
        "kind": "worker",  # lambda | worker
        "processing_p50": None,
        "processing_p99": None,
        "heartbeat_interval": None,
        "heartbeat_extend_by": None,
        "concurrency": None,
        "arrival_rate": None,
        "location": None,
    }


class LintConfig(Record):
    """Rule settings, severity overrides, suppressions and profiles (visguard.yaml, or defaults).

    ``settings`` holds rule settings ({"lambda_multiplier": 6, ...}); ``severity_overrides`` maps a rule id to a
    severity; ``disabled`` holds the rule ids turned off; ``suppressions`` are global, each matched by rule (and
    queue glob); ``suppression_queues`` maps an index in ``suppressions`` to its queue glob, and
    ``suppression_where`` to further conditions ({"account": glob, "tags": {key: glob}}, for fleet audit
    inventories).
    """

    __slots__ = {
        "settings": fresh(dict),
        "severity_overrides": fresh(dict),
        "disabled": fresh(set),
        "suppressions": fresh(list),
        "suppression_queues": fresh(dict),
        "suppression_where": fresh(dict),
        "profiles": fresh(list),
        "source_file": None,
    }
