"""linter/vocabulary.py: every key a rule's template uses has a word in every input's vocabulary, and each door's
known wording (CDK, visguard.yaml, Terraform) comes from it, once, where lint_model finalises a finding."""

from __future__ import annotations

from pathlib import Path

import pytest
from visguard.linter.api import lint_paths
from visguard.linter.model import Consumer, Finding, Location, Queue, Severity
from visguard.linter.rules import ALL_RULES
from visguard.linter.vocabulary import VOCABULARIES, word

FIXTURES = Path(__file__).parents[1] / "fixtures"


@pytest.mark.parametrize("source", sorted(VOCABULARIES))
def test_every_rule_fix_is_worded_by_every_vocabulary(source):
    c = Consumer("functions.worker.events[0]", "lambda", function_id="worker")
    q = Queue(id="Q", location=Location("f"), source=source, consumers=[c])
    for rule in ALL_RULES.values():
        for consumer in (None, c.id):
            f = Finding(rule.id, Severity.WARNING, "m", "Q", q.location, fix=rule.fix_text, consumer=consumer)
            fix = word(f, q).fix
            assert isinstance(fix, str) and fix, (source, rule.id)
            assert not any(k in fix for k in ("{visibility_timeout}", "{batch_size}", "{retention}")), fix


def _fixes(path: str) -> dict[str, str]:
    result = lint_paths([str(FIXTURES / path)])
    return {f.rule: f for f in result.findings}


def test_a_cdk_assembly_is_fixed_in_cdk_terms():
    found = _fixes("loaders/cdk.out.sample")
    assert found["VG010"].fix == "visibility_timeout=Duration.seconds(720) on the aws_sqs.Queue."
    assert found["VG031"].fix.startswith("SqsEventSource(queue, ..., report_batch_item_failures=True)")
    assert "VisibilityTimeout" in found["VG010"].message or "visibility timeout" in found["VG010"].message


def test_a_visguard_yaml_suppression_is_fixed_in_its_own_words():
    (f,) = _fixes("rules/vg900/config/fail.yaml").values()
    assert f.fix.startswith("Add a reason: suppressions: [{rule: VG020, queue: ")
    assert "Metadata" not in f.fix
    (f,) = [f for f in _fixes("rules/vg900/cfn/fail.yaml").values() if f.rule == "VG900"]
    assert "Metadata: {visguard: {suppress:" in f.fix


def test_terraform_messages_name_the_providers_arguments():
    found = _fixes("rules/vg030/terraform/fail")
    assert (
        "sets batch_size 100 (> 10) without maximum_batching_window_in_seconds >= 1" in found["VG030"].message
    )
    q = Queue(id="aws_sqs_queue.q", location=Location("main.tf"), source="terraform")
    from visguard.linter.vocabulary import Text

    f = Finding("VG033", Severity.WARNING, Text("{max_concurrency} 20"), q.id, q.location)
    assert word(f, q).message == "scaling_config.maximum_concurrency 20"


def test_user_text_in_arguments_is_never_a_template():
    from visguard.linter.vocabulary import Text

    q = Queue(id="Q", location=Location("f"), source="terraform")
    f = Finding(
        "VG030", Severity.WARNING, Text("{label} sets {batch_size}", label="fn {batch_size}"), "Q", q.location
    )
    assert word(f, q).message == "fn {batch_size} sets batch_size"
