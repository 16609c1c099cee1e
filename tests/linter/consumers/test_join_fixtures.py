"""The join's fixtures, one folder per mechanism (tests/linter/fixtures/consumers/join/, README there): each is
linted as one run and gives exactly the findings of its ``expect.json`` (rule, queue, file, line; a VG902 note's
words). Regenerate after an intended change: ``VISGUARD_UPDATE_SNAPSHOTS=1``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from visguard.cli import main

JOIN = Path(__file__).resolve().parents[1] / "fixtures" / "consumers" / "join"
CASES = sorted(p.name for p in JOIN.iterdir() if p.is_dir())


def _found(capsys, case: str) -> list[dict]:
    main(["lint", "--no-config", "--fail-on", "never", "-f", "json", str(JOIN / case)])
    out = []
    for f in json.loads(capsys.readouterr().out)["findings"]:
        row = {"rule": f["rule"], "queue": f["queue"].replace(str(JOIN / case) + os.sep, ""), "file": os.path.relpath(f["file"], JOIN / case),
               "line": f["line"]}  # fmt: skip
        if "joined_by" in f:
            row["joined_by"] = os.path.relpath(f["joined_by"]["file"], JOIN / case)
        if f["rule"] == "VG902":
            row["message"] = f["message"].replace(str(JOIN / case) + os.sep, "")
        out.append(row)
    return out


def test_every_case_is_in_the_readme():
    readme = (JOIN / "README.md").read_text()
    assert CASES and all(f"`{c}/`" in readme for c in CASES)


@pytest.mark.parametrize("case", CASES)
def test_join_fixture(capsys, case):
    got = _found(capsys, case)
    expect = JOIN / case / "expect.json"
    if os.environ.get("VISGUARD_UPDATE_SNAPSHOTS"):
        expect.write_text(json.dumps(got, indent=2) + "\n")
    assert got == json.loads(expect.read_text())
