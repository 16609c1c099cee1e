"""visguard.yaml: schema validation with path and line, settings, queues, profiles."""

import json
import os

import jsonschema
import pytest
from visguard.errors import VisguardError
from visguard.linter.loaders import apply_profiles, load_config, load_path
from visguard.linter.loaders.config import schema_path
from visguard.linter.model import Consumer, LintConfig, Location, Model, ProfileMatch, Queue, Severity


def test_schema_is_a_valid_draft_2020_12_schema():
    with open(schema_path()) as fh:
        jsonschema.Draft202012Validator.check_schema(json.load(fh))


def test_config_settings_rules_suppressions_profiles(fixture_path):
    c = load_config(fixture_path("visguard.yaml"))
    assert c.settings == {"lambda_multiplier": 6}
    assert c.severity_overrides == {"VG021": Severity.ERROR}
    assert c.disabled == {"VG013", "VG041"}
    assert [(s.rule, s.reason) for s in c.suppressions] == [
        ("VG020", "drained by the nightly batch job"),
        ("VG022", None),
    ]
    assert c.suppression_queues == {0: "legacy-*", 1: "*"}
    assert c.suppressions[0].location.line == 10
    assert [p.match for p in c.profiles] == ["payments", "pay*", "orders*", "Orders*"]
    slow = c.profiles[0]
    assert (
        slow.kind,
        slow.processing_p50,
        slow.processing_p99,
        slow.heartbeat_interval,
        slow.heartbeat_extend_by,
    ) == (
        "worker",
        4.0,
        50.0,
        20.0,
        60.0,
    )
    assert c.source_file.endswith("visguard.yaml")


def test_config_queue_definitions(fixture_path):
    m = load_path(fixture_path("visguard.yaml"))
    assert set(m.queues) == {"payments", "payments-dlq", "LegacyImport"}
    p = m.queues["payments"]
    assert (p.source, p.visibility_timeout, p.message_retention) == ("config", 60, 345600)
    assert p.redrive.target == "payments-dlq" and p.redrive.max_receive_count == 5
    assert m.dlq_of(p) is m.queues["payments-dlq"]
    lam, worker = p.consumers
    assert (
        lam.kind,
        lam.function_id,
        lam.function_timeout,
        lam.batch_size,
        lam.report_batch_item_failures,
    ) == (
        "lambda",
        "pay",
        20,
        10,
        True,
    )
    assert (worker.id, worker.processing_p99, worker.heartbeat_interval, worker.concurrency) == (
        "reconciler",
        50.0,
        20.0,
        8,
    )
    assert p.location_of("visibility_timeout").path == "queues/0/visibility_timeout"
    assert p.location_of("visibility_timeout").line == 31
    (s,) = p.suppressions
    assert (s.rule, s.reason) == ("VG011", "idempotent handler")
    legacy = m.queues["LegacyImport"]
    assert legacy.visibility_timeout == 50000  # out of range is data for VG001
    assert legacy.redrive.target is None and legacy.redrive.target_ref.startswith("arn:aws:sqs")


@pytest.mark.parametrize(
    ("text", "where", "line", "words"),
    [
        ("version: 2\n", "version", "1", "must be 1, not 2"),
        ("rules: {VG1: off}\n", "rules", "1", "does not match"),
        ("rules:\n  VG011: loud\n", "rules/VG011", "2", "is not one of"),
        ("settings:\n  lambda_multiplier: -1\n", "settings/lambda_multiplier", "2", "less than or equal to"),
        (
            "queues:\n  - name: a\n    visibility_timeout: soon\n",
            "queues/0/visibility_timeout",
            "3",
            "expected a number, got 'soon'",
        ),
        ("queues:\n  - visibility_timeout: 3\n", "queues/0", "2", "'name' is required"),
        ("queues:\n  - name: a\n    colour: red\n", "queues/0", "3", "'colour' is not allowed"),
        ("profiles:\n  - match: a\n    p99: -3\n", "profiles/0/p99", "3", "less than the minimum"),
        ("profiles:\n  - match: a\n    speed: 3\n", "profiles/0", "2", "'speed' is not allowed"),
        ("suppressions:\n  - queue: a\n", "suppressions/0", "2", "'rule' is required"),
        (
            "queues:\n  - name: a\n    consumers:\n      - {kind: robot}\n",
            "queues/0/consumers/0/kind",
            "4",
            "is not one of",
        ),
        ("a: 1\nunknown_key: 1\n", "(top level)", "1", "'a', 'unknown_key' are not allowed"),
    ],
)
def test_schema_errors_name_path_and_line(write, text, where, line, words):
    path = write(text, "visguard.yaml")
    for load in (load_config, load_path):
        with pytest.raises(VisguardError) as err:
            load(path)
        assert err.value.file == path and err.value.place == line
        assert str(err.value).split(": ", 2)[-1].startswith(where) or where in str(err.value)
        assert words in str(err.value)


def test_config_errors_beyond_the_schema(write):
    with pytest.raises(VisguardError, match="no profile named 'fast'"):
        load_path(write("queues:\n  - name: a\n    consumers: [{profile: fast}]\n", "visguard.yaml"))
    with pytest.raises(VisguardError, match="a second queue with id 'a'"):
        load_path(write("queues:\n  - name: a\n  - name: a\n", "visguard.yaml"))
    with pytest.raises(VisguardError, match="not a visguard.yaml"):
        load_config(write("Resources: {}\n", "template.yaml"))
    with pytest.raises(VisguardError, match="must be a mapping"):
        load_config(write("- 1\n", "visguard.yaml"))


