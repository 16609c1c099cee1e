"""Run the rule catalogue over a model: the one entry point every door uses.

``lint_model`` (audit, tests), ``lint_template`` (CDK plugin, cfn-lint plugin) and ``lint_paths`` (CLI) all end
in the same loop: every enabled rule over every queue, then severity overrides and suppressions from the
template's Metadata and from visguard.yaml. Rules are pure; this module is the only place that knows about
configuration.
"""

from __future__ import annotations

import fnmatch
import functools
from collections.abc import Callable, Iterable

from visguard.errors import InternalError, VisguardError, too_deep
from visguard.linter.context import RiskFigures, RuleContext
from visguard.linter.matching import matches
from visguard.linter.model import (
    Finding,
    LintConfig,
    Location,
    Model,
    Queue,
    Severity,
    Suppression,
)
from visguard.linter.rules import ALL_RULES, RULES, Rule
from visguard.linter.vocabulary import word

__all__ = [
    "LintConfig",
    "LintResult",
    "RiskFigures",
    "RuleContext",
    "lint_model",
    "lint_template",
    "lint_paths",
    "load_path",
    "severity_counts",
]

# -- the lint loop ---------------------------------------------------------------------------------------------


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
        if matches(glob, queue) and _where(config.suppression_where.get(i), queue):
            out.append(s)
    return out


def _meta_finding(rule_id: str, queue: Queue, message: str, location: Location | None, config: LintConfig):
    rule = ALL_RULES[rule_id]
    sev = config.severity_overrides.get(rule_id, rule.severity)
    f = Finding(rule_id, Severity(sev), message, queue.id, location or queue.location, fix=rule.fix_text)
    return word(f, queue)


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


@functools.lru_cache(maxsize=256)
def _rules_for(disabled: frozenset[str], kinds: frozenset[str]) -> tuple[Rule, ...]:
    """The enabled rules, in catalogue order, that can fire on a queue whose consumers are of ``kinds`` (none: a
    queue without consumers): the linter's hot loop in a fleet audit runs once per queue, and a Lambda rule has
    nothing to say about a queue that only workers read (``Rule.consumers_only``, ``Rule.kinds``)."""
    return tuple(
        r
        for r in RULES.values()
        if r.id not in disabled
        and (kinds or not r.consumers_only)
        and (r.kinds is None or not kinds.isdisjoint(r.kinds))
    )


def lint_model(
    model: Model,
    config: LintConfig | None = None,
    only: Iterable[str] | None = None,
    vocabulary: Callable[[Queue], str] | None = None,
    context: RuleContext | None = None,
) -> list[Finding]:
    """Every enabled rule over every queue; severity overrides and suppressions applied.

    Suppressions with a reason hide matching findings; suppressions without one are ignored and reported
    (VG900). Findings come back sorted by file, line, queue and rule. ``only`` (queue ids) checks just those
    queues; the rest of the model is still there as context (a DLQ, its sources), so each of them gets exactly
    the findings a full run gives it (every rule's findings are on the queue it checks).

    Each finding is worded here, once, for the input its queue came from (``visguard.linter.vocabulary``);
    ``vocabulary`` picks another for a queue (the CDK report: a GuardedQueue's own words).

    ``context``: a ``RuleContext`` of this model and config to run the rules in, when the caller wants what
    they computed afterwards (the audit's required visibility: ``RuleContext.queue_need``).
    """
    if context is not None:
        if context.model is not model or (config is not None and context.config is not config):
            raise ValueError("lint_model: the context is of another model or config")
        config, ctx = context.config, context
    else:
        config = config or LintConfig()
        ctx = RuleContext(model, config)
    findings: list[Finding] = []
    queues = model.queues.values() if only is None else [model.queues[i] for i in only]
    disabled = frozenset(config.disabled)
    for queue in queues:
        raw: list[Finding] = []
        for rule in _rules_for(disabled, frozenset([c.kind for c in queue.consumers])):
            ctx.rule = rule
            raw.extend(rule.check(queue, ctx))
        ctx.rule = None
        if not raw and not queue.suppressions:
            continue
        for s in queue.suppressions:
            findings += _suppression_problems(s, queue, config)
        findings += _finished(raw, queue, config, vocabulary)
    if only is None and (model.unjoined or model.pending):
        findings += _alone_findings(model, ctx, disabled, vocabulary)
    return sort_findings(findings)


