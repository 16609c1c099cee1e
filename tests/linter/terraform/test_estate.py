"""Issue 26 §2-§6, §8: Terraform as real estates write it (functions and queues from elsewhere, data sources,
module outputs fed back into the same call, registry module versions, OpenTofu, Terragrunt)."""

from __future__ import annotations

import os

import pytest
from visguard.errors import VisguardError
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


# ---------------------------------------------------------------------------------------------- §3
WORKER = {
    "worker/main.tf": """
    variable "queue_arn" {}
    variable "role_name" {}
    resource "aws_lambda_function" "this" {
      function_name = "worker"
      timeout       = 60
    }
    resource "aws_lambda_event_source_mapping" "m" {
      event_source_arn = var.queue_arn
      function_name    = aws_lambda_function.this.arn
      batch_size       = var.role_name == "" ? 1 : 10
    }
    output "function_name" {
      value = aws_lambda_function.this.function_name
    }
    output "role" {
      value = var.role_name
    }
    """,
}
CALL = """
resource "aws_sqs_queue" "q" {
  visibility_timeout_seconds = 30
}
module "worker" {
  source    = "./worker"
  queue_arn = aws_sqs_queue.q.arn
  role_name = %s
}
"""


def test_a_module_input_may_read_another_output_of_the_same_call(module, opts):
    m = terraform.load(module({**WORKER, "main.tf": CALL % '"${module.worker.function_name}-role"'}), opts())
    assert m.notes == []
    (c,) = m.queues["aws_sqs_queue.q"].consumers  # read once, not once per reference
    assert (c.function_id, c.function_timeout, c.batch_size) == (
        "module.worker.aws_lambda_function.this",
        60,
        10,
    )
    assert {f.rule for f in lint_model(m)} == {"VG010", "VG020", "VG031"}


def test_a_real_cycle_through_a_module_call_is_still_a_cycle(module, opts):
    d = module({**WORKER, "main.tf": CALL % "module.worker.role"})
    m = terraform.load(d, opts())  # the queue is read; the mapping caught in the cycle is not
    (note,) = m.notes
    assert note.address == "module.worker.aws_lambda_event_source_mapping.m"
    assert "role_name: the expression depends on itself (a cycle)" in note.message
    d = module({**WORKER, "main.tf": CALL.replace("aws_sqs_queue", "aws_sns_topic") % "module.worker.role"})
    with pytest.raises(VisguardError, match="depends on itself"):  # nothing else to read: the one error
        terraform.load(d, opts())


def test_a_registry_module_argument_reading_its_own_output_is_not_a_cycle(module, opts):
    d = module(
        {
            "main.tf": """
            module "jobs" {
              source                     = "terraform-aws-modules/sqs/aws"
              name                       = "jobs"
              visibility_timeout_seconds = 30
              create_dlq                 = true
              tags                       = { arn = module.jobs.queue_arn }
            }
            """
        }
    )
    m = terraform.load(d, opts())
    assert set(m.queues) == {"module.jobs.aws_sqs_queue.this[0]", "module.jobs.aws_sqs_queue.dlq[0]"}


# ---------------------------------------------------------------------------------------------- §4
DATA = """
variable "env" {
  default = "prod"
}
resource "aws_sqs_queue" "jobs" {
  name                       = "jobs-${var.env}"
  visibility_timeout_seconds = 30
  redrive_policy = jsonencode({deadLetterTargetArn = data.aws_sqs_queue.shared_dlq.arn, maxReceiveCount = 5})
}
data "aws_sqs_queue" "jobs" {
  name = "jobs-${var.env}"
}
data "aws_sqs_queue" "shared_dlq" {
  name = "shared-dlq"
}
data "aws_sqs_queue" "other" {
  name = "other-team-queue"
}
resource "aws_lambda_function" "w" {
  function_name = "w"
  timeout       = 60
}
data "aws_lambda_function" "w" {
  function_name = "w"
}
resource "aws_lambda_event_source_mapping" "m" {
  event_source_arn = data.aws_sqs_queue.jobs.arn
  function_name    = data.aws_lambda_function.w.arn
}
resource "aws_lambda_event_source_mapping" "other" {
  event_source_arn = data.aws_sqs_queue.other.arn
  function_name    = aws_lambda_function.w.arn
}
resource "aws_lambda_event_source_mapping" "legacy" {
  event_source_arn = "arn:aws:sqs:eu-west-1:123456789012:legacy"
  function_name    = aws_lambda_function.w.arn
}
resource "aws_lambda_event_source_mapping" "stream" {
  event_source_arn = "arn:aws:kinesis:eu-west-1:123456789012:stream/x"
  function_name    = aws_lambda_function.w.arn
}
"""


