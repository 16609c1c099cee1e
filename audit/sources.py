"""``visguard audit run --sources DIR...``: the team's infrastructure repositories, linted as ``visguard lint`` lints
them, turned into a declarations table the audit joins deployed queues to (:mod:`visguard.audit.drift`).

One root (a DIR as given) is one Spark task (:func:`declaration_frame`): the executor runs the linter's
``lint_paths([root])``, the same registry, loaders, model and rules as the CLI, and :func:`root_rows` turns the
result into rows of :data:`SOURCE_FIELDS`:

- ``row_kind`` "d": one declared queue: where (``repository``: the DIR as given; ``file`` relative to it;
  ``line``), the keys it can be joined by (``stacks``: the CloudFormation stack names it deploys as, from a cdk.out
  manifest, a Serverless service's ``service-stage``, a ``samconfig.toml``/``samconfig.yaml`` next to a SAM or
  CloudFormation template; ``logical_id``; ``construct_path``: CDK's ``aws:cdk:path``; ``address``: the Terraform
  resource address, module path included; ``name``: the queue name when the source resolves it), ``declared``
  (JSON, :func:`declared_settings`: each setting's value or "unknown", and where it is written; the Lambda
  mappings' batch size and window) and ``lines`` (JSON: rule -> [file, line] of the source lint's own findings on
  the queue, so an audit finding of that rule points at the line the linter points at);
- "e": an input of the root that could not be linted (the linter's one-line error), or a root that is not a
  folder;
- "p" (with ``--patches``): the root's fix plan (``visguard.linter.fix.plan`` with re-linting, exactly what
  ``visguard lint ROOT --diff`` prints) as ``diff``, and the fixes it refused, one per line, in ``refused``.

The linter's walk reads nothing outside a root: symlinks that leave the folder are skipped (registry.discover), a
file a manifest names outside it is refused (safe_io.confined). Nothing is ever written into a root.
"""

from __future__ import annotations

import json
import os

ROW_KINDS = ("d", "e", "p")
SOURCE_FIELDS = (
    ("row_kind", "string"),
    ("root", "int"),  # the index of the root in --sources
    ("repository", "string"),
    ("decl_id", "string"),
    ("file", "string"),
    ("line", "long"),
    ("source", "string"),
    ("queue", "string"),
    ("name", "string"),
    ("stacks", "array<string>"),
    ("logical_id", "string"),
    ("construct_path", "string"),
    ("address", "string"),
    ("declared", "string"),
    ("lines", "string"),
    ("message", "string"),
    ("diff", "string"),
    ("refused", "string"),
)
CFN_SOURCES = ("cloudformation", "sam", "cdk", "serverless")
SAMCONFIG = ("samconfig.toml", "samconfig.yaml", "samconfig.yml")
SAMCONFIG_MAX_BYTES = 256 * 1024


def source_schema() -> str:
    return ", ".join(f"{n} {t}" for n, t in SOURCE_FIELDS)


def arrow_schema(fields):
    """The Arrow schema of ``(name, DDL type)`` pairs (string, int, long, array<string>), built without a Spark
    session (an executor has none)."""
    import pyarrow as pa

    types = {
        "string": pa.string(),
        "int": pa.int32(),
        "long": pa.int64(),
        "array<string>": pa.list_(pa.string()),
    }
    return pa.schema([(n, types[t]) for n, t in fields])


# ------------------------------------------------------------------------------------------ pure: one lint result
def known_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _setting(value, location, root: str, default=None) -> dict:
    """One declared setting: {"value": number | null, "known": bool, "default": bool, "file", "line"}. A number
    as written is known; not set (None) is the AWS default (known: what the queue gets); anything else (a value
    only the deployment knows: a parameter, a variable) is unknown, never drift."""
    out: dict = {}
    if value is None:
        out = {"value": default, "known": default is not None, "default": True}
    elif known_number(value):
        out = {"value": float(value), "known": True, "default": False}
    else:
        out = {"value": None, "known": False, "default": False}
    if location is not None:
        out["file"], out["line"] = relative(location.file, root), location.line
    return out


def relative(file: str | None, root: str) -> str | None:
    """``file`` relative to ``root`` with '/', or as given when it is not below it."""
    if not file:
        return file
    try:
        rel = os.path.relpath(file, root)
    except ValueError:
        return file
    return file if rel.startswith("..") else rel.replace(os.sep, "/")


