"""VG032: Lambda function timeout above the Lambda maximum (900 s; 5,400 s on Lambda Managed Instances)."""

from __future__ import annotations

import math

from visguard.facts import MAX_LAMBDA_TIMEOUT_MANAGED, MAX_VISIBILITY, lambda_guidance_visibility
from visguard.linter.changes import set_consumer, set_queue, with_changes
from visguard.linter.model import MAX_LAMBDA_TIMEOUT, Severity
from visguard.linter.rules._base import Rule, fmt_seconds
from visguard.linter.vocabulary import Text

RULE = Rule(
    id="VG032",
    title="Lambda function timeout outside 1-900 seconds (1-5,400 on Lambda Managed Instances)",
    severity=Severity.ERROR,
    rationale=(
        "A Lambda function's timeout can be set from 1 to 900 seconds (15 minutes); CreateFunction rejects "
        "other values. A function on Lambda Managed Instances (one with a capacity provider, "
        "CapacityProviderConfig) accepts up to 5,400 seconds (90 minutes) for asynchronous and event source "
        "mapping invocations, so an SQS consumer there is judged against 5,400 s (setting "
        "lambda_managed_max_timeout); every other function against 900 s (setting lambda_max_timeout)."
    ),
    source="https://docs.aws.amazon.com/lambda/latest/dg/configuration-timeout.html",
    fix=(
        "Set {function_timeout} to at most 900 s (5,400 s on Lambda Managed Instances); move longer work to Step "
        "Functions, ECS or a worker fleet."
    ),
    tags=("lambda", "limits"),
    settings={
        "lambda_max_timeout": MAX_LAMBDA_TIMEOUT,
        "lambda_managed_max_timeout": MAX_LAMBDA_TIMEOUT_MANAGED,
    },
    consumers_only=True,
    kinds=("lambda",),
)


def limit_of(c, ctx) -> tuple[float, bool]:
    """The largest timeout the function of ``c`` may have, and whether it is the Managed Instances one."""
    managed = c.capacity_provider is not None
    key = "lambda_managed_max_timeout" if managed else "lambda_max_timeout"
    return float(ctx.setting(key)), managed


def check(queue, ctx):
    seen = set()
    for c in ctx.lambda_consumers(queue):
        t = c.function_timeout
        if t is None or c.function_id in seen:
            continue
        seen.add(c.function_id)
        limit, managed = limit_of(c, ctx)
        if not 1 <= t <= limit:
            value = int(min(max(round(t), 1), limit)) if t == t and abs(t) != float("inf") else int(limit)
            on = Text(" (the maximum for a function with {capacity_provider}, Lambda Managed Instances)")
            yield with_changes(
                ctx.finding(
                    queue,
                    Text(
                        "{label} has timeout {timeout}, outside 1-{limit} s{on}",
                        id="VG032.message",
                        label=ctx.consumer_label(c),
                        timeout=fmt_seconds(t),
                        limit=f"{limit:g}",
                        on=on if managed else "",
                        managed=managed,
                    ),
                    location=c.location_of("function_timeout") or queue.location,
                    consumer=c,
                    fix=Text(
                        "Set {function_timeout} to at most {limit} s{on}; move longer work to Step Functions, ECS "
                        "or a worker fleet.",
                        id="VG032.fix",
                        limit=f"{limit:g}",
                        on=" (Lambda Managed Instances)" if managed else "",
                        value=value,
                    ),
                ),
                *_changes(queue, c, value, ctx),
            )


def _changes(queue, c, value: int, ctx):
    """The new timeout, and the queue's timeout raised with it when it would fall below it (VG010)."""
    out = [set_consumer(c, "function_timeout", value)]
    vt = ctx.visibility(queue)
    if vt is not None and vt < value:
        guided = lambda_guidance_visibility(value, c.effective_batching_window, ctx.multiplier)
        bound = c.durable_bound
        if bound is not None:
            guided = max(guided, bound[0] + c.effective_batching_window)
        out.append(set_queue(queue, "visibility_timeout", int(min(math.ceil(guided), MAX_VISIBILITY))))
    return out
