"""Issue 37 §2: the CI formats (``--format github``, ``gitlab``, ``markdown``) beside the JSON report, on one
200-finding lint result, in one run. The goal: each costs at most 1.05x the JSON report's time.

Two measures: the render alone (the same LintResult rendered ``--runs`` times per format, interleaved, best
and median), and the whole ``visguard lint -f FORMAT`` process (best of 5), since a CI step pays the start-up too.

    .venv/bin/python -P benchmarks/ci_formats.py [--runs 200]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FORMATS = ("json", "github", "gitlab", "markdown")


def template(folder: Path, n: int = 100) -> None:
    """n queues, each consumed by a Lambda mapping with a visibility below 6 x its timeout and batches without
    partial responses: 2 findings per queue (VG011, VG031)."""
    body = ["AWSTemplateFormatVersion: '2010-09-09'", "Resources:"]
    for i in range(n):
        body += [
            f"  Dlq{i}:", "    Type: AWS::SQS::Queue", "    Properties: {MessageRetentionPeriod: 1209600}",
            f"  Queue{i}:", "    Type: AWS::SQS::Queue", "    Properties:", "      VisibilityTimeout: 60",
            "      RedrivePolicy:", f"        deadLetterTargetArn: !GetAtt Dlq{i}.Arn", "        maxReceiveCount: 5",
            f"  Fn{i}:", "    Type: AWS::Lambda::Function", "    Properties:", "      Runtime: python3.12",
            "      Handler: app.handler", "      Timeout: 30", "      Role: arn:aws:iam::123456789012:role/x",
            "      Code: {ZipFile: 'def handler(e, c): pass'}",
            f"  Map{i}:", "    Type: AWS::Lambda::EventSourceMapping", "    Properties:",
            f"      EventSourceArn: !GetAtt Queue{i}.Arn", f"      FunctionName: !Ref Fn{i}", "      BatchSize: 10",
        ]  # fmt: skip
    folder.mkdir(parents=True)
    (folder / "stack.yaml").write_text("\n".join(body) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=200)
    args = ap.parse_args()
    from visguard.linter.api import lint_paths
    from visguard.linter.report import render

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "stack"
        template(root)
        result = lint_paths([str(root)])
        print(f"{len(result.findings)} findings")
        times: dict[str, list[float]] = {f: [] for f in FORMATS}
        for _ in range(args.runs):
            for fmt in FORMATS:
                t0 = time.perf_counter()
                render(result, fmt)
                times[fmt].append(time.perf_counter() - t0)
        env = dict(os.environ, PYTHONSAFEPATH="1")
        proc: dict[str, float] = {f: float("inf") for f in FORMATS}
        for _ in range(5):
            for fmt in FORMATS:
                t0 = time.perf_counter()
                subprocess.run([sys.executable, "-P", "-m", "visguard", "lint", "-f", fmt, "--fail-on", "never", "."],
                               cwd=root, env=env, capture_output=True)  # fmt: skip
                proc[fmt] = min(proc[fmt], time.perf_counter() - t0)
    base = statistics.median(times["json"])
    print("| format | render median (ms) | render / json | whole process, best (ms) | process / json |")
    print("| --- | --- | --- | --- | --- |")
    for fmt in FORMATS:
        med = statistics.median(times[fmt])
        print(
            f"| {fmt} | {med * 1000:.2f} | {med / base:.2f}x | {proc[fmt] * 1000:.0f} | {proc[fmt] / proc['json']:.2f}x |"
        )


if __name__ == "__main__":
    main()
