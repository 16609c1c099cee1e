"""Variables, tfvars, --var/--var-file, locals, references, count/for_each, templates, functions and modules
are evaluated as Terraform would; what cannot be known here stays unknown and is noted, never guessed."""

from __future__ import annotations

import os

import pytest
from visguard.errors import VisguardError
from visguard.linter.api import lint_model
from visguard.linter.loaders import terraform

PAIR = """
variable "vt" {
  type    = number
  default = 60
}
resource "aws_sqs_queue" "orders" {
  name                       = "orders-${terraform.workspace}"
  visibility_timeout_seconds = var.vt
}
resource "aws_lambda_function" "fn" {
  function_name = "orders-fn"
  timeout       = 30
}
resource "aws_lambda_event_source_mapping" "m" {
  event_source_arn = aws_sqs_queue.orders.arn
  function_name    = aws_lambda_function.fn.function_name
}
"""


def test_variable_default_tfvars_auto_tfvars_var_file_and_var(module, tmp_path, opts):
    d = module({"main.tf": PAIR})
    q = lambda o=None: terraform.load(d, o or opts()).queues["aws_sqs_queue.orders"]  # noqa: E731
    assert q().visibility_timeout == 60 and q().name == "orders-default"
    (tmp_path / "terraform.tfvars").write_text("vt = 90\n")
    assert q().visibility_timeout == 90
    assert q().location_of("visibility_timeout").file.endswith("terraform.tfvars")
    (tmp_path / "b.auto.tfvars").write_text("vt = 120\n")
    assert q().visibility_timeout == 120  # *.auto.tfvars after terraform.tfvars
    extra = tmp_path / "prod.tfvars"
    extra.write_text('vt = "150"\n')
    assert q(opts(var_files=[str(extra)])).visibility_timeout == 150  # type = number converts "150"
    assert q(opts({"vt": "240"}, [str(extra)])).visibility_timeout == 240  # --var last


def test_findings_name_addresses_and_point_at_the_value(module, tmp_path, opts):
    d = module({"main.tf": PAIR})
    (tmp_path / "terraform.tfvars").write_text("# prod\nvt = 20\n")
    findings = lint_model(terraform.load(d, opts()))
    vg010 = next(f for f in findings if f.rule == "VG010")
    assert vg010.queue == "aws_sqs_queue.orders" and vg010.consumer == "aws_lambda_event_source_mapping.m"
    assert vg010.location.file.endswith("terraform.tfvars") and vg010.location.line == 2
    assert vg010.fix.startswith("Set vt = 180 ")
    assert terraform.load(d, opts()).queues["aws_sqs_queue.orders"].source == "terraform"


def test_locals_functions_and_templates(module, opts):
    d = module(
        {
            "main.tf": """
        locals {
          base     = { timeout = 45, window = 5 }
          settings = merge(local.base, { retries = 4 })
          vt       = max(local.settings.timeout * 6 + local.settings.window, tonumber("30"))
          name     = lower(format("%s-%s", "Jobs", "EU"))
        }
        resource "aws_sqs_queue" "dlq" { name = "${local.name}-dlq" }
        resource "aws_sqs_queue" "jobs" {
          name                       = local.name
          visibility_timeout_seconds = local.vt
          message_retention_seconds  = coalesce(null, "", 86400)
          redrive_policy = jsonencode({
            deadLetterTargetArn = aws_sqs_queue.dlq.arn
            maxReceiveCount     = lookup(local.settings, "retries", 5)
          })
        }
        """
        }
    )
    m = terraform.load(d, opts())
    q = m.queues["aws_sqs_queue.jobs"]
    assert (q.name, q.visibility_timeout, q.message_retention) == ("jobs-eu", 275, 86400)
    assert q.redrive.target == "aws_sqs_queue.dlq" and q.redrive.max_receive_count == 4
    assert m.queues["aws_sqs_queue.dlq"].name == "jobs-eu-dlq"
    assert q.location_of("redrive.max_receive_count").line == 15


