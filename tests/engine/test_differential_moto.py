"""Differential test: the same operation sequences through moto (in-process, boto3, clock frozen and stepped)
and through ``Engine.client()``.

They must agree on what the evidence file (../shared/reference/sqs-semantics-evidence.md, section 6) marks as
matching real AWS for moto: the timeout starts at the receive, CMV counts from the call and is not kept (#2),
receive with VT 0 (#4), CMV 0 (#5), deleting a deleted message (#7), stale handles accepted for CMV while in
flight under a newer receipt (#10), deleting with an expired handle (#11), stale deletes remove the message
(#12, the engine's default ``stale_delete="delete"``), receive counts and timestamps (#14), lazy redrive with the
count carried over (#15), and the FIFO DelaySeconds rejection text (#19).

Sequences avoid the rules where moto is known to deviate from AWS; each known deviation is asserted in
``test_known_moto_deviations`` (engine = AWS, moto = something else), so the list stays true.

moto's clock: moto.sqs.models reads ``unix_time()`` / ``unix_time_millis()``; both are patched to a virtual
clock that moves with the engine's. Advances are whole seconds + 1 ms so that no poll lands exactly on an
expiry instant (moto treats "now == visible_at" as invisible, AWS/LocalStack/ElasticMQ/engine as visible).
"""

from __future__ import annotations

import json

import boto3
import pytest
from botocore.exceptions import ClientError
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from visguard.engine import Engine

T0 = 1_767_225_600.0
REGION = "us-east-1"


@pytest.fixture
def moto_env(monkeypatch):
    """Yield (boto3 sqs client on moto, clock dict); moto's SQS clock reads clock["t"]."""
    from moto import mock_aws
    from moto.sqs import models as moto_models

    for k, v in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": REGION,
    }.items():
        monkeypatch.setenv(k, v)
    clock = {"t": T0}
    monkeypatch.setattr(moto_models, "unix_time", lambda dt=None: clock["t"])
    monkeypatch.setattr(moto_models, "unix_time_millis", lambda dt=None: clock["t"] * 1000.0)
    return mock_aws, clock


class Pair:
    """The same calls on both sides; results compared by body (message ids and handles differ)."""

    def __init__(self, moto_client, clock):
        self.eng = Engine(start_time=T0)
        self.ours = self.eng.client()
        self.moto = moto_client
        self.clock = clock
        self.handles = []  # (body, moto handle, engine handle)
        self.urls = {}
        self.dlq_bodies = set()  # bodies ever received from the DLQ

    def advance(self, s):
        self.eng.advance(s)
        self.clock["t"] = self.eng.now

    def both(self, op, **kw):
        out = []
        for client, side in ((self.moto, "moto"), (self.ours, "ours")):
            kw2 = {
                k: (v[side] if isinstance(v, dict) and set(v) == {"moto", "ours"} else v)
                for k, v in kw.items()
            }
            try:
                out.append(("ok", getattr(client, op)(**kw2)))
            except ClientError as e:
                out.append(("err", e.response["Error"]["Code"]))
        return out

    def create(self, name, attrs=None):
        (_, a), (_, b) = self.both("create_queue", QueueName=name, Attributes=attrs or {})
        assert a["QueueUrl"] == b["QueueUrl"]
        self.urls[name] = a["QueueUrl"]
        return a["QueueUrl"]

    def receive(self, url, n, vt, as_set=False):
        kw = {"QueueUrl": url, "MaxNumberOfMessages": n, "MessageSystemAttributeNames": ["All"]}
        if vt is not None:
            kw["VisibilityTimeout"] = vt
        (ka, a), (kb, b) = self.both("receive_message", **kw)
        assert ka == kb == "ok"
        ma, mb = a.get("Messages", []), b.get("Messages", [])

        def view(ms):
            keys = ("ApproximateReceiveCount", "SentTimestamp", "ApproximateFirstReceiveTimestamp")
            return [(m["Body"], m["MD5OfBody"], *(m["Attributes"].get(k) for k in keys)) for m in ms]

        if as_set:
            ma, mb = sorted(ma, key=lambda m: m["Body"]), sorted(mb, key=lambda m: m["Body"])
        assert view(ma) == view(mb)
        for x, y in zip(ma, mb, strict=True):
            self.handles.append((x["Body"], x["ReceiptHandle"], y["ReceiptHandle"], url))
            if "/dlq" in url:
                self.dlq_bodies.add(x["Body"])
        return [m["Body"] for m in mb]

    def counts(self, url):
        names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
        (_, a), (_, b) = self.both("get_queue_attributes", QueueUrl=url, AttributeNames=names)
        assert a["Attributes"] == b["Attributes"]


