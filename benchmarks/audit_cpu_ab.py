"""The audit's CPU-seconds, this checkout against another commit, side by side in one run (issue 27 §3).

``--at REV`` (default ``main``) is checked out into a temporary git worktree with its own virtualenv (this
interpreter's dependencies, REV's visguard); then, on the same generated fleet, ``visguard audit run --master
local[2]`` of REV and of this checkout run alternately in fresh processes, ``--repeats`` times each. Each run
reports wall seconds and the CPU-seconds of its whole process tree (the driver's Python, the JVM, the Python
workers: sampled from /proc every 0.25 s, per process name), the phases of its summary.json and the 1-minute load
average before and after. The outputs of the two versions are compared row by row (findings/, queues/,
quarantine/: every column, rows sorted): the run fails if they differ. Then this checkout on the same number of
queues in ``--few`` accounts, alternating with the many-accounts fleet, for the wall ratio.

Goals: CPU-seconds at 1M queues / 500 accounts at most half of REV's, identical outputs; 500 vs 50 accounts at
most 1.10x wall (wall ratios need a quiet machine: see the load columns).

Run: ``.venv/bin/python -P benchmarks/audit_cpu_ab.py [--at main] [--queues 1000000] [--accounts 500] [--few 50]
[--repeats 2]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE_BIN = Path(sys.executable).with_name("visguard")
sys.path.insert(0, str(Path(__file__).resolve().parent))  # proctree (python -P puts no directory on sys.path)
import proctree  # noqa: E402 - the shared CPU sampler


def run_tree(cmd: list[str], log: Path, env: dict | None = None) -> dict:
    """Run ``cmd``; wall seconds and CPU-seconds of it and all its descendants, by process kind
    (``proctree.run_tree``: the driver's Python, the JVM, its Python workers)."""
    r = proctree.run_tree(cmd, log=log, env=env)
    return {"wall": r["wall"], "cpu": r["cpu"], "cpu_by": r["cpu_by"]}


def checkout(rev: str, work: Path) -> Path:
    """``rev`` in a git worktree under ``work`` with a virtualenv whose visguard is that tree (editable) and whose
    dependencies are this interpreter's; returns its ``visguard`` script."""
    tree = work / "rev"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), rev], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    venv = tree / ".venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    deps = [p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()]
    site = Path(sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)}))
    (site / "zz_deps.pth").write_text("\n".join(deps) + "\n")
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    "--no-deps", "-e", str(tree)], check=True)  # fmt: skip
    return venv / "bin" / "visguard"


def commits(at: str) -> tuple[str, str]:
    """The full hashes of ``at`` and of this checkout's HEAD."""

    def rev_parse(name: str) -> str:
        return subprocess.run(["git", "-C", str(ROOT), "rev-parse", name], capture_output=True, text=True,
                              check=True).stdout.strip()  # fmt: skip

    return rev_parse(at), rev_parse("HEAD")


def audit(bin_: Path, inv: Path, out: Path, log: Path) -> dict:
    shutil.rmtree(out, ignore_errors=True)
    load0 = os.getloadavg()[0]
    # each version its own cache folder: their JVM options differ (the log configuration's path), so they have
    # archives of different names in one environment, and in one folder each run would replace the other's and
    # pay the ~15-20 CPU-s of writing it again at exit (the runs after it in the same version would not)
    env = {**os.environ, "VISGUARD_CACHE_DIR": str(bin_.parent.parent / "visguard-cache")}
    r = run_tree([str(bin_), "audit", "run", "--inventory", str(inv), "--out", str(out), "--master", "local[2]",
                  "--fail-on", "never"], log, env=env)  # fmt: skip
    s = json.loads((out / "summary.json").read_text())
    r.update(findings=s["findings"], phases=s["phase_seconds"], outputs_s=s.get("outputs_seconds"),
             load=[round(load0, 1), round(os.getloadavg()[0], 1)])  # fmt: skip
    return r