def _finished(raw: list[Finding], queue: Queue, config: LintConfig, vocabulary) -> list[Finding]:
    """The findings of ``raw`` on ``queue`` that no suppression with a reason hides, worded, severities set."""
    active = [
        s
        for s in _suppressions_for(queue, config)
        if (s.reason or "").strip() and (s.rule == "*" or s.rule in ALL_RULES)
    ]
    out = []
    for f in raw:
        if any(_suppresses(s, f) for s in active):
            continue
        f = _generated_fix(word(f, queue, vocabulary(queue) if vocabulary else None), queue)
        if f.rule in config.severity_overrides:
            f = f.replace(severity=Severity(config.severity_overrides[f.rule]))
        out.append(f)
    return out


def _alone_findings(model: Model, ctx: RuleContext, disabled: frozenset[str], vocabulary) -> list[Finding]:
    """The rules that judge a consumer by what it sets itself (``Rule.check_consumer``) over each consumer whose
    queue is not known (``Model.unjoined``; ``pending`` when no join ran): a receive's VisibilityTimeout of 0 is a
    finding whatever the queue. Each finding is on the consumer's stand-in queue (``rules._base.alone``)."""
    from visguard.linter.rules._base import alone

    out: list[Finding] = []
    for c in [*model.unjoined, *model.pending]:
        if c.settings.get("celery_tasks_only"):
            continue  # a file of tasks, merged into its app (linter.consumers), not a consumer of its own
        rules = [r for r in _rules_for(disabled, frozenset([c.kind])) if r.check_consumer is not None]
        raw: list[Finding] = []
        for rule in rules:
            ctx.rule = rule
            raw.extend(rule.check_consumer(c, ctx))
        ctx.rule = None
        if raw:
            out += _finished(raw, alone(c), ctx.config, vocabulary)
    return out


def _generated_fix(f: Finding, queue: Queue) -> Finding:
    """A finding on a queue or mapping that a tool generates (SAM SqsSubscription) cannot be fixed where it
    points: say how to take the settings over."""
    by = queue.created_by
    if by is None and f.consumer is not None:
        by = next((c.created_by for c in queue.consumers if c.id == f.consumer), None)
    if by is None or not f.fix:
        return f
    if queue.source == "code" and not any(c.target == queue.id for c in f.changes or ()):
        return f  # created by code at run time (linter.created_queues): said where the queue is to change
    return f.replace(fix=f"{f.fix} {by}")


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


class LintResult:
    """What ``lint_paths`` found: findings, one error per input that could not be linted, and what was read
    (a plain class: a dataclass would cost ~0.5 ms of every lint's start)."""

    def __init__(
        self,
        findings: list[Finding] | None = None,
        errors: list[VisguardError] | None = None,
        files: list[str] | None = None,
        queues: int = 0,
        more_files: int = 0,
    ):
        self.findings: list[Finding] = findings if findings is not None else []
        self.errors: list[VisguardError] = errors if errors is not None else []  # one per input not linted
        self.files: list[str] = files if files is not None else []  # every file linted (clean ones included)
        self.queues = queues
        self.fixes: list | None = None  # the fix plan, when a door asks for it (visguard.linter.fix.plan)
        self.more_files = (
            more_files  # files read besides the inputs themselves (a Terraform root's other files)
        )
        # folders searched in which nothing visguard reads was found (registry.NothingToLint): not errors
        self.nothing: list[VisguardError] = []
        self.models: dict = {}  # input path -> the Model read from it (lint_paths)

    def __repr__(self) -> str:
        return (
            f"LintResult({len(self.findings)} findings, {len(self.errors)} errors, {len(self.files)} files)"
        )

    @property
    def files_read(self) -> int:
        """How many files were read: each input, and each further file of a Terraform root module."""
        return len(self.files) + self.more_files

    @property
    def internal_errors(self) -> list[VisguardError]:
        """Inputs that hit a bug in visguard (exit 3), not bad input."""
        return [e for e in self.errors if isinstance(e, InternalError)]


def expand_paths(
    paths: Iterable[str], *, exclude: Iterable[str] = ()
) -> tuple[list[str], list[VisguardError]]:
    """The inputs behind ``paths`` (``registry.discover``): files as given, claimed folders (cdk.out) as one
    input, other folders searched."""
    from visguard.linter.loaders import registry

    errors: list[VisguardError] = []
    inputs = registry.discover(paths, exclude=exclude, errors=errors)
    return [i.path for i in inputs], errors