def test_data_sources_resolve_by_name_and_an_undeclared_queue_is_noted(module, opts):
    m = terraform.load(module({"main.tf": DATA}), opts())
    (c,) = m.queues["aws_sqs_queue.jobs"].consumers
    assert (c.id, c.function_id, c.function_timeout) == (
        "aws_lambda_event_source_mapping.m",
        "aws_lambda_function.w",
        60,
    )
    # the shared DLQ is not declared here: not known, never "not an SQS queue ARN" (VG004)
    assert {f.rule for f in lint_model(m)} == {"VG010", "VG031"}
    notes = {n.address: (n.location.line, n.message) for n in m.notes}
    assert set(notes) == {"aws_lambda_event_source_mapping.other", "aws_lambda_event_source_mapping.legacy"}
    line, said = notes["aws_lambda_event_source_mapping.other"]
    assert line == 31 and "consumes queue 'other-team-queue' (through data.aws_sqs_queue.other)" in said
    assert (
        "consumes queue 'legacy' (by ARN), which is not declared in these files"
        in notes["aws_lambda_event_source_mapping.legacy"][1]
    )


def test_a_root_that_only_consumes_queues_from_elsewhere_is_not_a_clean_run(module, opts):
    d = module(
        {
            "main.tf": """
            data "aws_sqs_queue" "in" {
              name = "orders"
            }
            resource "aws_lambda_event_source_mapping" "m" {
              event_source_arn = data.aws_sqs_queue.in.arn
              function_name    = "worker"
            }
            """
        }
    )
    m = terraform.load(d, opts())
    assert m.queues == {} and [n.address for n in m.notes] == ["aws_lambda_event_source_mapping.m"]


# ---------------------------------------------------------------------------------------------- §2
V3 = """
module "dlq" {
  source  = "terraform-aws-modules/sqs/aws"
  version = "%(sqs)s"
  name    = "jobs-dlq"
}
module "jobs" {
  source                     = "terraform-aws-modules/sqs/aws"
  version                    = "%(sqs)s"
  name                       = "jobs"
  visibility_timeout_seconds = 30
  redrive_policy = jsonencode({
    deadLetterTargetArn = module.dlq.%(arn)s
    maxReceiveCount     = 3
  })
}
module "worker" {
  source         = "terraform-aws-modules/lambda/aws"
  version        = "%(lambda)s"
  function_name  = "worker"
  timeout        = 20
  lambda_at_edge = true
  event_source_mapping = {
    sqs = {
      event_source_arn        = module.jobs.%(arn)s
      function_response_types = ["ReportBatchItemFailures"]
      scaling_config          = { maximum_concurrency = 2 }
    }
  }
}
"""


def test_sqs_3x_and_lambda_2x_are_read_by_their_version(module, opts):
    m = terraform.load(
        module({"main.tf": V3 % {"sqs": "~> 3.0", "lambda": "~> 2.0", "arn": "sqs_queue_arn"}}), opts()
    )
    assert m.notes == []
    q = m.queues["module.jobs.aws_sqs_queue.this[0]"]
    assert (q.name, q.redrive.target, q.redrive.max_receive_count) == (
        "jobs",
        "module.dlq.aws_sqs_queue.this[0]",
        3,
    )
    (c,) = q.consumers
    # lambda 2.36 (newest 2.x): at-edge timeout capped at 30, partial batch responses passed, no scaling_config
    assert (c.function_timeout, c.report_batch_item_failures, c.max_concurrency) == (20, True, None)
    assert {f.rule for f in lint_model(m)} == {"VG011", "VG021", "VG022"}