def test_redrive_policy_as_json_string_heredoc_and_separate_resource(module, opts):
    d = module(
        {
            "main.tf": """
        resource "aws_sqs_queue" "dlq" { name = "a-dlq" }
        resource "aws_sqs_queue" "a" {
          redrive_policy = "{\\"deadLetterTargetArn\\":\\"${aws_sqs_queue.dlq.arn}\\",\\"maxReceiveCount\\":7}"
        }
        resource "aws_sqs_queue" "b" {
          redrive_policy = <<EOF
        {"deadLetterTargetArn": "${aws_sqs_queue.dlq.arn}", "maxReceiveCount": 8}
        EOF
        }
        resource "aws_sqs_queue" "c" { name = "c" }
        resource "aws_sqs_queue_redrive_policy" "c" {
          queue_url      = aws_sqs_queue.c.id
          redrive_policy = jsonencode({ deadLetterTargetArn = aws_sqs_queue.dlq.arn, maxReceiveCount = 9 })
        }
        """
        }
    )
    qs = terraform.load(d, opts()).queues
    got = {
        k: (qs[k].redrive.target, qs[k].redrive.max_receive_count)
        for k in ("aws_sqs_queue.a", "aws_sqs_queue.b", "aws_sqs_queue.c")
    }
    assert got == {
        "aws_sqs_queue.a": ("aws_sqs_queue.dlq", 7),
        "aws_sqs_queue.b": ("aws_sqs_queue.dlq", 8),
        "aws_sqs_queue.c": ("aws_sqs_queue.dlq", 9),
    }


def test_for_each_and_count_instances_and_index_references(module, opts):
    d = module(
        {
            "main.tf": """
        variable "queues" {
          default = { emails = 60, images = 1800 }
        }
        resource "aws_sqs_queue" "q" {
          for_each                   = var.queues
          name                       = each.key
          visibility_timeout_seconds = each.value
        }
        resource "aws_sqs_queue" "shard" {
          count = 2
          name  = "shard-${count.index}"
        }
        resource "aws_lambda_function" "fn" {
          function_name = "fn"
          timeout       = 300
        }
        resource "aws_lambda_event_source_mapping" "q" {
          for_each         = aws_sqs_queue.q
          event_source_arn = each.value.arn
          function_name    = aws_lambda_function.fn.arn
        }
        resource "aws_lambda_event_source_mapping" "shard1" {
          event_source_arn = aws_sqs_queue.shard[1].arn
          function_name    = "fn"
        }
        """
        }
    )
    m = terraform.load(d, opts())
    assert sorted(m.queues) == [
        'aws_sqs_queue.q["emails"]',
        'aws_sqs_queue.q["images"]',
        "aws_sqs_queue.shard[0]",
        "aws_sqs_queue.shard[1]",
    ]
    assert m.queues["aws_sqs_queue.shard[1]"].name == "shard-1"
    assert [c.id for c in m.queues["aws_sqs_queue.shard[1]"].consumers] == [
        "aws_lambda_event_source_mapping.shard1"
    ]
    vg010 = [(f.queue, f.consumer) for f in lint_model(m) if f.rule == "VG010"]
    assert vg010 == [
        ('aws_sqs_queue.q["emails"]', 'aws_lambda_event_source_mapping.q["emails"]'),
        ("aws_sqs_queue.shard[1]", "aws_lambda_event_source_mapping.shard1"),
    ]


def test_function_name_as_name_arn_alias_and_reference(module, opts):
    d = module(
        {
            "main.tf": """
        resource "aws_sqs_queue" "q" { visibility_timeout_seconds = 10 }
        resource "aws_lambda_function" "fn" {
          function_name = "worker"
          timeout       = 20
        }
        resource "aws_lambda_alias" "live" {
          name          = "live"
          function_name = aws_lambda_function.fn.function_name
        }
        resource "aws_lambda_event_source_mapping" "by_name" {
          event_source_arn = aws_sqs_queue.q.arn
          function_name    = "worker"
        }
        resource "aws_lambda_event_source_mapping" "by_arn" {
          event_source_arn = aws_sqs_queue.q.arn
          function_name    = "arn:aws:lambda:eu-west-1:123456789012:function:worker:live"
        }
        resource "aws_lambda_event_source_mapping" "by_alias" {
          event_source_arn = aws_sqs_queue.q.arn
          function_name    = aws_lambda_alias.live.arn
        }
        resource "aws_lambda_event_source_mapping" "elsewhere" {
          event_source_arn = aws_sqs_queue.q.arn
          function_name    = "other-team-fn"
        }
        """
        }
    )
    cs = {c.id: c for c in terraform.load(d, opts()).queues["aws_sqs_queue.q"].consumers}
    for k in ("by_name", "by_arn", "by_alias"):
        c = cs[f"aws_lambda_event_source_mapping.{k}"]
        assert (c.kind, c.function_id, c.function_timeout) == ("lambda", "aws_lambda_function.fn", 20), k
    other = cs["aws_lambda_event_source_mapping.elsewhere"]
    # a Lambda consumer whose function is not here: only the rules that need the function skip it (issue 26 §5)
    assert (other.kind, other.function_id) == ("lambda", None) and "other-team-fn" in other.note


