"""Shared setup for the CDK tests: jsii quiet on this Node version, and helpers to build small apps.

Synthesis is the slow part (the first one in a process warms up jsii and CDK's validation engine, about 2-5 s;
later ones take a fraction of a second), so each test module builds one app with many stacks at module scope
and asserts on its templates.
"""

from __future__ import annotations

import os

os.environ.setdefault("JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION", "1")
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
