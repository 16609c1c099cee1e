"""Issue 14 §3: every mechanical fix is machine-checkable. Apply each finding's structured changes to the model,
lint again: the finding is gone and no new error appears; every value a change sets is one the engine (as AWS)
accepts. Over the per-rule fixtures and over generated models."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from visguard.engine import Engine
from visguard.linter.api import lint_model
from visguard.linter.changes import apply, describe, words
from visguard.linter.loaders import load_config
from visguard.linter.model import Consumer, LintConfig, Location, Model, Queue, Redrive, Severity

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "rules"
# every failing case of every input kind: vg010/cfn/fail.yaml, vg010/terraform/fail, vg010/serverless/fail-lift
FAIL_CASES = sorted(p for p in FIXTURES.glob("vg*/*/fail*") if not p.name.endswith(".json"))


def _key(f):
    return (f.rule, f.queue, f.consumer)


def _errors(findings):
    return {_key(f) for f in findings if f.severity == Severity.ERROR}


def engine_accepts(changes) -> None:
    """Every value set on a queue is accepted by the engine's boto3-shaped client on a simulated timeline."""
    eng = Engine()
    sqs = eng.client()
    dlq = sqs.create_queue(QueueName="dlq")["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    for ch in changes:
        if ch.scope != "queue":
            continue
        if ch.field in ("visibility_timeout", "message_retention", "delay"):
            attr = words(ch, "inventory")[0]
            sqs.set_queue_attributes(QueueUrl=url, Attributes={attr: str(ch.value)})
            if ch.field == "visibility_timeout":  # and on a message in flight, from its receive
                sqs.send_message(QueueUrl=url, MessageBody="m")
                eng.advance(900)  # any queue delay has passed
                got = sqs.receive_message(QueueUrl=url, VisibilityTimeout=0).get("Messages", [])
                if got:
                    sqs.change_message_visibility(
                        QueueUrl=url, ReceiptHandle=got[0]["ReceiptHandle"], VisibilityTimeout=int(ch.value)
                    )
        elif ch.field in ("redrive.max_receive_count", "redrive"):
            mrc = ch.value if ch.field == "redrive.max_receive_count" else ch.value["max_receive_count"]
            policy = json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": mrc})
            sqs.set_queue_attributes(QueueUrl=url, Attributes={"RedrivePolicy": policy})
            if ch.field == "redrive":
                sqs.set_queue_attributes(
                    QueueUrl=dlq, Attributes={"MessageRetentionPeriod": str(ch.value["retention"])}
                )


def check_fixes(model: Model, config: LintConfig | None = None) -> int:
    """Apply every finding's changes one finding at a time; returns how many findings carried changes."""
    before = lint_model(model, config)
    errors = _errors(before)
    for f in before:  # no sentence advises a timeout or an extension AWS rejects
        for n in re.findall(
            r"(?:VisibilityTimeout|visibility_timeout_seconds) to (?:at least )?(\d+)|ChangeMessageVisibility\((\d+)\)",
            f.fix or "",
        ):
            assert int(n[0] or n[1]) <= 43_200, (f.rule, f.fix)
    n = 0
    for f in before:
        if not f.changes:
            continue
        n += 1
        after = lint_model(apply(model, f.changes), config)
        # gone: no finding of that rule about that queue/consumer still asks to change the same settings
        fields = {(c.target, c.field) for c in f.changes}
        again = [
            g
            for g in after
            if _key(g) == _key(f) and (not g.changes or fields & {(c.target, c.field) for c in g.changes})
        ]
        assert not again, (f.rule, f.message, f.changes, [g.message for g in again])
        new = _errors(after) - errors
        if f.rule == "VG001":
            # VG001's timeout was unreadable, so VG015 could not judge heartbeats against it; a heartbeat slower
            # than its own extension is wrong at any timeout (not caused by the fix): allowed, nothing else
            by_key = {_key(g): g for g in after}
            new = {k for k in new if not (k[0] == "VG015" and "extension" in by_key[k].message)}
        assert not new, (f.rule, new)
        engine_accepts(f.changes)
        for ch in f.changes:
            assert describe(ch) and words(ch, "terraform")[0]
    return n


MECHANICAL = {"VG001", "VG002", "VG005", "VG010", "VG011", "VG012", "VG013", "VG016", "VG020", "VG021", "VG022",
              "VG024", "VG030", "VG031", "VG032", "VG041"}  # fmt: skip


@pytest.mark.parametrize("case", FAIL_CASES, ids=[str(p.relative_to(FIXTURES)) for p in FAIL_CASES])
def test_fixture_fixes_apply_and_clear_the_finding(case, monkeypatch):
    from visguard.linter import api

    cfg = case.parent / "visguard.yaml"
    config = load_config(str(cfg)) if cfg.exists() else LintConfig()
    models = []
    real = api.lint_model
    monkeypatch.setattr(api, "lint_model", lambda m, *a, **k: models.append((m, a, k)) or real(m, *a, **k))
    api.lint_paths([str(case)], config=config)
    monkeypatch.undo()
    assert models
    rule = case.parents[1].name.upper()
    carried = 0
    for m, _, _ in models:
        carried += check_fixes(m, config)
        mine = [f for f in lint_model(m, config) if f.rule == rule]
        if rule in MECHANICAL and mine:
            assert any(f.changes for f in mine), f"{rule}: no structured change"
    if rule in MECHANICAL:
        assert carried


# --------------------------------------------------------------------------------------- generated models
VT = st.sampled_from([None, 0, 1, 5, 30, 61, 300, 900, 3600, 43_200, 43_201, -3, 2.5, "${Vt}"])
RET = st.sampled_from([None, 30, 60, 3600, 345_600, 1_209_600, 1_209_601])


@st.composite
def models(draw):
    fifo = draw(st.booleans())
    consumers = []
    for i in range(draw(st.integers(0, 2))):
        if draw(st.booleans()):
            consumers.append(
                Consumer(
                    f"Map{i}", "lambda", function_id=f"Fn{i}",
                    function_timeout=draw(st.sampled_from([None, 0, 3, 30, 60, 900, 1000])),
                    batch_size=draw(st.sampled_from([None, 0, 1, 10, 11, 100, 10_001])),
                    batching_window=draw(st.sampled_from([None, 0, 1, 20, 301])),
                    report_batch_item_failures=draw(st.booleans()),
                    reserved_concurrency=draw(st.sampled_from([None, 0, 3, 50])),
                    processing_p50=draw(st.sampled_from([None, 1, 20])),
                    processing_p99=draw(st.sampled_from([None, 10, 200])),
                )
            )  # fmt: skip
        else:
            p50 = draw(st.sampled_from([None, 1, 60, 2400]))
            hb = draw(st.sampled_from([None, (10, 30), (400, 300), (900, 50_000)]))
            consumers.append(
                Consumer(
                    f"Workers{i}", "worker",
                    processing_p50=p50,
                    processing_p99=draw(st.sampled_from([None, 5, 45, 600, 21_600, 50_000])) if p50 else None,
                    heartbeat_interval=hb[0] if hb else None,
                    heartbeat_extend_by=hb[1] if hb else None,
                )
            )  # fmt: skip
    q = Queue(
        "Q", Location("t.yaml", path="Resources/Q"), fifo=fifo, visibility_timeout=draw(VT),
        message_retention=draw(RET), delay=draw(st.sampled_from([None, 0, 901])), consumers=consumers,
    )  # fmt: skip
    m = Model(source_file="t.yaml")
    m.add(q)
    if draw(st.booleans()):
        mrc = draw(st.sampled_from([0, 1, 2, 5, 1001, 3.5]))
        q.redrive = Redrive("D", "D", mrc)
        m.add(Queue("D", Location("t.yaml", path="Resources/D"), fifo=fifo, message_retention=draw(RET)))
    return m


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(model=models())
def test_generated_models_fixes_apply_clear_and_are_accepted(model):
    check_fixes(model)
