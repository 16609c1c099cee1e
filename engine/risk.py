"""Fast risk model: closed-form, vectorized estimates of what a visibility timeout does to a consumer.

This is what the linter, the CDK constructs and the fleet audit quote ("about 2.9 % of messages will be
processed twice"). It covers the cases a closed form can answer exactly -- no queueing: a free consumer
picks a message up the moment it becomes visible -- and says so (``applicable=False`` and a ``reason``)
instead of guessing anywhere else. tests/sim/test_risk_vs_sim.py checks it against the exact simulator.

The model, per delivery (receipt) of a message, with T the processing time of one attempt:

* Visibility starts at receive and, without heartbeats, ends VT later; ChangeMessageVisibility counts from
  the call and is not additive (SQS ChangeMessageVisibility API reference). So a worker heartbeating every h
  seconds by e seconds keeps the message hidden for good while h < VT and h < e, up to the 12-hour cap per
  receipt (43,200 s, "Total VisibilityTimeout for the message is beyond the limit"). If h >= e, the message
  becomes visible at h + e; if h >= VT, at VT. That moment is the *effective timeout* E.
* An attempt that is still running at E is duplicated: the message is received again (ample consumers) while
  the first attempt keeps going. The first attempt still finishes (its side effects happen) and its stale
  receipt still deletes the message on a standard queue, so "completed more than once" needs the first attempt
  to finish late AND the redelivered one to finish too.
* A crash (probability c per attempt) happens at a uniformly random moment of the attempt; the message stays
  hidden for what is left of its visibility: that is the crash-recovery time.
* The k-th receive after the first happens only if no earlier attempt deleted the message before, so a healthy
  message reaches a DLQ with maxReceiveCount M with probability prod_{i=1..M} [c + (1-c)(p + (1-p) S(iE))].
* Lambda event source mapping (docs/reference/lambda-sqs-esm.md, behaviours 5 and 9): the profile is the
  duration of one invocation (CloudWatch Duration); the function timeout kills the whole batch and nothing is
  deleted; the ESM never extends visibility; records received at the start of a batching window W lose W of
  their timeout (E = VT - W); without ReportBatchItemFailures one failed record returns the whole batch.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from statistics import NormalDist
from types import SimpleNamespace
from typing import Any

from visguard import facts
from visguard.policy import Z99  # noqa: F401 - re-exported: z of the 99th percentile

MAX_VISIBILITY = float(facts.MAX_VISIBILITY)  # 12 h: the cap on a queue, a receive, and the total per receipt
# No queueing: with offered load a = arrival rate x mean processing time (busy consumers; ~Poisson in an
# infinite-server queue), c consumers are rarely all busy while c >= a + 3 sqrt(a) (square-root staffing).
QUEUEING_MARGIN = 3.0


def _too_busy(rate, mean, conc):
    a = rate * mean
    return conc < a + QUEUEING_MARGIN * a**0.5


# ------------------------------------------------------------------------------------ array / scalar ops
# The formulas below are written once over a small namespace ``xp``: ARRAY (numpy, many rows: estimate_many;
# visguard.engine.risk_array, the one module of the model that imports numpy) or SCALAR (math on Python floats,
# one row: estimate, ~100x faster than numpy on 1-element arrays, and all the linter, `recommend` and the CDK
# constructs use: they import no numpy). Row subsets are "index sets": an index array for ARRAY, a bool (the
# one row is in or not) for SCALAR.
_SQRT1_2 = math.sqrt(0.5)
_EXP_MAX = math.log(sys.float_info.max)


def _s_ndtr(x):
    """Standard normal CDF of a float, as scipy's ndtr (cephes) computes it: erf near 0, erfc in the tails,
    and 0 where cephes' erfc underflows (z^2 > ln(DBL_MAX); libm would return a subnormal there)."""
    z = x * _SQRT1_2
    az = -z if z < 0 else z
    if az < _SQRT1_2:
        return 0.5 + 0.5 * math.erf(z)
    y = 0.5 * math.erfc(az) if az * az < _EXP_MAX else 0.0
    return 1.0 - y if z > 0 else y


