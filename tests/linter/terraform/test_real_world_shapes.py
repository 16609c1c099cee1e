"""Shapes people write in public Terraform (see shapes/README.md), with the findings a reviewer would expect:
no more (no false positive), no fewer."""

from __future__ import annotations

import os

import pytest
from visguard.linter.api import lint_model
from visguard.linter.loaders import terraform

SHAPES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "shapes")


def _findings(name, opts, var_files=()):
    d = os.path.join(SHAPES, name)
    model = terraform.load(d, opts(var_files=[os.path.join(d, f) for f in var_files]))
    assert model.notes == []  # every value in these shapes is known from the files
    return [
        (f.rule, f.queue, f.consumer, os.path.relpath(f.location.file, d), f.location.line, f.fix)
        for f in lint_model(model)
    ]


def test_runner_queue_below_the_nested_module_function_timeout(opts):
    got = _findings("runner_nested_module", opts)
    assert got == [
        (
            "VG010",
            "aws_sqs_queue.queued_builds",
            "module.runners.aws_lambda_event_source_mapping.scale_up",
            "main.tf",
            15,  # the variable's default: where the 60 s comes from
            "Set the default of var.job_queue_visibility_timeout to 1800 (at least 6 x 300 s (5 min) = 1800 s (30 min)).",
        ),
        (
            "VG031",
            "aws_sqs_queue.queued_builds",
            "module.runners.aws_lambda_event_source_mapping.scale_up",
            os.path.join("modules", "runners", "main.tf"),
            30,
            'Set function_response_types = ["ReportBatchItemFailures"] on the event source mapping and return '
            "batchItemFailures from the handler.",
        ),
    ]


def test_fleet_driven_by_one_map_is_clean(opts):
    assert _findings("queue_fleet_for_each", opts) == []
    m = terraform.load(os.path.join(SHAPES, "queue_fleet_for_each"), opts())
    exports = m.queues['aws_sqs_queue.work["exports"]']
    assert exports.visibility_timeout == 5400 and exports.redrive.target == 'aws_sqs_queue.dlq["exports"]'
    (c,) = exports.consumers
    assert (c.function_id, c.function_timeout, c.batch_size, c.report_batch_item_failures) == (
        'aws_lambda_function.worker["exports"]',
        900,
        5,
        True,
    )


def test_legacy_interpolation_and_heredoc_policy(opts):
    got = [(r, q, c, line) for r, q, c, _, line, _ in _findings("legacy_interpolation", opts)]
    assert got == [
        ("VG022", "aws_sqs_queue.events[0]", None, 13),  # at the dead-letter queue: its retention to change
        ("VG010", "aws_sqs_queue.events[0]", "aws_lambda_event_source_mapping.processor[0]", 21),
    ]


@pytest.mark.parametrize(
    ("var_files", "file", "line", "fix"),
    [
        ((), "main.tf", 7, "Set the default of var.payments_visibility to 180 (at least 180 s (3 min))."),
        (("prod.tfvars",), "prod.tfvars", 3, "Set payments_visibility = 720 (at least 720 s (12 min))."),
    ],
    ids=["defaults", "prod-var-file"],
)
def test_registry_modules_with_tfvars(opts, var_files, file, line, fix):
    (f,) = _findings("registry_modules_tfvars", opts, var_files)
    assert f == (
        "VG011",
        "module.payments_queue.aws_sqs_queue.this[0]",
        'module.payments_fn.aws_lambda_event_source_mapping.this["sqs"]',
        file,
        line,
        fix,
    )
