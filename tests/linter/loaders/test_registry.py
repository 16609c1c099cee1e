"""The front door (issue 12, "How it fits the house"): one registry decides each input's kind, folder searches
skip what is not the user's, one glob matcher for suppressions and profiles, RuleContext in its own module."""

import json
import os

import pytest
from visguard.cli import main
from visguard.linter.loaders import registry
from visguard.linter.loaders.registry import LoaderSpec, LoadOptions, register
from visguard.linter.model import Location, Model, Queue

from .conftest import FIXTURES

WARN = """\
Resources:
  Orders:
    Type: AWS::SQS::Queue
    Properties: {VisibilityTimeout: 30}
  Fn:
    Type: AWS::Lambda::Function
    Properties: {Timeout: 30}
  Map:
    Type: AWS::Lambda::EventSourceMapping
    Properties: {EventSourceArn: !GetAtt Orders.Arn, FunctionName: !Ref Fn}
"""


def lint(capsys, *args):
    code = main(["lint", "--no-config", "-f", "json", *args])
    out, err = capsys.readouterr()
    return code, json.loads(out), err.splitlines()


@pytest.fixture
def restore_registry():
    saved = list(registry._SPECS)
    yield
    registry._SPECS[:] = saved


def test_builtin_loaders_in_claim_order():
    names = [s.name for s in registry.loaders()]
    builtin = [n for n in names if n in ("cdk-assembly", "visguard-config", "cloudformation")]
    assert builtin == ["cdk-assembly", "visguard-config", "cloudformation"]
    assert names[-1] == "cloudformation"  # the plugins (Terraform, Serverless) claim before the fallback
    assert {"terraform", "serverless", "kubernetes"} <= set(names)


@pytest.mark.parametrize(
    "name, text, kind",
    [
        ("template.yaml", "AWSTemplateFormatVersion: '2010-09-09'\nResources: {}\n", "cloudformation"),
        ("stack.json", '{"Resources": {}}', "cloudformation"),
        ("visguard.yaml", "", "visguard-config"),
        ("team-queues.yaml", "version: 1\nsettings: {lambda_multiplier: 2}\nqueues: []\n", "visguard-config"),
        ("x.visguard.yml", "anything: 1\n", "visguard-config"),
        ("docker-compose.yml", "version: '3'\nservices: {web: {image: nginx}}\n", None),
        ("ci.yml", "on: push\njobs: {b: {runs-on: ubuntu-latest}}\n", None),
        ("deployment.yaml", "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n"
         "      containers: [{name: a, resources: {limits: {cpu: 1}}}]\n", "kubernetes"),
        ("values.yaml", "image: {repository: nginx}\nresources: {}\n", None),
        ("chart.yaml", "{{- if .Values.enabled }}\nkind: Service\n{{- end }}\n", None),
        ("package.json", '{"name": "app", "Resources": {}}', None),
    ],
)  # fmt: skip
def test_the_kind_of_each_file_is_decided_in_one_place(tmp_path, name, text, kind):
    p = tmp_path / name
    p.write_text(text)
    errors = []
    found = registry.discover([str(tmp_path)], errors=errors)  # a folder search
    assert ([i.loader.name for i in found] or [None]) == [kind]
    assert errors == ([] if kind else [errors[0]]) and (
        kind or "nothing to lint: looked for CloudFormation/SAM templates" in str(errors[0])
    )
    assert registry.claim(str(p), explicit=True) is not None  # named on the command line: always loaded


def test_a_config_not_named_visguard_yaml_brings_its_settings(tmp_path, capsys):
    """The bug: api.py decided "config" by name, the loader by content, so `settings:` of team-queues.yaml
    was ignored. A 10 s queue under a 4 s function: VG011 at the default 6x, not at lambda_multiplier 2."""
    queues = "queues:\n  - name: q\n    visibility_timeout: 10\n    consumers: [{kind: lambda, function: f, timeout: 4}]\n"
    (tmp_path / "visguard.yaml").write_text("settings: {lambda_multiplier: 2}\n" + queues)
    (tmp_path / "team-queues.yaml").write_text("version: 1\nsettings: {lambda_multiplier: 2}\n" + queues)
    (tmp_path / "plain.yaml").write_text("version: 1\n" + queues)
    for name, vg011 in (("visguard.yaml", False), ("team-queues.yaml", False), ("plain.yaml", True)):
        _, doc, _ = lint(capsys, str(tmp_path / name))
        assert any(f["rule"] == "VG011" for f in doc["findings"]) is vg011, name


