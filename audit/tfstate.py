"""Terraform states -> ``owner`` records (issue 39 §1; ``visguard audit collect --terraform-state FILE|DIR|s3://``).

Read: the JSON of ``terraform show -json`` (``values.root_module`` and its ``child_modules``: ``address``,
``mode``, ``type``, ``values``) or a state file itself (format version 4: ``resources[]`` with ``module``,
``mode``, ``type``, ``name`` and ``instances[]`` with ``index_key`` and ``attributes``). A DIR is searched for
``*.tfstate`` and ``*.json`` (``.terraform`` folders, which hold backend settings, are skipped; a symlink is
followed only when it stays inside the folder; a ``*.json`` that is not a state is skipped and counted). An
``s3://bucket/key`` is read with the user's own credentials (S3 GetObject, nothing written).

**Secrets.** A state holds every attribute of every resource, secrets included (database passwords, access keys,
outputs). Only managed resources of :data:`TYPES` are kept, and of them only the identifiers of :data:`ID_KEYS`:
the JSON parser's object hook drops every other attribute of an instance as soon as the instance is read, drops
``outputs``, ``private`` and the sensitivity maps, and drops whole resources of other types as soon as each is
read, so no other value outlives the parse of its resource, and none is ever written, printed or logged. Error
lines name the file and the place (a line and column), never a value.

**Bounds.** A state bigger than :data:`MAX_STATE_BYTES` is refused before a byte is parsed (one line naming it);
bad JSON, an older state format or a file that is not a state (when named as a file) is one line naming it, exit
code 1 (bad input), before any account is read.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

from visguard.audit import owners
from visguard.errors import VisguardError
from visguard.neutralize import printable

MAX_STATE_BYTES = 256 * 1024**2  # a state this big is ~10^5 resources; past it, the parse would need GBs
# Terraform type -> the resource type of the owner record (the AWS provider's and the Cloud Control provider's)
TYPES = {
    "aws_sqs_queue": owners.QUEUE,
    "awscc_sqs_queue": owners.QUEUE,
    "aws_lambda_event_source_mapping": owners.MAPPING,
    "awscc_lambda_event_source_mapping": owners.MAPPING,
    "aws_ecs_service": owners.ECS_SERVICE,
    "awscc_ecs_service": owners.ECS_SERVICE,
    "aws_ecs_task_definition": owners.TASK_DEFINITION,
    "awscc_ecs_task_definition": owners.TASK_DEFINITION,
    "aws_pipes_pipe": owners.PIPE,
    "awscc_pipes_pipe": owners.PIPE,
}
# The only attributes read from an instance: identifiers (strings). Everything else is dropped while parsing.
ID_KEYS = frozenset(
    (
        "arn",
        "id",
        "url",
        "queue_url",
        "uuid",
        "event_source_mapping_id",
        "function_arn",
        "function_name",
        "name",
        "service_arn",
        "task_definition_arn",
    )
)
_DROPPED = frozenset(("outputs", "private", "sensitive_attributes", "sensitive_values", "check_results"))
SUFFIXES = (".tfstate", ".json")


@dataclass
class Read:
    """What the states gave: the owner records, the files read, the ``*.json`` files of a DIR that are not states."""

    records: list[dict] = field(default_factory=list)
    files: int = 0
    not_states: int = 0


def read_states(sources: list[str], s3_client=None) -> Read:
    """Every ``--terraform-state`` source (a file, a folder or ``s3://bucket/key``) read into owner records.
    ``s3_client()`` makes the S3 client for ``s3://`` sources. Raises VisguardError (one line) on bad input."""
    out = Read()
    seen: set[tuple] = set()
    for src in sources:
        for label, data in _documents(src, s3_client, out):
            for rec in owners_of(parse(data, label), label):
                key = (rec["resource"], rec["state"], rec["address"])
                if key not in seen:
                    seen.add(key)
                    out.records.append(rec)
    return out


def _documents(src: str, s3_client, out: Read):
    """(label, bytes) of each state of one source; ``out.files`` counts them."""
    from visguard.linter.loaders import safe_io

    if src.startswith("s3://"):
        out.files += 1
        yield src, read_s3(src, s3_client)
        return
    if os.path.isdir(src):
        for path in find_states(src):
            data = safe_io.read_bytes(path, max_bytes=MAX_STATE_BYTES)
            if path.endswith(".json") and not looks_like_state(data):
                out.not_states += 1
                continue
            out.files += 1
            yield path, data
        return
    out.files += 1
    yield src, safe_io.read_bytes(src, max_bytes=MAX_STATE_BYTES)


def find_states(root: str) -> list[str]:
    """The ``*.tfstate`` and ``*.json`` files under ``root`` (sorted), skipping ``.terraform`` folders and any
    symlink whose target is outside ``root``; folders are not entered through symlinks."""
    from visguard.linter.loaders import safe_io

    found = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d != ".terraform")
        for name in sorted(files):
            if not name.endswith(SUFFIXES):
                continue
            path = os.path.join(folder, name)
            if os.path.islink(path) and not safe_io.inside(path, root):
                continue  # a link out of the folder: not read
            if safe_io.is_regular_file(path):
                found.append(path)
    return found


