"""A boto3-shaped SQS client over the engine core: ``Engine.client()``.

Same operation names, keyword arguments and response dicts as ``boto3.client("sqs")`` (shapes from botocore's
service model ``sqs/2012-11-05``), and errors as ``botocore.exceptions.ClientError`` subclasses from the same
exception factory boto3 uses, so ``except sqs.exceptions.QueueDoesNotExist`` works. ``Error.Code`` is the
query-compatible code botocore reports for SQS (``AWS.SimpleQueueService.NonExistentQueue``,
``InvalidParameterValue``, ...), ``Error.QueryErrorCode`` the shape name, as botocore's parser sets them.

A ReceiveMessage with WaitTimeSeconds > 0 (or a queue ReceiveMessageWaitTimeSeconds > 0) runs the engine's
event heap until a message is delivered or the wait is over: the virtual clock moves to that moment.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import itertools
import struct

from . import attributes as A
from . import core
from . import errors as E

# query code -> modeled error shape (botocore picks the exception class by this name)
_SHAPE = {
    "AWS.SimpleQueueService.NonExistentQueue": "QueueDoesNotExist",
    "InvalidParameterValue": "InvalidParameterValueException",
    "MissingParameter": "MissingRequiredParameterException",
    "QueueAlreadyExists": "QueueNameExists",
    "AWS.SimpleQueueService.PurgeQueueInProgress": "PurgeQueueInProgress",
    "AWS.SimpleQueueService.EmptyBatchRequest": "EmptyBatchRequest",
    "AWS.SimpleQueueService.TooManyEntriesInBatchRequest": "TooManyEntriesInBatchRequest",
    "AWS.SimpleQueueService.BatchEntryIdsNotDistinct": "BatchEntryIdsNotDistinct",
    "AWS.SimpleQueueService.InvalidBatchEntryId": "InvalidBatchEntryId",
    "AWS.SimpleQueueService.BatchRequestTooLong": "BatchRequestTooLong",
    "AWS.SimpleQueueService.QueueDeletedRecently": "QueueDeletedRecently",
    "AWS.SimpleQueueService.UnsupportedOperation": "UnsupportedOperation",
}
# the errors whose parsed response has a top-level "message" (AWS-REC: every error in LocalStack's snapshots
# recorded through botocore's JSON protocol; the others have only Error and ResponseMetadata)
_MESSAGE_KEY = frozenset({"InvalidAttributeName", "InvalidAttributeValue"})
MAX_PAGE = 1000  # DOC (ListQueues, ListDeadLetterSourceQueues): at most 1,000 results per page
MAX_BATCH_BYTES = 1_048_576  # AWS-REC snapshot test_send_message_batch_with_oversized_contents

_SYSTEM_ATTRIBUTES = (
    "SenderId", "SentTimestamp", "ApproximateReceiveCount", "ApproximateFirstReceiveTimestamp",
    "SequenceNumber", "MessageDeduplicationId", "MessageGroupId", "AWSTraceHeader", "DeadLetterQueueSourceArn",
)  # fmt: skip
_BATCH_ID_OK = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")

_model_cache: dict = {}


def _service_model():
    from visguard.errors import need

    # every time, not only the first: botocore may be gone (or made unimportable) after a first client
    need("botocore.session", extra="aws", what="the engine's boto3-shaped client (Engine.client())")
    if "model" not in _model_cache:
        import botocore.session
        from botocore.errorfactory import ClientExceptionsFactory
        from botocore.validate import ParamValidator

        model = botocore.session.get_session().get_service_model("sqs")
        _model_cache["model"] = model
        _model_cache["exceptions"] = ClientExceptionsFactory().create_client_exceptions(model)
        ops = {}
        for name in model.operation_names:
            shape = model.operation_model(name).input_shape
            # the scalar members botocore's validator checks by type only (no length or range limits): a
            # call whose every parameter is one of them, of exactly that type, with the required ones present,
            # passes botocore's validator, so _check skips it (the client's hot path)
            flat = {}
            for k, m in shape.members.items() if shape is not None else ():
                if (
                    m.type_name in ("string", "integer")
                    and "min" not in m.metadata
                    and "max" not in m.metadata
                ):
                    flat[k] = str if m.type_name == "string" else int
            ops[name] = (flat, frozenset(shape.required_members) if shape is not None else frozenset(), shape)
        _model_cache["ops"] = ops
        _model_cache["validator"] = ParamValidator()
    return _model_cache["model"]


# DOC (ReceiveMessage): at most 128 characters, alphanumeric and punctuation !"#$%&'()*+,-./:;<=>?@[\]^_`{|}~
_ATTEMPT_ID_OK = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
)


def _check_attempt_id(value: str) -> None:
    """The error code is AWS's for a bad parameter; the text was never recorded (a best guess)."""
    if not isinstance(value, str) or not 1 <= len(value) <= 128 or not set(value) <= _ATTEMPT_ID_OK:
        raise E.invalid_parameter(
            f"Value {value} for parameter ReceiveRequestAttemptId is invalid. Reason: it must be 1 to 128"
            " alphanumeric or punctuation characters."
        )


