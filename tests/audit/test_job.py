"""The Spark audit job: exact findings on generated fleets (checked against a plain-Python reference of the
same parse and joins), quarantine, cross-account and qualified-ARN joins, and the output layout."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from visguard.audit import build, job

from . import reference

pytestmark = pytest.mark.slow


def spark_findings(spark, out) -> set[tuple]:
    # an explicit schema keeps the partition columns strings (inference would make account ids numbers)
    rows = spark.read.schema(job.finding_schema()).parquet(str(out / "findings")).collect()
    return {(r["queue_arn"], r["rule"], r["consumer"], r["message"], r["account"], r["region"]) for r in rows}


def reference_findings(inv) -> tuple[set[tuple], dict]:
    rows, quarantine = reference.joined_rows(str(inv))
    findings, _ = build.lint_rows(rows)
    return {
        (f["queue_arn"], f["rule"], f["consumer"], f["message"], f["account"], f["region"]) for f in findings
    }, quarantine


def test_generated_fleet_findings_match_the_reference(spark, audited):
    got = spark_findings(spark, audited["out"])
    want, _ = reference_findings(audited["inventory"])
    assert len(want) > 1000
    assert got == want
    # worker records joined to their queues (by ARN, and by another account's URL) are the consumers found
    consumers = {f[2] for f in got if f[1] in ("VG012", "VG020") and f[2]}
    assert any(":service/workers/" in c for c in consumers) and any(":pipe/" in c for c in consumers)
    rules = Counter(f[1] for f in got)
    # the generator plants every kind of defect the inventory can show
    for rule in (
        "VG001",
        "VG002",
        "VG003",
        "VG004",  # a redrive target in a collected account/region that no longer exists (drifted settings)
        "VG010",
        "VG011",
        "VG012",
        "VG020",
        "VG021",
        "VG022",
        "VG030",
        "VG031",
        "VG033",
        "VG042",  # observed redelivery from the generated CloudWatch evidence
    ):
        assert rules[rule] > 0, rule


def test_summary_counts(audited):
    s = audited["summary"]
    want, quarantine = reference_findings(audited["inventory"])
    assert s["quarantined"] == len(quarantine) > 0
    assert s["queues"] == 3000 - len(quarantine)
    assert s["accounts"] == 4 and s["errors"] == 0 and s["partitions"] == 12
    assert (
        s["findings"]
        == len(want)
        == sum(s["findings_by_rule"].values())
        == sum(s["findings_by_severity"].values())
    )
    assert s["findings_by_rule"] == dict(sorted(Counter(f[1] for f in want).items()))
    assert s["mappings"] == audited["counts"]["mappings"] and s["orphan_mappings"] >= 0
    # every worker record joins to its queue (by ARN, or by URL: account, region, name) unless that queue is
    # quarantined
    from visguard.audit import inventory

    recs = [r for _, _, r in inventory.iter_records(audited["inventory"])]
    arn_of = {q["url"]: q["arn"] for q in recs if q["kind"] == "queue"}
    lost = [w for w in recs if w["kind"] == "worker" and arn_of.get(w["queue"], w["queue"]) in quarantine]
    assert s["workers"] == audited["counts"]["workers"] > 0 and s["orphan_workers"] == len(lost)
    assert sum(s["ratio_histogram"]["counts"]) > 0 and sum(s["duplicate_rate_histogram"]["counts"]) > 0
    assert json.loads((audited["out"] / "summary.json").read_text())["findings"] == s["findings"]


def test_quarantine_table_names_every_malformed_queue(spark, audited):
    _, quarantine = reference_findings(audited["inventory"])
    rows = spark.read.parquet(str(audited["out"] / "quarantine")).collect()
    got = {r["arn"]: r["reason"] for r in rows}
    assert set(got) == set(quarantine)
    for arn, why in quarantine.items():
        assert got[arn].startswith(why), (arn, got[arn])
    assert all(r["file"].endswith(".jsonl") for r in rows)


def test_findings_are_partitioned_by_account_and_region(audited):
    parts = {(p.parent.name, p.name) for p in (audited["out"] / "findings").glob("account=*/region=*")}
    assert len(parts) == 12
    assert all(a.startswith("account=1") and r.startswith("region=") for a, r in parts)


A, B, C = "111111111111", "222222222222", "333333333333"


def _q(account, name, vt="100", retention="345600", redrive=None, **extra):
    arn = f"arn:aws:sqs:us-east-1:{account}:{name}"
    attrs = {"QueueArn": arn, "MessageRetentionPeriod": retention}
    if vt is not None:
        attrs["VisibilityTimeout"] = vt
    if redrive is not None:
        attrs["RedrivePolicy"] = redrive if isinstance(redrive, str) else json.dumps(redrive)
    if name.endswith(".fifo"):
        attrs["FifoQueue"] = "true"
    return {
        "kind": "queue",
        "account": account,
        "region": "us-east-1",
        "arn": arn,
        "name": name,
        "attributes": attrs,
        **extra,
    }


def _rp(account, name, mrc=5):
    return {"deadLetterTargetArn": f"arn:aws:sqs:us-east-1:{account}:{name}", "maxReceiveCount": mrc}


def _write(root, account, lines):
    from visguard.audit import inventory

    counts = Counter(json.loads(x)["kind"] if x.startswith("{") and '"kind"' in x else "queue" for x in lines)
    inventory.write_lines(
        root,
        account,
        "us-east-1",
        lines,
        {k: counts.get(k, 0) for k in ("queue", "mapping", "function")} | {"error": counts.get("error", 0)},
    )


def test_handcrafted_joins_quarantine_and_errors(spark, tmp_path):
    fn = f"arn:aws:lambda:us-east-1:{B}:function:worker"
    a_lines = [
        _q(A, "src", vt="100", redrive=_rp(A, "src-dlq")),
        _q(A, "src-dlq", retention="1209600", redrive=_rp(A, "src-dlq2", 10)),
        _q(A, "src-dlq2", retention="1209600"),
        _q(A, "other", vt="100", retention="1209600", redrive=_rp(A, "src-dlq2")),
        _q(A, "loop-a", vt="30", redrive=_rp(A, "loop-b", 5)),
        _q(A, "loop-b", vt="30", redrive=_rp(A, "loop-a", 5)),
        _q(A, "bad-json", redrive="{deadLetterTargetArn: x"),
        _q(A, "no-vt", vt=None),
        _q(A, "text-vt", vt="thirty"),
    ]
    b_lines = [
        # cross-account mapping, alias-qualified: only the unqualified function is on record (timeout 60)
        {"kind": "mapping", "account": B, "region": "us-east-1", "uuid": "m-src", "event_source_arn": a_lines[0]["arn"],
         "function_arn": fn + ":live", "state": "Enabled", "batch_size": 1, "batching_window": 0,
         "maximum_concurrency": None, "function_response_types": []},
        # version-qualified with its own record (timeout 200) next to the unqualified one (60): the exact one wins
        {"kind": "mapping", "account": B, "region": "us-east-1", "uuid": "m-other", "event_source_arn": a_lines[3]["arn"],
         "function_arn": fn + ":7", "state": "Enabled", "batch_size": 1, "batching_window": 0,
         "maximum_concurrency": None, "function_response_types": []},
        # a mapping whose queue is in no collected partition
        {"kind": "mapping", "account": B, "region": "us-east-1", "uuid": "m-orphan", "event_source_arn": f"arn:aws:sqs:us-east-1:{C}:gone",
         "function_arn": fn, "state": "Enabled", "batch_size": 1, "batching_window": 0,
         "maximum_concurrency": None, "function_response_types": []},
        {"kind": "function", "account": B, "region": "us-east-1", "arn": fn, "name": "worker", "timeout": 60},
        {"kind": "function", "account": B, "region": "us-east-1", "arn": fn + ":7", "name": "worker", "timeout": 200},
    ]  # fmt: skip
    _write(
        tmp_path,
        A,
        [json.dumps(x) for x in a_lines]
        + ["this is not json", '{"kind": "bogus", "account": "111111111111"}'],
    )
    _write(tmp_path, B, [json.dumps(x) for x in b_lines])
    err = {
        "kind": "error",
        "account": C,
        "region": "us-east-1",
        "operation": "sqs:ListQueues",
        "code": "AccessDenied",
        "message": "AccessDenied: no",
    }
    _write(tmp_path, C, [json.dumps(err)])

    out = tmp_path / "out"
    s = job.run(spark, str(tmp_path), str(out))
    got = {(f[0].rsplit(":", 1)[-1], f[1], f[2]) for f in spark_findings(spark, out)}
    assert got == {
        ("src", "VG011", "m-src"),  # 60 <= 100 < 6 x 60: the alias resolved to the unqualified function
        ("other", "VG010", "m-other"),  # 100 < 200: the version's own configuration was used
        ("loop-a", "VG023", None),  # loop-a -> loop-b -> loop-a, reported once
        # DLQs that keep messages no longer than their sources (both 14 days, or both 4 days)
        ("src-dlq", "VG022", None),  # chain: src -> src-dlq -> src-dlq2
        ("other", "VG022", None),
        ("loop-a", "VG022", None),
        ("loop-b", "VG022", None),
    }
    assert (s["quarantined"], s["errors"], s["errors_by_code"], s["orphan_mappings"]) == (
        5,
        1,
        {"AccessDenied": 1},
        1,
    )
    assert s["quarantine_reasons"] == {
        "RedrivePolicy is not a JSON object": 1,
        "attribute VisibilityTimeout is missing": 1,
        "VisibilityTimeout is not a number": 1,
        "not an inventory record": 2,
    }
    assert s["queues"] == 6 and s["accounts"] == 3


def test_redrive_loop_longer_than_a_rows_model_is_reported(spark, tmp_path):
    """w -> x -> y -> z -> w: no row's model (a queue, its DLQ, the DLQ's DLQ) holds the loop; the driver finds
    it and the lint stage adds VG023 to the loop's first queue, counted like any finding."""
    names = ["w", "x", "y", "z"]
    lines = [_q(A, n, retention="1209600", redrive=_rp(A, names[(i + 1) % 4])) for i, n in enumerate(names)]
    lines.append(_q(A, "feeder", redrive=_rp(A, "y")))  # a queue whose DLQ is on the loop
    _write(tmp_path, A, [json.dumps(x) for x in lines])
    out = tmp_path / "out"
    s = job.run(spark, str(tmp_path), str(out))
    loops = [f for f in spark_findings(spark, out) if f[1] == "VG023"]
    arn = f"arn:aws:sqs:us-east-1:{A}:"
    assert loops == [
        (arn + "w", "VG023", None, "redrive loop: " + " -> ".join(arn + n for n in "wxyzw"), A, "us-east-1")
    ]
    assert s["findings_by_rule"]["VG023"] == 1
    figures = {r["name"]: r["findings"] for r in spark.read.parquet(str(out / "queues")).collect()}
    assert figures["w"] == figures["x"] + 1  # the loop finding counts for its queue's figures too


