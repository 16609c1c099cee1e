"""The audit's outputs besides Parquet, written on the driver from the findings as one Arrow table:

- ``findings.csv``: a header and one row per finding, in fix-first order (see :func:`prioritise`), with its
  fingerprint and, with ``--baseline``, whether it is new or unchanged; cells neutralised for spreadsheets;
- ``findings.ocsf.json``: OCSF 1.1 Detection Finding events (:mod:`visguard.audit.ocsf`), resolved findings
  included as Close events when there is a baseline;
- ``baseline-diff.csv`` (with ``--baseline``): the new and the resolved findings;
- ``report.html`` (:mod:`visguard.audit.report`), which shows all of it.

:func:`write_outputs` returns what the job adds to ``summary.json``: the files, the owners and the baseline
comparison.
"""

from __future__ import annotations

import csv
import json
import math
import time
from pathlib import Path

from visguard.audit import baseline as bl
from visguard.audit.neutral import csv_cell, neutral_column
from visguard.audit.tables import FINDING_FIELDS

SEVERITY_RANK = {"error": 3, "warning": 2, "info": 1}
# The findings columns the job writes (tables.finding_schema); a missing owner (older results) is all null.
FINDING_COLUMNS = FINDING_FIELDS
CSV_COLUMNS = (
    "priority",
    "state",
    "severity",
    "rule",
    "title",
    "account",
    "region",
    "owner",
    "queue_name",
    "queue_arn",
    "consumer",
    "message",
    "fix",
    "observed_redelivery",
    "duplicate_rate",
    "why",
    "suppressed_by",
    "fingerprint",
    "baseline",
    "estimate",
)
DIFF_COLUMNS = (
    "status",
    "state",
    "severity",
    "rule",
    "account",
    "region",
    "owner",
    "queue_name",
    "queue_arn",
    "consumer",
    "message",
    "fix",
    "fingerprint",
)
SAMPLE = 200  # new and resolved findings listed in summary.json (all of them are in baseline-diff.csv)
# With --sources (visguard.audit.declared): where each finding's queue is declared; in findings.csv after the
# columns above, only when the findings have them (an audit without --sources writes what it always wrote)
SOURCE_COLUMNS = ("source_repository", "source_file", "source_line", "declared_by")


def _partitioning():
    import pyarrow as pa
    import pyarrow.dataset as ds

    # values are percent-encoded in the folder names ("a/b" -> account=a%2Fb), so any account or region
    # stays one folder level under findings/; null -> __HIVE_DEFAULT_PARTITION__, as Spark writes it
    return ds.partitioning(pa.schema([("account", pa.string()), ("region", pa.string())]), flavor="hive")


def write_findings(table, folder: str) -> None:
    """The findings Arrow table as Parquet partitioned by account and region (``account=A/region=R/part-0.parquet``,
    the layout Spark's ``partitionBy`` writes), for a local ``--out``.

    The driver holds the findings table anyway (CSV, OCSF, report), and pyarrow writes one file per folder in
    a few milliseconds where Spark's partitioned writer spends ~10 ms of CPU and more of wall time per file
    (the output committer's renames, a .crc per file): at 500 accounts x 3 regions that was 20-40 s of a 1M
    audit, and the account count alone decided it (benchmarks/RESULTS.md)."""
    import pyarrow.dataset as ds

    # grouped by folder first: Spark's rows come in any order, and with more folders than open files the
    # writer would close and reopen them, leaving many files per folder (20,581 for 1,500 folders at 1M)
    ds.write_dataset(
        table.sort_by([("account", "ascending"), ("region", "ascending")]),
        folder,
        format="parquet",
        partitioning=_partitioning(),
        basename_template="part-{i}.parquet",
        existing_data_behavior="error",
        max_partitions=1 << 30,
        max_open_files=256,
    )


def write_figures(table, folder: str) -> None:
    """The per-queue figures as Parquet in ``folder`` (one file, for a local ``--out``)."""
    import pyarrow.parquet as pq

    Path(folder).mkdir(parents=True)
    pq.write_table(table, f"{folder}/part-0.parquet")


def findings_table(out: str):
    """The findings of an audit result in the local folder ``out`` as a pyarrow Table."""
    import pyarrow.dataset as ds

    return ds.dataset(f"{out}/findings", format="parquet", partitioning=_partitioning()).to_table()