def looks_like_state(data: bytes) -> bool:
    """Whether a ``*.json`` of a DIR is a state (or ``terraform show -json``): its first 4 KiB name one of the
    keys only states have at the top (``terraform_version``, ``format_version``, ``lineage``)."""
    head = data[:4096]
    return any(k in head for k in (b'"terraform_version"', b'"format_version"', b'"lineage"'))


def read_s3(url: str, s3_client) -> bytes:
    """The object ``s3://bucket/key`` (GetObject with the caller's credentials), at most MAX_STATE_BYTES."""
    bucket, _, key = url[len("s3://") :].partition("/")
    shown = printable(url)
    if not bucket or not key:
        raise VisguardError("expected s3://BUCKET/KEY", file=shown)
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        resp = s3_client().get_object(Bucket=bucket, Key=key)
        size = resp.get("ContentLength")
        if isinstance(size, int) and size > MAX_STATE_BYTES:
            resp["Body"].close()
            raise VisguardError(_too_big(size), file=shown)
        data = resp["Body"].read(MAX_STATE_BYTES + 1)
        resp["Body"].close()
    except ClientError as exc:
        code = (exc.response.get("Error") or {}).get("Code") or "ClientError"
        raise VisguardError(f"cannot read the state from S3: {printable(code)}", file=shown) from None
    except BotoCoreError as exc:
        raise VisguardError(f"cannot read the state from S3: {type(exc).__name__}", file=shown) from None
    if len(data) > MAX_STATE_BYTES:
        raise VisguardError(_too_big(None), file=shown)
    return data


def _too_big(size: int | None) -> str:
    what = f"{size:,} bytes" if size is not None else "more than that"
    return f"a Terraform state over {MAX_STATE_BYTES:,} bytes is not read ({what})"


# ------------------------------------------------------------------------------------------------ parsing
def _hook(pairs: list[tuple[str, object]]) -> dict:
    """The JSON object hook that keeps secrets out: an instance's ``attributes`` / a resource's ``values`` keep
    only :data:`ID_KEYS` strings; outputs, private data and sensitivity maps are dropped; a resource of a type
    not in :data:`TYPES` (or a data source) loses its instances and values. Objects are built innermost first,
    so each value is dropped as soon as its enclosing object is complete."""
    obj = {}
    for k, v in pairs:
        if k in _DROPPED:
            continue
        if k in ("attributes", "values") and isinstance(v, dict) and "root_module" not in v:
            v = {a: s for a, s in v.items() if a in ID_KEYS and isinstance(s, str)}
        elif k == "attributes_flat":
            continue  # the pre-0.12 flat map: not read
        obj[k] = v
    t = obj.get("type")
    other = t not in TYPES or obj.get("mode", "managed") != "managed"
    if isinstance(t, str) and ("instances" in obj or "values" in obj) and other:
        obj.pop("instances", None)
        obj.pop("values", None)
    return obj


def parse(data: bytes, label: str):
    """The state document with only what :func:`_hook` keeps; bad JSON is one line naming the file."""
    shown = printable(label)
    try:
        return json.loads(data, object_pairs_hook=_hook)
    except json.JSONDecodeError as exc:
        raise VisguardError(
            f"not JSON: {exc.msg}", file=shown, place=f"line {exc.lineno} column {exc.colno}"
        ) from None
    except UnicodeDecodeError as exc:
        raise VisguardError(f"not UTF-8 text (byte {exc.start})", file=shown) from None
    except RecursionError:
        raise VisguardError("not read: nested too deeply", file=shown) from None
    except ValueError as exc:  # a number over Python's digit limit, ...
        raise VisguardError(f"not read: {type(exc).__name__}", file=shown) from None


