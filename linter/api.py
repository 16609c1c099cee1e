"""Run the rule catalogue over a model: the one entry point every door uses.

``lint_model`` (audit, tests), ``lint_template`` (CDK plugin, cfn-lint plugin) and ``lint_paths`` (CLI) all end
in the same loop: every enabled rule over every queue, then severity overrides and suppressions from the
template's Metadata and from visguard.yaml. Rules are pure; this module is the only place that knows about
configuration.
"""

from __future__ import annotations

import fnmatch
import functools
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from visguard.errors import VisguardError
from visguard.linter.model import (
    Consumer,
    Finding,
    LintConfig,
    Location,
    Model,
    Queue,
    Severity,
    Suppression,
)
from visguard.linter.rules import ALL_RULES, DEFAULT_SETTINGS, RULES, Rule

__all__ = [
    "LintConfig",
    "LintResult",
    "RuleContext",
    "lint_model",
    "lint_template",
    "lint_paths",
    "load_path",
    "severity_counts",
]

# z-score of the 99th percentile of a standard normal distribution (for lognormal profiles from p50/p99).
_Z99 = 2.3263478740408408


@dataclass
class RiskFigures:
    """What a rule quotes about a queue + consumer profile: from the engine's fast risk model when it applies,
    otherwise from the lognormal tail of the declared p50/p99 (``source`` says which)."""

    duplicate_rate: float
    recovery_p99: float | None
    source: str  # "engine" | "lognormal tail" | "p99"

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
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 43_200:
            return None
        return float(v)

    @staticmethod
    def lambda_consumers(queue: Queue) -> list[Consumer]:
        """Lambda consumers whose function is known (timeout from the template, or the 3 s default)."""
        return [c for c in queue.consumers if c.kind == "lambda" and c.function_id is not None]

    @staticmethod
    def consumer_label(c: Consumer) -> str:
        if c.kind == "lambda":
            fn = c.function_id or "an unknown function"
            return f"function {fn}" + (f" (mapping {c.id})" if c.id and c.id != fn else "")
        return f"consumer {c.id}"

    def finding(
        self,
        queue: Queue,
        message: str,
        *,
        location: Location | None = None,
        consumer: Consumer | None = None,
        estimate: dict | None = None,
        fix: str | None = None,
    ) -> Finding:
        assert self.rule is not None
        return Finding(
            rule=self.rule.id,
            severity=self.rule.severity,
            message=message,
            queue=queue.id,
            location=location or queue.location,
            fix=fix or self.rule.fix,
            consumer=consumer.id if consumer else None,
            estimate=estimate,
        )

    # -- risk -------------------------------------------------------------------------------------------------
    def risk(
        self, visibility_timeout: float, consumer: Consumer, max_receive_count=None
    ) -> RiskFigures | None:
        """Duplicate rate and crash-recovery time for a consumer with a declared processing profile.

        Uses ``visguard.engine.risk`` (imported lazily: numpy/scipy only load when a profile exists). If the
        engine's fast model is not installed or says it does not apply, falls back to the lognormal tail
        P(processing > visibility timeout) from p50/p99, which is what a message needs to be received again
        while its first processing is still running.
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
                function_timeout=c.effective_function_timeout,
                batch_size=c.effective_batch_size,
                batching_window=c.effective_batching_window,
                report_batch_item_failures=c.report_batch_item_failures,
            )
        elif c.heartbeat_interval is not None:
            extend = c.heartbeat_extend_by if c.heartbeat_extend_by is not None else vt
            kw.update(heartbeat_interval=c.heartbeat_interval, heartbeat_extend_by=extend)
        try:
            r = estimate(vt, Profile.lognormal(p50=min(p50, p99), p99=p99), **kw)
        except (ValueError, TypeError, ArithmeticError):  # a profile the model cannot take: fall back
            return None
        if not r.applicable or r.duplicate_rate is None:
            return None
        return RiskFigures(float(r.duplicate_rate), _num(r.recovery_p99), "engine")


def _num(v) -> float | None:
    try:
        return None if v is None else float(v)
    except (TypeError, ValueError):
        return None


def _lognormal_risk(vt: float, p50: float | None, p99: float) -> RiskFigures:
    if p50 is None or p50 <= 0 or p50 >= p99:
        # Only p99 known: by definition 1 % of processing times exceed it.
        return RiskFigures(0.01 if vt <= p99 else 0.0, vt, "p99")
    sigma = math.log(p99 / p50) / _Z99
    tail = 0.5 * math.erfc((math.log(vt) - math.log(p50)) / (sigma * math.sqrt(2))) if vt > 0 else 1.0
    return RiskFigures(tail, vt, "lognormal tail")


# -- the lint loop ---------------------------------------------------------------------------------------------


def _matches(glob: str, queue: Queue) -> bool:
    names = [queue.id] + ([queue.name] if queue.name else [])
    return any(fnmatch.fnmatchcase(n, glob) for n in names)


def _where(cond: dict | None, queue: Queue) -> bool:
    """A suppression's account and tag conditions (all must hold; a queue without an account or the tag fails)."""
    if not cond:
        return True
    if "account" in cond and not fnmatch.fnmatchcase(queue.account or "", cond["account"]):
        return False
    tags = queue.tags or {}
    return all(k in tags and fnmatch.fnmatchcase(tags[k], g) for k, g in (cond.get("tags") or {}).items())