def queue_rates(figures) -> dict[str, tuple[float | None, float | None]]:
    """Queue ARN -> (the engine's duplicate-rate estimate, the observed redelivery rate), for the queues of the
    figures table that have either (the observed rate is infinite where messages were received and none
    deleted)."""
    import pyarrow.compute as pc

    cols = ["arn", "duplicate_rate", "observed_rate"]
    t = figures.select(cols)
    t = t.filter(
        pc.or_kleene(pc.greater(t.column("duplicate_rate"), 0.0), t.column("observed_rate").is_valid())
    )
    return {a: (d, o) for a, d, o in zip(*(t.column(c).to_pylist() for c in cols), strict=True)}


def normalise(findings):
    """The findings table with every FINDING_COLUMNS column (a missing ``owner`` is all null), as strings, and the
    SOURCE_COLUMNS it has (``--sources``)."""
    import pyarrow as pa

    cols = {}
    for name in FINDING_COLUMNS + tuple(c for c in SOURCE_COLUMNS if c in findings.column_names):
        if name in findings.column_names:
            col = findings.column(name)
            cols[name] = col if col.type == pa.string() else col.cast(pa.string())
        else:
            cols[name] = pa.nulls(findings.num_rows, pa.string())
    return pa.table(cols)


def _estimate_rate(estimate: str | None) -> float | None:
    if not estimate:
        return None
    try:
        v = json.loads(estimate).get("duplicate_rate")
    except (ValueError, AttributeError):
        return None
    return float(v) if isinstance(v, (int, float)) and v == v else None


def _observed(estimate: str | None) -> float | None:
    """VG042's observed rate from its estimate (infinite: nothing deleted)."""
    if not estimate or "observed_redelivery_rate" not in estimate:
        return None
    try:
        v = json.loads(estimate)["observed_redelivery_rate"]
    except (ValueError, KeyError, TypeError):
        return None
    return math.inf if v is None else float(v)


def _rate_columns(arns, rates: dict):
    """(estimate, observed rate) of each row's queue from ``rates`` (nulls where it has none)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not rates:
        return pa.nulls(len(arns), pa.float64()), pa.nulls(len(arns), pa.float64())
    pairs = [q if isinstance(q, tuple) else (q, None) for q in rates.values()]
    idx = pc.index_in(arns, value_set=pa.array(list(rates), pa.string()))
    return (
        pc.take(pa.array([d for d, _ in pairs], pa.float64()), idx),
        pc.take(pa.array([o for _, o in pairs], pa.float64()), idx),
    )


def prioritise(findings, rates: dict | None = None):
    """Fix-first order of the open findings, then the suppressed ones (``state``): severity (errors first), then
    how often the queue's messages are processed again, observed beating estimated: the redelivery rate CloudWatch
    saw (received / deleted - 1) where the queue has traffic, else the engine's estimated duplicate rate (the
    finding's own, else its queue's); then rule, account, queue and consumer. Adds ``state``, ``suppressed_by``,
    ``observed_redelivery``, ``duplicate_rate``, ``fingerprint`` and ``priority`` (1 = fix first; null for a
    suppressed finding). ``rates``: queue ARN -> (estimate, observed rate), or -> estimate.

    Column-wise: only the findings that carry an estimate (JSON) go through Python one by one."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    from visguard.audit.columns import per_distinct, truthy

    t = normalise(findings)
    n = t.num_rows
    q_dup, q_obs = _rate_columns(t.column("queue_arn"), rates or {})
    own = pc.indices_nonzero(truthy(t.column("estimate"))).to_pylist()
    own_dup, own_obs = [None] * n, [None] * n
    for i, e in zip(own, t.column("estimate").take(pa.array(own, pa.int64())).to_pylist(), strict=True):
        own_dup[i], own_obs[i] = _estimate_rate(e), _observed(e)
    dup = pc.coalesce(pa.array(own_dup, pa.float64()), q_dup)
    obs = pc.coalesce(pa.array(own_obs, pa.float64()), q_obs)
    sup = t.column("suppressed")
    t = t.append_column("state", pc.if_else(pc.is_null(sup), "open", "suppressed"))
    t = t.append_column("suppressed_by", sup)
    t = t.append_column(
        "sev_rank", per_distinct(lambda s: SEVERITY_RANK.get(s, 0), t.column("severity"), type=pa.int8())
    )
    t = t.append_column("observed_redelivery", obs)
    t = t.append_column("duplicate_rate", dup)
    t = t.append_column("rank_rate", pc.coalesce(obs, dup))
    t = t.append_column("fingerprint", pa.array(bl.fingerprints(t), pa.string()))
    t = t.sort_by(
        [
            ("state", "ascending"),  # open before suppressed
            ("sev_rank", "descending"),
            ("rank_rate", "descending"),
            ("rule", "ascending"),
            ("account", "ascending"),
            ("queue_arn", "ascending"),
            ("consumer", "ascending"),
            ("fingerprint", "ascending"),
        ]
    )
    n_open = sup.null_count
    priority = pa.concat_arrays(
        [pa.array(np.arange(1, n_open + 1, dtype=np.int64)), pa.nulls(n - n_open, pa.int64())]
    )
    return t.drop_columns(["rank_rate"]).append_column("priority", priority)