def test_esm_settings_and_function_defaults(module, opts):
    d = module(
        {
            "main.tf": """
        resource "aws_sqs_queue" "q" { visibility_timeout_seconds = 200 }
        resource "aws_lambda_function" "fn" {
          function_name                  = "fn"
          reserved_concurrent_executions = 20
        }
        resource "aws_lambda_event_source_mapping" "m" {
          event_source_arn                   = aws_sqs_queue.q.arn
          function_name                      = aws_lambda_function.fn.arn
          batch_size                         = 50
          maximum_batching_window_in_seconds = 10
          function_response_types            = ["ReportBatchItemFailures"]
          enabled                            = false
          scaling_config {
            maximum_concurrency = 5
          }
        }
        """
        }
    )
    (c,) = terraform.load(d, opts()).queues["aws_sqs_queue.q"].consumers
    assert (
        c.batch_size,
        c.batching_window,
        c.report_batch_item_failures,
        c.enabled,
        c.max_concurrency,
        c.reserved_concurrency,
        c.function_timeout,
        c.effective_function_timeout,
    ) == (50, 10, True, False, 5, 20, None, 3.0)


def test_local_module_with_inputs_and_outputs(module, opts):
    d = module(
        {
            "main.tf": """
            module "jobs" {
              source  = "./modules/queue"
              name    = "jobs"
              timeout = 40
            }
            resource "aws_lambda_function" "fn" {
              function_name = "fn"
              timeout       = 300
            }
            resource "aws_lambda_event_source_mapping" "jobs" {
              event_source_arn = module.jobs.arn
              function_name    = aws_lambda_function.fn.arn
            }
            """,
            "modules/queue/main.tf": """
            variable "name" {}
            variable "timeout" { default = 30 }
            resource "aws_sqs_queue" "this" {
              name                       = var.name
              visibility_timeout_seconds = var.timeout
            }
            output "arn" { value = aws_sqs_queue.this.arn }
            """,
        }
    )
    m = terraform.load(d, opts())
    q = m.queues["module.jobs.aws_sqs_queue.this"]
    assert (q.name, q.visibility_timeout) == ("jobs", 40)
    assert [c.id for c in q.consumers] == ["aws_lambda_event_source_mapping.jobs"]
    f = next(f for f in lint_model(m) if f.rule == "VG010")
    assert (
        f.location.file.endswith("main.tf") and os.path.dirname(f.location.file) == d and f.location.line == 5
    )
    assert f.fix.startswith("Set timeout = 1800")


def test_registry_modules_sqs_and_lambda_without_init(module, opts):
    d = module(
        {
            "main.tf": """
        module "orders" {
          source                     = "terraform-aws-modules/sqs/aws"
          version                    = "~> 4.2"
          name                       = "orders"
          fifo_queue                 = true
          visibility_timeout_seconds = 100
          create_dlq                 = true
          redrive_policy             = { maxReceiveCount = 10 }
        }
        module "worker" {
          source        = "terraform-aws-modules/lambda/aws"
          function_name = "orders-worker"
          timeout       = 60
          event_source_mapping = {
            sqs = {
              event_source_arn        = module.orders.queue_arn
              function_response_types = ["ReportBatchItemFailures"]
              scaling_config          = { maximum_concurrency = 20 }
            }
          }
        }
        """
        }
    )
    m = terraform.load(d, opts())
    q = m.queues["module.orders.aws_sqs_queue.this[0]"]
    dlq = m.queues["module.orders.aws_sqs_queue.dlq[0]"]
    assert (q.name, q.fifo, q.visibility_timeout) == ("orders.fifo", True, 100)
    assert (dlq.name, dlq.fifo, dlq.visibility_timeout) == ("orders-dlq.fifo", True, 100)
    assert q.redrive.target == dlq.id and q.redrive.max_receive_count == 10
    (c,) = q.consumers
    assert c.id == 'module.worker.aws_lambda_event_source_mapping.this["sqs"]'
    assert (c.function_id, c.function_timeout, c.max_concurrency) == (
        "module.worker.aws_lambda_function.this[0]",
        60,
        20,
    )
    vg011 = next(f for f in lint_model(m) if f.rule == "VG011")
    assert vg011.location.line == 7 and vg011.fix.startswith("Set visibility_timeout_seconds = 360")


