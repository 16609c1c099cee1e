"""The language server's kept Terraform resources (``terraform/reuse.py``): after every kind of edit, the warm
server's lint gives exactly what a lint without anything kept gives, and it evaluates again only the resources
the edit touches."""

from __future__ import annotations

import pytest

pytest.importorskip("tree_sitter_hcl")

MAIN = """\
variable "vt" {
  default = 30
}

variable "env" {
  default = "prod"
}

variable "noval" {}

locals {
  base     = var.vt * 2
  dlq_name = "${var.env}-dlq"
}

provider "aws" {
  region = "eu-west-1"
}

resource "aws_sqs_queue" "dlq" {
  name                      = local.dlq_name
  message_retention_seconds = 345600
}

resource "aws_sqs_queue" "a" {
  name                       = "a"
  visibility_timeout_seconds = local.base
  message_retention_seconds  = 1209600
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.dlq.arn
    maxReceiveCount     = 5
  })
}

resource "aws_sqs_queue" "b" {
  name                       = "b"
  visibility_timeout_seconds = var.noval
}

resource "aws_sqs_queue" "b2" {
  name                       = "b2"
  visibility_timeout_seconds = var.noval
  tags                       = { note = "mentions var.vt in a string only" }
}

resource "aws_sqs_queue" "c" {
  count                      = 2
  name                       = "c${count.index}"
  visibility_timeout_seconds = 10
}

resource "aws_sqs_queue" "mirror" {
  name                       = "mirror"
  visibility_timeout_seconds = aws_sqs_queue.c[0].visibility_timeout_seconds
}

resource "aws_lambda_function" "f" {
  function_name = "f"
  role          = "arn:aws:iam::123456789012:role/r"
  handler       = "app.handler"
  runtime       = "python3.12"
  filename      = "f.zip"
  timeout       = 50
}

resource "aws_lambda_event_source_mapping" "m" {
  event_source_arn = aws_sqs_queue.a.arn
  function_name    = aws_lambda_function.f.arn
  batch_size       = 1
}

resource "aws_lambda_event_source_mapping" "mc" {
  event_source_arn = aws_sqs_queue.mirror.arn
  function_name    = aws_lambda_function.f.arn
  batch_size       = 1
}

resource "aws_sqs_queue" "t" {
  name   = "t"
  policy = file("${path.module}/policy.json")
}
"""

POLICY = '{"Version": "2012-10-17", "Statement": []}'


def _key(result):
    findings = [(f.rule, f.queue, f.consumer, f.message, f.location) for f in result.findings]
    errors = [str(e) for e in result.errors]
    return findings, errors


def _fresh(ws):
    """The texts ``ws`` holds, linted by a server that keeps nothing yet (its first lint)."""
    from visguard.linter.lsp.workspace import Workspace

    fresh = Workspace(ws.root)
    for path, text in ws.open.items():
        fresh.set_text(path, text)
    return fresh.lint()


EDITS = [
    # (what, the edit, resources the warm lint must read again: the rest is reused)
    ("a queue's own value", lambda s: s.replace("visibility_timeout_seconds = 10", "visibility_timeout_seconds = 15"), {"aws_sqs_queue.c", "aws_sqs_queue.mirror", "aws_lambda_event_source_mapping.mc"}),
    ("a variable's default, through a local", lambda s: s.replace("default = 30", "default = 70"), {"aws_sqs_queue.a", "aws_lambda_event_source_mapping.m", "aws_sqs_queue.b2"}),  # b2 names var.vt in a string: read again too (never the reverse)
    ("a local", lambda s: s.replace('"${var.env}-dlq"', '"${var.env}-dead"'), {"aws_sqs_queue.dlq", "aws_sqs_queue.a", "aws_lambda_event_source_mapping.m"}),
    ("a function's timeout", lambda s: s.replace("timeout       = 50", "timeout       = 300"), {"aws_lambda_function.f", "aws_lambda_event_source_mapping.m", "aws_lambda_event_source_mapping.mc"}),
    ("the first reader of a variable stops reading it", lambda s: s.replace('"b"\n  visibility_timeout_seconds = var.noval', '"b"\n  visibility_timeout_seconds = 20'), {"aws_sqs_queue.b"}),
    ("the provider block", lambda s: s.replace('"eu-west-1"', '"eu-west-2"'), None),
    ("a comment between blocks", lambda s: s.replace('resource "aws_sqs_queue" "b"', '# visguard:ignore VG020 reason: test\nresource "aws_sqs_queue" "b"', 1), None),
    ("a line inserted above everything", lambda s: "\n" + s, "most"),
    ("a resource renamed and its reference", lambda s: s.replace('"dlq" {', '"dead" {').replace("aws_sqs_queue.dlq.arn", "aws_sqs_queue.dead.arn"), {"aws_sqs_queue.dead", "aws_sqs_queue.a", "aws_lambda_event_source_mapping.m"}),
    ("a resource removed", lambda s: s[: s.index('resource "aws_sqs_queue" "t"')], {}),
    ("a resource that does not parse", lambda s: s.replace('name = "b"', 'name = "b'), None),
    ("and fixed again", lambda s: s.replace('name = "b', 'name = "b"'), None),
]  # fmt: skip


