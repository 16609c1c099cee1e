"""Issue 24: the rules over worker consumers (VG060-VG067, and VG012/VG015/VG016/VG020 with them), on models built
here (the loaders that read ECS, Beanstalk, Pipes, SNS and KEDA have their own tests). Per rule: a failing and a
consistent model; the finding points where the value to change is and its message names the other place
(file:line); applying the finding's changes and linting again makes it go away; consistent consumers give no
finding at all."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from visguard.linter.api import lint_model
from visguard.linter.changes import WORKER_FIELDS, apply, describe, words, worker_words
from visguard.linter.consumer_words import for_consumer, word
from visguard.linter.model import Consumer, Location, Model, Queue, Redrive, Subscription


def at(file: str, line: int) -> Location:
    return Location(file, line=line)


def queue(vt=None, *consumers, qid="aws_sqs_queue.jobs", source="terraform", dlq=True, **kw) -> Model:
    """A queue (main.tf: resource at line 3, visibility_timeout_seconds at line 5) with a DLQ, and consumers."""
    m = Model()
    q = Queue(id=qid, location=at("main.tf", 3), source=source, visibility_timeout=vt, **kw)
    if vt is not None:
        q.locations["visibility_timeout"] = at("main.tf", 5)
    if dlq:
        d = m.add(
            Queue(id=f"{qid}_dlq", location=at("main.tf", 20), source=source, message_retention=1_209_600)
        )
        q.redrive = Redrive(d.id, d.id, 5, at("main.tf", 7))
        q.locations["redrive.target"] = at("main.tf", 7)
    q.consumers.extend(consumers)
    m.add(q)
    return m


def ecs(**kw) -> Consumer:
    kw.setdefault("location", at("ecs.tf", 10))
    return Consumer("aws_ecs_task_definition.worker", "worker", platform="ecs", source="terraform", **kw)


def beanstalk(**kw) -> Consumer:
    kw.setdefault("location", at("eb.tf", 30))
    kw.setdefault("heartbeat", False)
    return Consumer(
        "aws_elastic_beanstalk_environment.worker", "worker", platform="beanstalk", source="terraform", **kw
    )


def sdk(vt=None, **kw) -> Consumer:
    locs = {"visibility_override": at("worker.py", 12)} if vt is not None else {}
    locs.update(kw.pop("locations", {}))
    kw.setdefault("location", at("worker.py", 9))
    return Consumer(
        "worker.py:9", "worker", platform="sdk", source="python", visibility_override=vt, locations=locs, **kw
    )


def pipe(target=None, window=None, **kw) -> Consumer:
    locs = {}
    if target is not None:
        locs["work_timeout"] = at("pipe.tf", 14)
    if window is not None:
        locs["batching_window"] = at("pipe.tf", 8)
    return Consumer(
        "aws_pipes_pipe.p", "worker", platform="pipes", source="terraform", location=at("pipe.tf", 2),
        work_timeout=target, batching_window=window, heartbeat=False, locations=locs, **kw,
    )  # fmt: skip


def findings(m: Model, rule: str | None = None):
    return [f for f in lint_model(m) if rule is None or f.rule == rule]


def assert_fixed(m: Model, f) -> None:
    """Applying the finding's changes and linting again: that rule says nothing more about that consumer."""
    assert f.changes, f
    for ch in f.changes:
        assert describe(ch) and words(ch, "terraform")[0]
    after = apply(m, f.changes)
    again = [g for g in lint_model(after) if (g.rule, g.queue, g.consumer) == (f.rule, f.queue, f.consumer)]
    assert again == [], [g.message for g in again]


# ------------------------------------------------------------------------------------------------ consistent
CONSISTENT = {
    "ecs with a profile and a stop timeout above it": queue(900, ecs(processing_p99=60, stop_timeout=90)),
    "beanstalk with the defaults and a queue at sqsd's 300 s": queue(300, beanstalk(processing_p99=60)),
    "receive loop setting the queue's own value": queue(120, sdk(120, processing_p99=30)),
    "receive loop with a heartbeat": queue(
        120, sdk(120, processing_p99=600, heartbeat=True, heartbeat_interval=30)
    ),
    "pipe whose target and window fit": queue(400, pipe(target=300, window=20)),
    "kubernetes with a grace period above the work": queue(
        900,
        Consumer(
            "Deployment/worker",
            "worker",
            platform="kubernetes",
            source="kubernetes",
            location=at("k8s.yaml", 4),
            stop_timeout=120,
            processing_p99=60,
        ),
    ),  # fmt: skip
}


