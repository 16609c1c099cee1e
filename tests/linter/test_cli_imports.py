"""`visguard lint` on one template imports only what it needs (pre-commit runs it on every commit, issue 12).

The speed itself is measured in benchmarks/lint_vs_cfnlint.py; these tests pin what a run must not import.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from visguard.linter.loaders import registry, serverless

# The modules a run imports beyond what the interpreter started with (site and the venv's .pth files: an editable
# install's finder imports some of the standard library before visguard runs).
PROBE = """
import json, sys
before = set(sys.modules)
from visguard.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted(set(sys.modules) - before)), file=sys.stderr)
"""
NOT_FOR_ONE_TEMPLATE = (
    "statistics",  # visguard.policy computes z99 on first use (a profile's lognormal tail), not at import
    "typing",  # annotations only (TYPE_CHECKING idiom): typing costs ~4 ms at every start
    "pkgutil",  # the rule catalogue lists its folder with os.listdir
    "shutil",  # argparse measures the terminal only for help and usage text (linter.cli._Parser)
    "visguard.linter.loaders.config",  # visguard.yaml's loader: only when a configuration is read
    "visguard.linter.loaders.terraform",
    "visguard.linter.loaders.serverless",
    "visguard.linter.loaders.kubernetes",
    "visguard.linter.loaders.consumers_cfn",  # a template with no resource that can be a worker consumer
    "visguard.linter.loaders.code",
    "visguard.linter.consumers",  # the join: only when an input left a consumer pending
    "visguard.linter.consumer_words",  # a worker's words: only when a finding is worded
    "visguard.linter.loaders.shell",  # AWS CLI scripts: only when a script or Makefile is linted (issue 35)
    "visguard.linter.loaders.shellwords",
    "visguard.linter.loaders.commandline",  # worker start commands: only where a command is read
    "visguard.linter.created_queues",  # queues code creates: only when a code input made one
    "visguard.linter.receiving",  # send-only workloads: only for a workload given a queue's URL
    "visguard.linter.report.ci",  # --format github/gitlab/markdown only
    "tree_sitter",
    "hcl2",
    "jsonschema",
    "numpy",
    "botocore",
    "pyspark",
    "aws_cdk",
)


def _modules_after(*args: str, cwd: Path) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-P", "-c", PROBE, *args], capture_output=True, text=True, cwd=cwd, timeout=60
    )
    return set(json.loads(proc.stderr.strip().splitlines()[-1]))


def _template(tmp_path: Path) -> Path:
    t = tmp_path / "stack.yaml"
    t.write_text("Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties: {VisibilityTimeout: 60}\n")
    return t


def test_one_template_imports_no_plugin_loader_and_no_heavy_library(tmp_path):
    mods = _modules_after("lint", "--no-config", str(_template(tmp_path)), cwd=tmp_path)
    assert "visguard.linter.loaders.cfn" in mods  # the probe saw the run
    assert not {m for m in mods if m.startswith(NOT_FOR_ONE_TEMPLATE)}


def test_a_json_template_does_not_import_pyyaml(tmp_path):
    t = tmp_path / "stack.json"
    t.write_text('{"Resources": {"Q": {"Type": "AWS::SQS::Queue", "Properties": {"VisibilityTimeout": 60}}}}')
    mods = _modules_after("lint", "--no-config", str(t), cwd=tmp_path)
    assert "visguard.linter.loaders.cfn" in mods
    assert not {m for m in mods if m.startswith(("yaml", "_yaml", "visguard.linter.loaders.decode_yaml"))}
    assert not {m for m in mods if m.startswith(NOT_FOR_ONE_TEMPLATE)}


def test_a_yaml_template_imports_pyyaml_once_it_is_read(tmp_path):
    mods = _modules_after("lint", "--no-config", str(_template(tmp_path)), cwd=tmp_path)
    assert {"yaml", "visguard.linter.loaders.decode_yaml"} <= mods


def test_a_terraform_folder_imports_its_loader(tmp_path):
    (tmp_path / "main.tf").write_text(
        'resource "aws_sqs_queue" "q" {\n  visibility_timeout_seconds = 60\n}\n'
    )
    mods = _modules_after("lint", "--no-config", str(tmp_path), cwd=tmp_path)
    assert "visguard.linter.loaders.terraform" in mods
    assert "visguard.linter.loaders.serverless" not in mods


def test_plugin_tests_say_yes_to_what_their_loaders_claim(tmp_path):
    assert registry.SERVERLESS_FILES == serverless.SERVICE_FILES
    by_module = {p.module: p for p in registry.PLUGINS}
    tf = by_module["visguard.linter.loaders.terraform"]
    sls = by_module["visguard.linter.loaders.serverless"]
    head = b'{"format_version": "1.2", "terraform_version": "1.9.0", "planned_values": {}}'
    assert tf.could_claim_file("plan.json", head) and tf.could_claim_file("x.tf", b"")
    assert not tf.could_claim_file("stack.json", b'{"Resources": {}}')
    (tmp_path / "serverless.yml").write_text("service: s\nprovider: {name: aws}\n")
    (tmp_path / "queues.yml").write_text("Resources: {}\n")
    assert sls.could_claim_file(str(tmp_path / "queues.yml"), b"Resources: {}\n")
    (tmp_path / "cfn").mkdir()
    assert not sls.could_claim_file(str(tmp_path / "cfn" / "stack.yaml"), b"Resources: {}\n")
    assert not tf.could_claim_dir(str(tmp_path))
    (tmp_path / "cfn" / "main.tf").write_text("")
    assert tf.could_claim_dir(str(tmp_path / "cfn"))


def _help(columns: int, tmp_path: Path) -> list[str]:
    env = {**os.environ, "COLUMNS": str(columns)}
    proc = subprocess.run(
        [sys.executable, "-P", "-c", "from visguard.cli import main; main(['lint', '--help'])"],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60,
    )  # fmt: skip
    return proc.stdout.splitlines()


def test_help_still_fits_the_terminal(tmp_path):
    """shutil is not imported while the parser is built, but --help is still wrapped to the terminal's width."""
    narrow, wide = _help(60, tmp_path), _help(120, tmp_path)
    assert narrow[0].startswith("usage: visguard lint")
    prose = [line for line in narrow if line and not line.lstrip().startswith(("-", "[", "usage"))]
    assert prose and max(map(len, prose)) <= 58
    assert max(map(len, wide)) > 100


