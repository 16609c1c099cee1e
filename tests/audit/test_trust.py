"""Week-to-week trust (issue 27 §2): the same fleet audited twice, a suppression (and a rule turned off) added to the
config in between. Suppressed findings keep a state of their own in summary.json, findings.csv, the report and OCSF
(status Suppressed, never Close/Resolved); only what is no longer found counts as resolved."""

from __future__ import annotations

import csv
import json

import pytest
from visguard.audit import job
from visguard.linter.loaders import load_config

from .test_job import _q, _rp, _write
from .test_outputs import validate_ocsf

pytestmark = pytest.mark.slow  # Spark

A = "111111111111"
SUPPRESS = """\
version: 1
rules:
  VG022: off
suppressions:
  - rule: VG020
    queue: "arn:aws:sqs:*:111111111111:legacy-*"
    reason: retired next quarter
"""


@pytest.fixture(scope="module")
def twice(spark, tmp_path_factory):
    root = tmp_path_factory.mktemp("twice")
    inv = root / "inventory"
    worker = {"visguard:consumer": "worker"}
    lines = [
        _q(A, "legacy-a", tags=worker),  # VG020
        _q(A, "legacy-b", tags=worker),  # VG020
        _q(A, "orders", tags=worker, redrive=_rp(A, "orders-dlq")),
        _q(A, "orders-dlq", retention="345600"),  # VG022 on orders (DLQ keeps no longer than the source)
        _q(A, "billing", tags=worker),  # VG020, stays open
        _q(A, "broken", vt="thirty"),  # quarantined
    ]
    _write(inv, A, [json.dumps(x) for x in lines])
    first = job.run(spark, str(inv), str(root / "week1"))
    cfg = root / "visguard.yaml"
    cfg.write_text(SUPPRESS)
    second = job.run(
        spark, str(inv), str(root / "week2"), config=load_config(str(cfg)), baseline=str(root / "week1")
    )
    return {"first": first, "second": second, "out": root / "week2"}


def test_a_suppression_is_not_a_fix(twice):
    first, second = twice["first"], twice["second"]
    assert first["findings_by_rule"] == {"VG020": 3, "VG022": 1}
    assert second["findings_by_rule"] == {"VG020": 1}  # open findings only
    assert second["suppressed"] == 2 and second["suppressed_by_rule"] == {"VG020": 2}
    b = second["baseline"]
    assert b["resolved"] == 0  # nothing was fixed
    assert b["suppressed_since_baseline"] == 3 and b["rule_disabled"] == 1  # two suppressed, VG022 turned off
    assert (b["new"], b["unchanged"]) == (0, 1)
    assert json.loads((twice["out"] / "summary.json").read_text())["baseline"]["resolved"] == 0


def test_ocsf_sends_suppressed_not_resolved(twice):
    events = validate_ocsf(twice["out"] / "findings.ocsf.json")
    status = sorted((e["status"], e["activity_name"], e["finding_info"]["analytic"]["uid"]) for e in events)
    assert status == [
        ("New", "Update", "VG020"),
        ("Suppressed", "Update", "VG020"),
        ("Suppressed", "Update", "VG020"),
        ("Suppressed", "Update", "VG022"),
    ]
    details = sorted(e.get("status_detail", "") for e in events if e["status"] == "Suppressed")
    assert details == [
        "suppressed: retired next quarter",
        "suppressed: retired next quarter",
        "suppressed: rule VG022 turned off in the config",
    ]
    assert not [e for e in events if e["status_id"] == 4 or e["activity_id"] == 3]


def test_csv_diff_and_report_show_the_state(twice):
    out = twice["out"]
    with open(out / "findings.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    states = sorted((r["queue_name"], r["state"], r["suppressed_by"], r["priority"]) for r in rows)
    assert states == [
        ("billing", "open", "", "1"),
        ("legacy-a", "suppressed", "retired next quarter", ""),
        ("legacy-b", "suppressed", "retired next quarter", ""),
    ]
    with open(out / "baseline-diff.csv", newline="", encoding="utf-8") as fh:
        diff = list(csv.DictReader(fh))
    assert sorted(d["status"] for d in diff) == ["suppressed"] * 3
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "Suppressed since the baseline (3)" in html and "suppressed since baseline" in html
    assert "rule VG022 turned off in the config" in html


def test_console_line_counts_new_resolved_suppressed(twice):
    line = job.console_line(twice["second"], "out")
    assert "1 findings" in line and "2 suppressed" in line
    assert "since the baseline: 0 new, 0 resolved, 3 suppressed" in line
    assert "1 quarantined" in line


def test_quarantined_queues_are_named(twice):
    s = twice["second"]
    assert [(r["arn"].rsplit(":", 1)[-1], r["reason"]) for r in s["quarantine_samples"]] == [
        ("broken", "VisibilityTimeout is not a number: thirty")
    ]
    html = (twice["out"] / "report.html").read_text(encoding="utf-8")
    assert "id='quarantine-table'" in html and f"arn:aws:sqs:us-east-1:{A}:broken" in html
