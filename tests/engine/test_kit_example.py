"""The test-kit example `make demo-kit` runs (examples/test-kit) passes as a team's own suite would run it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_example_consumer_suite_is_collected_and_passes(tmp_path):
    out = subprocess.run(
        [sys.executable, "-P", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml", str(tmp_path / "r.xml"),
         str(ROOT / "examples" / "test-kit")],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    import xml.etree.ElementTree as ET

    suite = ET.parse(tmp_path / "r.xml").getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == (
        "3",
        "0",
        "0",
        "0",
    )
