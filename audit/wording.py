"""A fleet audit's fixes: the API calls that make a finding's structured changes on existing resources, and who
owns them (pure functions).

An audit looks at resources that exist. Its findings are already in the audit's words (the inventory's queues
have ``source="inventory"``, whose vocabulary in ``visguard.linter.vocabulary`` says, e.g., that a mapping of
VG010 exists); :func:`audit_finding` adds to the fix the calls that make the finding's ``Change`` s with the API
(or the console) on that queue or mapping, and, when a tool owns the resource, that a fix made by hand is
reverted by its next deployment. Nothing here reads or rewrites the rules' sentences.
"""

from __future__ import annotations

import json

from visguard.linter.model import Finding, Queue
from visguard.linter.vocabulary import CHANGE_NAMES, change_name

# Tags AWS puts on resources a CloudFormation stack creates (CDK, SAM and Serverless Framework deploy through it).
TAG_STACK = "aws:cloudformation:stack-name"
TAG_LOGICAL_ID = "aws:cloudformation:logical-id"
# Tags teams commonly use to say which tool manages a resource (no AWS standard exists for Terraform).
MANAGED_BY_TAGS = ("managed-by", "ManagedBy", "managed_by", "terraform")
IAC_TAG_KEYS = (TAG_STACK, TAG_LOGICAL_ID, *MANAGED_BY_TAGS)


def audit_finding(f: Finding, queue: Queue, dlq: Queue | None = None) -> Finding:
    """``f`` (a finding on ``queue``, an existing resource) with the API calls and the owner added to its fix."""
    api = api_fix(f, queue, dlq)
    owner = iac_owner(queue.tags, dlq.tags if dlq is not None and f.rule == "VG022" else None)
    parts = [f.fix] if f.fix else []
    if api:
        parts.append(f"API: {api}.")
    if owner:
        parts.append(f"{owner}: change it there, or its next deployment reverts a change made by hand.")
    fix = " ".join(parts) or None
    return f if fix == f.fix else f.replace(fix=fix)


def api_fix(f: Finding, queue: Queue, dlq: Queue | None = None) -> str | None:
    """The API calls that fix ``f`` on the existing queue, DLQ or mapping, in words (``SetQueueAttributes
    VisibilityTimeout=1200 on arn:...``), when the finding carries structured changes; None when it does not."""
    calls = api_calls(f, queue, dlq)
    return "; then ".join(map(say, calls)) or None


def api_calls(f: Finding, queue: Queue, dlq: Queue | None = None) -> list[dict]:
    """The finding's structured ``changes`` (``visguard.linter.model.Change``) as API calls on existing resources:
    ``{"operation", "target", "params"}`` with the API's own parameter names and values (strings, as
    SetQueueAttributes takes them). Never parsed from the sentence: the same changes ``visguard lint --fix``
    writes into a template. Several settings of one resource go into one call."""
    queues = {q.id: q for q in (queue, dlq) if q is not None}
    calls: list[dict] = []

    def call(operation: str, target: str, **params) -> None:
        for c in calls:
            if c["operation"] == operation and c["target"] == target and operation != "CreateQueue":
                c["params"].update(params)
                return
        calls.append({"operation": operation, "target": target, "params": params})

    for ch in f.changes:
        if ch.scope == "consumer":
            c = next((c for c in queue.consumers if c.id == ch.target), None)
            if ch.field == "function_timeout":
                if c is not None and c.function_id:
                    call("UpdateFunctionConfiguration", c.function_id, Timeout=_int(ch.value))
                continue
            name = change_name(ch.field, "inventory") if ch.field in CHANGE_NAMES else None
            if name == "FunctionResponseTypes":
                call(
                    "UpdateEventSourceMapping",
                    ch.target,
                    **{name: ["ReportBatchItemFailures"] if ch.value else []},
                )
            elif name is not None:
                call("UpdateEventSourceMapping", ch.target, **{name: _int(ch.value)})
            continue
        q = queues.get(ch.target)
        arn = q.arn or q.id if q is not None else ch.target
        if ch.field == "redrive":
            v = ch.value
            new = _dlq_name(
                q.name if q is not None and q.name else arn.rsplit(":", 1)[-1], q is not None and q.fifo
            )
            attrs = {"MessageRetentionPeriod": str(int(v["retention"]))}
            if q is not None and q.fifo:
                attrs["FifoQueue"] = "true"
            calls.append({"operation": "CreateQueue", "target": new, "params": {"Attributes": attrs}})
            dlq_arn = f"{arn.rsplit(':', 1)[0]}:{new}" if arn.startswith("arn:") else f"<{new} ARN>"
            call("SetQueueAttributes", arn, RedrivePolicy=_policy(dlq_arn, int(v["max_receive_count"])))
        elif ch.field == "redrive.max_receive_count":
            target = q.redrive.target_ref if q is not None and q.redrive is not None else None
            call("SetQueueAttributes", arn, RedrivePolicy=_policy(target or "<dlq-arn>", _int(ch.value)))
        elif ch.field in CHANGE_NAMES:
            call("SetQueueAttributes", arn, **{change_name(ch.field, "inventory"): str(_int(ch.value))})
    return calls


def say(call: dict) -> str:
    """One API call in words: ``SetQueueAttributes VisibilityTimeout=1200 on arn:...``."""
    op, target, params = call["operation"], call["target"], call["params"]
    if op == "CreateQueue":
        attrs = " ".join(f"{k}={v}" for k, v in params["Attributes"].items())
        return f"CreateQueue QueueName={target} {attrs}"
    words = []
    for k, v in params.items():
        if isinstance(v, list):
            v = ",".join(v) or "[]"
        elif k == "RedrivePolicy":
            v = f"'{v}'"
        words.append(f"{k}={v}")
    if op == "UpdateEventSourceMapping":
        return f"UpdateEventSourceMapping UUID={target} {' '.join(words)}"
    if op == "UpdateFunctionConfiguration":
        return f"UpdateFunctionConfiguration FunctionName={target} {' '.join(words)}"
    return f"{op} {' '.join(words)} on {target}"


def _int(v):
    return int(v) if isinstance(v, float) and v == int(v) else v


def _dlq_name(name: str, fifo: bool) -> str:
    """The new dead-letter queue's name: ``orders-dlq``, ``orders-dlq.fifo`` (a FIFO name ends in .fifo); at
    most 80 characters, as SQS allows."""
    stem = name.removesuffix(".fifo")
    tail = "-dlq.fifo" if fifo else "-dlq"
    return stem[: 80 - len(tail)] + tail


def _policy(target: str, mrc: int) -> str:
    return _COMPACT_JSON.encode({"deadLetterTargetArn": target, "maxReceiveCount": mrc})


_COMPACT_JSON = json.JSONEncoder(separators=(",", ":"))  # json.dumps(..., separators=...), one encoder


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
