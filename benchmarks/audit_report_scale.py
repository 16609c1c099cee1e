"""The audit's outputs and report at fleet scale: findings.csv, OCSF JSON and report.html for ~640,000 findings
(what a 1M-queue fleet in 500 accounts yields), and how long headless Chromium takes to open the report.

The findings are real ones, tiled: a small generated fleet is audited once by the Spark job (or an existing
result is given with --from), and its findings are repeated over 500 accounts with distinct queue ARNs until
there are --findings of them. The report's load time is measured side by side with a one-line page (the
browser's own start), both with ``chromium --headless --dump-dom``, which returns after the load event, i.e.
after the page's script has rendered the table.

    .venv/bin/python -P benchmarks/audit_report_scale.py [--findings 640000] [--from RESULT_DIR]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def tiled(base, n: int, accounts: int):
    import pyarrow as pa
    import pyarrow.compute as pc

    reps = -(-n // base.num_rows)
    parts = []
    for k in range(reps):
        acct = f"{200000000000 + k % accounts}"
        part = base.set_column(
            base.column_names.index("account"), "account", pa.array([acct] * base.num_rows)
        )
        for col in ("queue_arn", "message"):
            i = part.column_names.index(col)
            part = part.set_column(
                i, col, pc.replace_substring_regex(part.column(col), r":\d{12}:", f":{acct}:")
            )
        i = part.column_names.index("queue_arn")
        part = part.set_column(
            i, "queue_arn", pc.binary_join_element_wise(part.column("queue_arn"), f"-r{k}", "")
        )
        parts.append(part)
    return pa.concat_tables(parts).slice(0, n)


def chromium_seconds(url: str, profile: Path, runs: int = 3) -> float:
    exe = shutil.which("chromium") or "/usr/bin/chromium"
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", f"--user-data-dir={profile}"]
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([exe, *flags, "--dump-dom", url], capture_output=True, check=True, timeout=300)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--findings", type=int, default=640_000)
    ap.add_argument("--accounts", type=int, default=500)
    ap.add_argument("--from", dest="src", help="an audit result folder (default: audit a 3,000-queue fleet)")
    args = ap.parse_args()
    from visguard.audit import outputs

    work = Path(tempfile.mkdtemp(prefix="vg-report-bench-"))
    src = args.src
    if not src:
        subprocess.run(
            [sys.executable, "-P", "-m", "visguard", "audit", "generate", "--queues", "3000", "--accounts", "30",
             "--seed", "7", "--out", str(work / "inv")],
            check=True,
        )  # fmt: skip
        subprocess.run(
            [sys.executable, "-P", "-m", "visguard", "audit", "run", "--inventory", str(work / "inv"), "--out",
             str(work / "small"), "--master", "local[2]"],
            check=True,
        )  # fmt: skip
        src = str(work / "small")
    import json

    base = outputs.findings_table(None, src)
    summary = json.loads(Path(src, "summary.json").read_text(encoding="utf-8"))
    big = tiled(base, args.findings, args.accounts)
    by_acct: dict = {}
    for r, a in zip(big.column("rule").to_pylist(), big.column("account").to_pylist(), strict=True):
        by_acct[(r, a)] = by_acct.get((r, a), 0) + 1
    summary.update(
        findings=big.num_rows,
        accounts=args.accounts,
        findings_by_rule_and_account=[
            {"rule": r, "account": a, "count": c} for (r, a), c in sorted(by_acct.items())
        ],
    )
    out = work / "big"
    t0 = time.perf_counter()
    outputs.write_outputs(out, big, summary)
    t_out = time.perf_counter() - t0
    tiny = work / "tiny.html"
    tiny.write_text("<!DOCTYPE html><title>t</title><p>t</p>", encoding="utf-8")
    t_tiny = chromium_seconds(tiny.as_uri(), work / "profile")
    t_report = chromium_seconds((out / "report.html").as_uri(), work / "profile")
    mb = {p.name: p.stat().st_size / 1e6 for p in sorted(out.iterdir())}
    print(
        f"findings: {big.num_rows:,} in {args.accounts} accounts (tiled from {base.num_rows:,} real findings)"
    )
    print(f"write_outputs (csv + ocsf + report): {t_out:.1f} s")
    for name, size in mb.items():
        print(f"  {name}: {size:.1f} MB")
    print(f"chromium --dump-dom, median of 3: one-line page {t_tiny:.2f} s, report.html {t_report:.2f} s "
          f"(report load + script: {t_report - t_tiny:.2f} s)")  # fmt: skip
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