def _note_findings(model: Model, config: LintConfig) -> list[Finding]:
    """VG902 (info) once for each value or part a loader could not evaluate or read (``model.notes``: Terraform,
    Serverless); its queue field is the address the note is about."""
    notes = model.notes
    if not notes or "VG902" in config.disabled:
        return []
    rule = ALL_RULES["VG902"]
    sev = Severity(config.severity_overrides.get("VG902", rule.severity))
    return [
        Finding(
            "VG902",
            sev,
            n.message,
            getattr(n, "address", None) or n.location.path or n.location.file,
            n.location,
            fix=getattr(n, "fix", None) or rule.fix,
        )
        for n in notes
    ]


def _guarded(result: LintResult, path: str, step):
    """``step()``, with bad input and crashes recorded for ``path`` (one error per file; None then)."""
    try:
        return step()
    except VisguardError as exc:
        result.errors.append(exc if exc.file else VisguardError(exc.detail, file=path, place=exc.place))
    except RecursionError:  # the per-file backstop: the other files still run
        result.errors.append(too_deep(path))
    except MemoryError:
        result.errors.append(VisguardError("input too large to lint in memory", file=path))
    except Exception as exc:  # a bug in visguard: report it for this file, lint the others (exit 3)
        result.errors.append(InternalError.from_exception(exc, file=path))
    return None


def lint_paths(
    paths: Iterable[str],
    *,
    config: LintConfig | None = None,
    parameters: dict | None = None,
    options=None,
    exclude: Iterable[str] = (),
    queue_models: Iterable[Model] = (),
    fetch_queues: Callable[[list[Model]], Iterable[Model]] | None = None,
    inputs: list | None = None,
    load: Callable | None = None,
    writable: Callable[[Model], Model] | None = None,
) -> LintResult:
    """Load and lint each input; bad input is collected (one error per file) and the other files still run.

    The registry decides once what each path is (``visguard.linter.loaders.registry``). A visguard.yaml linted
    as an input (by any name) brings its settings, profiles and suppressions along when no ``config`` was given.
    A crash while reading or linting one file (a bug in visguard) is recorded for that file as an
    :class:`~visguard.errors.InternalError` and the other files still run.

    Every input is loaded before any is linted: consumers read in one input (a Deployment, application code)
    are joined to queues of another (``linter.consumers.join``), or of ``queue_models`` (deployed queues given
    with ``--queues-from``: an audit inventory, or read from AWS), whose consumed queues are linted too.
    ``fetch_queues``, when given, is called once with the loaded models and returns more such models (``--queues-from
    aws`` reads the queues the run's consumers name: ``visguard.linter.queues_from``); its bad input is one error.

    A long-lived door (the language server, ``visguard.linter.lsp``) passes ``inputs``, what ``registry.discover``
    found for ``paths`` before, ``load(input, options) -> Model``, which may return a model it loaded before, and
    ``writable(model) -> Model``, called before the join or visguard.yaml's profiles change a model (a kept model
    is then copied); the models linted are in ``result.models`` (path -> Model).
    """
    from visguard.linter.loaders import registry

    paths = list(paths)
    config = config or LintConfig()
    if options is None:
        options = registry.LoadOptions(parameters=dict(parameters or {}))
    result = LintResult()
    per_call: set[tuple] = set()  # (id, file, line) of each queue one of several calls of a create gives
    made_at: dict[str, tuple] = {}  # ... its id -> (file, line) of that create
    if inputs is None:
        inputs = registry.discover(paths, exclude=exclude, errors=result.errors)
    result.nothing = [e for e in result.errors if isinstance(e, registry.NothingToLint)]
    result.errors = [e for e in result.errors if not isinstance(e, registry.NothingToLint)]
    loaded: list[tuple[str, object, Model]] = []
    for item in inputs:  # load every input first: a consumer in one may read a queue of another
        opts = options.replace(asked=item.asked) if isinstance(options, registry.LoadOptions) else options
        if load is None:
            model = _guarded(result, item.path, lambda item=item, o=opts: item.loader.load(item.path, o))
        else:
            model = _guarded(result, item.path, lambda item=item, o=opts: load(item, o))
        if model is not None:
            loaded.append((item.path, item.loader, model))

    extra = list(queue_models or ())
    if fetch_queues is not None:
        fetched = _guarded(result, "--queues-from", lambda: list(fetch_queues([m for _, _, m in loaded])))
        extra += fetched or []
    if any(m.pending or m.env for _, _, m in loaded):  # consumers to join, or workloads given a queue
        from visguard.linter.consumers import join

        if writable is not None:
            loaded = [(p, lo, writable(m)) for p, lo, m in loaded]
        join([m for _, _, m in loaded] + extra, roots=list(paths))
    result.models = {path: m for path, _, m in loaded}
    for path, loader, model in loaded:
        file_config = config
        meta: list[Finding] = []
        if loader.name == "visguard-config" and config.source_file is None and model.config is not None:
            # a visguard.yaml linted on its own (a loaders.config.ConfigModel) brings its settings, profiles and
            # suppressions along
            file_config = model.config
            meta = _config_meta_findings(file_config)

        if file_config.profiles and writable is not None:  # apply_profiles changes the model
            model = result.models[path] = writable(model)

        def run(model=model, file_config=file_config):
            if file_config.profiles:
                from visguard.linter.loaders.config import apply_profiles

                apply_profiles(model, file_config)
            return lint_model(model, file_config)

        findings = _guarded(result, path, run)
        if findings is None:
            continue
        if path not in result.files:  # a file two loaders read (registry.claims) is one file
            result.files.append(path)
        result.more_files += max(len(getattr(model, "files", None) or ()) - 1, 0)
        result.queues += len(model.queues)
        for q in model.queues.values():
            if "call" in q.locations and q.location is not None:
                per_call.add((q.id, q.location.file, q.location.line))
                made_at[q.id] = (q.location.file, q.location.line)
        result.findings += meta + findings + _note_findings(model, file_config)
    for m in extra:  # queues given with --queues-from: linted where a consumer of this run reads them (their
        # dead-letter queues stay in the model as context)
        read = [k for k, q in m.queues.items() if q.consumers]
        result.queues += len(read)
        result.findings += (
            _guarded(
                result, m.source_file or "<queues>", lambda m=m, read=read: lint_model(m, config, only=read)
            )
            or []
        )
        result.findings += _note_findings(m, config)
    result.findings += _config_meta_findings(config)
    result.findings = sort_findings(_one_per_create_call(result.findings, per_call, made_at))
    return result


