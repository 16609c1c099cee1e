"""Simulator behaviours beyond the issue's checks: FIFO groups, batching windows, maximum concurrency,
the legacy effective-visibility rule, horizons, and bookkeeping against the engine's own counts."""

from __future__ import annotations

from visguard.engine.scenario import from_dict
from visguard.engine.sim import build


def fleet_run(doc):
    fleet = build(from_dict(doc))
    return fleet, fleet.run()


def test_fifo_workers_never_hold_two_messages_of_a_group():
    doc = {
        "queue": {"visibility_timeout": 30, "fifo": True, "max_receive_count": 3},
        "workload": {"messages": 1500, "arrival_rate": 20, "message_groups": 5},
        "consumer": {"concurrency": 20, "processing": {"distribution": "lognormal", "p50": 0.5, "p99": 2},
                     "failures": {"transient": 0.05}},
    }  # fmt: skip
    fleet, r = fleet_run(doc)
    # the engine's FIFO prefix rule: one in-flight message per group, so 20 workers find at most 5 at a time
    assert r["max_inflight"] <= 5
    assert r["concurrent_duplicates"] == 0
    assert r["left_in_queue"] == 0 and r["deleted"] + r["dlq_messages"] == 1500


def test_fifo_lambda_concurrency_is_capped_by_groups():
    doc = {
        "queue": {"visibility_timeout": 30, "fifo": True},
        "workload": {"messages": 1500, "arrival_rate": 20, "message_groups": 4},
        "consumer": {"type": "lambda", "processing": {"distribution": "fixed", "seconds": 0.5},
                     "lambda": {"timeout": 5, "batch_size": 10, "report_batch_item_failures": True}},
    }  # fmt: skip
    _, r = fleet_run(doc)
    assert r["max_concurrent_invocations"] <= 4
    assert r["deleted"] == 1500


def test_batching_window_and_maximum_concurrency():
    doc = {
        "queue": {"visibility_timeout": 60},
        "workload": {"messages": 2000, "arrival_rate": 5},
        "consumer": {"type": "lambda", "processing": {"distribution": "fixed", "seconds": 1},
                     "lambda": {"timeout": 5, "batch_size": 50, "batching_window": 4, "max_concurrency": 3}},
    }  # fmt: skip
    _, r = fleet_run(doc)
    assert r["max_concurrent_invocations"] <= 3
    assert r["deliveries"] / r["invocations"] > 5  # the window gathers several records per batch
    assert r["latency_p99"] <= 4 + 1 + 0.5  # window + duration (+ a receive)
    assert r["processed_more_than_once"] == 0


def test_window_eats_visibility_unless_legacy_rule():
    base = {
        "queue": {"visibility_timeout": 30},
        "workload": {"messages": 600, "arrival_rate": 20},
        "consumer": {"type": "lambda", "processing": {"distribution": "fixed", "seconds": 24},
                     "lambda": {"timeout": 25, "batch_size": 100, "batching_window": 10,
                                "max_concurrency": 20}},
    }  # fmt: skip
    _, plain = fleet_run(base)
    assert plain["processed_more_than_once"] > 0  # early records expire while the function still runs
    base["consumer"]["lambda"]["legacy_effective_visibility"] = True  # VT = W + T + 30 (2021-2022 docs)
    _, legacy = fleet_run(base)
    assert legacy["processed_more_than_once"] == 0


def test_poison_without_redrive_stops_at_an_automatic_horizon():
    doc = {
        "queue": {"visibility_timeout": 30},
        "workload": {"messages": 500, "arrival_rate": 5},
        "consumer": {"processing": {"distribution": "fixed", "seconds": 1}, "failures": {"poison": 0.02}},
    }  # fmt: skip
    fleet, r = fleet_run(doc)
    assert r["horizon_reached"]
    assert r["left_in_queue"] == r["poison_messages"] > 0
    c = fleet.q.counts()
    assert c["visible"] + c["inflight"] + c["delayed"] == r["left_in_queue"]