def test_records_that_are_not_dataclasses_keep_value_semantics():
    """facts, policy and template-value records are facts.Value subclasses (no dataclass compiled at start): equal
    by value, hashable, readable, picklable, as their frozen dataclasses were."""
    import copy
    import pickle

    from visguard import facts, policy

    a, b = policy.Heartbeat(60, 120), policy.Heartbeat(60, 120)
    assert a == b and hash(a) == hash(b) and a != policy.Heartbeat(60, 90) and a != (60, 120)
    assert repr(a) == "Heartbeat(interval=60, extend_by=120)"
    need = policy.need(policy.Work("lambda", 30.0), target_duplicate_rate=0.001)
    assert need.visibility_timeout == 180 and pickle.loads(pickle.dumps(need)) == need
    assert copy.deepcopy(facts.VISIBILITY_TIMEOUT) == facts.VISIBILITY_TIMEOUT
    assert {facts.POLLERS["standard"]: 1}[copy.copy(facts.POLLERS["standard"])] == 1
    from visguard.linter.loaders.intrinsics import ExternalRef, Unknown

    ref = ExternalRef("imported", "Fn::ImportValue X", id="S/Q", attr="Arn", type="AWS::SQS::Queue")
    assert repr(ref) == (
        "ExternalRef(why='imported', text='Fn::ImportValue X', id='S/Q', attr='Arn', type='AWS::SQS::Queue')"
    )
    assert ref == copy.copy(ref) and ref != Unknown("imported", "Fn::ImportValue X") and str(ref) == ref.text


def test_the_console_script_ends_lint_without_teardown_and_loses_no_output(tmp_path):
    """``visguard lint`` from the console script ends with os._exit after flushing (cli.FAST_EXIT): every byte of a
    large report still reaches the pipe and the --output file, and each exit code is kept."""
    from visguard.cli import main

    queues = {
        f"Queue{i}": {"Type": "AWS::SQS::Queue", "Properties": {"VisibilityTimeout": 50_000 + i}}
        for i in range(800)
    }
    (tmp_path / "many.json").write_text(json.dumps({"Resources": queues}, indent=1))
    (tmp_path / "good.json").write_text('{"Resources": {"Q": {"Type": "AWS::SQS::Queue"}}}')
    script = str(Path(sys.executable).parent / "visguard")
    for args, code in (
        (["lint", "--no-config", "many.json"], 2),
        (["lint", "--no-config", "-f", "json", "many.json"], 2),
        (["lint", "--no-config", "good.json"], 0),
        (["lint", "--no-config", "missing.json"], 1),
        (["rules"], 0),
    ):
        proc = subprocess.run([script, *args], capture_output=True, cwd=tmp_path, timeout=60)
        assert proc.returncode == code, (args, proc.stderr)
        expected = subprocess.run(
            [sys.executable, "-P", "-c", "import sys; from visguard.cli import main; main(sys.argv[1:])", *args],
            capture_output=True, cwd=tmp_path, timeout=60,
        )  # fmt: skip
        assert proc.stdout == expected.stdout and proc.stderr == expected.stderr, args
    assert len(proc.stdout) > 1000
    out = tmp_path / "report.sarif"
    proc = subprocess.run(
        [script, "lint", "--no-config", "-f", "sarif", "-o", str(out), "many.json"], cwd=tmp_path, timeout=60
    )
    assert proc.returncode == 2
    assert len(json.loads(out.read_text())["runs"][0]["results"]) == 800
    # main itself never ends the process
    assert main(["lint", "--no-config", str(tmp_path / "good.json")]) == 0


