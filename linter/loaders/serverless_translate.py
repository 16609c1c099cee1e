"""A Serverless Framework service -> the CloudFormation template the Framework would deploy.

- each function becomes ``AWS::Lambda::Function`` ``<Name>LambdaFunction`` (``capacityProvider``: a
  ``CapacityProviderConfig``, Lambda Managed Instances) with ``Timeout`` =
  ``functions.<name>.timeout``, else ``provider.timeout``, else 6 s (Serverless Framework docs, "Functions":
  "The default is 6 seconds") and ``ReservedConcurrentExecutions`` = ``reservedConcurrency``;
- each ``events[].sqs`` (an ARN string, or ``{arn, batchSize, maximumBatchingWindow, functionResponseType,
  maximumConcurrency, enabled}``) becomes ``AWS::Lambda::EventSourceMapping``
  ``<Name>EventSourceMappingSQS<Queue>`` with BatchSize 10 unless written and Enabled true (docs, "SQS
  Queues"; lib/plugins/aws/package/compile/events/sqs.js), its ``arn`` a string, ``Fn::GetAtt``, ``Ref``,
  ``Fn::Join`` or ``Fn::ImportValue`` as written;
- ``resources.Resources`` (a mapping, ``${file(...)}``, or a list of fragments merged in order) is kept: the
  queues are the user's CloudFormation; a resource with a generated logical id is merged over the generated
  one, as Serverless does (also one written without a ``Type``: the Framework's sqs event has no key for
  provisioned mode, checked 2026-12-02 in lib/plugins/aws/package/compile/events/sqs.js, so
  ``<Name>EventSourceMappingSQS<Queue>: {Properties: {ProvisionedPollerConfig: ...}}`` is how a service sets it);
- Lift ``constructs`` of ``type: queue`` are added by :mod:`.serverless_lift`.

A value that cannot be resolved (:mod:`.serverless_vars`) becomes a CloudFormation parameter without a value, so
the rules treat it as "not known here" and stay quiet. Every value of the template remembers where it was
written, for :mod:`.serverless_relocate`.
"""

from __future__ import annotations

import os
import re

from visguard import facts
from visguard.errors import VisguardError

from . import serverless_lift as lift
from .serverless_vars import MISSING, Node, Partial, Unresolved, Values, VarResolver, addr_of

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

