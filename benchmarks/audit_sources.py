"""Cost of ``visguard audit run --sources`` (issue 39 §2): the join + drift stages beside today's audit, and the
linting of the sources on its own.

1. **Join + drift at N queues, side by side.** ``visguard audit generate --owners`` makes the fleet (owner records
   for half the queues by CloudFormation, 30 % by Terraform); a child process (not measured) writes the
   declarations the source lint would give for it (:func:`child_prepare`: one per queue but 5 %, joined by
   construct path, stack + logical id, Terraform address or name; 1 % drift in each of visibility timeout,
   maxReceiveCount and a mapping's batch size). Then, alternately in fresh processes, ``--repeats`` times: the audit
   without ``--sources`` and the audit with ``--sources`` (one root per account), the lint's output read from that
   Parquet instead of linting (part 2 measures the lint). Each run's CPU is its whole process tree's (driver,
   JVM, Python workers; ``proctree.py``, as ``audit_scale.py`` samples it). Reported: the added CPU over the
   audit's, per pair and min of each (goal <= 25 %). ``--keep FILE`` / ``--compare FILE``: digests of every row
   --sources wrote (findings/, placement/, summary's sources, SARIF files), to show that a change keeps them.
2. **Source linting per root.** R generated roots (a Terraform root and a CloudFormation template, 10 queues
   each) linted by ``sources.declaration_frame`` (one task per root) on a local standalone cluster of 1 and of 2
   workers (one core each): wall seconds and CPU seconds per root.

Run: ``.venv/bin/python -P benchmarks/audit_sources.py [--queues 1000000 --accounts 500 --repeats 2] [--roots 200]
[--skip-lint] [--keep F | --compare F]``; small sizes (``--queues 20000 --accounts 20 --roots 8``) check that it
works. Prints one JSON document (each run's line on stderr).
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
sys.path.insert(0, str(HERE.parent))  # proctree (python -P puts no directory on sys.path)
import proctree  # noqa: E402 - the CPU sampler audit_scale.py and audit_cpu_ab.py use too


# ------------------------------------------------------------------------------------------ 1. join + drift
def child_prepare(inventory: str, out: str, n_roots: int, master: str) -> None:
    """In a child process (not measured): the declarations of the fleet's queues, as the source lint gives them
    (:data:`sources.SOURCE_FIELDS` rows, Parquet). Each owner record's queue is declared by the key its owner
    gives (CloudFormation: half by construct path, half by stack + logical id; Terraform: its address), an
    unowned queue by its name only (generated names repeat across accounts: some are ambiguous); 5 % have no
    declaration; 1 % drift in the visibility timeout, 1 % in maxReceiveCount, 1 % in a mapping's batch size. The
    settings are written as ``sources.declared_settings`` writes them; a tenth carry a rule line (``lines``)."""
    from pyspark.sql import functions as F
    from visguard.audit import drift
    from visguard.audit.session import spark_session
    from visguard.audit.sources import SOURCE_FIELDS
    from visguard.audit.transforms import load, parse_records

    spark = spark_session(master, app="bench-sources-prepare")
    spark.sparkContext.setLogLevel("ERROR")
    records = parse_records(load(spark, inventory)).cache()
    q = drift.deployed(records)
    own = drift.record_owners(records).select(
        F.col("resource").alias("o_arn"), "owner", "stack", "logical_id", "construct_path", "address"
    )
    q = q.join(own, F.col("arn") == F.col("o_arn"), "left")
    h = F.abs(F.hash("arn")) % 100
    cfn, tf = F.col("owner") == "cloudformation", F.col("owner") == "terraform"

    def setting(value, file=None, line=None, default=False):
        parts = [
            value.cast("double").alias("value"),
            F.lit(True).alias("known"),
            F.lit(default).alias("default"),
        ]
        if file is not None:
            parts += [F.lit(file).alias("file"), F.lit(line).cast("long").alias("line")]
        return F.struct(*parts)

    file = F.when(tf, F.lit("main.tf")).otherwise(F.lit("template.yaml"))
    redrive = F.when(
        F.col("has_redrive"),
        F.struct(F.substring_index("target_arn", ":", -1).alias("value"), F.lit(True).alias("known"),
                 F.lit(False).alias("default"), file.alias("file"), F.lit(9).cast("long").alias("line")),
    ).otherwise(F.struct(F.lit(None).cast("string").alias("value"), F.lit(True).alias("known"),
                         F.lit(True).alias("default"), F.lit(None).cast("string").alias("file"),
                         F.lit(None).cast("long").alias("line")))  # fmt: skip
    mappings = F.transform(
        F.coalesce("mappings", F.array().cast("array<struct<uuid:string,batch_size:double,batching_window:double>>")),
        lambda m: F.struct(
            m["uuid"].alias("id"),
            setting(F.when(h == 9, m["batch_size"] + 1).otherwise(m["batch_size"])).alias("batch_size"),
            setting(m["batching_window"]).alias("batching_window"),
        ),
    )  # fmt: skip
    declared = F.to_json(
        F.struct(
            setting(F.when(h == 7, F.col("vt") + 1).otherwise(F.col("vt")), "main.tf", 3).alias("visibility_timeout"),
            setting(F.coalesce("retention", F.lit(345600.0))).alias("message_retention"),
            redrive.alias("redrive"),
            setting(F.when(h == 8, F.col("max_receive_count") + 1).otherwise(F.col("max_receive_count")))
            .alias("max_receive_count"),
            mappings.alias("mappings"),
        )
    )  # fmt: skip
    by_path = cfn & (h % 2 == 0)
    decls = q.where(h >= 5).select(
        F.lit("d").alias("row_kind"), (F.abs(F.hash("account")) % n_roots).cast("int").alias("root"),
        F.lit(None).cast("string").alias("repository"),
        F.concat_ws("\x1f", F.abs(F.hash("account")).cast("string"), F.col("arn")).alias("decl_id"),
        file.alias("file"), (h + 1).cast("long").alias("line"),
        F.when(tf, "terraform").when(cfn, "cloudformation").otherwise("terraform").alias("source"),
        F.col("name").alias("queue"), F.col("name").alias("name"),
        F.when(cfn & ~by_path, F.array("stack")).otherwise(F.array().cast("array<string>")).alias("stacks"),
        F.when(cfn & ~by_path, F.col("logical_id")).alias("logical_id"),
        F.when(by_path, F.col("construct_path")).alias("construct_path"),
        F.when(tf, F.col("address")).alias("address"),
        declared.alias("declared"),
        F.when(h % 10 == 3, F.to_json(F.create_map(F.lit("VG020"), F.array(file, F.lit("12")))))
        .otherwise(F.lit("{}")).alias("lines"),
        *[F.lit(None).cast("string").alias(n) for n in ("message", "diff", "refused")],
    )  # fmt: skip
    decls.select(*[F.col(n).cast(t) for n, t in SOURCE_FIELDS]).write.parquet(out)
    print(json.dumps({"declarations": spark.read.parquet(out).count()}))
    spark.stop()


def child_audit(decls: str | None, argv: list[str]) -> int:
    """In a child process: ``visguard audit run ARGV``; with ``decls``, the source lint's declarations are read
    from that Parquet (``sources.declaration_frame`` replaced: the lint is measured on its own, part 2)."""
    from visguard.audit import job, sources

    if decls:
        sources.declaration_frame = lambda spark, roots, patches=False: spark.read.parquet(decls)
    return job.main(argv, "visguard audit run")


def _audit(
    work: Path, inv: Path, out: Path, master: str, roots: list[str] | None, decls: Path | None
) -> dict:
    shutil.rmtree(out, ignore_errors=True)
    load0 = os.getloadavg()[0]
    cmd = [sys.executable, "-P", str(HERE), "--child-audit", str(decls or ""), "--", "--inventory", str(inv),
           "--out", str(out), "--master", master, "--fail-on", "never"]  # fmt: skip
    if roots:
        cmd += ["--sources", *roots]
    env = {**os.environ, "VISGUARD_CACHE_DIR": str(work / "visguard-cache")}
    # in the work folder, the roots given relative to it: the outputs name them alike in every run (--compare)
    r = proctree.run_tree(cmd, log=work / "audit.log", env=env, cwd=work)
    s = json.loads((out / "summary.json").read_text())
    r.pop("stdout")
    r.update(
        findings=s["findings"],
        phases=s["phase_seconds"],
        load=[round(load0, 1), round(os.getloadavg()[0], 1)],
    )
    if roots:
        r["sources"] = {k: v for k, v in s["sources"].items() if k not in ("sarif", "errors")}
    return r


def outputs_of(out: Path) -> dict:
    """What ``--sources`` writes, in a form to compare two runs by: findings/ and placement/ rows (all columns,
    sorted), summary.json's ``sources`` and the SARIF files."""
    import hashlib

    import pyarrow.parquet as pq

    got = {}
    for sub in ("findings", "placement"):
        t = pq.read_table(out / sub)
        cols = sorted(t.column_names)
        rows = sorted(map(repr, zip(*(t.column(c).to_pylist() for c in cols), strict=True)))
        got[sub] = {
            "columns": cols,
            "rows": len(rows),
            "sha256": hashlib.sha256("\n".join(rows).encode()).hexdigest(),
        }
    s = json.loads((out / "summary.json").read_text())
    got["summary_sources"] = s["sources"]
    got["findings_total"] = s["findings"]
    got["sarif"] = {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted((out / "sarif").glob("*.sarif"))
    }
    return got