def test_a_registered_loader_claims_files_and_folders_and_gets_the_options(
    tmp_path, capsys, restore_registry
):
    seen = {}

    def load(path, options: LoadOptions) -> Model:
        seen[path] = options
        m = Model(source_file=path)
        m.add(Queue(id="t.q", location=Location(path, line=1), visibility_timeout=99_999))
        return m

    register(
        LoaderSpec("toy-dir", lambda p: os.path.isfile(os.path.join(p, "main.toy")), None, load),
        before="cloudformation",
    )
    register(
        LoaderSpec("toy-file", None, lambda p, head: head.startswith(b"#toy"), load, (".json",)),
        before="cdk-assembly",
    )
    names = [
        s.name
        for s in registry.loaders()
        if s.name not in ("terraform", "ansible", "serverless", "kubernetes", "cdk-source", "code", "shell")
    ]
    assert names[-6:] == [
        "toy-file", "cdk-assembly", "visguard-config", "ebextensions", "toy-dir", "cloudformation",
    ]  # fmt: skip
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "main.toy").write_text("x")
    (tmp_path / "root" / "stack.yaml").write_text(WARN)  # inside a claimed folder: part of that input
    (tmp_path / "plan.json").write_text("#toy plan")
    (tmp_path / "stack.yaml").write_text(WARN)
    code = main(["lint", "--no-config", "-f", "json", "--var", "env=prod", "--var", "n=1=2", str(tmp_path)])
    doc = json.loads(capsys.readouterr().out)
    assert code == 2 and doc["summary"]["files"] == 3
    assert sorted(os.path.basename(p) for p in seen) == ["plan.json", "root"]
    assert all(o.variables == {"env": "prod", "n": "1=2"} for o in seen.values())
    assert {f["rule"] for f in doc["findings"] if f["queue"] == "t.q"} == {"VG001"}
    with pytest.raises(ValueError, match="no loader named"):
        register(LoaderSpec("x", None, None, load), before="nope")


def test_var_flags_are_checked(tmp_path, capsys):
    assert main(["lint", "--var", "novalue", str(tmp_path)]) == 1
    assert "--var expects NAME=VALUE" in capsys.readouterr().err
    assert main(["lint", "--var-file", str(tmp_path / "missing.tfvars"), str(tmp_path)]) == 1
    assert "--var-file: no such file" in capsys.readouterr().err


def test_folder_search_skips_tool_folders_and_excludes(tmp_path, capsys):
    for d in ("node_modules/pkg", ".venv/lib", "venv/lib", ".terraform/modules", "cdk.out", ".github/workflows",
              "legacy/old", "infra"):  # fmt: skip
        (tmp_path / d).mkdir(parents=True)
        (tmp_path / d / "stack.yaml").write_text(WARN)
    (tmp_path / "infra" / "stack.test.yaml").write_text(WARN)
    code, doc, err = lint(capsys, str(tmp_path), "--exclude", "legacy/*", "--exclude", "*.test.yaml")
    assert code == 2 and err == []
    assert sorted({f["file"].split(str(tmp_path))[-1] for f in doc["findings"]}) == ["/infra/stack.yaml"]
    # a cdk.out folder named on the command line is linted (it is not an assembly here: searched)
    code, doc, _ = lint(capsys, str(tmp_path / "cdk.out"))
    assert code == 2 and doc["summary"]["files"] == 1
    # the exclude glob without a slash matches a folder name anywhere
    code, doc, err = lint(capsys, str(tmp_path), "--exclude", "infra", "--exclude", "legacy")
    # a folder with nothing to read: not bad input
    assert code == 0 and "nothing to lint: looked for" in err[0]


def test_an_assembly_below_a_searched_folder_is_one_input(tmp_path, capsys):
    import shutil

    shutil.copytree(os.path.join(FIXTURES, "cdk.out.sample"), tmp_path / "app" / "synth.out")
    code, doc, err = lint(capsys, str(tmp_path))
    assert err == [] and doc["summary"]["files"] == 1
    assert any(f["queue"] == "OrdersStack/OrdersA9B65338" for f in doc["findings"])


