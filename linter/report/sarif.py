"""SARIF 2.1.0 (OASIS): rule metadata from the catalogue, results with file/line regions and logical
locations (logical id or CDK construct path) and the fixes the lint result's plan makes (``LintResult.fixes``,
when the caller planned them: a pure function of the result), bad inputs as tool execution notifications. Validated in tests
against the official schema; uploadable to GitHub code scanning (docs/github-code-scanning.md)."""

from __future__ import annotations

import json

from visguard import __version__
from visguard.docs import rule_url
from visguard.linter.report._common import display_path, error_parts, fingerprint
from visguard.linter.rules import ALL_RULES
from visguard.linter.vocabulary import JOINED_BY
from visguard.neutralize import uri

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/visguard/visguard"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
# GitHub code scanning ranks alerts by this number (0.1-10): error 8.0 = high, warning 5.0 = medium.
_SECURITY_SEVERITY = {"error": "8.0", "warning": "5.0", "info": "2.0"}


def rule_descriptor(rule) -> dict:
    settings = "".join(f"\n- `{k}` (default {v})" for k, v in rule.settings.items())
    markdown = (
        f"**{rule.title}**\n\n{rule.rationale}\n\n**Fix:** {rule.fix}\n\n"
        f"Source: [{rule.source}]({rule.source})"
        + (f"\n\nSettings:{settings}" if settings else "")
        + f"\n\nDocumentation: [{rule_url(rule.id)}]({rule_url(rule.id)})"
    )
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.rationale},
        "helpUri": rule_url(rule.id),  # its page on the documentation site
        "help": {"text": f"{rule.rationale}\nFix: {rule.fix}\nSource: {rule.source}", "markdown": markdown},
        "defaultConfiguration": {"level": _LEVEL[rule.severity.value]},
        "properties": {
            "tags": list(rule.tags),
            "precision": "high",
            "problem.severity": rule.severity.value if rule.severity.value != "info" else "recommendation",
        },
    }


def _location(f) -> dict:
    loc = f.location
    physical: dict = {"artifactLocation": {"uri": uri(display_path(loc.file))}}
    if loc.line:
        physical["region"] = {"startLine": int(loc.line), "startColumn": int(loc.column or 1)}
    logical = {"name": f.queue, "kind": "resource"}
    fq = loc.construct_path or loc.path
    if fq:
        logical["fullyQualifiedName"] = fq
    return {"physicalLocation": physical, "logicalLocations": [logical]}


def render_sarif(result, *, compact: bool = False) -> str:
    """The SARIF 2.1.0 log of ``result``, indented for people; ``compact``: on one line (the audit writes one
    file per repository for code scanning, where Python's indenting encoder would be most of its cost)."""
    rule_ids = list(ALL_RULES)
    plan = getattr(result, "fixes", None)  # computed once after linting (visguard.linter.fix.plan)
    fix_map: dict = {}
    if plan and any(f.changes for f in result.findings):
        from visguard.linter.fix import sarif_fix_map

        fix_map = sarif_fix_map(plan, lambda path: uri(display_path(path)))
    results = []
    for f in result.findings:
        message = f.message + (f" Fix: {f.fix}" if f.fix else "")
        props: dict = {"queue": f.queue, "severity": f.severity.value}
        if f.consumer:
            props["consumer"] = f.consumer
        if f.estimate:
            props["estimate"] = f.estimate
        related = []
        if f.joined_by is not None:
            b = f.joined_by
            place: dict = {"artifactLocation": {"uri": uri(display_path(b.file))}}
            if b.line:
                place["region"] = {"startLine": int(b.line), "startColumn": int(b.column or 1)}
            text = JOINED_BY.format(
                place=f"{display_path(b.file)}:{b.line}" if b.line else display_path(b.file)
            )
            related.append({"id": 1, "physicalLocation": place, "message": {"text": text}})
        results.append(
            {
                "ruleId": f.rule,
                "ruleIndex": rule_ids.index(f.rule),
                "level": _LEVEL[f.severity.value],
                "message": {"text": message},
                "locations": [_location(f)],
                "partialFingerprints": {"visguardFinding/v1": fingerprint(f)},
                "properties": props,
                **({"relatedLocations": related} if related else {}),
            }
        )
        fixes = fix_map.get(id(f)) if f.changes else None
        if fixes:  # the settled plan's edits that are this finding's (visguard.linter.fix.sarif_fix_map)
            results[-1]["fixes"] = fixes
    notifications = []
    for e in result.errors:
        file, place, detail = error_parts(e)
        kind = "internal-error" if getattr(e, "exit_code", 1) == 3 else "bad-input"
        note: dict = {"level": "error", "message": {"text": str(e)}, "descriptor": {"id": kind}}
        if file:
            note["locations"] = [{"physicalLocation": {"artifactLocation": {"uri": uri(display_path(file))}}}]
        if place:
            note.setdefault("properties", {})["place"] = place
        notifications.append(note)
    driver = {
        "name": "visguard",
        "version": __version__,
        "semanticVersion": __version__,
        "informationUri": INFORMATION_URI,
        "rules": [rule_descriptor(ALL_RULES[r]) for r in rule_ids],
    }
    for r in driver["rules"]:
        sev = ALL_RULES[r["id"]].severity.value
        r["properties"]["security-severity"] = _SECURITY_SEVERITY[sev]
    run = {
        "tool": {"driver": driver},
        "invocations": [
            {"executionSuccessful": not result.errors, "toolExecutionNotifications": notifications}
        ],
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    doc = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    if compact:
        return json.dumps(doc, separators=(",", ":")) + "\n"
    return json.dumps(doc, indent=2) + "\n"
