"""Every rule's fixtures, for every input kind, in one tree, run through ``lint_paths`` (the registry the CLI uses):

    tests/linter/fixtures/rules/<rule>/<kind>/     kind: cfn | sam | cdk | terraform | serverless | config
        fail[-variant].yaml  or  fail[-variant]/   an input that raises <rule>: a template, or a folder (a
                                                   Terraform root module, a Serverless service, a cloud assembly)
        fail[-variant].expect.json                 every finding of that fail case, one JSON object a line
        pass[-variant].yaml  or  pass[-variant]/   the same setup done right: completely clean
        visguard.yaml                              optional: settings and consumer profiles (``--config``)

Every rule of the catalogue (``visguard rules``) has a fail and a pass case in at least one kind. A finding of
the fixture's own rule carries a fix and speaks the input's language (a Terraform address, a serverless.yml
address).

After an intended change of what the rules find or where, rewrite the expectations and review their diff:

    VISGUARD_UPDATE_SNAPSHOTS=1 .venv/bin/pytest tests/linter/rules/test_rule_fixtures.py -q

A fail case without its ``.expect.json`` is a failure, never written silently.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from visguard.linter.api import lint_paths
from visguard.linter.loaders import load_config
from visguard.linter.model import LintConfig
from visguard.linter.rules import ALL_RULES

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "rules"
KINDS = ("cfn", "sam", "cdk", "terraform", "serverless", "config", "kubernetes", "code")
EXPECT = ".expect.json"
UPDATE = bool(os.environ.get("VISGUARD_UPDATE_SNAPSHOTS"))

KIND_DIRS = sorted(p for p in FIXTURES.glob("vg*/*") if p.is_dir())


def _cases(kind_dir: Path, outcome: str) -> list[Path]:
    return sorted(p for p in kind_dir.iterdir() if p.name.split(".")[0].split("-")[0] == outcome and
                  not p.name.endswith(EXPECT))  # fmt: skip


def _name(case: Path) -> str:
    return case.name.split(".")[0]  # fail, fail-lift


FAIL = [c for d in KIND_DIRS for c in _cases(d, "fail")]
PASS = [c for d in KIND_DIRS for c in _cases(d, "pass")]


def _id(case: Path) -> str:
    return str(case.relative_to(FIXTURES))


def _lint(case: Path):
    cfg = case.parent / "visguard.yaml"
    config = load_config(str(cfg)) if cfg.exists() else LintConfig()  # as `visguard lint --config` does
    result = lint_paths([str(case)], config=config)
    assert result.errors == [], result.errors
    assert result.files, f"no loader claimed {case}"
    return result.findings


def _record(f, kind_dir: Path) -> dict:
    loc = f.location
    # a consumer read from code is named by its file and line: written relative to the kind's folder
    consumer = f.consumer.replace(f"{kind_dir}{os.sep}", "") if f.consumer else f.consumer
    return {"rule": f.rule, "severity": f.severity.value, "queue": f.queue, "consumer": consumer,
            "file": Path(os.path.relpath(loc.file, kind_dir)).as_posix(), "line": loc.line,
            "column": loc.column, "path": loc.path, "construct_path": loc.construct_path}  # fmt: skip


def _dump(records: list[dict]) -> str:
    return "[\n" + ",\n".join(json.dumps(r) for r in records) + "\n]\n" if records else "[]\n"


def test_the_tree_is_the_one_layout():
    assert KIND_DIRS and FAIL and PASS
    for rule_dir in sorted(p for p in FIXTURES.iterdir() if p.is_dir() and p.name != "snapshots"):
        assert rule_dir.name.upper() in ALL_RULES, rule_dir
        assert all(p.is_dir() and p.name in KINDS for p in rule_dir.iterdir()), rule_dir
    for d in KIND_DIRS:
        fails, passes = {_name(c) for c in _cases(d, "fail")}, {_name(c) for c in _cases(d, "pass")}
        assert fails and {n.replace("fail", "pass", 1) for n in fails} == passes, d  # each fail has its pass
        expects = {p.name[: -len(EXPECT)] for p in d.glob(f"*{EXPECT}")}
        assert expects == fails, f"{d}: run with VISGUARD_UPDATE_SNAPSHOTS=1 to write {fails - expects}"
        others = {p.name for p in d.iterdir()} - {c.name for c in _cases(d, "fail") + _cases(d, "pass")}
        assert others <= {"visguard.yaml"} | {f"{n}{EXPECT}" for n in fails}, d


# Rules over what only the fleet audit observes (tag "observed": VG042, CloudWatch; VG085, the deployed queue against
# its declaration) have no template input; the fleet audit's tests cover them (tests/audit/test_observed.py,
# tests/audit/test_sources.py).
OBSERVED = {rid for rid, r in ALL_RULES.items() if "observed" in r.tags}


def test_every_rule_in_the_catalogue_has_a_failing_and_a_passing_case():
    covered = {c.parents[1].name.upper() for c in FAIL} & {c.parents[1].name.upper() for c in PASS}
    assert {"VG042", "VG085"} == OBSERVED
    assert sorted(set(ALL_RULES) - OBSERVED - covered) == []


@pytest.mark.parametrize("case", FAIL, ids=[_id(c) for c in FAIL])
def test_failing_case_raises_its_rule_exactly_where_expected(case):
    kind_dir, rule, kind = case.parent, case.parents[1].name.upper(), case.parent.name
    findings = _lint(case)
    got = [_record(f, kind_dir) for f in findings]
    expect = kind_dir / f"{_name(case)}{EXPECT}"
    if UPDATE:
        expect.write_text(_dump(got), encoding="utf-8")
    assert expect.exists(), f"{expect} is missing: run with VISGUARD_UPDATE_SNAPSHOTS=1 and review it"
    assert got == json.loads(expect.read_text(encoding="utf-8")), f"{_id(case)}: findings changed"
    mine = [f for f in findings if f.rule == rule]
    assert mine, [f.rule for f in findings]
    for f in mine:
        assert f.fix and f.location.line, f
        if kind == "terraform":  # a Terraform address, and a fix in HCL's words
            assert f.queue.startswith("aws_sqs_queue."), f.queue
            # (sqsd's own option is called VisibilityTimeout: a Beanstalk setting block may name it)
            assert "!GetAtt" not in f.fix, f.fix
            assert "VisibilityTimeout" not in f.fix.replace('name = "VisibilityTimeout"', ""), f.fix
        if kind == "serverless" and f.location.file.endswith("serverless.yml"):  # a serverless.yml address,
            assert f.location.column, f  # never a path of the translated CloudFormation
            assert f.location.path.startswith(
                ("functions.", "resources.Resources.", "constructs.", "provider.")
            )
            assert "/" not in f.location.path and "LambdaFunction" not in f.location.path, f.location.path


@pytest.mark.parametrize("case", PASS, ids=[_id(c) for c in PASS])
def test_passing_case_is_clean(case):
    assert [(f.rule, f.message) for f in _lint(case)] == []


def test_a_rule_with_kinds_fires_only_where_a_consumer_of_those_kinds_is(monkeypatch):
    """``Rule.kinds`` lets lint_model skip a rule on a queue without a consumer of those kinds (a Lambda rule on a
    queue only workers read). Every fail case is linted with the skip turned off: each firing of a rule that
    declares kinds must be on a queue that has a consumer of one of them, and every such rule fires somewhere."""
    from visguard.linter import api
    from visguard.linter.rules import RULES

    declared = [r for r in RULES.values() if r.kinds is not None]
    assert {"VG011", "VG031", "VG065", "VG070"} <= {r.id for r in declared}
    fired: set[str] = set()
    wrong: list[tuple[str, str, set]] = []

    def unskipped(disabled, kinds):  # every enabled rule on every queue (consumers_only still applies)
        return tuple(r for r in RULES.values() if r.id not in disabled and (kinds or not r.consumers_only))

    def watched(rule, check):
        def run(queue, ctx):
            out = list(check(queue, ctx))
            kinds = {c.kind for c in queue.consumers}
            if out:
                fired.add(rule.id)
                if kinds.isdisjoint(rule.kinds):
                    wrong.append((rule.id, queue.id, kinds))
            return iter(out)

        return run

    monkeypatch.setattr(api, "_rules_for", unskipped)
    for rule in declared:
        monkeypatch.setattr(rule, "check", watched(rule, rule.check))
    for case in FAIL:
        _lint(case)
    assert wrong == []
    assert fired == {r.id for r in declared}


# ------------------------------------------------------------------------------------ what every finding says
_FINDINGS: dict[Path, list] = {}


def _findings(case: Path) -> list:
    """The findings of a fail case, linted once for the tests below (none of them changes a finding)."""
    if case not in _FINDINGS:
        _FINDINGS[case] = _lint(case)
    return _FINDINGS[case]


def _config_snippets(text: str) -> list[str]:
    """Every visguard.yaml snippet a text gives: the parenthesised text after "visguard.yaml" that reads as a
    YAML mapping (``visguard.yaml (profiles: [{match: orders, p99: 1200}])``)."""
    from visguard.linter.loaders.decode import loads

    out, start = [], 0
    while (i := text.find("visguard.yaml (", start)) >= 0:
        j, depth = i + len("visguard.yaml ("), 1
        k = j
        while k < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[k], 0)
            k += 1
        snippet = text[j : k - 1]
        try:
            doc = loads(snippet, file="snippet.yaml")
        except Exception:  # noqa: BLE001 - prose in parentheses, not a snippet
            doc = None
        if isinstance(doc, dict):
            out.append(snippet)
        start = k
    return out


def test_every_visguard_yaml_snippet_of_a_fix_validates_against_the_schema():
    """A fix that says what to write in visguard.yaml gives a document ``visguard lint --config`` accepts: every
    snippet of every rendered fix and message of every fail case (and of the consumer word table, which words
    the fixes of consumers no fixture has) passes the schema."""
    from visguard.errors import VisguardError
    from visguard.linter import consumer_words
    from visguard.linter.loaders.config import validate
    from visguard.linter.loaders.decode import loads

    texts = {(f.rule, t) for case in FAIL for f in _findings(case) for t in (f.fix or "", f.message)}
    pairs = [*consumer_words.WORDS.values(), *consumer_words.GENERIC.values()]
    texts |= {("consumer_words", w) for pair in pairs for w in pair}
    snippets = {(who, s) for who, t in texts for s in _config_snippets(t)}
    assert any(who == "VG065" for who, _ in snippets)  # the rule that asks for a profile
    bad = []
    for who, s in sorted(snippets):
        try:
            validate(loads(s, file="visguard.yaml"), file="visguard.yaml")
        except VisguardError as exc:
            bad.append((who, s, str(exc)))
    assert bad == []


# An engine figure a message quotes -> the estimate key that holds it and how the message writes it.
def _rate(v) -> str:
    from visguard.linter.rules import fmt_rate

    return fmt_rate(v)


def _secs(v) -> str:
    from visguard.linter.rules import fmt_seconds

    return fmt_seconds(round(v))  # a message quotes whole seconds of the estimate's figure


ENGINE_FIGURES = [
    (r"about (\S+ %) of messages will be processed twice", "duplicate_rate", _rate),
    (r"about (\S+ %) of invocations time out", "timeout_rate", _rate),
    (r"messages wait about (\d\S* s(?: \([^)]*\))?) before a retry", "recovery_p99", _secs),
    (r"message group is blocked for up to (\d\S* s(?: \([^)]*\))?)", "recovery_p99", _secs),
]


@pytest.mark.parametrize(("pattern", "key", "said"), ENGINE_FIGURES, ids=[k for _, k, _ in ENGINE_FIGURES])
def test_every_engine_figure_a_message_quotes_is_on_the_finding(pattern, key, said):
    """A message that quotes an engine figure (a duplicate rate, a recovery time) carries it as data: the
    finding's ``estimate`` (JSON and SARIF ``estimate``) holds that very figure, for every finding of every fail
    case that quotes one."""
    import re

    quoted, missing = 0, []
    for case in FAIL:
        for f in _findings(case):
            for m in re.finditer(pattern, f.message):
                quoted += 1
                est = f.estimate or {}
                if key not in est or said(est[key]) != m.group(1):
                    missing.append((_id(case), f.rule, m.group(1), f.estimate))
    assert quoted, f"no fixture quotes {key}: the table is stale"
    assert missing == []


def _patched(text: str, reps: list[dict]) -> str:
    """``text`` with SARIF whole-line replacements applied (regions of the original text, 1-based)."""
    lines = text.splitlines(keepends=True)
    for r in sorted(reps, key=lambda r: r["deletedRegion"]["startLine"], reverse=True):
        start, end = r["deletedRegion"]["startLine"] - 1, r["deletedRegion"]["endLine"] - 1
        lines[start:end] = [r["insertedContent"]["text"]]
    return "".join(lines)


@pytest.mark.parametrize("case", FAIL, ids=[_id(c) for c in FAIL])
def test_a_sarif_fix_is_what_fix_writes_or_adds_no_finding_alone(case):
    """A SARIF fix is the settled fix plan's edits (what ``visguard lint --fix`` writes), on the finding whose
    change they settle; none when the plan refuses it. Applied to its file, a finding's fix gives exactly what
    ``--fix`` writes there, or, applied alone, brings no finding the file did not have."""
    from visguard.linter.fix import _id as finding_id
    from visguard.linter.fix import plan
    from visguard.linter.loaders import safe_io
    from visguard.linter.report import render
    from visguard.linter.report._common import display_path
    from visguard.neutralize import uri

    cfg = case.parent / "visguard.yaml"
    config = load_config(str(cfg)) if cfg.exists() else LintConfig()

    def run():
        return lint_paths([str(case)], config=config)

    result = run()
    result.fixes = plan(result, run)  # (a case whose findings have no changes: no SARIF fix at all, below)
    by_uri = {uri(display_path(ff.path)): ff for ff in result.fixes}
    refused = {id(f) for ff in result.fixes for f, _ in ff.skipped} - {
        id(f) for ff in result.fixes for f in ff.applied
    }
    sarif = json.loads(render(result, "sarif"))["runs"][0]["results"]
    assert len(sarif) == len(result.findings)
    base = {finding_id(f) for f in result.findings}
    for f, r in zip(result.findings, sarif, strict=True):
        if id(f) in refused or not f.changes:
            assert "fixes" not in r, (f.rule, r["fixes"])
            continue
        for fix in r.get("fixes", []):
            patched = {}
            for change in fix["artifactChanges"]:
                ff = by_uri[change["artifactLocation"]["uri"]]
                patched[ff.path] = _patched(ff.before, change["replacements"])
            if all(text == by_uri[uri(display_path(p))].after for p, text in patched.items()):
                continue  # exactly what --fix writes
            with safe_io.planned({p: t.encode("utf-8") for p, t in patched.items()}):
                after = run()
            assert after.errors == [], (f.rule, after.errors)
            new = {finding_id(n) for n in after.findings} - base
            assert new == set(), (f.rule, fix["description"], new)
