"""What the Terraform adapters of the fix core share, HCL (visguard.linter.fixes.hcl) and JSON syntax
(visguard.linter.fixes.tfjson): the argument a change sets, the literal it writes, the block it adds one to."""

from __future__ import annotations

import re

from visguard.linter.changes import CONSUMER_WORDS, QUEUE_WORDS
from visguard.linter.fixes.core import CannotFix
from visguard.linter.model import Change

NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")
# the resource type a missing argument is added to, by the change's scope
BLOCK_TYPE = {"queue": "aws_sqs_queue", "consumer": "aws_lambda_event_source_mapping"}


def literal(change: Change) -> str:
    """The change's value as Terraform writes it (the same text in HCL and JSON)."""
    if change.field == "report_batch_item_failures":
        return '["ReportBatchItemFailures"]' if change.value else "[]"
    v = change.value
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise CannotFix(f"{change.field} = {v!r} is not a number visguard writes")
    return str(v)


def argument(change: Change) -> str:
    """The argument of an ``aws_sqs_queue`` / ``aws_lambda_event_source_mapping`` block a change adds."""
    table = QUEUE_WORDS if change.scope == "queue" else CONSUMER_WORDS
    if change.field not in table or change.field in (
        "redrive",
        "redrive.max_receive_count",
        "function_timeout",
    ):
        raise CannotFix(f"{change.field} is not an argument visguard adds to a Terraform block")
    return table[change.field][2]
