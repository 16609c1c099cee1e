"""A CDK app's TypeScript/JavaScript or Python source -> the CloudFormation its constructs stand for -> the Model.

The construct model (:class:`_Synth`: what each construct makes, its defaults, how constructs refer to each other)
is written once; a language is only its :class:`Syntax` (how it writes construct calls, positional arguments,
properties, members, lists and imports): :class:`_TypeScript` here, ``cdk_python.PythonSyntax`` for a ``.py``
file whose first bytes import ``aws_cdk`` (imported only then). Property names reach the model in CDK's
camelCase (Python's ``visibility_timeout`` is read as ``visibilityTimeout``).

Real repositories rarely commit ``cdk.out``, so a CDK app is read from its source: the construct calls of one file,
read with the code engine (``engine.py`` and the JavaScript entries' scopes: literals, constants, names bound once,
object literals, constants of the project's other modules), are SYNTHESIZED into the CloudFormation resources they
stand for, and that template goes to the CloudFormation loader (``cfn.load_template``, ``source="cdk"``): every
rule, join (code <-> environment variable <-> queue) and message applies unchanged. Every position in the template
(:class:`~visguard.linter.loaders.decode.PosDict`) is the source line of the construct or of the property, so
every finding points into the ``.ts`` file. Logical ids are the construct ids (the second argument).

Read (``aws-cdk-lib`` v2, ``@aws-cdk/*`` v1 and v0 property names, SST v2 ``sst/constructs``):

- ``sqs.Queue``: visibilityTimeout, retentionPeriod, deliveryDelay, receiveMessageWaitTime (``Duration``; v0's
  ``...Sec`` numbers), fifo (or a queueName ending ``.fifo``), deadLetterQueue ``{queue, maxReceiveCount}``;
  ``sqs.CfnQueue`` (its props as CloudFormation's, camelCase).
- ``lambda.Function`` (and ``NodejsFunction``, ``PythonFunction``, ``GoFunction``, ``DockerImageFunction``):
  timeout (``Duration``; v0 a number), environment, reservedConcurrentExecutions; ``events: [new SqsEventSource]``.
- ``SqsEventSource(queue, {batchSize, maxBatchingWindow, reportBatchItemFailures, enabled, maxConcurrency})``
  given to ``fn.addEventSource(...)``; ``lambda.EventSourceMapping`` / ``fn.addEventSourceMapping(id, {...})``
  with ``eventSourceArn: queue.queueArn``; ``lambda.CfnEventSourceMapping``.
- ECS: ``FargateTaskDefinition`` / ``Ec2TaskDefinition`` / ``TaskDefinition``, their containers
  (``td.addContainer(id, {...})``, ``new ContainerDefinition(scope, id, {taskDefinition, ...})``) with
  ``environment`` (``queue.queueUrl`` -> ``{Ref}``, ``queueArn``/``queueName`` -> ``Fn::GetAtt``) and
  ``stopTimeout``; ``FargateService`` / ``Ec2Service`` (desiredCount); ``queue.grantConsumeMessages(td.taskRole)``
  (the task role may receive from the queue).
- ``ecs_patterns.QueueProcessingFargateService`` / ``QueueProcessingEc2Service``: the given ``queue`` as is, else
  the queue and dead-letter queue the pattern makes (``facts.CDK_QUEUE_PROCESSING_*``); its container gets
  ``QUEUE_NAME`` and the grant to receive: the service is the queue's consumer.
- EventBridge Pipes ``pipes.CfnPipe`` (source ``queue.queueArn``, sourceParameters.sqsQueueParameters).
- SST v2 ``Queue(stack, id, {consumer, cdk: {queue: {...} | existingQueue, ...}})``, ``queue.addConsumer``,
  SST ``Function`` (timeout in seconds or ``"30 seconds"``).

Defaults are CDK's where CDK sets them (:mod:`visguard.facts`, section "AWS CDK construct defaults"); where CDK leaves
a property unset, CloudFormation's and the service's apply (the CloudFormation loader's own defaults). Anything the
file does not say statically (a property from a parameter, a spread, a call) is left unset and one note (VG902)
names the expression: never a guess. Bounds: the engine's parse budget; at most :data:`MAX_CONSTRUCTS` constructs,
:data:`MAX_NODES` nodes walked and :data:`MAX_DEPTH` nestings and names followed per value.

A file is claimed only when its first bytes import ``aws-cdk-lib``, ``@aws-cdk/`` or ``sst/constructs``
(:func:`could_claim`), so a repository without CDK never parses a file for this reader. A ``.js`` file beside a
``.ts`` file of the same name is tsc's output of it: not read twice.
"""

from __future__ import annotations

import os
import re

from visguard import facts
from visguard.linter.model import Location, Model, Note

from .. import safe_io
from ..decode import PosDict

MARKERS = (b"aws-cdk-lib", b"@aws-cdk/", b"sst/constructs")
TS_ENDINGS = (".ts", ".mts", ".cts", ".tsx", ".js", ".mjs", ".cjs")
# a Python CDK app: ``import aws_cdk ...`` / ``from aws_cdk(.aws_sqs) import ...`` in its first bytes
PY_MARKERS = (b"import aws_cdk", b"from aws_cdk")
PY_ENDINGS = (".py",)
ENDINGS = TS_ENDINGS + PY_ENDINGS
MAX_CONSTRUCTS = 2_000  # constructs read per file (beyond: one note)
MAX_NODES = 400_000  # syntax nodes walked per file for construct calls
MAX_DEPTH = 16  # names, nestings and objects followed per value

# --------------------------------------------------------------------------------------------- the claim


def could_claim(path: str, head: bytes) -> bool:
    """The registry's cheap claim: a JavaScript/TypeScript file whose first bytes import a CDK library."""
    name = os.path.basename(path)
    if name.endswith(PY_ENDINGS):
        return any(m in head for m in PY_MARKERS)
    return name.endswith(TS_ENDINGS) and not name.endswith(".d.ts") and any(m in head for m in MARKERS)


def claim_file(path: str, head: bytes) -> bool:
    if not could_claim(path, head):
        return False
    if path.endswith((".js", ".mjs", ".cjs")):  # tsc's output beside its source: read the source only
        stem = path.rsplit(".", 1)[0]
        if any(os.path.exists(stem + e) for e in (".ts", ".mts", ".cts", ".tsx")):
            return False
    from .loader import skipped

    return skipped(head) is None


def is_cdk_source(path: str) -> bool:
    """Whether ``path`` is a CDK app's source this reader reads (the fixer refuses to edit it)."""
    if not path or not os.path.basename(path).endswith(ENDINGS):
        return False
    try:
        head = safe_io.read_head(path)
    except Exception:  # noqa: BLE001 - an unreadable file is no CDK source to edit
        return False
    return could_claim(path, head)


# --------------------------------------------------------------------------------------------- the load


def load(path: str, options=None) -> Model:
    """One CDK source file -> the Model of the template its constructs synthesize (notes for what is not read)."""
    from .loader import MAX_CODE_BYTES, _flow, utf8

    st = safe_io.require_regular(path)
    if st.st_size > MAX_CODE_BYTES:
        model = Model(source_file=path)
        model.notes.append(
            Note(
                f"not read as a CDK app: {st.st_size / 1048576:.1f} MB is beyond the source-file bound",
                Location(path),
            )
        )
        return model
    data = utf8(safe_io.read_bytes(path, max_bytes=MAX_CODE_BYTES))
    flow = _flow()
    try:
        template, notes = synthesize(path, data)
    finally:
        flow.offered = {}
    return model_of(path, template, notes)


def model_of(path: str, template: PosDict, notes: list[Note]) -> Model:
    from ..cfn import load_template

    if not template["Resources"]:
        model = Model(source_file=path)
    else:
        model = load_template(template, file=path, source="cdk")
    model.notes = notes + model.notes
    return model


