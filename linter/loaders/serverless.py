"""Serverless Framework services (serverless.yml / serverless.yaml / serverless.json) -> the shared Model.

The service is translated into the CloudFormation the Serverless Framework would deploy, and that template is
read by the CloudFormation loader (one implementation of queues, redrive policies and mappings):

- each function becomes ``AWS::Lambda::Function`` ``<Name>LambdaFunction`` with ``Timeout`` =
  ``functions.<name>.timeout``, else ``provider.timeout``, else 6 s (Serverless Framework docs, "Functions":
  "The default is 6 seconds") and ``ReservedConcurrentExecutions`` = ``reservedConcurrency``;
- each ``events[].sqs`` (an ARN string, or ``{arn, batchSize, maximumBatchingWindow, functionResponseType,
  maximumConcurrency, enabled}``) becomes ``AWS::Lambda::EventSourceMapping``
  ``<Name>EventSourceMappingSQS<Queue>`` with BatchSize 10 unless written and Enabled true (docs, "SQS
  Queues"; lib/plugins/aws/package/compile/events/sqs.js), its ``arn`` a string, ``Fn::GetAtt``, ``Ref``,
  ``Fn::Join`` or ``Fn::ImportValue`` as written;
- ``resources.Resources`` (a mapping, ``${file(...)}``, or a list of fragments merged in order) is kept: the
  queues are the user's CloudFormation; a resource with a generated logical id is merged over the generated
  one, as Serverless does;
- Lift ``constructs`` of ``type: queue`` are added by :mod:`.serverless_lift`.

Variables are resolved by :mod:`.serverless_vars` (what each source gives, and why ``${env:...}`` never reads
the real environment). A value that cannot be resolved becomes a CloudFormation parameter without a value, so
the rules treat it as "not known here" and stay quiet; it is recorded once in ``model.notes``.

Findings name serverless addresses: queues by their logical id (``OrdersQueue``) or Lift construct
(``constructs.jobs``, its DLQ ``constructs.jobs.dlq``), consumers as ``functions.worker.events[0]`` (Lift:
``constructs.jobs.worker``), functions by name; every location is the serverless.yml (or included file)
line and column of the value to change, with its address (``functions.worker.timeout``). Fixes are worded in
serverless.yml terms by ``visguard.linter.vocabulary``.

Suppressions: ``visguard.yaml`` by queue id, ``Metadata: {visguard: {suppress: ...}}`` on a resource, and a
comment ``# visguard:ignore VG011 reason`` on (or on the line above) a function, one of its events, a
resource or a construct.

Loader registry interface: :func:`claim_dir` (never: a folder is searched), :func:`claim_file` (a service file;
also a file its service includes, so a resources fragment is linted with its service and not as a broken
template), :func:`load`. Every file is read through :func:`_read_text`.
"""

from __future__ import annotations

import os
import re

from visguard.errors import VisguardError, too_deep
from visguard.linter.model import Consumer, Location, Model, Queue, Suppression

from . import safe_io
from . import serverless_lift as lift
from .decode import MAX_BYTES, loads
from .serverless_vars import MISSING, Node, Partial, Unresolved, Values, VarResolver, addr_of

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

SERVICE_FILES = ("serverless.yml", "serverless.yaml", "serverless.json")
DEFAULT_FUNCTION_TIMEOUT = 6  # Serverless Framework docs, "AWS - Functions": timeout default 6 seconds
DEFAULT_SQS_BATCH_SIZE = 10  # Serverless Framework docs, "SQS Queues": "The default batchSize is 10"
# resource types the CloudFormation loader reads; other user resources are kept as their Type only, so a
# variable in an unrelated resource (a database password from SSM) is neither resolved nor reported
READ_TYPES = (
    "AWS::SQS::Queue",
    "AWS::Lambda::Function",
    "AWS::Lambda::EventSourceMapping",
    "AWS::Lambda::Alias",
    "AWS::Lambda::Version",
)
_IGNORE = re.compile(r"#\s*visguard:ignore\s+([A-Za-z0-9*,]+)(?:\s+(.*?))?\s*$")
_HEAD_KEY = {
    key: re.compile(rb'(?m)^["\']?' + key.encode() + rb'["\']?\s*:|"' + key.encode() + rb'"\s*:')
    for key in ("service", "provider")
}


