"""``visguard audit collect``: read queues, their DLQ sources, Lambda event source mappings and functions, the
worker consumers it can see (ECS services whose task definition names a queue, EventBridge Pipes with an SQS
source) and optionally CloudWatch evidence from many accounts and regions into an inventory (``inventory.py``).

- Accounts: ``--accounts ID,ID`` or ``--organization`` (Organizations ListAccounts, paginated, ``State`` ACTIVE;
  the ``Status`` field is being retired). Each is entered with STS AssumeRole (``--role-name``, optional
  ``--external-id``; one hour, the role-chaining maximum) unless it is the caller's own account.
- Regions: ``--regions R,R`` or ``all`` (EC2 DescribeRegions, enabled regions only, per account).
- One task per (account, region), run on a thread pool; each task builds one client per service and shares it
  with the per-queue calls it fans out, so botocore's retry quota and the adaptive rate limiter (both per
  client) see all of that partition's traffic.
- Every call goes through botocore retries (``standard`` by default, ``adaptive`` on request). What still
  fails becomes an ``error`` record: AccessDenied, throttling after the retries, a disabled region.
- Each partition is written atomically; a re-run skips partitions that are complete without errors.
- Credentials are held only in botocore objects and never written or logged. AWS's error messages are kept
  (they say what went wrong), but scrubbed first (``visguard.neutralize.scrub``): a ``SignatureDoesNotMatch`` answer
  echoes the canonical request, security token header included. On the terminal, text from AWS or from the
  inventory is shown with control characters escaped, one line per error.
"""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from visguard.audit import inventory
from visguard.errors import VisguardError
from visguard.neutralize import printable, safe, scrub

ACCESS_DENIED = {
    "AccessDenied",
    "AccessDeniedException",
    "UnauthorizedOperation",
    "AuthorizationError",
    "AWS.SimpleQueueService.AccessDenied",
}
# botocore/retries/standard.py throttling codes (audit-landscape.md 5.6) plus SQS's own
THROTTLING = {
    "Throttling",
    "ThrottlingException",
    "ThrottledException",
    "RequestThrottledException",
    "TooManyRequestsException",
    "RequestLimitExceeded",
    "RequestThrottled",
    "SlowDown",
    "LimitExceededException",
}
# Calls into a region that is not enabled for the account fail authentication there.
REGION_DISABLED = {"UnrecognizedClientException", "InvalidClientTokenId", "OptInRequired", "AuthFailure"}
# An endpoint that does not answer: refused, unreachable or unknown host (botocore's connection errors).
CONNECTION_FAILED = "ConnectionFailed"
MESSAGE_LIMIT = 500  # characters of an error message kept in a record (cut after scrubbing)
METRIC_BATCH = 500  # GetMetricData accepts at most 500 MetricDataQuery entries per call
METRIC_DAYS = 14  # 1-minute points are kept 15 days; one 14-day period per metric


@dataclass
class Options:
    accounts: list[str] | None = None
    organization: bool = False
    role_name: str | None = None
    external_id: str | None = None
    regions: list[str] | str = "all"
    endpoint_url: str | None = None
    metrics: bool = False
    out: str = "inventory"
    workers: int = 16  # partitions in flight
    queue_workers: int = 8  # per-queue calls in flight inside one partition
    retry_mode: str = "standard"
    max_attempts: int = 8
    session: object | None = None  # a boto3.Session (tests, profiles); default: boto3.Session()
    client_hook: Callable | None = (
        None  # hook(client, account or None) for every client (tests: record, faults)
    )
    progress: bool = True
    templates: bool = False  # GetTemplate of the stacks that own something: CDK construct paths (owners.py)
    terraform_states: list[str] | None = None  # --terraform-state sources: files, folders, s3:// (tfstate.py)


@dataclass
class Stats:
    partitions: int = 0
    skipped: int = 0
    queues: int = 0
    mappings: int = 0
    functions: int = 0
    workers: int = 0
    owners: int = 0
    owners_dropped: int = 0  # Terraform owners of resources in no partition written by this run
    errors: int = 0
    done: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def as_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "lock"}


class PartitionFailed(Exception):
    """A call whose failure leaves the partition incomplete: recorded as an error row."""

    def __init__(self, record: dict):
        super().__init__(record["code"])
        self.record = record


def _code(exc: Exception) -> tuple[str, str]:
    """(error code, message) of a botocore failure; the message is scrubbed of credentials (AWS echoes the
    signed request in some answers) but otherwise AWS's own text."""
    from botocore.exceptions import (
        ClientError,
        ConnectionClosedError,
        ConnectTimeoutError,
        EndpointConnectionError,
        ReadTimeoutError,
    )

    if isinstance(exc, ClientError):
        err = exc.response.get("Error", {})
        code = str(err.get("Code") or "ClientError")
        msg = str(err.get("Message") or exc)
    elif isinstance(exc, (EndpointConnectionError, ConnectTimeoutError, ConnectionClosedError)):
        # the endpoint did not answer (refused, unreachable, DNS): a network problem, not a disabled region
        code, msg = CONNECTION_FAILED, str(exc)
    elif isinstance(exc, ReadTimeoutError):
        code, msg = "ReadTimeout", str(exc)
    else:
        code, msg = type(exc).__name__, str(exc)
    return scrub(code), scrub(msg)


def classify(code: str) -> str:
    if code in ACCESS_DENIED:
        return "AccessDenied"
    if code in THROTTLING:
        return "Throttled"
    if code in REGION_DISABLED:
        return "RegionDisabled"
    return code


