"""A join is a fact only when it is unique (issue 33, issue 35 §5): a reference joins the one queue it fits (by
name, the account and Region a URL or ARN says, the folder a .env file applies to); where several fit, no queue
is chosen and a note names every candidate; the join is linear in the run's queues and consumers."""

from __future__ import annotations

import json
import os
import time

import pytest
from visguard.cli import main
from visguard.linter.consumers import EnvBinding, QueueRef, find_queue, join, where_of
from visguard.linter.model import Consumer, Location, Model, Queue

URL = "https://sqs.{region}.amazonaws.com/{account}/orders"


def _queue(model: Model, qid: str, name: str, file: str = "infra/main.tf", arn=None, **kw) -> Queue:
    return model.add(Queue(id=qid, location=Location(file, 3), name=name, arn=arn, **kw))


def _worker(ref: QueueRef, file: str = "app/worker.py", cid: str = "w") -> Consumer:
    return Consumer(id=cid, kind="worker", platform="sdk", location=Location(file, 7), queue_ref=ref)


def _env(name: str, value: str, file: str) -> EnvBinding:
    kind = "url" if value.startswith("https://") else "name"
    loc = Location(file, 2)
    return EnvBinding(name, workload=file, ref=QueueRef(kind, value, loc), location=loc)


@pytest.mark.parametrize(
    ("value", "where"),
    [
        ("https://sqs.eu-west-1.amazonaws.com/123456789012/orders", ("123456789012", "eu-west-1")),
        ("https://eu-west-1.queue.amazonaws.com/123456789012/orders", ("123456789012", "eu-west-1")),
        ("https://sqs.cn-north-1.amazonaws.com.cn/123456789012/orders", ("123456789012", "cn-north-1")),
        ("http://localhost:4566/000000000000/orders", ("000000000000", None)),
        ("arn:aws:sqs:us-east-1:123456789012:orders", ("123456789012", "us-east-1")),
        ("arn:aws:sqs:${AWS::Region}:${AWS::AccountId}:orders", (None, None)),
        ("arn:aws:sqs:${Region}:123456789012:orders", ("123456789012", None)),
        ("https://sqs.us-gov-west-1.amazonaws.com/${Account}/orders", (None, "us-gov-west-1")),
        ("orders", (None, None)),
    ],
)
def test_where_a_reference_says_its_queue_is(value, where):
    assert where_of(value) == where


# ---- two queues of one name: only what the reference says decides; else no queue is chosen, every one named
def _two_named_orders(first: dict, second: dict) -> tuple[list[Model], Queue, Queue]:
    a, b = Model(source_file="staging"), Model(source_file="prod")
    qa = _queue(a, "aws_sqs_queue.orders", "orders", "staging/main.tf", **first)
    qb = _queue(b, "aws_sqs_queue.orders", "orders", "prod/main.tf", **second)
    return [a, b], qa, qb


ACC_A, ACC_B = "111111111111", "222222222222"


@pytest.mark.parametrize(
    ("first", "second", "ref", "joined"),
    [
        # the same name in two folders, nothing else said: ambiguous
        ({}, {}, QueueRef("name", "orders"), None),
        ({}, {}, QueueRef("url", "https://h/1/orders"), None),
        # a URL's account decides between two queues of known accounts
        (
            {"account": ACC_A},
            {"account": ACC_B},
            QueueRef("url", URL.format(region="eu-west-1", account=ACC_B)),
            "b",
        ),
        (
            {"account": ACC_A},
            {"account": ACC_B},
            QueueRef("url", URL.format(region="eu-west-1", account=ACC_A)),
            "a",
        ),
        # a URL's Region decides
        (
            {"region": "us-east-1"},
            {"region": "eu-west-1"},
            QueueRef("url", URL.format(region="eu-west-1", account=ACC_A)),
            "b",
        ),
        # an ARN's account and Region, the queue's from its ARN
        (
            {"arn": f"arn:aws:sqs:eu-west-1:{ACC_A}:orders"},
            {"arn": f"arn:aws:sqs:eu-west-1:{ACC_B}:orders"},
            QueueRef("arn", f"arn:aws:sqs:eu-west-1:{ACC_B}:orders"),
            "b",
        ),
        # a queue of unknown account (a template's) fits by name: with a known other one that does not fit, it wins
        ({}, {"account": ACC_B}, QueueRef("url", URL.format(region="eu-west-1", account=ACC_A)), "a"),
        # unknown account on both: ambiguous
        ({}, {}, QueueRef("url", URL.format(region="eu-west-1", account=ACC_A)), None),
    ],
)
def test_two_queues_of_one_name(first, second, ref, joined):
    models, qa, qb = _two_named_orders(first, second)
    app = Model(source_file="app")
    c = _worker(ref)
    app.pending.append(c)
    join([*models, app])
    want = {"a": qa, "b": qb}.get(joined)
    for q in (qa, qb):
        assert q.consumers == ([c] if q is want else [])
    notes = [n.message for n in app.notes]
    if joined is None:
        assert len(notes) == 1 and "fits 2 queues" in notes[0] and "none is chosen" in notes[0]
        assert "staging/main.tf:3" in notes[0] and "prod/main.tf:3" in notes[0]
    else:
        assert notes == []


def test_a_url_of_another_account_is_not_the_queue():
    m = Model()
    _queue(m, "Q", "orders", account=ACC_A, region="eu-west-1")
    other = QueueRef("url", URL.format(region="eu-west-1", account=ACC_B))
    assert find_queue(m, other) is None
    c = _worker(other)
    app = Model()
    app.pending.append(c)
    join([m, app])
    assert m.queues["Q"].consumers == [] and "is not declared" in app.notes[0].message


