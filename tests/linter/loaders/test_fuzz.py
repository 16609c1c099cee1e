"""Property-based fuzzing of the loaders: generated templates and mutated fixture texts.

Every input either loads into a consistent Model or fails with a VisguardError naming the file; nothing
else may escape. About 1,500 documents per run (the counters below assert it), in well under 20 s.
"""

import glob
import json
import os

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from visguard.errors import VisguardError
from visguard.linter.loaders import decode, load_template
from visguard.linter.loaders.config import config_from_document, model_from_config
from visguard.linter.model import Model

from .conftest import FIXTURES

IDS = ["Q1", "Q2", "Dlq", "Fn", "Alias", "Ver", "Map", "Sam", "Topic", "P1", "P2"]
TYPES = [
    "AWS::SQS::Queue",
    "AWS::SQS::Queue",
    "AWS::Lambda::EventSourceMapping",
    "AWS::Lambda::Function",
    "AWS::Lambda::Alias",
    "AWS::Lambda::Version",
    "AWS::Serverless::Function",
    "AWS::SNS::Topic",
]
NAMES = IDS + ["AWS::Region", "AWS::NoValue", "AWS::AccountId", "Cond", "Nope"]
PROPS = [
    "VisibilityTimeout",
    "MessageRetentionPeriod",
    "DelaySeconds",
    "FifoQueue",
    "QueueName",
    "RedrivePolicy",
    "EventSourceArn",
    "FunctionName",
    "BatchSize",
    "MaximumBatchingWindowInSeconds",
    "FunctionResponseTypes",
    "ScalingConfig",
    "Enabled",
    "Timeout",
    "ReservedConcurrentExecutions",
    "Events",
    "Tags",
    "AutoPublishAlias",
    "Environment",  # a function's environment for its package's code (issue 35: consumers_cfn.function_environment)
    "CodeUri",
    "Code",
    "Handler",
]

scalars = st.one_of(
    st.integers(-5, 50_000),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(
        [
            "600",
            "30",
            "1.5",
            "true",
            "false",
            "abc",
            "",
            "arn:aws:sqs:us-east-1:1:q",
            "ReportBatchItemFailures",
            ".",
            "src/",
            "s3://b/k.zip",
        ]
    ),
    st.booleans(),
    st.none(),
    st.text(max_size=8),
)


def intrinsic(children):
    name = st.sampled_from(NAMES)
    return st.one_of(
        st.builds(lambda n: {"Ref": n}, name),
        st.builds(
            lambda n, a: {"Fn::GetAtt": [n, a]}, name, st.sampled_from(["Arn", "QueueName", "Version", 5])
        ),
        st.builds(lambda n: {"Fn::GetAtt": n}, st.sampled_from(["Q1.Arn", "Dlq", "Fn.Arn", 7])),
        st.builds(
            lambda a, b: {"Fn::Sub": f"${{{a}}}:{b}"},
            name,
            st.sampled_from(["live", "x", "${Dlq.Arn}", "${!Lit}"]),
        ),
        st.builds(lambda v: {"Fn::Sub": v}, children),
        st.builds(lambda v: {"Fn::Join": [":", v]}, st.lists(children, max_size=3)),
        st.builds(lambda v: {"Fn::Join": v}, children),
        st.builds(
            lambda c, a, b: {"Fn::If": [c, a, b]},
            st.sampled_from(["Cond", "Other", "Nope", 3]),
            children,
            children,
        ),
        st.builds(
            lambda i, v: {"Fn::Select": [i, v]}, st.integers(-1, 3), st.lists(children, max_size=3) | children
        ),
        st.builds(lambda v: {"Fn::Split": [",", v]}, children),
        st.builds(lambda a, b: {"Fn::FindInMap": ["M", a, b]}, children, children),
        st.builds(lambda v: {"Fn::ImportValue": v}, children),
        st.builds(lambda v: {"Fn::Base64": v}, children),
        st.builds(lambda v: {"Condition": v}, name),
        st.builds(lambda v: {"Fn::Unknown": v}, children),
    )


