"""linter/vocabulary.py, Terraform: a finding on a Terraform queue speaks HCL, naming the variable or module input
the value is written as; other inputs keep CloudFormation's words."""

from __future__ import annotations

from visguard.linter.model import Consumer, Finding, Location, Queue, Severity
from visguard.linter.rules import RULES
from visguard.linter.rules._base import raise_visibility
from visguard.linter.vocabulary import Text, word


def _finding(fix, message="m", location: Location | None = None, consumer=None) -> Finding:
    loc = location or Location("main.tf", 3, 3)
    return Finding("VG011", Severity.WARNING, message, "q", loc, fix=fix, consumer=consumer)


def test_terraform_names_and_snippets():
    q = Queue(id="aws_sqs_queue.q", location=Location("main.tf", 1, 1), source="terraform")
    f = word(_finding(raise_visibility("185 s (3 min)", 185)), q)
    assert f.fix == "Set visibility_timeout_seconds = 185 (at least 185 s (3 min))."
    f = word(_finding(RULES["VG020"].fix_text), q)
    assert f.fix.startswith(
        "Add redrive_policy = jsonencode({ deadLetterTargetArn = aws_sqs_queue.<name>_dlq.arn"
    )
    f = word(_finding(RULES["VG030"].fix_text), q)
    assert f.fix.startswith("Set maximum_batching_window_in_seconds >= 1 for batch_size > 10;")
    f = word(_finding(RULES["VG031"].fix_text), q)
    assert f.fix.startswith(
        'Set function_response_types = ["ReportBatchItemFailures"] on the event source mapping'
    )
    assert word(_finding(RULES["VG032"].fix_text), q).fix.startswith(
        "Set the function's timeout to at most 900 s"
    )
    assert word(_finding(RULES["VG003"].fix_text), q).fix.endswith("(fifo_queue = true for a FIFO source).")


def test_the_name_written_where_the_value_comes_from():
    loc = Location("terraform.tfvars", 2, 1, path="terraform.tfvars/orders_vt")
    q = Queue(
        id="aws_sqs_queue.q",
        location=Location("main.tf", 1, 1),
        source="terraform",
        locations={"visibility_timeout": loc},
    )
    f = word(_finding(raise_visibility("6 x 30 s = 180 s (3 min)", 180), location=loc), q)
    assert f.fix == "Set orders_vt = 180 (at least 6 x 30 s = 180 s (3 min))."
    default = Location("variables.tf", 9, 3, path="var.vt/default")
    q.locations["visibility_timeout"] = default
    f = word(_finding(raise_visibility("180 s (3 min)", 180), location=default), q)
    assert f.fix == "Set the default of var.vt to 180 (at least 180 s (3 min))."
    mod = Location("main.tf", 7, 3, path="module.jobs/visibility")
    c = Consumer("m", "lambda", locations={"batch_size": Location("main.tf", 9, 3, path="module.jobs/size")})
    q.locations["visibility_timeout"], q.consumers = mod, [c]
    assert word(_finding(raise_visibility("60 s", 60), location=mod), q).fix.startswith("Set visibility = 60")
    f = word(_finding(Text("Lower {batch_size}."), location=c.locations["batch_size"], consumer="m"), q)
    assert f.fix == "Lower size."


def test_other_sources_keep_cloudformation_words():
    for source in ("cloudformation", "sam", "config", "inventory"):
        q = Queue(id="Q", location=Location("t.yaml", 1, 1), source=source)
        f = word(_finding(raise_visibility("185 s", 185), message=Text("{batch_size} 11")), q)
        assert (f.message, f.fix) == ("BatchSize 11", "Set VisibilityTimeout to at least 185 s.")


def test_words_are_finished_once():
    q = Queue(id="aws_sqs_queue.q", location=Location("main.tf", 1, 1), source="terraform")
    f = word(_finding(raise_visibility("185 s", 185)), q)
    assert word(f, q) is f  # strings are words already: nothing re-words them
