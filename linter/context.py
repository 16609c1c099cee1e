"""What a rule may look at besides its queue: :class:`RuleContext` (the model, the rule settings, the risk
model) and the figures it quotes (:class:`RiskFigures`).

A rule is ``check(queue, ctx) -> Iterator[Finding]`` (``linter/rules/vgNNN_*.py``); this module is all a rule
author needs to read besides ``visguard.linter.model``. The runner (``visguard.linter.api.lint_model``) makes
one context per run and sets ``ctx.rule`` before calling each rule.
"""

from __future__ import annotations

import math

from visguard import facts, policy
from visguard.linter.model import Consumer, Finding, LintConfig, Location, Model, Queue
from visguard.linter.rules import DEFAULT_SETTINGS, Rule
from visguard.linter.rules._base import fmt_location, work_of
from visguard.linter.vocabulary import Text
from visguard.policy import z99  # z of the 99th percentile (lognormal profiles from p50/p99)

__all__ = ["RiskFigures", "RuleContext"]


class RiskFigures:
    """What a rule quotes about a queue + consumer profile: from the engine's fast risk model when it applies,
    otherwise from the lognormal tail of the declared p50/p99 (``source`` says which). A plain class: a
    dataclass would compile its methods at every lint's start."""

    __slots__ = ("duplicate_rate", "_recovery_p99", "source", "_recovery")

    def __init__(self, duplicate_rate: float, recovery_p99: float | None, source: str, recovery=None):
        self.duplicate_rate = duplicate_rate
        self._recovery_p99 = recovery_p99
        self.source = source  # "engine" | "lognormal tail" | "p99"
        self._recovery = recovery  # computes recovery_p99 when it is first asked for (the engine's: costly)

    @property
    def recovery_p99(self) -> float | None:
        if self._recovery is not None:
            self._recovery_p99, self._recovery = self._recovery(), None
        return self._recovery_p99

    def __repr__(self) -> str:
        return f"RiskFigures({self.duplicate_rate!r}, {self.recovery_p99!r}, {self.source!r})"

    def as_dict(self) -> dict:
        d = {"duplicate_rate": round(self.duplicate_rate, 6), "source": self.source}
        if self.recovery_p99 is not None:
            d["recovery_p99"] = round(self.recovery_p99, 3)
        return d