def test_unknown_values_are_noted_not_guessed(module, opts):
    d = module(
        {
            "main.tf": """
        variable "vt" {}
        data "aws_sqs_queue" "shared" { name = "shared" }
        module "remote" { source = "git::https://example.com/queues.git" }
        resource "aws_sqs_queue" "q" { visibility_timeout_seconds = var.vt }
        resource "aws_lambda_function" "fn" {
          function_name = "fn"
          timeout       = 300
        }
        resource "aws_lambda_event_source_mapping" "m" {
          event_source_arn = aws_sqs_queue.q.arn
          function_name    = aws_lambda_function.fn.arn
        }
        resource "aws_lambda_event_source_mapping" "shared" {
          event_source_arn = data.aws_sqs_queue.shared.arn
          function_name    = aws_lambda_function.fn.arn
        }
        """
        }
    )
    m = terraform.load(d, opts())
    assert m.queues["aws_sqs_queue.q"].visibility_timeout == "${var.vt}"
    assert [f.rule for f in lint_model(m) if f.rule in ("VG010", "VG011")] == []  # not compared with a guess
    notes = " ".join(n.message for n in m.notes)
    assert "variable vt has no default" in notes and "git::https://example.com/queues.git" in notes
    assert len(m.notes) == len({n.message for n in m.notes})  # each reported once


def test_tf_json_syntax(module, opts):
    d = module(
        {
            "main.tf.json": """
        {
          "variable": {"vt": {"default": 15}},
          "resource": {
            "aws_sqs_queue": {"q": {"name": "q", "visibility_timeout_seconds": "${var.vt * 2}"}},
            "aws_lambda_function": {"fn": {"function_name": "fn", "timeout": 60}},
            "aws_lambda_event_source_mapping": {"m": {
              "event_source_arn": "${aws_sqs_queue.q.arn}",
              "function_name": "${aws_lambda_function.fn.arn}",
              "scaling_config": {"maximum_concurrency": 3}
            }}
          }
        }
        """
        }
    )
    q = terraform.load(d, opts()).queues["aws_sqs_queue.q"]
    assert q.visibility_timeout == 30 and q.consumers[0].function_timeout == 60
    assert q.consumers[0].max_concurrency == 3 and q.location_of("visibility_timeout").line == 5


def test_comment_suppressions_on_queue_mapping_and_module(module, opts):
    d = module(
        {
            "main.tf": """
        # visguard:ignore VG020 drained by the nightly reconciliation job
        resource "aws_sqs_queue" "q" {
          visibility_timeout_seconds = 60 # visguard:ignore VG011 the function finishes in 2 s
        }
        resource "aws_lambda_function" "fn" {
          function_name = "fn"
          timeout       = 30
        }
        resource "aws_lambda_event_source_mapping" "m" {
          # visguard:ignore VG031
          event_source_arn = aws_sqs_queue.q.arn
          function_name    = aws_lambda_function.fn.arn
        }
        """
        }
    )
    findings = lint_model(terraform.load(d, opts()))
    rules = sorted(f.rule for f in findings)
    # VG020 and VG011 are suppressed with reasons; VG031's suppression has none: the finding stays, VG900 says why
    assert rules == ["VG031", "VG900"]
    assert "VG031" in next(f for f in findings if f.rule == "VG900").message


def test_claims():
    here = os.path.dirname(os.path.abspath(__file__))
    rules = os.path.join(here, "..", "fixtures", "rules")
    assert terraform.claim_dir(os.path.join(rules, "vg010", "terraform", "fail")) is True
    assert terraform.claim_dir(os.path.join(rules, "vg010", "terraform")) is False
    plan = os.path.join(here, "fixtures", "plan", "plan.json")
    with open(plan, "rb") as fh:
        assert terraform.claim_file(plan, fh.read(512)) is True
    assert terraform.claim_file("x/main.tf", b"") is True
    assert terraform.claim_file("template.json", b'{"Resources": {}}') is False


