"""Kotlin consumers: SDK v1/v2 and the SDK for Kotlin receives, Spring Cloud AWS @SqsListener (2.x properties),
@Value injection, and the queues createQueue creates."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from visguard.linter.loaders.code import kotlin

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "code", "kotlin")

SDK = b"""import software.amazon.awssdk.services.sqs.model.ReceiveMessageRequest

const val VISIBILITY = 90
val QUEUE = System.getenv("WORK_QUEUE_URL") ?: "https://sqs.eu-west-1.amazonaws.com/1/work"

fun poll(sqs: SqsClient) {
    val request = ReceiveMessageRequest.builder()
        .queueUrl(QUEUE)
        .visibilityTimeout(VISIBILITY)
        .waitTimeSeconds(20)
        .build()
    sqs.receiveMessage(request)
}
"""

KOTLIN_SDK = b"""import aws.sdk.kotlin.services.sqs.SqsClient

suspend fun poll(sqs: SqsClient) {
    val out = sqs.receiveMessage {
        queueUrl = "https://sqs.eu-west-1.amazonaws.com/1/jobs"
        visibilityTimeout = 120
        maxNumberOfMessages = 10
    }
}
"""


def test_v2_builder_reads_env_default_constant_and_line():
    (c,) = kotlin.read("w/Poll.kt", SDK).consumers
    assert (c.platform, c.source) == ("sdk", "kotlin")
    assert (c.queue_ref.kind, c.queue_ref.value) == ("env", "WORK_QUEUE_URL")
    assert c.queue_ref.fallback.value.endswith("/1/work")
    assert c.visibility_override == 90 and c.settings["wait_time"] == 20
    assert c.location.line == 7 and c.heartbeat is False


def test_kotlin_sdk_builder_lambda():
    (c,) = kotlin.read("w/Poll.kt", KOTLIN_SDK).consumers
    assert c.queue_ref.value.endswith("/1/jobs")
    assert c.visibility_override == 120 and c.settings["max_messages"] == 10
    assert c.locations["visibility_override"].line == 6


def test_v1_receive_of_a_url_and_the_heartbeat():
    src = b"""fun f(sqs: AmazonSQS) {
    val r = sqs.receiveMessage("https://sqs.us-east-1.amazonaws.com/1/q")
    sqs.changeMessageVisibility(r.queueUrl, h, 60)
}
"""
    (c,) = kotlin.read("a.kt", src).consumers
    assert c.queue_ref.value.endswith("/1/q") and c.heartbeat is True


def test_listener_attributes_and_a_computed_value_is_a_note():
    src = b"""class L {
    @SqsListener(value = ["a", "b"], messageVisibilitySeconds = "300", deletionPolicy = SqsMessageDeletionPolicy.NEVER)
    fun on(m: String) {}
    @SqsListener("\\${app.queue}")
    fun other(m: String) {}
}
fun g(sqs: SqsClient, cfg: Cfg) { sqs.receiveMessage { queueUrl = cfg.url; visibilityTimeout = cfg.vt * 2 } }
"""
    res = kotlin.read("l.kt", src)
    a, b, c, d = res.consumers
    assert [x.queue_ref.value for x in (b, c, d)] == ["a", "b", "app.queue"]
    assert b.visibility_override == 300 and b.settings["deletion_policy"] == "NEVER"
    assert d.queue_ref.kind == "env" and a.queue_ref is None and a.visibility_override is None
    assert len(res.notes) == 2


def test_create_queue_with_attributes_located_at_the_call():
    src = b"""fun make(sqs: SqsClient) {
    val attrs = mapOf(QueueAttributeName.VISIBILITY_TIMEOUT to "60")
    sqs.createQueue(CreateQueueRequest.builder().queueName("jobs").attributes(attrs).build())
    sqs.createQueue { queueName = "other" }
}
"""
    res = kotlin.read("c.kt", src)
    jobs, other = res.queues
    assert (jobs.name, jobs.visibility_timeout, jobs.location.line) == ("jobs", 60, 3)
    assert (other.name, other.location.line) == ("other", 4)


def test_garbage_deep_nesting_and_binary_never_raise():
    for data in (b"\x00\x01\x02" * 3000, b"fun f() {" + b"{" * 20_000, SDK[:300], b"\xff" * 10, b"(" * 5000,
                 b"@SqsListener(" * 2000, b'createQueue("' * 1000, KOTLIN_SDK[:120]):  # fmt: skip
        res = kotlin.read("bad.kt", data)
        assert isinstance(res.consumers, list) and isinstance(res.queues, list)


def test_spring2_project_properties_and_each_created_name(tmp_path):
    """A Spring Cloud AWS 2.x listener takes cloud.aws.sqs.listener.visibility-timeout (located in application.yml);
    the queues a createQueue of each name of an @Value List creates join it: VG060 (45 s vs 30 s), VG020."""
    out = subprocess.run(
        [sys.executable, "-P", "-m", "visguard", "lint", "--no-config", "--format", "json", os.path.join(FIXTURES, "spring2")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    found = {(f["rule"], os.path.basename(f["file"]), f["line"]) for f in json.loads(out.stdout)["findings"]}
    assert ("VG020", "Queues.kt", 13) in found
    (vg060,) = [f for f in json.loads(out.stdout)["findings"] if f["rule"] == "VG060"]
    assert "45 s" in vg060["message"] and "application.yml:9" in vg060["message"]
    # in 2.x's words: the property it set, not 3.x's @SqsListener attribute the project's version does not have
    assert "cloud.aws.sqs.listener.visibility-timeout" in vg060["message"]
    assert "messageVisibility" not in vg060["message"] + json.dumps(vg060.get("fix") or "")
    assert sum(r == "VG020" for r, _, _ in found) == 1  # billing-in is created, not consumed
