"""Recommend a visibility timeout, heartbeat and maxReceiveCount from a consumer profile and targets.

Pure functions over the fast risk model (visguard.engine.risk); `visguard recommend` (cli_recommend.py) is the
door. The trade-off it navigates is the seed's folklore made numeric: a short timeout duplicates slow
messages, a long one makes a crashed consumer's message wait; a heartbeat breaks the tie (short timeout,
extended while work goes on), up to the 12-hour cap per receipt.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from visguard import facts, policy
from visguard.engine.risk import MAX_VISIBILITY, Profile, RiskEstimate, estimate, required_visibility
from visguard.facts import lambda_guidance_visibility

LAMBDA_MIN_RECEIVES = facts.MIN_RECEIVE_COUNT_LAMBDA  # AWS: maxReceiveCount >= 5 for Lambda event sources
WORKER_MIN_RECEIVES = 3  # a transient failure gets two more tries before the DLQ
HEARTBEAT_FRACTION = 3  # heartbeat every third of the timeout: one missed beat is survivable
LAMBDA_MAX_TIMEOUT = facts.MAX_LAMBDA_TIMEOUT


@dataclass
class Targets:
    max_duplicate_rate: float = 0.001
    max_recovery: float | None = None  # seconds, crash-recovery p99
    max_dlq_false_positive_rate: float = 1e-6
    crash_before_delete: float = 0.0  # expected per-attempt crash probability (for the DLQ sizing)
    transient: float = 0.0


@dataclass
class Consumer:
    profile: Profile
    function_timeout: float | None = None  # set: a Lambda consumer (profile = invocation duration)
    batching_window: float = 0.0
    batch_size: int = 10
    report_batch_item_failures: bool = True

    @property
    def is_lambda(self) -> bool:
        return self.function_timeout is not None


@dataclass
class Recommendation:
    met: bool
    visibility_timeout: int
    heartbeat_interval: int | None
    heartbeat_extend_by: int | None
    max_receive_count: int
    function_timeout: int | None
    expected: RiskEstimate
    advice: str
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        d = dict(self.__dict__)
        d["expected"] = self.expected.as_dict()
        return d


def _est(c: Consumer, t: Targets, vt: float, hb: tuple | None = None, mrc: int | None = None) -> RiskEstimate:
    return estimate(
        vt,
        c.profile,
        heartbeat_interval=hb[0] if hb else None,
        heartbeat_extend_by=hb[1] if hb else None,
        crash_before_delete=t.crash_before_delete,
        transient=t.transient,
        max_receive_count=mrc,
        function_timeout=c.function_timeout,
        batch_size=c.batch_size if c.is_lambda else 1,
        batching_window=c.batching_window,
        report_batch_item_failures=c.report_batch_item_failures,
    )


def _receive_count(c: Consumer, t: Targets, vt: float, hb) -> int:
    floor = LAMBDA_MIN_RECEIVES if c.is_lambda else WORKER_MIN_RECEIVES
    for m in range(floor, 1001):
        r = _est(c, t, vt, hb, m)
        if r.applicable and r.dlq_false_positive_rate <= t.max_dlq_false_positive_rate:
            return m
    return 1000


def _pct(x: float) -> str:
    if x == 0:
        return "0 %"
    if x < 1e-6:
        return "< 0.0001 %"
    return f"{x * 100:.4g} %"


def _dur(s: float) -> str:
    if s >= 3600:
        return f"{s:,.0f} s ({s / 3600:.3g} h)"
    if s >= 120:
        return f"{s:,.0f} s ({s / 60:.3g} min)"
    return f"{s:,.4g} s"


def recommend(consumer: Consumer, targets: Targets) -> Recommendation:
    if not 0 < targets.max_duplicate_rate < 1:
        raise ValueError("the duplicate-rate target must be between 0 and 1")
    if consumer.is_lambda:
        return _recommend_lambda(consumer, targets)
    return _recommend_worker(consumer, targets)


def _recommend_worker(c: Consumer, t: Targets) -> Recommendation:
    d, rmax = t.max_duplicate_rate, t.max_recovery
    notes: list[str] = []
    floor_dup = t.crash_before_delete + (1 - t.crash_before_delete) * t.transient
    if floor_dup > d:
        notes.append(
            f"crashes and transient failures alone redeliver {_pct(floor_dup)} of messages: no timeout can "
            f"bring duplicates under {_pct(d)}; make processing idempotent"
        )
    target_tail = max(d - floor_dup, d * 1e-3)
    vt_plain = required_visibility(c.profile, target_tail)
    if vt_plain <= MAX_VISIBILITY and (rmax is None or vt_plain <= rmax):
        vt = int(max(vt_plain, 1))
        mrc = _receive_count(c, t, vt, None)
        r = _est(c, t, vt, None, mrc)
        met = r.duplicate_rate <= d * (1 + 1e-9) and (rmax is None or r.recovery_p99 <= rmax)
        advice = (
            f"Set VisibilityTimeout to {vt} s and maxReceiveCount to {mrc}; no heartbeat is needed: "
            f"expected duplicates {_pct(r.duplicate_rate)} (target {_pct(d)}), crash recovery p99 "
            f"{_dur(r.recovery_p99)}" + (f" (target {_dur(rmax)})." if rmax else ".")
        )
        return Recommendation(met and floor_dup <= d, vt, None, None, mrc, None, r, advice, notes)

    # A heartbeat: a short timeout keeps crash recovery short, extensions keep slow work hidden -- up to the
    # 12-hour cap counted from the receive (extensions do not reset it), so each extension asks for at most
    # what is left of it (visguard.policy.Heartbeat). Without a recovery target the window is the policy's.
    window = (
        rmax if rmax is not None else (vt_plain if vt_plain <= MAX_VISIBILITY else policy.HEARTBEAT_WINDOW)
    )
    vt = int(min(window, MAX_VISIBILITY))
    vt = max(vt, HEARTBEAT_FRACTION)  # at least one whole second between beats
    interval = max(1, vt // HEARTBEAT_FRACTION)
    hb = (interval, vt)
    plan = policy.Heartbeat(interval, vt)
    mrc = _receive_count(c, t, vt, hb)
    r = _est(c, t, vt, hb, mrc)
    cap_tail = float(c.profile.sf(MAX_VISIBILITY))
    met = r.duplicate_rate <= d * (1 + 1e-9) and (rmax is None or r.recovery_p99 <= rmax * (1 + 1e-9))
    why = (
        f"without a heartbeat the timeout would need {_dur(vt_plain)}"
        + (
            f", above the {_dur(rmax)} recovery target"
            if rmax is not None and vt_plain <= MAX_VISIBILITY
            else ""
        )
        + (", beyond the 12-hour cap" if vt_plain > MAX_VISIBILITY else "")
    )
    advice = (
        f"Set VisibilityTimeout to {vt} s, {plan.text()}, and set maxReceiveCount to {mrc} ({why}): expected "
        "duplicates "
        f"{_pct(r.duplicate_rate)} (target {_pct(d)}), crash recovery p99 {_dur(r.recovery_p99)}"
        + (f" (target {_dur(rmax)})." if rmax else ".")
    )
    if cap_tail > d:
        notes.append(
            f"{_pct(cap_tail)} of attempts run past the 12-hour cap per receipt, which no heartbeat can extend: "
            "split the work into steps (Step Functions) or checkpoint it"
        )
    return Recommendation(met and floor_dup <= d, vt, interval, vt, mrc, None, r, advice, notes)


def _recommend_lambda(c: Consumer, t: Targets) -> Recommendation:
    d, rmax = t.max_duplicate_rate, t.max_recovery
    notes: list[str] = []
    timeout = float(c.function_timeout)
    # Duplicates come from invocations the timeout kills (nothing is deleted) and from failures.
    needed_timeout = required_visibility(c.profile, max(d - t.crash_before_delete - t.transient, d * 1e-3))
    if needed_timeout > timeout:
        if needed_timeout <= LAMBDA_MAX_TIMEOUT:
            notes.append(
                f"the function timeout {timeout:g} s kills {_pct(float(c.profile.sf(timeout)))} of invocations "
                f"(whole batch retried): raise it to {needed_timeout:g} s"
            )
            timeout = needed_timeout
        else:
            notes.append(
                f"{_pct(float(c.profile.sf(LAMBDA_MAX_TIMEOUT)))} of invocations run past Lambda's 900 s maximum: "
                "smaller batches or a worker fleet"
            )
            timeout = LAMBDA_MAX_TIMEOUT
    w = c.batching_window
    vt = int(math.ceil(lambda_guidance_visibility(timeout, w)))
    if rmax is not None and vt > rmax:
        lowest = int(math.ceil(timeout + w))
        if lowest <= rmax:
            notes.append(
                f"AWS recommends at least 6 x timeout + window = {vt} s (room to retry throttled invokes); "
                f"{int(rmax)} s meets the recovery target but use MaximumConcurrency rather than reserved "
                "concurrency so throttles cannot eat receives"
            )
            vt = int(rmax)
        else:
            notes.append(
                f"the visibility timeout must be at least the function timeout + window ({lowest} s): the "
                f"recovery target {int(rmax)} s cannot be met"
            )
            vt = lowest
    vt = min(vt, int(MAX_VISIBILITY))
    c = replace(c, function_timeout=timeout)
    mrc = _receive_count(c, t, vt, None)
    r = _est(c, t, vt, None, mrc)
    met = r.applicable and r.duplicate_rate <= d * (1 + 1e-9) and (rmax is None or r.recovery_p99 <= rmax)
    rbif = "" if c.report_batch_item_failures else " and turn on ReportBatchItemFailures"
    advice = (
        f"Set the function timeout to {timeout:g} s, the queue's VisibilityTimeout to {vt} s and "
        f"maxReceiveCount to {mrc}{rbif}: expected duplicates {_pct(r.duplicate_rate)} (target {_pct(d)}), "
        f"recovery after a failed batch p99 {_dur(r.recovery_p99)}"
        + (f" (target {_dur(rmax)})." if rmax else ".")
    )
    if not c.report_batch_item_failures and c.batch_size > 1:
        notes.append("without ReportBatchItemFailures one failed record returns its whole batch")
    return Recommendation(met, vt, None, None, mrc, int(math.ceil(timeout)), r, advice, notes)


def curve(
    profile: Profile, *, heartbeat=(None, None), function_timeout=None, crash_before_delete=0.0, points=120
):
    """Duplicate rate and crash-recovery p99 against the visibility timeout (the trade-off plot; numpy, which
    matplotlib brings: the text recommendation above runs on the risk model's scalar path, without numpy)."""
    import numpy as np

    lo = max(1.0, float(profile.quantile(0.01)) / 2)
    hi = MAX_VISIBILITY
    vts = np.unique(np.round(np.geomspace(lo, hi, points)))
    h, e = heartbeat if heartbeat else (None, None)
    dup, rec = [], []
    for vt in vts:
        if function_timeout is not None and function_timeout > vt:
            dup.append(np.nan)
            rec.append(np.nan)
            continue
        r = estimate(
            float(vt), profile, heartbeat_interval=h, heartbeat_extend_by=e,
            crash_before_delete=crash_before_delete, function_timeout=function_timeout,
        )  # fmt: skip
        dup.append(r.duplicate_rate if r.applicable else np.nan)
        rec.append(r.recovery_p99 if r.applicable else np.nan)
    return {"visibility_timeout": vts, "duplicate_rate": np.asarray(dup), "recovery_p99": np.asarray(rec)}


def plot(path: str, consumer: Consumer, targets: Targets, rec: Recommendation) -> None:
    """Duplicate rate and recovery time against the visibility timeout, PNG or SVG (matplotlib, Agg)."""
    from visguard.errors import need

    matplotlib = need("matplotlib", extra="plots", what="--plot")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    pts = curve(consumer.profile, function_timeout=consumer.function_timeout,
                crash_before_delete=targets.crash_before_delete)  # fmt: skip
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    x = pts["visibility_timeout"]
    floor = 1e-9
    a1.plot(x, np.maximum(pts["duplicate_rate"], floor), label="no heartbeat")
    if rec.heartbeat_interval:
        a1.axhline(max(rec.expected.duplicate_rate, floor), color="tab:green", ls=":",
                   label=f"heartbeat every {rec.heartbeat_interval} s")  # fmt: skip
    a1.axhline(targets.max_duplicate_rate, color="tab:red", ls="--", label="target")
    a1.axvline(rec.visibility_timeout, color="grey", ls="--", label=f"recommended {rec.visibility_timeout} s")
    a1.set_yscale("log")
    a1.set_ylabel("duplicate rate")
    a1.legend(fontsize=8)
    a2.plot(x, pts["recovery_p99"], label="no heartbeat")
    if rec.heartbeat_interval:
        a2.plot(
            [rec.visibility_timeout],
            [rec.expected.recovery_p99],
            "o",
            color="tab:green",
            label="with heartbeat",
        )
    if targets.max_recovery:
        a2.axhline(targets.max_recovery, color="tab:red", ls="--", label="target")
    a2.axvline(rec.visibility_timeout, color="grey", ls="--")
    a2.set_xscale("log")
    a2.set_yscale("log")
    a2.set_xlabel("visibility timeout (s)")
    a2.set_ylabel("crash recovery p99 (s)")
    a2.legend(fontsize=8)
    fig.suptitle("visguard recommend: " + ("met" if rec.met else "targets NOT met"))
    fig.tight_layout()
    try:
        fig.savefig(path)
    finally:
        plt.close(fig)
