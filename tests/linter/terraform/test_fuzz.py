"""Whatever text a .tf file holds, loading it ends in a model or one VisguardError: never another exception,
never a hang."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from visguard.errors import VisguardError
from visguard.linter.api import lint_model
from visguard.linter.loaders import terraform

PIECES = [
    'resource "aws_sqs_queue" "q" {',
    'resource "aws_lambda_function" "f" {',
    'resource "aws_lambda_event_source_mapping" "m" {',
    "locals {",
    'variable "v" {',
    'module "m" {',
    "}",
    "\n",
    "visibility_timeout_seconds = ",
    "timeout = ",
    "function_name = ",
    "event_source_arn = ",
    "count = ",
    "for_each = ",
    "default = ",
    "redrive_policy = ",
    "source = ",
    "a = ",
    "b = ",
    "30",
    "-1",
    "1e99",
    '"x"',
    '"${var.v}"',
    "var.v",
    "local.a",
    "local.b",
    "aws_sqs_queue.q.arn",
    "aws_lambda_function.f.arn",
    "each.value",
    "count.index",
    "jsonencode({maxReceiveCount = 5})",
    "max(1, ",
    "min(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    "=",
    "? 1 : 2",
    "true",
    "null",
    "[for x in [1,2] : x]",
    "{a = 1}",
    "<<EOF\n${x}\nEOF\n",
    "# visguard:ignore VG011",
    '"./m"',
    "data.aws_sqs_queue.x.arn",
    "module.m.out",
    'tonumber("7")',
    'lookup({}, "k")',
    "coalesce()",
    # a role an ECS task may assume, granted receiving (consumers._Reader.free_role, roles.used)
    'resource "aws_iam_role" "r" {',
    "assume_role_policy = ",
    'jsonencode({Statement = [{Effect = "Allow", Principal = {Service = "ecs-tasks.amazonaws.com"}, Action = "x"}]})',
    "inline_policy {",
    "policy = ",
    'jsonencode({Statement = [{Effect = "Allow", Action = "sqs:ReceiveMessage", Resource = aws_sqs_queue.q.arn}]})',
    "aws_iam_role.r.arn",
    'output "o" {',
    "data.aws_iam_policy_document.d.json",
]


@pytest.mark.slow
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.lists(st.sampled_from(PIECES), max_size=40))
def test_any_text_loads_or_is_bad_input(tmp_path, pieces):
    (tmp_path / "main.tf").write_text(" ".join(pieces), encoding="utf-8")
    try:
        model = terraform.load(str(tmp_path))
    except VisguardError as exc:
        assert "\n" not in str(exc) and str(exc)
        return
    lint_model(model)


TYPES = [
    "aws_sqs_queue",
    "aws_lambda_function",
    "aws_lambda_event_source_mapping",
    "aws_lambda_alias",
    "aws_sqs_queue_redrive_policy",
    "aws_iam_role",
    "aws_iam_role_policy",
]
ARGS = [
    "visibility_timeout_seconds",
    "message_retention_seconds",
    "fifo_queue",
    "redrive_policy",
    "timeout",
    "function_name",
    "event_source_arn",
    "batch_size",
    "queue_url",
    "enabled",
    "count",
    "for_each",
    "name",
    "assume_role_policy",
    "policy",
    "role",
]
EXPRS = [
    "30",
    "0",
    "-5",
    "50000",
    "1.5",
    '"60"',
    '"abc"',
    "true",
    "null",
    "[]",
    "{}",
    '["a", "b"]',
    "{a = 1}",
    "var.v",
    "local.l",
    "aws_sqs_queue.r0.arn",
    "aws_sqs_queue.r1.url",
    "aws_lambda_function.r2.arn",
    "aws_lambda_alias.r3.arn",
    "each.key",
    "count.index",
    'jsonencode({deadLetterTargetArn = aws_sqs_queue.r0.arn, maxReceiveCount = "x"})',
    '"{\\"maxReceiveCount\\": 3}"',
    "max(var.v, 10)",
    "try(local.missing, 4)",
    "data.aws_sqs_queue.d.arn",
    'jsonencode({Statement = [{Effect = "Allow", Principal = {Service = "pods.eks.amazonaws.com"}, Action = "a"}]})',
    'jsonencode({Statement = [{Effect = "Allow", Action = "sqs:Receive*", Resource = aws_sqs_queue.r0.arn}]})',
    'jsonencode({Statement = [{Principal = {Federated = 1}, Action = ["sts:AssumeRoleWithWebIdentity"]}]})',
    "aws_iam_role.r1.id",
    "data.aws_iam_policy_document.d.json",
]


@st.composite
def modules(draw):
    blocks = [
        'variable "v" {\n  default = ' + draw(st.sampled_from(EXPRS)) + "\n}",
        "locals {\n  l = " + draw(st.sampled_from(EXPRS)) + "\n}",
    ]
    for i in range(draw(st.integers(1, 5))):
        attrs = draw(st.dictionaries(st.sampled_from(ARGS), st.sampled_from(EXPRS), max_size=5))
        body = "\n".join(f"  {k} = {v}" for k, v in attrs.items())
        blocks.append(f'resource "{draw(st.sampled_from(TYPES))}" "r{i}" {{\n{body}\n}}')
    return "\n\n".join(blocks) + "\n"


@pytest.mark.slow
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(modules())
def test_any_module_of_the_read_resources_loads_or_is_bad_input(tmp_path, text):
    (tmp_path / "main.tf").write_text(text, encoding="utf-8")
    try:
        model = terraform.load(str(tmp_path))
    except VisguardError as exc:
        assert "\n" not in str(exc) and str(exc) and exc.file
        return
    lint_model(model)
