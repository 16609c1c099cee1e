"""Findings worded for a fleet audit (pure functions; one place, so a structured-fix mechanism can replace it).

The rule catalogue speaks to someone writing a template: "creating the event source mapping fails", "Set
VisibilityTimeout to at least 360 s". An audit looks at resources that exist: the mapping was created (the
queue's timeout was lowered afterwards), and the fix is made with the API (or the console) on that queue or
mapping, unless a tool owns the resource, in which case a fix made by hand is reverted by its next deployment.
:func:`audit_finding` rewords a finding accordingly; the facts (limits, formulas) stay in the rules.
"""

from __future__ import annotations

import json
import re

from visguard import facts
from visguard.linter.model import Finding, Queue

# Tags AWS puts on resources a CloudFormation stack creates (CDK, SAM and Serverless Framework deploy through it).
TAG_STACK = "aws:cloudformation:stack-name"
TAG_LOGICAL_ID = "aws:cloudformation:logical-id"
# Tags teams commonly use to say which tool manages a resource (no AWS standard exists for Terraform).
MANAGED_BY_TAGS = ("managed-by", "ManagedBy", "managed_by", "terraform")
IAC_TAG_KEYS = (TAG_STACK, TAG_LOGICAL_ID, *MANAGED_BY_TAGS)

# "at least 360 s", "towards 120 s", "at least 6 x 200 s = 1200 s": the last figure is the value to set
_AT_LEAST = re.compile(r"(?:at least|towards|=) ([0-9]+(?:\.[0-9]+)?) s\b")
_MAPPING_FAILS = re.compile(r": creating the event source mapping fails$")


def audit_finding(f: Finding, queue: Queue, dlq: Queue | None = None) -> Finding:
    """``f`` (a finding on ``queue``, an existing resource) with an audit's message and fix."""
    message = _MAPPING_FAILS.sub(
        ": the mapping exists, so the timeout was lowered after it was created; Lambda now rejects any "
        "update to it (UpdateEventSourceMapping), and messages become visible again while still being processed",
        f.message,
    )
    api = api_fix(f, queue, dlq)
    owner = iac_owner(queue.tags, dlq.tags if dlq is not None and f.rule == "VG022" else None)
    parts = [f.fix] if f.fix else []
    if api:
        parts.append(f"API: {api}.")
    if owner:
        parts.append(f"{owner}: change it there, or its next deployment reverts a change made by hand.")
    fix = " ".join(parts) or None
    if message == f.message and fix == f.fix:
        return f
    return f.replace(message=message, fix=fix)


def api_fix(f: Finding, queue: Queue, dlq: Queue | None = None) -> str | None:
    """The API call (attribute and value) that fixes ``f`` on the existing queue or mapping, when one does."""
    rule, q = f.rule, queue.arn or queue.id
    m = next(reversed(list(_AT_LEAST.finditer(f.fix or ""))), None)
    if rule in ("VG010", "VG011", "VG012", "VG013", "VG016") and m:
        value = m.group(1).removesuffix(".0")
        if "." in value:
            value = str(int(float(value)) + 1)  # whole seconds, rounded up
        return f"SetQueueAttributes VisibilityTimeout={min(int(value), facts.MAX_VISIBILITY)} on {q}"
    if rule == "VG001":
        return f"SetQueueAttributes VisibilityTimeout=<{facts.VISIBILITY_TIMEOUT.lo}-{facts.VISIBILITY_TIMEOUT.hi}> on {q}"
    if rule in ("VG002", "VG021", "VG024") and queue.redrive is not None:
        target = queue.redrive.target_ref or "<dlq-arn>"
        return f"SetQueueAttributes RedrivePolicy={_policy(target, 5)} on {q}"
    if rule == "VG020":
        return f"SetQueueAttributes RedrivePolicy={_policy('<dlq-arn>', 5)} on {q}"
    if rule == "VG022" and dlq is not None:
        return f"SetQueueAttributes MessageRetentionPeriod={facts.RETENTION.hi} on {dlq.arn or dlq.id}"
    if rule == "VG023":
        return f"SetQueueAttributes RedrivePolicy='' on the dead-letter queue that closes the loop ({q} or a queue after it)"
    if rule == "VG031" and f.consumer:
        return f"UpdateEventSourceMapping UUID={f.consumer} FunctionResponseTypes=ReportBatchItemFailures"
    if rule == "VG030" and f.consumer:
        return f"UpdateEventSourceMapping UUID={f.consumer} MaximumBatchingWindowInSeconds=<1 or more>"
    return None


def _policy(target: str, mrc: int) -> str:
    return (
        "'" + json.dumps({"deadLetterTargetArn": target, "maxReceiveCount": mrc}, separators=(",", ":")) + "'"
    )


def iac_owner(tags: dict, dlq_tags: dict | None = None) -> str | None:
    """Which infrastructure-as-code tool created the resource, from its tags (the DLQ's for a DLQ's fix)."""
    t = dlq_tags if dlq_tags is not None else tags
    stack = t.get(TAG_STACK)
    if stack:
        lid = t.get(TAG_LOGICAL_ID)
        return f"Created by CloudFormation stack {stack}" + (f" (logical id {lid})" if lid else "")
    for k in MANAGED_BY_TAGS:
        v = t.get(k)
        if v:
            tool = "Terraform" if k == "terraform" or v.lower().startswith("terraform") else v
            return f"Managed by {tool}"
    return None