def _s_ndtri(p):
    """Inverse of the standard normal CDF of a float, with scipy's values at and beyond the ends."""
    if p != p:
        return math.nan
    if p <= 0.0 or p >= 1.0:
        return -math.inf if p <= 0.0 else math.inf if p == 1.0 else math.nan
    return _INV_CDF(p)


_INV_CDF = NormalDist().inv_cdf


SCALAR = SimpleNamespace(
    where=lambda c, a, b: a if c else b,
    maximum=lambda a, b: a if a >= b else b,
    minimum=lambda a, b: a if a <= b else b,
    exp=lambda x: math.exp(x) if x < _EXP_MAX else math.inf,  # numpy gives inf, math raises
    log=math.log, ndtr=_s_ndtr, ndtri=NormalDist().inv_cdf,
    not_=lambda x: not x, isnan=math.isnan, clip=lambda x, lo, hi: lo if x < lo else hi if x > hi else x,
    any=bool,
    rows=bool, size=int, at=lambda a, ix: a, put=lambda out, ix, v: v if ix else out,
    keep=lambda ix, cond: ix and cond, fill=lambda like, v: float(v),
)  # fmt: skip


def _ops(t):
    """The namespace for an argument: SCALAR for a number, ARRAY for anything else (an array)."""
    if isinstance(t, int | float):
        return SCALAR
    from visguard.engine.risk_array import ARRAY

    return ARRAY


