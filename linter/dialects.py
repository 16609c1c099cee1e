"""Fixes and messages in the language of the input: a finding on a Terraform queue says
``visibility_timeout_seconds = 1800``, not ``VisibilityTimeout``.

Rules write CloudFormation property names (the model's first door). ``DIALECTS`` maps a ``Queue.source`` to a
function that rewrites a finding for that input; ``lint_model`` applies it to every finding it keeps. Inputs
without an entry (CloudFormation, SAM, CDK, visguard.yaml, the fleet inventory) are left as the rules wrote them.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable

from visguard.linter.model import Finding, Location, Queue

# CloudFormation property -> (model field it sets, Terraform argument of the AWS provider)
TERRAFORM_NAMES: dict[str, tuple[str | None, str]] = {
    "VisibilityTimeout": ("visibility_timeout", "visibility_timeout_seconds"),
    "MessageRetentionPeriod": ("message_retention", "message_retention_seconds"),
    "DelaySeconds": ("delay", "delay_seconds"),
    "FifoQueue": ("fifo", "fifo_queue"),
    "RedriveAllowPolicy": ("redrive_allow", "redrive_allow_policy"),
    "RedrivePolicy": ("redrive", "redrive_policy"),
    "BatchSize": ("batch_size", "batch_size"),
    "MaximumBatchingWindowInSeconds": ("batching_window", "maximum_batching_window_in_seconds"),
    "FunctionResponseTypes": ("report_batch_item_failures", "function_response_types"),
    "ReservedConcurrentExecutions": ("reserved_concurrency", "reserved_concurrent_executions"),
    "ScalingConfig.MaximumConcurrency": ("max_concurrency", "scaling_config.maximum_concurrency"),
    "EventSourceArn": (None, "event_source_arn"),
    "FunctionName": (None, "function_name"),
}


@functools.cache
def _phrases() -> list[tuple[re.Pattern, str]]:
    """CloudFormation phrases -> Terraform, whole snippets first, then property names (compiled on the first
    Terraform finding: a CloudFormation lint never needs them)."""
    return [
        (
            re.compile(r"RedrivePolicy \{deadLetterTargetArn: !GetAtt <Name>DLQ\.Arn, maxReceiveCount: 5\}"),
            "redrive_policy = jsonencode({ deadLetterTargetArn = aws_sqs_queue.<name>_dlq.arn, maxReceiveCount = 5 })",
        ),
        (re.compile(r"!GetAtt (\w+)\.Arn"), r"aws_sqs_queue.<name>.arn"),
        (re.compile(r"RedrivePolicy\.(maxReceiveCount|deadLetterTargetArn)"), r"\1 in redrive_policy"),
        (
            re.compile(r"FunctionResponseTypes: \[ReportBatchItemFailures\]"),
            'function_response_types = ["ReportBatchItemFailures"]',
        ),
        (re.compile(r"\(FifoQueue: true for a FIFO source\)"), "(fifo_queue = true for a FIFO source)"),
        (re.compile(r"the function Timeout"), "the function's timeout"),
        (re.compile(r"\bTimeout\b"), "timeout"),
    ]


# regular expressions as strings: compiled by the re module's cache on first use
_RESOURCE = r"(^|\.)aws_[a-z0-9_]+\.[^./]+"
_AT_LEAST = (
    r"Set VisibilityTimeout to at least (?P<how>(?:[^=.]*= )?)(?P<n>\d+(?:\.\d+)?) s(?P<unit> \([^)]*\))?\."
)


def _written_name(f: Finding, queue: Queue, fld: str | None) -> str | None:
    """The name written where the finding points, when that is where field ``fld`` got its value and it is not
    the resource argument itself: a module input (``visibility_timeout``), a variable in a .tfvars file, or a
    variable's default."""
    if fld is None:
        return None
    locs: list[Location] = [queue.locations[fld]] if fld in queue.locations else []
    locs += [c.locations[fld] for c in queue.consumers if fld in c.locations]
    for loc in locs:
        if loc != f.location or not loc.path or "/" not in loc.path:
            continue
        owner, name = loc.path.rsplit("/", 1)
        if re.search(_RESOURCE, owner):
            return None  # the resource's own argument: the provider's name
        if name == "default":
            return f"the default of {owner}"
        if owner == "locals":
            return f"local.{name}"
        return name.rsplit(".", 1)[-1]
    return None


def terraform(f: Finding, queue: Queue) -> Finding:
    """CloudFormation names -> the AWS provider's arguments (or the module input / variable written there)."""

    def names(text: str) -> str:
        for pattern, repl in _phrases():
            text = pattern.sub(repl, text)
        for cfn in sorted(TERRAFORM_NAMES, key=len, reverse=True):
            fld, arg = TERRAFORM_NAMES[cfn]
            if cfn in text:
                text = re.sub(rf"\b{re.escape(cfn)}\b", _written_name(f, queue, fld) or arg, text)
        return text

    fix = f.fix
    if fix:
        m = re.search(_AT_LEAST, fix)
        if m:
            want = math.ceil(float(m.group("n")))
            name = _written_name(f, queue, "visibility_timeout") or "visibility_timeout_seconds"
            setting = f"{name} = {want}" if not name.startswith("the default") else f"{name} to {want}"
            fix = (
                fix[: m.start()]
                + f"Set {setting} (at least {m.group('how')}{m.group('n')} s{m.group('unit') or ''})."
                + fix[m.end() :]
            )
        fix = names(fix)
    return f.replace(message=names(f.message), fix=fix)


DIALECTS: dict[str, Callable[[Finding, Queue], Finding]] = {"terraform": terraform}


def apply_dialect(f: Finding, queue: Queue) -> Finding:
    fn = DIALECTS.get(queue.source)
    return fn(f, queue) if fn is not None else f
