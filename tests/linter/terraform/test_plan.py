"""A `terraform show -json` plan (written from the AWS provider's schema): every value resolved by Terraform,
values known only after apply linked through the configuration's references."""

from __future__ import annotations

import json
import os

import pytest
from visguard.errors import VisguardError
from visguard.linter.api import lint_model
from visguard.linter.loaders import terraform

PLAN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "plan", "plan.json")


def test_plan_model():
    m = terraform.load(PLAN)
    assert sorted(m.queues) == [
        "aws_sqs_queue.orders",
        "aws_sqs_queue.orders_dlq",
        "module.jobs.aws_sqs_queue.dlq",
        "module.jobs.aws_sqs_queue.this",
    ]
    orders = m.queues["aws_sqs_queue.orders"]
    # redrive_policy and the mapping's ARNs are unknown until apply: linked through configuration.references
    assert orders.redrive.target == "aws_sqs_queue.orders_dlq"
    assert isinstance(orders.redrive.max_receive_count, str)  # known only after apply: not judged
    (c,) = orders.consumers
    assert (c.id, c.function_id, c.function_timeout) == (
        "aws_lambda_event_source_mapping.orders",
        "aws_lambda_function.worker",
        120,
    )
    jobs = m.queues["module.jobs.aws_sqs_queue.this"]
    assert jobs.redrive.target == "module.jobs.aws_sqs_queue.dlq" and jobs.redrive.max_receive_count == 2
    (j,) = jobs.consumers  # a literal ARN and a function name
    assert (j.batching_window, j.max_concurrency, j.report_batch_item_failures, j.reserved_concurrency) == (
        5,
        10,
        True,
        None,
    )
    assert m.notes == []  # the computed attributes nobody wrote (policy, tags_all) are not noted


def test_plan_findings():
    got = sorted((f.rule, f.queue, f.location.line) for f in lint_model(terraform.load(PLAN)))
    assert got == [
        ("VG010", "aws_sqs_queue.orders", 103),
        ("VG021", "module.jobs.aws_sqs_queue.this", 168),
        ("VG022", "aws_sqs_queue.orders", 120),
        ("VG031", "aws_sqs_queue.orders", 51),
    ]
    vg010 = next(f for f in lint_model(terraform.load(PLAN)) if f.rule == "VG010")
    assert vg010.location.file == PLAN and vg010.fix.startswith("Set visibility_timeout_seconds = 720")


def test_not_a_plan(tmp_path):
    p = tmp_path / "plan.json"
    p.write_text(json.dumps({"terraform_version": "1.9.8"}))
    with pytest.raises(VisguardError, match="not a Terraform plan: no format_version"):
        terraform.load(str(p))
    p.write_text('{"format_version": "2.0", "planned_values": {"root_module": {}}}')
    with pytest.raises(VisguardError, match="unsupported plan format_version '2.0'"):
        terraform.load(str(p))
    p.write_text('{"format_version": "1.2", "planned_values": {"root_module": {"resources": [{"type": 3}]}}}')
    with pytest.raises(VisguardError, match="needs an address and a type"):
        terraform.load(str(p))
    p.write_text('{"format_version": "1.2",\n "planned_values": ')
    with pytest.raises(VisguardError, match="malformed JSON"):
        terraform.load(str(p))
