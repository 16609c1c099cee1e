"""Issue 11: wrong-typed or hostile parameters give what boto3 gives (botocore's ParamValidationError, raised
client-side before sending) or what AWS answers (ClientError with its code); never a Python exception."""

from __future__ import annotations

import contextlib
import json
import time

import boto3
import pytest
from botocore.exceptions import ClientError, ParamValidationError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from visguard.engine import Engine


@pytest.fixture
def sqs():
    return Engine().client()


@pytest.fixture
def url(sqs):
    return sqs.create_queue(QueueName="q")["QueueUrl"]


def _real_boto3_outcome(op, kwargs):
    """What a real boto3 client does with these parameters before sending anything (its validator)."""
    c = boto3.client("sqs", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="y")
    c.meta.events.register("before-send.sqs.*", lambda **_: (_ for _ in ()).throw(RuntimeError("sent")))
    try:
        getattr(c, op)(**kwargs)
    except ParamValidationError as e:
        return str(e)
    except RuntimeError:
        return None  # passed validation: it would have gone to AWS
    raise AssertionError("unreachable")


CLIENT_SIDE = [
    ("send_message_batch", {"QueueUrl": "U", "Entries": "not a list"}),
    ("send_message_batch", {"QueueUrl": "U", "Entries": ["not a map"]}),
    (
        "send_message_batch",
        {"QueueUrl": "U", "Entries": [{"Id": "a", "MessageBody": "b", "DelaySeconds": "5"}]},
    ),
    ("delete_message_batch", {"QueueUrl": "U", "Entries": [{"Id": "a"}]}),
    ("change_message_visibility_batch", {"QueueUrl": "U", "Entries": [{"Id": "a", "ReceiptHandle": 3}]}),
    ("set_queue_attributes", {"QueueUrl": "U", "Attributes": "VisibilityTimeout=5"}),
    ("set_queue_attributes", {"QueueUrl": "U", "Attributes": {"VisibilityTimeout": 5}}),
    ("send_message", {"QueueUrl": "U", "MessageBody": "b", "MessageAttributes": {"a": "x"}}),
    ("send_message", {"QueueUrl": "U", "MessageBody": b"bytes"}),
    ("receive_message", {"QueueUrl": "U", "MessageAttributeNames": "All"}),
    ("list_queues", {"MaxResults": "5"}),
    ("tag_queue", {"QueueUrl": "U", "Tags": ["a"]}),
    ("create_queue", {"QueueName": ["q"]}),
]


@pytest.mark.parametrize(("op", "kwargs"), CLIENT_SIDE)
def test_wrong_types_raise_what_boto3_raises_client_side(sqs, url, op, kwargs):
    kwargs = {k: (url if v == "U" else v) for k, v in kwargs.items()}
    expected = _real_boto3_outcome(op, kwargs)
    assert expected is not None, "boto3 itself accepts these parameters"
    with pytest.raises(ParamValidationError) as e:
        getattr(sqs, op)(**kwargs)
    assert str(e.value) == expected


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (lambda s, u: s.list_queues(NextToken="garbage"), "InvalidParameterValue"),
        (lambda s, u: s.list_queues(NextToken="", MaxResults=5), "InvalidParameterValue"),
        (
            lambda s, u: s.list_dead_letter_source_queues(QueueUrl=u, NextToken="\x00"),
            "InvalidParameterValue",
        ),
        (lambda s, u: s.send_message(QueueUrl=u, MessageBody="a\x00b"), "InvalidMessageContents"),
        (
            lambda s, u: s.send_message(QueueUrl=u, MessageBody="lone \ud800 surrogate"),
            "InvalidMessageContents",
        ),
        (lambda s, u: s.send_message(QueueUrl=u, MessageBody=f"x{chr(65535)}"), "InvalidMessageContents"),
        (
            lambda s, u: s.send_message(QueueUrl="no such queue", MessageBody="x"),
            "AWS.SimpleQueueService.NonExistentQueue",
        ),
        (lambda s, u: s.delete_message(QueueUrl=u, ReceiptHandle="\ud800"), "ReceiptHandleIsInvalid"),
    ],
)
def test_bad_values_get_aws_error_codes(sqs, url, call, code):
    with pytest.raises(ClientError) as e:
        call(sqs, url)
    assert e.value.response["Error"]["Code"] == code


@pytest.mark.parametrize("target", [["arn:aws:sqs:us-east-1:123456789012:dlq"], {"a": 1}, 5, None])
def test_redrive_policy_with_a_non_string_target_is_invalid_parameter(sqs, url, target):
    sqs.create_queue(QueueName="dlq")
    policy = json.dumps({"deadLetterTargetArn": target, "maxReceiveCount": 3})
    with pytest.raises(ClientError) as e:
        sqs.set_queue_attributes(QueueUrl=url, Attributes={"RedrivePolicy": policy})
    assert e.value.response["Error"]["Code"] == "InvalidParameterValue"
    assert "Dead letter target does not exist" in e.value.response["Error"]["Message"]