def join_drift(queues: int, accounts: int, work: Path, master: str, repeats: int, n_roots: int,
               keep: Path | None, compare: Path | None) -> dict:  # fmt: skip
    """The audit without and with ``--sources`` on the same inventory, alternately in fresh processes."""
    inv, decls = work / "inventory", work / "declarations"
    subprocess.run([str(BIN), "audit", "generate", "--queues", str(queues), "--accounts", str(accounts), "--seed",
                    "1", "--owners", "--out", str(inv)], check=True, capture_output=True)  # fmt: skip
    roots = []
    for i in range(n_roots):
        (work / "src" / f"repo-{i:04d}").mkdir(parents=True)
        roots.append(f"src/repo-{i:04d}")
    prep = proctree.run_tree([sys.executable, "-P", str(HERE), "--child-prepare", str(inv), "--decls", str(decls),
                              "--roots", str(n_roots), "--master", master], log=work / "prepare.log")  # fmt: skip
    n_decls = json.loads(prep["stdout"].strip().splitlines()[-1])["declarations"]
    small, small_decls = work / "inv-small", work / "decls-small"  # the JVM's class archive before the runs
    subprocess.run([str(BIN), "audit", "generate", "--queues", "2000", "--accounts", "2", "--owners", "--out",
                    str(small)], check=True, capture_output=True)  # fmt: skip
    subprocess.run([sys.executable, "-P", str(HERE), "--child-prepare", str(small), "--decls", str(small_decls),
                    "--roots", "2", "--master", master], check=True, capture_output=True)  # fmt: skip
    _audit(work, small, work / "warm", master, roots[:2], small_decls)
    runs: dict[str, list[dict]] = {"without": [], "with": []}
    for i in range(repeats):
        for name in ("without", "with"):
            r = _audit(work, inv, work / f"out-{name}", master, roots if name == "with" else None,
                       decls if name == "with" else None)  # fmt: skip
            runs[name].append(r)
            print(json.dumps({"run": name, "repeat": i, **r}), file=sys.stderr, flush=True)
    base = [r["cpu"] for r in runs["without"]]
    with_ = [r["cpu"] for r in runs["with"]]
    pairs = [round((w - b) / b, 3) for b, w in zip(base, with_, strict=True)]
    result = {
        "queues": queues, "accounts": accounts, "roots": n_roots, "declarations": n_decls, "repeats": repeats,
        "cpus": os.cpu_count(), "runs": runs,
        "added_cpu_share_per_pair": pairs,
        "added_cpu_share_min_of_each": round((min(with_) - min(base)) / min(base), 3),
        "goal": "added CPU of --sources (join + drift; the lint read from Parquet) <= 25 % of the audit's",
    }  # fmt: skip
    got = outputs_of(work / "out-with")
    result["outputs"] = {k: v for k, v in got.items() if k in ("findings", "placement")}
    if keep:
        keep.write_text(json.dumps(got, indent=1, sort_keys=True))
    if compare:
        want = json.loads(compare.read_text())
        diff = sorted(k for k in set(want) | set(got) if want.get(k) != got.get(k))
        result["identical_to"] = {"file": str(compare), "identical": not diff, "differ": diff}
    return result


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
            r = proctree.run_tree(
                [sys.executable, "-P", str(HERE), "--child-lint", str(roots_file), "--master", url],
                also=tuple(p.pid for p in procs),  # the executors run under the workers
            )
            cpu, text, cluster_cpu = r["cpu"], r["stdout"], r["other"]
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


