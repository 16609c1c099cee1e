"""The queue Kombu creates for a Celery worker on SQS (issue 35 §2): when no input of the run declares the queue the
worker reads, it is the queue Kombu creates at worker start (VisibilityTimeout from the transport options, no
redrive policy), and the rules judge it; a declared queue of that name is joined instead
(fixtures: tests/linter/fixtures/created/celery/README.md)."""

from __future__ import annotations

import json
import os

import pytest
from visguard import facts
from visguard.cli import main
from visguard.linter.created_queues import kombu_name

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "created", "celery")


def _lint(capsys, case: str) -> list[dict]:
    main(["lint", "--no-config", "-f", "json", os.path.join(FIXTURES, case)])
    out, err = capsys.readouterr()
    assert err == ""
    return json.loads(out)["findings"]


def _models(case: str):
    from visguard.linter.api import lint_paths  # noqa: F401 - the loaders register on import
    from visguard.linter.consumers import join
    from visguard.linter.loaders import registry

    items = registry.discover([os.path.join(FIXTURES, case)], exclude=(), errors=[])
    models = [i.loader.load(i.path, registry.LoadOptions()) for i in items]
    join(models)
    return models


def test_the_queue_kombu_creates_is_judged_where_no_input_declares_it(capsys):
    findings = _lint(capsys, "literal")
    vg020 = [f for f in findings if f["rule"] == "VG020"]
    assert len(vg020) == 1
    f = vg020[0]
    # named as Kombu names it (prefix + queue), located at the transport options, created at run time
    assert f["queue"] == "dev-jobs"
    assert f["file"].endswith("literal/celeryconfig.py") and f["line"] == 3
    assert "celeryconfig.py:3 at run time (by Kombu at worker start)" in f["fix"]
    assert not [f for f in findings if f["rule"] in ("VG902", "VG060")]


def test_the_created_queue_has_the_transport_options_visibility_and_no_redrive():
    (model,) = _models("literal")
    q = model.queues["dev-jobs"]
    assert (q.visibility_timeout, q.redrive, q.fifo, q.source) == (60, None, False, "code")
    assert q.locations["visibility_timeout"].line == 6
    assert [c.platform for c in q.consumers] == ["celery"] and model.pending == []


def test_kombus_default_visibility_applies_when_the_options_set_none(tmp_path):
    (tmp_path / "worker.py").write_text('from celery import Celery\napp = Celery("w", broker="sqs://")\n')
    from visguard.linter.consumers import join
    from visguard.linter.loaders.code import loader

    model = loader.load(str(tmp_path / "worker.py"))
    join([model])
    assert model.queues["celery"].visibility_timeout == facts.CELERY_SQS_VISIBILITY_DEFAULT
    assert len(model.queues["celery"].consumers) == 1


def test_a_declared_queue_of_that_name_is_joined_and_kombu_creates_nothing(capsys):
    findings = _lint(capsys, "declared")
    assert {f["queue"] for f in findings} == {"aws_sqs_queue.jobs"}
    # the transport option's visibility applies only to a queue Kombu creates: VG060 says it is ignored
    assert [f["line"] for f in findings if f["rule"] == "VG060"] == [6]
    assert not [f for f in findings if f["rule"] == "VG020"]
    models = _models("declared")
    assert not [q for m in models for q in m.queues.values() if q.source == "code"]


def test_a_name_from_an_unbound_variable_without_default_stays_a_note(capsys):
    findings = _lint(capsys, "env-unbound")
    assert [f["rule"] for f in findings] == ["VG902"]
    assert "CELERY_QUEUE" in findings[0]["message"]
    assert sum(len(m.queues) for m in _models("env-unbound")) == 0


def test_a_name_bound_by_a_env_file_is_judged_without_printing_the_value(capsys):
    findings = _lint(capsys, "env-bound")
    vg020 = [f for f in findings if f["rule"] == "VG020"]
    assert [(f["queue"], f["line"]) for f in vg020] == [("$CELERY_QUEUE", 7)]
    assert all("reports" not in json.dumps(f) for f in findings)


def test_predefined_queues_are_not_created(capsys):
    findings = _lint(capsys, "predefined")
    assert [f["rule"] for f in findings] == ["VG902"]
    assert sum(len(m.queues) for m in _models("predefined")) == 0


def test_a_default_from_the_code_names_the_created_queue(tmp_path):
    (tmp_path / "worker.py").write_text(
        'import os\nfrom celery import Celery\napp = Celery("w", broker="sqs://")\n'
        'app.conf.task_default_queue = os.getenv("CELERY_QUEUE", "reports.fifo")\n'
    )
    from visguard.linter.consumers import join
    from visguard.linter.loaders.code import loader

    model = loader.load(str(tmp_path / "worker.py"))
    join([model])
    q = model.queues["reports.fifo"]
    assert q.fifo and len(q.consumers) == 1


@pytest.mark.parametrize(
    ("prefix", "name", "sqs"),
    [
        ("dev-", "jobs", "dev-jobs"),
        ("", "app.tasks", "app-tasks"),
        ("p:", "a b", "p_a b"),
        ("", "x.y.fifo", "x-y.fifo"),
    ],
)
def test_kombu_names_the_queue_as_its_transport_does(prefix, name, sqs):
    assert kombu_name(prefix, name) == sqs


def test_the_queue_is_located_at_the_options_written_through_a_name(tmp_path):
    (tmp_path / "settings.py").write_text(
        "OPTIONS = {\n    'region': 'eu-west-1',\n    'visibility_timeout': 90,\n}\n"
        "CELERY_BROKER_URL = 'sqs://'\nCELERY_BROKER_TRANSPORT_OPTIONS = OPTIONS\n"
    )
    from visguard.linter.consumers import join
    from visguard.linter.loaders.code import loader

    model = loader.load(str(tmp_path / "settings.py"))
    join([model])
    q = model.queues["celery"]
    assert (q.location.line, q.visibility_timeout, q.locations["visibility_timeout"].line) == (1, 90, 3)
