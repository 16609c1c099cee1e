"""Issue 25: ``--fix`` / ``--diff`` write a consumer's setting into its application code and worker configuration
(visguard.linter.fixes.code), in the consumer's own terms: the number the reader read, in the unit it is written
in, and nothing else of the file; a value that comes from somewhere else is left alone with what it comes from."""

from __future__ import annotations

import pytest
from visguard.cli import main
from visguard.linter.api import lint_paths
from visguard.linter.changes import set_consumer
from visguard.linter.fix import plan, write_fix
from visguard.linter.fixes.code import CodeAdapter
from visguard.linter.fixes.core import plan_text
from visguard.linter.loaders.code import loader
from visguard.linter.model import Finding, Severity

URL = "https://sqs.us-east-1.amazonaws.com/123456789012/orders"


def fix(tmp_path, name: str, source: str, field: str, value, index: int = 0):
    """The FileFix of one finding that sets ``field`` of the file's ``index``-th consumer to ``value``."""
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(source.encode("utf-8"))
    mod = loader.module(loader.language_of(str(path)))
    c = mod.read(str(path), source.encode("utf-8")).consumers[index]
    change = set_consumer(c, field, value)
    f = Finding("VGX", Severity.WARNING, "m", "q", change.location, consumer=c.id, changes=(change,))
    return plan_text(CodeAdapter(str(path)), str(path), source, [f])


def fixed(ff, before: str, old: str, new: str) -> None:
    """The fix changed exactly ``old`` into ``new`` (once), and nothing else of the file."""
    assert ff.skipped == []
    assert before.count(old) == 1
    assert ff.after == before.replace(old, new)


def refused(ff, before: str, *words: str) -> str:
    assert ff.after == before and ff.applied == []
    (why,) = [w for _, w in ff.skipped]
    for w in words:
        assert w in why
    return why


# ------------------------------------------------------------------------------------------ per language
PY = f"""import os
import boto3

VT = 45
sqs = boto3.client("sqs")
a = sqs.receive_message(QueueUrl="{URL}", VisibilityTimeout=30, WaitTimeSeconds=20)
b = sqs.receive_message(QueueUrl="{URL}", VisibilityTimeout=VT)
c = sqs.receive_message(QueueUrl="{URL}", VisibilityTimeout=int(os.getenv("ORDERS_VT", "60")))
d = sqs.receive_message(QueueUrl="{URL}", VisibilityTimeout=5 * 60)
"""


def test_python(tmp_path):
    fixed(
        fix(tmp_path, "w.py", PY, "visibility_override", 120),
        PY,
        "VisibilityTimeout=30,",
        "VisibilityTimeout=120,",
    )
    refused(fix(tmp_path, "w.py", PY, "visibility_override", 120, 1), PY, "VT, defined at line 4")
    refused(fix(tmp_path, "w.py", PY, "visibility_override", 120, 2), PY, "environment variable ORDERS_VT")
    refused(fix(tmp_path, "w.py", PY, "visibility_override", 600, 3), PY, "computed (5 * 60)")


JS = f"""const {{ Consumer }} = require("sqs-consumer");
const VT = 45;
const a = Consumer.create({{
  queueUrl: "{URL}",
  visibilityTimeout: 30,
  heartbeatInterval: 10,
  handleMessageTimeout: 60000,
  handleMessage: async (m) => {{}},
}});
const b = Consumer.create({{ queueUrl: "{URL}", visibilityTimeout: VT, handleMessage: async () => {{}} }});
const c = Consumer.create({{ queueUrl: "{URL}", visibilityTimeout: Number(process.env.ORDERS_VT ?? 60), handleMessage: async () => {{}} }});
"""  # noqa: E501


def test_javascript(tmp_path):
    fixed(
        fix(tmp_path, "w.js", JS, "visibility_override", 80),
        JS,
        "visibilityTimeout: 30,",
        "visibilityTimeout: 80,",
    )
    # handleMessageTimeout is written in milliseconds: 90 s is 90000
    fixed(
        fix(tmp_path, "w.js", JS, "work_timeout", 90),
        JS,
        "handleMessageTimeout: 60000",
        "handleMessageTimeout: 90000",
    )
    fixed(
        fix(tmp_path, "w.js", JS, "heartbeat_interval", 20),
        JS,
        "heartbeatInterval: 10",
        "heartbeatInterval: 20",
    )
    refused(
        fix(tmp_path, "w.js", JS, "visibility_override", 80, 1), JS, "is VT, defined at line 2", "by hand"
    )
    refused(fix(tmp_path, "w.js", JS, "visibility_override", 80, 2), JS, "environment variable ORDERS_VT")


