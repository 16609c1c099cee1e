"""The job's pre-filter (``build.needs_lint``) never rules out a row that has a finding, and the figures it gives the
rows it rules out (``build.quiet_figures``) are exactly those of ``build.lint_rows``: over generated fleets (with
worker consumers, a visguard.yaml) and over rows drawn by hypothesis around every limit the filter reads."""

from __future__ import annotations

import math

import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from visguard.audit import build, generate
from visguard.linter.model import LintConfig, Suppression
from visguard.linter.rules import RULES

from . import reference

OWNERS = ("owner", "team")


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def _check(rows: list[dict], config=None, extra=None) -> int:
    """Asserts the pre-filter's promise on ``rows``; returns how many rows it rules out."""
    batch = pa.Table.from_pylist(rows).combine_chunks().to_batches()[0]
    lint = build.needs_lint(batch, config, extra)
    assert lint.dtype == bool and lint.shape == (len(rows),)
    quiet = [r for r, x in zip(rows, lint, strict=True) if not x]
    findings, figures = build.lint_rows(quiet, config=config, extra=extra, owner_tags=OWNERS)
    assert findings == []
    columns = build.quiet_figures(batch.filter(pa.array(~lint)), OWNERS)
    ours = [
        dict(zip(columns, values, strict=True))
        for values in zip(*(c.to_pylist() for c in columns.values()), strict=True)
    ]
    assert len(ours) == len(figures)
    for theirs, mine in zip(figures, ours, strict=True):
        assert theirs.keys() == mine.keys()
        assert all(_same(theirs[k], mine[k]) for k in theirs), (theirs, mine)
    return len(quiet)


def test_generated_fleets_lose_no_finding(tmp_path):
    for seed in (1, 2):
        generate.generate(3000, 4, seed, str(tmp_path / str(seed)))
        rows, _ = reference.joined_rows(str(tmp_path / str(seed)))
        assert any(
            c.get("worker_arn") for r in rows for c in r["consumers"] or ()
        )  # workers are in the fleet
        quiet = _check(rows)
        assert quiet > len(rows) // 4  # the filter does rule rows out (a third of a generated fleet)
        # a visguard.yaml: settings the filter reads (VG041's) and a suppression; the lint still agrees
        config = LintConfig(
            settings={"fifo_block_seconds": 60}, suppressions=[Suppression("VG022", "accepted")]
        )
        assert 0 < _check(rows, config) <= quiet


def test_long_loops_and_profiles_go_to_the_linter(tmp_path):
    generate.generate(500, 2, 3, str(tmp_path))
    rows, _ = reference.joined_rows(str(tmp_path))
    batch = pa.Table.from_pylist(rows).combine_chunks().to_batches()[0]
    quiet = [r["arn"] for r, x in zip(rows, build.needs_lint(batch), strict=True) if not x]
    assert quiet
    extra = {quiet[0]: []}  # a finding found beyond the row's model (a long redrive loop) is the row's too
    assert build.needs_lint(batch, extra=extra)[[r["arn"] for r in rows].index(quiet[0])]
    profiled = LintConfig(profiles=[object()])  # profiles add consumers: every row is linted
    assert build.needs_lint(batch, profiled).all()


def test_the_filter_knows_every_rule_that_fires_without_consumers(monkeypatch):
    assert {r.id for r in RULES.values() if not r.consumers_only} == build.QUIET_RULES
    # a rule the filter does not know about: every row goes to the linter until the filter learns it
    rule = next(r for r in RULES.values() if r.consumers_only)
    monkeypatch.setattr(rule, "consumers_only", False)
    batch = pa.Table.from_pylist([_row(vt=30.0)]).to_batches()[0]
    assert build.needs_lint(batch).all()


ARN = "arn:aws:sqs:us-east-1:111111111111:"


def _row(**kw) -> dict:
    row = {
        "account": "111111111111", "region": "us-east-1", "arn": ARN + "q", "name": "q",
        "tags": {"owner": None, "team": None, build.TAG_CONSUMER: None, build.TAG_P99: None},
        "received": None, "deleted": None, "age_oldest": None, "fifo": False, "vt": 30.0, "retention": None,
        "delay": None, "has_redrive": False, "target_arn": None, "max_receive_count": None,
        "target_partition_known": True, "consumers": [], "is_dlq": False,
    }  # fmt: skip
    for p in ("dlq_", "dlq2_"):
        row.update({f"{p}{c}": None for c in (*build._QUEUE_KEYS[""][:13], "target_partition_known")})
    row.update(kw)
    return row


