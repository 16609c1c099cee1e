"""How much faster can two cores make the fleet audit at all? The bound behind issue 13 §4's goal.

The same plain-Python audit (``tests/audit/reference.py`` parse + joins, ``build.lint_rows``, findings to
Parquet) run three ways over one generated inventory, side by side in one run:

1. one process over the whole inventory (what ``benchmarks/audit_vs_python.py`` compares Spark against);
2. two processes (``multiprocessing``, no JVM), each auditing whole accounts and writing its own Parquet
   file: the best any two-core design can do with this work, as it has no shuffle, no JVM and no Arrow
   round trip;
3. Spark ``local[2]`` used only as a runner of the same per-account Python (``mapInArrow`` over account
   names; findings written by Spark as Parquet partitioned by account/region): the least JVM work a Spark
   job of this audit can have.

Runs 2 and 3 audit each account on its own, so references between accounts (a mapping or a redrive target in
another account: a few hundred in a generated fleet) are not joined and their findings differ slightly from
run 1; a real job must join them, which only adds work. Wall and CPU seconds (process tree, from /proc), load
average before/after each run.

Run: ``.venv/bin/python -P benchmarks/audit_parallel_bound.py [--queues 1000000] [--accounts 500]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "tests" / "audit"

# one account group -> (findings, figures) with the reference's parse and joins over those files only
COMMON = r"""
import gc, os, sys, time
from pathlib import Path

def audit_files(inv, files):
    # imported here: Spark's Python workers unpickle this function without tests/audit on their path
    if os.environ["VISGUARD_REFERENCE"] not in sys.path:
        sys.path.insert(0, os.environ["VISGUARD_REFERENCE"])  # tests/audit (reference.py), never the root
    import reference
    from visguard.audit import build, inventory

    inventory.partition_files = lambda root: files  # the reference reads exactly these files
    rows, _ = reference.joined_rows(inv)
    return build.lint_rows(rows)

def accounts_of(inv):
    return sorted({p.parent.name for p in Path(inv).glob("*/*.jsonl")})

def files_of(inv, account):
    return sorted(Path(inv, account).glob("*.jsonl"))
"""

ONE = (
    COMMON
    + r"""
import pyarrow as pa, pyarrow.parquet as pq
sys.path.insert(0, os.environ["VISGUARD_REFERENCE"])
import reference
from visguard.audit import build
inv, out = sys.argv[1], sys.argv[2]
rows, _ = reference.joined_rows(inv)  # the whole inventory, cross-account references joined
findings, _ = build.lint_rows(rows)
pq.write_table(pa.Table.from_pylist(findings), out + "/findings.parquet")
print(len(findings))
"""
)

POOL = (
    COMMON
    + r"""
import multiprocessing as mp
import pyarrow as pa, pyarrow.parquet as pq

def work(args):
    inv, out, accounts, i = args
    gc.freeze(); gc.set_threshold(100_000, 50, 100)
    findings = []
    for a in accounts:
        f, _ = audit_files(inv, files_of(inv, a))
        findings += f
    pq.write_table(pa.Table.from_pylist(findings), f"{out}/findings-{i}.parquet")
    return len(findings)

if __name__ == "__main__":
    inv, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    accounts = accounts_of(inv)
    chunks = [accounts[i::n * 4] for i in range(n * 4)]  # 4 chunks a process: the last ones balance the load
    with mp.get_context("fork").Pool(n) as pool:
        print(sum(pool.map(work, [(inv, out, c, i) for i, c in enumerate(chunks)], chunksize=1)))
"""
)

SPARK = (
    COMMON
    + r"""
from visguard.audit.session import spark_session, stop_session
from visguard.audit.tables import finding_schema
inv, out = os.path.abspath(sys.argv[1]), sys.argv[2]
spark = spark_session("local[2]", class_archive=True)
spark.sparkContext.setLogLevel("ERROR")
schema = finding_schema()
accounts = spark.createDataFrame([(a,) for a in accounts_of(inv)], "account string").repartition(16)

def per_account(batches):
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema
    gc.freeze(); gc.set_threshold(100_000, 50, 100)
    arrow = to_arrow_schema(schema)
    for b in batches:
        for a in b.column(0).to_pylist():
            findings, _ = audit_files(inv, files_of(inv, a))
            yield pa.RecordBatch.from_pylist(findings, schema=arrow)

accounts.mapInArrow(per_account, schema).write.partitionBy("account", "region").parquet(out + "/findings")
print(spark.read.parquet(out + "/findings").count())
stop_session(spark)
"""
)


def _load(name: str):
    """A sibling benchmark script, loaded by path (``python -P`` puts no directory on sys.path)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_vs_python = _load("audit_vs_python")  # its timing of a process tree (wall, CPU from /proc)


def timed(cmd: list[str], log: Path) -> tuple[float, float]:
    return _vs_python.timed(cmd, log, env={**os.environ, "VISGUARD_REFERENCE": str(REFERENCE)})


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queues", type=int, default=1_000_000)
    ap.add_argument("--accounts", type=int, default=500)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--inventory", help="an inventory to use instead of generating one")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="visguard-parallel-bound-"))
    inv = Path(a.inventory) if a.inventory else work / "inv"
    if not a.inventory:
        subprocess.run(
            [str(_vs_python.BIN), "audit", "generate", "--queues", str(a.queues), "--accounts", str(a.accounts),
             "--seed", str(a.seed), "--out", str(inv)],
            check=True, stderr=subprocess.DEVNULL,
        )  # fmt: skip
    py = [sys.executable, "-P", "-c"]
    runs = {
        "one Python process": py + [ONE, str(inv)],
        "two Python processes (multiprocessing)": py + [POOL, str(inv)],
        "Spark local[2] running the same Python per account": py + [SPARK, str(inv)],
    }
    rows = []
    for i, (name, cmd) in enumerate(runs.items()):
        out = work / f"out-{i}"
        out.mkdir()
        load0 = os.getloadavg()[0]
        wall, cpu = timed([*cmd, str(out), *(["2"] if "multiprocessing" in name else [])], work / f"{i}.log")
        n = int((work / f"{i}.log").read_text().split()[-1])
        rows.append({"run": name, "wall_s": wall, "cpu_s": cpu, "findings": n,
                     "load_avg_1m": [round(load0, 1), round(os.getloadavg()[0], 1)]})  # fmt: skip
        print(json.dumps(rows[-1]), flush=True)
    base = rows[0]["wall_s"]
    for r in rows[1:]:
        print(
            f"{r['run']}: {base / r['wall_s']:.2f}x the one process (wall), issue 13's goal for Spark: >= 1.8x"
        )
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