def test_each_value_points_at_the_for_each_element(module, opts):
    d = module(
        {
            "main.tf": """
        locals {
          queues = {
            fast = { visibility = 60 }
            slow = { visibility = 20 }
          }
        }
        resource "aws_sqs_queue" "q" {
          for_each                   = local.queues
          visibility_timeout_seconds = each.value.visibility
        }
        resource "aws_lambda_function" "fn" {
          function_name = "fn"
          timeout       = 30
        }
        resource "aws_lambda_event_source_mapping" "m" {
          for_each         = aws_sqs_queue.q
          event_source_arn = each.value.arn
          function_name    = aws_lambda_function.fn.arn
        }
        """
        }
    )
    (f,) = [f for f in lint_model(terraform.load(d, opts())) if f.rule == "VG010"]
    assert (f.queue, f.location.line, f.location.column) == ('aws_sqs_queue.q["slow"]', 5, 14)
    assert f.fix.startswith("Set local.queues.slow.visibility = 180")


def test_visguard_yaml_suppressions_and_profiles_by_address(module, opts, tmp_path):
    from visguard.linter.loaders import apply_profiles, load_config

    d = module(
        {
            "main.tf": """
            module "jobs" {
              source = "./q"
            }
            resource "aws_sqs_queue" "orders" { visibility_timeout_seconds = 20 }
            resource "aws_lambda_function" "fn" {
              function_name = "fn"
              timeout       = 60
            }
            resource "aws_lambda_event_source_mapping" "jobs" {
              event_source_arn = module.jobs.arn
              function_name    = "fn"
            }
            resource "aws_lambda_event_source_mapping" "orders" {
              event_source_arn = aws_sqs_queue.orders.arn
              function_name    = "fn"
            }
            """,
            "q/main.tf": """
            resource "aws_sqs_queue" "this" { visibility_timeout_seconds = 30 }
            output "arn" { value = aws_sqs_queue.this.arn }
            """,
        }
    )
    cfg = tmp_path / "visguard.yaml"
    cfg.write_text(
        "version: 1\n"
        "suppressions:\n"
        "  - {rule: VG010, queue: 'module.jobs.*', reason: the jobs module is replaced next sprint}\n"
        "profiles:\n"
        "  - {match: aws_sqs_queue.orders, kind: lambda, p50: 5, p99: 50}\n"
    )
    config = load_config(str(cfg))
    model = terraform.load(d, opts())
    apply_profiles(model, config)
    assert model.queues["aws_sqs_queue.orders"].consumers[0].processing_p99 == 50
    vg010 = sorted(f.queue for f in lint_model(model, config) if f.rule == "VG010")
    assert vg010 == ["aws_sqs_queue.orders"]


def test_modules_installed_by_terraform_init_are_read(module, opts):
    manifest = (
        '{"Modules": [{"Key": "", "Source": "", "Dir": "."},'
        ' {"Key": "jobs", "Source": "registry.terraform.io/acme/queue/aws", "Version": "1.2.0",'
        ' "Dir": ".terraform/modules/jobs"},'
        ' {"Key": "evil_queue", "Source": "x", "Dir": "../../outside"}]}'
    )
    d = module(
        {
            "main.tf": """
            module "jobs" {
              source     = "acme/queue/aws"
              version    = "1.2.0"
              visibility = 10
            }
            module "evil_queue" {
              source = "acme/evil/aws"
            }
            resource "aws_lambda_function" "fn" {
              function_name = "fn"
              timeout       = 30
            }
            resource "aws_lambda_event_source_mapping" "jobs" {
              event_source_arn = module.jobs.queue_arn
              function_name    = aws_lambda_function.fn.arn
            }
            """,
            ".terraform/modules/modules.json": manifest,
            ".terraform/modules/jobs/main.tf": """
            variable "visibility" { default = 30 }
            resource "aws_sqs_queue" "this" { visibility_timeout_seconds = var.visibility }
            output "queue_arn" { value = aws_sqs_queue.this.arn }
            """,
        }
    )
    m = terraform.load(d, opts())
    q = m.queues["module.jobs.aws_sqs_queue.this"]
    assert q.visibility_timeout == 10 and [c.id for c in q.consumers] == [
        "aws_lambda_event_source_mapping.jobs"
    ]
    assert [
        n.message for n in m.notes if "module.evil_queue" in n.message
    ]  # a Dir outside .terraform/modules: not read (noted: its name says it may hold a queue, issue 35 §4)