OPS = st.lists(
    st.one_of(
        st.tuples(st.just("send"), st.just(0), st.just(0)),
        st.tuples(st.just("recv"), st.integers(1, 10), st.sampled_from([None, 0, 2, 7])),
        st.tuples(st.just("dlq"), st.integers(1, 10), st.sampled_from([None, 0])),
        st.tuples(st.just("del"), st.integers(0, 99), st.just(0)),
        st.tuples(st.just("cmv"), st.integers(0, 99), st.sampled_from([0, 1, 5])),
        st.tuples(st.just("adv"), st.sampled_from([0, 1, 2, 6, 31]), st.just(0)),
    ),
    min_size=10,
    max_size=35,
)


DIFF = settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # no shrinking: each moto call costs milliseconds
)


def run_sequence(moto_env, ops, fifo):
    """Standard: any sequence. FIFO: one message per group and at most 10 messages, receives of 10 compared
    as sets (moto orders by send, AWS by when a group became ready: ev. #17), deletes only inside the
    handle's window (ev. #13)."""
    mock_aws, clock = moto_env
    clock["t"] = T0
    sfx = ".fifo" if fifo else ""
    extra = {"FifoQueue": "true", "ContentBasedDeduplication": "true"} if fifo else {}
    with mock_aws():
        p = Pair(boto3.client("sqs", region_name=REGION), clock)
        dlq = p.create(f"dlq{sfx}", extra)
        arn = f"arn:aws:sqs:{REGION}:123456789012:dlq{sfx}"
        pol = json.dumps({"deadLetterTargetArn": arn, "maxReceiveCount": 2})
        src = p.create(f"src{sfx}", {**extra, "VisibilityTimeout": "3", "RedrivePolicy": pol})
        sent = 0
        for kind, a, b in ops:
            if kind == "send":
                if fifo and sent >= 10:
                    continue
                kw = {"MessageGroupId": f"g{sent}"} if fifo else {}
                (ka, _), (kb, _) = p.both("send_message", QueueUrl=src, MessageBody=f"m{sent}", **kw)
                assert ka == kb == "ok"
                sent += 1
            elif kind in ("recv", "dlq"):
                p.receive(src if kind == "recv" else dlq, 10 if fifo else a, b, as_set=fifo)
            elif kind in ("del", "cmv") and p.handles:
                body, hm, he, url = p.handles[a % len(p.handles)]
                q = p.eng.get_queue(url)
                live = [m for m in q._live.values() if m.body == body]
                if kind == "cmv":
                    # only where moto = AWS: the message still exists and is in flight (ev. #8, #9 differ)
                    if not live or live[0].visible_at <= p.eng.now:
                        continue
                    rc = p.eng.now - live[0].receipt.received_at
                    if rc + b > 43_000:
                        continue
                    r = p.both("change_message_visibility", QueueUrl=url, ReceiptHandle={"moto": hm, "ours": he},
                               VisibilityTimeout=b)  # fmt: skip
                else:
                    moved = p.dlq_bodies | {m.body for m in p.eng.get_queue(dlq)._live.values()}
                    if url == src and body in moved:
                        continue  # handle of a message moved to the DLQ: AWS unrecorded (moto errors, we say 200)
                    if fifo and live and (live[0].receipt.handle != he or live[0].visible_at <= p.eng.now):
                        continue  # FIFO outside the window: moto deletes, AWS refuses (ev. #13)
                    r = p.both("delete_message", QueueUrl=url, ReceiptHandle={"moto": hm, "ours": he})
                assert [k for k, _ in r] == ["ok", "ok"], r
                if kind == "cmv" and b == 0:
                    p.advance(0.001)  # moto: visible only once now > visible_at (strict), AWS at once
            elif kind == "adv":
                p.advance(a + 0.001)
            p.counts(src)
            p.counts(dlq)


