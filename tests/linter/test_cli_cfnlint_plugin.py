"""The cfn-lint plugin, run through cfn-lint itself (one subprocess over several fixtures): the same
findings as `visguard lint`, with ids mapped into cfn-lint's user range and the same lines."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from visguard.linter.api import lint_paths
from visguard.linter.model import LintConfig
from visguard.linter.rules import ALL_RULES
from visguard.linter.rules._base import cfnlint_id

FIX = Path(__file__).resolve().parent / "fixtures" / "rules"
TEMPLATES = [
    FIX / r / "cfn" / "fail.yaml"
    for r in ("vg003", "vg010", "vg011", "vg021", "vg030", "vg031", "vg050", "vg900")
]
TEMPLATES += [FIX / "vg011" / "cfn" / "pass.yaml"]
CFN_LINT = Path(sys.executable).with_name("cfn-lint")


@pytest.fixture(scope="module")
def cfnlint_output(tmp_path_factory) -> str:
    cwd = tmp_path_factory.mktemp("cfnlint")  # no visguard.yaml here
    proc = subprocess.run(
        [str(CFN_LINT), "--format", "parseable", "-c", "I", "-a", "visguard.linter.cfnlint_rules", "--",
         *map(str, TEMPLATES)],
        capture_output=True, text=True, cwd=cwd, timeout=120,
    )  # fmt: skip
    assert proc.returncode != 1, proc.stderr  # 1: cfn-lint could not load the rules
    return proc.stdout


def _visguard_ids_per_line(out: str) -> set[tuple[str, int, str]]:
    found = set()
    for line in out.splitlines():
        # parseable: file:line:col:line_end:col_end:RULEID:message
        m = re.match(r"^(.*?):(\d+):\d+:\d+:\d+:([EWI]9\d{3}):", line)
        if m:
            found.add((Path(m.group(1)).relative_to(FIX).as_posix(), int(m.group(2)), m.group(3)))
    return found


def test_plugin_reports_the_same_findings_as_visguard(cfnlint_output):
    expected = set()
    for t in TEMPLATES:
        for f in lint_paths([str(t)], config=LintConfig()).findings:
            expected.add((t.relative_to(FIX).as_posix(), f.location.line, cfnlint_id(ALL_RULES[f.rule])))
    got = _visguard_ids_per_line(cfnlint_output)
    assert expected and got == expected


def test_plugin_ids_and_severity_letters(cfnlint_output):
    assert ":E9010:" in cfnlint_output and ":W9011:" in cfnlint_output and ":I9050:" in cfnlint_output
    assert "[visguard VG010]" in cfnlint_output and "Fix: " in cfnlint_output
    assert "pass.yaml" not in "".join(
        x for x in cfnlint_output.splitlines() if re.search(r":[EWI]9\d{3}:", x)
    )
