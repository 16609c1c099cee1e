"""Issue 26: public-shaped Terraform roots (corpus/README.md) through the CLI, against the findings written by
reading them (corpus/expected.json): every expected issue flagged, nothing else (0 false positives), and every
VG902 note expected (what is not checked is said)."""

from __future__ import annotations

import json
import os

import pytest
from visguard.cli import main

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
with open(os.path.join(CORPUS, "expected.json"), encoding="utf-8") as _fh:
    EXPECTED = {k: v for k, v in json.load(_fh).items() if not k.startswith("_")}


def _lint(capsys, root: str) -> tuple[int, dict]:
    code = main(["lint", "--no-config", "-f", "json", "--fail-on", "never", os.path.join(CORPUS, root)])
    return code, json.loads(capsys.readouterr().out)


def test_every_root_is_in_the_expectations():
    roots = sorted(d for d in os.listdir(CORPUS) if os.path.isdir(os.path.join(CORPUS, d)))
    assert roots == sorted(EXPECTED) and len(roots) >= 10


@pytest.mark.parametrize("root", sorted(EXPECTED))
def test_root_gives_exactly_the_expected_findings(capsys, root):
    code, doc = _lint(capsys, root)
    assert code == 0 and doc["errors"] == []  # no root refused: each one is linted
    got = [
        [f["rule"], f["queue"], os.path.relpath(f["file"], CORPUS), f["line"]]
        for f in doc["findings"]
        if f["rule"] != "VG902"
    ]
    notes = sorted(f["queue"] for f in doc["findings"] if f["rule"] == "VG902")
    want = EXPECTED[root]
    assert sorted(got) == sorted(want["findings"]), root
    assert notes == sorted(want["notes"]), root


def test_hit_rate_and_false_positives(capsys):
    """The corpus as one measurement: issues flagged / issues known, and findings nobody expected."""
    known = hit = fp = 0
    for root, want in EXPECTED.items():
        _, doc = _lint(capsys, root)
        got = {
            (f["rule"], f["queue"], os.path.relpath(f["file"], CORPUS), f["line"])
            for f in doc["findings"]
            if f["rule"] != "VG902"
        }
        expected = {tuple(x) for x in want["findings"]}
        known += len(expected)
        hit += len(expected & got)
        fp += len(got - expected)
    print(f"corpus: {hit}/{known} known issues flagged ({100 * hit / known:.1f} %), {fp} false positives")
    assert known >= 20 and hit == known and fp == 0