def __getattr__(name: str):
    """``ARRAY`` and ``estimate_many`` live with numpy in visguard.engine.risk_array (the ``sim`` extra)."""
    if name in ("ARRAY", "estimate_many"):
        from visguard.engine import risk_array

        return getattr(risk_array, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_DLQ_TERMS = 60  # product terms computed exactly; later ones repeat the last (they are ~c by then)


# --------------------------------------------------------------------------------------------- profiles
@dataclass(frozen=True)
class Profile:
    """Distribution of the processing time of one attempt (seconds)."""

    kind: str  # lognormal | fixed | empirical
    p50: float
    p99: float
    mu: float = 0.0
    sigma: float = 0.0
    samples: Any = field(default=None, repr=False, compare=False)  # sorted numpy array (empirical)

    @classmethod
    def lognormal(cls, p50: float, p99: float) -> Profile:
        if not (p50 > 0 and p99 >= p50 and math.isfinite(p99)):
            raise ValueError(f"lognormal needs 0 < p50 <= p99, got p50={p50} p99={p99}")
        if p99 == p50:
            return cls.fixed(p50)
        mu = math.log(p50)
        return cls("lognormal", float(p50), float(p99), mu, (math.log(p99) - mu) / Z99)

    @classmethod
    def fixed(cls, seconds: float) -> Profile:
        if not (seconds > 0 and math.isfinite(seconds)):
            raise ValueError(f"fixed processing time must be > 0, got {seconds}")
        return cls("fixed", float(seconds), float(seconds), math.log(seconds), 0.0)

    @classmethod
    def empirical(cls, samples) -> Profile:
        """A profile from measured processing times: numpy over its samples (the ``sim`` extra)."""
        from visguard.errors import need

        need("numpy", extra="sim", what="an empirical processing profile (samples)")
        from visguard.engine.risk_array import empirical

        return empirical(cls, samples)

    def model(self, xp=None):
        """The distribution as the risk formulas use it, over namespace ``xp`` (SCALAR by default). An
        empirical profile is its own model (numpy over its samples; ARRAY only)."""
        xp = SCALAR if xp is None else xp
        if self.kind == "lognormal":
            return _LogNormalRows(self.mu, self.sigma, xp)
        if self.kind == "fixed":
            return _FixedRows(self.p50, xp)
        return self

    def _of(self, t):
        """What answers for ``t``: the SCALAR or ARRAY model, or the empirical samples' own functions."""
        if self.kind == "empirical":
            from visguard.engine import risk_array

            return risk_array.Samples(self.samples)
        return self.model(_ops(t))

    # All functions below accept numbers (math, SCALAR) or numpy arrays of t (ARRAY).
    def sf(self, t):
        """P(T > t)."""
        return self._of(t).sf(t)

    def quantile(self, q):
        return self._of(q).quantile(q)

    def mean(self) -> float:
        if self.kind == "lognormal":
            return math.exp(self.mu + self.sigma**2 / 2)
        if self.kind == "fixed":
            return self.p50
        return float(self.samples.mean())

    def slope(self, a):
        """G'(a) = E[1/T; T > a] (G is concave: Newton's method from 0 climbs to the root)."""
        return self._of(a).slope(a)

    def sample(self, rng, n: int):
        """``n`` processing times drawn with numpy generator ``rng`` (the simulator's; same seed, same numbers)."""
        from visguard.engine.risk_array import sample

        return sample(self, rng, n)

    def before(self, a):
        """G(a) = P(U*T < a), U uniform(0,1): the chance a crash at a random moment of an attempt comes
        before time a. G(a) = E[min(1, a/T)] = F(a) + a E[1/T; T > a]."""
        return self._of(a).before(a)

    def rows(self, idx) -> Profile:
        return self

    def before_slope(self, a):
        return self.before(a), self.slope(a)


class _LogNormalRows:
    """Lognormal distributions (one per row for estimate_many, or one), over namespace ``xp``."""

    def __init__(self, mu, sigma, xp=SCALAR):
        self.mu, self.sigma, self.xp = mu, sigma, xp

    def rows(self, idx):
        if isinstance(self.mu, float):
            return self  # one distribution for every row
        xp = self.xp
        return _LogNormalRows(xp.at(self.mu, idx), xp.at(self.sigma, idx), xp)

    # ln(max(t, 1e-300)) keeps t = 0 finite (-690): no warnings, and P(T > 0) = 1, G(0) = 0 still come out.
    def sf(self, t):
        xp = self.xp
        return xp.ndtr((self.mu - xp.log(xp.maximum(t, 1e-300))) / self.sigma)

    def before(self, a):
        return self.before_slope(a)[0]

    def before_slope(self, a):
        """G(a) and G'(a) together (Newton's method needs both; they share ln a and the tail term)."""
        xp, mu, sigma = self.xp, self.mu, self.sigma
        la = xp.log(xp.maximum(a, 1e-300))
        cdf = xp.ndtr((la - mu) / sigma)
        slope = self.slope(a, la)
        return xp.minimum(cdf + xp.maximum(a, 0.0) * slope, 1.0), slope

    def slope(self, a, la=None):
        """G'(a) = E[T^-1 1{T>a}] = exp(-mu + sigma^2/2) * Phi((mu - sigma^2 - ln a) / sigma)."""
        xp, mu, s = self.xp, self.mu, self.sigma
        if la is None:
            la = xp.log(xp.maximum(a, 1e-300))
        return xp.exp(-mu + s * s / 2) * xp.ndtr((mu - s * s - la) / s)

    def quantile(self, q):
        xp = self.xp
        return xp.exp(self.mu + self.sigma * xp.ndtri(q))


class _FixedRows:
    """A fixed processing time over namespace ``xp`` (G is piecewise linear)."""

    kind = "fixed"

    def __init__(self, seconds, xp=SCALAR):
        self.p50, self.xp = seconds, xp

    def rows(self, idx):
        return self

    def sf(self, t):
        return self.xp.where(self.p50 > t, 1.0, 0.0)

    def before(self, a):
        xp = self.xp
        return xp.minimum(1.0, xp.maximum(a, 0.0) / self.p50)

    def slope(self, a):
        return self.xp.where(a < self.p50, 1.0 / self.p50, 0.0)

    def before_slope(self, a):
        return self.before(a), self.slope(a)

    def quantile(self, q):
        return self.xp.fill(q, self.p50)


# --------------------------------------------------------------------------------------------- results
@dataclass
class RiskEstimate:
    applicable: bool
    reason: str | None = None
    duplicate_rate: float | None = None  # messages whose processing starts two or more times
    completed_more_than_once_rate: float | None = None  # ... whose processing completes twice or more
    recovery_p99: float | None = None  # seconds from a crash to the message being visible again (p99)
    dlq_false_positive_rate: float | None = None  # healthy messages that end in the DLQ
    dlq_rate: float | None = None  # all messages that end in the DLQ (poison included)
    effective_timeout: float | None = None  # E: when an attempt still running gets duplicated (seconds)

    def as_dict(self) -> dict:
        return dict(self.__dict__)


RESULT_KEYS = (
    "duplicate_rate",
    "completed_more_than_once_rate",
    "recovery_p99",
    "dlq_false_positive_rate",
    "dlq_rate",
    "effective_timeout",
)


def estimate(
    visibility_timeout: float,
    profile: Profile,
    *,
    heartbeat_interval: float | None = None,
    heartbeat_extend_by: float | None = None,
    crash_before_delete: float = 0.0,
    max_receive_count: int | None = None,
    transient: float = 0.0,
    poison: float = 0.0,
    function_timeout: float | None = None,
    batch_size: int = 1,
    batching_window: float = 0.0,
    report_batch_item_failures: bool = True,
    arrival_rate: float | None = None,
    concurrency: float | None = None,
    recovery: bool = True,
) -> RiskEstimate:
    """Estimate one queue/consumer pair. ``function_timeout`` set means a Lambda consumer whose ``profile``
    is the duration of one invocation. ``arrival_rate``/``concurrency`` (optional) let the model refuse
    when consumers would be busy enough for queueing to matter. ``recovery=False`` leaves ``recovery_p99``
    None (most of a scalar estimate's time: the linter asks for it only when it reports it); the other figures
    are the same."""
    why = _not_applicable(
        visibility_timeout, profile, heartbeat_interval, heartbeat_extend_by, crash_before_delete,
        transient, poison, function_timeout, batch_size, arrival_rate, concurrency,
    )  # fmt: skip
    if why:
        return RiskEstimate(False, why)
    # One row: plain floats through math (SCALAR), except an empirical profile (numpy over its samples).
    nan = float("nan")
    scalar = profile.kind != "empirical"
    if scalar:
        xp, one = SCALAR, (lambda v: v)
    else:
        from visguard.engine.risk_array import ARRAY, one_row

        xp, one = ARRAY, one_row
    out = _core(
        one(float(visibility_timeout)),
        profile.model(xp),
        h=one(nan if heartbeat_interval is None else float(heartbeat_interval)),
        e=one(nan if heartbeat_extend_by is None else float(heartbeat_extend_by)),
        c=one(float(crash_before_delete)),
        m=one(0 if max_receive_count is None else int(max_receive_count)),
        p=one(float(transient)),
        f=one(float(poison)),
        fto=one(nan if function_timeout is None else float(function_timeout)),
        b=one(int(batch_size)),
        w=one(float(batching_window)),
        rbif=one(bool(report_batch_item_failures)),
        xp=xp,
        recovery=recovery,
    )
    return RiskEstimate(
        True,
        None,
        **{k: None if out[k] is None else float(out[k] if scalar else out[k][0]) for k in RESULT_KEYS},
    )


def _not_applicable(vt, profile, h, e, c, p, f, fto, b, rate, conc) -> str | None:
    if not (0 <= vt <= MAX_VISIBILITY):
        return f"visibility timeout {vt} is outside 0-43,200 s"
    for name, prob in (("crash_before_delete", c), ("transient", p), ("poison", f)):
        if not (0 <= prob <= 1):
            return f"{name} probability {prob} is outside 0-1"
    if (h is None) != (e is None):
        return "a heartbeat needs both an interval and an extend_by"
    if h is not None and not (h > 0 and 0 <= e <= MAX_VISIBILITY):
        return f"heartbeat interval {h} / extend_by {e} out of range"
    if fto is not None:
        if h is not None:
            return "a Lambda event source mapping never extends visibility: heartbeats do not apply"
        if fto > vt:
            return (
                f"function timeout {fto} s exceeds the visibility timeout {vt} s: "
                "the event source mapping cannot be created"
            )
    if b < 1:
        return f"batch size {b} must be at least 1"
    if rate is not None and conc is not None:
        if conc <= 0:
            return "no consumer concurrency: every message waits"
        per_slot = b if fto is not None else 1
        load = rate * profile.mean() / per_slot
        if _too_busy(rate / per_slot, profile.mean(), conc):
            return (
                f"queueing: {load:,.1f} consumers busy on average of {conc:g} (arrival rate x mean processing "
                "time), too few spare for messages to be picked up the moment they are visible; run the exact "
                "simulator (visguard simulate)"
            )
    return None


def _core(vt, dist, *, h, e, c, m, p, f, fto, b, w, rbif, xp=SCALAR, recovery: bool = True) -> dict:
    """All rows at once (ARRAY) or one row (SCALAR). NaN h/e = no heartbeat, NaN fto = worker, m == 0 = no
    redrive. ``~x`` is written ``xp.not_(x)`` and ``a[ix]`` ``xp.at(a, ix)`` so that floats work too.
    ``recovery=False``: no recovery_p99 (None)."""
    where, maximum, not_ = xp.where, xp.maximum, xp.not_
    is_lambda = not_(xp.isnan(fto))
    has_hb = not_(xp.isnan(h)) & not_(is_lambda)
    hh = where(has_hb, h, math.inf)
    ee = where(has_hb, e, 0.0)
    # Effective timeout E: a worker attempt not deleted by then is received again.
    safe = has_hb & (hh < vt) & (hh < ee)
    big_e = where(not_(has_hb) | (hh >= vt), vt, where(safe, MAX_VISIBILITY, hh + ee))
    if xp.any(is_lambda):
        big_e = where(is_lambda, maximum(vt - where(is_lambda, w, 0.0), 0.0), big_e)
    s_e = dist.sf(big_e)
    redrive = m > 0
    second_allowed = not_(redrive) | (m >= 2)
    terms = where(redrive, maximum(m - 1, 0), math.inf)  # j = 0 .. M-2 failed attempts first

    # Workers. q: a delivery ends with the message received again (crash, failure, or still running at E).
    base = c + (1 - c) * p
    q = base + (1 - base) * s_e
    # completed twice: j failed attempts, then one that completes after E, and the duplicate completes too
    # (the first attempt's stale delete may remove the message: no third try is counted).
    geom = where(base < 1, (1 - base**terms) / maximum(1 - base, 1e-300), terms)
    twice = (1 - c) * (1 - p) * s_e * (1 - c) * (1 - p) * geom
    # DLQ: the (M+1)-th receive needs, for each i = 1..M, the attempt i receives back still running at iE
    # (or failed): prod_i [base + (1 - base) S(iE)]. Terms with S(iE) ~ 0 are just `base`.
    dlq_prod = where(redrive, base + (1 - base) * s_e, 1.0)
    counted = where(redrive, 1, 0)
    live = xp.rows(not_(is_lambda) & (m >= 2) & (s_e > 1e-15))
    i = 2
    while xp.size(live) and i <= _DLQ_TERMS:
        base_l = xp.at(base, live)
        s_i = dist.rows(live).sf(i * xp.at(big_e, live))
        dlq_prod = xp.put(dlq_prod, live, xp.at(dlq_prod, live) * (base_l + (1 - base_l) * s_i))
        counted = xp.put(counted, live, i)
        live = xp.keep(live, (xp.at(m, live) > i) & (s_i > 1e-15))
        i += 1
    dlq_prod = dlq_prod * base ** maximum(m - counted, 0)

    lam = xp.rows(is_lambda)
    if xp.size(lam):
        q, twice, dlq_prod = _lambda_rows(
            xp, lam, dist, big_e, s_e, c, m, p, f, fto, b, rbif, terms, q, twice, dlq_prod
        )

    dup = (1 - f) * where(second_allowed, q, 0.0) + f * second_allowed
    twice = (1 - f) * twice
    dlq_fp = where(redrive, (1 - f) * dlq_prod, 0.0)
    dlq = dlq_fp + where(redrive, f, 0.0)
    fto_ = where(is_lambda, fto, math.inf)
    only_timeouts = (c == 0) & (p == 0) & (f == 0)
    recovery_p99 = (
        _recovery_p99(xp, vt, big_e, hh, ee, safe, is_lambda, fto_, only_timeouts, dist) if recovery else None
    )
    return {
        "duplicate_rate": dup,
        "completed_more_than_once_rate": twice,
        "recovery_p99": recovery_p99,
        "dlq_false_positive_rate": dlq_fp,
        "dlq_rate": dlq,
        "effective_timeout": big_e,
    }


def _lambda_rows(xp, ix, dist, big_e, s_e, c, m, p, f, fto, b, rbif, terms, q_out, twice_out, dlq_out):
    """Lambda event source mapping rows ``ix``: q, twice (before the (1-f) factor) and the DLQ product with
    those rows filled in."""
    where, maximum, minimum, at = xp.where, xp.maximum, xp.minimum, xp.at
    e, se, c, m, p, f = at(big_e, ix), at(s_e, ix), at(c, ix), at(m, ix), at(p, ix), at(f, ix)
    t, b, rbif, terms = at(fto, ix), at(b, ix), at(rbif, ix), at(terms, ix)
    # The batch fails as a whole on an invocation crash (c) or a timeout kill.
    s_kill = dist.rows(ix).sf(minimum(t, MAX_VISIBILITY))
    batch_fail = c + (1 - c) * s_kill
    # Healthy batch-mates that fail on their own (transient/poison) return the whole batch without RBIF.
    mates_ok = where(rbif, 1.0, ((1 - p) * (1 - f)) ** maximum(b - 1, 0))
    # Runs past E but within the function timeout: completes and deletes, yet was received again meanwhile.
    late = where(e < t, (1 - c) * maximum(se - s_kill, 0.0), 0.0)
    ok = (1 - batch_fail) * (1 - p) * mates_ok
    q = minimum(1 - ok + ok * late / maximum(1 - batch_fail, 1e-300), 1.0)
    # completed twice: own processing succeeded in a batch a batch-mate failed (or ran late), after j failed
    # attempts; the record is not deleted and comes back until one of its next attempts completes.
    fail = 1 - (1 - batch_fail) * (1 - p)
    first = (1 - batch_fail) * (1 - p) * (1 - mates_ok) + late * (1 - p)
    geom = where(fail < 1, (1 - fail**terms) / maximum(1 - fail, 1e-300), terms)
    twice = first * (1 - fail**terms) * geom
    # Without RBIF the records of a failed batch come back at the same moment and are received together
    # again, so a healthy record that shares its batch with a poison one follows it to the DLQ; the others
    # fail again only if the re-formed batch fails (the exact simulator shows this re-forming).
    mm = maximum(m, 0)
    clean = (1 - f) ** maximum(b - 1, 0)
    whole = 1 - (1 - batch_fail) * (1 - p) ** b
    dlq = where(rbif, q**mm, (1 - clean) + clean * whole**mm)
    return xp.put(q_out, ix, q), xp.put(twice_out, ix, twice), xp.put(dlq_out, ix, dlq)


def _recovery_p99(xp, vt, big_e, hh, ee, safe, is_lambda, fto, only_timeouts, dist, iters: int = 17):
    """p99 of the time a message stays hidden after a crash at a uniformly random moment x = U*T.

    Without heartbeats (and for Lambda): R = E - x for crashes before E. With a safe heartbeat: R = VT - x
    before the first beat, else e - (x mod h), with x mod h taken as uniform on [0, h). Solved for
    P(R > r) = 1 % of the crashes that happen while the message is hidden: without heartbeat by Newton's
    method on G (concave, so Newton from 0 climbs monotonically), with one by bisection."""
    where, maximum, minimum, at, put = xp.where, xp.maximum, xp.minimum, xp.at, xp.put
    hb = safe & xp.not_(is_lambda)
    out = xp.fill(vt, 0.0)
    lam = xp.rows(is_lambda)
    if xp.size(lam):
        # Lambda fails at the end of an invocation (error, timeout): hidden for E - min(D, timeout) more.
        # With no other failure mode every failure is a timeout kill: E - timeout exactly.
        d = dist.rows(lam)
        first = minimum(d.quantile(xp.fill(at(fto, lam), 0.01)), at(fto, lam))
        first = where(at(only_timeouts, lam), at(fto, lam), first)
        out = put(out, lam, maximum(at(big_e, lam) - first, 0.0))
    plain = xp.rows(xp.not_(hb) & xp.not_(is_lambda))
    if xp.size(plain):
        d, e_ = dist.rows(plain), at(big_e, plain)
        target = 0.01 * d.before(e_)
        # Lognormal: converged to ~1e-16 relative after 3 steps on a 1M-row test. Fixed and empirical
        # profiles make G piecewise linear: Newton walks one piece per step.
        steps = 4 if getattr(d, "kind", "lognormal") == "lognormal" else 12
        a = xp.fill(e_, 0.0)
        for _ in range(steps):
            g, slope = d.before_slope(a)
            a = minimum(a + (target - g) / maximum(slope, 1e-300), e_)
        out = put(out, plain, where(target > 0, e_ - a, 0.0))
    rows = xp.rows(hb)
    if xp.size(rows):
        d, v, h, e = dist.rows(rows), at(vt, rows), at(hh, rows), at(ee, rows)
        total = d.before(xp.fill(v, MAX_VISIBILITY))
        g_h = d.before(minimum(h, MAX_VISIBILITY))
        target = 0.01 * total
        lo, hi = xp.fill(v, 0.0), maximum(v, e)
        for _ in range(iters):
            r = (lo + hi) / 2
            above = d.before(maximum(minimum(h, v - r), 0.0)) + (total - g_h) * xp.clip((e - r) / h, 0, 1)
            up = above > target
            lo, hi = where(up, r, lo), where(up, hi, r)
        out = put(out, rows, where(total > 0, (lo + hi) / 2, 0.0))
    return out


# The smallest duplicate-rate target the models take: below it 1 - target rounds to 1 in floating point (the
# quantile is infinite) and a rate of one in a trillion is beyond anything a measurement could show.
MIN_TARGET_RATE = 1e-12


def required_visibility(profile: Profile, target_duplicate_rate: float) -> float:
    """Smallest whole-second visibility timeout with P(T > VT) <= target (no heartbeat, no crashes).
    May exceed 43,200 s: the caller then needs a heartbeat (the recommender says so)."""
    if not (MIN_TARGET_RATE <= target_duplicate_rate < 1):
        raise ValueError(
            f"target duplicate rate must be between {MIN_TARGET_RATE:g} and 1, got {target_duplicate_rate}"
        )
    vt = math.ceil(float(profile.quantile(1.0 - target_duplicate_rate)) - 1e-9)
    while vt > 0 and float(profile.sf(vt - 1)) <= target_duplicate_rate:
        vt -= 1
    while float(profile.sf(vt)) > target_duplicate_rate:
        vt += 1
    return float(max(vt, 0))


# ------------------------------------------------------------------------------ event source mapping scaling
# (reference/lambda-sqs-esm.md behaviours 2, 3 and 11; visguard.facts.esm_pollers). While messages remain visible
# an SQS event source mapping runs c(t) = min(ceiling, initial + k t) concurrent invokes, t seconds after the
# messages appeared, k = added_per_minute / 60: standard mode starts at 5 and adds 300 a minute up to 1,250 (or
# MaximumConcurrency); provisioned mode starts at 10 x MinimumPollers and adds 1,000 a minute up to 10 x
# MaximumPollers. The scale-up control law beyond "while messages are available" is unconfirmed by AWS; the
# simulator (engine/sim_lambda.py) grows its target the same way, so tests/sim checks one against the other.
@dataclass(frozen=True)
class EsmScaling:
    initial: float  # concurrent invokes when messages appear
    added_per_minute: float
    ceiling: float  # concurrent invokes at most

    @classmethod
    def of(cls, lam) -> EsmScaling:
        """The scaling of a scenario's Lambda settings (``visguard.engine.scenario.LambdaSettings``):
        MaximumConcurrency, when set, lowers the ceiling (standard mode only; the scenario refuses it with
        provisioned mode)."""
        ceiling = min(c for c in (lam.max_esm_concurrency, lam.max_concurrency) if c)
        return cls(
            float(min(lam.initial_concurrency, ceiling)), float(lam.scale_up_per_minute), float(ceiling)
        )

    @classmethod
    def from_facts(cls, min_pollers: int | None = None, max_pollers: int | None = None) -> EsmScaling:
        """A standard queue's mapping in standard mode (no pollers) or in provisioned mode."""
        p = facts.esm_pollers(False, min_pollers, max_pollers)
        return cls(float(p.initial), float(p.added_per_minute), float(p.ceiling))

    @property
    def ramp_seconds(self) -> float:
        """Seconds from the start level to the ceiling under a sustained backlog."""
        return max(0.0, self.ceiling - self.initial) * 60.0 / self.added_per_minute

    def concurrency(self, t: float) -> float:
        """Concurrent invokes t seconds after messages appeared, with messages still visible."""
        return min(self.ceiling, self.initial + self.added_per_minute * max(t, 0.0) / 60.0)

    def work(self, t: float) -> float:
        """Invoke-seconds the mapping can run in the first t seconds: the integral of :meth:`concurrency`."""
        t, r, k = max(t, 0.0), self.ramp_seconds, self.added_per_minute / 60.0
        if t <= r:
            return self.initial * t + k * t * t / 2.0
        return self.initial * r + k * r * r / 2.0 + self.ceiling * (t - r)

    def drain_seconds(self, batches: float, invoke_seconds: float, fraction: float = 1.0) -> float:
        """Seconds until ``fraction`` of ``batches`` invokes of ``invoke_seconds`` each, all visible at t = 0 (a
        burst), have run: the t where :meth:`work` reaches fraction x batches x invoke_seconds (an invoke ends
        within one invoke_seconds of that). Bounded by the ceiling: a backlog drains no faster than ceiling
        invokes at a time."""
        need = max(batches, 0.0) * max(invoke_seconds, 0.0) * min(max(fraction, 0.0), 1.0)
        if need == 0.0:
            return 0.0
        r, k = self.ramp_seconds, self.added_per_minute / 60.0
        if need <= self.work(r):  # inside the ramp: initial t + k t^2 / 2 = need
            return (-self.initial + math.sqrt(self.initial**2 + 2.0 * k * need)) / k
        return r + (need - self.work(r)) / self.ceiling
