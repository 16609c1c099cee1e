"""VG070-VG073 (issue 25) on models built in Python: consumers as the code readers give them (platform, source,
visibility_override, work_timeout, heartbeat, settings), each rule failing and a consistent consumer passing."""

from __future__ import annotations

import pytest
from visguard.linter.api import lint_model
from visguard.linter.changes import apply
from visguard.linter.model import Consumer, Location, Model, Queue


def model(vt=600, *consumers: Consumer, source="terraform") -> Model:
    q = Queue(
        id="aws_sqs_queue.orders",
        location=Location("infra/main.tf", line=1),
        name="orders",
        visibility_timeout=vt,
        locations={"visibility_timeout": Location("infra/main.tf", line=3)},
        source=source,
    )
    q.consumers.extend(consumers)
    m = Model(source_file="infra/main.tf")
    m.add(q)
    return m


def consumer(platform="sdk", source="python", line=12, **kw) -> Consumer:
    loc = Location(
        f"app/worker.{ {'python': 'py', 'javascript': 'js', 'go': 'go', 'php': 'php'}[source] }", line=line
    )
    locations = {
        k: Location(loc.file, line=line + 1)
        for k in ("visibility_override", "work_timeout", "heartbeat_interval")
        if kw.get(k) is not None
    }  # noqa: E501
    return Consumer(
        f"{loc.file}:{line}", "worker", loc, platform=platform, source=source, locations=locations, **kw
    )


def findings(m: Model, rule: str):
    return [f for f in lint_model(m) if f.rule == rule]


# ------------------------------------------------------------------------------------------------------ VG070
def test_vg070_receive_with_zero_visibility_names_both_places_and_the_argument():
    m = model(600, consumer(visibility_override=0))
    (f,) = findings(m, "VG070")
    assert f.location == Location("app/worker.py", line=13) and f.consumer == "app/worker.py:12"
    assert "infra/main.tf:1" in f.message and "app/worker.py:13" in f.message
    assert "VisibilityTimeout (receive_message) = 0" in f.message and "visibility_timeout_seconds" in f.fix
    (ch,) = f.changes
    assert (ch.scope, ch.field, ch.value) == ("consumer", "visibility_override", 600)
    assert findings(apply(m, f.changes), "VG070") == []


@pytest.mark.parametrize(
    "kw",
    [
        {"visibility_override": None},
        {"visibility_override": 120},
        {"visibility_override": 0, "settings": {"zero_not_sent": True}},  # Go SDK v2: the queue's applies
    ],
)
def test_vg070_quiet_for_consistent_receives(kw):
    assert findings(model(600, consumer(**kw)), "VG070") == []


# ------------------------------------------------------------------------------------------------------ VG071
def delays(*pairs):
    return {
        "delays": [
            {"seconds": s, "what": w, "location": Location("app/tasks.py", line=40 + i)}
            for i, (s, w) in enumerate(pairs)
        ]
    }  # noqa: E501


def test_vg071_celery_countdown_beyond_the_queue_visibility():
    m = model(
        1800,
        consumer(
            "celery",
            settings={**delays((3600, "countdown"), (60, "retry countdown")), "created_visibility": 43_200},
        ),
    )  # noqa: E501
    (f,) = findings(m, "VG071")  # the 60 s retry is fine; created_visibility is not what is in effect
    assert f.location == Location("app/tasks.py", line=40)
    assert "countdown 3600 s (60 min)" in f.message and "app/tasks.py:40" in f.message
    assert "infra/main.tf:3" in f.message  # the queue's timeout, where it is written
    (ch,) = f.changes
    assert ch.field == "visibility_timeout" and ch.value >= 3600
    assert findings(apply(m, f.changes), "VG071") == []


def test_vg071_quiet_when_delays_fit_or_not_celery():
    assert findings(model(1800, consumer("celery", settings=delays((900, "eta")))), "VG071") == []
    assert findings(model(30, consumer("laravel", "php", settings=delays((3600, "release")))), "VG071") == []


# ------------------------------------------------------------------------------------------------------ VG072
@pytest.mark.parametrize(
    ("platform", "source", "extra", "words"),
    [
        ("laravel", "php", {}, "queue:work --timeout"),
        ("sqs-consumer", "javascript", {}, "handleMessageTimeout"),
        ("celery", "python", {"settings": {"acks_late": True}}, "task_time_limit"),
    ],
)
def test_vg072_framework_timeout_beyond_the_queue_visibility(platform, source, extra, words):
    m = model(30, consumer(platform, source, work_timeout=90, **extra))
    (f,) = findings(m, "VG072")
    assert words in f.message and "90 s" in f.message and "infra/main.tf:3" in f.message
    assert f.location.line == 13
    (ch,) = f.changes
    assert (ch.scope, ch.field) == ("queue", "visibility_timeout") and ch.value > 90
    assert findings(apply(m, f.changes), "VG072") == []


def test_vg072_an_override_is_what_is_in_effect():
    m = model(900, consumer("sqs-consumer", "javascript", work_timeout=120, visibility_override=60))
    (f,) = findings(m, "VG072")  # the queue's 900 s does not help: sqs-consumer receives with 60 s
    assert "visibilityTimeout = 60 s" in f.message
    (ch,) = f.changes
    assert (ch.scope, ch.field) == ("consumer", "visibility_override") and ch.value > 120


@pytest.mark.parametrize(
    "c",
    [
        consumer("laravel", "php", work_timeout=60),  # below the queue's 120 s
        consumer(
            "sqs-consumer",
            "javascript",
            work_timeout=600,
            heartbeat=True,
            heartbeat_interval=20,
            visibility_override=60,
        ),  # noqa: E501
        consumer("celery", "python", work_timeout=600),  # acknowledged on receipt: nothing to redeliver
        consumer("sdk", "python", work_timeout=600),  # not a framework limit
    ],
)
def test_vg072_quiet_for_consistent_consumers(c):
    assert findings(model(120, c), "VG072") == []


# ------------------------------------------------------------------------------------------------------ VG073
def test_vg073_heartbeat_not_below_visibility_timeout():
    m = model(
        600,
        consumer("sqs-consumer", "javascript", heartbeat_interval=30, visibility_override=30, heartbeat=True),
    )
    (f,) = findings(m, "VG073")
    assert f.severity == "error" and "heartbeatInterval" in f.message and "app/worker.js:13" in f.message
    (ch,) = f.changes
    assert (ch.field, ch.value) == ("visibility_override", 60)
    assert findings(apply(m, f.changes), "VG073") == []


def test_vg073_heartbeat_without_visibility_timeout():
    (f,) = findings(model(600, consumer("sqs-consumer", "javascript", heartbeat_interval=10)), "VG073")
    assert "without visibilityTimeout" in f.message


def test_vg073_quiet_when_heartbeat_is_below():
    c = consumer("sqs-consumer", "javascript", heartbeat_interval=10, visibility_override=30, heartbeat=True)
    assert findings(model(600, c), "VG073") == []
    assert findings(model(600, consumer("sdk", "python", heartbeat_interval=60)), "VG073") == []


def test_consistent_code_consumer_has_no_code_findings():
    c = consumer(
        "sqs-consumer",
        "javascript",
        visibility_override=120,
        heartbeat_interval=30,
        heartbeat=True,
        work_timeout=100,
    )  # noqa: E501
    assert not [f for f in lint_model(model(600, c)) if f.rule.startswith("VG07")]
