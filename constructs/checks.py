"""``VisGuardChecks``: visguard's rule catalogue as a CDK policy-validation plugin.

Registered with ``Validations.of(app).add_plugins(VisGuardChecks())`` (aws-cdk-lib's
``IPolicyValidationPlugin``, the mechanism cdk-nag 3 uses). After synthesis CDK calls ``validate`` with every
stack template of the app. The cloud assembly holding them is loaded as one model
(``visguard.linter.api.load_path``: cross-stack consumers are linked to their queues) and linted with
``lint_model``, so every queue is checked, GuardedQueue or plain ``aws_sqs.Queue``. Findings become violations in
``cdk.out/validation-report.json`` beside those of CDK's built-in "CloudFormation Validate" plugin. Errors
interrupt synthesis; warnings and infos are reported only. CDK infers each violation's construct path from its
logical id, so ``Validations.of(x).acknowledge(Acknowledgment(id="visguard::VG011", reason=...))`` on the queue
or any parent suppresses it (and a GuardedQueue's own annotation with the same id).
"""

from __future__ import annotations

import json
import os
from typing import Any

import jsii
from aws_cdk import (
    IPolicyValidationContext,
    IPolicyValidationPlugin,
    PolicyValidationPluginReport,
    PolicyViolatingResource,
    PolicyViolation,
)
from visguard import __version__

from .guarded_queue import ACK_NAMESPACE

# Severity names CDK's report knows (core/lib/validation/private/report.js: fatal, error, warning, info).
_SEVERITY = {"error": "error", "warning": "warning", "info": "info"}


@jsii.implements(IPolicyValidationPlugin)
class VisGuardChecks:
    """Run visguard's rules over every synthesized template of the app.

    ``config`` is a ``visguard.linter.model.LintConfig`` (rule settings, severity overrides, disabled rules,
    profiles); ``include_info=False`` leaves info-level findings out of the report.
    """

    def __init__(self, *, config: Any = None, include_info: bool = True) -> None:
        self._config = config
        self._include_info = include_info

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

    def validate(self, context: IPolicyValidationContext) -> PolicyValidationPluginReport:
        templates = [stack.template_path for stack in context.stack_templates]
        violations = [
            violation_of(finding, template)
            for finding, template in self.findings(templates)
            if self._include_info or finding.severity.value != "info"
        ]
        violations += acknowledgement_problems(templates)
        failed = any(v.severity == "error" for v in violations)
        return PolicyValidationPluginReport(
            success=not failed, violations=violations, plugin_version=__version__
        )

    def findings(self, template_paths: list[str]) -> list[tuple[Any, str]]:
        """(finding, template path) for every finding located in one of ``template_paths``.

        A template outside any cloud assembly (no manifest.json beside it) is linted alone (``lint_template``).
        """
        from visguard.linter.api import lint_model, lint_template, load_path
        from visguard.linter.loaders import apply_profiles

        wanted = {os.path.realpath(p) for p in template_paths}
        roots = assembly_roots(template_paths)
        out: list[tuple[Any, str]] = []
        seen: set = set()
        for root in roots:
            model = load_path(root)
            if self._config is not None and self._config.profiles:
                apply_profiles(model, self._config)
            for finding in lint_model(model, self._config):
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
                found = lint_template(template, file=path, construct_paths=paths, config=self._config)
                out += [(finding, path) for finding in found]
        return out


def acknowledgement_problems(template_paths: list[str]) -> list[PolicyViolation]:
    """VG900/VG901 for ``Validations.acknowledge`` of visguard rules, as the linter does for suppressions: an
    acknowledgement without a reason (CDK accepts an empty one) or naming no visguard rule. Read from each
    stack's ``aws:cdk:acknowledged-rules`` metadata in the assembly (``<stack>.metadata.json``)."""
    from visguard.linter.rules import ALL_RULES, META_RULES

    out = []
    for template_path in template_paths:
        for construct_path, rule, reason in _acknowledgements(template_path):
            if not rule.startswith(f"{ACK_NAMESPACE}::"):
                continue
            rule_id = rule.split("::", 1)[1]
            if rule_id not in ALL_RULES:
                meta, text = META_RULES["VG901"], f"acknowledgement {rule} names no visguard rule"
                fix = "Use an id listed by `visguard rules` (visguard::VGnnn), or remove the acknowledgement."
            elif not (reason or "").strip():
                meta, text = (
                    META_RULES["VG900"],
                    f"acknowledgement of {rule} on {construct_path} has no reason",
                )
                fix = f'Give it a reason: Validations.of(x).acknowledge(Acknowledgment(id="{rule}", reason="why"))'
            else:
                continue
            out.append(
                PolicyViolation(
                    rule_name=meta.id,
                    description=text,
                    fix=fix,
                    severity=_SEVERITY.get(meta.severity.value, "warning"),
                    violating_resources=[
                        PolicyViolatingResource(
                            construct_path=construct_path, template_path=template_path, locations=[]
                        )
                    ],
                )
            )
    return out


def _acknowledgements(template_path: str) -> list[tuple[str, str, str]]:
    """(construct path, rule id, reason) of every acknowledgement in the stack's metadata file."""
    name = os.path.basename(template_path).removesuffix(".template.json")
    meta_file = os.path.join(os.path.dirname(template_path), f"{name}.metadata.json")
    try:
        with open(meta_file, encoding="utf-8") as fh:
            metadata = json.load(fh)
    except (OSError, ValueError):
        return []
    out = []
    for path, entries in (metadata or {}).items():
        for entry in entries or []:
            if entry.get("type") == "aws:cdk:acknowledged-rules" and isinstance(entry.get("data"), dict):
                out += [(path.lstrip("/"), rule, reason) for rule, reason in entry["data"].items()]
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


def violation_of(finding: Any, template_path: str) -> PolicyViolation:
    logical_id, location = resource_and_location(finding)
    return PolicyViolation(
        rule_name=finding.rule,
        description=finding.message,
        fix=finding.fix,
        severity=_SEVERITY.get(finding.severity.value, "warning"),
        violating_resources=[
            PolicyViolatingResource(
                resource_logical_id=logical_id,
                template_path=template_path,
                locations=[location] if location else [],
            )
        ],
    )


def resource_and_location(finding: Any) -> tuple[str | None, str | None]:
    """The violating resource and the property path inside it, from the finding's location
    (``Resources/<LogicalId>/Properties/...``); CDK derives the construct path from the logical id."""
    path = finding.location.path if finding.location else None
    if path:
        parts = path.split("/")
        if len(parts) >= 2 and parts[0] == "Resources":
            return parts[1], "/".join(parts[2:]) or None
    return None, None
