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


def test_makefile_runs_both_suites_through_the_script():
    make = (ROOT / "Makefile").read_text()
    recipe = make.split("\ntest: ", 1)[1].split("\n\n", 1)[0]
    assert "scripts/run-tests.sh" in recipe and "$(BIN)/pytest" in recipe and "MIN_VERSION_TESTS" in recipe


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
