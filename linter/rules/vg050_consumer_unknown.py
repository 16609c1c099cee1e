"""VG050: a consumer or redrive target the linter cannot see (import, external ARN)."""

from __future__ import annotations

from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule

RULE = Rule(
    id="VG050",
    title="Consumer unknown: timeouts cannot be checked",
    severity=Severity.INFO,
    rationale=(
        "An event source mapping whose function is imported (Fn::ImportValue), passed as a parameter or given "
        "as an ARN from another stack cannot be followed, so the timeout rules (VG010, VG011, VG032) cannot "
        "compare it with the queue. The finding makes the blind spot visible instead of passing silently."
    ),
    source="https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-configure.html",
    fix="Lint the stack that defines the function too, or declare the consumer in visguard.yaml "
    "(consumer profile with its timeout and processing time).",
    tags=("coverage", "lambda"),
    consumers_only=True,
    kinds=("lambda", "unknown"),
)


def check(queue, ctx):
    for c in queue.consumers:
        if c.kind == "unknown" or (c.kind == "lambda" and c.function_id is None):
            why = f": {c.note}" if c.note else ""
            yield ctx.finding(
                queue,
                f"consumer {c.id} of {queue.id} cannot be resolved{why}; timeout rules skipped for it",
                location=c.location or queue.location,
                consumer=c,
            )
