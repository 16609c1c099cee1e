"""A Celery project on SQS split over files (issue 25): the broker in app/celeryconfig.py, the tasks in
app/tasks.py, the queue in infra/main.tf. The tasks' delays and time limits reach VG071/VG072 through the app
the configuration declares (linter.consumers.join merges them), and stay silent on a broker that is not SQS."""

from __future__ import annotations

import json

import pytest
from visguard.cli import main

CONFIG = """\
broker_url = "sqs://"
broker_transport_options = {
    "region": "eu-west-1",
    "predefined_queues": {"jobs": {"url": "https://sqs.eu-west-1.amazonaws.com/123456789012/jobs"}},
}
"""
REDIS = 'broker_url = "redis://localhost:6379/0"\nbroker_transport_options = {"visibility_timeout": 43200}\n'
TASKS = """\
from app.worker import app


@app.task(time_limit=900, acks_late=True)
def remind(user_id):
    ...


def later(user_id):
    remind.apply_async(args=[user_id], countdown=7200)
    remind.apply_async(args=[user_id], countdown=wait_for(user_id))
"""
TF = """\
resource "aws_sqs_queue" "jobs_dlq" {
  name = "jobs-dlq"
}

resource "aws_sqs_queue" "jobs" {
  name                       = "jobs"
  visibility_timeout_seconds = 600
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.jobs_dlq.arn
    maxReceiveCount     = 5
  })
}
"""


def _project(tmp_path, config: str):
    (tmp_path / "app").mkdir()
    (tmp_path / "infra").mkdir()
    (tmp_path / "app" / "celeryconfig.py").write_text(config)
    (tmp_path / "app" / "tasks.py").write_text(TASKS)
    (tmp_path / "infra" / "main.tf").write_text(TF)
    return tmp_path


def _lint(capsys, path):
    code = main(["lint", "--no-config", "-f", "json", str(path)])
    out, err = capsys.readouterr()
    return code, json.loads(out)["findings"], err


def _line(needle: str) -> int:
    return next(i for i, text in enumerate(TASKS.splitlines(), 1) if needle in text)


def test_the_tasks_of_an_sqs_app_configured_in_another_file_are_checked(tmp_path, capsys):
    code, findings, err = _lint(capsys, _project(tmp_path, CONFIG))
    assert (code, err) == (2, "")
    got = {
        (f["rule"], f["file"].rsplit("/", 2)[-2:] == ["app", "tasks.py"], f["line"], f["queue"])
        for f in findings
        if f["rule"] in ("VG071", "VG072")
    }
    assert got == {
        ("VG071", True, _line("countdown=7200"), "aws_sqs_queue.jobs"),
        ("VG072", True, _line("time_limit=900"), "aws_sqs_queue.jobs"),
    }
    assert all(
        f["consumer"].endswith("app/celeryconfig.py:1[jobs]") for f in findings if f["rule"] == "VG071"
    )
    # the computed countdown is named once the tasks are known to run on SQS
    notes = [f for f in findings if f["rule"] == "VG902" and f["file"].endswith("tasks.py")]
    assert len(notes) == 1 and "wait_for(user_id)" in notes[0]["message"]


@pytest.mark.parametrize("config", [REDIS, 'broker_url = "amqp://guest@localhost//"\n'])
def test_the_same_tasks_beside_a_broker_that_is_not_sqs_say_nothing(tmp_path, capsys, config):
    code, findings, err = _lint(capsys, _project(tmp_path, config))
    assert err == ""
    assert [f for f in findings if not f["file"].endswith("main.tf")] == []