def synthesize(path: str, data: bytes) -> tuple[PosDict, list[Note]]:
    """The template ``data`` (the bytes of ``path``) synthesizes, and the notes of what was not read. Never
    raises: a reader fault is one note."""
    s = _Synth(path, data, _syntax(path))
    try:
        s.run()
    except RecursionError:
        s.note("not read completely: nested too deeply", None)
    except Exception as e:  # noqa: BLE001 - untrusted input: a reader fault is one note, never a traceback
        s.note(f"not read completely as a CDK app ({type(e).__name__})", None)
    return s.template, s.notes


# --------------------------------------------------------------------------------------------- construct kinds

_SQS = ("aws-sqs",)
_LAMBDA = ("aws-lambda", "aws-lambda-nodejs", "aws-lambda-python", "aws-lambda-python-alpha", "aws-lambda-go",
           "aws-lambda-go-alpha")  # fmt: skip
_SOURCES = ("aws-lambda-event-sources",)
_ECS = ("aws-ecs",)
_PIPES = ("aws-pipes",)
# (module family, class) -> kind
_CLASSES = {
    ("aws-sqs", "Queue"): "queue",
    ("aws-sqs", "CfnQueue"): "cfn:AWS::SQS::Queue",
    ("aws-lambda", "Function"): "function",
    ("aws-lambda", "DockerImageFunction"): "function",
    ("aws-lambda-nodejs", "NodejsFunction"): "function",
    ("aws-lambda-python", "PythonFunction"): "function",
    ("aws-lambda-python-alpha", "PythonFunction"): "function",
    ("aws-lambda-go", "GoFunction"): "function",
    ("aws-lambda-go-alpha", "GoFunction"): "function",
    ("aws-lambda", "CfnFunction"): "cfn:AWS::Lambda::Function",
    ("aws-lambda", "EventSourceMapping"): "esm",
    ("aws-lambda", "CfnEventSourceMapping"): "cfn:AWS::Lambda::EventSourceMapping",
    ("aws-lambda-event-sources", "SqsEventSource"): "event_source",
    ("aws-ecs", "FargateTaskDefinition"): "task_definition",
    ("aws-ecs", "Ec2TaskDefinition"): "task_definition",
    ("aws-ecs", "TaskDefinition"): "task_definition",
    ("aws-ecs", "ContainerDefinition"): "container",
    ("aws-ecs", "FargateService"): "service",
    ("aws-ecs", "Ec2Service"): "service",
    ("aws-pipes", "CfnPipe"): "cfn:AWS::Pipes::Pipe",
    ("aws-ecs-patterns", "QueueProcessingFargateService"): "queue_service",
    ("aws-ecs-patterns", "QueueProcessingEc2Service"): "queue_service",
    ("sst", "Queue"): "sst_queue",
    ("sst", "Function"): "sst_function",
    ("aws-iam", "Role"): "role",
    # principals (read where a role's assumedBy names one; never resources of their own)
    ("aws-iam", "ServicePrincipal"): "principal:service",
    ("aws-iam", "WebIdentityPrincipal"): "principal:web_identity",
    ("aws-iam", "OpenIdConnectPrincipal"): "principal:web_identity",
    ("aws-iam", "FederatedPrincipal"): "principal:federated",
}
# aws-cdk-lib's namespaces (`import { aws_sqs as sqs } from "aws-cdk-lib"`, `cdk.aws_sqs.Queue`)
_NAMESPACES = {
    "aws_sqs": "aws-sqs", "aws_lambda": "aws-lambda", "aws_lambda_nodejs": "aws-lambda-nodejs",
    "aws_lambda_event_sources": "aws-lambda-event-sources", "aws_ecs": "aws-ecs", "aws_pipes": "aws-pipes",
    "aws_ecs_patterns": "aws-ecs-patterns", "aws_iam": "aws-iam",
}  # fmt: skip
_UNITS = {"millis": 0.001, "seconds": 1, "minutes": 60, "hours": 3600, "days": 86400}
_SST_UNITS = {"second": 1, "seconds": 1, "minute": 60, "minutes": 60, "hour": 3600, "hours": 3600, "day": 86400,
              "days": 86400}  # fmt: skip
_WRAPPERS = ("parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression",
             "type_assertion")  # fmt: skip
# a queue's attribute -> the CloudFormation that stands for it
_QUEUE_ATTRS = {"queueUrl": "Ref", "queueArn": "Arn", "queueName": "QueueName", "attrArn": "Arn",
                "attrQueueUrl": "Ref", "attrQueueName": "QueueName", "ref": "Ref"}  # fmt: skip
# the L1 (Cfn*) properties visguard's rules read: a value not read there is a note; elsewhere it is left out quietly
_L1_READ = frozenset(
    {"VisibilityTimeout", "MessageRetentionPeriod", "RedrivePolicy", "FifoQueue", "DelaySeconds", "QueueName",
     "ReceiveMessageWaitTimeSeconds", "EventSourceArn", "FunctionName", "BatchSize", "MaximumBatchingWindowInSeconds",
     "FunctionResponseTypes", "ScalingConfig", "Timeout", "Source", "SourceParameters", "Enrichment"}
)  # fmt: skip
_QUEUE_KINDS = ("queue", "sst_queue", "cfn:AWS::SQS::Queue")
_FUNCTION_ATTRS = {"functionArn": "Arn", "functionName": "Ref", "attrArn": "Arn", "ref": "Ref"}


def _family(module: str) -> str | None:
    """``aws-cdk-lib/aws-sqs`` / ``@aws-cdk/aws-sqs`` -> ``aws-sqs``; ``sst/constructs`` -> ``sst``;
    ``aws-cdk-lib`` / ``@aws-cdk/core`` / ``@aws-cdk/cdk`` -> ``core``."""
    if module in ("sst/constructs", "@serverless-stack/resources"):
        return "sst"
    if module in ("aws-cdk-lib", "@aws-cdk/core", "@aws-cdk/cdk", "monocdk"):
        return "core"
    for prefix in ("aws-cdk-lib/", "@aws-cdk/", "monocdk/"):
        if module.startswith(prefix):
            return module[len(prefix) :]
    return None


class _Construct:
    __slots__ = ("kind", "node", "lid", "props", "resource", "extra", "cls")

    def __init__(self, kind, node, lid, props):
        self.kind, self.node, self.lid, self.props = kind, node, lid, props
        self.cls = ""  # the class's name (FargateTaskDefinition)
        self.resource: PosDict | None = None
        self.extra: dict = {}


class _Props(dict):
    """An object literal's properties (key -> value node); ``open``: a spread or an unread object may set others."""

    def __init__(self, items=(), open_: bool = False):
        super().__init__(items)
        self.open = open_


class _NotRead(Exception):
    """A value the file does not say statically: ``why`` names the expression."""

    def __init__(self, why: str):
        super().__init__(why)
        self.why = why


# --------------------------------------------------------------------------------------------- the synthesizer