class RuleContext:
    """What a rule may look at besides its queue: the model, the rule settings, and the risk model."""

    def __init__(self, model: Model, config: LintConfig | None = None):
        self.model = model
        self.config = config or LintConfig()
        self.rule: Rule | None = None
        self._risk_cache: dict = {}
        # the visibility needs computed so far, by (id of the consumer or queue, the settings they depend on): a
        # value keeps its consumer or queue, so an id reused by a later object is never taken for it
        self._needs: dict = {}
        self._need_keys: dict = {}  # the running rule (or None) -> the settings a need depends on

    # -- settings ---------------------------------------------------------------------------------------------
    def setting(self, name: str):
        if name in self.config.settings:
            return self.config.settings[name]
        if self.rule is not None and name in self.rule.settings:
            return self.rule.settings[name]
        return DEFAULT_SETTINGS[name]

    @property
    def multiplier(self) -> float:
        """AWS: visibility timeout >= 6 x function timeout (+ batching window); configurable."""
        return float(self.setting("lambda_multiplier"))

    def _need_settings(self) -> tuple[float, float, float]:
        """The settings a visibility need depends on, for the running rule (one may set its own defaults)."""
        s = self._need_keys.get(self.rule)
        if s is None:
            s = self._need_keys[self.rule] = (
                float(self.setting("target_duplicate_rate")),
                self.multiplier,
                float(self.setting("heartbeat_max_fraction")),
            )
        return s

    # -- the visibility need (visguard.policy), computed once per consumer or queue and settings ---------------
    def need(self, c: Consumer):
        """The policy's need (``visguard.policy.Need``) of consumer ``c`` under the running rule's settings, or
        None when its kind or function is unknown."""
        s = self._need_settings()
        key = (id(c), s)
        hit = self._needs.get(key)
        if hit is None or hit[0] is not c:
            work = work_of(c)
            n = None
            if work is not None:
                n = policy.need(
                    work, target_duplicate_rate=s[0], lambda_multiplier=s[1], heartbeat_max_fraction=s[2]
                )
            hit = self._needs[key] = (c, n)
        return hit[1]

    def queue_need(self, queue: Queue, *, profiled_only: bool = False):
        """The policy's need of ``queue``'s consumers (Lambda guidance, declared profiles, heartbeats), or None.
        Consumers that set their own visibility on their receives (:meth:`overrides`) do not count: the queue's
        timeout is not what they need. ``profiled_only``: nor do workers without a processing profile or
        heartbeat (their need would be the SQS default, a guess)."""
        key = (id(queue), profiled_only, self._need_settings())
        hit = self._needs.get(key)
        if hit is None or hit[0] is not queue:
            needs = []
            for c in queue.consumers:
                if self.overrides(c):
                    continue
                if (
                    profiled_only
                    and c.kind != "lambda"
                    and c.processing_p99 is None
                    and c.heartbeat_interval is None
                ):
                    continue
                n = self.need(c)
                if n is not None and n.basis != "default":
                    needs.append(n)
            hit = self._needs[key] = (queue, policy.queue_need(needs))
        return hit[1]

    # -- model lookups ----------------------------------------------------------------------------------------
    def dlq_of(self, queue: Queue) -> Queue | None:
        return self.model.dlq_of(queue)

    def sources_of(self, dlq: Queue) -> list[Queue]:
        return self.model.sources_of(dlq)

    def is_dlq(self, queue: Queue) -> bool:
        return self.model.is_dlq(queue)

    @staticmethod
    def visibility(queue: Queue) -> float | None:
        """The queue's visibility timeout when it is a usable number (default 30 s when unset); ``None`` when it
        is unresolved or out of range (VG001 reports those), so comparison rules stay quiet."""
        v = queue.visibility_timeout
        if v is None:
            return 30.0
        if (
            isinstance(v, bool)
            or not isinstance(v, (int, float))
            or not facts.VISIBILITY_TIMEOUT.lo <= v <= facts.VISIBILITY_TIMEOUT.hi
        ):
            return None
        return float(v)

    # -- worker consumers: the visibility in effect (issue 24) -----------------------------------------------------
    @staticmethod
    def overrides(c: Consumer) -> bool:
        """True when ``c`` sets the visibility of the messages it receives itself (a receive's VisibilityTimeout,
        a framework option, sqsd: which always does, 300 s by default), so the queue's does not apply to them. A
        Go SDK v2 receive with VisibilityTimeout 0 sends nothing: the queue's applies."""
        v = c.visibility_override
        if v is None:
            return c.platform == "beanstalk"
        return not (v == 0 and c.settings.get("zero_not_sent"))

    def visibility_for(self, queue: Queue, c: Consumer) -> float | None:
        """The visibility timeout in effect for the messages ``c`` receives: its own (:meth:`overrides`), else the
        queue's; ``None`` when it is not a usable number (unresolved, out of range), so comparisons stay quiet."""
        if not self.overrides(c):
            return self.visibility(queue)
        v = c.value_for("visibility_override", queue.id)
        if v is None:  # sqsd's default
            v = facts.SQSD_OPTIONS["VisibilityTimeout"][1]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v not in facts.VISIBILITY_TIMEOUT:
            return None
        return float(v)

    def visibility_where(self, queue: Queue, c: Consumer) -> Location:
        """Where the visibility in effect for ``c`` is set: the consumer's setting (its resource when a
        platform's default applies), else the queue's VisibilityTimeout (the queue when it is not written)."""
        if self.overrides(c):
            return c.location_of("visibility_override", queue.id) or c.location or queue.location
        return queue.location_of("visibility_timeout")

    def visibility_said(self, queue: Queue, c: Consumer) -> str:
        """Where the visibility in effect for ``c`` comes from, in words: ``main.tf:12``, ``the SQS default,
        queue at main.tf:3``, ``sqsd's default, environment at template.yaml:40``."""
        if not self.overrides(c):
            return self.queue_visibility_said(queue)
        at = fmt_location(self.visibility_where(queue, c))
        return at if c.visibility_override is not None else f"sqsd's default, environment at {at}"

    @staticmethod
    def queue_visibility_said(queue: Queue) -> str:
        """Where the queue's own visibility timeout is set, in words (``main.tf:12``, ``the SQS default, queue at
        main.tf:3)``)."""
        at = fmt_location(queue.location_of("visibility_timeout"))
        return at if queue.visibility_timeout is not None else f"the SQS default, queue at {at}"

    @staticmethod
    def where(loc: Location | None) -> str:
        """``file:line`` of another place than the finding's (a message names both)."""
        return fmt_location(loc)

    @staticmethod
    def lambda_consumers(queue: Queue) -> list[Consumer]:
        """Lambda consumers whose function is known (timeout from the template, or the 3 s default)."""
        return [c for c in queue.consumers if c.kind == "lambda" and c.function_id is not None]

    @staticmethod
    def consumer_label(c: Consumer) -> str:
        """The one name of ``c`` in every rule's messages (``visguard.linter.consumer_words.label``)."""
        from visguard.linter.consumer_words import label

        return label(c)

    def finding(
        self,
        queue: Queue,
        message: str | Text,
        *,
        location: Location | None = None,
        consumer: Consumer | None = None,
        estimate: dict | None = None,
        fix: str | Text | None = None,
    ) -> Finding:
        """A finding of the running rule on ``queue``: ``message`` and ``fix`` are worded for the queue's input
        when the linter finalises it (``visguard.linter.vocabulary``); the rule's catalogue fix by default."""
        assert self.rule is not None
        return Finding(
            rule=self.rule.id,
            severity=self.rule.severity,
            message=message,
            queue=queue.id,
            location=location or queue.location,
            fix=fix or self.rule.fix_text,
            consumer=consumer.id if consumer else None,
            estimate=estimate,
            joined_by=(consumer.settings.get("queue_bindings") or {}).get(queue.id) if consumer else None,
        )

    # -- risk -------------------------------------------------------------------------------------------------
    def risk(
        self, visibility_timeout: float, consumer: Consumer, max_receive_count=None
    ) -> RiskFigures | None:
        """Duplicate rate and crash-recovery time for a consumer with a declared processing profile.

        Uses ``visguard.engine.risk`` (imported when a profile exists; its scalar path, all a rule uses, imports
        no numpy). If the engine's fast model is not installed or says it does not apply, falls back to the
        lognormal tail P(processing > visibility timeout) from p50/p99, which is what a message needs to be
        received again while its first processing is still running.
        """
        p50, p99 = consumer.processing_p50, consumer.processing_p99
        if p99 is None or p99 <= 0:
            return None
        key = (visibility_timeout, id(consumer), max_receive_count)
        if key in self._risk_cache:
            return self._risk_cache[key]
        figures = self._engine_risk(visibility_timeout, consumer, max_receive_count) or _lognormal_risk(
            visibility_timeout, p50, p99
        )
        self._risk_cache[key] = figures
        return figures

    def _engine_risk(self, vt: float, c: Consumer, mrc) -> RiskFigures | None:
        try:
            from visguard.engine.risk import Profile, estimate
        except ImportError:  # the engine part is optional for the linter: fall back to the lognormal tail
            return None
        p99 = float(c.processing_p99)
        p50 = float(c.processing_p50) if c.processing_p50 is not None else p99 / 4
        kw: dict = {"max_receive_count": int(mrc) if isinstance(mrc, int) and mrc >= 1 else None}
        if c.kind == "lambda" and c.function_id is not None:
            kw.update(
                function_timeout=c.batch_hold,  # a durable function: how long its execution can hold a batch
                batch_size=c.effective_batch_size,
                batching_window=c.effective_batching_window,
                report_batch_item_failures=c.report_batch_item_failures,
            )
        elif c.heartbeat_interval is not None:
            extend = c.heartbeat_extend_by if c.heartbeat_extend_by is not None else vt
            kw.update(heartbeat_interval=c.heartbeat_interval, heartbeat_extend_by=extend)
        try:
            profile = Profile.lognormal(p50=min(p50, p99), p99=p99)
            r = estimate(vt, profile, **kw, recovery=False)
        except (ValueError, TypeError, ArithmeticError):  # a profile the model cannot take: fall back
            return None
        if not r.applicable or r.duplicate_rate is None:
            return None

        def recovery() -> float | None:
            """The same estimate's recovery time, asked for only by a rule that reports it (most of its cost).
            Its steps are guarded (logs of at least 1e-300, capped exponentials, divisors kept positive): what
            the rate's steps computed without an error, they compute too."""
            return _num(estimate(vt, profile, **kw).recovery_p99)

        return RiskFigures(float(r.duplicate_rate), None, "engine", recovery)


def _num(v) -> float | None:
    try:
        return None if v is None else float(v)
    except (TypeError, ValueError):
        return None


def _lognormal_risk(vt: float, p50: float | None, p99: float) -> RiskFigures:
    if p50 is None or p50 <= 0 or p50 >= p99:
        # Only p99 known: by definition 1 % of processing times exceed it.
        return RiskFigures(0.01 if vt <= p99 else 0.0, vt, "p99")
    sigma = math.log(p99 / p50) / z99()
    tail = 0.5 * math.erfc((math.log(vt) - math.log(p50)) / (sigma * math.sqrt(2))) if vt > 0 else 1.0
    return RiskFigures(tail, vt, "lognormal tail")
