"""Every AWS or library fact has a page and the day it was last checked (issue 36, "facts as data, with a date")."""

from __future__ import annotations

import ast
import datetime
import pathlib
import re

import pytest
from visguard import facts
from visguard.linter.cli_explain import explain_text, facts_used_by
from visguard.linter.rules import ALL_RULES

HELPERS = {"queue_kind", "checked", "sources_of"}  # functions of the module that state no fact
IMPORTED = {"annotations", "REQUIRED", "Value"}  # what the module imports
SOURCE = re.compile(r"^(https://\S+|[\w.-]+/[\w.-]+:\S+@[0-9a-f]{7,40}|[\w.-]+/[\w.-]+#\d+)$")


def _is_page(value) -> bool:
    return isinstance(value, str) and value.startswith("https://")


def _public_facts():
    """The names the module itself binds at its top level (assignments and functions), but pages and helpers."""
    tree = ast.parse(pathlib.Path(facts.__file__).read_text(encoding="utf-8"))
    names = [
        t.id
        for n in tree.body
        if isinstance(n, (ast.Assign, ast.AnnAssign))
        for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
        if isinstance(t, ast.Name)
    ]
    names += [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    names += [n for n in vars(facts) if n not in names]  # bound some other way (a test's monkeypatch)
    for name in names:
        value = getattr(facts, name, None)
        if name.startswith("_") or name in HELPERS or name == "CHECKED" or isinstance(value, type):
            continue
        if name in IMPORTED or _is_page(value):
            continue
        yield name


def test_every_fact_has_a_source_and_a_date():
    missing = [name for name in _public_facts() if name not in facts.CHECKED]
    assert missing == []


@pytest.mark.parametrize("name", sorted(facts.CHECKED))
def test_each_record_names_a_real_fact_a_source_and_a_past_day(name):
    assert hasattr(facts, name), f"{name} is checked but is not a fact of visguard.facts"
    record = facts.CHECKED[name]
    assert SOURCE.match(record.source), record.source
    day = datetime.date.fromisoformat(record.checked)
    assert datetime.date(2024, 1, 1) <= day <= datetime.date.today()


def test_a_fact_without_a_record_is_found(monkeypatch):
    monkeypatch.setattr(facts, "SOME_NEW_LIMIT", 7, raising=False)
    assert "SOME_NEW_LIMIT" in list(_public_facts())
    assert "SOME_NEW_LIMIT" not in facts.CHECKED


def test_explain_names_the_facts_a_rule_uses_with_source_and_date():
    used = facts_used_by(ALL_RULES["VG011"])
    assert "LAMBDA_VISIBILITY_MULTIPLIER" in used
    text = explain_text("VG011")
    record = facts.CHECKED["LAMBDA_VISIBILITY_MULTIPLIER"]
    line = next(ln for ln in text.splitlines() if "LAMBDA_VISIBILITY_MULTIPLIER" in ln)
    assert record.source in line and record.checked in line


def test_every_fact_a_rule_uses_is_checked():
    for rule in ALL_RULES.values():
        assert [
            n
            for n in facts_used_by(rule)
            if n not in facts.CHECKED and n not in HELPERS and not _is_page(getattr(facts, n, None))
        ] == [], rule.id
