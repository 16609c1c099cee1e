"""The pure derivations behind GuardedQueue (no aws_cdk: these run in milliseconds)."""

from __future__ import annotations

import pytest
from visguard.constructs.settings import (
    DLQ_RETENTION,
    LambdaSpec,
    QueueSettings,
    WorkerSpec,
    age_alarm_threshold,
    build_model,
    derive_visibility_timeout,
    heartbeat_required,
    lambda_visibility,
    rule_settings,
    worker_visibility,
)
from visguard.engine.risk import Profile, required_visibility


def test_lambda_visibility_is_six_timeouts_plus_window():
    assert lambda_visibility(LambdaSpec("fn", function_timeout=60, batching_window=5)) == 365
    assert lambda_visibility(LambdaSpec("fn", function_timeout=3)) == 18


def test_worker_with_heartbeat_gets_twice_the_interval_or_one_extension():
    seed002 = WorkerSpec("w", 2400, 21600, heartbeat_interval=900, heartbeat_extend_by=1800)
    assert worker_visibility(seed002) == 1800
    assert worker_visibility(WorkerSpec("w", 10, 60, heartbeat_interval=30, heartbeat_extend_by=300)) == 300


def test_worker_without_heartbeat_uses_the_engine_risk_model():
    spec = WorkerSpec("w", processing_p50=5, processing_p99=45)
    expected = required_visibility(Profile.lognormal(p50=5, p99=45), 0.001)
    assert worker_visibility(spec) == expected
    assert 45 < expected < 200
    assert worker_visibility(spec, target_duplicate_rate=0.01) < expected


def test_a_worker_past_the_cap_without_heartbeat_gets_the_policys_plan_in_cdk_terms():
    """Issue 14: p50 40 min, p99 6 h needs 44,442 s without a heartbeat; the fix is the policy's heartbeat plan
    as add_worker_consumer arguments, and the split-the-work advice since 0.11 % still run past 12 h."""
    from visguard.constructs.fixes import duration_expr
    from visguard.linter.api import lint_model

    seed002 = WorkerSpec("Q/Workers", 2400, 21600)
    text = heartbeat_required(seed002)
    assert text.startswith("VG012 worker (p50 40 min, p99 6 h) needs a heartbeat")
    assert "44,442 s" in text
    assert "heartbeat_interval=Duration.minutes(15), heartbeat_extend_by=Duration.minutes(30)" in text
    assert "0.11% of attempts run past the 12-hour cap" in text and "Step Functions" in text
    # following the plan: the derived queue passes every rule
    fixed = WorkerSpec("Q/Workers", 2400, 21600, heartbeat_interval=900, heartbeat_extend_by=1800)
    assert heartbeat_required(fixed) is None
    settings = QueueSettings(path="Q", workers=(fixed,))
    assert derive_visibility_timeout(settings) == 1800 and lint_model(build_model(settings)) == []
    # a timeout alone is enough (shorter profile, or a looser target): nothing to say
    assert heartbeat_required(WorkerSpec("w", 1800, 4 * 3600)) is None
    assert heartbeat_required(WorkerSpec("w", 2400, 21600), target_duplicate_rate=0.01) is None
    # p99 at or past 12 h: VG014, split the work
    past = heartbeat_required(WorkerSpec("w", 3600, 13 * 3600))
    assert past.startswith("VG014 (error)") and "split the work" in past and "heartbeat_interval" not in past
    assert [duration_expr(s) for s in (7200, 900, 185, 0.5)] == [
        "Duration.hours(2)",
        "Duration.minutes(15)",
        "Duration.seconds(185)",
        "Duration.seconds(1)",
    ]


def test_cdk_fix_turns_a_heartbeat_plan_into_add_worker_consumer_arguments():
    """VG012's fix past the cap names a heartbeat plan: in CDK terms never a timeout above 43,200 s."""
    from visguard.linter.api import lint_model

    settings = QueueSettings(path="Q", visibility_timeout=43200, workers=(WorkerSpec("Q/W", 2400, 21600),))
    (vg012,) = [f for f in lint_model(build_model(settings)) if f.rule == "VG012"]  # a GuardedQueue's words
    assert "heartbeat_interval=Duration.minutes(15), heartbeat_extend_by=Duration.minutes(30)" in vg012.fix
    assert "44442" not in vg012.fix and "Step Functions" in vg012.fix
    (plain,) = [f for f in lint_model(build_model(settings), vocabulary=lambda q: "cdk") if f.rule == "VG012"]
    assert plain.fix.startswith(
        "visibility_timeout=Duration.minutes(30) on the aws_sqs.Queue, and the workers call"
    )
    short = QueueSettings(path="Q", visibility_timeout=60, workers=(WorkerSpec("Q/W", 30, 120),))
    (vg012,) = [f for f in lint_model(build_model(short), vocabulary=lambda q: "cdk") if f.rule == "VG012"]
    assert vg012.fix.startswith("visibility_timeout=Duration.seconds(")


def test_derived_timeout_is_the_largest_need_and_rounds_up():
    s = QueueSettings(
        path="S/Q",
        lambdas=(LambdaSpec("a", 10.5), LambdaSpec("b", 20, batching_window=1)),
        workers=(WorkerSpec("w", 5, 45),),
    )
    assert derive_visibility_timeout(s) == 121  # 6 x 20 + 1 beats 6 x 10.5 = 63 and the worker's need
    assert derive_visibility_timeout(QueueSettings(path="S/Q", lambdas=(LambdaSpec("a", 10.5),))) == 63


