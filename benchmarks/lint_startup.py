"""Start-up of `visguard lint` on one small template: several installs and cfn-lint, interleaved, in one run.

Each LABEL=PROGRAM is a `visguard` console script (another venv: a non-editable install, or an older checkout);
cfn-lint from this venv is the reference. Every round runs each program once on the same generated template;
the medians of wall and CPU time (user + system of the child) are reported, with the ratio cfn-lint / program.

    .venv/bin/python -P benchmarks/lint_startup.py [--rounds 9] [LABEL=PATH/TO/visguard ...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from lint_vs_cfnlint import BIN, cpu_timed, stack  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("programs", nargs="*", metavar="LABEL=PATH", help="more visguard console scripts")
    args = ap.parse_args()
    programs = {"this venv": str(BIN / "visguard")}
    programs.update(p.split("=", 1) for p in args.programs)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        small = root / "stack.template.json"
        small.write_text(json.dumps(stack(1), indent=1))
        cmds = {label: [prog, "lint", "--no-config", str(small)] for label, prog in programs.items()}
        cmds["cfn-lint"] = [str(BIN / "cfn-lint"), "--", str(small)]
        wall: dict[str, list[float]] = {k: [] for k in cmds}
        cpu: dict[str, list[float]] = {k: [] for k in cmds}
        for _ in range(args.rounds):
            for label, cmd in cmds.items():
                w, c = cpu_timed(cmd, root)
                wall[label].append(w)
                cpu[label].append(c)
    med = statistics.median
    ref_w, ref_c = med(wall["cfn-lint"]), med(cpu["cfn-lint"])
    out = {
        label: {
            "wall_median_s": round(med(wall[label]), 3),
            "cpu_median_s": round(med(cpu[label]), 3),
            "wall_speedup": round(ref_w / med(wall[label]), 1),
            "cpu_speedup": round(ref_c / med(cpu[label]), 1),
        }
        for label in cmds
    }
    out["load_average"] = os.getloadavg()[0]
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
