"""The boto3-shaped client (shapes, batches, parameter checks), the native API's clock, and the demo."""

from __future__ import annotations

import json

import pytest
from botocore.exceptions import ClientError, ParamValidationError
from visguard.cli import main as cli_main
from visguard.engine import Engine
from visguard.engine.client import md5_of_attributes

T0 = 1_767_225_600.0


@pytest.fixture
def sqs():
    return Engine().client()


def test_response_shapes_follow_botocore_model(sqs):
    model = sqs.meta.service_model
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    sent = sqs.send_message(QueueUrl=url, MessageBody="hi")
    assert set(sent) - {"ResponseMetadata"} <= set(model.operation_model("SendMessage").output_shape.members)
    assert sent["MD5OfMessageBody"] == "49f68a5c8493ec2c0bf489821c21fc3b"
    got = sqs.receive_message(QueueUrl=url, AttributeNames=["All"])
    msg_members = set(model.shape_for("Message").members)
    for m in got["Messages"]:
        assert set(m) <= msg_members and m["MessageId"] == sent["MessageId"]
    assert got["ResponseMetadata"]["HTTPStatusCode"] == 200
    assert sqs.receive_message(QueueUrl=url).keys() == {"ResponseMetadata"}  # no "Messages" key when empty


def test_param_validation_like_botocore(sqs):
    # botocore's own validator runs (as boto3's does before sending): pin the error type and the parameter it
    # names, not botocore's wording
    for call, name in (
        (lambda: sqs.receive_message(), "QueueUrl"),
        (lambda: sqs.receive_message(QueueUrl="x", Queue="y"), "Queue"),
        (lambda: sqs.receive_message(QueueUrl="x", VisibilityTimeout="30"), "VisibilityTimeout"),
    ):
        with pytest.raises(ParamValidationError) as err:
            call()
        assert f'"{name}"' in str(err.value) or f" {name}" in str(err.value)


def test_message_attributes_md5_matches_the_sqs_algorithm(sqs):
    # reference value computed by moto 5.2.5's (independent) implementation of the same algorithm
    attrs = {
        "b": {"DataType": "Number", "StringValue": "12"},
        "a": {"DataType": "String", "StringValue": "x"},
    }
    assert md5_of_attributes(attrs) == "f6490383dc9dafc079f482ed91c83b37"
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    sent = sqs.send_message(QueueUrl=url, MessageBody="m", MessageAttributes=attrs)
    got = sqs.receive_message(QueueUrl=url, MessageAttributeNames=["a"])["Messages"][0]
    assert got["MessageAttributes"] == {"a": attrs["a"]}
    assert sent["MD5OfMessageAttributes"] == md5_of_attributes(attrs)
    assert got["MD5OfMessageAttributes"] == md5_of_attributes({"a": attrs["a"]})


def test_batches(sqs):
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    r = sqs.send_message_batch(
        QueueUrl=url, Entries=[{"Id": f"e{i}", "MessageBody": f"m{i}"} for i in range(3)]
    )
    assert [e["Id"] for e in r["Successful"]] == ["e0", "e1", "e2"] and "Failed" not in r
    ms = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    entries = [{"Id": "ok", "ReceiptHandle": ms[0]["ReceiptHandle"]}, {"Id": "bad", "ReceiptHandle": "junk"}]
    r = sqs.delete_message_batch(QueueUrl=url, Entries=entries)
    assert r["Successful"] == [{"Id": "ok"}]
    assert r["Failed"] == [
        {
            "Id": "bad",
            "SenderFault": True,
            "Code": "ReceiptHandleIsInvalid",
            "Message": 'The input receipt handle "junk" is not a valid receipt handle.',
        }
    ]
    r = sqs.change_message_visibility_batch(
        QueueUrl=url, Entries=[{"Id": "a", "ReceiptHandle": ms[1]["ReceiptHandle"], "VisibilityTimeout": 0}]
    )
    assert r["Successful"] == [{"Id": "a"}]
    assert [m["Body"] for m in sqs.receive_message(QueueUrl=url)["Messages"]] == ["m1"]
    for entries, code in [
        ([], "AWS.SimpleQueueService.EmptyBatchRequest"),
        (
            [{"Id": str(i), "MessageBody": "x"} for i in range(11)],
            "AWS.SimpleQueueService.TooManyEntriesInBatchRequest",
        ),
        ([{"Id": "a", "MessageBody": "x"}] * 2, "AWS.SimpleQueueService.BatchEntryIdsNotDistinct"),
        ([{"Id": "a b", "MessageBody": "x"}], "AWS.SimpleQueueService.InvalidBatchEntryId"),
    ]:
        with pytest.raises(ClientError) as ei:
            sqs.send_message_batch(QueueUrl=url, Entries=entries)
        assert ei.value.response["Error"]["Code"] == code


