"""visguard.yaml: queue definitions, consumer profiles, rule settings, severity overrides, suppressions.

The document is validated against ``linter/schemas/visguard-config.schema.json`` (published for editors:
``# yaml-language-server: $schema=...``); the first failure is reported with its path and line.

```yaml
version: 1
settings: {lambda_multiplier: 6}
rules: {VG013: off, VG021: error}          # off (unquoted off is YAML false: same), or a severity
suppressions:
  - {rule: VG020, queue: "legacy-*", reason: "drained by the nightly job"}
profiles:                                   # matched to queues by id, name or construct path (glob)
  - {match: "orders*", kind: worker, p50: 2, p99: 45, heartbeat: {interval: 20}, concurrency: 8}
queues:                                     # for queues not described by a template
  - name: payments
    visibility_timeout: 60
    redrive: {target: payments-dlq, max_receive_count: 5}
    consumers: [{kind: lambda, function: pay, timeout: 20, batch_size: 10}]
  - {name: payments-dlq, retention: 1209600}
```
"""

from __future__ import annotations

import json
import os
from functools import lru_cache

from visguard.errors import VisguardError
from visguard.linter.matching import is_glob, matches
from visguard.linter.model import (
    Consumer,
    LintConfig,
    Location,
    Model,
    ProfileMatch,
    Queue,
    Redrive,
    Severity,
    Suppression,
)
from visguard.schema_errors import describe

from . import values
from .decode import loads, locate, read_text
from .registry import CONFIG_KEYS, CONFIG_NAMES  # noqa: F401 - re-exported (the registry claims by them)

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

SCHEMA_FILE = "visguard-config.schema.json"


def schema_path() -> str:
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "schemas", SCHEMA_FILE)


@lru_cache(maxsize=1)
def _validator():
    import jsonschema  # only when a visguard.yaml is read

    with open(schema_path(), encoding="utf-8") as fh:
        return jsonschema.Draft202012Validator(json.load(fh))


# the longest glob a suppression or profile may give: fnmatch compiles a glob in time quadratic in its length
# (40,000 "[" took minutes); names, ARNs and construct paths are far shorter
MAX_GLOB = 1000


class ConfigModel(Model):
    """The queues a visguard.yaml defines, with the file's own settings (the registry's visguard-config
    loader returns this, so a config file linted by any name brings its settings along)."""

    __slots__ = {"config": None}  # LintConfig


def load_config_model(path: str) -> ConfigModel:
    """Read a visguard.yaml once: its queues (the model) and its settings, profiles and suppressions."""
    doc = _document(path)
    model = model_from_config(doc, file=path, checked=True)
    out = ConfigModel(queues=model.queues, source_file=model.source_file)
    out.config = config_from_document(doc, file=path, checked=True)
    return out


# (absolute path, text) -> the document parsed and validated: a visguard.yaml that is both the configuration
# and an input of a run (and every re-lint of the fix planner) is parsed and checked once; a changed text is a
# new key. The few last ones are kept (a run reads one or two).
_DOCUMENTS: dict[tuple[str, str], Any] = {}
_KEPT = 8


def _document(path: str) -> Any:
    """The validated document of the visguard.yaml at ``path`` (VisguardError when it is bad input)."""
    text = read_text(path)
    key = (os.path.abspath(path), text)
    doc = _DOCUMENTS.get(key)
    if doc is None:
        doc = validate(loads(text, file=path), file=path)
        if len(_DOCUMENTS) >= _KEPT:
            _DOCUMENTS.pop(next(iter(_DOCUMENTS)))
        _DOCUMENTS[key] = doc
    return doc


def _check_numbers(doc: Any, file: str) -> None:
    """Every number within the bounds of ``values.number`` (.inf, .nan and 10**400 pass a JSON Schema
    ``minimum``): the same bad input as in a template."""
    stack: list[tuple[Any, list]] = [(doc, [])]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            stack.extend((v, [*path, k]) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, [*path, i]) for i, v in enumerate(node))
        elif isinstance(node, (int, float)) and not isinstance(node, bool):
            _read(doc, file, path, values.number, node)


def _read(doc: Any, file: str, path: list, reader, v: Any) -> Any:
    """``reader`` (values.number, integer, boolean) of the setting ``v`` written at ``path``: the one policy of
    what is a number (strings such as "600" too); what no AWS API could take is bad input, at its line."""
    try:
        return reader(v)
    except values.BadValue as exc:
        where = "/".join(map(str, path)) or "(top level)"
        raise VisguardError(f"{where}: {exc.quoted()}", file=file, place=_line(doc, path)) from None


