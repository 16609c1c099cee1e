"""The fleet inventory: JSON Lines files, one per account and region, written by the collector and the generator.

Layout: ``DIR/<account>/<region>.jsonl``. Each line is one record with a ``kind``:

- ``queue``: one SQS queue, its ``attributes`` exactly as GetQueueAttributes(All) returned them (all strings),
  ``tags``, ``dlq_sources`` (ListDeadLetterSourceQueues, when called) and optional CloudWatch ``metrics``.
- ``mapping``: one Lambda event source mapping whose source is an SQS queue (it lives in the *function's*
  account; its ``event_source_arn`` may name a queue in another account).
- ``function``: one Lambda function configuration, keyed by the (possibly qualified) ARN the mapping names.
- ``worker``: a worker consumer the collector can see, one per (resource, queue): an ECS service whose task
  definition names the queue in a container's environment (``link`` env, ``link_ref`` the variable), or an
  EventBridge pipe whose source is the queue (``link`` source). ``arn`` is the service's or pipe's ARN,
  ``queue`` the queue's ARN (or its URL, for a queue of another account named by URL); the consumer facts
  (stop timeout, desired count, batch, window, the pipe target's time limit, the processing time declared by
  the ``visguard.io/processing-p99``/``-p50`` tags) are in the linter's model names.
- ``owner``: which CloudFormation stack or Terraform state owns a queue, mapping, ECS service, task definition or
  pipe (``owners.py``, ``tfstate.py``): ``resource``, ``resource_type``, ``url``, ``owner`` (``cloudformation``:
  ``stack``, ``stack_id``, ``logical_id``, ``construct_path``, ``root_stack``; ``terraform``: ``state``,
  ``address``, ``module``), in the file of the account and region the resource's ARN names.
- ``error``: something the collector could not read (AccessDenied, exhausted throttling, a disabled region).
- ``partition``: the last line of every file: counts of the records above (``owners`` only when there are any); its presence marks the file
  complete (files are written to a temporary name and renamed, so a file without it is not ours).

The JSON Schema is ``audit/schemas/inventory.schema.json`` (published with the package).
"""

from __future__ import annotations

import functools
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

SCHEMA_PATH = Path(__file__).with_name("schemas") / "inventory.schema.json"
KINDS = ("queue", "mapping", "function", "worker", "owner", "error", "partition")
SUFFIX = ".jsonl"


def check_root(out: str | Path) -> None:
    """The inventory directory exists (or can be made) and is a directory: checked before anything is done."""
    from visguard.errors import VisguardError
    from visguard.neutralize import printable

    p = Path(out)
    if p.exists() and not p.is_dir():
        raise VisguardError(
            "--out must be a directory (the inventory is one file per account and region)",
            file=printable(out),
        )
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise VisguardError(
            f"cannot create the inventory directory: {exc.strerror}", file=printable(out)
        ) from None


def partition_path(root: str | Path, account: str, region: str) -> Path:
    return Path(root) / account / f"{region}{SUFFIX}"


def partition_files(root: str | Path) -> list[Path]:
    """Every finished partition file under ``root`` (temporary files of an interrupted run are ignored)."""
    return sorted(p for p in Path(root).glob(f"*/*{SUFFIX}") if not p.name.startswith("."))


def write_partition(root: str | Path, account: str, region: str, records: Iterable[dict]) -> dict:
    """Write one partition atomically and return its closing ``partition`` record."""
    counts = dict.fromkeys(("queue", "mapping", "function", "worker", "owner", "error"), 0)

    def lines() -> Iterator[str]:
        for rec in records:
            counts[rec["kind"]] += 1
            yield json.dumps(rec, separators=(",", ":"), sort_keys=True)

    return write_lines(root, account, region, lines(), counts)


