"""The join and the Kubernetes consumer search at scale (issue 33), this tree side by side with a git revision.

    .venv/bin/python -P benchmarks/join_scale.py [--at ddbc2d0] [--rounds 3] [--json out.json]

Cases (each timed in a child process, the median of ``--rounds`` interleaved rounds of wall and CPU time):
- ``join``: 10,000 consumers (by queue name) against 10,000 queues of another input: ``consumers.join``;
- ``k8s-list``: one ``kubectl get -o json`` List of 20,000 Deployments whose container gets a queue ARN:
  ``registry.load`` of the file (decoding included; ``--decode`` also times the decode alone).
A revision is read from ``git archive REV`` into ``.bench/join-at-REV`` and imported through the same
``visguard.*`` folder mapping as pyproject.toml's ``package-dir``; this tree is imported the same way. A child
stops at ``--timeout`` seconds (default 300): its time is then given as "> timeout".
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {"engine": "engine", "linter": "linter", "audit": "audit"}

CHILD = textwrap.dedent(
    """
    import json, sys, time
    case, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if case == "join":
        from visguard.linter.consumers import QueueRef, join
        from visguard.linter.model import Consumer, Location, Model, Queue
        infra, app = Model(), Model()
        for i in range(n):
            infra.add(Queue(id=f"Q{i}", location=Location("infra/main.tf", i + 1), name=f"queue-{i}"))
        app.pending += [Consumer(id=f"w{i}", kind="worker", platform="sdk", location=Location("app/w.py", i + 1),
                                 queue_ref=QueueRef("name", f"queue-{i}")) for i in range(n)]
        t0, c0 = time.perf_counter(), time.process_time()
        join([infra, app])
        assert all(len(q.consumers) == 1 for q in infra.queues.values())
    else:
        from visguard.linter.loaders import registry
        t0, c0 = time.perf_counter(), time.process_time()
        if case == "decode":
            from visguard.linter.loaders.decode import loads_all
            loads_all(open(path).read(), file=path)
        else:
            model = registry.load(path)
            assert len(model.pending) == n
    print(json.dumps({"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0}))
    """
)


def _mapped(src: Path, dest: Path) -> Path:
    """A folder holding ``visguard/`` = ``src/common`` with ``src``'s part folders linked in (package-dir)."""
    pkg = dest / "pkg" / "visguard"
    if not pkg.exists():
        pkg.mkdir(parents=True)
        for f in (src / "common").iterdir():
            (pkg / f.name).symlink_to(f)
        for name, folder in FOLDERS.items():
            (pkg / name).symlink_to(src / folder)
    return dest / "pkg"


def _at(rev: str) -> Path:
    dest = ROOT / ".bench" / f"join-at-{rev}"
    src = dest / "src"
    if not src.exists():
        src.mkdir(parents=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "common", *FOLDERS.values()],
                                 check=True, capture_output=True).stdout  # fmt: skip
        subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    return _mapped(src, dest)


def _list(n: int, path: Path) -> None:
    items = [{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": f"w{i}"}, "spec": {"template": {
        "spec": {"containers": [{"name": "a", "env": [
            {"name": "Q", "value": f"arn:aws:sqs:us-east-1:123456789012:q{i}"}]}]}}}} for i in range(n)]  # fmt: skip
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))


def _run(pkg: Path, case: str, n: int, path: Path, timeout: float) -> dict | None:
    env = {**os.environ, "PYTHONPATH": str(pkg), "PYTHONSAFEPATH": "1"}
    try:
        out = subprocess.run([sys.executable, "-P", "-c", CHILD, case, str(n), str(path)], env=env,
                             capture_output=True, text=True, timeout=timeout, check=True).stdout  # fmt: skip
    except subprocess.TimeoutExpired:
        return None
    return json.loads(out.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--at", default="ddbc2d0")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--decode", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args()
    versions = {
        f"at {args.at}": _at(args.at),
        "this tree": _mapped(ROOT, Path(tempfile.mkdtemp(prefix="join-now-"))),
    }
    work = Path(tempfile.mkdtemp(prefix="join-bench-"))
    big = work / "list.json"
    _list(20_000, big)
    cases = [("join", 10_000), ("k8s-list", 20_000)] + ([("decode", 20_000)] if args.decode else [])
    results: dict = {}
    for case, n in cases:
        for _ in range(args.rounds):
            for label, pkg in versions.items():
                r = _run(pkg, case, n, big, args.timeout)
                results.setdefault(case, {}).setdefault(label, []).append(r)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python "
          f"{platform.python_version()}, load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    print("| case | at " + args.at + " wall / CPU (s) | this tree wall / CPU (s) | ratio (CPU) |")
    print("| --- | --- | --- | --- |")
    summary = {}
    for case, by in results.items():
        cells, cpu = [], []
        for label in versions:
            runs = by[label]
            if any(r is None for r in runs):
                cells.append(f"> {args.timeout:.0f} (not finished)")
                cpu.append(None)
                continue
            w, c = statistics.median(r["wall"] for r in runs), statistics.median(r["cpu"] for r in runs)
            cells.append(f"{w:.2f} / {c:.2f}")
            cpu.append(c)
        ratio = f"{cpu[0] / cpu[1]:.0f}x faster" if None not in cpu else (
            f"> {args.timeout / cpu[1]:.0f}x faster" if cpu[1] else "-")  # fmt: skip
        summary[case] = {"cells": cells, "ratio": ratio}
        print(f"| {case} | {cells[0]} | {cells[1]} | {ratio} |")
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
