"""The risk model over numpy arrays: ``ARRAY`` (the formulas of visguard.engine.risk over many rows),
``estimate_many`` (the audit's one call per batch), and empirical profiles (numpy over their samples).

The one module of the model that imports numpy (the ``sim`` extra; the audit's executors have it): the scalar
path of visguard.engine.risk -- what the linter, `visguard recommend` and the CDK constructs use -- imports none.
scipy's ``ndtr``/``ndtri`` are used when installed (about 5x faster over millions of rows); without them the
scalar formulas, vectorised, give the same numbers to ~1e-15.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from visguard.engine.risk import (
    MAX_VISIBILITY,
    RESULT_KEYS,
    Z99,
    _core,
    _LogNormalRows,
    _s_ndtr,
    _s_ndtri,
    _too_busy,
)

try:
    from scipy.special import ndtr, ndtri
except (
    ImportError
):  # a Spark executor with numpy and pyarrow only (the audit): the scalar formulas, vectorised
    ndtr = np.vectorize(_s_ndtr, otypes=[float])
    ndtri = np.vectorize(_s_ndtri, otypes=[float])


def _put(out, ix, v):
    out[ix] = v
    return out


ARRAY = SimpleNamespace(
    where=np.where, maximum=np.maximum, minimum=np.minimum, exp=np.exp, log=np.log, ndtr=ndtr, ndtri=ndtri,
    not_=np.logical_not, isnan=np.isnan, clip=np.clip, any=np.any,
    rows=np.flatnonzero,  # mask -> index set
    size=np.size,  # rows in an index set
    at=lambda a, ix: a[ix],  # a restricted to an index set
    put=_put,  # out with its rows ix set to v (in place)
    keep=lambda ix, cond: ix[cond],  # the rows of ix where cond (cond computed over ix)
    fill=lambda like, v: np.full(np.shape(like), v, dtype=float),
)  # fmt: skip


def one_row(v):
    """A number as a one-row array (an empirical profile's estimate runs the ARRAY path on one row)."""
    return np.array([v])


# --------------------------------------------------------------------------------------------- profiles
def empirical(cls, samples):
    """``Profile.empirical``: the samples sorted, their p50 and p99."""
    arr = np.sort(np.asarray(samples, dtype=float).ravel())
    if arr.size == 0 or not np.all(np.isfinite(arr)) or arr[0] <= 0:
        raise ValueError("empirical samples must be a non-empty list of positive numbers")
    return cls("empirical", float(np.quantile(arr, 0.5)), float(np.quantile(arr, 0.99)), samples=arr)


class Samples:
    """An empirical profile's functions over its sorted samples ``s``; every argument a number or an array."""

    def __init__(self, s: np.ndarray):
        self.s = s

    def sf(self, t):
        t = np.asarray(t, dtype=float)
        return 1.0 - np.searchsorted(self.s, t, side="right") / self.s.size

    def quantile(self, q):
        return np.quantile(self.s, np.asarray(q, dtype=float), method="inverted_cdf")

    def slope(self, a):
        a = np.asarray(a, dtype=float)
        s = self.s
        return np.mean(np.where(s > a[..., None], 1.0 / s, 0.0), axis=-1)

    def before(self, a):
        a = np.asarray(a, dtype=float)
        return np.mean(np.minimum(1.0, np.maximum(a, 0.0)[..., None] / self.s), axis=-1)


def sample(profile, rng: np.random.Generator, n: int) -> np.ndarray:
    """``Profile.sample``: ``n`` processing times from numpy generator ``rng``."""
    if profile.kind == "lognormal":
        return rng.lognormal(profile.mu, profile.sigma, n)
    if profile.kind == "fixed":
        return np.full(n, profile.p50)
    return rng.choice(profile.samples, n)


# --------------------------------------------------------------------------------------------- many rows
def estimate_many(vt, p50, p99, **kw) -> dict[str, np.ndarray]:
    """Vectorized ``estimate`` over lognormal profiles: every argument an array (or scalar) broadcast to one
    shape. Optional arrays: heartbeat_interval / heartbeat_extend_by (NaN = none), crash_before_delete,
    max_receive_count (0 or NaN = no redrive), transient, poison, function_timeout (NaN = worker),
    batch_size, batching_window, report_batch_item_failures, arrival_rate / concurrency (NaN = unknown).
    Returns the RiskEstimate fields as arrays plus ``applicable`` (bool); rows that are not applicable hold
    NaN."""
    arrays = {"vt": vt, "p50": p50, "p99": p99, **kw}
    known = {
        "heartbeat_interval", "heartbeat_extend_by", "crash_before_delete", "max_receive_count",
        "transient", "poison", "function_timeout", "batch_size", "batching_window",
        "report_batch_item_failures", "arrival_rate", "concurrency",
    }  # fmt: skip
    unknown = set(kw) - known
    if unknown:
        raise TypeError(f"estimate_many() got unexpected arguments {sorted(unknown)}")
    shape = np.broadcast_shapes(*(np.shape(v) for v in arrays.values()))

    def arr(name, default, dtype=float):
        v = arrays.get(name, default)
        return np.broadcast_to(np.asarray(v if v is not None else default, dtype=dtype), shape).ravel()

    nan = np.nan
    vt_, p50_, p99_ = arr("vt", nan), arr("p50", nan), arr("p99", nan)
    h, e = arr("heartbeat_interval", nan), arr("heartbeat_extend_by", nan)
    c, p, f = arr("crash_before_delete", 0.0), arr("transient", 0.0), arr("poison", 0.0)
    m = np.nan_to_num(arr("max_receive_count", 0.0), nan=0.0).astype(np.int64)
    fto, w = arr("function_timeout", nan), np.nan_to_num(arr("batching_window", 0.0))
    b = np.nan_to_num(arr("batch_size", 1.0), nan=1.0)
    rbif = arr("report_batch_item_failures", True, dtype=bool)
    rate, conc = arr("arrival_rate", nan), arr("concurrency", nan)

    is_lambda = ~np.isnan(fto)
    has_hb = ~np.isnan(h) & ~np.isnan(e)
    ok = (vt_ >= 0) & (vt_ <= MAX_VISIBILITY) & (p50_ > 0) & (p99_ >= p50_) & np.isfinite(p99_)
    ok &= (c >= 0) & (c <= 1) & (p >= 0) & (p <= 1) & (f >= 0) & (f <= 1) & (b >= 1)
    ok &= ~(is_lambda & has_hb) & ~(is_lambda & (fto > vt_)) & ~(has_hb & ~(h > 0))
    ok &= (np.isnan(h) == np.isnan(e)) & ~(has_hb & ((e < 0) | (e > MAX_VISIBILITY)))
    mu = np.log(np.where(ok, p50_, 1.0))
    sigma = np.where(ok & (p99_ > p50_), (np.log(np.where(ok, p99_, 1.0)) - mu) / Z99, 1e-9)
    mean = np.exp(mu + sigma**2 / 2)
    busy = _too_busy(rate / np.where(is_lambda, b, 1.0), mean, conc)
    ok &= ~(np.isfinite(rate) & np.isfinite(conc) & busy) & ~(np.isfinite(rate) & (conc <= 0))

    out = _core(
        np.where(ok, vt_, 30.0),
        _LogNormalRows(mu, sigma, ARRAY),
        h=np.where(has_hb, h, nan),
        e=np.where(has_hb, e, nan),
        c=np.where(ok, c, 0.0),
        m=m,
        p=np.where(ok, p, 0.0),
        f=np.where(ok, f, 0.0),
        fto=fto,
        b=b,
        w=w,
        rbif=rbif,
        xp=ARRAY,
    )
    result = {k: np.where(ok, out[k], nan).reshape(shape) for k in RESULT_KEYS}
    result["applicable"] = ok.reshape(shape)
    return result
