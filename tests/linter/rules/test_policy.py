"""Issue 14 §2: one visibility-need policy (visguard.policy) and the four advice bugs it fixes. Every value it
recommends is one AWS (visguard's engine) accepts."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from visguard import facts, policy
from visguard.cli import main
from visguard.engine import Engine
from visguard.engine.risk import Profile, required_visibility
from visguard.linter.api import lint_model
from visguard.linter.model import Consumer, Location, Model, Queue, Redrive

CAP = facts.MAX_VISIBILITY


def replay(vt: int, plan: policy.Heartbeat | None, duration: float) -> int:
    """Receive one message on the engine's boto3-shaped client and follow ``plan`` for ``duration`` seconds of
    virtual time; every call must be accepted. Returns the number of heartbeats sent."""
    eng = Engine()
    sqs = eng.client()
    url = sqs.create_queue(QueueName="q", Attributes={"VisibilityTimeout": str(vt)})["QueueUrl"]
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"VisibilityTimeout": str(vt)})
    sqs.send_message(QueueUrl=url, MessageBody="job")
    handle = sqs.receive_message(QueueUrl=url)["Messages"][0]["ReceiptHandle"]
    calls = plan.calls(duration) if plan else []
    done = 0.0
    for at, ext in calls:
        eng.advance(at - done)
        done = at
        sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=handle, VisibilityTimeout=ext)
    return len(calls)


def test_policy_matches_the_engines_required_visibility():
    import random

    rnd = random.Random(7)
    for _ in range(400):
        p50 = 10 ** rnd.uniform(-2, 4)
        p99 = p50 * 10 ** rnd.uniform(0.01, 2.5)
        d = 10 ** rnd.uniform(-5, -1)
        ours = policy.required_timeout(policy.lognormal_sf(p50, p99), d, guess=p99)
        assert ours == required_visibility(Profile.lognormal(p50, p99), d)


@settings(max_examples=150, deadline=None)
@given(
    p50=st.floats(0.01, 50_000),
    ratio=st.floats(1.0, 200.0),
    target=st.floats(1e-5, 0.2),
    hb=st.one_of(st.none(), st.tuples(st.integers(1, 40_000), st.integers(0, 43_200))),
    lam=st.one_of(st.none(), st.tuples(st.integers(1, 900), st.integers(0, 300))),
)
def test_every_need_is_a_value_aws_accepts(p50, ratio, target, hb, lam):
    if lam:
        work = policy.Work("lambda", function_timeout=lam[0], batching_window=lam[1])
    else:
        work = policy.Work(
            p50=p50,
            p99=p50 * ratio,
            heartbeat_interval=hb[0] if hb else None,
            heartbeat_extend_by=hb[1] if hb else None,
        )
    n = policy.need(work, target_duplicate_rate=target)
    assert (
        n.visibility_timeout in facts.VISIBILITY_TIMEOUT and n.without_heartbeat in facts.VISIBILITY_TIMEOUT
    )
    assert isinstance(n.visibility_timeout, int) and n.why
    if n.heartbeat is not None and n.basis == "heartbeat-plan":
        assert n.heartbeat.interval <= policy.HEARTBEAT_MAX_FRACTION * n.heartbeat.extend_by
        # the plan runs to the cap and the engine accepts every call
        assert replay(n.visibility_timeout, n.heartbeat, 2 * CAP) >= 1
    if n.basis == "profile":
        # at least the p99 when the target is 1 % or less, up to float noise in the tail: p50 * ratio may be
        # 9.000000000000002 for a p99 of 9, whose tail the lognormal gives as 0.01 - 1e-17 at 9 s
        assert n.visibility_timeout >= (work.p99 * (1 - 1e-12) if target <= 0.01 else 0)


def test_bug_recommend_p50_2400_p99_21600_gives_a_plan_the_engine_accepts(capsys):
    code = main(["recommend", "--p50", "2400", "--p99", "21600", "--json"])
    rec = json.loads(capsys.readouterr().out)
    assert code in (0, 2)
    vt, every, ext = rec["visibility_timeout"], rec["heartbeat_interval"], rec["heartbeat_extend_by"]
    assert every and ext and vt <= CAP and ext <= CAP
    assert vt < CAP  # a short window: a crashed worker's message comes back within it, not after 12 h
    plan = policy.Heartbeat(every, ext)
    assert replay(vt, plan, CAP + 3600) > 10
    assert "43200 s minus the time since the receive" in rec["advice"]
    # the old advice, ChangeMessageVisibility(43200) every 14,400 s, is what AWS (and the engine) reject
    from botocore.exceptions import ClientError

    eng = Engine()
    sqs = eng.client()
    url = sqs.create_queue(QueueName="q", Attributes={"VisibilityTimeout": "43200"})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="x")
    h = sqs.receive_message(QueueUrl=url)["Messages"][0]["ReceiptHandle"]
    eng.advance(14_400)
    with pytest.raises(ClientError, match="beyond the limit"):
        sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=h, VisibilityTimeout=43_200)


def test_bug_guarded_queue_40min_6h_without_heartbeat_advises_a_heartbeat_plan():
    from visguard.constructs.settings import QueueSettings, WorkerSpec, build_model, derive_visibility_timeout

    s = QueueSettings(path="App/Encode", workers=(WorkerSpec("App/Encoder", 2400, 21600),))
    vt = derive_visibility_timeout(s)
    assert vt in facts.VISIBILITY_TIMEOUT
    findings = lint_model(build_model(s))
    texts = [f"{f.message} {f.fix}" for f in findings]
    assert texts and not any("at least 44442" in t or "at least 44,442" in t for t in texts)
    for t in texts:  # no number AWS rejects is advised as a timeout or extension
        for n in re.findall(r"(?:VisibilityTimeout to|ChangeMessageVisibility\()\s*(\d+)", t):
            assert int(n) <= CAP
    vg012 = [f for f in findings if f.rule == "VG012"]
    assert vg012 and "heartbeat" in vg012[0].fix and "ChangeMessageVisibility(1800)" in vg012[0].fix
    assert "Step Functions" in vg012[0].fix  # 0.1 % of runs pass 12 h: even a heartbeat cannot cover them


def _q(qid, **kw):
    return Queue(id=qid, location=Location("t.yaml", path=f"Resources/{qid}"), **kw)


def test_bug_vg022_when_both_keep_14_days_shortens_the_source():
    src = _q("Src", message_retention=1_209_600, redrive=Redrive("Dlq", "Dlq", 5))
    m = Model(source_file="t.yaml")
    m.add(src)
    m.add(_q("Dlq", message_retention=1_209_600))
    (f,) = [f for f in lint_model(m) if f.rule == "VG022"]
    assert "shorten Src's MessageRetentionPeriod" in f.fix and "Set the DLQ" not in f.fix
    new = int(re.search(r"e\.g\. to (\d+)", f.fix).group(1))
    src.message_retention = new
    assert not [f for f in lint_model(m) if f.rule == "VG022"]
    # a DLQ below the maximum: raise the DLQ (as before)
    m.queues["Dlq"].message_retention = 345_600
    src.message_retention = 345_600
    (f,) = [f for f in lint_model(m) if f.rule == "VG022"]
    assert "Set Dlq's MessageRetentionPeriod to 1209600" in f.fix


@pytest.mark.parametrize(("fifo", "expect", "never"), [
    (True, "message groups", "five"), (False, "5 concurrent batches", "message groups")])  # fmt: skip
def test_bug_vg033_speaks_of_initial_pollers_only_on_standard_queues(fifo, expect, never):
    c = Consumer("Map", "lambda", function_id="Fn", function_timeout=30, reserved_concurrency=3)
    q = _q("Q.fifo" if fifo else "Q", fifo=fifo, visibility_timeout=300, consumers=[c])
    m = Model(source_file="t.yaml")
    m.add(q)
    (f,) = [f for f in lint_model(m) if f.rule == "VG033"]
    assert expect in f.message and never not in f.message


@pytest.mark.parametrize(
    "work",
    [
        policy.Work("lambda", 30, 2),
        policy.Work("worker", p50=5, p99=45),
        policy.Work("worker", p50=5, p99=45, heartbeat_interval=20),
        policy.Work("worker", p50=600, p99=100_000),  # past the cap: a heartbeat plan, not feasible
        policy.Work("worker"),  # no profile: the default
    ],
)
def test_a_queue_with_one_consumer_needs_what_it_needs(work):
    one = policy.need(work)
    assert policy.queue_need([one]) == one
    # the same as a queue of two identical consumers, which goes through the merge
    assert policy.queue_need([one, one]) == one
