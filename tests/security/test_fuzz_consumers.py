"""Fuzzing ``visguard lint`` with mutated consumers (issues 24, 25): Kubernetes manifests, ``.ebextensions``,
application code in every language visguard reads, ``.env`` and Procfiles, next to the Terraform root that
declares their queues, through the real entry point (``visguard.cli.main``), in process.

For every example: the exit code is 0, 1 or 2 (never 3: an internal error is a bug); stderr holds only
``visguard lint: ...`` lines, one per bad input at most, no traceback; the JSON report parses; the Terraform
queues are still linted; each example finishes within 10 s.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from visguard.cli import main

ROOT = Path(__file__).resolve().parents[2]
ESTATE = ROOT / "examples" / "consumers"
CODE_CASES = ROOT / "tests" / "linter" / "fixtures" / "rules"

# (relative path in the app folder, source text): every reader's input kinds
SOURCES = [(str(p.relative_to(ESTATE)), p.read_bytes()) for p in sorted(ESTATE.rglob("*")) if p.is_file()]
SOURCES += [
    (f"app/{p.name}", p.read_bytes())
    for p in sorted(CODE_CASES.glob("vg0[67]*/code/fail*/app/**/*"))
    if p.is_file() and p.suffix in (".java", ".go", ".php", ".rb", ".cs", ".js", ".py", ".rs")
]
# a CDK app's source (the cdk-source loader): its stacks and the worker its task definition starts
CDK_SOURCES = ROOT / "tests" / "linter" / "fixtures" / "cdk-source"
SOURCES += [(f"cdk/{p.relative_to(CDK_SOURCES)}", p.read_bytes()) for p in sorted(CDK_SOURCES.rglob("*.ts"))]
SOURCES += [
    ("app/Procfile", b"worker: php artisan queue:work sqs --timeout=120 --tries=3\n"),
    (
        ".ebextensions/sqsd.config",
        b"option_settings:\n  aws:elasticbeanstalk:sqsd:\n    VisibilityTimeout: 60\n",
    ),
]
HOSTILE = [
    b"\x00\xff\xfe",
    b"\x1b[31m",
    b"(" * 5000,
    b"{" * 3000,
    b"[" * 3000,
    b"9" * 5000,
    b"\n---\n" * 50,
    b"*a " * 100,
    b"&a [" * 200,
    b"${" * 500,
    b'"' + b"\\" * 999,
    "\u202e\u2066".encode(),
    b"\r\n" * 10,
]
SCALE = int(os.environ.get("VISGUARD_FUZZ_EXAMPLES", "0")) or 1
FUZZ = dict(deadline=None, database=None, suppress_health_check=list(HealthCheck), max_examples=40 * SCALE)


def _mutate(data: bytes, cut: int, at: int, snippet: bytes) -> bytes:
    cut = cut % (len(data) + 1)
    at = at % (cut + 1)
    return data[:at] + snippet + data[at:cut]


@settings(**FUZZ)
@given(
    picks=st.lists(
        st.tuples(st.integers(0, len(SOURCES) - 1), st.integers(0, 10**6), st.integers(0, 10**6),
                  st.sampled_from(HOSTILE) | st.binary(max_size=64)),
        min_size=1, max_size=4,
    ),
)  # fmt: skip
def test_mutated_consumers_through_the_cli_fail_cleanly(picks):
    work = tempfile.mkdtemp(prefix="vg-fuzz-consumers-")
    try:
        shutil.copytree(ESTATE / "infra", os.path.join(work, "infra"))
        for index, cut, at, snippet in picks:
            rel, data = SOURCES[index]
            if rel.startswith("infra/"):
                rel = "app/main-extra.tf"  # the good root stays good
            path = os.path.join(work, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as fh:
                fh.write(_mutate(data, cut, at, snippet))
        out, err = io.StringIO(), io.StringIO()
        start = time.monotonic()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["lint", "--no-config", "-f", "json", work])
        assert time.monotonic() - start < 10
        assert code in (0, 1, 2, 4), err.getvalue()
        lines = err.getvalue().splitlines()
        assert "Traceback" not in err.getvalue()
        assert all(line.startswith("visguard lint: ") for line in lines), lines
        assert len(lines) <= len(picks) + 1, lines
        report = json.loads(out.getvalue())
        assert any(
            f["queue"].startswith("aws_sqs_queue.") for f in report["findings"]
        )  # the good root: linted
    finally:
        shutil.rmtree(work, ignore_errors=True)
