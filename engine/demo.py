"""``visguard engine-demo``: one message's life on the engine's virtual clock.

Sent, received (receipt 1), extended by a heartbeat (ChangeMessageVisibility), expired because the consumer
crashed, redelivered with a new receipt handle, and moved to the dead-letter queue by the receive that would
exceed maxReceiveCount. Every step goes through the boto3-shaped client; the state column is ``eng.peek``.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from visguard import facts

from .core import Engine


def _iso(ms) -> str:
    return datetime.fromtimestamp(int(ms) / 1000, tz=UTC).strftime("%H:%M:%S")


def run_demo(visibility_timeout: int = 30, max_receive_count: int = 2, heartbeat: int = 30) -> dict:
    """Play the scenario and return {"settings": ..., "steps": [...]} (pure: no printing)."""
    eng = Engine()
    sqs = eng.client()
    t0 = eng.now
    dlq_url = sqs.create_queue(QueueName="orders-dlq")["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    policy = json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": max_receive_count})
    url = sqs.create_queue(
        QueueName="orders", Attributes={"VisibilityTimeout": str(visibility_timeout), "RedrivePolicy": policy}
    )["QueueUrl"]
    steps: list[dict] = []
    receipts: list[str] = []
    moved: list[str] = []
    last = {"count": 0}

    def state(queue_url):
        p = eng.peek(queue_url)
        if not p:
            return "gone"
        m = p[0]
        if m["State"] == "inflight":
            return f"in flight until t={m['VisibleAt'] - t0:g}s"
        return m["State"]

    def step(event, receipt=None, count=None, extra=None):
        where = "orders-dlq" if eng.peek(dlq_url) or dlq_url in moved else "orders"
        steps.append(
            {
                "t": round(eng.now - t0, 3),
                "event": event,
                "receipt": receipt,
                "receive_count": count,
                "queue": where,
                "state": state(dlq_url if where == "orders-dlq" else url),
                **(extra or {}),
            }
        )

    def receive(queue_url, label):
        got = sqs.receive_message(QueueUrl=queue_url, MessageSystemAttributeNames=["All"]).get("Messages", [])
        if not got:
            step(f"{label} -> nothing", count=None)
            return None
        m = got[0]
        receipts.append(m["ReceiptHandle"])
        a = m["Attributes"]
        last["count"] = int(a["ApproximateReceiveCount"])
        step(
            f"{label} -> receipt {len(receipts)}",
            receipt=len(receipts),
            count=int(a["ApproximateReceiveCount"]),
            extra={
                "handle": m["ReceiptHandle"],
                "sent": _iso(a["SentTimestamp"]),
                "first_receive": _iso(a["ApproximateFirstReceiveTimestamp"]),
                **({"dlq_source": a["DeadLetterQueueSourceArn"]} if "DeadLetterQueueSourceArn" in a else {}),
            },
        )
        return m

    sqs.send_message(QueueUrl=url, MessageBody='{"order": 1001}')
    step('SendMessage {"order": 1001}', count=0)
    eng.advance(2)
    receive(url, "ReceiveMessage")
    eng.advance(visibility_timeout * 2 // 3)
    sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=receipts[-1], VisibilityTimeout=heartbeat)
    step(f"heartbeat: ChangeMessageVisibility({heartbeat}) counts from now", receipt=1, count=1)
    step("consumer crashes: no DeleteMessage", receipt=1, count=1)
    eng.advance(heartbeat)
    step("visibility timeout expires: visible again", count=1)
    for _ in range(max_receive_count - 1):
        eng.advance(5)
        receive(url, "ReceiveMessage (redelivery, new handle)")
        eng.advance(visibility_timeout)
        step("expires again (no delete)", count=last["count"])
    eng.advance(5)
    receive(url, f"ReceiveMessage: count would exceed {max_receive_count}: moved to the DLQ")
    moved.append(dlq_url)
    eng.advance(1)
    m = receive(dlq_url, "ReceiveMessage on orders-dlq")
    if m is not None:
        sqs.delete_message(QueueUrl=dlq_url, ReceiptHandle=m["ReceiptHandle"])
        step("DeleteMessage on orders-dlq", receipt=len(receipts), count=None)
    try:
        sqs.delete_message(QueueUrl=url, ReceiptHandle=receipts[0])
        stale = "200 (already gone: repeatable)"
    except Exception as exc:  # pragma: no cover - shown, not expected
        stale = str(exc)
    step(f"DeleteMessage with receipt 1 on orders -> {stale}")
    return {
        "settings": {
            "visibility_timeout": visibility_timeout,
            "max_receive_count": max_receive_count,
            "heartbeat": heartbeat,
            "start": datetime.fromtimestamp(t0, tz=UTC).isoformat(),
        },
        "distinct_receipt_handles": len(set(receipts)),
        "steps": steps,
    }


def render(result: dict) -> str:
    s = result["settings"]
    lines = [
        f"One message's life on the virtual clock (t=0 is {s['start']}).",
        f"Queue 'orders': VisibilityTimeout {s['visibility_timeout']} s, RedrivePolicy maxReceiveCount "
        f"{s['max_receive_count']} -> 'orders-dlq'.",
        "",
        f"{'t (s)':>6}  {'event':<62} {'receipt':>7} {'count':>5}  peek (state without receiving)",
        f"{'-' * 6}  {'-' * 62} {'-' * 7} {'-' * 5}  {'-' * 30}",
    ]
    for st in result["steps"]:
        rc = "" if st["receipt"] is None else str(st["receipt"])
        cnt = "" if st["receive_count"] is None else str(st["receive_count"])
        lines.append(f"{st['t']:>6g}  {st['event']:<62} {rc:>7} {cnt:>5}  {st['queue']}: {st['state']}")
        if "handle" in st:
            extra = f"handle {st['handle']}  sent {st['sent']}  first received {st['first_receive']}"
            lines.append(f"{'':>6}    {extra}")
            if "dlq_source" in st:
                lines.append(f"{'':>6}    DeadLetterQueueSourceArn {st['dlq_source']}")
    lines += [
        "",
        "count = ApproximateReceiveCount.",
        f"{result['distinct_receipt_handles']} receives, {result['distinct_receipt_handles']} different receipt "
        "handles. The receive that moved the message to the DLQ was not counted; the DLQ shows the count "
        "carried over plus one.",
    ]
    return "\n".join(lines)


def main(argv: list[str], prog: str) -> int:
    from .cli_guard import ArgumentParser  # a usage error is bad input (exit 1), not argparse's 2 (findings)

    ap = ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    ap.add_argument(
        "--visibility-timeout", type=int, default=30, help="queue VisibilityTimeout (s), default 30"
    )
    ap.add_argument(
        "--max-receive-count", type=int, default=2, help="RedrivePolicy maxReceiveCount, default 2"
    )
    ap.add_argument("--heartbeat", type=int, default=30, help="ChangeMessageVisibility value (s), default 30")
    ap.add_argument("--json", action="store_true", help="print the timeline as JSON")
    ap.add_argument("--out", metavar="FILE", help="also write the timeline as JSON to FILE")
    a = ap.parse_args(argv)
    from visguard.errors import VisguardError

    if not 1 <= a.visibility_timeout <= facts.MAX_VISIBILITY:
        raise VisguardError(f"must be 1-{facts.MAX_VISIBILITY} seconds", place="--visibility-timeout")
    if not 1 <= a.max_receive_count <= 1000:
        raise VisguardError("must be 1-1000", place="--max-receive-count")
    if not 1 <= a.heartbeat <= 43_000:
        raise VisguardError("must be 1-43000 seconds", place="--heartbeat")
    result = run_demo(a.visibility_timeout, a.max_receive_count, a.heartbeat)
    print(json.dumps(result, indent=2) if a.json else render(result))
    if a.out:
        from pathlib import Path

        out = Path(a.out)
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps(result, indent=2) + "\n")
        except OSError as exc:
            raise VisguardError(f"cannot write: {exc.strerror}", file=a.out) from None
        print(f"\ntimeline written to {out}")
    return 0
