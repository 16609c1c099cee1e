"""Reporters: snapshot tests of the text and SARIF output over every failing rule fixture, SARIF validated
against the official 2.1.0 schema, JUnit and JSON parsed back.

Update the snapshots after an intended change of rules or reporters:

    VISGUARD_UPDATE_SNAPSHOTS=1 .venv/bin/pytest tests/linter/report -q

then review the diff of tests/linter/fixtures/rules/snapshots/ before committing.
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
from visguard.docs import DOCS_URL
from visguard.errors import VisguardError
from visguard.linter.api import LintResult, lint_paths, sort_findings
from visguard.linter.fix import plan
from visguard.linter.loaders import load_config
from visguard.linter.model import LintConfig
from visguard.linter.report import render
from visguard.linter.rules import ALL_RULES

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "rules"
SNAPSHOTS = FIXTURES / "snapshots"
# The official SARIF 2.1.0 schema (a copy of ../shared/reference/sarif-schema-2.1.0.json travels with the tests).
SARIF_SCHEMA = FIXTURES.parent / "sarif-schema-2.1.0.json"


@pytest.fixture(scope="module")
def result() -> LintResult:
    """All failing CloudFormation fixtures, each with its own visguard.yaml, linted from the fixtures folder
    (relative paths), plus one bad input."""
    cwd = os.getcwd()
    os.chdir(FIXTURES)
    try:
        total = LintResult()
        total.fixes = []
        for case in sorted(FIXTURES.glob("vg*/cfn/fail*.yaml")):
            case = case.relative_to(FIXTURES).as_posix()  # vg010/cfn/fail.yaml
            cfg_file = FIXTURES / case.rsplit("/", 1)[0] / "visguard.yaml"
            cfg = load_config(str(cfg_file.relative_to(FIXTURES))) if cfg_file.exists() else LintConfig()
            r = lint_paths([case], config=cfg)
            total.fixes += plan(r, lambda case=case, cfg=cfg: lint_paths([case], config=cfg))
            total.findings += r.findings
            total.files += r.files
            total.queues += r.queues
        total.findings = sort_findings(total.findings)
        total.errors.append(
            VisguardError("expected a mapping at the top level, got a list", file="bad.yaml", place="1")
        )
        yield total
    finally:
        os.chdir(cwd)


def _snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("VISGUARD_UPDATE_SNAPSHOTS"):
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} is missing: rerun with VISGUARD_UPDATE_SNAPSHOTS=1 and review it"
    expected = path.read_text(encoding="utf-8")
    assert text == expected, f"{name} changed: rerun with VISGUARD_UPDATE_SNAPSHOTS=1 and review the diff"


def test_text_snapshot(result):
    text = render(result, "text")
    assert "\033[" not in text
    _snapshot("report.txt", text)
    assert "vg010/cfn/fail.yaml" in text and "VG010" in text and "fix: " in text
    assert "input could not be linted" in text


def test_text_colour_only_when_asked(result):
    coloured = render(result, "text", color=True)
    assert "\033[1;31merror" in coloured and "\033[33mwarning" in coloured


def test_sarif_snapshot_and_schema(result):
    text = render(result, "sarif")
    _snapshot("report.sarif", text)
    doc = json.loads(text)
    schema = json.loads(SARIF_SCHEMA.read_text())
    jsonschema.Draft7Validator(schema).validate(doc)
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == list(ALL_RULES)
    assert all(r["helpUri"].startswith("https://") and r["help"]["markdown"] for r in rules)
    # each rule's help is its page on the documentation site (visguard.docs, one home of the address)
    assert [r["helpUri"] for r in rules] == [f"{DOCS_URL}rules/{rid.lower()}/" for rid in ALL_RULES]
    assert all(r["helpUri"] in r["help"]["markdown"] for r in rules)
    assert len(run["results"]) == len(result.findings)
    for res in run["results"]:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
        region = res["locations"][0]["physicalLocation"]["region"]
        assert region["startLine"] >= 1
        assert res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith(".yaml")
    assert run["invocations"][0]["executionSuccessful"] is False
    assert "bad.yaml" in run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]


def test_sarif_quotes_engine_estimate(result):
    doc = json.loads(render(result, "sarif"))
    vg012 = [r for r in doc["runs"][0]["results"] if r["ruleId"] == "VG012"]
    assert vg012 and "processed twice" in vg012[0]["message"]["text"]
    assert vg012[0]["properties"]["estimate"]["source"] == "engine"


def test_sarif_schema_rejects_a_broken_document(result):
    doc = json.loads(render(result, "sarif"))
    doc["runs"][0]["results"][0]["level"] = "fatal"
    schema = json.loads(SARIF_SCHEMA.read_text())
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft7Validator(schema).validate(doc)


def test_json_report(result):
    doc = json.loads(render(result, "json"))
    assert doc["summary"]["files"] == len(result.files)
    assert sum(doc["summary"][s] for s in ("error", "warning", "info")) == len(doc["findings"])
    f = next(f for f in doc["findings"] if f["rule"] == "VG010")
    assert f["file"] == "vg010/cfn/fail.yaml" and f["line"] and f["path"].endswith("VisibilityTimeout")
    assert doc["errors"] == [
        {
            "file": "bad.yaml",
            "place": "1",
            "message": "expected a mapping at the top level, got a list",
            "kind": "bad-input",
        }
    ]


@pytest.mark.parametrize(("fail_on", "expect_info_failures"), [("warning", False), ("info", True)])
def test_junit_report(result, fail_on, expect_info_failures):
    root = ET.fromstring(render(result, "junit", fail_on=fail_on))
    assert root.tag == "testsuites"
    failures = root.findall(".//failure")
    assert int(root.get("failures")) == len(failures)
    assert int(root.get("errors")) == 1 and root.find(".//error").get("type") == "bad-input"
    types = {f.get("type") for f in failures}
    assert ("info" in types) is expect_info_failures
    assert "error" in types


def test_cdk_assembly_findings_name_the_construct_path():
    assembly = FIXTURES.parent / "loaders" / "cdk.out.sample"
    r = lint_paths([str(assembly)], config=LintConfig())
    assert r.errors == [] and r.findings
    with_paths = [f for f in r.findings if f.location.construct_path]
    assert with_paths
    text = render(r, "text")
    assert all(f.location.construct_path in text for f in with_paths)
    sarif = json.loads(render(r, "sarif"))
    names = {
        loc["fullyQualifiedName"]
        for res in sarif["runs"][0]["results"]
        for loc in res["locations"][0]["logicalLocations"]
    }
    assert {f.location.construct_path for f in with_paths} <= names


@pytest.fixture(scope="module")
def many_queues(tmp_path_factory) -> LintResult:
    """One template of 30,000 queues, each with a finding."""
    d = tmp_path_factory.mktemp("many")
    lines = ["Resources:"]
    for i in range(30_000):
        lines.append(f"  Q{i}:\n    Type: AWS::SQS::Queue\n    Properties: {{VisibilityTimeout: 50000}}")
    (d / "t.yaml").write_text("\n".join(lines) + "\n")
    return lint_paths([str(d / "t.yaml")], config=LintConfig())


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "junit"])
def test_one_file_of_many_queues_renders_in_one_pass(many_queues, fmt):
    """A file's findings are not read once per queue of the file (the text report grouped them so: 30 s for
    10,000 queues, minutes for 30,000). The bound only guards against that; the report takes about a second."""
    import time

    assert len({f.queue for f in many_queues.findings}) == 30_000
    start = time.process_time()
    out = render(many_queues, fmt)
    assert time.process_time() - start < 20, "the report is not linear in its findings"
    assert "Q29999" in out