def test_explicit_horizon_and_counts_agree_with_the_engine():
    doc = {
        "queue": {"visibility_timeout": 30, "max_receive_count": 2},
        "workload": {"messages": 5000, "arrival_rate": 10},
        "consumer": {"processing": {"distribution": "lognormal", "p50": 5, "p99": 45},
                     "failures": {"crash_before_delete": 0.05, "poison": 0.01}},
        "simulation": {"horizon": 200},
    }  # fmt: skip
    fleet, r = fleet_run(doc)
    assert r["horizon_reached"] and 199 <= r["virtual_seconds"] <= 200.0001
    c = fleet.q.counts()
    assert r["left_in_queue"] == c["visible"] + c["inflight"] + c["delayed"] > 0
    assert fleet.dlq.counts()["visible"] == r["dlq_messages"]
    # every message sent so far is deleted, dead-lettered or still in the queue
    sent = fleet.next_i
    assert sent == r["deleted"] + r["dlq_messages"] + r["left_in_queue"]


def test_error_backoff_shrinks_the_poller_fleet_without_partial_responses():
    def run(backoff, rbif=False):
        doc = {
            "queue": {"visibility_timeout": 60},
            "workload": {"messages": 6000, "arrival": "burst"},
            "consumer": {"type": "lambda", "processing": {"distribution": "fixed", "seconds": 2},
                         "failures": {"transient": 0.05},
                         "lambda": {"timeout": 10, "batch_size": 10, "error_backoff": backoff,
                                    "report_batch_item_failures": rbif}},
        }  # fmt: skip
        return fleet_run(doc)[1]

    free, backed_off, rbif = run(0), run(5), run(5, rbif=True)
    assert backed_off["max_concurrent_invocations"] < free["max_concurrent_invocations"]
    assert backed_off["virtual_seconds"] > free["virtual_seconds"]  # fewer pollers: the backlog drains slower
    assert rbif["max_concurrent_invocations"] == run(0, rbif=True)["max_concurrent_invocations"]


def test_messages_past_retention_expire_and_the_run_ends():
    doc = {
        "queue": {"visibility_timeout": 30, "message_retention": 60},
        "workload": {"messages": 200, "arrival_rate": 5},
        "consumer": {"concurrency": 2, "processing": {"distribution": "fixed", "seconds": 3}},
    }  # fmt: skip
    _, r = fleet_run(doc)
    assert not r["horizon_reached"] and r["left_in_queue"] == 0
    assert r["expired"] > 0 and r["deleted"] + r["expired"] == r["sent"] == 200
    # two workers at 3 s each: about 2/3 s per message over the 40 s of sending plus the 60 s retention
    assert 60 <= r["deleted"] <= 75


def test_provisioned_mode_starts_warm_and_scales_faster():
    def run(lam):
        doc = {
            "queue": {"visibility_timeout": 60},
            "workload": {"messages": 4000, "arrival": "burst"},
            "consumer": {"type": "lambda", "processing": {"distribution": "fixed", "seconds": 5},
                         "lambda": {"timeout": 10, "batch_size": 10, **lam}},
        }  # fmt: skip
        return fleet_run(doc)[1]

    capped = run({"provisioned": {"minimum_pollers": 3, "maximum_pollers": 4}})
    assert 30 <= capped["max_concurrent_invocations"] <= 40  # 3 warm pollers, at most 10 invokes each of 4
    standard = run({})
    provisioned = run({"provisioned": {"minimum_pollers": 3, "maximum_pollers": 200}})
    assert provisioned["virtual_seconds"] < standard["virtual_seconds"]  # warm start, +1,000 a minute


def test_provisioned_mode_rejects_maximum_concurrency():
    import pytest
    from visguard.errors import VisguardError

    doc = {
        "queue": {"visibility_timeout": 60},
        "workload": {"messages": 10, "arrival": "burst"},
        "consumer": {"type": "lambda", "processing": {"distribution": "fixed", "seconds": 1},
                     "lambda": {"timeout": 10, "max_concurrency": 5, "provisioned": {"minimum_pollers": 2}}},
    }  # fmt: skip
    with pytest.raises(VisguardError) as err:
        from_dict(doc, file="p.yaml")
    assert err.value.place == "consumer.lambda.max_concurrency"
