"""The audit's outputs and report at fleet scale: findings.csv, OCSF JSON and report.html for ~640,000 findings
(what a 1M-queue fleet in 500 accounts yields), and how long headless Chromium takes to open the report.

The findings are real ones, tiled: a small generated fleet is audited once by the Spark job (or an existing
result is given with --from), and its findings are repeated over 500 accounts with distinct queue ARNs until
there are --findings of them. The report's load time is measured side by side with a one-line page (the
browser's own start), both with ``chromium --headless --dump-dom``, which returns after the load event, i.e.
after the page's script has rendered the table.

    .venv/bin/python -P benchmarks/audit_report_scale.py [--findings 640000] [--from RESULT_DIR]

``--at REV --from RESULT_DIR`` (issue 27 §3): the driver's CPU-seconds in ``write_outputs`` for the findings of
a real result as they are (no tiling), this checkout against REV side by side: REV is checked out into a
temporary worktree with its own virtualenv (as ``audit_cpu_ab.py`` does), and the two versions run alternately in
fresh processes, ``--repeats`` times each, once without and once with ``--baseline`` (the result itself as the
baseline of a run with every 100th finding removed; the baseline is read before the clock starts, as the job
does). Each run reports ``time.process_time()`` of the call, and one more run per version the CPU of each
output (prioritise, why, findings.csv, OCSF, report, baseline diff). The outputs of the two versions
(findings.csv, findings.ocsf.json, report.html, baseline-diff.csv and the summary keys) must be byte-identical:
the run fails if they differ.

    .venv/bin/python -P benchmarks/audit_report_scale.py --from RESULT_DIR --at main [--repeats 2]
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

HERE = Path(__file__).resolve()


def _findings(src: str):
    """The findings of a result folder (read here, not by visguard: the same input for every version measured)."""
    import pyarrow as pa
    import pyarrow.dataset as ds

    part = ds.partitioning(pa.schema([("account", pa.string()), ("region", pa.string())]), flavor="hive")
    return ds.dataset(f"{src}/findings", format="parquet", partitioning=part).to_table()


def _rates(src: str) -> dict:
    """Queue ARN -> (duplicate-rate estimate, observed rate) of a result folder's queues/, as the job passes them."""
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    cols = ["arn", "duplicate_rate", "observed_rate"]
    t = ds.dataset(f"{src}/queues", format="parquet").to_table(
        columns=cols, filter=(pc.field("duplicate_rate") > 0) | pc.field("observed_rate").is_valid()
    )
    return {a: (d, o) for a, d, o in zip(*(t.column(c).to_pylist() for c in cols), strict=True)}


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


PARTS = {  # module, attribute: what each output's CPU is counted under (whichever of them a version has)
    "prioritise": [("outputs", "prioritise")],
    "why": [("outputs", "why_column")],
    "csv": [("outputs", "write_csv")],
    "ocsf": [("ocsf.Writer", "add"), ("ocsf.Writer", "add_table"), ("ocsf.Writer", "close")],
    "report": [("report", "write_report")],
    "baseline": [("baseline", "compare"), ("outputs", "_write_diff")],
}


def _count_parts(cpu: dict) -> None:
    """Wrap the functions of PARTS so that their CPU-seconds add up in ``cpu`` (nested calls counted once)."""
    import functools
    import importlib

    depth = [0]
    for part, places in PARTS.items():
        for where, name in places:
            mod, _, cls = where.partition(".")
            owner = importlib.import_module(f"visguard.audit.{mod}")
            owner = getattr(owner, cls) if cls else owner
            fn = getattr(owner, name, None)
            if fn is None:
                continue

            def wrapped(*a, _fn=fn, _part=part, **kw):
                depth[0] += 1
                c0 = time.process_time()
                try:
                    return _fn(*a, **kw)
                finally:
                    depth[0] -= 1
                    if depth[0] == 0:
                        cpu[_part] = cpu.get(_part, 0.0) + time.process_time() - c0

            setattr(owner, name, functools.wraps(fn)(wrapped))


def measure(src: str, out: Path, with_baseline: bool, parts: bool) -> dict:
    """One write_outputs over the findings of ``src`` (as the job hands them over), in this process."""
    import json

    import numpy as np
    import pyarrow as pa
    from visguard.audit import baseline as bl
    from visguard.audit import outputs
    from visguard.audit.tables import FINDING_FIELDS

    table = _findings(src).select(list(FINDING_FIELDS))  # the column order the job's table has
    rates = _rates(src)
    summary = json.loads(Path(src, "summary.json").read_text(encoding="utf-8"))
    for k in ("outputs", "outputs_seconds", "findings_by_owner", "owner_tag", "suppressed", "open_findings",
              "suppressed_by_rule", "baseline"):  # fmt: skip
        summary.pop(k, None)  # what write_outputs adds
    previous, read_s = None, None
    if with_baseline:
        keep = np.ones(table.num_rows, bool)
        keep[::100] = False  # every 100th finding resolved since the baseline
        table = table.filter(pa.array(keep))
        c0 = time.process_time()
        previous = bl.read(src)
        read_s = time.process_time() - c0
    cpu: dict = {}
    if parts:
        _count_parts(cpu)
    c0, w0 = time.process_time(), time.perf_counter()
    extra = outputs.write_outputs(out, table, summary, baseline=previous, rates=rates,
                                  owner_tag=summary.get("owner_tags"), now=1_795_790_851.713)  # fmt: skip
    r = {"cpu": time.process_time() - c0, "wall": time.perf_counter() - w0, "findings": table.num_rows}
    extra.pop("outputs_seconds", None)
    (out / "extra.json").write_text(json.dumps(extra, sort_keys=True, default=str), encoding="utf-8")
    if read_s is not None:
        r["baseline_read_cpu"] = read_s
    if parts:
        r["parts"] = {k: round(v, 2) for k, v in cpu.items()}
    return r