def test_duplicate_records_are_counted_once_latest_wins(spark, tmp_path):
    """A DLQ record twice (and a queue, a mapping, a function twice): one row per identity through every join,
    the later record's values, and the duplicates counted in the summary; the reference agrees."""
    fn = f"arn:aws:lambda:us-east-1:{A}:function:w"
    mapping = {"kind": "mapping", "account": A, "region": "us-east-1", "uuid": "m1", "event_source_arn":
               f"arn:aws:sqs:us-east-1:{A}:src", "function_arn": fn, "state": "Enabled", "batch_size": 1,
               "batching_window": 0, "maximum_concurrency": None, "function_response_types": []}  # fmt: skip
    lines = [
        _q(A, "src", vt="100", redrive=_rp(A, "dlq")),
        _q(A, "dlq", retention="345600"),  # VG022 on src: DLQ retention not longer than the source's
        mapping,
        {"kind": "function", "account": A, "region": "us-east-1", "arn": fn, "name": "w", "timeout": 10},
        _q(A, "dlq", retention="345600"),  # the DLQ again, same values
        _q(A, "other", vt="5"),
        _q(A, "other", vt="50"),  # latest wins: 50
        mapping,
        {"kind": "function", "account": A, "region": "us-east-1", "arn": fn, "name": "w", "timeout": 60},
    ]
    _write(tmp_path, A, [json.dumps(x) for x in lines])
    out = tmp_path / "out"
    s = job.run(spark, str(tmp_path), str(out))
    got = sorted((f[0].rsplit(":", 1)[-1], f[1], f[2]) for f in spark_findings(spark, out))
    # 100 >= 60 (the later function record) but < 6 x 60: VG011 once, not twice; no VG010 from timeout 10
    assert got == [("src", "VG011", "m1"), ("src", "VG022", None)]
    assert s["findings"] == 2 and s["queues"] == 3 and s["queues_in_inventory"] == 3
    assert s["mappings"] == 1 and s["functions"] == 1
    assert s["duplicate_records"] == {"function": 1, "mapping": 1, "queue": 2}
    figures = {r["name"]: r for r in spark.read.parquet(str(out / "queues")).collect()}
    assert len(figures) == 3 and figures["other"]["vt"] == 50 and figures["src"]["findings"] == 2
    want, _ = reference_findings(tmp_path)
    assert {(f[0].rsplit(":", 1)[-1], f[1], f[2]) for f in want} == set(got)