def same_outputs(a: Path, b: Path) -> dict[str, int]:
    """Rows of each Parquet output, after checking that both versions wrote the same rows (all columns)."""
    import pyarrow.parquet as pq

    counts = {}
    for sub in ("findings", "queues", "quarantine"):
        ta, tb = pq.read_table(a / sub), pq.read_table(b / sub)
        cols = sorted(ta.column_names)
        added = sorted(set(tb.column_names) - set(cols))
        if set(cols) - set(tb.column_names):
            raise SystemExit(f"{sub}: columns differ: {cols} vs {sorted(tb.column_names)}")
        for (
            c
        ) in added:  # a column this checkout adds (issue 39's iac_* owners) holds nothing without its input
            if tb.column(c).null_count != tb.num_rows:
                raise SystemExit(f"{sub}: the added column {c} holds values the other version does not have")
        if added:
            print(json.dumps({"added_columns": {sub: added}, "all_null": True}), flush=True)
        rows = [
            sorted(map(repr, zip(*(t.column(c).to_pylist() for c in cols), strict=True))) for t in (ta, tb)
        ]
        if rows[0] != rows[1]:
            only = sorted(set(rows[0]) ^ set(rows[1]))[:3]
            raise SystemExit(
                f"{sub}: the two versions' rows differ ({len(rows[0])} vs {len(rows[1])}), e.g. {only}"
            )
        counts[sub] = len(rows[0])
    return counts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--at", default="main", help="the commit to compare with (default: main)")
    ap.add_argument("--queues", type=int, default=1_000_000)
    ap.add_argument("--accounts", type=int, default=500)
    ap.add_argument("--few", type=int, default=50, help="accounts of the second fleet (0: skip)")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--work", help="working folder (default: a temporary one, removed at the end)")
    a = ap.parse_args()
    work = Path(a.work or tempfile.mkdtemp(prefix="visguard-audit-ab-"))
    work.mkdir(parents=True, exist_ok=True)
    rev, head = commits(a.at)
    dirty = bool(subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "audit", "linter",
                                 "engine", "common"], capture_output=True, text=True).stdout.strip())  # fmt: skip
    print(json.dumps({"at": rev, "head": head, "uncommitted_changes": dirty, "queues": a.queues,
                      "accounts": a.accounts, "cpus": os.cpu_count()}), flush=True)  # fmt: skip
    try:
        rev_bin = checkout(rev, work)
        fleets = {}
        for accounts in (a.accounts, a.few) if a.few else (a.accounts,):
            inv = work / f"inv-{accounts}"
            subprocess.run([str(HERE_BIN), "audit", "generate", "--queues", str(a.queues), "--accounts",
                            str(accounts), "--seed", str(a.seed), "--out", str(inv)], check=True,
                           stderr=subprocess.DEVNULL)  # fmt: skip
            fleets[accounts] = inv
        # one small run of each version first: the JVM class archive of its options exists before the measured runs
        small = work / "inv-small"
        subprocess.run([str(HERE_BIN), "audit", "generate", "--queues", "2000", "--accounts", "2", "--out",
                        str(small)], check=True, stderr=subprocess.DEVNULL)  # fmt: skip
        for name, bin_ in (("rev", rev_bin), ("head", HERE_BIN)):
            audit(bin_, small, work / f"warm-{name}", work / f"warm-{name}.log")
            shutil.rmtree(work / f"warm-{name}", ignore_errors=True)
        results: dict[str, list[dict]] = {"rev": [], "head": [], f"head-{a.few}": []}
        for i in range(a.repeats):
            for name, bin_ in (("rev", rev_bin), ("head", HERE_BIN)):
                r = audit(bin_, fleets[a.accounts], work / f"out-{name}", work / f"{name}-{i}.log")
                results[name].append(r)
                print(json.dumps({"run": name, "accounts": a.accounts, **r}), flush=True)
            if i == 0:
                print(
                    json.dumps({"identical_outputs": same_outputs(work / "out-rev", work / "out-head")}),
                    flush=True,
                )
            if a.few:
                r = audit(HERE_BIN, fleets[a.few], work / "out-few", work / f"few-{i}.log")
                results[f"head-{a.few}"].append(r)
                print(json.dumps({"run": "head", "accounts": a.few, **r}), flush=True)
        best = {k: min(v, key=lambda r: r["cpu"]) for k, v in results.items() if v}
        print(f"\nCPU-seconds at {a.queues:,} queues / {a.accounts} accounts (min of {a.repeats}): "
              f"{rev[:9]} {best['rev']['cpu']}, this checkout {best['head']['cpu']} "
              f"= {best['head']['cpu'] / best['rev']['cpu']:.2f}x (goal <= 0.50)")  # fmt: skip
        if a.few:
            ratios = [
                m["wall"] / f["wall"] for m, f in zip(results["head"], results[f"head-{a.few}"], strict=True)
            ]
            print(f"wall {a.accounts} vs {a.few} accounts, this checkout: "
                  f"{', '.join(f'{x:.2f}' for x in ratios)} (goal <= 1.10)")  # fmt: skip
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(work / "rev")],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        if a.work is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
