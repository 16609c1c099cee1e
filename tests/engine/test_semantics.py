"""One scenario per SQS semantic rule (DESIGN.md "SQS semantics the engine must reproduce").

Each test names the evidence it follows (../shared/reference/sqs-semantics-evidence.md, "ev. N"), and asserts the
exact error code and message recorded against real AWS, through the boto3-shaped client.
"""

from __future__ import annotations

import json

import pytest
from botocore.exceptions import ClientError
from visguard.engine import Engine, SQSError

T0 = 1_767_225_600.0


@pytest.fixture
def eng():
    return Engine()


@pytest.fixture
def sqs(eng):
    return eng.client()


def err(exc_info):
    e = exc_info.value.response
    return e["Error"]["Code"], e["Error"]["Message"], e["ResponseMetadata"]["HTTPStatusCode"]


def one(sqs, url, **kw):
    msgs = sqs.receive_message(QueueUrl=url, **kw).get("Messages", [])
    assert len(msgs) <= 1
    return msgs[0] if msgs else None


def attrs(sqs, url):
    return sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]


def fifo(sqs, name="f.fifo", **extra):
    a = {"FifoQueue": "true", "ContentBasedDeduplication": "true", **extra}
    return sqs.create_queue(QueueName=name, Attributes=a)["QueueUrl"]


# --------------------------------------------------------------------------- 1.1 the visibility timeout
def test_default_visibility_is_30s_and_starts_at_receive(eng, sqs):
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    assert attrs(sqs, url)["VisibilityTimeout"] == "30"
    sqs.send_message(QueueUrl=url, MessageBody="m")
    eng.advance(100)  # time before the receive does not count
    assert one(sqs, url) is not None
    eng.advance(29.9)
    assert one(sqs, url) is None
    eng.advance(0.1)
    assert one(sqs, url) is not None


@pytest.mark.parametrize("bad", [-1, 43201])
def test_visibility_range_on_receive_and_cmv_and_queue(eng, sqs, bad):
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="m")
    with pytest.raises(ClientError) as ei:
        sqs.receive_message(QueueUrl=url, VisibilityTimeout=bad)
    assert err(ei)[0] == "InvalidParameterValue"
    h = one(sqs, url)["ReceiptHandle"]
    with pytest.raises(ClientError) as ei:
        sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=h, VisibilityTimeout=bad)
    assert err(ei)[0] == "InvalidParameterValue"
    with pytest.raises(ClientError) as ei:
        sqs.set_queue_attributes(QueueUrl=url, Attributes={"VisibilityTimeout": str(bad)})
    assert err(ei)[:2] == ("InvalidAttributeValue", "Invalid value for the parameter VisibilityTimeout.")
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"VisibilityTimeout": "43200"})


def test_cmv_counts_from_the_call_and_is_not_additive(eng, sqs):
    # DOC example: 15 s after a receive, CMV(10) -> visible 10 s after the call (not 30 + 10, not 15 + 10 + 15)
    url = sqs.create_queue(QueueName="q", Attributes={"VisibilityTimeout": "60"})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="m")
    h = one(sqs, url)["ReceiptHandle"]
    eng.advance(15)
    sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=h, VisibilityTimeout=10)
    eng.advance(9.9)
    assert one(sqs, url) is None
    eng.advance(0.1)
    assert one(sqs, url) is not None


def test_cmv_applies_to_that_receipt_only(eng, sqs):
    # AWS-REC test_change_message_visibility_not_permanent
    url = sqs.create_queue(QueueName="q", Attributes={"VisibilityTimeout": "30"})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="m")
    h = one(sqs, url)["ReceiptHandle"]
    sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=h, VisibilityTimeout=0)
    assert one(sqs, url) is not None  # re-received with the queue's 30 s again
    assert one(sqs, url) is None
    eng.advance(30)
    assert one(sqs, url) is not None


def test_receive_with_vt_zero_is_visible_at_once_with_new_handles(eng, sqs):
    # AWS-REC test_receive_terminate_visibility_timeout
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="m")
    a = one(sqs, url, VisibilityTimeout=0, AttributeNames=["ApproximateReceiveCount"])
    b = one(sqs, url, AttributeNames=["ApproximateReceiveCount"])
    assert a["ReceiptHandle"] != b["ReceiptHandle"]
    assert (a["Attributes"]["ApproximateReceiveCount"], b["Attributes"]["ApproximateReceiveCount"]) == (
        "1",
        "2",
    )
    assert one(sqs, url) is None


def test_queue_attribute_change_does_not_touch_messages_in_flight(eng, sqs):
    url = sqs.create_queue(QueueName="q", Attributes={"VisibilityTimeout": "100"})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="m")
    one(sqs, url)
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"VisibilityTimeout": "5"})
    eng.advance(50)
    assert one(sqs, url) is None
    eng.advance(50)
    assert one(sqs, url) is not None  # and now it is received with the new 5 s
    eng.advance(5)
    assert one(sqs, url) is not None


# --------------------------------------------------------------------------- 1.2 the 12-hour cap
CAP_TEXT = (
    "Value {} for parameter VisibilityTimeout is invalid. Reason: Total VisibilityTimeout for the message is "
    "beyond the limit [43200 seconds]."
)


