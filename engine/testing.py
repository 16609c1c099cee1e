"""Run your own SQS code against the engine: ``mock_sqs`` routes boto3 to one :class:`Engine`.

```python
from visguard.engine.testing import mock_sqs

with mock_sqs() as eng:              # also @mock_sqs, @mock_sqs(...), a class decorator, start()/stop()
    sqs = boto3.client("sqs", region_name="us-east-1")
    ...                              # your consumer, unchanged: threads, time.sleep, long polls, asyncio
    time.sleep(12 * 3600)            # 12 virtual hours, in milliseconds of real time
```

Forms (those of moto's ``mock_aws``, with the same meaning): ``@mock_sqs`` and ``@mock_sqs()`` on a function
(a new engine per call; coroutine functions too), ``@mock_sqs(start_time=..., clock=..., ...)`` with options,
``with mock_sqs() as eng``, ``m = mock_sqs(); eng = m.start(); ...; m.stop()``. On a class (unittest or pytest
style) every public method runs inside the mock: the tests, ``setUp``/``tearDown``, ``setup_method``/
``teardown_method``, helpers, inherited ones from the user's base classes; static and class methods are left
alone. All the methods of one test instance share one engine (what ``setUp`` creates the test sees; each test
gets a fresh engine); the mock is open while each method runs, so a thread should not outlive the method that
started it. A mock opened inside an open one joins it and yields the same engine (as nested ``mock_aws`` share
moto's backends); one for a different engine is a RuntimeError, and so is one opened under the virtual
clock by a thread that is not part of the open block (neither its opener nor started inside it): that thread
would sleep in real time against a shared virtual clock. Misuse is a TypeError: ``engine=`` something
other than an Engine instance, options beside a given engine, an unknown option, decorating a non-callable.

Routing: while the mock is open, every SQS client botocore creates (``boto3.client("sqs")``,
``boto3.Session().client("sqs")``, ``boto3.resource("sqs")``'s client) is a real botocore client whose requests
never leave the process: botocore validates the parameters and builds the call as usual, then a
``before-call`` handler answers it from the engine (engine/client.py), so paginators, waiters of the resource
layer, ``can_paginate``, exceptions (``client.exceptions.QueueDoesNotExist``) and resources behave as boto3's
own. No credentials are needed or read for SQS inside the block. Queue URLs and ARNs carry the client's region
and the engine's account id (``https://sqs.{region}.amazonaws.com/{account}/{name}``).

Clocks:

- ``clock="virtual"`` (default): inside the block ``time.time()``, ``time.monotonic()`` (and their ``_ns``
  forms) read the engine's clock, and ``time.sleep``, ``threading.Event.wait`` and ``Thread.join`` with a
  timeout wait on it. The clock moves only when every thread in the test (the one that opened the block and
  every thread started inside it: the participants) is waiting: sleeping, in a long poll, in ``Event.wait`` or
  ``join``, in an asyncio event loop waiting for its next timer. It then jumps to the earliest moment anything
  can happen (a sleep ending, a message becoming visible, a long poll timing out), so a consumer's 12 hours run
  in milliseconds and in the order they would in real time. In the test thread ``eng.advance(s)`` is
  ``time.sleep(s)``. A thread blocked in something else (a socket, a ``queue.Queue.get`` without timeout, an
  idle thread-pool worker) for ``stall`` real seconds no longer holds the clock, which then moves at real
  speed. Code that imported ``sleep`` or ``time`` with ``from time import ...`` before the block keeps the
  real ones; ``datetime.now()`` stays real.
- asyncio: an event loop running in a participant (``asyncio.run`` inside the block, an
  ``IsolatedAsyncioTestCase`` under ``@mock_sqs``) reads the virtual clock (``loop.time()`` is
  ``time.monotonic()``) and waits for its timers on it: its selector's ``select(timeout)`` is a virtual wait
  that also ends when a file descriptor is ready. ``asyncio.sleep(3600)``, ``wait_for`` timeouts and
  ``call_later`` take virtual time. Other selectors (subprocess, plain sockets) and uvloop stay real.
- Spinning: a participant that polls without waiting would hold the clock forever (a consumer that
  short-polls in a loop, ``while time.time() < deadline: receive()``). So reads count: a read is a call that
  changes nothing (GetQueueAttributes, GetQueueUrl, the List calls, a ReceiveMessage that returns nothing, any
  refused call) or a read of ``time.time``/``time.monotonic``. After ``SPIN_READS`` (100) reads in a row without
  a wait or a change, the participant is spinning: it waits until anything changes (an engine call that
  changes something, ``Event.set``, a thread starting or ending) or the clock moves, at the latest until the
  next moment a queue changes by itself (a message becoming visible or expiring) or until ``SPIN_STEP_RATIO``
  (1/16) of the virtual time it has spun so far has passed (at least ``SPIN_STEP_MIN``, 1 ms). Then it is
  spinning again after ``SPIN_READS_AGAIN`` (10) reads, until it waits or changes something. So a short-poll
  loop receives a message at the very moment it becomes visible, and a loop that waits for its own deadline
  ends at most 1/16 of its length after it. A loop that calls neither the engine nor the clock is invisible.
- ``clock="wall"``: the engine follows real time (its clock is set to ``time.time()`` before every
  operation and long polls wait in real time); nothing is patched.
"""

