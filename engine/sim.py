"""Exact discrete-event simulator of a consumer fleet, driving the engine core itself.

There is no second queue model here: messages are sent, received, deleted and re-hidden by
``visguard.engine.Engine`` through its native API (``send``, ``poll``, ``delete``, ``change_visibility``,
``schedule``), and every consumer action is an event on the engine's own heap. The simulator only decides
what consumers do and counts what happens to each message (``Message.tag`` holds its index).

Workers (``simulate`` with ``consumer.type: worker``) long-poll, process one message at a time, heartbeat with
ChangeMessageVisibility, crash (the message returns when its visibility expires), fail transiently, and meet
poison messages. The Lambda event source mapping lives in engine/sim_lambda.py and shares ``Tally``.
"""

from __future__ import annotations

import contextlib
import json
import math
import time
from functools import partial

import numpy as np
from visguard import facts
from visguard.engine import Engine, SQSError
from visguard.engine.scenario import Scenario

MAX_VISIBILITY = facts.MAX_VISIBILITY
_BLOCK = 8192


class Draws:
    """Random numbers drawn from numpy in blocks (fast), replayed as Python floats; seeded."""

    def __init__(self, rng: np.random.Generator, sampler):
        self._rng, self._sampler, self._buf, self._i = rng, sampler, [], 0

    def __call__(self) -> float:
        i = self._i
        if i >= len(self._buf):
            self._buf, i = self._sampler(self._rng, _BLOCK).tolist(), 0
        self._i = i + 1
        return self._buf[i]


class Tally:
    """What happened to each message; ``result()`` gives the --json keys of DESIGN.md's simulation contract."""

    def __init__(self, n: int, poison: np.ndarray, t0: float):
        self.n = n
        self.t0 = t0
        self.poison = poison.tolist()
        self.sent_at = [0.0] * n
        self.starts = [0] * n  # processing attempts started
        self.completions = [0] * n  # attempts whose processing completed (side effects done)
        self.active = [0] * n  # attempts running now
        self.concurrent = [False] * n  # two attempts ran at the same time at some point
        self.done_at = [-1.0] * n  # first successful delete
        self.last_receive = [-1.0] * n
        self.crash_at = [
            -1.0
        ] * n  # pending crash (its receipt was the current one) -> recovery on next receive
        self.deliveries = 0
        self.deleted = 0
        self.recovery: list[float] = []
        self.max_inflight = 0

    # receipts handed to a consumer by one receive (one call per receive: this is on the hot path)
    def received(self, rs, now: float) -> None:
        self.deliveries += len(rs)
        last, crash_at = self.last_receive, self.crash_at
        for r in rs:
            i = r.message.tag
            last[i] = now
            c = crash_at[i]
            if c >= 0:
                self.recovery.append(now - c)
                crash_at[i] = -1.0

    def start(self, i: int) -> None:
        self.starts[i] += 1
        if self.active[i]:
            self.concurrent[i] = True
        self.active[i] += 1

    def crashed(self, i: int, received_at: float, now: float) -> None:
        """A failed attempt that leaves the message hidden: it comes back at expiry (recovery time)."""
        if self.last_receive[i] == received_at and self.done_at[i] < 0:
            self.crash_at[i] = now

    def result(self, eng: Engine, q, dlq, wall: float, horizon_hit: bool, sent: int) -> dict:
        n = self.n
        starts = np.asarray(self.starts)
        comps = np.asarray(self.completions)
        done = np.asarray(self.done_at)
        lat = (done - np.asarray(self.sent_at))[done >= 0]
        dlq_idx = [int(m["Body"]) for m in eng.peek(dlq)] if dlq is not None else []
        poison = self.poison
        fp = sum(1 for i in dlq_idx if not poison[i])
        more = int((starts >= 2).sum())
        rec = np.asarray(self.recovery)
        left = q.counts()
        return {
            "messages": n,
            "deliveries": self.deliveries,
            "processed_more_than_once": more,
            "duplicate_rate": more / n,
            "concurrent_duplicates": int(sum(self.concurrent)),
            "completed_more_than_once": int((comps >= 2).sum()),
            "completed_more_than_once_rate": float((comps >= 2).sum()) / n,
            "deleted": self.deleted,
            "dlq_messages": len(dlq_idx),
            "dlq_false_positives": fp,
            "poison_messages": int(sum(poison)),
            "max_inflight": self.max_inflight,
            "latency_p50": _q(lat, 0.50),
            "latency_p99": _q(lat, 0.99),
            "recovery_p99": _q(rec, 0.99),
            "crashes_recovered": int(rec.size),
            "left_in_queue": left["visible"] + left["inflight"] + left["delayed"],
            "sent": sent,
            "expired": sent
            - self.deleted
            - len(dlq_idx)
            - (left["visible"] + left["inflight"] + left["delayed"]),
            "virtual_seconds": eng.now - self.t0,
            "horizon_reached": horizon_hit,
            "wall_seconds": wall,
        }