def test_twelve_hour_cap_counts_from_the_receive_not_the_send(eng, sqs):
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="m")
    eng.advance(3600)  # send at 12:00, receive at 13:00 (moto rejects the CMV below: ev. 3.4)
    h = one(sqs, url)["ReceiptHandle"]
    sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=h, VisibilityTimeout=43000)
    eng.advance(1000)
    with pytest.raises(ClientError) as ei:
        sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=h, VisibilityTimeout=42300)
    assert err(ei) == ("InvalidParameterValue", CAP_TEXT.format(42300), 400)
    sqs.change_message_visibility(
        QueueUrl=url, ReceiptHandle=h, VisibilityTimeout=42200
    )  # exactly 12 h total


def test_cap_of_43200_right_after_receive_with_delay_fails_43195_works(eng, sqs):
    # DOC: "CMV with 43,200 ... will likely fail. However, using a value of 43,195 seconds will work"
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="m")
    h = one(sqs, url)["ReceiptHandle"]
    eng.advance(0.5)
    with pytest.raises(ClientError) as ei:
        sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=h, VisibilityTimeout=43200)
    assert err(ei)[1] == CAP_TEXT.format(43200)
    sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=h, VisibilityTimeout=43195)


@pytest.mark.parametrize("anchor,allowed", [("receive", True), ("first_receive", False)])
def test_cap_anchor_option(anchor, allowed):
    eng = Engine(cap_anchor=anchor)
    q = eng.create_queue("q")
    eng.send(q, "m")
    eng.receive(q, visibility_timeout=0)
    eng.advance(7200)
    r = eng.receive(q)[0]  # second receive, 2 h after the first
    if allowed:
        eng.change_visibility(q, r.handle, 43000)
    else:
        with pytest.raises(SQSError) as ei:
            eng.change_visibility(q, r.handle, 43000)
        assert ei.value.message == CAP_TEXT.format(43000)


# --------------------------------------------------------------------------- 1.3/1.4 receipt handles
def test_malformed_handle(eng, sqs):
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    text = 'The input receipt handle "garbage" is not a valid receipt handle.'
    with pytest.raises(ClientError) as ei:
        sqs.delete_message(QueueUrl=url, ReceiptHandle="garbage")
    assert err(ei) == ("ReceiptHandleIsInvalid", text, 400)
    with pytest.raises(sqs.exceptions.ReceiptHandleIsInvalid):
        sqs.change_message_visibility(QueueUrl=url, ReceiptHandle="garbage", VisibilityTimeout=1)


def test_handle_of_another_queue_is_invalid(eng, sqs):
    a = sqs.create_queue(QueueName="a")["QueueUrl"]
    b = sqs.create_queue(QueueName="b")["QueueUrl"]
    sqs.send_message(QueueUrl=a, MessageBody="m")
    h = one(sqs, a)["ReceiptHandle"]
    with pytest.raises(ClientError) as ei:
        sqs.delete_message(QueueUrl=b, ReceiptHandle=h)
    assert err(ei)[0] == "ReceiptHandleIsInvalid"


def test_delete_of_deleted_message_is_200_and_repeatable(eng, sqs):
    # AWS-REC test_delete_message_with_deleted_receipt_handle
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="m")
    h = one(sqs, url)["ReceiptHandle"]
    for _ in range(3):
        r = sqs.delete_message(QueueUrl=url, ReceiptHandle=h)
        assert r["ResponseMetadata"]["HTTPStatusCode"] == 200


def test_cmv_on_deleted_message(eng, sqs):
    # AWS-REC test_change_visibility_on_deleted_message_raises_invalid_parameter_value
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="m")
    h = one(sqs, url)["ReceiptHandle"]
    sqs.delete_message(QueueUrl=url, ReceiptHandle=h)
    with pytest.raises(ClientError) as ei:
        sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=h, VisibilityTimeout=10)
    assert err(ei) == (
        "InvalidParameterValue",
        f"Value {h} for parameter ReceiptHandle is invalid. Reason: Message does not exist or is not available "
        "for visibility timeout change.",
        400,
    )


def test_cmv_after_expiry_is_200_and_has_no_effect(eng, sqs):
    # AWS-REC snapshot test_change_message_visibility_after_visibility_timeout_expiration (200); no re-hiding
    url = sqs.create_queue(QueueName="q", Attributes={"VisibilityTimeout": "1"})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="m")
    h = one(sqs, url)["ReceiptHandle"]
    eng.advance(2)
    r = sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=h, VisibilityTimeout=100)
    assert r["ResponseMetadata"]["HTTPStatusCode"] == 200
    assert one(sqs, url) is not None  # moto re-hides it here (ev. 3.4)


def test_stale_handle_terminates_visibility_of_newer_receipt(eng, sqs):
    # AWS-REC test_terminate_visibility_timeout_after_receive
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="m")
    h1 = one(sqs, url, VisibilityTimeout=0)["ReceiptHandle"]
    h2 = one(sqs, url, VisibilityTimeout=3)["ReceiptHandle"]
    assert h1 != h2
    assert one(sqs, url) is None
    sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=h1, VisibilityTimeout=0)
    assert one(sqs, url) is not None


