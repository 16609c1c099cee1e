"""``visguard lint --queues-from``: the deployed queues an application repository reads (issue 25).

Consumers and queues often live in different repositories: the application's code names its queue (a URL, a
name, an environment variable bound in a ``.env`` file), the queue is declared elsewhere. ``--queues-from`` gives
the deployed queues' settings as models that ``api.lint_paths`` joins the pending consumers to
(``queue_models``), and lints where a consumer of the run reads them:

- ``INVENTORY_DIR``: a fleet inventory written by ``visguard audit collect`` (``DIR/<account>/<region>.jsonl``,
  :mod:`visguard.audit.inventory`, read through ``safe_io.read_lines``: regular files inside the folder, bounded,
  UTF-8; queue records checked against its JSON Schema with one validator). Every queue of it is a candidate; a
  line that is not a valid record, or whose attributes are not what AWS returns (:func:`queue_of`: bounded whole
  numbers, a RedrivePolicy that is one), is bad input named by file and line.
- ``aws``: read only, with the user's boto3 credentials (environment, profile, instance role): the names the
  run's consumers refer to (:func:`referenced`, after every input is loaded) are looked up with GetQueueUrl and
  read with GetQueueAttributes, nothing else, each call with a connect and read timeout and bounded retries.
  A private reference (a name of a ``.env``/compose file, ``QueueRef.private``) is never sent: :func:`withheld`
  notes name its variable and file:line. Credentials are never stored, written or printed; a queue that cannot be
  read, or whose answer is not what AWS returns, is a note naming the queue.

Queues come back with ``source="inventory"``: findings speak the AWS API's words and name the queue's ARN.
"""

from __future__ import annotations

import json
import os
import re

from visguard.errors import VisguardError
from visguard.linter.consumers import QueueIndex, QueueRef, queue_name_of
from visguard.linter.loaders import values
from visguard.linter.model import Location, Model, Note, Queue, Redrive

AWS = "aws"


# ------------------------------------------------------------------------------------------------ one queue
class BadAttribute(ValueError):
    """An attribute no GetQueueAttributes answer holds (``str()``: ``attributes/NAME: what is wrong``, never the
    value when it is long): bad input of an inventory (its file and line), a note for a queue read from AWS."""


MAX_POLICY_CHARS = 4096  # a RedrivePolicy is about 150 characters (an ARN and a count)


def _count(value, name: str) -> int | None:
    """A whole number of 0 or more, as AWS writes the numbers of a queue's attributes (``"600"``): the bounded
    reading of every input (``loaders.values``), so 5,000 digits, ``1e400``, NaN or ``-5`` are a
    :class:`BadAttribute`, not a crash nor a number no queue can have."""
    try:
        n = values.integer(value, expected="a whole number of 0 or more")
    except values.BadValue as exc:
        raise BadAttribute(f"{name}: {exc}") from None
    if n is not None and n < 0:
        raise BadAttribute(f"{name}: expected a whole number of 0 or more, got {values.describe_number(n)}")
    return n


def _redrive(raw, arn: str, location: Location) -> Redrive | None:
    if raw is None or raw == "":
        return None
    name = "attributes/RedrivePolicy"
    if not isinstance(raw, str) or len(raw) > MAX_POLICY_CHARS:
        raise BadAttribute(f"{name}: not a policy of at most {MAX_POLICY_CHARS:,} characters")
    try:
        policy = json.loads(raw)
    except (ValueError, RecursionError):
        policy = None
    if not isinstance(policy, dict):
        raise BadAttribute(f"{name}: not a JSON object")
    target = policy.get("deadLetterTargetArn")
    if not isinstance(target, str) or not target:
        raise BadAttribute(f"{name}: deadLetterTargetArn is not an ARN")
    return Redrive(
        target=None,  # resolved by the caller when the DLQ is among the queues read
        target_ref=target,
        max_receive_count=_count(policy.get("maxReceiveCount"), f"{name}/maxReceiveCount"),
        location=Location(location.file, location.line, path=f"{arn}/RedrivePolicy"),
    )