def md5_of_attributes(attributes: dict) -> str | None:
    """MD5OfMessageAttributes as SQS computes it: for each attribute in name order, the name, the data type,
    a transport byte (1 string/number, 2 binary) and the value, each length-prefixed (4 bytes, big-endian)."""
    if not attributes:
        return None
    h = hashlib.md5()
    for name in sorted(attributes):
        a = attributes[name]
        dtype = a["DataType"]
        for part in (name, dtype):
            b = part.encode()
            h.update(struct.pack(">I", len(b)) + b)
        if "BinaryValue" in a:
            v = a["BinaryValue"]
            v = v if isinstance(v, bytes | bytearray) else str(v).encode()
            h.update(b"\x02" + struct.pack(">I", len(v)) + v)
        else:
            v = str(a.get("StringValue", "")).encode()
            h.update(b"\x01" + struct.pack(">I", len(v)) + v)
    return h.hexdigest()


class _Meta:
    def __init__(self, region):
        self.region_name = region
        self.endpoint_url = f"https://sqs.{region}.amazonaws.com"
        self.service_model = _service_model()


class EngineClient:
    """boto3.client("sqs") look-alike over an :class:`~visguard.engine.core.Engine`.

    Parameters are checked by botocore's own validator against the service model before anything runs (as
    boto3 does before sending): wrong types, missing or unknown parameters raise ``ParamValidationError``.
    What passes goes to the engine, whose refusals are ``ClientError``s with AWS's codes. ``dispatch(op,
    params)`` is the same call by operation name (the test kit routes real boto3 clients through it).
    """

    _OPS = {
        "CreateQueue": "create_queue", "GetQueueUrl": "get_queue_url", "ListQueues": "list_queues",
        "DeleteQueue": "delete_queue", "GetQueueAttributes": "get_queue_attributes",
        "SetQueueAttributes": "set_queue_attributes", "PurgeQueue": "purge_queue",
        "ListDeadLetterSourceQueues": "list_dead_letter_source_queues", "ListQueueTags": "list_queue_tags",
        "TagQueue": "tag_queue", "UntagQueue": "untag_queue", "SendMessage": "send_message",
        "SendMessageBatch": "send_message_batch", "ReceiveMessage": "receive_message",
        "DeleteMessage": "delete_message", "DeleteMessageBatch": "delete_message_batch",
        "ChangeMessageVisibility": "change_message_visibility",
        "ChangeMessageVisibilityBatch": "change_message_visibility_batch",
    }  # fmt: skip

    def __init__(self, engine, region=None):
        self._eng = engine
        _service_model()
        self.exceptions = _model_cache["exceptions"]
        self.meta = _Meta(region or engine.region)
        self._region = self.meta.region_name
        self._req = itertools.count(1)

    def __getattr__(self, name):
        # the operations the engine does not model (permissions, message move tasks) exist, as on boto3's
        # client, and answer as AWS does for an unsupported action
        model = _service_model()
        for op in model.operation_names:
            if _snake(op) == name:
                return lambda **kw: self._call(op, self._unsupported(op), kw)
        raise AttributeError(name)

    @staticmethod
    def _unsupported(op):
        def fn(**_):
            raise E.SQSError(
                "AWS.SimpleQueueService.UnsupportedOperation",
                f"{op} is not supported by the visguard engine.",
            )

        return fn

    def can_paginate(self, operation_name: str) -> bool:
        """As botocore: ListQueues and ListDeadLetterSourceQueues have paginators."""
        return operation_name in ("list_queues", "list_dead_letter_source_queues")

    def get_paginator(self, operation_name: str):
        """botocore's Paginator over this client, with botocore's paginator model for SQS."""
        import botocore.session
        from botocore.exceptions import OperationNotPageableError
        from botocore.paginate import Paginator

        if not self.can_paginate(operation_name):
            raise OperationNotPageableError(operation_name=operation_name)
        op = "".join(w.capitalize() for w in operation_name.split("_"))
        config = botocore.session.get_session().get_paginator_model("sqs").get_paginator(op)
        return Paginator(getattr(self, operation_name), config, _service_model().operation_model(op))

    def respond(self, op: str, params: dict) -> tuple[int, dict]:
        """Run ``op`` and answer as the service would: (HTTP status, parsed response or error dict)."""
        from botocore.exceptions import ClientError

        try:
            return 200, self.dispatch(op, params)
        except ClientError as e:
            return e.response["ResponseMetadata"]["HTTPStatusCode"], e.response

    def dispatch(self, op: str, params: dict) -> dict:
        """Run operation ``op`` (e.g. "SendMessage") with ``params``: the same as the named method."""
        return (
            getattr(self, self._OPS[op])(**params) if op in self._OPS else getattr(self, _snake(op))(**params)
        )

    # ------------------------------------------------------------------ plumbing
    def _meta(self, status=200):
        n = next(self._req)
        rid = f"{n:08x}-0000-5000-8000-{self._eng.seed & 0xFFFFFFFFFFFF:012x}"
        return {
            "RequestId": rid,
            "HTTPStatusCode": status,
            "HTTPHeaders": {"x-amzn-requestid": rid, "content-type": "application/x-amz-json-1.0"},
            "RetryAttempts": 0,
        }

    def error_response(self, exc: E.SQSError) -> dict:
        """The parsed error dict botocore builds for SQS's JSON protocol (query-compatible codes): ``Error``
        (Code, Message, QueryErrorCode, Type), ``ResponseMetadata``, and for the attribute errors the top-level
        ``message`` (as recorded)."""
        shape = _SHAPE.get(exc.code, exc.code)
        out = {"Error": {"Code": exc.code, "Message": exc.message, "QueryErrorCode": shape, "Type": "Sender"}}
        if exc.code in _MESSAGE_KEY:
            out["message"] = exc.message
        out["ResponseMetadata"] = self._meta(exc.status)
        return out

    def _error(self, exc: E.SQSError, op: str):
        resp = self.error_response(exc)
        cls = self.exceptions.from_code(resp["Error"]["QueryErrorCode"])
        return cls(resp, op)

    def _check(self, op, kwargs):
        from botocore.exceptions import ParamValidationError

        flat, required, shape = _model_cache["ops"][op]
        if required.issubset(kwargs) and all(flat.get(k) is type(v) for k, v in kwargs.items()):
            return
        report = _model_cache["validator"].validate(kwargs, shape)
        if report.has_errors():
            raise ParamValidationError(report=report.generate_report())

    def _call(self, op, fn, kwargs):
        self._check(op, kwargs)
        try:
            out = fn(**kwargs)
        except E.SQSError as exc:
            raise self._error(exc, op) from None
        out["ResponseMetadata"] = self._meta()
        return out

    def _q(self, url):
        return self._eng.get_queue(url, self._region)

    # ------------------------------------------------------------------ queues
    def create_queue(self, **kw):
        return self._call("CreateQueue", self._create_queue, kw)

    def _create_queue(self, QueueName, Attributes=None, tags=None):
        eng = self._eng
        if tags and len(tags) > core.MAX_TAGS:
            raise E.invalid_parameter(f"Too many tags added for queue {QueueName}.")
        existed = QueueName in {q.name for q in eng.queues(self._region)}
        q = eng.create_queue(QueueName, Attributes or {}, strict=True, region=self._region)
        if tags and not existed:
            eng.tag_queue(q, tags)
        return {"QueueUrl": q.url}

    def get_queue_url(self, **kw):
        return self._call("GetQueueUrl", self._get_queue_url, kw)

    def _get_queue_url(self, QueueName, QueueOwnerAWSAccountId=None):
        if QueueOwnerAWSAccountId not in (None, self._eng.account_id):
            raise E.no_such_queue()
        return {"QueueUrl": self._eng.get_queue(QueueName, self._region).url}

    def list_queues(self, **kw):
        return self._call("ListQueues", self._list_queues, kw)

    def _list_queues(self, QueueNamePrefix="", NextToken=None, MaxResults=None):
        urls = [q.url for q in self._eng.queues(self._region) if q.name.startswith(QueueNamePrefix)]
        return self._page(urls, NextToken, MaxResults, "QueueUrls")

    @staticmethod
    def _page(items, token, max_results, key):
        """One page of at most MaxResults (1-1000) items, or 1,000 without MaxResults (DOC); a NextToken only
        when MaxResults was given and more remain (DOC). Tokens are opaque; a foreign one is refused."""
        if max_results is not None and not 1 <= max_results <= MAX_PAGE:
            raise E.invalid_parameter(
                f"Value {max_results} for parameter MaxResults is invalid. Reason: MaxResults must be an integer "
                "between 1 and 1000."
            )
        start = 0 if token is None else _read_token(token)
        end = start + (MAX_PAGE if max_results is None else max_results)
        out = {}
        if items[start:end]:
            out[key] = items[start:end]
        if max_results is not None and end < len(items):
            out["NextToken"] = _make_token(end)
        return out

    def delete_queue(self, **kw):
        return self._call("DeleteQueue", self._delete_queue, kw)

    def _delete_queue(self, QueueUrl):
        self._eng.delete_queue(self._q(QueueUrl))
        return {}

    def get_queue_attributes(self, **kw):
        return self._call("GetQueueAttributes", self._get_queue_attributes, kw)

    def _get_queue_attributes(self, QueueUrl, AttributeNames=None):
        q = self._q(QueueUrl)
        attrs = self._eng.queue_attributes(q)
        names = AttributeNames or []
        if "All" in names:
            return {"Attributes": attrs}
        out = {}
        for n in names:
            if n not in A.KNOWN_QUEUE_ATTRIBUTES and n not in attrs:
                raise E.SQSError("InvalidAttributeName", f"Unknown Attribute {n}.")
            if n in attrs:
                out[n] = attrs[n]
        return {"Attributes": out} if out else {}

    def set_queue_attributes(self, **kw):
        return self._call("SetQueueAttributes", self._set_queue_attributes, kw)

    def _set_queue_attributes(self, QueueUrl, Attributes):
        self._eng.set_attributes(self._q(QueueUrl), Attributes)
        return {}

    def purge_queue(self, **kw):
        return self._call("PurgeQueue", lambda QueueUrl: self._eng.purge_request(self._q(QueueUrl)) or {}, kw)

    def list_dead_letter_source_queues(self, **kw):
        return self._call("ListDeadLetterSourceQueues", self._list_dlq_sources, kw)

    def _list_dlq_sources(self, QueueUrl, NextToken=None, MaxResults=None):
        urls = [s.url for s in self._eng.dead_letter_sources(self._q(QueueUrl))]
        out = self._page(urls, NextToken, MaxResults, "queueUrls")
        out.setdefault("queueUrls", [])
        return out

    def list_queue_tags(self, **kw):
        def tags(QueueUrl):
            t = self._q(QueueUrl).tags
            return {"Tags": dict(t)} if t else {}

        return self._call("ListQueueTags", tags, kw)

    def tag_queue(self, **kw):
        return self._call(
            "TagQueue", lambda QueueUrl, Tags: self._eng.tag_queue(self._q(QueueUrl), Tags) or {}, kw
        )

    def untag_queue(self, **kw):
        return self._call(
            "UntagQueue",
            lambda QueueUrl, TagKeys: self._eng.untag_queue(self._q(QueueUrl), TagKeys) or {},
            kw,
        )

    # ------------------------------------------------------------------ send
    def send_message(self, **kw):
        return self._call("SendMessage", self._send_message, kw)

    def _check_send(self, q, body, mattrs, dedup_id, group_id, batch=False):
        """Everything SendMessage checks before the engine sees the message; -> the message's size in bytes."""
        if body is None or body == "":
            raise E.SQSError("MissingParameter", "The request must contain the parameter MessageBody.")
        A.check_contents(body)
        size = len(body.encode("utf-8", "surrogatepass"))
        if mattrs:
            size += A.check_message_attributes(mattrs)
        if size > q.max_message_size:
            reason = "cannot be validated" if batch else "are invalid"  # AWS-REC test_send_batch_message_size
            raise E.invalid_parameter(
                f"One or more parameters {reason}. Reason: Message must be shorter than {q.max_message_size} bytes."
            )
        if group_id is not None:
            A.check_message_id_param("MessageGroupId", group_id)  # also on standard queues (fair queues)
        if dedup_id is not None:
            if not q.fifo:
                raise E.invalid_parameter(
                    "The request include parameter MessageDeduplicationId which is not valid for this queue type"
                )
            A.check_message_id_param("MessageDeduplicationId", dedup_id)
        return size

    def _send_one(self, q, body, delay, mattrs, sattrs, dedup_id, group_id, batch=False):
        self._check_send(q, body, mattrs, dedup_id, group_id, batch)
        if mattrs:
            mattrs = {k: _binary_as_bytes(v) for k, v in mattrs.items()}
        m = self._eng.send(
            q, body, delay=delay, group_id=group_id, dedup_id=dedup_id, message_attributes=mattrs or None
        )
        out = {"MD5OfMessageBody": _md5(body)}
        if m is None:  # deduplicated: AWS answers with the first message's id
            out["MessageId"] = self._eng.deduplicated_id(q, body, group_id, dedup_id)
        else:
            out["MessageId"] = m.id
            if sattrs and "AWSTraceHeader" in sattrs:
                m.system_attributes = {"AWSTraceHeader": sattrs["AWSTraceHeader"].get("StringValue", "")}
                out["MD5OfMessageSystemAttributes"] = md5_of_attributes(sattrs)
        md5a = md5_of_attributes(mattrs)
        if md5a:
            out["MD5OfMessageAttributes"] = md5a
        if q.fifo:
            out["SequenceNumber"] = f"{(m.sequence_number if m else 0):020d}"
        return out

    def _send_message(self, QueueUrl, MessageBody, DelaySeconds=None, MessageAttributes=None,
                      MessageSystemAttributes=None, MessageDeduplicationId=None, MessageGroupId=None):  # fmt: skip
        q = self._q(QueueUrl)
        return self._send_one(q, MessageBody, DelaySeconds, MessageAttributes, MessageSystemAttributes,
                              MessageDeduplicationId, MessageGroupId)  # fmt: skip

    def send_message_batch(self, **kw):
        return self._call("SendMessageBatch", self._send_message_batch, kw)

    def _batch(self, q, entries, kind, one):
        """Common batch handling: request-level checks, then one result per entry."""
        if not entries:
            raise E.SQSError(
                "AWS.SimpleQueueService.EmptyBatchRequest",
                f"There should be at least one {kind}RequestEntry in the request.",
            )
        if len(entries) > 10:
            raise E.SQSError(
                "AWS.SimpleQueueService.TooManyEntriesInBatchRequest",
                f"Maximum number of entries per request are 10. You have sent {len(entries)}.",
            )
        seen = set()
        for e in entries:
            i = e.get("Id", "")
            if not i or len(i) > 80 or not set(i) <= _BATCH_ID_OK:
                raise E.SQSError(
                    "AWS.SimpleQueueService.InvalidBatchEntryId",
                    "A batch entry id can only contain alphanumeric characters, hyphens and underscores. "
                    "It can be at most 80 letters long.",
                )
            if i in seen:
                raise E.SQSError("AWS.SimpleQueueService.BatchEntryIdsNotDistinct", f"Id {i} repeated.")
            seen.add(i)
        ok, failed = [], []
        for e in entries:
            try:
                res = one(q, e)
            except E.SQSError as exc:
                failed.append({"Id": e["Id"], "SenderFault": True, "Code": exc.code, "Message": exc.message})
            else:
                ok.append({"Id": e["Id"], **res})
        out = {"Successful": ok}
        if failed:
            out["Failed"] = failed
        return out

    def _send_message_batch(self, QueueUrl, Entries):
        q = self._q(QueueUrl)
        total = sum(_entry_bytes(e) for e in Entries)
        if total > MAX_BATCH_BYTES:
            raise E.SQSError(
                "AWS.SimpleQueueService.BatchRequestTooLong",
                f"Batch requests cannot be longer than {MAX_BATCH_BYTES} bytes. You have sent {total} bytes.",
            )
        if q.fifo and len(Entries) <= 10:
            # AWS-REC snapshots test_send_batch_missing_message_group_id_for_fifo_queue and
            # ..._missing_deduplication_id_...: the whole request fails, InvalidParameterValue
            for e in Entries:
                if e.get("MessageGroupId") is None:
                    raise E.invalid_parameter("The request must contain the parameter MessageGroupId.")
                if e.get("MessageDeduplicationId") is None and not q.content_dedup:
                    raise E.missing_dedup_id()

        def one(q, e):
            return self._send_one(q, e.get("MessageBody"), e.get("DelaySeconds"), e.get("MessageAttributes"),
                                  e.get("MessageSystemAttributes"), e.get("MessageDeduplicationId"),
                                  e.get("MessageGroupId"), batch=True)  # fmt: skip

        return self._batch(q, Entries, "SendMessageBatch", one)

    # ------------------------------------------------------------------ receive
    def receive_message(self, **kw):
        return self._call("ReceiveMessage", self._receive_message, kw)

    def _receive_message(self, QueueUrl, AttributeNames=None, MessageSystemAttributeNames=None,
                         MessageAttributeNames=None, MaxNumberOfMessages=None, VisibilityTimeout=None,
                         WaitTimeSeconds=None, ReceiveRequestAttemptId=None):  # fmt: skip
        eng = self._eng
        q = self._q(QueueUrl)
        n = 1 if MaxNumberOfMessages is None else MaxNumberOfMessages
        if not 1 <= n <= 10:
            raise E.max_messages_range(n)
        if VisibilityTimeout is not None and not 0 <= VisibilityTimeout <= core.MAX_VISIBILITY:
            raise E.visibility_range(VisibilityTimeout)
        wait = q.wait_time if WaitTimeSeconds is None else WaitTimeSeconds
        if not 0 <= wait <= 20:
            raise E.wait_time_range(wait)
        attempt = ReceiveRequestAttemptId if q.fifo else None  # DOC: "applies only to FIFO queues"
        if attempt is not None:
            _check_attempt_id(attempt)
        receipts = None if attempt is None else eng.replay_attempt(q, attempt, VisibilityTimeout)
        if receipts is not None:
            pass  # a retry of an earlier receive: the same messages and receipt handles
        elif wait > 0:
            box = []
            eng.poll(q, box.append, max_messages=n, wait=wait, visibility_timeout=VisibilityTimeout)
            eng.block_until(box.__len__)
            receipts = box[0] if box else []
        else:
            receipts = eng.receive(q, n, visibility_timeout=VisibilityTimeout)
        if attempt is not None:
            eng.remember_attempt(q, attempt, receipts)
        if not receipts:
            return {}
        names = set(AttributeNames or ()) | set(MessageSystemAttributeNames or ())
        return {"Messages": [self._render(r, names, MessageAttributeNames) for r in receipts]}

    def _render(self, r, names, mnames):
        m = r.message
        out = {"MessageId": m.id, "ReceiptHandle": r.handle, "MD5OfBody": _md5(m.body), "Body": m.body}
        if names:
            want = _SYSTEM_ATTRIBUTES if "All" in names else names
            a = {}
            for k in want:
                v = self._sys_attr(m, k)
                if v is not None:
                    a[k] = v
            if a:
                out["Attributes"] = a
        if mnames and m.attributes:
            sel = {k: v for k, v in m.attributes.items() if A.attribute_selected(k, mnames)}
            if sel:
                out["MD5OfMessageAttributes"] = md5_of_attributes(sel)
                out["MessageAttributes"] = sel
        return out

    def _sys_attr(self, m, k):
        if k == "SenderId":
            return self._eng.account_id
        if k == "SentTimestamp":
            return str(int(m.sent_at * 1000))
        if k == "ApproximateReceiveCount":
            return str(m.receive_count)
        if k == "ApproximateFirstReceiveTimestamp":
            return None if m.first_received_at is None else str(int(m.first_received_at * 1000))
        if k == "SequenceNumber":
            return None if m.sequence_number is None else f"{m.sequence_number:020d}"
        if k == "MessageDeduplicationId":
            return m.dedup_id
        if k == "MessageGroupId":
            return m.group_id
        if k == "DeadLetterQueueSourceArn":
            return m.dlq_source_arn
        if k == "AWSTraceHeader":
            return (m.system_attributes or {}).get("AWSTraceHeader")
        return None

    # ------------------------------------------------------------------ delete / change visibility
    def delete_message(self, **kw):
        return self._call("DeleteMessage", self._delete_message, kw)

    def _delete_message(self, QueueUrl, ReceiptHandle):
        self._eng.delete(self._q(QueueUrl), ReceiptHandle)
        return {}

    def delete_message_batch(self, **kw):
        return self._call("DeleteMessageBatch", self._delete_message_batch, kw)

    def _delete_message_batch(self, QueueUrl, Entries):
        eng = self._eng

        def one(q, e):
            h = e["ReceiptHandle"]
            try:
                eng.delete(q, h)
            except E.SQSError as exc:
                if exc.code == "ReceiptHandleIsInvalid" and eng.handle_queue(h) not in (None, q):
                    # a well-formed handle of another queue: the entry text AWS gave for a real handle it
                    # refused in a batch (aws/aws-sdk-java-v2#3101); a malformed one keeps DeleteMessage's text
                    # (AWS's batch answer quoted in getmoto/moto#4765)
                    raise E.SQSError(
                        exc.code, f'The receipt handle "{h}" is not valid for this queue.'
                    ) from None
                raise
            return {}

        return self._batch(self._q(QueueUrl), Entries, "DeleteMessageBatch", one)

    def change_message_visibility(self, **kw):
        return self._call("ChangeMessageVisibility", self._change_visibility, kw)

    def _change_visibility(self, QueueUrl, ReceiptHandle, VisibilityTimeout):
        self._eng.change_visibility(self._q(QueueUrl), ReceiptHandle, VisibilityTimeout)
        return {}

    def change_message_visibility_batch(self, **kw):
        return self._call("ChangeMessageVisibilityBatch", self._change_visibility_batch, kw)

    def _change_visibility_batch(self, QueueUrl, Entries):
        eng = self._eng

        def one(q, e):
            eng.change_visibility(q, e["ReceiptHandle"], e.get("VisibilityTimeout", 0))
            return {}

        return self._batch(self._q(QueueUrl), Entries, "ChangeMessageVisibilityBatch", one)


