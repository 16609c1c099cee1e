"""The Cloud Control provider (issue 35 §3): ``awscc_sqs_queue``, ``awscc_lambda_event_source_mapping``,
``awscc_lambda_function``, ``awscc_pipes_pipe``, ``awscc_ecs_task_definition``, ``awscc_ecs_service`` are read
into the same model as their ``aws_*`` twins, get the same findings, and ``--fix`` writes awscc's own argument
names (loaders/terraform/awscc.py, fixes/hcl.py)."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest
from visguard.cli import main
from visguard.linter.api import lint_paths
from visguard.linter.loaders import terraform

FIXTURES = Path(__file__).parent / "fixtures" / "terraform" / "awscc"

# the aws_* twin of each fixture: the same settings in the AWS provider's words
TWINS = {
    "lambda": """
        resource "aws_sqs_queue" "jobs" {
          name                       = "jobs"
          visibility_timeout_seconds = 60
          redrive_policy = jsonencode({
            deadLetterTargetArn = aws_sqs_queue.jobs_dlq.arn
            maxReceiveCount     = 5
          })
        }
        resource "aws_sqs_queue" "jobs_dlq" {
          name                      = "jobs-dlq"
          message_retention_seconds = 1209600
        }
        resource "aws_lambda_function" "worker" {
          function_name = "jobs-worker"
          role          = "arn:aws:iam::123456789012:role/worker"
          timeout       = 120
        }
        resource "aws_lambda_event_source_mapping" "jobs" {
          event_source_arn = aws_sqs_queue.jobs.arn
          function_name    = aws_lambda_function.worker.arn
          batch_size       = 10
          scaling_config {
            maximum_concurrency = 4
          }
        }
    """,
    "ecs": """
        resource "aws_sqs_queue" "work" {
          name                       = "work"
          visibility_timeout_seconds = 3600
          redrive_policy = jsonencode({
            deadLetterTargetArn = aws_sqs_queue.dlq.arn
            maxReceiveCount     = 5
          })
        }
        resource "aws_sqs_queue" "dlq" {
          name                      = "work-dlq"
          message_retention_seconds = 1209600
        }
        resource "aws_ecs_task_definition" "worker" {
          family = "work-worker"
          container_definitions = jsonencode([{
            name        = "worker"
            image       = "work-worker:1"
            essential   = true
            stopTimeout = 30
            environment = [{ name = "WORK_QUEUE_URL", value = aws_sqs_queue.work.url }]
          }])
          tags = { "visguard.io/processing-p99" = "10m" }
        }
        resource "aws_ecs_service" "worker" {
          name            = "work-worker"
          task_definition = aws_ecs_task_definition.worker.arn
          desired_count   = 2
        }
    """,
    "pipes": """
        resource "aws_sqs_queue" "orders" {
          name                       = "orders"
          visibility_timeout_seconds = 60
          redrive_policy = jsonencode({
            deadLetterTargetArn = aws_sqs_queue.orders_dlq.arn
            maxReceiveCount     = 5
          })
        }
        resource "aws_sqs_queue" "orders_dlq" {
          name                      = "orders-dlq"
          message_retention_seconds = 1209600
        }
        resource "aws_lambda_function" "enrich" {
          function_name = "orders-enrich"
          role          = "arn:aws:iam::123456789012:role/enrich"
          timeout       = 90
        }
        resource "aws_pipes_pipe" "orders" {
          name     = "orders"
          role_arn = "arn:aws:iam::123456789012:role/pipe"
          source   = aws_sqs_queue.orders.arn
          target   = aws_lambda_function.enrich.arn
          source_parameters {
            sqs_queue_parameters {
              batch_size                         = 5
              maximum_batching_window_in_seconds = 10
            }
          }
        }
    """,
}


def _aws(address: str) -> str:
    return address.replace("awscc_", "aws_")


def _twin(tmp_path, name: str) -> str:
    d = tmp_path / f"{name}-aws"
    d.mkdir(parents=True)
    (d / "main.tf").write_text(textwrap.dedent(TWINS[name]))
    return str(d)


def _consumers(model) -> dict:
    return {(_aws(q.id), _aws(c.id)): c for q in model.queues.values() for c in q.consumers}


@pytest.mark.parametrize("name", sorted(TWINS))
def test_an_awscc_root_is_read_as_its_aws_twin(tmp_path, name):
    cc = terraform.load(str(FIXTURES / name))
    aws = terraform.load(_twin(tmp_path, name))
    assert sorted(map(_aws, cc.queues)) == sorted(aws.queues)
    for qid, q in cc.queues.items():
        twin = aws.queues[_aws(qid)]
        for field in ("name", "visibility_timeout", "message_retention", "fifo", "tags"):
            assert getattr(q, field) == getattr(twin, field), (qid, field)
        if twin.redrive is not None:
            assert q.redrive.max_receive_count == twin.redrive.max_receive_count
            assert _aws(q.redrive.target) == twin.redrive.target
    ccc, awc = _consumers(cc), _consumers(aws)
    assert ccc.keys() == awc.keys() and ccc
    fields = (
        "kind",
        "platform",
        "batch_size",
        "batching_window",
        "max_concurrency",
        "function_timeout",
        "stop_timeout",
        "processing_p99",
        "work_timeout",
        "link",
    )
    for key, c in ccc.items():
        for field in fields:
            assert getattr(c, field) == getattr(awc[key], field), (key, field)
    # the same findings, on the same queues and consumers
    got = {
        (f.rule, _aws(f.queue), _aws(f.consumer or "")) for f in lint_paths([str(FIXTURES / name)]).findings
    }
    want = {(f.rule, f.queue, f.consumer or "") for f in lint_paths([_twin(tmp_path / "x", name)]).findings}
    assert got == want and got


@pytest.mark.parametrize("name", sorted(TWINS))
def test_awscc_findings_point_at_awscc_arguments(name):
    aws_only = {"visibility_timeout_seconds", "message_retention_seconds", "name", "stopTimeout"}
    for f in lint_paths([str(FIXTURES / name)]).findings:
        owner, _, arg = (f.location.path or "").partition("/")
        assert owner.startswith("awscc_"), f.location
        assert arg.split(".")[-1] not in aws_only, f.location


@pytest.mark.parametrize(
    "policy",
    [
        "jsonencode({ deadLetterTargetArn = awscc_sqs_queue.dlq.arn, maxReceiveCount = 3 })",
        "{ deadLetterTargetArn = awscc_sqs_queue.dlq.arn, maxReceiveCount = 3 }",
        '"{\\"deadLetterTargetArn\\": \\"${awscc_sqs_queue.dlq.arn}\\", \\"maxReceiveCount\\": 3}"',
    ],
    ids=["jsonencode", "object", "json-string"],
)
def test_a_redrive_policy_as_an_object_or_a_json_string(tmp_path, policy):
    (tmp_path / "main.tf").write_text(
        f'resource "awscc_sqs_queue" "q" {{\n  queue_name = "q"\n  redrive_policy = {policy}\n}}\n'
        'resource "awscc_sqs_queue" "dlq" {\n  queue_name = "q-dlq"\n  fifo_queue = false\n}\n'
    )
    q = terraform.load(str(tmp_path)).queues["awscc_sqs_queue.q"]
    assert q.redrive.target == "awscc_sqs_queue.dlq" and q.redrive.max_receive_count == 3
    assert q.locations["redrive.max_receive_count"].line == 3


def test_a_queue_is_named_by_its_queue_url_and_id(tmp_path):
    (tmp_path / "main.tf").write_text(
        textwrap.dedent(
            """\
            resource "awscc_sqs_queue" "q" { queue_name = "q" }
            resource "awscc_ecs_task_definition" "a" {
              family                = "a"
              container_definitions = [{ name = "a", image = "a", environment = [{ name = "Q", value = awscc_sqs_queue.q.queue_url }] }]
            }
            resource "awscc_ecs_task_definition" "b" {
              family                = "b"
              container_definitions = [{ name = "b", image = "b", environment = [{ name = "Q", value = awscc_sqs_queue.q.id }] }]
            }
            """
        )
    )
    q = terraform.load(str(tmp_path)).queues["awscc_sqs_queue.q"]
    assert sorted(c.id for c in q.consumers) == ["awscc_ecs_task_definition.a", "awscc_ecs_task_definition.b"]


# ---------------------------------------------------------------------------------------------- --fix
def _fix(capsys, folder) -> int:
    code = main(["lint", "--no-config", str(folder), "--fix"])
    capsys.readouterr()
    return code


def test_fix_writes_a_dead_letter_queue_and_visibility_in_awscc_names(tmp_path, capsys):
    root = tmp_path / "infra"
    shutil.copytree(FIXTURES / "queue-fixable", root)
    _fix(capsys, root)
    text = (root / "main.tf").read_text()
    assert "  visibility_timeout = 120\n" in text
    assert 'resource "awscc_sqs_queue" "events_dlq" {' in text
    assert '  queue_name               = "events-dlq"\n' in text
    assert "  message_retention_period = 1209600\n" in text
    assert "deadLetterTargetArn = awscc_sqs_queue.events_dlq.arn" in text
    assert "aws_sqs_queue" not in text.replace("awscc_sqs_queue", "")
    rules = {f.rule for f in lint_paths([str(root)]).findings}
    assert not rules & {"VG020", "VG011"}, rules


def test_fix_adds_mapping_arguments_to_an_awscc_mapping(tmp_path, capsys):
    root = tmp_path / "infra"
    shutil.copytree(FIXTURES / "lambda", root)
    _fix(capsys, root)
    text = (root / "main.tf").read_text()
    assert '  function_response_types = ["ReportBatchItemFailures"]\n}' in text
    assert "  visibility_timeout = 720\n" in text
    assert not {f.rule for f in lint_paths([str(root)]).findings} & {"VG010", "VG031"}


def test_fix_adds_stop_timeout_to_an_awscc_container(tmp_path, capsys):
    root = tmp_path / "infra"
    shutil.copytree(FIXTURES / "ecs", root)
    main_tf = root / "main.tf"
    text = (
        main_tf.read_text().replace("      stop_timeout = 30\n", "").replace('value = "10m"', 'value = "90s"')
    )
    main_tf.write_text(text)
    before = {f.rule for f in lint_paths([str(root)]).findings}
    assert "VG062" in before
    _fix(capsys, root)
    after = main_tf.read_text()
    assert "stop_timeout = " in after and "stopTimeout" not in after
    assert "VG062" not in {f.rule for f in lint_paths([str(root)]).findings}


def test_an_awscc_queue_in_a_plan(tmp_path):
    import json

    plan = {
        "format_version": "1.2",
        "terraform_version": "1.9.0",
        "planned_values": {
            "root_module": {
                "resources": [
                    {
                        "address": "awscc_sqs_queue.q",
                        "mode": "managed",
                        "type": "awscc_sqs_queue",
                        "name": "q",
                        "values": {
                            "queue_name": "q",
                            "visibility_timeout": 45,
                            "tags": [{"key": "team", "value": "a"}],
                        },
                    }
                ]
            }
        },
    }
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    q = terraform.load(str(tmp_path / "plan.json")).queues["awscc_sqs_queue.q"]
    assert (q.name, q.visibility_timeout, q.tags) == ("q", 45, {"team": "a"})


def test_the_words_of_a_finding_are_awscc_s_own(tmp_path):
    """The message and fix name the awscc argument and resource type that --fix writes, not the aws_* twin's."""
    (tmp_path / "main.tf").write_text(
        'resource "awscc_sqs_queue" "jobs" {\n  queue_name = "jobs"\n}\n'
        'resource "awscc_lambda_function" "worker" {\n  function_name = "worker"\n  timeout = 60\n}\n'
        'resource "awscc_lambda_event_source_mapping" "m" {\n  event_source_arn = awscc_sqs_queue.jobs.arn\n'
        "  function_name = awscc_lambda_function.worker.function_name\n  batch_size = 1\n}\n"
    )
    result = lint_paths([str(tmp_path)])
    fixes = {f.rule: f.fix for f in result.findings}
    assert fixes["VG010"].startswith("Set visibility_timeout = 360")
    assert "awscc_sqs_queue.<name>_dlq.arn" in fixes["VG020"]
    assert not any("visibility_timeout_seconds" in (f.fix or "") + f.message for f in result.findings)
