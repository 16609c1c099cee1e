"""A consumer test suite under visguard's mock_sqs() vs moto's mock_aws(): wall time of the same tests.

The suite is what a team writes for its SQS consumer (boto3 only, no visguard API): send/receive/delete, a batch
round trip, a message coming back after its visibility timeout (a 2 s timeout and a time.sleep, as one writes
it for moto), a heartbeat extending a message past its timeout, a redrive to a DLQ after maxReceiveCount, and a
FIFO group. Each test opens the mock, creates its clients and queues, and closes the mock, as a pytest
function with a decorator would. Both mocks run the identical functions in one process, side by side; the
ratio is moto's time over visguard's. Exit 0 always (a measurement, no goal in the issue).
Usage: .venv/bin/python -P benchmarks/engine_test_kit.py [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time


def _client():
    import boto3

    return boto3.client("sqs", region_name="us-east-1")


def t_round_trip():
    sqs = _client()
    url = sqs.create_queue(QueueName="orders")["QueueUrl"]
    for i in range(20):
        sqs.send_message(QueueUrl=url, MessageBody=f"m{i}")
    got = 0
    while True:
        ms = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
        if not ms:
            break
        for m in ms:
            sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
        got += len(ms)
    assert got == 20


def t_batches():
    sqs = _client()
    url = sqs.create_queue(QueueName="batch")["QueueUrl"]
    sqs.send_message_batch(QueueUrl=url, Entries=[{"Id": str(i), "MessageBody": f"b{i}"} for i in range(10)])
    ms = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    r = sqs.delete_message_batch(
        QueueUrl=url, Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(ms)]
    )
    assert len(r["Successful"]) == len(ms)


def t_visibility_timeout():
    sqs = _client()
    url = sqs.create_queue(QueueName="vt", Attributes={"VisibilityTimeout": "2"})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="x")
    first = sqs.receive_message(QueueUrl=url)["Messages"][0]
    assert "Messages" not in sqs.receive_message(QueueUrl=url)
    time.sleep(2.1)
    again = sqs.receive_message(QueueUrl=url, AttributeNames=["ApproximateReceiveCount"])["Messages"][0]
    assert again["MessageId"] == first["MessageId"] and again["Attributes"]["ApproximateReceiveCount"] == "2"


def t_heartbeat():
    sqs = _client()
    url = sqs.create_queue(QueueName="hb", Attributes={"VisibilityTimeout": "2"})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="x")
    m = sqs.receive_message(QueueUrl=url)["Messages"][0]
    for _ in range(3):
        time.sleep(1)
        sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"], VisibilityTimeout=2)
    assert "Messages" not in sqs.receive_message(QueueUrl=url)
    sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])


def t_redrive():
    sqs = _client()
    dlq = sqs.create_queue(QueueName="dlq")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    policy = json.dumps({"deadLetterTargetArn": arn, "maxReceiveCount": 2})
    url = sqs.create_queue(QueueName="src", Attributes={"VisibilityTimeout": "1", "RedrivePolicy": policy})[
        "QueueUrl"
    ]
    sqs.send_message(QueueUrl=url, MessageBody="poison")
    for _ in range(2):
        assert sqs.receive_message(QueueUrl=url)["Messages"]
        time.sleep(1.1)
    assert "Messages" not in sqs.receive_message(QueueUrl=url)
    assert sqs.receive_message(QueueUrl=dlq)["Messages"][0]["Body"] == "poison"


def t_fifo():
    sqs = _client()
    url = sqs.create_queue(
        QueueName="o.fifo", Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"}
    )["QueueUrl"]
    for i in range(5):
        sqs.send_message(QueueUrl=url, MessageBody=f"f{i}", MessageGroupId="g")
    bodies = []
    while True:
        ms = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
        if not ms:
            break
        for m in ms:
            bodies.append(m["Body"])
            sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
    assert bodies == [f"f{i}" for i in range(5)]


SUITE = [t_round_trip, t_batches, t_visibility_timeout, t_heartbeat, t_redrive, t_fifo]


def run_suite(mock) -> tuple[float, float]:
    t, c = time.perf_counter(), time.process_time()
    for test in SUITE:
        with mock():
            test()
    return time.perf_counter() - t, time.process_time() - c


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    for k, v in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}.items():
        os.environ.setdefault(k, v)
    from moto import mock_aws
    from visguard.engine.testing import mock_sqs

    run_suite(mock_sqs)  # warm both (imports, botocore's model cache)
    run_suite(mock_aws)
    vg = min((run_suite(mock_sqs) for _ in range(a.runs)), key=lambda r: r[0])
    mo = min((run_suite(mock_aws) for _ in range(a.runs)), key=lambda r: r[0])
    print(
        f"engine_test_kit: Python {platform.python_version()}, load average {os.getloadavg()[0]:.1f}, "
        f"{len(SUITE)} tests, best of {a.runs}"
    )
    print(f"{'mock':<22} {'suite wall s':>12} {'CPU s':>8}")
    print(f"{'visguard mock_sqs()':<22} {vg[0]:>12.3f} {vg[1]:>8.3f}")
    print(f"{'moto mock_aws()':<22} {mo[0]:>12.3f} {mo[1]:>8.3f}")
    print(f"moto / visguard: {mo[0] / vg[0]:,.1f}x by wall time, {mo[1] / vg[1]:,.1f}x by CPU time")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