from __future__ import annotations

import functools
import inspect
import sys
import threading
import time

from .clock import INF
from .core import Engine

__all__ = ["mock_sqs"]

_REAL_SLEEP = time.sleep
_REAL_TIME = time.time
_REAL_MONOTONIC = time.monotonic
_ACTIVE: list = []  # the open mock (one at a time)
_INSTANCE_ENGINE = "_visguard_mock_sqs_engine"
# the spin rule (module docstring, "Spinning"): reads in a row that make a participant a spinner, the same once
# it has been one, and the virtual time a spin lets pass when nothing is due earlier
SPIN_READS = 100
SPIN_READS_AGAIN = 10
SPIN_STEP_MIN = 0.001
SPIN_STEP_RATIO = 1 / 16
# operations that only read: a call of one of them (or a ReceiveMessage that returns nothing, or any refused
# call) changes nothing, so a loop of them without a wait is a spin
_READ_OPS = frozenset({
    "ReceiveMessage", "GetQueueAttributes", "GetQueueUrl", "ListQueues", "ListQueueTags",
    "ListDeadLetterSourceQueues", "ListMessageMoveTasks",
})  # fmt: skip  # a decorated class's test instance keeps its engine here


class _VirtualScheduler:
    """Moves the engine's clock when every participating thread waits; one lock guards the engine."""

    def __init__(self, eng: Engine, stall: float):
        self.eng = eng
        self.cond = threading.Condition(threading.RLock())
        self.threads = {threading.current_thread()}  # participants: the opener and threads started inside
        self.pending = 0  # threads started but not yet running
        self.ended = set()  # participants whose run() returned (still is_alive() for a moment after)
        self.waiting = {}  # thread -> (deadline, done)
        self.closed = False
        self.local = threading.local()
        self.stall = stall
        self.activity = _REAL_MONOTONIC()  # real time of the last call into the engine, sleep or wake-up
        self.changes = (
            0  # counts what a spinner may be waiting for: engine changes, Event.set, threads ending
        )

    def participates(self) -> bool:
        return not self.closed and threading.current_thread() in self.threads

    def read(self) -> None:
        """A participant read the clock or the engine and changed nothing. After SPIN_READS such reads in a row
        (SPIN_READS_AGAIN once it has spun) without a wait or a change it is spinning: it waits until anything
        changes, or the clock moves, at the latest until the next moment a queue changes by itself or
        SPIN_STEP_RATIO of the virtual time it has spun (at least SPIN_STEP_MIN) has passed."""
        loc = self.local
        if self.closed or getattr(loc, "raw", False) or threading.current_thread() not in self.threads:
            return
        since = getattr(loc, "spin_since", None)
        n = getattr(loc, "reads", 0) + 1
        if n < (SPIN_READS if since is None else SPIN_READS_AGAIN):
            loc.reads = n
            return
        loc.reads = 0
        eng = self.eng
        with self.cond:
            now = eng.now
            if since is None:
                loc.spin_since = since = now
            deadline = min(now + max(SPIN_STEP_MIN, (now - since) * SPIN_STEP_RATIO), eng.next_change_time())
            seen = self.changes
            self.block(deadline, lambda: self.changes != seen or eng.now > now, spin=True)

    def progressed(self) -> None:
        """The calling thread waited or changed something: it is not spinning."""
        loc = self.local
        loc.reads = 0
        loc.spin_since = None

    def block(self, deadline: float, done, spin: bool = False) -> None:
        """Wait until ``done()`` or the virtual ``deadline``; may move the clock (see the module docstring)."""
        me = threading.current_thread()
        if not spin:
            self.progressed()
        with self.cond:
            if done() or self.eng.now >= deadline:
                return
            self.waiting[me] = (deadline, done)
            self.activity = _REAL_MONOTONIC()
            self.settle()
            while me in self.waiting and not self.closed:
                self.cond.wait(0.05)  # real time: a safety net, notify_all does the waking
                idle = _REAL_MONOTONIC() - self.activity
                if me in self.waiting and idle > self.stall:
                    # a participant blocked elsewhere (a queue.Queue, a pool's idle worker) for `stall` real
                    # seconds no longer holds the clock, which then follows real time (never faster), so the
                    # test cannot hang on it and a real-time timeout there still means what it says
                    self.activity = _REAL_MONOTONIC()
                    self.settle(limit=self.eng.now + idle)
                elif me in self.waiting:
                    self.settle()
            self.waiting.pop(me, None)

    def settle(self, limit: float | None = None) -> None:
        """Release the waiters whose wait is over; if every participant waits, move the clock to the next
        moment something can happen, run the engine's events up to it, and release again."""
        eng = self.eng
        while True:
            now = eng.now
            released = [th for th, (d, done) in self.waiting.items() if d <= now or done()]
            if released:
                for th in released:
                    del self.waiting[th]
                self.activity = _REAL_MONOTONIC()
                self.cond.notify_all()
                return
            if limit is None and (self.pending or any(th not in self.waiting for th in self.threads)):
                return
            t = min(min((d for d, _ in self.waiting.values()), default=INF), eng.next_event_time())
            if limit is not None:
                t = min(t, limit)
            if t == INF:
                return  # nothing can ever happen: everybody waits for everybody (the test hangs, as it would)
            eng.run(until=max(t, now))
            if limit is not None and eng.now >= limit:
                limit = None
                released = [th for th, (d, done) in self.waiting.items() if d <= eng.now or done()]
                for th in released:
                    del self.waiting[th]
                if released:
                    self.cond.notify_all()
                return

    # ------------------------------------------------------------------ thread bookkeeping
    def started(self, thread) -> None:
        with self.cond:
            self.pending -= 1
            self.threads.add(thread)
            self.changes += 1

    def finished(self, thread) -> None:
        with self.cond:
            self.changes += 1
            self.threads.discard(thread)
            self.ended.add(thread)
            self.waiting.pop(thread, None)
            self.settle()
            self.cond.notify_all()


