"""Per-rule fixtures in serverless.yml (fixtures/rules/<rule>/{fail,pass}/serverless.yml), beside the
CloudFormation ones in tests/linter/fixtures/rules: the failing service raises the rule at a serverless.yml
line with a serverless address, the passing one (the same service done right) is clean."""

from __future__ import annotations

import pytest
from visguard.linter.loaders import serverless

from .conftest import FIXTURES, lint, options

RULE_DIRS = sorted(p for p in (FIXTURES / "rules").iterdir() if p.is_dir())


def _lint(path):
    return lint(serverless.load(str(path), options()))


@pytest.mark.parametrize("rule_dir", RULE_DIRS, ids=[p.name for p in RULE_DIRS])
def test_failing_service_raises_the_rule(rule_dir):
    rule = rule_dir.name.split("-")[-1].upper()
    findings = _lint(rule_dir / "fail" / "serverless.yml")
    mine = [f for f in findings if f.rule == rule]
    assert mine, [(f.rule, f.message) for f in findings]
    for f in mine:
        assert f.location.file.endswith("fail/serverless.yml") and f.location.line and f.location.column
        # a serverless address, never a path of the translated CloudFormation
        assert f.location.path.startswith(("functions.", "resources.Resources.", "constructs.", "provider."))
        assert "/" not in f.location.path and "LambdaFunction" not in f.location.path
        assert f.fix


@pytest.mark.parametrize("rule_dir", RULE_DIRS, ids=[p.name for p in RULE_DIRS])
def test_passing_service_is_clean(rule_dir):
    assert [(f.rule, f.message) for f in _lint(rule_dir / "pass" / "serverless.yml")] == []


def test_fixtures_cover_the_rules_that_apply_to_serverless():
    have = {p.name.split("-")[-1].upper() for p in RULE_DIRS}
    for rule in ("VG001", "VG002", "VG003", "VG004", "VG005", "VG010", "VG011", "VG020", "VG021", "VG022",
                 "VG030", "VG031", "VG032", "VG033", "VG050"):  # fmt: skip
        assert rule in have