class _Synth:
    """The construct model, written once: what each construct makes (its resources, its defaults) and how they
    refer to each other. How the file writes calls, keywords and properties is its language's :class:`Syntax`."""

    def __init__(self, path: str, data: bytes, sx: Syntax):
        self.path, self.data = path, data
        self.sx = sx
        sx.synth = self
        self.notes: list[Note] = []
        self.template = PosDict(Resources=PosDict())
        self.template.line = self.template.col = 1
        self.resources: PosDict = self.template["Resources"]
        self.constructs: dict[tuple[int, int], _Construct] = {}
        self.locals: dict[str, tuple[str, str | None]] = {}  # local name -> (family, exported name | None)
        self.f = None  # the engine's File (its evaluate), made by the syntax's setup

    # ---------------------------------------------------------------------------- notes, positions
    def pos(self, node) -> tuple[int, int]:
        from . import column

        if node is None:
            return 1, 1
        return node.start_point[0] + 1, column(self.data, node)

    def note(self, message: str, node) -> None:
        line, col = self.pos(node) if node is not None else (None, None)
        self.notes.append(Note(message, Location(self.path, line, col)))

    def posdict(self, node, **items) -> PosDict:
        d = PosDict(**items)
        d.line, d.col = self.pos(node)
        return d

    def put(self, d: PosDict, key: str, value, node) -> None:
        d[key] = value
        d.key_pos[key] = self.pos(node)

    # ---------------------------------------------------------------------------- the pass
    def run(self) -> None:
        sx = self.sx
        if not sx.setup():
            return
        news, calls = sx.walk()
        self.locals = sx.imports()
        if not self.locals:
            return
        for node in news:
            parts = sx.ctor(node)
            kind = self._kind(parts)
            if kind is None:
                continue
            if len(self.constructs) >= MAX_CONSTRUCTS:
                self.note(f"only the first {MAX_CONSTRUCTS} constructs of the file were read", node)
                break
            args = sx.args(node)
            if kind == "event_source":
                props, id_node = sx.props_at(node, args, 1), None
            else:
                props, id_node = sx.props_at(node, args, 2), (args[1] if len(args) > 1 else None)
            lid = self._lid(id_node, node, kind)
            c = self.constructs[_key(node)] = _Construct(kind, node, lid, props)
            c.cls = parts[-1]
        order = ("queue", "cfn:AWS::SQS::Queue", "sst_queue", "role", "function", "sst_function",
                 "cfn:AWS::Lambda::Function", "task_definition", "container", "service", "queue_service", "esm",
                 "cfn:AWS::Lambda::EventSourceMapping", "cfn:AWS::Pipes::Pipe")  # fmt: skip
        for kind in order:  # resources first, then what refers to them
            for c in list(self.constructs.values()):
                if c.kind == kind and c.resource is None and not c.extra.get("done"):
                    getattr(self, "_" + (kind if not kind.startswith("cfn:") else "cfn"))(c)
        for c in list(self.constructs.values()):
            if c.kind == "sst_queue":
                self._sst_consumer(c)
        for c in list(self.constructs.values()):
            if c.kind == "function":
                self._function_events(c)
        for call in calls:
            self._method(call)

    def _kind(self, parts: list[str]) -> str | None:
        """The construct kind a call of the class ``parts`` (``sqs.Queue``) makes, through the file's imports
        (None: not one read here)."""
        if not parts or parts[0] not in self.locals:
            return None
        family, exported = self.locals[parts[0]]
        rest = parts[1:]
        if exported is not None:
            rest = [exported, *rest]
        if family == "core" and len(rest) == 2 and rest[0] in _NAMESPACES:  # cdk.aws_sqs.Queue
            family, rest = _NAMESPACES[rest[0]], rest[1:]
        if len(rest) != 1:
            return None
        return _CLASSES.get((family, rest[0]))

    def _lid(self, id_node, node, kind) -> str:
        raw = None
        if id_node is not None:
            v = self._scalar(id_node)
            raw = v if isinstance(v, str) else None
        base = (
            re.sub(r"[^A-Za-z0-9]", "", raw or "")
            or f"{kind.split(':')[-1].split('::')[-1].title()}Line{self.pos(node)[0]}"
        )
        lid, n = base, 2
        taken = {c.lid for c in self.constructs.values()}
        while lid in taken:
            lid, n = f"{base}{n}", n + 1
        return lid

    # ---------------------------------------------------------------------------- values
    def _scalar(self, node):
        """The literal ``node`` evaluates to (int, float, str, bool), else None."""
        from .engine import evaluate

        try:
            v = evaluate(node, self.f)
        except RecursionError:
            return None
        return v.value if v.kind in ("int", "str", "bool") else None

    def _resolve(self, node):
        """``node`` followed through wrappers and names bound once (a const, a class field) to what is written."""
        return self.sx.resolve(node)

    def construct_of(self, node, depth=0) -> _Construct | None:
        """The construct an expression names: ``new X(...)`` (``X(...)``), a name bound to one, ``this.x``
        (``self.x``), SST's ``q.cdk.queue``."""
        if node is None or depth > MAX_DEPTH:
            return None
        node = self._resolve(node)
        if node is None:
            return None
        if self.sx.is_construct(node):
            return self.constructs.get(_key(node))
        member = self.sx.member(node)
        if member is not None and member[1] == "queue":
            inner = self.sx.member(self.sx.strip(member[0]))
            if inner is not None and inner[1] == "cdk":  # SST: queue.cdk.queue
                c = self.construct_of(inner[0], depth + 1)
                return c if c is not None and c.kind == "sst_queue" else None
        return None

    def ref(self, node, what: str):
        """The CloudFormation a reference to a queue's or function's attribute stands for (``{Ref}``,
        ``{Fn::GetAtt}``), a literal string, else raises :class:`_NotRead`."""
        node = self._resolve(node)
        member = self.sx.member(node) if node is not None else None
        if member is not None:
            c = self.construct_of(member[0])
            attrs = (
                _FUNCTION_ATTRS if c is not None and c.kind in ("function", "sst_function") else _QUEUE_ATTRS
            )
            if c is not None and c.resource is not None and member[1] in attrs:
                attr = attrs[member[1]]
                target = self._target(c)
                return {"Ref": target} if attr == "Ref" else {"Fn::GetAtt": [target, attr]}
        v = self._scalar(node) if node is not None else None
        if isinstance(v, str):
            return v
        raise _NotRead(_shown(node) or what)

    def _target(self, c: _Construct) -> str:
        return c.extra.get("alias", c.lid)

    def seconds(self, node, *, unit_default: float | None = 1, sst: bool = False):
        """Seconds an expression writes: ``Duration.<unit>(n)`` (any namespace), SST's ``"30 seconds"``, or with
        ``unit_default`` a plain number (v0's ``...Sec`` props, SST's numbers); raises :class:`_NotRead`."""
        from .engine import evaluate

        n = self._resolve(node)
        call = self.sx.call(n) if n is not None else None
        if call is not None:
            parts, args = call
            if len(parts) >= 2 and parts[-2] == "Duration" and parts[-1] in _UNITS:
                v = evaluate(args[0], self.f) if args else None
                if v is not None and v.kind == "int":
                    seconds = v.value * _UNITS[parts[-1]]
                    if float(seconds).is_integer():
                        return int(seconds)
                    # CDK's toSeconds() refuses a fraction of a second at synth
                    raise _NotRead(f"{_shown(n)}, not a whole number of seconds")
                raise _NotRead(_shown(n))
        if n is not None and call is None and not self.sx.is_construct(n):
            v = evaluate(n, self.f)
            if v.kind == "int" and unit_default is not None:
                return _whole(v.value * unit_default)
            if v.kind == "str" and sst:
                m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*", v.value)
                if m and m.group(2) in _SST_UNITS:
                    return _whole(float(m.group(1)) * _SST_UNITS[m.group(2)])
        raise _NotRead(_shown(n if n is not None else node))

    def props(self, node, owner: str) -> dict:
        """key -> value node of an object literal (through names); ``open`` (with a note) when it is not one of
        this file, or a spread in it may set more."""
        if node is None:
            return _Props()
        n = self._resolve(node)
        got = self.sx.obj(n) if n is not None else None
        if got is None:
            why = f"not {self.sx.OBJECT} of this file"
            self.note(f"{owner}: its properties {_shown(node)} are not read ({why})", node)
            return _Props(open_=True)
        items, open_, elsewhere = got
        if elsewhere:  # written in another module: positions are not here
            self.note(f"{owner}: its properties {_shown(node)} are written in another file; not read", node)
            return _Props(open_=True)
        if open_:
            self.note(
                f"{owner}: a {self.sx.SPREAD} in {_shown(node)} may set more properties; those are not read",
                node,
            )
        return _Props(items, open_=open_)

    def unknown_unless_set(self, props, p: PosDict, keys: tuple[str, ...], node, why: str) -> None:
        """Properties an unread spread (or props object) may set: not known here, unless the file sets them."""
        if getattr(props, "open", False):
            for key in keys:
                if key not in p:
                    self.put(p, key, self._unknown_param(why), node)

    def unread(self, owner: str, key: str, e: _NotRead, node) -> None:
        key = self.sx.written(key)
        self.note(f"{owner}: {key} is not known statically ({e.why}): not judged, no default assumed", node)

    def setting(
        self, c: _Construct, d: PosDict, cfn_key: str, props: dict, key: str, read, owner: str
    ) -> None:
        """Set ``d[cfn_key]`` to ``read(props[key])`` located at the property; a value not read is a note."""
        node = props.get(key)
        if node is None:
            return
        try:
            self.put(d, cfn_key, read(node), node)
        except _NotRead as e:  # written, but not known here: neither the value nor the default
            self.unread(owner, key, e, node)
            self.put(d, cfn_key, self._unknown_param(e.why), node)

    def boolean(self, node):
        v = self._scalar(node)
        if isinstance(v, bool):
            return v
        raise _NotRead(_shown(node))

    def number(self, node):
        v = self._scalar(node)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return v
        raise _NotRead(_shown(node))

    def add(self, c: _Construct, rtype: str, properties: PosDict) -> PosDict:
        res = self.posdict(c.node, Type=rtype, Properties=properties)
        res.key_pos["Type"] = res.key_pos["Properties"] = self.pos(c.node)
        c.resource = res
        self.put(self.resources, c.lid, res, c.node)
        return res

    def _unknown_param(self, why: str) -> dict:
        """A ``{Ref}`` to a parameter without a default, named by the expression not read (``why``): a value only
        the deployed app knows; the rules skip it and their messages show the expression."""
        name = " ".join(why.split())[:80] or "not known here"
        params = self.template.setdefault("Parameters", PosDict())
        if name not in params:
            params[name] = PosDict(Type="String")
        return {"Ref": name}

    # ---------------------------------------------------------------------------- queues
    def _queue(self, c: _Construct, props: dict | None = None, where=None) -> None:
        owner = f"queue {c.lid}"
        props = self.props(c.props, owner) if props is None else props
        p = self.posdict(where if where is not None else (c.props or c.node))
        for key, cfn in (("visibilityTimeout", "VisibilityTimeout"), ("retentionPeriod", "MessageRetentionPeriod"),
                         ("deliveryDelay", "DelaySeconds"), ("receiveMessageWaitTime", "ReceiveMessageWaitTimeSeconds")):  # fmt: skip
            self.setting(c, p, cfn, props, key, lambda n: self.seconds(n, unit_default=None), owner)
            self.setting(c, p, cfn, props, key + "Sec", lambda n: self.seconds(n), owner)  # CDK v0
        if "retentionPeriodSec" not in props and "messageRetentionPeriodSec" in props:
            self.setting(
                c, p, "MessageRetentionPeriod", props, "messageRetentionPeriodSec", self.seconds, owner
            )
        self.setting(c, p, "FifoQueue", props, "fifo", self.boolean, owner)
        name = props.get("queueName")
        if name is not None:
            v = self._scalar(name)
            if isinstance(v, str):
                self.put(p, "QueueName", v, name)
                if v.endswith(".fifo") and "FifoQueue" not in p:  # CDK: a .fifo name makes a FIFO queue
                    self.put(p, "FifoQueue", True, name)
        dlq = props.get("deadLetterQueue")
        if dlq is not None:
            self._redrive(c, p, dlq, owner)
        keys = ("VisibilityTimeout", "MessageRetentionPeriod", "RedrivePolicy")
        self.unknown_unless_set(props, p, keys, c.props or c.node, f"the properties of {owner}")
        self.add(c, "AWS::SQS::Queue", p)

    def _redrive(self, c: _Construct, p: PosDict, node, owner: str) -> None:
        try:
            d = self.props_strict(node)
        except _NotRead as e:
            self.unread(owner, "deadLetterQueue", e, node)
            return
        policy = self.posdict(node)
        q = d.get("queue")
        target = self.construct_of(q) if q is not None else None
        if target is not None and target.resource is None and target.kind in ("queue", "sst_queue"):
            self._queue_now(target)
        if target is not None and target.resource is not None:
            self.put(policy, "deadLetterTargetArn", {"Fn::GetAtt": [self._target(target), "Arn"]}, q)
        else:
            self.put(
                policy,
                "deadLetterTargetArn",
                self._unknown_param(f"the dead-letter queue {_shown(q)}"),
                q or node,
            )
            self.note(f"{owner}: its dead-letter queue {_shown(q)} is not a queue of this file", q or node)
        mrc = d.get("maxReceiveCount")
        if mrc is not None:
            try:
                self.put(policy, "maxReceiveCount", self.number(mrc), mrc)
            except _NotRead as e:
                self.unread(owner, "deadLetterQueue.maxReceiveCount", e, mrc)
                self.put(policy, "maxReceiveCount", self._unknown_param(e.why), mrc)
        self.put(p, "RedrivePolicy", policy, node)

    def _queue_now(self, c: _Construct) -> None:
        """A dead-letter queue declared after its source (or an SST queue): its resource made now, once."""
        if c.kind == "queue":
            self._queue(c)
        elif c.kind == "sst_queue":
            self._sst_queue(c)

    def props_strict(self, node, raw: bool = False) -> dict:
        """key -> value node of an object (a struct, keyword arguments) of this file, else :class:`_NotRead`;
        ``raw``: its keys as written (an environment's variables, a JSON policy), not the language's names."""
        n = self._resolve(node)
        got = self.sx.obj(n, raw=raw) if n is not None else None
        if got is None or got[2]:
            raise _NotRead(_shown(node))
        return dict(got[0])

    def _sst_queue(self, c: _Construct) -> None:
        if c.resource is not None or c.extra.get("done"):
            return
        c.extra["done"] = True
        owner = f"SST queue {c.lid}"
        props = self.props(c.props, owner) if c.props is not None else {}
        cdk = props.get("cdk")
        queue_props, where = {}, None
        if cdk is not None:
            try:
                cdk_props = self.props_strict(cdk)
            except _NotRead as e:
                self.unread(owner, "cdk", e, cdk)
                cdk_props = {}
            qn = cdk_props.get("queue")
            if qn is not None:
                existing = self.construct_of(qn)
                if existing is not None and existing.kind in ("queue", "sst_queue"):
                    if existing.resource is None:
                        self._queue_now(existing)
                    c.extra["alias"] = self._target(existing)
                    c.resource = existing.resource
                    return
                try:
                    queue_props, where = self.props_strict(qn), qn
                except _NotRead as e:
                    self.unread(owner, "cdk.queue", e, qn)
        self._queue(c, queue_props, where)

    # ---------------------------------------------------------------------------- functions
    def _function(self, c: _Construct) -> None:
        owner = f"function {c.lid}"
        props = self.props(c.props, owner)
        p = self.posdict(c.props or c.node)
        # CDK v2/v1: a Duration; v0: a number of seconds. Not set: CDK's default, Lambda's (3 s)
        self.setting(c, p, "Timeout", props, "timeout", lambda n: self.seconds(n), owner)
        self.setting(
            c, p, "ReservedConcurrentExecutions", props, "reservedConcurrentExecutions", self.number, owner
        )
        self._environment(p, props.get("environment"), owner, lambda_=True)
        self.unknown_unless_set(props, p, ("Timeout",), c.props or c.node, f"the properties of {owner}")
        self.add(c, "AWS::Lambda::Function", p)

    def _sst_function(self, c: _Construct, props: dict | None = None) -> None:
        owner = f"SST function {c.lid}"
        props = self.props(c.props, owner) if props is None else props
        p = self.posdict(c.props or c.node)
        node = props.get("timeout")
        if node is not None:
            self.setting(c, p, "Timeout", props, "timeout", lambda n: self.seconds(n, sst=True), owner)
        elif self._sst_defaults_elsewhere():
            self.note(
                f"{owner}: no timeout; the app sets default function props (setDefaultFunctionProps), not read",
                c.node,
            )
            p["Timeout"] = self._unknown_param("SST default function props")
        else:  # SST v2 Function: "@default 10 seconds" (facts.SST_FUNCTION_TIMEOUT)
            self.put(p, "Timeout", facts.SST_FUNCTION_TIMEOUT, c.node)
        self._environment(p, props.get("environment"), owner, lambda_=True)
        self.add(c, "AWS::Lambda::Function", p)

    def _sst_defaults_elsewhere(self) -> bool:
        """The app may change SST's function defaults: this file or the app's sst.config says DefaultFunctionProps."""
        if b"DefaultFunctionProps" in self.data:
            return True
        folder = os.path.dirname(os.path.abspath(self.path))
        for _ in range(4):
            for name in ("sst.config.ts", "sst.config.js", "sst.config.mjs"):
                cfg = os.path.join(folder, name)
                if os.path.isfile(cfg):
                    try:
                        return b"DefaultFunctionProps" in safe_io.read_bytes(cfg, max_bytes=2_000_000)
                    except Exception:  # noqa: BLE001 - unreadable: assume it may
                        return True
            folder = os.path.dirname(folder)
        return False

    def _environment(self, p: PosDict, node, owner: str, lambda_: bool = False) -> None:
        if node is None:
            return
        try:
            env = self.props_strict(node, raw=True)
        except _NotRead as e:
            self.unread(owner, "environment", e, node)
            return
        out = []
        for name, value in env.items():
            try:
                v = self.ref(value, name)
            except _NotRead as e:
                if re.search(r"(?i)queue|sqs", name):
                    self.unread(owner, f"environment {name}", e, value)
                continue
            item = self.posdict(value, Name=name, Value=v)
            item.key_pos["Name"] = item.key_pos["Value"] = self.pos(value)
            out.append(item)
        if not out:
            return
        if lambda_:
            variables = self.posdict(node)
            for item in out:
                variables[item["Name"]] = item["Value"]
                variables.key_pos[item["Name"]] = (item.line, item.col)
            self.put(p, "Environment", self.posdict(node, Variables=variables), node)
        else:
            self.put(p, "Environment", out, node)

    # ---------------------------------------------------------------------------- event sources
    def _esm(self, c: _Construct) -> None:
        """``new lambda.EventSourceMapping(scope, id, {eventSourceArn, target, ...})``."""
        owner = f"event source mapping {c.lid}"
        props = self.props(c.props, owner)
        fn = self.construct_of(props.get("target")) if "target" in props else None
        self._mapping(c, c.lid, fn, props, owner, arn_node=props.get("eventSourceArn"), where=c.node)

    def _mapping(self, c, lid, fn, props, owner, *, queue=None, arn_node=None, where=None) -> None:
        p = self.posdict(where)
        if queue is not None:
            if queue.resource is None:
                self._queue_now(queue)
            self.put(p, "EventSourceArn", {"Fn::GetAtt": [self._target(queue), "Arn"]}, where)
        elif arn_node is not None:
            try:
                self.put(p, "EventSourceArn", self.ref(arn_node, "eventSourceArn"), arn_node)
            except _NotRead as e:
                self.unread(owner, "eventSourceArn", e, arn_node)
                return
        else:
            return
        if fn is not None and fn.resource is not None:
            self.put(p, "FunctionName", {"Ref": fn.lid}, where)
        else:
            self.put(p, "FunctionName", self._unknown_param("the mapping's function"), where)
            self.note(
                f"{owner}: its function is not a function of this file; its timeout is not known", where
            )
        self.setting(c, p, "BatchSize", props, "batchSize", self.number, owner)
        self.setting(c, p, "MaximumBatchingWindowInSeconds", props, "maxBatchingWindow",
                     lambda n: self.seconds(n, unit_default=None), owner)  # fmt: skip
        self.setting(c, p, "Enabled", props, "enabled", self.boolean, owner)
        rbf = props.get("reportBatchItemFailures")
        if rbf is not None:
            try:
                if self.boolean(rbf):
                    self.put(p, "FunctionResponseTypes", ["ReportBatchItemFailures"], rbf)
            except _NotRead as e:
                self.unread(owner, "reportBatchItemFailures", e, rbf)
                self.put(p, "FunctionResponseTypes", self._unknown_param(e.why), rbf)
        mc = props.get("maxConcurrency")
        if mc is not None:
            try:
                scaling = self.posdict(mc)
                self.put(scaling, "MaximumConcurrency", self.number(mc), mc)
                self.put(p, "ScalingConfig", scaling, mc)
            except _NotRead as e:
                self.unread(owner, "maxConcurrency", e, mc)
        keys = ("BatchSize", "MaximumBatchingWindowInSeconds", "FunctionResponseTypes")
        self.unknown_unless_set(props, p, keys, where, f"the properties of {owner}")
        res = self.posdict(where, Type="AWS::Lambda::EventSourceMapping", Properties=p)
        res.key_pos["Type"] = res.key_pos["Properties"] = self.pos(where)
        lid = self._fresh(lid)
        self.put(self.resources, lid, res, where)

    def _fresh(self, lid: str) -> str:
        base, n = lid, 2
        while lid in self.resources:
            lid, n = f"{base}{n}", n + 1
        return lid

    def _event_source(self, fn: _Construct | None, src_node, owner_fn: str) -> None:
        """``fn.addEventSource(new SqsEventSource(queue, {...}))`` (or a name bound to the source)."""
        src = self.construct_of(src_node)
        if src is None or src.kind != "event_source":
            return
        args = self.sx.args(src.node)
        first = args[0] if args else None
        if first is None and src.props is not None:  # Python's SqsEventSource(queue=q, batch_size=5)
            first = self.props_quiet(src.props).get("queue")
        queue = self.construct_of(first) if first is not None else None
        owner = f"SQS event source of {owner_fn}"
        if queue is None or queue.kind not in ("queue", "sst_queue", "cfn:AWS::SQS::Queue"):
            self.note(
                f"{owner}: its queue {_shown(first) if first is not None else ''} is not a queue of this file",
                src.node,
            )
            return
        props = self.props(src.props, owner) if src.props is not None else {}
        lid = f"{fn.lid if fn is not None else 'Function'}SqsEventSource{queue.lid}"
        self._mapping(src, lid, fn, props, owner, queue=queue, where=src.node)

    def _function_events(self, c: _Construct) -> None:
        props = self.props_quiet(c.props)
        events = props.get("events")
        if events is None:
            return
        items = self.sx.array(self._resolve(events))
        for item in items or ():
            self._event_source(c, item, f"function {c.lid}")

    def props_quiet(self, node) -> dict:
        try:
            return self.props_strict(node) if node is not None else {}
        except _NotRead:
            return {}

    def _sst_consumer(self, c: _Construct, consumer=None) -> None:
        """SST ``Queue``'s consumer: a Function, a handler string, or ``{function, cdk: {eventSource}}``."""
        if consumer is None:
            consumer = self.props_quiet(c.props).get("consumer")
        if consumer is None or c.resource is None:
            return
        owner = f"SST queue {c.lid}'s consumer"
        fn = self.construct_of(consumer)
        event_props: dict = {}
        if fn is None:
            n = self._resolve(consumer)
            definition = consumer
            if n is not None and self.sx.obj(n) is not None:
                d = self.props_quiet(n)
                if "function" in d:
                    definition = d["function"]
                    cdk = self.props_quiet(d.get("cdk"))
                    if "eventSource" in cdk:
                        try:
                            event_props = self.props_strict(cdk["eventSource"])
                        except _NotRead as e:
                            self.unread(owner, "cdk.eventSource", e, cdk["eventSource"])
                elif "cdk" in d:
                    self.note(f"{owner}: a CDK function given by cdk.function is not read", consumer)
                    return
            fn = self.construct_of(definition)
            if fn is None:
                fn_props = {} if self._scalar(definition) is not None else self.props_quiet(definition)
                fn = _Construct("sst_function", consumer, self._fresh(f"Consumer{c.lid}"), None)
                self.constructs[(consumer.start_byte, -1)] = fn
                self._sst_function(fn, fn_props)
        if fn.resource is None and fn.kind == "sst_function":
            self._sst_function(fn)
        self._mapping(c, f"{fn.lid}SqsEventSource{c.lid}", fn, event_props, owner, queue=c, where=consumer)

    # ---------------------------------------------------------------------------- ECS
    def _task_definition(self, c: _Construct) -> None:
        p = self.posdict(c.props or c.node, ContainerDefinitions=[])
        p.key_pos["ContainerDefinitions"] = self.pos(c.node)
        if c.cls == "FargateTaskDefinition":
            self.put(p, "RequiresCompatibilities", ["FARGATE"], c.node)
        elif c.cls == "Ec2TaskDefinition":
            self.put(p, "RequiresCompatibilities", ["EC2"], c.node)
        props = self.props(c.props, f"task definition {c.lid}") if c.props is not None else {}
        role = self.construct_of(props.get("taskRole")) if props.get("taskRole") is not None else None
        if (
            role is not None and role.kind == "role" and role.resource is not None
        ):  # taskRole: a Role of the file
            c.extra["role"] = role.lid
            self.put(p, "TaskRoleArn", {"Fn::GetAtt": [role.lid, "Arn"]}, props["taskRole"])
        self.add(c, "AWS::ECS::TaskDefinition", p)

    # ---------------------------------------------------------------------------- IAM roles
    def _role(self, c: _Construct) -> None:
        """``new iam.Role(this, "R", {assumedBy: new iam.ServicePrincipal("ecs-tasks.amazonaws.com")})``: an
        ``AWS::IAM::Role`` whose trust policy says who assumes it (a service, a web identity), so a role granted
        receiving that nothing of the app uses is the consumer of a workload deployed elsewhere
        (loaders/consumers_cfn.role)."""
        owner = f"role {c.lid}"
        props = self.props(c.props, owner) if c.props is not None else {}
        p = self.posdict(c.props or c.node)
        node = props.get("assumedBy")
        stmt = self._trust(node) if node is not None else None
        if stmt is not None:
            doc = self.posdict(node, Version="2012-10-17", Statement=[stmt])
            self.put(p, "AssumeRolePolicyDocument", doc, node)
        self.add(c, "AWS::IAM::Role", p)

    def _trust(self, node):
        """The trust statement a principal construct stands for (``ServicePrincipal(svc)``,
        ``WebIdentityPrincipal(provider)``, ``OpenIdConnectPrincipal(provider)``, ``FederatedPrincipal(provider,
        conditions, "sts:AssumeRoleWithWebIdentity")``); None for any other (a composite, a name not read)."""
        node = self._resolve(node)
        if node is None or not self.sx.is_construct(node):
            return None
        kind = self._kind(self.sx.ctor(node)) or ""
        if not kind.startswith("principal:"):
            return None
        args = self.sx.args(node)
        first = self._scalar(args[0]) if args else None
        if kind == "principal:service":
            if not isinstance(first, str):
                return None
            return self.posdict(node, Effect="Allow", Principal={"Service": first}, Action="sts:AssumeRole")
        action = "sts:AssumeRoleWithWebIdentity"
        if kind == "principal:federated":
            given = self._scalar(args[2]) if len(args) > 2 else None
            action = given if isinstance(given, str) else "sts:AssumeRole"  # its documented default
        federated = first if isinstance(first, str) else "provider"
        return self.posdict(node, Effect="Allow", Principal={"Federated": federated}, Action=action)

    def _container_into(self, td: _Construct, name: str, props: dict, node, owner: str) -> None:
        cd = self.posdict(node, Name=name)
        cd.key_pos["Name"] = self.pos(node)
        self._environment(cd, props.get("environment"), owner)
        self.setting(
            td, cd, "StopTimeout", props, "stopTimeout", lambda n: self.seconds(n, unit_default=None), owner
        )
        td.resource["Properties"]["ContainerDefinitions"].append(cd)

    def _container(self, c: _Construct) -> None:
        owner = f"container {c.lid}"
        props = self.props(c.props, owner)
        td = self.construct_of(props.get("taskDefinition")) if "taskDefinition" in props else None
        if td is None or td.kind != "task_definition" or td.resource is None:
            if props.get("environment") is not None:
                self.note(f"{owner}: its task definition is not one of this file; not read", c.node)
            return
        self._container_into(td, c.lid, props, c.node, owner)

    def _service(self, c: _Construct) -> None:
        owner = f"service {c.lid}"
        props = self.props(c.props, owner)
        td = self.construct_of(props.get("taskDefinition")) if "taskDefinition" in props else None
        if td is None or td.resource is None:
            return
        p = self.posdict(c.props or c.node)
        self.put(p, "TaskDefinition", {"Ref": td.lid}, props["taskDefinition"])
        self.setting(c, p, "DesiredCount", props, "desiredCount", self.number, owner)
        if c.cls == "FargateService" and "capacityProviderStrategies" not in props:
            self.put(p, "LaunchType", "FARGATE", c.node)
        self.add(c, "AWS::ECS::Service", p)

    def _queue_service(self, c: _Construct) -> None:
        """``ecs_patterns.QueueProcessingFargateService`` / ``QueueProcessingEc2Service``: its queue (the given
        ``queue`` as is, else the queue and dead-letter queue it makes, with CDK's defaults:
        ``facts.CDK_QUEUE_PROCESSING_*``), its task definition whose container gets ``QUEUE_NAME`` and the right to
        receive, and its service: the queue's consumer."""
        owner = f"queue processing service {c.lid}"
        props = self.props(c.props, owner)
        where = c.props or c.node
        queue = None
        given = props.get("queue")
        if given is not None:
            queue = self.construct_of(given)
            if queue is not None and queue.resource is None and queue.kind in ("queue", "sst_queue"):
                self._queue_now(queue)
            if queue is None or queue.resource is None or queue.kind not in _QUEUE_KINDS:
                self.note(f"{owner}: its queue {_shown(given)} is not a queue of this file", given)
                return
        elif getattr(props, "open", False):
            self.note(f"{owner}: its queue may be given by the properties not read; not read", where)
            return
        else:
            queue = self._pattern_queue(c, props, where, owner)
        td = _Construct("task_definition", c.node, self._fresh(f"{c.lid}QueueProcessingTaskDef"), None)
        td.cls = "Ec2TaskDefinition" if c.cls == "QueueProcessingEc2Service" else "FargateTaskDefinition"
        self._task_definition(td)
        name = props.get("containerName")
        name = self._scalar(name) if name is not None else None
        name = name if isinstance(name, str) else facts.CDK_QUEUE_PROCESSING_CONTAINER
        cd = self.posdict(where, Name=name)
        cd.key_pos["Name"] = self.pos(where)
        env = []
        user = props.get("environment")
        if user is not None:
            scratch = self.posdict(where)
            self._environment(scratch, user, owner)
            env = [
                e for e in scratch.get("Environment", []) if e["Name"] != facts.CDK_QUEUE_PROCESSING_QUEUE_ENV
            ]
        item = self.posdict(where, Name=facts.CDK_QUEUE_PROCESSING_QUEUE_ENV)
        item["Value"] = {"Fn::GetAtt": [self._target(queue), "QueueName"]}
        item.key_pos["Name"] = item.key_pos["Value"] = self.pos(where)
        self.put(cd, "Environment", [*env, item], where)
        td.resource["Properties"]["ContainerDefinitions"].append(cd)
        self._grant(queue, td, c.node)
        p = self.posdict(where)
        self.put(p, "TaskDefinition", {"Ref": td.lid}, where)
        self.setting(c, p, "DesiredCount", props, "desiredTaskCount", self.number, owner)
        if c.cls == "QueueProcessingFargateService" and "capacityProviderStrategies" not in props:
            self.put(p, "LaunchType", "FARGATE", c.node)
        self.add(c, "AWS::ECS::Service", p)

    def _pattern_queue(self, c: _Construct, props: dict, where, owner: str) -> _Construct:
        """The queue and dead-letter queue a queue processing service makes when it is given none."""
        dlq = _Construct("queue", c.node, self._fresh(f"{c.lid}EcsProcessingDeadLetterQueue"), None)
        dp = self.posdict(where)
        if "retentionPeriod" in props:  # the pattern's retentionPeriod is its dead-letter queue's
            self.setting(c, dp, "MessageRetentionPeriod", props, "retentionPeriod",
                         lambda n: self.seconds(n, unit_default=None), owner)  # fmt: skip
        else:
            self.put(dp, "MessageRetentionPeriod", facts.CDK_QUEUE_PROCESSING_DLQ_RETENTION, where)
        self.add(dlq, "AWS::SQS::Queue", dp)
        queue = _Construct("queue", c.node, self._fresh(f"{c.lid}EcsProcessingQueue"), None)
        qp = self.posdict(where)
        # not set: the pattern leaves visibilityTimeout to SQS (facts.CDK_QUEUE_PROCESSING_VISIBILITY_DEFAULT)
        self.setting(c, qp, "VisibilityTimeout", props, "visibilityTimeout",
                     lambda n: self.seconds(n, unit_default=None), owner)  # fmt: skip
        policy = self.posdict(where)
        self.put(policy, "deadLetterTargetArn", {"Fn::GetAtt": [dlq.lid, "Arn"]}, where)
        mrc = props.get("maxReceiveCount")
        count = facts.CDK_QUEUE_PROCESSING_MAX_RECEIVE_COUNT
        if mrc is not None:
            try:
                count = self.number(mrc) or count  # `props.maxReceiveCount || 3`
            except _NotRead as e:
                self.unread(owner, "maxReceiveCount", e, mrc)
                count = self._unknown_param(e.why)
        self.put(policy, "maxReceiveCount", count, mrc if mrc is not None else where)
        self.put(qp, "RedrivePolicy", policy, where)
        self.add(queue, "AWS::SQS::Queue", qp)
        return queue

    def _grant_consume(self, queue: _Construct, grantee, call) -> None:
        """``queue.grantConsumeMessages(td.taskRole)`` or ``(role)``, a Role of the file: that role may receive
        from the queue."""
        grantee = self.sx.strip(grantee)
        role = self.construct_of(grantee)
        if role is not None and role.kind == "role" and role.resource is not None:
            self._allow(queue, role.lid, call)
            return
        g = self.sx.member(grantee)
        if g is None or g[1] != "taskRole":
            return
        td = self.construct_of(g[0])
        if td is None or td.kind != "task_definition" or td.resource is None:
            return
        self._grant(queue, td, call)

    def _grant(self, queue: _Construct, td: _Construct, call) -> None:
        """The task definition's role may receive from ``queue`` (CDK's grantConsumeMessages)."""
        role = td.extra.get("role")
        if role is None:
            role = td.extra["role"] = self._fresh(f"{td.lid}TaskRole")
            r = self.posdict(td.node, Type="AWS::IAM::Role", Properties=self.posdict(td.node))
            self.put(self.resources, role, r, td.node)
            self.put(td.resource["Properties"], "TaskRoleArn", {"Fn::GetAtt": [role, "Arn"]}, td.node)
        self._allow(queue, role, call)

    def _allow(self, queue: _Construct, role: str, call) -> None:
        """An ``AWS::IAM::Policy`` of role ``role`` with the actions grantConsumeMessages grants on ``queue``."""
        stmt = self.posdict(
            call,
            Effect="Allow",
            Action=[
                "sqs:ReceiveMessage",
                "sqs:ChangeMessageVisibility",
                "sqs:GetQueueUrl",
                "sqs:DeleteMessage",
                "sqs:GetQueueAttributes",
            ],  # fmt: skip
            Resource={"Fn::GetAtt": [self._target(queue), "Arn"]},
        )
        doc = self.posdict(call, Version="2012-10-17", Statement=[stmt])
        policy = self.posdict(call, PolicyName=f"{role}Policy", PolicyDocument=doc, Roles=[{"Ref": role}])
        res = self.posdict(call, Type="AWS::IAM::Policy", Properties=policy)
        self.put(self.resources, self._fresh(f"{role}DefaultPolicy"), res, call)

    # ---------------------------------------------------------------------------- L1 constructs
    def _cfn(self, c: _Construct) -> None:
        rtype = c.kind[4:]
        owner = f"{rtype} {c.lid}"
        props = self.props(c.props, owner)
        p = self.posdict(c.props or c.node)
        for key, node in props.items():
            cfn = _pascal(key)
            quiet = cfn not in _L1_READ
            try:
                self.put(
                    p, cfn, self.l1(node, 0, key in ("redrivePolicy", "redriveAllowPolicy"), quiet), node
                )
            except _NotRead as e:
                if not quiet:
                    self.unread(owner, key, e, node)
        self.add(c, rtype, p)

    def l1(self, node, depth: int, keep_keys: bool = False, quiet: bool = False):
        """An L1 property's value as CloudFormation: objects with PascalCase keys (a JSON policy keeps its own),
        lists, literals, references to this file's queues and functions."""
        if depth > MAX_DEPTH:
            raise _NotRead("nested too deeply")
        n = self._resolve(node)
        if n is not None and self.sx.obj(n) is not None:
            d = self.props_strict(n, raw=keep_keys)
            out = self.posdict(n)
            for key, value in d.items():
                try:
                    cfn = key if keep_keys else _pascal(key)
                    self.put(out, cfn, self.l1(value, depth + 1, keep_keys, quiet), value)
                except _NotRead as e:
                    if not quiet:
                        self.unread("property", key, e, value)
            return out
        items = self.sx.array(n) if n is not None else None
        if items is not None:
            return [self.l1(k, depth + 1, keep_keys, quiet) for k in items]
        v = self._scalar(n) if n is not None else None
        if v is not None:
            return v
        return self.ref(n, _shown(node))

    # ---------------------------------------------------------------------------- method calls
    def _method(self, call) -> None:
        got = self.sx.method(call)
        if got is None:
            return
        obj, method = got
        if method not in ("addEventSource", "addEventSourceMapping", "addContainer", "grantConsumeMessages",
                          "addConsumer"):  # fmt: skip
            return
        target = self.construct_of(obj)
        if target is None:
            return
        args = self.sx.args(call)
        if method == "addEventSource" and target.kind in ("function", "sst_function") and args:
            self._event_source(target, args[0], f"function {target.lid}")
        elif method == "addEventSourceMapping" and target.kind in ("function", "sst_function") and args:
            props_node = self.sx.props_at(call, args, 1)
            if props_node is None:
                return
            lid = self._scalar(args[0])
            lid = re.sub(r"[^A-Za-z0-9]", "", lid) if isinstance(lid, str) else f"{target.lid}Mapping"
            owner = f"event source mapping {lid}"
            props = self.props(props_node, owner)
            m = _Construct("esm", call, lid, props_node)
            self._mapping(m, lid, target, props, owner, arn_node=props.get("eventSourceArn"), where=call)
        elif (
            method == "addContainer"
            and target.kind == "task_definition"
            and target.resource is not None
            and args
        ):
            name = self._scalar(args[0])
            name = name if isinstance(name, str) else f"ContainerLine{self.pos(call)[0]}"
            owner = f"container {name}"
            props_node = self.sx.props_at(call, args, 1)
            props = self.props(props_node, owner) if props_node is not None else {}
            self._container_into(target, name, props, call, owner)
        elif (
            method == "grantConsumeMessages"
            and target.kind in ("queue", "sst_queue")
            and target.resource
            and args
        ):
            self._grant_consume(target, args[0], call)
        elif method == "addConsumer" and target.kind == "sst_queue" and len(args) > 1:
            self._sst_consumer(target, args[1])


