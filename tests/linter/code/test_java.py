"""Java consumers: AWS SDK v2/v1 receive requests and Spring Cloud AWS listeners, read from small samples."""

from __future__ import annotations

import time

import pytest
from visguard import facts
from visguard.linter.loaders.code import java

SDK_V2 = b"""
package com.example.orders;

import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.*;

public class OrderPoller implements Runnable {
    private static final int VISIBILITY_SECONDS = 120;
    private final SqsClient sqs = SqsClient.create();
    private final String queueUrl = System.getenv("ORDERS_QUEUE_URL");

    @Override
    public void run() {
        while (true) {
            ReceiveMessageRequest request = ReceiveMessageRequest.builder()
                    .queueUrl(queueUrl)
                    .maxNumberOfMessages(10)
                    .waitTimeSeconds(20)
                    .visibilityTimeout(VISIBILITY_SECONDS)
                    .build();
            for (Message m : sqs.receiveMessage(request).messages()) {
                handle(m);
                sqs.deleteMessage(DeleteMessageRequest.builder().queueUrl(queueUrl)
                        .receiptHandle(m.receiptHandle()).build());
            }
        }
    }
}
"""


def _one(data: bytes, path: str = "src/OrderPoller.java"):
    res = java.read(path, data)
    assert len(res.consumers) == 1, res.consumers
    return res, res.consumers[0]


def test_sdk_v2_builder_reads_queue_visibility_wait_and_batch_with_their_lines():
    res, c = _one(SDK_V2)
    assert (c.kind, c.platform, c.source) == ("worker", "sdk", "java")
    assert (c.queue_ref.kind, c.queue_ref.value) == ("env", "ORDERS_QUEUE_URL")
    assert c.visibility_override == 120
    assert c.settings == {"wait_time": 20, "max_messages": 10}
    assert c.heartbeat is False  # no ChangeMessageVisibility in the file
    assert c.location.line == 15 and c.id == "src/OrderPoller.java:15"
    lines = {k: v.line for k, v in c.locations.items()}
    assert lines == {"queue_ref": 10, "max_messages": 17, "wait_time": 18, "visibility_override": 8}
    assert res.notes == []


def test_heartbeat_when_the_file_changes_visibility():
    data = SDK_V2.replace(
        b"handle(m);",
        b"handle(m); sqs.changeMessageVisibility(ChangeMessageVisibilityRequest.builder()"
        b".queueUrl(queueUrl).receiptHandle(m.receiptHandle()).visibilityTimeout(300).build());",
    )
    _, c = _one(data)
    assert c.heartbeat is True


def test_consumer_builder_lambda_and_literal_url():
    data = b"""
class W { void poll(SqsClient sqs) {
    var resp = sqs.receiveMessage(r -> r
        .queueUrl("https://sqs.eu-west-1.amazonaws.com/123456789012/invoices")
        .visibilityTimeout(0)
        .waitTimeSeconds(10));
} }
"""
    _, c = _one(data)
    assert (c.queue_ref.kind, c.queue_ref.value) == (
        "url",
        "https://sqs.eu-west-1.amazonaws.com/123456789012/invoices",
    )
    assert c.visibility_override == 0  # the Java SDK sends 0: the messages are visible again at once
    assert c.settings["wait_time"] == 10 and c.locations["visibility_override"].line == 5


def test_queue_url_looked_up_by_name():
    data = b"""
class W { void poll(SqsClient sqs) {
    String url = sqs.getQueueUrl(GetQueueUrlRequest.builder().queueName("billing-events").build()).queueUrl();
    sqs.receiveMessage(ReceiveMessageRequest.builder().queueUrl(url).build());
} }
"""
    _, c = _one(data)
    assert (c.queue_ref.kind, c.queue_ref.value) == ("name", "billing-events")
    assert c.visibility_override is None


def test_sdk_v1_constructor_with_and_setters():
    data = b"""
import com.amazonaws.services.sqs.AmazonSQS;
import com.amazonaws.services.sqs.model.ReceiveMessageRequest;
public class LegacyWorker {
    static final String QUEUE = "https://sqs.us-east-1.amazonaws.com/123456789012/legacy";
    void loop(AmazonSQS sqs) {
        ReceiveMessageRequest req = new ReceiveMessageRequest(QUEUE).withMaxNumberOfMessages(5);
        req.setVisibilityTimeout(Integer.parseInt("45"));
        req.setWaitTimeSeconds(20);
        sqs.receiveMessage(req);
    }
}
"""
    _, c = _one(data)
    assert c.queue_ref.value.endswith("/legacy") and c.queue_ref.kind == "url"
    assert c.visibility_override == 45 and c.locations["visibility_override"].line == 8
    assert c.settings == {"max_messages": 5, "wait_time": 20}


