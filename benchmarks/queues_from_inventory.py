"""``visguard lint --queues-from INVENTORY`` on a 50,000-queue inventory: this checkout against another commit,
side by side (issue 33: a schema validator was built per record).

``--at REV`` (default ``ddbc2d0``) is checked out into a temporary git worktree with its own virtualenv
(``audit_cpu_ab.checkout``); both versions lint the same application (one worker naming one queue by URL) with the
same generated inventory (one partition, ``--queues`` queue records as ``visguard audit collect`` writes them),
alternately in fresh processes, ``--repeats`` times each; the best wall time of each and their ratio are printed.

Run: ``.venv/bin/python -P benchmarks/queues_from_inventory.py [--at ddbc2d0] [--queues 50000] [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from audit_cpu_ab import HERE_BIN, ROOT, checkout  # noqa: E402

URL = "https://sqs.us-east-1.amazonaws.com/123456789012/orders"
WORKER = (
    f"import boto3\nsqs = boto3.client('sqs')\nsqs.receive_message(QueueUrl={URL!r}, VisibilityTimeout=0)\n"
)


def inventory(root: Path, n: int) -> None:
    from visguard.audit.inventory import write_partition

    def records():
        for i in range(n):
            name = f"orders-{i}" if i else "orders"
            arn = f"arn:aws:sqs:us-east-1:123456789012:{name}"
            policy = json.dumps(
                {"deadLetterTargetArn": "arn:aws:sqs:us-east-1:123456789012:dlq", "maxReceiveCount": 5}
            )
            yield {"kind": "queue", "account": "123456789012", "region": "us-east-1", "arn": arn, "name": name,
                   "url": f"https://sqs.us-east-1.amazonaws.com/123456789012/{name}", "tags": {"team": "a"},
                   "attributes": {"QueueArn": arn, "VisibilityTimeout": "45", "MessageRetentionPeriod": "345600",
                                  "DelaySeconds": "0", "RedrivePolicy": policy}}  # fmt: skip

    write_partition(root, "123456789012", "us-east-1", records())


def lint(bin_: Path, inv: Path, app: Path) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run([str(bin_), "lint", "--no-config", "--queues-from", str(inv), str(app)],
                          capture_output=True, text=True)  # fmt: skip
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 2):
        raise SystemExit(f"{bin_} failed ({proc.returncode}): {proc.stderr[-500:]}")
    return wall


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--at", default="ddbc2d0")
    p.add_argument("--queues", type=int, default=50_000)
    p.add_argument("--repeats", type=int, default=3)
    a = p.parse_args()
    work = Path(tempfile.mkdtemp(prefix="vg-qf-bench-"))
    try:
        rev_bin = checkout(a.at, work)
        inv, app = work / "inv", work / "app"
        inventory(inv, a.queues)
        app.mkdir()
        (app / "worker.py").write_text(WORKER)
        runs: dict[str, list[float]] = {"rev": [], "head": []}
        for i in range(a.repeats):
            runs["rev"].append(lint(rev_bin, inv, app))
            runs["head"].append(lint(HERE_BIN, inv, app))
            print(
                f"round {i + 1}: {a.at} {runs['rev'][-1]:.2f} s, this checkout {runs['head'][-1]:.2f} s",
                flush=True,
            )
        rev, head = min(runs["rev"]), min(runs["head"])
        print(f"{a.queues:,} queues, best of {a.repeats}: {a.at} {rev:.2f} s, this checkout {head:.2f} s "
              f"= {head / rev:.3f}x ({rev / head:.1f}x faster)")  # fmt: skip
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(work / "rev")],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
