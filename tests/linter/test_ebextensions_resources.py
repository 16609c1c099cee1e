""".ebextensions that customise Elastic Beanstalk's own resources are valid (issue 35 §3): what concerns the worker is
read, the rest ignored (loaders/ebextensions.py)."""

from __future__ import annotations

import os

from visguard.linter.api import lint_paths

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "consumers", "ebextensions")


def test_customised_beanstalk_resources_are_ignored_and_the_worker_is_read():
    result = lint_paths([os.path.join(FIXTURES, "beanstalk-resources")])
    assert not result.errors
    assert {(f.rule, f.queue) for f in result.findings if f.rule != "VG065"} == {("VG063", "Jobs")}


def test_a_worker_of_the_queue_beanstalk_creates_is_one_note():
    result = lint_paths([os.path.join(FIXTURES, "beanstalk-queue")])
    assert not result.errors
    [note] = [f.message for f in result.findings if f.rule == "VG902"]
    assert "AWSEBWorkerQueue, the queue Elastic Beanstalk creates" in note