def test_expired_handle_deletes_in_standard_queue(eng, sqs):
    # AWS-REC test_delete_after_visibility_timeout, test_remove_message_with_old_receipt_handle
    url = sqs.create_queue(QueueName="q", Attributes={"VisibilityTimeout": "1"})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="m")
    h = one(sqs, url)["ReceiptHandle"]
    eng.advance(2)
    sqs.delete_message(QueueUrl=url, ReceiptHandle=h)
    assert attrs(sqs, url)["ApproximateNumberOfMessages"] == "0"
    assert one(sqs, url) is None


def test_old_handle_deletes_after_vt0_receives(eng, sqs):
    # moto test_delete_message_using_old_receipt_handle ("verified against AWS", getmoto/moto#4655)
    url = sqs.create_queue(QueueName="q", Attributes={"VisibilityTimeout": "0"})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="m")
    h1 = one(sqs, url)["ReceiptHandle"]
    one(sqs, url)
    sqs.delete_message(QueueUrl=url, ReceiptHandle=h1)
    assert one(sqs, url) is None


@pytest.mark.parametrize("option,remains", [("delete", False), ("ignore", True)])
def test_stale_delete_option(option, remains):
    # DOC: "If you use an old ReceiptHandle, the request will succeed, but the message might not be deleted."
    eng = Engine(stale_delete=option)
    q = eng.create_queue("q", {"VisibilityTimeout": "10"})
    eng.send(q, "m")
    h1 = eng.receive(q)[0].handle
    eng.advance(11)
    eng.receive(q)  # now in flight under a newer receipt
    eng.delete(q, h1)  # succeeds either way
    assert (q.counts()["inflight"] == 1) is remains


def test_fifo_delete_after_window_expired(eng, sqs):
    # AWS-REC test_fifo_delete_after_visibility_timeout (2025-03-28)
    url = fifo(sqs, VisibilityTimeout="1")
    sqs.send_message(QueueUrl=url, MessageBody="m", MessageGroupId="g")
    h = one(sqs, url)["ReceiptHandle"]
    eng.advance(1.5)
    with pytest.raises(ClientError) as ei:
        sqs.delete_message(QueueUrl=url, ReceiptHandle=h)
    assert err(ei) == (
        "InvalidParameterValue",
        f"Value {h} for parameter ReceiptHandle is invalid. Reason: The receipt handle has expired.",
        400,
    )
    assert one(sqs, url) is not None


def test_fifo_delete_after_extension_succeeds(eng, sqs):
    # AWS-REC test_fifo_delete_after_visibility_timeout_extended (2025-10-05)
    url = fifo(sqs, VisibilityTimeout="1")
    sqs.send_message(QueueUrl=url, MessageBody="m", MessageGroupId="g")
    h = one(sqs, url)["ReceiptHandle"]
    sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=h, VisibilityTimeout=5)
    eng.advance(1.5)
    sqs.delete_message(QueueUrl=url, ReceiptHandle=h)
    eng.advance(10)
    assert one(sqs, url) is None


# --------------------------------------------------------------------------- 1.5 counts and timestamps
def test_receive_count_and_timestamps(eng, sqs):
    url = sqs.create_queue(QueueName="q", Attributes={"VisibilityTimeout": "10"})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="m")
    eng.advance(5.25)
    a = one(sqs, url, MessageSystemAttributeNames=["All"])["Attributes"]
    eng.advance(10)
    b = one(sqs, url, MessageSystemAttributeNames=["All"])["Attributes"]
    assert a["SentTimestamp"] == b["SentTimestamp"] == str(int(T0 * 1000))
    assert (
        a["ApproximateFirstReceiveTimestamp"]
        == b["ApproximateFirstReceiveTimestamp"]
        == str(int((T0 + 5.25) * 1000))
    )
    assert (a["ApproximateReceiveCount"], b["ApproximateReceiveCount"]) == ("1", "2")
    assert float(a["SentTimestamp"]).is_integer()


# --------------------------------------------------------------------------- 1.6 redrive
def redrive_pair(sqs, mrc, fifo_q=False, dlq_attrs=None):
    extra = {"FifoQueue": "true", "ContentBasedDeduplication": "true"} if fifo_q else {}
    sfx = ".fifo" if fifo_q else ""
    dlq = sqs.create_queue(QueueName=f"dlq{sfx}", Attributes={**extra, **(dlq_attrs or {})})["QueueUrl"]
    arn = attrs(sqs, dlq)["QueueArn"]
    pol = json.dumps({"deadLetterTargetArn": arn, "maxReceiveCount": mrc})
    src = sqs.create_queue(
        QueueName=f"src{sfx}", Attributes={**extra, "VisibilityTimeout": "0", "RedrivePolicy": pol}
    )
    return src["QueueUrl"], dlq, arn


@pytest.mark.parametrize("mrc", [1, 3])
def test_redrive_is_lazy_not_counted_and_count_carries_over(eng, sqs, mrc):
    # AWS-REC test_dead_letter_queue_max_receive_count / _message_attributes (mRC=1: DLQ shows "2")
    src, dlq, _ = redrive_pair(sqs, mrc)
    sqs.send_message(
        QueueUrl=src, MessageBody="m", MessageAttributes={"k": {"DataType": "String", "StringValue": "v"}}
    )
    mid = None
    for i in range(mrc):
        m = one(sqs, src, AttributeNames=["ApproximateReceiveCount"])
        assert m["Attributes"]["ApproximateReceiveCount"] == str(i + 1)
        mid = m["MessageId"]
    eng.advance(3600)
    assert attrs(sqs, dlq)["ApproximateNumberOfMessages"] == "0"  # not moved by time alone (ls#8234)
    assert one(sqs, src) is None  # this receive moves it
    d = one(sqs, dlq, MessageSystemAttributeNames=["All"], MessageAttributeNames=["All"])
    assert d["MessageId"] == mid
    assert d["Attributes"]["ApproximateReceiveCount"] == str(mrc + 1)
    assert d["Attributes"]["DeadLetterQueueSourceArn"].endswith(":src")
    assert d["MessageAttributes"] == {"k": {"DataType": "String", "StringValue": "v"}}


