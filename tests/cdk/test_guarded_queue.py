"""GuardedQueue, its consumers and alarms, asserted on synthesized templates (aws_cdk.assertions).

One app with one stack per scenario is synthesized once for the module; error scenarios call the construct's
validation directly (``node.validate()``, what synthesis runs) and one of them runs a real synth.
"""

from __future__ import annotations

import re

import pytest


@pytest.fixture(scope="module")
def scenarios(cdk, make_function):
    from aws_cdk import App, Duration, Stack
    from aws_cdk import aws_sns as sns
    from aws_cdk import aws_sqs as sqs
    from visguard.constructs import GuardedQueue, acknowledge

    app = App()
    s = {}

    st = Stack(app, "Lambda")
    fn = make_function(st, "Fn", 60)
    q = GuardedQueue(st, "Orders", processing_p50=Duration.seconds(5), processing_p99=Duration.seconds(45))
    q.add_lambda_consumer(fn, batch_size=10, max_batching_window=Duration.seconds(5), max_concurrency=4)
    s["Lambda"] = (st, q)

    st = Stack(app, "Late")
    q = GuardedQueue(st, "Jobs")
    q.add_lambda_consumer(make_function(st, "Quick", 10))
    q.add_lambda_consumer(make_function(st, "Slow", 100), batch_size=5)  # added later: still counted
    s["Late"] = (st, q)

    st = Stack(app, "Fifo")
    q = GuardedQueue(st, "Payments", fifo=True, queue_name="payments", content_based_deduplication=True)
    q.add_lambda_consumer(make_function(st, "Fn", 20))
    s["Fifo"] = (st, q)

    st = Stack(app, "Worker")
    q = GuardedQueue(st, "Video")
    q.add_worker_consumer(
        processing_p50=Duration.minutes(40),
        processing_p99=Duration.hours(6),
        heartbeat_interval=Duration.minutes(15),
        heartbeat_extend_by=Duration.minutes(30),
    )
    plain = GuardedQueue(st, "Thumbnails")
    plain.add_worker_consumer(processing_p50=Duration.seconds(5), processing_p99=Duration.seconds(45))
    s["Worker"] = (st, q, plain)

    st = Stack(app, "Explicit")
    q = GuardedQueue(st, "Slow", visibility_timeout=Duration.minutes(15))
    q.add_lambda_consumer(make_function(st, "Fn", 10))
    s["Explicit"] = (st, q)

    st = Stack(app, "Props")
    q = GuardedQueue(
        st,
        "Secure",
        alarms=False,
        retention_period=Duration.days(2),
        delivery_delay=Duration.seconds(10),
        receive_message_wait_time=Duration.seconds(20),
        encryption=sqs.QueueEncryption.KMS_MANAGED,
        enforce_ssl=True,
        queue_name="secure",
    )
    s["Props"] = (st, q)

    st = Stack(app, "Topic")
    topic = sns.Topic(st, "Pager")
    q = GuardedQueue(st, "Paged", alarm_topic=topic, age_alarm_threshold=Duration.minutes(20))
    s["Topic"] = (st, q)

    st = Stack(app, "Warn")
    q = GuardedQueue(st, "Fragile", max_receive_count=2)
    q.add_lambda_consumer(make_function(st, "Fn", 10), report_batch_item_failures=False)
    s["Warn"] = (st, q)

    st = Stack(app, "Acked")
    q = GuardedQueue(st, "Fragile", max_receive_count=2)
    q.add_lambda_consumer(make_function(st, "Fn", 10))
    acknowledge(st, "VG021", reason="retries are cheap; DLQ is replayed daily")  # every supported release
    s["Acked"] = (st, q)

    st = Stack(app, "QueueAcked")
    q = GuardedQueue(st, "Fragile", max_receive_count=2)
    q.add_lambda_consumer(make_function(st, "Fn", 10), report_batch_item_failures=False)
    q.acknowledge("VG031", reason="the handler is idempotent per batch")
    s["QueueAcked"] = (st, q)

    app.synth()
    return s


def template(scenarios, name):
    from aws_cdk.assertions import Template

    return Template.from_stack(scenarios[name][0])


