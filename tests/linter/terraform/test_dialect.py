"""linter/dialects.py: a finding on a Terraform queue speaks HCL; other inputs keep the rules' own words."""

from __future__ import annotations

from visguard.linter.dialects import DIALECTS, apply_dialect
from visguard.linter.model import Consumer, Finding, Location, Queue, Severity


def _finding(fix: str, message: str = "m", location: Location | None = None) -> Finding:
    return Finding("VG011", Severity.WARNING, message, "q", location or Location("main.tf", 3, 3), fix=fix)


def test_terraform_names_and_snippets():
    q = Queue(id="aws_sqs_queue.q", location=Location("main.tf", 1, 1), source="terraform")
    f = apply_dialect(_finding("Set VisibilityTimeout to at least 185 s (3 min)."), q)
    assert f.fix == "Set visibility_timeout_seconds = 185 (at least 185 s (3 min))."
    f = apply_dialect(
        _finding(
            "Add RedrivePolicy {deadLetterTargetArn: !GetAtt <Name>DLQ.Arn, maxReceiveCount: 5} with a DLQ."
        ),
        q,
    )
    assert "redrive_policy = jsonencode({ deadLetterTargetArn = aws_sqs_queue.<name>_dlq.arn" in f.fix
    f = apply_dialect(
        _finding("Set MaximumBatchingWindowInSeconds >= 1 for BatchSize > 10; raise the function Timeout."), q
    )
    assert (
        f.fix
        == "Set maximum_batching_window_in_seconds >= 1 for batch_size > 10; raise the function's timeout."
    )
    f = apply_dialect(_finding("Set FunctionResponseTypes: [ReportBatchItemFailures] on the mapping."), q)
    assert f.fix == 'Set function_response_types = ["ReportBatchItemFailures"] on the mapping.'


def test_the_name_written_where_the_value_comes_from():
    loc = Location("terraform.tfvars", 2, 1, path="terraform.tfvars/orders_vt")
    q = Queue(
        id="aws_sqs_queue.q",
        location=Location("main.tf", 1, 1),
        source="terraform",
        locations={"visibility_timeout": loc},
    )
    f = apply_dialect(
        _finding("Set VisibilityTimeout to at least 6 x 30 s = 180 s (3 min).", location=loc), q
    )
    assert f.fix == "Set orders_vt = 180 (at least 6 x 30 s = 180 s (3 min))."
    default = Location("variables.tf", 9, 3, path="var.vt/default")
    q.locations["visibility_timeout"] = default
    f = apply_dialect(_finding("Set VisibilityTimeout to at least 180 s (3 min).", location=default), q)
    assert f.fix == "Set the default of var.vt to 180 (at least 180 s (3 min))."
    mod = Location("main.tf", 7, 3, path="module.jobs/visibility")
    c = Consumer("m", "lambda", locations={"batch_size": Location("main.tf", 9, 3, path="module.jobs/size")})
    q.locations["visibility_timeout"], q.consumers = mod, [c]
    assert apply_dialect(_finding("Set VisibilityTimeout to at least 60 s.", location=mod), q).fix.startswith(
        "Set visibility = 60"
    )
    f = apply_dialect(_finding("Lower BatchSize.", location=c.locations["batch_size"]), q)
    assert f.fix == "Lower size."


def test_other_sources_are_untouched():
    assert "terraform" in DIALECTS and not {"cloudformation", "sam", "cdk", "config", "inventory"} & set(
        DIALECTS
    )
    for source in ("cloudformation", "sam", "cdk", "config", "inventory"):
        q = Queue(id="Q", location=Location("t.yaml", 1, 1), source=source)
        f = _finding("Set VisibilityTimeout to at least 185 s.")
        assert apply_dialect(f, q) is f
