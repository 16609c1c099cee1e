"""Issue 14 §4: `visguard lint --fix` / `--diff` on Terraform root modules rewrite literal values in the module's
own .tf and .tfvars files (linter/fixes/hcl.py), changing only their characters; everything else is left alone."""

from __future__ import annotations

import difflib
import json
import os
import shutil
from pathlib import Path

import pytest
from visguard.cli import main
from visguard.linter.api import lint_paths
from visguard.linter.fixes import hcl as fix_hcl
from visguard.linter.loaders.terraform.hcl import parse_attrs, parse_hcl
from visguard.linter.model import Change, Finding, Location, Severity

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "terraform"
RULES = Path(__file__).resolve().parents[1] / "fixtures" / "rules"  # <rule>/terraform/fail


def run(capsys, *argv):
    code = main(["lint", "--no-config", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def changed_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    minus, plus = [], []
    for line in difflib.ndiff(before.splitlines(), after.splitlines()):
        if line.startswith("- "):
            minus.append(line[2:])
        elif line.startswith("+ "):
            plus.append(line[2:])
    return minus, plus


def snapshot(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text() for p in sorted(folder.rglob("*")) if p.is_file()}


def comments(text: str) -> list[str]:
    return [line[line.index("#") :] for line in text.splitlines() if "#" in line]


# ------------------------------------------------------------------------------------------ the example module
def test_example_module_diff_then_fix(tmp_path, capsys):
    root = tmp_path / "infra"
    shutil.copytree(EXAMPLE, root)
    before = snapshot(root)
    code, out, err = run(capsys, root, "--diff")
    assert code == 2 and snapshot(root) == before  # --diff writes nothing
    assert f"--- a/{str(root / 'main.tf').lstrip('/')}" in out and "+orders_visibility_timeout = 1800" in out
    assert "modules/worker/main.tf: VG031" in err and "outside the root module" in err

    code, out, err = run(capsys, root, "--fix")
    after = snapshot(root)
    assert (
        code == 2 and "main.tf: fixed 3 finding(s)" in err and "terraform.tfvars: fixed 1 finding(s)" in err
    )
    assert changed_lines(before["terraform.tfvars"], after["terraform.tfvars"]) == (
        ["orders_visibility_timeout = 60"],
        ["orders_visibility_timeout = 1800"],
    )
    assert changed_lines(before["main.tf"], after["main.tf"]) == (
        ["    maxReceiveCount     = 3"],
        ["  message_retention_seconds = 1209600", "    maxReceiveCount     = 5"],
    )
    # the DLQ's new argument is the last one of its block, with the block's indentation
    assert (
        '  tags = local.tags\n  message_retention_seconds = 1209600\n}\n\nmodule "orders_worker"'
        in after["main.tf"]
    )
    # comments kept; the child module, variables.tf and everything else byte for byte
    assert comments(after["main.tf"]) == comments(before["main.tf"])
    for name in ("variables.tf", "modules/worker/main.tf"):
        assert after[name] == before[name]
    assert not list(root.rglob("*visguard-fix*"))  # no temporary left
    parse_hcl(after["main.tf"], "main.tf")  # the loader's parser reads the result
    parse_attrs(after["terraform.tfvars"], "terraform.tfvars")
    # the report after --fix is of the fixed module; the fixed findings are gone, a second --fix changes nothing
    rules = {(f.rule, f.queue) for f in lint_paths([str(root)]).findings}
    assert rules == {("VG031", 'aws_sqs_queue.notifications["email"]')}
    code, out, _ = run(capsys, root, "--diff")
    assert code == 0 and out == ""
    code, _, _ = run(capsys, root, "--fix")
    assert snapshot(root) == after


# ------------------------------------------------------------------------------------------ every rule fixture
FAIL = sorted(p for p in RULES.glob("*/terraform/fail*") if p.is_dir())


@pytest.mark.parametrize("fixture", FAIL, ids=[p.parents[1].name for p in FAIL])
def test_rule_fixtures_fix_is_idempotent_and_the_findings_go(fixture, tmp_path, capsys):
    root = tmp_path / "m"
    shutil.copytree(fixture, root)
    before = snapshot(root)
    findings = lint_paths([str(root)]).findings
    code, _, err = run(capsys, root, "--fix")
    after = snapshot(root)
    fixed = [line for line in err.splitlines() if ": fixed " in line]
    if not fixed:
        assert after == before
        return
    for name, text in after.items():
        if name.endswith((".tf", ".tfvars")):
            # the loader's parser reads the result
            (parse_attrs if name.endswith(".tfvars") else parse_hcl)(text, name)
            if text != before[name]:
                assert comments(text) == comments(before[name])
    skipped = {line.split(": ")[2].split(" not fixed")[0] for line in err.splitlines() if "not fixed" in line}
    left = {(f.rule, f.queue) for f in lint_paths([str(root)]).findings}
    for f in findings:
        if f.changes and f"{f.rule} on {f.queue}" not in skipped:
            assert (f.rule, f.queue) not in left, f"{f.rule} on {f.queue} is still reported after --fix"
    # one --fix reaches the point where --fix changes nothing (issue 23 §2: VG001's 43200 s, longer than VG013
    # wants, used to take a second run) and brings no new finding
    assert left <= {(f.rule, f.queue) for f in findings}
    code, out, _ = run(capsys, root, "--diff")
    assert out == "" and code in (0, 2)
    run(capsys, root, "--fix")
    assert snapshot(root) == after


# ------------------------------------------------------------------------------------------ where values come from
WORKER = """
resource "aws_lambda_function" "worker" {
  function_name = "worker"
  role          = "arn:aws:iam::123456789012:role/worker"
  handler       = "app.handler"
  runtime       = "python3.12"
  filename      = "worker.zip"
  timeout       = 300
}

resource "aws_lambda_event_source_mapping" "worker" {
  event_source_arn        = aws_sqs_queue.jobs.arn
  function_name           = aws_lambda_function.worker.arn
  batch_size              = 1
  function_response_types = ["ReportBatchItemFailures"]
}
"""


def _fix(module, capsys, files):
    """--fix on a module whose queues need no dead-letter queue fix (VG020 suppressed: not what these are about)."""
    quiet = '# visguard:ignore VG020 not what this test is about\nresource "aws_sqs_queue" "'
    files = {k: v.replace('resource "aws_sqs_queue" "', quiet) for k, v in files.items()}
    root = Path(module(files))
    before = snapshot(root)
    code, out, err = run(capsys, root, "--fix")
    return root, before, snapshot(root), err


def test_variable_default_is_changed_with_its_comment_and_quoting(module, capsys):
    root, before, after, err = _fix(
        module,
        capsys,
        {
            "main.tf": 'resource "aws_sqs_queue" "jobs" {\n  visibility_timeout_seconds = var.jobs_timeout\n}\n'
            + WORKER,
            "variables.tf": 'variable "jobs_timeout" {\n  type    = number\n  default = "60" # seconds\n}\n',
        },
    )
    assert changed_lines(before["variables.tf"], after["variables.tf"]) == (
        ['  default = "60" # seconds'],
        ['  default = "1800" # seconds'],
    )
    assert after["main.tf"] == before["main.tf"]
    assert not [f for f in lint_paths([str(root)]).findings if f.rule == "VG010"]


def test_module_argument_of_a_local_module_is_changed_not_the_module(module, capsys):
    child = 'variable "vt" {\n  type = number\n}\n\nresource "aws_sqs_queue" "jobs" {\n  visibility_timeout_seconds = var.vt\n}\n'
    root, before, after, err = _fix(
        module,
        capsys,
        {
            "main.tf": 'module "q" {\n  source = "./modules/q"\n  vt     = 60 # set by ops\n}\n'
            + WORKER.replace("aws_sqs_queue.jobs.arn", "module.q.arn"),
            "modules/q/main.tf": child + 'output "arn" {\n  value = aws_sqs_queue.jobs.arn\n}\n',
        },
    )
    assert changed_lines(before["main.tf"], after["main.tf"]) == (
        ["  vt     = 60 # set by ops"],
        ["  vt     = 1800 # set by ops"],
    )
    assert after["modules/q/main.tf"] == before["modules/q/main.tf"]


def test_tfvars_wins_over_the_default_and_is_the_line_changed(module, capsys):
    root, before, after, err = _fix(
        module,
        capsys,
        {
            "main.tf": 'variable "vt" {\n  default = 30\n}\n\nresource "aws_sqs_queue" "jobs" {\n'
            "  visibility_timeout_seconds = var.vt\n}\n" + WORKER,
            "terraform.tfvars": "# per environment\nvt = 60\n",
        },
    )
    assert after["main.tf"] == before["main.tf"]
    assert after["terraform.tfvars"] == "# per environment\nvt = 1800\n"


def test_missing_function_response_types_is_added_in_the_block(module, capsys):
    root, before, after, err = _fix(
        module,
        capsys,
        {
            "main.tf": 'resource "aws_sqs_queue" "jobs" {\n  visibility_timeout_seconds = 1800\n}\n'
            + WORKER.replace('  function_response_types = ["ReportBatchItemFailures"]\n', "").replace(
                "batch_size              = 1", "batch_size              = 10"
            )
        },
    )
    minus, plus = changed_lines(before["main.tf"], after["main.tf"])
    assert minus == [] and plus == ['  function_response_types = ["ReportBatchItemFailures"]']
    assert "  batch_size              = 10\n" + plus[0] + "\n}" in after["main.tf"]
    assert not [f for f in lint_paths([str(root)]).findings if f.rule == "VG031"]


def test_redrive_literal_inside_jsonencode_and_a_single_tf_file_input(module, capsys):
    root = Path(
        module(
            {
                "main.tf": 'resource "aws_sqs_queue" "dlq" {\n  message_retention_seconds = 1209600\n}\n\n'
                'resource "aws_sqs_queue" "jobs" {\n  visibility_timeout_seconds = 1800\n'
                "  redrive_policy = jsonencode({\n    deadLetterTargetArn = aws_sqs_queue.dlq.arn\n"
                "    maxReceiveCount     = 2 # too few\n  })\n}\n" + WORKER
            }
        )
    )
    code, _, err = run(capsys, root / "main.tf", "--fix")
    assert "    maxReceiveCount     = 5 # too few\n" in (root / "main.tf").read_text()
    assert not [f for f in lint_paths([str(root)]).findings if f.rule == "VG021"]


# ------------------------------------------------------------------------------------------ refusals
def test_expressions_are_never_rewritten(module, capsys):
    root, before, after, err = _fix(
        module,
        capsys,
        {
            "main.tf": 'locals {\n  base = 20\n}\n\nresource "aws_sqs_queue" "jobs" {\n'
            "  visibility_timeout_seconds = max(local.base * 3, 30)\n}\n" + WORKER,
        },
    )
    assert "  visibility_timeout_seconds = max(local.base * 3, 30)\n" in after["main.tf"]
    assert (
        "VG010 on aws_sqs_queue.jobs not fixed automatically: max(local.base * 3, 30) is an expression" in err
    )


def test_registry_module_in_dot_terraform_is_never_edited(module, capsys):
    inner = 'variable "vt" {\n  default = 60\n}\n\nresource "aws_sqs_queue" "this" {\n  visibility_timeout_seconds = 60\n}\n\noutput "arn" {\n  value = aws_sqs_queue.this.arn\n}\n'
    manifest = {"Modules": [{"Key": "q", "Source": "example/q/aws", "Dir": ".terraform/modules/q"}]}
    root, before, after, err = _fix(
        module,
        capsys,
        {
            "main.tf": 'module "q" {\n  source = "example/q/aws"\n}\n'
            + WORKER.replace("aws_sqs_queue.jobs.arn", "module.q.arn"),
            ".terraform/modules/modules.json": json.dumps(manifest),
            ".terraform/modules/q/main.tf": inner,
        },
    )
    assert [f.rule for f in lint_paths([str(root)]).findings if f.rule == "VG010"]  # it was found ...
    assert after == before  # ... and nothing was written
    assert ".terraform/modules/q/main.tf: VG010" in err and "outside the root module" in err


JSON_QUEUES = {
    "resource": {
        "aws_sqs_queue": {
            "literal": {"name": "literal", "visibility_timeout_seconds": 60},
            "quoted": {"name": "quoted", "visibility_timeout_seconds": "60"},
            "template": {"name": "template", "visibility_timeout_seconds": "${var.vt * 2}"},
            "missing": {"name": "missing"},
        },
        "aws_lambda_event_source_mapping": {
            name: {
                "event_source_arn": f"${{aws_sqs_queue.{name}.arn}}",
                "function_name": "${aws_lambda_function.worker.arn}",
                "batch_size": 10,
            }
            for name in ("literal", "quoted", "template", "missing")
        },
    },
    "variable": {"vt": {"default": 45}},
}


def test_terraform_json_syntax_gets_its_changes_written_in_json(module, capsys):
    """*.tf.json: a literal number rewritten (a quoted one stays quoted), a missing argument added as the object's
    first member with the next member's indentation, a template string and a dead-letter queue left alone with
    the reason; the file stays JSON and lints clean of what was fixed."""
    worker = WORKER[: WORKER.index('resource "aws_lambda_event_source_mapping"')]
    root = Path(module({"main.tf.json": json.dumps(JSON_QUEUES, indent=2), "w.tf": worker}))
    before = (root / "main.tf.json").read_text()
    code, _, err = run(capsys, root, "--fix")
    after = (root / "main.tf.json").read_text()
    minus, plus = changed_lines(before, after)
    assert minus == ['        "visibility_timeout_seconds": 60', '        "visibility_timeout_seconds": "60"']
    assert (
        plus
        == [
            '        "visibility_timeout_seconds": 1800',
            '        "visibility_timeout_seconds": "1800"',
            '        "visibility_timeout_seconds": 1800,',
        ]
        + ['        "function_response_types": ["ReportBatchItemFailures"],'] * 4
    )
    doc = json.loads(after)["resource"]["aws_sqs_queue"]
    assert list(doc["missing"]) == ["visibility_timeout_seconds", "name"]
    assert "${var.vt * 2} is an expression, not a literal" in err.replace('"', "")
    assert "not added in Terraform JSON syntax" in err
    left = {(f.rule, f.queue) for f in lint_paths([str(root)]).findings if f.rule in ("VG010", "VG031")}
    assert left == {("VG010", "aws_sqs_queue.template")}


def test_a_terraform_json_object_on_one_line_is_left_alone(module, capsys):
    doc = '{"resource": {"aws_sqs_queue": {"jobs": {"name": "jobs"}}}}\n'
    root, before, after, err = _fix(module, capsys, {"main.tf.json": doc, "w.tf": WORKER})
    assert after == before and "without members on lines of their own" in err


def test_a_tfvars_json_value_is_changed_in_place(module, capsys):
    root, before, after, err = _fix(
        module,
        capsys,
        {
            "main.tf": 'variable "vt" {}\n\nresource "aws_sqs_queue" "jobs" {\n  visibility_timeout_seconds = var.vt\n}\n'
            + WORKER,
            "terraform.tfvars.json": '{\n  "vt": 60\n}\n',
        },
    )
    assert after["terraform.tfvars.json"] == '{\n  "vt": 1800\n}\n'
    assert after["main.tf"] == before["main.tf"]


def test_findings_that_want_a_shared_value_different_get_the_one_that_satisfies_both(module, capsys):
    # a literal shared by count instances whose consumers want different values (1800 and 600): the clash policy
    # writes the value with which neither finding is left and nothing new appears (issue 23 §2; this was left
    # for a person before)
    instances = (
        'resource "aws_sqs_queue" "jobs" {\n  count                      = 2\n'
        "  visibility_timeout_seconds = 60\n}\n\n"
        + WORKER.replace('"worker" {', '"worker" {\n  count = 2', 2)
        .replace('function_name = "worker"', 'function_name = "worker${count.index}"')
        .replace("timeout       = 300", "timeout       = count.index == 0 ? 300 : 100")
        .replace("aws_sqs_queue.jobs.arn", "aws_sqs_queue.jobs[count.index].arn")
        .replace("aws_lambda_function.worker.arn", "aws_lambda_function.worker[count.index].arn")
    )
    root, before, after, err = _fix(module, capsys, {"main.tf": instances})
    assert changed_lines(before["main.tf"], after["main.tf"]) == (
        ["  visibility_timeout_seconds = 60"],
        ["  visibility_timeout_seconds = 1800"],
    )
    assert "not fixed" not in err
    assert not [f for f in lint_paths([str(root)]).findings if f.rule in ("VG010", "VG011", "VG013")]


def test_without_a_choice_findings_that_want_a_value_different_are_left_for_a_person():
    text = 'resource "aws_sqs_queue" "jobs" {\n  visibility_timeout_seconds = 60\n}\n'
    findings = [_finding("main.tf", 2, 3, 1800), _finding("main.tf", 2, 3, 600)]
    ff = fix_hcl.fix_text("main.tf", text, findings)
    assert not ff.changed
    assert [why for _, why in ff.skipped] == [
        "findings want this value set to 1800 or 600: choose by hand"
    ] * 2
    ff = fix_hcl.fix_text("main.tf", text, findings, choices={(2, 3, ""): 1800})
    assert ff.after == text.replace("= 60", "= 1800") and ff.applied == findings


def test_a_fix_that_would_bring_a_new_finding_is_refused_with_its_name(module, capsys):
    # one VG010 (instance 0 wants 1800 s), but 1800 s is far longer than instance 1 needs (its function times out
    # after 1 s): the fix would bring VG013, so it is left alone and the reason names VG013
    instances = (
        'resource "aws_sqs_queue" "jobs" {\n  count                      = 2\n'
        "  visibility_timeout_seconds = 60\n}\n\n"
        + WORKER.replace('"worker" {', '"worker" {\n  count = 2', 2)
        .replace('function_name = "worker"', 'function_name = "worker${count.index}"')
        .replace("timeout       = 300", "timeout       = count.index == 0 ? 300 : 1")
        .replace("aws_sqs_queue.jobs.arn", "aws_sqs_queue.jobs[count.index].arn")
        .replace("aws_lambda_function.worker.arn", "aws_lambda_function.worker[count.index].arn")
    )
    root, before, after, err = _fix(module, capsys, {"main.tf": instances})
    assert after == before
    assert (
        "VG010 on aws_sqs_queue.jobs[0] not fixed automatically: its fix would bring VG013 on "
        "aws_sqs_queue.jobs[1]: fix it by hand" in err
    )


def test_a_variable_two_queues_use_is_left_alone_with_its_name(module, capsys):
    other = WORKER.replace("worker", "other").replace("aws_sqs_queue.jobs", "aws_sqs_queue.other")
    two = WORKER + other.replace("timeout       = 300", "timeout       = 100")
    root, before, after, err = _fix(
        module,
        capsys,
        {
            "main.tf": 'variable "vt" {\n  default = 60\n}\n\n'
            'resource "aws_sqs_queue" "jobs" {\n  visibility_timeout_seconds = var.vt\n}\n\n'
            'resource "aws_sqs_queue" "other" {\n  visibility_timeout_seconds = var.vt\n}\n' + two,
        },
    )
    assert after == before
    assert err.count("the value is var.vt, used 2 times in the root module") == 2


def _finding(path: str, line: int, column: int, value=1800) -> Finding:
    loc = Location(path, line, column, path="x")
    ch = Change("queue", "aws_sqs_queue.jobs", "visibility_timeout", value, loc)
    return Finding("VG010", Severity.ERROR, "m", "aws_sqs_queue.jobs", loc, "fix", changes=(ch,))


def test_a_file_that_does_not_parse_is_never_touched():
    text = 'resource "aws_sqs_queue" "jobs" {\n  visibility_timeout_seconds = 60\n'  # no closing brace
    ff = fix_hcl.fix_text("main.tf", text, [_finding("main.tf", 2, 3)])
    assert not ff.changed and ff.skipped[0][1] == "the file does not parse"


def test_a_rewrite_that_does_not_parse_is_never_written(monkeypatch):
    text = 'resource "aws_sqs_queue" "jobs" {\n  visibility_timeout_seconds = 60\n}\n'
    from visguard.linter.fixes import terraform

    monkeypatch.setattr(terraform, "literal", lambda change: "60 }")
    ff = fix_hcl.fix_text("main.tf", text, [_finding("main.tf", 2, 3)])
    assert not ff.changed and "would not parse" in ff.skipped[0][1]
    monkeypatch.undo()
    ff = fix_hcl.fix_text("main.tf", text, [_finding("main.tf", 2, 3)])
    assert ff.after == text.replace("= 60", "= 1800")
    ff = fix_hcl.fix_text("main.tf", text, [_finding("main.tf", 2, 9)])  # not where the value is
    assert not ff.changed and "not where the loader read it" in ff.skipped[0][1]


def test_for_each_map_entry_is_the_value_changed(module, capsys):
    root, before, after, err = _fix(
        module,
        capsys,
        {
            "main.tf": "locals {\n  jobs = {\n    a = { vt = 60 } # slow\n    b = { vt = 1800 }\n  }\n}\n\n"
            'resource "aws_sqs_queue" "jobs" {\n  for_each                   = local.jobs\n'
            "  visibility_timeout_seconds = each.value.vt\n}\n"
            + WORKER.replace("aws_sqs_queue.jobs.arn", 'aws_sqs_queue.jobs["a"].arn'),
        },
    )
    assert changed_lines(before["main.tf"], after["main.tf"]) == (
        ["    a = { vt = 60 } # slow"],
        ["    a = { vt = 1800 } # slow"],
    )


def test_a_var_given_on_the_command_line_is_not_a_file_to_edit(module, capsys):
    root = Path(
        module(
            {
                "main.tf": 'variable "vt" {\n  default = 1800\n}\n\nresource "aws_sqs_queue" "jobs" {\n'
                "  visibility_timeout_seconds = var.vt\n}\n" + WORKER
            }
        )
    )
    assert "  default = 1800\n" in snapshot(root)["main.tf"]
    code, _, err = run(capsys, root, "--var", "vt=60", "--fix")
    assert code == 2 and "  visibility_timeout_seconds = var.vt\n  redrive" in snapshot(root)["main.tf"]
    assert "  default = 1800\n" in snapshot(root)["main.tf"]
    assert "VG010 on aws_sqs_queue.jobs not fixed automatically: var.vt is an expression" in err


def test_pre_commit_terraform_fix_hook(module, capsys, monkeypatch):
    import yaml
    from visguard.linter import precommit

    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    py, system = hooks["visguard-terraform-fix"], hooks["visguard-terraform-fix-system"]
    assert py["entry"] == system["entry"] == "visguard-pre-commit terraform --fix"
    assert py["files"] == system["files"] == hooks["visguard-terraform"]["files"]
    root = Path(module({"infra/main.tf": 'resource "aws_sqs_queue" "jobs" {\n  visibility_timeout_seconds = 60\n}\n'
                        + WORKER}))  # fmt: skip
    monkeypatch.chdir(root)
    argv = py["entry"].split()[1:] + ["infra/main.tf"]
    assert precommit.main(argv) == 2  # a file changed: the commit stops, like ruff --fix
    assert "visibility_timeout_seconds = 1800" in (root / "infra" / "main.tf").read_text()
    fixed = (root / "infra" / "main.tf").read_text()
    capsys.readouterr()
    precommit.main(argv)  # still exit 2: VG020 (no DLQ) is for a person
    assert ": fixed " not in capsys.readouterr().err and (root / "infra" / "main.tf").read_text() == fixed


def test_offsets_count_lines_as_hcl_does_and_a_closing_brace_on_the_last_line_is_refused():
    text = '# a \u2028 comment\nresource "aws_sqs_queue" "jobs" {\n  visibility_timeout_seconds = 60\n}\n'
    ff = fix_hcl.fix_text("main.tf", text, [_finding("main.tf", 3, 3)])
    assert ff.after == text.replace("= 60", "= 1800")
    text = 'resource "aws_sqs_queue" "jobs" {\n  name = "jobs" }\n'
    ch = Change(
        "queue", "aws_sqs_queue.jobs", "message_retention", 1209600, Location("main.tf", 1, 1, path="x")
    )
    f = Finding("VG022", Severity.WARNING, "m", "aws_sqs_queue.jobs", ch.location, "fix", changes=(ch,))
    ff = fix_hcl.fix_text("main.tf", text, [f])
    assert not ff.changed and "closing brace" in ff.skipped[0][1]


def test_sarif_carries_the_same_change_as_fix(tmp_path, capsys):
    root = tmp_path / "infra"
    shutil.copytree(EXAMPLE, root)
    code, out, _ = run(capsys, root, "--format", "sarif")
    results = json.loads(out)["runs"][0]["results"]
    fixes = {r["ruleId"]: r.get("fixes") for r in results if r["ruleId"] in ("VG010", "VG031")}
    assert fixes["VG031"] is None  # written in the child module: --fix leaves it too
    (change,) = fixes["VG010"][0]["artifactChanges"]
    assert change["artifactLocation"]["uri"].endswith("terraform.tfvars")
    assert change["replacements"] == [
        {
            "deletedRegion": {"startLine": 2, "startColumn": 1, "endLine": 3, "endColumn": 1},
            "insertedContent": {"text": "orders_visibility_timeout = 1800\n"},
        }
    ]
    run(capsys, root, "--fix")
    assert (root / "terraform.tfvars").read_text().splitlines()[1] == "orders_visibility_timeout = 1800"


def test_a_symlinked_file_is_not_written_through(tmp_path, capsys):
    # a link that stays inside the root module's folder is read (one leading outside is not: test_terraform_doors)
    root = tmp_path / "root"
    shared = root / "shared"
    shared.mkdir(parents=True)
    (shared / "queue.tf").write_text(
        'resource "aws_sqs_queue" "jobs" {\n  visibility_timeout_seconds = 60\n}\n'
    )
    (root / "queue.tf").symlink_to(os.path.join("shared", "queue.tf"))
    (root / "worker.tf").write_text(WORKER)
    code, _, err = run(capsys, root, "--fix")
    assert (root / "queue.tf").is_symlink() and "= 60" in (shared / "queue.tf").read_text()
    assert "a symbolic link" in err


@pytest.mark.parametrize(
    "files, ref",
    [
        (  # the variable also names a tag: a new default would change the tag too
            {
                "main.tf": 'variable "vt" {\n  default = 60\n}\n\nresource "aws_sqs_queue" "jobs" {\n'
                '  visibility_timeout_seconds = var.vt\n  tags = { window = "${var.vt}" }\n}\n' + WORKER
            },
            "var.vt, used 2 times",
        ),
        (  # the same through terraform.tfvars
            {
                "main.tf": 'variable "vt" {}\n\nresource "aws_sqs_queue" "jobs" {\n'
                "  visibility_timeout_seconds = var.vt\n  delay_seconds = var.vt > 100 ? 0 : 1\n}\n" + WORKER,
                "terraform.tfvars": "vt = 60\n",
            },
            "var.vt, used 2 times",
        ),
        (  # a local used by two queues
            {
                "main.tf": "locals {\n  vt = 60\n}\n\n"
                'resource "aws_sqs_queue" "jobs" {\n  visibility_timeout_seconds = local.vt\n}\n\n'
                'resource "aws_sqs_queue" "spare" {\n  visibility_timeout_seconds = local.vt\n}\n' + WORKER
            },
            "local.vt, used 2 times",
        ),
    ],
)
def test_a_variable_used_elsewhere_is_left_alone_with_its_name(module, capsys, files, ref):
    root, before, after, err = _fix(module, capsys, files)
    assert after == before
    _, out, _ = run(capsys, root, "--format", "sarif")  # SARIF offers no fix --fix would not make
    vg010 = [r for r in json.loads(out)["runs"][0]["results"] if r["ruleId"] == "VG010"]
    assert vg010 and all("fixes" not in r for r in vg010)
    assert (
        f"VG010 on aws_sqs_queue.jobs not fixed automatically: the value is {ref} in the root module" in err
    )


def test_the_docs_diff_example_is_what_visguard_prints(capsys, monkeypatch):
    readme = (ROOT / "docs" / "terraform.md").read_text()  # the site's Terraform guide
    start = readme.index("$ visguard lint examples/terraform --diff\n") + len(
        "$ visguard lint examples/terraform --diff\n"
    )
    monkeypatch.chdir(ROOT)
    code, out, err = run(capsys, "examples/terraform", "--diff")
    assert code == 2 and readme[start : readme.index("```", start)] == out + err
    assert not list((ROOT / "examples" / "terraform").rglob("*visguard-fix*"))


def test_a_plan_is_never_rewritten(tmp_path, capsys):
    plan = tmp_path / "plan.json"
    shutil.copy(Path(__file__).resolve().parent / "fixtures" / "plan" / "plan.json", plan)
    before = plan.read_bytes()
    code, out, err = run(capsys, plan, "--fix")
    assert plan.read_bytes() == before and "a Terraform plan is Terraform's output" in err
    assert ": fixed " not in err


@pytest.mark.parametrize(
    "name, extra, dlq",
    [
        ('"jobs"', "", ['  name                      = "jobs-dlq"']),
        # a FIFO queue's dead-letter queue must be FIFO too
        ('"jobs.fifo"', "  fifo_queue                 = true\n", ['  name                      = "jobs-dlq.fifo"', "  fifo_queue                = true"]),
    ],
)  # fmt: skip
def test_a_dead_letter_queue_is_added_after_the_queue(module, capsys, name, extra, dlq):
    root = Path(
        module(
            {
                "main.tf": f'# jobs\nresource "aws_sqs_queue" "jobs" {{\n  name                       = {name}\n'
                f"{extra}  visibility_timeout_seconds = 1800 # 6 x 300\n}}\n"
                + WORKER.replace(
                    "batch_size              = 1\n", "" if extra else "batch_size              = 1\n"
                )
            }
        )
    )
    before = (root / "main.tf").read_text()
    code, _, err = run(capsys, root, "--fix")
    after = (root / "main.tf").read_text()
    minus, plus = changed_lines(before, after)
    assert minus == [] and plus == [
        "  redrive_policy             = jsonencode({ deadLetterTargetArn = aws_sqs_queue.jobs_dlq.arn, "
        "maxReceiveCount = 5 })",
        "}",
        "",
        'resource "aws_sqs_queue" "jobs_dlq" {',
        *dlq,
        "  message_retention_seconds = 1209600",
    ]
    assert "  visibility_timeout_seconds = 1800 # 6 x 300\n" in after
    result = lint_paths([str(root)])
    assert result.errors == [] and not [f for f in result.findings if f.rule in ("VG003", "VG020", "VG022")]
    code, out, _ = run(capsys, root, "--diff")
    assert out == "" and code == 0


@pytest.mark.parametrize(
    "meta, arn, index",
    [
        ("count = 2", "aws_sqs_queue.jobs[1].arn", "[count.index]"),
        ('for_each = toset(["a", "b"])', 'aws_sqs_queue.jobs["b"].arn', "[each.key]"),
    ],
)
def test_a_queue_with_count_or_for_each_gets_a_dead_letter_queue_per_instance(
    module, capsys, meta, arn, index
):
    root = Path(
        module(
            {
                "main.tf": f'resource "aws_sqs_queue" "jobs" {{\n  {meta}\n  name = "jobs-${{{index[1:-1]}}}"\n'
                "  visibility_timeout_seconds = 1800\n}\n" + WORKER.replace("aws_sqs_queue.jobs.arn", arn)
            }
        )
    )
    before = (root / "main.tf").read_text()
    run(capsys, root, "--fix")
    minus, plus = changed_lines(before, (root / "main.tf").read_text())
    assert minus == [] and plus == [
        f"  {'redrive_policy'.ljust(26)} = jsonencode({{ deadLetterTargetArn = aws_sqs_queue.jobs_dlq{index}.arn, "
        "maxReceiveCount = 5 })",
        "}",
        "",
        'resource "aws_sqs_queue" "jobs_dlq" {',
        f"  {meta.split(' = ')[0].ljust(25)} = {meta.split(' = ')[1]}",
        "  message_retention_seconds = 1209600",
    ]
    result = lint_paths([str(root)])
    assert result.errors == [] and not [f for f in result.findings if f.rule in ("VG004", "VG020", "VG022")]
    assert (
        len([q for q in result.model_queues if "jobs_dlq" in q]) == 2
        if hasattr(result, "model_queues")
        else True
    )


@pytest.mark.parametrize(
    "extra, name, why",
    [
        ("  count = 2\n  fifo_queue = true\n", '"jobs.fifo"', "FIFO queue with count"),
        ("  for_each = {\n    a = 1\n  }\n", '"jobs"', "for_each spans lines"),
        ("  fifo_queue = true\n", "var.name", "FIFO queue without a literal name"),
        ("  fifo_queue = var.fifo\n", '"jobs.fifo"', "fifo_queue is not a literal"),
    ],
)
def test_a_dead_letter_queue_is_not_added_where_it_cannot_be_derived(module, capsys, extra, name, why):
    arn = {"count": "aws_sqs_queue.jobs[0].arn", "for_each": 'aws_sqs_queue.jobs["a"].arn'}
    arn = next((v for k, v in arn.items() if k in extra), "aws_sqs_queue.jobs.arn")
    variables = 'variable "name" {\n  default = "jobs.fifo"\n}\nvariable "fifo" {\n  default = true\n}\n'
    root = Path(
        module(
            {
                "main.tf": f'resource "aws_sqs_queue" "jobs" {{\n{extra}  name = {name}\n'
                "  visibility_timeout_seconds = 1800\n}\n"
                + variables
                + WORKER.replace("aws_sqs_queue.jobs.arn", arn).replace("batch_size              = 1\n", "")
            }
        )
    )
    code, _, err = run(capsys, root, "--fix")
    assert "jobs_dlq" not in (root / "main.tf").read_text() and "VG020" in err and why in err
