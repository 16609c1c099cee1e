"""Cost of ``visguard audit run --sources`` (issue 39 §2): the join + drift stages beside today's audit, and the
linting of the sources on its own.

1. **Join + drift at N queues.** ``visguard audit generate`` makes the fleet; the audit runs without
   ``--sources`` in a fresh process (CPU of its process tree: driver, JVM, Python workers, from /proc). Then a
   child process on the same master reads and parses the same inventory (the audit's own ``load`` +
   ``parse_records``, cached), builds a declaration for every queue (half owned by Terraform, a quarter by
   CloudFormation, a quarter unowned and joined by name; 1 % drifted) and runs the stage's Spark work:
   ``drift.place``, ``drift.drift_frame`` and the counts ``declared.run`` collects. Its CPU after the read minus
   the read is the stages' extra CPU; goal <= 25 % of the audit's.
2. **Source linting per root.** R generated roots (a Terraform root and a CloudFormation template, 10 queues
   each) linted by ``sources.declaration_frame`` (one task per root) on a local standalone cluster of 1 and of 2
   workers (one core each): wall seconds and CPU seconds per root.

Run: ``.venv/bin/python -P benchmarks/audit_sources.py [--queues 1000000 --accounts 500 --roots 200]``; small
sizes (``--queues 20000 --accounts 20 --roots 8``) check that it works. Prints one JSON document.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).with_name("visguard")
HERE = Path(__file__).resolve()


def _proc_times() -> dict[int, tuple[int, float]]:
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                f = (d / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            out[int(d.name)] = (int(f[1]), (int(f[11]) + int(f[12])) / tick)
    return out


def tree_cpu(root: int) -> float:
    """CPU seconds of ``root`` and its live descendants now (children that exited are in their parent's
    cutime only when waited for; the JVM's Python workers live for the whole session)."""
    procs = _proc_times()
    tree, grew = {root}, True
    while grew:
        grew = False
        for pid, (ppid, _) in procs.items():
            if ppid in tree and pid not in tree:
                tree.add(pid)
                grew = True
    return sum(procs[p][1] for p in tree if p in procs)


def _tree(procs: dict, root: int) -> set[int]:
    tree, grew = {root}, True
    while grew:
        grew = False
        for pid, (ppid, _) in procs.items():
            if ppid in tree and pid not in tree:
                tree.add(pid)
                grew = True
    return tree


def run_tree(
    cmd: list[str], every: float = 0.25, also: tuple[int, ...] = ()
) -> tuple[float, float, str, float]:
    """(wall, CPU of the process tree of ``cmd``, its stdout, CPU the trees of the ``also`` processes spent
    meanwhile): every process is sampled until ``cmd`` exits, so executors that exit with it are counted."""
    t0 = time.perf_counter()
    start = _proc_times()
    before = {p: start[p][1] for r in also for p in _tree(start, r) if p in start}
    err = open(os.environ.get("VG_BENCH_STDERR", os.devnull), "a")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True)
    last: dict[int, float] = {}
    other: dict[int, float] = {}
    while proc.poll() is None:
        procs = _proc_times()
        for pid in _tree(procs, proc.pid):
            if pid in procs:
                last[pid] = procs[pid][1]
        for r in also:
            for pid in _tree(procs, r):
                if pid in procs:
                    other[pid] = procs[pid][1] - before.get(pid, 0.0)
        time.sleep(every)
    out = proc.stdout.read()
    err.close()
    return time.perf_counter() - t0, sum(last.values()), out, sum(other.values())