def test_redrive_keeps_enqueue_timestamp_for_retention(eng, sqs):
    src, dlq, _ = redrive_pair(sqs, 1, dlq_attrs={"MessageRetentionPeriod": "600"})
    sqs.send_message(QueueUrl=src, MessageBody="m")
    one(sqs, src)
    eng.advance(500)
    assert one(sqs, src) is None  # moved at t=500 with enqueue time 0
    assert attrs(sqs, dlq)["ApproximateNumberOfMessages"] == "1"
    eng.advance(100)
    assert attrs(sqs, dlq)["ApproximateNumberOfMessages"] == "0"  # expired 600 s after the original send


def test_fifo_to_fifo_dlq_replaces_dedup_id(eng, sqs):
    src, dlq, _ = redrive_pair(sqs, 2, fifo_q=True)
    sqs.send_message(QueueUrl=src, MessageBody="m", MessageGroupId="g", MessageDeduplicationId="d1")
    one(sqs, src)
    one(sqs, src)
    assert one(sqs, src) is None
    d = one(sqs, dlq, AttributeNames=["All"])
    assert d["Attributes"]["MessageDeduplicationId"] == d["MessageId"]
    assert d["Attributes"]["MessageGroupId"] == "g"
    sqs.send_message(QueueUrl=src, MessageBody="n", MessageGroupId="g", MessageDeduplicationId="d2")
    assert one(sqs, src)["Body"] == "n"  # the group stays usable (AWS-REC)


@pytest.mark.parametrize(
    "policy,reason",
    [
        ("not json", "Redrive policy is not a valid JSON map."),
        ({"maxReceiveCount": 3}, "Redrive policy does not contain mandatory attribute: deadLetterTargetArn."),
        ({"deadLetterTargetArn": "DLQ", "maxReceiveCount": 0}, "Invalid value for maxReceiveCount: 0, valid values are from 1 to 1000 both inclusive."),
        ({"deadLetterTargetArn": "DLQ", "maxReceiveCount": 1001}, "Invalid value for maxReceiveCount: 1001, valid values are from 1 to 1000 both inclusive."),
        ({"deadLetterTargetArn": "arn:aws:sqs:us-east-1:123456789012:nope", "maxReceiveCount": 3}, "Dead letter target does not exist."),
        ({"deadLetterTargetArn": "FIFO", "maxReceiveCount": 3}, "Dead-letter queue must be same type of queue as the source."),
    ],
)  # fmt: skip
def test_redrive_policy_validation(eng, sqs, policy, reason):
    dlq = attrs(sqs, sqs.create_queue(QueueName="dlq")["QueueUrl"])["QueueArn"]
    f = attrs(sqs, fifo(sqs))["QueueArn"]
    if isinstance(policy, dict):
        policy = json.dumps({k: {"DLQ": dlq, "FIFO": f}.get(v, v) for k, v in policy.items()})
    with pytest.raises(ClientError) as ei:
        sqs.create_queue(QueueName="src", Attributes={"RedrivePolicy": policy})
    assert err(ei)[:2] == (
        "InvalidParameterValue",
        f"Value {policy} for parameter RedrivePolicy is invalid. Reason: {reason}",
    )


def test_list_dead_letter_source_queues(eng, sqs):
    src, dlq, _ = redrive_pair(sqs, 3)
    assert sqs.list_dead_letter_source_queues(QueueUrl=dlq)["queueUrls"] == [src]
    assert sqs.list_dead_letter_source_queues(QueueUrl=src)["queueUrls"] == []


# --------------------------------------------------------------------------- 1.7 FIFO
def send_groups(sqs, url, spec):
    for g, body in spec:
        sqs.send_message(QueueUrl=url, MessageBody=body, MessageGroupId=g)


def bodies(sqs, url, n=10, **kw):
    return [
        m["Body"] for m in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=n, **kw).get("Messages", [])
    ]


def test_fifo_batch_returns_a_group_then_the_next(eng, sqs):
    # AWS-REC test_fifo_receive_message_group_id_ordering
    url = fifo(sqs)
    send_groups(sqs, url, [("g1", "g1-m1"), ("g1", "g1-m2"), ("g2", "g2-m1"), ("g1", "g1-m3")])
    assert bodies(sqs, url) == ["g1-m1", "g1-m2", "g1-m3", "g2-m1"]


def test_fifo_prefix_rule_after_terminate(eng, sqs):
    # AWS-REC test_fifo_message_group_visibility_after_terminate_visibility_timeout: [g2-m1, g1-m1]
    url = fifo(sqs)
    send_groups(sqs, url, [("g1", "g1-m1"), ("g1", "g1-m2")])
    got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=2)["Messages"]
    send_groups(sqs, url, [("g2", "g2-m1")])
    sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=got[0]["ReceiptHandle"], VisibilityTimeout=0)
    assert bodies(sqs, url, 3) == ["g2-m1", "g1-m1"]