def declared_settings(queue, model, root: str) -> dict:
    """The settings :mod:`drift` compares, as the source declares them (:func:`_setting`), with the redrive
    target as the target queue's name when the source resolves it."""
    from visguard import facts

    loc = queue.location_of
    out = {
        "visibility_timeout": _setting(
            queue.visibility_timeout, loc("visibility_timeout"), root, float(facts.DEFAULT_VISIBILITY_TIMEOUT)
        ),
        "message_retention": _setting(
            queue.message_retention, loc("message_retention"), root, float(facts.DEFAULT_RETENTION)
        ),
    }
    rd = queue.redrive
    if rd is None:
        out["redrive"] = {"value": None, "known": True, "default": True, **_where(loc("redrive"), root)}
        out["max_receive_count"] = {"value": None, "known": True, "default": True}
    else:
        target = model.queues.get(rd.target) if rd.target is not None else None
        name = target.name if target is not None and isinstance(target.name, str) else None
        out["redrive"] = {
            "value": name,
            "known": name is not None,
            "default": False,
            **_where(loc("redrive.target"), root),
        }
        out["max_receive_count"] = _setting(rd.max_receive_count, loc("redrive.max_receive_count"), root)
    out["mappings"] = [
        {
            "id": c.id,
            "batch_size": _setting(
                c.batch_size, c.location_of("batch_size"), root, float(facts.DEFAULT_SQS_BATCH_SIZE)
            ),
            "batching_window": _setting(c.batching_window, c.location_of("batching_window"), root, 0.0),
        }
        for c in queue.consumers
        if c.kind == "lambda"
    ]
    return out


def _where(location, root: str) -> dict:
    return {} if location is None else {"file": relative(location.file, root), "line": location.line}


def logical_id(queue) -> str | None:
    """The queue's CloudFormation logical id (the last part of its id for a cdk.out's ``Stack/LogicalId``)."""
    if queue.source not in CFN_SOURCES or not isinstance(queue.id, str):
        return None
    lid = queue.id.rsplit("/", 1)[-1]
    return lid if lid.isalnum() else None  # a logical id is alphanumeric (a Lift construct's id is not one)


def rule_lines(findings, root: str) -> dict[str, dict[str, list]]:
    """queue id -> {rule: [file, line]} of the lint's own findings (the first of each rule)."""
    out: dict[str, dict[str, list]] = {}
    for f in findings:
        if f.location is None or not f.location.line:
            continue
        mine = out.setdefault(f.queue, {})
        mine.setdefault(f.rule, [relative(f.location.file, root), int(f.location.line)])
    return out


def root_rows(index: int, root: str, result, stacks_of=None) -> list[dict]:
    """The "d" and "e" rows of one root's lint result (pure: ``stacks_of(input_path, queue) -> [stack names]``
    gives the stack names the input's deploy configuration names, :func:`deploy_stacks` by default)."""
    stacks_of = stacks_of or (lambda path, q: deploy_stacks(path, root))
    rows: list[dict] = []
    lines = rule_lines(result.findings, root)
    for path, model in result.models.items():
        for qid, q in model.queues.items():
            if q.source in ("inventory", "code", "shell"):
                continue  # deployed queues given with --queues-from, queues an application creates: no declaration
            stacks = [q.stack] if isinstance(q.stack, str) else []
            if not stacks and q.source in CFN_SOURCES:
                stacks = stacks_of(path, q)
            loc = q.location
            rows.append(
                {
                    "row_kind": "d",
                    "root": index,
                    "repository": root,
                    "decl_id": f"{index}\x1f{path}\x1f{qid}",
                    "file": relative(loc.file, root),
                    "line": loc.line,
                    "source": q.source,
                    "queue": qid,
                    "name": q.name if isinstance(q.name, str) else None,
                    "stacks": sorted(set(stacks)),
                    "logical_id": logical_id(q),
                    "construct_path": loc.construct_path,
                    "address": qid if q.source == "terraform" else None,
                    "declared": json.dumps(declared_settings(q, model, root), sort_keys=True),
                    "lines": json.dumps(lines.get(qid, {}), sort_keys=True),
                }
            )
    for e in result.errors:
        rows.append({"row_kind": "e", "root": index, "repository": root, "message": _error_line(e, root)})
    return rows


def _error_line(e, root: str) -> str:
    from visguard.neutralize import printable

    file = relative(getattr(e, "file", None), root)
    place = getattr(e, "place", None)
    detail = getattr(e, "detail", None) or str(e)
    return printable(": ".join(p for p in (file, place, detail) if p))


def patch_row(index: int, root: str, fixes) -> dict:
    """The "p" row of a root: its plan's diff with the paths of the repository (``a/main.tf``: what ``git apply``
    takes in a checkout of it, and what ``visguard lint . --diff`` prints there), and what it refused."""
    diff = "".join(ff.diff(relative(ff.path, root)) for ff in fixes if ff.changed and not ff.refused)
    refused = [
        f"{relative(ff.path, root)}: {f.rule} on {f.queue}: {why}" for ff in fixes for f, why in ff.skipped
    ]
    return {
        "row_kind": "p",
        "root": index,
        "repository": root,
        "diff": diff,
        "refused": "\n".join(refused),
    }


