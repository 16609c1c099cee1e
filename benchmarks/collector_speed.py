"""Collector speed: 5,000 queues on moto's server across accounts and regions, the concurrent collector
(``--workers 16 --queue-workers 8``) against a sequential loop making the same calls (``--workers 1
--queue-workers 1``). Goal: >= 5x.

moto's server runs in its own process (so it does not share the collector's GIL). On loopback a call costs
only CPU time, and with 2 cores shared by client and server no client-side concurrency can beat about 2x;
real AWS calls spend most of their time on the network, so the benchmark also runs with a fixed delay per
request in the server (``--latency-ms``, default 0 and 25) standing in for that round trip.

Run: ``.venv/bin/python -P benchmarks/collector_speed.py [--queues 5000] [--latency-ms 0,25]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

SERVER = r"""
import sys, time
from moto.server import DomainDispatcherApplication, create_backend_app
from werkzeug.serving import run_simple
delay = float(sys.argv[2]) / 1000.0
app = DomainDispatcherApplication(create_backend_app)
def slow(environ, start_response):
    if delay and environ.get("PATH_INFO", "").find("moto-api") < 0:
        time.sleep(delay)
    return app(environ, start_response)
run_simple("127.0.0.1", int(sys.argv[1]), slow, threaded=True)
"""

ACCOUNTS = 5
REGIONS = ["us-east-1", "eu-west-1"]
ROLE = "OrganizationAccountAccessRole"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(latency_ms: float) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(port), str(latency_ms)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    import requests

    for _ in range(200):
        try:
            requests.get(f"{url}/moto-api/", timeout=1)
            return proc, url
        except requests.RequestException:
            time.sleep(0.05)
    raise RuntimeError("moto server did not start")


def seed(url: str, n_queues: int) -> list[str]:
    import boto3

    org = boto3.client("organizations", endpoint_url=url, region_name="us-east-1")
    org.create_organization(FeatureSet="ALL")
    accounts = [
        org.create_account(AccountName=f"a{i}", Email=f"a{i}@example.com")["CreateAccountStatus"]["AccountId"]
        for i in range(ACCOUNTS)
    ]
    sts = boto3.client("sts", endpoint_url=url, region_name="us-east-1")
    parts = [(a, r) for a in accounts for r in REGIONS]
    per = n_queues // len(parts)

    def fill(part):
        account, region = part
        c = sts.assume_role(RoleArn=f"arn:aws:iam::{account}:role/{ROLE}", RoleSessionName="seed")[
            "Credentials"
        ]
        sqs = boto3.client(
            "sqs",
            endpoint_url=url,
            region_name=region,
            aws_access_key_id=c["AccessKeyId"],
            aws_secret_access_key=c["SecretAccessKey"],
            aws_session_token=c["SessionToken"],
        )
        dlq = None
        for i in range(per):  # every tenth queue is the DLQ of the nine after it
            if i % 10 == 0:
                dlq_url = sqs.create_queue(
                    QueueName=f"q{i:05d}-dlq", Attributes={"MessageRetentionPeriod": "1209600"}
                )["QueueUrl"]
                dlq = sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"][
                    "QueueArn"
                ]
                continue
            attrs = {
                "VisibilityTimeout": str(30 + i % 300),
                "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq, "maxReceiveCount": 5}),
            }
            sqs.create_queue(QueueName=f"q{i:05d}", Attributes=attrs, tags={"team": "bench"})

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(fill, parts))
    return accounts


def collect(url: str, out: str, workers: int, queue_workers: int) -> float:
    from visguard.audit import collector

    opts = collector.Options(
        organization=True,
        role_name=ROLE,
        regions=list(REGIONS),
        endpoint_url=url,
        out=out,
        workers=workers,
        queue_workers=queue_workers,
        progress=False,
    )
    t0 = time.perf_counter()
    s = collector.collect(opts)
    dt = time.perf_counter() - t0
    assert s.errors == 0, s
    return dt, s.queues


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queues", type=int, default=5000)
    ap.add_argument("--latency-ms", default="0,25")
    a = ap.parse_args()
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    rows = []
    for lat in (float(x) for x in a.latency_ms.split(",")):
        proc, url = start_server(lat)
        work = tempfile.mkdtemp(prefix="visguard-collect-")
        try:
            seed(url, a.queues)
            seq, nq = collect(url, os.path.join(work, "seq"), 1, 1)
            par, nq2 = collect(url, os.path.join(work, "par"), 16, 8)
            assert nq == nq2 == a.queues // (ACCOUNTS * len(REGIONS)) * ACCOUNTS * len(REGIONS), (nq, nq2)
            row = {
                "latency_ms": lat,
                "queues": nq,
                "sequential_s": round(seq, 1),
                "concurrent_s": round(par, 1),
                "speedup": round(seq / par, 1),
            }
            rows.append(row)
            print(json.dumps(row), flush=True)
        finally:
            proc.terminate()
            proc.wait()
            shutil.rmtree(work, ignore_errors=True)
    print(
        "\n| added latency per request | queues | sequential loop (s) | concurrent collector (s) | speedup |"
    )
    print("| ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(
            f"| {r['latency_ms']:g} ms | {r['queues']:,} | {r['sequential_s']} | {r['concurrent_s']} | {r['speedup']}x |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
