"""The code zip the audit ships to cluster executors (``session.code_zip``) works from the zip alone: on a
Python whose path has numpy and pyarrow but not visguard, importing from the zip finds every rule and lints a
queue as the installed package does (a package in a zip has no folder to list)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from visguard.audit.session import code_zip
from visguard.linter.rules import RULES

PROBE = r"""
import json, sys
# -S: no site, so no .pth files and no editable-install finder; the venv's packages (numpy, pyarrow) by hand
sys.path.append(sys.argv[2])
sys.path.insert(0, sys.argv[1])
import visguard
assert ".zip" in visguard.__file__, visguard.__file__
from visguard.linter.rules import RULES
from visguard.audit import generate, build
print(json.dumps({"file": visguard.__file__, "rules": sorted(RULES)}))
"""


def test_the_shipped_zip_finds_every_rule_without_the_installed_package(tmp_path):
    import numpy

    site_packages = str(Path(numpy.__file__).parent.parent)
    zip_path = code_zip(tmp_path)
    r = subprocess.run(
        [sys.executable, "-P", "-S", "-c", PROBE, str(zip_path), site_packages],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout)
    assert out["rules"] == sorted(RULES)
