"""Rust consumers: the AWS SDK for Rust's (aws-sdk-sqs) receive_message() builders and rusoto_sqs requests."""

from __future__ import annotations

import pytest
from visguard.linter.loaders.code import rust

SDK = b"""use aws_sdk_sqs::Client;
use std::env;

const VISIBILITY: i32 = 90;

pub async fn run(client: &Client) -> Result<(), aws_sdk_sqs::Error> {
    let queue_url = env::var("WORK_QUEUE_URL").unwrap_or("https://sqs.eu-west-1.amazonaws.com/1/work".into());
    loop {
        let out = client
            .receive_message()
            .queue_url(&queue_url)
            .max_number_of_messages(10)
            .wait_time_seconds(20)
            .visibility_timeout(VISIBILITY)
            .send()
            .await?;
        for m in out.messages() {
            process(m);
        }
    }
}
"""


def test_builder_reads_queue_env_with_default_visibility_constant_and_lines():
    res = rust.read("worker/src/run.rs", SDK)
    (c,) = res.consumers
    assert (c.platform, c.source, c.kind) == ("sdk", "rust", "worker")
    assert (c.queue_ref.kind, c.queue_ref.value) == ("env", "WORK_QUEUE_URL")
    assert c.queue_ref.fallback.value.endswith("/1/work")
    assert c.visibility_override == 90 and c.settings == {"max_messages": 10, "wait_time": 20}
    assert c.heartbeat is False
    assert c.location.line == 10  # the receive_message() of the chain
    assert {k: v.line for k, v in c.locations.items()} == {
        "queue_ref": 7,
        "max_messages": 12,
        "wait_time": 13,
        "visibility_override": 4,
    }
    assert res.notes == []


def test_a_zero_is_sent_and_an_option_not_called_is_the_queues():
    """The SDK serializes a set field whatever its value (facts.RUST_SDK_SENDS_SET_VALUE): 0 is sent."""
    (c,) = rust.read(
        "w.rs", SDK.replace(b".visibility_timeout(VISIBILITY)", b".visibility_timeout(0)")
    ).consumers
    assert c.visibility_override == 0 and "zero_not_sent" not in c.settings
    (c,) = rust.read("w.rs", SDK.replace(b".visibility_timeout(VISIBILITY)", b"")).consumers
    assert c.visibility_override is None and "visibility_override" not in c.locations


def test_set_forms_suffixes_casts_and_env_numbers():
    src = b"""fn f(c: &Client) {
    let vt: i32 = std::env::var("VT").ok().and_then(|v| v.parse().ok()).unwrap_or(120);
    c.receive_message().set_queue_url(Some(String::from("orders"))).set_wait_time_seconds(Some(5i32))
        .set_visibility_timeout(Some(vt)).max_number_of_messages(4u8 as i32).send();
    c.change_message_visibility().queue_url("orders").visibility_timeout(600).send();
}
"""
    res = rust.read("w.rs", src)
    (c,) = res.consumers
    assert (c.queue_ref.kind, c.queue_ref.value) == ("name", "orders")
    assert c.settings == {"wait_time": 5, "max_messages": 4} and c.heartbeat is True
    assert c.visibility_override is None  # an environment variable: noted, never its default guessed
    assert [n.message[:60] for n in res.notes] == [
        "receive_message VisibilityTimeout comes from the environment"
    ]


def test_fields_set_in_a_constructor_and_format_of_known_parts():
    src = b"""const PREFIX: &str = "https://sqs.eu-west-1.amazonaws.com/123456789012";
struct Listener { url: String, wait: i32 }
impl Listener {
    fn new(name: &str) -> Self {
        let url = format!("{}/{q}", PREFIX, q = name);
        Listener { url, wait: 10 }
    }
    async fn poll(&self, c: &Client) {
        c.receive_message().queue_url(self.url.clone()).wait_time_seconds(self.wait).send().await;
    }
}
fn main() { let l = Listener::new("billing"); let v: Vec<u8> = Vec::new(); }
"""
    (c,) = rust.read("l.rs", src).consumers
    assert c.queue_ref.value == "https://sqs.eu-west-1.amazonaws.com/123456789012/billing"
    assert c.settings == {"wait_time": 10}


def test_a_let_shadows_the_parameter_and_other_functions_lets_do_not_count():
    src = b"""fn a() { let q = "first"; }
fn b(c: &Client, q: &str) {
    let q = format!("{}-jobs", "team");
    c.receive_message().queue_url(&q).send();
}
fn d() { let q = 5; }
"""
    (c,) = rust.read("s.rs", src).consumers
    assert (c.queue_ref.kind, c.queue_ref.value) == ("name", "team-jobs")


def test_rusoto_request_literals_and_a_get_queue_url_response():
    src = b"""fn f(client: &SqsClient, sdk: &aws_sdk_sqs::Client) {
    let req = ReceiveMessageRequest {
        queue_url: "https://sqs.us-east-1.amazonaws.com/1/legacy".to_owned(),
        visibility_timeout: Some(300),
        wait_time_seconds: Some(20),
        ..Default::default()
    };
    client.receive_message(req);
    let url = sdk.get_queue_url().queue_name("fresh").send().await?.queue_url().unwrap().to_string();
    sdk.receive_message().queue_url(url).send().await?;
}
"""
    a, b = rust.read("r.rs", src).consumers
    assert (a.queue_ref.value[-6:], a.visibility_override, a.settings) == ("legacy", 300, {"wait_time": 20})
    assert (b.queue_ref.kind, b.queue_ref.value) == ("name", "fresh")