# ------------------------------------------------------------------------------------------ 1. join + drift
def child_join(inventory: str, master: str) -> None:
    """In a child process: read as the audit does, then the join + drift stages on synthetic declarations."""
    from pyspark.sql import functions as F
    from visguard.audit import drift
    from visguard.audit.session import spark_session
    from visguard.audit.transforms import good_queues, load, parse_records

    spark = spark_session(master, app="bench-sources")
    spark.sparkContext.setLogLevel("ERROR")
    records = parse_records(load(spark, inventory)).cache()
    records.count()
    me = os.getpid()
    c0, t0 = tree_cpu(me), time.perf_counter()
    q = good_queues(records).select("account", "region", "arn", "name", "vt", "retention")
    h = F.abs(F.hash("arn")) % 100
    owners = q.select(
        F.lit("owner").alias("kind"), "account", "region", F.col("arn").alias("resource"),
        F.lit("AWS::SQS::Queue").alias("resource_type"), F.lit(None).cast("string").alias("url"),
        F.when(h < 50, "terraform").when(h < 75, "cloudformation").alias("owner"),
        F.when((h >= 50) & (h < 75), F.concat(F.lit("stack-"), F.col("account"))).alias("stack"),
        F.lit(None).cast("string").alias("stack_id"),
        F.when((h >= 50) & (h < 75), F.concat(F.lit("Q"), F.abs(F.hash("arn")).cast("string"))).alias("logical_id"),
        F.lit(None).cast("string").alias("construct_path"), F.lit(None).cast("string").alias("root_stack"),
        F.lit("s3://state").alias("state"),
        F.when(h < 50, F.concat(F.lit("aws_sqs_queue.q"), F.abs(F.hash("arn")).cast("string"))).alias("address"),
        F.lit("").alias("module"),
    ).where(F.col("owner").isNotNull())  # fmt: skip
    declared = F.format_string(
        '{"visibility_timeout": {"value": %s, "known": true, "default": false, "file": "main.tf", "line": 3},'
        ' "message_retention": {"value": %s, "known": true, "default": false}, "mappings": []}',
        F.when(h == 7, F.col("vt") + 1).otherwise(F.col("vt")),
        F.coalesce(F.col("retention"), F.lit(345600.0)),
    )
    decls = q.select(
        F.lit("d").alias("row_kind"), (F.abs(F.hash("account")) % 5000).cast("int").alias("root"),
        F.concat(F.lit("repo-"), F.col("account")).alias("repository"), F.col("arn").alias("decl_id"),
        F.lit("main.tf").alias("file"), F.lit(1).cast("long").alias("line"), F.lit("terraform").alias("source"),
        F.col("name").alias("queue"),
        F.col("name").alias("name"),  # generated names repeat across accounts: some by-name joins are ambiguous
        F.when((h >= 50) & (h < 75), F.array(F.concat(F.lit("stack-"), F.col("account")))).otherwise(F.array()).alias("stacks"),
        F.when((h >= 50) & (h < 75), F.concat(F.lit("Q"), F.abs(F.hash("arn")).cast("string"))).alias("logical_id"),
        F.lit(None).cast("string").alias("construct_path"),
        F.when(h < 50, F.concat(F.lit("aws_sqs_queue.q"), F.abs(F.hash("arn")).cast("string"))).alias("address"),
        declared.alias("declared"), F.lit("{}").alias("lines"),
    ).cache()  # fmt: skip
    decls.count()
    c1 = tree_cpu(me)
    # what declared.run does: place, count, drift, the locations of the queues with findings (here: all)
    placed = drift.place(drift.deployed(records), owners, decls).cache()
    counts = placed.groupBy("owner", "join_by").count().collect()
    drifted = drift.drift_frame(placed, ("owner", "team")).toArrow()
    located = placed.where(F.col("decl_id").isNotNull()).select("arn", "repository", "file", "line").toArrow()
    c2, t2 = tree_cpu(me), time.perf_counter()
    print(
        json.dumps(
            {
                "declarations_cpu": round(c1 - c0, 1),
                "join_drift_cpu": round(c2 - c1, 1),
                "join_drift_wall": round(t2 - t0, 1),
                "placed": {f"{r['owner']}/{r['join_by']}": r["count"] for r in counts},
                "drift_findings": drifted.num_rows,
                "located": located.num_rows,
            }
        )
    )
    spark.stop()


def join_drift(queues: int, accounts: int, work: Path, master: str) -> dict:
    inv = work / "inventory"
    subprocess.run(
        [str(BIN), "audit", "generate", "--queues", str(queues), "--accounts", str(accounts), "--out", str(inv)],
        check=True, capture_output=True,
    )  # fmt: skip
    wall, cpu, _, _ = run_tree([str(BIN), "audit", "run", "--inventory", str(inv), "--out", str(work / "out"),
                             "--master", master, "--fail-on", "never"])  # fmt: skip
    _, _, out, _ = run_tree([sys.executable, "-P", str(HERE), "--child-join", str(inv), "--master", master])
    stage = json.loads(out.strip().splitlines()[-1])
    return {
        "queues": queues,
        "accounts": accounts,
        "audit_wall": round(wall, 1),
        "audit_cpu": round(cpu, 1),
        **stage,
        "extra_cpu_share": round(stage["join_drift_cpu"] / cpu, 3) if cpu else None,
        "goal": "join_drift_cpu <= 25 % of audit_cpu",
    }


# ------------------------------------------------------------------------------------------ 2. source linting
TF_QUEUE = """resource "aws_sqs_queue" "q{i}" {{
  name                       = "r{r}-q{i}"
  visibility_timeout_seconds = {vt}
}}
"""
CFN_QUEUE = """  Q{i}:
    Type: AWS::SQS::Queue
    Properties:
      VisibilityTimeout: {vt}
"""