def test_object_types_with_optional_attributes_and_defaults(module, opts):
    """Modern modules declare `object({... = optional(T, default)})` inputs: Terraform fills absent attributes."""
    d = module(
        {
            "main.tf": """
            module "workers" {
              source = "./worker"
              config = {
                name  = "jobs"
                queue = { visibility = "45" }
              }
            }
            """,
            "worker/main.tf": """
            variable "config" {
              type = object({
                name    = string
                timeout = optional(number, 60)
                queue = optional(object({
                  visibility = optional(number, 30)
                  dlq        = optional(object({ enabled = optional(bool, false) }), {})
                }), {})
                extra = optional(string)
              })
            }
            resource "aws_sqs_queue" "this" {
              name                       = var.config.name
              visibility_timeout_seconds = var.config.queue.visibility
              delay_seconds              = var.config.queue.dlq.enabled ? 5 : 0
              message_retention_seconds  = var.config.extra == null ? 86400 : 60
            }
            resource "aws_lambda_function" "this" {
              function_name = var.config.name
              timeout       = var.config.timeout
            }
            resource "aws_lambda_event_source_mapping" "this" {
              event_source_arn = aws_sqs_queue.this.arn
              function_name    = aws_lambda_function.this.arn
            }
            """,
        }
    )
    q = terraform.load(d, opts()).queues["module.workers.aws_sqs_queue.this"]
    assert (q.visibility_timeout, q.delay, q.message_retention) == (45, 0, 86400)
    assert q.consumers[0].function_timeout == 60


def test_a_required_object_attribute_missing_is_bad_input(module, opts):
    d = module(
        {
            "main.tf": """
        variable "c" {
          type    = object({ name = string })
          default = {}
        }
        resource "aws_sqs_queue" "q" { name = var.c.name }
        """
        }
    )
    with pytest.raises(VisguardError, match="variable c: attribute 'name' is required"):
        terraform.load(d, opts())


def test_two_calls_of_one_module_referencing_each_other(module, opts):
    d = module(
        {
            "main.tf": """
            module "dlq" {
              source = "./q"
              name   = "jobs-dlq"
            }
            module "jobs" {
              source = "./q"
              name   = "jobs"
              dlq    = module.dlq.arn
            }
            """,
            "q/main.tf": """
            variable "name" {}
            variable "dlq" { default = null }
            resource "aws_sqs_queue" "this" {
              name           = var.name
              redrive_policy = var.dlq == null ? null : jsonencode({ deadLetterTargetArn = var.dlq, maxReceiveCount = 5 })
            }
            output "arn" { value = aws_sqs_queue.this.arn }
            """,
        }
    )
    m = terraform.load(d, opts())
    assert m.queues["module.jobs.aws_sqs_queue.this"].redrive.target == "module.dlq.aws_sqs_queue.this"
    assert m.queues["module.dlq.aws_sqs_queue.this"].redrive is None


def test_visibility_computed_from_the_function_and_mapping_arguments(module, opts):
    d = module(
        {
            "main.tf": """
        locals {
          window = 10
        }
        resource "aws_sqs_queue" "scrape" {
          visibility_timeout_seconds = (6 * aws_lambda_function.scraper.timeout) + local.window
        }
        resource "aws_sqs_queue" "plain" {
          visibility_timeout_seconds = 2 * aws_lambda_function.defaults.timeout
        }
        resource "aws_lambda_function" "scraper" {
          function_name = "scraper"
          timeout       = 120
        }
        resource "aws_lambda_function" "defaults" {
          function_name = "defaults"
        }
        resource "aws_lambda_event_source_mapping" "scrape" {
          event_source_arn                   = aws_sqs_queue.scrape.arn
          function_name                      = aws_lambda_function.scraper.arn
          maximum_batching_window_in_seconds = local.window
        }
        """
        }
    )
    qs = terraform.load(d, opts()).queues
    assert qs["aws_sqs_queue.scrape"].visibility_timeout == 730
    assert qs["aws_sqs_queue.plain"].visibility_timeout == 6  # the provider's 3 s default timeout, doubled


def test_a_tf_file_is_read_with_its_module(module, opts):
    """pre-commit passes changed files: a .tf file is linted as part of the module its folder holds."""
    d = module(
        {
            "main.tf": 'resource "aws_sqs_queue" "q" {\n  visibility_timeout_seconds = var.vt\n}\n',
            "variables.tf": 'variable "vt" {\n  default = 45\n}\n',
        }
    )
    m = terraform.load(os.path.join(d, "main.tf"), opts())
    assert m.queues["aws_sqs_queue.q"].visibility_timeout == 45