def queue_of(attributes: dict, *, arn: str, name: str | None, location: Location, tags=None) -> Queue:
    """A :class:`Queue` from GetQueueAttributes(All) as returned (every value a string); :class:`BadAttribute`
    when one is not what AWS returns."""
    a = attributes
    parts = arn.split(":")
    try:
        fifo = values.boolean(a.get("FifoQueue"))
    except values.BadValue as exc:
        raise BadAttribute(f"attributes/FifoQueue: {exc}") from None
    return Queue(
        id=arn,
        location=location,
        name=name or (parts[5] if len(parts) > 5 else None),
        arn=arn,
        fifo=bool(fifo),
        visibility_timeout=_count(a.get("VisibilityTimeout"), "attributes/VisibilityTimeout"),
        message_retention=_count(a.get("MessageRetentionPeriod"), "attributes/MessageRetentionPeriod"),
        delay=_count(a.get("DelaySeconds"), "attributes/DelaySeconds"),
        redrive=_redrive(a.get("RedrivePolicy"), arn, location),
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
    """Every queue of the inventory at ``folder`` (one model, keyed by ARN, redrive targets resolved). Its
    partitions are read as every input is (``inventory.iter_records``: regular files inside the folder, bounded,
    UTF-8); a line that is not a valid queue record is bad input naming the file and the line."""
    from visguard.audit import inventory

    if not os.path.isdir(folder):
        raise VisguardError(
            "not an inventory folder (--queues-from takes an inventory folder or 'aws')", file=folder
        )
    if not inventory.partition_files(folder):
        raise VisguardError(
            "no inventory files (<account>/<region>.jsonl, written by 'visguard audit collect') for --queues-from",
            file=folder,
        )
    model = Model(source_file=folder)
    for path, n, rec in inventory.iter_records(folder):
        if not isinstance(rec, dict):
            raise VisguardError("not a JSON object", file=str(path), place=str(n))
        if rec.get("kind") != "queue":
            continue
        problems = inventory.validate_records([rec], kind="queue")
        if problems:
            raise VisguardError(problems[0], file=str(path), place=str(n))
        loc = Location(str(path), line=n, path=rec["arn"])
        try:
            queue = queue_of(
                rec["attributes"], arn=rec["arn"], name=rec.get("name"), location=loc, tags=rec.get("tags")
            )
        except BadAttribute as exc:
            raise VisguardError(f"queue {rec['arn'][:300]}: {exc}", file=str(path), place=str(n)) from None
        model.add(queue)
    _resolve_redrive(model)
    return model


# ------------------------------------------------------------------------------------------------ aws
def referenced(models: list[Model]) -> list[QueueRef]:
    """The queue references (URL, ARN, name) of the pending consumers of ``models`` that no model of the run
    declares: an environment variable is followed to the literals bound to it (``.env``, compose, IaC). A
    private reference (a name read from a ``.env``/compose file) is never among them: it names only a queue an
    input of the run declares (:func:`withheld` says which were left out)."""
    out: list[QueueRef] = []
    seen: set[tuple[str, str]] = set()
    declared = QueueIndex(models)  # built once: a lookup per reference costs the queues of its name only
    for _, r in _refs(models):
        if r.private or r.kind not in ("url", "arn", "name") or queue_name_of(r) is None:
            continue
        if (r.kind, r.value) in seen or declared.candidates(r, None):
            continue
        seen.add((r.kind, r.value))
        out.append(r)
    return out


def _refs(models: list[Model]):
    """(the environment variable or None, the reference) for every reference the pending consumers read."""
    bound: dict[str, list[QueueRef]] = {}
    for m in models:
        for b in m.env:
            if b.ref is not None and b.queue is None:
                bound.setdefault(b.name, []).append(b.ref)
    for m in models:
        for c in m.pending:
            ref = c.queue_ref
            if ref is not None:
                if ref.kind == "env":
                    yield from ((ref.value, r) for r in bound.get(ref.value, []))
                else:
                    yield None, ref


def withheld(models: list[Model]) -> list[Note]:
    """A note for each private reference a pending consumer reads that no model of the run declares: it is not
    looked up in AWS; the note names the variable's file and line, never its value."""
    notes, seen = [], set()
    declared = QueueIndex(models)
    for var, r in _refs(models):
        if not r.private or r.location is None or (r.location.file, r.location.line) in seen:
            continue
        if declared.candidates(r, None):
            continue
        seen.add((r.location.file, r.location.line))
        notes.append(
            Note(
                f"--queues-from aws: {var} is set here to no queue URL or ARN and to no name of a queue declared "
                "in this run: not looked up in AWS (a value of a .env or compose file is sent only as a queue URL "
                "or ARN)",
                r.location,
                f"{r.location.file}:{r.location.line}",
                fix="Write the queue's URL (https://sqs.<region>.amazonaws.com/<account>/<name>) or ARN in the "
                "variable, or lint the queue's template or Terraform (or an inventory) in the same run.",
            )
        )
    return notes


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


# A queue read from AWS answers within a second; an endpoint that accepts and never answers (a proxy, a firewall)
# must end the run in seconds, not after botocore's 60 s read timeout times its retries.
CONNECT_TIMEOUT = 3
READ_TIMEOUT = 5
ATTEMPTS = 2  # the first call and one retry


def _client_config():
    from botocore.config import Config

    return Config(
        connect_timeout=CONNECT_TIMEOUT,
        read_timeout=READ_TIMEOUT,
        retries={"total_max_attempts": ATTEMPTS, "mode": "standard"},
    )


def _code(exc) -> str:
    """The error code of an AWS answer, as a word (an endpoint may answer anything)."""
    code = exc.response.get("Error", {}).get("Code") if isinstance(exc.response, dict) else None
    return code if isinstance(code, str) and re.fullmatch(r"[A-Za-z0-9._:-]{1,100}", code) else "error"


def from_aws(refs: list[QueueRef], *, session=None) -> Model:
    """The queues ``refs`` name, read from AWS (GetQueueUrl, GetQueueAttributes only) with the user's boto3
    credentials, each call bounded (:data:`CONNECT_TIMEOUT`, :data:`READ_TIMEOUT`, :data:`ATTEMPTS`). No
    credentials, no Region for a bare name, or an endpoint that does not answer is bad input; a queue that cannot
    be read, or whose attributes are not what AWS returns, is a note. A private reference is never sent."""
    from visguard.errors import need

    model = Model(source_file=AWS)
    refs = [r for r in refs if not r.private]
    if not refs:
        return model
    boto3 = need("boto3", extra="aws", what="reading queues from AWS")
    from botocore.exceptions import (
        BotoCoreError,
        ClientError,
        ConnectTimeoutError,
        NoCredentialsError,
        NoRegionError,
        ReadTimeoutError,
    )

    session = session or boto3.Session()
    clients: dict[str | None, object] = {}
    for ref in refs:
        region = _region_of(ref)
        try:
            client = clients.get(region)
            if client is None:
                client = clients[region] = session.client("sqs", region_name=region, config=_client_config())
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
                f"aws: no AWS Region for queue {ref} (set AWS_REGION or a profile's region)"
            ) from None
        except NoCredentialsError:
            raise VisguardError("aws: no AWS credentials found (environment, profile or role)") from None
        except ClientError as exc:
            model.notes.append(_note(ref, f"not read: {_code(exc)}"))
            continue
        except (ConnectTimeoutError, ReadTimeoutError) as exc:
            raise VisguardError(
                f"aws: SQS did not answer for queue {ref} ({type(exc).__name__}: {ATTEMPTS} attempts, "
                f"{CONNECT_TIMEOUT} s to connect, {READ_TIMEOUT} s to answer)"
            ) from None
        except BotoCoreError as exc:
            raise VisguardError(f"aws: cannot read from SQS ({type(exc).__name__})") from None
        arn = attrs.get("QueueArn") or str(ref.value)
        try:
            model.add(queue_of(attrs, arn=arn, name=queue_name_of(ref), location=Location(arn)))
        except BadAttribute as exc:
            model.notes.append(_note(ref, f"not read: {exc}"))
    _resolve_redrive(model)
    return model


def _note(ref: QueueRef, what: str) -> Note:
    return Note(f"--queues-from aws: queue {ref} {what}", ref.location or Location(AWS), str(ref))


def loader_for(sources: list[str]):
    """What ``lint_paths`` calls once every input is loaded (``fetch_queues``): the deployed queue models of
    ``--queues-from`` sources (inventory folders and/or ``aws``)."""

    def fetch(models: list[Model]) -> list[Model]:
        out = [from_inventory(s) for s in sources if s != AWS]
        if AWS in sources:
            aws = from_aws(referenced(models + out))
            aws.notes += withheld(models + out)
            out.append(aws)
        return out

    return fetch
