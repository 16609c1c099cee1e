"""The one visibility-need policy: what visibility timeout a queue's consumers need, and the heartbeat plan
when a timeout alone cannot do it (issue 14 §2).

Given a consumer (a Lambda event source mapping, or workers with a processing profile and maybe a heartbeat),
``need`` returns the timeout to set, the heartbeat plan when one is needed, and why. VG011-VG015, VG041,
GuardedQueue's derivation, the recommender and the audit's "required" column all ask this module, so they
agree. It never returns a number AWS rejects: a timeout is within 0-43,200 s, and a heartbeat plan extends by
at most what is left of the 12-hour cap counted from the receive (extensions do not reset it). Past the cap,
the plan says so: split the work (Step Functions, checkpoints).

Pure standard library (no numpy): the linter imports it at no cost. The lognormal tail is computed with
``statistics.NormalDist``, imported on first use (:func:`z99`): ``statistics`` pulls in decimal, fractions and
random, more than a one-template lint otherwise imports. ``tests/linter/rules/test_policy.py`` checks it against
the engine's risk model.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable

from visguard import facts
from visguard.records import Value


@functools.cache
def z99() -> float:
    """z of the 99th percentile of the standard normal, 2.3263...: p99 of a lognormal is exp(mu + z99 sigma)."""
    from statistics import NormalDist

    return NormalDist().inv_cdf(0.99)


def __getattr__(name: str):
    """``policy.Z99`` (= :func:`z99`), computed when first asked for, not when the policy is imported."""
    if name == "Z99":
        return z99()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


CAP = facts.MAX_VISIBILITY
# Defaults of the policy; the linter's rule settings (visguard.yaml) override them.
TARGET_DUPLICATE_RATE = 0.001  # share of messages processed twice that is acceptable (VG012)
HEARTBEAT_MAX_FRACTION = 0.5  # heartbeats at most half a window apart (VG015)
# A heartbeat plan's window when nothing else decides it: seed 002's design, a 30-minute timeout renewed every
# 15 minutes. Short enough that a crashed worker's message returns within half an hour.
HEARTBEAT_WINDOW = 1_800
# Only p99 known (a CloudWatch percentile): the median is taken as a quarter of it, as everywhere in visguard.
ASSUMED_P50_FRACTION = 0.25


class Work(Value):
    """One consumer as the policy sees it (seconds). ``kind`` "lambda" means an event source mapping whose
    profile (if any) is the invocation duration; "worker" anything that calls ReceiveMessage itself."""

    __slots__ = {
        "kind": "worker",
        "function_timeout": None,  # Lambda
        "batching_window": 0.0,  # Lambda
        "p50": None,
        "p99": None,
        "heartbeat_interval": None,  # workers that already call ChangeMessageVisibility
        "heartbeat_extend_by": None,
        "sf": None,  # P(T > t) of a measured (empirical) profile, else lognormal
        # Lambda, a durable function: how long its durable execution can hold a batch (facts.durable_esm_bound)
        "durable_bound": None,
        "label": "",
    }


class Heartbeat(Value):
    """Call ChangeMessageVisibility(extension_at(elapsed)) every ``interval`` seconds while processing."""

    __slots__ = ("interval", "extend_by")

    def extension_at(self, elapsed: float) -> int:
        """The extension to ask for ``elapsed`` seconds after the receive: ``extend_by``, clamped to what is left
        of the 12-hour cap (AWS rejects a total past 43,200 s from the receive). 0: stop, the cap is reached."""
        return int(max(0, min(self.extend_by, math.floor(CAP - elapsed))))

    def calls(self, duration: float) -> list[tuple[float, int]]:
        """(seconds after the receive, extension) of every heartbeat of an attempt lasting ``duration``."""
        out, t = [], float(self.interval)
        while t < duration:
            ext = self.extension_at(t)
            if ext <= 0:
                break
            out.append((t, ext))
            t += self.interval
        return out

    def text(self) -> str:
        return (
            f"call ChangeMessageVisibility({self.extend_by}) every {self.interval} s while processing, asking "
            f"for at most 43200 s minus the time since the receive (the 12-hour cap is not reset)"
        )


class Need(Value):
    """What one consumer (or a queue's consumers) needs.

    ``visibility_timeout``: the queue's VisibilityTimeout for the consumer as described, following ``heartbeat``
    when there is one (always within 0-43,200). ``heartbeat``: the plan a worker should follow (None: the
    timeout alone is enough, or a Lambda). ``without_heartbeat``: the best timeout for a consumer that does not
    heartbeat (what a derivation can set without changing the consumer). ``required``: the raw need without a
    heartbeat (may exceed 43,200; for messages). ``feasible``: False when even a heartbeat up to the cap leaves
    more than the target running past 12 h: split the work. ``why``: one sentence."""

    __slots__ = (
        "visibility_timeout",
        "heartbeat",
        "without_heartbeat",
        "required",
        "feasible",
        "why",
        "basis",  # lambda-guidance | durable-bound | profile | heartbeat | heartbeat-plan | default
    )


def lognormal_sf(p50: float, p99: float) -> Callable[[float], float]:
    """P(T > t) of the lognormal with this median and 99th percentile."""
    mu, sigma = math.log(p50), (math.log(p99) - math.log(p50)) / z99()
    if not sigma > 0:  # p99 == p50 (to float precision): a fixed processing time
        return lambda t: 1.0 if t < p50 else 0.0

    def sf(t: float) -> float:
        if t <= 0:
            return 1.0
        return 0.5 * math.erfc((math.log(t) - mu) / sigma / math.sqrt(2))

    return sf


def required_timeout(sf: Callable[[float], float], target: float, guess: float | None = None) -> float:
    """Smallest whole-second timeout t with P(T > t) <= target (no heartbeat); may exceed 43,200."""
    if not 0 < target < 1:
        raise ValueError(f"target duplicate rate must be between 0 and 1, got {target}")
    lo, hi = 0, max(1, int(guess or 1))
    while sf(hi) > target:
        lo, hi = hi, hi * 2
        if hi > 10**12:
            return math.inf
    while hi - lo > 1:  # sf is non-increasing: bisect for the first whole second that meets the target
        mid = (lo + hi) // 2
        if sf(mid) > target:
            lo = mid
        else:
            hi = mid
    return float(0 if sf(0) <= target else hi)


def _profile(work: Work) -> Callable[[float], float] | None:
    if work.sf is not None:
        return work.sf
    if work.p99 is None or not work.p99 > 0:
        return None
    p50 = work.p50 if work.p50 is not None and work.p50 > 0 else ASSUMED_P50_FRACTION * work.p99
    return lognormal_sf(min(p50, work.p99), work.p99)


def heartbeat_plan(window: float | None = None, fraction: float = HEARTBEAT_MAX_FRACTION) -> Heartbeat:
    """A heartbeat that renews a ``window``-second visibility every ``fraction`` of it (at least 1 s apart)."""
    w = int(min(max(2, math.ceil(window or HEARTBEAT_WINDOW)), CAP))
    return Heartbeat(interval=max(1, int(fraction * w)), extend_by=w)


def need(
    work: Work,
    *,
    target_duplicate_rate: float = TARGET_DUPLICATE_RATE,
    lambda_multiplier: float = facts.LAMBDA_VISIBILITY_MULTIPLIER,
    heartbeat_max_fraction: float = HEARTBEAT_MAX_FRACTION,
) -> Need:
    """The need of one consumer. See the module docstring for the policy."""
    if work.kind == "lambda":
        t = float(
            work.function_timeout if work.function_timeout is not None else facts.DEFAULT_LAMBDA_TIMEOUT
        )
        w = float(work.batching_window or 0.0)
        vt = math.ceil(facts.lambda_guidance_visibility(t, w, lambda_multiplier))
        vt = int(min(vt, CAP))
        why = f"AWS guidance for Lambda: {lambda_multiplier:g} x the {t:g} s function timeout" + (
            f" + the {w:g} s batching window" if w else ""
        )
        d = work.durable_bound
        if d is not None and math.ceil(d + w) > vt:
            # A durable function holds its batch for the whole durable execution. AWS states no multiple for it:
            # the bound itself plus the batching window, never an invented multiple (VG011's rationale).
            vt = int(min(math.ceil(d + w), CAP))
            why = f"the durable execution can hold a batch for {d:g} s" + (
                f" + the {w:g} s batching window" if w else ""
            )
            return Need(vt, None, vt, float(vt), True, why, "durable-bound")
        return Need(vt, None, vt, float(vt), True, why, "lambda-guidance")

    sf = _profile(work)
    hb_i, hb_e = work.heartbeat_interval, work.heartbeat_extend_by
    if hb_i is not None and hb_i > 0:
        # A worker that heartbeats: the queue's timeout only has to outlast the first interval comfortably.
        vt = int(min(max(math.ceil(hb_i / heartbeat_max_fraction), math.ceil(hb_e or 0)), CAP))
        tail = sf(CAP) if sf is not None else 0.0
        feasible = tail <= target_duplicate_rate
        why = f"the first heartbeat comes after {hb_i:g} s: the timeout must outlast it comfortably"
        if not feasible:
            why += f"; {tail:.2%} of attempts run past the 12-hour cap, which no heartbeat can extend"
        plan = Heartbeat(int(max(1, hb_i)), int(min(hb_e if hb_e is not None else vt, CAP)))
        return Need(vt, plan, vt, float(vt), feasible, why, "heartbeat")

    if sf is None:
        d = facts.DEFAULT_VISIBILITY_TIMEOUT
        return Need(d, None, d, float(d), True, "no processing profile: the SQS default", "default")

    required = required_timeout(sf, target_duplicate_rate, guess=work.p99)
    if required <= CAP:
        vt = int(required)
        why = f"{target_duplicate_rate:.2%} of attempts or fewer run longer than {vt} s"
        return Need(vt, None, vt, required, True, why, "profile")
    # Past the cap: a timeout alone cannot do it. A heartbeat keeps the message hidden up to 12 h from the receive.
    plan = heartbeat_plan(HEARTBEAT_WINDOW, heartbeat_max_fraction)
    tail = sf(CAP)
    feasible = tail <= target_duplicate_rate
    need_txt = "more than 12 hours" if math.isinf(required) else f"{required:,.0f} s"
    why = f"without a heartbeat the timeout would need {need_txt}, past the 12-hour cap"
    if not feasible:
        why += (
            f"; {tail:.2%} of attempts run past 12 h, which no heartbeat can extend: split the work into steps "
            "(Step Functions) or checkpoint it"
        )
    return Need(plan.extend_by, plan, int(CAP), required, feasible, why, "heartbeat-plan")


def queue_need(needs: Iterable[Need]) -> Need | None:
    """The need of a queue from its consumers' needs: the largest timeout wins (one queue, one timeout); a
    heartbeat plan and infeasibility carry over from the consumer that set them."""
    needs = list(needs)
    if not needs:
        return None
    if len(needs) == 1:  # one consumer (most queues): its own need, which is what the lines below would copy
        return needs[0]
    top = max(needs, key=lambda n: n.visibility_timeout)
    hb = next((n.heartbeat for n in needs if n.heartbeat is not None), None)
    return Need(
        visibility_timeout=top.visibility_timeout,
        heartbeat=top.heartbeat or hb,
        without_heartbeat=max(n.without_heartbeat for n in needs),
        required=max(n.required for n in needs),
        feasible=all(n.feasible for n in needs),
        why=top.why,
        basis=top.basis,
    )