def make_roots(work: Path, n: int, per: int = 10) -> list[str]:
    roots = []
    for r in range(n):
        d = work / "roots" / f"repo-{r}"
        (d / "tf").mkdir(parents=True)
        (d / "tf" / "main.tf").write_text("".join(TF_QUEUE.format(i=i, r=r, vt=30 + i) for i in range(per)))
        (d / "template.yaml").write_text(
            "Resources:\n" + "".join(CFN_QUEUE.format(i=i, vt=30 + i) for i in range(per))
        )
        roots.append(str(d))
    return roots


def child_lint(master: str, roots_file: str) -> None:
    from visguard.audit import sources
    from visguard.audit.session import spark_session

    roots = json.loads(Path(roots_file).read_text())
    os.environ["PYSPARK_PYTHON"] = (
        sys.executable
    )  # the executors' Python: this one (pyarrow, visguard's deps)
    spark = spark_session(master, app="bench-lint")
    spark.sparkContext.setLogLevel("ERROR")
    spark.range(4).count()  # executors up before timing
    t0 = time.perf_counter()
    rows = sources.declaration_frame(spark, roots).groupBy("row_kind").count().collect()
    print(json.dumps({"lint_wall": round(time.perf_counter() - t0, 2), "rows": {r[0]: r[1] for r in rows}}))
    spark.stop()


def standalone(workers: int, work: Path):
    """A master and ``workers`` workers of one core each on 127.0.0.1; returns (url, processes)."""
    import socket

    import pyspark

    home = Path(pyspark.__file__).parent
    cls = str(home / "bin" / "spark-class")

    def port():
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]

    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYSPARK_", "SPARK_"))}
    env.update(SPARK_HOME=str(home), SPARK_LOCAL_IP="127.0.0.1", SPARK_NO_DAEMONIZE="1",
               PYSPARK_PYTHON=sys.executable, SPARK_DAEMON_MEMORY="512m")  # fmt: skip
    p = port()
    url = f"spark://127.0.0.1:{p}"
    procs = [subprocess.Popen([cls, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port",
                               str(p), "--webui-port", str(port())], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)]  # fmt: skip
    time.sleep(6)
    for w in range(workers):
        (work / f"work-{w}").mkdir(exist_ok=True)
        procs.append(subprocess.Popen(
            [cls, "org.apache.spark.deploy.worker.Worker", url, "--host", "127.0.0.1", "--cores", "1", "--memory",
             "1g", "--webui-port", str(port()), "--work-dir", str(work / f"work-{w}")],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        ))  # fmt: skip
    time.sleep(6)
    return url, procs


def source_lint(n_roots: int, work: Path, worker_counts: list[int]) -> list[dict]:
    roots = make_roots(work, n_roots)
    roots_file = work / "roots.json"
    roots_file.write_text(json.dumps(roots))
    out = []
    for w in worker_counts:
        url, procs = standalone(w, work)
        try:
            wall, cpu, text, cluster_cpu = run_tree(
                [sys.executable, "-P", str(HERE), "--child-lint", str(roots_file), "--master", url],
                also=tuple(p.pid for p in procs),  # the executors run under the workers
            )
            got = json.loads(text.strip().splitlines()[-1])
            # cluster: the workers' trees (executor JVMs and their Python workers: the lint itself, plus each
            # executor's start); driver: the child process's tree (its JVM, the session)
            out.append({"workers": w, "roots": n_roots, **got, "driver_cpu": round(cpu, 1),
                        "cluster_cpu": round(cluster_cpu, 1),
                        "cluster_cpu_per_root": round(cluster_cpu / n_roots, 3)})  # fmt: skip
        finally:
            for p in reversed(procs):
                p.terminate()
            for p in procs:
                try:
                    p.wait(30)
                except subprocess.TimeoutExpired:
                    p.kill()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queues", type=int, default=1_000_000)
    ap.add_argument("--accounts", type=int, default=500)
    ap.add_argument("--roots", type=int, default=200)
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--skip-join", action="store_true")
    ap.add_argument("--skip-lint", action="store_true")
    ap.add_argument("--child-join")
    ap.add_argument("--child-lint")
    a = ap.parse_args()
    if a.child_join:
        return child_join(a.child_join, a.master)
    if a.child_lint:
        return child_lint(a.master, a.child_lint)
    work = Path(tempfile.mkdtemp(prefix="vg-bench-sources-"))
    try:
        result = {"load_before": os.getloadavg()}
        if not a.skip_join:
            result["join_drift"] = join_drift(a.queues, a.accounts, work, a.master)
        if not a.skip_lint:
            result["source_lint"] = source_lint(a.roots, work, [int(x) for x in a.workers.split(",")])
        result["load_after"] = os.getloadavg()
        print(json.dumps(result, indent=2))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
