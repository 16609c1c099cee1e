"""The core's fast paths (added for the simulator's speed) keep the long-poll semantics of the slow ones.

One poll-timeout event per queue (instead of one per poll), the early exit of a receive on a queue with nothing
visible, and the serving of waiters without a nested re-serve: each test states what the per-poll version did.
"""

from __future__ import annotations

from visguard.engine import Engine

T0 = 1_767_225_600.0


def _recorder(eng, got, name):
    return lambda rs: got.append((name, eng.now - T0, [r.message.body for r in rs]))


def test_mixed_waits_time_out_at_their_own_deadlines_in_deadline_order():
    eng = Engine()
    q = eng.create_queue("q")
    got = []
    for name, wait in (("a", 10), ("b", 3), ("c", 5), ("d", 3), ("e", 20)):
        eng.poll(q, _recorder(eng, got, name), wait=wait)
    eng.advance(4)
    assert got == [("b", 3, []), ("d", 3, [])]  # equal deadlines: arrival order
    eng.send(q, "m")  # the oldest waiter still waiting gets it
    eng.run()
    assert got[2] == ("a", 4, ["m"])
    assert got[3:] == [("c", 5, []), ("e", 20, [])]
    assert eng.now == T0 + 20


def test_a_served_waiter_gets_no_timeout_and_a_new_poll_gets_its_own():
    eng = Engine()
    q = eng.create_queue("q", {"VisibilityTimeout": "100"})
    got = []

    def again(rs):
        got.append((eng.now - T0, [r.message.body for r in rs]))
        if rs:
            eng.poll(q, again, wait=20)

    eng.poll(q, again, wait=20)
    eng.schedule(15, eng.send, q, "m")
    eng.run()
    # served at 15 (not timed out at 20); the new poll waits until 35
    assert got == [(15, ["m"]), (35, [])]
    assert eng.now == T0 + 35


def test_timeouts_do_not_move_the_clock_once_nobody_waits():
    eng = Engine()
    q = eng.create_queue("q")
    got = []
    eng.poll(q, _recorder(eng, got, "a"), wait=20)
    eng.send(q, "m")
    eng.run()
    assert got == [("a", 0, ["m"])]
    assert eng.now == T0  # the armed timeout found no waiter: skipped without advancing the clock


def test_waiters_served_in_order_across_expiries_and_deliveries():
    eng = Engine()
    q = eng.create_queue("q", {"VisibilityTimeout": "4"})
    eng.send(q, "x")
    (r,) = eng.receive(q)
    got = []
    for name in "ab":
        eng.poll(q, _recorder(eng, got, name), wait=10)
    eng.run()
    # "x" comes back at 4 (expiry) to the first waiter, and again at 8 to the second, which still waits
    assert got == [("a", 4, ["x"]), ("b", 8, ["x"])]
    assert eng.now == T0 + 8  # the timeout armed for 10 found nobody waiting
    assert q.counts() == {"visible": 0, "inflight": 1, "delayed": 0}
    assert r.message.receive_count == 3


def test_receive_on_an_empty_queue_still_reports_overlimit_first():
    import pytest
    from visguard.engine import SQSError

    eng = Engine(inflight_limit=1)
    q = eng.create_queue("q")
    eng.send(q, "a")
    eng.receive(q)
    with pytest.raises(SQSError) as e:
        eng.receive(q)  # nothing visible, but the in-flight quota is the error AWS gives (ev. 1.9)
    assert e.value.code == "OverLimit"
