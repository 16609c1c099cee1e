"""The documentation site (issue 37 §3): generated pages that follow the code, a strict mkdocs build, and the built
site opened in a real headless Chromium (Debian's chromium, scripts/install-system-deps.sh), served from 127.0.0.1.

The generator (scripts/docs_pages.py) is tested without mkdocs; the build and the browser need the `docs` extra
(mkdocs, mkdocs-material: `make install` installs it) and are slow (a build takes ~10 s on this machine).
"""

from __future__ import annotations

import functools
import http.server
import importlib.util
import json
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import yaml
from visguard.docs import DOCS_URL, rule_url
from visguard.linter.rules import ALL_RULES

ROOT = Path(__file__).resolve().parents[2]


def _module(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


gen = _module("docs_pages", ROOT / "scripts" / "docs_pages.py")
cdp = _module("visguard_docs_cdp", Path(__file__).resolve().parent / "cdp.py")


def _config() -> dict:
    class Loader(yaml.SafeLoader):  # mkdocs.yml may hold !ENV / !relative tags: read them as plain values
        pass

    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    return yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=Loader)


@functools.cache
def _pages() -> dict[str, str]:
    return gen.pages()


# --------------------------------------------------------------------------------------------------- no mkdocs
def test_the_site_lives_where_explain_and_sarif_point():
    config = _config()
    assert config["site_url"] == DOCS_URL and config["strict"] is True
    assert rule_url("VG011") == f"{DOCS_URL}rules/vg011/"  # mkdocs' directory URL of docs/rules/vg011.md
    assert "rules/vg011.md" in _pages()