def test_a_remote_out_is_written_by_spark_with_the_same_rows(spark, audited, tmp_path):
    """An ``--out`` that is a Hadoop URI (s3://, hdfs://; here file://) is written by Spark from the driver's
    tables (findings partitioned by account and region, queues/): the same rows as the local result's."""
    import pyarrow.dataset as ds

    out, report = tmp_path / "remote", tmp_path / "report"
    summary = job.run(spark, str(audited["inventory"]), out.as_uri(), str(report))
    assert summary["findings"] == audited["summary"]["findings"]
    assert (report / "summary.json").is_file() and (report / "findings.csv").is_file()
    assert spark_findings(spark, out) == spark_findings(spark, audited["out"])
    assert sorted(p.name.split("=")[0] for p in (out / "findings").iterdir() if p.is_dir()) == [
        "account"
    ] * len({f[4] for f in spark_findings(spark, out)})

    def queues(folder):
        return sorted(map(repr, ds.dataset(str(folder / "queues"), format="parquet").to_table().to_pylist()))

    assert queues(out) == queues(audited["out"])


def test_a_mappings_own_counts_reach_vg042_through_the_job(spark, tmp_path):
    """Issue 36 (fact-drift row L4): a mapping with MetricsConfig EventCount and its CloudWatch counts, and one
    without: the job carries both to VG042, which quotes the first's counts and tells the second how to turn
    them on; the plain-Python reference agrees."""
    fn = f"arn:aws:lambda:us-east-1:{A}:function:w"
    lines = []
    for name, uuid, cfg, esm in (
        ("seen", "m-on", ["EventCount"], {"polled": 30000.0, "failed": 5000.0, "deleted": 25000.0}),
        ("blind", "m-off", None, None),
    ):
        q = _q(A, name, vt="300", retention="1209600", redrive=_rp(A, "dlq"))
        q["metrics"] = {"received": 30000.0, "deleted": 25000.0, "age_oldest_max": 5.0}
        lines += [q, {"kind": "mapping", "account": A, "region": "us-east-1", "uuid": uuid, "event_source_arn":
                      q["arn"], "function_arn": fn, "state": "Enabled", "batch_size": 1, "batching_window": 0,
                      "maximum_concurrency": None, "function_response_types": [], "metrics_config": cfg,
                      "esm_metrics": esm}]  # fmt: skip
    lines += [
        _q(A, "dlq", retention="1209600"),
        {"kind": "function", "account": A, "region": "us-east-1", "arn": fn, "name": "w", "timeout": 30},
    ]
    _write(tmp_path, A, [json.dumps(x) for x in lines])
    out = tmp_path / "out"
    job.run(spark, str(tmp_path), str(out))
    got = {f[0].rsplit(":", 1)[-1]: f[3] for f in spark_findings(spark, out) if f[1] == "VG042"}
    assert "mapping m-on counted 30,000 polled, 5,000 failed to invoke, 25,000 deleted" in got["seen"]
    assert "--uuid m-off --metrics-config Metrics=EventCount" in got["blind"] and "m-on" not in got["blind"]
    ref, _ = reference_findings(tmp_path)
    assert {f for f in ref if f[1] == "VG042"} == {f for f in spark_findings(spark, out) if f[1] == "VG042"}


