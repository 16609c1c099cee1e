"""Scenario documents: the issue's minimal form, the published schema, errors that name the place."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from visguard.engine.scenario import SCHEMA_PATH, from_dict, load, parse_text
from visguard.errors import VisguardError

MINIMAL = """
queue: {visibility_timeout: 30, fifo: false, max_receive_count: 5}   # omit max_receive_count: no redrive
workload: {messages: 100000, arrival_rate: 10}                        # Poisson arrivals per second
consumer:
  type: worker                         # worker | lambda
  concurrency: 200
  processing: {distribution: lognormal, p50: 5, p99: 45}              # also: fixed {seconds: 2}; empirical
  heartbeat: {interval: 10, extend_by: 30}                            # optional ChangeMessageVisibility cadence
  failures: {crash_before_delete: 0.0, poison: 0.0, transient: 0.0}   # probabilities per processing attempt
  lambda: {timeout: 60, batch_size: 10, batching_window: 0,
           report_batch_item_failures: true, reserved_concurrency: null, max_concurrency: null}
seed: 1
"""
EXAMPLES = sorted((Path(__file__).parents[2] / "engine" / "examples").glob("*.yaml"))


def test_issue_minimal_form_loads():
    sc = from_dict(parse_text(MINIMAL))
    assert sc.visibility_timeout == 30 and sc.max_receive_count == 5 and not sc.fifo
    assert sc.messages == 100_000 and sc.arrival_rate == 10
    assert sc.consumer_type == "worker" and sc.concurrency == 200
    assert sc.profile.kind == "lognormal" and sc.profile.p99 == 45
    assert (sc.heartbeat_interval, sc.heartbeat_extend_by) == (10, 30)
    assert sc.seed == 1


def test_schema_is_valid_and_accepts_the_examples():
    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    assert len(EXAMPLES) >= 3
    for path in EXAMPLES:
        load(path)  # raises on any error


def test_json_documents_and_other_distributions(tmp_path):
    doc = {"queue": {"visibility_timeout": 60}, "workload": {"messages": 10, "arrival": "burst"},
           "consumer": {"processing": {"distribution": "empirical", "samples": [1, 2, 3]}}}  # fmt: skip
    p = tmp_path / "s.json"
    p.write_text(json.dumps(doc))
    sc = load(p)
    assert sc.profile.kind == "empirical" and sc.arrival == "burst"
    doc["consumer"]["processing"] = {"distribution": "fixed", "seconds": 2}
    assert from_dict(doc).profile.p50 == 2


@pytest.mark.parametrize(
    ("edit", "place", "fragment"),
    [
        (lambda d: d["consumer"]["processing"].update(p99=-1), "consumer.processing.p99", "minimum"),
        (lambda d: d["consumer"]["processing"].update(p99=4), "consumer.processing.p99", "at least p50"),
        (lambda d: d["consumer"]["processing"].pop("p99"), "consumer.processing", "'p99' is required"),
        (lambda d: d["consumer"].update(colour="red"), "consumer", "unknown setting"),
        (lambda d: d["queue"].update(visibility_timeout=50_000), "queue.visibility_timeout", "43200"),
        (lambda d: d["consumer"]["failures"].update(poison=2), "consumer.failures.poison", "maximum"),
        (lambda d: d["workload"].pop("arrival_rate"), "workload.arrival_rate", "required"),
        (lambda d: d["workload"].update(bursts=[{"at": 1}]), "workload.bursts[0]", "'count' is required"),
        (lambda d: d["consumer"].update(type="lambda", heartbeat=None, lambda_={}), "consumer", "unknown"),
        (lambda d: (d["consumer"].update(type="lambda"), d["consumer"].pop("heartbeat")),
         "consumer.lambda.timeout", "less than Function timeout"),
        (lambda d: (d["consumer"].update(type="lambda"), d["consumer"].pop("heartbeat"),
                    d["consumer"]["lambda"].update(timeout=20, batch_size=50)),
         "consumer.lambda.batching_window", "greater than 0"),
        (lambda d: d["consumer"].update(type="lambda"), "consumer.heartbeat", "never calls ChangeMessageVisibility"),
    ],
)  # fmt: skip
def test_errors_name_the_place(edit, place, fragment):
    doc = parse_text(MINIMAL)
    edit(doc)
    with pytest.raises(VisguardError) as err:
        from_dict(doc, file="s.yaml")
    assert err.value.file == "s.yaml"
    assert err.value.place == place
    assert fragment in str(err.value)
    assert "\n" not in str(err.value)


def test_yaml_syntax_error_gives_the_line(tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_text("queue: {visibility_timeout: 30}\nworkload: [1, 2\n")
    with pytest.raises(VisguardError) as err:
        load(p)
    assert err.value.place.startswith("line ")
    assert str(p) in str(err.value)


def test_missing_file_and_non_mapping(tmp_path):
    with pytest.raises(VisguardError, match="cannot read"):
        load(tmp_path / "nope.yaml")
    p = tmp_path / "list.yaml"
    p.write_text("- 1\n- 2\n")
    with pytest.raises(VisguardError, match="mapping"):
        load(p)
