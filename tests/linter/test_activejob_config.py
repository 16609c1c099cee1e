"""aws-activejob-sqs configuration (issue 35 §3): ``config/aws_active_job_sqs.yml`` maps each ActiveJob queue to its
SQS URL; the poller's visibility_timeout (per queue, else global) is sent on every receive, shutdown_timeout is
its stop timeout (fixture: tests/linter/fixtures/created/activejob/)."""

from __future__ import annotations

import json
import os

from visguard import facts
from visguard.cli import main
from visguard.linter.loaders.code import loader

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "created", "activejob")


def test_each_queue_of_the_map_is_a_consumer_with_the_pollers_settings():
    model = loader.load(os.path.join(FIXTURE, "config", "aws_active_job_sqs.yml"))
    got = {
        c.id.rsplit(":", 1)[-1]: (
            str(c.queue_ref),
            c.visibility_override,
            c.stop_timeout,
            c.locations["queue_ref"].line,
        )
        for c in model.pending
    }
    assert got == {
        "default": ("https://sqs.eu-west-1.amazonaws.com/123456789012/aj-default", 60, 25, 4),
        "reports": ("$REPORTS_QUEUE_URL", 900, 25, 6),
    }
    assert {c.platform for c in model.pending} == {"activejob"}


def test_the_poller_is_joined_and_judged(capsys):
    main(["lint", "--no-config", "-f", "json", FIXTURE])
    findings = json.loads(capsys.readouterr().out)["findings"]
    vg060 = [f for f in findings if f["rule"] == "VG060"]
    assert len(vg060) == 1 and "visibility_timeout in config/aws_active_job_sqs.yml" in vg060[0]["message"]
    assert [f["rule"] for f in findings if f["queue"] == "aws_sqs_queue.default"].count("VG020") == 1


def test_the_shutdown_default_and_the_old_gems_file(tmp_path):
    (tmp_path / "aws_sqs_active_job.yml").write_text(
        "queues:\n  default: 'https://sqs.us-east-1.amazonaws.com/1/q'\n"
    )
    (c,) = loader.load(str(tmp_path / "aws_sqs_active_job.yml")).pending
    assert (c.stop_timeout, c.visibility_override) == (facts.ACTIVEJOB_SQS_SHUTDOWN_TIMEOUT_DEFAULT, None)


def test_a_computed_url_is_a_note(tmp_path):
    (tmp_path / "aws_active_job_sqs.yml").write_text(
        "queues:\n  default: <%= Rails.application.credentials.q %>\n"
    )
    model = loader.load(str(tmp_path / "aws_active_job_sqs.yml"))
    assert [c.queue_ref for c in model.pending] == [None]
    assert len(model.notes) == 1 and "computed" in model.notes[0].message