# --------------------------------------------------------------------------------------------- the languages


class Syntax:
    """How one language writes what the construct model reads: the calls that make constructs, their
    positional arguments and properties (keys in the model's names: CDK's camelCase), members, lists, imports.
    ``synth``: the :class:`_Synth` it reads for (its file, its notes)."""

    OBJECT = "an object literal"  # what the notes call a properties object
    SPREAD = "spread"
    synth: _Synth

    def setup(self) -> bool:  # parse; the engine's File in ``synth.f``; False (with a note) when not parsed
        raise NotImplementedError

    def walk(self) -> tuple[list, list]:  # (nodes that may make a construct, method calls)
        raise NotImplementedError

    def imports(self) -> dict[str, tuple[str, str | None]]:  # local name -> (module family, exported | None)
        raise NotImplementedError

    def written(self, key: str) -> str:  # a property's name (the model's camelCase) as the file writes it
        return key

    def _walk(self, root, construct_kinds, call_kinds) -> tuple[list, list]:
        news, calls, stack, seen = [], [], [root], 0
        while stack:
            n = stack.pop()
            seen += 1
            if seen > MAX_NODES:
                self.synth.note(f"read only the first {MAX_NODES:,} syntax nodes for construct calls", n)
                break
            if n.type in construct_kinds:
                news.append(n)
            if n.type in call_kinds:
                calls.append(n)
            stack.extend(reversed(n.children))
        return news, calls


