"""``VisGuardChecks``: visguard's rule catalogue as a CDK policy-validation plugin.

Registered with ``Validations.of(app).add_plugins(VisGuardChecks())`` (aws-cdk-lib's
``IPolicyValidationPlugin``, the mechanism cdk-nag 3 uses). After synthesis CDK calls ``validate`` with every
stack template of the app; each template goes through ``visguard.linter.api.lint_template``, so every queue is
checked, GuardedQueue or plain ``aws_sqs.Queue``. Findings become violations in ``cdk.out/validation-report.json``
beside those of the built-in "CloudFormation Validate" plugin. Errors interrupt synthesis; warnings and infos
are reported only. CDK infers each violation's construct path from its logical id, so
``Validations.of(x).acknowledge(Acknowledgment(id="visguard::VG011", reason=...))`` on the queue or any parent
suppresses it (and a GuardedQueue's own annotation with the same id).
"""

from __future__ import annotations

import json
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

    ``config`` is a ``visguard.linter.model.LintConfig`` (rule settings, severity overrides, disabled rules);
    ``include_info=False`` leaves info-level findings out of the report.
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
        violations: list[PolicyViolation] = []
        for stack in context.stack_templates:
            violations += self.check_template(stack.template_path)
        failed = any(v.severity == "error" for v in violations)
        return PolicyValidationPluginReport(
            success=not failed, violations=violations, plugin_version=__version__
        )

    def check_template(self, template_path: str) -> list[PolicyViolation]:
        """The violations of one synthesized template (also usable outside CDK's validation run)."""
        from visguard.linter.api import lint_template

        with open(template_path, encoding="utf-8") as fh:
            template = json.load(fh)
        findings = lint_template(
            template, file=template_path, construct_paths=construct_paths(template), config=self._config
        )
        return [
            violation_of(finding, template, template_path)
            for finding in findings
            if self._include_info or finding.severity.value != "info"
        ]


def construct_paths(template: dict) -> dict[str, str]:
    """Logical id -> construct path, from the ``aws:cdk:path`` metadata CDK writes on every resource."""
    paths = {}
    for logical_id, resource in (template.get("Resources") or {}).items():
        path = ((resource or {}).get("Metadata") or {}).get("aws:cdk:path")
        if isinstance(path, str):
            paths[logical_id] = path
    return paths


def violation_of(finding: Any, template: dict, template_path: str) -> PolicyViolation:
    logical_id, location = _resource_and_location(finding, template)
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


def _resource_and_location(finding: Any, template: dict) -> tuple[str | None, str | None]:
    """The violating resource and the property path inside it, from the finding's location
    (``Resources/<LogicalId>/Properties/...``), else the queue id when it is a logical id of the template."""
    path = finding.location.path if finding.location else None
    if path:
        parts = path.split("/")
        if len(parts) >= 2 and parts[0] == "Resources":
            return parts[1], "/".join(parts[2:]) or None
    resources = template.get("Resources") or {}
    return (finding.queue if finding.queue in resources else None), None