def error_record(
    account: str, region: str, operation: str, exc: Exception, resource: str | None = None
) -> dict:
    code, msg = _code(exc)
    return {
        "kind": "error",
        "account": account,
        "region": region,
        "operation": operation,
        "code": classify(code),
        # scrubbed before the cut, so a cut never leaves the start of a credential behind
        "message": _cut(f"{code}: {msg}", MESSAGE_LIMIT),
        "resource": resource,
    }


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ---------------------------------------------------------------------------------------------- clients
class Clients:
    """One boto3 client per (account, region, service), made from one account's credentials."""

    def __init__(self, opts: Options, session, account: str):
        self.opts, self.session, self.account = opts, session, account
        self._cache: dict[tuple[str, str], object] = {}
        self._lock = threading.Lock()

    def get(self, service: str, region: str):
        key = (service, region)
        with self._lock:
            client = self._cache.get(key)
            if client is None:
                client = make_client(self.opts, self.session, service, region, account=self.account)
                self._cache[key] = client
            return client


def make_client(opts: Options, session, service: str, region: str, account: str | None = None):
    from botocore.config import Config

    cfg = Config(
        retries={"mode": opts.retry_mode, "max_attempts": opts.max_attempts},
        max_pool_connections=max(10, opts.queue_workers * 2),
        connect_timeout=10,
        read_timeout=60,
    )
    client = session.client(service, region_name=region, endpoint_url=opts.endpoint_url, config=cfg)
    if opts.client_hook:
        opts.client_hook(client, account)
    return client


def _base_session(opts: Options):
    if opts.session is not None:
        return opts.session
    import boto3

    return boto3.Session()


def assume(opts: Options, base, account: str, caller: str):
    """A boto3 Session for ``account``: the caller's own session for its own account, else AssumeRole."""
    if account == caller and not opts.role_name:
        return base
    if not opts.role_name:
        raise VisguardError(
            f"account {printable(account)} is not the caller's ({printable(caller)}): give --role-name to assume a role in it",
            place="--accounts",
        )
    import boto3

    sts = make_client(opts, base, "sts", base.region_name or "us-east-1")
    kw = {
        "RoleArn": f"arn:aws:iam::{account}:role/{opts.role_name}",
        "RoleSessionName": "visguard-audit",
        # Role chaining caps the session at one hour (STS AssumeRole API reference).
        "DurationSeconds": 3600,
    }
    if opts.external_id:
        kw["ExternalId"] = opts.external_id
    creds = sts.assume_role(**kw)["Credentials"]
    return boto3.Session(
        aws_access_key_id=creds["AccessKeyId"],
        aws_secret_access_key=creds["SecretAccessKey"],
        aws_session_token=creds["SessionToken"],
        region_name=base.region_name or "us-east-1",
    )


def list_accounts(opts: Options, base) -> list[str]:
    if opts.accounts:
        return list(dict.fromkeys(opts.accounts))
    org = make_client(opts, base, "organizations", base.region_name or "us-east-1")
    out = []
    # ListAccounts pages hold at most 20 accounts; always follow NextToken (even after an empty page).
    for page in org.get_paginator("list_accounts").paginate():
        for acc in page.get("Accounts", []):
            state = acc.get("State") or acc.get("Status")
            if state == "ACTIVE":
                out.append(acc["Id"])
    return out


def enabled_regions(clients: Clients, home: str) -> list[str]:
    ec2 = clients.get("ec2", home)
    resp = ec2.describe_regions(AllRegions=False)  # opted-in and default regions only
    return sorted(r["RegionName"] for r in resp.get("Regions", []))


# ---------------------------------------------------------------------------------------------- one partition
def _call(account: str, region: str, operation: str, fn: Callable, *, resource: str | None = None):
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - every failure becomes a record
        from botocore.exceptions import BotoCoreError, ClientError

        if isinstance(exc, (ClientError, BotoCoreError)):
            raise PartitionFailed(error_record(account, region, operation, exc, resource)) from exc
        raise


@dataclass
class Partition:
    """One account and region being collected: its clients and where its error records point."""

    opts: Options
    account: str
    region: str
    sqs: object
    lam: object
    partition: str = (
        "aws"  # the AWS partition of the region (aws, aws-cn, aws-us-gov): the prefix of its ARNs
    )

    def call(self, operation: str, fn: Callable, resource: str | None = None):
        return _call(self.account, self.region, operation, fn, resource=resource)


def collect_partition(opts: Options, clients: Clients, account: str, region: str) -> list[dict]:
    """Every record of one account and region. Raises PartitionFailed on a failure that makes it incomplete."""
    part = Partition(
        opts,
        account,
        region,
        clients.get("sqs", region),
        clients.get("lambda", region),
        _partition(clients, region),
    )
    urls = list_queue_urls(part)
    queues = [q for q in _fan_out(opts, lambda url: queue_record(part, url), urls) if q is not None]
    add_dlq_sources(part, queues)
    mappings = list_mappings(part)
    # The mapping lives in the function's account: every function it names is in this account and region.
    fn_arns = sorted({m["function_arn"] for m in mappings if m["function_arn"]})
    functions = list(_fan_out(opts, lambda arn: function_record(part, arn), fn_arns))
    records: list[dict] = [*queues, *mappings, *functions]
    records += workers(part, clients, queues, functions)
    records += stack_owners(part, clients, queues)
    if opts.metrics and (queues or functions):
        records += evidence(part, clients.get("cloudwatch", region), queues, functions, mappings)
    return records


def _partition(clients: Clients, region: str) -> str:
    try:
        return clients.session.get_partition_for_region(region) or "aws"
    except Exception:  # noqa: BLE001 - a region botocore does not know: the commercial partition
        return "aws"