def queue_props(scenarios, name, construct):
    """(queue properties, DLQ properties) of one GuardedQueue, found by logical id."""
    st = scenarios[name][0]
    resources = template(scenarios, name).find_resources("AWS::SQS::Queue")
    q = st.resolve(construct.queue.node.default_child.logical_id)
    d = st.resolve(construct.dead_letter_queue.node.default_child.logical_id)
    return resources[q]["Properties"], resources[d]["Properties"], d


def test_lambda_consumer_derives_six_timeouts_plus_window_and_pairs_the_dlq(scenarios):
    qp, dp, dlq_id = queue_props(scenarios, "Lambda", scenarios["Lambda"][1])
    assert qp["VisibilityTimeout"] == 6 * 60 + 5
    assert qp["RedrivePolicy"] == {
        "deadLetterTargetArn": {"Fn::GetAtt": [dlq_id, "Arn"]},
        "maxReceiveCount": 5,
    }
    assert dp["MessageRetentionPeriod"] == 14 * 86400 and "FifoQueue" not in dp and "RedrivePolicy" not in dp
    template(scenarios, "Lambda").has_resource_properties(
        "AWS::Lambda::EventSourceMapping",
        {
            "BatchSize": 10,
            "MaximumBatchingWindowInSeconds": 5,
            "FunctionResponseTypes": ["ReportBatchItemFailures"],
            "ScalingConfig": {"MaximumConcurrency": 4},
        },
    )


def test_consumers_added_later_shape_the_timeout(scenarios):
    st, q = scenarios["Late"]
    qp, _, _ = queue_props(scenarios, "Late", q)
    assert qp["VisibilityTimeout"] == 600 == q.visibility_timeout_seconds
    template(scenarios, "Late").resource_count_is("AWS::Lambda::EventSourceMapping", 2)


def test_fifo_pair_names_end_in_fifo(scenarios):
    qp, dp, _ = queue_props(scenarios, "Fifo", scenarios["Fifo"][1])
    assert (qp["QueueName"], qp["FifoQueue"], qp["ContentBasedDeduplication"]) == (
        "payments.fifo",
        True,
        True,
    )
    assert (dp["QueueName"], dp["FifoQueue"]) == ("payments-dlq.fifo", True)
    assert qp["VisibilityTimeout"] == 120


def test_worker_timeout_from_heartbeat_or_risk_model(scenarios):
    from visguard.engine.risk import Profile, required_visibility

    _, video, thumbs = scenarios["Worker"]
    assert queue_props(scenarios, "Worker", video)[0]["VisibilityTimeout"] == 1800
    expected = required_visibility(Profile.lognormal(p50=5, p99=45), 0.001)
    assert queue_props(scenarios, "Worker", thumbs)[0]["VisibilityTimeout"] == expected
    assert not video.findings() and not thumbs.findings()  # derived settings pass every rule


def test_given_timeout_wins_and_far_too_long_becomes_an_info_annotation(scenarios):
    from aws_cdk.assertions import Annotations, Match

    st, q = scenarios["Explicit"]
    assert queue_props(scenarios, "Explicit", q)[0]["VisibilityTimeout"] == 900
    infos = Annotations.from_stack(st).find_info("/Explicit/Slow", Match.string_like_regexp("VG013"))
    assert len(infos) == 1 and "[ack: visguard::VG013]" in infos[0].entry.data


def test_other_queue_props_pass_through_and_security_is_shared_with_the_dlq(scenarios):
    st, q = scenarios["Props"]
    qp, dp, _ = queue_props(scenarios, "Props", q)
    assert qp["MessageRetentionPeriod"] == 2 * 86400 and qp["DelaySeconds"] == 10
    assert qp["ReceiveMessageWaitTimeSeconds"] == 20 and qp["QueueName"] == "secure"
    assert qp["KmsMasterKeyId"] == dp["KmsMasterKeyId"] == "alias/aws/sqs"
    assert dp["QueueName"] == "secure-dlq" and dp["MessageRetentionPeriod"] == 14 * 86400
    t = template(scenarios, "Props")
    t.resource_count_is("AWS::CloudWatch::Alarm", 0)
    t.resource_count_is("AWS::SQS::QueuePolicy", 2)  # enforce_ssl on both queues


