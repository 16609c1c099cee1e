"""Issue 15 section 1: the engine where AWS has spoken. Evidence: LocalStack's aws.validated tests and their
snapshots recorded on real AWS (tests/aws/services/sqs/test_sqs.py + .snapshot.json, "AWS-REC <test>"), and
the SQS API reference (DOC)."""

from __future__ import annotations

import json

import pytest
from botocore.exceptions import ClientError
from visguard.engine import Engine


@pytest.fixture
def eng():
    return Engine()


@pytest.fixture
def sqs(eng):
    return eng.client()


def _err(call):
    with pytest.raises(ClientError) as e:
        call()
    return e.value.response


def test_list_queues_pages_of_at_most_1000(sqs, eng):
    # DOC ListQueues: "up to 1,000"; MaxResults 1-1000; NextToken only with MaxResults
    for i in range(1005):
        eng.create_queue(f"q{i:04d}")
    first = sqs.list_queues()
    assert len(first["QueueUrls"]) == 1000 and "NextToken" not in first
    page = sqs.list_queues(MaxResults=1000)
    rest = sqs.list_queues(MaxResults=1000, NextToken=page["NextToken"])
    assert len(rest["QueueUrls"]) == 5 and "NextToken" not in rest
    assert _err(lambda: sqs.list_queues(MaxResults=1001))["Error"]["Code"] == "InvalidParameterValue"


def test_batch_request_too_long(sqs):
    # AWS-REC snapshot test_send_message_batch_with_oversized_contents
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    entries = [{"Id": "a", "MessageBody": "a" * 524_288}, {"Id": "b", "MessageBody": "b" * 524_289}]
    r = _err(lambda: sqs.send_message_batch(QueueUrl=url, Entries=entries))
    assert r["Error"] == {
        "Code": "AWS.SimpleQueueService.BatchRequestTooLong",
        "Message": "Batch requests cannot be longer than 1048576 bytes. You have sent 1048577 bytes.",
        "QueryErrorCode": "BatchRequestTooLong",
        "Type": "Sender",
    }


