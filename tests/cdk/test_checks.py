"""VisGuardChecks, the policy-validation plugin: findings, acknowledgements, errors, the summary, one warning per
defect. Runs on the newest and on the oldest supported aws-cdk-lib (MIN_VERSION_TESTS)."""

from __future__ import annotations

import json

import pytest


def _report(outdir) -> dict | None:
    path = outdir / "validation-report.json"
    return json.loads(path.read_text()) if path.exists() else None


@pytest.fixture(scope="module")
def checked(cdk, make_function, checked_app, tmp_path_factory):
    """One app: a plain queue consumed too fast (VG011), the same acknowledged, a cross-stack consumer, a nested
    Stage, a GuardedQueue with a warning of its own, and acknowledgements without a reason or rule. The plugin
    object is kept: ``check`` gives its entries on every release (the oldest ones leave warnings out of CDK's
    report)."""
    from aws_cdk import Duration, Stack, Stage
    from aws_cdk import aws_lambda_event_sources as events
    from aws_cdk import aws_sqs as sqs
    from visguard.constructs import GuardedQueue, VisGuardChecks, acknowledge

    outdir = tmp_path_factory.mktemp("checks")
    plugin = VisGuardChecks()
    app = checked_app(str(outdir), plugin)
    for name in ("Plain", "Acked"):
        st = Stack(app, name)
        dlq = sqs.Queue(st, "Dlq", retention_period=Duration.days(14))
        q = sqs.Queue(
            st,
            "Legacy",
            visibility_timeout=Duration.seconds(60),
            dead_letter_queue=sqs.DeadLetterQueue(queue=dlq, max_receive_count=5),
        )
        make_function(st, "Fn", 30).add_event_source(events.SqsEventSource(q, batch_size=1))
        if name == "Acked":
            acknowledge(q, "VG011", reason="replaced next quarter, see JIRA-1")
    producer, consumer = Stack(app, "Producer"), Stack(app, "Consumer")
    shared = sqs.Queue(producer, "Shared", visibility_timeout=Duration.seconds(100))
    make_function(consumer, "Fn", 30).add_event_source(events.SqsEventSource(shared))  # Fn::ImportValue
    nested = Stack(Stage(app, "Prod"), "Svc")  # a Stage: its own nested cloud assembly
    late = sqs.Queue(nested, "Late", visibility_timeout=Duration.seconds(45))
    make_function(nested, "Fn", 30).add_event_source(events.SqsEventSource(late))
    st = Stack(app, "Guarded")
    orders = GuardedQueue(st, "Orders")
    orders.add_lambda_consumer(make_function(st, "Fn", 30))
    # what Validations.acknowledge records; visguard's acknowledge() refuses these two
    orders.node.add_metadata(
        "aws:cdk:acknowledged-rules", {"visguard::VG013": " ", "visguard::VG999": "a typo"}
    )
    st = Stack(app, "Warn")
    fragile = GuardedQueue(st, "Fragile", max_receive_count=2)  # VG021: the GuardedQueue's own annotation
    fragile.add_lambda_consumer(make_function(st, "Fn", 10))
    app.synth()
    templates = sorted(str(p) for p in outdir.rglob("*.template.json"))
    return plugin.check(templates), _report(outdir)


def entries(checked):
    return {(e.rule, e.construct_path): e for e in checked[0].entries}


def test_findings_lead_with_construct_paths_and_fix_in_cdk_terms(checked):
    found = entries(checked)
    e = found[("VG011", "Plain/Legacy/Resource")]
    assert e.severity == "warning" and e.location == "Properties/VisibilityTimeout"
    assert e.description.startswith("Plain/Legacy: visibility timeout 60 s")
    assert "function Plain/Fn " in e.description  # not the hashed logical id of the function
    assert e.fix == "visibility_timeout=Duration.seconds(180) on the aws_sqs.Queue."
    assert e.template.endswith("Plain.template.json") and e.logical_id.startswith("Legacy")


def test_acknowledged_findings_are_left_out_and_listed(checked):
    result, _ = checked
    assert not [k for k in entries(checked) if k[1] and k[1].startswith("Acked/") and k[0] == "VG011"]
    assert any("replaced next quarter, see JIRA-1" in a for a in result.acknowledged)
    assert "JIRA-1" in result.metadata()["acknowledged"]


def test_one_warning_per_defect_guarded_queue_annotations_win(checked):
    result, _ = checked
    assert not [k for k in entries(checked) if k[1] and k[1].startswith(("Warn/", "Guarded/Orders/Queue"))]
    assert result.annotated >= 1 and "reported by GuardedQueue annotations" in result.summary()


def test_cross_stack_consumers_and_nested_stages_are_checked(checked):
    found = entries(checked)
    assert ("VG011", "Producer/Shared/Resource") in found  # 100 s < 6 x 30 s of a function in another stack
    assert ("VG020", "Producer/Shared/Resource") in found
    assert ("VG011", "Prod/Svc/Late/Resource") in found
    keys = [(e.rule, e.construct_path) for e in checked[0].entries]
    assert len(keys) == len(set(keys))  # the nested assembly is loaded once, each finding reported once