def _q(a: np.ndarray, p: float) -> float | None:
    return float(np.quantile(a, p)) if a.size else None


def make_queues(eng: Engine, sc: Scenario):
    """The source queue (and its DLQ when max_receive_count is set) in the engine."""
    suffix = ".fifo" if sc.fifo else ""
    base = {"FifoQueue": "true"} if sc.fifo else {}
    dlq = None
    attrs = {
        **base,
        "VisibilityTimeout": str(int(sc.visibility_timeout)),
        "MessageRetentionPeriod": str(int(sc.message_retention)),
    }
    if sc.queue_delay:
        attrs["DelaySeconds"] = str(int(sc.queue_delay))
    if sc.max_receive_count:
        dlq = eng.create_queue(
            f"sim-dlq{suffix}", {**base, "MessageRetentionPeriod": str(facts.RETENTION.hi)}
        )
        attrs["RedrivePolicy"] = json.dumps(
            {"deadLetterTargetArn": dlq.arn, "maxReceiveCount": sc.max_receive_count}
        )
    return eng.create_queue(f"sim-queue{suffix}", attrs), dlq


def arrival_times(sc: Scenario, rng: np.random.Generator) -> np.ndarray:
    """Send times (seconds from the start) of every message, sorted: Poisson/uniform/burst plus bursts."""
    n_burst = sum(c for _, c in sc.bursts)
    n = max(sc.messages - n_burst, 0)
    if sc.arrival == "burst":
        base = np.zeros(n)
    elif sc.arrival == "uniform":
        base = np.arange(n) / sc.arrival_rate
    else:
        base = np.cumsum(rng.exponential(1.0 / sc.arrival_rate, n))
    extra = [np.full(c, float(at)) for at, c in sc.bursts]
    return np.sort(np.concatenate([base, *extra])[: sc.messages], kind="stable")


