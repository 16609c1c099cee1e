"""The code engine (issue 34) side by side with an earlier commit: the 10,000-file application repository
(``code_scan.py``'s generator) and, per language, one file of 3,000 receive sites.

Each version runs from its own files (``git archive REV`` laid out as the ``visguard`` package,
``code_parse_ab.layout``), one ``visguard lint`` process per run (start-up included); reported: CPU seconds of the
child (user + system: comparable on a shared machine) and wall time, best of ``--runs`` (the two versions' runs interleaved), and the ratio
old / new of CPU (above 1: the engine is faster).

    .venv/bin/python -P benchmarks/code_engine_ab.py [--at 096d36e] [--runs 3] [--receives 3000] [--files 10000]
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from code_parse_ab import ROOT, layout  # noqa: E402
from code_scan import code_repo  # noqa: E402

URL = "https://sqs.us-east-1.amazonaws.com/123456789012/orders"
# one receive site per language, {i} numbered; each in a function of its own, as a poller's helpers are
RECEIVES = {
    "go": ('package app\n\nimport (\n\t"os"\n\t"github.com/aws/aws-sdk-go-v2/service/sqs"\n)\n\nconst VT = 60\n',
           "func poll{i}(c *sqs.Client) {{\n\tin := &sqs.ReceiveMessageInput{{QueueUrl: aws.String(os.Getenv(\"Q{i}\")),"
           " VisibilityTimeout: {i} % 600, WaitTimeSeconds: 20}}\n\tin.MaxNumberOfMessages = 10\n"
           "\tc.ReceiveMessage(ctx, in)\n}}\n", "go"),
    "python": ("import os\nimport boto3\n\nsqs = boto3.client('sqs')\nVT = 60\n",
               "def poll{i}():\n    return sqs.receive_message(QueueUrl=os.environ['Q{i}'], VisibilityTimeout=VT,"
               " WaitTimeSeconds=20, MaxNumberOfMessages=10)\n", "py"),
    "javascript": ("const { SQSClient, ReceiveMessageCommand } = require('@aws-sdk/client-sqs');\n"
                   "const sqs = new SQSClient({});\nconst VT = 60;\n",
                   "async function poll{i}() {{\n  return sqs.send(new ReceiveMessageCommand({{ QueueUrl: process.env.Q{i},"
                   " VisibilityTimeout: VT, WaitTimeSeconds: 20 }}));\n}}\n", "js"),
    "java": ("package app;\nimport software.amazon.awssdk.services.sqs.model.*;\nclass Big {\n  static final int VT = 60;\n",
             "  void poll{i}(SqsClient sqs) {{\n    ReceiveMessageRequest r = ReceiveMessageRequest.builder()"
             ".queueUrl(System.getenv(\"Q{i}\")).visibilityTimeout(VT).waitTimeSeconds(20).build();\n"
             "    sqs.receiveMessage(r);\n  }}\n", "java"),
    "csharp": ("using Amazon.SQS.Model;\nclass Big {\n  const int VT = 60;\n",
               "  async Task Poll{i}(IAmazonSQS sqs) {{\n    var r = new ReceiveMessageRequest {{ QueueUrl ="
               " Environment.GetEnvironmentVariable(\"Q{i}\"), VisibilityTimeout = VT, WaitTimeSeconds = 20 }};\n"
               "    await sqs.ReceiveMessageAsync(r);\n  }}\n", "cs"),
    "php": ("<?php\n$vt = 60;\n",
            "function poll{i}($sqs) {{\n    return $sqs->receiveMessage(['QueueUrl' => getenv('Q{i}'),"
            " 'VisibilityTimeout' => 60, 'WaitTimeSeconds' => 20]);\n}}\n", "php"),
    "ruby": ("require 'aws-sdk-sqs'\nVT = 60\n",
             "def poll{i}(sqs)\n  sqs.receive_message(queue_url: ENV['Q{i}'], visibility_timeout: VT,"
             " wait_time_seconds: 20)\nend\n", "rb"),
}  # fmt: skip


def run(path: Path, target: Path, runs: int) -> tuple[float, float]:
    """(CPU, wall) seconds of the best of ``runs`` ``visguard lint`` processes of version ``path``."""
    deps = os.pathsep.join(p for p in sys.path if p.endswith("site-packages"))
    code = (
        "import sys; sys.path[:0] = [sys.argv[1], *sys.argv[2].split(':')]; from visguard.cli import main\n"
        "try:\n    main(['lint', '--no-config', sys.argv[3], '--fail-on', 'never', '--format', 'json'])\n"
        "except SystemExit:\n    pass"
    )
    best = (float("inf"), float("inf"))
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-S", "-c", code, str(path), deps, str(target)],
                       stdout=subprocess.DEVNULL, check=True, cwd=target)  # fmt: skip
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best = min(best, (cpu, wall))
    return best


def table(cases, paths: dict, at: str, head: str, runs: int, new_over_old: bool = False) -> None:
    """Print the machine line and one Markdown row per (label, folder) case: the best CPU / wall seconds of
    ``at`` and ``head`` over ``runs`` interleaved runs, and their ratio (old / new, or new / old)."""
    print(f"# {platform.node()} {platform.machine()} {os.cpu_count()} CPUs, Python {platform.python_version()},"
          f" {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {at} vs {head}, best of {runs};"
          f" load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    ratio = "new / old" if new_over_old else "old / new"
    print(f"| case | {at} CPU / wall s | {head} CPU / wall s | ratio (CPU, {ratio}) |\n|---|---|---|---|")
    for label, target in cases:
        old = new = (float("inf"), float("inf"))
        for _ in range(runs):  # interleaved: a change of the machine's load falls on both
            old, new = min(old, run(paths[at], target, 1)), min(new, run(paths[head], target, 1))
        r = new[0] / old[0] if new_over_old else old[0] / new[0]
        print(
            f"| {label} | {old[0]:.2f} / {old[1]:.2f} | {new[0]:.2f} / {new[1]:.2f} | {r:.2f}x |", flush=True
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--at", default="096d36e")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--receives", type=int, default=3000)
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--only", default="", help="comma-separated case names (repository, go, python, ...)")
    a = ap.parse_args()
    only = set(filter(None, a.only.split(",")))
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()  # fmt: skip
        paths = {a.at: layout(a.at, work), head: layout(head, work)}
        cases = []
        if not only or "repository" in only:
            repo = work / "repo"
            n = code_repo(repo, a.files)
            cases.append((f"the {n:,}-file application repository", repo))
        for lang, (top, site, ext) in RECEIVES.items():
            if only and lang not in only:
                continue
            folder = work / f"one-{lang}"
            folder.mkdir()
            body = top + "".join(site.format(i=i) for i in range(a.receives))
            (folder / f"big.{ext}").write_text(body + ("}\n" if lang in ("java", "csharp") else ""))
            cases.append((f"{lang}: one file, {a.receives:,} receives ({len(body) / 1e6:.1f} MB)", folder))
        table(cases, paths, a.at, head, a.runs)


if __name__ == "__main__":
    main()
