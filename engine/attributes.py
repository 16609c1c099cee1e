"""The attribute codec: queue attributes, message attributes, bodies and ids, as SQS reads and writes them.

Pure functions: they take values and return parsed values or raise :class:`~visguard.engine.errors.SQSError`;
the state machine (engine/core.py) applies what they return. Evidence: the SQS API reference (DOC) and the
error texts LocalStack recorded against real AWS in tests/aws/services/sqs/test_sqs.snapshot.json ("AWS-REC
snapshot <test name>").
"""

from __future__ import annotations

import json
import re

from visguard import facts

from . import errors as E

MAX_VISIBILITY = facts.MAX_VISIBILITY  # 12 h: queue, ReceiveMessage and ChangeMessageVisibility (ev. 1.1)

# queue attributes: name -> (min, max, default) for the integer ones (DOC: CreateQueue attribute table)
INT_ATTRIBUTES = {
    "VisibilityTimeout": (0, MAX_VISIBILITY, facts.DEFAULT_VISIBILITY_TIMEOUT),
    "DelaySeconds": (facts.DELAY.lo, facts.DELAY.hi, facts.DEFAULT_DELAY),
    "MessageRetentionPeriod": (facts.RETENTION.lo, facts.RETENTION.hi, facts.DEFAULT_RETENTION),
    "MaximumMessageSize": (1024, 1_048_576, 1_048_576),
    "ReceiveMessageWaitTimeSeconds": (0, 20, 0),
}
STR_ATTRIBUTES = {
    "Policy", "KmsMasterKeyId", "KmsDataKeyReusePeriodSeconds", "SqsManagedSseEnabled", "RedriveAllowPolicy",
    "DeduplicationScope", "FifoThroughputLimit",
}  # fmt: skip
FIFO_ONLY = ("ContentBasedDeduplication", "DeduplicationScope", "FifoThroughputLimit")
# attributes that vanish from GetQueueAttributes when set to these values (AWS-REC snapshot
# test_set_queue_attributes_default_values: an empty KmsMasterKeyId; the default reuse period without a key,
# see visible_string_attributes)
_HIDDEN_WHEN = {"Policy": "", "KmsMasterKeyId": "", "RedriveAllowPolicy": ""}
KMS_REUSE_DEFAULT = "300"
KNOWN_QUEUE_ATTRIBUTES = (
    set(INT_ATTRIBUTES) | STR_ATTRIBUTES | set(FIFO_ONLY)
    | {"RedrivePolicy", "FifoQueue", "QueueArn", "ApproximateNumberOfMessages", "CreatedTimestamp",
       "ApproximateNumberOfMessagesNotVisible", "ApproximateNumberOfMessagesDelayed", "LastModifiedTimestamp"}
)  # fmt: skip

_NAME_OK = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")


def check_queue_name(name: str, fifo: bool) -> None:
    """DOC (CreateQueue QueueName): up to 80 characters, alphanumerics, hyphens, underscores; FIFO: ".fifo"."""
    base = name[:-5] if fifo and name.endswith(".fifo") else name
    if fifo and not name.endswith(".fifo"):
        raise E.invalid_parameter(
            "The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end "
            "with .fifo suffix and be 1 to 80 in length."
        )
    if not base or len(name) > 80 or not set(base) <= _NAME_OK:
        raise E.invalid_parameter(
            "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length"
        )


def _redrive_error(value, reason):
    return E.invalid_parameter(f"Value {value} for parameter RedrivePolicy is invalid. Reason: {reason}")


def parse_redrive(value, fifo: bool, lookup):
    """RedrivePolicy (a JSON string, as in AWS): -> (dlq_arn, maxReceiveCount, canonical JSON) or None when
    empty. ``lookup(arn)`` gives the target queue or None.

    Checks as AWS does: valid JSON map, both keys, maxReceiveCount 1-1000, target exists, same queue type.
    (The Reason texts follow LocalStack/moto; AWS's exact wording is not recorded.)
    """
    if value is None or value == "" or value == {}:
        return None
    try:
        text = value if isinstance(value, str) else json.dumps(value)
        policy = json.loads(text) if isinstance(value, str) else dict(value)
    except (TypeError, ValueError, RecursionError):
        raise _redrive_error(str(value)[:256], "Redrive policy is not a valid JSON map.") from None
    if not isinstance(policy, dict):
        raise _redrive_error(text, "Redrive policy is not a valid JSON map.")
    for key in ("deadLetterTargetArn", "maxReceiveCount"):
        if key not in policy:
            raise _redrive_error(text, f"Redrive policy does not contain mandatory attribute: {key}.")
    raw = policy["maxReceiveCount"]
    try:
        mrc = int(raw)
        if isinstance(raw, float | bool) or str(raw).strip() != str(mrc):
            raise ValueError
    except (TypeError, ValueError, OverflowError):
        mrc = None
    if mrc is None or not 1 <= mrc <= 1000:
        raise _redrive_error(
            text, f"Invalid value for maxReceiveCount: {raw}, valid values are from 1 to 1000 both inclusive."
        )
    arn = policy["deadLetterTargetArn"]
    target = lookup(arn) if isinstance(arn, str) else None
    if target is None:
        raise _redrive_error(text, "Dead letter target does not exist.")
    if target.fifo != fifo:
        raise _redrive_error(text, "Dead-letter queue must be same type of queue as the source.")
    return target.arn, mrc, json.dumps({"deadLetterTargetArn": target.arn, "maxReceiveCount": mrc},
                                       separators=(",", ":"))  # fmt: skip


