"""``VisGuardChecks``: visguard's rule catalogue as a CDK policy-validation plugin.

Register it with ``Validations.of(app).add_plugins(VisGuardChecks())`` or, on every supported release
(aws-cdk-lib 2.150.0 and newer), ``App(policy_validation_beta1=[VisGuardChecks()])``; ``add_checks(app)`` picks
the first where it exists. After synthesis CDK calls ``validate`` with the template paths of the app. The cloud
assembly holding them is loaded as one model (``visguard.linter.api.load_path``: cross-stack consumers are linked
to their queues) and linted with ``lint_model``, so every queue is checked, GuardedQueue or plain
``aws_sqs.Queue``. The report:

- every message leads with the queue's construct path, and names functions and mappings by construct path, not
  by hashed logical id; fixes are in CDK terms (the CDK vocabulary of ``visguard.linter.vocabulary``, a
  GuardedQueue's own for a GuardedQueue);
- one warning per defect: a finding a GuardedQueue already reported as an annotation (its own checks know its
  consumers' profiles, so they are the ones kept) is not repeated;
- acknowledgements (``visguard.constructs.acknowledge`` or ``Validations.of(x).acknowledge``, on the queue or
  any parent) are honoured by the plugin itself, on every release, and listed in the report's metadata;
- the plugin always shows it ran: its metadata holds the number of queues and stacks checked, and when nothing
  is found it reports one info entry saying so (CDK leaves a plugin without entries out of the report);
- errors fail the synth; warnings and infos do not. Releases before the graduated API (``Validations``) leave a
  plugin with only warnings out of the report, so there the plugin prints its report to stderr itself.
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Any

from .compat import api, require_supported

require_supported()  # a clear error naming the installed version, before any aws_cdk name is imported

import jsii  # noqa: E402
from visguard import __version__  # noqa: E402

from .acks import (  # noqa: E402
    ACK_NAMESPACE,
    assembly_acknowledgements,
    is_acknowledged,
    stack_metadata,
)

_API = api()
# Severity names CDK's report knows (core/lib/validation/private/report.js: fatal, error, warning, info).
_SEVERITY = {"error": "error", "warning": "warning", "info": "info"}
# A GuardedQueue's annotations end with "[ack: visguard::VGnnn]" (Annotations.add_warning_v2).
_ANNOTATION_RULE = re.compile(r"\[ack: visguard::(VG\d{3})\]")
_ANNOTATION_TYPES = ("aws:cdk:warning", "aws:cdk:info", "aws:cdk:error")
SUMMARY_RULE = "visguard-summary"


@jsii.implements(*_API.interfaces)
class VisGuardChecks:
    """Run visguard's rules over every synthesized template of the app.

    ``config`` is a ``visguard.linter.model.LintConfig`` (rule settings, severity overrides, disabled rules,
    profiles); ``include_info=False`` leaves info-level findings out of the report. ``print_report`` (default:
    only on releases whose report drops warnings) prints the findings and the summary to stderr.
    """

    def __init__(
        self,
        *,
        config: Any = None,
        include_info: bool = True,
        print_report: bool | None = None,
        exit_on_error: bool | None = None,
    ) -> None:
        self._config = config
        self._include_info = include_info
        self._print = _API.prints_own_warnings if print_report is None else print_report
        # Before the graduated API a failed plugin only sets the exit code of jsii's Node.js process, which a
        # Python app does not inherit: `cdk synth` would succeed. Under the CDK CLI (CDK_OUTDIR set) visguard then
        # ends the app with exit code 1 once it is done.
        if exit_on_error is None:
            exit_on_error = _API.prints_own_warnings and "CDK_OUTDIR" in os.environ
        self._exit_on_error = exit_on_error

    @property
    def name(self) -> str:
        # CDK derives the acknowledgement namespace from this name ("visguard::VG011").
        return ACK_NAMESPACE

    @property
    def version(self) -> str:
        return __version__

    @property
    def rule_ids(self) -> list[str]:
        from visguard.linter.rules import RULES

        return sorted(RULES)

    def validate(self, context: Any) -> Any:
        templates = list(context.template_paths)  # in every release's context (stack_templates only newer)
        result = self.check(templates)
        violations = [_violation(entry) for entry in result.entries]
        if not violations:
            violations = [_summary_violation(result)]
        if self._print:
            print(result.text(), file=sys.stderr)
        if result.failed and self._exit_on_error:
            _exit_with_error_at_end()
        return _API.report(
            success=not result.failed,
            violations=violations,
            plugin_version=__version__,
            metadata=result.metadata(),
        )

    def check(self, template_paths: list[str]) -> CheckResult:
        """Lint the templates; return the report entries (pure Python: tests call it without a synth)."""
        result = CheckResult(stacks=len(template_paths))
        metadata = {path: stack_metadata(path) for path in template_paths}
        names = _construct_names(template_paths)
        for finding, template in self.findings(template_paths):
            if not self._include_info and finding.severity.value == "info":
                continue
            logical_id, location = resource_and_location(finding)
            paths = names.get(os.path.realpath(template), {})
            construct = finding.location.construct_path or (paths.get(logical_id, "") if logical_id else "")
            queue_path = _owner(construct)
            stack_meta = metadata.get(template, {})
            reason = is_acknowledged(assembly_acknowledgements(stack_meta), finding.rule, construct)
            if reason is not None and finding.severity.value != "error":  # errors cannot be acknowledged
                result.acknowledged.append(f"{finding.rule} on {queue_path or logical_id}: {reason}")
                continue
            owner = (
                self._queue_paths.get(finding.queue) or construct
            )  # the queue a mapping's finding is about
            if _annotated_by_guarded_queue(stack_meta, finding.rule, owner):
                result.annotated += 1
                continue
            result.entries.append(
                Entry(
                    rule=finding.rule,
                    severity=_SEVERITY.get(finding.severity.value, "warning"),
                    description=f"{queue_path or logical_id}: {_readable(finding.message, names, template)}",
                    fix=_readable(finding.fix, names, template),
                    logical_id=logical_id,
                    template=template,
                    location=location,
                    construct_path=construct or None,
                )
            )
        result.queues = self._queues
        result.entries += acknowledgement_problems(template_paths, metadata, names)
        return result

    _queues = 0
    _queue_paths: dict[str, str] = {}  # noqa: RUF012 - replaced per check

    def findings(self, template_paths: list[str]) -> list[tuple[Any, str]]:
        """(finding, template path) for every finding located in one of ``template_paths``.

        A template outside any cloud assembly (no manifest.json beside it) is linted alone (``lint_template``).
        """
        from visguard.linter.api import lint_model, load_path
        from visguard.linter.loaders import apply_profiles, load_template

        metadata = {os.path.realpath(p): stack_metadata(p) for p in template_paths}

        def vocabulary(queue) -> str:
            """The words of a fix: a GuardedQueue's (its own arguments) or an aws_sqs.Queue's."""
            meta = metadata.get(os.path.realpath(queue.location.file or ""), {})
            return "construct" if _is_guarded(meta, queue.location.construct_path or "") else "cdk"

        wanted = {os.path.realpath(p) for p in template_paths}
        roots = assembly_roots(template_paths)
        out: list[tuple[Any, str]] = []
        seen: set = set()
        self._queues = 0
        self._queue_paths = {}
        for root in roots:
            model = load_path(root)
            if self._config is not None and self._config.profiles:
                apply_profiles(model, self._config)
            for q in model.queues.values():
                if os.path.realpath(q.location.file or "") in wanted:
                    self._queues += 1
                    self._queue_paths[q.id] = q.location.construct_path or ""
            for finding in lint_model(model, self._config, vocabulary=vocabulary):
                file = os.path.realpath(finding.location.file or "")
                key = (file, finding.rule, finding.queue, finding.consumer, finding.message)
                if file in wanted and key not in seen:
                    seen.add(key)
                    out.append((finding, finding.location.file))
        for path in template_paths:
            if not any(_inside(path, root) for root in roots):
                with open(path, encoding="utf-8") as fh:
                    template = json.load(fh)
                paths = construct_paths(template)
                model = load_template(template, file=path, construct_paths=paths)
                if self._config is not None and self._config.profiles:
                    apply_profiles(model, self._config)
                self._queues += len(model.queues)
                out += [(finding, path) for finding in lint_model(model, self._config, vocabulary=vocabulary)]
        return out


class Entry:
    """One violation of the report, independent of the release's struct types."""

    __slots__ = (
        "rule",
        "severity",
        "description",
        "fix",
        "logical_id",
        "template",
        "location",
        "construct_path",
    )

    def __init__(self, *, rule, severity, description, fix, logical_id, template, location, construct_path):
        self.rule, self.severity, self.description, self.fix = rule, severity, description, fix
        self.logical_id, self.template, self.location = logical_id, template, location
        self.construct_path = construct_path