def test_one_glob_matcher_for_suppressions_and_profiles_in_a_cdk_assembly(tmp_path, capsys):
    """A suppression by logical id matches in a cdk.out (ids are Stack/LogicalId), as a profile always did."""
    sample = os.path.join(FIXTURES, "cdk.out.sample")
    cfg = tmp_path / "visguard.yaml"
    for queue in ("OrdersA9B65338", "Orders*", "OrdersStack/OrdersA9B65338", "OrdersStack/Orders/*"):
        cfg.write_text(f"suppressions:\n  - {{rule: VG011, queue: '{queue}', reason: accepted}}\n")
        main(["lint", "-f", "json", "--config", str(cfg), sample])
        doc = json.loads(capsys.readouterr().out)
        assert not [f for f in doc["findings"] if f["rule"] == "VG011"], queue
    from visguard.linter.matching import matches

    q = Queue(
        id="S/OrdersA9B65338", name="orders", location=Location("t", construct_path="S/Orders/Resource")
    )
    for pattern, hit in (("OrdersA9B65338", True), ("orders", True), ("S/*", True), ("S/Orders/*", True),
                         ("Orders", False), ("ORDERS", False)):  # fmt: skip
        assert matches(pattern, q) is hit, pattern


def test_rule_context_has_its_own_module():
    from visguard.linter.api import RuleContext as FromApi
    from visguard.linter.context import RuleContext

    assert FromApi is RuleContext and RuleContext.__module__ == "visguard.linter.context"


def test_the_cloudformation_loader_takes_an_unclaimed_file_named_on_the_command_line(tmp_path, capsys):
    (tmp_path / "notes.yaml").write_text("hello: world\n")
    code, _, err = lint(capsys, str(tmp_path / "notes.yaml"))
    assert code == 1 and "not a CloudFormation template" in err[0]
    (tmp_path / "t.yaml").write_text(WARN)
    code, doc, err = lint(capsys, str(tmp_path))  # in a search the notes are skipped quietly
    assert code == 2 and err == [] and doc["summary"]["files"] == 1


def test_another_tools_file_with_visguard_keys_is_a_note_not_bad_input(tmp_path):
    """.NET's Properties/launchSettings.json holds one top-level key, ``profiles`` (a mapping): claimed by its
    keys as a visguard.yaml, it is not one. The run does not fail; one note says why it was not read. A file
    named visguard.yaml that does not validate stays bad input."""
    import json

    from visguard.linter.api import lint_paths

    props = tmp_path / "app" / "Properties"
    props.mkdir(parents=True)
    (props / "launchSettings.json").write_text(
        "\ufeff" + json.dumps({"profiles": {"app": {"commandName": "Project"}}}), encoding="utf-8"
    )
    result = lint_paths([str(tmp_path / "app")])
    assert not result.errors
    notes = [f for f in result.findings if f.rule == "VG902"]
    assert len(notes) == 1 and "not a visguard configuration" in notes[0].message
    (tmp_path / "named").mkdir()
    (tmp_path / "named" / "visguard.yaml").write_text("profiles: {app: {}}\n")
    assert lint_paths([str(tmp_path / "named" / "visguard.yaml")]).errors


def test_a_frameworks_own_file_with_visguard_keys_is_neither_a_note_nor_bad_input(tmp_path):
    """``shoryuken.yml`` holds ``queues:`` (a list), a key of visguard.yaml too: it is Shoryuken's, read by the
    code loader's framework reader; claimed by its keys as a visguard.yaml it is not one, and says nothing."""
    from visguard.linter.api import lint_paths

    (tmp_path / "shoryuken.yml").write_text("concurrency: 5\nqueues:\n  - worker_bee\n")
    result = lint_paths([str(tmp_path)])
    assert not result.errors
    assert not [f for f in result.findings if "not a visguard configuration" in f.message]
    (tmp_path / "other.yml").write_text("queues:\n  - worker_bee\n")
    assert [f for f in lint_paths([str(tmp_path)]).findings if "not a visguard configuration" in f.message]