def test_v1_receive_with_the_url_string_is_a_consumer_of_the_queues_visibility():
    data = b"""
class W { void loop(AmazonSQS sqs, String queueUrl) {
    String url = System.getenv("JOBS_URL");
    List<Message> ms = sqs.receiveMessage(url).getMessages();
} }
"""
    _, c = _one(data)
    assert (c.queue_ref.kind, c.queue_ref.value) == ("env", "JOBS_URL") and c.visibility_override is None


def test_computed_values_are_notes_not_guesses():
    data = b"""
class W {
  @Value("${sqs.visibility}") int visibility;
  void poll(SqsClient sqs, Config cfg) {
    sqs.receiveMessage(ReceiveMessageRequest.builder().queueUrl(cfg.queueUrl()).visibilityTimeout(visibility).build());
  }
}
"""
    res, c = _one(data)
    assert c.queue_ref is None and c.visibility_override is None
    assert "visibility_override" not in c.locations
    assert len(res.notes) == 2 and all(n.location.line == 5 for n in res.notes)
    assert any("cfg.queueUrl()" in n.message for n in res.notes)


SPRING = b"""
package com.example.notify;

import io.awspring.cloud.sqs.annotation.SqsListener;
import io.awspring.cloud.sqs.listener.acknowledgement.handler.AcknowledgementMode;

@Component
public class NotificationListener {
    private static final String EMAILS = "emails";

    @SqsListener(value = "${app.notifications-queue}", messageVisibilitySeconds = "300",
                 maxConcurrentMessages = "5", acknowledgementMode = "ON_SUCCESS")
    public void onNotification(Notification n) { sender.send(n); }

    @SqsListener(queueNames = {EMAILS, "sms"}, pollTimeoutSeconds = "20", messageVisibilitySeconds = "${vis}")
    public void onMessage(String body) { }
}
"""


def test_spring_listeners_one_consumer_per_queue_with_string_attributes():
    res = java.read("NotificationListener.java", SPRING)
    assert [c.platform for c in res.consumers] == ["spring"] * 3
    first, emails, sms = res.consumers
    assert (first.queue_ref.kind, first.queue_ref.value) == ("env", "app.notifications-queue")
    assert first.visibility_override == 300 and first.concurrency == 5
    assert first.settings["acknowledgement_mode"] == "ON_SUCCESS"
    assert first.stop_timeout == facts.SPRING_LISTENER_SHUTDOWN_DEFAULT
    assert first.heartbeat is False
    assert first.locations["visibility_override"].line == 11 and first.location.line == 11
    assert [emails.queue_ref.value, sms.queue_ref.value] == ["emails", "sms"]
    assert emails.visibility_override is None and emails.settings["wait_time"] == 20
    assert any("${vis}" in n.message for n in res.notes)


def test_spring_marker_annotation_value_and_visibility_change_is_a_heartbeat():
    data = b"""
class L {
  @SqsListener("reports")
  void on(Report r, Visibility visibility) { visibility.changeTo(600); build(r); }
}
"""
    res = java.read("L.java", data)
    (c,) = res.consumers
    assert c.queue_ref.value == "reports" and c.heartbeat is True


def test_spring_container_options_apply_to_listeners_without_their_own():
    data = b"""
@Configuration
class SqsConfig {
  @Bean
  SqsMessageListenerContainerFactory<Object> defaultSqsListenerContainerFactory(SqsAsyncClient client) {
    return SqsMessageListenerContainerFactory.builder()
        .configure(options -> options
            .messageVisibility(Duration.ofMinutes(2))
            .listenerShutdownTimeout(Duration.ofSeconds(45))
            .maxConcurrentMessages(20))
        .sqsAsyncClient(client)
        .build();
  }
  @SqsListener(value = "a", messageVisibilitySeconds = "30")
  void a(String m) {}
  @SqsListener("b")
  void b(String m) {}
}
"""
    res = java.read("SqsConfig.java", data)
    a, b = res.consumers
    assert (a.visibility_override, b.visibility_override) == (30, 120)
    assert a.stop_timeout == b.stop_timeout == 45 and b.concurrency == 20
    assert b.locations["visibility_override"].line == 8