# Terraform and Serverless Framework lints (issue 12): their records are visguard.records classes, not dataclasses
# (``import dataclasses`` brings inspect, ast, dis and tokenize, and each @dataclass compiles its methods).
NOT_FOR_TERRAFORM_OR_SERVERLESS = ("dataclasses", "inspect", "ast", "dis", "tokenize")


def test_a_terraform_folder_imports_no_dataclasses_and_no_cloudformation_loader(tmp_path):
    (tmp_path / "main.tf").write_text(
        'resource "aws_sqs_queue" "q" {\n  visibility_timeout_seconds = 60\n  redrive_policy = jsonencode({\n'
        "    deadLetterTargetArn = aws_sqs_queue.dlq.arn\n    maxReceiveCount = 5\n  })\n}\n"
        'resource "aws_sqs_queue" "dlq" {}\n'
        'resource "aws_lambda_function" "f" {\n  function_name = "f"\n  timeout = 30\n}\n'
        'resource "aws_lambda_event_source_mapping" "m" {\n  event_source_arn = aws_sqs_queue.q.arn\n'
        "  function_name = aws_lambda_function.f.arn\n}\n"
    )
    for args in (["lint", "--no-config", str(tmp_path)], ["lint", "--no-config", "--diff", str(tmp_path)]):
        mods = _modules_after(*args, cwd=tmp_path)
        assert "visguard.linter.loaders.terraform.evaluate" in mods  # the probe saw the run
        assert not {m for m in mods if m.split(".")[0] in NOT_FOR_TERRAFORM_OR_SERVERLESS}
        # the registry asks the cdk.out loader about every folder: that question needs no CloudFormation loader
        assert not {"visguard.linter.loaders.cfn", "visguard.linter.loaders.intrinsics"} & mods
    assert "visguard.linter.fixes.hcl" in mods


