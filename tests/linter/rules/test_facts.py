"""Issue 14 §1: one home for AWS facts (visguard.facts), below the engine and the linter."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from visguard import facts

ROOT = Path(__file__).parents[3]


def _imports(path: Path) -> set[str]:
    mods = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            mods.add(node.module)
        elif isinstance(node, ast.Import):
            mods.update(a.name for a in node.names)
    return mods


def test_facts_and_policy_import_nothing_of_the_engine_or_the_linter():
    # nothing but the record bases, which import nothing at all
    assert {m for m in _imports(ROOT / "common" / "facts.py") if m.startswith("visguard")} == {
        "visguard.records"
    }
    assert not {m for m in _imports(ROOT / "common" / "records.py") if m != "__future__"}
    assert {m for m in _imports(ROOT / "common" / "policy.py") if m.startswith("visguard")} == {
        "visguard",
        "visguard.records",
    }
    # and importing them loads no numpy/scipy (the linter imports them at CLI start)
    code = "import sys; import visguard.policy, visguard.facts; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_engine_no_longer_imports_the_linter_for_a_fact():
    for f in ("recommend.py", "risk.py", "scenario.py", "cli_recommend.py", "cli_simulate.py"):
        assert not any(m.startswith("visguard.linter") for m in _imports(ROOT / "engine" / f)), f


def test_every_fact_has_a_source_and_the_ranges_hold():
    ranges = [v for v in vars(facts).values() if isinstance(v, facts.Range)]
    ranges += list(facts.SQS_BATCH_SIZE.values())
    assert len(ranges) >= 9
    for r in ranges:
        assert r.source.startswith("https://docs.aws.amazon.com/") and r.lo <= r.hi
    assert 43_200 in facts.VISIBILITY_TIMEOUT and 43_201 not in facts.VISIBILITY_TIMEOUT
    assert True not in facts.VISIBILITY_TIMEOUT and "30" not in facts.VISIBILITY_TIMEOUT
    assert facts.DEFAULT_RETENTION in facts.RETENTION and facts.DEFAULT_DELAY in facts.DELAY
    assert facts.SQS_BATCH_SIZE["fifo"].hi == 10 and facts.SQS_BATCH_SIZE["standard"].hi == 10_000
    assert facts.POLLERS["standard"].initial == 5 and facts.POLLERS["fifo"].initial is None
    assert facts.lambda_guidance_visibility(30, 20) == 200


def test_old_import_paths_keep_working():
    from visguard.linter import model

    assert model.lambda_guidance_visibility is facts.lambda_guidance_visibility
    assert model.MAX_VISIBILITY_TIMEOUT == facts.MAX_VISIBILITY
    assert model.DEFAULT_RETENTION == facts.DEFAULT_RETENTION


@pytest.mark.parametrize(
    ("pointer", "fact"),
    [
        (("properties", "queue", "properties", "visibility_timeout", "maximum"), facts.VISIBILITY_TIMEOUT.hi),
        (("properties", "queue", "properties", "message_retention", "maximum"), facts.RETENTION.hi),
        (("properties", "queue", "properties", "message_retention", "minimum"), facts.RETENTION.lo),
        (("properties", "queue", "properties", "delay", "maximum"), facts.DELAY.hi),
        (("properties", "queue", "properties", "max_receive_count", "maximum"), facts.MAX_RECEIVE_COUNT.hi),
        (("properties", "consumer", "properties", "lambda", "properties", "timeout", "maximum"),
         facts.LAMBDA_TIMEOUT.hi),
        (("properties", "consumer", "properties", "lambda", "properties", "batching_window", "maximum"),
         facts.BATCHING_WINDOW.hi),
        (("properties", "consumer", "properties", "lambda", "properties", "batch_size", "maximum"),
         facts.SQS_BATCH_SIZE["standard"].hi),
        (("properties", "consumer", "properties", "wait_time", "maximum"), facts.WAIT_TIME.hi),
    ],
)  # fmt: skip
def test_the_scenario_schema_states_the_same_numbers(pointer, fact):
    node = json.loads((ROOT / "engine" / "schemas" / "scenario.schema.json").read_text())
    for key in pointer:
        node = node[key]
    assert node == fact


def test_aws_numbers_left_outside_the_home_are_only_in_files_of_other_parts():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import count_aws_facts
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    found = count_aws_facts.count(ROOT)
    mine = [f for f in found if f.startswith(("linter/rules/", "engine/recommend", "engine/risk", "engine/scen",
                                              "engine/cli_", "linter/model", "constructs/settings", "cli/"))]  # fmt: skip
    # vg041's fifo_block_seconds default (900 s) is visguard's own threshold, not an AWS number
    assert mine == ["linter/rules/vg041_fifo_group_blocked.py"] and found[mine[0]] == 1
