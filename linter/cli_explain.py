"""``visguard explain VG011``: one rule in full, generated from its RULE metadata."""

from __future__ import annotations

import ast
import sys
import textwrap

from visguard.errors import VisguardError
from visguard.linter.cli import _Parser


def facts_used_by(rule) -> list[str]:
    """The names of ``visguard.facts`` a rule's module uses (``from visguard.facts import X`` or ``facts.X``),
    read from the module's source, in order of first use."""
    module = sys.modules.get(getattr(rule.check, "__module__", ""), None)
    path = getattr(module, "__file__", None)
    if not path:
        return []
    with open(path, encoding="utf-8") as fh:
        tree = ast.parse(fh.read(), path)
    names: list[str] = []
    aliases = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in ("visguard.facts", "visguard.common.facts"):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module == "visguard":
            aliases |= {a.asname or a.name for a in node.names if a.name == "facts"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            names.append(node.attr)
    return list(dict.fromkeys(names))


def explain_text(rule_id: str) -> str:
    from visguard.docs import rule_url
    from visguard.linter.rules import ALL_RULES
    from visguard.linter.rules._base import cfnlint_id

    key = rule_id.strip().upper()
    if key.isdigit():
        key = f"VG{int(key):03d}"
    rule = ALL_RULES.get(key)
    if rule is None:
        raise VisguardError(f"unknown rule {rule_id!r}; 'visguard rules' lists them")

    def para(text: str) -> str:
        return textwrap.fill(text, width=100, initial_indent="  ", subsequent_indent="  ")

    out = [
        f"{rule.id} ({rule.name}): {rule.title}",
        f"severity: {rule.severity.value}    tags: {', '.join(rule.tags)}    cfn-lint plugin id: {cfnlint_id(rule)}",
        "",
        "Why:",
        para(rule.rationale),
        "",
        "Fix:",
        para(rule.fix),
        "",
        f"Source: {rule.source}",
        f"Documentation: {rule_url(rule.id)}",
    ]
    from visguard.facts import sources_of

    used = sources_of(facts_used_by(rule))
    if used:
        out += ["", "AWS and library facts it relies on (page, day last checked):"]
        out += [f"  {name}: {rec.source} (checked {rec.checked})" for name, rec in used]
    if rule.settings:
        out += ["", "Settings (visguard.yaml `settings:`):"]
        out += [f"  {k}: {v}" for k, v in rule.settings.items()]
    out += [
        "",
        "Suppress with a reason, in the template:",
        f'  Metadata: {{visguard: {{suppress: [{{rule: {rule.id}, reason: "why this is fine"}}]}}}}',
    ]
    return "\n".join(out) + "\n"


def main(argv: list[str], prog: str = "visguard explain") -> int:
    p = _Parser(prog=prog, description="Explain one lint rule: why it matters, the AWS source and the fix.")
    p.add_argument("rule", metavar="RULE", help="rule id, e.g. VG011")
    try:
        args = p.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    print(explain_text(args.rule), end="")
    return 0