def test_older_releases_inside_a_major(module, opts):
    files = {"main.tf": V3 % {"sqs": "2.1.0", "lambda": "2.20.0", "arn": "this_sqs_queue_arn"}}
    (c,) = terraform.load(module(files), opts()).queues["module.jobs.aws_sqs_queue.this[0]"].consumers
    assert (c.function_timeout, c.report_batch_item_failures) == (
        5,
        False,
    )  # capped at 5 before 2.26; no types


def test_sqs_5x_outputs_with_the_3x_names_are_an_error_not_a_guess(module, opts):
    files = {"main.tf": V3 % {"sqs": "~> 5.0", "lambda": "~> 8.0", "arn": "sqs_queue_arn"}}
    m = terraform.load(module(files), opts())  # the DLQ is read; the call naming a 3.x output is not
    assert list(m.queues) == ["module.dlq.aws_sqs_queue.this[0]"]
    assert [n.address for n in m.notes] == ["module.jobs"] and "has no output 'sqs_queue_arn'" in m.notes[
        0
    ].message
    m = terraform.load(
        module({"main.tf": V3 % {"sqs": "~> 5.0", "lambda": "~> 8.0", "arn": "queue_arn"}}), opts()
    )
    (c,) = m.queues["module.jobs.aws_sqs_queue.this[0]"].consumers
    assert c.max_concurrency == 2


def test_an_unmodelled_version_is_a_note_naming_the_module(module, opts):
    files = {"main.tf": V3 % {"sqs": "~> 1.0", "lambda": "~> 9.0", "arn": "sqs_queue_arn"}}
    d = module({**files, "q.tf": 'resource "aws_sqs_queue" "own" {}\n'})
    m = terraform.load(d, opts())
    assert list(m.queues) == ["aws_sqs_queue.own"]
    said = {n.address: n.message for n in m.notes}
    assert set(said) == {"module.dlq", "module.jobs", "module.worker"}
    assert (
        "version '~> 1.0' of terraform-aws-modules/sqs/aws is not modelled by visguard (it models 2.x-5.x)"
        in said["module.jobs"]
    )
    assert "version '~> 9.0' of terraform-aws-modules/lambda/aws" in said["module.worker"]


# ---------------------------------------------------------------------------------------------- §8
def test_opentofu_files_are_read_and_a_tofu_file_takes_the_place_of_its_tf(module, opts):
    d = module(
        {
            "queues.tf": 'resource "aws_sqs_queue" "q" {\n  delay_seconds = 999\n}\n',  # ignored: queues.tofu
            "queues.tofu": 'resource "aws_sqs_queue" "q" {\n  delay_seconds = 5\n}\n',
            "more.tofu.json": '{"resource": {"aws_sqs_queue": {"j": {"delay_seconds": 901}}}}',
        }
    )
    assert terraform.claim_dir(d)
    m = terraform.load(d, opts())
    assert (m.queues["aws_sqs_queue.q"].delay, m.queues["aws_sqs_queue.j"].delay) == (5, 901)
    assert sorted(os.path.basename(f) for f in m.files) == ["more.tofu.json", "queues.tofu"]


WORKER_MODULE = """
variable "name" {}
variable "visibility_timeout" {
  default = 30
}
variable "timeout" {
  default = 10
}
resource "aws_sqs_queue" "dlq" {
  name                      = "${var.name}-dlq"
  message_retention_seconds = 1209600
}
resource "aws_sqs_queue" "this" {
  name                       = var.name
  visibility_timeout_seconds = var.visibility_timeout
  redrive_policy = jsonencode({ deadLetterTargetArn = aws_sqs_queue.dlq.arn, maxReceiveCount = 5 })
}
resource "aws_lambda_function" "this" {
  function_name = var.name
  timeout       = var.timeout
}
resource "aws_lambda_event_source_mapping" "this" {
  event_source_arn        = aws_sqs_queue.this.arn
  function_name           = aws_lambda_function.this.arn
  function_response_types = ["ReportBatchItemFailures"]
}
"""