def test_computed_values_are_notes():
    src = b"""fn f(c: &Client, cfg: &Config) {
    c.receive_message().queue_url(cfg.url()).visibility_timeout(cfg.timeout.as_secs() as i32 * 2).send();
}
"""
    res = rust.read("c.rs", src)
    (c,) = res.consumers
    assert c.queue_ref is None and c.visibility_override is None
    assert len(res.notes) == 2 and all(n.location.line == 2 for n in res.notes)


def test_garbage_deep_nesting_and_binary_never_raise():
    for data in (b"\x00\x01\x02" * 3000, b"fn f() {" + b"{" * 20_000, SDK[:300], b"\xff" * 10, b"(" * 5000):
        assert isinstance(rust.read("bad.rs", data).consumers, list)
    (c,) = rust.read("half.rs", SDK[: SDK.index(b".visibility_timeout")]).consumers
    assert c.queue_ref.value == "WORK_QUEUE_URL"


NUMBERS = [
    ("50000", 50000, None),
    ("0x1E", 30, None),
    ("30 * 2", 60, None),
    ("1_000", 1000, None),
    ("123456789012345678901", None, "an integer of 21 digits, beyond any AWS limit"),
    ("10 * 1e15", None, "beyond any AWS limit"),
]


@pytest.mark.parametrize(("written", "read", "says"), NUMBERS)
def test_one_number_semantics(written, read, says):
    src = f'fn f(c: &Client) {{ c.receive_message().queue_url("q").visibility_timeout({written}).send(); }}\n'
    r = rust.read("a.rs", src.encode())
    assert r.consumers[0].visibility_override == read
    notes = [n.message for n in r.notes]
    if says is None:
        assert notes == []
    else:
        assert len(notes) == 1 and says in notes[0] and "computed" not in notes[0], notes


def test_a_long_chain_and_many_functions_are_read_in_bounded_time():
    import time

    src = "".join(
        f'fn f{i}(c: &Client) {{\n    let vt = 30;\n    c.receive_message().queue_url("q").visibility_timeout(vt)'
        + ".wait_time_seconds(1)" * 20
        + ".send();\n}\n"
        for i in range(3000)
    )
    start = time.process_time()
    r = rust.read("a.rs", src.encode())
    assert time.process_time() - start < 10  # each use looks only at its own function's lets (~1 s)
    assert len(r.consumers) == 3000 and {c.visibility_override for c in r.consumers} == {30}


def test_options_set_later_on_the_builders_variable_in_its_function():
    src = b"""async fn poll(c: &Client, slow: bool) {
    let mut req = c.receive_message().queue_url("https://sqs.eu-west-1.amazonaws.com/1/q").wait_time_seconds(20);
    if slow {
        req = req.visibility_timeout(300).max_number_of_messages(1);
    }
    req.send().await;
}
fn other(req: Builder) { req.visibility_timeout(5); }
"""
    (c,) = rust.read("v.rs", src).consumers
    assert c.visibility_override == 300 and c.settings == {"wait_time": 20, "max_messages": 1}
    assert c.locations["visibility_override"].line == 4


def test_a_match_on_the_create_response_is_the_queue_of_its_ok_arm():
    src = b"""async fn t(sqs: &Client) {
    let queue_name = "it-queue";
    let queue_url = match sqs.create_queue().queue_name(queue_name).send().await {
        Ok(output) => output.queue_url().unwrap().to_string(),
        Err(e) => panic!("{e}"),
    };
    sqs.receive_message().queue_url(&queue_url).send().await;
    let other = match lookup().await { Ok(o) => o.url(), Err(_) => String::new() };
    sqs.receive_message().queue_url(&other).send().await;
}
"""
    res = rust.read("m.rs", src)
    a, b = res.consumers
    assert (a.queue_ref.kind, a.queue_ref.value) == ("name", "it-queue")
    assert b.queue_ref is None and [n.location.line for n in res.notes] == [9]
    assert [(q.id, q.location.line) for q in res.queues] == [("it-queue", 3)]


def test_an_input_builder_sent_with_the_client_and_its_heartbeat():
    src = b"""use aws_sdk_sqs::operation::receive_message::ReceiveMessageInput;
async fn f(c: &Client) {
    let out = ReceiveMessageInput::builder()
        .queue_url("https://sqs.eu-west-1.amazonaws.com/1/built")
        .visibility_timeout(40)
        .build()
        .unwrap()
        .send_with(c)
        .await;
    let hb = aws_sdk_sqs::operation::change_message_visibility::ChangeMessageVisibilityInput::builder();
}
"""
    (c,) = rust.read("b.rs", src).consumers
    assert (c.queue_ref.value[-5:], c.visibility_override, c.location.line, c.heartbeat) == (
        "built",
        40,
        3,
        True,
    )