@pytest.mark.parametrize("p,expected", [(0, []), (1, ["foo"]), (2, ["foo", "bar"])])
def test_fifo_prefix_rule_with_extension(eng, sqs, p, expected):
    # AWS-REC test_fifo_group_visibility_extends_with_change_message_visibility[p-visible] (2025-11-19)
    url = fifo(sqs, VisibilityTimeout="1")
    send_groups(sqs, url, [("g", "foo"), ("g", "bar"), ("g", "baz")])
    got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=3)["Messages"]
    sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=got[p]["ReceiptHandle"], VisibilityTimeout=4)
    eng.advance(2.5)
    assert bodies(sqs, url) == expected


def test_fifo_new_send_does_not_unblock_but_delete_does(eng, sqs):
    # AWS-REC test_fifo_message_group_visibility
    url = fifo(sqs)
    send_groups(sqs, url, [("g", "a")])
    h = one(sqs, url)["ReceiptHandle"]
    send_groups(sqs, url, [("g", "b")])
    assert bodies(sqs, url) == []
    sqs.delete_message(QueueUrl=url, ReceiptHandle=h)
    assert bodies(sqs, url) == ["b"]


def test_fifo_delete_wakes_a_waiting_long_poll_at_once(eng):
    q = eng.create_queue("f.fifo", {"ContentBasedDeduplication": "true"})
    eng.send(q, "a", group_id="g")
    eng.send(q, "b", group_id="g")
    r = eng.receive(q)[0]
    got = []
    eng.poll(q, lambda rs: got.append((eng.now, [x.message.body for x in rs])), wait=20)
    eng.schedule(3, eng.delete, q, r.handle)
    eng.run()
    assert got == [(T0 + 3, ["b"])]


def test_fifo_vt0_redelivers_same_message_with_count_2(eng, sqs):
    # AWS-REC test_fifo_message_attributes
    url = fifo(sqs, VisibilityTimeout="0")
    send_groups(sqs, url, [("g", "a"), ("g", "b")])
    a = one(sqs, url, AttributeNames=["ApproximateReceiveCount"])
    b = one(sqs, url, AttributeNames=["ApproximateReceiveCount"])
    assert (a["Body"], b["Body"]) == ("a", "a")
    assert b["Attributes"]["ApproximateReceiveCount"] == "2"


def test_fifo_dedup_outlives_delete_and_is_cleared_by_purge(eng, sqs):
    # AWS-REC test_fifo_deduplication_arrives_once_after_delete, test_purge_queue_clears_fifo_deduplication_cache
    url = fifo(sqs)
    first = sqs.send_message(QueueUrl=url, MessageBody="m", MessageGroupId="g")["MessageId"]
    sqs.delete_message(QueueUrl=url, ReceiptHandle=one(sqs, url)["ReceiptHandle"])
    again = sqs.send_message(QueueUrl=url, MessageBody="m", MessageGroupId="g2")  # queue-wide scope
    assert again["MessageId"] == first
    assert one(sqs, url) is None
    eng.advance(299)
    sqs.send_message(QueueUrl=url, MessageBody="m", MessageGroupId="g")
    assert one(sqs, url) is None
    eng.advance(1)
    sqs.send_message(QueueUrl=url, MessageBody="m", MessageGroupId="g")
    assert one(sqs, url) is not None
    sqs.purge_queue(QueueUrl=url)
    sqs.send_message(QueueUrl=url, MessageBody="m", MessageGroupId="g")
    assert one(sqs, url) is not None


def test_dedup_scope_message_group(eng, sqs):
    url = fifo(sqs, DeduplicationScope="messageGroup", FifoThroughputLimit="perMessageGroupId")
    for g in ("g1", "g2", "g1"):
        sqs.send_message(QueueUrl=url, MessageBody="same", MessageGroupId=g)
    assert bodies(sqs, url) == ["same", "same"]  # one per group: the third send was a duplicate within g1


def test_content_based_dedup_is_sha256_of_body(eng, sqs):
    import hashlib

    url = fifo(sqs)
    sqs.send_message(QueueUrl=url, MessageBody="hello", MessageGroupId="g")
    m = one(sqs, url, AttributeNames=["MessageDeduplicationId"])
    assert m["Attributes"]["MessageDeduplicationId"] == hashlib.sha256(b"hello").hexdigest()


