"""The Lambda event source mapping (ESM) on the engine's heap, modelled from
docs/reference/lambda-sqs-esm.md ("Model for a simulator", behaviours 1-9). What AWS leaves open is a
scenario parameter (consumer.lambda.*) with the default named there.

* Pollers (behaviour 2): ``initial_concurrency`` (5) concurrent batches when messages are available; while
  messages remain visible, up to ``scale_up_per_minute`` (300) more per minute, up to ``max_esm_concurrency``
  (1,250) or ScalingConfig.MaximumConcurrency (behaviour 3); a poller whose long poll comes back empty retires
  while more than the initial number run (the scale-down rate is unconfirmed by AWS).
  Provisioned mode (behaviour 11, consumer.lambda.provisioned) is the same loop with the scenario's numbers from
  ``facts.provisioned_pollers``: 10 x MinimumPollers invokes stay warm (the floor), up to 1,000 more a minute, up
  to 10 x MaximumPollers; ``visguard.engine.risk.EsmScaling`` is its closed form (tests/sim/test_esm_scaling.py).
* Batching (4): each ReceiveMessage returns <= 10 records; with a window W > 0 the poller keeps receiving
  until BatchSize records or W seconds after the first record, then invokes. Records keep the visibility
  clock that started at their receive (the ESM never extends it, behaviour 9).
* Outcome (5): success deletes every record; a function error, a crash or a timeout deletes nothing (the
  whole batch returns when its visibility expires); with ReportBatchItemFailures only the failed records stay.
* Throttling (6): invokes above the function's reserved concurrency are throttled (the ESM does not see
  reserved concurrency); the ESM keeps the batch and retries every ``throttle_retry`` seconds until the
  records' visibility expires, then drops it: the next receive counts towards maxReceiveCount.
"""

from __future__ import annotations

from visguard import facts
from visguard.engine import SQSError
from visguard.engine.sim import Fleet

MAX_VISIBILITY = facts.MAX_VISIBILITY
_TICK = 1.0  # seconds between scaling decisions


class _Batch:
    __slots__ = ("receipts", "deadline", "first_at")

    def __init__(self):
        self.receipts, self.deadline, self.first_at = [], None, None


