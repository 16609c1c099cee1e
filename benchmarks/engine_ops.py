"""Engine throughput: SQS message lifecycles (send, receive, delete) per second.

Three ways through the same sequence, one message at a time (SendMessage, ReceiveMessage, DeleteMessage):
  native  - visguard.engine.Engine's native API (what the simulator drives)
  client  - Engine.client(), the boto3-shaped client (dicts in, dicts out, ClientError)
  moto    - moto's in-process mock (mock_aws) through boto3, the usual way to test SQS code offline
and a batched native variant (10 sends, one receive of 10, 10 deletes).

Goals (issue 2): native >= 200,000 lifecycles/s; client >= 100x moto. Best of --runs. Each rate is given by
wall time and by CPU time of this process (the machine is shared: CPU time is what the code costs, wall time
what a busy machine gave); the goals are judged on CPU time. Exit 0 when both goals are met, 2 otherwise.
Usage: .venv/bin/python -P benchmarks/engine_ops.py [--runs 3] [--native N] [--client N] [--moto N]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time


def native_single(n: int) -> float:
    from visguard.engine import Engine

    eng = Engine()
    q = eng.create_queue("bench")
    send, receive, delete = eng.send, eng.receive, eng.delete
    t, c = time.perf_counter(), time.process_time()
    for _ in range(n):
        send(q, "payload")
        (r,) = receive(q)
        delete(q, r.handle)
    dt, dc = time.perf_counter() - t, time.process_time() - c
    assert q.counts() == {"visible": 0, "inflight": 0, "delayed": 0} and q.n_deleted == n
    return n / dt, n / dc


def native_batched(n: int) -> float:
    from visguard.engine import Engine

    eng = Engine()
    q = eng.create_queue("bench")
    send, receive, delete = eng.send, eng.receive, eng.delete
    t, c = time.perf_counter(), time.process_time()
    for _ in range(n // 10):
        for _ in range(10):
            send(q, "payload")
        for r in receive(q, 10):
            delete(q, r.handle)
    dt, dc = time.perf_counter() - t, time.process_time() - c
    assert q.n_deleted == n // 10 * 10
    return n // 10 * 10 / dt, n // 10 * 10 / dc


def _boto_lifecycles(sqs, n: int) -> float:
    url = sqs.create_queue(QueueName="bench")["QueueUrl"]
    t, c = time.perf_counter(), time.process_time()
    for _ in range(n):
        sqs.send_message(QueueUrl=url, MessageBody="payload")
        (m,) = sqs.receive_message(QueueUrl=url)["Messages"]
        sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
    dt, dc = time.perf_counter() - t, time.process_time() - c
    left = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert left["ApproximateNumberOfMessages"] == left["ApproximateNumberOfMessagesNotVisible"] == "0"
    return n / dt, n / dc


def client_single(n: int) -> float:
    from visguard.engine import Engine

    return _boto_lifecycles(Engine().client(), n)


def moto_single(n: int) -> float:
    import boto3
    from moto import mock_aws

    for k, v in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}.items():
        os.environ.setdefault(k, v)
    with mock_aws():
        return _boto_lifecycles(boto3.client("sqs", region_name="us-east-1"), n)


def best(fn, n, runs):
    results = [fn(n) for _ in range(runs)]
    return max(r[0] for r in results), max(r[1] for r in results)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--native", type=int, default=200_000, help="lifecycles per native run")
    ap.add_argument("--client", type=int, default=20_000, help="lifecycles per client run")
    ap.add_argument("--moto", type=int, default=300, help="lifecycles per moto run")
    a = ap.parse_args()
    rows = {
        "native": best(native_single, a.native, a.runs),
        "native, batches of 10": best(native_batched, a.native, a.runs),
        "client()": best(client_single, a.client, a.runs),
        "moto (mock_aws) via boto3": best(moto_single, a.moto, a.runs),
    }
    ratio = rows["client()"][1] / rows["moto (mock_aws) via boto3"][1]
    print(
        f"engine_ops: Python {platform.python_version()}, load average {os.getloadavg()[0]:.1f}, best of {a.runs}"
    )
    print(f"{'path':<28} {'lifecycles/s (wall)':>20} {'(CPU time)':>12}")
    for k, (w, c) in rows.items():
        print(f"{k:<28} {w:>20,.0f} {c:>12,.0f}")
    ok_native = rows["native"][1] >= 200_000
    ok_client = ratio >= 100
    print(f"native goal >= 200,000/s: {'met' if ok_native else 'NOT met'}")
    wall_ratio = rows["client()"][0] / rows["moto (mock_aws) via boto3"][0]
    print(f"client vs moto: {ratio:,.0f}x by CPU time, {wall_ratio:,.0f}x by wall time (goal >= 100x: "
          f"{'met' if ok_client else 'NOT met'})")  # fmt: skip
    return 0 if ok_native and ok_client else 2


if __name__ == "__main__":
    sys.exit(main())
