"""Does Spark earn its place? ``visguard audit run --master local[2]`` against the same audit written as one
plain Python process (the test suite's reference of the parse and joins, ``tests/audit/reference.py``, then
``build.lint_rows`` and the findings written to Parquet with pyarrow: same inputs, same findings), measured
side by side in one run, plus the Spark job on the same number of queues in 10x fewer accounts.

Goals (issue 13 §4): Spark on local[2] >= 1.8x faster than one Python process at 1M queues in 500 accounts;
500 accounts no slower than 50. The machine may be shared: each row has wall and CPU seconds (the process
tree's, from /proc) and the load average before and after; ratios of one run are what to compare.

Run: ``.venv/bin/python -P benchmarks/audit_vs_python.py [--queues 1000000] [--accounts 500,50]``.
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

ROOT = Path(__file__).resolve().parent.parent


def _scale_module():
    """benchmarks/audit_scale.py (its CPU sampling), loaded by path: ``python -P`` puts no directory on sys.path."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("audit_scale", Path(__file__).with_name("audit_scale.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_scale = _scale_module()
BIN, cpu_of_tree = _scale.BIN, _scale.cpu_of_tree
PLAIN = r"""
import sys, time
sys.path.insert(0, sys.argv[3])  # tests/audit (reference.py), never the repo root
import pyarrow as pa, pyarrow.parquet as pq
import reference
from visguard.audit import build
t0 = time.perf_counter()
rows, quarantine = reference.joined_rows(sys.argv[1])
findings, figures = build.lint_rows(rows)
pq.write_table(pa.Table.from_pylist(findings), sys.argv[2] + "/findings.parquet")
pq.write_table(pa.Table.from_pylist(figures), sys.argv[2] + "/queues.parquet")
print(len(findings), len(rows), len(quarantine), round(time.perf_counter() - t0, 1))
"""


def timed(cmd: list[str], log: Path, env: dict | None = None) -> tuple[float, float]:
    t0 = time.perf_counter()
    with log.open("wb") as f:
        proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, env=env)
        cpu = cpu_of_tree(proc)
    if proc.wait() != 0:
        raise SystemExit(f"{cmd[:4]} failed, see {log}")
    return round(time.perf_counter() - t0, 1), round(cpu, 1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queues", type=int, default=1_000_000)
    ap.add_argument("--accounts", default="500,50")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--work", default=None)
    a = ap.parse_args()
    work = Path(a.work or tempfile.mkdtemp(prefix="visguard-audit-vs-python-"))
    rows = []
    for i, accounts in enumerate(int(x) for x in a.accounts.split(",")):
        inv = work / f"inv-{accounts}"
        shutil.rmtree(inv, ignore_errors=True)
        subprocess.run(
            [str(BIN), "audit", "generate", "--queues", str(a.queues), "--accounts", str(accounts),
             "--seed", str(a.seed), "--out", str(inv)],
            check=True, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        load0 = os.getloadavg()[0]
        out = work / f"spark-{accounts}"
        shutil.rmtree(out, ignore_errors=True)
        spark_wall, spark_cpu = timed(
            [str(BIN), "audit", "run", "--inventory", str(inv), "--out", str(out), "--master", "local[2]",
             "--fail-on", "never"],
            work / f"spark-{accounts}.log",
        )  # fmt: skip
        s = json.loads((out / "summary.json").read_text())
        row = {"queues": a.queues, "accounts": accounts, "spark_s": spark_wall, "spark_cpu_s": spark_cpu,
               "phase_seconds": s["phase_seconds"], "findings": s["findings"]}  # fmt: skip
        if i == 0:  # the plain-Python process once, on the first (largest) account count
            plain_out = work / "plain"
            shutil.rmtree(plain_out, ignore_errors=True)
            plain_out.mkdir()
            log = work / "plain.log"
            wall, cpu = timed(
                [sys.executable, "-P", "-c", PLAIN, str(inv), str(plain_out), str(ROOT / "tests" / "audit")],
                log,
            )
            n_findings = int(log.read_text().split()[0])
            row.update(python_s=wall, python_cpu_s=cpu, python_findings=n_findings,
                       speedup=round(wall / spark_wall, 2))  # fmt: skip
        row["load_avg_1m"] = [round(load0, 1), round(os.getloadavg()[0], 1)]
        rows.append(row)
        print(json.dumps(row), flush=True)
        shutil.rmtree(inv, ignore_errors=True)
    first = rows[0]
    print(f"\nSpark local[2] vs one Python process at {a.queues:,} queues / {first['accounts']} accounts: "
          f"{first['python_s']} s / {first['spark_s']} s = {first['speedup']}x (goal >= 1.8x)")  # fmt: skip
    for r in rows[1:]:
        print(f"{first['accounts']} vs {r['accounts']} accounts: {first['spark_s']} s vs {r['spark_s']} s "
              f"(ratio {first['spark_s'] / r['spark_s']:.2f}; goal <= 1.0)")  # fmt: skip
    if a.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
