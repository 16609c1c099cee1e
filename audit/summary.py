"""The audit's summary: small aggregates collected to the driver (the counts of summary.json and every figure the
report plots)."""

from __future__ import annotations

from visguard.audit.tables import SEVERITIES


def config_summary(config) -> dict | None:
    """What summary.json says about the visguard.yaml applied: the file, and its own findings (VG900 a
    suppression without a reason, VG901 an unknown rule), which count like findings for ``--fail-on``."""
    if config is None:
        return None
    from visguard.linter.api import _config_meta_findings

    return {
        "file": config.source_file,
        "suppressions": len(config.suppressions),
        "profiles": len(config.profiles),
        "findings": [
            {"rule": f.rule, "severity": f.severity.value, "message": f.message, "place": f.location.path}
            for f in _config_meta_findings(config)
        ],
    }


def summarize(records, quarantine, findings, figures, orphans: tuple[int, int] = (0, 0)) -> dict:
    """The summary and every figure the report plots: the inventory's counts from ``records`` and ``quarantine``
    (small Spark aggregates collected to the driver), the findings' and queues' from the driver's Arrow tables
    (``findings``: the findings/ rows, ``figures``: the queues/ rows); ``orphans``: (mappings, workers) of no
    known queue."""
    from pyspark.sql import functions as F
    from visguard.neutralize import scrub

    kinds: dict[str, int] = {}
    accounts: set[str] = set()
    error_codes: dict[str, int] = {}
    for r in records.where("json_ok").groupBy("kind", "account", "code").count().collect():
        kinds[r["kind"]] = kinds.get(r["kind"], 0) + r["count"]
        if r["account"] is not None:
            accounts.add(r["account"])
        if r["kind"] == "error":
            code = r["code"] or "?"
            error_codes[code] = error_codes.get(code, 0) + r["count"]
    error_rows = []
    if error_codes:
        errors = records.where(F.col("kind") == "error").select(
            "account", "region", "operation", "code", "message"
        )
        # an inventory from elsewhere may hold what the collector scrubs (credentials echoed by AWS)
        error_rows = [
            {k: scrub(v) if isinstance(v, str) else v for k, v in r.asDict().items()}
            for r in errors.orderBy("account", "region").limit(50).collect()
        ]

    q_reasons: dict[str, int] = {}
    for r in quarantine.groupBy(F.regexp_extract("reason", r"^([^:]*)", 1).alias("why")).count().collect():
        q_reasons[r["why"]] = r["count"]
    # the quarantined records by name (the first QUARANTINE_SAMPLE; all of them are in quarantine/)
    q_rows = []
    if q_reasons:
        q_rows = [
            {k: scrub(v) if isinstance(v, str) else v for k, v in r.asDict().items()}
            for r in quarantine.orderBy("account", "region", "arn", "file").limit(QUARANTINE_SAMPLE).collect()
        ]
    return {
        "queues_in_inventory": int(kinds.get("queue", 0)),
        "accounts": len(accounts),
        "partitions": int(kinds.get("partition", 0)),
        "mappings": int(kinds.get("mapping", 0)),
        "functions": int(kinds.get("function", 0)),
        "orphan_mappings": orphans[0],
        "workers": int(kinds.get("worker", 0)),
        "orphan_workers": orphans[1],
        "errors": int(sum(error_codes.values())),
        "errors_by_code": dict(sorted(error_codes.items())),
        "error_samples": error_rows,
        "quarantined": int(sum(q_reasons.values())),
        "quarantine_reasons": dict(sorted(q_reasons.items())),
        "quarantine_samples": q_rows,
        **result_summary(findings, figures),
    }