# the AWS settings of a queue entry and of a Lambda consumer entry: key -> (model field, reader). They follow
# ``values``: numbers written as strings ("600") are numbers, a word is bad input, a range is the rules' business
QUEUE_SETTINGS = {
    "visibility_timeout": ("visibility_timeout", values.number),
    "retention": ("message_retention", values.number),
    "delay": ("delay", values.number),
}
LAMBDA_SETTINGS = {
    "timeout": ("function_timeout", values.number),
    "batch_size": ("batch_size", values.integer),
    "batching_window": ("batching_window", values.number),
    "report_batch_item_failures": ("report_batch_item_failures", values.boolean),
    "reserved_concurrency": ("reserved_concurrency", values.integer),
    "max_concurrency": ("max_concurrency", values.integer),
    # provisioned mode (issue 36): ProvisionedPollerConfig.MinimumPollers / MaximumPollers
    "min_pollers": ("min_pollers", values.integer),
    "max_pollers": ("max_pollers", values.integer),
    "enabled": ("enabled", values.boolean),
}


def _check_settings(doc: dict, file: str) -> None:
    """Every AWS setting of the queues readable (a valid document: the schema has passed), so ``--config`` refuses
    the same file the linter refuses."""
    for i, e in enumerate(doc.get("queues") or []):
        base = ["queues", i]
        for key, (_, reader) in {**QUEUE_SETTINGS, "fifo": (None, values.boolean)}.items():
            if key in e:
                _read(doc, file, [*base, key], reader, e[key])
        if "max_receive_count" in (e.get("redrive") or {}):
            _read(
                doc,
                file,
                [*base, "redrive", "max_receive_count"],
                values.number,
                e["redrive"]["max_receive_count"],
            )
        for j, c in enumerate(e.get("consumers") or []):
            for key, (_, reader) in LAMBDA_SETTINGS.items():
                if key in c:
                    _read(doc, file, [*base, "consumers", j, key], reader, c[key])


def _globs(doc: dict):
    """(path, glob) of every glob the document gives (a valid document: the schema has passed)."""
    for i, s in enumerate(doc.get("suppressions") or []):
        for key in ("queue", "account"):
            if key in s:
                yield ["suppressions", i, key], s[key]
        for tag, glob in (s.get("tags") or {}).items():
            yield ["suppressions", i, "tags", tag], glob
    for i, p in enumerate(doc.get("profiles") or []):
        globs = p["match"] if isinstance(p["match"], list) else [p["match"]]
        for j, glob in enumerate(globs):
            yield (
                (["profiles", i, "match", j] if isinstance(p["match"], list) else ["profiles", i, "match"]),
                glob,
            )


def _check_globs(doc: dict, file: str) -> None:
    for path, glob in _globs(doc):
        if len(glob) > MAX_GLOB:
            where = "/".join(map(str, path))
            raise VisguardError(
                f"{where}: a glob of {len(glob)} characters, more than {MAX_GLOB}",
                file=file,
                place=_line(doc, path),
            )


def validate(doc: Any, *, file: str) -> dict:
    if doc is None:
        doc = {}
    if not isinstance(doc, dict):
        raise VisguardError("a visguard.yaml file must be a mapping", file=file)
    if "Resources" in doc:
        raise VisguardError("this is a CloudFormation template, not a visguard.yaml file", file=file)
    _check_numbers(doc, file)
    errors = list(_validator().iter_errors(doc))
    if not errors:
        _check_globs(doc, file)
        _check_settings(doc, file)
    if errors:
        # the most specific failure; "unevaluated" ones are echoes of a failed sub-schema
        err = min(errors, key=lambda e: (e.validator == "unevaluatedProperties", -len(e.absolute_path)))
        path = list(err.absolute_path)
        line = locate(doc, path + _extra_keys(err)[:1])[0]  # an unknown key: point at its own line
        where = "/".join(str(p) for p in path) or "(top level)"
        message = describe(err, _validator().schema)
        raise VisguardError(f"{where}: {message}", file=file, place=line and str(line))
    return doc


def _extra_keys(err) -> list:
    if err.validator != "additionalProperties" or not isinstance(err.instance, dict):
        return []
    return [k for k in err.instance if k not in err.schema.get("properties", {})]