TS = f"""import {{ ReceiveMessageCommand }} from "@aws-sdk/client-sqs";
const a = new ReceiveMessageCommand({{ QueueUrl: "{URL}", VisibilityTimeout: 30 as number }});
const b = new ReceiveMessageCommand({{ QueueUrl: "{URL}", VisibilityTimeout: 5 * 60 }});
"""


def test_typescript(tmp_path):
    fixed(
        fix(tmp_path, "w.ts", TS, "visibility_override", 90),
        TS,
        "VisibilityTimeout: 30 as",
        "VisibilityTimeout: 90 as",
    )
    refused(fix(tmp_path, "w.ts", TS, "visibility_override", 600, 1), TS, "computed (5 * 60)")


JAVA = f"""import software.amazon.awssdk.services.sqs.model.ReceiveMessageRequest;
import io.awspring.cloud.sqs.annotation.SqsListener;
class W {{
  static final int VT = 45;
  void run() {{
    ReceiveMessageRequest a = ReceiveMessageRequest.builder().queueUrl("{URL}").visibilityTimeout(30).build();
    ReceiveMessageRequest b = ReceiveMessageRequest.builder().queueUrl("{URL}").visibilityTimeout(VT).build();
  }}
  @SqsListener(value = "orders", messageVisibilitySeconds = "30")
  void listen(String m) {{}}
  void options() {{ SqsContainerOptions.builder().listenerShutdownTimeout(Duration.ofMinutes(2)); }}
}}
"""


def test_java(tmp_path):
    fixed(
        fix(tmp_path, "W.java", JAVA, "visibility_override", 90),
        JAVA,
        "visibilityTimeout(30)",
        "visibilityTimeout(90)",
    )
    refused(fix(tmp_path, "W.java", JAVA, "visibility_override", 90, 1), JAVA, "is VT, defined at line 4")
    # a Spring String attribute: the digits inside the quotes
    spring = fix(tmp_path, "W.java", JAVA, "visibility_override", 90, 2)
    fixed(spring, JAVA, '= "30")', '= "90")')
    # Duration.ofMinutes: written in minutes, or left alone when the value is not a whole number of them
    fixed(fix(tmp_path, "W.java", JAVA, "stop_timeout", 180, 2), JAVA, "ofMinutes(2)", "ofMinutes(3)")
    refused(fix(tmp_path, "W.java", JAVA, "stop_timeout", 150, 2), JAVA, "not a whole number of minutes")


GO = f"""package main

const VT = 45

func main() {{
	a, _ := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{{QueueUrl: aws.String("{URL}"), VisibilityTimeout: 30}})
	b, _ := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{{QueueUrl: aws.String("{URL}"), VisibilityTimeout: VT}})
}}
"""


def test_go(tmp_path):
    fixed(
        fix(tmp_path, "w.go", GO, "visibility_override", 90),
        GO,
        "VisibilityTimeout: 30}",
        "VisibilityTimeout: 90}",
    )
    refused(fix(tmp_path, "w.go", GO, "visibility_override", 90, 1), GO, "is VT, defined at line 3")


CS = f"""using Amazon.SQS.Model;
class W {{
  const int VT = 45;
  void Run() {{
    var a = new ReceiveMessageRequest {{ QueueUrl = "{URL}", VisibilityTimeout = 30 }};
    var b = new ReceiveMessageRequest {{ QueueUrl = "{URL}", VisibilityTimeout = VT }};
  }}
}}
"""


def test_csharp(tmp_path):
    fixed(
        fix(tmp_path, "W.cs", CS, "visibility_override", 90),
        CS,
        "VisibilityTimeout = 30 ",
        "VisibilityTimeout = 90 ",
    )
    refused(fix(tmp_path, "W.cs", CS, "visibility_override", 90, 1), CS, "is VT, defined at line 3")


