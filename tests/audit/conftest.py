"""Shared fixtures of the audit tests: one moto server on loopback and one SparkSession for the whole session."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session")
def moto_endpoint():
    from moto.server import ThreadedMotoServer

    for k, v in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        os.environ.setdefault(k, v)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture(scope="session")
def spark():
    from visguard.audit.job import spark_session

    s = spark_session(
        "local[2]",
        app="visguard-audit-tests",
        extra={"spark.sql.shuffle.partitions": "2", "spark.default.parallelism": "2"},
    )
    s.sparkContext.setLogLevel("ERROR")
    yield s
    s.stop()


@pytest.fixture(scope="session")
def audited(spark, tmp_path_factory):
    """A generated fleet of 3,000 queues in 4 accounts, audited once by the Spark job."""
    from visguard.audit import generate, job

    root = tmp_path_factory.mktemp("generated")
    inv, out = root / "inventory", root / "audit"
    counts = generate.generate(3000, 4, 11, str(inv))
    summary = job.run(spark, str(inv), str(out))
    return {"inventory": inv, "out": out, "summary": summary, "counts": counts}
