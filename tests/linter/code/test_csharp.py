"""C# consumers: ReceiveMessageRequest of the AWS SDK for .NET."""

from __future__ import annotations

import time

import pytest
from visguard.linter.loaders.code import csharp

WORKER = b"""using Amazon.SQS;
using Amazon.SQS.Model;

namespace Billing.Worker;

public class InvoiceWorker : BackgroundService
{
    private const int VisibilitySeconds = 180;
    private readonly IAmazonSQS _sqs;
    private readonly string _queueUrl = Environment.GetEnvironmentVariable("INVOICE_QUEUE_URL");

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        while (!stoppingToken.IsCancellationRequested)
        {
            var request = new ReceiveMessageRequest
            {
                QueueUrl = _queueUrl,
                MaxNumberOfMessages = 10,
                WaitTimeSeconds = 20,
                VisibilityTimeout = VisibilitySeconds
            };
            var response = await _sqs.ReceiveMessageAsync(request, stoppingToken);
            foreach (var message in response.Messages)
            {
                await HandleAsync(message);
                await _sqs.DeleteMessageAsync(_queueUrl, message.ReceiptHandle, stoppingToken);
            }
        }
    }
}
"""


def test_object_initializer_reads_queue_visibility_wait_batch_and_lines():
    res = csharp.read("src/InvoiceWorker.cs", WORKER)
    (c,) = res.consumers
    assert (c.platform, c.source) == ("sdk", "csharp")
    assert (c.queue_ref.kind, c.queue_ref.value) == ("env", "INVOICE_QUEUE_URL")
    assert c.visibility_override == 180 and c.settings == {"max_messages": 10, "wait_time": 20}
    assert c.heartbeat is False and c.location.line == 16
    assert {k: v.line for k, v in c.locations.items()} == {
        "queue_ref": 10,
        "max_messages": 19,
        "wait_time": 20,
        "visibility_override": 8,
    }
    assert res.notes == []


def test_property_assignments_and_heartbeat():
    data = WORKER.replace(
        b"var response", b"request.VisibilityTimeout = 30;\n            var response"
    ).replace(
        b"await HandleAsync(message);",
        b"await _sqs.ChangeMessageVisibilityAsync(_queueUrl, message.ReceiptHandle, 600);",
    )
    (c,) = csharp.read("w.cs", data).consumers
    assert c.visibility_override == 30 and c.locations["visibility_override"].line == 23
    assert c.heartbeat is True


def test_receive_with_a_url_and_constructor_argument():
    data = b"""class P {
  const string Url = "https://sqs.ap-southeast-2.amazonaws.com/123456789012/exports";
  async Task Poll(IAmazonSQS sqs) {
    var a = await sqs.ReceiveMessageAsync(Url);
    var b = await sqs.ReceiveMessageAsync(new ReceiveMessageRequest(Url) { VisibilityTimeout = 0 });
  }
}
"""
    a, b = csharp.read("P.cs", data).consumers
    assert {a.location.line, b.location.line} == {4, 5}
    by_line = {c.location.line: c for c in (a, b)}
    assert by_line[4].visibility_override is None and by_line[4].queue_ref.value.endswith("/exports")
    assert by_line[5].visibility_override == 0 and by_line[5].queue_ref.kind == "url"


def test_computed_values_are_notes():
    data = b"""class P { async Task Poll(IAmazonSQS sqs, IConfiguration config) {
  var r = new ReceiveMessageRequest { QueueUrl = config["Queue:Url"], VisibilityTimeout = settings.Visibility };
} }"""
    res = csharp.read("P.cs", data)
    (c,) = res.consumers
    assert c.queue_ref is None and c.visibility_override is None and len(res.notes) == 2


def test_garbage_deep_nesting_and_binary_never_raise():
    for data in (b"\x00\xfe" * 4000, b"class A { void F() { " + b"(" * 20_000, WORKER[:600], b"\xff\xfe\x00"):
        assert isinstance(csharp.read("bad.cs", data).consumers, list)


def _request(line: bytes, before: bytes = b"") -> bytes:
    return (
        b"class P {\n" + before + b"  async Task Poll(IAmazonSQS sqs, string url, int vt) {\n"
        b"    var r = new ReceiveMessageRequest { " + line + b" };\n  }\n}\n"
    )