class _TypeScript(Syntax):
    """TypeScript / JavaScript: ``new sqs.Queue(this, "Q", {visibilityTimeout: ...})``, ``fn.addEventSource(...)``."""

    def setup(self) -> bool:
        from . import javascript as jsmod
        from . import parse
        from .engine import File

        s = self.synth
        grammar, _source = jsmod.language_of(s.path)
        root = parse(grammar, s.data)
        if root is None:
            s.note("not read as a CDK app: the parser gave up (its CPU budget)", None)
            return False
        s.f = File(jsmod._LANGUAGES[grammar], s.data, root, path=s.path)
        self.js = jsmod._js(s.f)
        self.root = root
        return True

    def walk(self) -> tuple[list, list]:
        return self._walk(self.root, ("new_expression",), ("call_expression",))

    def ctor(self, node) -> list[str]:
        return _dotted(_strip(node.child_by_field_name("constructor")))

    def args(self, node) -> list:
        args = node.child_by_field_name("arguments")
        return [a for a in args.named_children if a.type != "comment"] if args is not None else []

    def props_at(self, node, args: list, index: int):
        return args[index] if len(args) > index else None

    def is_construct(self, node) -> bool:
        return node.type == "new_expression"

    def strip(self, node):
        return _strip(node)

    def member(self, node) -> tuple | None:
        if node is None or node.type != "member_expression":
            return None
        return node.child_by_field_name("object"), _text(node.child_by_field_name("property"))

    def method(self, call) -> tuple | None:
        return self.member(call.child_by_field_name("function"))

    def call(self, node) -> tuple | None:
        if node.type != "call_expression":
            return None
        return _dotted(node.child_by_field_name("function")), self.args(node)

    def obj(self, node, raw: bool = False) -> tuple | None:
        from .engine import evaluate

        v = evaluate(node, self.synth.f)
        if v.kind != "obj":
            return None
        return v.value, v.mark == "open", v.file is not None and v.file is not self.synth.f

    def array(self, node) -> list | None:
        if node is None or node.type != "array":
            return None
        return [k for k in node.named_children if k.type != "comment"]

    def resolve(self, node, depth=0):
        node = _strip(node)
        while node is not None and depth < MAX_DEPTH:
            depth += 1
            if node.type in ("identifier", "shorthand_property_identifier"):
                decl = self.js.declaration(_text(node), node)
                if decl is None or decl.type != "variable_declarator":
                    return node
                value = _strip(decl.child_by_field_name("value"))
                if value is None:
                    return node
                node = value
                continue
            if node.type == "member_expression":
                obj = _strip(node.child_by_field_name("object"))
                prop = node.child_by_field_name("property")
                if obj is not None and obj.type == "this" and prop is not None:
                    try:
                        field = self.js._field(_text(prop), node)
                    except Exception:  # noqa: BLE001 - nesting beyond the scopes' bounds
                        field = None
                    field = _strip(field)
                    if field is None:
                        return node
                    node = field
                    continue
            return node
        return node

    def imports(self) -> dict[str, tuple[str, str | None]]:
        """The file's local names for CDK modules and classes (``import``, ``import x = require``, ``require``)."""
        locals_: dict[str, tuple[str, str | None]] = {}
        for stmt in self.root.named_children:
            if stmt.type == "import_statement":
                src = stmt.child_by_field_name("source")
                module = self.js._string(src) if src is not None else None
                family = _family(module) if module else None
                for clause in stmt.named_children:
                    if clause.type == "import_require_clause":  # import sqs = require('@aws-cdk/aws-sqs')
                        name = clause.named_children[0] if clause.named_children else None
                        req = [c for c in clause.named_children if c.type == "string"]
                        fam = _family(self.js._string(req[0])) if req else None
                        if name is not None and fam is not None:
                            locals_[_text(name)] = (fam, None)
                    if clause.type != "import_clause" or family is None:
                        continue
                    for part in clause.named_children:
                        if part.type == "namespace_import":  # import * as sqs from
                            ids = [c for c in part.named_children if c.type == "identifier"]
                            if ids:
                                locals_[_text(ids[-1])] = (family, None)
                        elif part.type == "identifier":  # import cdk from (default)
                            locals_[_text(part)] = (family, None)
                        elif part.type == "named_imports":
                            for spec in part.named_children:
                                if spec.type != "import_specifier":
                                    continue
                                name = spec.child_by_field_name("name")
                                alias = spec.child_by_field_name("alias") or name
                                if name is None:
                                    continue
                                exported = _text(name)
                                if family == "core" and exported in _NAMESPACES:
                                    locals_[_text(alias)] = (_NAMESPACES[exported], None)
                                else:
                                    locals_[_text(alias)] = (family, exported)
            elif stmt.type in ("lexical_declaration", "variable_declaration"):
                for decl in stmt.named_children:
                    if decl.type != "variable_declarator":
                        continue
                    value = _strip(decl.child_by_field_name("value"))
                    module = self.js.require_of(value) if value is not None else None
                    family = _family(module) if module else None
                    name = decl.child_by_field_name("name")
                    if family is None or name is None:
                        continue
                    if name.type == "identifier":
                        locals_[_text(name)] = (family, None)
                    elif name.type == "object_pattern":
                        for part in name.named_children:
                            key, local = self.js._pattern_names(part)
                            if key and local:
                                locals_[local] = (family, key)
        return locals_