def test_every_rule_has_a_generated_page_and_nothing_generated_is_committed():
    pages = _pages()
    assert sorted(pages) == sorted(gen.page_names())
    assert {f"rules/{r.lower()}.md" for r in ALL_RULES} <= set(pages)
    tracked = subprocess.run(
        ["git", "ls-files", "docs"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert not set(tracked.stdout.split()) & {f"docs/{p}" for p in pages}  # generated at build time only


def test_a_rule_page_has_its_metadata_facts_and_fixes():
    from visguard import facts
    from visguard.linter.cli_explain import facts_used_by

    for rule in ALL_RULES.values():
        page = _pages()[f"rules/{rule.id.lower()}.md"]
        assert page.startswith(f"# {rule.id}: {rule.title}\n"), rule.id
        assert (
            f"**Severity:** {rule.severity.value}" in page and rule.rationale in page and rule.source in page
        )
        assert rule.fix in page
        for name, rec in facts.sources_of(facts_used_by(rule)):
            row = next(line for line in page.splitlines() if line.startswith(f"| `{name}` |"))
            assert rec.source in row and rec.checked in row, (rule.id, name)
    vg011 = _pages()["rules/vg011.md"]
    # the fix in each input's words, as the vocabulary gives it on the fixtures
    assert "| Terraform | Set visibility_timeout_seconds = " in vg011
    assert "| CDK (cdk.out) | visibility_timeout=Duration.seconds(" in vg011
    assert "| CloudFormation | Set VisibilityTimeout to at least 180 s (3 min). |" in vg011


def test_every_fixture_is_an_example_on_its_rules_page_with_what_visguard_prints():
    """The examples are the fixtures themselves, so a page cannot drift from what the linter does."""
    seen = 0
    for rule in ALL_RULES.values():
        page = _pages()[f"rules/{rule.id.lower()}.md"]
        for case in gen.cases(rule.id):
            expect = case.kind_dir / f"{case.name}.expect.json"
            for f in case.files():
                body = f.read_text(encoding="utf-8", errors="replace")
                indented = "".join("    " + ln if ln.strip() else ln for ln in body.splitlines(True))
                assert indented in page, (rule.id, f)
                seen += 1
            if case.outcome == "fail":
                recorded = json.loads(expect.read_text())  # the fixture test's record of the findings
                assert any(r["rule"] == rule.id for r in recorded)
                for r in recorded:
                    assert r["line"] is None or f"    {r['line']}:" in page, (rule.id, case.name, r)
                    assert f"  {r['rule']}  " in page, (rule.id, r)
    assert seen > 150


def test_the_configuration_reference_is_the_schema():
    schema = json.loads(gen.CONFIG_SCHEMA.read_text())
    page = _pages()["configuration.md"]
    for key, node in schema["properties"].items():
        assert f"| `{key}` |" in page and gen.cell(node.get("description", "")) in page, key
    for name in schema["$defs"]:
        assert f"### {name}\n" in page
    assert "| `suppressions[].reason` |" in page and "| `lambda_multiplier` |" not in page.split("## Top")[0]
    assert gen.EXAMPLE_CONFIG.read_text() in page


# --------------------------------------------------------------------------------------------------- mkdocs
def _build(config: Path, site: Path) -> subprocess.CompletedProcess:
    # never -q: mkdocs counts the warnings that abort a strict build from its log, which -q silences
    env = {
        "PATH": "/usr/bin:/bin",
        "NO_MKDOCS_2_WARNING": "1",
        "PYTHONSAFEPATH": "1",
        "HOME": str(site.parent),
    }
    cmd = [
        sys.executable,
        "-P",
        "-m",
        "mkdocs",
        "build",
        "--strict",
        "-f",
        str(config),
        "--site-dir",
        str(site),
    ]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    if importlib.util.find_spec("mkdocs") is None:
        pytest.fail("mkdocs is not installed: pip install -e '.[docs]' (make install does)")
    out = tmp_path_factory.mktemp("site") / "site"
    run = _build(ROOT / "mkdocs.yml", out)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return out


@pytest.mark.slow
def test_the_site_builds_strict_with_a_page_per_rule(site):
    for rid in ALL_RULES:
        assert (site / "rules" / rid.lower() / "index.html").is_file(), rid
    for page in (
        "index.html",
        "configuration/index.html",
        "concepts/index.html",
        "quickstart/terraform/index.html",
    ):
        assert (site / page).is_file(), page
    index = json.loads((site / "search" / "search_index.json").read_text())
    assert any(d["location"] == "rules/vg011/" for d in index["docs"])
    # the site requests nothing outside itself (no web fonts, no CDN)
    assert "fonts.googleapis.com" not in (site / "index.html").read_text()


@pytest.mark.slow
def test_a_broken_link_or_an_orphan_page_fails_the_build(tmp_path):
    """--strict with the validation settings of mkdocs.yml: the build fails on a dead link and on a page left out of
    the navigation."""
    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", docs, ignore=shutil.ignore_patterns("reference", "schemas"))
    (docs / "orphan.md").write_text("# Orphan\n\nNo navigation entry names this page.\n")
    (docs / "concepts.md").write_text((docs / "concepts.md").read_text() + "\nSee [gone](no-such-page.md).\n")
    config = _config()
    config.update(docs_dir=str(docs), hooks=[str(ROOT / "scripts" / "mkdocs_hooks.py")])
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    run = _build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert run.returncode != 0
    assert "orphan.md" in run.stderr and "no-such-page.md" in run.stderr, run.stderr[-3000:]


# --------------------------------------------------------------------------------------------------- the browser
class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def served(site):
    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.mark.slow
def test_the_site_in_headless_chromium(served, tmp_path):
    """Search finds a rule's page; every rule page renders its title and its examples (the fail example open and
    laid out, every fixture file in a code block); no page logs a console error or throws, nor asks for anything
    outside the site."""
    assert shutil.which(cdp.CHROMIUM), "chromium missing: run scripts/install-system-deps.sh"
    page = cdp.Page(tmp_path / "profile")
    try:
        page.goto(served)
        assert (
            page.js("document.querySelector('article h1').textContent.replace('¶', '').trim()") == "visguard"
        )
        # search: the query typed into Material's search box, results from the index built into the site
        page.js("document.querySelector('.md-search__input').focus()")
        page.call("Input.insertText", text="VG011")
        hrefs = page.wait_for(
            "(() => { const a = [...document.querySelectorAll('.md-search-result__item a')].map(x => x.href);"
            " return a.length ? a : null })()"
        )
        # the best match is the rule's page (?h= is Material's highlight of the query on the page opened)
        assert hrefs[0].split("#")[0].split("?")[0] == served + "rules/vg011/", hrefs

        for rule in ALL_RULES.values():
            page.goto(served + f"rules/{rule.id.lower()}/")
            got = page.js(
                "(() => ({h1: document.querySelector('article h1').textContent.replace('¶', '').trim(),"
                " blocks: document.querySelectorAll('article details pre code').length,"
                " open: [...document.querySelectorAll('article details.failure[open] pre')]"
                ".filter(p => p.getBoundingClientRect().height > 0).length,"
                " text: document.querySelector('article').textContent}))()"
            )
            assert got["h1"] == f"{rule.id}: {rule.title}", got["h1"]
            cases = gen.cases(rule.id)
            if rule.id in ("VG042", "VG085"):  # judged on what only the audit sees: no lint fixture
                assert not cases and "no lint fixture" in got["text"]
                continue
            files = sum(len(c.files()) + (1 if c.config() else 0) for c in cases)
            assert got["blocks"] == files + len(cases), (rule.id, got["blocks"])  # + what visguard prints
            assert got["open"] >= 1, rule.id  # the fail example is shown, not folded away
            first = next(c for c in cases if c.outcome == "fail").files()[0]
            line = next(ln for ln in first.read_text().splitlines() if ln.strip())
            assert line.strip() in got["text"], (rule.id, line)
        assert page.errors == [], page.errors
        # the site asks for nothing outside itself (no web font, no CDN, no API)
        assert page.requests and all(u.startswith((served, "data:")) for u in page.requests), {
            u for u in page.requests if not u.startswith((served, "data:"))
        }
    finally:
        page.stop()


# --------------------------------------------------------------------------------------------------- the README
def test_the_readme_is_a_front_page_whose_test_command_is_what_ci_runs():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) < 200
    first = readme.split("```bash\n", 1)[1].split("```", 1)[0].splitlines()
    assert [line.split("#")[0].strip() for line in first[:2]] == ["make demo", "make test"]
    ci = [
        ln.strip() for ln in (ROOT / ".ci" / "run").read_text().splitlines() if ln.strip().startswith("make ")
    ]
    assert "make test" in ci  # CI runs the README's test command, which runs tests/docs like every other test
    # every quickstart and the site's home are one link away
    for page in (
        "docs/index.md",
        *sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs" / "quickstart").glob("*.md")),
    ):
        assert f"]({page})" in readme, page