class Fleet:
    """Common scaffolding: engine, queues, arrivals, tally and the stop condition."""

    def __init__(self, sc: Scenario, progress=None, sample_every: float | None = None):
        self.sc = sc
        self.series: list[tuple[float, int, int, int]] = []  # (t, visible, inflight, dlq) when sampling
        self.sample_every = sample_every
        self.eng = Engine(inflight_limit=sc.inflight_limit, seed=sc.seed)
        self.rng = np.random.default_rng(sc.seed)
        self.q, self.dlq = make_queues(self.eng, sc)
        self.t0 = self.eng.now
        times = arrival_times(sc, self.rng)
        self.n = n = len(times)
        self.tally = Tally(n, self.rng.random(n) < sc.poison, self.t0)
        self.times = (times + self.t0).tolist()
        self.next_i = 0
        self.work = Draws(np.random.default_rng([sc.seed, 1]), sc.profile.sample)
        self.unif = Draws(np.random.default_rng([sc.seed, 2]), lambda r, k: r.random(k))
        self.finished = False
        self.progress = progress

    # arrivals: precomputed times fed to the engine as one series (no heap event per message)
    def start_arrivals(self) -> None:
        if self.n:
            self.eng.schedule_series(self.times, self._arrive)

    def _arrive(self, i: int) -> None:
        eng = self.eng
        if self.sc.fifo:
            m = eng.send(self.q, str(i), group_id=f"g{i % self.sc.message_groups}", dedup_id=str(i))
        else:
            m = eng.send(self.q, str(i))
        m.tag = i
        self.tally.sent_at[i] = eng.now
        self.next_i = i + 1

    def _sample(self) -> None:
        c = self.q.counts()
        d = self.dlq.counts()["visible"] if self.dlq is not None else 0
        self.series.append((self.eng.now - self.t0, c["visible"] + c["delayed"], c["inflight"], d))
        if not self.finished:
            self.eng.schedule(self.sample_every, self._sample)

    def horizon(self) -> float | None:
        """The scenario's horizon. Without one, messages that can never succeed (poison, certain failure,
        a Lambda that always times out) and no redrive would loop until retention (4 days by default): stop
        20 visibility timeouts after the last send instead, and say so (``horizon_reached``)."""
        sc = self.sc
        if sc.horizon is not None:
            return sc.horizon
        never = sc.poison > 0 or sc.crash_before_delete >= 1 or sc.transient >= 1
        if sc.is_lambda:
            never = never or float(sc.profile.sf(sc.lam.timeout)) >= 1
        if never and not sc.max_receive_count and self.n:
            return self.times[-1] - self.t0 + 20 * max(sc.visibility_timeout, 1.0)
        return None

    def gone(self) -> int:
        """Messages deleted or dead-lettered so far."""
        return self.tally.deleted + (self.dlq.counts()["visible"] if self.dlq is not None else 0)

    def check_done(self) -> bool:
        """Done once every message is sent and the queue is empty (deleted, dead-lettered or expired)."""
        if self.finished:
            return True
        if self.next_i < self.n:
            return False  # still sending
        c = self.q.counts()
        if c["visible"] + c["inflight"] + c["delayed"] == 0:
            self.finished = True
        return self.finished

    def _tick_progress(self, every: float) -> None:
        if self.finished:
            return
        self.progress(self.gone(), self.n)
        self.eng.schedule(every, self._tick_progress, every)

    def note_inflight(self) -> None:
        """Called right after a receive, which settled the queue at this instant: its in-flight count is
        exact without counts() (no message can come back at this same instant: timeouts are > 0)."""
        c = self.q._ninflight
        if c > self.tally.max_inflight:
            self.tally.max_inflight = c

    def run(self) -> dict:
        wall = time.perf_counter()
        if self.sample_every:
            self._sample()
        if self.progress is not None:
            span = self.times[-1] - self.t0 if self.n else 1.0
            self._tick_progress(max(span, 10 * self.sc.visibility_timeout) / 200)
        horizon = self.horizon()
        until = None if horizon is None else self.t0 + horizon
        self.eng.run(until=until)
        horizon_hit = until is not None and not self.finished
        self.finished = True
        if self.progress is not None:
            self.progress(self.n, self.n)
        return self.tally.result(
            self.eng, self.q, self.dlq, time.perf_counter() - wall, horizon_hit, self.next_i
        )


class _Attempt:
    __slots__ = ("worker", "receipt", "i", "alive", "received_at")

    def __init__(self, worker, receipt, i, received_at):
        self.worker, self.receipt, self.i, self.received_at, self.alive = (
            worker,
            receipt,
            i,
            received_at,
            True,
        )