def list_queue_urls(part: Partition) -> list[str]:
    urls: list[str] = []

    def run():
        # MaxResults is required to get a NextToken at all (SQS ListQueues API reference).
        for page in part.sqs.get_paginator("list_queues").paginate(PaginationConfig={"PageSize": 1000}):
            urls.extend(page.get("QueueUrls", []))

    part.call("sqs:ListQueues", run)
    return urls


def queue_record(part: Partition, url: str) -> dict | None:
    """A queue's record (attributes and tags), or None when it was deleted since ListQueues."""
    sqs, account, region = part.sqs, part.account, part.region
    try:
        attrs = part.call(
            "sqs:GetQueueAttributes",
            lambda: sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"],
            resource=url,
        )
    except PartitionFailed as pf:
        if pf.record["message"].startswith("AWS.SimpleQueueService.NonExistentQueue"):
            return None  # deleted between ListQueues and now: nothing to audit
        raise
    tags = part.call(
        "sqs:ListQueueTags", lambda: sqs.list_queue_tags(QueueUrl=url).get("Tags", {}), resource=url
    )
    arn = attrs.get("QueueArn") or f"arn:aws:sqs:{region}:{account}:{url.rsplit('/', 1)[-1]}"
    return {
        "kind": "queue",
        "account": account,
        "region": region,
        "url": url,
        "arn": arn,
        "name": arn.rsplit(":", 1)[-1],
        "attributes": {k: str(v) for k, v in attrs.items()},
        "tags": tags,
        "dlq_sources": None,
        "metrics": None,
    }


def add_dlq_sources(part: Partition, queues: list[dict]) -> None:
    """``dlq_sources`` of the queues that can be DLQs. DLQs are in the same account and region as their sources
    (SQS developer guide, dead-letter queues), so only queues some queue here names as its target, or that
    declare a RedriveAllowPolicy, can have sources."""
    targets = {_redrive_target(q) for q in queues}
    dlqs = [q for q in queues if q["arn"] in targets or "RedriveAllowPolicy" in q["attributes"]]

    def sources(q: dict) -> None:
        found: list[str] = []

        def run():
            pages = part.sqs.get_paginator("list_dead_letter_source_queues").paginate(
                QueueUrl=q["url"], PaginationConfig={"PageSize": 1000}
            )
            for page in pages:
                found.extend(page.get("queueUrls", []))

        part.call("sqs:ListDeadLetterSourceQueues", run, resource=q["url"])
        q["dlq_sources"] = sorted(found)

    list(_fan_out(part.opts, sources, dlqs))


def list_mappings(part: Partition) -> list[dict]:
    """The event source mappings of this account and region whose source is an SQS queue."""
    mappings: list[dict] = []

    def run():
        # 100 mappings per page at most; follow NextMarker (Lambda ListEventSourceMappings API reference).
        for page in part.lam.get_paginator("list_event_source_mappings").paginate():
            for m in page.get("EventSourceMappings", []):
                if ":sqs:" in (m.get("EventSourceArn") or ""):  # Kinesis, DynamoDB, Kafka, MQ: not ours
                    mappings.append(mapping_record(part, m))

    part.call("lambda:ListEventSourceMappings", run)
    return mappings


def mapping_record(part: Partition, m: dict) -> dict:
    scaling = m.get("ScalingConfig") or {}
    return {
        "kind": "mapping",
        "account": part.account,
        "region": part.region,
        "uuid": m["UUID"],
        "event_source_arn": m.get("EventSourceArn") or "",
        "function_arn": m.get("FunctionArn") or "",
        "state": m.get("State"),
        "batch_size": m.get("BatchSize"),
        "batching_window": m.get("MaximumBatchingWindowInSeconds"),
        "maximum_concurrency": scaling.get("MaximumConcurrency"),
        "function_response_types": list(m.get("FunctionResponseTypes") or []),
        # MetricsConfig.Metrics as the mapping has it (["EventCount"]: its own CloudWatch counts; None: not set)
        "metrics_config": _metrics_config(m),
        "esm_metrics": None,  # add_metrics: the mapping's counts, where EventCount is on
        # ProvisionedPollerConfig (provisioned mode, issue 36); both None: standard mode
        **_pollers(m),
    }


def _metrics_config(m: dict) -> list[str] | None:
    cfg = m.get("MetricsConfig")
    if not isinstance(cfg, dict) or not isinstance(cfg.get("Metrics"), list):
        return None
    return [str(x) for x in cfg["Metrics"]]


def _pollers(m: dict) -> dict:
    """``min_pollers`` / ``max_pollers`` of a mapping's ProvisionedPollerConfig (MinimumPollers / MaximumPollers);
    the block without either is provisioned mode at Lambda's defaults (as the linter reads it)."""
    from visguard import facts

    cfg = m.get("ProvisionedPollerConfig")
    if not isinstance(cfg, dict):
        return {"min_pollers": None, "max_pollers": None}
    lo, hi = (_whole_or_none(cfg.get(k)) for k in ("MinimumPollers", "MaximumPollers"))
    if lo is None and hi is None:
        lo, hi = facts.DEFAULT_MIN_POLLERS, facts.DEFAULT_MAX_POLLERS
    return {"min_pollers": lo, "max_pollers": hi}


def _whole_or_none(v) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _lambda_compute(cfg: dict) -> dict:
    """Issue 36 (fact-drift L7, L8): the function's Lambda Managed Instances capacity provider
    (CapacityProviderConfig.LambdaManagedInstancesCapacityProviderConfig.CapacityProviderArn) and its
    DurableConfig.ExecutionTimeout (a durable function), each None when the function has none."""
    cp = cfg.get("CapacityProviderConfig")
    arn = None
    if isinstance(cp, dict):
        inner = cp.get("LambdaManagedInstancesCapacityProviderConfig")
        arn = inner.get("CapacityProviderArn") if isinstance(inner, dict) else None
        arn = str(arn) if arn else "(capacity provider)"  # set, whatever the answer names
    durable = cfg.get("DurableConfig")
    d = durable.get("ExecutionTimeout") if isinstance(durable, dict) else None
    return {
        "capacity_provider": arn,
        "durable_execution_timeout": d if isinstance(d, (int, float)) and not isinstance(d, bool) else None,
    }


