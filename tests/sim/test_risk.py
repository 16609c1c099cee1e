"""The fast risk model (visguard.engine.risk): closed forms, the contract API, and where it refuses."""

from __future__ import annotations

import math

import numpy as np
import pytest
from visguard.engine.risk import Profile, estimate, estimate_many, required_visibility

P = Profile.lognormal(p50=5, p99=45)


def test_lognormal_from_p50_p99():
    assert float(P.quantile(0.5)) == pytest.approx(5)
    assert float(P.quantile(0.99)) == pytest.approx(45)
    assert float(P.sf(30)) == pytest.approx(0.0289, abs=5e-5)
    assert Profile.lognormal(3, 3).kind == "fixed"
    with pytest.raises(ValueError):
        Profile.lognormal(10, 5)


def test_no_heartbeat_duplicate_rate_is_p_t_greater_than_vt():
    r = estimate(30, P)
    assert r.applicable and r.reason is None
    assert r.duplicate_rate == pytest.approx(0.0289, abs=5e-5)
    assert r.completed_more_than_once_rate == pytest.approx(r.duplicate_rate)
    assert r.effective_timeout == 30
    assert 29.5 < r.recovery_p99 <= 30  # a crash leaves the message hidden for what is left of 30 s


def test_crash_adds_to_duplicates():
    r = estimate(30, P, crash_before_delete=0.05)
    assert r.duplicate_rate == pytest.approx(0.05 + 0.95 * 0.0289, abs=1e-4)


def test_safe_heartbeat_only_the_12h_cap_remains():
    r = estimate(30, P, heartbeat_interval=10, heartbeat_extend_by=30)
    assert r.duplicate_rate < 1e-12
    assert r.effective_timeout == 43_200
    # a heartbeat that does not outpace its own extension leaves a gap: visible again at h + e
    gap = estimate(30, P, heartbeat_interval=20, heartbeat_extend_by=15)
    assert gap.effective_timeout == 35
    assert gap.duplicate_rate == pytest.approx(float(P.sf(35)))
    # a first heartbeat after the timeout is too late
    late = estimate(30, P, heartbeat_interval=40, heartbeat_extend_by=60)
    assert late.effective_timeout == 30


def test_heartbeat_recovery_is_bounded_by_the_extension():
    video = Profile.lognormal(1800, 21600)
    long_vt = estimate(43_200, video)
    hb = estimate(1800, video, heartbeat_interval=900, heartbeat_extend_by=1800)
    assert long_vt.recovery_p99 > 36_000  # the 12-hour design: a crash waits out most of 12 h
    assert 900 <= hb.recovery_p99 <= 1800  # the heartbeat design: within 30 minutes


def test_dlq_false_positives_need_m_redeliveries():
    r = estimate(10, P, max_receive_count=3)
    expected = float(P.sf(10) * P.sf(20) * P.sf(30))
    assert r.dlq_false_positive_rate == pytest.approx(expected, rel=1e-9)
    assert estimate(10, P, max_receive_count=1).duplicate_rate == 0  # the 2nd receive goes to the DLQ
    poison = estimate(30, P, poison=0.01, max_receive_count=5)
    assert poison.dlq_rate == pytest.approx(0.01 + poison.dlq_false_positive_rate)


def test_lambda_whole_batch_versus_partial_responses():
    prof = Profile.lognormal(1, 5)
    whole = estimate(
        60, prof, function_timeout=30, batch_size=10, transient=0.05, report_batch_item_failures=False
    )
    part = estimate(
        60, prof, function_timeout=30, batch_size=10, transient=0.05, report_batch_item_failures=True
    )
    assert whole.duplicate_rate == pytest.approx(1 - 0.95**10, abs=2e-3)
    assert part.duplicate_rate == pytest.approx(0.05, abs=2e-3)
    # a function timeout kills the batch: every record returns
    slow = estimate(60, Profile.lognormal(10, 100), function_timeout=30, batch_size=10)
    assert slow.duplicate_rate == pytest.approx(float(Profile.lognormal(10, 100).sf(30)), rel=1e-6)
    assert slow.recovery_p99 == 30  # hidden for VT - timeout after the kill


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"visibility_timeout": 50_000}, "outside 0-43,200"),
        ({"arrival_rate": 100, "concurrency": 10}, "queueing"),
        ({"function_timeout": 90}, "cannot be created"),
        ({"function_timeout": 10, "heartbeat_interval": 5, "heartbeat_extend_by": 30}, "never extends"),
        ({"heartbeat_interval": 5}, "both"),
        ({"crash_before_delete": 1.5}, "outside 0-1"),
    ],
)
def test_not_applicable_says_why(kwargs, fragment):
    kw = {"visibility_timeout": 60, "profile": P, **kwargs}
    r = estimate(**kw)
    assert not r.applicable
    assert fragment in r.reason
    assert r.duplicate_rate is None