def load_config(path: str) -> LintConfig:
    """Read and validate a visguard.yaml file."""
    path = os.fspath(path)
    if os.path.isdir(path):
        raise VisguardError("expected a visguard.yaml file, got a directory", file=path)
    return config_from_document(_document(path), file=path, checked=True)


# ---------------------------------------------------------------------------------------------- config
def config_from_document(doc: Any, *, file: str, checked: bool = False) -> LintConfig:
    """The settings, profiles and suppressions of a visguard.yaml document (``checked``: already validated)."""
    doc = doc if checked else validate(doc, file=file)
    cfg = LintConfig(settings=dict(doc.get("settings") or {}), source_file=file)
    for rule, level in (doc.get("rules") or {}).items():
        if level in ("off", False):  # YAML 1.1 reads an unquoted off as false
            cfg.disabled.add(rule)
        else:
            cfg.severity_overrides[rule] = Severity(level)
    cfg.disabled.update(doc.get("disable") or [])
    for i, s in enumerate(doc.get("suppressions") or []):
        cfg.suppression_queues[len(cfg.suppressions)] = s.get("queue", "*")
        where = {k: s[k] for k in ("account", "tags") if k in s}
        if where:
            cfg.suppression_where[len(cfg.suppressions)] = where
        cfg.suppressions.append(Suppression(s["rule"], s.get("reason"), _loc(doc, file, ["suppressions", i])))
    cfg.profiles = profiles_from_document(doc, file)
    return cfg


def profiles_from_document(doc: dict, file: str) -> list[ProfileMatch]:
    out = []
    for i, p in enumerate(doc.get("profiles") or []):
        globs = p["match"] if isinstance(p["match"], list) else [p["match"]]
        for glob in globs:
            pm = ProfileMatch(
                match=glob, kind=p.get("kind", "worker"), location=_loc(doc, file, ["profiles", i])
            )
            _processing_into(pm, p)
            out.append(pm)
    return out


def _processing_into(target: Any, d: dict) -> None:
    """p50/p99/heartbeat/concurrency/arrival_rate of a profile or consumer entry -> model fields."""
    for key, attr in (("p50", "processing_p50"), ("p99", "processing_p99")):
        if key in d:
            setattr(target, attr, float(d[key]))
    if "heartbeat" in d:
        target.heartbeat_interval = float(d["heartbeat"]["interval"])
        if "extend_by" in d["heartbeat"]:
            target.heartbeat_extend_by = float(d["heartbeat"]["extend_by"])
    if "concurrency" in d:
        target.concurrency = int(d["concurrency"])
    if "arrival_rate" in d:
        target.arrival_rate = float(d["arrival_rate"])


def _loc(doc: Any, file: str, path: list) -> Location:
    line, col = locate(doc, path)
    return Location(file, line=line, column=col, path="/".join(str(p) for p in path))


# ---------------------------------------------------------------------------------------------- queues
def model_from_config(doc: Any, *, file: str, checked: bool = False) -> Model:
    """The queues a visguard.yaml defines (an empty model when it only holds settings; ``checked``: ``doc`` is
    already validated)."""
    doc = doc if checked else validate(doc, file=file)
    model = Model(source_file=file)
    named_profiles = {p["name"]: p for p in doc.get("profiles") or [] if "name" in p}
    entries = doc.get("queues") or []
    for i, e in enumerate(entries):
        base = ["queues", i]
        q = Queue(id=e.get("id", e["name"]), name=e["name"], location=_loc(doc, file, base), source="config")
        if q.id in model.queues:
            raise VisguardError(
                f"queues/{i}: a second queue with id {q.id!r}", file=file, place=_line(doc, base)
            )
        for key, (attr, reader) in QUEUE_SETTINGS.items():
            if key in e:
                setattr(q, attr, _read(doc, file, [*base, key], reader, e[key]))
                q.locations[attr] = _loc(doc, file, [*base, key])
        q.fifo = bool(_read(doc, file, [*base, "fifo"], values.boolean, e.get("fifo")))
        for key in ("fifo", "name"):
            if key in e:
                q.locations[key] = _loc(doc, file, [*base, key])
        q.arrival_rate = e.get("arrival_rate")
        q.tags = dict(e.get("tags") or {})
        for j, s in enumerate(e.get("suppress") or []):
            q.suppressions.append(
                Suppression(s["rule"], s.get("reason"), _loc(doc, file, [*base, "suppress", j]))
            )
        if "redrive" in e:
            rd = e["redrive"]
            q.redrive = Redrive(
                target=None,
                target_ref=rd.get("target"),
                max_receive_count=_read(
                    doc,
                    file,
                    [*base, "redrive", "max_receive_count"],
                    values.number,
                    rd.get("max_receive_count"),
                ),
                location=_loc(doc, file, [*base, "redrive"]),
            )
            q.locations["redrive"] = q.redrive.location
            for key, name in (
                ("target", "redrive.target"),
                ("max_receive_count", "redrive.max_receive_count"),
            ):
                if key in rd:
                    q.locations[name] = _loc(doc, file, [*base, "redrive", key])
        for j, c in enumerate(e.get("consumers") or []):
            q.consumers.append(_consumer(doc, file, [*base, "consumers", j], q, c, named_profiles))
        model.add(q)
    by_name = {q.name: q.id for q in model.queues.values()}
    for q in model.queues.values():
        if q.redrive is not None and q.redrive.target_ref:
            ref = q.redrive.target_ref
            name = ref.rsplit(":", 1)[-1] if ref.startswith("arn:") else ref
            q.redrive.target = ref if ref in model.queues else by_name.get(name)
    # the file's own profiles apply to its own queues (again harmless if it is also the --config file)
    apply_profiles(model, LintConfig(profiles=profiles_from_document(doc, file)))
    return model