def _snake(op: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in op).lstrip("_")


def _md5(text: str) -> str:
    return hashlib.md5(text.encode("utf-8", "surrogatepass")).hexdigest()


def _binary_as_bytes(a: dict) -> dict:
    """boto3 sends a str BinaryValue as its UTF-8 bytes and a receive returns bytes: store what AWS holds."""
    v = a.get("BinaryValue")
    if isinstance(v, str):
        return {**a, "BinaryValue": v.encode()}
    if isinstance(v, bytearray):
        return {**a, "BinaryValue": bytes(v)}
    return a


def _entry_bytes(e: dict) -> int:
    """A SendMessageBatch entry's payload size (body and attributes), as the batch limit counts it."""
    n = len(str(e.get("MessageBody", "")).encode("utf-8", "surrogatepass"))
    for k, a in (e.get("MessageAttributes") or {}).items():
        v = a.get("BinaryValue", a.get("StringValue", ""))
        n += (
            len(k)
            + len(str(a.get("DataType", "")))
            + (len(v) if isinstance(v, bytes | bytearray) else len(str(v)))
        )
    return n


_TOKEN_PREFIX = "vgq1:"


def _make_token(index: int) -> str:
    return base64.urlsafe_b64encode(f"{_TOKEN_PREFIX}{index}".encode()).decode()


def _read_token(token: str) -> int:
    """A NextToken this client issued -> the index it stands for; anything else: InvalidParameterValue (the
    code AWS gives a bad parameter value; its text for a bad token is not recorded)."""
    try:
        text = base64.urlsafe_b64decode(token.encode("ascii")).decode()
        if text.startswith(_TOKEN_PREFIX) and text[len(_TOKEN_PREFIX) :].isdigit():
            return int(text[len(_TOKEN_PREFIX) :])
    except (ValueError, binascii.Error, UnicodeError):
        pass
    raise E.invalid_parameter("Invalid NextToken value.")