def result_summary(findings, figures) -> dict:
    """The counts of the findings (open by rule, severity, rule and account; suppressed by rule) and of the queues
    (with findings, observed, redelivering, the two histograms, the riskiest 25), from the Arrow tables on the
    driver (pyarrow and numpy: no Spark job)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    def counts(t, keys):
        if t.num_rows == 0:
            return []
        return t.group_by(keys).aggregate([([], "count_all")]).to_pylist()

    sup = findings.column("suppressed").is_valid()
    by_rule: dict[str, int] = {}
    by_sev = dict.fromkeys(SEVERITIES, 0)
    rule_account: dict[tuple[str, str], int] = {}
    for r in counts(
        findings.filter(pc.invert(sup)).select(["rule", "account", "severity"]),
        ["rule", "account", "severity"],
    ):
        n = r["count_all"]
        by_rule[r["rule"]] = by_rule.get(r["rule"], 0) + n
        by_sev[r["severity"]] = by_sev.get(r["severity"], 0) + n
        key = (r["rule"], r["account"])
        rule_account[key] = rule_account.get(key, 0) + n
    suppressed = {r["rule"]: r["count_all"] for r in counts(findings.filter(sup).select(["rule"]), ["rule"])}

    def floats(name):
        return pc.fill_null(pc.cast(figures.column(name), pa.float64()), np.nan).to_numpy(
            zero_copy_only=False
        )

    ratio, dup, obs = floats("ratio"), floats("duplicate_rate"), floats("observed_rate")
    ratio_h, dup_h = Histogram(-2.0, 3.0, 25), Histogram(-7.0, 0.0, 28)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio_h.add_all(np.log10(ratio[ratio > 0]))
        dup_h.add_all(np.log10(np.maximum(dup[~np.isnan(dup)], 1e-7)))
        redelivering = int(np.count_nonzero(obs >= 0.01))
    n_findings = pc.fill_null(pc.cast(figures.column("findings"), pa.int64()), 0)
    # observation beats estimate: the observed redelivery rate where CloudWatch saw traffic, else the estimate
    rated = figures.filter(
        pc.or_(figures.column("duplicate_rate").is_valid(), figures.column("observed_rate").is_valid())
    )
    # a rate over a handful of receives says little: queues with 1,000 receives or more first (VG042's "low")
    rated = rated.append_column(
        "_low", pc.fill_null(pc.less(rated.column("received"), 1000.0), False)
    ).append_column(
        "_rate", pc.negate(pc.coalesce(rated.column("observed_rate"), rated.column("duplicate_rate")))
    )
    top = rated.sort_by([("_low", "ascending"), ("_rate", "ascending"), ("arn", "ascending")]).slice(0, 25)
    riskiest = [_finite(r) for r in top.select(list(RISKIEST_COLUMNS)).to_pylist()]
    return {
        "owners": owner_counts(figures),
        "queues": figures.num_rows,
        "queues_with_findings": int(pc.sum(pc.greater(n_findings, 0)).as_py() or 0),
        "findings": int(sum(by_rule.values())),
        "findings_by_rule": dict(sorted(by_rule.items())),
        "findings_by_severity": by_sev,
        "findings_by_rule_and_account": [
            {"rule": k[0], "account": k[1], "count": v} for k, v in sorted(rule_account.items())
        ],
        "suppressed": int(sum(suppressed.values())),
        "suppressed_by_rule": dict(sorted(suppressed.items())),
        "queues_observed": int(np.count_nonzero(~np.isnan(obs))),
        "queues_redelivering": redelivering,
        "ratio_histogram": ratio_h.as_dict(),
        "duplicate_rate_histogram": dup_h.as_dict(),
        "riskiest_queues": riskiest,
    }


def owner_counts(figures) -> dict[str, int]:
    """Queues by who deployed them (issue 39 §1): the ``iac_owner`` of their figures; ``unknown`` for a queue no
    owner record names (created by hand, or by a tool the collector does not read)."""

    out = {"cloudformation": 0, "terraform": 0, "unknown": figures.num_rows}
    if "iac_owner" not in figures.column_names or figures.num_rows == 0:
        return out
    for r in figures.select(["iac_owner"]).group_by("iac_owner").aggregate([([], "count_all")]).to_pylist():
        if r["iac_owner"] in ("cloudformation", "terraform"):
            out[r["iac_owner"]] += r["count_all"]
    out["unknown"] = figures.num_rows - out["cloudformation"] - out["terraform"]
    return out


RISKIEST_COLUMNS = (
    "account", "region", "arn", "name", "vt", "required_vt", "duplicate_rate", "observed_rate", "received",
    "deleted", "age_oldest", "findings", "worst",
)  # fmt: skip


QUARANTINE_SAMPLE = 100  # quarantined records named in summary.json and the report


def _finite(row: dict) -> dict:
    """JSON has no infinity: an observed rate of messages received and none deleted is null with ``none_deleted``."""
    if row.get("observed_rate") == float("inf"):
        return {**row, "observed_rate": None, "none_deleted": True}
    return row


class Histogram:
    """Equal bins over [lo, hi] of a log10 value; values outside land in the end bins."""

    def __init__(self, lo: float, hi: float, bins: int):
        self.lo, self.hi, self.bins = lo, hi, bins
        self.counts = [0] * bins

    def add_all(self, values) -> None:
        """Count every value of a numpy array (finite or infinite; none NaN)."""
        import numpy as np

        width = (self.hi - self.lo) / self.bins
        with np.errstate(invalid="ignore"):
            raw = np.floor((values - self.lo) / width)
        b = np.clip(np.nan_to_num(raw, nan=0.0, posinf=self.bins - 1, neginf=0.0), 0, self.bins - 1)
        for i, n in enumerate(np.bincount(b.astype(np.int64), minlength=self.bins).tolist()):
            self.counts[i] += n

    def as_dict(self) -> dict:
        return {"lo": self.lo, "hi": self.hi, "bins": self.bins, "log10": True, "counts": self.counts}
