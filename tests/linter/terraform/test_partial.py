"""Issue 26 §1 and §7: one unreadable part (a file, a module call, a resource) never hides the queues that can be
read; it is a VG902 note naming its address, file:line and why; only a root where nothing could be read is bad
input (exit 1), and a bound still refuses the whole input."""

from __future__ import annotations

import json
import os

import pytest
from visguard.cli import main
from visguard.errors import VisguardError
from visguard.linter.api import _note_findings, lint_model
from visguard.linter.loaders import terraform
from visguard.linter.model import LintConfig

GOOD = """
resource "aws_sqs_queue" "jobs" {
  name                       = "jobs"
  visibility_timeout_seconds = 30
}
resource "aws_lambda_function" "worker" {
  function_name = "worker"
  timeout       = 60
}
resource "aws_lambda_event_source_mapping" "m" {
  event_source_arn = aws_sqs_queue.jobs.arn
  function_name    = aws_lambda_function.worker.arn
}
"""


def _notes(model):
    return sorted((n.address, os.path.basename(n.location.file), n.location.line) for n in model.notes)


def test_unreadable_parts_are_notes_and_the_rest_is_linted(module, opts):
    d = module(
        {
            "main.tf": GOOD,
            "ecs.tf": 'module "ecs" {\n  source = "./ecs"\n  bogus  = 1\n}\n',
            "ecs/main.tf": 'variable "cluster" {\n  default = "x"\n}\n',
            "bad.tf": 'resource "aws_sqs_queue" "bad" {\n  delay_seconds = frobnicate(1)\n}\n',
            "broken.tf": 'resource "aws_sqs_queue" "broken" {\n  name = \n',
        }
    )
    m = terraform.load(d, opts())
    assert list(m.queues) == ["aws_sqs_queue.jobs"]
    assert _notes(m) == [
        ("aws_sqs_queue.bad", "bad.tf", 2),
        ("module.ecs", "ecs.tf", 3),
        ("root_module", "broken.tf", 3),
    ]
    said = " | ".join(n.message for n in m.notes)
    assert (
        "aws_sqs_queue.bad could not be read here (delay_seconds: call to unknown function frobnicate())"
        in said
    )
    assert "module.ecs could not be read here (no variable 'bogus' in ./ecs)" in said
    assert "broken.tf could not be read here (cannot parse HCL" in said
    assert {(f.rule, f.queue) for f in lint_model(m)} >= {("VG010", "aws_sqs_queue.jobs")}
    assert sorted(os.path.basename(f) for f in m.files) == ["bad.tf", "ecs.tf", "main.tf", "main.tf"]


def test_nothing_readable_is_the_first_error(module, opts):
    d = module({"main.tf": 'resource "aws_sqs_queue" "q" {\n  delay_seconds = frobnicate(1)\n}\n'})
    with pytest.raises(VisguardError, match="call to unknown function frobnicate") as exc:
        terraform.load(d, opts())
    assert exc.value.place == "line 2"


def test_a_bound_refuses_the_whole_root_even_beside_a_good_queue(module, opts):
    d = module({"main.tf": GOOD, "big.tf": 'resource "aws_sqs_queue" "b" {\n  delay_seconds = 1e400\n}\n'})
    with pytest.raises(VisguardError, match="beyond any AWS limit"):
        terraform.load(d, opts())


def test_an_unread_dlq_or_redrive_policy_is_never_a_missing_one(module, opts):
    d = module(
        {
            "main.tf": GOOD.replace(
                "visibility_timeout_seconds = 30",
                "visibility_timeout_seconds = 360\n"
                "  redrive_policy = jsonencode({deadLetterTargetArn = aws_sqs_queue.dlq.arn, maxReceiveCount = 5})",
            )
            + 'resource "aws_sqs_queue" "dlq" {\n  delay_seconds = nope(1)\n}\n'
            + 'resource "aws_sqs_queue" "other" {\n  visibility_timeout_seconds = 600\n}\n'
            + 'resource "aws_sqs_queue_redrive_policy" "p" {\n  queue_url = aws_sqs_queue.other.url\n'
            + '  redrive_policy = "{not json"\n}\n'
            + 'resource "aws_lambda_event_source_mapping" "o" {\n  event_source_arn = aws_sqs_queue.other.arn\n'
            + "  function_name = aws_lambda_function.worker.arn\n  batch_size = 1\n}\n"
        }
    )
    m = terraform.load(d, opts())
    rules = {(f.rule, f.queue) for f in lint_model(m)}
    assert not {r for r in rules if r[0] in ("VG004", "VG020", "VG002")}, rules
    assert {n.address for n in m.notes} == {"aws_sqs_queue.dlq", "aws_sqs_queue_redrive_policy.p"}


def test_an_unread_mapping_is_an_unknown_consumer(module, opts):
    d = module({"main.tf": GOOD.replace("function_name    = aws_lambda_function.worker.arn",
                                        "function_name = aws_lambda_function.worker.arn\n  batch_size = [1]")})  # fmt: skip
    m = terraform.load(d, opts())
    (c,) = m.queues["aws_sqs_queue.jobs"].consumers
    assert c.kind == "unknown" and c.id == "aws_lambda_event_source_mapping.m"
    assert [n.address for n in m.notes] == ["aws_lambda_event_source_mapping.m"]
    assert "VG050" in {f.rule for f in lint_model(m)}


def test_cli_exit_codes_and_files_read(tmp_path, capsys):
    root = tmp_path / "infra"
    (root / "ecs").mkdir(parents=True)
    (root / "main.tf").write_text(GOOD)
    (root / "ecs.tf").write_text('module "ecs" {\n  source = "./nowhere"\n}\n')
    (root / "terraform.tfvars").write_text("")
    code = main(["lint", "--no-config", "-f", "json", str(root)])
    doc = json.loads(capsys.readouterr().out)
    assert code == 2 and doc["errors"] == [] and doc["summary"]["files"] == 3  # main.tf, ecs.tf, tfvars
    (note,) = [f for f in doc["findings"] if f["rule"] == "VG902"]
    assert note["queue"] == "module.ecs" and note["file"].endswith("ecs.tf") and note["line"] == 1
    (root / "main.tf").unlink()
    assert main(["lint", "--no-config", str(root)]) == 1  # nothing at all could be read
    (line,) = capsys.readouterr().err.splitlines()
    assert "is not a folder" in line


def test_every_note_names_an_address_never_a_file_or_locals_path(module, opts, tmp_path):
    d = module(
        {
            "main.tf": """
            variable "env" {}
            data "aws_ssm_parameter" "vt" {
              name = "/vt"
            }
            locals {
              vt = data.aws_ssm_parameter.vt.value
            }
            resource "aws_sqs_queue" "q" {
              name                       = "q-${var.env}"
              visibility_timeout_seconds = local.vt
            }
            resource "aws_sqs_queue" "fleet" {
              for_each = toset(split(",", data.aws_ssm_parameter.vt.value))
            }
            module "remote" {
              source = "git::https://example.com/x.git"
            }
            """,
            "override.tf": "",
        }
    )
    m = terraform.load(d, opts())
    got = sorted({f.queue for f in _note_findings(m, LintConfig())})
    # module.remote is not read, and nothing of it says queue: no note (issue 35 §4)
    assert got == ["aws_sqs_queue.fleet", "aws_sqs_queue.q", "root_module", "var.env"], got