class LambdaFleet(Fleet):
    def __init__(self, sc, progress=None, sample_every=None):
        super().__init__(sc, progress, sample_every)
        lam = self.lam = sc.lam
        caps = [lam.max_esm_concurrency] + ([lam.max_concurrency] if lam.max_concurrency else [])
        self.cap = min(caps)
        self.floor = min(lam.initial_concurrency, self.cap)
        self.target = float(self.floor)
        self.pollers = 0
        self.running = 0  # invocations running now (compared with reserved concurrency)
        self.throttled = 0
        self.dropped_batches = 0
        self.invocations = 0
        self.timeouts = 0
        self.max_running = 0
        vt = sc.visibility_timeout
        w, t = lam.batching_window, lam.timeout
        # Optional 2021-2022 documented rule (reference section 5): effective VT = W + T + 30 s.
        self.receive_vt = None
        if lam.legacy_effective_visibility and w > 0 and w + t > vt:
            self.receive_vt = min(w + t + 30, MAX_VISIBILITY)

    def start(self) -> None:
        self.start_arrivals()
        for _ in range(self.floor):
            self._spawn()
        self.eng.schedule(_TICK, self._scale)

    def _spawn(self) -> None:
        self.pollers += 1
        self.eng.schedule(0, self.gather, _Batch())

    def _scale(self) -> None:
        """Add pollers while messages remain visible (behaviour 2)."""
        if self.check_done():
            return
        if self.q.counts()["visible"] > 0 and self.target < self.cap:
            self.target = min(self.cap, self.target + self.lam.scale_up_per_minute * _TICK / 60.0)
            while self.pollers < int(self.target):
                self._spawn()
        self.eng.schedule(_TICK, self._scale)

    # ------------------------------------------------------------------ one poller
    def gather(self, batch: _Batch) -> None:
        if self.finished or self.check_done():
            self.pollers -= 1
            return
        if not batch.receipts and self.pollers > max(self.floor, int(self.target)):
            self.pollers -= 1  # scaled down (throttles or an idle queue)
            return
        lam, eng = self.lam, self.eng
        want = min(10, lam.batch_size - len(batch.receipts))
        wait = 20.0
        if batch.deadline is not None:
            wait = max(0.0, min(20.0, batch.deadline - eng.now))
        eng.poll(
            self.q,
            lambda rs, b=batch: self.got(b, rs),
            max_messages=want,
            wait=wait,
            visibility_timeout=self.receive_vt,
        )

    def got(self, batch: _Batch, rs) -> None:
        eng, tally, lam = self.eng, self.tally, self.lam
        now = eng.now
        if rs:
            tally.received(rs, now)
            self.note_inflight()
            if batch.first_at is None:
                batch.first_at = now
                if lam.batching_window > 0:
                    batch.deadline = now + lam.batching_window
            batch.receipts.extend(rs)
        full = len(batch.receipts) >= lam.batch_size
        window_over = batch.deadline is None or now >= batch.deadline
        if batch.receipts and (full or window_over):
            self.invoke(batch)
        elif not batch.receipts and self.pollers > self.floor:
            # an empty long poll: scale back towards the floor (rate unconfirmed by AWS)
            self.target = max(float(self.floor), self.target - 1)
            self.pollers -= 1
        else:
            self.gather(batch)

    def invoke(self, batch: _Batch) -> None:
        lam, eng = self.lam, self.eng
        if lam.reserved_concurrency is not None and self.running >= lam.reserved_concurrency:
            self.throttled += 1
            # "Lambda ... reduces the concurrency allocated to this mapping" on throttles (behaviour 6); by how
            # much is unconfirmed: one poller per throttled invoke, never below the floor.
            self.target = max(float(self.floor), self.target - 1)
            expires = min(r.received_at for r in batch.receipts) + (
                self.receive_vt or self.sc.visibility_timeout
            )
            if eng.now + lam.throttle_retry < expires:
                eng.schedule(lam.throttle_retry, self.invoke, batch)
            else:
                # "until the message's timestamp exceeds your queue's visibility timeout, at which point Lambda
                # drops the message" (reference, behaviour 6): the records return at expiry.
                self.dropped_batches += 1
                eng.schedule(max(0.0, expires - eng.now), self.gather, _Batch())
            return
        self.running += 1
        self.invocations += 1
        if self.running > self.max_running:
            self.max_running = self.running
        tally = self.tally
        for r in batch.receipts:
            tally.start(r.message.tag)
        duration = self.work()
        sc = self.sc
        if sc.crash_before_delete and self.unif() < sc.crash_before_delete:
            eng.schedule(self.unif() * min(duration, lam.timeout), self.finish, batch, "error")
        elif duration > lam.timeout:
            eng.schedule(lam.timeout, self.finish, batch, "timeout")
        else:
            eng.schedule(duration, self.finish, batch, "ok")

    def finish(self, batch: _Batch, outcome: str) -> None:
        self.running -= 1
        eng, tally, sc, q = self.eng, self.tally, self.sc, self.q
        now = eng.now
        rs = batch.receipts
        for r in rs:
            tally.active[r.message.tag] -= 1
        if outcome == "timeout":
            self.timeouts += 1
        lam = self.lam
        whole_failed = outcome != "ok"
        if whole_failed:
            for r in rs:
                tally.crashed(r.message.tag, r.received_at, now)
        else:
            failed = []
            for r in rs:
                i = r.message.tag
                if tally.poison[i] or (sc.transient and self.unif() < sc.transient):
                    failed.append(r)
                else:
                    tally.completions[i] += 1  # its side effects are done, whatever happens to the batch
            if failed and not lam.report_batch_item_failures:
                whole_failed = True
                to_delete = []  # the function raised: the whole batch returns (behaviour 5)
                for r in rs:
                    tally.crashed(r.message.tag, r.received_at, now)
            else:
                bad = {id(r) for r in failed}
                to_delete = [r for r in rs if id(r) not in bad]
                for r in failed:
                    tally.crashed(r.message.tag, r.received_at, now)
            for r in to_delete:
                i = r.message.tag
                try:
                    eng.delete(q, r.handle)
                except SQSError:
                    continue
                if tally.done_at[i] < 0:
                    tally.done_at[i] = now
                    tally.deleted += 1
        if whole_failed and lam.error_backoff and not lam.report_batch_item_failures:
            # behaviour 7: function errors make the ESM back off (not with RBIF); by how much is a parameter
            self.target = max(float(self.floor), self.target - lam.error_backoff)
        self.gather(_Batch())

    def run(self) -> dict:
        out = super().run()
        out.update(
            invocations=self.invocations,
            throttled_invokes=self.throttled,
            dropped_batches=self.dropped_batches,
            function_timeouts=self.timeouts,
            max_concurrent_invocations=self.max_running,
        )
        return out