def main() -> int | None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queues", type=int, default=1_000_000)
    ap.add_argument("--accounts", type=int, default=500)
    ap.add_argument(
        "--sources", type=int, default=0, help="source roots of the join (default: one per account)"
    )
    ap.add_argument(
        "--repeats", type=int, default=2, help="runs of each audit (without, with --sources), alternately"
    )
    ap.add_argument(
        "--keep", type=Path, help="write what --sources wrote (digests of every row) to this file"
    )
    ap.add_argument("--compare", type=Path, help="check that --sources wrote what a --keep file holds")
    ap.add_argument("--roots", type=int, default=200, help="roots of the source-linting part")
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--skip-join", action="store_true")
    ap.add_argument("--skip-lint", action="store_true")
    ap.add_argument("--child-prepare")
    ap.add_argument("--decls")
    ap.add_argument("--child-audit")
    ap.add_argument("--child-lint")
    a, rest = ap.parse_known_args()
    if a.child_audit is not None:
        return child_audit(a.child_audit or None, [x for x in rest if x != "--"])
    if a.child_prepare:
        return child_prepare(a.child_prepare, a.decls, a.roots, a.master)
    if a.child_lint:
        return child_lint(a.master, a.child_lint)
    work = Path(tempfile.mkdtemp(prefix="vg-bench-sources-"))
    try:
        result = {"load_before": os.getloadavg()}
        if not a.skip_join:
            result["join_drift"] = join_drift(a.queues, a.accounts, work, a.master, a.repeats,
                                              a.sources or a.accounts, a.keep, a.compare)  # fmt: skip
            if (result["join_drift"].get("identical_to") or {}).get("identical") is False:
                print(json.dumps(result, indent=2))
                return 1
        if not a.skip_lint:
            result["source_lint"] = source_lint(a.roots, work, [int(x) for x in a.workers.split(",")])
        result["load_after"] = os.getloadavg()
        print(json.dumps(result, indent=2))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