def test_fifo_send_errors(eng, sqs):
    url = sqs.create_queue(QueueName="f.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    with pytest.raises(ClientError) as ei:
        sqs.send_message(
            QueueUrl=url, MessageBody="m", MessageGroupId="g", MessageDeduplicationId="d", DelaySeconds=2
        )
    assert err(ei)[:2] == (
        "InvalidParameterValue",
        "Value 2 for parameter DelaySeconds is invalid. Reason: The request include parameter that is not valid for "
        "this queue type.",
    )
    with pytest.raises(ClientError) as ei:
        sqs.send_message(QueueUrl=url, MessageBody="m", MessageDeduplicationId="d")
    assert err(ei)[:2] == ("MissingParameter", "The request must contain the parameter MessageGroupId.")
    with pytest.raises(ClientError) as ei:
        sqs.send_message(QueueUrl=url, MessageBody="m", MessageGroupId="g")
    assert err(ei)[:2] == (
        "InvalidParameterValue",
        "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided "
        "explicitly",
    )


# --------------------------------------------------------------------------- 1.8 delay, retention, polling limits
def test_delay_and_counts(eng, sqs):
    url = sqs.create_queue(QueueName="q", Attributes={"DelaySeconds": "10"})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="queue-delay")
    sqs.send_message(QueueUrl=url, MessageBody="own-delay", DelaySeconds=0)
    a = attrs(sqs, url)
    assert (a["ApproximateNumberOfMessages"], a["ApproximateNumberOfMessagesDelayed"]) == ("1", "1")
    assert bodies(sqs, url) == ["own-delay"]
    eng.advance(10)
    assert bodies(sqs, url) == ["queue-delay"]
    assert attrs(sqs, url)["ApproximateNumberOfMessagesNotVisible"] == "2"
    with pytest.raises(ClientError) as ei:
        sqs.send_message(QueueUrl=url, MessageBody="m", DelaySeconds=901)
    assert err(ei)[0] == "InvalidParameterValue"


def test_retention_expires_messages_even_in_flight(eng, sqs):
    url = sqs.create_queue(QueueName="q", Attributes={"MessageRetentionPeriod": "60"})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="m")
    h = one(sqs, url, VisibilityTimeout=120)["ReceiptHandle"]
    eng.advance(60)
    a = attrs(sqs, url)
    assert (a["ApproximateNumberOfMessages"], a["ApproximateNumberOfMessagesNotVisible"]) == ("0", "0")
    sqs.delete_message(
        QueueUrl=url, ReceiptHandle=h
    )  # AWS-REC test_message_retention_with_inflight: no error
    with pytest.raises(ClientError) as ei:
        sqs.set_queue_attributes(QueueUrl=url, Attributes={"MessageRetentionPeriod": "59"})
    assert err(ei)[:2] == ("InvalidAttributeValue", "Invalid value for the parameter MessageRetentionPeriod.")


@pytest.mark.parametrize("n", [0, 11])
def test_max_number_of_messages_range(eng, sqs, n):
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    with pytest.raises(ClientError) as ei:
        sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=n)
    assert err(ei) == (
        "InvalidParameterValue",
        f"Value {n} for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided.",
        400,
    )


@pytest.mark.parametrize("w", [-1, 21])
def test_wait_time_range(eng, sqs, w):
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    with pytest.raises(ClientError) as ei:
        sqs.receive_message(QueueUrl=url, WaitTimeSeconds=w)
    assert err(ei) == (
        "InvalidParameterValue",
        f"Value {w} for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 20, if provided.",
        400,
    )


# --------------------------------------------------------------------------- 1.9 in-flight limit
def test_inflight_limit_standard_short_poll_overlimit_403():
    eng = Engine(inflight_limit=3)
    sqs = eng.client()
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    for i in range(5):
        sqs.send_message(QueueUrl=url, MessageBody=str(i))
    assert len(sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]) == 3
    with pytest.raises(sqs.exceptions.OverLimit) as ei:
        sqs.receive_message(QueueUrl=url)
    assert err(ei) == (
        "OverLimit",
        "Too many messages have been received without being deleted. Please delete your received messages or let "
        "them timeout before receiving more.",
        403,
    )
    assert sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1).get("Messages") is None  # long poll: empty


def test_inflight_limit_fifo_returns_empty():
    eng = Engine(inflight_limit=2)
    sqs = eng.client()
    url = fifo(sqs)
    send_groups(sqs, url, [("a", "1"), ("b", "2"), ("c", "3")])
    assert len(bodies(sqs, url)) == 2
    assert bodies(sqs, url) == []


# --------------------------------------------------------------------------- 1.10 polling on the virtual clock
def test_long_poll_returns_when_a_message_becomes_visible(eng, sqs):
    url = sqs.create_queue(QueueName="q", Attributes={"VisibilityTimeout": "7"})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="m")
    one(sqs, url)
    eng.advance(1)
    m = one(sqs, url, WaitTimeSeconds=20)
    assert m is not None and eng.now == T0 + 7  # (moto polls each 1 s: ev. 3.1)
    m = one(sqs, url, WaitTimeSeconds=5)  # in flight again until T0 + 14
    assert m is None and eng.now == T0 + 12


def test_long_poll_wakes_on_send_from_a_scheduled_event(eng, sqs):
    q = eng.create_queue("q")
    eng.schedule(4.5, eng.send, q, "late")
    m = one(sqs, q.url, WaitTimeSeconds=10)
    assert m["Body"] == "late" and eng.now == T0 + 4.5


def test_waiters_are_served_in_fifo_order(eng):
    q = eng.create_queue("q")
    got = []
    for name in "abc":
        eng.poll(q, lambda rs, n=name: got.append((n, [r.message.body for r in rs])), wait=5)
    eng.send(q, "m1")
    eng.send(q, "m2")
    eng.run()
    assert got == [("a", ["m1"]), ("b", ["m2"]), ("c", [])]
    assert eng.now == T0 + 5


