"""VG036: MaximumPollers above 2,000: valid for the API, refused by aws-cdk-lib and older SDKs."""

from __future__ import annotations

from visguard import facts
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule
from visguard.linter.vocabulary import Text

RULE = Rule(
    id="VG036",
    title="MaximumPollers above 2,000 (refused by aws-cdk-lib and SDKs before June 2026)",
    severity=Severity.WARNING,
    rationale=(
        "Lambda accepts up to 10,000 MaximumPollers for an SQS event source mapping since June 2026 (the API "
        "model allowed 2,000 before, and the developer guide still says 2,000). aws-cdk-lib's SqsEventSource "
        "still validates 2-2,000 (through release 2.276), and tools built on an older API model refuse more: "
        "the same setting passes one deployment path and fails another. The mapping itself is valid."
    ),
    source=facts.PROVISIONED_POLLER_API,
    fix="Keep {max_pollers} at 2000 or less where aws-cdk-lib or an SDK older than June 2026 deploys the "
    "mapping (in a CDK app, set it on the CfnEventSourceMapping), or suppress this rule with a reason.",
    tags=("lambda", "provisioned", "cdk", "portability"),
    consumers_only=True,
    kinds=("lambda",),
)


def check(queue, ctx):
    for c in queue.consumers:
        hi = c.max_pollers
        if c.kind != "lambda" or hi is None or hi not in facts.MAX_POLLERS or hi <= facts.CDK_MAX_POLLERS:
            continue  # out of the API's range: VG035's
        yield ctx.finding(
            queue,
            Text(
                "{label} sets {max_pollers} {hi}: accepted by Lambda (up to {api:g}) but refused by aws-cdk-lib's "
                "SqsEventSource and SDKs before June 2026 (at most {cdk})",
                label=ctx.consumer_label(c),
                hi=hi,
                api=facts.MAX_POLLERS.hi,
                cdk=f"{facts.CDK_MAX_POLLERS:,}",
            ),
            location=c.location_of("max_pollers") or queue.location,
            consumer=c,
        )
