"""The retry schedule a Spring Cloud AWS 3.4+ error handler gives a failed message (VG078, VG079): pure functions.

Each failure of receive n (ApproximateReceiveCount n) sets the message's visibility from the failure, so receive
n + 1 comes that long after it (ChangeMessageVisibility counts from the call): ImmediateRetryAsyncErrorHandler 0;
ExponentialBackoffErrorHandler ``min(initial * multiplier^(n-1), max)``; LinearBackoffErrorHandler ``min(initial +
increment * (n-1), max)`` (awspring/spring-cloud-aws ErrorHandlerVisibilityHelper, facts.SPRING_ERROR_HANDLER_SOURCE).
The receive after the maxReceiveCount-th moves the message to the dead-letter queue, so the time from the first
receive to the DLQ is the sum of the first maxReceiveCount waits plus the work of each attempt. Jitter (3.4.1)
only shortens a wait (FULL: uniform in [0, t], HALF: [t/2, t]): the schedule without it is the longest one.
"""

from __future__ import annotations

import math

from visguard.linter.rules._base import as_number


def wait(handler: dict, n: int) -> float | None:
    """Seconds between failed receive ``n`` (1-based) and the next one; None: a setting is computed."""
    cls = handler.get("class")
    if cls == "ImmediateRetryAsyncErrorHandler":
        return 0.0
    initial, top = as_number(handler.get("initial")), as_number(handler.get("max"))
    if initial is None or top is None:
        return None
    if cls == "ExponentialBackoffErrorHandler":
        m = as_number(handler.get("multiplier"))
        if m is None:
            return None
        # the library's arithmetic: a double, capped at Integer.MAX_VALUE, then at max (log form: no overflow)
        if m > 1 and initial > 0 and (n - 1) * math.log(m) + math.log(initial) > math.log(top):
            return float(int(top))
        return float(min(int(min(initial * m ** (n - 1), 2**31 - 1)), int(top)))
    if cls == "LinearBackoffErrorHandler":
        inc = as_number(handler.get("increment"))
        if inc is None:
            return None
        return float(min(int(initial + inc * (n - 1)), int(top)))
    return None


def schedule(handler: dict, max_receive_count: int) -> list[float] | None:
    """The waits after each of the first ``max_receive_count`` failed receives (the last one leads to the DLQ
    move); None when a setting is not known."""
    out = []
    for n in range(1, max_receive_count + 1):
        w = wait(handler, n)
        if w is None:
            return None
        out.append(w)
    return out


def time_to_dlq(waits: list[float], work: float = 0.0) -> float:
    """Seconds from the first receive until the receive that moves the message to the DLQ: every wait, and
    ``work`` seconds of processing per attempt."""
    return float(sum(waits)) + work * len(waits)


def receive_count_for(handler: dict, seconds: float, work: float = 0.0, limit: int = 1000) -> int | None:
    """The smallest maxReceiveCount (up to ``limit``, SQS's maximum) whose time to the DLQ is at least
    ``seconds``; None when none is (an immediate retry of instant work)."""
    total = 0.0
    for n in range(1, limit + 1):
        w = wait(handler, n)
        if w is None:
            return None
        total += w + work
        if total >= seconds:
            return n
    return None


def rejected(handler: dict) -> str | None:
    """Why the handler's builder throws (IllegalArgumentException at start: the application does not start), or
    None: initial and max must be 1-43,200 with initial <= max, multiplier and increment >= 1 (the builders'
    checks)."""
    from visguard.facts import MAX_VISIBILITY

    if handler.get("class") == "ImmediateRetryAsyncErrorHandler":
        return None
    initial, top = as_number(handler.get("initial")), as_number(handler.get("max"))
    for name, v in (("initialVisibilityTimeoutSeconds", initial), ("maxVisibilityTimeoutSeconds", top)):
        if v is not None and not 0 < v <= MAX_VISIBILITY:
            return f"{name}({v:g}) is outside 1-{MAX_VISIBILITY}"
    if initial is not None and top is not None and initial > top:
        return f"initialVisibilityTimeoutSeconds({initial:g}) exceeds maxVisibilityTimeoutSeconds({top:g})"
    for name in ("multiplier", "increment"):
        v = as_number(handler.get(name))
        if v is not None and v < 1:
            return f"{name}({v:g}) is below 1"
    return None


def queue_max_receive_count(queue) -> int | None:
    """The queue's maxReceiveCount when it is a usable number (1-1,000), else None (VG002 reports the rest)."""
    r = queue.redrive
    mrc = r.max_receive_count if r is not None else None
    if not isinstance(mrc, int) or isinstance(mrc, bool) or not 1 <= mrc <= 1000:
        return None
    return mrc