class CheckResult:
    def __init__(self, stacks: int) -> None:
        self.stacks = stacks
        self.queues = 0
        self.entries: list[Entry] = []
        self.acknowledged: list[str] = []
        self.annotated = 0  # findings a GuardedQueue reported itself (annotations)

    @property
    def failed(self) -> bool:
        return any(e.severity == "error" for e in self.entries)

    def counts(self) -> dict[str, int]:
        out = {"error": 0, "warning": 0, "info": 0}
        for e in self.entries:
            out[e.severity] = out.get(e.severity, 0) + 1
        return out

    def summary(self) -> str:
        c = self.counts()
        found = ", ".join(f"{n} {k}{'s' if n != 1 else ''}" for k, n in c.items() if n) or "no findings"
        extra = []
        if self.annotated:
            extra.append(f"{self.annotated} reported by GuardedQueue annotations")
        if self.acknowledged:
            extra.append(f"{len(self.acknowledged)} acknowledged")
        more = f" ({'; '.join(extra)})" if extra else ""
        return f"visguard checked {self.queues} queues in {self.stacks} stacks: {found}{more}."

    def metadata(self) -> dict[str, str]:
        c = self.counts()
        out = {
            "queuesChecked": str(self.queues),
            "stacksChecked": str(self.stacks),
            "errors": str(c["error"]),
            "warnings": str(c["warning"]),
            "infos": str(c["info"]),
            "reportedByGuardedQueueAnnotations": str(self.annotated),
            "summary": self.summary(),
        }
        if self.acknowledged:
            out["acknowledged"] = "; ".join(self.acknowledged)
        return out

    def text(self) -> str:
        """The report as the CDK CLI prints annotations: one line per finding, the construct path first."""
        lines = []
        for e in self.entries:
            fix = f" Fix: {e.fix}" if e.fix else ""
            ack = "" if e.severity == "error" else f" [ack: {ACK_NAMESPACE}::{e.rule}]"  # errors: no ack
            lines.append(
                f"[{e.severity.capitalize()} at /{_owner(e.construct_path or e.logical_id or '')}] {e.rule} "
                f"{e.description}{fix}{ack}"
            )
        lines.append(self.summary())
        return "\n".join(lines)


