"""Shared helpers for the hostile-input tests: run the real ``visguard`` entry point in process or as a
process, and a template that always lints to a known result (the "other file" that must still be linted)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from visguard.cli import main

ROOT = Path(__file__).resolve().parents[2]
VISGUARD = str(Path(sys.executable).with_name("visguard"))

# One queue, consumed by a 30 s function under a 30 s visibility timeout: VG011 (warning) and VG020/VG031.
WARN_TEMPLATE = """\
Resources:
  Orders:
    Type: AWS::SQS::Queue
    Properties: {VisibilityTimeout: 30}
  Fn:
    Type: AWS::Lambda::Function
    Properties: {Timeout: 30, Runtime: python3.12, Handler: a.b, Role: r, Code: {ZipFile: x}}
  Map:
    Type: AWS::Lambda::EventSourceMapping
    Properties: {EventSourceArn: !GetAtt Orders.Arn, FunctionName: !Ref Fn}
"""


@pytest.fixture
def good(tmp_path):
    """A template elsewhere in tmp_path that lints to VG011 (the file that must still be linted)."""
    d = tmp_path / "good"
    d.mkdir(exist_ok=True)
    p = d / "good.yaml"
    p.write_text(WARN_TEMPLATE)
    return str(p)


def run_cli(capsys, *args):
    """``visguard lint --no-config --format json ARGS`` in process: (exit code, JSON report, stderr lines)."""
    code = main(["lint", "--no-config", "--format", "json", *args])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out.strip() else None, err.splitlines()


def run_process(args, *, timeout=30, cwd=None, stdin=subprocess.DEVNULL):
    return subprocess.run(
        [VISGUARD, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        stdin=stdin,
        env={**os.environ, "NO_COLOR": "1"},
    )
