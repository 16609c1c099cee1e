"""Start-up of `visguard lint` on one small template, as users run it, against cfn-lint: whole processes.

The pre-commit case (issue 12: one small template >= 20x faster than cfn-lint on the same file). visguard runs
from its wheel, the way `pip install visguard` or a pre-commit hook installs it: this script builds the wheel of
the working tree (`pip wheel --no-deps`) and installs it into a fresh venv `.bench/visguard-wheel` with only
the runtime dependencies a CloudFormation lint imports (PyYAML); cfn-lint gets its own fresh venv
`.bench/cfn-lint` (the version installed in this venv). A fresh venv here has no setuptools (`venv --without-pip`,
packages installed by this venv's pip), as `uv`, pipx and Python >= 3.12 venvs are. The project's own `.venv` (an
editable install: its `__editable__` finder runs at every interpreter start) is a second row, so the cost of an
editable install stays visible.

Each round runs every program once on the same generated template, as JSON and as YAML, the way the pre-commit
hook does (`visguard lint FILE`, from a folder without visguard.yaml; interleaved: all see the same load); the medians of wall and CPU time (user + system of the child process) are reported with
the ratio cfn-lint / program, and the load average before and after.

    .venv/bin/python -P benchmarks/lint_startup.py [--rounds 9] [--json out.json] [--at REV ...] [LABEL=PATH ...]

--at REV adds the wheel of a git revision (built the same way, into `.bench/visguard-at-REV`) to the rounds, to
see what each change bought; LABEL=PATH adds any other `visguard` console script. --breakdown only shows where
the wheel's CPU goes, for the JSON and the YAML template: each group of imports in the order a run needs them (CPU
time in one process), the run itself, and the rest (the process ends as the console script ends a lint, without
the interpreter's teardown), medians of --rounds processes.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import tomllib
from importlib import metadata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from lint_vs_cfnlint import BIN, cpu_timed, stack  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / ".bench"
# What a CloudFormation/SAM lint imports besides the standard library (tests/linter/test_cli_imports.py pins it).
CFN_LINT_RUNTIME = ("pyyaml",)


def _pip(venv: Path, *args: str) -> None:
    cmd = [str(BIN / "python"), "-P", "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q"]
    subprocess.run([*cmd, *args], check=True)


def _fresh_venv(venv: Path) -> None:
    if venv.exists():
        shutil.rmtree(venv)
    base = Path(sys.base_prefix) / "bin" / "python3"
    subprocess.run([str(base), "-m", "venv", "--without-pip", str(venv)], check=True)


def wheel_venv(
    rev: str | None = None, runtime_names: tuple[str, ...] = CFN_LINT_RUNTIME, name: str = ""
) -> Path:
    """The wheel of the working tree (or of git revision ``rev``) in a fresh venv with only the runtime
    dependencies named (PyYAML: what a CloudFormation lint imports), at the versions pyproject.toml allows;
    returns its `visguard` console script. ``name`` names the venv (default by revision)."""
    venv = BENCH / (name or ("visguard-wheel" if rev is None else f"visguard-at-{rev}"))
    with tempfile.TemporaryDirectory() as tmp:
        src = ROOT
        if rev is not None:  # that revision's files, built outside the working tree
            src = Path(tmp) / "src"
            src.mkdir()
            archive = subprocess.run(
                ["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True
            )
            subprocess.run(["tar", "-x", "-C", str(src)], input=archive.stdout, check=True)
        requires = tomllib.loads((src / "pyproject.toml").read_text())["project"]["dependencies"]
        runtime = [r for r in requires if r.lower().split(">")[0].split("=")[0] in runtime_names]
        own_build = not (
            src / "build"
        ).exists()  # setuptools builds in the tree: remove only a folder we made
        subprocess.run(
            [str(BIN / "python"), "-P", "-m", "pip", "wheel", "-q", "--no-deps", "-w", tmp, str(src)],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if own_build:
            shutil.rmtree(src / "build", ignore_errors=True)
        (wheel,) = Path(tmp).glob("visguard-*.whl")
        _fresh_venv(venv)
        _pip(venv, "--no-deps", str(wheel))
    _pip(venv, *runtime)
    return venv / "bin" / "visguard"


def cfnlint_venv() -> Path:
    """cfn-lint (the version this venv holds) in a fresh venv of its own; reused when already there."""
    venv = BENCH / "cfn-lint"
    version = metadata.version("cfn-lint")
    if not (venv / "bin" / "cfn-lint").exists() or _installed(venv, "cfn-lint") != version:
        _fresh_venv(venv)
        _pip(venv, f"cfn-lint=={version}")
    return venv / "bin" / "cfn-lint"


def _installed(venv: Path, dist: str) -> str | None:
    found = metadata.distributions(name=dist, path=[str(p) for p in venv.glob("lib/python*/site-packages")])
    return next((d.version for d in found), None)


def run_rounds(programs: dict[str, str], cfnlint: str, rounds: int) -> dict:
    """Interleaved rounds over {label: visguard console script} and cfn-lint, JSON and YAML templates."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        doc = stack(1)
        templates = {"json": root / "stack.template.json", "yaml": root / "stack.template.yaml"}
        templates["json"].write_text(json.dumps(doc, indent=1))
        templates["yaml"].write_text(_yaml(doc))
        cmds: dict[tuple[str, str], list[str]] = {}
        for fmt, path in templates.items():
            for label, prog in programs.items():
                cmds[(label, fmt)] = [prog, "lint", str(path)]  # the pre-commit hook's entry
            cmds[("cfn-lint", fmt)] = [cfnlint, "--", str(path)]
        for key, cmd in cmds.items():  # every program works on both files (and warms the page cache)
            proc = subprocess.run(cmd, capture_output=True, text=True, cwd=root)
            if key[0] != "cfn-lint" and proc.returncode != 2:  # the template's 3 findings: exit 2
                raise SystemExit(f"{key}: exit {proc.returncode}: {proc.stderr.strip()}")
        load_before = os.getloadavg()
        wall: dict = {k: [] for k in cmds}
        cpu: dict = {k: [] for k in cmds}
        for _ in range(rounds):
            for key, cmd in cmds.items():
                w, c = cpu_timed(cmd, root)
                wall[key].append(w)
                cpu[key].append(c)
        load_after = os.getloadavg()
    med = statistics.median
    out: dict = {"rounds": rounds, "load_average_before": load_before, "load_average_after": load_after}
    for (label, fmt), walls in wall.items():
        ref_w, ref_c = med(wall[("cfn-lint", fmt)]), med(cpu[("cfn-lint", fmt)])
        w, c = med(walls), med(cpu[(label, fmt)])
        out[f"{label} ({fmt})"] = {
            "wall_median_s": round(w, 3),
            "cpu_median_s": round(c, 3),
            "wall_speedup": round(ref_w / w, 1),
            "cpu_speedup": round(ref_c / c, 1),
        }
    return out


