"""How the suite is run: `make test` runs every suite and fails at the end; the fast loop leaves out what is slow."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_suite_runs_even_after_a_failure_and_the_run_fails_at_the_end(tmp_path):
    log = tmp_path / "ran"
    first = f"echo main >> {log}; exit 1"  # the main suite fails ...
    second = f"echo cdk-min >> {log}"  # ... and the aws-cdk-lib 2.150 suite still runs
    out = subprocess.run(
        ["bash", str(ROOT / "scripts" / "run-tests.sh"), first, second],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert log.read_text().split() == ["main", "cdk-min"]
    assert out.returncode != 0 and "FAILED" in out.stderr and "echo main" in out.stderr
    both_pass = subprocess.run(
        ["bash", str(ROOT / "scripts" / "run-tests.sh"), "true", "true"], capture_output=True, timeout=60
    )
    assert both_pass.returncode == 0


def test_make_test_runs_both_suites_with_their_arguments(tmp_path):
    """The real `make test` recipe, with stub pytests in place of the two virtualenvs (their stamps up to date, so
    nothing is installed): the main suite gets the xdist options, the aws-cdk-lib 2.150 suite every file of
    tests/cdk/MIN_VERSION_TESTS on one command line, and a failing first suite does not stop the second."""
    log = tmp_path / "calls"
    for venv, code in (("main", 1), ("cdkmin", 0)):
        (tmp_path / venv / "bin").mkdir(parents=True)
        stub = tmp_path / venv / "bin" / "pytest"
        stub.write_text(f'#!/bin/sh\necho "{venv} $*" >> {log}\nexit {code}\n')
        stub.chmod(0o755)
    stamp = tmp_path / "stamp"
    stamp.write_text("")
    out = subprocess.run(
        ["make", "--no-print-directory", "-C", str(ROOT), "test", f"VENV={tmp_path / 'main'}",
         f"CDK_MIN_VENV={tmp_path / 'cdkmin'}", f"STAMP={stamp}", f"CDK_MIN_STAMP={stamp}"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode != 0, (
        out.stdout + out.stderr
    )  # the first suite failed: so does make test, at the end
    main, cdkmin = log.read_text().splitlines()
    assert main == "main -n 2"
    files = (ROOT / "tests" / "cdk" / "MIN_VERSION_TESTS").read_text().split()
    assert cdkmin == "cdkmin " + " ".join(files) and len(files) >= 3


def _collected(*args: str) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-P", "-m", "pytest", "--collect-only", "-p", "no:cacheprovider", *args],
        capture_output=True, text=True, cwd=ROOT, timeout=300, env={**os.environ, "PYTHONSAFEPATH": "1"},
    )  # fmt: skip
    assert out.returncode in (0, 5), out.stdout[-2000:] + out.stderr[-2000:]  # 5: nothing collected
    return [line for line in out.stdout.splitlines() if "::" in line]


def test_users_of_spark_moto_server_and_cdk_are_slow_without_being_marked_by_hand():
    # tests/audit/test_baseline.py mixes fast tests with one using the Spark fixture; tests/cdk/test_settings.py
    # has no mark of its own: the fixtures they use decide
    users = ["tests/audit/test_config.py", "tests/audit/test_baseline.py", "tests/cdk/test_settings.py"]
    fast = _collected("-m", "not slow", *users)
    slow = _collected("-m", "slow", *users)
    assert slow and not any("tests/cdk/" in n for n in fast)
    spark_users = {"test_config_is_applied_in_the_job", "test_owner_column_from_tags", "test_audit_wording"}
    assert spark_users <= {n.split("::")[-1].split("[")[0] for n in slow if "test_config.py" in n}
    assert not spark_users & {n.split("::")[-1].split("[")[0] for n in fast}
    for node in fast:
        assert node not in slow
    # and what needs none of them stays in the fast loop
    assert _collected("-m", "not slow", "tests/audit/test_cache.py")
