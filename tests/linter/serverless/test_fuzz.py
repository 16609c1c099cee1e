"""Property-based fuzzing of the Serverless loader: generated services (variables, events, Lift constructs,
resources) and mutated fixture texts. Every input loads into a Model whose locations point into the service,
or fails with a VisguardError naming a file; nothing else escapes, nothing hangs."""

from __future__ import annotations

import random
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from visguard.errors import VisguardError
from visguard.linter.api import lint_model
from visguard.linter.loaders import serverless
from visguard.linter.model import Model

from .conftest import options

VARS = [
    "${self:custom.a}", "${self:custom.b, 30}", "${opt:stage, 'dev'}", "${sls:stage}", "${env:T, 60}",
    "${env:T}", "${ssm:/x}", "${file(./inc.yml):v}", "${file(../out.yml)}", "${self:custom.${opt:k, 'a'}}",
    "${strToBool(true)}", "${construct:jobs.queueArn}", "${param:p}", "${aws:region}", "${self:}", "${",
    "${self:custom.a}-${sls:stage}", "}", "${opt:}",
]  # fmt: skip
scalars = st.one_of(
    st.integers(-5, 50000), st.sampled_from(VARS), st.booleans(), st.none(), st.text(max_size=8),
    st.floats(allow_nan=True, allow_infinity=True),
)  # fmt: skip
values = st.recursive(
    scalars,
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c, max_size=3),
    max_leaves=8,
)
arn = st.one_of(
    st.sampled_from(["!GetAtt Q.Arn", "!GetAtt D.Arn", "!Ref Q", "arn:aws:sqs:us-east-1:1:q", "${construct:jobs.queueArn}"]),
    values,
)  # fmt: skip
sqs = st.one_of(arn, st.fixed_dictionaries({"arn": arn}, optional={
    "batchSize": values, "maximumBatchingWindow": values, "functionResponseType": values,
    "maximumConcurrency": values, "enabled": values}))  # fmt: skip
function = st.fixed_dictionaries(
    {"handler": st.just("h.m")},
    optional={"timeout": values, "name": values, "reservedConcurrency": values,
              "events": st.one_of(st.lists(st.one_of(st.builds(lambda s: {"sqs": s}, sqs), values), max_size=3), values)},
)  # fmt: skip
construct = st.fixed_dictionaries(
    {"type": st.sampled_from(["queue", "queue", "storage", 3])},
    optional={"worker": st.one_of(function, st.just("fn0"), values), "maxRetries": values, "batchSize": values,
              "maxBatchingWindow": values, "fifo": values, "delay": values,
              "extensions": st.one_of(values, st.just({"queue": {"Properties": {"VisibilityTimeout": 1}}}))},
)  # fmt: skip
queue = st.fixed_dictionaries(
    {"Type": st.sampled_from(["AWS::SQS::Queue", "AWS::SQS::Queue", "AWS::SNS::Topic"])},
    optional={"Properties": st.one_of(values, st.fixed_dictionaries({}, optional={
        "VisibilityTimeout": values, "FifoQueue": values, "MessageRetentionPeriod": values, "QueueName": values,
        "RedrivePolicy": st.one_of(values, st.fixed_dictionaries({"deadLetterTargetArn": arn, "maxReceiveCount": values}))}))},
)  # fmt: skip
services = st.fixed_dictionaries(
    {"service": st.one_of(st.just("svc"), values), "provider": st.one_of(st.just({"name": "aws"}), values)},
    optional={
        "custom": st.dictionaries(st.sampled_from(["a", "b", "k"]), values, max_size=3),
        "functions": st.one_of(st.dictionaries(st.sampled_from(["fn0", "fn-1", "fn_2"]), function, max_size=3), values),
        "constructs": st.one_of(st.dictionaries(st.sampled_from(["jobs", "other"]), construct, max_size=2), values),
        "resources": st.one_of(st.fixed_dictionaries({"Resources": st.dictionaries(st.sampled_from(["Q", "D", "T"]), queue, max_size=3)}), values),
        "stages": values,
    },
)  # fmt: skip

COUNT = {"loaded": 0, "rejected": 0}


def _check(tmp_path, text: str) -> None:
    p = tmp_path / "serverless.yml"
    p.write_text(text)
    try:
        model = serverless.load(str(p), options())
    except VisguardError as exc:
        assert exc.file, exc
        COUNT["rejected"] += 1
        return
    assert isinstance(model, Model)
    for f in lint_model(model):
        assert f.location.file.endswith(("serverless.yml", "inc.yml")), f.location
        assert f.location.path is None or "/" not in f.location.path or f.location.path == "comment", (
            f.location
        )
    COUNT["loaded"] += 1


def _dump(doc) -> str:
    text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)
    return (
        text.replace("'!GetAtt Q.Arn'", "!GetAtt Q.Arn")
        .replace("'!GetAtt D.Arn'", "!GetAtt D.Arn")
        .replace("'!Ref Q'", "!Ref Q")
    )


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(services)
def _fuzz_generated_services(tmp_path, doc):
    (tmp_path / "inc.yml").write_text("v: 45\nw: ${self:custom.a}\n")
    _check(tmp_path, _dump(doc))


RULE_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "rules"
FIXTURE_TEXTS = sorted(p.read_text() for p in RULE_FIXTURES.glob("*/serverless/*/serverless.yml"))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, len(FIXTURE_TEXTS) - 1), st.integers(0, 2**32 - 1), st.integers(1, 4))
def _fuzz_mutated_fixtures(tmp_path, which, seed, n):
    rnd = random.Random(seed)
    text = FIXTURE_TEXTS[which]
    for _ in range(n):
        i = rnd.randrange(len(text) + 1)
        op = rnd.randrange(3)
        if op == 0:
            text = text[:i] + text[i + 1 :]
        elif op == 1:
            text = (
                text[:i]
                + rnd.choice(["${", "}", ":", "\n  ", "- ", "!GetAtt ", "${self:", "'", "[", "&a", "*a"])
                + text[i:]
            )
        else:
            j = rnd.randrange(len(text) + 1)
            text = text[:i] + text[j : j + 20] + text[i:]
    _check(tmp_path, text)


def test_generated_and_mutated_services_load_or_fail_cleanly(tmp_path):
    """Both fuzzers in one test, so the counts below are this test's own whatever runs the suite (one process or
    pytest-xdist workers): enough services were tried, and both outcomes were reached."""
    COUNT.update(loaded=0, rejected=0)
    _fuzz_generated_services(tmp_path)
    _fuzz_mutated_fixtures(tmp_path)
    assert COUNT["loaded"] + COUNT["rejected"] >= 300, COUNT
    assert COUNT["loaded"] > 50 and COUNT["rejected"] > 10, COUNT