# ---- .env files: a binding applies to its folder and below, the nearest one wins
@pytest.mark.parametrize(
    ("envs", "worker", "joined", "binding"),
    [
        # two services bind the same variable: each worker its own service's queue
        (
            {"services/a/.env": "a-q", "services/b/.env": "b-q"},
            "services/a/worker.py",
            "a-q",
            "services/a/.env",
        ),
        (
            {"services/a/.env": "a-q", "services/b/.env": "b-q"},
            "services/b/src/worker.py",
            "b-q",
            "services/b/.env",
        ),
        # the nearest .env wins over the root's
        ({".env": "root-q", "services/a/.env": "a-q"}, "services/a/worker.py", "a-q", "services/a/.env"),
        ({".env": "root-q", "services/a/.env": "a-q"}, "services/c/worker.py", "root-q", ".env"),
        # a compose file's environment applies to its folder
        (
            {"services/a/compose.yaml": "a-q", "services/b/.env": "b-q"},
            "services/a/w.py",
            "a-q",
            "services/a/compose.yaml",
        ),
        # a framework's configuration is not a folder's: Spring's resources are beside the code, not above it
        (
            {"svc/src/main/resources/application.properties": "a-q", "other/.env": "b-q"},
            "svc/src/main/java/W.java",
            "a-q",
            "svc/src/main/resources/application.properties",
        ),
        # another service's .env only: not this worker's queue
        ({"services/b/.env": "b-q"}, "services/a/worker.py", None, None),
    ],
)
def test_env_files_bind_their_own_folder(tmp_path, envs, worker, joined, binding):
    infra, app = Model(), Model()
    queues = {n: _queue(infra, n, n) for n in ("a-q", "b-q", "root-q")}
    for file, value in envs.items():
        workload = "api" if file.endswith("compose.yaml") else str(tmp_path / file)
        b = _env("ORDERS_QUEUE", value, str(tmp_path / file))
        b.workload = workload
        app.env.append(b)
    c = _worker(QueueRef("env", "ORDERS_QUEUE"), str(tmp_path / worker))
    app.pending.append(c)
    join([infra, app])
    assert [q.id for q in queues.values() if c in q.consumers] == ([joined] if joined else [])
    if joined:
        assert c.settings["queue_bindings"][joined].file == str(tmp_path / binding)
    else:
        assert "only files of other folders set" in app.notes[0].message
        assert str(tmp_path / "services/b/.env") + ":2" in app.notes[0].message


def test_a_binding_whose_name_fits_two_queues_names_both():
    a, b, app = Model(), Model(), Model()
    _queue(a, "A", "orders", "staging/main.tf")
    _queue(b, "B", "orders", "prod/main.tf")
    app.env.append(_env("ORDERS_QUEUE", "orders", "app/.env"))
    c = _worker(QueueRef("env", "ORDERS_QUEUE"), "app/worker.py")
    app.pending.append(c)
    join([a, b, app])
    assert a.queues["A"].consumers == [] and b.queues["B"].consumers == []
    (note,) = app.notes
    assert "ORDERS_QUEUE at app/.env:2" in note.message and "A at staging/main.tf:3" in note.message


# ---- hang guard: 10,000 consumers x 10,000 queues (about 0.1 s when linear; 55 s before)
def test_the_join_is_linear():
    infra, app = Model(), Model()
    n = 10_000
    for i in range(n):
        _queue(infra, f"Q{i}", f"queue-{i}")
    app.pending += [_worker(QueueRef("name", f"queue-{i}"), cid=f"w{i}") for i in range(n)]
    start = time.perf_counter()
    join([infra, app])
    assert time.perf_counter() - start < 20  # a guard against a hang, not a speed test
    assert all(len(infra.queues[f"Q{i}"].consumers) == 1 for i in range(n))


# ---- a finding joined through an environment binding says which binding (file:line), in every format
EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "examples", "consumers")


def _lint(capsys, fmt: str) -> str:
    main(["lint", "--no-config", "-f", fmt, EXAMPLE])
    return capsys.readouterr().out


@pytest.mark.parametrize(
    ("consumer", "binding"),
    [("app/notify.js", "app/.env:1"), ("app/worker.py", "infra/main.tf:48")],
)
@pytest.mark.parametrize("fmt", ["json", "sarif", "text"])
def test_a_finding_names_the_binding_that_joined_it(capsys, fmt, consumer, binding):
    out = _lint(capsys, fmt)
    if fmt == "json":
        got = {
            f"{f['joined_by']['file'].split('consumers/')[-1]}:{f['joined_by']['line']}"
            for f in json.loads(out)["findings"]
            if consumer in (f["consumer"] or "") and "joined_by" in f
        }
        assert got == {binding}
    elif fmt == "sarif":
        results = json.loads(out)["runs"][0]["results"]
        related = [
            r["relatedLocations"][0]
            for r in results
            if consumer in r["properties"].get("consumer", "") and "relatedLocations" in r
        ]
        assert related and all(binding in x["message"]["text"] for x in related)
        line = int(binding.rsplit(":", 1)[1])
        assert all(x["physicalLocation"]["region"]["startLine"] == line for x in related)
    else:
        assert any(
            line.strip().startswith("joined to the queue by the environment binding at")
            and line.strip().endswith(binding)
            for line in out.splitlines()
        )


def test_a_finding_of_a_literal_reference_names_no_binding(capsys):
    findings = json.loads(_lint(capsys, "json"))["findings"]
    literal = [f for f in findings if f["consumer"] and "joined_by" not in f]
    assert literal  # e.g. the Lambda and the pipe: joined by their own template, not through a variable