def test_default_alarms_dlq_visible_and_derived_age_threshold(scenarios):
    from aws_cdk.assertions import Match

    st, q = scenarios["Lambda"]
    t = template(scenarios, "Lambda")
    t.resource_count_is("AWS::CloudWatch::Alarm", 2)
    dlq_id = st.resolve(q.dead_letter_queue.node.default_child.logical_id)
    t.has_resource_properties(
        "AWS::CloudWatch::Alarm",
        {
            "MetricName": "ApproximateNumberOfMessagesVisible",
            "Namespace": "AWS/SQS",
            "Threshold": 0,
            "ComparisonOperator": "GreaterThanThreshold",
            "TreatMissingData": "notBreaching",
            "Dimensions": [{"Name": "QueueName", "Value": {"Fn::GetAtt": [dlq_id, "QueueName"]}}],
        },
    )
    t.has_resource_properties(
        "AWS::CloudWatch::Alarm",
        {
            "MetricName": "ApproximateAgeOfOldestMessage",
            "Threshold": 5 * 365 + 45,  # maxReceiveCount x visibility timeout + p99
            "EvaluationPeriods": 5,
            "AlarmActions": Match.absent(),
        },
    )


def test_alarm_topic_and_threshold_override(scenarios):
    st, q = scenarios["Topic"]
    t = template(scenarios, "Topic")
    topic = [k for k in t.find_resources("AWS::SNS::Topic")][0]
    alarms = t.find_resources("AWS::CloudWatch::Alarm")
    assert len(alarms) == 2
    assert all(a["Properties"]["AlarmActions"] == [{"Ref": topic}] for a in alarms.values())
    age = [a for a in alarms.values() if a["Properties"]["MetricName"] == "ApproximateAgeOfOldestMessage"]
    assert age[0]["Properties"]["Threshold"] == 1200
    assert q.dlq_alarm is not None and q.age_alarm is not None


def test_warnings_become_acknowledgeable_annotations(scenarios):
    from aws_cdk.assertions import Annotations, Match

    warn = Annotations.from_stack(scenarios["Warn"][0]).find_warning("*", Match.any_value())
    texts = sorted(w.entry.data for w in warn)
    assert [t[:5] for t in texts] == ["VG021", "VG031"]
    assert all(w.id == "/Warn/Fragile" for w in warn)
    vg021 = [t for t in texts if "VG021" in t][0]
    assert "maxReceiveCount 2" in vg021 and "Fix:" in vg021 and vg021.endswith("[ack: visguard::VG021]")
    # the same warning in the acknowledged stack is gone, and the acknowledgement is recorded for auditors
    acked = Annotations.from_stack(scenarios["Acked"][0]).find_warning("*", Match.any_value())
    assert acked == []
    st = scenarios["Acked"][0]
    meta = [m.data for m in st.node.metadata if m.type == "aws:cdk:acknowledged-rules"]
    assert meta == [{"visguard::VG021": "retries are cheap; DLQ is replayed daily"}]
    # acknowledged on the queue itself: that warning goes, the other stays; fixes are in CDK terms
    left = Annotations.from_stack(scenarios["QueueAcked"][0]).find_warning("*", Match.any_value())
    assert [w.entry.data[:5] for w in left] == ["VG021"]
    vg031 = [t for t in texts if "VG031" in t][0]
    assert "Fix: add_lambda_consumer(fn, ..., report_batch_item_failures=True)" in vg031


# ---- errors: the rule catalogue's errors stop synthesis ------------------------------------------------------


@pytest.fixture(scope="module")
def error_stack(cdk):
    from aws_cdk import App, Stack

    return Stack(App(), "Errors")


def test_timeout_below_function_timeout_is_a_synth_error_with_path_rule_and_fix(error_stack, make_function):
    from aws_cdk import Duration
    from visguard.constructs import GuardedQueue

    q = GuardedQueue(error_stack, "Short", visibility_timeout=Duration.seconds(10))
    q.add_lambda_consumer(make_function(error_stack, "ShortFn", 60))
    errors = q.node.validate()
    vg010 = [e for e in errors if "VG010" in e]
    assert len(vg010) == 1
    assert vg010[0].startswith("VG010 (error) visibility timeout 10 s") and "Fix:" in vg010[0]