def function_record(part: Partition, fn_arn: str) -> dict:
    # A qualified ARN (alias or version) returns that qualifier's configuration: its timeout is what runs.
    lam = part.lam
    cfg = part.call(
        "lambda:GetFunctionConfiguration",
        lambda: lam.get_function_configuration(FunctionName=fn_arn),
        resource=fn_arn,
    )
    unqualified = ":".join(fn_arn.split(":")[:7])
    conc = part.call(
        "lambda:GetFunctionConcurrency",
        lambda: lam.get_function_concurrency(FunctionName=unqualified),
        resource=fn_arn,
    )
    return {
        "kind": "function",
        "account": part.account,
        "region": part.region,
        "arn": fn_arn,
        "name": cfg.get("FunctionName"),
        "timeout": cfg.get("Timeout"),
        "memory": cfg.get("MemorySize"),
        "reserved_concurrency": conc.get("ReservedConcurrentExecutions"),
        **_lambda_compute(cfg),
        "duration_p50": None,
        "duration_p99": None,
    }


def evidence(part: Partition, cw, queues: list[dict], functions: list[dict], mappings=()) -> list[dict]:
    """CloudWatch evidence into the records; evidence is optional: a failure keeps the partition and is
    recorded as an error row (returned)."""
    try:
        add_metrics(cw, queues, functions, mappings=mappings)
    except PartitionFailed:
        raise
    except Exception as exc:  # noqa: BLE001 - every botocore failure becomes a record
        from botocore.exceptions import BotoCoreError, ClientError

        if not isinstance(exc, (ClientError, BotoCoreError)):
            raise
        return [error_record(part.account, part.region, "cloudwatch:GetMetricData", exc)]
    return []


def _redrive_target(queue: dict) -> str | None:
    try:
        return json.loads(queue["attributes"].get("RedrivePolicy") or "{}").get("deadLetterTargetArn")
    except (ValueError, AttributeError):
        return None  # not JSON: the audit quarantines the queue


def _fan_out(opts: Options, fn: Callable, items: list) -> Iterable:
    """Per-queue or per-function calls of one partition, ``opts.queue_workers`` at a time, in input order."""
    if len(items) <= 1 or opts.queue_workers <= 1:
        return [fn(x) for x in items]
    with ThreadPoolExecutor(max_workers=opts.queue_workers) as pool:
        return list(pool.map(fn, items))


# ---------------------------------------------------------------------------------------------- workers
# A queue named in an environment value: its ARN, or a queue URL of any account (host sqs.REGION.amazonaws.com,
# REGION.queue.amazonaws.com or the legacy queue.amazonaws.com); a bare name only when it is a queue of this
# partition (linter.consumers pairs workers the same ways: env value, source ARN).
SQS_ARN = re.compile(r"^arn:aws[a-z-]*:sqs:[a-z0-9-]+:[0-9]{12}:[A-Za-z0-9_-]{1,80}(\.fifo)?$")
SQS_URL = re.compile(
    r"^https://(sqs\.[a-z0-9-]+\.|[a-z0-9-]+\.queue\.|queue\.)amazonaws\.com(\.cn)?/[0-9]{12}/[A-Za-z0-9_-]{1,80}(\.fifo)?/?$"
)
ECS_DESCRIBE_BATCH = 10  # DescribeServices takes at most 10 services per call (ECS API reference)
PAGE = 100  # ListClusters, ListServices and ListPipes return at most 100 per page


class QueueIndex:
    """The partition's queues by URL, ARN and name: what an environment value or a pipe's source names."""

    def __init__(self, queues: list[dict]):
        self.by: dict[str, str] = {}
        for q in queues:
            for key in (q["arn"], q.get("url"), q.get("name")):
                if key:
                    self.by.setdefault(key, q["arn"])

    def ref(self, value) -> str | None:
        """The queue ``value`` names (its ARN when it is a queue of this partition, else the ARN or URL as
        written), or None."""
        if not isinstance(value, str):
            return None
        v = value.strip()
        if v in self.by:
            return self.by[v]
        return v if SQS_ARN.match(v) or SQS_URL.match(v) else None


def _duration(value) -> float | None:
    from visguard.linter.consumers import parse_duration

    return parse_duration(value) if value is not None else None


def _profile(tags: dict) -> dict:
    """The declared processing time of a task definition's or pipe's tags (visguard.io/processing-p99/-p50)."""
    from visguard.linter.consumers import PROCESSING_P50_KEY, PROCESSING_P99_KEY

    return {
        "processing_p50": _duration(tags.get(PROCESSING_P50_KEY)),
        "processing_p99": _duration(tags.get(PROCESSING_P99_KEY)),
    }


def worker_record(part: Partition, **fields) -> dict:
    rec = {
        "kind": "worker",
        "account": part.account,
        "region": part.region,
        "arn": None,
        "name": None,
        "platform": None,
        "queue": None,
        "link": None,
        "link_ref": None,
        "state": None,
        "stop_timeout": None,
        "desired_count": None,
        "batch_size": None,
        "batching_window": None,
        "work_timeout": None,
        "heartbeat": None,
        "processing_p50": None,
        "processing_p99": None,
        "task_definition": None,
        "container": None,
        "target": None,
        "capacity": None,
    }
    rec.update(fields)
    return rec