class mock_sqs:  # noqa: N801  (named like moto's mock_aws)
    """Route boto3's SQS clients and resources to one :class:`Engine` (see the module docstring).

    ``engine``: an Engine to use (default: a new one with ``engine_options``, e.g. ``inflight_limit``);
    ``clock``: "virtual" (default) or "wall"; ``region``/``account_id``: the new engine's defaults for clients
    that name no region; ``stall`` (real seconds, default 0.5): how long a participant may stay blocked
    outside the waits the virtual clock knows before the clock moves without it (then at real speed).
    ``with mock_sqs() as eng`` and ``start()`` give the Engine; ``mock_sqs().engine`` holds it too. Every form of
    moto's ``mock_aws`` works: ``@mock_sqs``, ``@mock_sqs()``, ``@mock_sqs(...)`` on a function, a coroutine
    function or a class, ``with``, ``start()``/``stop()`` (module docstring, "Forms").
    """

    def __new__(cls, *args, **kwargs):
        target = args[0] if args else None
        if callable(target) and not isinstance(target, Engine) and not _is_engine_class(target):
            return cls(*args[1:], **kwargs)(target)  # bare @mock_sqs: decorate at once, as mock_aws(func)
        return super().__new__(cls)

    def __init__(self, engine: Engine | None = None, *, clock: str = "virtual", region: str | None = None,
                 account_id: str | None = None, stall: float = 0.5, **engine_options):  # fmt: skip
        if engine is not None and not isinstance(engine, Engine):
            what = "the Engine class" if _is_engine_class(engine) else type(engine).__name__
            raise TypeError(
                f"mock_sqs(engine=...) takes an Engine instance (visguard.engine.Engine()), not {what}"
            )
        if clock not in ("virtual", "wall"):
            raise ValueError(f"clock must be 'virtual' or 'wall', not {clock!r}")
        if isinstance(stall, bool) or not isinstance(stall, int | float) or not stall > 0:
            raise ValueError(f"stall must be a positive number of real seconds, not {stall!r}")
        options = dict(engine_options)
        if region is not None:
            options["region"] = region
        if account_id is not None:
            options["account_id"] = account_id
        if engine is not None and options:
            raise TypeError(
                f"mock_sqs(engine=...) uses that engine's own settings; {', '.join(sorted(options))} cannot apply"
            )
        try:
            inspect.signature(Engine).bind(**options)
        except TypeError as e:
            raise TypeError(f"mock_sqs(): {e} (the Engine options are {_engine_option_names()})") from None
        self.clock = clock
        self.stall = stall
        self._given = engine
        self._options = {"region": "us-east-1", "account_id": "123456789012", **options}
        self._explicit = set(options) | ({"clock"} if clock != "virtual" else set())  # what the caller chose
        self.engine = engine
        self._undo = []
        self._stack = []  # one entry per open __enter__: True if it patched, False if it joined an open mock

    # ------------------------------------------------------------------ enter / exit
    def __enter__(self) -> Engine:
        from visguard.errors import need

        need("botocore.session", extra="aws", what="mock_sqs() (it routes boto3's SQS clients)")
        if _ACTIVE:  # nested: share the open mock's engine, as nested mock_aws share moto's backends
            outer = _ACTIVE[-1]
            if self._given is not None and self._given is not outer.engine:
                raise RuntimeError("mock_sqs() is already active with another engine; one engine at a time")
            mine = {**self._options, "clock": self.clock}
            theirs = {**outer._options, "clock": outer.clock}
            clash = sorted(k for k in self._explicit if mine[k] != theirs.get(k))
            if clash:  # the shared engine cannot honour them: say so rather than ignore them
                raise RuntimeError(
                    f"a nested mock_sqs() shares the open one's engine, so its {', '.join(clash)} cannot apply: "
                    "give them to the outer mock_sqs()"
                )
            if outer.clock == "virtual" and not outer.sched.participates():
                # a thread that neither opened the block nor was started inside it: its sleeps would be real
                # time while the opener's are virtual; one clock cannot serve two tests at once
                raise RuntimeError(
                    "mock_sqs() is already open in another thread: open it once, in the test's thread, and start "
                    "the other threads inside the block (they share its engine and its clock)"
                )
            self._stack.append(False)
            self.engine = outer.engine
            return outer.engine
        eng = self._given if self._given is not None else self._new_engine()
        self.engine = eng
        self.sched = _VirtualScheduler(eng, self.stall)
        _ACTIVE.append(self)
        self._stack.append(True)
        self._patch_botocore()
        if self.clock == "virtual":
            self._patch_time()
            self._patch_threading()
            self._patch_selectors()
            self._patch(eng, "block_until", lambda done: self._block_until(done))
            real_advance = eng.advance
            self._patch(eng, "advance", lambda s: self._advance(real_advance, s))
        else:
            self._patch(eng, "block_until", self._wall_block_until)
        real_client = eng.client
        self._patch(eng, "client", lambda region=None: self._locked(real_client(region)))
        return eng

    def __exit__(self, *exc) -> None:
        if not self._stack.pop():
            return
        with self.sched.cond:
            self.sched.closed = True
            self.sched.waiting.clear()
            self.sched.cond.notify_all()
        for undo in reversed(self._undo):
            undo()
        self._undo.clear()
        _ACTIVE.remove(self)

    def start(self) -> Engine:
        """Open the mock (as ``with``) until ``stop()``; returns the Engine."""
        return self.__enter__()

    def stop(self) -> None:
        """Close what ``start()`` opened."""
        if not self._stack:
            raise RuntimeError("mock_sqs.stop() called before start()")
        self.__exit__(None, None, None)

    def _new_engine(self) -> Engine:
        if self.clock == "wall":
            return Engine(**{"start_time": _REAL_TIME(), **self._options})
        return Engine(**self._options)

    # ------------------------------------------------------------------ decorator forms
    def __call__(self, target):
        if isinstance(target, type):
            return self._decorate_class(target)
        if not callable(target):
            raise TypeError(f"mock_sqs decorates a function or a class, not {type(target).__name__}")
        return self._wrap(target, per_instance=False)

    def _session(self, args, per_instance: bool) -> mock_sqs:
        """The mock one call of a decorated function opens: a new engine per call, or for a method of a decorated
        class the engine of that test instance (made by the first of setUp, the test, tearDown to run)."""
        eng = self._given
        if eng is None and per_instance and args:
            holder = getattr(args[0], "__dict__", None)
            if holder is not None:
                eng = holder.get(_INSTANCE_ENGINE)
                if eng is None:
                    eng = holder[_INSTANCE_ENGINE] = self._new_engine()
        if eng is None:
            return mock_sqs(clock=self.clock, stall=self.stall, **self._options)
        return mock_sqs(eng, clock=self.clock, stall=self.stall)

    def _wrap(self, fn, per_instance: bool):
        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def run_async(*args, **kwargs):
                with self._session(args, per_instance) as eng:
                    self.engine = eng
                    return await fn(*args, **kwargs)

            return run_async

        @functools.wraps(fn)
        def run(*args, **kwargs):
            with self._session(args, per_instance) as eng:
                self.engine = eng
                return fn(*args, **kwargs)

        return run

    def _decorate_class(self, klass):
        """As mock_aws on a class: every public method (tests, setUp/tearDown, setup_method/teardown_method,
        helpers; inherited ones from the user's base classes too) runs inside the mock, all the methods of one
        test instance on one engine; static and class methods are left alone; nested classes are decorated."""
        seen = set()
        for cls in klass.__mro__:
            if cls is object or cls.__module__.split(".")[0] == "unittest":
                continue
            for name, value in list(vars(cls).items()):
                if name.startswith("_") or name in seen:
                    continue
                seen.add(name)
                if isinstance(value, staticmethod | classmethod):
                    continue
                if isinstance(value, type) and cls is klass:
                    self._decorate_class(value)
                elif inspect.isfunction(value):
                    setattr(klass, name, self._wrap(value, per_instance=True))
        return klass

    def _patch(self, obj, name, value) -> None:
        had = name in vars(obj)
        old = vars(obj).get(name)
        setattr(obj, name, value)
        self._undo.append(lambda: setattr(obj, name, old) if had else delattr(obj, name))

    # ------------------------------------------------------------------ boto3 routing
    def _patch_botocore(self) -> None:
        import botocore.session

        original = botocore.session.Session.create_client
        mock = self

        def create_client(session, service_name, *args, **kwargs):
            if service_name != "sqs":
                return original(session, service_name, *args, **kwargs)
            if (
                not args
                and kwargs.get("region_name") is None
                and session.get_config_variable("region") is None
            ):
                kwargs["region_name"] = mock.engine.region
            client = original(session, service_name, *args, **kwargs)
            mock._route(client)
            return client

        self._patch(botocore.session.Session, "create_client", create_client)

    def _route(self, client) -> None:
        """Answer every call of a real botocore SQS client from the engine (after botocore's validation)."""
        from botocore.awsrequest import AWSResponse

        from .client import EngineClient

        engine_client = EngineClient(self.engine, client.meta.region_name)
        sched = self.sched
        url = client.meta.endpoint_url
        mock = self

        def keep_params(params, context, **_):
            context["visguard_params"] = dict(params)

        def answer(model, context, **_):
            # a client made inside the block keeps talking to its engine after the block (never to AWS)
            if sched.closed:
                with sched.cond:
                    status, parsed = engine_client.respond(model.name, context["visguard_params"])
            else:
                status, parsed = mock._run(
                    lambda: engine_client.respond(model.name, context["visguard_params"]),
                    lambda out: out[0] == 200 and _changes(model.name, out[1]),
                )
            headers = {"x-amzn-requestid": parsed.get("ResponseMetadata", {}).get("RequestId", "")}
            return AWSResponse(url, status, headers, None), parsed

        client.meta.events.register("before-parameter-build.sqs", keep_params)
        client.meta.events.register("before-call.sqs", answer)

    def _locked(self, client):
        """``eng.client()`` inside the block: the same client, its calls serialised with the routed ones."""
        call = client._call
        client._call = lambda op, fn, kwargs: self._run(
            lambda: call(op, fn, kwargs), lambda out: _changes(op, out)
        )
        return client

    def _run(self, fn, changed):
        """Run one engine operation under the lock; ``changed(result)``: whether it changed anything (a call
        that only read, or failed, counts towards the spin rule)."""
        sched = self.sched
        done = False
        with sched.cond:
            sched.activity = _REAL_MONOTONIC()
            if self.clock == "wall":
                self._catch_up()
            try:
                out = fn()
                done = changed(out)
                if done:
                    sched.changes += 1
                return out
            finally:
                if self.clock == "virtual":
                    sched.settle()
                sched.cond.notify_all()
                if done:
                    sched.progressed()
                elif self.clock == "virtual":
                    sched.read()

    # ------------------------------------------------------------------ virtual clock
    def _block_until(self, done) -> None:
        sched = self.sched
        if sched.participates():
            sched.block(INF, done)
        else:  # a thread from before the block: run the engine as Engine.block_until does
            while not done() and self.engine.step():
                pass

    def _advance(self, real_advance, seconds) -> None:
        if not seconds >= 0:
            raise ValueError("cannot move the virtual clock backwards")
        if self.sched.participates():
            self.sched.block(self.engine.now + seconds, _never)
        else:
            with self.sched.cond:
                real_advance(seconds)

    def _patch_time(self) -> None:
        eng, sched = self.engine, self.sched
        offset = _REAL_MONOTONIC() - eng.now  # monotonic readings keep their usual magnitude

        read = sched.read

        def sleep(seconds):
            if not sched.participates() or seconds <= 0:
                return _REAL_SLEEP(seconds)
            sched.block(eng.now + seconds, _never)
            return None

        def now():
            read()
            return eng.now

        def now_ns():
            read()
            return int(eng.now * 1e9)

        def monotonic():
            read()
            return eng.now + offset

        def monotonic_ns():
            read()
            return int((eng.now + offset) * 1e9)

        self._patch(time, "sleep", sleep)
        self._patch(time, "time", now)
        self._patch(time, "time_ns", now_ns)
        self._patch(time, "monotonic", monotonic)
        self._patch(time, "monotonic_ns", monotonic_ns)

    def _patch_threading(self) -> None:
        sched, eng = self.sched, self.engine
        real_start, real_join = threading.Thread.start, threading.Thread.join
        real_wait, real_set = threading.Event.wait, threading.Event.set

        def start(thread):
            if not sched.participates():
                return real_start(thread)
            run = thread.run

            def tracked_run():
                sched.started(thread)
                try:
                    run()
                finally:
                    sched.finished(thread)

            thread.run = tracked_run
            with sched.cond:
                sched.pending += 1
            sched.local.raw = True  # Thread.start waits on an internal Event: real time
            try:
                real_start(thread)
            except BaseException:
                with sched.cond:
                    sched.pending -= 1
                raise
            finally:
                sched.local.raw = False
            return None

        def join(thread, timeout=None):
            if not sched.participates() or thread is threading.current_thread():
                return real_join(thread, timeout)
            deadline = INF if timeout is None else eng.now + max(timeout, 0)
            sched.block(deadline, lambda: thread in sched.ended or not thread.is_alive())
            if thread in sched.ended or not thread.is_alive():
                real_join(thread)  # the thread's run() is over: its last instants are real
            return None

        def wait(event, timeout=None):
            if getattr(sched.local, "raw", False) or not sched.participates():
                return real_wait(event, timeout)
            deadline = INF if timeout is None else eng.now + max(timeout, 0)
            sched.block(deadline, event.is_set)
            return event.is_set()

        def set_(event):
            real_set(event)
            if not sched.closed:
                with sched.cond:
                    sched.changes += 1
                    sched.settle()
                    sched.cond.notify_all()

        self._patch(threading.Thread, "start", start)
        self._patch(threading.Thread, "join", join)
        self._patch(threading.Event, "wait", wait)
        self._patch(threading.Event, "set", set_)

    def _patch_selectors(self) -> None:
        """An asyncio event loop running in a participant waits for its timers on the virtual clock: its
        selector's ``select(timeout)`` is a virtual wait that also ends when a file descriptor is ready (another
        thread's ``call_soon_threadsafe``, real I/O). Other selectors (subprocess, sockets) stay real."""
        import selectors

        sched, eng = self.sched, self.engine

        def virtual(real):
            def select(selector, timeout=None):
                events = sys.modules.get("asyncio.events")
                if (
                    (timeout is not None and timeout <= 0)
                    or events is None
                    or getattr(events._get_running_loop(), "_selector", None) is not selector
                    or not sched.participates()
                ):
                    return real(selector, timeout)
                ready = real(selector, 0)
                if ready:
                    return ready
                sched.block(INF if timeout is None else eng.now + timeout, lambda: bool(real(selector, 0)))
                return real(selector, 0)

            return select

        for cls in vars(selectors).values():
            if isinstance(cls, type) and cls is not selectors.BaseSelector and "select" in vars(cls):
                self._patch(cls, "select", virtual(vars(cls)["select"]))

    # ------------------------------------------------------------------ wall clock
    def _catch_up(self) -> None:
        now = _REAL_TIME()
        if now > self.engine.now:
            self.engine.run(until=now)

    def _wall_block_until(self, done) -> None:
        cond, eng = self.sched.cond, self.engine
        with cond:
            while not done() and not self.sched.closed:
                self._catch_up()
                if done():
                    return
                gap = eng.next_event_time() - eng.now
                cond.wait(min(max(gap, 0.001), 0.05))


def _never() -> bool:
    return False


def _changes(op: str, response: dict) -> bool:
    """Whether a successful call changed the engine: not a read, nor a ReceiveMessage that returned nothing."""
    return op not in _READ_OPS or (op == "ReceiveMessage" and bool(response.get("Messages")))


def _is_engine_class(obj) -> bool:
    return isinstance(obj, type) and issubclass(obj, Engine)


def _engine_option_names() -> str:
    return ", ".join(p for p in inspect.signature(Engine).parameters)