def add_checks(app: Any, plugin: VisGuardChecks | None = None) -> VisGuardChecks:
    """Register ``plugin`` (default ``VisGuardChecks()``) on ``app`` with ``Validations.of(app).add_plugins``.
    Releases before it take plugins only when the App is created: there this raises, saying to pass
    ``App(policy_validation_beta1=[VisGuardChecks()])`` (which every supported release accepts)."""
    plugin = plugin or VisGuardChecks()
    if _API.validations is None:
        from .compat import installed_version

        raise TypeError(
            f"aws-cdk-lib {installed_version()} has no Validations.of(app).add_plugins: create the app with "
            "App(policy_validation_beta1=[VisGuardChecks()]) instead (every supported release accepts it)"
        )
    _API.validations.of(app).add_plugins(plugin)
    return plugin


def _exit_with_error_at_end() -> None:
    """Make the Python process end with exit code 1 after the synth (an atexit handler runs before jsii's own,
    registered earlier, and cannot otherwise change the exit code)."""
    import atexit

    def leave() -> None:
        print("visguard: errors found: synthesis failed (exit code 1)", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(1)

    atexit.register(leave)


def _violation(entry: Entry) -> Any:
    """CDK infers the construct path from the logical id; without one (an acknowledgement on a construct with no
    resource), the graduated struct takes the path and the Beta1 one, which needs a logical id, none."""
    if entry.logical_id:
        resources = [
            _API.resource(
                resource_logical_id=entry.logical_id,
                template_path=entry.template,
                locations=[entry.location] if entry.location else [],
            )
        ]
    elif _API.graduated and entry.construct_path:
        resources = [
            _API.resource(construct_path=entry.construct_path, template_path=entry.template, locations=[])
        ]
    else:
        resources = []
    return _API.violation(
        rule_name=entry.rule,
        description=entry.description,
        fix=entry.fix,
        severity=entry.severity,
        violating_resources=resources,
    )


def _summary_violation(result: CheckResult) -> Any:
    """An info entry that shows the plugin ran: CDK's report leaves out a plugin with no violations."""
    return _API.violation(
        rule_name=SUMMARY_RULE,
        description=result.summary(),
        severity="info",
        violating_resources=[],
    )


def _owner(construct_path: str) -> str:
    """The construct a CloudFormation resource belongs to: "Stack/Orders/Queue/Resource" -> "Stack/Orders/Queue"."""
    return construct_path[: -len("/Resource")] if construct_path.endswith("/Resource") else construct_path


def _annotated_by_guarded_queue(metadata: dict[str, list[dict]], rule: str, construct_path: str) -> bool:
    """True when a construct at or above ``construct_path`` carries a visguard annotation for ``rule``: a
    GuardedQueue reported the defect itself (CDK writes annotations as metadata in the assembly)."""
    if not construct_path:
        return False
    for path, entries in metadata.items():
        if path and (construct_path == path or construct_path.startswith(path + "/")):
            for entry in entries:
                data = entry.get("data")
                annotated = entry.get("type") in _ANNOTATION_TYPES and isinstance(data, str)
                if annotated and rule in _ANNOTATION_RULE.findall(data):
                    return True
    return False


def _is_guarded(metadata: dict[str, list[dict]], construct_path: str) -> bool:
    """A GuardedQueue's queue: ".../<id>/Queue/Resource" beside ".../<id>/DeadLetterQueue/Resource"."""
    if not construct_path.endswith("/Queue/Resource"):
        return False
    return construct_path[: -len("/Queue/Resource")] + "/DeadLetterQueue/Resource" in metadata


def _construct_names(template_paths: list[str]) -> dict[str, dict[str, str]]:
    """Real template path -> {logical id -> construct path} for the templates and the others of their assembly
    (a cross-stack consumer's function lives in another template): from the ``aws:cdk:logicalId`` metadata of
    the assembly, and the ``aws:cdk:path`` resource metadata when the template has it."""
    files = set(template_paths)
    for root in assembly_roots(template_paths):
        for dirpath, _, names in os.walk(root):
            files.update(os.path.join(dirpath, n) for n in names if n.endswith(".template.json"))
    out = {}
    for path in files:
        ids = {
            entry["data"]: construct
            for construct, entries in stack_metadata(path).items()
            for entry in entries
            if entry.get("type") == "aws:cdk:logicalId" and isinstance(entry.get("data"), str)
        }
        if not ids:
            try:
                with open(path, encoding="utf-8") as fh:
                    ids = construct_paths(json.load(fh))
            except (OSError, ValueError):
                continue
        out[os.path.realpath(path)] = ids
    return out


def _readable(text: str | None, names: dict[str, dict[str, str]], template: str) -> str | None:
    """``text`` with logical ids ("ReportHandlerF72C8EE6", "VisguardOrders/LegacyReports7793AD4F") replaced by
    construct paths ("VisguardOrders/ReportHandler"); the template's own names win over other stacks'."""
    if not text:
        return text
    own = os.path.realpath(template)
    table: dict[str, str] = {}
    for path, ids in sorted(names.items(), key=lambda kv: kv[0] == own):  # own template last: it wins
        stack = os.path.basename(path).removesuffix(".template.json")
        for logical_id, construct in ids.items():
            table[logical_id] = table[f"{stack}/{logical_id}"] = _owner(construct)
    if not table:
        return text
    pattern = re.compile(
        r"(?<![\w/])(" + "|".join(re.escape(k) for k in sorted(table, key=len, reverse=True)) + r")(?![\w])"
    )
    return pattern.sub(lambda m: table[m.group(1)], text)


def acknowledgement_problems(
    template_paths: list[str], metadata: dict[str, dict], names: dict[str, dict[str, str]]
) -> list[Entry]:
    """VG900/VG901 for acknowledgements of visguard rules, as the linter does for suppressions: one without a
    reason (CDK accepts an empty one) or naming no visguard rule. CDK's report needs a resource for each
    violation: the first resource at or below the acknowledged construct."""
    from visguard.linter.rules import ALL_RULES, META_RULES

    out = []
    for template_path in template_paths:
        ids = names.get(os.path.realpath(template_path), {})
        for construct_path, rule, reason in assembly_acknowledgements(metadata.get(template_path, {})):
            if not rule.startswith(f"{ACK_NAMESPACE}::"):
                continue
            rule_id = rule.split("::", 1)[1]
            if rule_id not in ALL_RULES:
                meta, text = META_RULES["VG901"], f"acknowledgement {rule} names no visguard rule"
                fix = "Use an id listed by `visguard rules` (visguard::VGnnn), or remove the acknowledgement."
            elif not (reason or "").strip():
                meta, text = META_RULES["VG900"], f"acknowledgement of {rule} has no reason"
                fix = f'Give it a reason: acknowledge(scope, "{rule_id}", reason="why")'
            else:
                continue
            resource = next(
                (lid for lid, p in ids.items() if p == construct_path or p.startswith(construct_path + "/")),
                None,
            )
            out.append(
                Entry(
                    rule=meta.id,
                    severity=_SEVERITY.get(meta.severity.value, "warning"),
                    description=f"{construct_path}: {text}",
                    fix=fix,
                    logical_id=resource,
                    template=template_path,
                    location=None,
                    construct_path=construct_path,
                )
            )
    return out


def assembly_roots(template_paths: list[str]) -> list[str]:
    """The outermost folders with a manifest.json among the templates' folders (a nested Stage's assembly is
    a sub-folder of the app's, and loading the app's assembly includes it)."""
    folders = sorted({os.path.dirname(os.path.realpath(p)) for p in template_paths})
    roots: list[str] = []
    for folder in folders:
        if os.path.isfile(os.path.join(folder, "manifest.json")) and not any(
            _inside(folder, r) for r in roots
        ):
            roots.append(folder)
    return roots


def _inside(path: str, folder: str) -> bool:
    rel = os.path.relpath(os.path.realpath(path), folder)
    return rel == "." or not rel.startswith("..")


def construct_paths(template: dict) -> dict[str, str]:
    """Logical id -> construct path, from the ``aws:cdk:path`` metadata CDK writes on every resource."""
    paths = {}
    for logical_id, resource in (template.get("Resources") or {}).items():
        path = ((resource or {}).get("Metadata") or {}).get("aws:cdk:path")
        if isinstance(path, str):
            paths[logical_id] = path
    return paths


def resource_and_location(finding: Any) -> tuple[str | None, str | None]:
    """The violating resource and the property path inside it, from the finding's location
    (``Resources/<LogicalId>/Properties/...``); CDK derives the construct path from the logical id."""
    path = finding.location.path if finding.location else None
    if path:
        parts = path.split("/")
        if len(parts) >= 2 and parts[0] == "Resources":
            return parts[1], "/".join(parts[2:]) or None
    return None, None