def test_queue_admin_operations(sqs):
    a = sqs.create_queue(QueueName="alpha")["QueueUrl"]
    sqs.create_queue(QueueName="beta")
    assert sqs.create_queue(QueueName="alpha")["QueueUrl"] == a  # idempotent
    with pytest.raises(ClientError) as ei:
        sqs.create_queue(QueueName="alpha", Attributes={"VisibilityTimeout": "5"})
    assert ei.value.response["Error"]["Code"] == "QueueAlreadyExists"
    assert isinstance(ei.value, sqs.exceptions.QueueNameExists)
    assert sqs.list_queues(QueueNamePrefix="al")["QueueUrls"] == [a]
    page = sqs.list_queues(MaxResults=1)
    assert len(page["QueueUrls"]) == 1 and page["NextToken"]
    sqs.delete_queue(QueueUrl=a)
    with pytest.raises(sqs.exceptions.QueueDoesNotExist):
        sqs.get_queue_attributes(QueueUrl=a, AttributeNames=["All"])
    with pytest.raises(ClientError) as ei:
        sqs.create_queue(QueueName="bad name")
    assert ei.value.response["Error"]["Code"] == "InvalidParameterValue"
    with pytest.raises(ClientError) as ei:
        sqs.create_queue(QueueName="x.fifo")  # FIFO needs FifoQueue=true, as in AWS
    assert ei.value.response["Error"]["Code"] == "InvalidParameterValue"


def test_purge_once_per_60s(sqs):
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="m")
    sqs.purge_queue(QueueUrl=url)
    with pytest.raises(sqs.exceptions.PurgeQueueInProgress):
        sqs.purge_queue(QueueUrl=url)
    attrs = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"])
    assert attrs["Attributes"] == {"ApproximateNumberOfMessages": "0"}


def test_receive_message_wait_time_queue_attribute_long_polls():
    eng = Engine()
    sqs = eng.client()
    url = sqs.create_queue(QueueName="q", Attributes={"ReceiveMessageWaitTimeSeconds": "20"})["QueueUrl"]
    assert sqs.receive_message(QueueUrl=url).get("Messages") is None
    assert eng.now == T0 + 20


# ------------------------------------------------------------------------------- native clock
def test_schedule_runs_equal_times_in_fifo_order_and_advance_stops_at_target():
    eng = Engine()
    out = []
    for name in "abc":
        eng.schedule(5, out.append, name)
    eng.schedule(1, out.append, "first")
    eng.schedule(9, out.append, "late")
    eng.advance(5)
    assert out == ["first", "a", "b", "c"] and eng.now == T0 + 5
    eng.run()
    assert out[-1] == "late" and eng.now == T0 + 9
    with pytest.raises(ValueError):
        eng.advance(-1)


def test_poll_timeout_and_wake_on_expiry():
    eng = Engine()
    q = eng.create_queue("q", {"VisibilityTimeout": "10"})
    eng.send(q, "m")
    eng.receive(q)
    seen = []
    eng.poll(q, lambda rs: seen.append((eng.now - T0, len(rs))), wait=4)
    eng.advance(4)
    eng.poll(q, lambda rs: seen.append((eng.now - T0, len(rs))), wait=20)
    eng.run()
    assert seen == [(4, 0), (10, 1)]


def test_native_options_are_checked():
    for bad in ({"stale_delete": "maybe"}, {"cap_anchor": "send"}, {"short_poll_sampling": 2.0}):
        with pytest.raises(ValueError):
            Engine(**bad)


def test_memory_stays_bounded_by_live_messages():
    eng = Engine()
    q = eng.create_queue("q", {"VisibilityTimeout": "1"})
    for _ in range(3000):
        eng.send(q, "x")
        (r,) = eng.receive(q)
        eng.change_visibility(q, r.handle, 5)
        eng.delete(q, r.handle)
    assert len(q._hidden) < 2100 and len(q._ret) < 2100 and not q._handles and not q._live


# ------------------------------------------------------------------------------- demo
def test_engine_demo_json(capsys):
    assert cli_main(["engine-demo", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    events = [s["event"] for s in out["steps"]]
    assert any("heartbeat" in e for e in events)
    counts = [s["receive_count"] for s in out["steps"] if s["receipt"] is not None and "handle" in s]
    assert counts == [1, 2, 3]  # 2 receives on orders, then the DLQ shows maxReceiveCount + 1
    assert out["distinct_receipt_handles"] == 3
    dlq_step = next(s for s in out["steps"] if "dlq_source" in s)
    assert dlq_step["dlq_source"].endswith(":orders") and dlq_step["queue"] == "orders-dlq"


def test_engine_demo_text_and_bad_option(capsys, tmp_path):
    out = tmp_path / "engine" / "t.json"
    assert cli_main(["engine-demo", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["distinct_receipt_handles"] == 3
    text = capsys.readouterr().out
    assert "ChangeMessageVisibility(30)" in text and "moved to the DLQ" in text
    assert cli_main(["engine-demo", "--max-receive-count", "0"]) == 1
    assert "--max-receive-count: must be 1-1000" in capsys.readouterr().err
