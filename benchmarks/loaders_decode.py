"""Why the loaders do not use cfn-lint's decoder: its cost next to visguard's own line-keeping decoder.

For the 300-queue template of benchmarks/lint_vs_cfnlint.py (as JSON and as YAML) and one small template:
  - import cost of cfnlint.decode (a fresh process) vs visguard.linter.loaders (a fresh process);
  - decode time (best of N, in process) of cfnlint.decode vs visguard's decoder;
  - load_path (decode + intrinsics + model) time.

    .venv/bin/python -P benchmarks/loaders_decode.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the benchmarks folder only, for the generator
from lint_vs_cfnlint import stack  # noqa: E402

SMALL = Path(__file__).resolve().parent.parent / "examples" / "templates" / "orders-cfn.yaml"


def best(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def import_cost(module: str, runs: int) -> float:
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    return min(
        float(
            subprocess.run(
                [sys.executable, "-P", "-c", code], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(runs)
    )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    from cfnlint.decode import decode as cfn_decode
    from visguard.linter.loaders import decode, load_path

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        big = stack(300)
        files = {
            "300 queues, JSON": Path(tmp, "big.json"),
            "300 queues, YAML": Path(tmp, "big.yaml"),
            "small YAML (examples/templates/orders-cfn.yaml)": SMALL,
        }
        files["300 queues, JSON"].write_text(json.dumps(big, indent=2))
        files["300 queues, YAML"].write_text(yaml.safe_dump(big, sort_keys=False))
        for label, path in files.items():
            size = path.stat().st_size
            t_cfn = best(lambda p=path: cfn_decode(str(p)), args.runs)
            t_ours = best(lambda p=path: decode.load_file(str(p)), args.runs)
            t_load = best(lambda p=path: load_path(str(p)), args.runs)
            rows.append((label, size, t_cfn, t_ours, t_load))
    imp_cfn = import_cost("cfnlint.decode", args.runs)
    imp_ours = import_cost("visguard.linter.loaders", args.runs)
    print(f"import: cfnlint.decode {imp_cfn * 1000:.0f} ms, visguard.linter.loaders {imp_ours * 1000:.0f} ms")
    print("| template | bytes | cfnlint.decode | visguard decode | visguard load_path (model) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for label, size, a, b, c in rows:
        print(f"| {label} | {size:,} | {a * 1000:.0f} ms | {b * 1000:.0f} ms | {c * 1000:.0f} ms |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
