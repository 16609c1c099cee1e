"""VG074: a consumer's own visibility (``Consumer.visibility_override``, a framework's ``created_visibility``) outside
the SQS range 0-43,200 s, owned by one rule as VG001 owns the queue's: the same AWS fact, the same severity."""

from __future__ import annotations

import pytest
from visguard import facts
from visguard.linter.api import lint_model
from visguard.linter.loaders import values
from visguard.linter.model import Consumer, Location, Model, Queue
from visguard.linter.rules import ALL_RULES


def _lint(c: Consumer, vt=60):
    q = Queue(id="Jobs", location=Location("infra/main.tf", line=1), name="jobs", visibility_timeout=vt,
              locations={"visibility_timeout": Location("infra/main.tf", line=3)}, source="terraform")  # fmt: skip
    q.consumers.append(c)
    m = Model(source_file="infra/main.tf")
    m.add(q)
    return lint_model(m)


def _worker(platform="sdk", source="python", **kw) -> Consumer:
    loc = Location("app/worker.py", line=9)
    locations = {k: Location("app/worker.py", line=10) for k in ("visibility_override", "created_visibility")}
    return Consumer("app/worker.py:9", "worker", loc, platform=platform, source=source, locations=locations,
                    processing_p50=2, processing_p99=10, **kw)  # fmt: skip


OUT = [50_000, 43_201, 43_200.5, -1, 10**20, values.MAX_NUMBER, float("inf")]
IN = [0, 1, 60, 43_200, 600.0, 30.5, "${VISIBILITY}", None, True]  # (30.5: a unit conversion's, sent whole)
PLATFORMS = [("sdk", "python"), ("sdk", "go"), ("sdk", "javascript"), ("sqs-consumer", "javascript"),
             ("spring", "java"), ("shoryuken", "ruby"), ("beanstalk", "cloudformation")]  # fmt: skip


@pytest.mark.parametrize("value", OUT, ids=repr)
@pytest.mark.parametrize(("platform", "source"), PLATFORMS, ids=lambda v: str(v))
def test_a_consumers_own_visibility_outside_the_range_is_vg074s(platform, source, value):
    fs = _lint(_worker(platform, source, visibility_override=value))
    (f,) = [f for f in fs if f.rule == "VG074"]
    assert f.severity == ALL_RULES["VG001"].severity  # a value SQS rejects, as the queue's
    assert (f.location.file, f.location.line) == ("app/worker.py", 10)  # where the value is written
    assert "0-43200" in f.message and "infra/main.tf:1" in f.message
    (ch,) = f.changes
    assert (
        ch.field == "visibility_override"
        and ch.value in facts.VISIBILITY_TIMEOUT
        and ch.value == int(ch.value)
    )
    assert ch.value >= 60  # the queue's (then the receive agrees with it), at least the need
    assert not {"VG060", "VG061", "VG070"} & {g.rule for g in fs}  # one value, one rule


@pytest.mark.parametrize("value", IN, ids=repr)
@pytest.mark.parametrize(("platform", "source"), PLATFORMS, ids=lambda v: str(v))
def test_a_consumers_own_visibility_in_range_or_unknown_is_not_vg074s(platform, source, value):
    assert [f for f in _lint(_worker(platform, source, visibility_override=value)) if f.rule == "VG074"] == []


@pytest.mark.parametrize("value", OUT[:-1], ids=repr)
def test_a_framework_created_visibility_outside_the_range_is_vg074s(value):
    c = _worker("celery", "python", settings={"created_visibility": value})
    fs = _lint(c)
    (f,) = [f for f in fs if f.rule == "VG074"]
    assert f.severity == ALL_RULES["VG001"].severity and f.changes == ()
    assert 'broker_transport_options["visibility_timeout"]' in f.message
    assert "VG060" not in {g.rule for g in fs}  # not also "ignored": out of range is VG074's


@pytest.mark.parametrize("value", [60, 900, 43_200])
def test_a_framework_created_visibility_in_range_is_not_vg074s(value):
    assert [
        f
        for f in _lint(_worker("celery", "python", settings={"created_visibility": value}))
        if f.rule == "VG074"
    ] == []