ORDER_WORDS = (
    "Order: errors first (they break now: a mapping that cannot be created, a redrive that goes nowhere), then "
    "warnings, then infos. Within a severity, the queues whose messages are processed again most often come "
    "first, and observation beats estimate: where CloudWatch saw the queue's traffic (14 days of received and "
    "deleted messages), its observed redelivery rate (received / deleted - 1) decides, even when the engine "
    "estimates more or less; only queues without traffic or metrics are ranked by the engine's estimated "
    "duplicate rate (which assumes the declared processing profile). Then rule, account and queue. Suppressed "
    "findings are listed apart and never ranked."
)


def fmt_share(rate) -> str:
    if rate is None:
        return ""
    if rate == math.inf:
        return "none deleted"
    return f"{100 * rate:.3g} %"


def why(row: dict, titles: dict[str, str]) -> str:
    """One line telling why a finding sits where it does in the fix-first order."""
    if row.get("suppressed_by"):
        return f"suppressed: {row['suppressed_by']}"
    parts = [
        {
            "error": "error: breaks now",
            "warning": "warning: risk in production",
            "info": "info",
        }.get(row.get("severity") or "", row.get("severity") or "?")
    ]
    rate, seen = row.get("duplicate_rate"), row.get("observed_redelivery")
    if seen is not None:
        text = (
            "observed: messages received and none deleted (CloudWatch)"
            if seen == math.inf
            else f"observed: {fmt_share(seen)} of deliveries repeated (CloudWatch)"
        )
        if rate:
            text += f", ranked by that, not by the engine's estimate of {fmt_share(rate)}"
        parts.append(text)
    elif rate:
        parts.append(f"about {fmt_share(rate)} of messages processed twice (engine estimate, no observation)")
    t = titles.get(row.get("rule") or "")
    if t:
        parts.append(t)
    return "; ".join(parts)


_SEVERITY_WHY = {"error": "error: breaks now", "warning": "warning: risk in production", "info": "info"}


def _shares(col):
    """:func:`fmt_share` of every cell of an Arrow float column (null stays null)."""
    import pyarrow as pa

    return pa.array([None if v is None else fmt_share(v) for v in col.to_pylist()], pa.string())


def why_column(t, titles: dict[str, str]):
    """:func:`why` for every row, as an Arrow string column: the words that depend on a few values (severity,
    rule, suppression) made once per distinct value, the shares formatted once per row, joined in Arrow."""
    import pyarrow as pa
    import pyarrow.compute as pc
    from visguard.audit.columns import joined, per_distinct, truthy

    if t.num_rows == 0:
        return pa.array([], pa.string())
    rate, seen = t.column("duplicate_rate"), t.column("observed_redelivery")
    rated = pc.fill_null(pc.not_equal(rate, 0), False)  # `if rate:` (NaN is true)
    sev = per_distinct(lambda s: _SEVERITY_WHY.get(s or "", s or "?"), t.column("severity"))
    shares, seen_shares = _shares(rate), _shares(seen)
    none_deleted = pc.fill_null(pc.equal(seen, math.inf), False)
    observed = pc.if_else(
        none_deleted,
        "observed: messages received and none deleted (CloudWatch)",
        joined("observed: ", seen_shares, " of deliveries repeated (CloudWatch)"),
    )
    observed = pc.if_else(
        rated, joined(observed, ", ranked by that, not by the engine's estimate of ", shares), observed
    )
    estimated = joined("about ", shares, " of messages processed twice (engine estimate, no observation)")
    rate_part = pc.if_else(
        pc.is_valid(seen), observed, pc.if_else(rated, estimated, pa.scalar(None, pa.string()))
    )
    title = per_distinct(lambda r: titles.get(r or "") or None, t.column("rule"))
    parts = pc.binary_join_element_wise(sev, rate_part, title, "; ", null_handling="skip")
    sup = t.column("suppressed_by")
    return pc.if_else(truthy(sup), joined("suppressed: ", sup), parts)


