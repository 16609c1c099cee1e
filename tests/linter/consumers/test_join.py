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
from visguard.linter.model import Consumer, Location, Model, Note, Queue


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


# ------------------------------------------------------------------------------------------------ Celery tasks
def _celery_app(cid: str, file: str, queue: str) -> Consumer:
    c = Consumer(id=cid, kind="worker", platform="celery", source="python", location=Location(file, 1))
    c.queue_ref = QueueRef("name", queue)
    c.work_timeout, c.locations["work_timeout"] = 300, Location(file, 4)
    c.settings["delays"] = [{"seconds": 60, "what": "retry countdown", "location": Location(file, 9)}]
    c.locations["delays"] = Location(file, 9)
    return c


def _tasks_only(file: str, *, limit=900, acks_late=True, seconds=7200) -> Consumer:
    c = Consumer(
        id=f"{file}:3", kind="worker", platform="celery", source="python", location=Location(file, 3)
    )
    c.settings["celery_tasks_only"] = True
    c.work_timeout, c.locations["work_timeout"] = limit, Location(file, 3, 11)
    c.settings["acks_late"], c.locations["acks_late"] = acks_late, Location(file, 3, 30)
    c.settings["delays"] = [
        {"seconds": seconds, "what": "apply_async countdown", "location": Location(file, 12)}
    ]
    c.locations["delays"] = Location(file, 12)
    return c


@pytest.mark.parametrize(
    ("config", "tasks", "merged"),
    [
        ("app/celeryconfig.py", "app/tasks.py", True),  # the same folder
        ("app/celeryconfig.py", "app/tasks/email.py", True),  # the config's folder is above the tasks'
        ("tasks.py", "proj/celery.py", True),  # the tasks' folder is above the config's (swapped below)
        ("services/a/celeryconfig.py", "services/b/tasks.py", False),  # sibling projects
        ("app/celeryconfig.py", "application/tasks.py", False),  # a common prefix is not a common folder
    ],
)
def test_a_tasks_only_celery_consumer_merges_into_the_sqs_app_of_its_project(config, tasks, merged):
    if config == "tasks.py":
        config, tasks = tasks, config
    infra, conf, code = Model(), Model(source_file=config), Model(source_file=tasks)
    q = _queue(infra, "aws_sqs_queue.jobs", "jobs")
    a, t = _celery_app(f"{config}:1[jobs]", config, "jobs"), _tasks_only(tasks)
    t.settings["celery_tasks_notes"] = [Note("the Celery countdown is computed", Location(tasks, 14), t.id)]
    conf.pending.append(a)
    code.pending.append(t)
    join([infra, conf, code])
    assert q.consumers == [a]  # the tasks-only consumer is never a queue's
    assert conf.pending == code.pending == [] and conf.notes == []
    if not merged:
        assert (a.work_timeout, len(a.settings["delays"]), "acks_late" in a.settings) == (300, 1, False)
        assert code.notes == []  # dropped silently, its notes with it
        return
    assert [d["seconds"] for d in a.settings["delays"]] == [60, 7200]
    assert a.settings["delays"][1]["location"] == Location(tasks, 12)  # each delay keeps its place
    assert a.locations["delays"] == Location(config, 9)
    assert (a.work_timeout, a.locations["work_timeout"]) == (900, Location(tasks, 3, 11))  # the larger
    assert (a.settings["acks_late"], a.locations["acks_late"]) == (True, Location(tasks, 3, 30))
    assert [n.message for n in code.notes] == ["the Celery countdown is computed"]
    join([infra, conf, code])  # idempotent
    assert len(a.settings["delays"]) == 2 and len(code.notes) == 1


def test_a_tasks_only_consumer_keeps_the_apps_larger_limit_and_reaches_every_queue_and_unjoined_app():
    infra, conf, code = Model(), Model(), Model()
    jobs, mail = _queue(infra, "Jobs", "jobs"), _queue(infra, "Mail", "mail")
    a, b = (
        _celery_app("cfg[jobs]", "app/celery.py", "jobs"),
        _celery_app("cfg[mail]", "app/celery.py", "mail"),
    )
    c = _celery_app("cfg[gone]", "app/celery.py", "gone")  # its queue is in no input: noted, still merged
    a.work_timeout = 3600
    t = _tasks_only("app/tasks.py", limit=900, acks_late=False)
    sdk = _worker("sdk", QueueRef("name", "jobs"), file="app/poll.py")
    conf.pending += [a, b, c, sdk]
    code.pending.append(t)
    join([infra, conf, code])
    assert jobs.consumers == [a, sdk] and mail.consumers == [b]
    assert a.work_timeout == 3600 and a.locations["work_timeout"] == Location("app/celery.py", 4)
    assert b.work_timeout == 900 and "acks_late" not in a.settings  # False or-ed in changes nothing
    assert [d["seconds"] for d in c.settings["delays"]] == [60, 7200]
    assert "delays" not in sdk.settings  # not a Celery app
    assert [n.address for n in conf.notes] == ["cfg[gone]"] and code.notes == []