@pytest.mark.parametrize(
    ("kwargs", "worker", "rule"),
    [
        (
            {},
            {
                "processing_p50": 60,
                "processing_p99": 600,
                "heartbeat_interval": 1200,
                "heartbeat_extend_by": 1800,
            },
            "VG015",
        ),
    ],
)
def test_rule_errors_on_settings(error_stack, kwargs, worker, rule):
    from aws_cdk import Duration
    from visguard.constructs import GuardedQueue

    q = GuardedQueue(error_stack, f"Q{rule}{len(error_stack.node.children)}", **kwargs)
    if worker:
        q.add_worker_consumer(**{k: Duration.seconds(v) for k, v in worker.items()})
    errors = q.node.validate()
    assert any(e.startswith(f"{rule} (error)") for e in errors), errors


@pytest.mark.parametrize(
    ("kwargs", "rule"),
    [
        ({"max_receive_count": 0}, "VG002"),
        ({"max_receive_count": 5000}, "VG002"),  # CDK itself accepts any count >= 1
        ({"visibility_timeout": 50_000}, "VG001"),
        ({"retention_period": 30}, "VG005"),
    ],
)
def test_range_errors_are_raised_when_the_queue_is_created(error_stack, kwargs, rule):
    from aws_cdk import Duration
    from visguard.constructs import GuardedQueue, GuardError

    kwargs = {k: Duration.seconds(v) if k != "max_receive_count" else v for k, v in kwargs.items()}
    with pytest.raises(GuardError, match=rf"Errors/Range{rule}\w*: {rule} \(error\).*Fix:"):
        GuardedQueue(error_stack, f"Range{rule}{len(error_stack.node.children)}", **kwargs)


def test_consumer_errors_are_raised_when_the_consumer_is_added(error_stack, make_function):
    from aws_cdk import Duration
    from visguard.constructs import GuardedQueue, GuardError

    fn = make_function(error_stack, "BatchFn", 30)
    q = GuardedQueue(error_stack, "Batch")
    with pytest.raises(GuardError, match=r"Errors/BatchFn: VG030 \(error\).*Fix:"):
        q.add_lambda_consumer(fn, batch_size=100)
    fifo = GuardedQueue(error_stack, "FifoBatch", fifo=True)
    with pytest.raises(GuardError, match="VG030"):
        fifo.add_lambda_consumer(fn, max_batching_window=Duration.seconds(5))
    assert q.settings.lambdas == () and fifo.settings.lambdas == ()


def test_a_worker_past_the_cap_without_heartbeat_is_rejected_with_the_heartbeat_plan(error_stack):
    """Issue 14: p50 40 min, p99 6 h needs 44,442 s without a heartbeat. A derived GuardedQueue never warns
    about itself: add_worker_consumer raises with the policy's plan in CDK terms; following it passes every rule.
    An explicit visibility_timeout is judged by the rules as usual (VG012 warns, with the same plan)."""
    from aws_cdk import Duration
    from visguard.constructs import GuardedQueue, GuardError

    profile = {"processing_p50": Duration.minutes(40), "processing_p99": Duration.hours(6)}
    q = GuardedQueue(error_stack, "Encode")
    plan = r"heartbeat_interval=Duration\.minutes\(15\), heartbeat_extend_by=Duration\.minutes\(30\)"
    with pytest.raises(
        GuardError, match=rf"^Errors/Encode/Workers: VG012 .*44,442 s.*{plan}.*Step Functions"
    ):
        q.add_worker_consumer(**profile)
    assert q.settings.workers == () and q.visibility_timeout_seconds == 30
    q.add_worker_consumer(
        **profile, heartbeat_interval=Duration.minutes(15), heartbeat_extend_by=Duration.minutes(30)
    )
    assert q.visibility_timeout_seconds == 1800 and q.findings() == []

    with pytest.raises(GuardError, match=r"Errors/Long/Workers: VG014 \(error\).*split the work"):
        GuardedQueue(error_stack, "Long").add_worker_consumer(
            processing_p50=Duration.hours(1), processing_p99=Duration.hours(13)
        )
    with pytest.raises(GuardError, match=r"Errors/LongHb/Workers: VG014 \(error\)"):  # a heartbeat cannot
        GuardedQueue(error_stack, "LongHb").add_worker_consumer(
            processing_p50=Duration.hours(1),
            processing_p99=Duration.hours(13),
            heartbeat_interval=Duration.minutes(15),
        )

    given = GuardedQueue(error_stack, "Given", visibility_timeout=Duration.hours(12))
    given.add_worker_consumer(**profile)
    assert given.validate() == []  # VG012 is a warning there: an annotation, acknowledgeable
    warnings = [str(m.data) for m in given.node.metadata if "VG012" in str(m.data)]
    assert len(warnings) == 1 and re.search(plan, warnings[0]) and "44442" not in warnings[0]


