"""The lint stage's results cross the JVM packed (``transforms.packed``: each record batch as one Arrow IPC stream in
a binary value) and are unpacked on the driver (``transforms.unpack``) into exactly the findings and figures
``build.lint_rows`` gives; the summary's counts are computed from those Arrow tables (``summary.result_summary``)."""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
from visguard.audit import build, generate, summary, transforms

from . import reference

OWNERS = ("owner", "team")


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def _unpacked(rows: list[dict], size: int):
    """``rows`` through packed in batches of ``size`` rows, the payloads collected as Spark would, then unpacked."""
    table = pa.Table.from_pylist(rows)
    payloads = list(transforms.packed(iter(table.to_batches(max_chunksize=size)), owner_tags=OWNERS))
    assert all(b.schema.names == ["payload"] and b.num_rows == 1 for b in payloads)
    return transforms.unpack(pa.Table.from_batches(payloads))


def test_unpacked_results_are_lint_rows(tmp_path):
    generate.generate(2000, 3, 5, str(tmp_path))
    rows, _ = reference.joined_rows(str(tmp_path))
    known = [r for r in rows if r.get("arn")]
    lost = [r for r in rows if not r.get("arn")]
    findings, figures = build.lint_rows(known, owner_tags=OWNERS)
    got_findings, got_figures, orphans = _unpacked(rows, 300)
    key = ("queue_arn", "rule", "consumer", "message")
    assert sorted(got_findings.to_pylist(), key=lambda f: tuple(str(f[k]) for k in key)) == sorted(
        findings, key=lambda f: tuple(str(f[k]) for k in key)
    )
    mine = sorted(got_figures.to_pylist(), key=lambda g: g["arn"])
    theirs = sorted(figures, key=lambda g: g["arn"])
    assert len(mine) == len(theirs) == len(known)
    for a, b in zip(mine, theirs, strict=True):
        assert a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a), (a, b)
    consumers = [c for r in lost for c in r["consumers"] or ()]
    assert orphans == (
        sum(1 for c in consumers if c.get("worker_arn") is None),
        sum(1 for c in consumers if c.get("worker_arn") is not None),
    )
    assert got_findings.num_rows and got_figures.num_rows


def test_nothing_to_unpack():
    findings, figures, orphans = transforms.unpack(pa.table({"payload": pa.array([], pa.binary())}))
    assert findings.num_rows == figures.num_rows == 0 and orphans == (0, 0)
    assert "rule" in findings.column_names and "ratio" in figures.column_names
    counts = summary.result_summary(findings, figures)
    assert counts["queues"] == counts["findings"] == 0 and counts["riskiest_queues"] == []


def test_histogram_bins_as_the_spark_expression_did():
    """floor((v - lo) / width), values below lo in the first bin, above hi (and infinite) in the last."""
    h = summary.Histogram(-2.0, 3.0, 25)  # width 0.2
    h.add_all(np.array([-5.0, -2.0, -1.9, -1.79, 0.0, 2.99, 3.0, 7.0, np.inf, -np.inf]))
    expected = [0] * 25
    for b in (0, 0, 0, 1, 10, 24, 24, 24, 24, 0):
        expected[b] += 1
    assert h.counts == expected


def test_riskiest_queues_order(tmp_path):
    """Queues with 1,000 receives or more (or unknown) first, then by observed rate, else the estimate, then ARN;
    an infinite observed rate becomes null with ``none_deleted``."""
    rows = [
        ("a", None, 0.5, 10.0),  # few receives: after every queue with enough
        ("b", 0.2, None, 5000.0),
        ("c", None, math.inf, 2000.0),
        ("d", 0.3, 0.01, None),  # observed beats the estimate: 0.01
        ("e", 0.2, None, 5000.0),
    ]
    figures = pa.Table.from_pylist(
        [
            {"account": "1", "region": "r", "arn": a, "name": a, "vt": 30.0, "required_vt": 60.0, "ratio": 0.5,
             "consumer_kinds": "worker", "findings": 1, "worst": "warning", "duplicate_rate": d, "owner": None,
             "received": rcv, "deleted": None, "age_oldest": None, "observed_rate": o}
            for a, d, o, rcv in rows
        ]
    )  # fmt: skip
    findings = pa.table({c: pa.array([], pa.string()) for c in ("rule", "account", "severity", "suppressed")})
    top = summary.result_summary(findings, figures)["riskiest_queues"]
    assert [q["arn"] for q in top] == ["c", "b", "e", "d", "a"]
    assert top[0]["observed_rate"] is None and top[0]["none_deleted"] is True