class WorkerFleet(Fleet):
    """Long-polling workers: receive up to ``receive_max_messages``, process them one after the other."""

    def start(self) -> None:
        self.start_arrivals()
        # one long-poll callback per worker, made once (the hot path)
        self._callbacks = [partial(self.got, w) for w in range(self.sc.concurrency)]
        self._poll_max, self._poll_wait = self.sc.receive_max_messages, self.sc.wait_time
        for w in range(self.sc.concurrency):
            self.eng.schedule(0, self.poll, w)

    def poll(self, w) -> None:
        if self.finished or (self.next_i >= self.n and self.check_done()):
            return
        self.eng.poll(self.q, self._callbacks[w], max_messages=self._poll_max, wait=self._poll_wait)

    def got(self, w, rs) -> None:
        if not rs:
            if self.sc.wait_time <= 0:
                self.eng.schedule(1.0, self.poll, w)  # short polling: back off a second
            else:
                self.poll(w)
            return
        self.tally.received(rs, self.eng.now)
        self.note_inflight()
        self.process(w, rs, 0)

    def process(self, w, rs, k) -> None:
        if k >= len(rs):
            self.poll(w)
            return
        sc, eng, tally = self.sc, self.eng, self.tally
        r = rs[k]
        i = r.message.tag
        a = _Attempt(w, r, i, r.received_at)
        # tally.start(i), inlined (hot path)
        tally.starts[i] += 1
        if tally.active[i]:
            tally.concurrent[i] = True
        tally.active[i] += 1
        duration = self.work()
        if sc.crash_before_delete and self.unif() < sc.crash_before_delete:
            eng.schedule(self.unif() * duration, self.crash, a, rs, k)
        elif tally.poison[i] or (sc.transient and self.unif() < sc.transient):
            eng.schedule(duration, self.fail, a, rs, k)
        else:
            eng.schedule(duration, self.succeed, a, rs, k)
        if sc.heartbeat_interval is not None:
            eng.schedule(sc.heartbeat_interval, self.beat, a)

    def beat(self, a: _Attempt) -> None:
        if not a.alive:
            return
        sc, eng = self.sc, self.eng
        # ChangeMessageVisibility counts from the call and caps at 12 h per receipt: a well-behaved worker
        # clamps its extension to what is left of the cap (DESIGN.md, SQS semantics).
        room = MAX_VISIBILITY - (eng.now - a.received_at)
        extend = min(sc.heartbeat_extend_by, math.floor(room))
        if extend <= 0:
            return
        try:
            eng.change_visibility(self.q, a.receipt.handle, extend)
        except SQSError:
            return  # message gone (deleted by another attempt) or cap reached: stop heartbeating
        eng.schedule(sc.heartbeat_interval, self.beat, a)

    def _end(self, a: _Attempt) -> None:
        a.alive = False
        self.tally.active[a.i] -= 1

    def succeed(self, a: _Attempt, rs, k) -> None:
        tally, i = self.tally, a.i
        a.alive = False  # self._end(a), inlined (hot path)
        tally.active[i] -= 1
        tally.completions[i] += 1
        try:
            self.eng.delete(self.q, a.receipt.handle)
        except SQSError:
            pass  # FIFO: the handle expired; the message will be processed again
        else:
            if tally.done_at[i] < 0:
                tally.done_at[i] = self.eng.now
                tally.deleted += 1
        if k + 1 < len(rs):
            self.process(a.worker, rs, k + 1)
        else:
            self.poll(a.worker)

    def fail(self, a: _Attempt, rs, k) -> None:
        self._end(a)
        if self.sc.on_failure == "release":
            with contextlib.suppress(SQSError):
                self.eng.change_visibility(self.q, a.receipt.handle, 0)
        else:
            self.tally.crashed(a.i, a.received_at, self.eng.now)
        self.process(a.worker, rs, k + 1)

    def crash(self, a: _Attempt, rs, k) -> None:
        """The worker dies: its other received messages are lost to it too (they wait for expiry)."""
        self._end(a)
        now = self.eng.now
        for r in rs[k:]:
            self.tally.crashed(r.message.tag, r.received_at, now)
        self.poll(a.worker)  # a replacement worker starts polling at once


def build(sc: Scenario, progress=None, sample_every: float | None = None) -> Fleet:
    if sc.is_lambda:
        from visguard.engine.sim_lambda import LambdaFleet

        fleet: Fleet = LambdaFleet(sc, progress, sample_every)
    else:
        fleet = WorkerFleet(sc, progress, sample_every)
    fleet.start()
    return fleet


def simulate(sc: Scenario, progress=None) -> dict:
    """Run one scenario to the end (every message deleted or dead-lettered) or to its horizon."""
    return build(sc, progress).run()