@pytest.mark.parametrize("name", sorted(CONSISTENT))
def test_consistent_consumers_have_no_finding(name):
    assert [(f.rule, f.message) for f in findings(CONSISTENT[name])] == []


# ------------------------------------------------------------------------------------------------ VG060
def test_vg060_a_receive_visibility_wins_over_the_queues_and_both_places_are_named():
    m = queue(60, sdk(600, processing_p99=30))
    (f,) = findings(m, "VG060")
    assert f.consumer == "worker.py:9"
    assert (f.location.file, f.location.line) == ("main.tf", 5)  # the value the fix changes: the queue's
    assert "worker.py:12" in f.message and "main.tf:5" in f.message
    assert "VisibilityTimeout= argument of receive_message 600 s" in f.message
    assert "visibility_timeout_seconds 60 s" in f.message  # the queue's words: Terraform's
    assert [(c.scope, c.field, c.value) for c in f.changes] == [("queue", "visibility_timeout", 600)]
    assert_fixed(m, f)


def test_vg060_sqsd_default_visibility_is_the_one_in_effect():
    m = queue(60, beanstalk(processing_p99=30))
    (f,) = findings(m, "VG060")
    assert "300 s" in f.message and "sqsd's default" in f.message and "eb.tf:30" in f.message
    assert 'setting { namespace = "aws:elasticbeanstalk:sqsd" name = "VisibilityTimeout" }' in f.message
    assert_fixed(m, f)


def test_vg060_two_consumers_disagreeing_point_at_each_consumers_setting():
    a = sdk(600, processing_p99=30)
    b = Consumer("other.py:3", "worker", platform="sdk", source="python", visibility_override=120,
                 location=at("other.py", 3), locations={"visibility_override": at("other.py", 4)})  # fmt: skip
    fs = findings(queue(60, a, b), "VG060")
    assert {(f.location.file, f.location.line) for f in fs} == {("worker.py", 12), ("other.py", 4)}
    assert all("main.tf:5" in f.message and not f.changes for f in fs)


def test_vg060_celery_visibility_is_ignored_for_a_declared_queue():
    c = Consumer("celeryconfig.py", "worker", platform="celery", source="python", location=at("celeryconfig.py", 1),
                 settings={"created_visibility": 3600}, locations={"created_visibility": at("celeryconfig.py", 7)})  # fmt: skip
    (f,) = findings(queue(60, c, qid="Jobs", source="cloudformation"), "VG060")
    assert (f.location.file, f.location.line) == ("celeryconfig.py", 7)
    assert 'broker_transport_options["visibility_timeout"] 3600 s' in f.message
    assert "VisibilityTimeout 60 s (main.tf:5) wins" in f.message and "ignored" in f.message
    # the same value as the queue's: nothing to say
    c2 = c.replace(settings={"created_visibility": 60})
    assert findings(queue(60, c2, qid="Jobs", source="cloudformation"), "VG060") == []


def test_vg060_go_zero_on_receive_is_not_sent():
    c = sdk(0, settings={"zero_not_sent": True}).replace(source="go")
    assert findings(queue(60, c), "VG060") == []


# ------------------------------------------------------------------------------------------------ VG061 / VG012
def test_vg061_override_below_p99_without_heartbeat_and_vg012_stays_quiet():
    m = queue(3600, sdk(60, processing_p99=300, processing_p50=100))
    f = [f for f in lint_model(m) if f.rule in ("VG012", "VG061")]
    assert [g.rule for g in f] == ["VG061"]  # no double finding: the queue's 3600 s is not in effect
    (f,) = f
    assert (f.location.file, f.location.line) == ("worker.py", 12)
    assert "main.tf:5" in f.message and "processing p99 300 s" in f.message
    assert [(c.scope, c.field) for c in f.changes] == [("consumer", "visibility_override")]
    assert_fixed(m, f)


def test_vg061_sqsd_default_below_p99_fixes_the_option_on_the_environment():
    m = queue(300, beanstalk(processing_p99=900, processing_p50=300))
    (f,) = findings(m, "VG061")
    assert (f.location.file, f.location.line) == ("eb.tf", 30)
    assert f.changes[0].location == at("eb.tf", 30)
    assert_fixed(m, f)


def test_vg061_heartbeat_or_queue_vt_is_not_its_case():
    assert findings(queue(60, sdk(60, processing_p99=300, heartbeat=True)), "VG061") == []
    m = queue(60, sdk(None, processing_p99=300))  # no override: VG012's, on the queue
    assert findings(m, "VG061") == [] and [f.rule for f in findings(m, "VG012")] == ["VG012"]


