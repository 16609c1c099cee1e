"""C# consumers: ReceiveMessageRequest of the AWS SDK for .NET."""

from __future__ import annotations

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
