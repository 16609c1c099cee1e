"""The audit's ``--sources`` stage on the driver: lint the roots (on the executors), join deployed queues to
their declarations and compute drift (Spark), then give every finding on a joined queue its source location.

:func:`run` returns the findings table with :data:`SOURCE_COLUMNS` added (and the VG085 rows appended), what the
job adds to ``summary.json`` under ``sources``, and the rows the SARIF and patch writers need. Without
``--sources`` none of this runs and the job's outputs are what they were.
"""

from __future__ import annotations

import json

# The findings columns --sources adds: where the finding's queue is declared (the line is the one the linter
# points at for the same rule on that declaration, else the queue's), and how the queue was joined to it.
from visguard.audit.outputs import SOURCE_COLUMNS  # noqa: E402

ERRORS_SHOWN = 200


class Sources:
    """What the ``--sources`` stage found: ``roots`` (as given), the error and patch rows of the roots,
    ``summary`` for summary.json."""

    def __init__(self, roots, errors, plans, summary):
        self.roots, self.errors, self.plans, self.summary = roots, errors, plans, summary


def run(spark, records, findings, roots, *, owners=None, patches=False, config=None,
        owner_tags=(), placement_out=None, mode="error"):  # fmt: skip
    """(findings with source columns and VG085 rows, :class:`Sources`). ``owners``: owner rows (a DataFrame or a
    list of dicts); None: the inventory's ``owner`` records (among ``records``). ``placement_out``: where Spark writes the
    per-queue placement (Parquet: every deployed queue, its declaration or the reason it has none)."""
    import os

    import pyarrow as pa
    from pyspark.sql import functions as F
    from visguard.audit import drift, sources
    from visguard.neutralize import printable

    given = [str(r) for r in roots]
    absolute = [os.path.abspath(r) for r in given]  # executors need no working directory of the driver's
    lint = sources.declaration_frame(spark, absolute, patches=patches).cache()
    decls = lint.where(F.col("row_kind") == "d").withColumn(
        "repository", F.element_at(F.array(*[F.lit(g) for g in given]), F.col("root") + 1)
    )
    # one action over the lint (filling its cache): the error and patch rows, and how many declarations
    side, n_decls = [], 0
    for r in (
        lint.where(F.col("row_kind") != "d")
        .select("row_kind", "root", "message", "diff", "refused")
        .unionByName(lint.where(F.col("row_kind") == "d").groupBy().agg(
            F.lit("n").alias("row_kind"), F.count(F.lit(1)).cast("int").alias("root"),
            *[F.lit(None).cast("string").alias(c) for c in ("message", "diff", "refused")]))
        .collect()
    ):  # fmt: skip
        if r["row_kind"] == "n":
            n_decls = r["root"]
        else:
            side.append(r.asDict())
    own = drift.owner_frame(spark, owners) if owners is not None else drift.record_owners(records)
    queues = drift.deployed(records)
    # the placement carries only what its outputs need (drift joins the deployed settings by ARN)
    placed = drift.place(queues.select("account", "region", "arn", "name"), own, decls)
    placed = placed.withColumn("settings", drift.parsed_declared()).cache()  # drift reads it: parsed once
    if placement_out is not None:
        placed.select(*[n for n, _ in drift.PLACED_FIELDS]).write.mode(mode).parquet(placement_out)
    # every count of summary.json in one aggregation
    tally = placed.groupBy("owner", "join_by", "reason_kind").count().collect()
    counts = tally
    reasons = _sums(tally, "reason_kind")
    disabled = set(config.disabled) if config is not None else set()
    drifted = None
    if "VG085" not in disabled:
        drifted = drift.drift_frame(placed, queues, owner_tags, config).toArrow()
    # the places of the joined queues, to the driver as they are: a finding takes its queue's by ARN (Arrow)
    cols = ["arn", "repository", "file", "line", "lines", "join_by"]
    located = placed.where(F.col("decl_id").isNotNull()).select(*cols).toArrow()
    out = with_locations(findings, located)
    if drifted is not None and drifted.num_rows:
        out = pa.concat_tables([out, drift_table(drifted, located, out.schema)])
    summary = {
        "roots": len(given),
        "declarations": n_decls,
        "root_errors": sum(1 for r in side if r["row_kind"] == "e"),
        "queues_by_owner": _by(counts, "owner"),
        "queues_by_join": _by(counts, "join_by", none="not joined"),
        "not_joined_reasons": reasons,
        "drift_findings": 0 if drifted is None else drifted.num_rows,
        # what could not be linted: "ROOT: file: place: what" (the first ERRORS_SHOWN; all in the SARIF files)
        "errors": [printable(f"{given[r['root']]}: {r['message']}") for r in side if r["row_kind"] == "e"][
            :ERRORS_SHOWN
        ],
    }
    lint.unpersist()
    placed.unpersist()
    errors = [(r["root"], r["message"]) for r in side if r["row_kind"] == "e"]
    plans = [(r["root"], r["diff"] or "", r["refused"] or "") for r in side if r["row_kind"] == "p"]
    return out, Sources(given, errors, plans, summary)


