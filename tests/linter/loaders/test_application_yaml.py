"""Content decides before names (issue 35 §3): a CloudFormation/SAM template named ``application.yaml`` (many
public SAM apps) is linted as a template, not taken for Spring configuration alone; a Spring ``application.yml``
is still read as Spring's. A file two loaders claim is read by both (``registry.claims``), counted once.
Fixtures: tests/linter/fixtures/loaders/application-yaml/."""

from __future__ import annotations

from pathlib import Path

import pytest
from visguard.linter.api import lint_paths
from visguard.linter.loaders import registry

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "loaders" / "application-yaml"
SAM = CASES / "sam" / "application.yaml"
SPRING = CASES / "spring" / "src" / "main" / "resources" / "application.yml"


@pytest.mark.parametrize("path", [SAM.parent, SAM], ids=["folder search", "named on the command line"])
def test_a_sam_template_named_application_yaml_is_linted_as_a_template(path):
    result = lint_paths([str(path)])
    assert result.errors == []
    assert sorted((f.rule, f.queue) for f in result.findings) == [
        ("VG010", "OrdersQueue"),
        ("VG020", "OrdersQueue"),
    ]
    assert result.files == [str(SAM)] and result.queues == 1  # one file, though two loaders read it


def test_a_spring_application_yml_is_still_springs():
    assert [s.name for s in registry.claims(str(SPRING))] == ["code"]
    result = lint_paths([str(CASES / "spring")])
    assert result.errors == [] and result.queues == 0
    notes = [f.message for f in result.findings if f.rule == "VG902"]
    # the listener defaults of application.yml and the @SqsListener are both read as Spring consumers
    assert any("spring consumer" in m and "application.yml:6" in m for m in notes), notes
    assert any("spring consumer" in m and "app.orders-queue" in m for m in notes), notes


def test_which_loaders_read_a_file_is_decided_by_content_then_name(tmp_path):
    assert [s.name for s in registry.claims(str(SAM))] == ["code", "cloudformation"]
    other = tmp_path / "template.yaml"
    other.write_text(SAM.read_text())
    assert [s.name for s in registry.claims(str(other))] == ["cloudformation"]
    found = registry.discover([str(SAM.parent)], errors=[])
    assert sorted(i.loader.name for i in found) == ["cloudformation", "code"]
