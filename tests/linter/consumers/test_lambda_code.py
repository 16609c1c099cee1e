"""A Lambda function's package folder (linter/loaders/lambda_code.py) and the join of the code in it through the
function's environment (issue 35 §5): what is a package, what binds nothing, and one function per stage."""

from __future__ import annotations

import os
import textwrap

import pytest
from visguard.linter.api import lint_paths
from visguard.linter.loaders import lambda_code


def _write(root, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))


@pytest.mark.parametrize(
    "path",
    [
        "",
        "a\x00b.zip",
        "x" * 5000,
        "${var.dir}/fn.zip",
        "s3://bucket/fn.zip",
        "https://example.com/fn.zip",
        None,
        3,
    ],
)
def test_a_path_that_is_not_a_local_path_is_no_package(tmp_path, path):
    assert lambda_code.code_folder(path, str(tmp_path)) is None


def test_an_archive_s_package_is_the_nearest_manifest_above_it(tmp_path):
    _write(tmp_path, {"fn/package.json": "{}", "fn/src/main.ts": "", "requirements.txt": ""})
    (tmp_path / ".git").mkdir()
    assert lambda_code.code_folder("fn/dist/fn.zip", str(tmp_path)) == str(tmp_path / "fn")  # dist/ absent
    assert lambda_code.code_folder("fn/src", str(tmp_path), kind="dir") == str(tmp_path / "fn" / "src")
    assert lambda_code.code_folder("fn/src/main.ts", str(tmp_path), kind="file") == str(tmp_path / "fn")
    assert lambda_code.code_folder("other/out.zip", str(tmp_path)) == str(tmp_path)  # the root's manifest


def test_no_manifest_up_to_the_repository_root_is_no_package(tmp_path):
    _write(tmp_path, {"repo/fn/main.py": "", "package.json": "{}"})
    (tmp_path / "repo" / ".git").mkdir()
    assert lambda_code.code_folder("fn/build/fn.zip", str(tmp_path / "repo")) is None  # never above .git


def test_a_handler_names_its_source_file(tmp_path):
    _write(tmp_path, {"src/worker.ts": "", "app.py": ""})
    assert lambda_code.handler_file("src/worker.handler", str(tmp_path)) == str(
        tmp_path / "src" / "worker.ts"
    )
    assert lambda_code.handler_file("app.lambda_handler", str(tmp_path)) == str(tmp_path / "app.py")
    assert lambda_code.handler_file("com.example.Handler::handleRequest", str(tmp_path)) is None
    assert lambda_code.handler_file("missing.handler", str(tmp_path)) is None


_POLL = """\
    import os

    import boto3


    def handler(event, context):
        boto3.client("sqs").receive_message(QueueUrl=os.environ["QUEUE_URL"])
"""


def _joined(root) -> dict[str, str]:
    """queue -> the consumer VG020 names (no queue here has a redrive policy): the queues the code was joined to."""
    result = lint_paths([str(root)])
    assert not result.errors
    return {f.queue: str(f.message) for f in result.findings if f.rule == "VG020"}


def test_one_function_per_stage_joins_each_stage_s_queue(tmp_path):
    _write(
        tmp_path,
        {
            "app/requirements.txt": "boto3\n",
            "app/poll.py": _POLL,
            "main.tf": """\
                resource "aws_sqs_queue" "q" {
                  for_each = toset(["staging", "prod"])
                  name     = "jobs-${each.key}"
                }

                resource "aws_lambda_function" "f" {
                  for_each      = toset(["staging", "prod"])
                  filename      = "app/build/app.zip"
                  function_name = "poll-${each.key}"
                  role          = "arn:aws:iam::123456789012:role/poll"
                  handler       = "poll.handler"
                  runtime       = "python3.12"
                  environment {
                    variables = { QUEUE_URL = aws_sqs_queue.q[each.key].url }
                  }
                }
            """,
        },
    )
    joined = _joined(tmp_path)
    assert sorted(joined) == ['aws_sqs_queue.q["prod"]', 'aws_sqs_queue.q["staging"]']
    assert all("poll.py:7 in Lambda function aws_lambda_function.f[" in m for m in joined.values())


def test_a_function_whose_package_is_not_known_binds_nothing(tmp_path):
    _write(
        tmp_path,
        {
            "app/requirements.txt": "boto3\n",
            "app/poll.py": _POLL,
            "main.tf": """\
                variable "artifact" {
                  type = string
                }

                resource "aws_sqs_queue" "q" {
                  name = "jobs"
                }

                resource "aws_lambda_function" "f" {
                  filename      = var.artifact
                  function_name = "poll"
                  role          = "arn:aws:iam::123456789012:role/poll"
                  handler       = "poll.handler"
                  runtime       = "python3.12"
                  environment {
                    variables = { QUEUE_URL = aws_sqs_queue.q.url }
                  }
                }
            """,
        },
    )
    assert _joined(tmp_path) == {}
    notes = [f.message for f in lint_paths([str(tmp_path)]).findings if f.rule == "VG902"]
    assert any("QUEUE_URL" in n and os.path.join("app", "poll.py") in n for n in notes)
