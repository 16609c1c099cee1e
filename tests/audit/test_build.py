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
    findings, figures = build.lint_rows(rows)
    assert [(f["queue_arn"], f["rule"], f["message"]) for f in findings] == [
        (f.queue, f.rule, f.message) for f in full
    ]
    assert len(figures) == len(rows)