def _key(node) -> tuple[int, int]:
    return node.start_byte, node.end_byte


def _text(node) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def _shown(node, width: int = 60) -> str:
    return " ".join(_text(node).split())[:width] if node is not None else ""


def _strip(node):
    while node is not None and node.type in _WRAPPERS:
        kids = [k for k in node.named_children if k.type != "comment"]
        if not kids:
            return None
        node = kids[0]
    return node


def _dotted(node) -> list[str]:
    """``a.b.C`` -> ["a", "b", "C"]; [] for anything else."""
    parts = []
    while node is not None and node.type == "member_expression":
        prop = node.child_by_field_name("property")
        parts.append(_text(prop))
        node = _strip(node.child_by_field_name("object"))
    if node is None or node.type != "identifier":
        return []
    parts.append(_text(node))
    return parts[::-1]


def _whole(x):
    return int(x) if float(x).is_integer() else x


def _pascal(key: str) -> str:
    """A property's name as CloudFormation's: ``batchSize`` / ``batch_size`` -> ``BatchSize``."""
    if "_" in key.strip("_") and key == key.lower():
        return "".join(part[:1].upper() + part[1:] for part in key.split("_"))
    return key[:1].upper() + key[1:]


def _syntax(path: str) -> Syntax:
    if path.endswith(PY_ENDINGS):
        from .cdk_python import PythonSyntax  # only for a Python CDK app

        return PythonSyntax()
    return _TypeScript()


def _register() -> None:
    from ..registry import LoaderSpec, register
    from . import loader as _code  # noqa: F401 - registers "code", which this loader goes before

    register(LoaderSpec("cdk-source", None, claim_file, load, ENDINGS), before="code")


_register()