PHP = f"""<?php
const VT = 45;
$a = $sqs->receiveMessage(['QueueUrl' => '{URL}', 'VisibilityTimeout' => 30]);
$b = $sqs->receiveMessage(['QueueUrl' => '{URL}', 'VisibilityTimeout' => VT]);
"""


def test_php(tmp_path):
    fixed(
        fix(tmp_path, "w.php", PHP, "visibility_override", 90),
        PHP,
        "'VisibilityTimeout' => 30]",
        "'VisibilityTimeout' => 90]",
    )
    refused(fix(tmp_path, "w.php", PHP, "visibility_override", 90, 1), PHP, "is VT, defined at line 2")


RB = f"""VT = 45
a = sqs.receive_message(queue_url: "{URL}", visibility_timeout: 30)
b = sqs.receive_message(queue_url: "{URL}", visibility_timeout: VT)
c = sqs.receive_message(queue_url: "{URL}", visibility_timeout: 2.minutes)
"""


def test_ruby(tmp_path):
    fixed(
        fix(tmp_path, "w.rb", RB, "visibility_override", 90),
        RB,
        "visibility_timeout: 30)",
        "visibility_timeout: 90)",
    )
    refused(fix(tmp_path, "w.rb", RB, "visibility_override", 90, 1), RB, "is VT, defined at line 1")
    fixed(fix(tmp_path, "w.rb", RB, "visibility_override", 300, 2), RB, "2.minutes", "5.minutes")


RS = f"""const VT: i32 = 45;
fn f(c: &Client) {{
    c.receive_message().queue_url("{URL}").visibility_timeout(30).send();
    c.receive_message().queue_url("{URL}").visibility_timeout(VT).send();
    c.receive_message().queue_url("{URL}").visibility_timeout(Duration::from_secs(30).as_secs() as i32).send();
    c.receive_message().queue_url("{URL}").visibility_timeout(30i32).send();
}}
"""


def test_rust(tmp_path):
    fixed(
        fix(tmp_path, "w.rs", RS, "visibility_override", 90),
        RS,
        "visibility_timeout(30).send()",
        "visibility_timeout(90).send()",
    )
    refused(fix(tmp_path, "w.rs", RS, "visibility_override", 90, 1), RS, "is VT, defined at line 1")
    fixed(  # Duration::from_secs(30).as_secs(): the seconds written in the call
        fix(tmp_path, "w.rs", RS, "visibility_override", 90, 2), RS, "from_secs(30)", "from_secs(90)"
    )
    refused(fix(tmp_path, "w.rs", RS, "visibility_override", 90, 3), RS)  # 30i32: written with a suffix


# ------------------------------------------------------------------------------------------ framework files
def test_worker_commands_and_shoryuken(tmp_path):
    proc = "web: php artisan serve\nworker: php artisan queue:work sqs --timeout=60 --tries=3\n"
    fixed(fix(tmp_path, "Procfile", proc, "work_timeout", 120), proc, "--timeout=60 ", "--timeout=120 ")
    conf = "[program:w]\ncommand=php artisan queue:work sqs\n  --timeout 90 --tries=3\nstopwaitsecs=30\n"
    fixed(fix(tmp_path, "w.conf", conf, "work_timeout", 120), conf, "--timeout 90 ", "--timeout 120 ")
    fixed(fix(tmp_path, "w.conf", conf, "stop_timeout", 150), conf, "stopwaitsecs=30", "stopwaitsecs=150")
    yml = "concurrency: 5\ntimeout: 25\nqueues:\n  - orders\n"
    fixed(fix(tmp_path, "shoryuken.yml", yml, "stop_timeout", 60), yml, "timeout: 25", "timeout: 60")
    # no --timeout written: Laravel's default applies, and adding the flag is a person's call
    bare = "worker: php artisan queue:work sqs --tries=3\n"
    refused(fix(tmp_path, "Procfile", bare, "work_timeout", 120), bare, "one --timeout=N", "by hand")


def test_a_setting_the_consumer_does_not_write_is_not_added(tmp_path):
    js = f'const {{ Consumer }} = require("sqs-consumer");\nConsumer.create({{ queueUrl: "{URL}", heartbeatInterval: 40 }});\n'
    refused(
        fix(tmp_path, "w.js", js, "visibility_override", 80),
        js,
        "visibilityTimeout is not written",
        "add it by hand",
    )


