"""VG078/VG079: the retry schedule of a Spring Cloud AWS 3.4+ error handler against the queue's maxReceiveCount, the
12-hour cap and the retention; the handler read from a project's Java files, its release from pom.xml/build.gradle."""

from __future__ import annotations

import pytest
from visguard import facts
from visguard.linter.api import lint_model, lint_paths
from visguard.linter.model import Consumer, Location, Model, Queue, Redrive
from visguard.linter.rules._spring_retry import receive_count_for, schedule, time_to_dlq, wait

EXP = {"class": "ExponentialBackoffErrorHandler", "initial": 100, "multiplier": 2.0, "max": 43_200}
LIN = {"class": "LinearBackoffErrorHandler", "initial": 100, "increment": 2, "max": 43_200}
NOW = {"class": "ImmediateRetryAsyncErrorHandler"}


def test_the_schedules_are_the_librarys_formulas():
    assert schedule(EXP, 11) == [100, 200, 400, 800, 1600, 3200, 6400, 12800, 25600, 43200, 43200]
    assert schedule(LIN, 3) == [100, 102, 104]
    assert schedule(NOW, 4) == [0, 0, 0, 0]
    assert schedule({**LIN, "initial": 43_000, "increment": 150}, 3) == [43_000, 43_150, 43_200]
    assert wait({**EXP, "multiplier": 10.0}, 1000) == 43_200  # no overflow at a large receive count
    assert wait({**EXP, "multiplier": 1.0}, 500) == 100
    assert schedule({**EXP, "initial": None}, 3) is None  # a computed setting: no schedule
    assert time_to_dlq([0, 0, 0], work=2) == 6 and time_to_dlq([100, 200]) == 300


def test_the_receive_count_that_reaches_a_time_to_the_dlq():
    assert receive_count_for(EXP, 60) == 1 and receive_count_for(EXP, 301) == 3
    assert receive_count_for(NOW, 60, work=2) == 30
    assert receive_count_for(NOW, 60) is None  # instant work retried at once never takes a minute


def _lint(handler, mrc, retention=None, p50=2, p99=10, vt=60):
    q = Queue(id="Orders", location=Location("infra/main.tf", line=6), name="orders", visibility_timeout=vt,
              message_retention=retention, redrive=Redrive(target="Dlq", target_ref="Dlq", max_receive_count=mrc),
              source="terraform")  # fmt: skip
    dlq = Queue(id="Dlq", location=Location("infra/main.tf", line=1), name="orders-dlq",
                message_retention=1_209_600, source="terraform")  # fmt: skip
    at = Location("app/SqsConfig.java", line=14)
    c = Consumer("app/Listener.java:9", "worker", Location("app/Listener.java", line=9), platform="spring",
                 source="java", processing_p50=p50, processing_p99=p99, settings={"error_handler": handler},
                 locations={"error_handler": at})  # fmt: skip
    q.consumers.append(c)
    m = Model(source_file="infra/main.tf")
    m.add(q)
    m.add(dlq)
    return [f for f in lint_model(m) if f.rule in ("VG078", "VG079")]


@pytest.mark.parametrize(
    ("handler", "mrc", "total", "need"),
    [
        (NOW, 3, 6, 30),
        (NOW, 1, 2, 30),
        ({**EXP, "initial": 1, "max": 10}, 3, 13, 8),
        (LIN | {"initial": 5}, 5, 55, 6),
    ],
)
def test_vg078_time_to_dlq_is_structured_and_its_fix_is_the_receive_count_that_spaces_it(
    handler, mrc, total, need
):
    (f,) = _lint(handler, mrc)
    assert f.rule == "VG078" and f.location.file == "app/SqsConfig.java"
    assert f.estimate["time_to_dlq"] == total and f.estimate["max_receive_count"] == mrc
    assert [(c.field, c.value) for c in f.changes] == [("redrive.max_receive_count", need)]


@pytest.mark.parametrize(("handler", "mrc"), [(EXP, 3), (NOW, 40), (LIN, 1)])
def test_vg078_quiet_when_retries_take_a_minute_or_more(handler, mrc):
    assert not [f for f in _lint(handler, mrc) if f.rule == "VG078"]


def test_vg078_instant_work_retried_at_once_has_no_receive_count_fix():
    (f,) = _lint(NOW, 5, p50=None, p99=None)
    assert f.estimate["time_to_dlq"] == 0 and f.changes == ()


def test_vg079_the_cap_counts_the_work_before_the_change():
    (f,) = _lint(EXP, 10)  # the 10th wait is 43,200 s, asked 10 s after the receive
    assert f.rule == "VG079" and f.estimate["rejected_receives"] == [10]
    assert not _lint({**EXP, "max": 43_190}, 10)  # 43,190 + 10 s of work: within the 12 hours
    assert [f.rule for f in _lint({**EXP, "max": 43_195}, 10)] == ["VG079"]


def test_vg079_retention_outlived_counts_a_rejected_wait_as_the_visibility_in_effect():
    lost = _lint({**EXP, "max": 43_000}, 20)  # 51,100 + 11 x 43,000 + 20 x 2 s > 4 days
    assert [f.rule for f in lost] == ["VG079"] and lost[0].estimate["time_to_dlq"] == 524_140
    ((ch,),) = [f.changes for f in lost]
    assert (ch.field, ch.value) == ("message_retention", 576_554)
    assert not _lint({**EXP, "max": 43_000}, 20, retention=864_000)
    # the default handler at mRC 20: waits 10-20 are rejected (60 s each), so the message is not lost
    assert [f.estimate.get("rejected_receives") for f in _lint(EXP, 20)] == [list(range(10, 21))]