def _suppressions_for(queue: Queue, config: LintConfig) -> list[Suppression]:
    out = list(queue.suppressions)
    for i, s in enumerate(config.suppressions):
        glob = config.suppression_queues.get(i, "*")
        if _matches(glob, queue) and _where(config.suppression_where.get(i), queue):
            out.append(s)
    return out


def _meta_finding(rule_id: str, queue: Queue, message: str, location: Location | None, config: LintConfig):
    rule = ALL_RULES[rule_id]
    sev = config.severity_overrides.get(rule_id, rule.severity)
    return Finding(rule_id, Severity(sev), message, queue.id, location or queue.location, fix=rule.fix)


def _config_meta_findings(config: LintConfig) -> list[Finding]:
    """VG900/VG901 for global suppressions in visguard.yaml (reported once, against the config file)."""
    out = []
    file = config.source_file or "visguard.yaml"
    for i, s in enumerate(config.suppressions):
        loc = s.location or Location(file, path=f"suppressions/{i}")
        pseudo = Queue(id=config.suppression_queues.get(i, "*"), location=loc, source="config")
        out += _suppression_problems(s, pseudo, config)
    unknown = sorted((set(config.severity_overrides) | config.disabled) - set(ALL_RULES))
    if unknown and "VG901" not in config.disabled:
        pseudo = Queue(id="rules", location=Location(file, path="rules"), source="config")
        names = ", ".join(unknown)
        out.append(
            _meta_finding("VG901", pseudo, f"rules settings name unknown rule(s) {names}", None, config)
        )
    return out


def _suppression_problems(s: Suppression, queue: Queue, config: LintConfig) -> list[Finding]:
    out = []
    if s.rule != "*" and s.rule not in ALL_RULES:
        if "VG901" not in config.disabled:
            out.append(
                _meta_finding(
                    "VG901", queue, f"suppression names unknown rule {s.rule!r}", s.location, config
                )
            )
    elif not (s.reason or "").strip() and "VG900" not in config.disabled:
        out.append(
            _meta_finding(
                "VG900",
                queue,
                f"suppression of {s.rule} on {queue.id} has no reason, so it is ignored",
                s.location,
                config,
            )
        )
    return out


def _suppresses(s: Suppression, f: Finding) -> bool:
    """A suppression hides findings of its rule on its queue; one declared on a consumer's resource (an event
    source mapping, a function) only those about that consumer."""
    if s.rule not in ("*", f.rule):
        return False
    return s.consumer is None or s.consumer == f.consumer


@functools.lru_cache(maxsize=64)
def _rule_lists(disabled: frozenset[str]) -> tuple[tuple[Rule, ...], tuple[Rule, ...]]:
    """The enabled rules in catalogue order: all of them, and those that can fire on a queue without
    consumers (the linter's hot loop in a fleet audit runs once per queue)."""
    enabled = tuple(r for r in RULES.values() if r.id not in disabled)
    return enabled, tuple(r for r in enabled if not r.consumers_only)


def lint_model(
    model: Model, config: LintConfig | None = None, only: Iterable[str] | None = None
) -> list[Finding]:
    """Every enabled rule over every queue; severity overrides and suppressions applied.

    Suppressions with a reason hide matching findings; suppressions without one are ignored and reported
    (VG900). Findings come back sorted by file, line, queue and rule. ``only`` (queue ids) checks just those
    queues; the rest of the model is still there as context (a DLQ, its sources), so each of them gets exactly
    the findings a full run gives it (every rule's findings are on the queue it checks).
    """
    config = config or LintConfig()
    ctx = RuleContext(model, config)
    findings: list[Finding] = []
    queues = model.queues.values() if only is None else [model.queues[i] for i in only]
    with_consumers, without_consumers = _rule_lists(frozenset(config.disabled))
    for queue in queues:
        raw: list[Finding] = []
        for rule in with_consumers if queue.consumers else without_consumers:
            ctx.rule = rule
            raw.extend(rule.check(queue, ctx))
        ctx.rule = None
        if not raw and not queue.suppressions:
            continue
        for s in queue.suppressions:
            findings += _suppression_problems(s, queue, config)
        active = [
            s
            for s in _suppressions_for(queue, config)
            if (s.reason or "").strip() and (s.rule == "*" or s.rule in ALL_RULES)
        ]
        for f in raw:
            if any(_suppresses(s, f) for s in active):
                continue
            f = _generated_fix(f, queue)
            if f.rule in config.severity_overrides:
                f = replace(f, severity=Severity(config.severity_overrides[f.rule]))
            findings.append(f)
    return sort_findings(findings)