def test_config_detected_by_content_and_empty_config(write):
    m = load_path(write("queues:\n  - name: x\n", "team-queues.yaml"))
    assert list(m.queues) == ["x"]
    assert load_path(write("", "visguard.yaml")).queues == {}
    assert load_config(write("", "visguard.yaml")).profiles == []


def _queue(qid, name=None, consumers=(), cp=None):
    return Queue(id=qid, name=name, location=Location("t.yaml", construct_path=cp), consumers=list(consumers))


def test_apply_profiles_exact_beats_glob_and_first_glob_wins():
    model = Model()
    model.add(_queue("Orders", "orders", [Consumer("M", "lambda", function_id="F")]))
    model.add(_queue("OrdersDlq", "orders-dlq"))
    model.add(_queue("Stack/Billing1234", cp="Stack/Billing/Resource"))
    cfg = LintConfig(
        profiles=[
            ProfileMatch("Order*", kind="lambda", processing_p50=1, processing_p99=9),
            ProfileMatch("orders*", kind="lambda", processing_p50=2, processing_p99=20),
            ProfileMatch("orders", kind="lambda", processing_p50=3, processing_p99=30, arrival_rate=5),
            ProfileMatch(
                "*Billing*", kind="worker", processing_p99=100, concurrency=4, heartbeat_interval=30
            ),
        ]
    )
    apply_profiles(model, cfg)
    (c,) = model.queues["Orders"].consumers
    assert (c.processing_p50, c.processing_p99, c.arrival_rate) == (3, 30, 5)  # exact name wins
    assert model.queues["Orders"].arrival_rate == 5
    assert model.queues["OrdersDlq"].consumers == []  # a lambda profile never invents a function
    (w,) = model.queues["Stack/Billing1234"].consumers  # workers are declared by their profile
    assert (w.kind, w.processing_p99, w.concurrency, w.heartbeat_interval) == ("worker", 100, 4, 30)
    apply_profiles(model, cfg)  # idempotent
    assert len(model.queues["Stack/Billing1234"].consumers) == 1


def test_apply_profiles_keeps_declared_values_and_fills_unknown_consumers():
    model = Model()
    c1 = Consumer("M", "lambda", function_id="F", processing_p99=7.0)
    c2 = Consumer("X", "unknown", note="imported")
    model.add(_queue("Q", consumers=[c1, c2]))
    apply_profiles(
        model, LintConfig(profiles=[ProfileMatch("Q", kind="lambda", processing_p50=1, processing_p99=9)])
    )
    assert (c1.processing_p50, c1.processing_p99) == (1, 7.0)
    assert c2.processing_p99 == 9


def test_example_config_and_templates_load(fixture_path):
    import glob
    import os

    root = os.path.join(os.path.dirname(schema_path()), "..", "..", "examples")
    cfg = load_config(os.path.join(root, "visguard.yaml"))
    assert cfg.profiles and cfg.settings["lambda_multiplier"] == 6
    templates = sorted(glob.glob(os.path.join(root, "templates", "*")))
    assert len(templates) >= 3
    for t in templates:
        m = load_path(t)
        apply_profiles(m, cfg)
        assert m.queues, t


# ------------------------------------------------------------------------------- one parse per visguard.yaml
_CONFIG = """version: 1
settings: {lambda_multiplier: 6}
queues:
  - {name: payments, visibility_timeout: 60, consumers: [{kind: lambda, function: pay, timeout: 20}]}
"""


@pytest.mark.parametrize(
    ("args", "chdir"),
    [
        (["."], True),  # picked up from the working directory and found in the linted folder
        (["--config", "{dir}/visguard.yaml", "{dir}"], False),  # named with --config and found in the folder
        (["--config", "{dir}/visguard.yaml", "{dir}/visguard.yaml"], False),  # named twice
        (["--format", "sarif", "."], True),  # SARIF plans fixes: the planner's lints read it again
    ],
    ids=["cwd", "config-and-folder", "config-and-file", "sarif"],
)
def test_a_visguard_yaml_that_is_config_and_input_is_parsed_and_validated_once(
    tmp_path, monkeypatch, capsys, args, chdir
):
    """``visguard lint`` parses (and validates against the schema) a visguard.yaml once, however many roles it
    has: the configuration and a discovered input, in every re-lint of one run. The parse function is counted
    through a real CLI run."""
    from visguard.linter import cli
    from visguard.linter.loaders import config, decode_yaml

    (tmp_path / "visguard.yaml").write_text(_CONFIG, encoding="utf-8")
    (tmp_path / "stack.yaml").write_text(
        "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties: {VisibilityTimeout: 60}\n",
        encoding="utf-8",
    )
    parsed, validated = [], []
    real_parse, real_validate = decode_yaml.loads_yaml, config.validate

    def parse(text, *, file):
        parsed.append(os.path.basename(file))
        return real_parse(text, file=file)

    def validate(doc, *, file):
        validated.append(os.path.basename(file))
        return real_validate(doc, file=file)

    monkeypatch.setattr(decode_yaml, "loads_yaml", parse)
    monkeypatch.setattr(config, "validate", validate)
    if chdir:
        monkeypatch.chdir(tmp_path)
    code = cli.main([a.format(dir=tmp_path) for a in args])
    capsys.readouterr()
    assert code in (0, 2)  # linted (findings or none), not bad input
    assert parsed.count("visguard.yaml") == 1
    assert validated.count("visguard.yaml") == 1
