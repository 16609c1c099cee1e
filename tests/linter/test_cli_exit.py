"""`visguard lint`'s exit codes on whole repositories (issue 35 §4; the table: visguard.errors): a valid repository
never makes a run fail. A folder with nothing visguard reads exits 0 with one line saying what was looked for; a
malformed file is one bad-input line, the rest is linted, and the exit code says both (4: bad input and findings);
exit 1 stays for input that is unreadable, missing or malformed."""

from __future__ import annotations

import json

import pytest
from visguard.cli import main
from visguard.errors import EXIT_BAD_INPUT, EXIT_BAD_INPUT_AND_FINDINGS, EXIT_FINDINGS, EXIT_OK

WARN = """AWSTemplateFormatVersion: "2010-09-09"
Resources:
  Orders:
    Type: AWS::SQS::Queue
    Properties:
      VisibilityTimeout: 60
  Mapping:
    Type: AWS::Lambda::EventSourceMapping
    Properties:
      EventSourceArn: !GetAtt Orders.Arn
      FunctionName: !Ref Fn
  Fn:
    Type: AWS::Lambda::Function
    Properties:
      Timeout: 30
"""
CLEAN = """AWSTemplateFormatVersion: "2010-09-09"
Resources:
  Bucket:
    Type: AWS::S3::Bucket
"""
MALFORMED = (
    "AWSTemplateFormatVersion: '2010-09-09'\nResources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties: [\n"
)


def lint(capsys, *args) -> tuple[int, str, list[str]]:
    code = main(["lint", "--no-config", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, [line for line in err.splitlines() if line]


def _repo_without_sqs(root):
    """A valid repository with nothing visguard reads: docs, code without SQS, YAML that is no template."""
    (root / "src").mkdir(parents=True)
    (root / "README.md").write_text("# a web app\n")
    (root / "src" / "app.py").write_text("def handler(event, context):\n    return {'ok': True}\n")
    (root / ".github" / "workflows").mkdir(parents=True)
    (root / ".github" / "workflows" / "ci.yml").write_text("on: push\njobs: {}\n")
    (root / "config.yaml").write_text("log_level: debug\n")
    return root


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "junit"])
def test_a_repository_with_nothing_to_lint_exits_0_with_one_line(capsys, tmp_path, fmt):
    repo = _repo_without_sqs(tmp_path / "web")
    code, out, err = lint(capsys, "-f", fmt, repo)
    assert code == EXIT_OK
    assert len(err) == 1, err
    assert err[0].startswith(f"visguard lint: {repo}: nothing to lint: looked for ")
    for kind in ("CloudFormation", "Terraform", "Kubernetes", "SQS consumers in application code"):
        assert kind in err[0]
    if fmt == "json":
        doc = json.loads(out)
        assert doc["errors"] == [] and doc["summary"]["bad_inputs"] == 0


def test_a_malformed_file_in_a_folder_is_one_line_and_the_rest_is_linted(capsys, tmp_path):
    (tmp_path / "infra").mkdir()
    (tmp_path / "infra" / "broken.yaml").write_text(MALFORMED)
    (tmp_path / "infra" / "orders.yaml").write_text(WARN)
    code, out, err = lint(capsys, tmp_path)
    assert code == EXIT_BAD_INPUT_AND_FINDINGS  # both: the exit code says there is bad input and findings
    assert len(err) == 1 and "broken.yaml" in err[0], err
    assert "VG011" in out and "orders.yaml" in out
    # below --fail-on the findings do not count: bad input alone
    code, _, err = lint(capsys, "--fail-on", "never", tmp_path)
    assert code == EXIT_BAD_INPUT and len(err) == 1


def test_a_malformed_file_beside_a_clean_one_is_bad_input(capsys, tmp_path):
    (tmp_path / "broken.yaml").write_text(MALFORMED)
    (tmp_path / "bucket.yaml").write_text(CLEAN)
    code, _, err = lint(capsys, tmp_path)
    assert code == EXIT_BAD_INPUT and len(err) == 1 and "broken.yaml" in err[0]


@pytest.mark.parametrize(
    ("name", "text", "said"),
    [
        ("missing.yaml", None, "no such file or directory"),
        ("list.json", "[1, 2, 3]", "list.json"),  # a file named on the command line must be readable as asked
        ("broken.yaml", MALFORMED, "broken.yaml"),
    ],
)
def test_a_file_named_on_the_command_line_that_cannot_be_read_is_exit_1(capsys, tmp_path, name, text, said):
    p = tmp_path / name
    if text is not None:
        p.write_text(text)
    code, _, err = lint(capsys, p)
    assert code == EXIT_BAD_INPUT and len(err) == 1 and said in err[0], err


def test_an_empty_folder_beside_a_linted_one_is_a_line_not_a_failure(capsys, tmp_path):
    (tmp_path / "infra").mkdir()
    (tmp_path / "infra" / "orders.yaml").write_text(WARN)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# docs\n")
    code, out, err = lint(capsys, tmp_path / "infra", docs)
    assert code == EXIT_FINDINGS and "VG011" in out
    assert len(err) == 1 and "nothing to lint" in err[0] and str(docs) in err[0]
    code, _, err = lint(capsys, tmp_path / "infra", docs, "--fail-on", "error")
    assert code == EXIT_OK and len(err) == 1


def test_diff_says_both_too(capsys, tmp_path):
    (tmp_path / "broken.yaml").write_text(MALFORMED)
    (tmp_path / "orders.yaml").write_text(WARN)
    code, out, err = lint(capsys, "--diff", tmp_path)
    assert code == EXIT_BAD_INPUT_AND_FINDINGS and "VisibilityTimeout" in out and len(err) == 1
    (tmp_path / "orders.yaml").write_text(CLEAN)
    code, out, err = lint(capsys, "--diff", tmp_path)
    assert code == EXIT_BAD_INPUT and out == "" and len(err) == 1
