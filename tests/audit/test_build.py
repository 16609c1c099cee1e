"""build.lint_rows checks only each row's own queue (``lint_model(..., only=...)``): the findings must be exactly
those of a full ``lint_model`` over the row's small model filtered to that queue (no Spark)."""

from __future__ import annotations

from visguard.audit import build, generate
from visguard.linter.api import lint_model

from . import reference


def test_only_own_queue_equals_full_lint_filtered(tmp_path):
    generate.generate(2000, 3, 5, str(tmp_path))
    rows, _ = reference.joined_rows(str(tmp_path))
    full, only = [], []
    with_dlq = 0
    for row in rows:
        model = build.model_for(row)
        with_dlq += len(model.queues) > 1
        full += [f for f in lint_model(model) if f.queue == row["arn"]]
        only += lint_model(model, only=[row["arn"]])
    assert with_dlq > 500  # the models really hold DLQs whose findings the full run throws away
    assert len(full) > 1000 and only == full
    assert {f.rule for f in only} >= {"VG003", "VG004", "VG020", "VG022"}
    findings, figures = build.lint_rows(rows, audit_wording=False)
    assert [(f["queue_arn"], f["rule"], f["message"]) for f in findings] == [
        (f.queue, f.rule, f.message) for f in full
    ]
    assert len(figures) == len(rows)
    # the audit's wording changes messages and fixes, never which findings there are
    worded, _ = build.lint_rows(rows)
    assert [(f["queue_arn"], f["rule"]) for f in worded] == [(f.queue, f.rule) for f in full]
    assert sum("API: SetQueueAttributes" in (f["fix"] or "") for f in worded) > 500


def _member(name, target, account="111111111111"):
    arn = f"arn:aws:sqs:us-east-1:{account}:{name}"
    return {
        "arn": arn, "account": account, "region": "us-east-1", "name": name, "fifo": False, "vt": 30.0,
        "retention": 345600.0, "delay": 0.0, "has_redrive": True, "max_receive_count": 5.0,
        "target_arn": f"arn:aws:sqs:us-east-1:{account}:{target}",
    }  # fmt: skip


def test_long_redrive_loops_are_found_once_on_their_first_queue():
    members = [
        # a five-queue loop, entered from a DLQ that is not on it (feeder-dlq -> l3)
        _member("l1", "l2"), _member("l2", "l3"), _member("l3", "l4"), _member("l4", "l5"), _member("l5", "l1"),
        _member("feeder-dlq", "l3"),
        # a four-queue loop; and a three-queue one, which the rows' own models already see
        _member("m4", "m1"), _member("m1", "m2"), _member("m2", "m3"), _member("m3", "m4"),
        _member("s1", "s2"), _member("s2", "s3"), _member("s3", "s1"),
        # a chain that ends: no loop
        _member("c1", "c2"), _member("c2", "elsewhere"),
    ]  # fmt: skip
    got = build.long_redrive_loops(members)
    arn = "arn:aws:sqs:us-east-1:111111111111:"
    assert sorted(got) == [arn + "l1", arn + "m1"]
    (f,) = got[arn + "l1"]
    assert f.rule == "VG023" and f.message == "redrive loop: " + " -> ".join(
        arn + q for q in ["l1", "l2", "l3", "l4", "l5", "l1"]
    )
    assert f.location.file == "111111111111/us-east-1.jsonl" and f.location.path == arn + "l1/RedrivePolicy"
    (g,) = got[arn + "m1"]
    assert g.message == "redrive loop: " + " -> ".join(arn + q for q in ["m1", "m2", "m3", "m4", "m1"])
    assert build.long_redrive_loops([]) == {}