def workers(part: Partition, clients: Clients, queues: list[dict], functions: list[dict]) -> list[dict]:
    """Worker records of this account and region (ECS services, pipes). Like CloudWatch evidence they are
    optional: a failure (a role without the ECS or Pipes actions, a service not offered in the region) is an
    error row next to the partition's queues, not in their place."""
    index = QueueIndex(queues)
    out: list[dict] = []
    for service, read in (("ecs", ecs_workers), ("pipes", pipe_workers)):
        if not part.opts.endpoint_url and part.region not in (
            _regions_of(clients.session, service) or [part.region]
        ):
            continue  # not offered in this region (botocore's endpoint data): nothing to read, no error
        try:
            out += read(part, clients.get(service, part.region), index, functions)
        except PartitionFailed as pf:
            out.append(pf.record)
    return out


def stack_owners(part: Partition, clients: Clients, queues: list[dict]) -> list[dict]:
    """The owner records of this account and region's CloudFormation stacks (owners.py). Like the workers they
    are optional: a failure (a role without the CloudFormation actions) is an error row next to the queues."""
    from visguard.audit import owners

    try:
        return owners.cloudformation(
            part,
            clients.get("cloudformation", part.region),
            queues,
            templates=part.opts.templates,
            fan_out=lambda fn, items: _fan_out(part.opts, fn, items),
        )
    except PartitionFailed as pf:
        return [pf.record]


def _regions_of(session, service: str) -> list[str]:
    try:
        return session.get_available_regions(service)
    except Exception:  # noqa: BLE001 - no endpoint data: try the region
        return []


def ecs_workers(part: Partition, ecs, index: QueueIndex, functions: list[dict]) -> list[dict]:
    """One record per (ECS service, queue) whose task definition names the queue in a container's environment."""
    clusters: list[str] = []

    def list_clusters():
        for page in ecs.get_paginator("list_clusters").paginate(PaginationConfig={"PageSize": PAGE}):
            clusters.extend(page.get("clusterArns", []))

    part.call("ecs:ListClusters", list_clusters)
    services: list[dict] = []
    for cluster in clusters:
        arns: list[str] = []

        def list_services(cluster=cluster, arns=arns):
            pages = ecs.get_paginator("list_services").paginate(
                cluster=cluster, PaginationConfig={"PageSize": PAGE}
            )
            for page in pages:
                arns.extend(page.get("serviceArns", []))

        part.call("ecs:ListServices", list_services, resource=cluster)
        for i in range(0, len(arns), ECS_DESCRIBE_BATCH):
            batch = arns[i : i + ECS_DESCRIBE_BATCH]
            resp = part.call(
                "ecs:DescribeServices",
                lambda cluster=cluster, batch=batch: ecs.describe_services(cluster=cluster, services=batch),
                resource=cluster,
            )
            services += [s for s in resp.get("services", []) if s.get("status") != "INACTIVE"]
    task_defs = sorted({s["taskDefinition"] for s in services if s.get("taskDefinition")})

    def describe(td: str) -> dict:
        return part.call(
            "ecs:DescribeTaskDefinition",
            lambda: ecs.describe_task_definition(taskDefinition=td, include=["TAGS"]),
            resource=td,
        )

    described = dict(zip(task_defs, _fan_out(part.opts, describe, task_defs), strict=True))
    out = []
    for s in services:
        resp = described.get(s.get("taskDefinition")) or {}
        td = resp.get("taskDefinition") or {}
        tags = {t.get("key"): t.get("value") for t in resp.get("tags") or [] if isinstance(t, dict)}
        seen: set[str] = set()
        for c in td.get("containerDefinitions") or []:
            # environment values only: a secret's value is not read (that would read the secret)
            for env in sorted(c.get("environment") or [], key=lambda e: str(e.get("name"))):
                queue = index.ref(env.get("value"))
                if queue is None or queue in seen:
                    continue
                seen.add(queue)
                out.append(
                    worker_record(
                        part,
                        arn=s.get("serviceArn"),
                        name=s.get("serviceName"),
                        platform="ecs",
                        queue=queue,
                        link="env",
                        link_ref=env.get("name"),
                        state=s.get("status"),
                        stop_timeout=c.get("stopTimeout"),
                        desired_count=s.get("desiredCount"),
                        task_definition=s.get("taskDefinition"),
                        container=c.get("name"),
                        capacity=ecs_capacity(s, td),
                        **_profile(tags),
                    )
                )
    return out


def ecs_capacity(service: dict, td: dict) -> str | None:
    """Where a service's tasks run (issue 36): its launchType; else FARGATE when its capacity provider strategy
    names only FARGATE/FARGATE_SPOT; else (no strategy, or a provider whose kind would need
    DescribeCapacityProviders: not called) the task definition's one requiresCompatibilities value; None when not
    known."""
    from visguard import facts

    launch = service.get("launchType")
    if isinstance(launch, str) and launch in facts.ECS_CAPACITY_TYPES:
        return launch
    names = {
        p.get("capacityProvider")
        for p in service.get("capacityProviderStrategy") or []
        if isinstance(p, dict)
    }
    if names and names <= set(facts.ECS_FARGATE_PROVIDERS):
        return "FARGATE"
    compat = set(td.get("requiresCompatibilities") or [])
    return compat.pop() if len(compat) == 1 and next(iter(compat)) in facts.ECS_CAPACITY_TYPES else None