def resources(doc, label: str):
    """(address, module, type, identifiers) of every managed instance of a :data:`TYPES` type in a parsed state."""
    shown = printable(label)
    if not isinstance(doc, dict):
        raise VisguardError("not a Terraform state: not a JSON object", file=shown)
    if isinstance(doc.get("values"), dict) or "format_version" in doc:
        yield from _show_resources((doc.get("values") or {}).get("root_module") or {})
        return
    version = doc.get("version")
    if version == 4 and isinstance(doc.get("resources"), list):
        yield from _state_resources(doc["resources"])
        return
    if isinstance(version, int) and version < 4:
        raise VisguardError(
            f"state format version {version} is not read (Terraform 0.11 or older): give `terraform show -json`",
            file=shown,
        )
    raise VisguardError(
        "not a Terraform state: neither `terraform show -json` output (values.root_module) nor a version 4 state",
        file=shown,
    )


def _show_resources(root: dict):
    stack = [root]
    while stack:
        mod = stack.pop()
        if not isinstance(mod, dict):
            continue
        module = mod.get("address") if isinstance(mod.get("address"), str) else ""
        for r in mod.get("resources") or []:
            if not isinstance(r, dict) or r.get("type") not in TYPES or r.get("mode", "managed") != "managed":
                continue
            if isinstance(r.get("address"), str) and isinstance(r.get("values"), dict):
                yield r["address"], module, r["type"], r["values"]
        stack.extend(reversed(mod.get("child_modules") or []))


def _state_resources(items: list):
    for r in items:
        if not isinstance(r, dict) or r.get("type") not in TYPES or r.get("mode", "managed") != "managed":
            continue
        module = r.get("module") if isinstance(r.get("module"), str) else ""
        base = f"{module + '.' if module else ''}{r['type']}.{r.get('name')}"
        for inst in r.get("instances") or []:
            if not isinstance(inst, dict) or not isinstance(inst.get("attributes"), dict):
                continue
            yield base + index_suffix(inst.get("index_key")), module, r["type"], inst["attributes"]


def index_suffix(key) -> str:
    """``[0]`` for a count index, ``["x"]`` for a for_each key (Terraform's address syntax), ``""`` for none."""
    if key is None:
        return ""
    if isinstance(key, int) and not isinstance(key, bool):
        return f"[{key}]"
    return "[" + json.dumps(str(key), ensure_ascii=False) + "]"


def identify(tf_type: str, ids: dict) -> tuple[str, str | None, tuple[str, str] | None] | None:
    """(resource, url, (account, region)) of one instance from its identifiers, or None when it has none; the
    place is None when no identifier names an account and region."""
    kind = TYPES[tf_type]
    ident = ids.get("id")
    if kind == owners.QUEUE:
        url = ids.get("url") or ids.get("queue_url") or (ident if str(ident).startswith("http") else None)
        arn = ids.get("arn") or (owners.queue_arn_of_url(url, "aws", "") if url else None)
        if arn and arn.split(":")[3:4] == [""]:
            arn = None  # a URL whose host names no region: its ARN is not known
        return (arn, url, owners.arn_place(arn)) if arn else None
    if kind == owners.MAPPING:
        uuid = ids.get("uuid") or ids.get("event_source_mapping_id") or ident
        if not uuid:
            return None
        where = next(
            (p for p in map(owners.arn_place, (ids.get("arn"), ids.get("function_arn"), ids.get("function_name"))) if p),
            None,
        )  # fmt: skip
        return uuid, None, where
    own = {owners.ECS_SERVICE: "service_arn", owners.TASK_DEFINITION: "task_definition_arn"}.get(kind)
    arn = (own and ids.get(own)) or ids.get("arn") or (ident if str(ident).startswith("arn:") else None)
    return (arn, None, owners.arn_place(arn)) if arn else None


def owners_of(doc, label: str):
    """The owner records of one parsed state; an instance whose identifiers name no account and region gets the
    account and region ``None`` (the collector counts it as not placed)."""
    for address, module, tf_type, ids in resources(doc, label):
        found = identify(tf_type, ids)
        if found is None:
            continue
        resource, url, place = found
        account, region = place or (None, None)
        yield owners.owner_record(
            account,
            region,
            resource,
            TYPES[tf_type],
            "terraform",
            url=url,
            state=label,
            address=address,
            module=owners.text(module) or "",
        )
