"""visguard lint vs checkov on the same Terraform folders (issue 12), and the HCL parsers side by side.

Folders: examples/terraform, the real-world shapes in tests/linter/terraform/shapes/, and a generated large root
module (200 queue/DLQ/function/mapping groups over 10 files plus a local module called 20 times). Each tool runs
as its command-line program, one process per folder and one process for the whole set, wall time, best of N:

    visguard lint DIR --fail-on never            (the wheel of this checkout in a fresh venv, as users install it;
                                                  the editable checkout's console script is a second column)
    checkov -d DIR --framework terraform --quiet --skip-download    (checkov in .bench/checkov-venv)

If the CLI does not route folders of *.tf files to the Terraform loader, `visguard lint` on such a folder is run
as the same work in one process (`python -P -c` that loads, lints and prints the text report), and the output
says so. visguard's modules are byte-compiled first (``compileall``), as a pip install leaves them: this
environment sets PYTHONDONTWRITEBYTECODE, which would otherwise make every run of the editable checkout compile
its sources again (checkov's venv was byte-compiled by pip). checkov is installed by this script into
.bench/checkov-venv (not a project dependency); the parser comparison runs in .bench/parsers-venv: python-hcl2's
Lark parse trees (visguard's parser until tree-sitter), tfparse's evaluating loader (Go) and tree-sitter-hcl's
parse trees (visguard's parser), per folder, each imported and warmed up before timing, plus what importing each
and building its parser costs in a fresh process.

    .venv/bin/python -P benchmarks/lint_vs_checkov.py [--runs 3] [--json out.json] [--skip-parsers]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
BENCH = ROOT / ".bench"

IN_PROCESS = """
import sys
from visguard.linter.api import LintResult, lint_model
from visguard.linter.loaders import terraform
from visguard.linter.report.text import render_text
result = LintResult()
for d in sys.argv[1:]:
    m = terraform.load(d)
    result.files.append(d)
    result.queues += len(m.queues)
    result.findings += lint_model(m)
