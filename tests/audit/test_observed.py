"""Observed redelivery (issue 27 §1): VG042 over the model's CloudWatch figures, and observation before estimate in
the fix-first order."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest
from visguard.audit import build, outputs
from visguard.linter.api import lint_model
from visguard.linter.model import Consumer, LintConfig, Location, Model, Observed, Queue, Redrive

A = "111111111111"


def arn(name):
    return f"arn:aws:sqs:us-east-1:{A}:{name}"


def queue(name="q", observed=None, **kw) -> Queue:
    return Queue(id=arn(name), location=Location("x.jsonl"), name=name, arn=arn(name), source="inventory",
                 observed=observed, **kw)  # fmt: skip


def vg042(*queues, config=None):
    m = Model()
    for q in queues:
        m.add(q)
    return [f for f in lint_model(m, config, only=(queues[0].id,)) if f.rule == "VG042"]


def test_fires_with_rate_volumes_age_and_confidence():
    q = queue(observed=Observed(received=110_000, deleted=100_000, age_oldest=7_200), visibility_timeout=30)
    (f,) = vg042(q)
    assert f.message.startswith("observed redelivery 10 % (110,000 receives vs 100,000 deletes in 14 days")
    assert "oldest message 2.0 h old" in f.message and "confidence high" in f.message
    assert "with no redrive policy" in f.message  # the likely meaning given the settings
    assert f.estimate["observed_redelivery_rate"] == pytest.approx(0.1) and f.estimate["confidence"] == "high"


@pytest.mark.parametrize(
    "obs",
    [
        None,  # no metrics (a template, or collected without --metrics)
        Observed(received=0, deleted=0),  # no traffic
        Observed(received=None, deleted=5),
        Observed(received=100_000, deleted=99_500),  # 0.5 %: below the 1 % default
        Observed(received=105, deleted=100),  # 5 %, but a surplus of 5 messages
        Observed(received=100, deleted=120),  # duplicate deletes: more deletes than receives
    ],
)
def test_quiet_without_traffic_or_material_surplus(obs):
    assert vg042(queue(observed=obs)) == []


def test_threshold_is_a_setting():
    q = queue(observed=Observed(received=100_000, deleted=99_500))
    assert vg042(q, config=LintConfig(settings={"observed_redelivery_rate": 0.001}))


def test_confidence_low_volume_fifo_and_dlq_inflow():
    (low,) = vg042(queue(observed=Observed(received=300, deleted=200)))
    assert "confidence low (only 300 receives)" in low.message
    (fifo,) = vg042(queue("q.fifo", observed=Observed(received=20_000, deleted=10_000), fifo=True))
    assert "confidence medium (FIFO" in fifo.message
    dlq = queue("q-dlq", observed=Observed(age_oldest=3_600, is_dlq=True))
    src = queue(observed=Observed(received=20_000, deleted=10_000),
                redrive=Redrive(dlq.id, dlq.id, 5))  # fmt: skip
    (inflow,) = vg042(src, dlq)
    assert "DLQ inflow: messages that failed 5 times moved to q-dlq" in inflow.message
    assert inflow.estimate["confidence"] == "medium"
    quiet_dlq = queue("q-dlq", observed=Observed(age_oldest=0, is_dlq=True))
    assert "DLQ inflow" not in vg042(src, quiet_dlq)[0].message


def test_dead_letter_queue_read_by_people_is_skipped_unless_it_has_a_consumer():
    dlq_obs = Observed(received=40, deleted=0, is_dlq=True)
    assert vg042(queue("q-dlq", observed=dlq_obs)) == []
    worker = Consumer("redriver", "worker")
    (f,) = vg042(queue("q-dlq", observed=dlq_obs, consumers=[worker]))
    assert f.message.startswith("nothing deleted (40 receives vs 0 deletes")
    assert f.estimate["observed_redelivery_rate"] is None


@pytest.mark.parametrize(
    "consumer, vt, cause",
    [
        (Consumer("m", "lambda", function_id="fn", function_timeout=60), 120, "expiring under function fn"),
        (Consumer("m", "lambda", function_id="fn", function_timeout=10, batch_size=10), 120, "redelivered whole"),
        (Consumer("m", "lambda", function_id="fn", function_timeout=10, batch_size=1), 120, "throttling of function"),
        (Consumer("w", "worker", processing_p99=200.0), 60, "expiring under workers whose processing p99 is 200"),
        (Consumer("w", "worker"), 60, "workers crashing or failing"),
        (Consumer("u", "unknown"), 60, "a consumer visguard does not know"),
    ],
)  # fmt: skip
def test_meaning_from_settings_and_consumers(consumer, vt, cause):
    q = queue(observed=Observed(received=50_000, deleted=40_000), visibility_timeout=vt, consumers=[consumer],
              redrive=Redrive(None, "arn:aws:sqs:us-east-1:1:elsewhere", 5))  # fmt: skip
    (f,) = vg042(q)
    assert cause in f.message and "no redrive policy" not in f.message


def test_audit_rows_carry_the_metrics_into_the_model():
    row = {"account": A, "region": "us-east-1", "arn": arn("q"), "name": "q", "vt": 30.0, "received": 5_000.0,
           "deleted": 2_500.0, "age_oldest": 60.0, "is_dlq": False, "has_redrive": False, "consumers": []}  # fmt: skip
    findings, figures = build.lint_rows([row])
    assert [f["rule"] for f in findings if f["rule"] == "VG042"] == ["VG042"]
    assert figures[0]["observed_rate"] == pytest.approx(1.0)
    assert (figures[0]["received"], figures[0]["deleted"], figures[0]["age_oldest"]) == (5_000, 2_500, 60)
    quiet = {**row, "received": 0.0, "deleted": 0.0}
    findings, figures = build.lint_rows([quiet])
    assert not [f for f in findings if f["rule"] == "VG042"] and figures[0]["observed_rate"] is None


def _finding(queue_name, rule="VG012", severity="warning", estimate=None):
    return {"account": A, "region": "us-east-1", "queue_arn": arn(queue_name), "queue_name": queue_name,
            "rule": rule, "severity": severity, "message": "m", "consumer": None, "fix": "f",
            "estimate": json.dumps(estimate) if estimate else None}  # fmt: skip


def test_observation_beats_estimate_in_fix_first_order():
    rows = [
        _finding("estimated-100", estimate={"duplicate_rate": 1.0}),  # observed 0.08 %: last
        _finding("observed-5"),  # no estimate, observed 5 %
        _finding("estimate-only", estimate={"duplicate_rate": 0.02}),  # no metrics: its estimate ranks it
        _finding("nothing-deleted", rule="VG042", estimate={"observed_redelivery_rate": None}),
        _finding("broken", rule="VG010", severity="error"),
    ]
    t = pa.table({c: pa.array([r[c] for r in rows], pa.string()) for c in rows[0]})
    rates = {
        arn("estimated-100"): (1.0, 0.0008),
        arn("observed-5"): (None, 0.05),
        arn("estimate-only"): (0.02, None),
    }
    p = outputs.prioritise(t, rates).to_pylist()
    assert [r["queue_name"] for r in p] == [
        "broken",
        "nothing-deleted",
        "observed-5",
        "estimate-only",
        "estimated-100",
    ]
    top = {r["queue_name"]: r for r in p}
    assert (
        top["estimated-100"]["observed_redelivery"] == 0.0008
        and top["estimated-100"]["duplicate_rate"] == 1.0
    )
    why = outputs.why(top["estimated-100"], {})
    assert "observed: 0.08 % of deliveries repeated (CloudWatch)" in why and "estimate of 100 %" in why
    assert "engine estimate, no observation" in outputs.why(top["estimate-only"], {})
    assert "none deleted" in outputs.why(top["nothing-deleted"], {})


# ---------------------------------------------------------------------------------------------- ESM metrics
# issue 36, fact-drift row L4: the mapping's own counts as evidence, or how to turn them on
def _lambda(uuid="u-1", metrics=None, esm=None) -> Consumer:
    return Consumer(id=uuid, kind="lambda", location=Location("x.jsonl"), function_id="arn:fn", function_timeout=5,
                    metrics=metrics, settings={"esm_metrics": esm} if esm else {})  # fmt: skip


def test_vg042_quotes_the_mappings_failed_and_deleted_counts():
    esm = {"polled": 110_000.0, "failed": 10_000.0, "deleted": 100_000.0}
    q = queue(observed=Observed(received=110_000, deleted=100_000), visibility_timeout=60)
    q.consumers.append(_lambda(metrics=["EventCount"], esm=esm))
    (f,) = vg042(q)
    assert "mapping u-1 counted 110,000 polled, 10,000 failed to invoke, 100,000 deleted" in f.message
    assert "failed invocations bring messages back" in f.message and "turn them on" not in f.message
    assert f.estimate["esm"] == {"u-1": esm}


def test_vg042_without_failed_invocations_points_at_the_timeout():
    esm = {"polled": 110_000.0, "failed": 0.0, "deleted": 100_000.0}
    q = queue(observed=Observed(received=110_000, deleted=100_000), visibility_timeout=60)
    q.consumers.append(_lambda(metrics=["EventCount"], esm=esm))
    (f,) = vg042(q)
    assert (
        "0 failed to invoke" in f.message and "timeout expiring (or another reader) is likelier" in f.message
    )


@pytest.mark.parametrize("metrics", [None, []])
def test_vg042_says_how_to_turn_the_mappings_metrics_on(metrics):
    q = queue(observed=Observed(received=110_000, deleted=100_000), visibility_timeout=60)
    q.consumers.append(_lambda(metrics=metrics))
    (f,) = vg042(q)
    assert "mapping u-1 publishes no event counts of its own" in f.message
    assert "--uuid u-1 --metrics-config Metrics=EventCount" in f.message and "esm" not in f.estimate


def test_vg042_with_metrics_on_but_no_data_neither_quotes_nor_asks():
    q = queue(observed=Observed(received=110_000, deleted=100_000), visibility_timeout=60)
    q.consumers.append(_lambda(metrics=["EventCount"]))  # on, but CloudWatch had no data points
    (f,) = vg042(q)
    assert "mapping u-1" not in f.message


def test_audit_rows_carry_the_mappings_metrics_into_the_consumer():
    m = {"uuid": "u-1", "function_arn": "arn:fn", "function_found": True, "timeout": 5.0,
         "metrics_config": ["EventCount"], "esm_metrics": {"polled": 10.0, "failed": 1.0, "deleted": None}}  # fmt: skip
    row = {"account": A, "region": "us-east-1", "arn": arn("q"), "name": "q", "vt": 30.0, "consumers": [m]}
    (c,) = build.consumers_of(row)
    assert c.metrics == ["EventCount"] and c.settings["esm_metrics"] == {
        "polled": 10.0,
        "failed": 1.0,
        "deleted": None,
    }
    (c,) = build.consumers_of({**row, "consumers": [{**m, "metrics_config": None, "esm_metrics": None}]})
    assert c.metrics is None and "esm_metrics" not in c.settings