def _consumer(doc, file, path, q: Queue, c: dict, named_profiles: dict) -> Consumer:
    kind = c.get("kind", "worker")
    cid = c.get("id") or c.get("function") or f"{q.id}/consumers/{path[-1]}"
    con = Consumer(id=cid, kind=kind, location=_loc(doc, file, path))
    if "profile" in c:
        prof = named_profiles.get(c["profile"])
        if prof is None:
            raise VisguardError(
                f"{'/'.join(map(str, path))}/profile: no profile named {c['profile']!r} in this file",
                file=file,
                place=_line(doc, [*path, "profile"]),
            )
        _processing_into(con, prof)
    _processing_into(con, c)
    if kind == "lambda":
        con.function_id = c.get("function", cid)
        for key, (attr, reader) in LAMBDA_SETTINGS.items():
            if key in c:
                setattr(con, attr, _read(doc, file, [*path, key], reader, c[key]))
                con.locations[attr] = _loc(doc, file, [*path, key])
    return con


def _line(doc: Any, path: list) -> str | None:
    line = locate(doc, path)[0]
    return str(line) if line else None


# ---------------------------------------------------------------------------------------------- profiles
def profile_for(queue: Queue, profiles: list[ProfileMatch], kind: str) -> ProfileMatch | None:
    """The profile of ``kind`` for ``queue`` (``visguard.linter.matching``): an exact name beats a glob, then
    the first in file order."""
    candidates = [p for p in profiles if p.kind == kind and matches(p.match, queue)]
    exact = [p for p in candidates if not is_glob(p.match)]
    return (exact or candidates or [None])[0]


_PROFILE_FIELDS = (
    "processing_p50",
    "processing_p99",
    "heartbeat_interval",
    "heartbeat_extend_by",
    "concurrency",
    "arrival_rate",
)


def apply_profiles(model: Model, config: LintConfig) -> None:
    """Attach processing profiles to the matching queues' consumers (values already set are kept).

    A ``lambda`` profile fills the queue's Lambda consumers (and unknown ones: an imported function still
    has a processing time). A ``worker`` profile fills the worker consumers, and adds one when the queue has
    none: workers are invisible in CloudFormation, so the profile is how they are declared.
    """
    for queue in model.queues.values():
        for kind in ("lambda", "worker"):
            pm = profile_for(queue, config.profiles, kind)
            if pm is None:
                continue
            targets = [
                c for c in queue.consumers if c.kind == kind or (kind == "lambda" and c.kind == "unknown")
            ]
            if not targets and kind == "worker":
                targets = [Consumer(id=f"workers ({pm.match})", kind="worker", location=pm.location)]
                queue.consumers.append(targets[0])
            for c in targets:
                for f in _PROFILE_FIELDS:
                    if getattr(c, f) is None and getattr(pm, f) is not None:
                        setattr(c, f, getattr(pm, f))
            if queue.arrival_rate is None and pm.arrival_rate is not None:
                queue.arrival_rate = pm.arrival_rate
