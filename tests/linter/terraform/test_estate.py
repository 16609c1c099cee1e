"""Issue 26 §2-§6, §8: Terraform as real estates write it (functions and queues from elsewhere, data sources,
module outputs fed back into the same call, registry module versions, OpenTofu, Terragrunt)."""

from __future__ import annotations

from visguard.linter.api import lint_model
from visguard.linter.loaders import terraform


def _rules(model):
    return sorted((f.rule, f.queue, f.consumer) for f in lint_model(model))


# ---------------------------------------------------------------------------------------------- §5
def test_mapping_rules_run_when_the_function_is_not_known_here(module, opts):
    d = module(
        {
            "main.tf": """
            variable "fn" {}
            resource "aws_sqs_queue" "dlq" {
              message_retention_seconds = 1209600
            }
            resource "aws_sqs_queue" "q" {
              visibility_timeout_seconds = 10
              redrive_policy = jsonencode({deadLetterTargetArn = aws_sqs_queue.dlq.arn, maxReceiveCount = 2})
            }
            resource "aws_lambda_event_source_mapping" "m" {
              event_source_arn = aws_sqs_queue.q.arn
              function_name    = var.fn
              batch_size       = 50
            }
            """
        }
    )
    m = terraform.load(d, opts())
    (c,) = m.queues["aws_sqs_queue.q"].consumers
    assert (c.kind, c.function_id) == ("lambda", None)
    mapping = "aws_lambda_event_source_mapping.m"
    # VG021 (maxReceiveCount 2), VG030 (batch 50 without a window), VG031 (no partial batch responses) need only
    # the mapping and the queue; VG010/VG011 need the function's timeout: skipped, and VG050 says so
    assert _rules(m) == [
        ("VG021", "aws_sqs_queue.q", mapping),
        ("VG030", "aws_sqs_queue.q", mapping),
        ("VG031", "aws_sqs_queue.q", mapping),
        ("VG050", "aws_sqs_queue.q", mapping),
    ]
    vg031 = next(f for f in lint_model(m) if f.rule == "VG031")
    assert "mapping aws_lambda_event_source_mapping.m (its function is not known here)" in vg031.message


# ---------------------------------------------------------------------------------------------- §6
def test_a_function_name_holding_a_data_source_still_names_the_function(module, opts):
    d = module(
        {
            "main.tf": """
            data "aws_caller_identity" "current" {}
            locals {
              fn = "worker-${data.aws_caller_identity.current.account_id}"
            }
            resource "aws_sqs_queue" "q" {
              visibility_timeout_seconds = 30
            }
            resource "aws_lambda_function" "f" {
              function_name = "worker-${data.aws_caller_identity.current.account_id}"
              timeout       = 60
            }
            resource "aws_lambda_event_source_mapping" "by_reference" {
              event_source_arn = aws_sqs_queue.q.arn
              function_name    = aws_lambda_function.f.function_name
            }
            resource "aws_lambda_event_source_mapping" "by_same_template" {
              event_source_arn = aws_sqs_queue.q.arn
              function_name    = local.fn
            }
            """
        }
    )
    m = terraform.load(d, opts())
    got = {c.id: (c.kind, c.function_id, c.function_timeout) for c in m.queues["aws_sqs_queue.q"].consumers}
    assert set(got.values()) == {("lambda", "aws_lambda_function.f", 60)} and len(got) == 2
    assert {f.rule for f in lint_model(m)} == {"VG010", "VG020", "VG031"}