print(render_text(result))
"""


def ensure_venv(name: str, packages: list[str], probe: str, imports: tuple[str, ...] = ()) -> Path:
    """A virtualenv under .bench/ with ``packages`` (checkov pins its own fork of the HCL parser, which installs
    as the same ``hcl2`` module as python-hcl2: the two need separate venvs); installed again when one of
    ``imports`` is missing from an existing one."""
    venv = BENCH / name
    python = str(venv / "bin" / "python")
    fresh = not (venv / "bin" / probe).exists()
    if fresh:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    missing = imports and subprocess.run([python, "-c", "import " + ", ".join(imports)]).returncode != 0
    if fresh or missing:
        pip = [python, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        subprocess.run([*pip, *packages], check=True)
    return venv / "bin" / probe


def large_module(root: Path, groups: int = 200, files: int = 10) -> Path:
    """A root module with `groups` queue/DLQ/function/mapping groups; every 7th queue has 2x, not 6x."""
    d = root / "large"
    (d / "modules" / "worker").mkdir(parents=True)
    per = groups // files
    for f in range(files):
        parts = []
        for i in range(f * per, (f + 1) * per):
            timeout = 10 + i % 50
            vt = timeout * (2 if i % 7 == 0 else 6)
            parts.append(
                f'resource "aws_sqs_queue" "dlq_{i}" {{\n  name = "dlq-{i}-${{var.env}}"\n'
                f"  message_retention_seconds = 1209600\n}}\n\n"
                f'resource "aws_sqs_queue" "q_{i}" {{\n  name = "q-{i}-${{var.env}}"\n'
                f"  visibility_timeout_seconds = {vt}\n  redrive_policy = jsonencode({{\n"
                f"    deadLetterTargetArn = aws_sqs_queue.dlq_{i}.arn\n    maxReceiveCount     = 5\n  }})\n}}\n\n"
                f'resource "aws_lambda_function" "fn_{i}" {{\n  function_name = "fn-{i}-${{var.env}}"\n'
                f'  role = "arn:aws:iam::123456789012:role/bench"\n  handler = "app.handler"\n'
                f'  runtime = "python3.12"\n  filename = "build/fn.zip"\n  timeout = {timeout}\n}}\n\n'
                f'resource "aws_lambda_event_source_mapping" "m_{i}" {{\n'
                f"  event_source_arn = aws_sqs_queue.q_{i}.arn\n  function_name = aws_lambda_function.fn_{i}.arn\n"
                f'  batch_size = 10\n  function_response_types = ["ReportBatchItemFailures"]\n}}\n'
            )
        (d / f"queues_{f:02d}.tf").write_text("\n".join(parts))
    (d / "variables.tf").write_text('variable "env" {\n  default = "bench"\n}\n')
    calls = "\n".join(
        f'module "w{i}" {{\n  source = "./modules/worker"\n  name = "w{i}"\n  timeout = {20 + i}\n}}\n'
        for i in range(20)
    )
    (d / "workers.tf").write_text(calls)
    (d / "modules" / "worker" / "main.tf").write_text(
        'variable "name" {}\nvariable "timeout" {}\n'
        'resource "aws_sqs_queue" "this" {\n  name = var.name\n  visibility_timeout_seconds = var.timeout * 6\n}\n'
        'resource "aws_lambda_function" "this" {\n  function_name = var.name\n  timeout = var.timeout\n'
        '  role = "arn:aws:iam::123456789012:role/bench"\n  handler = "app.handler"\n  runtime = "python3.12"\n'
        '  filename = "build/fn.zip"\n}\n'
        'resource "aws_lambda_event_source_mapping" "this" {\n  event_source_arn = aws_sqs_queue.this.arn\n'
        "  function_name = aws_lambda_function.this.arn\n  batch_size = 1\n}\n"
    )
    return d


def timed(cmd: list[str], runs: int, env=None) -> tuple[float, float, subprocess.CompletedProcess]:
    """Best wall time and best CPU time (user + system of the child) of ``runs`` runs."""
    walls, cpus, proc = [], [], None
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env)
        walls.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return min(walls), min(cpus), proc


# What a Terraform lint imports besides the standard library (the wheel's venv holds only these).
TERRAFORM_RUNTIME = ("pyyaml", "tree-sitter", "tree-sitter-hcl")


def wheel_visguard() -> str:
    """visguard as users run it: the working tree's wheel in a fresh venv with the Terraform runtime only (built
    by benchmarks/lint_startup.py's recipe). The editable checkout's console script is a second row: its
    setuptools finder adds ~40 ms to every process (RESULTS.md, lint start-up)."""
    sys.path.insert(0, str(Path(__file__).parent))
    from lint_startup import wheel_venv

    return str(wheel_venv(runtime_names=TERRAFORM_RUNTIME, name="visguard-wheel-terraform"))


def visguard_runner(probe_dir: str, vg: str | None = None):
    """The real CLI when it lints Terraform folders, else the same work in one process."""
    vg = vg or str(BIN / "visguard")
    probe = subprocess.run(
        [vg, "lint", probe_dir, "--fail-on", "never"], capture_output=True, text=True, cwd=ROOT
    )
    if probe.returncode == 0 and "aws_sqs_queue" in probe.stdout:
        return (lambda dirs: [vg, "lint", *dirs, "--fail-on", "never"]), "visguard lint (CLI)"
    return (
        lambda dirs: [sys.executable, "-P", "-c", IN_PROCESS, *dirs]
    ), "visguard Terraform loader + lint + text report in one process (the CLI does not route *.tf yet)"


PARSERS = """
import json, os, sys, time
import hcl2, tfparse, tree_sitter, tree_sitter_hcl
hcl2.parses_to_tree("a = 1")  # build the Lark parser (from its cache) before timing
tfparse.load_from_path(sys.argv[1])  # load the Go library before timing
ts = tree_sitter.Parser(tree_sitter.Language(tree_sitter_hcl.language()))
def clock():
    return time.perf_counter(), time.process_time()
