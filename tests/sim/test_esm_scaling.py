"""How an SQS event source mapping scales, standard and provisioned mode (issue 36; reference lambda-sqs-esm.md
behaviours 2, 3, 11 and section 6): the fast model (visguard.engine.risk.EsmScaling) against the reference's
numbers and against the exact simulator (engine/sim_lambda.py), as test_risk_vs_sim.py does for the risk figures.

Stated tolerance for a burst: the simulator's latency p99 lies between the fast model's and the fast model's plus
one invoke duration (the model counts invoke-seconds run; the last invokes still end after that).
"""

from __future__ import annotations

import json

import pytest
from visguard import facts
from visguard.engine.cli_simulate import fast_result
from visguard.engine.risk import EsmScaling
from visguard.engine.scenario import SCHEMA_PATH, from_dict
from visguard.engine.sim import simulate
from visguard.errors import VisguardError


# ------------------------------------------------------------------------------------ the reference's numbers
def test_standard_mode_starts_at_5_adds_300_a_minute_up_to_1250():
    s = EsmScaling.from_facts()
    assert (s.initial, s.added_per_minute, s.ceiling) == (5, 300, 1_250)
    assert s.concurrency(0) == 5 and s.concurrency(60) == 305 and s.concurrency(10_000) == 1_250
    assert s.ramp_seconds == pytest.approx((1_250 - 5) / 300 * 60)  # about 4 minutes since 2023-11-06
    # before 2023-11-06: +60 a minute, "scaling up to a maximum of 1,250 concurrent executions in approximately
    # 20 minutes" (AWS Compute Blog, faster polling scale-up)
    assert EsmScaling(5, 60, 1_250).ramp_seconds / 60 == pytest.approx(20, abs=1)


def test_provisioned_mode_starts_at_10_per_minimum_poller_adds_1000_a_minute_up_to_10_per_maximum_poller():
    p = EsmScaling.from_facts(2, 200)  # the defaults
    assert (p.initial, p.added_per_minute, p.ceiling) == (20, 1_000, 2_000)
    assert EsmScaling.from_facts(None, 2_000).ceiling == 20_000  # launch: "up to 20,000 concurrency"
    assert EsmScaling.from_facts(None, 10_000).ceiling == 100_000  # the 2026 raise to 10,000 pollers
    assert EsmScaling.from_facts(200, 200).ramp_seconds == 0  # min = max: warm at the ceiling
    # "3x faster scaling": 1,000 against 300 a minute, so to 1,250 concurrent invokes about 3.3x sooner
    std, prov = EsmScaling.from_facts(), EsmScaling.from_facts(2, 125)
    assert std.ramp_seconds / prov.ramp_seconds == pytest.approx((1_245 / 300) / (1_230 / 1_000), rel=1e-9)


def test_the_work_integral_and_its_inverse_agree():
    for s in (EsmScaling.from_facts(), EsmScaling.from_facts(3, 40), EsmScaling(100, 1_000, 100)):
        for batches in (1, 50, 400, 20_000):
            t = s.drain_seconds(batches, 5.0)
            assert s.work(t) == pytest.approx(batches * 5.0, rel=1e-9)
    assert EsmScaling.from_facts().drain_seconds(0, 5.0) == 0.0


# ------------------------------------------------------------------------------------ the scenario
def lam_doc(messages, lam, seconds=5):
    return {
        "queue": {"visibility_timeout": 60},
        "workload": {"messages": messages, "arrival": "burst"},
        "consumer": {"type": "lambda", "processing": {"distribution": "fixed", "seconds": seconds},
                     "lambda": {"timeout": 30, "batch_size": 10, **lam}},
        "seed": 3,
    }  # fmt: skip


def provisioned(lo=None, hi=None):
    p = {}
    if lo is not None:
        p["minimum_pollers"] = lo
    if hi is not None:
        p["maximum_pollers"] = hi
    return {"provisioned": p}