# ------------------------------------------------------------------------------------------ I/O (one edge)
def _read_text(path: str) -> str:
    """Every file this loader reads goes through the linter's one safe reader: regular files only, at most
    MAX_BYTES, UTF-8."""
    return safe_io.read_text(path, max_bytes=MAX_BYTES)


# ------------------------------------------------------------------------------------------ registry hooks
def claim_dir(path: str) -> bool:
    """A folder is never one input: it is searched, and its serverless.yml claimed as a file."""
    return False


def claim_file(path: str, head: bytes) -> bool:
    """serverless.yml / .yaml / .json whose first bytes show a ``service`` and a ``provider`` key; also a file
    that a service in its folder or a parent folder includes with ``${file(...)}`` (a resources fragment is
    not a template of its own: it is linted with its service, never as a broken CloudFormation template)."""
    if os.path.basename(path) in SERVICE_FILES:
        ok = all(rx.search(head) for rx in _HEAD_KEY.values())
        if ok:
            _seen_services.add(os.path.realpath(path))
        return ok
    return included_by_a_service(path)


_INCLUDE = re.compile(r"\$\{file\(\s*['\"]?([^)'\"]+?)['\"]?\s*\)")
_include_cache: dict[str, tuple[str, ...]] = {}
# service files claimed in this process: a folder search meets a service before the folders below it, so a
# fragment's service above its own folder is read only when it is part of what was asked
_seen_services: set[str] = set()
INCLUDE_LEVELS = 4  # parent folders searched for the service that includes a file


def _include_patterns(service: str) -> tuple[str, ...]:
    """The files a service includes, as globs relative to its folder (a variable in the path is ``*``)."""
    if service not in _include_cache:
        try:
            text = _read_text(service)
        except VisguardError:
            text = ""
        pats = []
        for m in _INCLUDE.finditer(text):
            rel = re.sub(r"\$\{[^}]*\}?", "*", m.group(1).strip())
            pats.append(os.path.normpath(rel).replace(os.sep, "/"))
        _include_cache[service] = tuple(pats)
    return _include_cache[service]


def included_by_a_service(path: str) -> bool:
    """Whether the nearest service above ``path`` includes it. Reads that service file only when it is in the
    same folder as ``path`` or was claimed before (it is inside what was asked): never a read outside."""
    import fnmatch

    d = os.path.dirname(os.path.abspath(path))
    for level in range(INCLUDE_LEVELS + 1):
        for name in SERVICE_FILES:
            sf = os.path.join(d, name)
            if os.path.isfile(sf):
                if level and os.path.realpath(sf) not in _seen_services:
                    return False
                rel = os.path.relpath(os.path.abspath(path), d).replace(os.sep, "/")
                return any(fnmatch.fnmatchcase(rel, p) for p in _include_patterns(sf))
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return False


def service_file(path: str) -> str:
    if os.path.isdir(path):
        for name in SERVICE_FILES:
            if os.path.isfile(os.path.join(path, name)):
                return os.path.join(path, name)
        raise VisguardError("no serverless.yml, serverless.yaml or serverless.json here", file=path)
    return path