def test_misuse_is_rejected_with_a_clear_message(error_stack):
    from aws_cdk import Duration
    from aws_cdk import aws_lambda as lambda_
    from aws_cdk import aws_sqs as sqs
    from visguard.constructs import GuardedQueue, GuardError

    other = sqs.Queue(error_stack, "Other")
    with pytest.raises(GuardError, match="creates its own dead-letter queue"):
        GuardedQueue(
            error_stack, "Own", dead_letter_queue=sqs.DeadLetterQueue(queue=other, max_receive_count=5)
        )
    with pytest.raises(GuardError, match="together"):
        GuardedQueue(error_stack, "Half", processing_p99=Duration.seconds(5))
    imported = lambda_.Function.from_function_arn(
        error_stack, "Imported", "arn:aws:lambda:us-east-1:111122223333:function:legacy"
    )
    q = GuardedQueue(error_stack, "ForImported")
    with pytest.raises(GuardError, match="pass function_timeout"):
        q.add_lambda_consumer(imported)
    q.add_lambda_consumer(imported, function_timeout=Duration.seconds(40))
    assert q.visibility_timeout_seconds == 240


def test_a_real_synth_fails_on_a_rule_error(cdk, make_function):
    from aws_cdk import App, Duration, Stack
    from visguard.constructs import GuardedQueue

    app = App()
    st = Stack(app, "Broken")
    q = GuardedQueue(st, "Orders", visibility_timeout=Duration.seconds(30))
    q.add_lambda_consumer(make_function(st, "Fn", 120))
    with pytest.raises(Exception, match=r"(?s)Validation failed.*\[Broken/Orders\] VG010 \(error\).*Fix:"):
        app.synth()


def test_rule_warnings_on_settings_without_synth(error_stack, make_function):
    """The same rules judge settings the construct does not fix for you: a 14-day source retention leaves the
    DLQ no longer than the source (VG022), a Lambda consumer with maxReceiveCount 3 (VG021)."""
    from aws_cdk import Duration
    from visguard.constructs import GuardedQueue

    q = GuardedQueue(error_stack, "LongKept", retention_period=Duration.days(14), max_receive_count=3)
    q.add_lambda_consumer(make_function(error_stack, "LongKeptFn", 10))
    found = {(f.rule, f.severity.value) for f in q.findings()}
    assert {("VG022", "warning"), ("VG021", "warning")} <= found
    assert q.node.validate() == []  # warnings never stop synthesis


def test_names_and_worker_ids(error_stack):
    from aws_cdk import Duration
    from visguard.constructs import GuardedQueue, GuardError

    q = GuardedQueue(error_stack, "Named", fifo=True, queue_name="jobs.fifo")
    assert (q.settings.queue_name, q.settings.dlq_name) == ("jobs.fifo", "jobs-dlq.fifo")
    q.add_worker_consumer(processing_p50=Duration.seconds(1), processing_p99=Duration.seconds(4))
    with pytest.raises(GuardError, match="exists already"):
        q.add_worker_consumer(processing_p50=Duration.seconds(1), processing_p99=Duration.seconds(4))
    q.add_worker_consumer(processing_p50=Duration.seconds(1), processing_p99=Duration.seconds(4), id="Batch")
    assert [w.id for w in q.settings.workers] == ["Errors/Named/Workers", "Errors/Named/Batch"]


