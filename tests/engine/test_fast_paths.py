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


# --------------------------------------------------------------------------- send handed to a waiting poll
def test_send_to_a_waiting_poll_is_a_normal_receive():
    eng = Engine()
    q = eng.create_queue("q", {"VisibilityTimeout": "30"})
    got = []
    eng.poll(q, got.append, wait=20)
    eng.advance(2)
    m = eng.send(q, "m")
    assert got == []  # the callback is an event at this instant, after the send returns
    eng.advance(0)
    ((r,),) = got
    assert r.message is m and r.received_at == eng.now and m.receive_count == 1
    assert m.first_received_at == eng.now
    assert q.counts() == {"visible": 0, "inflight": 1, "delayed": 0}
    assert eng.peek(q)[0]["State"] == "inflight" and eng.peek(q)[0]["VisibleAt"] == eng.now + 30
    eng.advance(30)
    assert q.counts()["visible"] == 1  # comes back at the visibility timeout
    eng.delete(q, r.handle)  # the handle works (stale delete removes it, the default)
    assert q.counts() == {"visible": 0, "inflight": 0, "delayed": 0}
    assert eng.stats(q)["deleted"] == 1


def test_an_expired_message_goes_to_the_waiter_before_a_new_send():
    eng = Engine()
    q = eng.create_queue("q", {"VisibilityTimeout": "5"})
    eng.send(q, "old")
    eng.receive(q)
    got = []
    eng.advance(1)
    eng.poll(q, lambda rs: got.append([r.message.body for r in rs]), wait=20)
    eng.poll(q, lambda rs: got.append([r.message.body for r in rs]), wait=20)
    eng.schedule(4, eng.send, q, "new")  # at 5, the instant "old" comes back
    eng.run()
    assert got == [["old"], ["new"]]


def test_vt_zero_poll_keeps_the_message_visible_for_the_next_waiter():
    eng = Engine()
    q = eng.create_queue("q")
    got = []
    eng.poll(q, lambda rs: got.append(("a", rs)), wait=5, visibility_timeout=0)
    eng.poll(q, lambda rs: got.append(("b", rs)), wait=5)
    m = eng.send(q, "m")
    eng.run()
    (na, (ra,)), (nb, (rb,)) = got
    assert (na, nb) == ("a", "b") and ra.message is rb.message is m and ra.handle != rb.handle
    assert m.receive_count == 2 and q.counts()["inflight"] == 1


def test_send_at_the_inflight_limit_leaves_the_waiter_waiting():
    eng = Engine(inflight_limit=1)
    q = eng.create_queue("q", {"VisibilityTimeout": "10"})
    eng.send(q, "first")
    (r,) = eng.receive(q)
    got = []
    eng.poll(q, lambda rs: got.append((eng.now - T0, [x.message.body for x in rs])), wait=20)
    eng.send(q, "second")
    assert q.counts() == {"visible": 1, "inflight": 1, "delayed": 0}  # not handed over: quota reached
    eng.schedule(3, eng.delete, q, r.handle)
    eng.run()
    # the quota frees at 3; the waiter is served at its next wake-up (10, when "first" would have come back)
    assert got == [(10, ["second"])]


# --------------------------------------------------------------------------- zero-delay events off the heap
def _ordering(eng, out):
    def a():
        out.append("a")
        eng.schedule(0, out.append, "z1")  # after b: b was scheduled for this instant before z1
        eng.schedule(1, out.append, "late")

    def b():
        out.append("b")
        eng.schedule(0, out.append, "z2")

    eng.schedule(5, a)
    eng.schedule(5, b)
    eng.schedule(0, out.append, "now")
    eng.schedule(6, out.append, "six")  # scheduled before "late", same time: runs first


def test_zero_delay_events_keep_the_heaps_time_then_fifo_order():
    eng = Engine()
    out = []
    _ordering(eng, out)
    eng.run()
    assert out == ["now", "a", "b", "z1", "z2", "six", "late"]
    assert eng.now == T0 + 6


def test_step_runs_events_in_the_same_order_as_run():
    eng = Engine()
    out = []
    _ordering(eng, out)
    while eng.step():
        pass
    assert out == ["now", "a", "b", "z1", "z2", "six", "late"]


def test_run_until_now_runs_zero_delay_events_and_not_later_ones():
    eng = Engine()
    out = []
    eng.schedule(0, out.append, "x")
    eng.schedule(0.5, out.append, "y")
    eng.advance(0)
    assert out == ["x"]
    eng.advance(1)
    assert out == ["x", "y"] and eng.now == T0 + 1


# --------------------------------------------------------------------------- schedule_series (arrivals)
def test_series_calls_run_at_their_times_merged_with_other_events():
    eng = Engine()
    out = []
    eng.schedule(2, out.append, "heap@2")
    eng.schedule_series([T0 + 1, T0 + 2, T0 + 2, T0 + 3], lambda i: out.append((i, eng.now - T0)))
    eng.schedule(3, out.append, "heap@3")  # scheduled before the calls at 2 place the instant 3
    eng.run()
    # at 2: the heap event was scheduled before the series (first) -> it runs first; both calls at 2 together;
    # at 3: "heap@3" was scheduled before the calls at 2 placed the instant 3 -> it runs first too
    assert out == [(0, 1), "heap@2", (1, 2), (2, 2), "heap@3", (3, 3)]


def test_series_stops_at_run_until_and_resumes():
    eng = Engine()
    out = []
    eng.schedule_series([T0 + 1, T0 + 5], out.append)
    eng.advance(3)
    assert out == [0] and eng.now == T0 + 3
    assert eng.step() and out == [0, 1] and eng.now == T0 + 5
    assert not eng.step()
    eng.schedule_series([T0 + 6], out.append)  # the first series is over: a new one is allowed
    eng.run()
    assert out == [0, 1, 0]


def test_series_rejects_unsorted_or_past_times_and_a_second_series():
    import pytest

    eng = Engine()
    with pytest.raises(ValueError):
        eng.schedule_series([T0 + 2, T0 + 1], print)
    with pytest.raises(ValueError):
        eng.schedule_series([T0 - 1], print)
    eng.schedule_series([T0 + 1], print)
    with pytest.raises(ValueError):
        eng.schedule_series([T0 + 2], print)


def test_a_series_placed_before_a_zero_delay_event_runs_first_at_its_instant():
    eng = Engine()
    out = []
    eng.schedule_series([T0, T0], out.append)  # at now: placed like an event scheduled now
    eng.schedule(0, out.append, "after")
    eng.run()
    assert out == [0, 1, "after"]


def test_fifo_long_poll_at_the_inflight_quota_waits_for_a_message_to_come_back():
    # Found by a differential run against the pre-optimisation core, which had the same livelock: a ready
    # group with the quota full re-armed a wake-up at the same instant forever.
    eng = Engine(inflight_limit=1)
    q = eng.create_queue("q.fifo", {"VisibilityTimeout": "4"})
    eng.send(q, "a", group_id="g1", dedup_id="a")
    eng.send(q, "b", group_id="g2", dedup_id="b")
    (r,) = eng.receive(q)  # "a": the quota is full, group g2 is ready
    got = []
    eng.poll(q, lambda rs: got.append((eng.now - T0, [x.message.body for x in rs])), wait=10)
    eng.run()
    assert got == [(4, ["b"])]  # "a" comes back at 4: the quota frees; g2 became ready first (at 0)
    eng.poll(q, lambda rs: got.append((eng.now - T0, [x.message.body for x in rs])), wait=2)
    eng.run()
    assert got[1] == (6, [])  # at the quota again ("b" in flight): the poll times out