values = st.recursive(
    scalars,
    lambda children: st.one_of(
        intrinsic(children),
        st.lists(children, max_size=3),
        st.dictionaries(
            st.sampled_from(
                [
                    "deadLetterTargetArn",
                    "maxReceiveCount",
                    "MaximumConcurrency",
                    "Key",
                    "Value",
                    "Type",
                    "Properties",
                    "Queue",
                    "BatchSize",
                    "Variables",
                    "QUEUE_URL",
                ]
            ),
            children,
            max_size=3,
        ),
    ),
    max_leaves=8,
)

resource = st.fixed_dictionaries(
    {"Type": st.sampled_from(TYPES)},
    optional={
        "Properties": st.dictionaries(st.sampled_from(PROPS), values, max_size=5) | values,
        "Condition": st.sampled_from(["Cond", "Other", "Nope"]),
        "Metadata": st.one_of(
            st.just({"visguard": {"suppress": [{"rule": "VG020", "reason": "r"}]}}),
            st.builds(lambda v: {"visguard": v}, values),
            st.just({"aws:cdk:path": "S/Q/Resource"}),
        ),
        "DependsOn": st.sampled_from(IDS) | st.lists(st.sampled_from(IDS), max_size=2),
    },
)

sqs_event = st.fixed_dictionaries(
    {"Type": st.sampled_from(["SQS", "SQS", "Api"])},
    optional={
        "Properties": st.dictionaries(
            st.sampled_from(["Queue", "BatchSize", "Enabled", "FunctionResponseTypes", "ScalingConfig"]),
            values,
            max_size=4,
        )
    },
)

templates = st.fixed_dictionaries(
    {"Resources": st.dictionaries(st.sampled_from(IDS), resource, max_size=6)},
    optional={
        "Parameters": st.dictionaries(
            st.sampled_from(["P1", "P2"]),
            st.fixed_dictionaries(
                {"Type": st.sampled_from(["String", "Number", "CommaDelimitedList"])},
                optional={"Default": scalars},
            ),
        ),
        "Conditions": st.dictionaries(
            st.sampled_from(["Cond", "Other"]),
            st.one_of(
                st.builds(lambda a, b: {"Fn::Equals": [a, b]}, values, values),
                st.builds(
                    lambda c: {"Fn::Not": [{"Condition": c}]}, st.sampled_from(["Cond", "Other", "Nope"])
                ),
                st.builds(
                    lambda c: {"Fn::And": [{"Condition": c}, True]}, st.sampled_from(["Cond", "Other"])
                ),
                values,
            ),
        ),
        "Mappings": st.just({"M": {"a": {"b": 60}}}),
        "Transform": st.just("AWS::Serverless-2016-10-31"),
        "Globals": st.one_of(st.just({"Function": {"Timeout": 30}}), values),
    },
)


foreach_loops = st.builds(
    lambda ident, items, key, res: {f"Fn::ForEach::{ident}": [ident, items, {key: res}]},
    st.sampled_from(["Name", "X"]),
    st.one_of(st.lists(st.sampled_from(["a", "b-c", "Q1", ""]), max_size=3), st.just({"Ref": "P1"}), values),
    st.sampled_from(["Q${Name}", "Q&{Name}", "Q1", "Dlq${X}"]),
    resource,
)


def _with_events(t: dict, events: dict) -> dict:
    for res in t["Resources"].values():
        if res["Type"] == "AWS::Serverless::Function" and isinstance(res.get("Properties"), dict):
            res["Properties"]["Events"] = events
    return t


def _check(model: Model) -> None:
    assert isinstance(model, Model)
    for qid, q in model.queues.items():
        assert q.id == qid
        assert q.redrive is None or q.redrive.target is None or q.redrive.target in model.queues
        assert isinstance(q.visibility_timeout, (int, float, str, type(None))) and not isinstance(
            q.visibility_timeout, bool
        )
        for c in q.consumers:
            assert c.kind in ("lambda", "worker", "unknown")
            assert c.batch_size is None or isinstance(c.batch_size, int)
        for s in q.suppressions:
            assert isinstance(s.rule, str)


def _load_text(text: str, name: str) -> None:
    try:
        doc = decode.loads(text, file=name)
        if isinstance(doc, dict) and "Resources" not in doc and "queues" in doc:
            model_from_config(doc, file=name)
        else:
            model = load_template(doc, file=name)
            _check(model)
            COUNT["queues"] += len(model.queues)
        COUNT["loaded"] += 1
    except VisguardError as exc:
        assert exc.file == name, exc
        assert "\n" not in str(exc)
        COUNT["errors"] += 1


