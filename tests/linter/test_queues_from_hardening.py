"""``--queues-from`` on hostile input (issue 33): a secret of a ``.env``/compose file never leaves visguard, an
inventory is read as every input is (bounded, confined, one line per bad record), answers of AWS are bounded
numbers, and an endpoint that never answers ends the run in seconds.

AWS is a tiny SQS endpoint on 127.0.0.1 started here (JSON protocol, as boto3 speaks it), which records every
request it receives; ``AWS_ENDPOINT_URL`` points boto3 at it.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

VISGUARD = [sys.executable, "-P", "-m", "visguard"]
ARN = "arn:aws:sqs:us-east-1:123456789012:orders"
URL = "https://sqs.us-east-1.amazonaws.com/123456789012/orders"
WORKER = (
    "import os\nimport boto3\n\nsqs = boto3.client('sqs')\n"
    "sqs.receive_message(QueueUrl=os.environ['{var}'], VisibilityTimeout=0)\n"
)
LITERAL_WORKER = WORKER.replace("os.environ['{var}']", repr(URL))


class Recorder(ThreadingHTTPServer):
    """An SQS endpoint: GetQueueUrl answers for every name, GetQueueAttributes with ``attributes``; every
    request (path, headers, body) is kept in ``seen``."""

    daemon_threads = True

    def __init__(self, attributes: dict):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.attributes, self.seen = attributes, []


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.seen.append(f"{self.path}\n{self.headers}\n{body.decode('utf-8', 'replace')}")
        target = self.headers.get("X-Amz-Target", "")
        if target.endswith("GetQueueUrl"):
            name = json.loads(body)["QueueName"]
            answer = {"QueueUrl": f"https://sqs.us-east-1.amazonaws.com/123456789012/{name}"}
        else:
            answer = {"Attributes": {"QueueArn": ARN, **self.server.attributes}}
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-amz-json-1.0")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def endpoint():
    servers = []

    def start(attributes=None):
        server = Recorder(attributes or {"VisibilityTimeout": "120"})
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return server, f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    for s in servers:
        s.shutdown()
        s.server_close()


def aws_env(endpoint_url: str | None, region: str | None = "us-east-1") -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(AWS_ACCESS_KEY_ID="AKIATESTKEYNOTREAL00", AWS_SECRET_ACCESS_KEY="test-secret-not-real",
               AWS_EC2_METADATA_DISABLED="true", AWS_CONFIG_FILE=os.devnull, AWS_SHARED_CREDENTIALS_FILE=os.devnull)  # fmt: skip
    if region:
        env["AWS_DEFAULT_REGION"] = region
    if endpoint_url:
        env["AWS_ENDPOINT_URL"] = endpoint_url
    return env


def run(*args, env=None, cwd=None, timeout=30):
    """visguard in a child process (a hang fails the test instead of the suite: ``timeout`` is a guard only)."""
    proc = subprocess.run(
        [*VISGUARD, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout
    )
    return proc.returncode, proc.stdout, proc.stderr


# ------------------------------------------------------------------------------------------------ secrets
SECRETS = [  # (variable, value): what .env files of real projects hold next to their queue
    ("SQS_KEY", "AKIAIOSFODNN7EXAMPLE"),  # Laravel's config/queue.php: an access key id
    ("SQS_SECRET", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),  # its secret key
    ("SQS_SECRET", "wJalrXUtnFEMI0K7MDENG0bPxRfiCYEXAMPLEKEY"),  # a 40-character secret shaped like a name
    ("SQS_ACCESS_TOKEN", "ghp_16C7e42F292c6912E7710c838347Ae178B4a"),
    ("QUEUE_PASSWORD", "correct-horse-battery-staple"),
    (
        "SQS_TOKEN",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ),
    ("ORDERS_QUEUE", "prod-orders-7f3a9c1e"),  # a value with a name's shape, a queue no input declares
]
FORMATS = [["-f", "text"], ["-f", "json"], ["-f", "sarif"], ["-f", "junit"], ["--diff"]]


def secret_app(tmp_path: Path, var: str, value: str, *, compose: bool) -> Path:
    app = tmp_path / "app"
    app.mkdir()
    (app / "worker.py").write_text(WORKER.format(var=var))
    if compose:
        (app / "compose.yaml").write_text(f"services:\n  worker:\n    environment:\n      {var}: '{value}'\n")
    else:
        (app / ".env").write_text(f'{var}={value}\nexport {var}_2="{value}"\n')
    return app


@pytest.mark.parametrize("compose", [False, True], ids=["env", "compose"])
@pytest.mark.parametrize(("var", "secret"), SECRETS, ids=[f"{v}-{i}" for i, (v, _) in enumerate(SECRETS)])
def test_a_secret_of_an_env_file_is_never_printed_written_or_sent(tmp_path, endpoint, var, secret, compose):
    app = secret_app(tmp_path, var, secret, compose=compose)
    server, url = endpoint()
    for region in ("us-east-1", None):  # no Region: the error named the value it would have looked up
        for fmt in FORMATS:
            out = tmp_path / "report.out"
            code, stdout, stderr = run("lint", "--no-config", "--queues-from", "aws", *fmt, "-o", str(out),
                                       str(app), env=aws_env(url, region), cwd=tmp_path)  # fmt: skip
            written = out.read_text() if out.exists() else ""
            assert code in (0, 1, 2) and "internal error" not in stderr
            for text in (stdout, stderr, written):
                assert secret not in text
    assert not [r for r in server.seen if secret in r]
    assert {p.name for p in app.iterdir()} == {"worker.py", "compose.yaml" if compose else ".env"}
    assert secret in (app / ("compose.yaml" if compose else ".env")).read_text()  # --diff changed nothing


def test_a_name_in_an_env_file_joins_a_queue_an_input_declares_and_is_not_looked_up(tmp_path, endpoint):
    app = secret_app(tmp_path, "ORDERS_QUEUE", "orders", compose=False)
    (app / "main.tf").write_text('resource "aws_sqs_queue" "orders" {\n  name = "orders"\n}\n')
    server, url = endpoint()
    code, stdout, stderr = run("lint", "--no-config", "-f", "json", "--queues-from", "aws", str(app),
                               env=aws_env(url))  # fmt: skip
    findings = json.loads(stdout)["findings"]
    assert code == 2 and stderr == ""
    assert [f["queue"] for f in findings if f["rule"] == "VG070"] == ["aws_sqs_queue.orders"]
    assert server.seen == []  # declared in the run: AWS is not asked


def test_a_queue_url_of_an_env_file_is_read_from_aws(tmp_path, endpoint):
    app = secret_app(tmp_path, "ORDERS_QUEUE_URL", URL, compose=False)
    server, url = endpoint({"VisibilityTimeout": "120"})
    code, stdout, stderr = run("lint", "--no-config", "-f", "json", "--queues-from", "aws", str(app),
                               env=aws_env(url))  # fmt: skip
    assert code == 2 and stderr == ""
    assert [f["queue"] for f in json.loads(stdout)["findings"] if f["rule"] == "VG070"] == [ARN]
    assert any("GetQueueAttributes" in r and URL in r for r in server.seen)


# ------------------------------------------------------------------------------------------------ inventory
def _record(**attributes) -> str:
    attrs = {"QueueArn": ARN, "VisibilityTimeout": "45", **attributes}
    rec = {"kind": "queue", "account": "123456789012", "region": "us-east-1", "arn": ARN, "name": "orders",
           "url": URL, "attributes": attrs}  # fmt: skip
    return json.dumps(rec)


def _write(text):
    return lambda p: p.write_bytes(text.encode() if isinstance(text, str) else text)


INVENTORIES = {  # name: (how the partition is made, what the one line says, the line it names or None)
    "invalid UTF-8": (_write(b'{"kind": "queue", "name": "\xff"}\n'), "not UTF-8", "1"),
    "5,000 digits": (_write(_record(VisibilityTimeout="9" * 5000) + "\n"), "VisibilityTimeout", "1"),
    "1e400": (_write(_record(VisibilityTimeout="1e400") + "\n"), "VisibilityTimeout", "1"),
    "NaN": (_write(_record(DelaySeconds="NaN") + "\n"), "DelaySeconds", "1"),
    "negative": (_write(_record(MessageRetentionPeriod="-5") + "\n"), "MessageRetentionPeriod", "1"),
    "redrive count 1e400": (
        _write(
            _record()
            + "\n"
            + _record(RedrivePolicy=json.dumps({"deadLetterTargetArn": ARN, "maxReceiveCount": "1e400"}))
            + "\n"
        ),
        "maxReceiveCount",
        "2",
    ),  # fmt: skip
    "redrive not JSON": (_write(_record(RedrivePolicy="{") + "\n"), "RedrivePolicy", "1"),
    "redrive target a list": (
        _write(_record(RedrivePolicy=json.dumps({"deadLetterTargetArn": [], "maxReceiveCount": 3})) + "\n"),
        "RedrivePolicy",
        "1",
    ),  # fmt: skip
    "a JSON number of 5,000 digits": (_write('{"kind": "queue", "x": ' + "9" * 5000 + "}\n"), "JSON", "1"),
    "nested 100,000 deep": (_write("[" * 100_000 + "]" * 100_000 + "\n"), "JSON", "1"),
    "a line of 2 MB": (_write('{"kind": "' + "q" * 2_000_000 + '"}\n'), "longer than", "1"),
    "a named pipe": (lambda p: os.mkfifo(p), "named pipe", None),
    "a link to /dev/zero": (lambda p: p.symlink_to("/dev/zero"), "us-east-1.jsonl", None),
    "a link out of the folder": (
        lambda p: (
            p.parent.parent.parent.joinpath("elsewhere.jsonl").write_text(_record() + "\n"),
            p.symlink_to(p.parent.parent.parent / "elsewhere.jsonl"),
        ),
        "out of the inventory folder",
        None,
    ),  # fmt: skip
}


@pytest.mark.parametrize("case", list(INVENTORIES))
def test_a_bad_inventory_partition_is_one_line_of_bad_input(tmp_path, case):
    make, says, line = INVENTORIES[case]
    app = tmp_path / "app"
    app.mkdir()
    (app / "worker.py").write_text(LITERAL_WORKER)
    part = tmp_path / "inv" / "123456789012" / "us-east-1.jsonl"
    part.parent.mkdir(parents=True)
    make(part)
    code, _, stderr = run("lint", "--no-config", "--queues-from", str(tmp_path / "inv"), str(app), timeout=20)
    lines = stderr.strip().splitlines()
    # 4: bad input, and the worker's own VisibilityTimeout=0 judged alone (VG070; its queue was not read)
    assert code == 4 and len(lines) == 1 and "internal error" not in stderr
    assert f"{part}:{line}:" in lines[0] if line else str(part) in lines[0]
    assert says in lines[0]


ANSWERS = {  # GetQueueAttributes answers AWS never gives
    "5,000 digits": {"VisibilityTimeout": "9" * 5000},
    "1e400": {"VisibilityTimeout": "1e400"},
    "NaN": {"MessageRetentionPeriod": "NaN"},
    "negative": {"DelaySeconds": "-1"},
    "redrive count 1e400": {
        "RedrivePolicy": json.dumps({"deadLetterTargetArn": ARN, "maxReceiveCount": 1e400})
    },
    "redrive not JSON": {"RedrivePolicy": "[" * 10_000},
}


@pytest.mark.parametrize("case", list(ANSWERS))
def test_an_aws_answer_with_a_bad_number_is_a_note_naming_the_queue(tmp_path, endpoint, case):
    app = tmp_path / "app"
    app.mkdir()
    (app / "worker.py").write_text(LITERAL_WORKER)
    _, url = endpoint(ANSWERS[case])
    code, stdout, stderr = run("lint", "--no-config", "-f", "json", "--queues-from", "aws", str(app),
                               env=aws_env(url))  # fmt: skip
    # the queue is not read: the worker's own VisibilityTimeout=0 is judged alone (VG070, issue 35), not bad input
    assert stderr == "" and code == 2
    assert [f["rule"] for f in json.loads(stdout)["findings"] if f["rule"] != "VG902"] == ["VG070"]
    notes = [f["message"] for f in json.loads(stdout)["findings"] if f["rule"] == "VG902"]
    assert any(f"queue {URL} not read: attributes/" in m for m in notes), notes


# ------------------------------------------------------------------------------------------------ hangs
def test_an_endpoint_that_accepts_and_never_answers_ends_in_one_line(tmp_path):
    app = tmp_path / "app"
    app.mkdir()
    (app / "worker.py").write_text(LITERAL_WORKER)
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)  # connections are accepted by the kernel; nothing is ever read or answered
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        code, _, stderr = run(
            "lint", "--no-config", "--queues-from", "aws", str(app), env=aws_env(url), timeout=30
        )
    assert code == 4 and len(stderr.strip().splitlines()) == 1 and "did not answer" in stderr  # VG070 too


def test_a_large_inventory_builds_its_schema_validator_once(monkeypatch, tmp_path):
    from visguard.audit import inventory
    from visguard.linter.queues_from import from_inventory

    inventory.validator.cache_clear()  # built by an earlier test of this process otherwise
    inventory.quick_check.cache_clear()
    loads = []
    real = inventory.load_schema
    monkeypatch.setattr(inventory, "load_schema", lambda: loads.append(1) or real())
    recs = [json.loads(_record().replace("orders", f"q{i}")) for i in range(200)]
    inventory.write_partition(tmp_path / "inv", "123456789012", "us-east-1", recs)
    assert len(from_inventory(str(tmp_path / "inv")).queues) == 200
    assert len(loads) == 1  # the schema is read and its validator built once, not per record


_GOOD = json.loads(_record(RedrivePolicy='{"deadLetterTargetArn": "x", "maxReceiveCount": 3}'))
MUTATIONS = {  # a record -> a changed copy: the quick check must say what jsonschema says, valid or not
    "as written": lambda r: r,
    "partition": lambda r: {
        "kind": "partition",
        "account": r["account"],
        "region": "us-east-1",
        "queues": 1,
        "mappings": 0,
        "functions": 0,
        "workers": 0,
        "errors": 0,
    },  # fmt: skip
    "partition, negative count": lambda r: {**MUTATIONS["partition"](r), "queues": -1},
    "partition, count 1.0": lambda r: {**MUTATIONS["partition"](r), "queues": 1.0},
    "partition, count true": lambda r: {**MUTATIONS["partition"](r), "queues": True},
    "an extra key": lambda r: {**r, "extra": 1},
    "no arn": lambda r: {k: v for k, v in r.items() if k != "arn"},
    "arn a number": lambda r: {**r, "arn": 5},
    "account of 11 digits": lambda r: {**r, "account": "12345678901"},
    "account with a suffix": lambda r: {**r, "account": "123456789012x"},
    "empty region": lambda r: {**r, "region": ""},
    "name null": lambda r: {**r, "name": None},
    "name a list": lambda r: {**r, "name": ["orders"]},
    "attribute a number": lambda r: {**r, "attributes": {**r["attributes"], "VisibilityTimeout": 45}},
    "attribute null": lambda r: {**r, "attributes": {**r["attributes"], "DelaySeconds": None}},
    "attributes a list": lambda r: {**r, "attributes": []},
    "tags null": lambda r: {**r, "tags": None},
    "tag a bool": lambda r: {**r, "tags": {"a": True}},
    "dlq_sources": lambda r: {**r, "dlq_sources": ["u1", "u2"]},
    "dlq_sources with a number": lambda r: {**r, "dlq_sources": ["u1", 2]},
    "metrics": lambda r: {**r, "metrics": {"received": 1.5, "deleted": None, "age_oldest_max": 3}},
    "metrics, a bool": lambda r: {**r, "metrics": {"received": False}},
    "metrics, an extra key": lambda r: {**r, "metrics": {"sent": 1}},
    "kind unknown": lambda r: {**r, "kind": "topic"},
    "kind mapping": lambda r: {**r, "kind": "mapping"},
    "not an object": lambda r: [r],
}


@pytest.mark.parametrize("kind", [None, "queue"])
@pytest.mark.parametrize("case", list(MUTATIONS))
def test_the_quick_record_check_says_what_the_schema_says(kind, case):
    from visguard.audit import inventory

    rec = MUTATIONS[case](json.loads(json.dumps(_GOOD)))
    quick = inventory.quick_check(kind)
    assert quick is not None  # the schema compiled by fastjsonschema
    assert quick(rec) == inventory.validator(kind).is_valid(rec)
