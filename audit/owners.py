"""Which stack or state owns a deployed resource (issue 39 §1): ``owner`` records of the inventory.

CloudFormation does not tag SQS queues with its ``aws:cloudformation:*`` tags, and Terraform tags nothing, so the
collector asks the stacks themselves (this module; read-only calls, in ``permissions.COLLECTOR_ACTIONS``) and
reads the Terraform states the user gives (``tfstate.py``). One ``owner`` record per owned resource, in the
partition file of the account and region its ARN names:

- ``resource``: the queue's ARN (``url`` its URL), an event source mapping's UUID, an ECS service's, task
  definition's or pipe's ARN; ``resource_type`` the CloudFormation type (``AWS::SQS::Queue``, ...; a Terraform
  ``aws_sqs_queue`` or ``awscc_sqs_queue`` is an ``AWS::SQS::Queue`` too);
- ``owner`` ``cloudformation``: ``stack`` (name), ``stack_id`` (ARN), ``logical_id``, ``construct_path`` (the
  resource's ``aws:cdk:path`` metadata, read only with ``--templates``; else null) and ``root_stack`` (the top
  stack's name for a resource of a nested stack, else null);
- ``owner`` ``terraform``: ``state`` (the path or ``s3://`` URL as given), ``address`` and ``module`` (the module
  path, ``""`` for the root module).

Names, logical ids, construct paths and addresses are kept as AWS or the state has them (the source join of issue
39 §2 needs them exact; JSON escapes them in the inventory) and cut at :data:`TEXT_LIMIT` characters; every output
shows them through ``visguard.neutralize`` / ``audit.neutral`` as it shows queue names.

CloudFormation, per account and region: ``ListStacks`` (the statuses of ``facts.CFN_OWNING_STATUSES``, paginated),
``ListStackResources`` per stack (paginated; only the types of :data:`OWNED_TYPES` and nested stacks are kept),
and with ``--templates`` ``GetTemplate`` of the stacks that own something (its body bounded by
:data:`MAX_TEMPLATE_BYTES`). A nested stack is listed by ListStacks like any other; its parent is its summary's
``ParentId``, else the stack whose ``AWS::CloudFormation::Stack`` resource names it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable

from visguard import facts

QUEUE = "AWS::SQS::Queue"
MAPPING = "AWS::Lambda::EventSourceMapping"
ECS_SERVICE = "AWS::ECS::Service"
TASK_DEFINITION = "AWS::ECS::TaskDefinition"
PIPE = "AWS::Pipes::Pipe"
NESTED_STACK = "AWS::CloudFormation::Stack"
OWNED_TYPES = (QUEUE, MAPPING, ECS_SERVICE, TASK_DEFINITION, PIPE)
OWNER_KINDS = ("cloudformation", "terraform")
# A template bigger than this is not read for construct paths (twice CloudFormation's own 1 MB quota: a
# processed template can be larger than the uploaded one).
MAX_TEMPLATE_BYTES = 2 * facts.CFN_TEMPLATE_MAX_BYTES
TEXT_LIMIT = 2048  # characters of a name, logical id, construct path or address kept in a record
PAGE = 100  # resources per ListStackResources page (the API's own page size; it takes no page size)

_QUEUE_URL = re.compile(r"^https?://[^/]+/([0-9]{12})/([^/?#]+?)/?$")


def text(v) -> str | None:
    """A name, id or path for a record: a string cut at :data:`TEXT_LIMIT` characters, or None."""
    if v is None:
        return None
    s = v if isinstance(v, str) else str(v)
    return s if len(s) <= TEXT_LIMIT else s[: TEXT_LIMIT - 1] + "…"


def arn_place(arn: str | None) -> tuple[str, str] | None:
    """(account, region) an ARN names, or None when it names neither (a bare name, a URL)."""
    if not isinstance(arn, str) or not arn.startswith("arn:"):
        return None
    parts = arn.split(":", 5)
    if len(parts) < 6 or not re.fullmatch(r"[0-9]{12}", parts[4]) or not parts[3]:
        return None
    return parts[4], parts[3]


def queue_arn_of_url(url: str, partition: str, region: str) -> str | None:
    """The ARN of a queue URL (account and name from its path; region: the URL's host, else ``region``)."""
    m = _QUEUE_URL.match(url or "")
    if not m:
        return None
    host = re.match(r"^https?://(?:sqs\.)?([a-z]{2}(?:-[a-z]+)+-[0-9]+)\.", url)
    return f"arn:{partition}:sqs:{host.group(1) if host else region}:{m.group(1)}:{m.group(2)}"


def owner_record(account: str, region: str, resource: str, resource_type: str, owner: str, **fields) -> dict:
    """One ``owner`` record: the common fields, then the owner kind's own (see the module docstring)."""
    rec = {
        "kind": "owner",
        "account": account,
        "region": region,
        "resource": text(resource),
        "resource_type": resource_type,
        "url": fields.pop("url", None),
        "owner": owner,
    }
    for k, v in fields.items():
        rec[k] = v if k == "module" else text(v)
    return rec


# ------------------------------------------------------------------------------------------- CloudFormation
def cloudformation(
    part, cfn, queues: list[dict], *, templates: bool = False, fan_out: Callable
) -> list[dict]:
    """The owner records of one account and region's stacks. ``part`` is the collector's Partition (its
    ``call`` turns a botocore failure into ``PartitionFailed``); ``queues`` the partition's queue records (a
    queue's physical id is its URL: mapped to its ARN); ``fan_out(fn, items)`` runs per-stack calls."""
    stacks = list_stacks(part, cfn)
    listed = fan_out(lambda s: (s, stack_resources(part, cfn, s)), stacks)
    resources = {s["StackId"]: res for s, res in listed if res is not None}
    by_id = {s["StackId"]: s for s in stacks if s["StackId"] in resources}
    parents = nesting(by_id, resources)
    by_url = {q["url"]: q["arn"] for q in queues if q.get("url")}
    by_name = {(q["account"], q["name"]): q["arn"] for q in queues if q.get("name")}
    owning = [sid for sid, res in resources.items() if any(r.get("ResourceType") in OWNED_TYPES for r in res)]
    paths: dict[str, dict[str, str]] = {}
    if templates and owning:
        paths = dict(zip(owning, fan_out(lambda sid: construct_paths(part, cfn, sid), owning), strict=True))
    out: list[dict] = []
    for sid in sorted(resources, key=lambda s: (by_id[s]["StackName"], s)):
        summary = by_id[sid]
        root = top(sid, parents)
        for r in sorted(resources[sid], key=lambda r: str(r.get("LogicalResourceId"))):
            kind = r.get("ResourceType")
            physical = r.get("PhysicalResourceId")
            if kind not in OWNED_TYPES or not physical:
                continue  # another type, or a resource that was never created
            resource, url = identify(part, kind, physical, by_url, by_name)
            lid = r.get("LogicalResourceId")
            out.append(
                owner_record(
                    part.account,  # a stack's resources are in its own account and region
                    part.region,
                    resource,
                    kind,
                    "cloudformation",
                    url=url,
                    stack=summary["StackName"],
                    stack_id=sid,
                    logical_id=lid,
                    construct_path=paths.get(sid, {}).get(lid),
                    root_stack=by_id[root]["StackName"] if root != sid else None,
                )
            )
    return out


def list_stacks(part, cfn) -> list[dict]:
    """The stack summaries whose resources exist (``facts.CFN_OWNING_STATUSES``), every page."""
    out: list[dict] = []

    def run():
        pages = cfn.get_paginator("list_stacks").paginate(StackStatusFilter=list(facts.CFN_OWNING_STATUSES))
        for page in pages:
            out.extend(s for s in page.get("StackSummaries", []) if s.get("StackId") and s.get("StackName"))

    part.call("cloudformation:ListStacks", run)
    return out


def stack_resources(part, cfn, summary: dict) -> list[dict] | None:
    """The owned and nested-stack resources of one stack (every page), or None when the stack was deleted since
    ListStacks."""
    from visguard.audit.collector import PartitionFailed

    out: list[dict] = []

    def run():
        for page in cfn.get_paginator("list_stack_resources").paginate(StackName=summary["StackId"]):
            for r in page.get("StackResourceSummaries", []):
                if r.get("ResourceType") in (*OWNED_TYPES, NESTED_STACK):
                    out.append(r)

    try:
        part.call("cloudformation:ListStackResources", run, resource=summary["StackId"])
    except PartitionFailed as pf:
        if pf.record["message"].startswith("ValidationError") and "does not exist" in pf.record["message"]:
            return None  # deleted between ListStacks and now: it owns nothing any more
        raise
    return out


def nesting(stacks: dict[str, dict], resources: dict[str, list[dict]]) -> dict[str, str]:
    """Stack id -> its parent's stack id: a summary's ``ParentId``, else the stack whose
    ``AWS::CloudFormation::Stack`` resource has the nested stack's id (or name, as some emulators give) as its
    physical id."""
    by_name = {s["StackName"]: sid for sid, s in stacks.items()}
    parents = {sid: s["ParentId"] for sid, s in stacks.items() if s.get("ParentId") in stacks}
    for sid, res in resources.items():
        for r in res:
            if r.get("ResourceType") != NESTED_STACK:
                continue
            child = r.get("PhysicalResourceId")
            child = child if child in stacks else by_name.get(child)
            if child and child != sid:
                parents.setdefault(child, sid)
    return parents


def top(sid: str, parents: dict[str, str]) -> str:
    """The root of ``sid``'s nesting (itself when it is not nested); a loop (bad data) stops where it closes."""
    seen = {sid}
    while sid in parents and parents[sid] not in seen:
        sid = parents[sid]
        seen.add(sid)
    return sid


def identify(part, kind: str, physical: str, by_url: dict, by_name: dict) -> tuple[str, str | None]:
    """(resource, url) of a stack resource from its physical id: a queue's URL -> its ARN (the partition's
    queue with that URL, or that account and name; else the ARN the URL spells), a pipe's name -> its ARN;
    a mapping's UUID and an ECS service's or task definition's ARN as they are."""
    if kind == QUEUE:
        arn = by_url.get(physical)
        if arn is None:
            m = _QUEUE_URL.match(physical)
            arn = by_name.get((m.group(1), m.group(2))) if m else None
        if arn is None:
            arn = queue_arn_of_url(physical, part.partition, part.region) or physical
        return arn, physical
    if kind == PIPE and not physical.startswith("arn:"):
        return f"arn:{part.partition}:pipes:{part.region}:{part.account}:pipe/{physical}", None
    return physical, None


def construct_paths(part, cfn, stack_id: str) -> dict[str, str]:
    """Logical id -> the ``aws:cdk:path`` metadata of the stack's original template; empty when the template has
    none, is bigger than :data:`MAX_TEMPLATE_BYTES` or cannot be read as a template."""
    body = part.call(
        "cloudformation:GetTemplate",
        lambda: cfn.get_template(StackName=stack_id, TemplateStage="Original").get("TemplateBody"),
        resource=stack_id,
    )
    return paths_of_template(body)


def paths_of_template(body) -> dict[str, str]:
    """The construct paths of a template body as GetTemplate returns it (botocore decodes a JSON body to a dict;
    a YAML body stays text)."""
    if isinstance(body, str):
        if len(body.encode("utf-8", "surrogatepass")) > MAX_TEMPLATE_BYTES:
            return {}
        from visguard.errors import VisguardError
        from visguard.linter.loaders.decode import loads

        try:
            body = loads(body, file="template")
        except (VisguardError, RecursionError, ValueError):
            return {}
    elif isinstance(body, dict):
        try:
            if len(json.dumps(body, default=str)) > MAX_TEMPLATE_BYTES:
                return {}
        except (ValueError, RecursionError):
            return {}
    if not isinstance(body, dict) or not isinstance(body.get("Resources"), dict):
        return {}
    out = {}
    for lid, res in body["Resources"].items():
        meta = res.get("Metadata") if isinstance(res, dict) else None
        path = meta.get(facts.CDK_PATH_METADATA) if isinstance(meta, dict) else None
        if isinstance(path, str) and isinstance(lid, str):
            out[lid] = text(path)
    return out


def by_partition(records: Iterable[dict]) -> dict[tuple[str, str], list[dict]]:
    """Owner records grouped by the (account, region) each belongs to."""
    out: dict[tuple[str, str], list[dict]] = {}
    for r in records:
        out.setdefault((r["account"], r["region"]), []).append(r)
    return out
