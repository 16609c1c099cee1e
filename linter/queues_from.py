"""``visguard lint --queues-from``: the deployed queues an application repository reads (issue 25).

Consumers and queues often live in different repositories: the application's code names its queue (a URL, a
name, an environment variable bound in a ``.env`` file), the queue is declared elsewhere. ``--queues-from`` gives
the deployed queues' settings as models that ``api.lint_paths`` joins the pending consumers to
(``queue_models``), and lints where a consumer of the run reads them:

- ``INVENTORY_DIR``: a fleet inventory written by ``visguard audit collect`` (``DIR/<account>/<region>.jsonl``,
  :mod:`visguard.audit.inventory`; queue records checked against its JSON Schema). Every queue of it is a
  candidate; a line that is not a valid record is bad input named by file and line.
- ``aws``: read only, with the user's boto3 credentials (environment, profile, instance role): the names the
  run's consumers refer to (:func:`referenced`, after every input is loaded) are looked up with GetQueueUrl and
  read with GetQueueAttributes, nothing else. Credentials are never stored, written or printed; a queue that
  cannot be read is a note naming the queue and the error code.

Queues come back with ``source="inventory"``: findings speak the AWS API's words and name the queue's ARN.
"""

from __future__ import annotations

import json
import os

from visguard.errors import VisguardError
from visguard.linter.consumers import QueueRef, find_queue, queue_name_of
from visguard.linter.model import Location, Model, Note, Queue, Redrive

AWS = "aws"


# ------------------------------------------------------------------------------------------------ one queue
def _number(value):
    """An attribute as AWS returns it (a string) -> int when it is one (else kept as written: VG001 says so)."""
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return value


def queue_of(attributes: dict, *, arn: str, name: str | None, location: Location, tags=None) -> Queue:
    """A :class:`Queue` from GetQueueAttributes(All) as returned (every value a string)."""
    a = attributes
    parts = arn.split(":")
    redrive = None
    raw = a.get("RedrivePolicy")
    if raw:
        try:
            policy = json.loads(raw)
        except ValueError:
            policy = None
        if isinstance(policy, dict):
            target = policy.get("deadLetterTargetArn")
            redrive = Redrive(
                target=None,  # resolved by the caller when the DLQ is among the queues read
                target_ref=target,
                max_receive_count=_number(str(policy.get("maxReceiveCount", ""))) or None,
                location=Location(location.file, location.line, path=f"{arn}/RedrivePolicy"),
            )
    return Queue(
        id=arn,
        location=location,
        name=name or (parts[5] if len(parts) > 5 else None),
        arn=arn,
        fifo=a.get("FifoQueue") == "true",
        visibility_timeout=_number(a.get("VisibilityTimeout")),
        message_retention=_number(a.get("MessageRetentionPeriod")),
        delay=_number(a.get("DelaySeconds")),
        redrive=redrive,
        tags=dict(tags or {}),
        account=parts[4] if len(parts) > 4 else None,
        region=parts[3] if len(parts) > 3 else None,
        source="inventory",
    )


def _resolve_redrive(model: Model) -> None:
    for q in model.queues.values():
        if q.redrive is not None and q.redrive.target_ref in model.queues:
            q.redrive.target = q.redrive.target_ref


# ------------------------------------------------------------------------------------------------ inventory
def from_inventory(folder: str) -> Model:
    """Every queue of the inventory at ``folder`` (one model, keyed by ARN, redrive targets resolved)."""
    from visguard.audit import inventory

    if not os.path.isdir(folder):
        raise VisguardError(
            "not an inventory folder (--queues-from takes an inventory folder or 'aws')", file=folder
        )
    files = inventory.partition_files(folder)
    if not files:
        raise VisguardError(
            "no inventory files (<account>/<region>.jsonl, written by 'visguard audit collect') for --queues-from",
            file=folder,
        )
    model = Model(source_file=folder)
    for path, n, rec in inventory.iter_records(folder):
        rel = os.path.relpath(path, folder)
        if not isinstance(rec, dict):
            raise VisguardError("not a JSON object", file=str(path), place=str(n))
        if rec.get("kind") != "queue":
            continue
        problems = inventory.validate_records([rec])
        if problems:
            raise VisguardError(problems[0], file=str(path), place=str(n))
        loc = Location(os.path.join(folder, rel), line=n, path=rec["arn"])
        model.add(
            queue_of(
                rec["attributes"], arn=rec["arn"], name=rec.get("name"), location=loc, tags=rec.get("tags")
            )
        )  # noqa: E501
    _resolve_redrive(model)
    return model


