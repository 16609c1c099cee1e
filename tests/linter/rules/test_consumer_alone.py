"""The rules that judge what a consumer sets itself run on a consumer whose queue is not known (issue 35):
VG070 (a receive's VisibilityTimeout 0), VG072 (a framework's work limit beyond the consumer's own visibility),
VG073 (sqs-consumer's heartbeatInterval not below its visibilityTimeout) and VG074 (its own visibility out of
range) need no queue. A consumer that no queue of the run fits (or several fit) is judged alone, once, its finding
naming the consumer and what it names its queue by; a joined consumer is judged on its queue only (no duplicate).
Fixtures: tests/linter/fixtures/consumers/alone/ (Python receive loops, Node sqs-consumer)."""

from __future__ import annotations

import shutil
from pathlib import Path

from visguard.cli import main
from visguard.linter.api import lint_model, lint_paths
from visguard.linter.consumers import QueueRef, join
from visguard.linter.model import Consumer, LintConfig, Location, Model, Queue, Suppression
from visguard.linter.rules import RULES

ALONE = Path(__file__).parents[1] / "fixtures" / "consumers" / "alone"


def _findings(case: str, config: LintConfig | None = None):
    result = lint_paths([str(ALONE / case)], config=config)
    assert result.errors == [], result.errors
    return [f for f in result.findings if f.rule != "VG902"], result.findings


def test_the_rules_that_judge_a_consumer_alone_are_these():
    assert sorted(r.id for r in RULES.values() if r.check_consumer is not None) == [
        "VG031",  # a Lambda mapping's batches, whatever its queue (a parameter, an import, another account's)
        "VG070",
        "VG072",
        "VG073",
        "VG074",
        "VG076",  # sqs-consumer 14+ deletes nothing whatever the queue (issue 36)
    ]


def test_a_receive_of_an_unknown_queue_is_judged_on_what_it_sets_itself():
    got, everything = _findings("python")
    assert sorted((f.rule, f.queue, f.location.line) for f in got) == [
        ("VG070", "$JOBS_QUEUE_URL", 10),
        ("VG074", "$REPORTS_QUEUE_URL", 18),
    ]
    for f in got:
        assert f.consumer and f.consumer.endswith(f"worker.py:{f.location.line}"), f.consumer
        assert "is not known here" in f.message, f.message
        assert "receives from" not in f.message, f.message  # no queue is named as if it were known
        assert f.changes == (), f.changes  # the value to write would be the queue's: a guess
    # the note that says the consumer was not joined is still there, once per consumer
    assert sorted(f.location.line for f in everything if f.rule == "VG902") == [10, 18]


def test_a_joined_consumer_is_judged_on_its_queue_only():
    got, _ = _findings("joined")
    judged = [(f.rule, f.queue) for f in got if f.rule in ("VG070", "VG074")]
    assert sorted(judged) == [("VG070", "aws_sqs_queue.jobs"), ("VG074", "aws_sqs_queue.reports")]
    assert not [f for f in got if f.queue.startswith("$")], got
    assert all(f.changes for f in got if f.rule in ("VG070", "VG074"))  # the queue's timeout is known


def test_sqs_consumer_options_are_judged_without_the_queue():
    got, _ = _findings("javascript")
    assert sorted((f.rule, f.queue, f.location.line) for f in got) == [
        ("VG072", "$EXPORT_QUEUE_URL", 15),
        ("VG073", "$RENDER_QUEUE_URL", 6),
    ]
    vg072 = next(f for f in got if f.rule == "VG072")
    assert "visibilityTimeout = 60 s" in vg072.message, vg072.message  # its own visibility, not the queue's


def test_a_work_limit_is_not_judged_against_an_unknown_queue_s_visibility():
    got, everything = _findings("javascript-queue-visibility")
    assert got == []  # the queue's timeout is what applies, and it is not known: no default is guessed
    assert [f.rule for f in everything] == ["VG902"]


def test_the_fix_of_an_unjoined_consumer_is_written_where_it_sets_its_visibility(tmp_path, capsys):
    work = tmp_path / "svc"
    shutil.copytree(ALONE / "javascript", work)
    assert main(["lint", "--no-config", "--fix", str(work)]) in (0, 2)
    text = (work / "app" / "worker.js").read_text()
    assert "visibilityTimeout: 60,\n  heartbeatInterval: 30" in text  # twice the heartbeat: VG073 settled
    capsys.readouterr()
    assert main(["lint", "--no-config", "--format", "json", str(work)]) == 0  # only the VG902 notes remain


def test_disabled_and_suppressed_rules_stay_quiet_on_a_consumer_alone():
    config = LintConfig(disabled={"VG070"})
    got, _ = _findings("python", config)
    assert [f.rule for f in got] == ["VG074"]
    config = LintConfig(
        suppressions=[Suppression("VG074", "the reports worker is retired")],
        suppression_queues={0: "$REPORTS*"},
    )
    got, _ = _findings("python", config)
    assert [f.rule for f in got] == ["VG070"]


def _ambiguous_model():
    """A consumer whose URL fits two queues of one name (two folders, no account or Region declared)."""
    a, b = Model(), Model()
    for m, folder in ((a, "staging"), (b, "prod")):
        m.add(Queue(id="aws_sqs_queue.orders", location=Location(f"{folder}/main.tf", 1), name="orders"))
    code = Model()
    ref = QueueRef("url", "https://sqs.eu-west-1.amazonaws.com/123456789012/orders", Location("app/w.py", 4))
    c = Consumer(id="app/w.py:4", kind="worker", platform="sdk", location=Location("app/w.py", 4), queue_ref=ref,
                 visibility_override=0, locations={"visibility_override": Location("app/w.py", 5)})  # fmt: skip
    code.pending.append(c)
    return a, b, code, c


def test_a_consumer_whose_queue_is_ambiguous_is_judged_alone_once():
    a, b, code, c = _ambiguous_model()
    join([a, b, code])
    assert code.unjoined == [c]
    assert all(c not in q.consumers for m in (a, b) for q in m.queues.values())  # none chosen
    got = lint_model(code)
    assert [(f.rule, f.queue, f.consumer) for f in got] == [
        ("VG070", "https://sqs.eu-west-1.amazonaws.com/123456789012/orders", "app/w.py:4")
    ]
    assert got[0].location.line == 5
    assert lint_model(a) == [] and lint_model(b) == []  # no queue is judged for it
    join([a, b, code])  # idempotent: nothing pending, nothing added
    assert code.unjoined == [c]