def test_vg061_work_limit_bounds_when_no_other_rule_judges_it():
    m = queue(
        60,
        sdk(
            30,
            work_timeout=120,
            locations={"visibility_override": at("w.py", 2), "work_timeout": at("w.py", 3)},
        ),
    )
    (f,) = findings(m, "VG061")
    assert "work limit 120 s" in f.message and "w.py:3" in f.message
    assert_fixed(m, f)
    laravel = Consumer(
        "artisan", "worker", platform="laravel", source="php", visibility_override=30, work_timeout=120
    )
    assert findings(queue(60, laravel), "VG061") == []  # VG072's


# ------------------------------------------------------------------------------------------------ VG062
def test_vg062_default_ecs_stop_timeout_below_p99():
    m = queue(900, ecs(processing_p99=90, locations={"processing_p99": at("ecs.tf", 4)}))
    (f,) = findings(m, "VG062")
    assert (f.location.file, f.location.line) == ("ecs.tf", 10)  # the task definition, to add stopTimeout to
    assert "30 s" in f.message and "stopTimeout of the container in container_definitions" in f.message
    assert "main.tf:5" in f.message and "ecs.tf:4" in f.message
    assert [(c.field, c.value) for c in f.changes] == [("stop_timeout", 90)]
    assert_fixed(m, f)


def test_vg062_fargate_cap_leaves_no_mechanical_change_and_grace_period_words():
    (f,) = findings(queue(900, ecs(processing_p99=600)), "VG062")
    assert f.changes == () and "scale-in protection" in f.fix
    k = Consumer("Deployment/w", "worker", platform="keda", source="kubernetes", location=at("k.yaml", 3),
                 stop_timeout=30, processing_p99=300, locations={"stop_timeout": at("k.yaml", 40)})  # fmt: skip
    m = queue(900, k)
    (f,) = findings(m, "VG062")
    assert "terminationGracePeriodSeconds" in f.message and (f.location.file, f.location.line) == (
        "k.yaml",
        40,
    )
    assert_fixed(m, f)


# ------------------------------------------------------------------------------------------------ VG063
def test_vg063_inactivity_not_below_sqsd_visibility():
    eb = beanstalk(
        processing_p99=60, visibility_override=600, work_timeout=900, settings={"inactivity_timeout": 900},
        locations={"visibility_override": at("eb.tf", 40), "inactivity_timeout": at("eb.tf", 45)},
    )  # fmt: skip
    m = queue(600, eb)
    (f,) = findings(m, "VG063")
    assert (f.location.file, f.location.line) == ("eb.tf", 40)
    assert "eb.tf:45" in f.message and "900 s" in f.message and "main.tf:5" in f.message
    assert "InactivityTimeout" in f.message
    assert [(c.field, c.value) for c in f.changes] == [("visibility_override", 901)]
    assert_fixed(m, f)


def test_vg063_sqsd_defaults_are_consistent_and_a_lowered_visibility_is_not():
    assert findings(queue(300, beanstalk(processing_p99=60)), "VG063") == []
    eb = beanstalk(processing_p99=60, visibility_override=120)  # InactivityTimeout's default 299 >= 120
    (f,) = findings(queue(120, eb), "VG063")
    assert "sqsd's default" in f.message and "299 s" in f.message


def test_vg063_changes_to_inactivity_apply_to_the_model():
    eb = beanstalk(visibility_override=600, settings={"inactivity_timeout": 900}, work_timeout=900)
    from visguard.linter.model import Change

    out = apply(queue(600, eb), [Change("consumer", eb.id, "inactivity_timeout", 500)])
    (c,) = out.queues["aws_sqs_queue.jobs"].consumers
    assert c.settings["inactivity_timeout"] == 500 and c.work_timeout == 500
    assert findings(out, "VG063") == []


# ------------------------------------------------------------------------------------------------ VG064
def test_vg064_queue_visibility_not_above_target_plus_window():
    m = queue(300, pipe(target=300, window=20))
    (f,) = findings(m, "VG064")
    assert (f.location.file, f.location.line) == ("main.tf", 5)
    assert "pipe.tf:14" in f.message and "pipe.tf:8" in f.message
    assert "source_parameters.sqs_queue_parameters.maximum_batching_window_in_seconds" in f.message
    assert [(c.field, c.value) for c in f.changes] == [("visibility_timeout", 321)]
    assert_fixed(m, f)


def test_vg064_unknown_target_says_nothing_and_vg065_only_then():
    m = queue(30, pipe())
    assert findings(m, "VG064") == []
    assert [f.consumer for f in findings(m, "VG065")] == ["aws_pipes_pipe.p"]
    assert findings(queue(400, pipe(target=300)), "VG065") == []


