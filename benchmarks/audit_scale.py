"""Scale of the fleet audit: generated fleets of 100k, 300k and 1M queues, ``visguard audit run`` on local[2].

Each size: generate the fleet (timed on its own), then run the audit end to end in a fresh process (JVM start,
read, parse, joins, lint_model + risk per queue, Parquet, summary, report) and time it. Goal: 1M queues in
<= 120 s, cost growing linearly. Run: ``.venv/bin/python -P benchmarks/audit_scale.py [--sizes 100000,300000]``.

The first audit on a machine also writes the Spark JVM's class archive (``visguard.audit.job``, about 20 s at the
end of that run); each row says whether the archive was there before its run (``archive``: cold / warm).
``--cold`` points every run at an empty cache directory, so each one pays for writing it.
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
sys.path.insert(0, str(Path(__file__).resolve().parent))  # proctree (python -P puts no directory on sys.path)
from proctree import cpu_of_tree  # noqa: E402 - the shared CPU sampler (audit_vs_python.py takes it from here)


def _archives() -> set[str]:
    from visguard.audit.job import cache_dir

    d = cache_dir()
    return {p.name for p in d.glob("spark-classes-*.jsa")} if d.is_dir() else set()


def run(size: int, accounts: int, work: Path, master: str, cold: bool = False) -> dict:
    inv, out = work / f"inv-{size}", work / f"out-{size}"
    shutil.rmtree(inv, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    t0 = time.perf_counter()
    subprocess.run(
        [
            str(BIN),
            "audit",
            "generate",
            "--queues",
            str(size),
            "--accounts",
            str(accounts),
            "--seed",
            "1",
            "--out",
            str(inv),
        ],
        check=True,
        capture_output=True,
    )
    gen = time.perf_counter() - t0
    load = os.getloadavg()[0]  # other work on the machine inflates the wall time; CPU seconds much less
    env = dict(os.environ)
    if cold:
        env["VISGUARD_CACHE_DIR"] = str(work / f"cache-{size}")
    archive = "cold" if cold or not _archives() else "warm"
    t0 = time.perf_counter()
    log = work / f"audit-{size}.log"  # a file, not a pipe: nobody reads a pipe while sampling CPU
    with log.open("wb") as f:
        proc = subprocess.Popen(
            [str(BIN), "audit", "run", "--inventory", str(inv), "--out", str(out), "--master", master]
            + ["--fail-on", "never"],
            stdout=subprocess.DEVNULL,
            stderr=f,
            env=env,
        )
        cpu = cpu_of_tree(proc)
    if proc.wait() != 0:
        raise SystemExit(f"audit run failed, see {log}")
    audit = time.perf_counter() - t0
    s = json.loads((out / "summary.json").read_text())
    shutil.rmtree(inv, ignore_errors=True)
    return {
        "queues": size,
        "generate_s": round(gen, 1),
        "audit_s": round(audit, 1),
        "cpu_s": round(cpu, 1),
        "load_avg_1m": [round(load, 1), round(os.getloadavg()[0], 1)],  # before, after
        "archive": archive,
        "phase_seconds": s["phase_seconds"],
        "findings": s["findings"],
        "quarantined": s["quarantined"],
        "mappings": s["mappings"],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="100000,300000,1000000")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--work", default=None, help="scratch directory (default: a temporary one)")
    ap.add_argument(
        "--cold", action="store_true", help="an empty cache directory for every run (no class archive)"
    )
    a = ap.parse_args()
    work = Path(a.work or tempfile.mkdtemp(prefix="visguard-audit-scale-"))
    rows = []
    for size in (int(x) for x in a.sizes.split(",")):
        r = run(size, max(10, size // 20_000), work, a.master, a.cold)
        rows.append(r)
        print(json.dumps(r), flush=True)
    print(
        "\n| queues | mappings | generate (s) | audit end to end (s) | CPU (s) | s per 100k queues | findings | quarantined | class archive | load before/after |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |")
    for r in rows:
        print(
            f"| {r['queues']:,} | {r['mappings']:,} | {r['generate_s']} | {r['audit_s']} | {r['cpu_s']} | {100_000 * r['audit_s'] / r['queues']:.1f} | {r['findings']:,} | {r['quarantined']} | {r['archive']} | {r['load_avg_1m'][0]} / {r['load_avg_1m'][1]} |"
        )
    big = max(rows, key=lambda r: r["queues"])
    if big["queues"] >= 1_000_000:
        print(
            f"\ngoal 1M queues <= 120 s: {'met' if big['audit_s'] <= 120 else 'NOT met'} ({big['audit_s']} s)"
        )
    shutil.rmtree(work, ignore_errors=True) if a.work is None else None
    return 0


if __name__ == "__main__":
    sys.exit(main())