def since(t):
    return round(time.perf_counter() - t[0], 4), round(time.process_time() - t[1], 4)
out = {}
for d in sys.argv[1:]:
    files = [os.path.join(r, f) for r, _, fs in os.walk(d) for f in fs if f.endswith('.tf')]
    texts = [open(f, encoding="utf-8").read() for f in files]
    t = clock()
    for text in texts:
        hcl2.parses_to_tree(text)
    h = since(t)
    t = clock()
    tfparse.load_from_path(d)
    p = since(t)
    t = clock()
    for text in texts:
        ts.parse(text.encode("utf-8"))
    s = since(t)
    out[d] = {"python_hcl2": h, "tfparse": p, "tree_sitter": s, "files": len(files),
              "bytes": sum(len(x.encode("utf-8")) for x in texts)}
print(json.dumps(out))
"""

# what a process pays to import each parser and build it (CPU seconds, best of 5 fresh processes)
PARSER_IMPORTS = {
    "python-hcl2": "import hcl2; hcl2.parses_to_tree('a = 1')",
    "tfparse": "import tfparse",
    "tree-sitter-hcl": "import tree_sitter, tree_sitter_hcl; "
    "tree_sitter.Parser(tree_sitter.Language(tree_sitter_hcl.language())).parse(b'a = 1')",
}


def import_cost(python: str, code: str, runs: int = 5) -> float:
    probe = f"import time\nt = time.process_time()\n{code}\nprint(time.process_time() - t)"
    return min(float(subprocess.check_output([python, "-c", probe], text=True)) for _ in range(runs))


def _version(checkov: str, env: dict) -> str:
    p = subprocess.run([checkov, "--version"], capture_output=True, text=True, env=env)
    return (p.stdout or p.stderr).strip().splitlines()[-1] if (p.stdout or p.stderr).strip() else "?"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--skip-parsers", action="store_true")
    args = ap.parse_args()
    checkov = str(ensure_venv("checkov-venv", ["checkov"], "checkov"))
    # byte-compile visguard as an install would (see the module docstring)
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(ROOT / "common"), str(ROOT / "linter")], check=True
    )
    env = dict(os.environ, BC_SKIP_MAPPING="TRUE", LOG_LEVEL="ERROR")
    shapes = ROOT / "tests" / "linter" / "terraform" / "shapes"
    with tempfile.TemporaryDirectory(dir=BENCH) as tmp:
        folders = {"examples/terraform": str(ROOT / "examples" / "terraform")}
        folders.update({f"shapes/{p.name}": str(p) for p in sorted(shapes.iterdir()) if p.is_dir()})
        folders["generated/large (820 resources)"] = str(large_module(Path(tmp)))
        vg_cmd, vg_how = visguard_runner(folders["examples/terraform"], wheel_visguard())
        ed_cmd, _ = visguard_runner(folders["examples/terraform"])
        print(f"visguard: {vg_how}, its wheel (and the editable checkout); checkov {_version(checkov, env)}")
        print(
            f"machine: {platform.machine()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; runs: best of {args.runs}"
        )
        loads = [os.getloadavg()[0]]
        rows = []
        # the set: every folder copied under one parent, so checkov scans it with one -d (given several -d,
        # checkov 3.3 checked only part of the second folder) and visguard lints every root module in it
        everything = Path(tmp) / "all"
        for i, d in enumerate(folders.values()):
            shutil.copytree(
                d, everything / f"{i:02d}_{Path(d).name}", ignore=shutil.ignore_patterns(".terraform")
            )
        set_dirs = [str(p) for p in sorted(everything.iterdir())]
        for name, d in [*folders.items(), (f"ALL {len(folders)} folders (one process for the set)", None)]:
            dirs = set_dirs if d is None else [d]
            tv, cv, pv = timed(vg_cmd(dirs), args.runs)
            te, ce, pe = timed(ed_cmd(dirs), args.runs)
            c_cmd = [checkov, "--framework", "terraform", "--quiet", "--skip-download", "--compact"]
            c_cmd += ["-d", str(everything) if d is None else d]
            tc, cc, pc = timed(c_cmd, args.runs, env)
            loads.append(os.getloadavg()[0])
            if pv.returncode not in (0, 2) or pe.stdout != pv.stdout:
                print(pv.stderr[-2000:], pe.stderr[-2000:], file=sys.stderr)
                return 3
            findings = next((ln for ln in pv.stdout.splitlines() if "finding" in ln), "").strip()
            counts = re.findall(r"Passed checks: (\d+), Failed checks: (\d+)", pc.stdout)
            checks = sum(int(a) + int(b) for a, b in counts)
            rows.append(
                {
                    "folder": name,
                    "visguard_s": round(tv, 3),
                    "checkov_s": round(tc, 3),
                    "ratio": round(tc / tv, 1),
                    "visguard_cpu_s": round(cv, 3),
                    "checkov_cpu_s": round(cc, 3),
                    "cpu_ratio": round(cc / cv, 1) if cv else None,
                    "editable_s": round(te, 3),
                    "editable_cpu_s": round(ce, 3),
                    "editable_ratio": round(tc / te, 1),
                    "editable_cpu_ratio": round(cc / ce, 1) if ce else None,
                    "visguard_summary": findings,
                    "checkov_exit": pc.returncode,
                    "checkov_checks_run": checks,
                    "load_average": round(loads[-1], 1),
                }
            )
            print(
                f"{name:<34} wall {tv:6.3f} s vs {tc:6.3f} s {tc / tv:5.1f}x | cpu {cv:6.3f} s vs {cc:6.3f} s "
                f"{cc / cv if cv else 0:5.1f}x | editable cpu {ce:6.3f} s {cc / ce if ce else 0:5.1f}x | {findings} "
                f"| checkov: {checks} checks | load {loads[-1]:.1f}"
            )
        print(f"load average (1 min) during the runs: {min(loads):.1f}-{max(loads):.1f}")
        parsers: dict = {}
        if not args.skip_parsers:
            parsers_python = str(
                ensure_venv(
                    "parsers-venv",
                    ["python-hcl2>=8.1", "tfparse", "tree-sitter>=0.25", "tree-sitter-hcl>=1.2"],
                    "python",
                    ("hcl2", "tfparse", "tree_sitter", "tree_sitter_hcl"),
                )
            )
            # the first parse builds python-hcl2's grammar cache: warm it before timing
            subprocess.run([parsers_python, "-c", "import hcl2; hcl2.parses_to_tree('a = 1')"], check=True)
            p = subprocess.run(
                [parsers_python, "-c", PARSERS, *folders.values()], capture_output=True, text=True, cwd=ROOT
            )
            if p.returncode == 0:
                parsers = {"folders": json.loads(p.stdout)}
                parsers["import_cpu_s"] = {
                    k: round(import_cost(parsers_python, code), 4) for k, code in PARSER_IMPORTS.items()
                }
                print("\nparsers (in-process, after import and warm-up; wall / CPU seconds):")
                print(
                    f"{'folder':<34} {'python-hcl2 trees':>18} {'tfparse load':>15} {'tree-sitter trees':>18}"
                )
                for name, d in folders.items():
                    r = parsers["folders"][d]
                    cells = [
                        f"{r[k][0]:.3f}/{r[k][1]:.3f}" for k in ("python_hcl2", "tfparse", "tree_sitter")
                    ]
                    print(
                        f"{name:<34} {cells[0]:>18} {cells[1]:>15} {cells[2]:>18}  ({r['files']} files, {r['bytes']} bytes)"
                    )
                costs = ", ".join(f"{k} {v:.3f} s" for k, v in parsers["import_cpu_s"].items())
                print(f"import + build the parser, CPU, fresh process: {costs}")
            else:
                print(p.stderr[-2000:], file=sys.stderr)
    if args.json:
        Path(args.json).write_text(
            json.dumps({"rows": rows, "parsers": parsers, "visguard": vg_how, "loads": loads}, indent=2)
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
