"""Issue 14 §4: `visguard lint --fix` / `--diff` rewrite CloudFormation/SAM YAML and JSON, changing only the lines
they must; SARIF results carry the same change as `fixes`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from visguard.cli import main
from visguard.linter.api import lint_paths
from visguard.linter.fix import fix_text, replacements
from visguard.linter.loaders import load_config
from visguard.linter.model import LintConfig

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "templates"
FIXTURES = ROOT / "tests" / "linter" / "fixtures" / "rules"
SARIF_SCHEMA = Path("/work/shared/reference/sarif-schema-2.1.0.json")


def run(capsys, *argv):
    code = main(["lint", "--no-config", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def changed_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    import difflib

    minus, plus = [], []
    for line in difflib.ndiff(before.splitlines(), after.splitlines()):
        if line.startswith("- "):
            minus.append(line[2:])
        elif line.startswith("+ "):
            plus.append(line[2:])
    return minus, plus


def test_yaml_template_only_the_needed_lines_change(tmp_path, capsys):
    t = tmp_path / "orders-cfn.yaml"
    shutil.copy(EXAMPLES / "orders-cfn.yaml", t)
    before = t.read_text()
    code, out, _ = run(capsys, t, "--diff")
    assert code == 2 and out.startswith("--- a/") and t.read_text() == before  # --diff writes nothing
    code, _, err = run(capsys, t, "--fix")
    after = t.read_text()
    assert code == 2 and "fixed 3 finding(s)" in err
    minus, plus = changed_lines(before, after)
    assert minus == ["      VisibilityTimeout: 30"]
    assert plus == [
        "      VisibilityTimeout: 185",
        "      RedrivePolicy:",
        "        deadLetterTargetArn: !GetAtt OrdersQueueDLQ.Arn",
        "        maxReceiveCount: 5",
        "  OrdersQueueDLQ:",
        "    Type: AWS::SQS::Queue",
        "    Properties:",
        "      MessageRetentionPeriod: 1209600",
        "      FunctionResponseTypes: [ReportBatchItemFailures]",
    ]
    # comments, short-form tags and the rest are byte-identical
    for line in ("# An order pipeline", "Timeout: !Ref FunctionTimeout", "EventSourceArn: !GetAtt OrdersQueue.Arn",
                 "  # The same pipeline done right"):  # fmt: skip
        assert line in after
    # the findings it fixed are gone; a second --fix changes nothing
    left = {f.rule for f in lint_paths([str(t)]).findings if f.queue == "OrdersQueue"}
    assert not left & {"VG011", "VG020", "VG031"}
    code, out, _ = run(capsys, t, "--diff")
    assert out == "" and code == 0


def test_sam_quoting_is_kept_and_sqs_subscription_is_left_alone(tmp_path, capsys):
    t = tmp_path / "thumbnails-sam.yaml"
    shutil.copy(EXAMPLES / "thumbnails-sam.yaml", t)
    before = t.read_text()
    code, _, err = run(capsys, t, "--fix")
    minus, plus = changed_lines(before, t.read_text())
    assert '      VisibilityTimeout: "60"' in minus and '      VisibilityTimeout: "370"' in plus
    assert "SqsSubscription" in err and "not fixed automatically" in err
    assert all("SqsSubscription" not in p for p in plus)
    assert len(minus) == 3 and len(plus) == 4


JSON_TEMPLATE = """{
  "AWSTemplateFormatVersion": "2010-09-09",
  "Resources": {
    "JobsQueue": {
      "Type": "AWS::SQS::Queue",
      "Properties": {
        "VisibilityTimeout": 60,
        "MessageRetentionPeriod": 1209600,
        "RedrivePolicy": {"deadLetterTargetArn": {"Fn::GetAtt": ["JobsDlq", "Arn"]}, "maxReceiveCount": 2}
      }
    },
    "JobsDlq": {"Type": "AWS::SQS::Queue", "Properties": {"MessageRetentionPeriod": 1209600}},
    "Worker": {
      "Type": "AWS::Lambda::Function",
      "Properties": {"Handler": "index.handler", "Runtime": "python3.12", "Timeout": 60,
                     "Role": {"Fn::GetAtt": ["Role", "Arn"]}, "Code": {"ZipFile": "def handler(e, c): pass"}}
    },
    "Role": {"Type": "AWS::IAM::Role", "Properties": {"AssumeRolePolicyDocument": {}}},
    "Mapping": {
      "Type": "AWS::Lambda::EventSourceMapping",
      "Properties": {
        "EventSourceArn": {"Fn::GetAtt": ["JobsQueue", "Arn"]},
        "FunctionName": {"Ref": "Worker"},
        "BatchSize": 5
      }
    }
  }
}
"""


def test_json_template_stays_json_with_its_layout(tmp_path, capsys):
    t = tmp_path / "jobs.json"
    t.write_text(JSON_TEMPLATE)
    code, _, err = run(capsys, t, "--fix")
    after = t.read_text()
    doc = json.loads(after)
    props = doc["Resources"]["JobsQueue"]["Properties"]
    assert props["VisibilityTimeout"] == 360 and props["RedrivePolicy"]["maxReceiveCount"] == 5
    assert props["MessageRetentionPeriod"] == 864000  # shortened: the DLQ already keeps the 14-day maximum
    assert doc["Resources"]["Mapping"]["Properties"]["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert list(doc["Resources"]) == ["JobsQueue", "JobsDlq", "Worker", "Role", "Mapping"]
    minus, plus = changed_lines(JSON_TEMPLATE, after)
    assert len(minus) == 3 and len(plus) == 4, (minus, plus)
    assert not {f.rule for f in lint_paths([str(t)]).findings} & {"VG011", "VG021", "VG022", "VG031"}


def test_a_file_that_does_not_parse_is_never_touched(tmp_path, capsys):
    t = tmp_path / "broken.yaml"
    text = "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties: {VisibilityTimeout: 30\n"
    t.write_text(text)
    code, _, err = run(capsys, t, "--fix")
    assert code == 1 and t.read_text() == text and err.count("\n") >= 1


def test_values_from_parameters_are_left_to_the_parameter(tmp_path):
    text = (
        "Parameters:\n  Vt: {Type: Number, Default: 30}\nResources:\n  Q:\n    Type: AWS::SQS::Queue\n"
        "    Properties:\n      VisibilityTimeout: !Ref Vt\n"
    )
    from visguard.linter.model import Change, Finding, Location, Severity

    f = Finding("VG011", Severity.WARNING, "m", "Q", Location("t.yaml"),
                changes=(Change("queue", "Q", "visibility_timeout", 180),))  # fmt: skip
    ff = fix_text("t.yaml", text, [f])
    assert not ff.changed and "the value comes from the parameter Vt (Ref)" in ff.skipped[0][1]


RULE_DIRS = sorted(FIXTURES.glob("vg*/cfn"))  # the CloudFormation cases of each rule
# rules whose fix is a template edit (the others need code, a redesign or a human: their fix stays a sentence)
MECHANICAL = {"VG001", "VG002", "VG005", "VG010", "VG011", "VG012", "VG013", "VG016", "VG020", "VG021", "VG022",
              "VG024", "VG030", "VG031", "VG032", "VG041"}  # fmt: skip
MECH_DIRS = [d for d in RULE_DIRS if d.parent.name.upper() in MECHANICAL]


@pytest.mark.parametrize("rule_dir", MECH_DIRS, ids=[p.parent.name for p in MECH_DIRS])
def test_rule_fixtures_fix_in_place_and_lint_clean_for_that_rule(rule_dir, tmp_path):
    cfg = rule_dir / "visguard.yaml"
    config = load_config(str(cfg)) if cfg.exists() else LintConfig()
    src = rule_dir / "fail.yaml"
    t = tmp_path / "fail.yaml"
    shutil.copy(src, t)
    before = lint_paths([str(t)], config=config).findings
    rule = rule_dir.parent.name.upper()
    ff = fix_text(str(t), t.read_text(), [f for f in before if f.changes])
    assert any(f.rule == rule for f in ff.applied), ff.skipped
    t.write_text(ff.after)
    after = lint_paths([str(t)], config=config)
    assert after.errors == []
    fixed = {(f.rule, f.queue, f.consumer) for f in ff.applied}
    assert not fixed & {(f.rule, f.queue, f.consumer) for f in after.findings if f.changes}


def test_sarif_results_carry_the_fix_and_it_applies(tmp_path, capsys):
    t = tmp_path / "orders-cfn.yaml"
    shutil.copy(EXAMPLES / "orders-cfn.yaml", t)
    code, out, _ = run(capsys, t, "-f", "sarif")
    sarif = json.loads(out)
    if SARIF_SCHEMA.exists():
        jsonschema.validate(sarif, json.loads(SARIF_SCHEMA.read_text()))
    with_fix = [r for r in sarif["runs"][0]["results"] if r.get("fixes")]
    assert {r["ruleId"] for r in with_fix} >= {"VG011", "VG020", "VG031"}
    vg011 = next(r for r in with_fix if r["ruleId"] == "VG011")
    (change,) = vg011["fixes"][0]["artifactChanges"]
    (rep,) = change["replacements"]
    lines = t.read_text().splitlines(keepends=True)
    start, end = rep["deletedRegion"]["startLine"] - 1, rep["deletedRegion"]["endLine"] - 1
    patched = lines[:start] + [rep["insertedContent"]["text"]] + lines[end:]
    assert "".join(patched).count("VisibilityTimeout: 185") == 1
    assert "Set VisibilityTimeout of OrdersQueue to 185" in vg011["fixes"][0]["description"]["text"]


def test_replacements_cover_insertions_and_deletions():
    reps = replacements("a\nb\nc\n", "a\nB\nc\nd\n")
    assert [r["deletedRegion"]["startLine"] for r in reps] == [2, 4]
    assert reps[1]["insertedContent"]["text"] == "d\n"


def _applied(before: str, reps: list[dict]) -> str:
    lines = before.splitlines(keepends=True)
    for r in reversed(reps):
        start, end = r["deletedRegion"]["startLine"] - 1, r["deletedRegion"]["endLine"] - 1
        lines[start:end] = [r["insertedContent"]["text"]]
    return "".join(lines)


_LINES = st.lists(st.sampled_from(["a\n", "b\n", "},\n", "  X: 1\n", "  X: 2\n", "c"]), max_size=30)


@settings(max_examples=300, deadline=None)
@given(_LINES, _LINES)
def test_replacements_turn_any_text_into_any_other(a, b):
    """The changed runs (anchored on the lines found once in each text, SequenceMatcher between them) always
    rewrite ``before`` into ``after``, in order and without overlap, whatever lines repeat."""
    before, after = "".join(a), "".join(b)
    reps = replacements(before, after)
    assert _applied(before, reps) == after
    starts = [(r["deletedRegion"]["startLine"], r["deletedRegion"]["endLine"]) for r in reps]
    assert all(x[1] <= y[0] for x, y in zip(starts, starts[1:], strict=False))


def test_replacements_of_many_scattered_edits_are_one_run_each():
    """800 one-line edits of an 800-queue template (one SequenceMatcher over the whole file took minutes: the
    SARIF fix of each finding is its share of the settled file's runs)."""
    before = "".join(f'  "Q{i}": {{\n   "VisibilityTimeout": {50_000 + i}\n  }},\n' for i in range(800))
    after = before.replace('"VisibilityTimeout": 5', '"VisibilityTimeout": 4')
    reps = replacements(before, after)
    assert len(reps) == 800 and _applied(before, reps) == after


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_sarif_fixes_parse_the_template_once_not_once_per_finding(tmp_path, capsys, monkeypatch, suffix):
    """Each SARIF result's fix is made against the same template: its round-trip parse (pure-Python ruamel) is
    shared, and each edit is checked with the C parser. Four parses per finding made 100 findings take 25 s and
    800 a hang; the diff of each fix skips the lines both texts share (difflib is quadratic in repeated lines)."""
    import yaml
    from ruamel.yaml import YAML
    from visguard.linter.fixes import cfn

    doc = {
        "Resources": {
            f"Q{i}": {"Type": "AWS::SQS::Queue", "Properties": {"VisibilityTimeout": 50_000 + i}}
            for i in range(60)
        }
    }
    t = tmp_path / f"many{suffix}"
    t.write_text(json.dumps(doc, indent=2) if suffix == ".json" else yaml.safe_dump(doc, sort_keys=False))
    loads = []
    real = YAML.load
    monkeypatch.setattr(YAML, "load", lambda self, stream: loads.append(1) or real(self, stream))
    monkeypatch.setattr(cfn, "_PARSED", {})
    code, out, _ = run(capsys, t, "-f", "sarif")
    results = json.loads(out)["runs"][0]["results"]
    assert code == 2 and len(results) == 60 and all(r.get("fixes") for r in results)
    assert len(loads) == 1
    lines = t.read_text().splitlines(keepends=True)
    (rep,) = results[-1]["fixes"][0]["artifactChanges"][0]["replacements"]
    start, end = rep["deletedRegion"]["startLine"] - 1, rep["deletedRegion"]["endLine"] - 1
    assert end - start == 1 and "50059" in lines[start] and "43200" in rep["insertedContent"]["text"]


REALISTIC = """# Image pipeline (a SAM app in the style of public samples): flow mappings, !Sub, a block scalar, conditions.
AWSTemplateFormatVersion: '2010-09-09'
Transform: AWS::Serverless-2016-10-31
Description: >-
  Resize uploaded images.
Parameters:
  Stage: {Type: String, Default: dev}
Conditions:
  IsProd: !Equals [!Ref Stage, prod]
Globals:
  Function:
    Timeout: 120   # seconds; the resize of a 50 MB TIFF takes ~90 s
    Runtime: python3.12
Resources:
  ResizeQueue:
    Type: AWS::SQS::Queue
    Properties: {QueueName: !Sub '${AWS::StackName}-resize', VisibilityTimeout: 120}
  ResizeFunction:
    Type: AWS::Serverless::Function
    Properties:
      Handler: app.handler
      InlineCode: |
        def handler(event, context):
            return {"batchItemFailures": []}
      Events:
        Resize:
          Type: SQS
          Properties:
            Queue: !GetAtt ResizeQueue.Arn
            BatchSize: 10
Outputs:
  QueueUrl:
    Value: !Ref ResizeQueue
"""


def test_realistic_sam_template_with_flow_mappings(tmp_path, capsys):
    t = tmp_path / "template.yaml"
    t.write_text(REALISTIC)
    code, _, err = run(capsys, t, "--fix")
    after = t.read_text()
    minus, plus = changed_lines(REALISTIC, after)
    assert minus == ["    Properties: {QueueName: !Sub '${AWS::StackName}-resize', VisibilityTimeout: 120}"]
    assert plus[0] == (
        "    Properties: {RedrivePolicy: {deadLetterTargetArn: !GetAtt ResizeQueueDLQ.Arn, maxReceiveCount: 5}, "
        "QueueName: !Sub '${AWS::StackName}-resize', VisibilityTimeout: 720}"
    )
    assert plus[1:] == [
        "  ResizeQueueDLQ:",
        "    Type: AWS::SQS::Queue",
        "    Properties:",
        "      MessageRetentionPeriod: 1209600",
        "            FunctionResponseTypes: [ReportBatchItemFailures]",
    ]
    assert "Timeout: 120   # seconds; the resize of a 50 MB TIFF takes ~90 s" in after
    left = {f.rule for f in lint_paths([str(t)]).findings}
    assert not left & {"VG011", "VG020", "VG031"}, left


def test_cloud_assembly_templates_are_never_rewritten(tmp_path):
    from visguard.linter.fix import fix_files

    asm = tmp_path / "cdk.out"
    asm.mkdir()
    (asm / "manifest.json").write_text("{}")
    t = asm / "Stack.template.json"
    t.write_text(JSON_TEMPLATE)
    findings = lint_paths([str(t)]).findings
    assert any(f.changes for f in findings)
    assert fix_files([str(t)], findings, write=True) == [] and t.read_text() == JSON_TEMPLATE