def _int_attribute(name, value):
    lo, hi, _ = INT_ATTRIBUTES[name]
    try:
        n = int(str(value).strip())
    except ValueError:
        raise E.invalid_attribute_value(name) from None
    if not lo <= n <= hi:
        raise E.invalid_attribute_value(name)
    return n


def _bool_attribute(name, value):
    v = str(value).lower()
    if v not in ("true", "false"):
        raise E.invalid_attribute_value(name)
    return v == "true"


def parse_queue_attributes(attributes: dict, *, fifo: bool, creating: bool, lookup, current=None) -> dict:
    """Validate every attribute of a CreateQueue/SetQueueAttributes request; -> name -> parsed value (an error
    changes nothing). ``current``: the queue's string attributes so far (SSE exclusivity)."""
    new = {}
    for name, value in attributes.items():
        if not isinstance(value, str | int | float | dict) or (
            isinstance(value, dict) and name != "RedrivePolicy"
        ):
            raise E.invalid_attribute_value(name)
        if name in INT_ATTRIBUTES:
            new[name] = _int_attribute(name, value)
        elif name == "FifoQueue":
            # AWS-REC snapshots test_create_standard_queue_with_fifo_attribute_raises_error and
            # test_set_unsupported_attribute_fifo: FifoQueue is unknown to a standard queue, even "false"
            if not fifo:
                raise E.SQSError("InvalidAttributeName", "Unknown Attribute FifoQueue.")
            if not _bool_attribute(name, value):
                raise E.invalid_attribute_value(name, "Modifying queue type is not supported.")
        elif name in FIFO_ONLY and not fifo:
            if name == "ContentBasedDeduplication":
                raise E.SQSError("InvalidAttributeName", f"Unknown Attribute {name}.")
            raise E.SQSError(
                "InvalidAttributeName", f"You can specify the {name} only when FifoQueue is set to true."
            )
        elif name == "ContentBasedDeduplication":
            new[name] = _bool_attribute(name, value)
        elif name == "DeduplicationScope":
            if value not in ("messageGroup", "queue"):
                raise E.invalid_attribute_value(name)
            new[name] = value
        elif name == "FifoThroughputLimit":
            if value not in ("perQueue", "perMessageGroupId"):
                raise E.invalid_attribute_value(name)
            new[name] = value
        elif name == "SqsManagedSseEnabled":
            new[name] = "true" if _bool_attribute(name, value) else "false"
        elif name == "KmsDataKeyReusePeriodSeconds":
            try:
                n = int(str(value))
            except ValueError:
                n = -1
            if not 60 <= n <= 86_400:  # DOC: 60 seconds to 86,400 seconds (24 hours)
                raise E.invalid_attribute_value(name)
            new[name] = str(n)
        elif name == "RedrivePolicy":
            new[name] = parse_redrive(value, fifo, lookup)
        elif name in STR_ATTRIBUTES:
            new[name] = str(value)
        else:
            raise E.SQSError("InvalidAttributeName", f"Unknown Attribute {name}.")
    if new.get("KmsMasterKeyId") and new.get("SqsManagedSseEnabled") == "true":
        # AWS-REC snapshot test_sse_kms_and_sqs_are_mutually_exclusive
        raise E.SQSError(
            "InvalidAttributeName",
            "You can use one type of server-side encryption (SSE) at one time. You can either enable KMS SSE or "
            "SQS SSE.",
        )
    if new.get("KmsMasterKeyId") and "SqsManagedSseEnabled" not in new:
        new["SqsManagedSseEnabled"] = (
            "false"  # AWS-REC snapshot test_sse_queue_attributes: KMS replaces SSE-SQS
        )
    return new


def visible_string_attributes(extra: dict) -> dict:
    """The kept string attributes GetQueueAttributes shows: empty KMS and policy values vanish, and the default
    KmsDataKeyReusePeriodSeconds (300) shows only beside a KMS key (AWS-REC snapshots
    test_set_queue_attributes_default_values, test_sse_queue_attributes: no key, no reuse period; with a key
    the period shows)."""
    keyed = bool(extra.get("KmsMasterKeyId"))
    return {
        k: v
        for k, v in extra.items()
        if _HIDDEN_WHEN.get(k) != v
        and not (k == "KmsDataKeyReusePeriodSeconds" and v == KMS_REUSE_DEFAULT and not keyed)
    }


