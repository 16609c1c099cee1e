"""Helpers for the Serverless Framework loader tests: load a service written inline or from fixtures."""

from __future__ import annotations

import textwrap
from types import SimpleNamespace

import pytest
from visguard.linter.api import lint_model
from visguard.linter.loaders import serverless


def options(variables=None, var_files=(), parameters=None):
    return SimpleNamespace(variables=variables or {}, var_files=list(var_files), parameters=parameters or {})


def lint(model, config=None):
    """Findings in serverless.yml words (lint_model words them for the queue's input)."""
    return lint_model(model, config)


@pytest.fixture
def service(tmp_path):
    """Write serverless.yml (and extra files) into a fresh folder and load it."""

    def make(text: str, files: dict[str, str] | None = None, **opts):
        for name, body in (files or {}).items():
            p = tmp_path / name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(textwrap.dedent(body))
        path = tmp_path / "serverless.yml"
        path.write_text(textwrap.dedent(text))
        return serverless.load(str(path), options(**opts))

    return make