def test_short_poll_sampling_option_is_seeded():
    def run(seed):
        eng = Engine(short_poll_sampling=0.5, seed=seed)
        q = eng.create_queue("q")
        for i in range(20):
            eng.send(q, str(i))
        return [r.message.body for r in eng.receive(q, 10)]

    a = run(1)
    assert a == run(1) and len(a) == 10
    assert a != [str(i) for i in range(10)]  # some messages were on servers this poll did not sample


def test_peek_changes_nothing(eng):
    q = eng.create_queue("q", {"VisibilityTimeout": "30"})
    eng.send(q, "a")
    eng.send(q, "b", delay=5)
    eng.receive(q)
    before = q.counts()
    p = eng.peek(q.url)
    assert [(x["Body"], x["State"], x["ReceiveCount"]) for x in p] == [
        ("a", "inflight", 1),
        ("b", "delayed", 0),
    ]
    assert p[0]["VisibleAt"] == T0 + 30
    assert q.counts() == before and eng.peek(q.url) == p


def test_queue_urls_and_arns_look_like_aws(eng, sqs):
    url = sqs.create_queue(QueueName="orders")["QueueUrl"]
    assert url == "https://sqs.us-east-1.amazonaws.com/123456789012/orders"
    assert attrs(sqs, url)["QueueArn"] == "arn:aws:sqs:us-east-1:123456789012:orders"
    assert sqs.get_queue_url(QueueName="orders")["QueueUrl"] == url
    with pytest.raises(sqs.exceptions.QueueDoesNotExist) as ei:
        sqs.get_queue_url(QueueName="nope")
    assert err(ei)[:2] == ("AWS.SimpleQueueService.NonExistentQueue", "The specified queue does not exist.")


# --------------------------------------------------------------------------- more recorded scenarios (ev. 2.2)
def test_purge_drops_in_flight_messages(eng, sqs):
    # AWS-REC test_purge_queue_deletes_inflight_messages
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    for i in range(3):
        sqs.send_message(QueueUrl=url, MessageBody=str(i))
    h = one(sqs, url)["ReceiptHandle"]
    sqs.purge_queue(QueueUrl=url)
    a = attrs(sqs, url)
    assert (a["ApproximateNumberOfMessages"], a["ApproximateNumberOfMessagesNotVisible"]) == ("0", "0")
    sqs.delete_message(QueueUrl=url, ReceiptHandle=h)  # the handle of a purged message: like a deleted one
    eng.advance(60)
    assert one(sqs, url) is None


def test_not_visible_counts_received_only_and_fifo_blocked_count_as_visible(eng, sqs):
    # AWS-REC test_approximate_number_of_messages_not_visible and its FIFO twin
    url = fifo(sqs)
    send_groups(sqs, url, [("g", "a"), ("g", "b"), ("g", "c")])
    one(sqs, url)
    a = attrs(sqs, url)
    assert (a["ApproximateNumberOfMessages"], a["ApproximateNumberOfMessagesNotVisible"]) == ("2", "1")


def test_timed_out_message_comes_back_ahead_of_a_later_one(eng, sqs):
    # AWS-REC test_inflight_message_requeue
    url = sqs.create_queue(QueueName="q", Attributes={"VisibilityTimeout": "2"})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="first")
    one(sqs, url)
    sqs.send_message(QueueUrl=url, MessageBody="second")
    eng.advance(2)
    assert bodies(sqs, url, 1) == ["first"]


def test_repeated_extensions_keep_the_message_hidden(eng, sqs):
    # AWS-REC test_extend_message_visibility_timeout_set_in_queue
    url = sqs.create_queue(QueueName="q", Attributes={"VisibilityTimeout": "2"})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="m")
    h = one(sqs, url)["ReceiptHandle"]
    for _ in range(5):
        eng.advance(1)
        sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=h, VisibilityTimeout=2)
        assert one(sqs, url) is None
    eng.advance(2)
    assert one(sqs, url) is not None


def test_long_poll_returns_what_there_is_without_waiting(eng, sqs):
    # AWS-REC test_receive_message_wait_time_seconds_and_max_number_of_messages_does_not_block
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="a")
    sqs.send_message(QueueUrl=url, MessageBody="b")
    assert bodies(sqs, url, 3, WaitTimeSeconds=5) == ["a", "b"]
    assert eng.now == T0


def test_fifo_queue_delay_holds_the_group_in_send_order(eng, sqs):
    url = fifo(sqs, DelaySeconds="5")
    send_groups(sqs, url, [("g", "a")])
    eng.advance(1)
    send_groups(sqs, url, [("g", "b")])
    assert bodies(sqs, url) == []
    eng.advance(4)
    assert bodies(sqs, url) == ["a"]  # b is still delayed; a blocks the group now
    eng.advance(60)
    assert bodies(sqs, url) == ["a", "b"]


@pytest.mark.parametrize("is_fifo,visible_after_change", [(True, True), (False, False)])
def test_queue_delay_change_is_retroactive_for_fifo_only(eng, sqs, is_fifo, visible_after_change):
    # DOC sqs-delay-queues.md: not retroactive for standard queues; retroactive for FIFO queues
    url = (
        fifo(sqs, DelaySeconds="60")
        if is_fifo
        else sqs.create_queue(QueueName="q", Attributes={"DelaySeconds": "60"})["QueueUrl"]
    )
    kw = {"MessageGroupId": "g"} if is_fifo else {}
    sqs.send_message(QueueUrl=url, MessageBody="m", **kw)
    eng.advance(10)
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"DelaySeconds": "5"})
    assert (one(sqs, url) is not None) is visible_after_change
    eng.advance(50)
    if not visible_after_change:
        assert one(sqs, url) is not None  # the original 60 s still applied


