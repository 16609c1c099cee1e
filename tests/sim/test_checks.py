"""Issue 3, section 5: the checks that must hold, each run on the exact simulator (the engine core)."""

from __future__ import annotations

import math

P_T_GT_30 = 0.0289  # lognormal p50 5 s / p99 45 s: P(T > 30 s)


def test_no_heartbeat_duplicates_match_p_t_greater_than_vt(sim):
    n = 60_000
    r = sim.run(sim.worker_doc(vt=30, messages=n, rate=10, concurrency=300))
    # "within a few percent": 60,000 messages give a binomial sd of 2.4 % of the rate; allow 8 %.
    assert abs(r["duplicate_rate"] - P_T_GT_30) / P_T_GT_30 < 0.08
    assert abs(r["completed_more_than_once"] / n - P_T_GT_30) / P_T_GT_30 < 0.08
    assert r["processed_more_than_once"] == round(r["duplicate_rate"] * n)
    # every duplicate here is a first attempt still running when the second starts
    assert r["concurrent_duplicates"] == r["processed_more_than_once"]
    assert r["deliveries"] >= n + r["processed_more_than_once"]
    assert r["deleted"] == n and r["left_in_queue"] == 0


def test_heartbeat_every_10s_by_30s_gives_no_duplicates(sim):
    r = sim.run(sim.worker_doc(vt=30, messages=20_000, heartbeat=(10, 30)))
    assert r["processed_more_than_once"] == 0
    assert r["completed_more_than_once"] == 0
    assert r["deliveries"] == 20_000
    # the heartbeat let slow messages finish: their latency goes past the 30 s timeout without a redelivery
    assert r["latency_p99"] > 30


def test_crash_before_delete_rate_and_recovery(sim):
    c, n = 0.05, 20_000
    r = sim.run(sim.worker_doc(vt=30, messages=n, processing={"distribution": "fixed", "seconds": 2},
                       failures={"crash_before_delete": c}))  # fmt: skip
    sd = math.sqrt(c * (1 - c) / n)
    assert abs(r["duplicate_rate"] - c) < 4 * sd + 0.002
    assert r["completed_more_than_once"] == 0  # a crashed attempt never completes
    # the message stays hidden for what is left of its visibility: close to the 30 s timeout
    assert 28.0 <= r["recovery_p99"] <= 30.0
    assert r["crashes_recovered"] > 0.8 * c * n


def test_poison_messages_go_to_the_dlq_and_healthy_ones_do_not(sim):
    f, n = 0.02, 20_000
    r = sim.run(sim.worker_doc(vt=30, messages=n, processing={"distribution": "fixed", "seconds": 2},
                       failures={"poison": f}, max_receive_count=3))  # fmt: skip
    assert abs(r["dlq_messages"] - f * n) < 4 * math.sqrt(f * n) + 1
    assert r["dlq_messages"] == r["poison_messages"]
    assert r["dlq_false_positives"] == 0
    # a poison message is received maxReceiveCount times, then moved (lazily, on the next receive)
    assert r["deliveries"] == n + 2 * r["poison_messages"]


def test_lambda_partial_batch_responses(sim):
    n = 10_000
    base = dict(vt=60, messages=n, failures={"transient": 0.05})
    whole = sim.run(
        sim.lambda_doc(**base, lam={"timeout": 30, "batch_size": 10, "report_batch_item_failures": False})
    )
    part = sim.run(
        sim.lambda_doc(**base, lam={"timeout": 30, "batch_size": 10, "report_batch_item_failures": True})
    )
    # without ReportBatchItemFailures one failed record returns its whole batch: 1 - 0.95^10 = 40 %
    assert abs(whole["duplicate_rate"] - (1 - 0.95**10)) < 0.03
    # with it only the failed records come back: about 5 %
    assert abs(part["duplicate_rate"] - 0.05) < 0.012
    assert whole["completed_more_than_once"] > 0.3 * n  # healthy records redone: side effects twice
    assert part["completed_more_than_once"] == 0


def test_throttled_lambda_sends_healthy_messages_to_the_dlq(sim):
    def throttled(mrc):
        return sim.run(sim.lambda_doc(
            vt=30, max_receive_count=mrc,
            processing={"distribution": "lognormal", "p50": 1, "p99": 3},
            workload={"messages": 3000, "arrival_rate": 10, "bursts": [{"at": 10, "count": 2000}]},
            lam={"timeout": 5, "batch_size": 10, "reserved_concurrency": 5},
        ))  # fmt: skip

    one, five = throttled(1), throttled(5)
    assert one["throttled_invokes"] > 0 and one["dropped_batches"] > 0
    assert one["dlq_false_positives"] > 0  # healthy messages dead-lettered by throttling alone
    assert one["dlq_false_positives"] == one["dlq_messages"]  # no poison in this scenario
    assert five["dlq_false_positives"] * 4 < one["dlq_false_positives"]  # far fewer with maxReceiveCount 5
    # the function never ran above its reserved concurrency
    assert one["max_concurrent_invocations"] <= 5


def test_same_seed_same_numbers_and_other_seed_differs(sim):
    doc = sim.worker_doc(vt=20, messages=3000, failures={"crash_before_delete": 0.02, "transient": 0.01},
                     max_receive_count=3)  # fmt: skip
    a, b = sim.run(doc), sim.run(doc)
    for r in (a, b):
        r.pop("wall_seconds")
    assert a == b
    c = sim.run({**doc, "seed": 2})
    c.pop("wall_seconds")
    assert c != a