def test_acknowledgements_without_reason_or_rule_are_reported(checked):
    problems = {e.rule: e for e in checked[0].entries if e.rule in ("VG900", "VG901")}
    assert set(problems) == {"VG900", "VG901"}
    assert problems["VG900"].description == "Guarded/Orders: acknowledgement of visguard::VG013 has no reason"
    assert "visguard::VG999" in problems["VG901"].description
    assert problems["VG900"].logical_id  # attached to a resource of the GuardedQueue (CDK needs one)


def test_summary_counts_queues_and_stacks(checked):
    meta = checked[0].metadata()
    assert (meta["queuesChecked"], meta["stacksChecked"]) == ("10", "7")
    assert meta["summary"].startswith(f"visguard checked {meta['queuesChecked']} queues in 7 stacks:")


def test_the_report_cdk_writes(checked):
    """Newer releases put warnings in validation-report.json; the oldest leave a plugin with only warnings
    out (and write the file only when asked), so there the plugin printed them itself."""
    from visguard.constructs.compat import api

    _, report = checked
    if api().prints_own_warnings:
        assert report is None or not [r for r in report["pluginReports"] if r["pluginName"] == "visguard"]
        return
    (rep,) = [r for r in report["pluginReports"] if r["pluginName"] == "visguard"]
    assert rep["conclusion"] == "success"
    assert rep["metadata"]["queuesChecked"] == checked[0].metadata()["queuesChecked"]
    found = {(v["ruleName"], c["constructPath"]) for v in rep["violations"] for c in v["violatingConstructs"]}
    assert ("VG011", "Plain/Legacy/Resource") in found and not any(p.startswith("Warn/") for _, p in found)


def test_clean_app_shows_that_visguard_ran(cdk, make_function, checked_app, tmp_path, capfd):
    from aws_cdk import Stack
    from visguard.constructs import GuardedQueue, VisGuardChecks
    from visguard.constructs.compat import api

    app = checked_app(str(tmp_path), VisGuardChecks(print_report=True))
    st = Stack(app, "Clean")
    GuardedQueue(st, "Orders").add_lambda_consumer(make_function(st, "Fn", 30))
    app.synth()
    err = capfd.readouterr().err
    assert "visguard checked 2 queues in 1 stacks: no findings." in err
    report = _report(tmp_path)
    if not api().prints_own_warnings:
        (rep,) = [r for r in report["pluginReports"] if r["pluginName"] == "visguard"]
        assert rep["conclusion"] == "success" and rep["metadata"]["queuesChecked"] == "2"
        assert [v["ruleName"] for v in rep["violations"]] == ["visguard-summary"]
        assert rep["violations"][0]["severity"] == "info"


BROKEN_APP = r"""
import sys
from aws_cdk import App, Duration, Stack
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_event_sources as events
from aws_cdk import aws_sqs as sqs
from visguard.constructs import VisGuardChecks, add_checks
from visguard.constructs.compat import api

plugin = VisGuardChecks()
app = App(policy_validation_beta1=[plugin]) if api().validations is None else App()
if api().validations is not None:
    add_checks(app, plugin)
st = Stack(app, "Broken")
q = sqs.Queue(st, "Short", visibility_timeout=Duration.seconds(10))
fn = lambda_.Function(st, "Fn", runtime=lambda_.Runtime.PYTHON_3_12, handler="index.handler",
                      code=lambda_.Code.from_inline("def handler(e, c):\n    return {}\n"),
                      timeout=Duration.seconds(60))
fn.add_event_source(events.SqsEventSource(q))
try:
    app.synth()
except Exception as exc:  # newer releases raise in the app
    print(exc, file=sys.stderr)
    sys.exit(1)
"""


@pytest.mark.slow
def test_rule_errors_fail_the_app_as_the_cdk_cli_runs_it(tmp_path):
    """A 10 s timeout under a 60 s function: VG010 (error). The app, run as `cdk synth` runs it (CDK_OUTDIR
    set), exits 1 on every release: older ones only set the exit code of jsii's Node.js process, so visguard
    ends the app itself."""
    import os
    import subprocess
    import sys

    app = tmp_path / "app.py"
    app.write_text(BROKEN_APP)
    out = tmp_path / "cdk.out"
    env = {**os.environ, "CDK_OUTDIR": str(out), "PYTHONSAFEPATH": "1"}
    proc = subprocess.run(
        [sys.executable, "-P", str(app)], env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert "Broken/Short: visibility timeout 10 s is less than the timeout 60 s" in proc.stderr
    assert "visibility_timeout=Duration.seconds(360)" in proc.stderr
    report = _report(out)
    if report is not None:
        (rep,) = [r for r in report["pluginReports"] if r["pluginName"] == "visguard"]
        assert rep["conclusion"] == "failure"
        assert {v["ruleName"]: v["severity"] for v in rep["violations"]}["VG010"] == "error"


def test_plugin_identity(cdk):
    from visguard import __version__
    from visguard.constructs import VisGuardChecks
    from visguard.linter.rules import RULES

    plugin = VisGuardChecks()
    assert plugin.name == "visguard" and plugin.version == __version__
    assert plugin.rule_ids == sorted(RULES) and "VG010" in plugin.rule_ids