def test_terragrunt_lints_its_local_module_with_its_inputs(module, opts):
    d = module(
        {
            "modules/worker/main.tf": WORKER_MODULE,
            "live/prod/worker/terragrunt.hcl": """
            locals {
              env = "prod"
            }
            terraform {
              source = "../../../modules//worker"
            }
            inputs = {
              name               = "orders-${local.env}"
              timeout            = 120
              visibility_timeout = 300
              region             = get_env("AWS_REGION", "eu-west-1")
            }
            """,
            "live/prod/remote/terragrunt.hcl": """
            terraform {
              source = "tfr:///terraform-aws-modules/sqs/aws?version=4.0.0"
            }
            """,
            "live/prod/shared/terragrunt.hcl": """
            include "root" {
              path = find_in_parent_folders()
            }
            terraform {
              source = "../../../modules/worker"
            }
            inputs = {
              name = dependency.naming.outputs.name
            }
            """,
        }
    )
    live = os.path.join(d, "live", "prod")
    m = terraform.load(os.path.join(live, "worker"), opts())
    assert m.notes == [] and m.queues["aws_sqs_queue.this"].name == "orders-prod"
    (f,) = lint_model(m)  # 300 s < 6 x 120 s, pointed at the input that sets it
    assert (f.rule, os.path.basename(f.location.file), f.location.line) == ("VG011", "terragrunt.hcl", 11)
    assert f.fix == "Set visibility_timeout = 720 (at least 720 s (12 min))."
    m = terraform.load(os.path.join(live, "remote", "terragrunt.hcl"), opts())
    assert m.queues == {} and "is a remote module: not read" in m.notes[0].message
    # an included configuration may set any variable: no default is taken, nothing is guessed
    m = terraform.load(os.path.join(live, "shared"), opts())
    assert m.queues["aws_sqs_queue.this"].visibility_timeout == "${var.visibility_timeout}"
    assert [f.rule for f in lint_model(m)] == ["VG050"]  # the timeout too is not known here
    assert {n.address for n in m.notes} >= {"aws_sqs_queue.this"}


def test_a_data_source_looking_up_a_queues_own_name_is_that_queue(module, opts):
    """A reusable module passes its queue's name to a child module, which looks the queue up by it (``data
    "aws_sqs_queue" { name = var.queue_name }``). The name is not known here (``var.name`` defaults to null:
    Terraform reads an argument set to null as one not set, and the provider generates the name), yet the data
    source is that queue: the ECS task that receives from its URL is its consumer, and the queue without a
    redrive policy is VG020."""
    d = module(
        {
            "main.tf": """
            variable "name" {
              type    = string
              default = null
            }
            resource "aws_sqs_queue" "jobs" {
              name = var.name
            }
            module "worker" {
              source     = "./modules/worker"
              queue_name = aws_sqs_queue.jobs.name
            }
            """,
            "modules/worker/main.tf": """
            variable "queue_name" {
              type = string
            }
            data "aws_sqs_queue" "this" {
              name = var.queue_name
            }
            resource "aws_ecs_task_definition" "worker" {
              family = "worker"
              container_definitions = jsonencode([{
                name        = "worker"
                image       = "worker:1"
                environment = [{ name = "QUEUE_URL", value = data.aws_sqs_queue.this.url }]
              }])
            }
            """,
        }
    )
    m = terraform.load(d, opts())
    (c,) = m.queues["aws_sqs_queue.jobs"].consumers
    assert c.id == "module.worker.aws_ecs_task_definition.worker"
    assert "VG020" in {f.rule for f in lint_model(m)}
    assert not [n for n in m.notes if "not declared" in n.message]