def compare_outputs(a: Path, b: Path) -> list[str]:
    """The files two versions wrote, checked byte for byte (SystemExit when one differs)."""
    names = sorted(p.name for p in a.iterdir())
    if names != sorted(p.name for p in b.iterdir()):
        raise SystemExit(
            f"the two versions wrote different files: {names} vs {sorted(p.name for p in b.iterdir())}"
        )
    for name in names:
        with (a / name).open("rb") as fa, (b / name).open("rb") as fb:
            while True:
                x, y = fa.read(1 << 24), fb.read(1 << 24)
                if x != y:
                    raise SystemExit(f"{name}: the two versions' outputs differ")
                if not x:
                    break
    return names


def ab(args) -> int:
    import json
    import os
    import platform

    sys.path.insert(0, str(HERE.parent))
    from audit_cpu_ab import ROOT, checkout, commits

    work = Path(args.work or tempfile.mkdtemp(prefix="vg-outputs-ab-"))
    work.mkdir(parents=True, exist_ok=True)
    rev, head = commits(args.at)
    print(json.dumps({"at": rev, "head": head, "from": args.src, "machine": platform.machine(),
                      "cpus": os.cpu_count(), "python": platform.python_version()}))  # fmt: skip
    try:
        py = {"rev": checkout(rev, work).with_name("python"), "head": Path(sys.executable)}

        def run(who: str, case: str, k: int, parts: bool = False) -> dict:
            out = work / f"{who}-{case}-{k}"
            shutil.rmtree(out, ignore_errors=True)
            cmd = [str(py[who]), "-P", str(HERE), "--measure", args.src, "--out", str(out)]
            cmd += ["--baseline"] * (case == "baseline") + ["--parts"] * parts
            load = os.getloadavg()[0]
            p = subprocess.run(cmd, capture_output=True, text=True, check=True)
            r = json.loads(p.stdout.strip().splitlines()[-1])
            r.update(load=[round(load, 1), round(os.getloadavg()[0], 1)])
            print(json.dumps({"version": who, "case": case, **r}), flush=True)
            return r

        for case in ("plain", "baseline"):
            got: dict = {"rev": [], "head": []}
            for k in range(args.repeats):
                for who in ("rev", "head"):
                    got[who].append(run(who, case, k))
            names = compare_outputs(work / f"rev-{case}-0", work / f"head-{case}-0")
            parts = {who: run(who, case, args.repeats, parts=True)["parts"] for who in ("rev", "head")}
            best = {who: min(r["cpu"] for r in rs) for who, rs in got.items()}
            print(f"\n{case}: {got['head'][0]['findings']:,} findings; write_outputs CPU-s (min of {args.repeats}): "
                  f"{rev[:8]} {best['rev']:.2f}, this checkout {best['head']:.2f} "
                  f"({best['head'] / best['rev']:.2f}x); outputs identical: {', '.join(names)}")  # fmt: skip
            for part in PARTS:
                a, b = parts["rev"].get(part), parts["head"].get(part)
                if a or b:
                    print(f"  {part:10s} {a or 0:6.2f} -> {b or 0:6.2f}")
            for who in ("rev", "head"):
                for k in range(args.repeats + 1):
                    shutil.rmtree(work / f"{who}-{case}-{k}", ignore_errors=True)
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(work / "rev")],
                       capture_output=True)  # fmt: skip
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--findings", type=int, default=640_000)
    ap.add_argument("--accounts", type=int, default=500)
    ap.add_argument("--from", dest="src", help="an audit result folder (default: audit a 3,000-queue fleet)")
    ap.add_argument("--at", help="with --from: write_outputs' CPU of this checkout against this commit")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--work", help="with --at: working folder (default: a temporary one, removed at the end)")
    ap.add_argument("--measure", help=argparse.SUPPRESS)  # one measured run in this process (for --at)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    ap.add_argument("--baseline", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--parts", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:
        import json

        print(json.dumps(measure(args.measure, Path(args.out), args.baseline, args.parts)))
        return 0
    if args.at:
        if not args.src:
            ap.error("--at needs --from RESULT_DIR")
        return ab(args)
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

    base = _findings(src)
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
