"""VG015: heartbeat interval not comfortably below the visibility window it renews."""

from __future__ import annotations

from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, fmt_seconds
from visguard.policy import heartbeat_plan

RULE = Rule(
    id="VG015",
    title="Heartbeat interval not comfortably below the visibility timeout",
    severity=Severity.ERROR,
    rationale=(
        "A heartbeat (ChangeMessageVisibility while processing) only protects a message if it arrives before "
        "the current visibility window ends. The first window is the queue's visibility timeout; later ones "
        "are the extension each heartbeat asks for. ChangeMessageVisibility after expiry succeeds but has no "
        "effect, so a late heartbeat silently lets another consumer receive the message. Heartbeats must come "
        "at most heartbeat_max_fraction (default 0.5) of the window apart to absorb pauses and API latency."
    ),
    source="https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_ChangeMessageVisibility.html",
    fix="Send heartbeats at half the visibility timeout or more often, or lengthen the window they renew.",
    tags=("visibility", "heartbeat", "duplicates"),
    settings={"heartbeat_max_fraction": 0.5},
    consumers_only=True,
)


def check(queue, ctx):
    frac = float(ctx.setting("heartbeat_max_fraction"))
    for c in queue.consumers:
        hb = c.heartbeat_interval
        vt = ctx.visibility_for(queue, c)  # the first window: the consumer's own visibility, else the queue's
        if hb is None or vt is None:
            continue
        if c.platform == "sqs-consumer" and ctx.overrides(c) and hb >= vt:
            continue  # sqs-consumer refuses to start with that: VG073 says so
        first = (
            "the visibility timeout it receives with"
            if ctx.overrides(c)
            else "the queue's visibility timeout"
        )
        windows = [(first, vt)]
        if c.heartbeat_extend_by is not None:
            windows.append(("the extension each heartbeat requests", float(c.heartbeat_extend_by)))
        what, window = min(windows, key=lambda w: w[1])
        if hb <= 0 or hb > frac * window:
            late = " (after the window has already ended)" if hb >= window else ""
            yield ctx.finding(
                queue,
                f"{ctx.consumer_label(c)} sends a heartbeat every {fmt_seconds(hb)}{late}, not comfortably "
                f"below {what} ({fmt_seconds(window)})",
                location=c.location or queue.location,
                consumer=c,
                fix=f"Send heartbeats every {fmt_seconds(heartbeat_plan(window, frac).interval)} or less, or lengthen "
                "the window; "
                "each extension at most 43200 s minus the time since the receive.",
            )
