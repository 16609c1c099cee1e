"""VisGuardChecks, the policy-validation plugin: findings in CDK's validation report, acknowledgements, errors."""

from __future__ import annotations

import json

import pytest


@pytest.fixture(scope="module")
def report(cdk, make_function, tmp_path_factory):
    """One app: a plain queue consumed too fast (VG011), the same acknowledged, and a clean GuardedQueue."""
    from aws_cdk import Acknowledgment, App, Duration, Stack, Stage, Validations
    from aws_cdk import aws_lambda_event_sources as events
    from aws_cdk import aws_sqs as sqs
    from visguard.constructs import GuardedQueue, VisGuardChecks

    outdir = tmp_path_factory.mktemp("checks")
    app = App(outdir=str(outdir))
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
            Validations.of(q).acknowledge(
                Acknowledgment(id="visguard::VG011", reason="replaced next quarter, see JIRA-1")
            )
    producer, consumer = Stack(app, "Producer"), Stack(app, "Consumer")
    shared = sqs.Queue(producer, "Shared", visibility_timeout=Duration.seconds(100))
    make_function(consumer, "Fn", 30).add_event_source(events.SqsEventSource(shared))  # Fn::ImportValue
    nested = Stack(Stage(app, "Prod"), "Svc")  # a Stage: its own nested cloud assembly
    late = sqs.Queue(nested, "Late", visibility_timeout=Duration.seconds(45))
    make_function(nested, "Fn", 30).add_event_source(events.SqsEventSource(late))
    st = Stack(app, "Guarded")
    orders = GuardedQueue(st, "Orders")
    orders.add_lambda_consumer(make_function(st, "Fn", 30))
    Validations.of(orders).acknowledge(
        Acknowledgment(id="visguard::VG013", reason=" "),
        Acknowledgment(id="visguard::VG999", reason="a typo"),
    )
    Validations.of(app).add_plugins(VisGuardChecks())
    app.synth()
    return json.loads((outdir / "validation-report.json").read_text())


def visguard_report(report):
    reports = [r for r in report["pluginReports"] if r["pluginName"] == "visguard"]
    assert len(reports) == 1
    return reports[0]


def test_findings_appear_in_the_validation_report_with_construct_paths(report):
    rep = visguard_report(report)
    assert rep["conclusion"] == "success"  # warnings only
    vg011 = [
        v
        for v in rep["violations"]
        if v["ruleName"] == "VG011" and v["violatingConstructs"][0]["constructPath"].startswith("Plain/")
    ]
    assert len(vg011) == 1, rep["violations"]
    v = vg011[0]
    assert v["severity"] == "warning" and "180 s" in v["suggestedFix"]
    (where,) = v["violatingConstructs"]
    assert where["constructPath"] == "Plain/Legacy/Resource"
    assert where["cloudFormationResource"]["templatePath"] == "Plain.template.json"
    assert where["cloudFormationResource"]["propertyPaths"] == ["Properties/VisibilityTimeout"]


def test_guarded_queue_is_clean_and_acknowledged_findings_are_suppressed(report):
    rep = visguard_report(report)
    paths = [
        c["constructPath"]
        for v in rep["violations"]
        if v["ruleName"] not in ("VG900", "VG901")  # findings about acknowledgements: next test
        for c in v["violatingConstructs"]
    ]
    assert not any(p.startswith(("Guarded/", "Acked/")) for p in paths), paths
    text = json.dumps(report)
    assert "replaced next quarter, see JIRA-1" in text  # the acknowledgement and its reason are recorded


def test_rule_errors_interrupt_synthesis(cdk, make_function, tmp_path):
    from aws_cdk import App, Duration, Stack, Validations
    from aws_cdk import aws_lambda_event_sources as events
    from aws_cdk import aws_sqs as sqs
    from visguard.constructs import VisGuardChecks

    app = App(outdir=str(tmp_path))
    st = Stack(app, "Broken")
    q = sqs.Queue(st, "Short", visibility_timeout=Duration.seconds(10))
    make_function(st, "Fn", 60).add_event_source(events.SqsEventSource(q))
    Validations.of(app).add_plugins(VisGuardChecks())
    with pytest.raises(Exception, match=r"(?s)VG010.*Broken/Short"):
        app.synth()
    rep = visguard_report(json.loads((tmp_path / "validation-report.json").read_text()))
    assert rep["conclusion"] == "failure"
    assert {v["ruleName"]: v["severity"] for v in rep["violations"]}["VG010"] == "error"


def test_plugin_identity(cdk):
    from visguard import __version__
    from visguard.constructs import VisGuardChecks
    from visguard.linter.rules import RULES

    plugin = VisGuardChecks()
    assert plugin.name == "visguard" and plugin.version == __version__
    assert plugin.rule_ids == sorted(RULES) and "VG010" in plugin.rule_ids


def test_cross_stack_consumers_are_checked_against_their_queue(report):
    rep = visguard_report(report)
    found = {(v["ruleName"], c["constructPath"]) for v in rep["violations"] for c in v["violatingConstructs"]}
    assert ("VG011", "Producer/Shared/Resource") in found  # 100 s < 6 x 30 s of a function in another stack
    assert ("VG020", "Producer/Shared/Resource") in found


def test_stacks_of_nested_stages_are_checked(report):
    rep = visguard_report(report)
    found = {(v["ruleName"], c["constructPath"]) for v in rep["violations"] for c in v["violatingConstructs"]}
    assert ("VG011", "Prod/Svc/Late/Resource") in found
    pairs = [(v["ruleName"], c["constructPath"]) for v in rep["violations"] for c in v["violatingConstructs"]]
    assert len(pairs) == len(set(pairs))  # the nested assembly is loaded once, each finding reported once


def test_acknowledgements_without_reason_or_rule_are_reported(report):
    rep = visguard_report(report)
    found = {
        (v["ruleName"], v["severity"], c["constructPath"]): v["description"]
        for v in rep["violations"]
        for c in v["violatingConstructs"]
    }
    assert "no reason" in found[("VG900", "warning", "Guarded/Orders")]
    assert "visguard::VG999" in found[("VG901", "warning", "Guarded/Orders")]
    assert not [
        k for k in found if k[0] in ("VG900", "VG901") and k[2] != "Guarded/Orders"
    ]  # reasoned acks pass