def values_from(options: Any) -> Values:
    """``--var NAME=VALUE`` (a CLI option, ``${opt:NAME}``), ``--var env:NAME=VALUE``, ``--var param:NAME=VALUE``
    and ``--var-file`` YAML/JSON mappings of the same keys (other var files, e.g. .tfvars, are Terraform's)."""
    out = Values()
    items: list[tuple[str, Any, str]] = []
    for vf in getattr(options, "var_files", None) or []:
        if not str(vf).endswith((".yml", ".yaml", ".json")):
            continue
        doc = loads(_read_text(vf), file=vf)
        if not isinstance(doc, dict):
            raise VisguardError("a var file must be a mapping of NAME: VALUE", file=vf)
        items += [(str(k), v, vf) for k, v in doc.items()]
    items += [(str(k), v, "--var") for k, v in (getattr(options, "variables", None) or {}).items()]
    for key, value, _ in items:
        source, sep, name = key.partition(":")
        if not sep:
            source, name = "opt", key
        target = {"opt": out.opt, "env": out.env, "param": out.param}.get(source)
        if target is None:
            raise VisguardError(f"--var {key}: use NAME, opt:NAME, env:NAME or param:NAME")
        target[name] = value
    return out


def load(path: str, options: Any = None) -> Model:
    """A serverless.yml (or the folder holding one) -> Model. Raises VisguardError on bad input."""
    file = service_file(os.fspath(path))
    if os.path.basename(file) not in SERVICE_FILES and included_by_a_service(file):
        return Model(source_file=file)  # a fragment of a service: linted when its serverless.yml is
    doc = loads(_read_text(file), file=file)
    if not isinstance(doc, dict) or "service" not in doc or "provider" not in doc:
        raise VisguardError("not a Serverless Framework service: no service and provider keys", file=file)
    try:
        t = _Translator(doc, file, values_from(options))
        template = t.template()
        from . import load_template

        try:
            model = load_template(
                template,
                file=file,
                parameters=getattr(options, "parameters", None) or None,
                source="serverless",
            )
        except VisguardError as exc:  # said about the translated template: say it in serverless.yml terms
            raise _serverless_error(exc, template, file) from None
        t.finish(model, template)
    except RecursionError:  # names the service file (the path linted may be its folder)
        raise too_deep(file) from None
    return model


# ------------------------------------------------------------------------------------------ naming
def _upper_first(s: str) -> str:
    return s[:1].upper() + s[1:]


def normalized_name(name: str) -> str:
    """The Serverless Framework's getNormalizedFunctionName: ``-`` -> Dash, ``_`` -> Underscore, upper first."""
    return _upper_first(name.replace("-", "Dash").replace("_", "Underscore"))


def function_logical_id(name: str) -> str:
    return f"{normalized_name(name)}LambdaFunction"


def mapping_logical_id(function: str, queue_name: str) -> str:
    alnum = re.sub(r"[^0-9A-Za-z]", "", queue_name)
    return f"{normalized_name(function)}EventSourceMappingSQS{_upper_first(alnum)}"


def _queue_name_of(arn: Any) -> str:
    """The queue part of an event's ARN, as the Serverless Framework derives the mapping's logical id."""
    if isinstance(arn, dict) and len(arn) == 1:
        ((k, v),) = arn.items()
        if k == "Fn::GetAtt":
            return str(v[0] if isinstance(v, list) and v else str(v).split(".")[0])
        if k == "Fn::ImportValue":
            return str(v)
        if k == "Fn::Join" and isinstance(v, list) and len(v) == 2 and isinstance(v[1], list) and v[1]:
            return str(v[1][-1])
        if k == "Ref":
            return str(v)
    return str(arn).split(":")[-1]


