"""CPU of ``audit/sarif_repos.write`` (the audit's SARIF file per repository, ``--sources``) on synthetic findings,
with the cyclic collector paused as the code does and, for comparison, left running (``sarif_repos.gc`` replaced
by a stand-in whose ``disable`` does nothing). Each measure in a fresh process, alternately; the files of both are
compared by digest.

Run: ``.venv/bin/python -P benchmarks/sarif_per_repo.py [--findings 810000] [--repos 500] [--repeats 2]``.
Prints one JSON document.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path


def child(n: int, r: int, out: Path, collector: bool) -> None:
    import random

    import pyarrow as pa
    from visguard.audit import sarif_repos

    if collector:  # the collector left running: what write did before it paused it
        sarif_repos.gc = types.SimpleNamespace(
            isenabled=lambda: True, disable=lambda: None, enable=lambda: None
        )
    roots = [f"src/repo-{i:04d}" for i in range(r)]
    rnd = random.Random(1)
    cols: dict[str, list] = {c: [] for c in ("rule", "severity", "message", "queue_arn", "source_file",
                                              "source_line", "fix", "consumer", "source_repository", "suppressed")}  # fmt: skip
    for i in range(n):
        k = rnd.randrange(r)
        row = (rnd.choice(["VG001", "VG002", "VG010", "VG085"]), "warning",
               f"Queue q{i} has a visibility timeout of 30 s below the consumer's 45 s.",
               f"arn:aws:sqs:us-east-1:{100000000000 + k}:q{i}",
               f"stacks/s{i % 50}/tem plate.yaml" if i % 7 == 0 else f"/abs/s{i % 50}.tf",
               i % 900 + 1 if i % 11 else None, "Raise VisibilityTimeout." if i % 3 else None,
               None if i % 5 else f"uuid-{i}", roots[k] if i % 20 else None, None if i % 13 else "yaml")  # fmt: skip
        for c, v in zip(cols, row, strict=True):
            cols[c].append(v)
    t = pa.table(cols)
    t0 = time.process_time()
    sarif_repos.write(out, t, roots, [(3, "x: bad")])
    cpu = time.process_time() - t0
    h = hashlib.sha256()
    for p in sorted(out.glob("*.sarif")):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    print(json.dumps({"cpu": round(cpu, 2), "digest": h.hexdigest()}))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--findings", type=int, default=810_000)
    ap.add_argument("--repos", type=int, default=500)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--child", choices=("paused", "running"))
    ap.add_argument("--out")
    a = ap.parse_args()
    if a.child:
        child(a.findings, a.repos, Path(a.out), a.child == "running")
        return
    got: dict[str, list] = {"paused": [], "running": []}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(a.repeats):
            for how in ("running", "paused"):
                p = subprocess.run([sys.executable, "-P", __file__, "--child", how, "--out", f"{tmp}/{how}{i}",
                                    "--findings", str(a.findings), "--repos", str(a.repos)],
                                   check=True, capture_output=True, text=True)  # fmt: skip
                got[how].append(json.loads(p.stdout.strip().splitlines()[-1]))
    digests = {r["digest"] for rs in got.values() for r in rs}
    print(json.dumps({"findings": a.findings, "repos": a.repos,
                      "cpu": {k: [r["cpu"] for r in v] for k, v in got.items()},
                      "identical": len(digests) == 1}, indent=1))  # fmt: skip


if __name__ == "__main__":
    main()