def test_container_options_alone_make_one_consumer_without_a_queue():
    data = b"""
class C { SqsMessageListenerContainer<String> c(SqsAsyncClient client) {
  return SqsMessageListenerContainer.builder().sqsAsyncClient(client)
      .queueNames("payments")
      .configure(o -> o.messageVisibility(Duration.ofSeconds(90)))
      .build();
} }
"""
    (c,) = java.read("C.java", data).consumers
    assert c.queue_ref.value == "payments" and c.visibility_override == 90 and c.platform == "spring"


def test_unrelated_java_has_no_consumer():
    data = b"class A { int visibilityTimeout(int x) { return x; } void f() { visibilityTimeout(3); } }"
    res = java.read("A.java", data)
    assert res.consumers == [] and res.notes == []


def test_garbage_deep_nesting_and_binary_never_raise():
    for data in (
        b"\x00\xff\xfe" * 1000,
        b"class A { void f() { " + b"(" * 20_000 + b" }",
        b"class A { void f() { ReceiveMessageRequest.builder().visibilityTimeout(30",
        SDK_V2[: len(SDK_V2) // 2],
        "class \u00e9 { }".encode("utf-16"),
    ):
        res = java.read("bad.java", data)
        assert isinstance(res.consumers, list)
    half = java.read("half.java", SDK_V2[: SDK_V2.index(b".build()")])
    assert half.consumers and half.consumers[0].visibility_override == 120


def test_a_parse_that_runs_out_of_budget_reads_nothing_and_never_raises(monkeypatch):
    from visguard.linter.loaders import code

    src = b'class A { void p() { sqs.receiveMessage(ReceiveMessageRequest.builder().queueUrl("q").build()); } }\n'
    assert java.read("A.java", src).consumers  # within the budget: read
    monkeypatch.setattr(code, "PARSE_CPU_S", -10.0)  # the one budgeted parse of every reader
    assert java.read("A.java", src).consumers == []


def _builder(option: bytes, before: bytes = b"", queue: bytes = b'.queueUrl("q")') -> bytes:
    return (
        b"class W {\n" + before + b"  void poll(SqsClient sqs, String url, int vt) {\n"
        b"    sqs.receiveMessage(ReceiveMessageRequest.builder()" + queue + option + b".build());\n  }\n}\n"
    )


# (the option the code writes, the field, the value read or None, a word the one note must name (None: no note))
NUMBERS = [
    (b".visibilityTimeout(50000)", "visibility_override", 50000, None),  # the range rule judges it
    (b".visibilityTimeout(100000000000000000000L)", "visibility_override", None, "100000000000000000000L"),
    (b".waitTimeSeconds(50000000000000000L)", "wait_time", None, "50000000000000000L"),  # beyond 10**15
    (b".maxNumberOfMessages(-1)", "max_messages", -1, None),
    (b".visibilityTimeout(60 * 5)", "visibility_override", 300, None),
    (b".visibilityTimeout((int) 30L)", "visibility_override", 30, None),
    (b'.maxNumberOfMessages(Integer.parseInt("0"))', "max_messages", 0, None),
    (b'.visibilityTimeout(Integer.parseInt("30", 16))', "visibility_override", None, "parseInt"),  # a radix
    (b".visibilityTimeout(vt)", "visibility_override", None, "vt is a parameter"),
]


@pytest.mark.parametrize(("code", "field", "read", "named"), NUMBERS)
def test_sdk_numbers_are_read_up_to_the_bound_else_noted(code, field, read, named):
    res, c = _one(_builder(code))
    got = getattr(c, field) if field == "visibility_override" else c.settings.get(field)
    assert got == read
    if named is None:
        assert res.notes == [] and (c.id, field) in res.places  # the fixer knows where the number is
    else:
        assert len(res.notes) == 1 and named in res.notes[0].message and res.notes[0].location.line == 3


@pytest.mark.parametrize(
    ("attribute", "read", "named"),
    [
        (b'"50000"', 50000, None),
        (b'"100000000000000000000"', None, "100000000000000000000"),
        (b'"${vis}"', None, "${vis}"),
    ],
)
def test_spring_attribute_numbers(attribute, read, named):
    data = (
        b'class L {\n  @SqsListener(value = "q", messageVisibilitySeconds = '
        + attribute
        + b")\n  void on(String m) {}\n}\n"
    )
    res, c = _one(data)
    assert c.visibility_override == read
    assert [named in n.message for n in res.notes] == ([] if named is None else [True])


def test_a_parameter_shadows_a_field_of_the_same_name_but_this_field_does_not():
    field = b'  private final String url = "https://sqs.us-east-1.amazonaws.com/123456789012/a";\n'
    res, c = _one(_builder(b"", field, b".queueUrl(url)"))
    assert c.queue_ref is None and "url is a parameter" in res.notes[0].message
    _, c = _one(_builder(b"", field, b".queueUrl(this.url)"))
    assert c.queue_ref.value.endswith("/a")


def test_an_environment_default_is_the_queues_fallback():
    data = _builder(b"", b"", b'.queueUrl(System.getenv().getOrDefault("JOBS", "jobs"))')
    _, c = _one(data)
    assert (c.queue_ref.kind, c.queue_ref.value) == ("env", "JOBS")
    assert (c.queue_ref.fallback.kind, c.queue_ref.fallback.value) == ("name", "jobs")


DEEP = {  # code nested deep: a chain of calls, lambdas with parameters inside lambdas
    "chain": b"class W { void p(SqsClient sqs) {\n sqs.receiveMessage(ReceiveMessageRequest.builder()"
    + b"".join(b"\n  .waitTimeSeconds(w%d)" % i for i in range(20_000))
    + b"\n  .visibilityTimeout(30).build());\n} }\n",
    "lambdas": b"class W { void p(SqsClient sqs) {\n f("
    + b"".join(b"\n (String a%d) -> g(" % i for i in range(10_000))
    + b"sqs.receiveMessage(ReceiveMessageRequest.builder().visibilityTimeout(30).build())"
    + b")" * 10_000
    + b");\n} }\n",
}


@pytest.mark.parametrize("shape", sorted(DEEP))
def test_deep_code_is_read_in_linear_time(shape):
    """Guard against a hang, not a speed test: a call pattern waits past its object and Node.parent walks down
    from the root (a request's chain, a parameter's function), each O(n^2) in n levels; read in well under a
    second."""
    start = time.process_time()
    _, c = _one(DEEP[shape])
    assert time.process_time() - start < 20 and c.visibility_override == 30


# ------------------------------------------------------------------------------- Spring error handlers (issue 36)
HANDLERS = b"""
@Configuration
class SqsConfig {
    @SqsListener("orders")
    public void on(String m) {}

    @Bean
    public SqsMessageListenerContainerFactory<Object> defaultSqsListenerContainerFactory() {
        return SqsMessageListenerContainerFactory.builder()
            .errorHandler(%s)
            .build();
    }
}
"""


@pytest.mark.parametrize(
    ("written", "read"),
    [
        (
            "new ImmediateRetryAsyncErrorHandler<>()",
            {"class": "ImmediateRetryAsyncErrorHandler", "initial": None},
        ),
        (
            "ExponentialBackoffErrorHandler.builder().build()",
            {"class": "ExponentialBackoffErrorHandler", "initial": 100, "multiplier": 2.0, "max": 43200},
        ),
        (
            "ExponentialBackoffErrorHandler.<Object>builder().initialVisibilityTimeoutSeconds(5).multiplier(3)"
            ".maxVisibilityTimeoutSeconds(600).jitter(Jitter.HALF).build()",
            {"initial": 5, "multiplier": 3, "max": 600, "jitter": "HALF"},
        ),
        (
            "LinearBackoffErrorHandler.builder().increment(30).build()",
            {"class": "LinearBackoffErrorHandler", "initial": 100, "increment": 30, "multiplier": None},
        ),
        ("ExponentialBackoffErrorHandler.builder().multiplier(factor()).build()", {"multiplier": None}),
    ],
)
def test_spring_error_handler_is_read_onto_the_listeners_with_the_librarys_defaults(written, read):
    res = java.read("app/SqsConfig.java", HANDLERS % written.encode())
    (c,) = res.consumers
    h = c.settings["error_handler"]
    assert {k: h[k] for k in read} == read
    assert c.locations["error_handler"].line == 10 and "location" not in h


def test_two_different_handlers_are_a_note_and_none_is_set():
    data = HANDLERS % b"new ImmediateRetryAsyncErrorHandler<>()"
    data += (
        b"class Other { AsyncErrorHandler<Object> h = ExponentialBackoffErrorHandler.builder().build(); }\n"
    )
    res = java.read("app/SqsConfig.java", data)
    assert "error_handler" not in res.consumers[0].settings
    assert any("several Spring error handlers" in n.message for n in res.notes)


def test_a_handler_type_named_but_not_created_is_no_handler():
    data = b"""
class L {
    @SqsListener("orders") public void on(String m) {}
    ExponentialBackoffErrorHandler<Object> handler;   // a field of the type, not a handler created here
}
"""
    (c,) = java.read("app/L.java", data).consumers
    assert "error_handler" not in c.settings
