"""The fast risk model on a million queues in one vectorized call (issue 3, section 6: goal < 2 s).

Each queue gets a visibility timeout, a lognormal processing profile (p50, p99), a redrive setting and, for a
fifth of them, a heartbeat; 1 % are Lambda consumers. Reports the wall time of estimate_many (best of N) and
the per-queue cost of the scalar estimate for comparison.

Usage: .venv/bin/python -P benchmarks/risk_scale.py [--queues 1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from visguard.engine.risk import Profile, estimate, estimate_many


def fleet(n: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    p50 = rng.uniform(0.5, 60, n)
    hb = np.where(rng.random(n) < 0.2, rng.uniform(5, 120, n), np.nan)
    lam = rng.random(n) < 0.01
    vt = rng.integers(1, 3600, n).astype(float)
    return {
        "vt": vt,
        "p50": p50,
        "p99": p50 * rng.uniform(1.5, 20, n),
        "heartbeat_interval": np.where(lam, np.nan, hb),
        "heartbeat_extend_by": np.where(lam, np.nan, hb * 3),
        "max_receive_count": rng.choice([0, 1, 3, 5, 10], n),
        "crash_before_delete": rng.choice([0.0, 0.001, 0.01], n),
        "function_timeout": np.where(lam, np.minimum(vt, 30.0), np.nan),
        "batch_size": 10,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queues", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    data = fleet(args.queues)
    best = cpu = float("inf")
    for _ in range(args.repeat):
        t, c = time.perf_counter(), time.process_time()
        out = estimate_many(**data)
        best = min(best, time.perf_counter() - t)
        cpu = min(cpu, time.process_time() - c)
    ok = int(out["applicable"].sum())
    print(f"estimate_many over {args.queues:,} queues: {best:.2f} s wall, {cpu:.2f} s CPU (best of {args.repeat}), "
          f"{ok:,} applicable, median duplicate rate {np.nanmedian(out['duplicate_rate']):.2e}  (goal < 2 s)")  # fmt: skip
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    p = Profile.lognormal(5, 45)
    k = 2000
    t = time.perf_counter()
    for i in range(k):
        estimate(30 + i % 60, p, max_receive_count=5)
    one = (time.perf_counter() - t) / k
    print(f"estimate() for one queue: {one * 1e6:.0f} us")


if __name__ == "__main__":
    main()
