"""The cfn-lint rule class behind every visguard rule (kept out of the package namespace, because cfn-lint
instantiates every CloudFormationLintRule subclass it finds in the module it is given)."""

from __future__ import annotations

import os

from visguard.errors import VisguardError, need

need(
    "cfnlint.rules",
    extra="cfn-lint",
    what="the cfn-lint plugin (visguard.linter.cfnlint_rules)",
    package="cfn-lint",
)
from cfnlint.rules import CloudFormationLintRule, RuleMatch  # noqa: E402
from visguard.linter.rules._base import cfnlint_id  # noqa: E402

SOURCE = "https://github.com/visguard/visguard/blob/main/linter/README.md#cfn-lint-plugin"
_cache: dict = {}  # one entry: cfn-lint asks every rule about the same Template object in turn


def _path(location, queue_id: str, template: dict) -> list:
    parts: list = [int(p) if p.isdigit() else p for p in (location.path or "").split("/") if p]
    if not parts or parts[0] not in template:
        parts = ["Resources", queue_id]
    return parts


def _config():
    from visguard.linter.loaders import load_config
    from visguard.linter.loaders.config import CONFIG_NAMES

    for name in CONFIG_NAMES:
        if os.path.isfile(name):
            return load_config(name)
    return None


def findings_for(cfn) -> tuple[list, VisguardError | None]:
    """Lint cfn-lint's decoded template once per Template object (cfn-lint already turned short-form tags
    into their long form and kept line numbers on every node)."""
    hit = _cache.get("last")
    if hit is not None and hit[0] is cfn:
        return hit[1], hit[2]
    from visguard.linter.api import lint_template

    try:
        findings, err = lint_template(cfn.template, file=cfn.filename or "template", config=_config()), None
    except VisguardError as exc:
        findings, err = [], exc
    _cache["last"] = (cfn, findings, err)
    return findings, err


class VisguardCfnLintRule(CloudFormationLintRule):
    vg_id = ""

    def match(self, cfn):
        findings, _ = findings_for(cfn)
        out = []
        for f in findings:
            if f.rule == self.vg_id:
                fix = f" Fix: {f.fix}" if f.fix else ""
                out.append(
                    RuleMatch(
                        _path(f.location, f.queue, cfn.template), f"{f.message}.{fix} [visguard {f.rule}]"
                    )
                )
        return out


class LoadErrorRule(CloudFormationLintRule):
    id = "E9000"
    shortdesc = "visguard could not read the template"
    description = (
        "The visguard loaders rejected the template (a cyclic reference, a wrong property type, ...)."
    )
    source_url = SOURCE
    tags = ["visguard"]

    def match(self, cfn):
        _, err = findings_for(cfn)
        if err is None:
            return []
        return [RuleMatch(["Resources"] if "Resources" in cfn.template else [], f"visguard: {err.detail}")]


def make_rule_class(rule) -> type:
    attrs = {
        "id": cfnlint_id(rule),
        "vg_id": rule.id,
        "shortdesc": f"{rule.title} ({rule.id})",
        "description": f"{rule.rationale} Fix: {rule.fix}",
        "source_url": rule.source,
        "tags": ["visguard", *rule.tags],
        "__module__": "visguard.linter.cfnlint_rules",
    }
    return type(f"{rule.id}{rule.name.title().replace('-', '')}", (VisguardCfnLintRule,), attrs)
