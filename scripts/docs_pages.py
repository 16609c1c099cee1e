"""The generated pages of the documentation site: one page per rule, the rule index and the configuration reference.

Run by the mkdocs hook (scripts/mkdocs_hooks.py) at every ``mkdocs build`` (``make docs``); nothing it writes is
committed, so a page cannot drift from the code:

- ``rules/<id>.md`` for every rule of the registry (``visguard.linter.rules.ALL_RULES``): title, severity,
  rationale, the AWS source, the facts the rule relies on with their source and the day they were checked
  (``cli_explain.facts_used_by`` + ``facts.sources_of``), the fix as the catalogue says it and as visguard words it
  for each input kind (the findings of the rule's own fail fixtures, worded by the vocabulary), and every fail and
  pass fixture of ``tests/linter/fixtures/rules/<id>/<kind>/`` with what ``visguard lint`` prints on it;
- ``rules/index.md``: the catalogue as a table;
- ``configuration.md``: the reference of ``visguard.yaml`` from its JSON Schema (linter/schemas/), with the
  example configuration of examples/.

``python -P scripts/docs_pages.py OUT`` writes the pages into OUT (to read them without mkdocs).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "linter" / "fixtures" / "rules"
CONFIG_SCHEMA = ROOT / "linter" / "schemas" / "visguard-config.schema.json"
EXAMPLE_CONFIG = ROOT / "examples" / "visguard.yaml"
REPO_BLOB = "https://github.com/visguard/visguard/blob/main/"
EXPECT = ".expect.json"

# the fixture folders' kinds, in the order the pages show them, with the words a reader knows them by
KINDS = {
    "cfn": "CloudFormation",
    "sam": "SAM",
    "cdk": "CDK (cdk.out)",
    "terraform": "Terraform",
    "serverless": "Serverless Framework",
    "config": "visguard.yaml",
    "kubernetes": "Kubernetes",
    "code": "Application code",
}
LANG = {
    ".yaml": "yaml", ".yml": "yaml", ".json": "json", ".tf": "hcl", ".py": "python", ".js": "javascript",
    ".ts": "typescript", ".java": "java", ".go": "go", ".cs": "csharp", ".php": "php", ".rb": "ruby",
    ".sh": "bash", ".config": "yaml", ".properties": "properties", ".hcl": "hcl", ".toml": "toml",
}  # fmt: skip


def rule_ids() -> list[str]:
    from visguard.linter.rules import ALL_RULES

    return list(ALL_RULES)


def page_names() -> list[str]:
    """The paths (below docs/) of every generated page, without generating them."""
    return ["configuration.md", "rules/index.md", *(f"rules/{r.lower()}.md" for r in rule_ids())]


def pages() -> dict[str, str]:
    """Every generated page: its path below docs/ -> its Markdown."""
    from visguard.linter.rules import ALL_RULES

    out = {"configuration.md": configuration_page(), "rules/index.md": rules_index()}
    for rule in ALL_RULES.values():
        out[f"rules/{rule.id.lower()}.md"] = rule_page(rule)
    return out


# --------------------------------------------------------------------------------------------------- helpers
def fence(text: str, lang: str = "", indent: str = "") -> str:
    """``text`` as a fenced block longer than any run of backticks in it."""
    longest, run = 0, 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    ticks = "`" * max(3, longest + 1)
    body = text if text.endswith("\n") else text + "\n"
    block = f"{ticks}{lang}\n{body}{ticks}\n"
    return "".join(indent + line if line.strip() else line for line in block.splitlines(True))


def cell(text: str) -> str:
    """Text for a Markdown table cell."""
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


# --------------------------------------------------------------------------------------------------- fixtures
class Case:
    """One fixture: ``fail[-variant]`` or ``pass[-variant]``, a file or a folder, of one kind of one rule."""

    def __init__(self, path: Path):
        self.path = path
        self.kind_dir = path.parent
        self.kind = path.parent.name
        self.name = path.name.split(".")[0]
        self.outcome = self.name.split("-")[0]

    def files(self) -> list[Path]:
        if self.path.is_file():
            return [self.path]
        return sorted(p for p in self.path.rglob("*") if p.is_file())

    def config(self) -> Path | None:
        cfg = self.kind_dir / "visguard.yaml"
        return cfg if cfg.exists() else None

    def lint(self):
        """The lint result, as ``visguard lint CASE [--config visguard.yaml]`` gives it."""
        from visguard.linter.api import lint_paths
        from visguard.linter.loaders import load_config
        from visguard.linter.model import LintConfig

        cfg = self.config()
        config = load_config(str(cfg)) if cfg else LintConfig()
        return lint_paths([str(self.path)], config=config)

    def command(self) -> str:
        cfg = " --config visguard.yaml" if self.config() else ""
        return f"$ visguard lint {self.path.name}{cfg}"

    def local(self, text: str) -> str:
        """Paths in visguard's output written relative to the kind's folder, as the command shows them."""
        rel = os.path.relpath(self.kind_dir)  # visguard shows a path relative to the working folder
        for prefix in (str(self.kind_dir), rel):
            text = text.replace(f"{prefix}{os.sep}", "")
        return text


def cases(rule_id: str) -> list[Case]:
    folder = FIXTURES / rule_id.lower()
    if not folder.is_dir():
        return []
    out = []
    order = list(KINDS)
    for kind_dir in sorted(
        (p for p in folder.iterdir() if p.is_dir()), key=lambda p: (order.index(p.name), p.name)
    ):
        for p in sorted(kind_dir.iterdir()):
            name = p.name.split(".")[0].split("-")[0]
            if name in ("fail", "pass") and not p.name.endswith(EXPECT):
                out.append(Case(p))
    # fail cases first, in kind order; then the pass cases
    return sorted(out, key=lambda c: (c.outcome != "fail", order.index(c.kind), c.name))


# --------------------------------------------------------------------------------------------------- rule pages
def rule_page(rule) -> str:
    from visguard import facts
    from visguard.linter.cli_explain import facts_used_by
    from visguard.linter.report import render
    from visguard.linter.rules._base import cfnlint_id

    lines = [
        f"# {rule.id}: {rule.title}",
        "",
        f"**Severity:** {rule.severity.value} · **Name:** `{rule.name}` · **cfn-lint plugin id:** "
        f"`{cfnlint_id(rule)}`" + (f" · **Tags:** {', '.join(rule.tags)}" if rule.tags else ""),
        "",
        "## Why it matters",
        "",
        rule.rationale,
        "",
        "## AWS source",
        "",
        f"<{rule.source}>",
        "",
    ]
    used = facts.sources_of(facts_used_by(rule))
    if used:
        lines += [
            "## The facts it relies on",
            "",
            "Each is a constant of `common/facts.py` with the page it was read on and the day it was last checked "
            "(`visguard explain " + rule.id + "` lists them too).",
            "",
            "| fact | value | source | checked |",
            "| --- | --- | --- | --- |",
        ]
        for name, rec in used:
            value = getattr(facts, name, "")
            shown = (
                f"`{cell(value)}`" if isinstance(value, int | float | str) and len(str(value)) < 60 else ""
            )
            lines.append(f"| `{name}` | {shown} | <{rec.source}> | {rec.checked} |")
        lines.append("")
    if rule.settings:
        lines += [
            "## Settings",
            "",
            "In `visguard.yaml` under `settings:` ([configuration](../configuration.md)):",
            "",
        ]
        lines += [f"- `{k}`: default `{v}`" for k, v in rule.settings.items()]
        lines.append("")

    all_cases = cases(rule.id)
    linted = [(c, c.lint()) for c in all_cases]
    lines += ["## Fix", "", rule.fix, ""]
    worded = []
    for c, result in linted:
        if c.outcome != "fail":
            continue
        for f in result.findings:
            if f.rule == rule.id and f.fix and (KINDS[c.kind], f.fix) not in worded:
                worded.append((KINDS[c.kind], c.local(f.fix)))
    if worded:
        lines += [
            "In each input's own words, as visguard says it on the examples below:",
            "",
            "| input | fix |",
            "| --- | --- |",
        ]
        lines += [f"| {kind} | {cell(fix)} |" for kind, fix in dict.fromkeys(worded)]
        lines.append("")

    lines += ["## Examples", ""]
    if not linted:
        lines += [
            "This rule has no lint fixture: it judges what only the fleet audit sees (CloudWatch evidence of the "
            "deployed queues, or the deployed queues against their sources); see the [fleet audit](../audit.md).",
            "",
        ]
    else:
        lines += [
            f"The rule's fixtures (`tests/linter/fixtures/rules/{rule.id.lower()}/`): each *fail* case raises "
            f"{rule.id}, each *pass* case is the same setup done right and lints clean. The test suite runs "
            "every one of them; the output shown is what `visguard lint` prints on it.",
            "",
        ]
    for kind in KINDS:
        mine = [(c, r) for c, r in linted if c.kind == kind]
        if not mine:
            continue
        lines += [f"### {KINDS[kind]}", ""]
        for c, result in mine:
            label = f"{c.name}: raises {rule.id}" if c.outcome == "fail" else f"{c.name}: clean"
            box = "???+ failure" if c.outcome == "fail" else "??? success"
            lines += [f'{box} "{label}"', ""]
            cfg = c.config()
            shown = c.files() + ([cfg] if cfg else [])
            for p in shown:
                rel = p.relative_to(c.kind_dir).as_posix()
                text = p.read_text(encoding="utf-8", errors="replace")
                lines += [f"    `{rel}`", "", fence(text, LANG.get(p.suffix, ""), "    ")]
            out = c.local(render(result, "text"))
            lines += ["    What visguard prints:", "", fence(f"{c.command()}\n{out}", "console", "    ")]
    lines += [
        "## Suppress",
        "",
        "With a reason, on the resource (a template's `Metadata`, a Terraform or serverless.yml comment "
        f"`# visguard:ignore {rule.id} <reason>`) or in `visguard.yaml`:",
        "",
        fence(
            f'suppressions:\n  - {{rule: {rule.id}, queue: "orders-*", reason: "why this is fine here"}}',
            "yaml",
        ),
    ]
    return "\n".join(lines).rstrip("\n") + "\n"


def rules_index() -> str:
    from visguard.linter.rules import ALL_RULES

    lines = [
        "# Rules",
        "",
        "Every rule of the catalogue, generated from the rule registry (`visguard rules` lists the same). Each page "
        "has the rule's rationale, its AWS source, the facts it relies on, its fix in each input's words and its "
        "fixtures as examples. `visguard explain ID` prints a rule in the terminal, and SARIF reports link here.",
        "",
        "| rule | title | severity | tags |",
        "| --- | --- | --- | --- |",
    ]
    for r in ALL_RULES.values():
        lines.append(
            f"| [{r.id}]({r.id.lower()}.md) | {cell(r.title)} | {r.severity.value} | {', '.join(r.tags)} |"
        )
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------------- configuration
def _type(node: dict) -> str:
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{name.lower()})"
    if "const" in node:
        return f"`{json.dumps(node['const'])}`"
    if "enum" in node:
        return "one of " + ", ".join(f"`{json.dumps(v)}`" for v in node["enum"])
    for key in ("anyOf", "oneOf"):
        if key in node:
            return " or ".join(_type(n) for n in node[key])
    t = node.get("type")
    if isinstance(t, list):
        t = " or ".join(t)
    if t == "array" and isinstance(node.get("items"), dict):
        return f"array of {_type(node['items'])}"
    if t == "object" and isinstance(node.get("additionalProperties"), dict) and not node.get("properties"):
        return f"map of {_type(node['additionalProperties'])}"
    return t or "any"


def _constraints(node: dict) -> str:
    parts = []
    for key, word in (
        ("minimum", ">="),
        ("exclusiveMinimum", ">"),
        ("maximum", "<="),
        ("exclusiveMaximum", "<"),
    ):
        if key in node:
            parts.append(f"{word} {node[key]}")
    for key in ("minLength", "minItems", "minProperties", "pattern", "default"):
        if key in node:
            parts.append(f"{key} `{node[key]}`")
    return ", ".join(parts)


def _rows(node: dict, path: str, required: bool, out: list[str]) -> None:
    desc = node.get("description", "")
    out.append(
        f"| `{path}` | {cell(_type(node))} | {'yes' if required else ''} | {cell(desc)} | {cell(_constraints(node))} |"
    )
    props = node.get("properties") or {}
    need = set(node.get("required") or ())
    for name, sub in props.items():
        _rows(sub, f"{path}.{name}", name in need, out)
    items = node.get("items")
    if isinstance(items, dict) and (items.get("properties")):
        for name, sub in items["properties"].items():
            _rows(sub, f"{path}[].{name}", name in set(items.get("required") or ()), out)


def _table(props: dict, required: set, prefix: str = "") -> list[str]:
    out = ["| key | type | required | description | constraints |", "| --- | --- | --- | --- | --- |"]
    for name, sub in props.items():
        _rows(sub, prefix + name, name in required, out)
    return out


def configuration_page() -> str:
    schema = json.loads(CONFIG_SCHEMA.read_text(encoding="utf-8"))
    rel = CONFIG_SCHEMA.relative_to(ROOT).as_posix()
    lines = [
        "# Configuration reference: visguard.yaml",
        "",
        f"Generated from the JSON Schema `{rel}` ([source]({REPO_BLOB}{rel})), the schema visguard itself "
        "validates `visguard.yaml` with: a file it rejects gets a one-line error naming the file and the place.",
        "",
        schema.get("description", ""),
        "",
        "`visguard lint --config FILE` reads it (else `./visguard.yaml`); `visguard audit run --config FILE` reads "
        "the same file. Rule settings are listed on each [rule's page](rules/index.md).",
        "",
        "## Top-level keys",
        "",
        *_table(schema.get("properties", {}), set(schema.get("required") or ())),
        "",
        "## Definitions",
        "",
        "The shapes the keys above refer to.",
        "",
    ]
    for name, node in schema.get("$defs", {}).items():
        lines += [f"### {name}", ""]
        if node.get("description"):
            lines += [node["description"], ""]
        if node.get("properties"):
            lines += _table(node["properties"], set(node.get("required") or ())) + [""]
        else:
            lines += [f"Type: {_type(node)}" + (f" ({_constraints(node)})" if _constraints(node) else ""), ""]
    if EXAMPLE_CONFIG.exists():
        rel_ex = EXAMPLE_CONFIG.relative_to(ROOT).as_posix()
        lines += [
            "## Example",
            "",
            f"`{rel_ex}`, the configuration `make demo-lint` uses:",
            "",
            fence(EXAMPLE_CONFIG.read_text(encoding="utf-8"), "yaml"),
        ]
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -P scripts/docs_pages.py OUT_DIR", file=sys.stderr)
        return 1
    out = Path(argv[0])
    for name, text in pages().items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
