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


def summarize(records, result, quarantine) -> dict:
    """Small aggregates collected to the driver (a handful of Spark actions over the two caches): the summary
    and every figure the report plots."""
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

    # findings by rule/account/severity, the queues' histogram bins and the orphan mappings: one pass
    ratio = Histogram(-2.0, 3.0, 25)
    dup = Histogram(-7.0, 0.0, 28)
    is_q = F.col("row_kind") == "q"
    rb = F.when(is_q & (F.col("ratio") > 0), ratio.bin(F.log10("ratio")))
    db = F.when(
        is_q & F.col("duplicate_rate").isNotNull(),
        dup.bin(F.log10(F.greatest(F.col("duplicate_rate"), F.lit(1e-7)))),
    )
    by_rule: dict[str, int] = {}
    by_sev = dict.fromkeys(SEVERITIES, 0)
    rule_account: dict[tuple[str, str], int] = {}
    suppressed: dict[str, int] = {}
    n_queues = with_findings = orphans = orphan_workers = observed = redelivering = 0
    grouped = result.select(
        "row_kind",
        ((F.col("row_kind") == "f") & F.col("suppressed").isNotNull()).alias("sup"),
        F.when(F.col("row_kind") == "f", F.col("rule")).alias("rule"),
        F.when(F.col("row_kind") == "f", F.col("account")).alias("account"),
        F.when(F.col("row_kind") == "f", F.col("severity")).alias("severity"),
        rb.alias("rb"),
        db.alias("db"),
        (is_q & (F.col("findings") > 0)).alias("hf"),
        (is_q & F.col("observed_rate").isNotNull()).alias("obs"),
        F.when(is_q & F.col("observed_rate").isNotNull(), F.col("observed_rate") >= 0.01).alias("redel"),
        F.coalesce(F.col("orphans"), F.lit(0)).alias("orphans"),
        F.coalesce(F.col("orphan_workers"), F.lit(0)).alias("orphan_workers"),
    )
    for r in (
        grouped.groupBy("row_kind", "sup", "rule", "account", "severity", "rb", "db", "hf", "obs", "redel")
        .agg(
            F.count(F.lit(1)).alias("count"),
            F.sum("orphans").alias("orphans"),
            F.sum("orphan_workers").alias("orphan_workers"),
        )
        .collect()
    ):
        if r["row_kind"] == "f" and r["sup"]:
            suppressed[r["rule"]] = suppressed.get(r["rule"], 0) + r["count"]
        elif r["row_kind"] == "f":
            by_rule[r["rule"]] = by_rule.get(r["rule"], 0) + r["count"]
            by_sev[r["severity"]] = by_sev.get(r["severity"], 0) + r["count"]
            key = (r["rule"], r["account"])
            rule_account[key] = rule_account.get(key, 0) + r["count"]
        elif r["row_kind"] == "q":
            n_queues += r["count"]
            with_findings += r["count"] if r["hf"] else 0
            ratio.add(r["rb"], r["count"])
            dup.add(r["db"], r["count"])
            observed += r["count"] if r["obs"] else 0
            redelivering += r["count"] if r["redel"] else 0
        else:
            orphans += int(r["orphans"] or 0)
            orphan_workers += int(r["orphan_workers"] or 0)
    # observation beats estimate: the observed redelivery rate where CloudWatch saw traffic, else the estimate
    riskiest = [
        _finite(r.asDict())
        for r in result.where(
            is_q & (F.col("duplicate_rate").isNotNull() | F.col("observed_rate").isNotNull())
        )
        # a rate over a handful of receives says little: queues with 1,000 receives or more first (VG042's "low")
        .orderBy(
            F.desc(F.coalesce(F.col("received") >= 1000, F.lit(True))),
            F.desc(F.coalesce("observed_rate", "duplicate_rate")),
            "arn",
        )
        .select(
            "account",
            "region",
            "arn",
            "name",
            "vt",
            "required_vt",
            "duplicate_rate",
            "observed_rate",
            "received",
            "deleted",
            "age_oldest",
            "findings",
            "worst",
        )  # fmt: skip
        .limit(25)
        .collect()
    ]
    return {
        "queues": n_queues,
        "queues_in_inventory": int(kinds.get("queue", 0)),
        "accounts": len(accounts),
        "partitions": int(kinds.get("partition", 0)),
        "mappings": int(kinds.get("mapping", 0)),
        "functions": int(kinds.get("function", 0)),
        "orphan_mappings": orphans,
        "workers": int(kinds.get("worker", 0)),
        "orphan_workers": orphan_workers,
        "queues_with_findings": with_findings,
        "findings": int(sum(by_rule.values())),
        "findings_by_rule": dict(sorted(by_rule.items())),
        "findings_by_severity": by_sev,
        "findings_by_rule_and_account": [
            {"rule": k[0], "account": k[1], "count": v} for k, v in sorted(rule_account.items())
        ],
        "errors": int(sum(error_codes.values())),
        "errors_by_code": dict(sorted(error_codes.items())),
        "error_samples": error_rows,
        "quarantined": int(sum(q_reasons.values())),
        "quarantine_reasons": dict(sorted(q_reasons.items())),
        "quarantine_samples": q_rows,
        "suppressed": int(sum(suppressed.values())),
        "suppressed_by_rule": dict(sorted(suppressed.items())),
        "queues_observed": observed,
        "queues_redelivering": redelivering,
        "ratio_histogram": ratio.as_dict(),
        "duplicate_rate_histogram": dup.as_dict(),
        "riskiest_queues": riskiest,
    }


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

    def bin(self, expr):
        from pyspark.sql import functions as F

        width = (self.hi - self.lo) / self.bins
        raw = F.floor((expr - F.lit(self.lo)) / F.lit(width))
        return F.least(F.greatest(raw, F.lit(0)), F.lit(self.bins - 1)).cast("int")

    def add(self, b, n: int) -> None:
        if b is not None:
            self.counts[b] += n

    def as_dict(self) -> dict:
        return {"lo": self.lo, "hi": self.hi, "bins": self.bins, "log10": True, "counts": self.counts}