def write_lines(root: str | Path, account: str, region: str, lines: Iterable[str], counts: dict) -> dict:
    """Write pre-rendered JSON lines to a temporary file in the partition's folder, append the closing
    record (``counts`` is read after ``lines`` is exhausted), fsync and rename: a reader never sees a
    half-written file, and a killed writer leaves only a ``.tmp`` file that readers ignore."""
    path = partition_path(root, account, region)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{region}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for line in lines:
                fh.write(line)
                fh.write("\n")
            closing = {
                "kind": "partition",
                "account": account,
                "region": region,
                "queues": counts.get("queue", 0),
                "mappings": counts.get("mapping", 0),
                "functions": counts.get("function", 0),
                "workers": counts.get("worker", 0),
                "errors": counts.get("error", 0),
            }
            if counts.get("owner"):  # only when there are some: an inventory without owners reads as before
                closing["owners"] = counts["owner"]
            fh.write(json.dumps(closing, separators=(",", ":"), sort_keys=True) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return closing


def read_closing(path: Path) -> dict | None:
    """The ``partition`` record that ends a file, or None if the file does not end with one."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - 4096))
            tail = fh.read().decode("utf-8", "replace").rstrip("\n").rsplit("\n", 1)[-1]
        rec = json.loads(tail)
    except (OSError, ValueError):
        return None
    return rec if isinstance(rec, dict) and rec.get("kind") == "partition" else None


def is_complete(root: str | Path, account: str, region: str) -> bool:
    """A partition a re-run can skip: the file exists, is closed, and recorded no errors."""
    closing = read_closing(partition_path(root, account, region))
    return closing is not None and closing.get("errors", 1) == 0


MAX_PARTITION_BYTES = 1024**3  # one account and region: about a million queue records


def iter_records(root: str | Path) -> Iterator[tuple[Path, int, dict | str]]:
    """(file, line number, record or the raw line when it is not a JSON object) for every line of every
    partition, read through the linter's bounded reader (``safe_io.read_lines``): a partition is a regular file
    inside ``root`` once symlinks are resolved, of UTF-8 lines; anything else is a ``VisguardError`` naming the
    file (and line)."""
    from visguard.errors import VisguardError
    from visguard.linter.loaders import safe_io

    for path in partition_files(root):
        if not safe_io.inside(str(path), str(root)):
            raise VisguardError("a link out of the inventory folder; not read", file=str(path))
        for n, line in safe_io.read_lines(str(path), max_bytes=MAX_PARTITION_BYTES):
            if not line:
                continue
            try:
                rec = json.loads(line)
            except (ValueError, RecursionError):  # malformed, over 4,300 digits, nested too deeply
                yield path, n, line
                continue
            yield path, n, rec if isinstance(rec, dict) else line


def load_schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


@functools.cache
def validator(kind: str | None = None):
    """The record schema's validator, built once (building it costs about a millisecond: per record, that was
    most of the time of reading a large inventory). With ``kind``: the schema for records of that kind only (the
    common properties and that kind's branch of ``oneOf``; every other branch requires another ``kind``), a third
    faster to check."""
    import jsonschema

    schema = load_schema()
    if kind is not None:
        schema = {k: v for k, v in schema.items() if k != "oneOf"} | {"$ref": f"#/$defs/{kind}"}
    return jsonschema.Draft202012Validator(schema)


def validate_records(records: Iterable[dict], *, kind: str | None = None) -> list[str]:
    """Schema errors (``kind #n: message``) for records (all of ``kind``, when given); empty when all are valid.
    A record :func:`quick_check` accepts is valid without asking jsonschema (about 100 times faster)."""
    from visguard.schema_errors import describe

    quick = quick_check(kind)
    errors = []
    for n, rec in enumerate(records, 1):
        if quick(rec):
            continue
        check = validator(kind)
        for err in check.iter_errors(rec):
            where = "/".join(map(str, err.absolute_path))
            errors.append(
                f"{rec.get('kind', '?')} #{n}: {where + ': ' if where else ''}{describe(err, check.schema)}"
            )
    return errors


# ------------------------------------------------------------------------------------------------ quick check
@functools.cache
def quick_check(kind: str | None = None):
    """A predicate equal to ``validator(kind).is_valid`` (the same schema, compiled to Python by fastjsonschema:
    about 100 times faster than jsonschema's validator for a record that is valid; jsonschema still words the
    errors of one that is not). tests/linter/test_queues_from_hardening.py compares the two."""
    import fastjsonschema

    schema = load_schema()
    if kind is not None:  # the $ref alone in its own subschema: fastjsonschema reads the schema as draft 7
        common = {k: v for k, v in schema.items() if k not in ("oneOf", "$defs", "$schema", "$id")}
        schema = {"$defs": schema["$defs"], "allOf": [common, {"$ref": f"#/$defs/{kind}"}]}
    check = fastjsonschema.compile({k: v for k, v in schema.items() if k != "$schema"})

    def valid(record) -> bool:
        try:
            check(record)
        except fastjsonschema.JsonSchemaException:
            return False
        return True

    return valid