COUNT = {"generated": 0, "mutated": 0, "config": 0, "loaded": 0, "errors": 0, "queues": 0, "config_models": 0}
# VISGUARD_FUZZ_EXAMPLES=5000 for a longer hunt; the default keeps the file well under 20 s
EXAMPLES = int(os.environ.get("VISGUARD_FUZZ_EXAMPLES", "700"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))


@FUZZ
@given(
    templates,
    st.dictionaries(st.sampled_from(["E1", "E2"]), sqs_event, max_size=2),
    st.booleans(),
    st.none() | foreach_loops,
)
def _prop_generated_templates_load_or_fail_cleanly(template, events, as_json, loop):
    COUNT["generated"] += 1
    t = _with_events(template, events)
    if loop:
        t["Resources"].update(loop)
    text = json.dumps(t, default=str) if as_json else yaml.safe_dump(t, default_flow_style=False)
    _load_text(text, "gen.json" if as_json else "gen.yaml")
    # the dict door (CDK and cfn-lint plugins) too
    try:
        _check(load_template(t, file="dict.json"))
    except VisguardError as exc:
        assert exc.file == "dict.json"


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as fh:
        return fh.read()


SOURCES = [
    _read(p)
    for p in sorted(glob.glob(os.path.join(FIXTURES, "*.yaml")) + glob.glob(os.path.join(FIXTURES, "*.json")))
    + sorted(glob.glob(os.path.join(FIXTURES, "..", "..", "..", "..", "examples", "templates", "*")))
]
SNIPPETS = [
    "!Ref ",
    "!GetAtt ",
    "{",
    "}",
    "[",
    "]",
    ":",
    "- ",
    "\n",
    "  ",
    '"',
    "'",
    "!Sub '${",
    "&a ",
    "*a",
    "<<: ",
    "\t",
    "Fn::If",
    "0x1F",
    "-1",
    "900000",
]


@st.composite
def mutations(draw):
    text = draw(st.sampled_from(SOURCES))
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["insert", "delete", "replace", "dup-line"]))
        if op == "insert":
            text = text[:i] + draw(st.sampled_from(SNIPPETS)) + text[i:]
        elif op == "delete":
            text = text[:i] + text[i + draw(st.integers(1, 40)) :]
        elif op == "replace":
            j = min(len(text), i + draw(st.integers(1, 6)))
            text = text[:i] + draw(st.text(alphabet="0123456789abc-:!{}[]\"' \n", max_size=6)) + text[j:]
        else:
            lines = text.splitlines(keepends=True)
            if lines:
                k = draw(st.integers(0, len(lines) - 1))
                lines.insert(k, lines[k])
                text = "".join(lines)
    return text


@FUZZ
@given(mutations())
def _prop_mutated_templates_load_or_fail_cleanly(text):
    COUNT["mutated"] += 1
    _load_text(text, "mutated.json" if text.lstrip().startswith("{") else "mutated.yaml")


config_values = st.recursive(
    scalars,
    lambda c: (
        st.lists(c, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "name",
                    "match",
                    "p99",
                    "kind",
                    "rule",
                    "reason",
                    "queue",
                    "target",
                    "interval",
                    "consumers",
                    "redrive",
                    "profile",
                ]
            ),
            c,
            max_size=4,
        )
    ),
    max_leaves=10,
)