def differing_attribute(current: dict, requested: dict, fifo: bool, redrive_now, lookup):
    """The first requested attribute whose value differs from ``current`` (GetQueueAttributes strings), or None
    (CreateQueue idempotency)."""
    for name, value in requested.items():
        if name == "RedrivePolicy":
            parsed = parse_redrive(value, fifo, lookup)
            if (parsed[2] if parsed else None) != redrive_now:
                return name
        elif name == "FifoQueue":
            if (str(value).lower() == "true") != fifo:
                return name
        elif str(value).lower() != str(current.get(name, "")).lower():
            return name
    return None


# ------------------------------------------------------------------------------ messages
# DOC (SendMessage MessageBody): #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF
_BAD_CHARS = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_INVALID_CHARS_TEXT = (
    "Invalid characters found. Valid unicode characters are #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD "
    "| #x10000 to #x10FFFF"
)


def check_contents(text: str) -> None:
    """A body or string attribute value with a character outside the allowed set: InvalidMessageContents
    (AWS-REC test_send_message_with_invalid_payload_characters; text as AWS's documentation lists the set)."""
    if _BAD_CHARS.search(text):
        raise E.SQSError("InvalidMessageContents", _INVALID_CHARS_TEXT)


# DOC (MessageGroupId, MessageDeduplicationId): 1-128 alphanumeric and punctuation characters
_ID_OK = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
)


def check_message_id_param(name: str, value: str) -> None:
    """AWS-REC snapshots test_send_message_to_standard_queue_with_invalid_message_group_id and
    test_message_deduplication_id_invalid (empty, too long, spaces)."""
    if not 1 <= len(value) <= 128 or not set(value) <= _ID_OK:
        raise E.invalid_parameter(
            f"Value {value} for parameter {name} is invalid. Reason: {name} can only include alphanumeric and "
            "punctuation characters. 1 to 128 in length."
        )


_DATA_TYPES = ("String", "Number", "Binary")


def check_message_attributes(attrs: dict) -> int:
    """DOC (SQS message attributes): names up to 256 letters/digits (Unicode, as AWS accepts) or _ - ., no "AWS."/"Amazon."
    prefix (any case), no leading or trailing period, no two periods in a row; DataType String, Number or
    Binary with an optional ".custom" suffix, up to 256 characters; a String/Number value non-empty, in the
    allowed character set. Returns the attributes' size in bytes (name, type and value), as SQS counts it."""
    size = 0
    for name, a in attrs.items():
        low = name.lower()
        if (
            not 1 <= len(name) <= 256
            or not all(c.isalnum() or c in "_-." for c in name)  # AWS-REC: "attr.1øßä" is accepted
            or low.startswith(("aws.", "amazon."))
            or name.startswith(".")
            or name.endswith(".")
            or ".." in name
        ):
            raise E.invalid_parameter(
                f"Message (user) attribute name '{name}' is invalid."
            )  # text unrecorded
        dtype = a.get("DataType")
        if not dtype:
            raise E.invalid_parameter(
                f"The message attribute '{name}' must contain a non-empty message attribute type."
            )
        base = dtype.split(".", 1)[0]
        if base not in _DATA_TYPES or len(dtype) > 256 or (base != dtype and len(dtype) == len(base) + 1):
            raise E.invalid_parameter(
                f"The message attribute '{name}' has an invalid message attribute type, the set of supported type "
                "prefixes is Binary, Number, and String."
            )
        if base == "Binary":
            v = a.get("BinaryValue")
            if v is None or len(v) == 0:
                raise E.invalid_parameter(
                    f"Message (user) attribute '{name}' must contain a non-empty value of type 'Binary'."
                )
            size += len(v)
        else:
            v = a.get("StringValue")
            if not v:
                # AWS-REC snapshot test_send_message_with_empty_string_attribute
                raise E.invalid_parameter(
                    f"Message (user) attribute '{name}' must contain a non-empty value of type '{base}'."
                )
            if base == "Number":
                try:
                    float(v)
                except ValueError:
                    raise E.invalid_parameter(
                        f"Can't cast the value of message (user) attribute '{name}' to a number."
                    ) from None
            if _BAD_CHARS.search(v):
                # AWS-REC test_invalid_string_attributes_cause_invalid_parameter_value_error: the code is
                # InvalidParameterValue (not the body's InvalidMessageContents); the text is not recorded
                raise E.invalid_parameter(
                    f"Message (user) attribute '{name}' value contains invalid characters. {_INVALID_CHARS_TEXT}"
                )
            size += len(v.encode("utf-8", "surrogatepass"))
        size += len(name.encode()) + len(dtype.encode())
    return size


def attribute_selected(name: str, patterns) -> bool:
    """MessageAttributeNames: "All", "*" and ".*" select everything; "Hel.*" every name starting with "Hel"
    (AWS-REC snapshot test_receive_message_message_attribute_names_filters: it selects "Hello" and "Help.Me")."""
    for p in patterns:
        if p in ("All", "*", ".*") or p == name:
            return True
        if p.endswith(".*") and name.startswith(p[:-2]):
            return True
    return False
