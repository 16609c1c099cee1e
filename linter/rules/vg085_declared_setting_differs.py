"""VG085: a deployed queue's setting differs from the one its source declares (drift; the fleet audit with
``--sources``)."""

from __future__ import annotations

from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule

RULE = Rule(
    id="VG085",
    title="Declared setting differs from deployed",
    severity=Severity.WARNING,
    rationale=(
        "The fleet audit joins each deployed queue to the declaration it came from (visguard audit run "
        "--sources: the stack and logical id or CDK construct path, the Terraform address, or the queue's name "
        "when exactly one declaration has it) and compares what is deployed with what is declared: the "
        "visibility timeout, the retention period, the redrive target and maxReceiveCount, and the Lambda "
        "mapping's batch size and batching window. A difference means someone changed the queue outside its "
        "source (the console, the CLI, another tool), or the declared value was never deployed: either way the "
        "next deployment changes the queue again, and every finding the linter makes on the source judges a "
        "queue that does not exist. A declared value only the deployment knows (a parameter, a variable) is "
        "never drift. Only the audit sees both sides, so this rule has no lint fixture."
    ),
    source="https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/using-cfn-stack-drift.html",
    fix="Decide which value is right: put it in the source and deploy it (the source wins on the next "
    "deployment), or deploy the source as it is to undo the change made outside it.",
    tags=("observed", "drift", "sources"),
)


def check(queue, ctx):
    """Nothing in a lint: drift needs the deployed queue and its declaration (``visguard.audit.drift``)."""
    return ()


def message(
    setting: str, deployed: str, arn: str, declared: str, where: str, consumer: str | None = None
) -> str:
    """The finding's words: both values and both places."""
    of = f" of mapping {consumer}" if consumer else ""
    return (
        f"{setting}{of} is {deployed} on the deployed queue {arn} but {declared} where it is declared "
        f"({where}): changed outside the source, or the source was never deployed"
    )
