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

import hashlib
import itertools
import struct

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
}

_SYSTEM_ATTRIBUTES = (
    "SenderId", "SentTimestamp", "ApproximateReceiveCount", "ApproximateFirstReceiveTimestamp",
    "SequenceNumber", "MessageDeduplicationId", "MessageGroupId", "AWSTraceHeader", "DeadLetterQueueSourceArn",
)  # fmt: skip
_BATCH_ID_OK = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")

_model_cache: dict = {}
# top-level parameters whose type botocore's validator checks before sending (Integer / String shapes)
_INT_PARAMS = frozenset(
    {"VisibilityTimeout", "MaxNumberOfMessages", "WaitTimeSeconds", "DelaySeconds", "MaxResults"}
)
_STR_PARAMS = frozenset({"QueueUrl", "QueueName", "MessageBody", "ReceiptHandle", "MessageGroupId",
                         "MessageDeduplicationId", "QueueNamePrefix"})  # fmt: skip


def _service_model():
    if "model" not in _model_cache:
        import botocore.session
        from botocore.errorfactory import ClientExceptionsFactory

        model = botocore.session.get_session().get_service_model("sqs")
        _model_cache["model"] = model
        _model_cache["exceptions"] = ClientExceptionsFactory().create_client_exceptions(model)
        ops = {}
        for name in model.operation_names:
            shape = model.operation_model(name).input_shape
            members = set(shape.members) if shape is not None else set()
            required = set(shape.required_members) if shape is not None else set()
            ops[name] = (members, required)
        _model_cache["ops"] = ops
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
    """boto3.client("sqs") look-alike over an :class:`~visguard.engine.core.Engine`."""

    def __init__(self, engine):
        self._eng = engine
        _service_model()
        self.exceptions = _model_cache["exceptions"]
        self.meta = _Meta(engine.region)
        self._req = itertools.count(1)
        self._purged_at: dict[str, float] = {}
        self._tags: dict[str, dict] = {}

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

    def _error(self, exc: E.SQSError, op: str):
        shape = _SHAPE.get(exc.code, exc.code)
        resp = {
            "Error": {"Code": exc.code, "Message": exc.message, "QueryErrorCode": shape, "Type": "Sender"},
            "ResponseMetadata": self._meta(exc.status),
        }
        cls = self.exceptions.from_code(shape)
        return cls(resp, op)

    def _check(self, op, kwargs):
        from botocore.exceptions import ParamValidationError

        members, required = _model_cache["ops"][op]
        unknown = [k for k in kwargs if k not in members]
        missing = [k for k in required if k not in kwargs]
        badtype = [
            k
            for k in _INT_PARAMS.intersection(kwargs)
            if not isinstance(kwargs[k], int) or isinstance(kwargs[k], bool)
        ]
        badtype += [k for k in _STR_PARAMS.intersection(kwargs) if not isinstance(kwargs[k], str)]
        if unknown or missing or badtype:
            lines = [f'Missing required parameter in input: "{k}"' for k in sorted(missing)]
            lines += [
                f"Invalid type for parameter {k}, value: {kwargs[k]!r}, type: {type(kwargs[k])}, valid types: "
                f"{int if k in _INT_PARAMS else str}"
                for k in badtype
            ]
            lines += [
                f'Unknown parameter in input: "{k}", must be one of: {", ".join(members)}' for k in unknown
            ]
            raise ParamValidationError(report="\n".join(lines))

    def _call(self, op, fn, kwargs):
        self._check(op, kwargs)
        try:
            out = fn(**kwargs)
        except E.SQSError as exc:
            raise self._error(exc, op) from None
        out["ResponseMetadata"] = self._meta()
        return out

    def _q(self, url):
        return self._eng.get_queue(url)

    # ------------------------------------------------------------------ queues
    def create_queue(self, **kw):
        return self._call("CreateQueue", self._create_queue, kw)

    def _create_queue(self, QueueName, Attributes=None, tags=None):
        q = self._eng.create_queue(QueueName, Attributes or {}, strict=True)
        if tags:
            self._tags.setdefault(q.url, {}).update(tags)
        return {"QueueUrl": q.url}

    def get_queue_url(self, **kw):
        return self._call("GetQueueUrl", self._get_queue_url, kw)

    def _get_queue_url(self, QueueName, QueueOwnerAWSAccountId=None):
        if QueueOwnerAWSAccountId not in (None, self._eng.account_id):
            raise E.no_such_queue()
        return {"QueueUrl": self._eng.get_queue(QueueName).url}

    def list_queues(self, **kw):
        return self._call("ListQueues", self._list_queues, kw)

    def _list_queues(self, QueueNamePrefix="", NextToken=None, MaxResults=None):
        urls = [q.url for q in self._eng.queues() if q.name.startswith(QueueNamePrefix)]
        return self._page(urls, NextToken, MaxResults, "QueueUrls")

    @staticmethod
    def _page(items, token, max_results, key):
        start = int(token) if token else 0
        if max_results is not None and not 1 <= max_results <= 1000:
            raise E.invalid_parameter(
                f"Value {max_results} for parameter MaxResults is invalid. Reason: MaxResults must be an integer "
                "between 1 and 1000."
            )
        end = len(items) if max_results is None else start + max_results
        out = {}
        if items[start:end]:
            out[key] = items[start:end]
        if max_results is not None and end < len(items):
            out["NextToken"] = str(end)
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
        attrs = core.queue_attributes(q)
        names = AttributeNames or []
        if "All" in names:
            return {"Attributes": attrs}
        out = {}
        known = set(attrs) | set(core.INT_ATTRIBUTES) | core.STR_ATTRIBUTES
        known |= {"RedrivePolicy", "FifoQueue", "ContentBasedDeduplication", "QueueArn"}
        for n in names:
            if n not in known:
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
        return self._call("PurgeQueue", self._purge_queue, kw)

    def _purge_queue(self, QueueUrl):
        q = self._q(QueueUrl)
        last = self._purged_at.get(q.url)
        if last is not None and self._eng.now - last < 60:
            # DOC: "Only one PurgeQueue operation on a queue is allowed every 60 seconds"
            raise E.SQSError(
                "AWS.SimpleQueueService.PurgeQueueInProgress",
                f"Only one PurgeQueue operation on {q.name} is allowed every 60 seconds.",
            )
        self._purged_at[q.url] = self._eng.now
        self._eng.purge(q)
        return {}

    def list_dead_letter_source_queues(self, **kw):
        return self._call("ListDeadLetterSourceQueues", self._list_dlq_sources, kw)

    def _list_dlq_sources(self, QueueUrl, NextToken=None, MaxResults=None):
        urls = [s.url for s in self._eng.dead_letter_sources(self._q(QueueUrl))]
        out = self._page(urls, NextToken, MaxResults, "queueUrls")
        out.setdefault("queueUrls", [])
        return out

    def list_queue_tags(self, **kw):
        return self._call(
            "ListQueueTags", lambda QueueUrl: {"Tags": dict(self._tags.get(self._q(QueueUrl).url, {}))}, kw
        )

    def tag_queue(self, **kw):
        def tag(QueueUrl, Tags):
            self._tags.setdefault(self._q(QueueUrl).url, {}).update(Tags)
            return {}

        return self._call("TagQueue", tag, kw)

    # ------------------------------------------------------------------ send
    def send_message(self, **kw):
        return self._call("SendMessage", self._send_message, kw)

    def _send_one(self, q, body, delay, mattrs, sattrs, dedup_id, group_id):
        if body is None or body == "":
            raise E.SQSError("MissingParameter", "The request must contain the parameter MessageBody.")
        size = len(body.encode()) + sum(
            len(k) + len(v.get("DataType", "")) + len(str(v.get("StringValue", v.get("BinaryValue", ""))))
            for k, v in (mattrs or {}).items()
        )
        if size > q.max_message_size:
            raise E.invalid_parameter(
                f"One or more parameters are invalid. Reason: Message must be shorter than {q.max_message_size} bytes."
            )
        if not q.fifo and dedup_id is not None:
            # AWS accepts MessageGroupId on standard queues (fair queues, 2025); a deduplication id is rejected
            raise E.invalid_parameter(
                "The request include parameter MessageDeduplicationId which is not valid for this queue type"
            )
        if mattrs:
            for name, a in mattrs.items():
                if "DataType" not in a:
                    raise E.invalid_parameter(
                        f"The message attribute '{name}' must contain a non-empty message attribute type."
                    )
        m = self._eng.send(
            q,
            body,
            delay=delay,
            group_id=group_id if q.fifo else None,
            dedup_id=dedup_id,
            message_attributes=mattrs or None,
        )
        out = {"MD5OfMessageBody": hashlib.md5(body.encode()).hexdigest()}
        if m is None:  # deduplicated: AWS answers with the first message's id
            key = (group_id, dedup_id or hashlib.sha256(body.encode()).hexdigest())
            seen = q._dedup.get(key if q.dedup_scope_group else key[1])
            out["MessageId"] = seen[1]
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

        def one(q, e):
            return self._send_one(q, e.get("MessageBody"), e.get("DelaySeconds"), e.get("MessageAttributes"),
                                  e.get("MessageSystemAttributes"), e.get("MessageDeduplicationId"),
                                  e.get("MessageGroupId"))  # fmt: skip

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
            while not box and eng._step():
                pass
            receipts = box[0] if box else []
        else:
            receipts = eng.receive(q, n, visibility_timeout=VisibilityTimeout)
        if attempt is not None:
            eng.remember_attempt(q, attempt, receipts)
        if not receipts:
            return {}
        names = set(AttributeNames or ()) | set(MessageSystemAttributeNames or ())
        return {"Messages": [self._render(q, r, names, MessageAttributeNames) for r in receipts]}

    def _render(self, q, r, names, mnames):
        m = r.message
        out = {
            "MessageId": m.id,
            "ReceiptHandle": r.handle,
            "MD5OfBody": hashlib.md5(m.body.encode()).hexdigest(),
            "Body": m.body,
        }
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
            sel = {}
            for k, v in m.attributes.items():
                if any(
                    p in ("All", ".*") or p == k or (p.endswith(".*") and k.startswith(p[:-1]))
                    for p in mnames
                ):
                    sel[k] = v
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
                if exc.code == "ReceiptHandleIsInvalid":
                    # real AWS batch entry text (aws/aws-sdk-java-v2#3101)
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