def test_fifo_batch_without_group_or_dedup_id_fails_the_request(sqs):
    # AWS-REC snapshots test_send_batch_missing_message_group_id_for_fifo_queue, ..._deduplication_id_...
    url = sqs.create_queue(QueueName="q.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    r = _err(lambda: sqs.send_message_batch(QueueUrl=url, Entries=[{"Id": "a", "MessageBody": "x"}]))
    assert r["Error"]["Code"] == "InvalidParameterValue"
    assert r["Error"]["Message"] == "The request must contain the parameter MessageGroupId."
    entries = [{"Id": "a", "MessageBody": "x", "MessageGroupId": "g"}]
    r = _err(lambda: sqs.send_message_batch(QueueUrl=url, Entries=entries))
    assert r["Error"]["Message"] == (
        "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly"
    )


@pytest.mark.parametrize(
    ("attrs", "fragment"),
    [
        ({"AWS.x": {"DataType": "String", "StringValue": "v"}}, "name"),
        ({"amazon.x": {"DataType": "String", "StringValue": "v"}}, "name"),
        ({".x": {"DataType": "String", "StringValue": "v"}}, "name"),
        ({"x.": {"DataType": "String", "StringValue": "v"}}, "name"),
        ({"a b": {"DataType": "String", "StringValue": "v"}}, "name"),
        ({"n" * 257: {"DataType": "String", "StringValue": "v"}}, "name"),
        ({"x": {"DataType": "Integer", "StringValue": "1"}}, "type"),
        ({"x": {"DataType": "String." + "c" * 250, "StringValue": "v"}}, "type"),
        ({"ErrorDetails": {"DataType": "String", "StringValue": ""}}, "non-empty"),  # AWS-REC snapshot
        ({"x": {"DataType": "Number", "StringValue": "abc"}}, "number"),
    ],
)
def test_message_attribute_rules(sqs, attrs, fragment):
    # DOC "Amazon SQS message attributes"; AWS-REC snapshot test_send_message_with_empty_string_attribute
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    r = _err(lambda: sqs.send_message(QueueUrl=url, MessageBody="b", MessageAttributes=attrs))
    assert r["Error"]["Code"] == "InvalidParameterValue" and fragment in r["Error"]["Message"]


def test_empty_string_attribute_text_is_aws(sqs):
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    attrs = {"ErrorDetails": {"DataType": "String", "StringValue": ""}}
    r = _err(lambda: sqs.send_message(QueueUrl=url, MessageBody="b", MessageAttributes=attrs))
    assert (
        r["Error"]["Message"]
        == "Message (user) attribute 'ErrorDetails' must contain a non-empty value of type 'String'."
    )


def test_custom_data_type_and_invalid_characters(sqs):
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    ok = {
        "x": {"DataType": "Number.int", "StringValue": "5"},
        "y": {"DataType": "Binary.png", "BinaryValue": b"\x00"},
    }
    sqs.send_message(QueueUrl=url, MessageBody="b", MessageAttributes=ok)
    # AWS-REC test_send_message_with_invalid_payload_characters
    body = f"Invalid-{chr(0)}-{chr(8)}-{chr(19)}-{chr(65535)}"
    assert (
        _err(lambda: sqs.send_message(QueueUrl=url, MessageBody=body))["Error"]["Code"]
        == "InvalidMessageContents"
    )
    # AWS-REC test_invalid_string_attributes_cause_invalid_parameter_value_error, test_send_message_with_invalid_
    # string_attributes (a Unicode name is valid)
    bad = {"x": {"DataType": "String", "StringValue": "Invalid-\x08,\x0b"}}
    r = _err(lambda: sqs.send_message(QueueUrl=url, MessageBody="b", MessageAttributes=bad))
    assert r["Error"]["Code"] == "InvalidParameterValue"
    sqs.send_message(
        QueueUrl=url,
        MessageBody="b",
        MessageAttributes={"attr.1øßä": {"DataType": "String", "StringValue": "V"}},
    )
    for name in ("Invalid-!-attr", "Invalid-§-attr", "aWs.-x", "AMAZON.-x"):
        attrs = {name: {"DataType": "String", "StringValue": "Valid"}}
        r = _err(lambda a=attrs: sqs.send_message(QueueUrl=url, MessageBody="b", MessageAttributes=a))
        assert r["Error"]["Code"] == "InvalidParameterValue"


def test_message_attribute_name_filters(sqs):
    # AWS-REC snapshot test_receive_message_message_attribute_names_filters
    url = sqs.create_queue(QueueName="q", Attributes={"VisibilityTimeout": "0"})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="msg", MessageAttributes={
        "Help.Me": {"DataType": "String", "StringValue": "Me"},
        "Hello": {"DataType": "String", "StringValue": "There"},
        "General": {"DataType": "String", "StringValue": "Kenobi"},
    })  # fmt: skip

    def names(filters):
        m = sqs.receive_message(QueueUrl=url, MessageAttributeNames=filters)["Messages"][0]
        return sorted(m.get("MessageAttributes", {}))

    assert names(["Hel.*"]) == ["Hello", "Help.Me"]
    assert names(["*"]) == names(["All"]) == names([".*"]) == ["General", "Hello", "Help.Me"]
    assert names(["Foo", "Hello"]) == ["Hello"] and names([]) == []


def test_group_id_on_standard_queues_is_validated_and_returned(sqs):
    # AWS-REC snapshot test_send_message_to_standard_queue_with_invalid_message_group_id (empty, too long,
    # spaces); fair queues return it as Attributes.MessageGroupId (DOC ReceiveMessage)
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    for bad in ("", "a" * 129, "group 123"):
        r = _err(lambda b=bad: sqs.send_message(QueueUrl=url, MessageBody="x", MessageGroupId=b))
        assert r["Error"]["Message"] == (
            f"Value {bad} for parameter MessageGroupId is invalid. Reason: MessageGroupId can only include "
            "alphanumeric and punctuation characters. 1 to 128 in length."
        )
    sqs.send_message(QueueUrl=url, MessageBody="x", MessageGroupId="tenant-1")
    m = sqs.receive_message(QueueUrl=url, MessageSystemAttributeNames=["MessageGroupId"])["Messages"][0]
    assert m["Attributes"] == {"MessageGroupId": "tenant-1"}


def test_dedup_id_is_validated_on_fifo(sqs):
    # AWS-REC snapshot test_message_deduplication_id_invalid
    url = sqs.create_queue(QueueName="q.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    r = _err(
        lambda: sqs.send_message(
            QueueUrl=url, MessageBody="x", MessageGroupId="g", MessageDeduplicationId="a b"
        )
    )
    assert "MessageDeduplicationId can only include alphanumeric and punctuation" in r["Error"]["Message"]