def test_given_timeout_wins_and_no_consumer_keeps_the_default():
    assert (
        derive_visibility_timeout(
            QueueSettings(path="S/Q", visibility_timeout=7, lambdas=(LambdaSpec("a", 60),))
        )
        == 7
    )
    assert derive_visibility_timeout(QueueSettings(path="S/Q")) == 30


def test_queue_profile_counts_and_the_cap_is_twelve_hours():
    s = QueueSettings(path="S/Q", processing_p50=5, processing_p99=45)
    assert derive_visibility_timeout(s) == required_visibility(Profile.lognormal(p50=5, p99=45), 0.001)
    huge = QueueSettings(path="S/Q", workers=(WorkerSpec("w", 3600, 50_000),))
    assert derive_visibility_timeout(huge) == 43_200


@pytest.mark.parametrize(
    ("mrc", "vt", "retention", "p99", "expected"),
    [
        (5, 365, None, 45, 5 * 365 + 45),  # the retry window
        (5, 10, None, None, 300),  # never below 5 minutes
        (10, 43_200, None, None, 345_600 // 2),  # at most half the (default 4-day) retention
        (5, 3600, 7200, None, 3600),  # half of a short retention
    ],
)
def test_age_alarm_threshold(mrc, vt, retention, p99, expected):
    s = QueueSettings(path="S/Q", max_receive_count=mrc, retention=retention, processing_p99=p99)
    assert age_alarm_threshold(s, vt) == expected


def test_model_has_the_pair_and_the_consumers():
    s = QueueSettings(
        path="S/Q",
        template_file="S.template.json",
        fifo=True,
        queue_name="q.fifo",
        dlq_name="q-dlq.fifo",
        max_receive_count=4,
        processing_p50=1,
        processing_p99=8,
        lambdas=(LambdaSpec("S/Fn", 20, batch_size=5, max_concurrency=3),),
        workers=(WorkerSpec("S/Q/Workers", 2, 9, heartbeat_interval=3),),
    )
    model = build_model(s)
    queue, dlq = model.queues["S/Q/Queue"], model.queues["S/Q/DeadLetterQueue"]
    assert model.dlq_of(queue) is dlq and model.is_dlq(dlq)
    assert queue.fifo and dlq.fifo and queue.source == dlq.source == "construct"
    assert queue.visibility_timeout == 120 and queue.redrive.max_receive_count == 4
    assert dlq.message_retention == DLQ_RETENTION and queue.location.construct_path == "S/Q/Queue"
    fn, workers = queue.consumers
    assert (fn.kind, fn.function_timeout, fn.batch_size, fn.max_concurrency) == ("lambda", 20, 5, 3)
    assert (fn.processing_p50, fn.processing_p99, fn.report_batch_item_failures) == (1, 8, True)
    assert (workers.kind, workers.heartbeat_interval, workers.processing_p99) == ("worker", 3, 9)


def test_derivation_parameters_come_from_the_rules_settings():
    from visguard.linter.model import LintConfig
    from visguard.linter.rules import DEFAULT_SETTINGS

    assert rule_settings() == {
        "target_duplicate_rate": DEFAULT_SETTINGS["target_duplicate_rate"],
        "lambda_multiplier": DEFAULT_SETTINGS["lambda_multiplier"],
        "heartbeat_factor": 1 / DEFAULT_SETTINGS["heartbeat_max_fraction"],
    }
    custom = rule_settings(LintConfig(settings={"lambda_multiplier": 3, "heartbeat_max_fraction": 0.25}))
    s = QueueSettings(
        path="S/Q",
        lambdas=(LambdaSpec("a", 10),),
        workers=(WorkerSpec("w", 5, 45, heartbeat_interval=100),),
        **custom,
    )
    assert derive_visibility_timeout(s) == 400  # 4 x the 100 s heartbeat beats 3 x 10 s


def test_pure_modules_import_without_aws_cdk():
    """Importing aws_cdk costs seconds: the settings module (and the package itself) must not pull it in."""
    import subprocess
    import sys

    code = "import sys, visguard.constructs, visguard.constructs.settings; print('aws_cdk' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-P", "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "False"


def test_derived_queues_pass_the_timeout_rules_or_the_worker_is_rejected():
    """README's promise, over a grid of workers (with and without heartbeats) next to Lambda consumers: a
    derived timeout leaves no VG01x finding, unless add_worker_consumer rejects the worker first (a need past
    the cap without heartbeat: heartbeat_required; a p99 at or past 12 h: VG014)."""
    import itertools

    from visguard.linter.api import lint_model

    checked = rejected = 0
    for p50, ratio, heartbeat, fn_timeout in itertools.product(
        (5, 120, 2400, 7200), (1.5, 9, 40), (None, (30, None), (900, 1800)), (None, 30, 900)
    ):
        hb_i, hb_e = heartbeat or (None, None)
        worker = WorkerSpec("Q/W", p50, p50 * ratio, heartbeat_interval=hb_i, heartbeat_extend_by=hb_e)
        if heartbeat_required(worker) or worker.processing_p99 >= 43200:
            rejected += 1
            continue
        lambdas = (LambdaSpec("Q/Fn", fn_timeout, batching_window=5),) if fn_timeout else ()
        settings = QueueSettings(path="Q", workers=(worker,), lambdas=lambdas)
        found = [f.rule for f in lint_model(build_model(settings)) if f.rule.startswith("VG01")]
        assert found == [], (worker, lambdas, found)
        checked += 1
    assert checked > 60 and rejected > 5
