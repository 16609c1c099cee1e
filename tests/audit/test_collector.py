"""The collector end to end over HTTP against moto's server: an Organization of four accounts, AssumeRole into
each, two regions; then faults (throttling, AccessDenied, a killed run)."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from visguard.audit import collector, inventory
from visguard.audit.permissions import COLLECTOR_ACTIONS

from . import faults, fleet

pytestmark = pytest.mark.slow
logging.getLogger("werkzeug").setLevel(logging.ERROR)


@pytest.fixture(scope="module")
def org(moto_endpoint):
    return fleet.build(moto_endpoint)


def options(endpoint, out, **kw) -> collector.Options:
    base = {
        "organization": True,
        "role_name": fleet.ROLE,
        "regions": list(fleet.REGIONS),
        "endpoint_url": endpoint,
        "out": str(out),
        "progress": False,
        "max_attempts": 4,
    }
    base.update(kw)
    return collector.Options(**base)


def records(root) -> list[dict]:
    out = []
    for _, _, rec in inventory.iter_records(root):
        assert isinstance(rec, dict)
        out.append(rec)
    return out


def content(root) -> list[str]:
    """Inventory content without per-run values (mapping UUIDs are stable; nothing else varies)."""
    return sorted(json.dumps(r, sort_keys=True) for r in records(root))


@pytest.fixture(scope="module")
def clean_run(org, moto_endpoint, tmp_path_factory):
    out = tmp_path_factory.mktemp("inventory-clean")
    rec = faults.Recorder()
    stats = collector.collect(options(moto_endpoint, out, metrics=True, client_hook=rec))
    return out, stats, rec


def test_collects_every_account_and_region(clean_run, org):
    out, stats, _ = clean_run
    assert stats.partitions == 8 and stats.errors == 0 and stats.skipped == 0
    assert stats.queues == 14 and stats.mappings == 5 and stats.functions == 5 and stats.workers == 2
    files = {(p.parent.name, p.stem) for p in inventory.partition_files(out)}
    assert files == {(a, r) for a in org for r in fleet.REGIONS}
    recs = records(out)
    assert inventory.validate_records(recs) == []
    by_name = {r["name"]: r for r in recs if r["kind"] == "queue"}
    assert by_name["orders"]["attributes"]["VisibilityTimeout"] == "30"
    assert json.loads(by_name["orders"]["attributes"]["RedrivePolicy"])["maxReceiveCount"] == 5
    assert by_name["reports"]["tags"]["visguard:processing-p99"] == "120"
    # ListDeadLetterSourceQueues is called for DLQs and names their sources
    assert [u.rsplit("/", 1)[-1] for u in by_name["orders-dlq"]["dlq_sources"]] == ["orders"]
    assert by_name["orders"]["dlq_sources"] is None
    fn = {r["name"]: r for r in recs if r["kind"] == "function"}
    assert fn["fn-rc"]["reserved_concurrency"] == 2 and fn["fn-orders"]["timeout"] == 60
    assert all(r["metrics"] is not None for r in by_name.values())  # --metrics filled them (moto: no data)
    workers = {r["name"]: r for r in recs if r["kind"] == "worker"}
    assert (workers["reports-worker"]["queue"], workers["reports-worker"]["link_ref"]) == (
        by_name["reports"]["arn"], "REPORTS_QUEUE_URL",
    )  # fmt: skip
    assert (workers["ingest-pipe"]["queue"], workers["ingest-pipe"]["work_timeout"]) == (
        by_name["ingest"]["arn"],
        10,
    )


def test_no_credentials_in_inventory(clean_run):
    out, _, _ = clean_run
    text = "".join(p.read_text() for p in inventory.partition_files(out))
    for secret_field in ("SecretAccessKey", "SessionToken", "AccessKeyId", "testing"):
        assert secret_field not in text


def test_permissions_cover_exactly_the_calls(clean_run, moto_endpoint, tmp_path, org):
    _, _, rec = clean_run
    # one more run with --regions all for the management account: EC2 DescribeRegions
    rec_all = faults.Recorder()
    collector.collect(
        options(
            moto_endpoint, tmp_path, organization=False, accounts=[org[0]], regions="all", client_hook=rec_all
        )
    )
    # and one over an account with CloudFormation stacks, with --templates: ListStackResources, GetTemplate
    from . import stacks

    stacks.build(moto_endpoint)
    rec_stacks = faults.Recorder()
    collector.collect(
        options(
            moto_endpoint, tmp_path / "stacks", organization=False, accounts=[stacks.ACCOUNT],
            regions=[stacks.REGION], templates=True, client_hook=rec_stacks,
        )
    )  # fmt: skip
    member_calls = {
        action for account, action in rec.calls | rec_all.calls | rec_stacks.calls if account is not None
    }
    assert member_calls == set(COLLECTOR_ACTIONS)
    caller_calls = {action for account, action in rec.calls if account is None}
    assert caller_calls == {"organizations:ListAccounts", "sts:AssumeRole", "sts:GetCallerIdentity"}


def test_rerun_skips_finished_partitions(clean_run, moto_endpoint):
    out, _, _ = clean_run
    before = {p: p.stat().st_mtime_ns for p in inventory.partition_files(out)}
    rec = faults.Recorder()
    stats = collector.collect(options(moto_endpoint, out, client_hook=rec))
    assert stats.skipped == 8 and stats.queues == 0
    assert {p: p.stat().st_mtime_ns for p in inventory.partition_files(out)} == before
    assert not {a for acc, a in rec.calls if acc is not None}  # nothing was read again


def test_throttling_is_retried_and_completes(clean_run, moto_endpoint, tmp_path):
    throttle = faults.Throttle(every=3)
    stats = collector.collect(
        options(moto_endpoint, tmp_path, metrics=True, client_hook=throttle, queue_workers=1)
    )
    assert throttle.injected >= 20  # a third of the SQS and Lambda requests failed once
    assert stats.errors == 0 and stats.queues == 14
    assert content(tmp_path) == content(clean_run[0])


def test_exhausted_throttling_and_access_denied_become_error_records(org, moto_endpoint, tmp_path):
    b, c = org[1], org[2]
    hook = faults.chain(faults.Deny(c), faults.Throttle(account=b, services=("lambda",), always=True))
    stats = collector.collect(options(moto_endpoint, tmp_path, client_hook=hook, max_attempts=2))
    errors = [r for r in records(tmp_path) if r["kind"] == "error"]
    assert sorted((e["account"], e["region"], e["code"], e["operation"]) for e in errors) == sorted(
        [(c, r, "AccessDenied", "sqs:ListQueues") for r in fleet.REGIONS]
        + [(b, r, "Throttled", "lambda:ListEventSourceMappings") for r in fleet.REGIONS]
    )
    assert stats.errors == 4
    # the other accounts completed; the failed partitions hold only their error record
    queues = [r for r in records(tmp_path) if r["kind"] == "queue"]
    assert {q["account"] for q in queues} == {org[0], org[3]}
    assert not inventory.is_complete(tmp_path, c, "us-east-1") and inventory.is_complete(
        tmp_path, org[3], "us-east-1"
    )
    # a re-run without the faults retries exactly the failed partitions and completes them
    stats = collector.collect(options(moto_endpoint, tmp_path))
    assert stats.skipped == 4 and stats.errors == 0 and stats.queues == 10  # B: 8, C: 2


def test_killed_collector_resumes_without_duplicates(org, moto_endpoint, tmp_path):
    regions = ["us-east-1", "eu-west-1", "us-west-2", "eu-central-1", "ap-southeast-2", "sa-east-1"]
    cmd = [
        str(Path(sys.executable).with_name("visguard")), "audit", "collect", "--organization", "--role-name", fleet.ROLE,
        "--regions", ",".join(regions), "--endpoint-url", moto_endpoint, "--out", str(tmp_path),
        "--workers", "1", "--queue-workers", "1", "--quiet",
    ]  # fmt: skip
    env = {
        **os.environ,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while (
        len(inventory.partition_files(tmp_path)) < 3 and time.monotonic() < deadline and proc.poll() is None
    ):
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done_before = {p: p.stat().st_mtime_ns for p in inventory.partition_files(tmp_path)}
    total = len(org) * len(regions)
    assert 3 <= len(done_before) < total, proc.stderr.read().decode()
    stats = collector.collect(options(moto_endpoint, tmp_path, regions=regions))
    assert stats.skipped == len(done_before) and stats.partitions == total and stats.errors == 0
    assert {p: p.stat().st_mtime_ns for p in done_before} == done_before  # finished files were not rewritten
    arns = [r["arn"] for r in records(tmp_path) if r["kind"] == "queue"]
    assert len(arns) == len(set(arns)) == 14
    assert not list(tmp_path.glob("*/.*.tmp"))


def test_cli_rejects_bad_account_ids(tmp_path):
    from visguard.cli import main

    assert main(["audit", "collect", "--accounts", "12", "--out", str(tmp_path)]) == 1


def test_metric_queries_batch_and_units():
    class FakeCW:
        def __init__(self):
            self.calls = []

        def get_metric_data(self, MetricDataQueries, **kw):  # noqa: N803 - boto3's parameter name
            self.calls.append(len(MetricDataQueries))
            res = []
            for q in MetricDataQueries:
                v = {"r": [100.0], "d": [90.0], "a": [5.0, 30.0], "0": [1500.0], "9": [4500.0]}[q["Id"][-1]]
                res.append({"Id": q["Id"], "Values": v})
            return {"MetricDataResults": res}

    queues = [{"kind": "queue", "name": f"q{i}", "metrics": None} for i in range(200)]
    fns = [
        {"kind": "function", "name": "fn", "arn": "arn:aws:lambda:us-east-1:111111111111:function:fn:live"}
    ]
    cw = FakeCW()
    calls = collector.add_metrics(cw, queues, fns)
    assert cw.calls == [500, 102] and calls == 2  # 602 queries in batches of at most 500
    assert queues[7]["metrics"] == {"received": 100.0, "deleted": 90.0, "age_oldest_max": 30.0}
    assert fns[0]["duration_p50"] == 1.5 and fns[0]["duration_p99"] == 4.5  # milliseconds -> seconds
    dims = collector.metric_queries([], fns)[0][2]["MetricStat"]["Metric"]["Dimensions"]
    assert {"Name": "Resource", "Value": "fn:live"} in dims


def test_collect_then_audit_reports_exactly_the_planted_defects(clean_run, spark, tmp_path):
    from visguard.audit import job

    s = job.run(spark, str(clean_run[0]), str(tmp_path))
    rows = spark.read.schema(job.finding_schema()).parquet(str(tmp_path / "findings")).collect()
    assert {(r["rule"], r["queue_name"]) for r in rows} == fleet.EXPECTED
    assert len(rows) == len(fleet.EXPECTED) == s["findings"]
    assert (s["queues"], s["accounts"], s["partitions"], s["mappings"], s["functions"]) == (14, 4, 8, 5, 5)
    assert (s["errors"], s["quarantined"], s["orphan_mappings"]) == (0, 0, 0)
    assert s["findings_by_severity"] == {"error": 2, "warning": 10, "info": 0}
    assert s["findings_by_rule"]["VG020"] == 3


def test_audit_counts_collector_errors(org, moto_endpoint, spark, tmp_path):
    from visguard.audit import job

    inv = tmp_path / "inventory"
    collector.collect(options(moto_endpoint, inv, client_hook=faults.Deny(org[2])))
    s = job.run(spark, str(inv), str(tmp_path / "out"))
    assert (s["errors"], s["errors_by_code"]) == (2, {"AccessDenied": 2})
    assert (
        s["queues"] == 12 and s["findings"] == len(fleet.EXPECTED) - 1
    )  # C's VG030 on thumbnails is unknowable
    assert {e["account"] for e in s["error_samples"]} == {org[2]}


def test_error_records_classify_failures_without_secrets():
    from botocore.exceptions import ClientError, EndpointConnectionError

    def ce(code):
        return ClientError({"Error": {"Code": code, "Message": "m"}}, "ListQueues")

    cases = {
        "AccessDenied": ce("AccessDenied"),
        "Throttled": ce("RequestThrottled"),
        "RegionDisabled": ce("UnrecognizedClientException"),
    }
    for want, exc in cases.items():
        rec = collector.error_record("111111111111", "ap-east-1", "sqs:ListQueues", exc)
        assert rec["code"] == want and inventory.validate_records([rec]) == []
    rec = collector.error_record(
        "111111111111",
        "me-south-1",
        "sqs:ListQueues",
        EndpointConnectionError(endpoint_url="https://sqs.me-south-1.amazonaws.com/"),
    )
    # an endpoint that does not answer is a connection failure, not a disabled region
    assert rec["code"] == "ConnectionFailed" and "me-south-1" in rec["message"]


# ---------------------------------------------------------------------------------------------- ESM metrics
# issue 36, fact-drift row L4: a mapping's MetricsConfig, and its own CloudWatch counts where EventCount is on
def test_mapping_metrics_config_is_collected_and_only_those_mappings_are_queried(clean_run):
    out, _, _ = clean_run
    mappings = {r["event_source_arn"].rsplit(":", 1)[-1]: r for r in records(out) if r["kind"] == "mapping"}
    assert mappings["thumbnails"]["metrics_config"] == ["EventCount"]
    # queried (moto has no data points for it: every count None, not 0)
    assert mappings["thumbnails"]["esm_metrics"] == {"polled": None, "failed": None, "deleted": None}
    others = [m for name, m in mappings.items() if name != "thumbnails"]
    assert others and all(m["metrics_config"] is None and m["esm_metrics"] is None for m in others)
    assert inventory.validate_records(list(mappings.values())) == []


def test_esm_metric_queries_parse_into_the_mapping():
    from visguard import facts

    class FakeCW:
        def get_metric_data(self, MetricDataQueries, **kw):  # noqa: N803 - boto3's parameter name
            self.queries = MetricDataQueries
            v = {"polled": 1000.0, "failed": 40.0, "deleted": 960.0}
            return {"MetricDataResults": [{"Id": q["Id"], "Values": [v[q["Id"].split("_", 1)[1]]]}
                                          for q in MetricDataQueries]}  # fmt: skip

    on = {"kind": "mapping", "uuid": "u-on", "metrics_config": ["EventCount"], "esm_metrics": None}
    off = {"kind": "mapping", "uuid": "u-off", "metrics_config": None, "esm_metrics": None}
    empty = {"kind": "mapping", "uuid": "u-empty", "metrics_config": [], "esm_metrics": None}
    cw = FakeCW()
    assert collector.add_metrics(cw, [], [], mappings=[off, on, empty]) == 1
    assert on["esm_metrics"] == {"polled": 1000.0, "failed": 40.0, "deleted": 960.0}
    assert off["esm_metrics"] is None and empty["esm_metrics"] is None  # never queried
    metrics = [q["MetricStat"]["Metric"] for q in cw.queries]
    assert {m["MetricName"] for m in metrics} == set(facts.ESM_METRICS.values())
    assert all(m["Namespace"] == "AWS/Lambda" and m["Dimensions"] == [
        {"Name": "EventSourceMappingUUID", "Value": "u-on"}] for m in metrics)  # fmt: skip
    assert {q["MetricStat"]["Stat"] for q in cw.queries} == {"Sum"}


def test_esm_counts_published_in_cloudwatch_reach_the_inventory(org, moto_endpoint, tmp_path):
    # last in this module: it adds data points that later collections would see
    from datetime import UTC, datetime, timedelta

    s = fleet.session_for(moto_endpoint, org[2])
    lam = s.client("lambda", endpoint_url=moto_endpoint)
    (uuid,) = [m["UUID"] for m in lam.list_event_source_mappings()["EventSourceMappings"]
               if m["EventSourceArn"].endswith(":thumbnails")]  # fmt: skip
    cw = s.client("cloudwatch", endpoint_url=moto_endpoint)
    at = datetime.now(UTC) - timedelta(hours=1)
    dims = [{"Name": "EventSourceMappingUUID", "Value": uuid}]
    cw.put_metric_data(Namespace="AWS/Lambda", MetricData=[
        {"MetricName": name, "Dimensions": dims, "Timestamp": at, "Value": value, "Unit": "Count"}
        for name, value in (("PolledEventCount", 500.0), ("FailedInvokeEventCount", 25.0), ("DeletedEventCount", 475.0))
    ])  # fmt: skip
    collector.collect(options(moto_endpoint, tmp_path, metrics=True))
    (m,) = [r for r in records(tmp_path) if r["kind"] == "mapping" and r["uuid"] == uuid]
    assert m["esm_metrics"] == {"polled": 500.0, "failed": 25.0, "deleted": 475.0}
