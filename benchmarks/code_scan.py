"""`visguard lint` on a 10,000-file application repository (issue 25: <= 2 s), against a CloudFormation-only
folder of the same number of files.

The repository, generated into a temporary folder:
  node_modules/ (3,000 .js), vendor/ (1,500 .php), dist/ and build/ (500 .js/.py): never offered to the code loader;
  src/ (4,975 source files in Python, JavaScript, TypeScript, Go, Java, Ruby, PHP, C#) of which 20 are real
  consumers (SDK receive loops, sqs-consumer, Celery settings) and the others mention no SQS API;
  a .env, a docker-compose.yml and terraform/main.tf declaring the queues.
The CloudFormation-only folder holds 10,000 small templates (one queue each).

A language reader not yet in linter/loaders/code/ is stood in for by one that parses the file with its real
tree-sitter grammar and returns nothing (the parse is the cost; which readers were real is printed). Each run is
one process (`python -P -c` calling `visguard.cli.main`, start-up included), wall time, best of N.

    .venv/bin/python -P benchmarks/code_scan.py [--runs 3] [--files 10000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CONSUMERS = {
    "py": "import os, boto3\nsqs = boto3.client('sqs')\nwhile True:\n"
    "    r = sqs.receive_message(QueueUrl=os.environ['ORDERS_QUEUE_URL'], VisibilityTimeout=0, WaitTimeSeconds=20)\n",
    "js": "const { Consumer } = require('sqs-consumer');\nconst app = Consumer.create({ queueUrl: process.env."
    "ORDERS_QUEUE_URL, visibilityTimeout: 30, heartbeatInterval: 30, handleMessage: async (m) => {} });\n"
    "app.start();\n",
    "go": 'package main\nimport "github.com/aws/aws-sdk-go-v2/service/sqs"\nfunc poll(c *sqs.Client) {\n'
    "\tc.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, VisibilityTimeout: 0})\n}\n",
}
PLAIN = {
    "py": "def add(a, b):\n    return a + b\n\n\nclass Thing:\n    x = 1\n" * 8,
    "js": "export function add(a, b) {\n  return a + b;\n}\nconst things = [1, 2, 3].map((x) => x * 2);\n"
    * 8,
    "ts": "export interface Thing { id: string; n: number }\nexport const f = (t: Thing) => t.n + 1;\n" * 8,
    "go": "package util\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n" * 8,
    "java": "package app;\npublic class Util {\n  public static int add(int a, int b) { return a + b; }\n}\n"
    * 6,
    "rb": "module Util\n  def self.add(a, b)\n    a + b\n  end\nend\n" * 8,
    "php": "<?php\nfunction add($a, $b) {\n    return $a + $b;\n}\n" * 8,
    "cs": "namespace App { public static class Util { public static int Add(int a, int b) => a + b; } }\n"
    * 8,
}
TF = """resource "aws_sqs_queue" "orders" {
  name                       = "orders"
  visibility_timeout_seconds = 600
}
"""
PROBE = """
import sys, types, importlib.util
from visguard.linter.loaders.code import CodeResult, GRAMMARS, parser, loader
STAND_IN = {"python": "python", "javascript": "javascript", "java": "java", "go": "go", "csharp": "csharp",
            "php": "php", "ruby": "ruby"}
stood = []
for lang, grammar in STAND_IN.items():
    if loader.module(lang) is None:
        stood.append(lang)
        def read(path, data, grammar=grammar):
            g = "typescript" if path.endswith((".ts", ".mts", ".cts")) else "tsx" if path.endswith(".tsx") else grammar
            parser(g).parse(data)
            return CodeResult()
        loader._modules[lang] = types.SimpleNamespace(EXTENSIONS=loader.LANGUAGES[lang][0], read=read)
print("stand-in readers: " + (", ".join(stood) or "none"), file=sys.stderr)
from visguard.cli import main
sys.exit(main(sys.argv[1:]))
"""


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def code_repo(root: Path, total: int) -> int:
    n = 0
    for i in range(int(total * 0.30)):
        write(root / "node_modules" / f"pkg{i // 50}" / f"m{i}.js", PLAIN["js"] + "// receiveMessage\n")
        n += 1
    for i in range(int(total * 0.15)):
        write(root / "vendor" / f"lib{i // 50}" / f"c{i}.php", PLAIN["php"] + "// sqs ReceiveMessage\n")
        n += 1
    for i in range(int(total * 0.05)):
        ext = "js" if i % 2 else "py"
        write(root / ("dist" if i % 2 else "build") / f"b{i}.{ext}", CONSUMERS[ext])
        n += 1
    write(root / "terraform" / "main.tf", TF)
    write(root / ".env", "ORDERS_QUEUE_URL=https://sqs.us-east-1.amazonaws.com/123456789012/orders\n")
    write(
        root / "docker-compose.yml", "services:\n  worker:\n    environment:\n      - ORDERS_QUEUE=orders\n"
    )
    n += 3
    exts = list(PLAIN)
    consumers = 0
    i = 0
    while n < total:
        ext = exts[i % len(exts)]
        folder = root / "src" / f"mod{i // 100}"
        if consumers < 20 and ext in CONSUMERS and i % 97 == 0:
            write(folder / f"worker{i}.{ext}", CONSUMERS[ext])
            consumers += 1
        else:
            write(folder / f"f{i}.{ext}", PLAIN[ext])
        n += 1
        i += 1
    return n


def cfn_repo(root: Path, total: int) -> int:
    for i in range(total):
        write(
            root / f"stacks{i // 200}" / f"q{i}.yaml",
            f"Resources:\n  Q{i}:\n    Type: AWS::SQS::Queue\n    Properties:\n      VisibilityTimeout: 60\n",
        )
    return total


def run(folder: Path, runs: int) -> tuple[float, str, dict]:
    best, err, summary = float("inf"), "", {}
    for _ in range(runs):
        t = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-P", "-c", PROBE, "lint", "--no-config", "-f", "json", str(folder)],
            capture_output=True, text=True, cwd=folder,
        )  # fmt: skip
        best = min(best, time.perf_counter() - t)
        err = proc.stderr
        summary = json.loads(proc.stdout)["summary"] if proc.stdout.strip() else {}
    return best, err, summary


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--files", type=int, default=10_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        code, cfn = Path(tmp) / "app", Path(tmp) / "cfn"
        n_code, n_cfn = code_repo(code, args.files), cfn_repo(cfn, args.files)
        t_code, err, s_code = run(code, args.runs)
        t_cfn, _, s_cfn = run(cfn, args.runs)
    print(err.strip().splitlines()[0])
    print(
        f"code repository: {n_code} files, {s_code.get('files')} linted, {t_code:.2f} s (best of {args.runs})"
    )
    print(f"CloudFormation-only: {n_cfn} templates, {s_cfn.get('files')} linted, {t_cfn:.2f} s")
    print(f"ratio code / CloudFormation-only: {t_code / t_cfn:.2f}; load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
