"""``GuardedQueue``: an SQS queue and its dead-letter queue as a pair, with the visibility timeout derived from
its consumers at synth time, the linter's rules run over its settings, and alarms by default."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from functools import lru_cache
from typing import Any
from weakref import WeakKeyDictionary

from .compat import require_supported

require_supported()  # a clear error naming the installed version, before any aws_cdk name is imported


import jsii  # noqa: E402
from aws_cdk import Annotations, Duration, Token  # noqa: E402
from aws_cdk import aws_lambda as lambda_  # noqa: E402
from aws_cdk import aws_lambda_event_sources as event_sources  # noqa: E402
from aws_cdk import aws_sqs as sqs  # noqa: E402
from visguard.linter.model import Severity  # noqa: E402

from constructs import Construct, IValidation  # noqa: E402

from .acks import ACK_NAMESPACE, ack_id, acknowledge, acknowledged_in_tree  # noqa: E402, F401
from .settings import (  # noqa: E402
    DLQ_RETENTION,
    LambdaSpec,
    QueueSettings,
    WorkerSpec,
    age_alarm_threshold,
    build_model,
    derive_visibility_timeout,
    format_finding,
    heartbeat_required,
    rule_settings,
)

# Rules whose findings a single consumer's own settings decide: reported when the consumer is added, before
# CDK's SqsEventSource raises its own, less specific error for the same setting.
CONSUMER_RULES = frozenset({"VG030", "VG032"})
# Range rules CDK's aws_sqs.Queue would also reject while the tree is built (with no rule id and no fix): checked
# when the GuardedQueue is created so ours come first.
RANGE_RULES = frozenset({"VG001", "VG002", "VG005"})
# Errors a worker consumer's own profile and heartbeat decide: reported when the worker is added.
WORKER_RULES = frozenset({"VG014"})
# Queue props copied to the DLQ so both queues of the pair have the same security posture.
SHARED_PROPS = ("encryption", "encryption_master_key", "data_key_reuse", "enforce_ssl", "removal_policy")


class GuardError(ValueError):
    """A setting the rule catalogue calls an error, found while the construct tree was being built."""


@lru_cache(maxsize=64)
def seconds_duration(seconds: int) -> Duration:
    """A shared Duration per constant (Durations are immutable): one jsii round trip fewer per construct."""
    return Duration.seconds(seconds)


def _seconds(value: Duration | None, what: str) -> float | None:
    if value is None:
        return None
    return _number(value.to_seconds(), what)


def _number(value: float | None, what: str, strict: bool = True) -> float | None:
    """A concrete number of seconds (or count) from CDK, None for None. Fast path (one jsii round trip fewer per
    setting): CDK encodes number tokens as huge negative doubles, so a value between 0 and ten years is
    concrete; anything else is asked of Token.is_unresolved. A token raises, or with ``strict=False`` is None
    (a setting the rules then cannot judge)."""
    if value is None:
        return None
    if not 0 <= value <= 315_360_000 and Token.is_unresolved(value):
        if not strict:
            return None
        raise GuardError(
            f"{what} must be a concrete Duration, not a token: GuardedQueue derives settings at synth"
        )
    return float(value)


# Construct path of each scope a GuardedQueue was created in: one jsii round trip per scope, not per queue.
_SCOPE_PATHS: WeakKeyDictionary = WeakKeyDictionary()


# What a Lambda consumer's function holds (path, timeout, reserved concurrency), read once per function: a function
# that consumes several GuardedQueues costs its jsii round trips once.
_FUNCTION_FACTS: WeakKeyDictionary = WeakKeyDictionary()


def _function_facts(fn: Any) -> tuple[str, float | None, int | None, str | None, float | None]:
    """(construct path, timeout in seconds, reserved concurrency, capacity provider, durable ExecutionTimeout) of a
    consumer function, cached per function. For an ``aws_lambda.Function`` they are read from its CfnFunction, what
    the template will hold: a Timeout in seconds (absent: Lambda's default of 3 s), one jsii round trip fewer than
    ``fn.timeout.to_seconds()``; the L1 ``capacity_provider_config`` (the L2 Function has no such property: a
    ``CapacityProvider``'s ``add_function`` or an assignment to the CfnFunction sets it, before the consumer is
    added) and ``durable_config`` (the L2 ``durable_config``). An imported function has none of them (None)."""
    try:
        cached = _FUNCTION_FACTS.get(fn)
    except TypeError:
        cached = None
    if cached is not None:
        return cached
    node = fn.node
    timeout = reserved = capacity = durable = None
    if isinstance(fn, lambda_.Function):
        cfn = node.default_child
        timeout = _number(cfn.timeout, "function timeout")
        timeout = 3.0 if timeout is None else timeout
        reserved = _number(cfn.reserved_concurrent_executions, "reserved concurrency", strict=False)
        reserved = int(reserved) if reserved is not None else None
        capacity, durable = _compute_facts(cfn)
    facts = (node.path, timeout, reserved, capacity, durable)
    with contextlib.suppress(TypeError):
        _FUNCTION_FACTS[fn] = facts
    return facts


def _compute_facts(cfn: Any) -> tuple[str | None, float | None]:
    """A CfnFunction's capacity provider (its ARN, or "(capacity provider)" when only a token says which) and its
    durable ExecutionTimeout in seconds (issue 36, fact-drift L7, L8)."""
    capacity = durable = None
    # aws-cdk-lib releases before Lambda Managed Instances and durable functions have neither property
    cpc = getattr(cfn, "capacity_provider_config", None)
    if cpc is not None:
        inner = getattr(cpc, "lambda_managed_instances_capacity_provider_config", None)
        arn = getattr(inner, "capacity_provider_arn", None)
        capacity = arn if isinstance(arn, str) and not Token.is_unresolved(arn) else "(capacity provider)"
    dc = getattr(cfn, "durable_config", None)
    if dc is not None:
        durable = _number(getattr(dc, "execution_timeout", None), "durable execution timeout")
    return capacity, durable


def _child_path(scope: Construct, id: str) -> str:
    """The construct path a child ``id`` of ``scope`` gets, as constructs' Node computes it: the ids of the
    scopes below the root joined by "/", with "/" inside an id replaced by "--"."""
    try:
        parent = _SCOPE_PATHS.get(scope)
        if parent is None:
            parent = _SCOPE_PATHS[scope] = scope.node.path
    except TypeError:  # a scope that cannot be weakly referenced: ask every time
        parent = scope.node.path
    own = id.replace("/", "--")
    return f"{parent}/{own}" if parent else own


@jsii.implements(IValidation)
class GuardedQueue(Construct):
    """An SQS queue and its dead-letter queue, kept right by visguard's rule catalogue.

    - The DLQ has the same type (FIFO names end in ``.fifo``), 14 days of retention, and the same encryption,
      SSL and removal settings as the queue; ``max_receive_count`` defaults to 5.
    - Unless ``visibility_timeout`` is given, the timeout is derived from every consumer added, whenever it
      was added (set again on the queue's CfnQueue when a consumer changes it): 6 x function timeout + batching
      window for Lambda consumers, the visibility-need policy (``visguard.policy``) for workers (a heartbeating
      worker: 2 x its interval, at least one extension) and for the queue's own
      ``processing_p50``/``processing_p99``; the largest wins. A worker without a heartbeat whose need is past
      the 43,200 s cap is rejected when added (GuardError with the policy's heartbeat plan).
    - Settings the rules call errors fail synthesis with the construct path, rule id and fix; warnings and
      infos become annotations (fixes in CDK terms), acknowledgeable on every release with
      ``visguard.constructs.acknowledge(x, "VGnnn", reason=...)`` (or ``queue.acknowledge``), and where the
      release has it ``Validations.of(x).acknowledge(Acknowledgment(id="visguard::VGnnn", ...))``.
    - ``alarms=True`` adds two CloudWatch alarms, ``aws_cloudwatch.CfnAlarm`` (L1) objects (``dlq_alarm``: DLQ
      has visible messages; ``age_alarm``: age of the oldest message above ``age_alarm_threshold`` or a
      threshold derived from the settings), with ``alarm_topic`` (an SNS topic) as their action when given;
      with ``alarms=False`` both attributes are None.
    - Every other ``aws_sqs.Queue`` prop passes through to the queue; ``dead_letter_queue_props`` to the DLQ.
    - ``lint_config`` (a ``visguard.linter.model.LintConfig``, e.g. from visguard.yaml) changes rule settings,
      severities and disabled rules for this queue; the derivation follows its settings (``lambda_multiplier``,
      ``heartbeat_max_fraction``, ``target_duplicate_rate``; ``target_duplicate_rate=`` overrides the last).
    - ``arrival_rate`` (messages per second) lets the in-flight quota rule (VG040) judge the queue.
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        max_receive_count: int = 5,
        fifo: bool = False,
        processing_p50: Duration | None = None,
        processing_p99: Duration | None = None,
        visibility_timeout: Duration | None = None,
        alarms: bool = True,
        alarm_topic: Any = None,
        age_alarm_threshold: Duration | None = None,
        arrival_rate: float | None = None,
        target_duplicate_rate: float | None = None,
        dead_letter_queue_props: dict | None = None,
        lint_config: Any = None,
        **queue_props: Any,
    ) -> None:
        super().__init__(scope, id)
        self._path = path = _child_path(scope, id)
        if "dead_letter_queue" in queue_props:
            raise GuardError(
                f"{path}: GuardedQueue creates its own dead-letter queue; remove dead_letter_queue"
            )
        if (processing_p50 is None) != (processing_p99 is None):
            raise GuardError(f"{path}: give processing_p50 and processing_p99 together")
        self._lint_config = lint_config
        queue_name, dlq_name = _pair_names(queue_props.pop("queue_name", None), fifo)
        derivation = rule_settings(lint_config)  # the rules' settings: what the derived timeout must satisfy
        if target_duplicate_rate is not None:
            derivation["target_duplicate_rate"] = target_duplicate_rate
        self._settings = QueueSettings(
            path=path,
            queue_name=queue_name,
            dlq_name=dlq_name,
            fifo=fifo,
            visibility_timeout=_seconds(visibility_timeout, "visibility_timeout"),
            retention=_seconds(queue_props.get("retention_period"), "retention_period"),
            delay=_seconds(queue_props.get("delivery_delay"), "delivery_delay"),
            max_receive_count=max_receive_count,
            processing_p50=_seconds(processing_p50, "processing_p50"),
            processing_p99=_seconds(processing_p99, "processing_p99"),
            arrival_rate=arrival_rate,
            **derivation,
        )
        dlq_props = {k: queue_props[k] for k in SHARED_PROPS if k in queue_props}
        dlq_props.update(dead_letter_queue_props or {})
        if "retention_period" in dlq_props:
            dlq_retention = _seconds(dlq_props["retention_period"], "DLQ retention")
            self._settings = replace(self._settings, dlq_retention=dlq_retention)
        else:
            dlq_props["retention_period"] = seconds_duration(DLQ_RETENTION)
        found = self._lint(self._settings)
        _raise_errors(found, RANGE_RULES, path)
        self._validating = False
        # CDK: fifo=False with a FIFO-only prop is an error; None lets it infer the type from the props
        fifo_flag = True if fifo else None
        self.dead_letter_queue = sqs.Queue(
            self, "DeadLetterQueue", fifo=fifo_flag, queue_name=dlq_name, **dlq_props
        )
        # The timeout and the age threshold are plain numbers, set again on the L1 resources when a consumer
        # changes them (_update): cheaper at synth than Lazy values calling back into Python for every queue.
        self._timeout = self._visibility_timeout()
        self._cfn_queue = None
        self.queue = sqs.Queue(
            self,
            "Queue",
            fifo=fifo_flag,
            queue_name=queue_name,
            visibility_timeout=seconds_duration(self._timeout),
            dead_letter_queue=sqs.DeadLetterQueue(
                queue=self.dead_letter_queue, max_receive_count=max_receive_count
            ),
            **queue_props,
        )
        self.dlq_alarm = self.age_alarm = None
        self._fixed_threshold = _seconds(age_alarm_threshold, "age_alarm_threshold")
        if alarms:
            from .alarms import add_queue_alarms

            self._threshold = self._age_threshold()
            self.dlq_alarm, self.age_alarm = add_queue_alarms(
                self,
                path=path,
                queue=self.queue,
                dead_letter_queue=self.dead_letter_queue,
                age_threshold=self._threshold,
                topic=alarm_topic,
            )
        self._check(found)

    # -- consumers ---------------------------------------------------------------------------------------
    def add_lambda_consumer(
        self,
        fn: lambda_.IFunction,
        *,
        batch_size: int = 10,
        max_batching_window: Duration | None = None,
        report_batch_item_failures: bool = True,
        max_concurrency: int | None = None,
        function_timeout: Duration | None = None,
        enabled: bool | None = None,
        capacity_provider: str | None = None,
        durable_execution_timeout: Duration | None = None,
    ) -> event_sources.SqsEventSource:
        """Subscribe ``fn`` with an SqsEventSource (partial batch responses on by default). ``function_timeout``
        is needed only for an imported function, whose timeout CDK cannot see (``IFunction`` has none).
        ``capacity_provider`` (its ARN) and ``durable_execution_timeout`` say what the template's CfnFunction does
        not show here: an imported function on Lambda Managed Instances (timeouts up to 5,400 s) or a durable one
        (its batch stays in flight for the durable execution); a ``lambda_.Function``'s own are read from it."""
        timeout = _seconds(function_timeout, "function_timeout")
        path, own_timeout, reserved, capacity, durable = _function_facts(fn)
        capacity = capacity_provider if capacity_provider is not None else capacity
        given = _seconds(durable_execution_timeout, "durable_execution_timeout")
        durable = given if given is not None else durable
        if timeout is None:
            timeout = own_timeout
        if timeout is None:
            own = getattr(fn, "timeout", None)  # an imported function: IFunction has no timeout
            if own is None:
                raise GuardError(
                    f"{self._path}: cannot see the timeout of imported function {path}; "
                    "pass function_timeout=Duration.seconds(N)"
                )
            timeout = _seconds(own, "function timeout")
        spec = LambdaSpec(
            id=path,
            function_timeout=timeout,
            batch_size=batch_size,
            batching_window=_seconds(max_batching_window, "max_batching_window"),
            report_batch_item_failures=report_batch_item_failures,
            max_concurrency=max_concurrency,
            reserved_concurrency=reserved,
            capacity_provider=capacity,
            durable_execution_timeout=durable,
        )
        settings = replace(self._settings, lambdas=(*self._settings.lambdas, spec))
        found = self._lint(settings)
        # VG030/VG032 depend only on a consumer's own settings (and the queue type): an error is this one's
        _raise_errors(found, CONSUMER_RULES, spec.id)
        self._update(settings, found)
        source = event_sources.SqsEventSource(
            self.queue,
            batch_size=batch_size,
            max_batching_window=max_batching_window,
            report_batch_item_failures=report_batch_item_failures,
            max_concurrency=max_concurrency,
            enabled=enabled,
        )
        fn.add_event_source(source)
        return source

    def add_worker_consumer(
        self,
        *,
        processing_p50: Duration,
        processing_p99: Duration,
        heartbeat_interval: Duration | None = None,
        heartbeat_extend_by: Duration | None = None,
        concurrency: int | None = None,
        grantee: Any = None,
        id: str = "Workers",
    ) -> WorkerSpec:
        """Declare an ECS/EC2 worker fleet: no resource, but its profile shapes the timeout and the checks.
        ``grantee`` (an IGrantable, e.g. a task role) is granted consume permissions on the queue.

        Raises GuardError at once when the timeout is derived and the worker has no heartbeat but its profile
        needs more than the 43,200 s cap for the target duplicate rate: the message gives the policy's heartbeat
        plan (``heartbeat_interval=``, ``heartbeat_extend_by=``), and says to split the work (Step Functions) or
        checkpoint it when even a heartbeat leaves more than the target past 12 h. With an explicit
        ``visibility_timeout`` the rules judge it as for any other setting (VG012 warns, with the same plan).
        A VG014 error (p99 at or past 12 h, an extension above 43,200 s) is raised at once too."""
        spec = WorkerSpec(
            id=f"{self._path}/{id}",
            processing_p50=_seconds(processing_p50, "processing_p50"),
            processing_p99=_seconds(processing_p99, "processing_p99"),
            heartbeat_interval=_seconds(heartbeat_interval, "heartbeat_interval"),
            heartbeat_extend_by=_seconds(heartbeat_extend_by, "heartbeat_extend_by"),
            concurrency=concurrency,
        )
        if any(w.id == spec.id for w in self._settings.workers):
            raise GuardError(f"{self._path}: a worker consumer named {id!r} exists already; pass id=")
        if self._settings.visibility_timeout is None:
            # A derived timeout cannot cover a worker whose need is past the 12-hour cap: say so now, with the
            # policy's heartbeat plan, rather than derive a queue that fails its own rules (VG012/VG014).
            problem = heartbeat_required(
                spec, self._settings.target_duplicate_rate, self._settings.heartbeat_factor
            )
            if problem is not None:
                raise GuardError(f"{spec.id}: {problem}")
        settings = replace(self._settings, workers=(*self._settings.workers, spec))
        found = self._lint(settings)
        _raise_errors(found, WORKER_RULES, spec.id)
        self._update(settings, found)
        if grantee is not None:
            self.queue.grant_consume_messages(grantee)
        return spec

    # -- derived values and checks --------------------------------------------------------------------
    @property
    def settings(self) -> QueueSettings:
        return self._settings

    @property
    def visibility_timeout_seconds(self) -> int:
        """The timeout the queue will synthesize with the consumers added so far."""
        return derive_visibility_timeout(self._settings)

    def _visibility_timeout(self) -> int:
        return derive_visibility_timeout(self._settings)

    def _age_threshold(self) -> int:
        if self._fixed_threshold is not None:
            return self._fixed_threshold
        return age_alarm_threshold(self._settings, self._timeout)

    def _update(self, settings: QueueSettings, found: list) -> None:
        """Take the settings with a consumer added (``found``: the rules' findings on them): set the derived
        numbers on the L1 resources when they changed (one jsii call each)."""
        self._settings = settings
        timeout = self._visibility_timeout()
        if timeout != self._timeout:
            if self._cfn_queue is None:
                self._cfn_queue = self.queue.node.default_child
            self._cfn_queue.visibility_timeout = self._timeout = timeout
        if self.age_alarm is not None:
            threshold = self._age_threshold()
            if threshold != self._threshold:
                self.age_alarm.threshold = self._threshold = threshold
        self._check(found)

    def _check(self, found: list) -> None:
        """Register validate() with CDK (which calls it before synthesizing templates) once the rules have
        something to say about the settings so far. Settings only change through this construct's methods,
        so a queue with nothing to report costs no callback from Node.js at synth."""
        if found and not self._validating:
            self._validating = True
            self.node.add_validation(self)

    def findings(self) -> list:
        """The linter's findings for this queue pair with the consumers added so far."""
        return self._lint(self._settings)

    def acknowledge(self, rule: str, *, reason: str) -> None:
        """Acknowledge visguard rule ``rule`` ("VG021") on this queue: ``acknowledge(self, rule, reason=...)``,
        honoured by these checks and by VisGuardChecks on every supported aws-cdk-lib."""
        acknowledge(self, rule, reason=reason)

    def validate(self) -> list[str]:
        """IValidation: the rule catalogue's errors (synthesis stops on them); warnings and infos become
        annotations acknowledgeable as ``visguard::VGnnn``. Acknowledged rules (on this construct or a parent,
        ``acknowledge`` or ``Validations.acknowledge``) are left out here, whatever the release does."""
        errors = []
        found = self.findings()
        acked = acknowledged_in_tree(self) if found else {}
        for finding in found:
            if finding.rule in acked and finding.severity is not Severity.ERROR:
                continue
            text = _text(finding)  # CDK prefixes errors and annotations with the construct path
            if finding.severity is Severity.ERROR:
                errors.append(text)
            elif finding.severity is Severity.WARNING:
                Annotations.of(self).add_warning_v2(ack_id(finding.rule), text)
            else:
                _add_info(self, finding.rule, text)
        return errors

    def _lint(self, settings: QueueSettings) -> list:
        from visguard.linter.api import lint_model

        return lint_model(build_model(settings), config=self._lint_config)


def _raise_errors(found: list, rules: frozenset[str], where: str) -> None:
    """Raise the first error of ``rules`` now, for settings CDK itself would reject less helpfully."""
    for finding in found:
        if finding.severity is Severity.ERROR and finding.rule in rules:
            raise GuardError(_text(finding, where))


def _add_info(scope: Construct, rule: str, text: str) -> None:
    """An info annotation tagged with its acknowledgement id; releases before ``add_info_v2`` (2.150.0 has only
    ``add_info``) get the tag written into the text, as ``add_warning_v2`` does it."""
    annotations = Annotations.of(scope)
    if hasattr(annotations, "add_info_v2"):
        annotations.add_info_v2(ack_id(rule), text)
    else:
        annotations.add_info(f"{text} [ack: {ack_id(rule)}]")


def _text(finding, where: str | None = None) -> str:
    """A finding as one line (its fix is in a GuardedQueue's terms: the model's queues are source="construct")."""
    return format_finding(finding, where)


def _pair_names(queue_name: str | None, fifo: bool) -> tuple[str | None, str | None]:
    """FIFO queue names must end in .fifo (SQS CreateQueue); the DLQ is named after the queue."""
    if queue_name is None or Token.is_unresolved(queue_name):
        return queue_name, None
    base = queue_name[: -len(".fifo")] if queue_name.endswith(".fifo") else queue_name
    if fifo:
        return f"{base}.fifo", f"{base}-dlq.fifo"
    return queue_name, f"{queue_name}-dlq"
