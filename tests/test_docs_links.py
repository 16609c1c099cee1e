"""Every link and every repository path the documentation names exists in the repository (issue 21: no dead ends).

Checked in README.md, the site's pages (docs/**/*.md) and every other README.md of the repository: markdown links that are not web
addresses (the file, and the heading a ``#fragment`` names), and paths written in backticks or plain text whose
first folder is a top-level folder of the repository (``engine/examples/order-pipeline.yaml``,
``tests/sim/test_risk_vs_sim.py``). A path inside the repository must stay inside it: ``../shared/...`` is a
dead end for anyone reading a clone or the package. docs/reference/ holds the evidence the engine cites (copies
of the research notes, whose paths name files of *other* repositories, owner/name:path): not checked here. The
site's generated pages (scripts/docs_pages.py: the rule pages, the rule index, the configuration reference) exist
at build time only: a link to one counts as a link to a file (mkdocs build --strict checks them: tests/docs/).
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SKIP_DIRS = {"node_modules", ".venv", ".venv-cdk-min", "build", "dist", "tests", "cdk.out", "out"}

LINK = re.compile(r"(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
CODE_SPAN = re.compile(r"`([^`\n]+)`")
FENCE = re.compile(r"^(```|~~~)")


def _tracked() -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return out.stdout.splitlines()


TRACKED = _tracked()
TOP = sorted({p.split("/", 1)[0] for p in TRACKED if "/" in p} - {"tests"} | {"tests"})
DOCS = sorted(
    p
    for p in TRACKED
    if p.endswith(".md")
    and (
        p == "README.md"
        or (p.startswith("docs/") and not p.startswith("docs/reference/"))
        or p.endswith("/README.md")
    )
    and not (set(Path(p).parts[:-1]) & SKIP_DIRS)
)
# a path that starts with a top-level folder: engine/..., linter/..., tests/..., examples/...
_TOPS = "|".join(re.escape(t) for t in TOP)
BARE = re.compile(r"(?<![\w./$<{-])((?:" + _TOPS + r")/[\w.\-/*?<>{}]*[\w/*>}])")
# a document above the file (../shared/reference/x.md), outside the repository for anyone reading a clone; other
# ../ paths in the text are examples of input (a Terraform module source, a path an attacker writes)
UP = re.compile(r"(?<![\w/.])(\.\./[\w.\-/]*\.md)\b")
MD_NAME = re.compile(r"(?<![\w/.-])([\w.-]+\.md)\b")  # DESIGN.md, RESULTS.md: a document named on its own
NAMES = {Path(p).name for p in TRACKED}
PLACEHOLDER = re.compile(r"[*?<>{}]|NNN")  # a pattern (linter/rules/vgNNN_*.py), not a path


def _generated() -> set[str]:
    """The repository paths of the site's generated pages (docs/rules/vg011.md, ...)."""
    spec = importlib.util.spec_from_file_location("docs_pages", ROOT / "scripts" / "docs_pages.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return {f"docs/{name}" for name in mod.page_names()}


GENERATED = _generated()


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`|\*\*|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip()).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(md: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    fenced = False
    for line in md.read_text().splitlines():
        if FENCE.match(line):
            fenced = not fenced
        if fenced or not line.startswith("#"):
            continue
        slug = _slug(line.lstrip("#"))
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def _exists(target: Path) -> bool:
    try:
        rel = target.resolve().relative_to(ROOT)
    except ValueError:
        return False  # outside the repository
    text = rel.as_posix()
    return (
        text == "." or text in TRACKED or text in GENERATED or any(p.startswith(text + "/") for p in TRACKED)
    )


def _problems(doc: str) -> list[str]:
    md = ROOT / doc
    problems = []
    fenced = False
    for n, line in enumerate(md.read_text().splitlines(), 1):
        if FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        if fenced:
            # commands in examples name paths too (visguard lint examples/terraform): check those
            spans = [line]
        else:
            for target in LINK.findall(line):
                if re.match(r"[a-z]+:", target):
                    continue  # https:, mailto:
                path, _, frag = target.partition("#")
                dest = md if not path else (md.parent / path)
                if path and not _exists(dest):
                    problems.append(f"{doc}:{n}: link to {target} (no such file in the repository)")
                elif frag and dest.suffix == ".md" and frag not in _anchors(dest):
                    problems.append(f"{doc}:{n}: link to {target} (no such heading)")
            spans = CODE_SPAN.findall(line) + [CODE_SPAN.sub(" ", LINK.sub(" ", line))]
        for span in spans:
            for path in BARE.findall(span):
                if PLACEHOLDER.search(path):
                    continue
                if not (_exists(ROOT / path) or _exists(md.parent / path)):
                    problems.append(f"{doc}:{n}: path {path} is not in the repository")
            for path in UP.findall(span):
                if not _exists(md.parent / path):
                    problems.append(f"{doc}:{n}: path {path} is outside the repository or missing")
            for name in MD_NAME.findall(span):
                if name not in NAMES:
                    problems.append(f"{doc}:{n}: {name} is not a document of the repository")
    return problems


def test_the_documents_are_found():
    assert {"README.md", "docs/github-code-scanning.md", "engine/README.md", "linter/README.md"} <= set(DOCS)
    assert {"engine", "linter", "examples", "docs"} <= set(TOP)


@pytest.mark.parametrize("doc", DOCS)
def test_links_and_paths_exist(doc):
    problems = _problems(doc)
    assert not problems, "\n".join(problems)


def test_the_checker_finds_dead_ends(tmp_path, monkeypatch):
    doc = ROOT / "docs" / "_dead_end_probe.md"
    doc.write_text(
        "See [design](../DESIGN.md), [x](../shared/reference/x.md), [ok](../README.md), [h](#nope),\n"
        "`engine/examples/missing.yaml` and engine/examples/order-pipeline.yaml.\n"
        "The keys of DESIGN.md (../shared/reference/audit-landscape.md), as RESULTS.md says.\n"
    )
    try:
        problems = _problems("docs/_dead_end_probe.md")
    finally:
        doc.unlink()
    text = "\n".join(problems)
    assert "../DESIGN.md" in text and "../shared/reference/x.md" in text and "#nope" in text
    assert "engine/examples/missing.yaml" in text and "audit-landscape.md" in text
    assert "order-pipeline" not in text and "../README.md" not in text and "RESULTS.md" not in text
    assert len(problems) == 6, text  # three links, one path, DESIGN.md and ../shared/... in the text