def _one_per_create_call(
    findings: list[Finding], per_call: set = frozenset(), made_at: dict | None = None
) -> list[Finding]:
    """One finding per rule at one create call for the queues created there under names known only at run time,
    or once per call of the helper or constructor it is in (``per_call``: (id, file, line), a helper called by
    many tests: ``linter.loaders.code.creates``): the first, saying how many more. Likewise one per rule at one
    other place for different queues of one such create call (``made_at``: id -> (file, line) of its create): the
    helper's default ``VisibilityTimeout`` its receive of each call's queue sends (VG060 there), one edit."""
    import sys

    created = sys.modules.get("visguard.linter.created_queues")  # imported when code created a queue
    if created is None:
        return findings
    UNNAMED_PREFIX = created.UNNAMED_PREFIX  # noqa: N806 - the module's constant

    made_at = made_at or {}
    groups: dict[tuple, list[Finding]] = {}
    elsewhere: dict[tuple, list[Finding]] = {}  # (rule, place, its create's place) -> its queues' findings
    out: list[Finding] = []
    for f in findings:
        unnamed = isinstance(f.queue, str) and f.queue.startswith(UNNAMED_PREFIX)
        if f.location is not None and (unnamed or (f.queue, f.location.file, f.location.line) in per_call):
            k = (f.rule, f.location.file, f.location.line, f.location.column)
            if k in groups:
                groups[k].append(f)
                continue
            groups[k] = [f]
        elif f.location is not None and isinstance(f.queue, str) and f.queue in made_at:
            k = (f.rule, f.location.file, f.location.line, f.location.column, made_at[f.queue])
            same = elsewhere.setdefault(k, [])
            if same and all(g.queue != f.queue for g in same):  # (one queue's findings there stay apart)
                same.append(f)
                continue
            if not same:
                same.append(f)
        out.append(f)
    for i, f in enumerate(out):
        at = (f.rule, f.location.file, f.location.line, f.location.column) if f.location else None
        same = groups.get(at) if at else None
        if same and len(same) > 1 and same[0] is f:
            more = len(same) - 1
            out[i] = f.replace(
                message=f"{f.message} (and {more} more queue{'s' if more > 1 else ''} created by this call)"
            )
            continue
        place = made_at.get(f.queue) if at and isinstance(f.queue, str) else None
        same = elsewhere.get((*at, place)) if place is not None else None
        if same and len(same) > 1 and same[0] is f:
            more = len(same) - 1
            out[i] = f.replace(
                message=f"{f.message} (and {more} more queue{'s' if more > 1 else ''} created by the call at "
                f"{place[0]}:{place[1]})"
            )
    return out
