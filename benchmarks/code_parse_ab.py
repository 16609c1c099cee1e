"""Code parsing side by side with an earlier commit (issue 33): one large Java source, and a tree of vendored SDK
sources (under ``third_party/``, skipped by name now, and the same files under ``sdk/``, which both versions
parse: the parse's own cost).

Each version is run from its own files (``git archive REV``, laid out as the ``visguard`` package the editable
install maps: ``common/`` is ``visguard``, the other top-level folders its sub-packages) with this interpreter's
dependencies, one ``visguard lint`` process per run (start-up included), wall time, best of ``--runs``.

    .venv/bin/python -P benchmarks/code_parse_ab.py [--at ddbc2d0] [--runs 1] [--java-mb 1.9] [--vendored 300]
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
URL = "https://sqs.us-east-1.amazonaws.com/123456789012/orders"
JAVA_METHOD = """
  /** Receives a batch: the builder é中 as an SDK writes it. */
  public List<Message> poll{i}(SqsClient sqs, String url, int n) {{
    ReceiveMessageRequest r{i} = ReceiveMessageRequest.builder().queueUrl(url).maxNumberOfMessages(n)
        .waitTimeSeconds(20).build();
    List<Message> out = new ArrayList<>();
    for (int k = 0; k < n; k++) {{ if (k % 2 == 0) {{ out.add(Message.builder().body("m" + k).build()); }} }}
    return sqs.receiveMessage(r{i}).messages();
  }}
"""
GO_FUNC = """
// ReceiveMessage{i} wraps the API as an SDK's generated-by-hand helpers do.
func (c *Client) ReceiveMessage{i}(ctx context.Context, in *ReceiveMessageInput) (*ReceiveMessageOutput, error) {{
	if in == nil {{ in = &ReceiveMessageInput{{}} }}
	out := &ReceiveMessageOutput{{}}
	for i := 0; i < 3; i++ {{ if err := c.do(ctx, "ReceiveMessage", in, out); err == nil {{ return out, nil }} }}
	return nil, errors.New("receive failed")
}}
"""


def java_source(size: int) -> str:
    head = f'package app;\nimport software.amazon.awssdk.services.sqs.model.*;\nclass Big {{\n  String Q = "{URL}";\n'
    parts, i, n = [head], 0, len(head)
    while n < size:
        m = JAVA_METHOD.format(i=i)
        parts.append(m)
        n += len(m.encode())
        i += 1
    return "".join(parts) + "}\n"


def go_source(size: int, j: int) -> str:
    parts, i = [f'package sqs{j}\n\nimport (\n\t"context"\n\t"errors"\n)\n'], 0
    while sum(len(p) for p in parts) < size:
        parts.append(GO_FUNC.format(i=i))
        i += 1
    return "".join(parts)


def layout(rev: str, work: Path) -> Path:
    """``rev``'s files as an importable ``visguard`` package under ``work``; returns the folder to put on sys.path."""
    src = work / f"src-{rev}"
    src.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True).stdout
    tmp = work / f"{rev}.tar"
    tmp.write_bytes(archive)
    with tarfile.open(tmp) as t:
        t.extractall(src, filter="data")
    # byte-compiled as an install is: a run with PYTHONDONTWRITEBYTECODE=1 would otherwise compile every module it
    # imports, each time, and measure the size of the source instead of the work
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(src)], capture_output=True, check=False)
    pkg = work / f"path-{rev}" / "visguard"
    pkg.mkdir(parents=True)
    for f in (src / "common").iterdir():
        (pkg / f.name).symlink_to(f)
    for sub in ("audit", "cdk_app", "constructs", "engine", "linter"):
        if (src / sub).is_dir():
            (pkg / sub).symlink_to(src / sub)
    return pkg.parent


def run(path: Path, target: Path, runs: int) -> float:
    deps = os.pathsep.join(p for p in sys.path if p.endswith("site-packages"))  # .pth files are not run (-S)
    code = (
        "import sys; sys.path[:0] = [sys.argv[1], *sys.argv[2].split(':')]; from visguard.cli import main\n"
        "try:\n    main(['lint', sys.argv[3], '--fail-on', 'never', '--format', 'json'])\nexcept SystemExit:\n    pass"
    )
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-S", "-c", code, str(path), deps, str(target)],
                       stdout=subprocess.DEVNULL, check=True)  # fmt: skip
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--at", default="ddbc2d0")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--java-mb", type=float, default=1.9)
    ap.add_argument("--vendored", type=int, default=300, help="30 KB files (the issue's tree has 3,000)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()  # fmt: skip
        subprocess.run(
            ["git", "-C", str(ROOT), "diff", "--quiet", "HEAD"], check=True
        )  # measure what is committed
        paths = {a.at: layout(a.at, work), head: layout(head, work)}
        java = work / "java" / "Big.java"
        java.parent.mkdir()
        java.write_text(java_source(int(a.java_mb * 1_000_000)))
        trees = {}
        for name in ("third_party", "sdk"):
            root = work / name
            for j in range(a.vendored):
                f = root / name / f"pkg{j // 100}" / f"api{j}.go"
                f.parent.mkdir(parents=True, exist_ok=True)
                f.write_text(go_source(30_000, j))
            trees[name] = root
        cases = [(f"one Java source, {java.stat().st_size / 1e6:.1f} MB", java.parent),
                 (f"{a.vendored} vendored 30 KB Go files under third_party/", trees["third_party"]),
                 (f"the same {a.vendored} files under sdk/ (parsed by both)", trees["sdk"])]  # fmt: skip
        print(f"# {platform.node()} {platform.machine()} {os.cpu_count()} CPUs, "
              f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {a.at} vs {head}, best of {a.runs}")  # fmt: skip
        print(f"| case | {a.at} s | {head} s | ratio |\n|---|---|---|---|")
        for label, target in cases:
            old, new = run(paths[a.at], target, a.runs), run(paths[head], target, a.runs)
            print(f"| {label} | {old:.2f} | {new:.2f} | {old / new:.1f}x |", flush=True)


if __name__ == "__main__":
    main()