# ------------------------------------------------------------------------------------------------ VG065
def test_vg065_one_info_per_worker_without_a_bound_saying_how_to_declare_it():
    m = queue(300, ecs(stop_timeout=60), sdk(None))
    fs = findings(m, "VG065")
    assert [f.consumer for f in fs] == ["aws_ecs_task_definition.worker", "worker.py:9"]
    assert all(f.severity.value == "info" and "main.tf:3" in f.message for f in fs)
    by = {f.consumer: f for f in fs}
    assert (
        'tags = { "visguard.io/processing-p99" = "20m" } on the aws_ecs_task_definition'
        in by["aws_ecs_task_definition.worker"].fix
    )
    assert "visguard.yaml" in by["worker.py:9"].fix
    # profiles (platform None or "profile") and Lambda consumers are not workers found in code
    plain = Consumer("workers", "worker", processing_p99=None, location=at("visguard.yaml", 2))
    assert findings(queue(300, plain), "VG065") == []


# ------------------------------------------------------------------------------------------------ VG066 / VG067
def sub(**kw) -> Subscription:
    kw.setdefault("locations", {"redrive": at("sns.tf", 9)})
    return Subscription("aws_sns_topic_subscription.s", at("sns.tf", 4), **kw)


def test_vg066_fifo_topic_with_a_standard_dlq_in_another_account_and_region():
    m = queue(60)
    q = m.queues["aws_sqs_queue.jobs"]
    q.subscriptions.append(sub(topic="arn:aws:sns:us-east-1:111111111111:t.fifo",
                               redrive_ref="arn:aws:sqs:eu-west-1:222222222222:failed"))  # fmt: skip
    (f,) = findings(m, "VG066")
    assert f.severity.value == "error" and (f.location.file, f.location.line) == ("sns.tf", 9)
    assert "standard queue for a FIFO topic" in f.message and "222222222222" in f.message
    assert "eu-west-1" in f.message and "main.tf:3" in f.message


def test_vg066_model_dlq_of_the_topics_type_is_fine_and_a_wrong_one_named_with_its_place():
    m = queue(60)
    m.add(Queue(id="aws_sqs_queue.sub_dlq", location=at("sns.tf", 20), fifo=False))
    q = m.queues["aws_sqs_queue.jobs"]
    q.subscriptions.append(sub(topic="t", topic_fifo=False, redrive="aws_sqs_queue.sub_dlq"))
    assert findings(m, "VG066") == [] and findings(m, "VG067") == []
    q.subscriptions[0] = sub(topic="t", topic_fifo=True, redrive="aws_sqs_queue.sub_dlq")
    (f,) = findings(m, "VG066")
    assert "sns.tf:20" in f.message


def test_vg067_one_dlq_for_both_roles():
    m = queue(60)
    q = m.queues["aws_sqs_queue.jobs"]
    q.subscriptions.append(sub(topic="t", topic_fifo=False, redrive=q.redrive.target))
    (f,) = findings(m, "VG067")
    assert (f.location.file, f.location.line) == ("sns.tf", 9) and "main.tf:7" in f.message
    assert f.severity.value == "info"


# ------------------------------------------------------------------------------------------------ VG020, VG015/16
def test_vg020_for_a_pipe_says_pipes_has_no_dlq_of_its_own():
    m = queue(400, pipe(target=300), dlq=False)
    (f,) = findings(m, "VG020")
    assert "Pipes has no dead-letter queue of its own" in f.message and "pipe.tf:2" in f.message
    assert_fixed(m, f)


def test_vg020_names_a_subscriptions_redrive_as_not_enough():
    m = queue(300, ecs(processing_p99=10), dlq=False)
    m.queues["aws_sqs_queue.jobs"].subscriptions.append(
        sub(topic="t", redrive_ref="arn:aws:sqs:us-east-1:1:d")
    )
    (f,) = findings(m, "VG020")
    assert "only catches deliveries SNS could not make" in f.message and "sns.tf:9" in f.message


def test_vg016_and_vg015_use_the_visibility_in_effect():
    # the queue's 0 is not what a consumer with its own visibility receives with
    assert findings(queue(0, sdk(120, processing_p99=30)), "VG016") == []
    assert [f.rule for f in findings(queue(0, ecs(processing_p99=10, stop_timeout=20)), "VG016")] == ["VG016"]
    # a 40 s heartbeat is late for a 60 s receive visibility, whatever the queue's 900 s
    hb = sdk(60, processing_p99=300, heartbeat=True, heartbeat_interval=40)
    (f,) = findings(queue(900, hb), "VG015")
    assert "it receives with (60 s)" in f.message