def test_a_terraform_plan_and_a_serverless_service_import_neither_dataclasses_nor_typing(tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text(
        '{"format_version": "1.2", "terraform_version": "1.9.0", "planned_values": {"root_module": {"resources": '
        '[{"address": "aws_sqs_queue.q", "mode": "managed", "type": "aws_sqs_queue", "name": "q", '
        '"values": {"visibility_timeout_seconds": 60}}]}}}'
    )
    mods = _modules_after("lint", "--no-config", str(plan), cwd=tmp_path)
    assert "visguard.linter.loaders.terraform.plan" in mods
    assert not {
        m for m in mods if m.split(".")[0] in (*NOT_FOR_TERRAFORM_OR_SERVERLESS, "typing", "tree_sitter")
    }
    (tmp_path / "serverless.yml").write_text(
        "service: s\nprovider: {name: aws, timeout: 30}\nfunctions:\n  worker:\n    handler: h.main\n"
        "    events:\n      - sqs: {arn: !GetAtt Jobs.Arn, batchSize: 5}\n"
        "resources:\n  Resources:\n    Jobs:\n      Type: AWS::SQS::Queue\n"
        "      Properties: {VisibilityTimeout: '${self:custom.vt}'}\ncustom: {vt: 60}\n"
    )
    for target in (tmp_path / "serverless.yml", tmp_path):
        mods = _modules_after("lint", "--no-config", str(target), cwd=tmp_path)
        assert "visguard.linter.loaders.serverless_vars" in mods
        assert not {m for m in mods if m.split(".")[0] in (*NOT_FOR_TERRAFORM_OR_SERVERLESS, "typing")}


def test_a_template_lint_imports_no_dataclasses(tmp_path):
    t = tmp_path / "stack.json"
    t.write_text('{"Resources": {"Q": {"Type": "AWS::SQS::Queue", "Properties": {"VisibilityTimeout": 60}}}}')
    for target in (t, _template(tmp_path)):
        mods = _modules_after("lint", "--no-config", str(target), cwd=tmp_path)
        assert "visguard.linter.loaders.cfn" in mods
        assert not {m for m in mods if m.split(".")[0] in NOT_FOR_TERRAFORM_OR_SERVERLESS}


def test_terraform_and_serverless_records_keep_their_dataclass_semantics():
    """Value records (were frozen dataclasses) are equal and hashable by value; Record ones equal, not hashable;
    both repr, copy and pickle (the audit ships model objects to Spark executors)."""
    import copy
    import pickle

    from visguard.linter.loaders.serverless_vars import Partial, Unresolved, Values
    from visguard.linter.loaders.terraform.build import Res
    from visguard.linter.loaders.terraform.hcl import Attr, Source
    from visguard.linter.loaders.terraform.load import Note
    from visguard.linter.loaders.terraform.values import Encoded, Ref, Text, Unknown
    from visguard.linter.model import Location

    ref = Ref("aws_sqs_queue.dlq", "arn")
    assert ref == Ref("aws_sqs_queue.dlq", "arn") and {ref: 1}[Ref("aws_sqs_queue.dlq", "arn")] == 1
    assert ref != Ref("aws_sqs_queue.dlq", "url") and ref != Unknown("aws_sqs_queue.dlq", "arn")
    assert (
        repr(ref) == "Ref(address='aws_sqs_queue.dlq', attr='arn')" and str(ref) == "${aws_sqs_queue.dlq.arn}"
    )
    text = Text(("arn:", ref))
    assert pickle.loads(pickle.dumps(text)) == text and hash(copy.deepcopy(text)) == hash(text)
    assert str(Encoded({"a": ref})) == '{"a": "${aws_sqs_queue.dlq.arn}"}'
    assert Unresolved("${ssm:x}", "why") != Unresolved("${ssm:x}", "why", quiet=True)
    assert len({Partial(("a", Unresolved("x", "y"))), Partial(("a", Unresolved("x", "y")))}) == 1
    assert Values().opt == {} and Values().opt is not Values().opt and Values(opt={"stage": "p"}) != Values()
    res = Res("aws_sqs_queue", "aws_sqs_queue.q", Location("main.tf", 1, 1))
    assert res.values == {} and res.values is not Res("t", "a", res.location).values
    assert pickle.loads(pickle.dumps(res)) == res and res.replace(address="x").address == "x"
    note = Note("why", Location("main.tf", 3))
    assert note == copy.copy(note) and repr(note).startswith("Note(message='why', location=Location(")
    for unhashable in (res, note, Values()):
        try:
            hash(unhashable)
        except TypeError:
            pass
        else:
            raise AssertionError(f"{unhashable!r} is hashable")
    attr = Attr("timeout", None, "main.tf", 2, 3, src=Source("timeout = 30\n"))
    assert repr(attr) == "Attr(name='timeout', expr=None, file='main.tf', line=2, column=3)"  # no file text
    assert attr != Attr("timeout", None, "main.tf", 2, 3)


_FUNCTION = "  F:\n    Type: {type}\n    Properties: {{Timeout: 30{events}}}\n"
_SNS_EVENT = ", Events: {{N: {{Type: SNS, Properties: {{Topic: arn:aws:sns:us-east-1:111122223333:t, SqsSubscription: true}}}}}}"


def test_the_consumer_reader_is_imported_only_for_a_resource_it_can_read(tmp_path):
    """A template of queues, functions and mappings imports no consumer reader (issue 33, start-up): a function
    counts only with ``Events`` (SAM's SNS events with SqsSubscription), a task definition always."""
    queue = "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n"
    mapping = "  M:\n    Type: AWS::Lambda::EventSourceMapping\n    Properties: {EventSourceArn: !GetAtt Q.Arn, FunctionName: !Ref F}\n"
    cases = [
        (_FUNCTION.format(type="AWS::Lambda::Function", events="") + mapping, False),
        (_FUNCTION.format(type="AWS::Serverless::Function", events=_SNS_EVENT.format()), True),
        ("  T:\n    Type: AWS::ECS::TaskDefinition\n    Properties: {ContainerDefinitions: []}\n", True),
    ]
    for i, (resources, imports) in enumerate(cases):
        t = tmp_path / f"stack{i}.yaml"
        t.write_text(queue + resources)
        mods = _modules_after("lint", "--no-config", str(t), cwd=tmp_path)
        assert "visguard.linter.loaders.cfn" in mods
        assert ("visguard.linter.loaders.consumers_cfn" in mods) is imports, (resources, imports)