@settings(max_examples=300, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(
    st.dictionaries(
        st.sampled_from(["version", "settings", "rules", "disable", "suppressions", "profiles", "queues"]),
        config_values,
        max_size=4,
    )
)
def _prop_generated_configs_load_or_fail_cleanly(doc):
    COUNT["config"] += 1
    for fn in (config_from_document, model_from_config):
        try:
            fn(doc, file="visguard.yaml")
        except VisguardError as exc:
            assert exc.file == "visguard.yaml"


def test_generated_and_mutated_templates_and_configs_load_or_fail_cleanly():
    """The three properties above in one test, so the counts are this test's own however the suite is run (one
    process or pytest-xdist workers): at least 1,000 templates per run."""
    for key in ("generated", "mutated", "config", "loaded", "errors", "queues"):
        COUNT[key] = 0
    _prop_generated_templates_load_or_fail_cleanly()
    _prop_mutated_templates_load_or_fail_cleanly()
    _prop_generated_configs_load_or_fail_cleanly()
    assert COUNT["generated"] + COUNT["mutated"] >= 1000, COUNT
    # both outcomes are exercised: the fuzz is not all parse errors, nor all clean templates
    assert COUNT["loaded"] >= 200 and COUNT["errors"] >= 200 and COUNT["queues"] >= 200, COUNT
    print(COUNT)


QNAMES = ["a", "b", "a.fifo", "arn:aws:sqs:us-east-1:1:a", "x*"]
num = st.one_of(st.integers(-5, 100_000), st.floats(0, 1e6))
heartbeat = st.fixed_dictionaries(
    {"interval": st.floats(0.1, 100)}, optional={"extend_by": st.floats(0.1, 100)}
)
processing = {
    "p50": st.floats(0, 1e4),
    "p99": st.floats(0, 1e5),
    "heartbeat": heartbeat,
    "concurrency": st.integers(1, 50),
}
consumer = st.fixed_dictionaries(
    {},
    optional={
        "kind": st.sampled_from(["lambda", "worker"]),
        "id": st.sampled_from(["c1", "c2"]),
        "function": st.sampled_from(["f", "arn:aws:lambda:us-east-1:1:function:f"]),
        "timeout": num,
        "batch_size": st.integers(-1, 20_000),
        "batching_window": num,
        "report_batch_item_failures": st.booleans(),
        "profile": st.sampled_from(["p1", "missing"]),
        **processing,
    },
)
queue_entry = st.fixed_dictionaries(
    {"name": st.sampled_from(QNAMES)},
    optional={
        "id": st.sampled_from(["Q1", "Q2"]),
        "fifo": st.booleans(),
        "visibility_timeout": num,
        "retention": num,
        "redrive": st.fixed_dictionaries(
            {}, optional={"target": st.sampled_from(QNAMES), "max_receive_count": num}
        ),
        "consumers": st.lists(consumer, max_size=3),
        "suppress": st.lists(
            st.fixed_dictionaries(
                {"rule": st.sampled_from(["VG011", "VG020"])}, optional={"reason": st.text(max_size=5)}
            ),
            max_size=2,
        ),
    },
)
profile_entry = st.fixed_dictionaries(
    {"match": st.sampled_from(["a", "*", "Q?", ["a", "b*"]])},
    optional={
        "name": st.sampled_from(["p1", "p2"]),
        "kind": st.sampled_from(["lambda", "worker"]),
        **processing,
    },
)
valid_configs = st.fixed_dictionaries(
    {},
    optional={
        "version": st.just(1),
        "queues": st.lists(queue_entry, max_size=4),
        "profiles": st.lists(profile_entry, max_size=3),
        "rules": st.dictionaries(
            st.sampled_from(["VG011", "VG013"]), st.sampled_from(["off", False, "error"])
        ),
        "suppressions": st.lists(
            st.fixed_dictionaries(
                {"rule": st.sampled_from(["VG020", "*"])},
                optional={"queue": st.just("a*"), "reason": st.just("r")},
            ),
            max_size=2,
        ),
    },
)


@settings(max_examples=400, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(valid_configs)
def _prop_schema_shaped_configs_load_or_fail_cleanly(doc):
    """Documents shaped like the schema reach the model builder and apply_profiles, not just validation."""
    from visguard.linter.loaders import apply_profiles

    try:
        model = model_from_config(doc, file="visguard.yaml")
        config = config_from_document(doc, file="visguard.yaml")
    except VisguardError as exc:
        assert exc.file == "visguard.yaml"
        return
    apply_profiles(model, config)
    _check(model)
    COUNT["config_models"] += 1
    for q in model.queues.values():
        for c in q.consumers:
            assert c.kind in ("lambda", "worker")


def test_schema_shaped_configs_load_or_fail_cleanly_and_mostly_load():
    COUNT["config_models"] = 0
    _prop_schema_shaped_configs_load_or_fail_cleanly()
    assert COUNT["config_models"] >= 100, COUNT
