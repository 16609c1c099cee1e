"""examples/serverless (the `make demo` service): exactly the planted findings, per stage."""

from __future__ import annotations

from pathlib import Path

import pytest
from visguard.linter.loaders import serverless

from .conftest import lint, options

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "serverless"

DEV = {
    ("VG010", "InvoicesQueue", "functions.invoice.events[0]"),
    ("VG011", "OrdersQueue", "functions.ingest.events[0]"),
    ("VG011", "constructs.emails", "constructs.emails.worker"),
    ("VG011", "constructs.emails", "functions.notify.events[0]"),
    ("VG020", "InvoicesQueue", None),
    ("VG021", "constructs.emails", "functions.notify.events[0]"),
    ("VG031", "OrdersQueue", "functions.ingest.events[0]"),
    ("VG031", "constructs.emails", "functions.notify.events[0]"),
    ("VG033", "InvoicesQueue", "functions.invoice.events[0]"),
}


@pytest.mark.parametrize(
    "stage, want", [("dev", DEV), ("prod", DEV - {("VG011", "OrdersQueue", "functions.ingest.events[0]")})]
)
def test_example_service_findings(stage, want):
    model = serverless.load(str(EXAMPLE), options(variables={"stage": stage}))
    findings = lint(model)
    assert {(f.rule, f.queue, f.consumer) for f in findings} == want
    assert len(findings) == len(want)
    for f in findings:
        assert f.location.file.endswith(("serverless.yml", "queues.yml")) and f.location.line
    assert model.queues["OrdersQueue"].name == f"order-pipeline-{stage}-orders"
    assert model.notes == []  # the SSM secret in provider.environment is never resolved