def _dlq(row: dict, arn: str, fifo, retention, has_redrive, target) -> dict:
    row.update(
        dlq_arn=arn, dlq_name=arn.rsplit(":", 1)[1], dlq_account="111111111111", dlq_region="us-east-1",
        dlq_fifo=fifo, dlq_retention=retention, dlq_has_redrive=has_redrive, dlq_target_arn=target,
        dlq_max_receive_count=5.0 if has_redrive else None, dlq_target_partition_known=True,
        dlq_vt=30.0, dlq_delay=None, dlq_age_oldest=None,
    )  # fmt: skip
    return row


# values around every limit the filter reads (and some it must not trust: NaN, infinity, non-whole); the
# ordinary values are drawn more often, so that many drawn rows pass all but one of the filter's conditions
seconds = st.one_of(
    st.sampled_from([None, 30.0, 60.0, 900.0, 345600.0, 1209600.0, 43200.0, 0.0]),
    st.sampled_from(
        [1.0, 59.0, 899.0, 901.0, 1000.0, 1209601.0, 43201.0, -1.0, 0.5, 30.25, math.inf, math.nan]
    ),
    st.integers(-10, 1_300_000).map(float),
)
counts = st.sampled_from([1.0, 5.0, 1000.0, 3.0, None, -1.0, 0.0, 0.5, 1001.0, math.nan])
metrics = st.sampled_from([None, None, None, 0.0, -1.0, 1.0, 50.0, 10_000.0, math.nan])
known = st.sampled_from([True, True, False, None])
tag = st.sampled_from([None, None, None, "", "worker", "lambda", "12", "x"])
lambda_mapping = st.fixed_dictionaries(
    {
        "uuid": st.just("m-1"),
        "function_arn": st.just("arn:aws:lambda:us-east-1:1:function:f"),
        "function_found": st.booleans(),
        "timeout": st.sampled_from([None, 3.0, 900.0]),
        "batch_size": st.sampled_from([None, 1, 10, 100]),
        "worker_arn": st.none(),
    }  # fmt: skip
)
worker = st.fixed_dictionaries(
    {
        "uuid": st.none(),
        "worker_arn": st.just("arn:aws:ecs:us-east-1:111111111111:service/c/s"),
        "platform": st.just("ecs"),
        "processing_p99": st.sampled_from([None, 10.0, 100.0]),
        "stop_timeout": st.sampled_from([None, 30.0]),
    }  # fmt: skip
)


# one field of a row and the values it is drawn from
CHANGES = {
    "vt": seconds, "retention": seconds, "delay": seconds, "fifo": st.booleans(), "received": metrics,
    "deleted": metrics, "age_oldest": metrics, "is_dlq": st.booleans(), "has_redrive": st.booleans(),
    "max_receive_count": counts, "target_partition_known": known,
    "target_arn": st.sampled_from([None, ARN + "q", ARN + "elsewhere"]),
    "dlq_arn": st.sampled_from([None, ARN + "q"]), "dlq_fifo": st.sampled_from([True, None]),
    "dlq_retention": seconds, "dlq_has_redrive": st.just(True),
    "dlq_target_arn": st.sampled_from([ARN + "q", ARN + "d", ARN + "d2"]),
    "consumers": st.lists(st.one_of(lambda_mapping, worker), min_size=1, max_size=2),
    **{f"tag:{k}": tag for k in (*OWNERS, build.TAG_CONSUMER, build.TAG_P99)},
}  # fmt: skip


@st.composite
def rows(draw) -> dict:
    """A row the filter rules out (with or without a redrive policy to a DLQ that keeps messages longer), then
    up to three of its fields drawn anew from values around the limits."""
    row = _row(retention=draw(st.sampled_from([None, 60.0, 345600.0])))
    if draw(st.booleans()):
        row.update(has_redrive=True, max_receive_count=5.0, target_arn=ARN + "d")
        _dlq(row, ARN + "d", False, draw(st.sampled_from([None, 1209600.0])), False, None)
    for field in draw(st.lists(st.sampled_from(sorted(CHANGES)), max_size=3, unique=True)):
        value = draw(CHANGES[field])
        if field.startswith("tag:"):
            row["tags"] = {**row["tags"], field[4:]: value}
        else:
            row[field] = value
    return row


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(rows(), min_size=1, max_size=8))
def test_no_drawn_row_with_a_finding_is_ruled_out(drawn):
    _check(drawn)


def test_an_infinite_number_is_an_out_of_range_value_not_a_crash():
    """Spark's JSON reader takes ``Infinity``: a DLQ whose retention reads as infinite is linted (VG005-style
    range findings may fire), never an OverflowError in the worker (found by the drawn rows above)."""
    row = _dlq(
        _row(has_redrive=True, target_arn=ARN + "d", max_receive_count=5.0),
        ARN + "d",
        False,
        math.inf,
        False,
        None,
    )
    assert build._int(math.inf) == math.inf and build._int(30.0) == 30 and build._whole(math.inf) == math.inf
    _check([row])