def test_batch_entry_with_a_bad_body_fails_alone(sqs, url):
    r = sqs.send_message_batch(
        QueueUrl=url, Entries=[{"Id": "ok", "MessageBody": "fine"}, {"Id": "bad", "MessageBody": "nul\x00"}]
    )
    assert [e["Id"] for e in r["Successful"]] == ["ok"]
    assert r["Failed"][0]["Id"] == "bad" and r["Failed"][0]["Code"] == "InvalidMessageContents"


def test_next_tokens_page_through(sqs):
    for i in range(7):
        sqs.create_queue(QueueName=f"p{i}")
    seen, token = [], None
    while True:
        kw = {"MaxResults": 3, **({"NextToken": token} if token else {})}
        page = sqs.list_queues(**kw)
        seen += page.get("QueueUrls", [])
        token = page.get("NextToken")
        if not token:
            break
    assert [u.rsplit("/", 1)[1] for u in seen] == [f"p{i}" for i in range(7)]


# ------------------------------------------------------------------------------------- fuzzing
_OPS = {
    "send_message": {"QueueUrl": "U", "MessageBody": "hello"},
    "send_message_batch": {"QueueUrl": "U", "Entries": [{"Id": "a", "MessageBody": "x", "DelaySeconds": 1}]},
    "receive_message": {"QueueUrl": "U", "MaxNumberOfMessages": 2, "VisibilityTimeout": 5, "WaitTimeSeconds": 1},
    "delete_message": {"QueueUrl": "U", "ReceiptHandle": "H"},
    "delete_message_batch": {"QueueUrl": "U", "Entries": [{"Id": "a", "ReceiptHandle": "H"}]},
    "change_message_visibility": {"QueueUrl": "U", "ReceiptHandle": "H", "VisibilityTimeout": 10},
    "change_message_visibility_batch": {
        "QueueUrl": "U", "Entries": [{"Id": "a", "ReceiptHandle": "H", "VisibilityTimeout": 3}],
    },
    "set_queue_attributes": {"QueueUrl": "U", "Attributes": {"VisibilityTimeout": "10"}},
    "get_queue_attributes": {"QueueUrl": "U", "AttributeNames": ["All"]},
    "create_queue": {"QueueName": "fz", "Attributes": {"DelaySeconds": "1"}},
    "list_queues": {"MaxResults": 2, "NextToken": "x"},
    "list_dead_letter_source_queues": {"QueueUrl": "U", "MaxResults": 2},
    "tag_queue": {"QueueUrl": "U", "Tags": {"k": "v"}},
    "untag_queue": {"QueueUrl": "U", "TagKeys": ["k"]},
    "purge_queue": {"QueueUrl": "U"},
    "get_queue_url": {"QueueName": "q"},
}  # fmt: skip

_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True),
    st.text(max_size=40), st.binary(max_size=10), st.sampled_from(["", "\x00", "\ud800", "U", "H", "All", "-1",
    "5", "43201", '{"deadLetterTargetArn":[1],"maxReceiveCount":"x"}', "arn:aws:sqs:us-east-1:123456789012:q"]),
)  # fmt: skip
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=8,
)


@st.composite
def _mutated_call(draw):
    op = draw(st.sampled_from(sorted(_OPS)))
    params = json.loads(json.dumps(_OPS[op]))
    keys = sorted(params)
    for _ in range(draw(st.integers(1, 3))):
        how = draw(st.sampled_from(["replace", "drop", "add", "nested"]))
        if how == "replace" and keys:
            params[draw(st.sampled_from(keys))] = draw(_values)
        elif how == "drop" and keys:
            params.pop(draw(st.sampled_from(keys)), None)
        elif how == "add":
            params[draw(st.sampled_from(["RedrivePolicy", "Attributes", "MessageAttributes", "Entries",
                                         "DelaySeconds", "MessageGroupId", "Bogus"]))] = draw(_values)  # fmt: skip
        elif how == "nested" and isinstance(params.get("Entries"), list) and params["Entries"]:
            entry = params["Entries"][0]
            if isinstance(entry, dict):
                entry[draw(st.sampled_from(["Id", "MessageBody", "DelaySeconds", "ReceiptHandle",
                                            "VisibilityTimeout", "MessageAttributes"]))] = draw(_values)  # fmt: skip
    return op, params


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_mutated_call())
def test_fuzzed_client_calls_raise_only_botocore_errors(call):
    op, params = call
    eng = Engine()
    sqs = eng.client()
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="m")
    handle = sqs.receive_message(QueueUrl=url)["Messages"][0]["ReceiptHandle"]

    def fill(v):
        if v == "U":
            return url
        if v == "H":
            return handle
        if isinstance(v, list):
            return [fill(x) for x in v]
        if isinstance(v, dict):
            return {k: fill(x) for k, x in v.items()}
        return v

    t = time.perf_counter()
    with contextlib.suppress(ClientError, ParamValidationError):
        getattr(sqs, op)(**fill(params))
    assert time.perf_counter() - t < 2.0  # no hang (a long poll runs on the virtual clock)