def pipe_workers(part: Partition, pipes, index: QueueIndex, functions: list[dict]) -> list[dict]:
    """One record per pipe whose source is an SQS queue: batch, window, target and the target's time limit."""
    summaries: list[dict] = []

    def list_pipes():
        pages = pipes.get_paginator("list_pipes").paginate(
            SourcePrefix=f"arn:{part.partition}:sqs:", PaginationConfig={"PageSize": PAGE}
        )
        for page in pages:
            summaries.extend(p for p in page.get("Pipes", []) if ":sqs:" in (p.get("Source") or ""))

    part.call("pipes:ListPipes", list_pipes)
    timeouts = {f["arn"]: f.get("timeout") for f in functions}

    def one(summary: dict) -> dict | None:
        d = part.call(
            "pipes:DescribePipe",
            lambda: pipes.describe_pipe(Name=summary["Name"]),
            resource=summary.get("Arn"),
        )
        queue = index.ref(d.get("Source"))
        if queue is None:
            return None
        sqs = (d.get("SourceParameters") or {}).get("SqsQueueParameters") or {}
        target = d.get("Target") or ""
        return worker_record(
            part,
            arn=d.get("Arn"),
            name=d.get("Name"),
            platform="pipes",
            queue=queue,
            link="source",
            state=d.get("DesiredState"),
            batch_size=sqs.get("BatchSize"),
            batching_window=sqs.get("MaximumBatchingWindowInSeconds"),
            work_timeout=target_timeout(part, target, d.get("TargetParameters") or {}, timeouts),
            heartbeat=False,  # a pipe never extends visibility: the queue's timeout is the one in effect
            target=target or None,
            **_profile(d.get("Tags") or {}),
        )

    return [r for r in _fan_out(part.opts, one, summaries) if r is not None]


def target_timeout(part: Partition, target: str, params: dict, timeouts: dict) -> float | None:
    """How long a pipe waits for its target: a Lambda function's timeout (invoked synchronously), an Express
    state machine's maximum (REQUEST_RESPONSE is for Express workflows only), an API destination's limit; None
    for an asynchronous invocation or a target whose time the pipe does not wait for."""
    from visguard import facts

    if ":lambda:" in target:
        if (params.get("LambdaFunctionParameters") or {}).get("InvocationType") == "FIRE_AND_FORGET":
            return None
        if target in timeouts:
            return timeouts[target]
        if target.split(":")[3:5] != [part.region, part.account]:
            return None  # a function of another account or region: not read from here
        try:
            cfg = part.call(
                "lambda:GetFunctionConfiguration",
                lambda: part.lam.get_function_configuration(FunctionName=target),
                resource=target,
            )
        except PartitionFailed as pf:
            if pf.record["message"].startswith("ResourceNotFoundException"):
                return None  # the target function was deleted: the pipe fails, but has no timeout to judge
            raise
        return cfg.get("Timeout")
    if ":states:" in target:
        invocation = (params.get("StepFunctionStateMachineParameters") or {}).get("InvocationType")
        return facts.STEP_FUNCTIONS_EXPRESS_MAX if invocation == "REQUEST_RESPONSE" else None
    if ":api-destination/" in target:
        return facts.API_DESTINATION_TIMEOUT
    return None


# ---------------------------------------------------------------------------------------------- CloudWatch
def metric_queries(queues: list[dict], functions: list[dict], mappings=()) -> list[tuple[str, dict, dict]]:
    """(query id, target record, MetricDataQuery) for every metric the audit uses; a mapping's own counts only
    where its MetricsConfig has EventCount (Lambda publishes them only then)."""
    from visguard import facts

    period = METRIC_DAYS * 86_400
    out = []

    def q(qid, namespace, metric, dims, stat):
        return {
            "Id": qid,
            "MetricStat": {
                "Metric": {"Namespace": namespace, "MetricName": metric, "Dimensions": dims},
                "Period": period,
                "Stat": stat,
            },
            "ReturnData": True,
        }

    for i, rec in enumerate(queues):
        # AWS/SQS metrics have the single dimension QueueName (SQS developer guide, available metrics).
        dims = [{"Name": "QueueName", "Value": rec["name"]}]
        out.append((f"q{i}r", rec, q(f"q{i}r", "AWS/SQS", "NumberOfMessagesReceived", dims, "Sum")))
        out.append((f"q{i}d", rec, q(f"q{i}d", "AWS/SQS", "NumberOfMessagesDeleted", dims, "Sum")))
        out.append((f"q{i}a", rec, q(f"q{i}a", "AWS/SQS", "ApproximateAgeOfOldestMessage", dims, "Maximum")))
    for i, rec in enumerate(functions):
        name = rec["name"] or rec["arn"].split(":")[6]
        dims = [{"Name": "FunctionName", "Value": name}]
        qual = rec["arn"].split(":")[7] if rec["arn"].count(":") >= 7 else None
        if qual:
            dims.append({"Name": "Resource", "Value": f"{name}:{qual}"})
        out.append((f"f{i}p50", rec, q(f"f{i}p50", "AWS/Lambda", "Duration", dims, "p50")))
        out.append((f"f{i}p99", rec, q(f"f{i}p99", "AWS/Lambda", "Duration", dims, "p99")))
    for i, rec in enumerate(mappings):
        if facts.ESM_METRICS_VALUE not in (rec.get("metrics_config") or ()):
            continue
        dims = [{"Name": facts.ESM_METRIC_DIMENSION, "Value": rec["uuid"]}]
        for key, metric in facts.ESM_METRICS.items():
            qid = f"m{i}_{key}"
            out.append((qid, rec, q(qid, facts.ESM_METRIC_NAMESPACE, metric, dims, "Sum")))
    return out