def test_vg050_is_not_raised_for_known_worker_consumers():
    assert findings(queue(300, ecs(processing_p99=10, stop_timeout=20), sdk(None)), "VG050") == []


# ------------------------------------------------------------------------------------------------ words
def test_consumer_words_per_platform_and_source():
    assert word("stop_timeout", "ecs", "cloudformation") == "the container definition's StopTimeout"
    assert word("stop_timeout", "ecs", "terraform") == "stopTimeout of the container in container_definitions"
    assert word("stop_timeout", "kubernetes", "kubernetes").startswith("terminationGracePeriodSeconds")
    assert (
        word("visibility_override", "beanstalk", "ebextensions")
        == "option_settings aws:elasticbeanstalk:sqsd: VisibilityTimeout"
    )
    assert word("visibility_override", "sdk", "javascript").startswith(
        "VisibilityTimeout of the ReceiveMessageCommand"
    )
    assert (
        word("work_timeout", "sqs-consumer", "typescript")
        == "the handleMessageTimeout option (ms) of Consumer.create"
    )
    assert word("work_timeout", "celery", "python") == "task_time_limit"
    assert word("visibility_override", "spring", "java").startswith("messageVisibilitySeconds")
    assert word("work_timeout", "laravel", "php").startswith("queue:work --timeout")
    assert word("batching_window", "pipes", "cloudformation").endswith(
        "MaximumBatchingWindowInSeconds of the pipe"
    )
    # a Lambda mapping's batching window keeps the queue input's words; a platform without a word: the generic one
    lam = Consumer("m", "lambda", function_id="f")
    assert for_consumer("batching_window", lam) is None
    assert for_consumer("stop_timeout", Consumer("x", "worker", platform="sdk", source="go")).startswith(
        "the consumer's"
    )


def test_change_words_for_consumer_fields():
    assert set(worker_words()) == set(WORKER_FIELDS)
    from visguard.linter.model import Change

    ch = Change("consumer", "aws_ecs_task_definition.worker", "stop_timeout", 90)
    assert words(ch, "terraform") == ("stopTimeout of the container in container_definitions", "90")
    assert words(ch, "cloudformation")[0] == "the container definition's StopTimeout"
    assert words(ch, "kubernetes")[0].startswith("terminationGracePeriodSeconds")
    assert "VisibilityTimeout" in describe(Change("consumer", "env", "visibility_override", 600))


# ------------------------------------------------------------------------------------------------ generated
PLATFORMS = (
    "ecs",
    "beanstalk",
    "pipes",
    "keda",
    "kubernetes",
    "sdk",
    "celery",
    "sqs-consumer",
    "spring",
    "laravel",
)
_seconds = st.one_of(st.none(), st.integers(0, 50_000), st.sampled_from(["${var.t}", True]))


@st.composite
def worker_models(draw):
    consumers = []
    for i in range(draw(st.integers(1, 3))):
        platform = draw(st.sampled_from(PLATFORMS))
        consumers.append(
            Consumer(
                f"c{i}",
                "worker",
                platform=platform,
                source="terraform",
                location=at(f"c{i}.tf", 1 + i),
                visibility_override=None if platform == "pipes" else draw(_seconds),  # a pipe has none
                stop_timeout=draw(_seconds),
                work_timeout=draw(_seconds),
                processing_p99=draw(st.one_of(st.none(), st.integers(1, 40_000))),
                heartbeat=draw(st.sampled_from([None, True, False])),
                batching_window=draw(st.sampled_from([None, 0, 20])),
                settings=draw(
                    st.sampled_from([{}, {"created_visibility": 1800}, {"inactivity_timeout": 900}])
                ),
            )
        )
    return queue(draw(st.one_of(st.none(), st.integers(0, 43_200))), *consumers, dlq=draw(st.booleans()))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(worker_models())
def test_generated_worker_models_never_crash_and_their_fixes_clear_the_finding(m):
    fs = lint_model(m)
    for f in fs:
        if f.rule in ("VG060", "VG061", "VG062", "VG063", "VG064", "VG065"):
            assert f.consumer is not None and f.location is not None
        for ch in f.changes:  # a visibility a change sets is one SQS accepts
            if ch.field in ("visibility_timeout", "visibility_override"):
                assert 0 <= ch.value <= 43_200, (f.rule, ch)
        if f.changes and f.rule in ("VG060", "VG061", "VG062", "VG063", "VG064"):
            assert_fixed(m, f)