# ------------------------------------------------------------------------------------------ translation
class _Translator:
    def __init__(self, doc: dict, file: str, values: Values):
        self.file = file
        self.vars = VarResolver(
            doc,
            file=file,
            service_dir=os.path.dirname(os.path.abspath(file)) or ".",
            read=_read_text,
            values=values,
            construct_ref=lambda cid, attr: lift.construct_ref(self, cid, attr),
        )
        self.resources = Node(file=file, addr="resources.Resources")
        self.resources.line, self.resources.col = 1, 1
        # internal logical id -> serverless id (queues, mappings, functions)
        self.ids: dict[str, str] = {}
        self.function_nodes: dict[str, tuple[Any, list]] = {}  # function name -> (mapping, path)
        self.function_addr: dict[str, str] = {}
        self.extra_events: dict[str, list] = {}  # function name -> Lift subscriptions
        self.event_lines: dict[int, list[tuple[str, str]]] = {}  # line -> [(kind, id)] for comments
        self.constructs_node: Any = {}
        self.lift_ids: set[str] = set()
        self.sections: dict[str, Any] = {}

    # -- positions ------------------------------------------------------------------------------------------
    def at(self, container: Any, key: Any) -> tuple[str, int | None, int | None]:
        """(file, line, column) of ``key`` in ``container`` (else of the container)."""
        file = self.vars.file_of(container)
        kp = getattr(container, "key_pos", {})
        if key in kp:
            return file, *kp[key]
        return file, getattr(container, "line", None), getattr(container, "col", None)

    def gen(self, addr: str, where: tuple) -> Node:
        n = Node(file=where[0], addr=addr)
        n.line, n.col = where[1], where[2]
        return n

    def put(self, node: Node, key: str, value: Any, where: tuple, addr: str) -> None:
        node[key] = value
        if where[1] is not None:
            node.key_pos[key] = (where[1], where[2])
        node.key_file[key] = where[0]
        node.key_addr[key] = addr

    def add_resource(self, lid: str, rtype: str, props: Node, where: tuple, addr: str) -> None:
        res = self.gen(addr, where)
        self.put(res, "Type", rtype, where, addr)
        self.put(res, "Properties", props, where, addr)
        user = self.resources.get(lid)
        if isinstance(user, dict):  # resources.Resources overrides a generated resource (lodash merge)
            res = _merge(res, user)
            self.put(self.resources, lid, res, self.at(self.resources, lid), self.resources.key_addr[lid])
            return
        self.put(self.resources, lid, res, where, addr)

    # -- the service ----------------------------------------------------------------------------------------
    @property
    def stack_name(self) -> Any:
        v = self.vars.get(["provider", "stackName"])
        if isinstance(v, str):
            return v
        service = self.service
        stage = self.vars.stage
        if isinstance(service, str) and isinstance(stage, str):
            return f"{service}-{stage}"
        return Partial((service, "-", stage))

    @property
    def service(self) -> Any:
        v = self.vars.get(["service"])
        if isinstance(v, dict):  # Serverless v1: service: {name: ...}
            v = v.get("name", "service")
        return v

    def template(self) -> dict:
        self.user_resources()
        fns = self.vars.get(["functions"], shallow=True)
        # a mapping, or a list of mappings ("functions: [${file(./foo-functions.yml)}, ...]", docs "Functions")
        groups = (
            [(fns, ["functions"])]
            if isinstance(fns, dict)
            else [(self.vars.get(["functions", i], shallow=True), ["functions", i]) for i in range(len(fns))]
            if isinstance(fns, list)
            else []
        )
        if fns not in (MISSING, None) and not isinstance(fns, (dict, list)):
            raise self.vars.error(
                "functions must be a mapping of function names to definitions", ["functions"]
            )
        for group, gpath in groups:
            if not isinstance(group, dict):
                raise self.vars.error("functions must be a mapping of function names to definitions", gpath)
            for name in group:
                fn = self.vars.get([*gpath, name], shallow=True)
                if isinstance(fn, dict):
                    self.function_nodes[str(name)] = (fn, [*gpath, name])
                    self.function_addr[str(name)] = f"functions.{name}"
                    self.mark(group, name, "function", str(name))
        constructs = self.vars.get(["constructs"], shallow=True)
        if isinstance(constructs, dict):
            self.constructs_node = constructs
            for cid, c in constructs.items():
                c = self.vars.get(["constructs", cid], shallow=True)
                if isinstance(c, dict) and self.vars.get(["constructs", cid, "type"]) == "queue":
                    self.lift_ids.add(str(cid))
            for cid in sorted(self.lift_ids):
                c = self.vars.get(["constructs", cid], shallow=True)
                self.mark(constructs, cid, "queue", f"constructs.{cid}")
                lift.add_queue(self, cid, c, ["constructs", cid])
        for name, (fn, path) in list(self.function_nodes.items()):
            self.function(name, fn, path)
        params: dict = {}
        _unresolved_to_cfn(self.resources, params)
        template: dict = {"Resources": self.resources}
        for key in ("Conditions", "Mappings"):
            if key in self.sections:
                template[key] = _unresolved_to_cfn(self.sections[key], params)
        user_params = self.sections.get("Parameters")
        template["Parameters"] = {**(user_params if isinstance(user_params, dict) else {}), **params}
        return template

    def mark(self, container: Any, key: Any, kind: str, ident: str) -> None:
        """Remember the line of a function, event, resource or construct for ``# visguard:ignore`` comments."""
        file, line, _ = self.at(container, key)
        if file == self.file and line is not None:
            self.event_lines.setdefault(line, []).append((kind, ident))

    def user_resources(self) -> None:
        res = self.vars.get(["resources"], shallow=True)
        if res in (MISSING, None):
            return
        fragments = (
            [(res, ["resources"])]
            if isinstance(res, dict)
            else [(self.vars.get(["resources", i], shallow=True), ["resources", i]) for i in range(len(res))]
            if isinstance(res, list)
            else None
        )
        if fragments is None:
            raise self.vars.error("resources must be a mapping (or a list of mappings)", ["resources"])
        for frag, path in fragments:
            if not isinstance(frag, dict):
                continue
            for section in ("Conditions", "Mappings", "Parameters"):
                if section in frag:
                    v = self.vars.get([*path, section])
                    if isinstance(v, dict):
                        self.sections.setdefault(section, {}).update(v)
            if "Resources" not in frag:
                continue
            rs = self.vars.get([*path, "Resources"], shallow=True)
            if not isinstance(rs, dict):
                if rs is None or isinstance(rs, (Unresolved, Partial)):
                    continue
                raise self.vars.error("Resources must be a mapping", [*path, "Resources"])
            for lid, r in rs.items():
                rpath = [*path, "Resources", lid]
                r = self.vars.get(rpath, shallow=True)
                rtype = self.vars.get([*rpath, "Type"]) if isinstance(r, dict) and "Type" in r else None
                if rtype in READ_TYPES:
                    node = self.vars.get(rpath)
                elif isinstance(r, dict):
                    node = self.gen(addr_of(rpath), self.at(rs, lid))
                    if isinstance(rtype, str):
                        self.put(node, "Type", rtype, self.at(r, "Type"), addr_of([*rpath, "Type"]))
                else:
                    node = r
                self.put(self.resources, str(lid), node, self.at(rs, lid), addr_of(rpath))
                if rtype == "AWS::SQS::Queue":
                    self.mark(rs, lid, "queue", str(lid))

    def function(self, name: str, fn: dict, path: list) -> None:
        faddr = self.function_addr[name]
        parent = self.vars.get(path[:-1], shallow=True)
        where_f = self.at(parent, path[-1]) if isinstance(parent, dict) else self.at(fn, None)
        props = self.gen(faddr, where_f)
        if "timeout" in fn:
            t, w, a = self.vars.get([*path, "timeout"]), self.at(fn, "timeout"), f"{faddr}.timeout"
        else:
            prov = self.vars.get(["provider"], shallow=True)
            if isinstance(prov, dict) and "timeout" in prov:
                t, w, a = self.vars.get(["provider", "timeout"]), self.at(prov, "timeout"), "provider.timeout"
            else:
                t, w, a = DEFAULT_FUNCTION_TIMEOUT, where_f, faddr
        self.put(props, "Timeout", t, w, a)
        fname = self.vars.get([*path, "name"]) if "name" in fn else MISSING
        if fname is MISSING or fname is None:
            service, stage = self.service, self.vars.stage
            fname = (
                f"{service}-{stage}-{name}"
                if isinstance(service, str) and isinstance(stage, str)
                else Partial((service, "-", stage, f"-{name}"))
            )
        self.put(props, "FunctionName", fname, self.at(fn, "name") if "name" in fn else where_f, faddr)
        if "reservedConcurrency" in fn:
            rc = self.vars.get([*path, "reservedConcurrency"])
            self.put(props, "ReservedConcurrentExecutions", rc, self.at(fn, "reservedConcurrency"),
                     f"{faddr}.reservedConcurrency")  # fmt: skip
        fid = function_logical_id(name)
        self.ids[fid] = name
        self.add_resource(fid, "AWS::Lambda::Function", props, where_f, faddr)

        events = self.vars.get([*path, "events"], shallow=True) if "events" in fn else MISSING
        subs: list[tuple[Any, str, tuple]] = []
        if isinstance(events, list):
            for i in range(len(events)):
                ev = self.vars.get([*path, "events", i], shallow=True)
                if isinstance(ev, dict) and "sqs" in ev:
                    sqs = self.vars.get([*path, "events", i, "sqs"])
                    where_e = (self.vars.file_of(ev), getattr(ev, "line", None), getattr(ev, "col", None))
                    subs.append((sqs, f"{faddr}.events[{i}]", where_e))
                    if where_e[0] == self.file and where_e[1] is not None:
                        self.event_lines.setdefault(where_e[1], []).append(("event", f"{faddr}.events[{i}]"))
        elif events not in (MISSING, None) and not isinstance(events, (Unresolved, Partial)):
            raise self.vars.error("events must be a list", [*path, "events"])
        subs += self.extra_events.get(name, [])
        for sqs, eaddr, where_e in subs:
            self.mapping(name, fid, sqs, eaddr, where_e)

    def mapping(self, fname: str, fid: str, sqs: Any, eaddr: str, where_e: tuple) -> None:
        props = self.gen(f"{eaddr}.sqs", where_e)
        spec = sqs if isinstance(sqs, dict) and not _is_intrinsic(sqs) else {"arn": sqs}
        if "arn" not in spec:
            raise VisguardError(f"{eaddr}.sqs: needs an arn", file=where_e[0], place=str(where_e[1]))

        def w(key: str) -> tuple:
            return self.at(spec, key) if key in spec and isinstance(spec, Node) else where_e

        def a(key: str) -> str:
            if key not in spec:
                return f"{eaddr}.sqs"
            if isinstance(spec, Node):
                return spec.key_addr.get(key) or (f"{spec.addr}.{key}" if spec.addr else f"{eaddr}.sqs.{key}")
            return f"{eaddr}.sqs.{key}"

        arn = spec["arn"]
        self.put(props, "EventSourceArn", arn, w("arn"), a("arn"))
        self.put(props, "FunctionName", {"Ref": fid}, where_e, eaddr)
        batch = spec.get("batchSize")
        self.put(
            props,
            "BatchSize",
            DEFAULT_SQS_BATCH_SIZE if batch in (None, 0) else batch,
            w("batchSize"),
            a("batchSize"),
        )
        if spec.get("maximumBatchingWindow") is not None:
            self.put(props, "MaximumBatchingWindowInSeconds", spec["maximumBatchingWindow"],
                     w("maximumBatchingWindow"), a("maximumBatchingWindow"))  # fmt: skip
        if spec.get("functionResponseType") is not None:
            self.put(props, "FunctionResponseTypes", [spec["functionResponseType"]],
                     w("functionResponseType"), a("functionResponseType"))  # fmt: skip
        if spec.get("maximumConcurrency"):
            sc = self.gen(a("maximumConcurrency"), w("maximumConcurrency"))
            self.put(sc, "MaximumConcurrency", spec["maximumConcurrency"], w("maximumConcurrency"),
                     a("maximumConcurrency"))  # fmt: skip
            self.put(props, "ScalingConfig", sc, w("maximumConcurrency"), a("maximumConcurrency"))
        if "enabled" in spec:
            self.put(props, "Enabled", spec["enabled"], w("enabled"), a("enabled"))
        mid = mapping_logical_id(fname, _queue_name_of(arn))
        self.ids[mid] = eaddr
        self.add_resource(mid, "AWS::Lambda::EventSourceMapping", props, where_e, eaddr)

    # -- after the CloudFormation loader ---------------------------------------------------------------------
    def finish(self, model: Model, template: dict) -> None:
        """Serverless ids and addresses, locations in serverless.yml, comment suppressions, notes."""
        rename = self.ids

        def loc(location: Location | None) -> Location | None:
            return _relocate(location, template, self.file) if location is not None else None

        queues: dict[str, Queue] = {}
        for q in model.queues.values():
            q.id = rename.get(q.id, q.id)
            q.location = loc(q.location)
            q.locations = {k: loc(v) for k, v in q.locations.items()}
            if q.redrive is not None:
                q.redrive.target = (
                    rename.get(q.redrive.target, q.redrive.target) if q.redrive.target else None
                )
                q.redrive.location = loc(q.redrive.location)
            if q.redrive_allow and isinstance(q.redrive_allow.get("sourceQueueArns"), list):
                q.redrive_allow["sourceQueueArns"] = [
                    rename.get(s, s) for s in q.redrive_allow["sourceQueueArns"]
                ]
            q.suppressions = [
                s.replace(
                    location=loc(s.location),
                    consumer=rename.get(s.consumer, s.consumer) if s.consumer else None,
                )
                for s in q.suppressions
            ]
            for c in q.consumers:
                _rename_consumer(c, rename, loc)
            queues[q.id] = q
        model.queues = queues
        self.comment_suppressions(model)
        model.notes = sorted(
            self.vars.notes.values(), key=lambda n: (n.location.file, n.location.line or 0, n.location.path)
        )

    def comment_suppressions(self, model: Model) -> None:
        """``# visguard:ignore VG011 reason`` on the line of a function/event/resource/construct key, or on its
        own line just above it."""
        try:
            lines = _read_text(self.file).splitlines()
        except VisguardError:
            return
        for i, text in enumerate(lines, start=1):
            if "visguard:ignore" not in text:
                continue
            m = _IGNORE.search(text)
            if not m:
                continue
            target = i
            if text.lstrip().startswith("#"):
                target = next(
                    (
                        j
                        for j in range(i + 1, len(lines) + 1)
                        if lines[j - 1].strip() and not lines[j - 1].lstrip().startswith("#")
                    ),
                    i,
                )
            where = Location(self.file, line=i, column=text.index("#") + 1, path="comment")
            for kind, ident in self.event_lines.get(target, []):
                for rule in filter(None, m.group(1).split(",")):
                    s = Suppression(rule.strip().upper() if rule != "*" else "*", m.group(2), where)
                    _apply_suppression(model, kind, ident, s)