def test_every_edit_lints_as_a_server_that_keeps_nothing(tmp_path):
    from visguard.linter.lsp.workspace import Workspace

    root = tmp_path / "infra"
    root.mkdir()
    main = root / "main.tf"
    main.write_text(MAIN)
    (root / "policy.json").write_text(POLICY)
    (root / "terraform.tfvars").write_text('env = "prod"\n')
    ws = Workspace(str(root))
    text = MAIN
    ws.set_text(str(main), text)
    first = ws.lint()
    assert first.findings  # something to compare
    for what, edit, again in EDITS:
        text = edit(text)
        ws.set_text(str(main), text)
        warm = ws.lint()
        assert _key(warm) == _key(_fresh(ws)), what
        if isinstance(again, set):
            again = again | (
                {"aws_sqs_queue.t"} if '"t" {' in text else set()
            )  # it reads a file: always read
            assert ws.blocks.reused == text.count('resource "') - len(again), what
        elif again is None:
            assert ws.blocks.reused == 0, what


def test_tfvars_and_a_file_read_by_a_resource(tmp_path):
    """A tfvars value taints the variable it sets; a file a resource reads is never trusted unchanged."""
    from visguard.linter.lsp.workspace import Workspace

    root = tmp_path / "infra"
    root.mkdir()
    main = root / "main.tf"
    main.write_text(MAIN)
    policy = root / "policy.json"
    policy.write_text(POLICY)
    tfvars = root / "terraform.tfvars"
    tfvars.write_text('env = "prod"\n')
    ws = Workspace(str(root))
    ws.lint()
    for what, path, text in (
        ("tfvars", tfvars, 'env = "staging"\nnoval = 5\n'),
        ("the policy file", policy, '{"Version": "2012-10-17", "Statement": [{"Effect": "Deny"}]}'),
    ):
        ws.set_text(str(path), text)
        warm = ws.lint()
        assert _key(warm) == _key(_fresh(ws)), what
    # tfvars set var.env and var.noval: dlq, a, m (through local.dlq_name) and b were read again
    assert ws.blocks.reused <= 10


def test_a_one_shot_lint_keeps_nothing(tmp_path):
    from visguard.linter.api import lint_paths
    from visguard.linter.loaders.terraform import reuse

    (tmp_path / "main.tf").write_text(MAIN)
    (tmp_path / "policy.json").write_text(POLICY)
    assert reuse.active() is None
    lint_paths([str(tmp_path)])
    assert reuse.active() is None


def test_the_walk_over_references_is_linear(tmp_path):
    """A chain of 3,000 resources each referring to the one before: changing the first taints them all (a walk over
    who refers to whom, each block once), changing nothing taints none."""
    from visguard.linter.loaders.terraform import reuse

    def snap(first_vt):
        items = {
            ("resource", "aws_sqs_queue", "q0"): ("m.tf", 1, 1, 1, f"visibility_timeout_seconds = {first_vt}")
        }
        for i in range(1, 3000):
            items[("resource", "aws_sqs_queue", f"q{i}")] = (
                "m.tf", i + 1, 1, i + 1, f"visibility_timeout_seconds = aws_sqs_queue.q{i - 1}.visibility_timeout_seconds"
            )  # fmt: skip
        return reuse.Snapshot(items, {}, {}, "")

    assert reuse.reusable(snap(1), snap(2)) == set()
    assert len(reuse.reusable(snap(1), snap(1))) == 3000