# --breakdown: where one lint's CPU goes, import by import in the order a run needs them, in the wheel's venv
BREAKDOWN_STEPS = (
    ("interpreter start with site (python -c pass)", None),
    ("enum, re, json, argparse", "enum re json argparse"),
    (
        "visguard.records, visguard.facts, visguard.linter.model",
        "visguard.records visguard.facts visguard.linter.model",
    ),
    ("the rule catalogue (25 rule files), context, policy, api", "visguard.linter.rules visguard.linter.api"),
    (
        "the loaders (registry, cfn, decode, intrinsics, sam)",
        "visguard.linter.loaders.registry visguard.linter.loaders.cfn",
    ),
    ("the text report", "visguard.linter.report.text"),
    ("PyYAML, through visguard's YAML decoder (YAML template only)", "visguard.linter.loaders.decode_yaml"),
)
_PROBE = """
import importlib, sys, time
out = []
t = time.process_time()
for group in sys.argv[2:]:
    for name in group.split():
        importlib.import_module(name)
    now = time.process_time(); out.append(now - t); t = now
from visguard.cli import main
import contextlib, io
with contextlib.redirect_stdout(io.StringIO()):
    main(["lint", sys.argv[1]])
out.append(time.process_time() - t)
print(repr(out), flush=True)
import os
os._exit(0)  # as the console script ends a lint (visguard.cli.FAST_EXIT)
"""