# (what the code writes, the field, the value read or None, a word every note must name (None: no note))
NUMBERS = [
    (b"VisibilityTimeout = 50000", "visibility_override", 50000, None),  # the range rule judges it
    (b"VisibilityTimeout = 100000000000000000000", "visibility_override", None, "100000000000000000000"),
    (b"MaxNumberOfMessages = 50000000000000000", "max_messages", None, "50000000000000000"),  # > 10**15
    (b"VisibilityTimeout = -1", "visibility_override", -1, None),
    (b"VisibilityTimeout = 60 * 5", "visibility_override", 300, None),
    (b'MaxNumberOfMessages = int.Parse("0")', "max_messages", 0, None),
    (b'WaitTimeSeconds = Convert.ToInt32("20")', "wait_time", 20, None),
    (b"VisibilityTimeout = vt", "visibility_override", None, "vt is a parameter"),
]


@pytest.mark.parametrize(("code", "field", "read", "named"), NUMBERS)
def test_numbers_are_read_up_to_the_bound_else_noted(code, field, read, named):
    res = csharp.read("P.cs", _request(code))
    (c,) = res.consumers
    got = getattr(c, field) if field == "visibility_override" else c.settings.get(field)
    assert got == read
    if named is None:
        assert res.notes == [] and (c.id, field) in res.places  # the fixer knows where the number is
    else:
        assert (
            len(res.notes) == 1
            and named in res.notes[0].message
            and res.notes[0].location.line == c.location.line
        )


def test_a_parameter_shadows_a_field_of_the_same_name_but_this_field_does_not():
    field = b'  string url = "https://sqs.eu-west-1.amazonaws.com/123456789012/a";\n  int vt = 30;\n'
    res = csharp.read("P.cs", _request(b"QueueUrl = url, VisibilityTimeout = vt", field))
    (c,) = res.consumers
    assert c.queue_ref is None and c.visibility_override is None
    assert "url is a parameter" in res.notes[0].message and "vt is a parameter" in res.notes[1].message
    (c,) = csharp.read("P.cs", _request(b"QueueUrl = this.url, VisibilityTimeout = this.vt", field)).consumers
    assert c.queue_ref.value.endswith("/a") and c.visibility_override == 30


@pytest.mark.parametrize(
    ("code", "queue"),
    [
        (
            b'@"https://sqs.eu-west-1.amazonaws.com/123456789012/v"',
            "https://sqs.eu-west-1.amazonaws.com/123456789012/v",
        ),
        (
            b'"https://sqs.eu-west-1.amazonaws.com/123456789012/" + "jobs"',
            "https://sqs.eu-west-1.amazonaws.com/123456789012/jobs",
        ),
        (b"this.Q", "https://sqs.eu-west-1.amazonaws.com/123456789012/q"),
    ],
)
def test_queue_strings(code, queue):
    field = b'  const string Q = "https://sqs.eu-west-1.amazonaws.com/123456789012/q";\n'
    (c,) = csharp.read("P.cs", _request(b"QueueUrl = " + code, field)).consumers
    assert c.queue_ref.value == queue


_URL = b'"https://sqs.eu-west-1.amazonaws.com/123456789012/q"'
DEEP = {  # code nested deep: a chain of calls, lambdas with parameters inside lambdas
    "chain": b"class L { void C(IAmazonSQS sqs) {\n sqs"
    + b"".join(b"\n  .ReceiveMessageAsync(v%d)" % i for i in range(20_000))
    + b"\n  .ReceiveMessageAsync("
    + _URL
    + b");\n} }\n",
    "lambdas": b"class L { void C(IAmazonSQS sqs) {\n F("
    + b"".join(b"\n (string a%d) => G(" % i for i in range(10_000))
    + b"sqs.ReceiveMessageAsync("
    + _URL
    + b")"
    + b")" * 10_000
    + b");\n} }\n",
}


@pytest.mark.parametrize("shape", sorted(DEEP))
def test_deep_code_is_read_in_linear_time(shape):
    """Guard against a hang, not a speed test: a call pattern waits past its callee and Node.parent walks down
    from the root (a parameter's function, a call's name), each O(n^2) in n levels; read in well under a second
    (27 s and 30 s before)."""
    start = time.process_time()
    (c,) = csharp.read("L.cs", DEEP[shape]).consumers
    assert time.process_time() - start < 20 and c.queue_ref.value.endswith("/q")