def _sums(rows, key: str) -> dict:
    """{value of ``key``: sum of ``count``} of the rows where it is not null, sorted."""
    out: dict = {}
    for r in rows:
        if r[key] is not None:
            out[r[key]] = out.get(r[key], 0) + r["count"]
    return dict(sorted(out.items()))


def _by(rows, key: str, none: str = "") -> dict:
    out: dict = {}
    for r in rows:
        k = r[key] if r[key] is not None else none
        out[k] = out.get(k, 0) + r["count"]
    return dict(sorted(out.items()))


def _hit(lines: str | None, rule: str | None) -> str | None:
    """ "file\x1fline" of the source lint's own finding of ``rule`` on the declaration (``lines``), else None."""
    if lines and rule:
        hit = json.loads(lines).get(rule)
        if hit:
            return f"{hit[0]}\x1f{hit[1]}"
    return None


def with_locations(findings, located):
    """``findings`` (Arrow) with :data:`SOURCE_COLUMNS`: null where the queue has no known declaration. A finding's
    line is the one the source lint gives for the same rule on that declaration, else the declaration's."""
    import pyarrow as pa
    import pyarrow.compute as pc
    from visguard.audit.columns import per_distinct

    idx = pc.index_in(findings.column("queue_arn"), value_set=located.column("arn"))

    def take(name):
        return pc.take(located.column(name).combine_chunks(), idx)

    repo, file, line, lines, join_by = (take(c) for c in ("repository", "file", "line", "lines", "join_by"))
    hit = per_distinct(_hit, lines, findings.column("rule").combine_chunks())  # few distinct (lines, rule)
    parts = pc.split_pattern(hit, "\x1f")
    has = pc.is_valid(hit)
    hit_file = pc.list_element(pc.fill_null(parts, pa.scalar(["", "0"], pa.list_(pa.string()))), 0)
    hit_line = pc.list_element(pc.fill_null(parts, pa.scalar(["", "0"], pa.list_(pa.string()))), 1)
    files = pc.if_else(has, hit_file, file.cast(pa.string()))
    nums = pc.if_else(has, hit_line.cast(pa.int64()), line.cast(pa.int64()))
    t = findings
    for name, col in zip(SOURCE_COLUMNS, (repo, files, nums, join_by), strict=True):
        t = t.append_column(name, col.cast(pa.int64() if name == "source_line" else pa.string()))
    return t


def drift_table(drifted, located, schema):
    """The VG085 rows as findings rows of ``schema`` (the findings' columns and :data:`SOURCE_COLUMNS`)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    idx = pc.index_in(drifted.column("arn"), value_set=located.column("arn"))
    estimate = [
        json.dumps({"setting": s, "deployed": d, "declared": c}, sort_keys=True)
        for s, d, c in zip(
            *(drifted.column(k).to_pylist() for k in ("setting", "deployed", "declared")), strict=True
        )
    ]
    cols = {
        "account": drifted.column("account"),
        "region": drifted.column("region"),
        "queue_arn": drifted.column("arn"),
        "queue_name": drifted.column("queue_name"),
        "rule": drifted.column("rule"),
        "severity": drifted.column("severity"),
        "message": drifted.column("message"),
        "consumer": drifted.column("consumer"),
        "fix": drifted.column("fix"),
        "estimate": pa.array(estimate, pa.string()),
        "owner": drifted.column("owner"),
        "suppressed": drifted.column("suppressed"),
        "source_repository": pc.take(located.column("repository").combine_chunks(), idx),
        "source_file": drifted.column("source_file"),
        "source_line": drifted.column("source_line"),
        "declared_by": pc.take(located.column("join_by").combine_chunks(), idx),
    }
    return pa.table({f.name: cols[f.name].cast(f.type) for f in schema}, schema=schema)


def finding_schema_with_sources():
    """``tables.finding_schema`` and the source columns (a remote ``--out`` written by Spark)."""
    from pyspark.sql import types as T
    from visguard.audit.tables import finding_schema

    extra = [T.StructField(c, T.LongType() if c == "source_line" else T.StringType()) for c in SOURCE_COLUMNS]
    return T.StructType([*finding_schema().fields, *extra])


def write_files(local, findings, sourced: Sources, patches_dir, summary: dict) -> None:
    """sarif/<repository>.sarif and, with ``patches_dir``, the patches; their names go into ``summary``."""
    from pathlib import Path

    from visguard.audit import sarif_repos

    files = sarif_repos.write(Path(local) / "sarif", findings, sourced.roots, sourced.errors)
    summary["sources"]["sarif"] = files
    summary.setdefault("outputs", {})["sarif"] = "sarif/"
    if patches_dir:
        from visguard.audit import patches

        summary["sources"]["patches"] = patches.write(
            patches_dir, sourced.roots, sourced.plans, sourced.errors
        )