def _project(tmp_path, build: str, build_text: str, handler: str):
    app = tmp_path / "app"
    (app / "src").mkdir(parents=True)
    (app / build).write_text(build_text)
    (app / "src" / "Listener.java").write_text(
        'class Listener {\n  @SqsListener("orders")\n  public void on(String m) {}\n}\n'
    )
    (app / "src" / "SqsConfig.java").write_text(
        "@Configuration\nclass SqsConfig {\n  @Bean\n  public AsyncErrorHandler<Object> asyncErrorHandler() {\n"
        f"    return {handler};\n  }}\n}}\n"
    )
    (tmp_path / "main.tf").write_text(
        'resource "aws_sqs_queue" "dlq" {\n  name = "orders-dlq"\n  message_retention_seconds = 1209600\n}\n'
        'resource "aws_sqs_queue" "orders" {\n  name = "orders"\n  visibility_timeout_seconds = 60\n'
        "  redrive_policy = jsonencode({\n    deadLetterTargetArn = aws_sqs_queue.dlq.arn\n"
        "    maxReceiveCount     = 3\n  })\n}\n"
    )
    return lint_paths([str(tmp_path)])


POM = (
    "<project><dependencyManagement><dependencies><dependency><groupId>io.awspring.cloud</groupId>"
    "<artifactId>spring-cloud-aws-dependencies</artifactId><version>{v}</version><type>pom</type>"
    "</dependency></dependencies></dependencyManagement></project>"
)
GRADLE = (
    'dependencies {{\n  implementation platform("io.awspring.cloud:spring-cloud-aws-dependencies:{v}")\n}}\n'
)
IMMEDIATE = "new ImmediateRetryAsyncErrorHandler<>()"
LINEAR = "LinearBackoffErrorHandler.builder().initialVisibilityTimeoutSeconds(1).increment(1).build()"


@pytest.mark.parametrize(
    ("build", "text", "version", "handler", "judged"),
    [
        ("pom.xml", POM, "3.4.0", IMMEDIATE, True),
        ("pom.xml", POM, "3.3.1", IMMEDIATE, False),  # 3.3 has no such handler: not the library's
        ("build.gradle", GRADLE, "3.4.2", IMMEDIATE, True),
        ("build.gradle", GRADLE, "3.2.1", IMMEDIATE, False),
        ("build.gradle.kts", GRADLE, "3.4.1", LINEAR, True),
        ("pom.xml", POM, "3.4.0", LINEAR, False),  # LinearBackoffErrorHandler is 3.4.1's
        ("pom.xml", "<project/>", "", IMMEDIATE, True),  # no version written: 3.4+ assumed
    ],
)
def test_the_projects_release_decides_whether_the_handler_is_the_librarys(
    tmp_path, build, text, version, handler, judged
):
    res = _project(tmp_path, build, text.format(v=version), handler)
    assert not res.errors
    got = [f for f in res.findings if f.rule == "VG078"]
    assert bool(got) is judged
    if judged:
        assert got[0].location.file.endswith("SqsConfig.java") and got[0].location.line == 5


def test_pom_version_property_is_followed(tmp_path):
    pom = POM.format(v="${spring-cloud-aws.version}").replace(
        "<project>",
        "<project><properties><spring-cloud-aws.version>3.3.0</spring-cloud-aws.version></properties>",
    )
    assert not [f for f in _project(tmp_path, "pom.xml", pom, IMMEDIATE).findings if f.rule == "VG078"]


def test_facts_of_the_handlers_have_their_sources():
    for name in (
        "SPRING_ERROR_HANDLERS_SINCE",
        "SPRING_BACKOFF_INITIAL_DEFAULT",
        "SPRING_BACKOFF_MAX_DEFAULT",
    ):
        assert name in facts.CHECKED
    assert facts.SPRING_ERROR_HANDLERS_SINCE["LinearBackoffErrorHandler"] == (3, 4, 1)


@pytest.mark.parametrize(
    ("handler", "why"),
    [
        ({**EXP, "max": 50_000}, "maxVisibilityTimeoutSeconds(50000) is outside 1-43200"),
        ({**EXP, "initial": 0}, "initialVisibilityTimeoutSeconds(0) is outside 1-43200"),
        ({**EXP, "initial": 600, "max": 300}, "initialVisibilityTimeoutSeconds(600) exceeds"),
        ({**EXP, "multiplier": 0.5}, "multiplier(0.5) is below 1"),
        ({**LIN, "increment": 0}, "increment(0) is below 1"),
    ],
)
def test_vg079_a_builder_value_the_handler_rejects_is_an_application_that_does_not_start(handler, why):
    (f,) = _lint(handler, 3)
    assert f.rule == "VG079" and f.estimate["invalid"].startswith(why)


@pytest.mark.parametrize(
    "text",
    [
        "<project>" + "<artifactId>spring-cloud-aws-x</artifactId><a>b</a>" * 20_000 + "</project>",
        "\x00\xff<version>" * 50_000,
        "<artifactId>spring-cloud-aws</artifactId><version>${nope}</version>",
    ],
)
def test_a_hostile_or_odd_pom_is_read_quickly_and_says_no_version(tmp_path, text):
    import time

    start = time.process_time()
    res = _project(tmp_path, "pom.xml", text, IMMEDIATE)
    assert not res.errors and [f.rule for f in res.findings if f.rule == "VG078"] == ["VG078"]  # 3.4+ assumed
    assert time.process_time() - start < 10


def test_vg079_beyond_the_longest_retention_offers_no_retention_change():
    (f,) = _lint({**EXP, "max": 43_000}, 40, retention=1_209_600)  # 51,100 + 31 x 43,000 s: beyond 14 days
    assert f.changes == () and f.estimate["time_to_dlq"] > 1_209_600