def test_the_scenario_takes_the_provisioned_numbers_from_the_facts():
    lam = from_dict(lam_doc(10, provisioned(4, 60))).lam
    assert lam.provisioned and (lam.min_pollers, lam.max_pollers) == (4, 60)
    assert (lam.initial_concurrency, lam.scale_up_per_minute, lam.max_esm_concurrency) == (40, 1_000, 600)
    lam = from_dict(lam_doc(10, provisioned())).lam
    assert (lam.min_pollers, lam.max_pollers) == (facts.DEFAULT_MIN_POLLERS, facts.DEFAULT_MAX_POLLERS)
    lam = from_dict(lam_doc(10, {})).lam
    assert not lam.provisioned and (lam.initial_concurrency, lam.max_esm_concurrency) == (5, 1_250)


def test_the_schema_s_poller_bounds_are_the_facts():
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    text = json.dumps(schema)
    assert '"provisioned"' in text

    def find(node):
        if isinstance(node, dict):
            if "minimum_pollers" in node and "maximum_pollers" in node:
                return node
            for v in node.values():
                if (got := find(v)) is not None:
                    return got
        return None

    props = find(schema)
    lo, hi = props["minimum_pollers"], props["maximum_pollers"]
    assert (lo["minimum"], lo["maximum"], lo["default"]) == (
        facts.MIN_POLLERS.lo,
        facts.MIN_POLLERS.hi,
        facts.DEFAULT_MIN_POLLERS,
    )
    assert (hi["minimum"], hi["maximum"], hi["default"]) == (
        facts.MAX_POLLERS.lo,
        facts.MAX_POLLERS.hi,
        facts.DEFAULT_MAX_POLLERS,
    )


@pytest.mark.parametrize(
    "lam, place",
    [
        (provisioned(50, 20), "consumer.lambda.provisioned"),
        (provisioned(201, None), "consumer.lambda.provisioned.minimum_pollers"),
        (provisioned(None, 10_001), "consumer.lambda.provisioned.maximum_pollers"),
        ({"max_concurrency": 10, **provisioned(2, 5)}, "consumer.lambda.max_concurrency"),
    ],
)
def test_what_lambda_rejects_is_a_one_line_error_naming_the_place(lam, place):
    with pytest.raises(VisguardError) as err:
        from_dict(lam_doc(10, lam), file="p.yaml")
    assert place in str(err.value) and "\n" not in str(err.value)


# ------------------------------------------------------------------------------------ fast model vs simulator
CASES = [
    (4_000, {}),
    (20_000, {}),
    (4_000, provisioned(2, 200)),
    (20_000, provisioned(2, 200)),
    (20_000, provisioned(10, 30)),  # the ceiling (300) binds after 12 s
]


@pytest.mark.parametrize("messages, lam", CASES, ids=[f"{m}-{json.dumps(x)}" for m, x in CASES])
def test_burst_latency_p99_matches_the_simulator(messages, lam):
    sc = from_dict(lam_doc(messages, lam))
    fast, sim = fast_result(sc), simulate(sc)
    assert fast["esm_mode"] == ("provisioned" if lam else "standard")
    assert sim["deleted"] == messages
    assert fast["esm_burst_latency_p99"] <= sim["latency_p99"] <= fast["esm_burst_latency_p99"] + 5.0
    assert sim["max_concurrent_invocations"] <= fast["esm_ceiling"]
    assert sim["max_concurrent_invocations"] >= min(fast["esm_initial_concurrency"], messages / 10)


def test_the_ceiling_is_10_invokes_per_maximum_poller_in_the_simulator():
    sim = simulate(from_dict(lam_doc(20_000, provisioned(10, 30))))
    assert sim["max_concurrent_invocations"] == 10 * 30


def test_provisioned_mode_drains_a_burst_sooner_in_both_models():
    std, prov = from_dict(lam_doc(20_000, {})), from_dict(lam_doc(20_000, provisioned(2, 200)))
    f_std, f_prov = fast_result(std)["esm_burst_latency_p99"], fast_result(prov)["esm_burst_latency_p99"]
    s_std, s_prov = simulate(std)["latency_p99"], simulate(prov)["latency_p99"]
    assert f_prov < f_std and s_prov < s_std
    assert s_std / s_prov == pytest.approx(f_std / f_prov, rel=0.15)
