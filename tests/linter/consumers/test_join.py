"""The one join of worker consumers to queues across the inputs of a lint run (linter/consumers.py)."""

from __future__ import annotations

import pytest
from visguard.linter.consumers import (
    EnvBinding,
    QueueRef,
    find_queue,
    join,
    parse_duration,
    queue_name_of,
)
from visguard.linter.model import Consumer, Location, Model, Queue


def _queue(model: Model, qid: str, name: str, arn: str | None = None) -> Queue:
    return model.add(Queue(id=qid, location=Location("infra/main.tf", 3), name=name, arn=arn))


def _worker(cid: str, ref: QueueRef | None, file: str = "app/worker.py") -> Consumer:
    return Consumer(id=cid, kind="worker", platform="sdk", location=Location(file, 7), queue_ref=ref)


@pytest.mark.parametrize(
    ("value", "name"),
    [
        ("https://sqs.eu-west-1.amazonaws.com/123456789012/orders", "orders"),
        ("https://sqs.us-east-1.amazonaws.com/123456789012/jobs.fifo/", "jobs.fifo"),
        ("http://localhost:4566/000000000000/local-q", "local-q"),
        ("arn:aws:sqs:eu-west-1:123456789012:orders", "orders"),
        ("arn:aws-us-gov:sqs:us-gov-west-1:123456789012:gov_q", "gov_q"),
        ("orders", "orders"),
        ("${var.queue}", None),
        ("<imported with Fn::ImportValue>", None),
        ("not a / queue", None),
        ("", None),
        ("x" * 81, None),
    ],
)
def test_queue_name_of(value, name):
    assert queue_name_of(value) == name


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("20m", 1200), ("90s", 90), ("1h30m", 5400), ("1500ms", 1.5), ("600", 600), (45, 45), ("2d", 172_800)],
)
def test_parse_duration(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize(
    "text", ["", "ten minutes", "20x", "m20", "-5", -5, True, None, "1h 30", "9" * 40, [1]]
)
def test_parse_duration_refuses_what_is_not_one(text):
    assert parse_duration(text) is None


def test_find_queue_by_id_name_url_and_arn():
    m = Model()
    q = _queue(m, "aws_sqs_queue.orders", "orders", "arn:aws:sqs:eu-west-1:123456789012:orders")
    assert find_queue(m, QueueRef("id", "aws_sqs_queue.orders")) is q
    assert find_queue(m, QueueRef("name", "orders")) is q
    assert find_queue(m, QueueRef("url", "https://sqs.eu-west-1.amazonaws.com/123456789012/orders")) is q
    assert find_queue(m, QueueRef("arn", "arn:aws:sqs:eu-west-1:123456789012:orders")) is q
    assert find_queue(m, QueueRef("name", "payments")) is None
    assert find_queue(m, QueueRef("id", "orders")) is None  # an id is not a name


def test_join_attaches_across_inputs_and_empties_pending():
    infra, app = Model(source_file="infra"), Model(source_file="app")
    q = _queue(infra, "aws_sqs_queue.orders", "orders")
    c = _worker("receive at app/worker.py:7", QueueRef("url", "https://sqs.eu-west-1.amazonaws.com/1/orders"))
    app.pending.append(c)
    join([infra, app])
    assert q.consumers == [c]
    assert app.pending == [] and app.notes == []
    join([infra, app])  # idempotent
    assert q.consumers == [c]


def test_join_through_an_environment_variable_bound_in_another_input():
    infra, k8s, app = Model(), Model(), Model()
    q = _queue(infra, "OrdersQueue", "orders-prod")
    other = _queue(infra, "Other", "other")
    k8s.env.append(
        EnvBinding(
            "ORDERS_QUEUE_URL", workload="Deployment/worker", ref=QueueRef("url", "https://h/1/orders-prod")
        )
    )
    infra.env.append(EnvBinding("ORDERS_QUEUE_URL", workload="TaskDef", queue="OrdersQueue"))
    c = _worker("orders worker", QueueRef("env", "ORDERS_QUEUE_URL"))
    app.pending.append(c)
    join([infra, k8s, app])
    assert q.consumers == [c]  # bound twice to the same queue: joined once
    assert other.consumers == []


def test_an_environment_variable_bound_to_two_queues_joins_both():
    infra, app = Model(), Model()
    a = _queue(infra, "A", "jobs-staging")
    b = _queue(infra, "B", "jobs-prod")
    infra.env += [EnvBinding("JOBS_URL", queue="A"), EnvBinding("JOBS_URL", queue="B")]
    c = _worker("jobs worker", QueueRef("env", "JOBS_URL"))
    app.pending.append(c)
    join([infra, app])
    assert a.consumers == [c] and b.consumers == [c]


def test_an_unjoined_consumer_becomes_a_note_naming_it_and_its_reference():
    app = Model()
    app.pending += [
        _worker("w1", QueueRef("env", "NOWHERE_URL")),
        _worker("w2", QueueRef("name", "payments")),
        _worker("w3", None),
    ]
    join([app])
    assert app.pending == []
    texts = [n.message for n in app.notes]
    assert len(texts) == 3
    assert "w1" in texts[0] and "NOWHERE_URL" in texts[0]
    assert "w2" in texts[1] and "payments" in texts[1]
    assert "w3" in texts[2] and "names no queue" in texts[2]
    assert all(n.location.file == "app/worker.py" for n in app.notes)


def test_own_model_wins_over_another_input_with_the_same_name():
    mine, theirs = Model(), Model()
    q_mine = _queue(mine, "Mine", "orders")
    q_theirs = _queue(theirs, "Theirs", "orders")
    c = _worker("w", QueueRef("name", "orders"))
    mine.pending.append(c)
    join([theirs, mine])
    assert q_mine.consumers == [c] and q_theirs.consumers == []


def test_code_joined_through_a_workloads_variable_runs_with_its_declared_processing_time():
    infra, app = Model(), Model()
    q = _queue(infra, "aws_sqs_queue.orders", "orders")
    ecs = Consumer(
        id="aws_ecs_task_definition.worker",
        kind="worker",
        platform="ecs",
        processing_p99=300,
        locations={"processing_p99": Location("infra/main.tf", 52)},
    )
    q.consumers.append(ecs)
    infra.env.append(
        EnvBinding("ORDERS_QUEUE_URL", workload="aws_ecs_task_definition.worker/worker", queue=q.id)
    )
    code = _worker("receive at app/worker.py:17", QueueRef("env", "ORDERS_QUEUE_URL"))
    own = _worker("declared", QueueRef("env", "ORDERS_QUEUE_URL"))
    own.processing_p99 = 20
    app.pending += [code, own]
    join([app, infra])
    assert code.processing_p99 == 300 and code.locations["processing_p99"].line == 52
    assert code.settings["workload"] == "aws_ecs_task_definition.worker"
    assert own.processing_p99 == 20  # what the code declares itself is kept
    assert ecs.processing_p99 == 300 and "workload" not in ecs.settings


def test_a_literal_reference_inherits_nothing():
    infra, app = Model(), Model()
    q = _queue(infra, "Q", "orders")
    q.consumers.append(Consumer(id="Q-worker", kind="worker", platform="ecs", processing_p99=300))
    c = _worker("w", QueueRef("name", "orders"))
    app.pending.append(c)
    join([infra, app])
    assert c.processing_p99 is None and "workload" not in c.settings


def test_a_variable_bound_nowhere_joins_by_the_codes_literal_default():
    infra, code = Model(source_file="infra/main.tf"), Model(source_file="app/worker.py")
    q = _queue(infra, "aws_sqs_queue.jobs", "jobs")
    _queue(infra, "aws_sqs_queue.other", "other")
    at = Location("app/worker.py", 4, 30)
    by_default = _worker("app/worker.py:4", QueueRef("env", "JOBS_Q", at, QueueRef("name", "jobs", at)))
    no_default = _worker("app/other.py:9", QueueRef("env", "NOPE_Q"), "app/other.py")
    code.pending = [by_default, no_default]
    join([infra, code])
    assert q.consumers == [by_default]
    assert (
        by_default.settings["queue_fallback"] == "jobs"
    )  # the consumer says the default was used, and where
    assert by_default.locations["queue_fallback"] == at
    assert [n.address for n in code.notes] == ["app/other.py:9"]


def test_a_bound_variable_wins_over_the_literal_default_even_when_its_queue_is_elsewhere():
    infra, code, env = Model(), Model(), Model(source_file="deploy/.env")
    jobs = _queue(infra, "aws_sqs_queue.jobs", "jobs")
    env.env = [EnvBinding("JOBS_Q", workload="deploy/.env", ref=QueueRef("name", "prod-jobs"))]
    c = _worker("app/worker.py:4", QueueRef("env", "JOBS_Q", None, QueueRef("name", "jobs")))
    code.pending = [c]
    join([infra, code, env])
    assert jobs.consumers == [] and "queue_fallback" not in c.settings
    assert len(code.notes) == 1 and "JOBS_Q" in code.notes[0].message
