"""Fixes in CDK terms: the linter's findings speak CloudFormation ("Set VisibilityTimeout to at least 180 s");
a CDK user writes ``visibility_timeout=Duration.seconds(180)``. Pure functions of a finding's rule, its fix text
and what kind of construct holds the queue (``guarded``: a GuardedQueue, else an ``aws_sqs.Queue`` or a
CfnQueue). The linter's own wording is kept for rules with no CDK-specific advice."""

from __future__ import annotations

import re

_SECONDS = re.compile(r"(\d[\d,]*(?:\.\d+)?) s\b")
_TIMEOUT_RULES = {"VG010", "VG011", "VG012", "VG016"}
# The policy's heartbeat plan as the linter words it (visguard.policy.Heartbeat.text).
_PLAN = re.compile(r"ChangeMessageVisibility\((\d+)\) every (\d+) s")
_SPLIT = "split the work into steps (Step Functions) or checkpoint it"


def duration_expr(seconds: float) -> str:
    """A whole number of seconds as the CDK Duration a user would write: hours, minutes, else seconds."""
    n = int(seconds) if seconds == int(seconds) else int(seconds) + 1
    if n and n % 3600 == 0:
        return f"Duration.hours({n // 3600})"
    if n and n % 60 == 0:
        return f"Duration.minutes({n // 60})"
    return f"Duration.seconds({n})"


def heartbeat_fix(extend_by: int, interval: int, *, guarded: bool, split: bool = False) -> str:
    """A heartbeat plan (the workers call ChangeMessageVisibility(extend_by) every interval) in CDK terms; with
    ``split`` the advice for work that runs past the 12-hour cap even with a heartbeat."""
    calls = (
        f"the workers call ChangeMessageVisibility({extend_by}) every {interval} s while processing, asking for "
        "at most 43200 s minus the time since the receive (the 12-hour cap is not reset)"
    )
    if guarded:
        text = (
            f"add_worker_consumer(..., heartbeat_interval={duration_expr(interval)}, "
            f"heartbeat_extend_by={duration_expr(extend_by)}), where {calls}; with visibility_timeout left out, "
            f"GuardedQueue then derives {duration_expr(extend_by)} from the heartbeat."
        )
    else:
        text = f"visibility_timeout={duration_expr(extend_by)} on the aws_sqs.Queue, and {calls}."
    if split:
        text += f" Some work still runs past 12 h: {_SPLIT}."
    return text


def _last_seconds(text: str | None) -> int | None:
    """The last "N s" in a fix ("at least 6 x 120 s (2 min) = 720 s (12 min)" -> 720), rounded up."""
    found = _SECONDS.findall(text or "")
    if not found:
        return None
    value = float(found[-1].replace(",", ""))
    return int(value) if value == int(value) else int(value) + 1


def cdk_fix(rule: str, fix: str | None, *, guarded: bool) -> str | None:
    """The fix of a finding of ``rule`` in CDK terms."""
    plan = _PLAN.search(fix or "")
    if rule in _TIMEOUT_RULES and plan is not None:  # past the 12-hour cap: the policy's heartbeat plan
        extend_by, interval = int(plan.group(1)), int(plan.group(2))
        return heartbeat_fix(extend_by, interval, guarded=guarded, split="Step Functions" in fix)
    seconds = _last_seconds(fix)
    if rule in _TIMEOUT_RULES and seconds is not None:
        if guarded:
            return (
                f"visibility_timeout=Duration.seconds({seconds}) on the GuardedQueue, or leave "
                "visibility_timeout out and GuardedQueue derives it from the consumers you add."
            )
        return f"visibility_timeout=Duration.seconds({seconds}) on the aws_sqs.Queue."
    if rule == "VG013" and seconds is not None:
        if guarded:
            return (
                f"visibility_timeout=Duration.seconds({seconds}), or leave visibility_timeout out (derived from "
                "the consumers); for long jobs add_worker_consumer(..., heartbeat_interval=...)."
            )
        return f"visibility_timeout=Duration.seconds({seconds}) on the aws_sqs.Queue."
    if rule == "VG031":
        if guarded:
            return (
                "add_lambda_consumer(fn, ..., report_batch_item_failures=True) and return batchItemFailures."
            )
        return "SqsEventSource(queue, ..., report_batch_item_failures=True) and return batchItemFailures."
    if rule == "VG020":
        return (
            "visguard.constructs.GuardedQueue (a DLQ of the same type, 14 days, max_receive_count=5), or "
            "dead_letter_queue=sqs.DeadLetterQueue(queue=dlq, max_receive_count=5) on the aws_sqs.Queue."
        )
    if rule == "VG021":
        if guarded:
            return "GuardedQueue(..., max_receive_count=5) (the default)."
        return "sqs.DeadLetterQueue(queue=dlq, max_receive_count=5)."
    if rule == "VG022":
        if guarded:
            return (
                "leave the DLQ's retention at GuardedQueue's 14 days (no retention_period in "
                "dead_letter_queue_props), and keep the queue's retention_period shorter."
            )
        return "retention_period=Duration.days(14) on the dead-letter queue, longer than the source's."
    if rule == "VG030":
        return (
            "batch_size above 10 needs max_batching_window=Duration.seconds(1) or more; a FIFO queue takes no "
            "max_batching_window."
        )
    if rule == "VG032":
        return "timeout=Duration.minutes(15) at most on the lambda_.Function; move longer work to a worker fleet."
    return fix