def _apply_suppression(model: Model, kind: str, ident: str, s: Suppression) -> None:
    for q in model.queues.values():
        if kind == "queue":
            if q.id == ident:
                q.suppressions.append(s)
            continue
        for c in q.consumers:
            if (kind == "function" and c.function_id == ident) or (kind == "event" and c.id == ident):
                q.suppressions.append(s.replace(consumer=c.id))


def _rename_consumer(c: Consumer, rename: dict, loc) -> None:
    c.id = rename.get(c.id, c.id)
    if c.function_id:
        c.function_id = rename.get(c.function_id, c.function_id)
    c.location = loc(c.location)
    c.locations = {k: loc(v) for k, v in c.locations.items()}
    if c.note:
        for old, new in rename.items():
            c.note = c.note.replace(f"function {old} ", f"function {new} ")


def _relocate(location: Location, template: dict, main_file: str) -> Location:
    """A location in the translated template (``Resources/X/Properties/Timeout``) -> the file, line, column
    and serverless address where that value was written."""
    if not location.path:
        return location
    node: Any = template
    best: tuple = (location.file, location.line, location.column, None)
    addr: str | None = None
    for raw in location.path.split("/"):
        key: Any = raw
        if isinstance(node, list):
            if not raw.isdigit() or int(raw) >= len(node):
                break
            node = node[int(raw)]
            addr = f"{addr}[{raw}]" if addr else addr
            if isinstance(node, Node):
                addr = node.addr or addr
                if node.line is not None:
                    best = (node.file or best[0], node.line, node.col, addr)
            continue
        if not isinstance(node, dict) or key not in node:
            break
        if isinstance(node, Node):
            addr = node.key_addr.get(key) or (f"{node.addr}.{key}" if node.addr else addr)
            pos = node.key_pos.get(key)
            if pos is not None:
                best = (node.key_file.get(key) or node.file or main_file, pos[0], pos[1], addr)
        node = node[key]
    file, line, col, where = best
    return Location(file or main_file, line=line, column=col, path=where or location.path)


