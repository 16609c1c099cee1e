"""The audit on real clusters whose Python has pyspark, numpy and pyarrow but not visguard: a standalone master
and worker (``visguard audit run --master spark://...``, and the README's spark-submit recipe) and a Spark
Connect server (``--remote sc://...``), all on 127.0.0.1. The job ships its own code; the findings must equal
the local run's."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from . import cluster

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def fleet(tmp_path_factory, spark):
    """A small generated fleet and its findings from the local run (the session's local[2] Spark)."""
    from visguard.audit import generate, job

    root = tmp_path_factory.mktemp("clusters")
    inv = root / "inventory"
    generate.generate(400, 3, 21, str(inv))
    out = root / "local"
    job.run(spark, str(inv), str(out))
    return {"root": root, "inventory": inv, "findings": findings(out)}


def findings(out) -> list[tuple]:
    import pyarrow.parquet as pq

    rows = pq.read_table(str(out / "findings")).to_pylist()
    return sorted(
        (r["queue_arn"], r["rule"], r["consumer"] or "", r["message"], r["fix"] or "") for r in rows
    )


@pytest.fixture(scope="module")
def executor_python(fleet):
    return cluster.executor_python(fleet["root"])


def _env(**kw):
    env = cluster.spark_env(VISGUARD_CACHE_DIR=kw.pop("cache"), VISGUARD_SPARK_CDS="0")
    env.update(kw)
    return env


def test_standalone_master_and_spark_submit_recipe(fleet, executor_python, tmp_path):
    sa = cluster.Standalone(tmp_path)
    try:
        url = sa.start()
        # 1. visguard audit run --master spark://...: the cluster's Python runs the workers
        out = tmp_path / "standalone"
        r = subprocess.run(
            [sys.executable, "-P", "-m", "visguard", "audit", "run", "--inventory", str(fleet["inventory"]),
             "--out", str(out), "--master", url, "--fail-on", "never",
             "--conf", "spark.executor.memory=512m", "--conf", "spark.sql.shuffle.partitions=2"],
            capture_output=True, text=True, timeout=600,
            env=_env(cache=str(tmp_path / "cache"), PYSPARK_PYTHON=executor_python),
        )  # fmt: skip
        assert r.returncode == 0, r.stderr[-4000:]
        assert findings(out) == fleet["findings"]

        # 2. the README's recipe: spark-submit the job's own file, the driver's Python is visguard's
        import visguard.audit.job as job

        out2 = tmp_path / "submitted"
        r = subprocess.run(
            [str(cluster.SPARK_HOME / "bin" / "spark-submit"), "--master", url,
             "--conf", f"spark.pyspark.driver.python={sys.executable}",
             "--conf", f"spark.pyspark.python={executor_python}",
             "--conf", "spark.executor.memory=512m",
             job.__file__, "--inventory", str(fleet["inventory"]), "--out", str(out2), "--fail-on", "never"],
            capture_output=True, text=True, timeout=600, env=_env(cache=str(tmp_path / "cache")),
        )  # fmt: skip
        assert r.returncode == 0, r.stderr[-4000:]
        assert findings(out2) == fleet["findings"]
    finally:
        sa.stop()
    # the executors really ran the cluster's Python, which cannot import visguard but for the shipped zip
    logs = "".join(p.read_text(errors="replace") for p in (tmp_path / "work").rglob("stderr"))
    assert "ModuleNotFoundError" not in logs


def test_spark_connect_server(fleet, executor_python, tmp_path):
    server = cluster.ConnectServer(tmp_path, executor_python)
    try:
        url = server.start()
        out = tmp_path / "connect"
        r = subprocess.run(
            [sys.executable, "-P", "-m", "visguard", "audit", "run", "--inventory", str(fleet["inventory"]),
             "--out", str(out), "--remote", url, "--fail-on", "never"],
            capture_output=True, text=True, timeout=600,
            env={**os.environ, "VISGUARD_CACHE_DIR": str(tmp_path / "cache")},
        )  # fmt: skip
        assert r.returncode == 0, r.stderr[-4000:]
        assert findings(out) == fleet["findings"]
    finally:
        server.stop()