# ------------------------------------------------------------------------------------------------ aws
def referenced(models: list[Model]) -> list[QueueRef]:
    """The queue references (URL, ARN, name) of the pending consumers of ``models`` that no model of the run
    declares: an environment variable is followed to the literals bound to it (``.env``, compose, IaC)."""
    bound: dict[str, list[QueueRef]] = {}
    for m in models:
        for b in m.env:
            if b.ref is not None and b.queue is None:
                bound.setdefault(b.name, []).append(b.ref)
    out: list[QueueRef] = []
    seen: set[tuple[str, str]] = set()
    for m in models:
        for c in m.pending:
            ref = c.queue_ref
            if ref is None:
                continue
            refs = bound.get(ref.value, []) if ref.kind == "env" else [ref]
            for r in refs:
                if r.kind not in ("url", "arn", "name") or queue_name_of(r) is None:
                    continue
                if (r.kind, r.value) in seen or any(find_queue(x, r) is not None for x in models):
                    continue
                seen.add((r.kind, r.value))
                out.append(r)
    return out


def _region_of(ref: QueueRef) -> str | None:
    v = ref.value
    if ref.kind == "arn":
        return v.split(":")[3] or None
    if ref.kind == "url":
        host = v.split("/")[2] if v.count("/") >= 2 else ""
        parts = host.split(".")
        if len(parts) > 2 and parts[0] == "sqs":  # sqs.<region>.amazonaws.com
            return parts[1]
        if len(parts) > 2 and parts[1] == "queue":  # <region>.queue.amazonaws.com (legacy)
            return parts[0]
    return None


def from_aws(refs: list[QueueRef], *, session=None) -> Model:
    """The queues ``refs`` name, read from AWS (GetQueueUrl, GetQueueAttributes only) with the user's boto3
    credentials. No credentials, or no Region for a bare name, is bad input; a queue that cannot be read is a
    note."""
    from visguard.errors import need

    model = Model(source_file=AWS)
    if not refs:
        return model
    boto3 = need("boto3", extra="aws", what="reading queues from AWS")
    from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError, NoRegionError

    session = session or boto3.Session()
    clients: dict[str | None, object] = {}
    for ref in refs:
        region = _region_of(ref)
        try:
            client = clients.get(region)
            if client is None:
                client = clients[region] = session.client("sqs", region_name=region)
            if ref.kind == "url":
                url = ref.value
            else:
                kw = {"QueueName": queue_name_of(ref)}
                if ref.kind == "arn":
                    kw["QueueOwnerAWSAccountId"] = ref.value.split(":")[4]
                url = client.get_queue_url(**kw)["QueueUrl"]
            attrs = client.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
        except NoRegionError:
            raise VisguardError(
                f"aws: no AWS Region for queue {ref.value} (set AWS_REGION or a profile's region)"
            ) from None
        except NoCredentialsError:
            raise VisguardError("aws: no AWS credentials found (environment, profile or role)") from None
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code", "error")
            model.notes.append(
                Note(
                    f"--queues-from aws: queue {ref} not read: {code}",
                    ref.location or Location(AWS),
                    str(ref),
                )
            )  # noqa: E501
            continue
        except BotoCoreError as exc:
            raise VisguardError(f"aws: cannot read from SQS ({type(exc).__name__})") from None
        arn = attrs.get("QueueArn") or str(ref.value)
        model.add(queue_of(attrs, arn=arn, name=queue_name_of(ref), location=Location(arn)))
    _resolve_redrive(model)
    return model


def loader_for(sources: list[str]):
    """What ``lint_paths`` calls once every input is loaded (``fetch_queues``): the deployed queue models of
    ``--queues-from`` sources (inventory folders and/or ``aws``)."""

    def fetch(models: list[Model]) -> list[Model]:
        out = [from_inventory(s) for s in sources if s != AWS]
        if AWS in sources:
            out.append(from_aws(referenced(models + out)))
        return out

    return fetch