def _serverless_error(exc: VisguardError, template: dict, file: str) -> VisguardError:
    """``Resources/XLambdaFunction/Properties/Timeout: expected a number`` -> ``functions.x.timeout: ...`` at the
    file and line where it was written."""
    where, sep, what = exc.detail.partition(": ")
    if not sep or not where.startswith("Resources/"):
        return exc
    loc = _relocate(Location(file, path=where), template, file)
    path = loc.path if loc.path and "/" not in loc.path else where
    return VisguardError(f"{path}: {what}", file=loc.file, place=str(loc.line) if loc.line else exc.place)


def _is_intrinsic(v: Any) -> bool:
    return (
        isinstance(v, dict)
        and len(v) == 1
        and isinstance(next(iter(v)), str)
        and (next(iter(v)) == "Ref" or next(iter(v)).startswith("Fn::"))
    )


def _merge(base: Any, over: Any) -> Any:
    """lodash ``_.merge``: mappings merged key by key, anything else replaced."""
    if isinstance(base, dict) and isinstance(over, dict) and not _is_intrinsic(over):
        out = Node(file=getattr(base, "file", None), addr=getattr(base, "addr", None))
        out.update(base)
        for attr in ("key_pos", "key_file", "key_addr"):
            getattr(out, attr).update(getattr(base, attr, {}))
        out.line, out.col = getattr(base, "line", None), getattr(base, "col", None)
        for k, v in over.items():
            out[k] = _merge(base.get(k), v) if k in base else v
            if k in getattr(over, "key_pos", {}):
                out.key_pos[k] = over.key_pos[k]
                out.key_file[k] = getattr(over, "file", None) or out.file
                out.key_addr[k] = f"{over.addr}.{k}" if getattr(over, "addr", None) else out.key_addr.get(k)
        return out
    return over