# --------------------------------------------------------------------------- 1.7 FIFO ReceiveRequestAttemptId
def test_fifo_receive_request_attempt_id_replays_same_messages_and_handles(eng, sqs):
    """DOC: during a visibility timeout, a retry with the same ReceiveRequestAttemptId returns the same
    messages and receipt handles, and resets the visibility timeout."""
    url = fifo(sqs, VisibilityTimeout="30")
    for b in ("a1", "a2", "a3"):
        sqs.send_message(QueueUrl=url, MessageBody=b, MessageGroupId="g")
    kw = {"QueueUrl": url, "MaxNumberOfMessages": 2, "AttributeNames": ["ApproximateReceiveCount"]}
    first = sqs.receive_message(ReceiveRequestAttemptId="try-1", **kw)["Messages"]
    eng.advance(10)
    again = sqs.receive_message(ReceiveRequestAttemptId="try-1", **kw)["Messages"]
    assert [(m["Body"], m["ReceiptHandle"]) for m in again] == [
        (m["Body"], m["ReceiptHandle"]) for m in first
    ]
    assert [m["Attributes"]["ApproximateReceiveCount"] for m in again] == ["1", "1"]  # not received again
    eng.advance(25)  # 35 s after the first receive, 25 s after the retry: still hidden (reset at the retry)
    assert sqs.receive_message(QueueUrl=url).get("Messages") is None  # a2 blocks the group too
    eng.advance(5.1)
    back = sqs.receive_message(**kw)["Messages"]
    assert [m["Body"] for m in back] == ["a1", "a2"]
    assert back[0]["ReceiptHandle"] != first[0]["ReceiptHandle"]
    assert [m["Attributes"]["ApproximateReceiveCount"] for m in back] == ["2", "2"]


def test_fifo_attempt_id_after_delete_expiry_or_five_minutes_is_a_fresh_receive(eng, sqs):
    url = fifo(sqs, VisibilityTimeout="600")
    for b in ("m1", "m2"):
        sqs.send_message(QueueUrl=url, MessageBody=b, MessageGroupId="g")
    got = one(sqs, url, ReceiveRequestAttemptId="x")
    sqs.delete_message(QueueUrl=url, ReceiptHandle=got["ReceiptHandle"])
    assert one(sqs, url, ReceiveRequestAttemptId="x")["Body"] == "m2"  # m1 is gone: no replay
    eng.advance(301)  # the id's 5 minutes are over: a fresh receive, and m2 (600 s) still blocks the group
    assert one(sqs, url, ReceiveRequestAttemptId="x") is None
    # a different id never replays
    url2 = fifo(sqs, "g.fifo", VisibilityTimeout="30")
    sqs.send_message(QueueUrl=url2, MessageBody="z", MessageGroupId="g")
    assert one(sqs, url2, ReceiveRequestAttemptId="p")["Body"] == "z"
    assert one(sqs, url2, ReceiveRequestAttemptId="q") is None
    eng.advance(31)  # visibility over: the message came back, so "p" is not replayed with the old handle
    h = one(sqs, url2, ReceiveRequestAttemptId="p")
    assert h["Body"] == "z" and sqs.receive_message(QueueUrl=url2).get("Messages") is None


def test_attempt_id_is_ignored_on_standard_queues_and_checked_on_fifo(eng, sqs):
    url = sqs.create_queue(QueueName="std")["QueueUrl"]
    for b in ("s1", "s2"):
        sqs.send_message(QueueUrl=url, MessageBody=b)
    assert one(sqs, url, ReceiveRequestAttemptId="a")["Body"] == "s1"
    assert one(sqs, url, ReceiveRequestAttemptId="a")["Body"] == "s2"  # DOC: FIFO only
    furl = fifo(sqs)
    for bad in ("x" * 129, "tab\there", "é"):
        with pytest.raises(ClientError) as e:
            sqs.receive_message(QueueUrl=furl, ReceiveRequestAttemptId=bad)
        assert err(e)[0] == "InvalidParameterValue" and "ReceiveRequestAttemptId" in err(e)[1]
    ok = sqs.receive_message(QueueUrl=furl, ReceiveRequestAttemptId="!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~aZ9")
    assert "Messages" not in ok and ok["ResponseMetadata"]["HTTPStatusCode"] == 200


def test_native_receive_replays_attempt_and_long_poll_path(eng, sqs):
    q = eng.create_queue("n.fifo", {"VisibilityTimeout": "60"})
    eng.send(q, "b", group_id="g", dedup_id="1")
    (r,) = eng.receive(q, 1, attempt_id="k")
    eng.advance(30)
    (r2,) = eng.receive(q, 1, attempt_id="k")
    assert r2 is r and r.message.receive_count == 1
    assert r.message.visible_at == eng.now + 60  # reset from the retry
    # the client's long poll takes the same path
    url = q.url
    eng.advance(61)
    m = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=5, ReceiveRequestAttemptId="lp")["Messages"][0]
    eng.advance(1)
    m2 = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=5, ReceiveRequestAttemptId="lp")["Messages"][0]
    assert m2["ReceiptHandle"] == m["ReceiptHandle"]