def test_fifo_message_delay_zero_keeps_the_queue_delay(sqs, eng):
    # AWS-REC test_send_message_with_delay_0_works_for_fifo (accepted); DOC: FIFO queues have no
    # per-message delay, only the queue's
    url = sqs.create_queue(QueueName="q.fifo", Attributes={"FifoQueue": "true", "DelaySeconds": "5"})[
        "QueueUrl"
    ]
    sqs.send_message(
        QueueUrl=url, MessageBody="x", MessageGroupId="g", MessageDeduplicationId="1", DelaySeconds=0
    )
    assert "Messages" not in sqs.receive_message(QueueUrl=url)
    eng.advance(5)
    assert sqs.receive_message(QueueUrl=url)["Messages"][0]["Body"] == "x"


def test_queue_attribute_errors_and_kms_defaults(sqs):
    # AWS-REC snapshots test_create_standard_queue_with_fifo_attribute_raises_error,
    # test_set_unsupported_attribute_fifo, test_set_queue_attributes_default_values, test_sse_queue_attributes,
    # test_sse_kms_and_sqs_are_mutually_exclusive
    for attrs, code, text in [
        ({"FifoQueue": "false"}, "InvalidAttributeName", "Unknown Attribute FifoQueue."),
        ({"ContentBasedDeduplication": "false"}, "InvalidAttributeName", "Unknown Attribute ContentBasedDeduplication."),
        ({"DeduplicationScope": "queue"}, "InvalidAttributeName",
         "You can specify the DeduplicationScope only when FifoQueue is set to true."),
        ({"FifoThroughputLimit": "perQueue"}, "InvalidAttributeName",
         "You can specify the FifoThroughputLimit only when FifoQueue is set to true."),
    ]:  # fmt: skip
        r = _err(lambda a=attrs: sqs.create_queue(QueueName="std", Attributes=a))
        assert (r["Error"]["Code"], r["Error"]["Message"], r["message"]) == (code, text, text)
        assert r["ResponseMetadata"]["HTTPStatusCode"] == 400
    url = sqs.create_queue(QueueName="std")["QueueUrl"]
    assert (
        _err(lambda: sqs.set_queue_attributes(QueueUrl=url, Attributes={"FifoQueue": "true"}))["Error"][
            "Message"
        ]
        == "Unknown Attribute FifoQueue."
    )
    fifo = sqs.create_queue(QueueName="f.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    sqs.set_queue_attributes(QueueUrl=fifo, Attributes={"FifoQueue": "true"})
    r = _err(lambda: sqs.set_queue_attributes(QueueUrl=fifo, Attributes={"FifoQueue": "false"}))
    assert r["Error"] == {
        "Code": "InvalidAttributeValue",
        "Message": "Invalid value for the parameter FifoQueue. Reason: Modifying queue type is not supported.",
        "QueryErrorCode": "InvalidAttributeValue",
        "Type": "Sender",
    }
    sqs.set_queue_attributes(
        QueueUrl=url, Attributes={"KmsMasterKeyId": "testKeyId", "KmsDataKeyReusePeriodSeconds": "6000"}
    )
    a = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert (a["KmsMasterKeyId"], a["KmsDataKeyReusePeriodSeconds"], a["SqsManagedSseEnabled"]) == (
        "testKeyId",
        "6000",
        "false",
    )
    sqs.set_queue_attributes(
        QueueUrl=url, Attributes={"KmsMasterKeyId": "", "KmsDataKeyReusePeriodSeconds": "300"}
    )
    a = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert (
        "KmsMasterKeyId" not in a
        and "KmsDataKeyReusePeriodSeconds" not in a
        and a["SqsManagedSseEnabled"] == "false"
    )
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"Policy": ""})
    assert "Policy" not in sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    r = _err(
        lambda: sqs.set_queue_attributes(
            QueueUrl=url, Attributes={"KmsMasterKeyId": "k", "SqsManagedSseEnabled": "true"}
        )
    )
    assert (
        r["Error"]["Code"] == "InvalidAttributeName"
        and "one type of server-side encryption" in r["Error"]["Message"]
    )


