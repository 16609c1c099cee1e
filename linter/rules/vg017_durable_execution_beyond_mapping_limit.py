"""VG017: a durable function's ExecutionTimeout beyond what its SQS event source mapping waits for."""

from __future__ import annotations

from visguard.facts import DURABLE_ESM_WAITS_FOR_EXECUTION, durable_esm_bound
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, durable_facts, fmt_seconds
from visguard.linter.vocabulary import Text

RULE = Rule(
    id="VG017",
    title="Durable function's ExecutionTimeout beyond the event source mapping's invocation limit",
    severity=Severity.WARNING,
    rationale=(
        "An event source mapping invokes a durable function synchronously and waits for the complete durable "
        "execution; when it runs past the invocation limit (15 minutes, or up to 90 minutes on Lambda Managed "
        "Instances) the execution times out and fails, whatever its DurableConfig.ExecutionTimeout allows. The "
        "batch is then received again after the visibility timeout, and the failures count towards the DLQ. An "
        "ExecutionTimeout above the limit promises the durable workflow time the mapping never gives it."
    ),
    source="https://docs.aws.amazon.com/lambda/latest/dg/durable-invoking-esm.html",
    fix=(
        "Set {durable_execution_timeout} to at most the mapping's limit (900 s; 5,400 s on Lambda Managed "
        "Instances), or let the mapped function start the long durable execution asynchronously and return."
    ),
    tags=("lambda", "durable", "limits"),
    consumers_only=True,
    kinds=("lambda",),
)


def check(queue, ctx):
    if not DURABLE_ESM_WAITS_FOR_EXECUTION:
        return
    seen = set()
    for c in ctx.lambda_consumers(queue):
        if c.durable_bound is None or c.function_id in seen:
            continue
        bound = durable_esm_bound(c.durable_execution_timeout, c.capacity_provider is not None)
        if bound[1] != "invocation_limit":
            continue
        seen.add(c.function_id)
        limit = f"{bound[0]:g}"
        on = " on Lambda Managed Instances" if c.capacity_provider is not None else ""
        yield ctx.finding(
            queue,
            Text(
                "{label} is a durable function whose {durable_execution_timeout} is {given}, but the event source "
                "mapping waits at most {limit} s{on} for a durable execution: longer ones time out and fail, and "
                "their batch is received again",
                id="VG017.message",
                label=ctx.consumer_label(c),
                given=fmt_seconds(c.durable_execution_timeout),
                limit=limit,
                on=on,
            ),
            location=c.location_of("durable_execution_timeout") or c.location,
            consumer=c,
            estimate=durable_facts(c),
            fix=Text(
                "Set {durable_execution_timeout} to at most {limit} s{on}, or let the mapped function start the long "
                "durable execution asynchronously and return.",
                id="VG017.fix",
                limit=limit,
                on=on,
            ),
        )
