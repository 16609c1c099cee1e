"""Issue 36 (fact-drift row L4): an event source mapping's MetricsConfig read into ``Consumer.metrics`` from
CloudFormation and Terraform (aws_* and awscc_*); no lint rule judges it (the fleet audit uses the deployed
mapping's, tests/audit)."""

from __future__ import annotations

import textwrap

import pytest
from visguard.linter.api import lint_model
from visguard.linter.loaders import load_template, terraform


def template(metrics_config=None) -> dict:
    esm = {"EventSourceArn": {"Fn::GetAtt": ["Q", "Arn"]}, "FunctionName": {"Ref": "Fn"}}
    if metrics_config is not None:
        esm["MetricsConfig"] = metrics_config
    return {
        "Resources": {
            "Q": {"Type": "AWS::SQS::Queue", "Properties": {"VisibilityTimeout": 60}},
            "Fn": {"Type": "AWS::Lambda::Function", "Properties": {"Timeout": 5}},
            "Esm": {"Type": "AWS::Lambda::EventSourceMapping", "Properties": esm},
        }
    }


@pytest.mark.parametrize(
    ("cfg", "metrics"),
    [
        ({"Metrics": ["EventCount"]}, ["EventCount"]),
        ({"Metrics": []}, []),
        (None, None),
        ({"Metrics": {"Ref": "P"}}, None),
    ],
)
def test_cloudformation_metrics_config(cfg, metrics):
    t = template(cfg)
    if cfg and isinstance(cfg["Metrics"], dict):
        t["Parameters"] = {"P": {"Type": "CommaDelimitedList"}}  # no default: not known here
    m = load_template(t, file="t.yaml")
    (c,) = m.queues["Q"].consumers
    assert c.metrics == metrics
    if metrics is not None:
        assert c.locations["metrics"].path == "Resources/Esm/Properties/MetricsConfig/Metrics"
    assert lint_model(
        load_template(template(cfg if metrics is not None else None), file="t.yaml")
    ) == lint_model(load_template(template(), file="t.yaml"))  # lint: no rule reads it


@pytest.mark.parametrize(
    ("text", "metrics"),
    [
        ('metrics_config {\n    metrics = ["EventCount"]\n  }', ["EventCount"]),
        ("", None),
    ],
)
def test_terraform_metrics_config(tmp_path, text, metrics):
    (tmp_path / "main.tf").write_text(
        textwrap.dedent(
            """
            resource "aws_sqs_queue" "q" {
              name = "q"
            }
            resource "aws_lambda_function" "f" {
              function_name = "f"
              timeout       = 5
            }
            resource "aws_lambda_event_source_mapping" "m" {
              event_source_arn = aws_sqs_queue.q.arn
              function_name    = aws_lambda_function.f.arn
              %s
            }
            """
        )
        % text,
        encoding="utf-8",
    )
    (c,) = terraform.load(str(tmp_path)).queues["aws_sqs_queue.q"].consumers
    assert c.metrics == metrics


def test_awscc_metrics_config(tmp_path):
    (tmp_path / "main.tf").write_text(
        textwrap.dedent(
            """
            resource "awscc_sqs_queue" "q" {
              queue_name = "q"
            }
            resource "awscc_lambda_function" "f" {
              function_name = "f"
              timeout       = 5
            }
            resource "awscc_lambda_event_source_mapping" "m" {
              event_source_arn = awscc_sqs_queue.q.arn
              function_name    = awscc_lambda_function.f.arn
              metrics_config   = { metrics = ["EventCount"] }
            }
            """
        ),
        encoding="utf-8",
    )
    (c,) = terraform.load(str(tmp_path)).queues["awscc_sqs_queue.q"].consumers
    assert c.metrics == ["EventCount"]
