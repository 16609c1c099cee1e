"""The fast risk model against the exact simulator over a grid of scenarios.

Stated tolerance: a rate from the risk model must be within 4 binomial standard deviations of the simulated
rate plus 0.2 percentage points (|sim - fast| <= 4 sqrt(fast (1 - fast) / n) + 0.002); crash recovery p99
within 2 %. For Lambda without partial batch responses a failed batch returns and is received again as a whole, so its
records share their fate: n counts batches, not messages, and Lambda DLQ counts (lumps of ten) are left out
unless poison drives them.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from visguard.engine.cli_simulate import fast_result
from visguard.engine.scenario import from_dict, parse_text
from visguard.engine.sim import simulate

LN = {"distribution": "lognormal", "p50": 5, "p99": 45}
N = 8000


def worker(vt, proc=LN, crash=0.0, hb=None, mrc=None, transient=0.0):
    consumer = {"concurrency": 300, "processing": proc,
                "failures": {"crash_before_delete": crash, "transient": transient}}  # fmt: skip
    if hb:
        consumer["heartbeat"] = {"interval": hb[0], "extend_by": hb[1]}
    queue = {"visibility_timeout": vt, **({"max_receive_count": mrc} if mrc else {})}
    return {"queue": queue, "workload": {"messages": N, "arrival_rate": 10}, "consumer": consumer, "seed": 5}


def lam(rbif, failures, mrc=None, timeout=30, batch=10):
    return {
        "queue": {"visibility_timeout": 60, **({"max_receive_count": mrc} if mrc else {})},
        "workload": {"messages": N, "arrival": "burst"},
        "consumer": {"type": "lambda", "processing": {"distribution": "lognormal", "p50": 2, "p99": 20},
                     "failures": failures,
                     "lambda": {"timeout": timeout, "batch_size": batch, "report_batch_item_failures": rbif}},
        "seed": 5,
    }  # fmt: skip


GRID = {
    "vt30-no-heartbeat": worker(30),
    "vt10-mrc3": worker(10, mrc=3),
    "vt10-mrc2": worker(10, mrc=2),
    "vt60-crash5%": worker(60, crash=0.05, mrc=3),
    "heartbeat-safe-crash": worker(30, crash=0.05, hb=(10, 30), mrc=3),
    "heartbeat-gap": worker(30, hb=(20, 15), mrc=3),
    "fixed-crash-mrc1": worker(30, proc={"distribution": "fixed", "seconds": 2}, crash=0.1, mrc=1),
    "empirical-transient": worker(
        20,
        proc={"distribution": "empirical", "samples": [1, 2, 3, 5, 8, 13, 21, 34]},
        crash=0.02,
        transient=0.03,
        mrc=4,
    ),  # fmt: skip
    "lambda-whole-batch": lam(False, {"transient": 0.05}),
    "lambda-partial": lam(True, {"transient": 0.05}),
    "lambda-timeouts": lam(True, {}, mrc=3, timeout=10, batch=5),
    "lambda-poison-whole-batch": lam(False, {"poison": 0.01}, mrc=3),
    "order-pipeline-example": {
        **parse_text((Path(__file__).parents[2] / "engine" / "examples" / "order-pipeline.yaml").read_text()),
        "workload": {"messages": 15_000, "arrival_rate": 20},
    },
}


def close(sim: float, fast: float, n: int) -> bool:
    return abs(sim - fast) <= 4 * math.sqrt(max(fast * (1 - fast), 0.0) / n) + 0.002


@pytest.mark.parametrize("name", list(GRID))
def test_fast_model_agrees_with_simulator(name):
    sc = from_dict(GRID[name])
    sim = simulate(sc)
    fast = fast_result(sc)
    assert fast["applicable"], fast["reason"]
    n = msgs = sim["messages"]
    if sc.is_lambda and not sc.lam.report_batch_item_failures:
        n //= sc.lam.batch_size
    assert close(sim["duplicate_rate"], fast["duplicate_rate"], n), (
        sim["duplicate_rate"],
        fast["duplicate_rate"],
    )
    assert close(sim["completed_more_than_once_rate"], fast["completed_more_than_once_rate"], n)
    if not sc.is_lambda or sc.poison:
        assert close(sim["dlq_false_positives"] / msgs, fast["dlq_false_positive_rate"], n)
        assert close(sim["dlq_messages"] / msgs, fast["dlq_rate"], n)
    if sim["recovery_p99"] is not None:
        assert sim["recovery_p99"] == pytest.approx(fast["recovery_p99"], rel=0.02)


def test_fast_model_refuses_when_consumers_queue():
    doc = worker(30)
    doc["workload"]["arrival_rate"] = 100  # 300 workers, 7.8 s mean: 260 % busy
    fast = fast_result(from_dict(doc))
    assert not fast["applicable"]
    assert "queueing" in fast["reason"]
    assert fast["duplicate_rate"] is None


def test_fast_model_refuses_throttled_lambda():
    doc = lam(True, {})
    doc["consumer"]["lambda"]["reserved_concurrency"] = 2
    fast = fast_result(from_dict(doc))
    assert not fast["applicable"] and "throttl" in fast["reason"]