_QUEUE_WORDS = re.compile(r"QUEUE|SQS", re.I)  # a variable's name that says it may hold a queue's URL
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
class Translator:
    """One service -> the CloudFormation template it deploys, each value a :class:`~.serverless_vars.Node` that
    remembers where in serverless.yml (or an included file) it was written and its serverless address."""

    def __init__(self, doc: dict, file: str, values: Values, read):
        self.file = file
        self.read = read  # the loader's one reader (serverless._read_text)
        self.vars = VarResolver(
            doc,
            file=file,
            service_dir=os.path.dirname(os.path.abspath(file)) or ".",
            read=read,
            values=values,
            construct_ref=lambda cid, attr: lift.construct_ref(self, cid, attr),
        )
        self.resources = Node(file=file, addr="resources.Resources")
        self.resources.line, self.resources.col = 1, 1
        # logical id -> path of a user resource written without a Type: an override of a resource the Framework
        # generates (``<Fn>EventSourceMappingSQS<Queue>: {Properties: {ProvisionedPollerConfig: ...}}``), read
        # in full only when it overrides a generated resource of a type the CloudFormation loader reads
        self.typeless: dict[str, list] = {}
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
        """(file, line, column) of ``key`` in ``container`` (else of the container); a key merged in from another
        file (a serverless.ts spread) is located in its own file."""
        file = getattr(container, "key_file", {}).get(key) or self.vars.file_of(container)
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
        if lid in self.typeless and rtype in READ_TYPES:
            user = self.vars.get(self.typeless[lid])  # its values, now that it overrides a resource read
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
                if not isinstance(c, dict):  # read again, it resolved to something else (a variable's cycle)
                    continue
                self.mark(constructs, cid, "queue", f"constructs.{cid}")
                lift.add_queue(self, cid, c, ["constructs", cid])
        for name, (fn, path) in list(self.function_nodes.items()):
            self.function(name, fn, path)
        params: dict = {}
        _unresolved_to_cfn(self.resources, params)
        template: dict = {"Resources": self.resources}
        for key in ("Conditions", "Mappings", "Outputs"):
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
            for section in (
                "Conditions",
                "Mappings",
                "Parameters",
                "Outputs",
            ):  # Outputs: what other stacks name
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
                    if "Type" not in r:
                        self.typeless[str(lid)] = rpath
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
        if "capacityProvider" in fn:  # Lambda Managed Instances (Framework v4 guide "Managed Instances")
            cp = self.vars.get([*path, "capacityProvider"])
            if cp is not None and cp is not False:
                where, addr = self.at(fn, "capacityProvider"), f"{faddr}.capacityProvider"
                node = self.gen(addr, where)
                self.put(node, "Arn", cp if isinstance(cp, str) else str(cp), where, addr)
                self.put(props, "CapacityProviderConfig", node, where, addr)
        self.environment(name, fn, path, props, faddr, where_f)
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
                elif isinstance(ev, dict) and "snsSqs" in ev and self.uses_plugin(facts.SNS_SQS_PLUGIN):
                    where_e = (self.vars.file_of(ev), getattr(ev, "line", None), getattr(ev, "col", None))
                    spec = self.vars.get([*path, "events", i, "snsSqs"])
                    sub = self.sns_sqs(name, spec, f"{faddr}.events[{i}]", where_e)
                    if sub is not None:
                        subs.append(sub)
        elif events not in (MISSING, None) and not isinstance(events, (Unresolved, Partial)):
            raise self.vars.error("events must be a list", [*path, "events"])
        subs += self.extra_events.get(name, [])
        for sqs, eaddr, where_e in subs:
            self.mapping(name, fid, sqs, eaddr, where_e)

    def uses_plugin(self, plugin: str) -> bool:
        """Whether ``plugins`` (a list, or ``{modules: [...]}``) names ``plugin``."""
        v = self.vars.get(["plugins"])
        if isinstance(v, dict):
            v = v.get("modules")
        return isinstance(v, list) and plugin in v

    def sns_sqs(self, fname: str, spec: Any, eaddr: str, where_e: tuple):
        """An ``snsSqs`` event of serverless-sns-sqs-lambda (facts.SNS_SQS_PLUGIN): the queue ``<name>Queue`` and
        its dead-letter queue ``<name>DeadLetterQueue`` (named ``<prefix><name>Queue``, the prefix
        ``<service>-<stage>-<Function>`` by default), the queue's redrive (``maxRetryCount`` receives, 5 by
        default) unless ``deadLetterQueueEnabled: false``, ``visibilityTimeout``, ``fifo``, the overrides
        ``mainQueueOverride`` / ``deadLetterQueueOverride`` merged in; returned as the SQS event that maps the
        function to the queue (``batchSize``, ``maximumBatchingWindowInSeconds``, ``enabled``). Each value located
        at its key of the event; the queues at the event. None for an event without a name."""
        if not isinstance(spec, dict) or not isinstance(spec.get("name"), str) or not spec["name"]:
            return None
        d = facts.SNS_SQS_PLUGIN_DEFAULTS

        def w(key: str) -> tuple:
            return self.at(spec, key) if key in spec and isinstance(spec, Node) else where_e

        name, fifo = spec["name"], spec.get("fifo") is True
        prefix = spec.get("prefix")
        if not isinstance(prefix, str):
            service, stage = self.service, self.vars.stage
            pascal = "".join(p[:1].upper() + p[1:] for p in re.split(r"[^0-9A-Za-z]+", fname) if p)
            prefix = (
                f"{service}-{stage}-{pascal}" if isinstance(service, str) and isinstance(stage, str) else ""
            )
        suffix = ".fifo" if fifo else ""
        qprops = self.gen(f"{eaddr}.snsSqs", where_e)
        self.put(qprops, "QueueName", f"{prefix}{name}Queue{suffix}", where_e, f"{eaddr}.snsSqs.name")
        if fifo:
            self.put(qprops, "FifoQueue", True, w("fifo"), f"{eaddr}.snsSqs.fifo")
        if "visibilityTimeout" in spec:
            self.put(qprops, "VisibilityTimeout", spec["visibilityTimeout"], w("visibilityTimeout"),
                     f"{eaddr}.snsSqs.visibilityTimeout")  # fmt: skip
        if spec.get("deadLetterQueueEnabled", d["deadLetterQueueEnabled"]) is not False:
            dprops = self.gen(f"{eaddr}.snsSqs", where_e)
            self.put(
                dprops, "QueueName", f"{prefix}{name}DeadLetterQueue{suffix}", where_e, f"{eaddr}.snsSqs.name"
            )
            if fifo:
                self.put(dprops, "FifoQueue", True, w("fifo"), f"{eaddr}.snsSqs.fifo")
            if "deadLetterMessageRetentionPeriodSeconds" in spec:
                self.put(dprops, "MessageRetentionPeriod", spec["deadLetterMessageRetentionPeriodSeconds"],
                         w("deadLetterMessageRetentionPeriodSeconds"),
                         f"{eaddr}.snsSqs.deadLetterMessageRetentionPeriodSeconds")  # fmt: skip
            dprops = (
                _merge(dprops, spec.get("deadLetterQueueOverride"))
                if isinstance(spec.get("deadLetterQueueOverride"), dict)
                else dprops
            )
            self.add_resource(f"{name}DeadLetterQueue", "AWS::SQS::Queue", dprops, where_e, f"{eaddr}.snsSqs")
            redrive = self.gen(f"{eaddr}.snsSqs.maxRetryCount", where_e)
            self.put(redrive, "deadLetterTargetArn", {"Fn::GetAtt": [f"{name}DeadLetterQueue", "Arn"]}, where_e,
                     f"{eaddr}.snsSqs")  # fmt: skip
            self.put(redrive, "maxReceiveCount", spec.get("maxRetryCount", d["maxRetryCount"]), w("maxRetryCount"),
                     f"{eaddr}.snsSqs.maxRetryCount")  # fmt: skip
            self.put(qprops, "RedrivePolicy", redrive, w("maxRetryCount"), f"{eaddr}.snsSqs.maxRetryCount")
        if isinstance(spec.get("mainQueueOverride"), dict):
            qprops = _merge(qprops, spec["mainQueueOverride"])
        self.add_resource(f"{name}Queue", "AWS::SQS::Queue", qprops, where_e, f"{eaddr}.snsSqs")
        sqs = self.gen(f"{eaddr}.snsSqs", where_e)
        self.put(sqs, "arn", {"Fn::GetAtt": [f"{name}Queue", "Arn"]}, where_e, f"{eaddr}.snsSqs")
        for key, as_key in (("batchSize", "batchSize"), ("maximumBatchingWindowInSeconds", "maximumBatchingWindow"),
                            ("enabled", "enabled")):  # fmt: skip
            if key in spec:
                self.put(sqs, as_key, spec[key], w(key), f"{eaddr}.snsSqs.{key}")
        return sqs, eaddr, where_e

    def environment(self, name: str, fn: dict, path: list, props: Node, faddr: str, where_f: tuple) -> None:
        """``provider.environment`` merged under ``functions.<name>.environment`` (the function's entries win, as
        the Framework merges them), ``Handler``, and ``Code``: where the function's package is, for the code that
        reads the environment (issue 35): ``package.artifact`` (the function's, else the provider's), else the
        handler's source file (its package is the nearest manifest above it: ``lambda_code``). A variable whose
        value has ``${...}`` is resolved only when its name says queue (``QUEUE``, ``SQS``): a password from SSM is
        neither resolved nor reported; a value the resolver cannot give stays unresolved."""
        prov = self.vars.get(["provider"], shallow=True)
        sources = []
        if isinstance(prov, dict) and "environment" in prov:
            sources.append(["provider", "environment"])
        if "environment" in fn:
            sources.append([*path, "environment"])
        variables = self.gen(f"{faddr}.environment", where_f)
        for epath in sources:
            env = self.vars.get(epath, shallow=True)
            if not isinstance(env, dict):
                continue
            for key in list(env)[:1000]:
                raw = env[key]  # a variable is resolved only when it may name a queue: a secret is never read
                plain = (isinstance(raw, str) and "${" not in raw) or (
                    isinstance(raw, dict) and len(raw) == 1 and next(iter(raw)) in ("Ref", "Fn::GetAtt")
                )
                if not plain and not (isinstance(raw, (str, dict)) and _QUEUE_WORDS.search(str(key))):
                    continue
                self.put(variables, str(key), self.vars.get([*epath, key]), self.at(env, key),
                         f"{addr_of(epath)}.{key}")  # fmt: skip
        if not variables:
            return
        node = self.gen(f"{faddr}.environment", where_f)
        self.put(node, "Variables", variables, where_f, f"{faddr}.environment")
        self.put(props, "Environment", node, where_f, f"{faddr}.environment")
        handler = self.vars.get([*path, "handler"]) if "handler" in fn else None
        if isinstance(handler, str):
            self.put(props, "Handler", handler, self.at(fn, "handler"), f"{faddr}.handler")
        artifact = None
        for base in ([*path, "package"], ["package"]):
            pkg = self.vars.get(base, shallow=True)
            if isinstance(pkg, dict) and "artifact" in pkg:
                artifact = self.vars.get([*base, "artifact"])
                break
        if artifact is None and isinstance(handler, str):
            from .lambda_code import handler_file

            found = handler_file(handler, os.path.dirname(os.path.abspath(self.file)))
            artifact = found if found is not None else None
        if isinstance(artifact, str):
            self.put(props, "Code", artifact, self.at(fn, "handler"), f"{faddr}.handler")

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
        offline = spec.get("queueName")  # serverless-offline-sqs: the emulator's queue, by name
        if isinstance(offline, str) and offline:
            res = self.resources.get(mid)
            meta = self.gen(f"{eaddr}.sqs", w("queueName"))
            self.put(meta, "queue", offline, w("queueName"), a("queueName"))
            tag = self.gen(f"{eaddr}.sqs", w("queueName"))
            self.put(tag, "visguard", meta, w("queueName"), a("queueName"))
            if isinstance(res, dict):
                self.put(res, "Metadata", tag, w("queueName"), a("queueName"))


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
