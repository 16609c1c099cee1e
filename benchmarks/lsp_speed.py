"""Issue 38: the language server's diagnostics after a change, beside a fresh ``visguard lint`` process on the
same input, in one run.

Inputs: a 1,000-resource CloudFormation template (250 queues, their DLQs, 250 functions and their SQS mappings)
and a 500-resource Terraform root (250 queues and their DLQs). For each: the warm server's time from an unsaved
change (one queue's visibility timeout) to its diagnostics (``Workspace.lint``, what ``visguard lsp`` runs after
the debounce), ``--runs`` changes, p50 and p95; the same server keeping nothing of a Terraform root between
lints (``Workspace.blocks = None``: no kept resources, no incremental parse); and a fresh ``visguard lint`` process (wall, best of 3). The
goals: p95 <= 300 ms, and <= 0.5x the fresh process.

Memory: the server holding a 2,000-file workspace (``code_scan.code_repo``'s generator: application code,
vendored and generated folders), linted once with every file open, measured with tracemalloc in a child process:
the peak and what stays held (the kept inputs and models, and the open texts).

    .venv/bin/python -P benchmarks/lsp_speed.py [--runs 30]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from code_scan import code_repo  # noqa: E402

ENV = dict(os.environ, PYTHONSAFEPATH="1")


def template(folder: Path, n: int = 250) -> Path:
    body = ["AWSTemplateFormatVersion: '2010-09-09'", "Resources:"]
    for i in range(n):
        body += [
            f"  Dlq{i}:", "    Type: AWS::SQS::Queue", "    Properties: {MessageRetentionPeriod: 1209600}",
            f"  Queue{i}:", "    Type: AWS::SQS::Queue", "    Properties:", f"      VisibilityTimeout: {200 + i}",
            "      RedrivePolicy:", f"        deadLetterTargetArn: !GetAtt Dlq{i}.Arn", "        maxReceiveCount: 5",
            f"  Fn{i}:", "    Type: AWS::Lambda::Function", "    Properties:", "      Runtime: python3.12",
            "      Handler: app.handler", "      Timeout: 30", "      Role: arn:aws:iam::123456789012:role/x",
            "      Code: {ZipFile: 'def handler(e, c): pass'}",
            f"  Map{i}:", "    Type: AWS::Lambda::EventSourceMapping", "    Properties:",
            f"      EventSourceArn: !GetAtt Queue{i}.Arn", f"      FunctionName: !Ref Fn{i}", "      BatchSize: 1",
        ]  # fmt: skip
    folder.mkdir(parents=True)
    (folder / "stack.yaml").write_text("\n".join(body) + "\n")
    return folder / "stack.yaml"


def terraform(folder: Path, n: int = 250) -> Path:
    body = []
    for i in range(n):
        body.append(
            f'resource "aws_sqs_queue" "dlq{i}" {{\n  name = "q{i}-dlq"\n  message_retention_seconds = 1209600\n}}\n'
            f'resource "aws_sqs_queue" "q{i}" {{\n  name = "q{i}"\n  visibility_timeout_seconds = {30 + i}\n'
            f"  redrive_policy = jsonencode({{ deadLetterTargetArn = aws_sqs_queue.dlq{i}.arn, maxReceiveCount = 5 }})\n}}\n"
        )
    folder.mkdir(parents=True)
    (folder / "main.tf").write_text("\n".join(body))
    return folder / "main.tf"


def warm(root: Path, doc: Path, old: str, runs: int, keep: bool = True) -> list[float]:
    from visguard.linter.lsp.workspace import Workspace

    ws = Workspace(str(root))
    if not keep:  # the server before issue 38's last step: a changed Terraform root evaluated whole
        ws.blocks = None
    text = doc.read_text()
    ws.set_text(str(doc), text)
    ws.lint()  # the server's first lint, on open
    times = []
    for i in range(runs):
        ws.set_text(str(doc), text.replace(old, old.replace(old.split()[-1], str(100 + i)), 1))
        t0 = time.perf_counter()
        ws.lint()
        times.append(time.perf_counter() - t0)
    return times


def fresh(root: Path) -> float:
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-P", "-m", "visguard", "lint", "."], cwd=root, env=ENV, capture_output=True
        )
        best = min(best, time.perf_counter() - t0)
    return best


MEMORY = r"""
import json, os, sys, tracemalloc
tracemalloc.start()
from visguard.linter.lsp.workspace import Workspace
root = sys.argv[1]
ws = Workspace(root)
for folder, _, files in os.walk(root):
    for f in files:
        p = os.path.join(folder, f)
        ws.set_text(p, open(p, encoding="utf-8", errors="replace").read())
ws.lint()
now, peak = tracemalloc.get_traced_memory()
print(json.dumps({"files": len(ws.open), "held_mb": now / 2**20, "peak_mb": peak / 2**20, "loads": ws.loads}))
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = []
        for name, make, old in (
            ("CloudFormation, 1,000 resources", template, "VisibilityTimeout: 300"),
            ("Terraform root, 500 resources", terraform, "visibility_timeout_seconds = 130"),
        ):
            root = Path(tmp) / name.split(",")[0]
            doc = make(root)
            times = sorted(warm(root, doc, old, args.runs))
            whole = sorted(warm(root, doc, old, args.runs, keep=False)) if make is terraform else None
            p50, p95 = statistics.median(times), times[int(0.95 * (len(times) - 1))]
            w95 = whole[int(0.95 * (len(whole) - 1))] if whole else float("nan")
            cold = fresh(root)
            rows.append((name, p50 * 1000, p95 * 1000, w95 * 1000, cold * 1000, p95 / cold, w95 / cold))
        print(
            "| input | server p50 (ms) | server p95 (ms) | server p95, nothing of the root kept (ms) |"
            " fresh visguard lint (ms) | p95 / fresh | nothing kept / fresh |"
        )
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for r in rows:
            kept = (
                (f"{r[3]:.0f}", f"{r[6]:.2f}x") if r[3] == r[3] else ("—", "—")
            )  # nan: not a Terraform root
            print(f"| {r[0]} | {r[1]:.0f} | {r[2]:.0f} | {kept[0]} | {r[4]:.0f} | {r[5]:.2f}x | {kept[1]} |")
        repo = Path(tmp) / "repo"
        code_repo(repo, 2000)
        out = subprocess.run(
            [sys.executable, "-P", "-c", MEMORY, str(repo)], env=ENV, capture_output=True, text=True
        )
        m = json.loads(out.stdout)
        print(
            f"\n2,000-file workspace, every file open: {m['files']} documents, held {m['held_mb']:.1f} MB after the "
            f"lint, peak {m['peak_mb']:.1f} MB (tracemalloc), {m['loads']} inputs read"
        )


if __name__ == "__main__":
    main()
