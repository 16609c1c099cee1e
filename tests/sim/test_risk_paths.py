"""The risk formulas run over two namespaces: numpy for many rows (estimate_many) and math for one
(estimate). Same formulas, so the same numbers: checked here to ~1e-12 relative on every output."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import ndtr
from visguard.engine import risk
from visguard.engine.risk import RESULT_KEYS, Profile, estimate, estimate_many

REL = 1e-11  # relative; below 1e-200 (rates that small are zero in practice) the tails of erfc may differ


def _close(a, b):
    return a == b or abs(a - b) <= REL * max(abs(a), abs(b)) + 1e-200


def test_scalar_ndtr_matches_scipy():
    xs = np.linspace(-12, 12, 4801)
    for x in xs:
        assert _close(risk._s_ndtr(float(x)), float(ndtr(x))), x


def _fleet(n, seed):
    rng = np.random.default_rng(seed)
    vt = rng.integers(1, 3600, n).astype(float)
    p50 = rng.uniform(0.5, 60, n)
    hb = np.where(rng.random(n) < 0.3, rng.uniform(2, 120, n), np.nan)
    fto = np.where(np.isnan(hb) & (rng.random(n) < 0.3), np.minimum(vt, rng.uniform(1, 100, n)), np.nan)
    return {
        "vt": vt,
        "p50": p50,
        "p99": p50 * rng.uniform(1.2, 20, n),
        "heartbeat_interval": hb,
        "heartbeat_extend_by": np.where(np.isnan(hb), np.nan, hb * rng.uniform(0.5, 4, n)),
        "crash_before_delete": rng.choice([0.0, 0.001, 0.1], n),
        "max_receive_count": rng.choice([0, 1, 3, 5, 10], n),
        "transient": rng.choice([0.0, 0.02], n),
        "poison": rng.choice([0.0, 0.01], n),
        "function_timeout": fto,
        "batch_size": rng.choice([1, 10], n),
        "batching_window": np.where(np.isnan(fto), 0.0, rng.choice([0.0, 5.0], n)),
        "report_batch_item_failures": rng.random(n) < 0.5,
    }


def _none(x):
    return None if math.isnan(x) else float(x)


def test_estimate_equals_estimate_many_row_by_row():
    d = _fleet(400, seed=3)
    many = estimate_many(**d)
    assert many["applicable"].sum() > 350
    for i in range(400):
        one = estimate(
            d["vt"][i],
            Profile.lognormal(d["p50"][i], d["p99"][i]),
            heartbeat_interval=_none(d["heartbeat_interval"][i]),
            heartbeat_extend_by=_none(d["heartbeat_extend_by"][i]),
            crash_before_delete=d["crash_before_delete"][i],
            max_receive_count=int(d["max_receive_count"][i]) or None,
            transient=d["transient"][i],
            poison=d["poison"][i],
            function_timeout=_none(d["function_timeout"][i]),
            batch_size=int(d["batch_size"][i]),
            batching_window=d["batching_window"][i],
            report_batch_item_failures=bool(d["report_batch_item_failures"][i]),
        )
        assert one.applicable == many["applicable"][i]
        if one.applicable:
            for k in RESULT_KEYS:
                assert _close(getattr(one, k), float(many[k][i])), (i, k, getattr(one, k), many[k][i])
            assert isinstance(one.duplicate_rate, float)


@pytest.mark.parametrize("profile", [Profile.fixed(12.0), Profile.lognormal(5, 45)])
@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"h": 10.0, "e": 30.0, "c": 0.01},
        {"h": 40.0, "e": 20.0, "m": 4, "p": 0.05},
        {"fto": 20.0, "b": 10, "rbif": False, "f": 0.01, "m": 3, "w": 2.0},
        {"c": 0.2, "m": 8},
    ],
)
def test_core_scalar_and_array_namespaces_agree(profile, kw):
    nan = float("nan")
    row = {
        "h": nan,
        "e": nan,
        "c": 0.0,
        "m": 0,
        "p": 0.0,
        "f": 0.0,
        "fto": nan,
        "b": 1,
        "w": 0.0,
        "rbif": True,
    }
    row.update(kw)
    scalar = risk._core(30.0, profile.model(risk.SCALAR), xp=risk.SCALAR, **row)
    array = risk._core(
        np.array([30.0]),
        profile.model(risk.ARRAY),
        xp=risk.ARRAY,
        **{k: np.array([v]) for k, v in row.items()},
    )
    for k in RESULT_KEYS:
        assert _close(scalar[k], float(array[k][0])), (k, scalar[k], array[k])


def test_empirical_profiles_take_the_numpy_path():
    p = Profile.empirical([1.0, 2.0, 3.0, 40.0, 50.0])
    r = estimate(30, p, crash_before_delete=0.1)
    assert r.applicable
    assert r.duplicate_rate == pytest.approx(0.1 + 0.9 * 0.4)  # crash, or P(T > 30) = 2/5