def add_metrics(
    cw, queues: list[dict], functions: list[dict], now: datetime | None = None, mappings=()
) -> int:
    """Fill ``metrics`` on queues, duration percentiles on functions and ``esm_metrics`` (sums of polled, failed to
    invoke, deleted events) on mappings with EventCount on; returns GetMetricData calls made."""
    end = (now or datetime.now(UTC)).replace(second=0, microsecond=0)
    start = end - timedelta(days=METRIC_DAYS)
    queries = metric_queries(queues, functions, mappings)
    by_id = {qid: rec for qid, rec, _ in queries}
    values: dict[str, float] = {}
    calls = 0
    for i in range(0, len(queries), METRIC_BATCH):
        batch = [mq for _, _, mq in queries[i : i + METRIC_BATCH]]
        token = None
        while True:
            kw = {"MetricDataQueries": batch, "StartTime": start, "EndTime": end}
            if token:
                kw["NextToken"] = token
            resp = cw.get_metric_data(**kw)
            calls += 1
            for r in resp.get("MetricDataResults", []):
                if r.get("Values"):
                    values[r["Id"]] = (
                        float(r["Values"][0]) if not r["Id"].endswith("a") else float(max(r["Values"]))
                    )
            token = resp.get("NextToken")
            if not token:
                break
    for qid, rec in by_id.items():
        if rec["kind"] == "mapping":
            m = rec["esm_metrics"] or {"polled": None, "failed": None, "deleted": None}
            m[qid.split("_", 1)[1]] = values.get(qid)
            rec["esm_metrics"] = m
        elif rec["kind"] == "queue":
            m = rec["metrics"] or {"received": None, "deleted": None, "age_oldest_max": None}
            key = {"r": "received", "d": "deleted", "a": "age_oldest_max"}[qid[-1]]
            m[key] = values.get(qid)
            rec["metrics"] = m
        else:
            key = "duration_p50" if qid.endswith("p50") else "duration_p99"
            v = values.get(qid)
            rec[key] = None if v is None else v / 1000.0  # Lambda Duration is in milliseconds
    return calls


# ---------------------------------------------------------------------------------------------- driver
def collect(opts: Options) -> Stats:
    inventory.check_root(opts.out)
    base = _base_session(opts)
    stats = Stats()
    # the Terraform states first: a bad one is one line before any account is read
    tf_owners = terraform_owners(opts, base, stats)
    sts = make_client(opts, base, "sts", base.region_name or "us-east-1")
    caller = sts.get_caller_identity()["Account"]
    accounts = list_accounts(opts, base)
    if not accounts:
        raise VisguardError(
            "no ACTIVE accounts to collect", place="--organization" if opts.organization else "--accounts"
        )
    home = base.region_name or "us-east-1"

    def account_tasks(account: str) -> list[tuple[str, str, Clients | None, dict | None]]:
        """(account, region, clients, error) for every partition of one account."""
        explicit = opts.regions if isinstance(opts.regions, list) else None
        try:
            session = assume(opts, base, account, caller)
        except VisguardError:
            raise
        except Exception as exc:  # noqa: BLE001
            return [
                (account, r, None, error_record(account, r, "sts:AssumeRole", exc))
                for r in (explicit or [home])
            ]
        clients = Clients(opts, session, account)
        if explicit is None:
            try:
                regions = enabled_regions(clients, home)
            except Exception as exc:  # noqa: BLE001
                return [(account, home, None, error_record(account, home, "ec2:DescribeRegions", exc))]
        else:
            regions = explicit
        return [(account, r, clients, None) for r in regions]

    _remove_stale_temporaries(opts.out)
    tasks: list = []
    with ThreadPoolExecutor(max_workers=max(1, min(opts.workers, len(accounts)))) as pool:
        for part in pool.map(account_tasks, accounts):
            tasks.extend(part)
    stats.partitions = len(tasks)
    todo = []
    for account, region, clients, err in tasks:
        if inventory.is_complete(opts.out, account, region):
            stats.skipped += 1
            stats.done += 1
        else:
            todo.append((account, region, clients, err))
    _progress(opts, stats)

    # Terraform owners go into the partitions this run writes; those of a partition skipped as complete (not
    # rewritten) or not collected at all are dropped, and counted
    collected = {(a, r) for a, r, _, _ in todo}
    for key in [k for k in tf_owners if k not in collected]:
        stats.owners_dropped += len(tf_owners.pop(key))

    def run(task) -> dict:
        account, region, clients, err = task
        if err is not None:
            records = [err]
        else:
            try:
                records = collect_partition(opts, clients, account, region)
            except PartitionFailed as pf:
                records = [pf.record]
        records += tf_owners.get((account, region), [])
        return inventory.write_partition(opts.out, account, region, records)

    with ThreadPoolExecutor(max_workers=max(1, opts.workers)) as pool:
        futures = [pool.submit(run, t) for t in todo]
        for fut in as_completed(futures):
            closing = fut.result()
            with stats.lock:
                stats.done += 1
                stats.queues += closing["queues"]
                stats.mappings += closing["mappings"]
                stats.functions += closing["functions"]
                stats.workers += closing["workers"]
                stats.owners += closing.get("owners", 0)
                stats.errors += closing["errors"]
            _progress(opts, stats)
    if opts.progress and sys.stderr.isatty():
        print(file=sys.stderr)  # end the progress line
    return stats


def terraform_owners(opts: Options, base, stats: Stats) -> dict[tuple[str, str], list[dict]]:
    """The owner records of ``--terraform-state`` sources by (account, region); those whose identifiers name no
    account and region are counted as dropped."""
    if not opts.terraform_states:
        return {}
    from visguard.audit import owners, tfstate

    home = base.region_name or "us-east-1"
    read = tfstate.read_states(opts.terraform_states, s3_client=lambda: make_client(opts, base, "s3", home))
    placed = [r for r in read.records if r["account"] and r["region"]]
    stats.owners_dropped += len(read.records) - len(placed)
    return owners.by_partition(placed)