def test_managed_instances_durable_and_provisioned_mappings_through_the_job(spark, tmp_path):
    """Issue 36 (fact-drift rows L1, L7, L8): the job carries a function's capacity provider and durable execution
    timeout, and a mapping's provisioned pollers, to the rules. A Managed Instances function with a 3,600 s timeout
    on a 32,700 s queue gets no VG032 (its twin without a capacity provider does); a durable function's execution
    bound, not its 60 s timeout, is what its 400 s queue falls short of (VG011); a provisioned mapping that also sets
    MaximumConcurrency gets VG035. The plain-Python reference agrees on every finding."""
    fn = f"arn:aws:lambda:us-east-1:{A}:function:"
    cp = f"arn:aws:lambda:us-east-1:{A}:capacity-provider:fleet"
    lines: list[dict] = [_q(A, "dlq", retention="1209600")]
    for name, vt, timeout, function, mapping in (
        ("managed", "32700", 3600, {"capacity_provider": cp}, {}),
        ("plain", "32700", 3600, {}, {}),
        ("durable", "400", 60, {"durable_execution_timeout": 600}, {}),
        ("provisioned", "300", 30, {}, {"maximum_concurrency": 50, "min_pollers": 2, "max_pollers": 20}),
    ):
        q = _q(A, name, vt=vt, redrive=_rp(A, "dlq"))
        lines += [q, {"kind": "function", "account": A, "region": "us-east-1", "arn": fn + name, "name": name,
                      "timeout": timeout, **function},
                  {"kind": "mapping", "account": A, "region": "us-east-1", "uuid": f"m-{name}", "event_source_arn":
                   q["arn"], "function_arn": fn + name, "state": "Enabled", "batch_size": 10, "batching_window": 0,
                   "maximum_concurrency": None, "function_response_types": ["ReportBatchItemFailures"],
                   **mapping}]  # fmt: skip
    _write(tmp_path, A, [json.dumps(x) for x in lines])
    out = tmp_path / "out"
    job.run(spark, str(tmp_path), str(out))
    got = spark_findings(spark, out)
    by_queue = {}
    for f in got:
        by_queue.setdefault(f[0].rsplit(":", 1)[-1], {})[f[1]] = f[3]
    assert "VG032" not in by_queue.get("managed", {})
    assert "timeout 3600 s (60 min), outside 1-900 s" in by_queue["plain"]["VG032"]
    assert "600 s (10 min) a durable execution" in by_queue["durable"]["VG011"]
    assert "MaximumConcurrency 50 together with ProvisionedPollerConfig" in by_queue["provisioned"]["VG035"]
    ref, _ = reference_findings(tmp_path)
    assert ref == got
