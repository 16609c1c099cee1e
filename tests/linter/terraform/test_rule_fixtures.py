"""Each rule's CloudFormation fixture (tests/linter/fixtures/rules/<id>/) reproduced in Terraform: the failing
module raises the rule at a line of the .tf file with a fix in HCL, the passing one is completely clean."""

from __future__ import annotations

from pathlib import Path

import pytest
from visguard.linter.api import lint_model
from visguard.linter.loaders import apply_profiles, load_config, terraform
from visguard.linter.model import LintConfig

RULES = Path(__file__).resolve().parent / "rules"
RULE_DIRS = sorted(p for p in RULES.iterdir() if p.is_dir())


def _lint(path: Path):
    cfg_file = path.parent / "visguard.yaml"
    config = load_config(str(cfg_file)) if cfg_file.exists() else LintConfig()
    model = terraform.load(str(path))
    apply_profiles(model, config)
    return lint_model(model, config)


def test_fixtures_cover_the_rules_terraform_can_express():
    assert len(RULE_DIRS) >= 20
    for d in RULE_DIRS:
        assert (RULES.parent.parent / "fixtures" / "rules" / d.name).is_dir()  # beside a CloudFormation one


@pytest.mark.parametrize("rule_dir", RULE_DIRS, ids=[p.name for p in RULE_DIRS])
def test_failing_module_raises_the_rule(rule_dir):
    mine = [f for f in _lint(rule_dir / "fail.tf") if f.rule == rule_dir.name.upper()]
    assert mine
    for f in mine:
        assert f.location.file.endswith(("fail.tf", "visguard.yaml")) and f.location.line, f
        assert f.queue.startswith("aws_sqs_queue."), f.queue
        assert f.fix and "!GetAtt" not in f.fix and "VisibilityTimeout" not in f.fix, f.fix


@pytest.mark.parametrize("rule_dir", RULE_DIRS, ids=[p.name for p in RULE_DIRS])
def test_passing_module_is_clean(rule_dir):
    assert [(f.rule, f.message) for f in _lint(rule_dir / "pass.tf")] == []
