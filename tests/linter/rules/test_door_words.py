"""Issue 14 §5: fixes in the words of the door a queue came from: CloudFormation properties for templates, API
attributes for the audit's inventory, Terraform arguments for HCL (visguard.linter.vocabulary)."""

from __future__ import annotations

import pytest
from visguard.linter.api import lint_model
from visguard.linter.changes import describe, words
from visguard.linter.model import Consumer, Location, Model, Queue, Redrive


def _model(source: str) -> Model:
    c = Consumer("Map", "lambda", function_id="Fn", function_timeout=60, batch_size=10)
    q = Queue("Orders", Location("t"), visibility_timeout=120, consumers=[c], source=source,
              message_retention=1_209_600, redrive=Redrive("Dlq", "Dlq", 5))  # fmt: skip
    m = Model(source_file="t")
    m.add(q)
    m.add(Queue("Dlq", Location("t"), message_retention=345_600, source=source))
    return m


@pytest.mark.parametrize(
    ("source", "vt", "retention"),
    [
        ("cloudformation", "VisibilityTimeout", "MessageRetentionPeriod"),
        ("sam", "VisibilityTimeout", "MessageRetentionPeriod"),
        ("inventory", "VisibilityTimeout", "MessageRetentionPeriod"),
        ("terraform", "visibility_timeout_seconds", "message_retention_seconds"),
    ],
)
def test_fix_sentences_use_the_doors_words(source, vt, retention):
    findings = {f.rule: f for f in lint_model(_model(source))}
    if source == "terraform":  # HCL assigns the value
        assert f"Set {vt} = 360" in findings["VG011"].fix
    else:
        assert f"Set {vt} to at least 360 s" in findings["VG011"].fix
    assert retention in findings["VG022"].fix
    (ch,) = findings["VG011"].changes
    assert words(ch, source) == (vt, "360")
    assert describe(ch, source) == f"set {vt} of Orders to 360"
    (rbif,) = findings["VG031"].changes
    expected = "function_response_types" if source == "terraform" else "FunctionResponseTypes"
    assert words(rbif, source) == (expected, '["ReportBatchItemFailures"]')
