"""The team's own rules in the audit: visguard.yaml (settings, severities, suppressions by ARN/name glob, account
and tag, consumer profiles), --fail-on exit codes, the owner column and the audit's wording of findings."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from visguard.audit import job, wording
from visguard.linter.model import Change, Finding, Location, Queue, Redrive, Severity

from .test_job import _q, _rp, _write

A, B = "111111111111", "222222222222"
CONFIG = """\
version: 1
settings:
  lambda_multiplier: 6
rules:
  VG022: off
  VG031: error
suppressions:
  - rule: VG020
    queue: "arn:aws:sqs:*:111111111111:legacy-*"
    reason: retired next quarter
  - rule: VG020
    account: "2222*"
    tags: {env: sandbox}
    reason: sandbox account, nothing important
  - rule: VG031
    queue: nothing-matches-this
profiles:
  - match: reports
    p50: 40
    p99: 200
"""


def _mapping(uuid, queue_arn, fn, batch=1):
    return {"kind": "mapping", "account": A, "region": "us-east-1", "uuid": uuid, "event_source_arn": queue_arn,
            "function_arn": fn, "state": "Enabled", "batch_size": batch, "batching_window": 0,
            "maximum_concurrency": None, "function_response_types": []}  # fmt: skip


@pytest.fixture(scope="module")
def configured(spark, tmp_path_factory):
    root = tmp_path_factory.mktemp("configured")
    inv = root / "inventory"
    fn = f"arn:aws:lambda:us-east-1:{A}:function:worker"
    orders = _q(A, "orders", vt="100", redrive=_rp(A, "orders-dlq"),
                tags={"team": "payments", "aws:cloudformation:stack-name": "orders-prod",
                      "aws:cloudformation:logical-id": "OrdersQueue"})  # fmt: skip
    a_lines = [
        orders,
        _q(A, "orders-dlq", retention="345600"),  # VG022 (off in the config)
        _q(A, "legacy-export", tags={"visguard:consumer": "worker", "owner": "data"}),  # VG020, suppressed
        _q(A, "reports", vt="60", tags={"visguard:consumer": "worker"}),  # p99 200 from the profile: VG012
        _mapping("m-orders", orders["arn"], fn, batch=10),  # VG010 (100 < 200) and VG031 (batch 10, error)
        {
            "kind": "function",
            "account": A,
            "region": "us-east-1",
            "arn": fn,
            "name": "worker",
            "timeout": 200,
        },
    ]
    b_lines = [
        _q(B, "sandbox-q", tags={"visguard:consumer": "worker", "env": "sandbox"}),  # VG020 suppressed (tag)
        _q(B, "prod-q", tags={"visguard:consumer": "worker", "env": "prod", "owner": "core"}),  # VG020 stays
    ]
    _write(inv, A, [json.dumps(x) for x in a_lines])
    _write(inv, B, [json.dumps(x) for x in b_lines])
    cfg_file = root / "visguard.yaml"
    cfg_file.write_text(CONFIG)
    from visguard.linter.loaders import load_config

    out = root / "out"
    summary = job.run(spark, str(inv), str(out), config=load_config(str(cfg_file)))
    rows = spark.read.schema(job.finding_schema()).parquet(str(out / "findings")).collect()
    return {"summary": summary, "rows": [r.asDict() for r in rows], "inv": inv, "cfg": cfg_file, "out": out}


@pytest.mark.slow  # Spark
def test_config_is_applied_in_the_job(configured):
    got = sorted(
        (r["queue_name"], r["rule"], r["severity"]) for r in configured["rows"] if not r["suppressed"]
    )
    assert got == [
        ("orders", "VG010", "error"),
        ("orders", "VG031", "error"),  # severity override
        ("prod-q", "VG020", "warning"),
        ("reports", "VG012", "warning"),  # the profile's p99
        ("reports", "VG020", "warning"),
    ]
    # suppressed findings are kept, marked with the suppression's reason (a suppression is not a fix)
    hidden = sorted(
        (r["queue_name"], r["rule"], r["suppressed"]) for r in configured["rows"] if r["suppressed"]
    )
    assert hidden == [
        ("legacy-export", "VG020", "retired next quarter"),
        ("sandbox-q", "VG020", "sandbox account, nothing important"),
    ]
    s = configured["summary"]
    assert s["findings"] == 5 and s["suppressed"] == 2
    assert s["config"]["suppressions"] == 3 and s["config"]["profiles"] == 1
    # the suppression without a reason is reported (VG900) and not applied
    assert [f["rule"] for f in s["config"]["findings"]] == ["VG900"]


@pytest.mark.slow  # Spark
def test_owner_column_from_tags(configured):
    owners = {r["queue_name"]: r["owner"] for r in configured["rows"] if not r["suppressed"]}
    assert owners == {"orders": "payments", "prod-q": "core", "reports": None}
    figures = {r["name"]: r["owner"] for r in configured_figures(configured)}
    assert figures["legacy-export"] == "data" and figures["sandbox-q"] is None
    assert configured["summary"]["owner_tags"] == ["owner", "team"]


def configured_figures(c):
    import pyarrow.parquet as pq

    return pq.read_table(str(c["out"] / "queues")).to_pylist()


@pytest.mark.slow  # Spark
def test_audit_wording(configured):
    vg010 = next(r for r in configured["rows"] if r["rule"] == "VG010")
    assert "creating the event source mapping fails" not in vg010["message"]
    assert "the mapping exists" in vg010["message"]
    assert (
        f"API: SetQueueAttributes VisibilityTimeout=1200 on arn:aws:sqs:us-east-1:{A}:orders." in vg010["fix"]
    )
    assert "CloudFormation stack orders-prod (logical id OrdersQueue): change it there" in vg010["fix"]
    vg031 = next(r for r in configured["rows"] if r["rule"] == "VG031")
    assert (
        "UpdateEventSourceMapping UUID=m-orders FunctionResponseTypes=ReportBatchItemFailures" in vg031["fix"]
    )


def _cli(*args, env=None):
    return subprocess.run(
        [sys.executable, "-P", "-m", "visguard", "audit", "run", *args],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "VISGUARD_SPARK_CDS": "0", **(env or {})},
    )


def test_bad_config_is_one_line_before_spark_starts(tmp_path):
    inv = tmp_path / "inv"
    _write(inv, A, [json.dumps(_q(A, "q"))])
    bad = tmp_path / "visguard.yaml"
    bad.write_text("version: 1\nrules:\n  VG999x: error\n")
    r = _cli("--inventory", str(inv), "--out", str(tmp_path / "out"), "--config", str(bad))
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and str(bad) in r.stderr, r.stderr
    r = _cli("--inventory", str(inv), "--out", str(tmp_path / "out"), "--fail-on", "sometimes")
    assert r.returncode == 1 and "--fail-on" in r.stderr and not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("severities", "config_findings", "fail_on", "code"),
    [
        ({"error": 1, "warning": 0, "info": 0}, [], "error", 2),
        ({"error": 0, "warning": 5, "info": 0}, [], "error", 0),
        ({"error": 0, "warning": 5, "info": 0}, [], "warning", 2),
        ({"error": 0, "warning": 0, "info": 1}, [], "warning", 0),
        ({"error": 0, "warning": 0, "info": 1}, [], "info", 2),
        ({"error": 9, "warning": 9, "info": 9}, [], "never", 0),
        ({"error": 0, "warning": 0, "info": 0}, [{"severity": "warning"}], "warning", 2),
        ({"error": 0, "warning": 0, "info": 0}, [], "info", 0),
    ],
)
def test_fail_on_exit_codes(severities, config_findings, fail_on, code):
    summary = {"findings_by_severity": severities, "config": {"findings": config_findings}}
    assert job.exit_code(summary, fail_on) == code


def _queue(tags=None, redrive=None):
    arn = f"arn:aws:sqs:us-east-1:{A}:q"
    return Queue(id=arn, location=Location("x"), arn=arn, name="q", tags=tags or {}, redrive=redrive)


def _finding(rule, fix, message="m", consumer=None):
    return Finding(rule, Severity.WARNING, message, "q", Location("x"), fix=fix, consumer=consumer)


def _q_change(field, value, target=f"arn:aws:sqs:us-east-1:{A}:q"):
    return (Change("queue", target, field, value),)


@pytest.mark.parametrize(
    ("rule", "changes", "queue_kw", "want"),
    [
        (
            "VG011",
            _q_change("visibility_timeout", 360),
            {},
            "API: SetQueueAttributes VisibilityTimeout=360 on",
        ),
        ("VG012", _q_change("visibility_timeout", 91.0), {}, "VisibilityTimeout=91 on arn:"),
        (
            "VG020",
            _q_change("redrive", {"id": "x", "max_receive_count": 5, "retention": 1209600}),
            {},
            "API: CreateQueue QueueName=q-dlq MessageRetentionPeriod=1209600; then SetQueueAttributes RedrivePolicy="
            f'\'{{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:{A}:q-dlq","maxReceiveCount":5}}\'',
        ),
        (
            "VG021",
            _q_change("redrive.max_receive_count", 5),
            {"redrive": Redrive("arn:dlq", "arn:dlq", 2)},
            '{"deadLetterTargetArn":"arn:dlq","maxReceiveCount":5}',
        ),
        ("VG011", (), {}, None),  # no structured change: no command made up from the sentence
        ("VG020", (), {"tags": {"ManagedBy": "Terraform"}}, "Managed by Terraform: change it there"),
        ("VG020", (), {"tags": {"aws:cloudformation:stack-name": "s1"}}, "CloudFormation stack s1:"),
    ],
)
def test_wording_table(rule, changes, queue_kw, want):
    fix = "Set VisibilityTimeout to at least 360 s (6 min)."  # words never decide the command
    f = wording.audit_finding(_finding(rule, fix).replace(changes=changes), _queue(**queue_kw))
    assert f.fix.startswith(fix)
    if want is None:
        assert f.fix == fix
    else:
        assert want in f.fix


def test_wording_leaves_other_findings_alone():
    f = _finding("VG050", "Lint the stack that defines the function too.")
    assert wording.audit_finding(f, _queue()) is f