def _param_name(u: Unresolved) -> str:
    t = u.text
    return t[2:-1] if t.startswith("${") and t.endswith("}") else t


def _unresolved_to_cfn(node: Any, params: dict) -> Any:
    """Unresolved values -> ``Ref`` to a parameter without a value (CloudFormation's "not known here");
    partly resolved strings -> ``Fn::Join``. Mutates Node mappings in place; returns the new value."""
    if isinstance(node, Unresolved):
        name = _param_name(node)
        params.setdefault(name, {"Type": "String", "Description": node.why})
        return {"Ref": name}
    if isinstance(node, Partial):
        return {"Fn::Join": ["", [_unresolved_to_cfn(p, params) for p in node.parts]]}
    if isinstance(node, dict):
        for k in list(node):
            node[k] = _unresolved_to_cfn(node[k], params)
        return node
    if isinstance(node, list):
        for i, v in enumerate(node):
            node[i] = _unresolved_to_cfn(v, params)
        return node
    return node


# ------------------------------------------------------------------------------------------ registration
def _register() -> None:
    """Join the loader registry (visguard.linter.loaders.registry)."""
    from .registry import LoaderSpec, register

    register(
        LoaderSpec("serverless", claim_dir, claim_file, load, (".yml", ".yaml", ".json")),
        before="cloudformation",
    )


_register()
