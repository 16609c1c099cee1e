"""squiss-ts / squiss pollers (issue 35 §3): ``new Squiss({...})`` is a consumer of its ``queueUrl`` or
``queueName``, receiving with ``visibilityTimeoutSecs`` (none: the queue's), extending with
``autoExtendTimeout`` (fixture: tests/linter/fixtures/created/squiss/)."""

from __future__ import annotations

import json
import os

from visguard.cli import main
from visguard.linter.loaders.code import loader

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "created", "squiss")


def _one(name: str):
    model = loader.load(os.path.join(FIXTURE, name))
    assert model.notes == []
    (c,) = model.pending
    return c


def test_a_squiss_ts_poller_with_its_options():
    c = _one("poller.ts")
    assert (c.platform, str(c.queue_ref), c.visibility_override, c.concurrency, c.heartbeat) == (
        "squiss",
        "squiss-jobs",
        45,
        20,
        True,
    )
    assert c.locations["visibility_override"].line == 5


def test_the_legacy_package_required_by_its_default_export():
    c = _one("legacy.js")
    assert (str(c.queue_ref), c.visibility_override, c.settings["wait_time"], c.heartbeat) == (
        "$LEGACY_QUEUE_URL",
        600,
        10,
        False,
    )


def test_a_class_named_squiss_of_another_module_is_not_a_poller(tmp_path):
    (tmp_path / "a.js").write_text('const { Squiss } = require("./mine");\nnew Squiss({ queueName: "x" });\n')
    assert loader.load(str(tmp_path / "a.js")).pending == []


def test_the_poller_is_joined_and_its_visibility_judged(capsys):
    main(["lint", "--no-config", "-f", "json", FIXTURE])
    findings = json.loads(capsys.readouterr().out)["findings"]
    vg060 = [f for f in findings if f["rule"] == "VG060"]
    assert [f["queue"] for f in vg060] == ["aws_sqs_queue.jobs"]
    assert "visibilityTimeoutSecs option of new Squiss 45 s" in vg060[0]["message"]