@DIFF
@given(ops=OPS)
def test_standard_sequences_same_answers(moto_env, ops):
    run_sequence(moto_env, ops, fifo=False)


@DIFF
@given(ops=OPS)
def test_fifo_sequences_same_answers(moto_env, ops):
    run_sequence(moto_env, ops, fifo=True)


def test_fifo_delay_rejection_text_matches(moto_env):
    mock_aws, clock = moto_env
    with mock_aws():
        p = Pair(boto3.client("sqs", region_name=REGION), clock)
        url = p.create("f.fifo", {"FifoQueue": "true", "ContentBasedDeduplication": "true"})
        msgs = []
        for client in (p.moto, p.ours):
            with pytest.raises(ClientError) as ei:
                client.send_message(QueueUrl=url, MessageBody="m", MessageGroupId="g", DelaySeconds=2)
            msgs.append((ei.value.response["Error"]["Code"], ei.value.response["Error"]["Message"]))
        assert msgs[0] == msgs[1]


# ------------------------------------------------------------------------------ known moto deviations
def _std(c, vt="30"):
    return c.create_queue(QueueName="q", Attributes={"VisibilityTimeout": vt})["QueueUrl"]


def _recv(c, url, **kw):
    return c.receive_message(QueueUrl=url, **kw).get("Messages", [])


def dev_cap_anchor(c, advance):
    """#3: the 12 h cap counts from the receive (AWS); moto counts from SentTimestamp."""
    url = _std(c)
    c.send_message(QueueUrl=url, MessageBody="m")
    advance(3600)
    h = _recv(c, url)[0]["ReceiptHandle"]
    try:
        c.change_message_visibility(QueueUrl=url, ReceiptHandle=h, VisibilityTimeout=43000)
        return "ok"
    except ClientError as e:
        return e.response["Error"]["Code"]


def dev_malformed_text(c, advance):
    """#6: text of ReceiptHandleIsInvalid for a garbage handle."""
    url = _std(c)
    try:
        c.delete_message(QueueUrl=url, ReceiptHandle="garbage")
    except ClientError as e:
        return e.response["Error"]["Message"]


def dev_cmv_deleted(c, advance):
    """#8: CMV on a deleted message: AWS InvalidParameterValue, moto ReceiptHandleIsInvalid."""
    url = _std(c)
    c.send_message(QueueUrl=url, MessageBody="m")
    h = _recv(c, url)[0]["ReceiptHandle"]
    c.delete_message(QueueUrl=url, ReceiptHandle=h)
    try:
        c.change_message_visibility(QueueUrl=url, ReceiptHandle=h, VisibilityTimeout=5)
    except ClientError as e:
        return e.response["Error"]["Code"]


def dev_cmv_after_expiry(c, advance):
    """#9: CMV after expiry: no effect (AWS per maintainers); moto re-hides the message."""
    url = _std(c, "1")
    c.send_message(QueueUrl=url, MessageBody="m")
    h = _recv(c, url)[0]["ReceiptHandle"]
    advance(2)
    c.change_message_visibility(QueueUrl=url, ReceiptHandle=h, VisibilityTimeout=100)
    return len(_recv(c, url))


def dev_fifo_delete_expired(c, advance):
    """#13: FIFO delete after the window: AWS InvalidParameterValue "...expired."; moto deletes."""
    url = c.create_queue(QueueName="f.fifo", Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true",
                                                           "VisibilityTimeout": "1"})["QueueUrl"]  # fmt: skip
    c.send_message(QueueUrl=url, MessageBody="m", MessageGroupId="g")
    h = _recv(c, url)[0]["ReceiptHandle"]
    advance(2)
    try:
        c.delete_message(QueueUrl=url, ReceiptHandle=h)
        return "deleted"
    except ClientError as e:
        return e.response["Error"]["Code"]