def test_estimate_many_matches_estimate_row_by_row():
    rng = np.random.default_rng(7)
    n = 200
    vt = rng.integers(1, 600, n).astype(float)
    p50 = rng.uniform(0.5, 30, n)
    p99 = p50 * rng.uniform(1.2, 15, n)
    hb = np.where(rng.random(n) < 0.3, rng.uniform(2, 60, n), np.nan)
    ext = np.where(np.isnan(hb), np.nan, hb * rng.uniform(0.5, 4, n))
    c = rng.choice([0.0, 0.01, 0.1], n)
    m = rng.choice([0, 1, 3, 5], n)
    fto = np.where(np.isnan(hb) & (rng.random(n) < 0.3), np.minimum(vt, rng.uniform(1, 100, n)), np.nan)
    out = estimate_many(vt, p50, p99, heartbeat_interval=hb, heartbeat_extend_by=ext, crash_before_delete=c,
                        max_receive_count=m, function_timeout=fto, batch_size=10, transient=0.02)  # fmt: skip
    for i in range(n):
        one = estimate(
            vt[i], Profile.lognormal(p50[i], p99[i]),
            heartbeat_interval=None if math.isnan(hb[i]) else hb[i],
            heartbeat_extend_by=None if math.isnan(ext[i]) else ext[i],
            crash_before_delete=c[i], max_receive_count=int(m[i]) or None,
            function_timeout=None if math.isnan(fto[i]) else fto[i], batch_size=10, transient=0.02,
        )  # fmt: skip
        assert out["applicable"][i] == one.applicable
        for key in ("duplicate_rate", "completed_more_than_once_rate", "dlq_false_positive_rate", "dlq_rate"):
            assert out[key][i] == pytest.approx(getattr(one, key), rel=1e-6, abs=1e-12), (i, key)
        assert out["recovery_p99"][i] == pytest.approx(one.recovery_p99, rel=1e-3, abs=0.05), i


def test_estimate_many_marks_bad_rows_and_keeps_shape():
    out = estimate_many(np.array([[30.0, 99_999.0]]), np.array([[5.0, 5.0]]), np.array([[45.0, 45.0]]))
    assert out["duplicate_rate"].shape == (1, 2)
    assert out["applicable"].tolist() == [[True, False]]
    assert math.isnan(out["duplicate_rate"][0, 1])
    with pytest.raises(TypeError):
        estimate_many(30, 5, 45, heartbeat=3)


def test_required_visibility():
    vt = required_visibility(P, 0.01)
    assert float(P.sf(vt)) <= 0.01 < float(P.sf(vt - 1))
    assert required_visibility(Profile.fixed(2), 0.001) == 2
    assert required_visibility(Profile.empirical([1, 2, 3, 40]), 0.3) == 3
    with pytest.raises(ValueError):
        required_visibility(P, 0)


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"max_receive_count": 5},
        {"max_receive_count": 2, "crash_before_delete": 0.01, "transient": 0.02, "poison": 0.001},
        {"heartbeat_interval": 10, "heartbeat_extend_by": 30},
        {"heartbeat_interval": 40, "heartbeat_extend_by": 20, "max_receive_count": 3},
        {"function_timeout": 30, "batch_size": 10, "batching_window": 2, "report_batch_item_failures": False},
        {"function_timeout": 30, "max_receive_count": 4},
    ],
)
@pytest.mark.parametrize("vt", [0, 12, 30, 400])
def test_an_estimate_without_recovery_has_the_same_other_figures(vt, kw):
    """``recovery=False`` (the linter's first question: is the duplicate rate over the target?) skips only the
    crash-recovery time: every other figure is exactly the full estimate's."""
    for profile in (P, Profile.fixed(20)):
        full, quick = estimate(vt, profile, **kw), estimate(vt, profile, **kw, recovery=False)
        assert quick.applicable == full.applicable and quick.reason == full.reason
        if not full.applicable:
            continue
        assert quick.recovery_p99 is None and full.recovery_p99 is not None
        assert {**quick.as_dict(), "recovery_p99": full.recovery_p99} == full.as_dict()
