"""Exact simulator (engine core) versus a SimPy model of the same scenario (issue 3, section 6).

Scenario (issue 3, first check): standard queue, visibility timeout 30 s, Poisson arrivals at 10/s, 200
long-polling workers, lognormal processing p50 5 s / p99 45 s, no heartbeat, redelivery when the visibility
expires (a stale delete still removes the message, as in the engine's default). Both runs report the
duplicate rate, which must agree with each other and with P(T > 30 s) = 0.0289.

The SimPy peer is written the way SimPy is meant to be used: an arrival process, one process per worker
blocking on a Store (long poll without the 20 s limit, which only favours SimPy), a timeout event per
receive whose callback puts the message back if that receive is still the current one. It models less than
the engine does (no receipt handles, receive counts, in-flight quota, 20 s poll expiry or DLQ).

A third model, ``bare_floor``, is the same scenario as one bare heap loop: no queue state, no receipts, no
objects, no functions per event. It is a lower bound for any pure-Python event simulation of the scenario,
and so shows what a ratio against SimPy can be at most without compiled code.

Usage: .venv/bin/python -P benchmarks/sim_vs_simpy.py [--messages 200000] [--repeat 1]
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import random
import time


def simpy_model(
    n: int, seed: int = 1, vt: float = 30.0, rate: float = 10.0, workers: int = 200, wait: float | None = None
) -> dict:
    """``wait`` None: a worker blocks on the store until a message comes (no ReceiveMessage limit); a number:
    each long poll gives up after ``wait`` seconds and the worker polls again, as with WaitTimeSeconds=20."""
    import simpy

    mu, sigma = math.log(5.0), math.log(45.0 / 5.0) / 2.3263478740408408
    rng = random.Random(seed)
    env = simpy.Environment()
    store = simpy.Store(env)
    receipt = [0] * n  # current receive number of each message
    deleted = [False] * n
    starts = [0] * n
    done = [0]

    def arrivals():
        for i in range(n):
            yield env.timeout(rng.expovariate(rate))
            store.put(i)

    def expire(i, version):
        def cb(_event):
            if not deleted[i] and receipt[i] == version:
                store.put(i)  # visible again: the next long poll gets it

        return cb

    def worker():
        while done[0] < n:
            if wait is None:
                i = yield store.get()
            else:
                get = store.get()
                fired = yield get | env.timeout(wait)
                if get not in fired:
                    get.cancel()
                    continue
                i = get.value
            if deleted[i]:
                continue
            receipt[i] += 1
            starts[i] += 1
            env.timeout(vt).callbacks.append(expire(i, receipt[i]))
            yield env.timeout(rng.lognormvariate(mu, sigma))
            if not deleted[i]:
                deleted[i] = True
                done[0] += 1

    env.process(arrivals())
    for _ in range(workers):
        env.process(worker())
    t, c = time.perf_counter(), time.process_time()
    env.run()
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    dup = sum(1 for s in starts if s >= 2)
    return {"wall_seconds": wall, "cpu_seconds": cpu, "duplicate_rate": dup / n, "messages": n}


def bare_floor(n: int, seed: int = 1, vt: float = 30.0, rate: float = 10.0, workers: int = 200) -> dict:
    """The scenario with nothing but a heap, a FIFO of visible messages and version counters (lazy expiry
    checked at every event): the least work a Python event loop can do per message."""
    import heapq
    from collections import deque

    import numpy as np

    mu, sigma = math.log(5.0), math.log(45.0 / 5.0) / 2.3263478740408408
    rng = np.random.default_rng(seed)
    t, c = time.perf_counter(), time.process_time()
    arrivals = np.cumsum(rng.exponential(1.0 / rate, n)).tolist()
    work = iter(rng.lognormal(mu, sigma, 2 * n).tolist())
    push, pop = heapq.heappush, heapq.heappop
    events = [(arrivals[0], 0, -1)]  # (time, kind 0 arrival | 1 completion | 2 expiry check, message)
    hidden = []  # (visible again at, message, version)
    version, deleted, starts = [0] * n, [False] * n, [0] * n
    visible, free, sent = deque(), workers, 0
    while events:
        now, kind, i = pop(events)
        if kind == 0:
            visible.append(sent)
            sent += 1
            if sent < n:
                push(events, (arrivals[sent], 0, -1))
        elif kind == 1:
            deleted[i] = True  # a stale receipt still deletes (the engine's default)
            free += 1
        while hidden and hidden[0][0] <= now:
            _, j, v = pop(hidden)
            if version[j] == v and not deleted[j]:
                visible.append(j)  # (the engine puts it back in send order; same duplicate rate)
        while free and visible:
            j = visible.popleft()
            if deleted[j]:
                continue
            free -= 1
            version[j] += 1
            starts[j] += 1
            push(hidden, (now + vt, j, version[j]))
            push(events, (now + next(work), 1, j))
        if free and hidden and (not events or hidden[0][0] < events[0][0]):
            push(events, (hidden[0][0], 2, -1))
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    dup = sum(1 for s in starts if s >= 2)
    return {"wall_seconds": wall, "cpu_seconds": cpu, "duplicate_rate": dup / n, "messages": n}


def engine_model(n: int, seed: int = 1) -> dict:
    from visguard.engine.scenario import from_dict
    from visguard.engine.sim import build

    doc = {
        "queue": {"visibility_timeout": 30},
        "workload": {"messages": n, "arrival_rate": 10},
        "consumer": {"type": "worker", "concurrency": 200,
                     "processing": {"distribution": "lognormal", "p50": 5, "p99": 45}},
        "seed": seed,
    }  # fmt: skip
    t, c = time.perf_counter(), time.process_time()
    fleet = build(from_dict(doc))
    res = fleet.run()
    res["wall_seconds"] = time.perf_counter() - t  # setup (arrival sampling, queues) included
    res["cpu_seconds"] = time.process_time() - c
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    n = args.messages
    # best of N by CPU time, for every model alike (the machine is shared: wall time depends on the load)
    cpu = lambda r: r["cpu_seconds"]  # noqa: E731
    eng = min((engine_model(n) for _ in range(args.repeat)), key=cpu)
    peer = min((simpy_model(n) for _ in range(args.repeat)), key=cpu)
    peer20 = min((simpy_model(n, wait=20.0) for _ in range(args.repeat)), key=cpu)
    floor = min((bare_floor(n) for _ in range(args.repeat)), key=cpu)
    print(f"python {platform.python_version()}, {n:,} messages, best of {args.repeat} by CPU time")
    print(f"  engine simulator (exact SQS semantics): {eng['wall_seconds']:7.2f} s wall {eng['cpu_seconds']:7.2f} s CPU"
          f"   duplicate rate {eng['duplicate_rate']:.4f}   deliveries {eng['deliveries']:,}")  # fmt: skip
    for label, r in (("SimPy peer, blocking get:", peer), ("SimPy peer, 20 s long polls:", peer20)):
        print(f"  {label:39s} {r['wall_seconds']:7.2f} s wall {r['cpu_seconds']:7.2f} s CPU"
              f"   duplicate rate {r['duplicate_rate']:.4f}")  # fmt: skip
        print(f"      ratio SimPy / engine: {r['wall_seconds'] / eng['wall_seconds']:.2f}x wall, "
              f"{r['cpu_seconds'] / eng['cpu_seconds']:.2f}x CPU (goal >= 5x)")  # fmt: skip
    print(f"  bare heap loop (no SQS state, lower bound): {floor['wall_seconds']:7.2f} s wall {floor['cpu_seconds']:7.2f} s CPU"
          f"   duplicate rate {floor['duplicate_rate']:.4f}")  # fmt: skip
    for label, r in (("blocking get", peer), ("20 s long polls", peer20)):
        print(f"      SimPy ({label}) / bare loop: {r['cpu_seconds'] / floor['cpu_seconds']:.2f}x CPU "
              "(a Python simulator that keeps queue state does more work per message than this loop)")  # fmt: skip
    print(f"  load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print("  expected duplicate rate P(T > 30 s) = 0.0289")


if __name__ == "__main__":
    main()