def breakdown(python: str, template: Path, rounds: int) -> dict[str, float]:
    """Median CPU seconds of each step of BREAKDOWN_STEPS, then of the run itself, and of the rest of the process's
    CPU time."""
    import ast

    steps_ = [(label, mods) for label, mods in BREAKDOWN_STEPS if mods]
    if template.suffix == ".json":
        steps_ = [
            (label, mods) for label, mods in steps_ if "yaml" not in mods
        ]  # a JSON lint never reads YAML
    groups = [mods for _, mods in steps_]
    steps, base, total = [], [], []
    for _ in range(rounds):
        child = subprocess.Popen([python, "-c", "pass"])
        base.append(os.wait4(child.pid, 0)[2])
        child = subprocess.Popen([python, "-c", _PROBE, str(template), *groups], stdout=subprocess.PIPE)
        stdout = child.stdout.read()
        total.append(os.wait4(child.pid, 0)[2])
        steps.append(ast.literal_eval(stdout.decode()))
    med = statistics.median
    out = {BREAKDOWN_STEPS[0][0]: med(u.ru_utime + u.ru_stime for u in base)}
    labels = [label for label, _ in steps_] + ["the run (parse arguments, read, lint, report)"]
    for i, label in enumerate(labels):
        out[label] = med(s[i] for s in steps)
    whole = med(u.ru_utime + u.ru_stime for u in total)
    out["the rest (whole process - the above)"] = whole - sum(out.values())
    out["whole process"] = whole
    return {k: round(v, 4) for k, v in out.items()}


def _yaml(doc: dict) -> str:
    """The same template as YAML, block style (as people write them)."""
    import yaml

    return yaml.safe_dump(doc, sort_keys=False, default_flow_style=False)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--json", metavar="FILE", help="also write the results to FILE")
    ap.add_argument("--at", action="append", default=[], metavar="REV",
                    help="also the wheel of git revision REV (repeatable): what each change bought")  # fmt: skip
    ap.add_argument("--breakdown", action="store_true",
                    help="only where the wheel's CPU goes, step by step (JSON and YAML), no cfn-lint")  # fmt: skip
    ap.add_argument("programs", nargs="*", metavar="LABEL=PATH", help="more visguard console scripts")
    args = ap.parse_args()
    if args.breakdown:
        python = str(wheel_venv().parent / "python")
        with tempfile.TemporaryDirectory() as tmp:
            out = {"load_average_before": os.getloadavg()}
            for fmt, text in (("json", json.dumps(stack(1), indent=1)), ("yaml", _yaml(stack(1)))):
                template = Path(tmp) / f"stack.template.{fmt}"
                template.write_text(text)
                out[fmt] = breakdown(python, template, args.rounds)
            out["load_average_after"] = os.getloadavg()
        print(json.dumps(out, indent=2))
        return 0
    programs = {f"visguard wheel at {rev}": str(wheel_venv(rev)) for rev in args.at}
    programs |= {"visguard wheel": str(wheel_venv()), "visguard editable": str(BIN / "visguard")}
    programs.update(p.split("=", 1) for p in args.programs)
    out = run_rounds(programs, str(cfnlint_venv()), args.rounds)
    out["python"] = sys.version.split()[0]
    out["cfn-lint"] = metadata.version("cfn-lint")
    print(json.dumps(out, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
