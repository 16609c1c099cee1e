"""Shared setup for the CDK tests: jsii on the pinned Node.js LTS, and helpers to build small apps.

They run on the newest aws-cdk-lib (.venv) and the files listed in MIN_VERSION_TESTS also on the oldest supported
one (.venv-cdk-min, `make test`), so they use what every supported release has: ``checked_app`` registers
VisGuardChecks the way the installed release takes it, acknowledgements go through visguard's ``acknowledge``.

Synthesis is the slow part (the first one in a process warms up jsii and CDK's validation engine, about 2-5 s;
later ones take a fraction of a second), so each test module builds one app with many stacks at module scope
and asserts on its templates.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# jsii starts the node named by JSII_NODE: the Node.js LTS pinned in package.json (npm ci), as `make` puts it first
# on PATH; the system's node otherwise.
if (ROOT / "node_modules" / ".bin" / "node").exists():
    os.environ.setdefault("JSII_NODE", str(ROOT / "node_modules" / ".bin" / "node"))
os.environ.setdefault("CDK_DISABLE_CLI_TELEMETRY", "true")

import pytest  # noqa: E402


@pytest.fixture(scope="session")
def cdk():
    """The aws_cdk module, imported once (importing it costs seconds: only CDK tests pay for it)."""
    import aws_cdk

    return aws_cdk


def _make_function(scope, id: str, timeout: int):
    from aws_cdk import Duration
    from aws_cdk import aws_lambda as lambda_

    return lambda_.Function(
        scope,
        id,
        runtime=lambda_.Runtime.PYTHON_3_12,
        handler="index.handler",
        code=lambda_.Code.from_inline("def handler(event, context):\n    return {}\n"),
        timeout=Duration.seconds(timeout),
    )


@pytest.fixture(scope="session")
def make_function():
    """``make_function(scope, id, timeout_seconds)``: a small inline Python Lambda function."""
    return _make_function


def _checked_app(outdir: str, plugin=None):
    """An App with VisGuardChecks registered: ``Validations.of(app).add_plugins`` where the release has it,
    ``App(policy_validation_beta1=[...])`` before it."""
    from aws_cdk import App
    from visguard.constructs import VisGuardChecks, add_checks
    from visguard.constructs.compat import api

    plugin = plugin or VisGuardChecks()
    if api().validations is None:
        return App(outdir=outdir, policy_validation_beta1=[plugin])
    app = App(outdir=outdir)
    add_checks(app, plugin)
    return app


@pytest.fixture(scope="session")
def checked_app():
    """``checked_app(outdir, plugin=None)``: an App with VisGuardChecks registered."""
    return _checked_app