def write_csv(path: Path, t) -> None:
    """findings.csv with pyarrow's CSV writer; every text cell neutralised (:func:`neutral.neutral_column`)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    cols = {}
    for c in CSV_COLUMNS + tuple(c for c in SOURCE_COLUMNS if c in t.column_names):
        col = t.column(c)
        if c == "priority":
            cols[c] = col
        elif c in ("duplicate_rate", "observed_redelivery"):
            cols[c] = pc.round(col, ndigits=8)  # an observed rate of inf: received, none deleted
        else:
            cols[c] = neutral_column(col, csv=True)
    tmp = path.with_name(path.name + ".tmp")
    pacsv.write_csv(pa.table(cols), tmp, pacsv.WriteOptions(quoting_style="needed"))
    tmp.replace(path)


def _batches(table, size: int = 65_536):
    for b in table.to_batches(max_chunksize=size):
        yield from b.to_pylist()


def write_outputs(
    local_dir: Path,
    findings,
    summary: dict,
    *,
    baseline: str | None = None,
    owner_tag=None,
    rates: dict | None = None,
    report: bool = True,
    now: float | None = None,
    disabled=(),
) -> dict:
    """Write findings.csv, findings.ocsf.json, baseline-diff.csv (with ``baseline``) and report.html into
    ``local_dir``; return the keys to add to ``summary.json``. ``findings`` is a pyarrow Table with the columns
    of ``job.finding_schema()`` (``owner`` and ``suppressed`` optional); ``rates`` maps a queue ARN to its
    (duplicate-rate estimate, observed redelivery rate); ``owner_tag`` names the tag(s) the owner came from (shown
    in the report); ``disabled``: the rules the config turns off (a previous finding of one is not resolved).
    Raises VisguardError when the baseline cannot be read."""
    import pyarrow as pa
    import pyarrow.compute as pc
    from visguard.audit.ocsf import Writer
    from visguard.audit.report import rule_catalogue, write_report

    t0 = time.perf_counter()
    local_dir = Path(local_dir)
    local_dir.mkdir(parents=True, exist_ok=True)
    previous = bl.load_previous(baseline) if baseline else None  # bad input fails before anything is written
    t = prioritise(findings, rates)
    status = None
    resolved: list[dict] = []
    silenced: list[dict] = []  # previous findings of a rule the config now turns off
    extra: dict = {}
    if previous is not None:
        status, resolved, counts = bl.compare(
            t.column("fingerprint").to_pylist(),
            previous,
            suppressed=pc.equal(t.column("state"), "suppressed").to_pylist(),
        )
        resolved, silenced = bl.split_disabled(resolved, disabled)
        counts["resolved"] = len(resolved)
        counts["suppressed_since_baseline"] += len(silenced)
        counts["rule_disabled"] = len(silenced)
        t = t.append_column("baseline", pa.array(status, pa.string()))
        for r in (*resolved, *silenced):
            r.setdefault("owner", None)
            r["sev_rank"] = SEVERITY_RANK.get(r.get("severity") or "", 0)
        resolved.sort(key=lambda r: (-r["sev_rank"], r.get("rule") or "", r.get("queue_arn") or ""))
        for r in silenced:
            r["state"], r["suppressed_by"] = "suppressed", f"rule {r.get('rule')} turned off in the config"
    else:
        t = t.append_column("baseline", pa.nulls(t.num_rows, pa.string()))

    rules = rule_catalogue()
    titles = {rid: r.title for rid, r in rules.items()}
    time_ms = int((now if now is not None else time.time()) * 1000)
    files = {"csv": "findings.csv", "ocsf": "findings.ocsf.json"}
    t = t.append_column("title", pa.array([titles.get(r or "", "") for r in t.column("rule").to_pylist()]))
    t = t.append_column("why", why_column(t, titles))
    write_csv(local_dir / files["csv"], t)
    ocsf = Writer(local_dir / files["ocsf"], time_ms=time_ms)
    try:
        ocsf.add_table(t)
        for r in silenced:
            ocsf.add(r, "unchanged", suppressed=True)
        for r in resolved:
            ocsf.add(r, "resolved")
    finally:
        ocsf.close()
    is_open = pc.equal(t.column("state"), "open")
    n_sup = t.num_rows - pc.sum(is_open).as_py() if t.num_rows else 0
    extra["suppressed"] = n_sup
    extra["open_findings"] = t.num_rows - n_sup
    if n_sup:
        by_rule: dict[str, int] = {}
        for r, s in zip(t.column("rule").to_pylist(), t.column("state").to_pylist(), strict=True):
            if s == "suppressed":
                by_rule[r] = by_rule.get(r, 0) + 1
        extra["suppressed_by_rule"] = dict(sorted(by_rule.items()))
    if previous is not None:
        files["baseline_diff"] = "baseline-diff.csv"
        _write_diff(local_dir / files["baseline_diff"], t, resolved, silenced)
        new_open = pc.and_(pc.equal(t.column("baseline"), "new"), pc.equal(t.column("state"), "open"))
        new_rows = [_compact(r) for r in t.filter(new_open).slice(0, SAMPLE).to_pylist()]
        by = {}
        for name, sev_of in (
            (
                "new",
                t.filter(new_open).column("severity").to_pylist(),
            ),
            ("resolved", [r.get("severity") for r in resolved]),
        ):
            by[name] = {s: sev_of.count(s) for s in SEVERITY_RANK}
        extra["baseline"] = {
            "previous": str(baseline),
            **counts,
            "new_by_severity": by["new"],
            "resolved_by_severity": by["resolved"],
            "new_sample": new_rows,
            "resolved_sample": [_compact(r) for r in resolved[:SAMPLE]],
            "suppressed_sample": [
                _compact(r)
                for r in [
                    *silenced,
                    *t.filter(pc.equal(t.column("baseline"), "suppressed since baseline"))
                    .slice(0, SAMPLE)
                    .to_pylist(),
                ][:SAMPLE]
            ],
        }
    owners: dict[str, int] = {}
    per_owner = t.select(["owner"]).filter(is_open).group_by("owner").aggregate([([], "count_all")])
    for o, k in zip(*(per_owner.column(c).to_pylist() for c in ("owner", "count_all")), strict=True):
        owners[o or ""] = owners.get(o or "", 0) + k  # null and "" are one owner, ""
    extra["findings_by_owner"] = dict(sorted(owners.items(), key=lambda kv: (-kv[1], kv[0])))
    extra["owner_tag"] = owner_tag if isinstance(owner_tag, str) or owner_tag is None else list(owner_tag)
    extra["outputs"] = {**files, "report": "report.html", "findings_parquet": "findings/"}
    if report:
        write_report(local_dir / "report.html", {**summary, **extra}, findings=t)
    extra["outputs_seconds"] = round(time.perf_counter() - t0, 2)
    return extra


def _compact(row: dict) -> dict:
    return {
        k: row.get(k)
        for k in (
            "severity", "rule", "account", "region", "owner", "queue_arn", "consumer", "message", "fix",
            "suppressed_by",
        )
    }  # fmt: skip


def _write_diff(path: Path, t, resolved: list[dict], silenced: list[dict] = ()) -> None:
    """baseline-diff.csv: the new open findings, those suppressed since the baseline (a suppression added, or a
    rule turned off: not fixed) and the resolved ones."""
    import pyarrow.compute as pc

    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow((*DIFF_COLUMNS, "suppressed_by"))
        changed = pc.or_(
            pc.and_(pc.equal(t.column("baseline"), "new"), pc.equal(t.column("state"), "open")),
            pc.equal(t.column("baseline"), "suppressed since baseline"),
        )
        for row in _batches(t.filter(changed)):
            row["status"] = "new" if row["baseline"] == "new" else "suppressed"
            w.writerow([csv_cell(row.get(c)) for c in (*DIFF_COLUMNS, "suppressed_by")])
        for row in silenced:
            row = {**row, "status": "suppressed"}
            w.writerow([csv_cell(row.get(c)) for c in (*DIFF_COLUMNS, "suppressed_by")])
        for row in resolved:
            row = {**row, "status": "resolved", "state": "resolved"}
            w.writerow([csv_cell(row.get(c)) for c in (*DIFF_COLUMNS, "suppressed_by")])
    tmp.replace(path)
