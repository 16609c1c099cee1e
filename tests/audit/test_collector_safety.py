"""The collector under hostile answers and careless use: credentials echoed by AWS never reach the inventory or
the terminal, a refused connection is its own error, ``--out`` naming a file is a clear error, and text from
outside is shown with its control characters escaped (table-driven)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from visguard.audit import collector, inventory
from visguard.neutralize import REDACTED, printable, safe, scrub

KEY_ID = "ASIAQ7EXAMPLEKEY4U2Z"
SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY9EXAMPLEKE"
TOKEN = (
    "IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQDexampleTokenValue7Q3Z9K1X5Wabcdefghijklmnopqrs"
    "tuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+/9X8W7V6U5T=="
)
ACCOUNT = "123456789012"


class FakeAWS(BaseHTTPRequestHandler):
    """STS GetCallerIdentity answers (unless ``server.fail_sts``); everything else is a SignatureDoesNotMatch that
    echoes the canonical request the way AWS does: every signed header, the security token included."""

    def log_message(self, *_):  # quiet
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        auth = self.headers.get("Authorization", "")
        signed = auth.partition("SignedHeaders=")[2].partition(",")[0].split(";")
        canonical = "\n".join(
            ["POST", self.path, ""]
            + [f"{k}:{self.headers.get(k, '')}" for k in signed]
            + ["", ";".join(signed), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"]
        )
        message = (
            "The request signature we calculated does not match the signature you provided. Check your AWS "
            "Secret Access Key and signing method. Consult the service documentation for details.\n\n"
            f"The Canonical String for this request should have been\n'{canonical}'\n\n"
            "The String-to-Sign should have been\n'AWS4-HMAC-SHA256\n20261123T150000Z\n"
            "20261123/us-east-1/sqs/aws4_request\n"
            "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7'\n"
        )
        if "Action=GetCallerIdentity" in body:
            if not self.server.fail_sts:
                return self._send(
                    200,
                    "text/xml",
                    '<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">'
                    f"<GetCallerIdentityResult><Arn>arn:aws:iam::{ACCOUNT}:user/auditor</Arn>"
                    f"<UserId>AIDAEXAMPLE</UserId><Account>{ACCOUNT}</Account></GetCallerIdentityResult>"
                    "<ResponseMetadata><RequestId>1</RequestId></ResponseMetadata></GetCallerIdentityResponse>",
                )
            esc = message.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            return self._send(
                403,
                "text/xml",
                "<ErrorResponse><Error><Type>Sender</Type><Code>SignatureDoesNotMatch</Code>"
                f"<Message>{esc}</Message></Error><RequestId>1</RequestId></ErrorResponse>",
            )
        self._send(
            403,
            "application/x-amz-json-1.0",
            json.dumps({"__type": "com.amazon.coral.service#SignatureDoesNotMatch", "message": message}),
            {"x-amzn-query-error": "SignatureDoesNotMatch;Sender"},
        )

    def _send(self, status, ctype, body, headers=None):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def fake_aws():
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeAWS)
    server.fail_sts = False
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    yield server
    server.shutdown()
    server.server_close()


def _collect(endpoint: str, out, *extra: str) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "AWS_ACCESS_KEY_ID": KEY_ID,
        "AWS_SECRET_ACCESS_KEY": SECRET,
        "AWS_SESSION_TOKEN": TOKEN,
        "AWS_DEFAULT_REGION": "us-east-1",
    }
    for k in ("AWS_PROFILE", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"):
        env.pop(k, None)
    args = ["--accounts", ACCOUNT, "--regions", "us-east-1", "--endpoint-url", endpoint, "--out", str(out)]
    return subprocess.run(
        [sys.executable, "-P", "-m", "visguard", "audit", "collect", *args, "--max-attempts", "1", *extra],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def _leaks(text: str) -> list[str]:
    """Every 8-character piece of a credential found in ``text`` (the test's own credentials)."""
    found = []
    for secret in (KEY_ID, SECRET, TOKEN):
        for i in range(len(secret) - 7):
            piece = secret[i : i + 8]
            if piece.strip("/+=") == piece and piece in text:
                found.append(piece)
    return found


def _url(server) -> str:
    host, port = server.server_address[:2]
    return f"http://{host}:{port}"


def test_signature_mismatch_echo_is_scrubbed_from_inventory_and_terminal(fake_aws, tmp_path):
    out = tmp_path / "inv"
    r = _collect(_url(fake_aws), out)
    assert r.returncode == 0, r.stderr
    files = inventory.partition_files(out)
    text = "".join(p.read_text() for p in files)
    recs = [json.loads(line) for line in text.splitlines()]
    errors = [x for x in recs if x["kind"] == "error"]
    assert len(errors) == 1 and errors[0]["code"] == "SignatureDoesNotMatch"
    msg = errors[0]["message"]
    # the message still says what went wrong, and what the canonical request held, without the values
    assert msg.startswith("SignatureDoesNotMatch: The request signature we calculated")
    assert f"x-amz-security-token:{REDACTED}" in msg
    assert inventory.validate_records(recs) == []
    assert _leaks(text + r.stdout + r.stderr) == []


def test_failure_before_any_partition_prints_one_scrubbed_line(fake_aws, tmp_path):
    fake_aws.fail_sts = True
    r = _collect(_url(fake_aws), tmp_path / "inv")
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "SignatureDoesNotMatch" in lines[0] and "Traceback" not in r.stderr, r.stderr
    assert "\\x0a" in lines[0]  # AWS's multi-line message is kept on one line, escaped
    assert _leaks(r.stdout + r.stderr) == []


def test_refused_connection_is_its_own_error(tmp_path):
    with socket.socket() as s:  # a port nobody listens on (bound, then released)
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r = _collect(f"http://127.0.0.1:{port}", tmp_path / "inv")
    assert r.returncode == 1, r.stderr
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert f"--endpoint-url: ConnectionFailed: cannot connect to http://127.0.0.1:{port}" in r.stderr
    assert "RegionDisabled" not in r.stderr


@pytest.mark.parametrize("kind", ["file", "under-a-file"])
def test_out_that_is_not_a_directory_is_a_clear_error(tmp_path, kind):
    f = tmp_path / "inventory.jsonl"
    f.write_text("mine\n")
    out = f if kind == "file" else f / "sub"
    r = _collect("http://127.0.0.1:9", out)
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert str(f) in r.stderr
    assert f.read_text() == "mine\n"  # untouched


def test_connection_errors_in_a_partition_are_recorded_as_such():
    from botocore.exceptions import ConnectTimeoutError, EndpointConnectionError

    for exc in (
        EndpointConnectionError(endpoint_url="http://127.0.0.1:9/"),
        ConnectTimeoutError(endpoint_url="http://127.0.0.1:9/"),
    ):
        rec = collector.error_record(ACCOUNT, "us-east-1", "sqs:ListQueues", exc)
        assert rec["code"] == "ConnectionFailed" and inventory.validate_records([rec]) == []


SCRUB_CASES = [
    # (text, what must be gone, what must stay)
    (f"x-amz-security-token:{TOKEN}\nhost:sqs", TOKEN[:8], "host:sqs"),
    (f"?X-Amz-Security-Token={TOKEN[:40]}&Action=ListQueues", TOKEN[:8], "Action=ListQueues"),
    ("X-Amz-Signature=5d672d79c15b13162d9279b0855cfba6&x=1", "5d672d79", "x=1"),
    (f"X-Amz-Credential={KEY_ID}%2F20261123%2Fus-east-1", KEY_ID[4:12], "X-Amz-Credential="),
    (
        f"Credential={KEY_ID}/20261123/us-east-1/sqs/aws4_request, SignedHeaders=host",
        KEY_ID[4:],
        "SignedHeaders",
    ),
    (f"the key {KEY_ID} is not valid", KEY_ID, "is not valid"),
    ("key AKIAIOSFODNN7EXAMPLE", "IOSFODNN", "key"),
    (f"secret {SECRET} leaked", SECRET[:10], "leaked"),
    (f"aws_secret_access_key = {SECRET}", SECRET[-10:], "aws_secret_access_key"),
    ("Authorization: AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/x", "AKIAIOSF", "Authorization"),
]


@pytest.mark.parametrize(("text", "gone", "kept"), SCRUB_CASES)
def test_scrub(text, gone, kept):
    out = scrub(text)
    assert gone not in out and kept in out and REDACTED in out


@pytest.mark.parametrize(
    "text",
    [
        "arn:aws:sqs:us-east-1:123456789012:orders-dlq",
        "https://sqs.eu-west-1.amazonaws.com/123456789012/payments-ingest-v2.fifo",
        "AccessDenied: User: arn:aws:sts::123456789012:assumed-role/VisguardAuditRole/visguard-audit is not "
        "authorized to perform: sqs:ListQueues",
        "Value 50000 for parameter VisibilityTimeout is invalid.",
    ],
)
def test_scrub_keeps_ordinary_text(text):
    assert scrub(text) == text


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("q\x1b]0;pwned\x07", "q\\x1b]0;pwned\\x07"),  # OSC: retitle the terminal
        ("q\x1b[2J\x1b[H", "q\\x1b[2J\\x1b[H"),  # CSI: clear the screen
        ("q\nvisguard audit: 0 errors", "q\\x0avisguard audit: 0 errors"),  # a forged second line
        ("a\rb\tc\x00d\x7f\x9b", "a\\x0db\\x09c\\x00d\\x7f\\x9b"),
        ("invoice\u202egpj.exe", "invoice\\u202egpj.exe"),  # bidi override
        ("zero\u200bwidth\u2028sep", "zero\\u200bwidth\\u2028sep"),
        ("plain ünïcode queue-名前", "plain ünïcode queue-名前"),
    ],
)
def test_printable(raw, shown):
    assert printable(raw) == shown
    assert "\n" not in safe(raw) and "\x1b" not in safe(raw)


def test_safe_cuts_after_scrubbing():
    text = "x" * 20 + f" x-amz-security-token:{TOKEN}"
    assert _leaks(safe(text, 40)) == [] and len(safe(text, 40)) <= 40
