"""The application-code input kind (issue 25): which files it reads and skips, .env/compose bindings, the join to
queues of other inputs, ``--queues-from INVENTORY_DIR|aws``, and what a CloudFormation-only run does not import.

The language readers (linter/loaders/code/<language>.py) are other modules with their own tests; here a
stand-in Python reader (``ast``, in this file only) gives the loader consumers to carry.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import types

import pytest
from visguard.cli import main
from visguard.linter.api import lint_paths
from visguard.linter.consumers import QueueRef
from visguard.linter.loaders import registry
from visguard.linter.loaders.code import CodeResult, envfiles, loader
from visguard.linter.model import Consumer, Location
from visguard.linter.queues_from import loader_for

TF = 'resource "aws_sqs_queue" "orders" {\n  name                       = "orders"\n  visibility_timeout_seconds = 600\n}\n'
WORKER = (
    "import os\nimport boto3\n\nsqs = boto3.client('sqs')\n"
    "resp = sqs.receive_message(QueueUrl=os.environ['ORDERS_QUEUE_URL'], VisibilityTimeout=0)\n"
)
URL = "https://sqs.us-east-1.amazonaws.com/123456789012/orders"


def _stand_in_read(path: str, data: bytes) -> CodeResult:
    out = CodeResult()
    for node in ast.walk(ast.parse(data)):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "receive_message":
            kw = {k.arg: k.value for k in node.keywords}
            q, vt = kw.get("QueueUrl"), kw.get("VisibilityTimeout")
            ref = None
            if isinstance(q, ast.Subscript) and isinstance(q.slice, ast.Constant):
                ref = QueueRef("env", q.slice.value)
            elif isinstance(q, ast.Constant):
                ref = QueueRef("url", q.value)
            loc = Location(path, line=node.lineno)
            out.consumers.append(
                Consumer(f"{path}:{node.lineno}", "worker", loc, platform="sdk", source="python", queue_ref=ref,
                         visibility_override=vt.value if isinstance(vt, ast.Constant) else None,
                         locations={"visibility_override": loc})
            )  # fmt: skip
    return out


@pytest.fixture
def python_reader(monkeypatch):
    """The stand-in reader as the "python" language module; records the files it was given."""
    read: list[str] = []

    def reader(path, data):
        read.append(path)
        return _stand_in_read(path, data)

    monkeypatch.setitem(loader._modules, "python", types.SimpleNamespace(EXTENSIONS=(".py",), read=reader))
    return read


def lint(capsys, *args):
    code = main(["lint", "--no-config", "-f", "json", *args])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def app(tmp_path, *, terraform=True):
    a = tmp_path / "app"
    (a / "src").mkdir(parents=True)
    (a / "src" / "worker.py").write_text(WORKER)
    (a / "src" / "util.py").write_text("def add(a, b):\n    return a + b\n")
    (a / ".env").write_text(f"ORDERS_QUEUE_URL={URL}\nDB_PASSWORD=hunter2-secret\n")
    for skipped in ("node_modules/lib", "vendor/pkg", "dist", "build/lib", "target", "generated/api"):
        (a / skipped).mkdir(parents=True)
        (a / skipped / "copy.py").write_text(WORKER)
    if terraform:
        (a / "terraform").mkdir()
        (a / "terraform" / "main.tf").write_text(TF)
    return a


# ------------------------------------------------------------------------------------------------ discovery
def test_an_app_folder_lints_its_code_and_its_terraform_joined(tmp_path, capsys, python_reader):
    a = app(tmp_path)
    code, out, err = lint(capsys, str(a))
    assert code == 2 and err == ""
    vg070 = [f for f in out["findings"] if f["rule"] == "VG070"]
    assert len(vg070) == 1 and vg070[0]["queue"] == "aws_sqs_queue.orders"
    assert vg070[0]["file"].endswith("src/worker.py") and vg070[0]["line"] == 5
    # only the worker was parsed: no marker in util.py, and vendored/built/generated copies are never offered
    assert [p.rsplit("app/", 1)[1] for p in python_reader] == ["src/worker.py"]
    assert "hunter2" not in json.dumps(out)  # the .env file's other values are not kept


def test_code_beside_its_terraform_and_below_a_terraform_root_is_read(tmp_path, capsys, python_reader):
    # real-world layout: worker.py in the Terraform root module itself, and in a folder below it
    a = tmp_path / "svc"
    (a / "jobs").mkdir(parents=True)
    (a / "main.tf").write_text(TF)
    (a / "worker.py").write_text(WORKER.replace("os.environ['ORDERS_QUEUE_URL']", repr(URL)))
    (a / "jobs" / "poll.py").write_text(WORKER.replace("os.environ['ORDERS_QUEUE_URL']", repr(URL)))
    (a / "modules" / "q").mkdir(parents=True)  # a module folder is still not a root of its own
    (a / "modules" / "q" / "main.tf").write_text(TF.replace('"orders"', '"other"'))
    for target in (a, tmp_path):
        python_reader.clear()
        code, out, err = lint(capsys, str(target))
        assert err == "" and code == 2
        assert sorted(p.rsplit("svc/", 1)[1] for p in python_reader) == ["jobs/poll.py", "worker.py"]
        vg070 = [f for f in out["findings"] if f["rule"] == "VG070"]
        assert sorted(f["file"].rsplit("svc/", 1)[1] for f in vg070) == ["jobs/poll.py", "worker.py"]
        assert {f["queue"] for f in vg070} == {"aws_sqs_queue.orders"}


def test_exclude_and_a_source_file_named_on_the_command_line(tmp_path, capsys, python_reader):
    a = app(tmp_path)
    code, out, _ = lint(capsys, "--exclude", "src", str(a))
    assert not python_reader and not [f for f in out["findings"] if f["rule"] == "VG070"]
    code, out, err = lint(capsys, str(a / "src" / "util.py"))  # no SQS in it: read, nothing to say
    assert (code, out["findings"], err) == (0, [], "")


def test_code_does_not_claim_what_other_loaders_own(tmp_path):
    cases = {
        "template.yaml": "Resources:\n  Q: {Type: AWS::SQS::Queue}\n# ReceiveMessage sqs queue\n",
        "main.tf": 'resource "aws_sqs_queue" "q" {}\n# receive_message\n',
        "serverless.yml": "service: s\nprovider: {name: aws}\n# sqs queue\n",
        "visguard.yaml": "version: 1\nqueues: []\n",
    }
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        assert registry.claim(str(tmp_path / name)).name != "code", name


def test_generated_and_minified_files_are_not_parsed(tmp_path, python_reader):
    (tmp_path / "gen.py").write_text("# Code generated by protoc. DO NOT EDIT.\n" + WORKER)
    (tmp_path / "app.min.js").write_text("sqs.receiveMessage({})")
    errors = []
    assert registry.discover([str(tmp_path)], errors=errors) == [] and "SQS consumers" in str(errors[0])


def test_a_large_source_file_is_a_note_not_a_crash(tmp_path, capsys, python_reader):
    big = tmp_path / "big.py"
    big.write_bytes(WORKER.encode() + b"#" * (loader.MAX_CODE_BYTES + 10))
    code, out, err = lint(capsys, str(big))
    assert code == 0 and err == "" and not python_reader
    (note,) = out["findings"]
    assert note["rule"] == "VG902" and "MB" in note["message"]


def test_a_fifo_named_like_code_is_one_bad_input_line(tmp_path, capsys):
    import os

    os.mkfifo(tmp_path / "worker.py")
    code, _, err = lint(capsys, str(tmp_path / "worker.py"))
    assert code == 1 and "named pipe" in err and len(err.strip().splitlines()) == 1


def test_unjoined_code_consumer_is_a_note_naming_the_variable(tmp_path, capsys, python_reader):
    a = app(tmp_path, terraform=False)
    (a / ".env").unlink()
    code, out, _ = lint(capsys, str(a))
    (note,) = [f for f in out["findings"] if f["rule"] == "VG902"]
    assert (
        note["rule"] == "VG902" and "ORDERS_QUEUE_URL" in note["message"] and "--queues-from" in note["fix"]
    )
    # what the receive sets itself is still judged, without a queue (issue 35: VG070 on the consumer alone)
    assert [(f["rule"], f["queue"]) for f in out["findings"] if f["rule"] != "VG902"] == [
        ("VG070", "$ORDERS_QUEUE_URL")
    ]


# ------------------------------------------------------------------------------------------------ env files
def test_env_file_bindings_keep_queue_values_only():
    data = (
        f"# comment\nexport ORDERS_QUEUE_URL='{URL}'\nJOBS_QUEUE=jobs.fifo # the jobs queue\n"
        "LOG_LEVEL=debug\nAPI=https://example.com/v1/users\nDLQ_ARN=arn:aws:sqs:us-east-1:123456789012:dlq\n"
        "TEMPLATED_QUEUE=${OTHER}\nSECRET_KEY=abc\n"
    ).encode()
    res = envfiles.read("app/.env", data)
    got = {b.name: (b.ref.kind, b.ref.value, b.location.line) for b in res.env}
    assert got == {
        "ORDERS_QUEUE_URL": ("url", URL, 2),
        "JOBS_QUEUE": ("name", "jobs.fifo", 3),
        "DLQ_ARN": ("arn", "arn:aws:sqs:us-east-1:123456789012:dlq", 6),
    }


def test_compose_environment_in_both_forms_and_a_broken_compose_file_is_a_note():
    data = (
        "services:\n  worker:\n    image: w\n    environment:\n      ORDERS_QUEUE_URL: " + URL + "\n"
        "  cron:\n    environment:\n      - JOBS_QUEUE_NAME=jobs\n      - PLAIN=x\n"
    ).encode()
    res = envfiles.read("docker-compose.yml", data)
    assert {(b.workload, b.name, b.ref.kind) for b in res.env} == {
        ("worker", "ORDERS_QUEUE_URL", "url"),
        ("cron", "JOBS_QUEUE_NAME", "name"),
    }
    assert next(b for b in res.env if b.workload == "worker").location.line == 5
    broken = envfiles.read("compose.yaml", b"services: [\n")
    assert broken.env == [] and "compose file not read" in broken.notes[0].message


def test_a_compose_file_joins_the_code_to_a_queue(tmp_path, capsys, python_reader):
    a = app(tmp_path)
    (a / ".env").unlink()
    (a / "docker-compose.yml").write_text(
        f"services:\n  worker:\n    environment:\n      - ORDERS_QUEUE_URL={URL}\n"
    )
    code, out, _ = lint(capsys, str(a))
    assert [f["rule"] for f in out["findings"] if f["rule"].startswith("VG07")] == ["VG070"]


# ------------------------------------------------------------------------------------------------ --queues-from
def inventory(tmp_path, vt="45"):
    from visguard.audit.inventory import write_partition

    arn = "arn:aws:sqs:us-east-1:123456789012:orders"
    rec = {"kind": "queue", "account": "123456789012", "region": "us-east-1", "arn": arn, "name": "orders",
           "url": URL, "attributes": {"VisibilityTimeout": vt, "QueueArn": arn}}  # fmt: skip
    write_partition(tmp_path / "inv", "123456789012", "us-east-1", [rec])
    return tmp_path / "inv"


def test_queues_from_an_inventory(tmp_path, capsys, python_reader):
    a = app(tmp_path, terraform=False)
    inv = inventory(tmp_path)
    code, out, err = lint(capsys, "--queues-from", str(inv), str(a))
    assert code == 2 and err == ""
    (f,) = [f for f in out["findings"] if f["rule"] == "VG070"]
    assert f["queue"] == "arn:aws:sqs:us-east-1:123456789012:orders" and "us-east-1.jsonl:1" in f["message"]
    assert out["summary"]["queues"] == 1


def test_queues_from_a_bad_inventory_is_one_line(tmp_path, capsys, python_reader):
    a = app(tmp_path, terraform=False)
    inv = inventory(tmp_path)
    part = inv / "123456789012" / "us-east-1.jsonl"
    part.write_text('{"kind": "queue", "account": "123456789012"}\n' + part.read_text())
    code, _, err = lint(capsys, "--queues-from", str(inv), str(a))
    # both: the bad inventory, and the worker's VisibilityTimeout=0 judged alone (VG070)
    assert code == 4 and "us-east-1.jsonl:1:" in err and len(err.strip().splitlines()) == 1
    code, _, err = lint(capsys, "--queues-from", str(tmp_path / "nowhere"), str(a))
    assert code == 4 and "not an inventory folder" in err  # and the VG070 of the worker alone


@pytest.fixture
def aws_env(monkeypatch):
    for k in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIATESTKEYNOTREAL00")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test-secret-not-real")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")


def test_queues_from_aws_reads_only_the_queues_the_code_names(tmp_path, capsys, python_reader, aws_env):
    import boto3
    from moto import mock_aws

    a = app(tmp_path, terraform=False)
    with mock_aws():
        sqs = boto3.client("sqs", region_name="us-east-1")
        sqs.create_queue(QueueName="orders", Attributes={"VisibilityTimeout": "120"})
        sqs.create_queue(QueueName="unrelated")
        code, out, err = lint(capsys, "--queues-from", "aws", str(a))
        result = lint_paths([str(a)], fetch_queues=loader_for(["aws"]))
    assert code == 2 and err == ""
    (f,) = [f for f in out["findings"] if f["rule"] == "VG070"]
    assert f["queue"] == "arn:aws:sqs:us-east-1:123456789012:orders"
    (f,) = [f for f in result.findings if f.rule == "VG070"]
    assert [c.value for c in f.changes] == [120]  # the deployed queue's own timeout was read
    assert out["summary"]["queues"] == 1  # the unrelated queue is neither read into the run nor linted
    assert "test-secret-not-real" not in json.dumps(out) + err


def test_queues_from_aws_a_missing_queue_is_a_note(tmp_path, capsys, python_reader, aws_env):
    from moto import mock_aws

    a = app(tmp_path, terraform=False)
    with mock_aws():
        code, out, err = lint(capsys, "--queues-from", "aws", str(a))
    # the receive's VisibilityTimeout=0 is judged on the consumer alone (issue 35): a warning, not bad input
    assert code == 2 and err == ""
    assert [f["rule"] for f in out["findings"] if f["rule"] != "VG902"] == ["VG070"]
    messages = [f["message"] for f in out["findings"] if f["rule"] == "VG902"]
    assert any(
        "not read: AWS.SimpleQueueService.NonExistentQueue" in m or "QueueDoesNotExist" in m for m in messages
    )


def test_queues_from_aws_without_boto3_is_the_missing_extra_line(tmp_path, capsys, monkeypatch):
    from visguard.cli import main as visguard

    monkeypatch.setitem(sys.modules, "boto3", None)  # import boto3 -> ImportError, as without visguard[aws]
    code = visguard(["lint", "--no-config", "--queues-from", "aws", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 1 and "visguard[aws]" in err and len(err.strip().splitlines()) == 1


# ------------------------------------------------------------------------------------------------ imports
def test_a_cloudformation_only_folder_imports_no_code_reader(tmp_path):
    (tmp_path / "stack.yaml").write_text("Resources:\n  Q:\n    Type: AWS::SQS::Queue\n")
    probe = (
        "import json, sys\nfrom visguard.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n"
        "    pass\nprint(json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-P", "-c", probe, "lint", "--no-config", str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=60)  # fmt: skip
    mods = set(json.loads(proc.stderr.strip().splitlines()[-1]))
    assert "visguard.linter.loaders.cfn" in mods
    assert not {m for m in mods if m.startswith(("tree_sitter", "visguard.linter.loaders.code"))}


def test_a_repository_without_rust_imports_no_rust_grammar_nor_reader(tmp_path):
    """Each grammar and reader is imported for a file of its language only: a Python worker beside a Rust file
    that names no SQS API (a CLI of the same repository) imports neither tree_sitter_rust nor the Rust reader."""
    (tmp_path / "worker.py").write_text("import boto3\nboto3.client('sqs').receive_message(QueueUrl='q')\n")
    (tmp_path / "main.rs").write_text('fn main() { println!("hello"); }\n')
    (tmp_path / "Main.kt").write_text('fun main() { println("hello") }\n')
    probe = (
        "import json, sys\nfrom visguard.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n"
        "    pass\nprint(json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-P", "-c", probe, "lint", "--no-config", str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=60)  # fmt: skip
    mods = set(json.loads(proc.stderr.strip().splitlines()[-1]))
    assert "tree_sitter_python" in mods and "visguard.linter.loaders.code.python" in mods
    assert not {m for m in mods if m.startswith(("tree_sitter_rust", "visguard.linter.loaders.code.rust"))}
    assert not {
        m for m in mods if m.startswith(("tree_sitter_kotlin", "visguard.linter.loaders.code.kotlin"))
    }


def test_the_registry_knows_the_code_endings_without_importing_the_loader():
    assert set(registry.CODE_ENDINGS) == set(loader.ENDINGS)
    for language, (endings, markers) in loader.LANGUAGES.items():
        assert endings and markers, language
    assert set(envfiles.EXTENSIONS) == set(loader.LANGUAGES["envfiles"][0])