def test_queue_name_not_reusable_for_60_seconds(sqs, eng):
    # AWS-REC test_create_queue_recently_deleted; DOC DeleteQueue
    url = sqs.create_queue(QueueName="gone")["QueueUrl"]
    sqs.delete_queue(QueueUrl=url)
    r = _err(lambda: sqs.create_queue(QueueName="gone"))
    assert r["Error"]["Code"] == "AWS.SimpleQueueService.QueueDeletedRecently"
    assert r["Error"]["Message"] == (
        "You must wait 60 seconds after deleting a queue before you can create another with the same name."
    )
    eng.advance(60)
    assert sqs.create_queue(QueueName="gone")["QueueUrl"] == url


def test_tags_and_purge_window_belong_to_the_queue(sqs, eng):
    # LocalStack aws.validated test_tag_untag_queue, test_untag_queue_ignores_non_existing_tag; DOC quotas (50
    # tags); AWS-REC snapshot test_successive_purge_calls_fail
    url = sqs.create_queue(QueueName="t", tags={"a": "1"})["QueueUrl"]
    other = eng.client()
    other.tag_queue(QueueUrl=url, Tags={"b": "2"})
    assert sqs.list_queue_tags(QueueUrl=url)["Tags"] == {"a": "1", "b": "2"}
    sqs.untag_queue(QueueUrl=url, TagKeys=["a", "missing"])
    assert other.list_queue_tags(QueueUrl=url)["Tags"] == {"b": "2"}
    r = _err(lambda: sqs.tag_queue(QueueUrl=url, Tags={f"k{i}": "v" for i in range(50)}))
    assert r["Error"]["Code"] == "InvalidParameterValue"
    sqs.purge_queue(QueueUrl=url)
    r = _err(lambda: other.purge_queue(QueueUrl=url))
    assert r["Error"]["Code"] == "AWS.SimpleQueueService.PurgeQueueInProgress"
    assert r["Error"]["Message"] == "Only one PurgeQueue operation on t is allowed every 60 seconds."
    assert r["ResponseMetadata"]["HTTPStatusCode"] == 403
    sqs.delete_queue(QueueUrl=url)
    eng.advance(60)
    url = sqs.create_queue(QueueName="t")["QueueUrl"]
    assert "Tags" not in sqs.list_queue_tags(QueueUrl=url)  # tags vanished with the queue
    sqs.purge_queue(QueueUrl=url)


def test_fifo_handle_expired_at_the_boundary_instant(sqs, eng):
    # consistent with peek: at now == visible_at the message is visible again, so its handle has expired
    url = sqs.create_queue(
        QueueName="q.fifo", Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"}
    )["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="x", MessageGroupId="g")
    h = sqs.receive_message(QueueUrl=url, VisibilityTimeout=10)["Messages"][0]["ReceiptHandle"]
    eng.advance(10)
    assert eng.peek(url)[0]["State"] == "visible"
    r = _err(lambda: sqs.delete_message(QueueUrl=url, ReceiptHandle=h))
    assert r["Error"]["Message"].endswith("Reason: The receipt handle has expired.")


def test_error_shape_matches_botocore(sqs):
    r = _err(lambda: sqs.get_queue_url(QueueName="nope"))
    assert r["Error"] == {
        "Code": "AWS.SimpleQueueService.NonExistentQueue",
        "Message": "The specified queue does not exist.",
        "QueryErrorCode": "QueueDoesNotExist",
        "Type": "Sender",
    }
    assert "message" not in r  # AWS-REC: only InvalidAttributeName/Value carry the top-level message
    assert r["ResponseMetadata"]["HTTPStatusCode"] == 400


def test_redrive_policy_dict_target_list_is_refused(sqs):
    url = sqs.create_queue(QueueName="src")["QueueUrl"]
    bad = json.dumps({"deadLetterTargetArn": {"x": 1}, "maxReceiveCount": 1})
    assert (
        _err(lambda: sqs.set_queue_attributes(QueueUrl=url, Attributes={"RedrivePolicy": bad}))["Error"][
            "Code"
        ]
        == "InvalidParameterValue"
    )


def test_empty_tag_requests_are_refused(sqs):
    # DOC TagQueue/UntagQueue: Tags and TagKeys are required (texts as moto's; AWS's are not recorded)
    url = sqs.create_queue(QueueName="t", tags={"a": "1"})["QueueUrl"]
    assert _err(lambda: sqs.tag_queue(QueueUrl=url, Tags={}))["Error"]["Code"] == "MissingParameter"
    assert _err(lambda: sqs.untag_queue(QueueUrl=url, TagKeys=[]))["Error"]["Code"] == "InvalidParameterValue"
    assert sqs.list_queue_tags(QueueUrl=url)["Tags"] == {"a": "1"}
