"""Bad Terraform gets one clear line naming the file and the line, never a traceback or a hang."""

from __future__ import annotations

import os

import pytest
from visguard.errors import VisguardError
from visguard.linter.loaders import terraform


def _load(module, opts, files, **kw):
    return terraform.load(module(files), opts(**kw))


@pytest.mark.parametrize(
    ("text", "pattern", "line"),
    [
        ('resource "aws_sqs_queue" "q" {\n  name = "x"\n', "cannot parse HCL: unexpected end of file", None),
        ('resource "aws_sqs_queue" "q" {\n  name = = "x"\n}\n', "cannot parse HCL: unexpected", "line 2"),
        ('resource "aws_sqs_queue" "q" {\n  name = "x" ^\n}\n', "cannot parse HCL", "line 2"),
        (
            "locals {\n  a = local.b\n  b = local.c\n  c = local.a\n}\n"
            'resource "aws_sqs_queue" "q" { visibility_timeout_seconds = local.a }\n',
            "cycle in locals: local.a -> local.b -> local.c -> local.a",
            "line 2",
        ),
        (
            'resource "aws_sqs_queue" "q" {\n  visibility_timeout_seconds = frobnicate(3)\n}\n',
            r"visibility_timeout_seconds: call to unknown function frobnicate\(\)",
            "line 2",
        ),
        (
            'resource "aws_sqs_queue" "q" {\n  visibility_timeout_seconds = var.nope\n}\n',
            "undeclared input variable 'nope'",
            "line 2",
        ),
        (
            'resource "aws_sqs_queue" "q" {\n  visibility_timeout_seconds = [1, 2]\n}\n',
            "visibility_timeout_seconds: expected a number, got a list",
            "line 2",
        ),
        (
            'resource "aws_sqs_queue" "q" {\n  redrive_policy = "{not json"\n}\n',
            "redrive_policy: not valid JSON",
            "line 2",
        ),
        (
            'locals { m = { a = 1 } }\nresource "aws_sqs_queue" "q" {\n  delay_seconds = local.m.b\n}\n',
            "no attribute or key 'b'",
            "line 3",
        ),
        ('resource "aws_sqs_queue" "q" {}\nresource "aws_sqs_queue" "q" {}\n', "declared twice", "line 2"),
        ('resource "aws_sqs_queue" "q" {\n  count = -1\n}\n', "count must be a whole number", "line 2"),
    ],
    ids=[
        "eof",
        "token",
        "character",
        "locals-cycle",
        "unknown-function",
        "undeclared-var",
        "type",
        "json",
        "missing-key",
        "duplicate",
        "count",
    ],
)
def test_one_line_error_with_file_and_line(module, opts, text, pattern, line):
    with pytest.raises(VisguardError, match=pattern) as exc:
        _load(module, opts, {"main.tf": text})
    err = exc.value
    assert err.file.endswith("main.tf") and "\n" not in str(err)
    if line:
        assert err.place == line


def test_terraform_function_not_evaluated_is_unknown_not_an_error(module, opts):
    m = _load(module, opts, {"main.tf": 'resource "aws_sqs_queue" "q" {\n  name = uuid()\n}\n'})
    assert m.queues["aws_sqs_queue.q"].name is None


def test_module_that_includes_itself(module, opts):
    with pytest.raises(VisguardError, match="includes itself"):
        _load(module, opts, {"main.tf": 'module "me" {\n  source = "./"\n}\n'})


def test_missing_local_module_and_unknown_input(module, opts):
    with pytest.raises(VisguardError, match="is not a folder"):
        _load(module, opts, {"main.tf": 'module "m" {\n  source = "./nowhere"\n}\n'})
    files = {
        "main.tf": 'module "m" {\n  source = "./m"\n  nope = 1\n}\n',
        "m/main.tf": 'variable "a" {\n  default = 1\n}\n',
    }
    with pytest.raises(VisguardError, match="no variable 'nope'"):
        _load(module, opts, files)


def test_bad_var_and_var_file(module, opts, tmp_path):
    with pytest.raises(VisguardError, match="--var nope: the root module has no variable"):
        _load(module, opts, {"main.tf": 'variable "a" {}\n'}, variables={"nope": "1"})
    bad = tmp_path / "bad.tfvars"
    bad.write_text('a = "x\n')
    with pytest.raises(VisguardError, match="cannot parse HCL") as exc:
        _load(module, opts, {"main.tf": 'variable "a" {}\n'}, var_files=[str(bad)])
    assert exc.value.file == str(bad)
    with pytest.raises(VisguardError, match="no such file"):
        _load(module, opts, {"main.tf": 'variable "a" {}\n'}, var_files=[str(tmp_path / "absent.tfvars")])


def test_binary_special_and_empty(module, opts, tmp_path):
    d = module({"main.tf": "\x00\x01"})
    with pytest.raises(VisguardError, match="NUL bytes"):
        terraform.load(d, opts())
    os.remove(os.path.join(d, "main.tf"))
    os.mkfifo(os.path.join(d, "pipe.tf"))  # a special file is never opened (it would block)
    with pytest.raises(VisguardError, match="not a regular file"):
        terraform.load(os.path.join(d, "pipe.tf"), opts())


def test_deep_nesting_is_an_error_not_a_crash(module, opts):
    deep = "[" * 3000 + "]" * 3000
    with pytest.raises(VisguardError):
        _load(module, opts, {"main.tf": f'resource "aws_sqs_queue" "q" {{\n  tags = {deep}\n}}\n'})
