"""Issue 33/34: every code reader reports columns in Unicode code points (as SARIF declares them), and ``--fix``
finds the literal where the reader read it, with multi-byte characters (é, 中, an emoji) before it on the same
line and on earlier lines; a number that is not the one the reader read is never rewritten."""

from __future__ import annotations

import pytest
from visguard.linter.changes import set_consumer
from visguard.linter.fixes.code import CodeAdapter
from visguard.linter.fixes.core import plan_text
from visguard.linter.loaders.code import loader
from visguard.linter.model import Finding, Severity

URL = "https://sqs.us-east-1.amazonaws.com/123456789012/orders"
WIDE = "é中😀"  # 2, 3 and 4 bytes in UTF-8: one code point each
NARROW = "abc"  # as many code points, one byte each

# file name -> source with {w} where the multi-byte text goes; its receive sets the visibility to 5, and a
# WaitTimeSeconds of 5 follows on the same line (the Java report: the wrong 0 was rewritten)
CASES = {
    "w.py": 'import boto3\n# {w}\nsqs = boto3.client("sqs")\nx = "{w}"; a = sqs.receive_message(QueueUrl="'
    + URL
    + '", VisibilityTimeout=5, WaitTimeSeconds=5)\n',
    "w.js": 'const {{ SQSClient, ReceiveMessageCommand }} = require("@aws-sdk/client-sqs");\n// {w}\n'
    'const x = "{w}"; const a = client.send(new ReceiveMessageCommand({{ QueueUrl: "' + URL + '", '
    "VisibilityTimeout: 5, WaitTimeSeconds: 5 }}));\n",
    "w.ts": 'import {{ ReceiveMessageCommand }} from "@aws-sdk/client-sqs";\n// {w}\n'
    'const x: string = "{w}"; const a = client.send(new ReceiveMessageCommand({{ QueueUrl: "' + URL + '", '
    "VisibilityTimeout: 5, WaitTimeSeconds: 5 }}));\n",
    "W.java": '// {w}\nclass W {{\n  void run() {{\n    String x = "{w}"; var a = sqs.receiveMessage('
    'ReceiveMessageRequest.builder().queueUrl("'
    + URL
    + '").visibilityTimeout(5).waitTimeSeconds(5).build());\n'
    "  }}\n}}\n",
    "w.go": 'package main\n\n// {w}\nfunc main() {{\n\tx := "{w}"; a, _ := client.ReceiveMessage(ctx, '
    '&sqs.ReceiveMessageInput{{QueueUrl: aws.String("'
    + URL
    + '"), VisibilityTimeout: 5, WaitTimeSeconds: 5}})\n}}\n',
    "W.cs": '// {w}\nclass W {{\n  void Run() {{\n    var x = "{w}"; var a = new ReceiveMessageRequest {{ QueueUrl = "'
    + URL
    + '", VisibilityTimeout = 5, WaitTimeSeconds = 5 }};\n  }}\n}}\n',
    "w.php": "<?php\n// {w}\n$x = \"{w}\"; $a = $sqs->receiveMessage(['QueueUrl' => '"
    + URL
    + "', 'VisibilityTimeout' => 5, 'WaitTimeSeconds' => 5]);\n",
    "w.rb": '# {w}\nx = "{w}"; a = sqs.receive_message(queue_url: "'
    + URL
    + '", visibility_timeout: 5, wait_time_seconds: 5)\n',
    "w.rs": '// {w}\nfn main() {{\n    let x = "{w}"; let a = client.receive_message().queue_url("'
    + URL
    + '").visibility_timeout(5).wait_time_seconds(5).send();\n}}\n',
    "W.kt": '// {w}\nfun main() {{\n    val x = "{w}"; val a = sqs.receiveMessage(ReceiveMessageRequest.builder().queueUrl("'
    + URL
    + '").visibilityTimeout(5).waitTimeSeconds(5).build())\n}}\n',
}
VISIBILITY = {
    "w.py": "VisibilityTimeout=5",
    "w.js": "VisibilityTimeout: 5",
    "w.ts": "VisibilityTimeout: 5",
    "W.java": "visibilityTimeout(5)",
    "w.go": "VisibilityTimeout: 5",
    "W.cs": "VisibilityTimeout = 5",
    "w.php": "'VisibilityTimeout' => 5",
    "w.rb": "visibility_timeout: 5",
    "w.rs": "visibility_timeout(5)",
    "W.kt": "visibilityTimeout(5)",
}


def read(tmp_path, name: str, source: str):
    path = tmp_path / name
    path.write_bytes(source.encode("utf-8"))
    mod = loader.module(loader.language_of(str(path)))
    return str(path), mod.read(str(path), source.encode("utf-8"))


def columns(result) -> list:
    """Every (field, line, column) the reader reports: the consumer, its fields, its notes."""
    out = []
    for c in result.consumers:
        out.append(("consumer", c.location.line, c.location.column))
        out += sorted((k, v.line, v.column) for k, v in c.locations.items() if hasattr(v, "line"))
    out += [(n.message, n.location.line, n.location.column) for n in result.notes if n.location is not None]
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_columns_are_code_points(tmp_path, name):
    _, wide = read(tmp_path, name, CASES[name].format(w=WIDE))
    _, narrow = read(tmp_path, name, CASES[name].format(w=NARROW))
    assert wide.consumers and wide.consumers[0].visibility_override == 5
    got = columns(wide)
    assert got == columns(narrow)
    # the visibility's column is where its code-point index in the line says
    src = CASES[name].format(w=WIDE)
    at = wide.consumers[0].locations["visibility_override"]
    line = src.split("\n")[at.line - 1]
    assert at.column - 1 >= line.index(VISIBILITY[name].split("5")[0].strip("'"))
    assert at.column - 1 <= line.index(VISIBILITY[name]) + len(VISIBILITY[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("w", [WIDE, NARROW, WIDE * 5])
def test_fix_rewrites_the_literal_the_reader_read(tmp_path, name, w):
    source = CASES[name].format(w=w)
    path, result = read(tmp_path, name, source)
    c = result.consumers[0]
    change = set_consumer(c, "visibility_override", 30)
    f = Finding("VGX", Severity.WARNING, "m", "q", change.location, consumer=c.id, changes=(change,))
    ff = plan_text(CodeAdapter(path), path, source, [f])
    assert ff.skipped == []
    assert source.count(VISIBILITY[name]) == 1
    assert ff.after == source.replace(VISIBILITY[name], VISIBILITY[name].replace("5", "30"))


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_location_off_the_literal_is_refused(tmp_path, name):
    """A change located a few columns off (as a byte column read as characters would be) is refused, never a
    rewrite of another number."""
    source = CASES[name].format(w=WIDE)
    path, result = read(tmp_path, name, source)
    c = result.consumers[0]
    change = set_consumer(c, "visibility_override", 30)
    loc = change.location
    for shift in (len(WIDE.encode()) - len(WIDE), 1, -1):
        moved = change.replace(location=loc.replace(column=loc.column + shift))
        f = Finding("VGX", Severity.WARNING, "m", "q", moved.location, consumer=c.id, changes=(moved,))
        ff = plan_text(CodeAdapter(path), path, source, [f])
        assert ff.after == source and ff.applied == [] and len(ff.skipped) == 1