def test_paths_computed_in_python_match_cdk_and_alarms_are_l1(error_stack, make_function):
    """GuardedQueue computes its construct path without asking Node.js (cached per scope): it must be the
    path CDK gives it, also in nested scopes and with "/" in an id; the alarms are CfnAlarm resources whose
    age threshold follows consumers added later."""
    from aws_cdk import Stack
    from aws_cdk import aws_cloudwatch as cloudwatch
    from visguard.constructs import GuardedQueue

    from constructs import Construct

    group = Construct(error_stack, "Group")
    first = GuardedQueue(group, "First")
    second = GuardedQueue(group, "a/b")
    nested = GuardedQueue(first, "Inner")
    for q in (first, second, nested):
        assert q.settings.path == q.node.path
    assert second.settings.path == "Errors/Group/a--b"
    assert isinstance(first.dlq_alarm, cloudwatch.CfnAlarm) and isinstance(
        first.age_alarm, cloudwatch.CfnAlarm
    )
    assert error_stack.resolve(first.age_alarm.threshold) == 300  # 5 x 30 s default, clamped to 5 minutes
    first.add_lambda_consumer(make_function(error_stack, "PathFn", 20))
    assert first.visibility_timeout_seconds == 120
    assert error_stack.resolve(first.age_alarm.threshold) == 600  # 5 x 120 s
    assert error_stack.resolve(first.queue.node.default_child.visibility_timeout) == 120
    assert Stack.of(nested).stack_name == "Errors"


def test_function_facts_come_from_the_cfn_function(error_stack):
    """A Lambda consumer's timeout and reserved concurrency are read from its CfnFunction (what the template
    holds): no timeout means Lambda's default of 3 s, a timeout changed on the L1 counts, a reservation below 5
    is VG033, and a timeout that is a token is rejected."""
    from aws_cdk import CfnParameter, Duration, Token
    from aws_cdk import aws_lambda as lambda_
    from visguard.constructs import GuardedQueue, GuardError

    def fn(id, **kw):
        return lambda_.Function(
            error_stack,
            id,
            runtime=lambda_.Runtime.PYTHON_3_12,
            handler="index.handler",
            code=lambda_.Code.from_inline("def handler(event, context):\n    return {}\n"),
            **kw,
        )

    q = GuardedQueue(error_stack, "DefaultTimeout")
    q.add_lambda_consumer(fn("NoTimeoutFn"), max_batching_window=Duration.seconds(2))
    assert q.settings.lambdas[0].function_timeout == 3.0 and q.visibility_timeout_seconds == 20  # 6 x 3 + 2

    changed = fn("ChangedFn", timeout=Duration.seconds(10))
    changed.node.default_child.timeout = 50
    q = GuardedQueue(error_stack, "ChangedTimeout")
    q.add_lambda_consumer(changed)
    assert q.visibility_timeout_seconds == 300

    q = GuardedQueue(error_stack, "Reserved")
    q.add_lambda_consumer(fn("ReservedFn", timeout=Duration.seconds(10), reserved_concurrent_executions=2))
    assert q.settings.lambdas[0].reserved_concurrency == 2
    assert "VG033" in {f.rule for f in q.findings()}

    seconds = CfnParameter(error_stack, "TimeoutParam", type="Number").value_as_number
    with pytest.raises(GuardError, match="function timeout must be a concrete Duration"):
        GuardedQueue(error_stack, "TokenTimeout").add_lambda_consumer(
            fn("TokenFn", timeout=Duration.seconds(seconds))
        )
    assert Token.is_unresolved(seconds)


def test_a_shared_consumer_function_is_read_once(error_stack, make_function, monkeypatch):
    """Read consumer settings once per synth: a function consuming a second GuardedQueue costs none of the jsii
    round trips that read its path, timeout and reserved concurrency again."""
    from jsii._kernel.providers import process
    from visguard.constructs import GuardedQueue

    sent = [0]
    send = process._NodeProcess.send

    def counted(self, request, response_type):
        sent[0] += 1
        return send(self, request, response_type)

    monkeypatch.setattr(process._NodeProcess, "send", counted)
    fn = make_function(error_stack, "SharedFn", 20)
    costs = []
    for name in ("SharedA", "SharedB"):
        q = GuardedQueue(error_stack, name)
        before = sent[0]
        q.add_lambda_consumer(fn)
        costs.append(sent[0] - before)
        assert q.visibility_timeout_seconds == 120 and q.settings.lambdas[0].id == "Errors/SharedFn"
    assert costs[1] <= costs[0] - 5, costs