# ------------------------------------------------------------------------------------------ deploy configuration
def deploy_stacks(path: str, root: str) -> list[str]:
    """The stack names a SAM CLI configuration next to the template ``path`` (or in its folder) deploys it as:
    every environment's ``deploy.parameters.stack_name`` (and the ``global`` one). Read only inside ``root``;
    a configuration that cannot be read gives no name (the queue can still be joined by name)."""
    folder = path if os.path.isdir(path) else os.path.dirname(path) or "."
    names: list[str] = []
    for cfg in SAMCONFIG:
        p = os.path.join(folder, cfg)
        if not os.path.isfile(p) or os.path.islink(p) or not _inside(p, root):
            continue
        names += _samconfig_stacks(p)
    return names


def _inside(path: str, root: str) -> bool:
    from visguard.linter.loaders import safe_io

    return safe_io.inside(path, root)


def _samconfig_stacks(path: str) -> list[str]:
    from visguard.errors import VisguardError
    from visguard.linter.loaders import safe_io

    try:
        data = safe_io.read_bytes(path, max_bytes=SAMCONFIG_MAX_BYTES)
    except VisguardError:
        return []
    try:
        if path.endswith(".toml"):
            import tomllib

            doc = tomllib.loads(data.decode("utf-8"))
        else:
            from visguard.linter.loaders.decode_yaml import loads

            doc = loads(data.decode("utf-8"), file=path)
    except Exception:  # noqa: BLE001 - a broken deploy configuration names no stack; never a crash
        return []
    return samconfig_stack_names(doc)


def samconfig_stack_names(doc) -> list[str]:
    """``<env>.deploy.parameters.stack_name`` of every environment of a parsed samconfig (pure)."""
    out = []
    if not isinstance(doc, dict):
        return out
    for env in doc.values():
        if not isinstance(env, dict):
            continue
        for command in ("deploy", "global"):
            params = env.get(command, {}).get("parameters") if isinstance(env.get(command), dict) else None
            name = params.get("stack_name") if isinstance(params, dict) else None
            if isinstance(name, str) and name and len(name) <= 128:
                out.append(name)
    return out


# ------------------------------------------------------------------------------------------ the executor's task
def lint_root(index: int, root: str, patches: bool = False) -> list[dict]:
    """One root, as ``visguard lint ROOT`` (and ``--diff`` with ``patches``) runs it: its rows. Never raises:
    a root that is not a folder, or a crash, is an "e" row."""
    from visguard.linter.api import lint_paths

    if not os.path.isdir(root) or os.path.islink(root.rstrip("/") or "/"):
        return [{"row_kind": "e", "root": index, "repository": root, "message": "not a folder; not read"}]

    def run():
        return lint_paths([root])

    try:
        result = run()
        rows = root_rows(index, root, result)
        if patches:
            from visguard.linter.fix import plan

            rows.append(patch_row(index, root, plan(result, run)))
    except Exception as exc:  # noqa: BLE001 - one root's crash is its error row; the others still run
        from visguard.neutralize import printable

        rows = [
            {
                "row_kind": "e",
                "root": index,
                "repository": root,
                "message": printable(f"internal error linting the root: {type(exc).__name__}"),
            }
        ]
    return rows


def lint_roots_batches(batches, roots: tuple[str, ...], patches: bool = False):
    """mapInArrow body: each input row's ``id`` is the index of a root in ``roots``."""
    import pyarrow as pa

    schema = arrow_schema(SOURCE_FIELDS)
    for batch in batches:
        for i in batch.column("id").to_pylist():
            rows = lint_root(int(i), roots[int(i)], patches)
            full = [{n: r.get(n) for n, _ in SOURCE_FIELDS} for r in rows]
            yield pa.RecordBatch.from_pylist(full, schema=schema)


def declaration_frame(spark, roots, *, patches: bool = False):
    """Every root linted on the executors, one task each: a DataFrame of :data:`SOURCE_FIELDS` rows."""
    import functools

    roots = tuple(str(r) for r in roots)
    ids = spark.range(0, len(roots), 1, numPartitions=max(len(roots), 1))
    body = functools.partial(lint_roots_batches, roots=roots, patches=patches)
    return ids.mapInArrow(body, source_schema())


def refuse_inside(folders: dict, roots) -> None:
    """Refuse an output folder ({path: option}) that is a source root or inside one (or holds one): nothing is
    ever written into the sources. One line, exit 1."""
    from visguard.errors import VisguardError
    from visguard.neutralize import printable

    for folder, option in folders.items():
        f = os.path.realpath(str(folder))
        for r in roots:
            rr = os.path.realpath(str(r))
            if (
                f == rr
                or f.startswith(rr.rstrip(os.sep) + os.sep)
                or rr.startswith(f.rstrip(os.sep) + os.sep)
            ):
                raise VisguardError(
                    f"{option} must not be inside a source folder (nothing is written into the sources)",
                    file=printable(str(folder)),
                )