def _remove_stale_temporaries(root: str) -> None:
    """Temporary files a killed run left behind (readers never look at them; this only tidies up)."""
    from pathlib import Path

    for tmp in Path(root).glob("*/.*.tmp"):
        tmp.unlink(missing_ok=True)


def _progress(opts: Options, s: Stats) -> None:
    if not opts.progress:
        return
    end = "\r" if sys.stderr.isatty() else "\n"
    print(
        f"collect: {s.done}/{s.partitions} partitions ({s.skipped} already done), {s.queues:,} queues, "
        f"{s.mappings:,} mappings, {s.functions:,} functions, {s.workers:,} workers, {s.owners:,} owners, "
        f"{s.errors} errors",
        end=end,
        file=sys.stderr,
        flush=True,
    )


def _csv(v: str) -> list[str]:
    return [x.strip() for x in v.split(",") if x.strip()]


def main(argv: list[str], prog: str) -> int:
    import re

    from visguard.audit.cli import ArgumentParser

    ap = ArgumentParser(
        prog=prog,
        description="Collect an SQS/Lambda/worker-consumer inventory from AWS accounts and regions.",
    )
    who = ap.add_mutually_exclusive_group(required=True)
    who.add_argument("--accounts", help="comma-separated account ids")
    who.add_argument(
        "--organization", action="store_true", help="every ACTIVE account of the AWS Organization"
    )
    ap.add_argument("--role-name", help="role to assume in each account (e.g. VisguardAuditRole)")
    ap.add_argument("--external-id", help="external id for AssumeRole")
    ap.add_argument("--regions", default="all", help="comma-separated regions, or 'all' (enabled regions)")
    ap.add_argument("--endpoint-url", help="AWS endpoint override (moto server, LocalStack)")
    ap.add_argument("--metrics", action="store_true", help="add CloudWatch evidence (14 days)")
    ap.add_argument("--out", required=True, help="inventory directory")
    ap.add_argument(
        "--workers", type=int, default=16, help="account/region partitions in flight (default 16)"
    )
    ap.add_argument(
        "--queue-workers", type=int, default=8, help="per-queue calls in flight per partition (default 8)"
    )
    ap.add_argument("--retry-mode", choices=("standard", "adaptive"), default="standard")
    ap.add_argument(
        "--max-attempts", type=int, default=8, help="botocore retry attempts per call (default 8)"
    )
    ap.add_argument(
        "--templates",
        action="store_true",
        help="read the templates of the stacks that own queues, mappings or consumers (CDK construct paths)",
    )
    ap.add_argument(
        "--terraform-state",
        action="append",
        metavar="FILE|DIR|s3://BUCKET/KEY",
        help="a Terraform state (terraform show -json, or the state file), a folder of them, or one in S3 "
        "(read-only, your credentials): which queues and consumers it owns (repeatable)",
    )
    ap.add_argument("--quiet", action="store_true", help="no progress on stderr")
    a = ap.parse_args(argv)
    accounts = _csv(a.accounts) if a.accounts else None
    for acc in accounts or []:
        if not re.fullmatch(r"[0-9]{12}", acc):
            raise VisguardError(f"{acc!r} is not a 12-digit account id", place="--accounts")
    regions: list[str] | str = "all" if a.regions.strip() == "all" else _csv(a.regions)
    if not regions:
        raise VisguardError("no regions given", place="--regions")
    opts = Options(
        accounts=accounts,
        organization=a.organization,
        role_name=a.role_name,
        external_id=a.external_id,
        regions=regions,
        endpoint_url=a.endpoint_url,
        metrics=a.metrics,
        out=a.out,
        workers=max(1, a.workers),
        queue_workers=max(1, a.queue_workers),
        retry_mode=a.retry_mode,
        max_attempts=max(1, a.max_attempts),
        progress=not a.quiet,
        templates=a.templates,
        terraform_states=a.terraform_state,
    )
    t0 = time.perf_counter()
    try:
        s = collect(opts)
    except Exception as exc:
        from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError

        if isinstance(exc, NoCredentialsError):
            raise VisguardError("no AWS credentials found (profile, environment or instance role)") from None
        if isinstance(exc, (ClientError, BotoCoreError)):
            raise start_error(exc, opts.endpoint_url) from None
        raise
    dropped = (
        f" ({s.owners_dropped:,} Terraform-owned resources outside the partitions written dropped)"
        if s.owners_dropped
        else ""
    )
    print(
        f"collected {s.queues:,} queues, {s.mappings:,} mappings, {s.functions:,} functions, {s.workers:,} workers, "
        f"{s.owners:,} owners{dropped} from "
        f"{s.partitions} account/region partitions ({s.skipped} skipped as complete, {s.errors} errors) "
        f"in {time.perf_counter() - t0:.1f} s -> {printable(a.out)}",
        file=sys.stderr,
    )
    return 0


def start_error(exc: Exception, endpoint_url: str | None) -> VisguardError:
    """The one-line error for a failure before any partition (the caller's identity, Organizations): scrubbed,
    control characters escaped; an endpoint that does not answer says which one."""
    code, msg = _code(exc)
    if code == CONNECTION_FAILED:
        where = endpoint_url or "the AWS endpoint"
        return VisguardError(f"{CONNECTION_FAILED}: cannot connect to {safe(where)} ({safe(msg, 300)})",
                             place="--endpoint-url" if endpoint_url else None)  # fmt: skip
    return VisguardError(safe(f"{code}: {msg}", MESSAGE_LIMIT), place="organizations/sts")
