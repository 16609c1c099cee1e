"""AuditRole's policy and trust, and the sample app synthesized by the real CDK CLI (npx cdk synth)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def role_template(cdk):
    from aws_cdk import App, Stack
    from aws_cdk.assertions import Template
    from visguard.constructs import AuditRole

    app = App()
    st = Stack(app, "Audit")
    AuditRole(st, "Collector", audit_account_id="444455556666", external_id="ext-123")
    org = Stack(app, "Org")
    AuditRole(org, "Collector", audit_account_id="444455556666", organization=True)
    return Template.from_stack(st), Template.from_stack(org)


def test_audit_role_grants_exactly_the_collector_actions(role_template):
    from visguard.audit.permissions import COLLECTOR_ACTIONS

    (role,) = role_template[0].find_resources("AWS::IAM::Role").values()
    (policy,) = role["Properties"]["Policies"]
    (stmt,) = policy["PolicyDocument"]["Statement"]
    assert stmt["Effect"] == "Allow" and stmt["Resource"] == "*"
    assert sorted(stmt["Action"]) == sorted(COLLECTOR_ACTIONS)
    assert not role_template[0].find_resources("AWS::IAM::Policy")  # no other grants
    assert role["Properties"].get("ManagedPolicyArns") is None


def test_audit_role_trusts_the_audit_account_with_external_id(role_template):
    (role,) = role_template[0].find_resources("AWS::IAM::Role").values()
    (trust,) = role["Properties"]["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Action"] == "sts:AssumeRole"
    assert trust["Condition"] == {"StringEquals": {"sts:ExternalId": "ext-123"}}
    principal = json.dumps(trust["Principal"])
    assert "arn:" in principal and ":iam::444455556666:root" in principal


def test_organization_option_adds_list_accounts_only(role_template):
    from visguard.audit.permissions import COLLECTOR_ACTIONS

    (role,) = role_template[1].find_resources("AWS::IAM::Role").values()
    (stmt,) = role["Properties"]["Policies"][0]["PolicyDocument"]["Statement"]
    assert sorted(stmt["Action"]) == sorted((*COLLECTOR_ACTIONS, "organizations:ListAccounts"))
    assert "Condition" not in role["Properties"]["AssumeRolePolicyDocument"]["Statement"][0]


def run_cdk_synth(out: Path, *extra: str) -> subprocess.CompletedProcess:
    """``npx cdk synth`` of the sample app, exactly as ``make synth`` runs it (cdk.json at the repo root)."""
    if shutil.which("npx") is None or not (ROOT / "node_modules" / ".bin" / "cdk").exists():
        pytest.fail(
            "the CDK CLI is not installed: run `make install` (npm ci installs aws-cdk from package-lock.json)"
        )
    env = {
        **os.environ,
        "CDK_DISABLE_CLI_TELEMETRY": "true",
    }
    proc = subprocess.run(
        ["npx", "--no-install", "cdk", "synth", "--no-notices", "-q", "-o", str(out), *extra],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return proc


@pytest.fixture(scope="module")
def cli_synth(tmp_path_factory):
    out = tmp_path_factory.mktemp("sample") / "cdk.out"
    proc = run_cdk_synth(out)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out, proc.stderr


def test_cli_synth_of_the_sample_app(cli_synth):
    out, stderr = cli_synth
    templates = {p.name for p in out.glob("*.template.json")}
    assert templates == {
        "VisguardOrders.template.json",
        "VisguardMedia.template.json",
        "VisguardAudit.template.json",
    }
    orders = json.loads((out / "VisguardOrders.template.json").read_text())
    queues = {
        r["Metadata"]["aws:cdk:path"]: r["Properties"]
        for r in orders["Resources"].values()
        if r["Type"] == "AWS::SQS::Queue"
    }
    assert queues["VisguardOrders/Orders/Queue/Resource"]["VisibilityTimeout"] == 6 * 60 + 5
    assert queues["VisguardOrders/Payments/Queue/Resource"]["QueueName"] == "visguard-payments.fifo"
    assert (
        queues["VisguardOrders/Payments/DeadLetterQueue/Resource"]["QueueName"]
        == "visguard-payments-dlq.fifo"
    )
    media = json.loads((out / "VisguardMedia.template.json").read_text())
    (video,) = [
        r
        for r in media["Resources"].values()
        if r["Type"] == "AWS::SQS::Queue" and "RedrivePolicy" in r["Properties"]
    ]
    assert video["Properties"]["VisibilityTimeout"] == 1800  # seed 002: 2 x the 15 min heartbeat
    (policy,) = [r for r in media["Resources"].values() if r["Type"] == "AWS::IAM::Policy"]
    actions = policy["Properties"]["PolicyDocument"]["Statement"][0]["Action"]
    assert (
        "sqs:ReceiveMessage" in actions and "sqs:DeleteMessage" in actions
    )  # grantee= of the worker consumer
    assert "VG011" in stderr  # the CLI prints the validation report
    assert "end-of-life" not in stderr and "!!" not in stderr  # jsii runs on the pinned Node LTS: no banner
    # cdk.json sets every feature flag (to the behaviour the templates already had): no "N feature flags are not
    # configured" notice on the demo's path
    assert "feature flag" not in stderr
    assert "VisguardOrders/LegacyReports: visibility timeout 60 s" in stderr  # the construct path leads


def test_sample_app_report_catches_the_plain_queue_only(cli_synth):
    out, _ = cli_synth
    report = json.loads((out / "validation-report.json").read_text())
    (rep,) = [r for r in report["pluginReports"] if r["pluginName"] == "visguard"]
    assert rep["conclusion"] == "success"
    found = {(v["ruleName"], c["constructPath"]) for v in rep["violations"] for c in v["violatingConstructs"]}
    legacy = "VisguardOrders/LegacyReports/Resource"
    assert ("VG011", legacy) in found
    assert {path for _, path in found} == {legacy}, found  # the GuardedQueues pass every rule


def test_cli_synth_fails_on_an_error_beside_cloudformation_validate(tmp_path):
    """A 10 s timeout under a 30 s function: VG010 (error) stops `cdk synth`; CDK's built-in CloudFormation
    Validate plugin reports the same defect as E3505, downgraded to a warning."""
    out = tmp_path / "cdk.out"
    proc = run_cdk_synth(out, "-c", "legacy_visibility_timeout=10")
    assert proc.returncode != 0
    assert "Acknowledge with 'visguard::VG010'" in proc.stderr and "E3505" in proc.stderr
    report = json.loads((out / "validation-report.json").read_text())
    by_plugin = {r["pluginName"]: r for r in report["pluginReports"]}
    assert by_plugin["visguard"]["conclusion"] == "failure"
    assert "VG010" in {v["ruleName"] for v in by_plugin["visguard"]["violations"]}
    assert "E3505" in {v["ruleName"] for v in by_plugin["CloudFormation Validate"]["violations"]}