def test_line_endings_and_encoding_are_kept(tmp_path):
    source = "\ufeff# é\r\n" + PY.replace("\n", "\r\n").replace("sqs = ", "sqs = ") + "# ü\r\n"
    ff = fix(tmp_path, "w.py", source, "visibility_override", 120)
    fixed(ff, source, "VisibilityTimeout=30,", "VisibilityTimeout=120,")
    assert ff.after.encode("utf-8") == source.encode("utf-8").replace(
        b"VisibilityTimeout=30,", b"VisibilityTimeout=120,"
    )


# ------------------------------------------------------------------------------------------ the command
TF = 'resource "aws_sqs_queue" "orders" {\n  name                       = "orders"\n  visibility_timeout_seconds = 600\n}\n'
WORKER = f'import boto3\n\nsqs = boto3.client("sqs")\nwhile True:\n    sqs.receive_message(QueueUrl="{URL}", VisibilityTimeout=0)\n'
NODE = f"""const {{ Consumer }} = require("sqs-consumer");
const VT = 30;
Consumer.create({{ queueUrl: "{URL}", visibilityTimeout: VT, heartbeatInterval: 40, handleMessage: async () => {{}} }});
"""  # noqa: E501


@pytest.fixture
def app(tmp_path):
    root = tmp_path / "app"
    (root / "src").mkdir(parents=True)
    (root / "main.tf").write_text(TF)
    (root / "src" / "worker.py").write_text(WORKER)
    (root / "src" / "index.js").write_text(NODE)
    return root


def snapshot(root) -> dict:
    return {p.relative_to(root): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_diff_shows_the_code_change_and_writes_nothing(app, capsys):
    before = snapshot(app)
    main(["lint", "--no-config", "--diff", str(app)])
    out, err = capsys.readouterr()
    assert "-    sqs.receive_message(QueueUrl=" in out and "VisibilityTimeout=0)\n" in out
    assert f'+    sqs.receive_message(QueueUrl="{URL}", VisibilityTimeout=600)\n' in out
    # VG073 wants visibilityTimeout raised, but it is the constant VT: named, left alone
    assert (
        "src/index.js: VG073" in err
        and "not fixed automatically" in err
        and "is VT, defined at line 2" in err
    )
    assert "index.js" not in out
    assert snapshot(app) == before


def test_fix_writes_code_and_converges(app, capsys):
    main(["lint", "--no-config", "--fix", str(app)])
    capsys.readouterr()
    worker = (app / "src" / "worker.py").read_text()
    assert worker == WORKER.replace("VisibilityTimeout=0)", "VisibilityTimeout=600)")
    assert (app / "src" / "index.js").read_text() == NODE
    once = snapshot(app)
    main(["lint", "--no-config", "--fix", str(app)])
    _, err = capsys.readouterr()
    assert snapshot(app) == once
    assert ": fixed " not in err
    assert not [f for f in lint_paths([str(app)]).findings if f.rule == "VG070"]


def test_a_code_file_changed_since_it_was_read_is_left_alone(app):
    result = lint_paths([str(app)])
    fixes = [ff for ff in plan(result) if ff.path.endswith("worker.py") and ff.changed]
    assert len(fixes) == 1
    edited = WORKER + "# edited meanwhile\n"
    (app / "src" / "worker.py").write_text(edited)
    assert write_fix(fixes[0]) is False
    assert fixes[0].refused
    assert (app / "src" / "worker.py").read_text() == edited


def test_sarif_offers_the_code_edit(app, capsys):
    import json

    main(["lint", "--no-config", "-f", "sarif", str(app)])
    results = json.loads(capsys.readouterr()[0])["runs"][0]["results"]
    (vg070,) = [r for r in results if r["ruleId"] == "VG070"]
    (change,) = [c for f in vg070["fixes"] for c in f["artifactChanges"]]
    assert change["artifactLocation"]["uri"].endswith("src/worker.py")
    (edit,) = change["replacements"]
    assert edit["deletedRegion"]["startLine"] == 5
    assert (
        edit["insertedContent"]["text"]
        == f'    sqs.receive_message(QueueUrl="{URL}", VisibilityTimeout=600)\n'
    )