def dev_fifo_prefix(c, advance):
    """#17: FIFO prefix rule: AWS [g2-m1, g1-m1]; moto blocks the whole group: [g2-m1]."""
    url = c.create_queue(
        QueueName="f.fifo", Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"}
    )["QueueUrl"]
    for g, b in (("g1", "g1-m1"), ("g1", "g1-m2")):
        c.send_message(QueueUrl=url, MessageBody=b, MessageGroupId=g)
    got = _recv(c, url, MaxNumberOfMessages=2)
    c.send_message(QueueUrl=url, MessageBody="g2-m1", MessageGroupId="g2")
    c.change_message_visibility(QueueUrl=url, ReceiptHandle=got[0]["ReceiptHandle"], VisibilityTimeout=0)
    return [m["Body"] for m in _recv(c, url, MaxNumberOfMessages=3)]


def dev_dedup_after_delete(c, advance):
    """#18: FIFO dedup outlives delete (AWS); moto delivers the resent message."""
    url = c.create_queue(
        QueueName="f.fifo", Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"}
    )["QueueUrl"]
    c.send_message(QueueUrl=url, MessageBody="m", MessageGroupId="g")
    c.delete_message(QueueUrl=url, ReceiptHandle=_recv(c, url)[0]["ReceiptHandle"])
    c.send_message(QueueUrl=url, MessageBody="m", MessageGroupId="g")
    return len(_recv(c, url))


def dev_fifo_dlq_dedup_id(c, advance):
    """#16: FIFO -> FIFO DLQ: AWS replaces the dedup id with the MessageId; moto keeps the original."""
    fifo = {"FifoQueue": "true"}
    c.create_queue(QueueName="d.fifo", Attributes=fifo)
    pol = json.dumps(
        {"deadLetterTargetArn": f"arn:aws:sqs:{REGION}:123456789012:d.fifo", "maxReceiveCount": 1}
    )
    url = c.create_queue(
        QueueName="s.fifo", Attributes={**fifo, "VisibilityTimeout": "0", "RedrivePolicy": pol}
    )["QueueUrl"]
    c.send_message(QueueUrl=url, MessageBody="m", MessageGroupId="g", MessageDeduplicationId="orig")
    _recv(c, url)
    _recv(c, url)
    d = c.get_queue_url(QueueName="d.fifo")["QueueUrl"]
    m = _recv(c, d, AttributeNames=["All"])[0]
    return "orig" if m["Attributes"]["MessageDeduplicationId"] == "orig" else "message-id"


def dev_wait_time_text(c, advance):
    """#21: WaitTimeSeconds out of range: AWS text 'Must be >= 0 and <= 20, if provided.'"""
    url = _std(c)
    try:
        c.receive_message(QueueUrl=url, WaitTimeSeconds=21)
    except ClientError as e:
        return e.response["Error"]["Message"]


KNOWN_MOTO_DEVIATIONS = [
    (dev_cap_anchor, "ok", "InvalidParameterValue"),
    (dev_malformed_text, 'The input receipt handle "garbage" is not a valid receipt handle.',
     "The input receipt handle is invalid."),
    (dev_cmv_deleted, "InvalidParameterValue", "ReceiptHandleIsInvalid"),
    (dev_cmv_after_expiry, 1, 0),
    (dev_fifo_delete_expired, "InvalidParameterValue", "deleted"),
    (dev_fifo_prefix, ["g2-m1", "g1-m1"], ["g2-m1"]),
    (dev_dedup_after_delete, 0, 1),
    (dev_fifo_dlq_dedup_id, "message-id", "orig"),
    (dev_wait_time_text, "Value 21 for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 20, if provided.",
     None),
]  # fmt: skip


@pytest.mark.parametrize(
    "scenario,aws,moto_answer", KNOWN_MOTO_DEVIATIONS, ids=lambda x: getattr(x, "__name__", "")
)
def test_known_moto_deviations(moto_env, scenario, aws, moto_answer):
    mock_aws, clock = moto_env
    with mock_aws():
        eng = Engine(start_time=T0)

        def advance(s):
            eng.advance(s)
            clock["t"] = eng.now

        assert scenario(eng.client(), advance) == aws
        got = scenario(boto3.client("sqs", region_name=REGION), advance)
        if moto_answer is None:  # text differs; only check that it is not AWS's
            assert got != aws
        else:
            assert got == moto_answer
