"""Every rule has a failing and a passing fixture template in tests/linter/fixtures/rules/<id>/ (plus a
visguard.yaml with consumer profiles where the rule needs one); a rule about another input (VG902: a value a
Terraform or Serverless loader could not evaluate) has ``fail/`` and ``pass/`` folders instead. The failing fixture must raise the rule; the
passing one, the same setup done right, must be completely clean."""

from __future__ import annotations

from pathlib import Path

import pytest
from visguard.linter.api import lint_paths
from visguard.linter.loaders import load_config
from visguard.linter.model import LintConfig
from visguard.linter.rules import ALL_RULES

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "rules"
RULE_DIRS = sorted(p for p in FIXTURES.iterdir() if p.is_dir() and p.name.startswith("vg"))


def _case(rule_dir: Path, kind: str) -> Path:
    return rule_dir / f"{kind}.yaml" if (rule_dir / f"{kind}.yaml").is_file() else rule_dir / kind


def _lint(path: Path):
    cfg_file = (path.parent if path.is_file() else path) / "visguard.yaml"
    config = load_config(str(cfg_file)) if cfg_file.exists() else LintConfig()
    result = lint_paths([str(path)], config=config)
    assert result.errors == [], result.errors
    return result.findings


# Rules over what CloudWatch observed (tag "observed": VG042) have no template input; the fleet audit's tests
# cover them (tests/audit/test_observed.py).
OBSERVED = {rid for rid, r in ALL_RULES.items() if "observed" in r.tags}


def test_every_rule_has_fixtures():
    have = {p.name.upper() for p in RULE_DIRS}
    assert {"VG042"} == OBSERVED
    assert have == set(ALL_RULES) - OBSERVED
    for d in RULE_DIRS:
        assert _case(d, "fail").exists() and _case(d, "pass").exists()


@pytest.mark.parametrize("rule_dir", RULE_DIRS, ids=[p.name for p in RULE_DIRS])
def test_failing_fixture_raises_the_rule(rule_dir):
    findings = _lint(_case(rule_dir, "fail"))
    mine = [f for f in findings if f.rule == rule_dir.name.upper()]
    assert mine, [f.rule for f in findings]
    for f in mine:
        # in the template, or in visguard.yaml where a consumer profile (heartbeat, p99) was declared
        assert "fail" in f.location.file or f.location.file.endswith("visguard.yaml"), f
        assert f.location.line, f
        assert f.fix


@pytest.mark.parametrize("rule_dir", RULE_DIRS, ids=[p.name for p in RULE_DIRS])
def test_passing_fixture_is_clean(rule_dir):
    assert [(f.rule, f.message) for f in _lint(_case(rule_dir, "pass"))] == []
