"""``visguard rules``: the rule catalogue, generated from each rule's RULE metadata."""

from __future__ import annotations

import argparse
import json

from visguard.linter.cli import _Parser


def rules_markdown() -> str:
    """The '## Rules' part of linter/README.md (tests check the README matches it)."""
    from visguard.linter.rules import ALL_RULES
    from visguard.linter.rules._base import cfnlint_id

    lines = [
        "| id | severity | title | settings (default) | cfn-lint id |",
        "| --- | --- | --- | --- | --- |",
    ]
    for r in ALL_RULES.values():
        settings = ", ".join(f"`{k}`={v}" for k, v in r.settings.items())
        lines.append(
            f"| [{r.id}]({r.source}) | {r.severity.value} | {r.title} | {settings} | {cfnlint_id(r)} |"
        )
    return "\n".join(lines) + "\n"


def rules_json() -> list[dict]:
    from visguard.linter.rules import ALL_RULES

    return [
        {
            "id": r.id,
            "name": r.name,
            "title": r.title,
            "severity": r.severity.value,
            "rationale": r.rationale,
            "source": r.source,
            "fix": r.fix,
            "tags": list(r.tags),
            "settings": r.settings,
        }
        for r in ALL_RULES.values()
    ]


def rules_text() -> str:
    from visguard.linter.rules import ALL_RULES

    lines = []
    for r in ALL_RULES.values():
        lines.append(f"{r.id}  {r.severity.value:<7}  {r.title}")
    lines.append("")
    lines.append("Details: visguard explain <ID>. Severities and settings can be changed in visguard.yaml.")
    return "\n".join(lines) + "\n"


def main(argv: list[str], prog: str = "visguard rules") -> int:
    p: argparse.ArgumentParser = _Parser(prog=prog, description="List the lint rule catalogue.")
    p.add_argument("-f", "--format", choices=("text", "json", "markdown"), default="text")
    try:
        args = p.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if args.format == "json":
        print(json.dumps(rules_json(), indent=2))
    elif args.format == "markdown":
        print(rules_markdown(), end="")
    else:
        print(rules_text(), end="")
    return 0