def _generated_fix(f: Finding, queue: Queue) -> Finding:
    """A finding on a queue or mapping that a tool generates (SAM SqsSubscription) cannot be fixed where it
    points: say how to take the settings over."""
    by = queue.created_by
    if by is None and f.consumer is not None:
        by = next((c.created_by for c in queue.consumers if c.id == f.consumer), None)
    if by is None or not f.fix:
        return f
    return replace(f, fix=f"{f.fix} {by}")


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    return sorted(
        findings,
        key=lambda f: (
            f.location.file or "",
            f.location.line or 0,
            f.queue,
            f.rule,
            f.consumer or "",
            f.message,
        ),
    )


def severity_counts(findings: Iterable[Finding]) -> dict[str, int]:
    counts = {s.value: 0 for s in Severity}
    for f in findings:
        counts[f.severity.value] += 1
    return counts


def load_path(path: str, parameters: dict | None = None) -> Model:
    from visguard.linter.loaders import load_path as _load_path

    return _load_path(path, parameters=parameters)


def lint_template(
    template: dict,
    *,
    file: str = "template.json",
    construct_paths: dict | None = None,
    config: LintConfig | None = None,
    parameters: dict | None = None,
) -> list[Finding]:
    """Lint one CloudFormation template given as a dict (CDK plugin, cfn-lint plugin)."""
    from visguard.linter import loaders

    model = loaders.load_template(template, file=file, parameters=parameters, construct_paths=construct_paths)
    if config is not None and config.profiles:
        loaders.apply_profiles(model, config)
    return lint_model(model, config)


@dataclass
class LintResult:
    findings: list[Finding] = field(default_factory=list)
    errors: list[VisguardError] = field(default_factory=list)
    files: list[str] = field(default_factory=list)  # every file that was linted (clean ones included)
    queues: int = 0


TEMPLATE_SUFFIXES = (".yaml", ".yml", ".json", ".template")


def _is_config_file(path: str) -> bool:
    from visguard.linter.loaders.config import CONFIG_NAMES

    base = os.path.basename(path)
    return base in CONFIG_NAMES or base.endswith((".visguard.yaml", ".visguard.yml"))


def _looks_lintable(path: str) -> bool:
    """Inside a folder, only templates (a ``Resources`` key) and visguard.yaml files are linted; other JSON and
    YAML (package.json, CI workflows, cdk.json) are not the user's inputs and are skipped without an error.
    Files named on the command line are always loaded."""
    if _is_config_file(path):
        return True
    if path.endswith((".assets.json", "tree.json", "manifest.json")):
        return False
    try:
        with open(path, "rb") as fh:
            return b"Resources" in fh.read()
    except OSError:
        return True  # let the loader report it


def expand_paths(paths: Iterable[str]) -> tuple[list[str], list[VisguardError]]:
    """Files to lint: a file as given; a cdk.out folder (manifest.json) as one input; other folders are
    searched for templates (files with a ``Resources`` key), visguard.yaml files and cdk.out assemblies."""
    out: list[str] = []
    errors: list[VisguardError] = []
    for p in paths:
        if not os.path.exists(p):
            errors.append(VisguardError("no such file or directory", file=p))
        elif os.path.isdir(p) and not os.path.exists(os.path.join(p, "manifest.json")):
            found = []
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "node_modules")
                if os.path.exists(os.path.join(root, "manifest.json")) and root != p:
                    found.append(root)
                    dirs[:] = []
                    continue
                found += [
                    os.path.join(root, f)
                    for f in sorted(files)
                    if f.endswith(TEMPLATE_SUFFIXES) and _looks_lintable(os.path.join(root, f))
                ]
            if not found:
                errors.append(
                    VisguardError(
                        "no CloudFormation templates, cdk.out assemblies or visguard.yaml files found", file=p
                    )
                )
            out += found
        else:
            out.append(p)
    return out, errors


def lint_paths(
    paths: Iterable[str], *, config: LintConfig | None = None, parameters: dict | None = None
) -> LintResult:
    """Load and lint each path; bad input is collected (one error per file) and the other files still run."""
    from visguard.linter import loaders

    config = config or LintConfig()
    result = LintResult()
    files, result.errors = expand_paths(paths)
    for path in files:
        file_config = config
        try:
            model = loaders.load_path(path, parameters=parameters)
            if config.source_file is None and _is_config_file(path):
                # a visguard.yaml linted on its own brings its settings, profiles and suppressions along
                file_config = loaders.load_config(path)
                result.findings += _config_meta_findings(file_config)
            if file_config.profiles:
                loaders.apply_profiles(model, file_config)
        except VisguardError as exc:
            result.errors.append(exc)
            continue
        except RecursionError:
            result.errors.append(VisguardError("document nested too deeply", file=path))
            continue
        result.files.append(path)
        result.queues += len(model.queues)
        result.findings += lint_model(model, file_config)
    result.findings += _config_meta_findings(config)
    result.findings = sort_findings(result.findings)
    return result
