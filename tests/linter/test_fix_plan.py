"""Issue 23 §2: one fix plan for --fix, --diff and SARIF. Findings that want one value set differently get the
value that satisfies them all, in every syntax; --fix converges and brings no new finding on every rule fixture and
example; SARIF is a pure function of the lint result and its plan; the adapters share no private names."""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest
import yaml
from visguard.cli import main
from visguard.linter.api import lint_paths
from visguard.linter.fix import plan
from visguard.linter.report import render

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv):
    code = main(["lint", "--no-config", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def ids(path) -> set[tuple]:
    return {(f.rule, f.queue, f.consumer) for f in lint_paths([str(path)]).findings}


# ------------------------------------------------------------------------------------------ the clash policy
# a queue whose function times out after 1000 s: VG010 wants the visibility timeout at 6 x 1000 = 6000 s, VG032
# wants the function at 900 s and the visibility timeout at 6 x 900 = 5400 s. The plan writes the first value, in
# ascending order, with which neither is reported any more: 5400. Before, the YAML fixer wrote whichever came last
# and the Terraform fixer refused both.
CFN = {
    "Resources": {
        "Jobs": {
            "Type": "AWS::SQS::Queue",
            "Properties": {
                "VisibilityTimeout": 60,
                "RedrivePolicy": {
                    "deadLetterTargetArn": {"Fn::GetAtt": ["Dlq", "Arn"]},
                    "maxReceiveCount": 5,
                },
            },
        },
        "Dlq": {"Type": "AWS::SQS::Queue", "Properties": {"MessageRetentionPeriod": 1209600}},
        "Worker": {
            "Type": "AWS::Lambda::Function",
            "Properties": {
                "Handler": "app.handler",
                "Runtime": "python3.12",
                "Role": "arn:aws:iam::1:role/w",
                "Code": {"ZipFile": "x"},
                "Timeout": 1000,
            },
        },  # fmt: skip
        "Mapping": {
            "Type": "AWS::Lambda::EventSourceMapping",
            "Properties": {
                "EventSourceArn": {"Fn::GetAtt": ["Jobs", "Arn"]},
                "FunctionName": {"Ref": "Worker"},
                "BatchSize": 1,
            },
        },  # fmt: skip
    }
}
HCL = """resource "aws_sqs_queue" "jobs" {
  visibility_timeout_seconds = 60
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.dlq.arn
    maxReceiveCount     = 5
  })
}

resource "aws_sqs_queue" "dlq" {
  message_retention_seconds = 1209600
}
"""
LAMBDA = """resource "aws_lambda_function" "worker" {
  function_name = "worker"
  role          = "arn:aws:iam::123456789012:role/worker"
  handler       = "app.handler"
  runtime       = "python3.12"
  filename      = "worker.zip"
  timeout       = 1000
}

resource "aws_lambda_event_source_mapping" "worker" {
  event_source_arn = aws_sqs_queue.jobs.arn
  function_name    = aws_lambda_function.worker.arn
  batch_size       = 1
}
"""
TF_JSON = {
    "resource": {
        "aws_sqs_queue": {
            "jobs": {
                "visibility_timeout_seconds": 60,
                "redrive_policy": "${jsonencode({deadLetterTargetArn = aws_sqs_queue.dlq.arn, maxReceiveCount = 5})}",
            },
            "dlq": {"message_retention_seconds": 1209600},
        },
        "aws_lambda_function": {
            "worker": {
                "function_name": "worker",
                "role": "arn:aws:iam::123456789012:role/worker",
                "handler": "app.handler",
                "runtime": "python3.12",
                "filename": "worker.zip",
                "timeout": 1000,
            }
        },  # fmt: skip
        "aws_lambda_event_source_mapping": {
            "worker": {
                "event_source_arn": "${aws_sqs_queue.jobs.arn}",
                "function_name": "${aws_lambda_function.worker.arn}",
                "batch_size": 1,
            }
        },  # fmt: skip
    }
}
# syntax -> (files, the input, the lines the fix writes)
CLASH = {
    "cloudformation yaml": (
        {"t.yaml": yaml.safe_dump(CFN, sort_keys=False)}, "t.yaml", ["VisibilityTimeout: 5400", "Timeout: 900"]
    ),
    "cloudformation json": (
        {"t.json": json.dumps(CFN, indent=2)}, "t.json", ['"VisibilityTimeout": 5400', '"Timeout": 900']
    ),
    "terraform hcl": (
        {"main.tf": HCL + "\n" + LAMBDA}, ".", ["visibility_timeout_seconds = 5400", "timeout       = 900"]
    ),
    "terraform json": (
        {"main.tf.json": json.dumps(TF_JSON, indent=2)},
        ".",
        ['"visibility_timeout_seconds": 5400', '"timeout": 900'],
    ),
}  # fmt: skip


@pytest.mark.parametrize("syntax", sorted(CLASH))
def test_findings_that_want_one_value_get_the_one_that_satisfies_them_all(tmp_path, capsys, syntax):
    files, target, lines = CLASH[syntax]
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    before = lint_paths([str(tmp_path / target)]).findings
    assert {"VG010", "VG032"} <= {f.rule for f in before}
    code, out, err = run(capsys, tmp_path / target, "--fix")
    assert "not fixed" not in err and "fixed 2 finding(s)" in err, err
    written = "".join((tmp_path / name).read_text() for name in files)
    assert all(line in written for line in lines), written
    assert not {f.rule for f in lint_paths([str(tmp_path / target)]).findings} & {"VG010", "VG011", "VG032"}
    assert run(capsys, tmp_path / target, "--diff")[1] == ""


# ------------------------------------------------------------------------------------------ convergence
def _inputs() -> list[Path]:
    found = [  # every rule fixture case of every input kind (<rule>/<kind>/fail.yaml, <rule>/<kind>/pass/), and
        p  # the visguard.yaml beside some of them, linted as an input of its own
        for p in sorted((ROOT / "tests/linter/fixtures/rules").glob("vg*/*/*"))
        if p.name.startswith(("fail", "pass", "visguard")) and not p.name.endswith(".json")
    ]
    found += sorted((ROOT / "tests/linter/terraform/shapes").glob("*/"))
    found += sorted((ROOT / "examples/templates").glob("*"))
    found += [ROOT / "examples/terraform", ROOT / "examples/serverless"]
    return [p for p in found if p.is_dir() or p.suffix in (".yaml", ".yml", ".json")]


INPUTS = _inputs()


@pytest.mark.parametrize("source", INPUTS, ids=[str(p.relative_to(ROOT)) for p in INPUTS])
def test_fix_brings_no_new_finding_and_a_second_fix_changes_nothing(tmp_path, capsys, source):
    copy = tmp_path / source.name
    if source.is_dir():
        shutil.copytree(source, copy, symlinks=True)
    else:
        shutil.copy(source, copy)
    before = ids(copy)
    run(capsys, copy, "--fix")
    assert ids(copy) <= before
    code, out, _ = run(capsys, copy, "--diff")
    assert out == "" and code in (0, 1)


def test_the_inputs_are_every_fixture_and_example():
    said = [str(p.relative_to(ROOT)) for p in INPUTS]
    for where in ("tests/linter/fixtures/rules/vg010/cfn/", "tests/linter/fixtures/rules/vg010/terraform/",
                  "tests/linter/fixtures/rules/vg010/serverless/", "tests/linter/terraform/shapes/",
                  "examples/templates/", "examples/terraform"):  # fmt: skip
        assert any(s.startswith(where) for s in said), where
    assert len(said) > 100


# ------------------------------------------------------------------------------------------ SARIF
def test_sarif_is_a_pure_function_of_the_lint_result_and_its_plan(tmp_path):
    t = tmp_path / "t.yaml"
    t.write_text(yaml.safe_dump(CFN, sort_keys=False))
    result = lint_paths([str(t)])
    assert json.loads(render(result, "sarif"))["runs"][0]["results"][0].get("fixes") is None  # not planned
    result.fixes = plan(result, lambda: lint_paths([str(t)]))
    first = render(result, "sarif")
    t.write_text("not: [a template")  # the reporter reads nothing: the plan holds the texts
    assert render(result, "sarif") == first
    fixes = [r.get("fixes") for r in json.loads(first)["runs"][0]["results"]]
    vg010 = next(f for f in fixes if f and "VisibilityTimeout" in f[0]["description"]["text"])
    (rep,) = vg010[0]["artifactChanges"][0]["replacements"]
    assert rep["insertedContent"]["text"].strip() == "VisibilityTimeout: 5400"  # the value the plan chose


# ------------------------------------------------------------------------------------------ layout
def _imports(name: str) -> list[tuple[str, str]]:
    tree = ast.parse((ROOT / "linter" / name).read_text())
    return [
        ((node.module or "").rsplit(".", 1)[-1], alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    ]


def test_the_fixers_import_no_private_name_of_each_other():
    fixers = {"fix", "hcl", "tfjson", "cfn", "terraform", "core"}
    for name in ("fix.py", "fixes/hcl.py", "fixes/tfjson.py", "fixes/cfn.py", "fixes/terraform.py"):
        private = [(m, n) for m, n in _imports(name) if m in fixers and n.startswith("_")]
        assert private == [], name
    assert not [m for m, n in _imports("fixes/tfjson.py") if m == "hcl" or n == "hcl"]
