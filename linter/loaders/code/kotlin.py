"""SQS consumers in Kotlin: the AWS SDK for Java v2 and v1 called from Kotlin, the AWS SDK for Kotlin, Spring Cloud
AWS ``@SqsListener``.

Where they are is ``languages/kotlin.scm``; this module is the Kotlin entry of the code engine (``engine.py``) and
what a query cannot say (a request's chain of option calls, a builder lambda's assignments, what ``it`` iterates).

- SDK v2 ``ReceiveMessageRequest.builder().queueUrl(u).visibilityTimeout(30)...build()`` and the consumer-builder
  form ``sqs.receiveMessage { it.queueUrl(u).visibilityTimeout(30) }``; SDK v1 ``ReceiveMessageRequest(url)
  .withVisibilityTimeout(30)`` and ``sqs.receiveMessage(queueUrl)``; the SDK for Kotlin
  (``aws.sdk.kotlin.services.sqs``) ``sqs.receiveMessage { queueUrl = u; visibilityTimeout = 30 }`` and
  ``ReceiveMessageRequest { ... }``. One consumer per request (platform ``sdk``); ``heartbeat`` True when the file
  changes visibility (``changeMessageVisibility``, ``ChangeMessageVisibilityRequest``), else False.
- Spring ``@SqsListener("q")`` / ``@SqsListener(value = ["q"], ...)`` read as ``java.py`` reads Java's (one consumer
  per queue, platform ``spring``; 3.x ``messageVisibilitySeconds`` and the others; ``${prop}`` queues are
  ``QueueRef("env", "prop")``); 2.x ``deletionPolicy`` -> ``settings["deletion_policy"]``. A 2.x listener (the file
  imports ``io.awspring.cloud.messaging`` / ``org.springframework.cloud.aws.messaging``, or the build declares
  spring-cloud-aws 2.x) takes the container's ``cloud.aws.sqs.listener.*`` and the handler's
  ``cloud.aws.sqs.handler.default-deletion-policy`` from the project's application.yml/properties
  (:func:`java.spring2_defaults`).
- Values are the engine's :func:`evaluate`: literals (``30``, ``30L``, ``"q"`` with ``${x}`` of known parts,
  ``\"\"\"raw\"\"\"``), ``val``/``const val`` bindings, ``System.getenv("X") ?: "d"`` (the variable and its default),
  ``"30".toInt()`` and the other conversions, ``Duration.ofSeconds(n)``, ``30.seconds``; ``listOf(..)``/
  ``arrayOf(..)``/``["a"]``; ``@Value("\\${key:default}")`` on a parameter or a constructor property (the project's
  application.properties/yml, as ``java.py`` reads it; a ``List``/``Set``/``Array`` parameter splits the value at
  commas, as Spring's conversion does); ``it`` (or a lambda's one parameter) inside ``xs.forEach { }``,
  ``xs.map { }``, ``xs.associateBy({ }, { })`` and the other per-element calls, and ``q`` of ``for (q in xs)``, is
  each of ``xs`` (a list value: a CreateQueue of it creates each queue, ``creates.py``).
- The queues the code creates are ``creates.py``'s, located at the ``createQueue`` call: its request is a builder
  chain (``CreateQueueRequest.builder().queueName(n).attributes(mapOf(K to V)).build()``, v1
  ``CreateQueueRequest(n).withAttributes(..)``), a name bound once to one, a builder lambda (the SDK for Kotlin's
  ``createQueue { queueName = n; attributes = mapOf(..) }``, v2's ``createQueue { it.queueName(n) }``) or the name
  itself (v1 ``createQueue("q")``): :func:`create_site`.
"""

from __future__ import annotations

import re

from visguard import facts

from . import CodeResult, creates, java
from .engine import (
    File,
    Language,
    Reader,
    Value,
    evaluate,
    number,
    shown,
    text,
    unknown,
)

EXTENSIONS = (".kt", ".kts")

_SDK_OPTIONS = {  # request option (lower case, without set/with) -> field
    "queueurl": "queue",
    "visibilitytimeout": "visibility_override",
    "waittimeseconds": "wait_time",
    "maxnumberofmessages": "max_messages",
}
# calls whose lambda gets each element of their receiver as ``it`` (or its one parameter)
_PER_ELEMENT = frozenset({
    "forEach", "map", "mapNotNull", "mapTo", "associate", "associateBy", "associateWith", "onEach", "filter",
    "filterNot", "flatMap", "all", "any", "none", "first", "firstOrNull", "find", "sumOf", "mapIndexedNotNull",
    "parallelStream().forEach", "stream().forEach",
})  # fmt: skip
_COLLECTIONS = frozenset(
    {"listOf", "arrayOf", "setOf", "mutableListOf", "mutableSetOf", "arrayListOf", "hashSetOf"}
)
_MAPS = frozenset({"mapOf", "mutableMapOf", "hashMapOf", "linkedMapOf"})
_CONVERSIONS = frozenset({
    "toInt", "toLong", "toString", "trim", "toIntOrNull", "toLongOrNull", "orEmpty", "toShort", "lowercase",
    "uppercase",
})  # fmt: skip
_NUMERIC = frozenset({"toInt", "toLong", "toIntOrNull", "toLongOrNull", "toShort"})
_UNITS = {"ofSeconds": 1, "ofMinutes": 60, "ofHours": 3600, "ofMillis": 0.001, "ofDays": 86_400}
_UNIT_PROPERTIES = {"seconds": 1, "minutes": 60, "hours": 3600, "milliseconds": 0.001, "days": 86_400}
_SPLIT_TYPES = frozenset({"List", "MutableList", "Set", "MutableSet", "Array", "Collection", "Iterable"})
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "$": "$", '"': '"', "'": "'", "\\": "\\"}
_IDENT_START = re.compile(r"^[A-Za-z_]")
_COMMENTS = frozenset({"line_comment", "block_comment", "comment"})
MAX_CHAIN = 64  # calls followed along one builder chain
_SPRING2_IMPORTS = (b"io.awspring.cloud.messaging", b"org.springframework.cloud.aws.messaging")


# --------------------------------------------------------------------------------------------- syntax helpers
def _kids(node) -> list:
    return [k for k in node.named_children if k.type not in _COMMENTS]


def _callee(call):
    """(the receiver or None, the called name's node) of a ``call_expression``, or (None, None)."""
    kids = _kids(call)
    if not kids:
        return None, None
    head = kids[0]
    if head.type == "identifier":
        return None, head
    if head.type == "navigation_expression":
        parts = _kids(head)
        if len(parts) == 2 and parts[1].type == "identifier":
            return parts[0], parts[1]
    return None, None


def _arguments(call) -> tuple[list, dict, object]:
    """(positional value nodes, {name: value node}, the trailing lambda or None) of a ``call_expression``."""
    pos, named, lam = [], {}, None
    for k in _kids(call)[1:]:
        if k.type == "value_arguments":
            for a in _kids(k):
                if a.type != "value_argument":
                    continue
                inner = _kids(a)
                if not inner:
                    continue
                if (
                    len(inner) >= 2
                    and any(c.type == "=" for c in a.children)
                    and inner[0].type == "identifier"
                ):
                    named[text(inner[0])] = inner[-1]
                else:
                    pos.append(inner[-1])
        elif k.type == "annotated_lambda":
            lam = next((x for x in _kids(k) if x.type == "lambda_literal"), None)
    return pos, named, lam


def _up_calls(f: File, node) -> list:
    """The calls chained on ``node`` (``node.a(x).b(y)``), innermost first."""
    out = []
    for _ in range(MAX_CHAIN):
        nav = f.parent(node)
        if nav is None or nav.type != "navigation_expression" or _kids(nav)[:1] != [node]:
            break
        call = f.parent(nav)
        if call is None or call.type != "call_expression" or _kids(call)[:1] != [nav]:
            break
        out.append(call)
        node = call
    return out


def _down_calls(node) -> tuple[object, list]:
    """``a.b(x).c(y)``: the root (``a``) and the calls, innermost first."""
    calls = []
    for _ in range(MAX_CHAIN):
        if node is None or node.type != "call_expression":
            break
        receiver, name = _callee(node)
        if name is None:
            break
        calls.append(node)
        if receiver is None:
            node = None
            break
        node = receiver
    calls.reverse()
    return node, calls


def _statements(lam) -> list:
    """The statements of a lambda's body."""
    if lam is None:
        return []
    out = []
    for k in _kids(lam):
        if k.type == "statements":
            out.extend(_kids(k))
        elif k.type not in ("lambda_parameters",):
            out.append(k)
    return out


def _assignment(node) -> tuple[str, object] | None:
    if node.type != "assignment":
        return None
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None:
        kids = _kids(node)
        if len(kids) != 2:
            return None
        left, right = kids
    name = _kids(left)[-1] if left.type == "navigation_expression" and _kids(left) else left
    return text(name), right


# --------------------------------------------------------------------------------------------- values
def _string(node, f: File, depth: int) -> Value:
    parts, built, kids = [], False, node.named_children
    for i, k in enumerate(kids):
        if k.type == "string_content":
            raw = text(k)
            nxt = kids[i + 1] if i + 1 < len(kids) else None
            if (
                raw == "$"
                and nxt is not None
                and nxt.type == "string_content"
                and _IDENT_START.match(text(nxt))
            ):
                return unknown(node, f"built from ${text(kids[i + 1])[:30]}")
            parts.append(raw)
        elif k.type == "escape_sequence":
            raw = text(k)
            parts.append(_ESCAPES.get(raw[1:2], raw) if len(raw) == 2 else raw)
        elif k.type == "interpolation":
            inner = _kids(k)
            v = evaluate(inner[0], f, depth + 1) if len(inner) == 1 else unknown(k)
            if v.kind not in ("str", "int"):
                return unknown(node, f"built from {shown(k)}")
            parts.append(str(v.value))
            built = True
    v = Value("str", "".join(parts), node)
    v.computed = built
    return v


def _split(v: Value) -> Value:
    """A property bound to a List/Set/Array: Spring converts a comma-separated value to its elements."""
    if v.kind == "str":
        items = [Value("str", s.strip(), v.node) for s in v.value.split(",") if s.strip()]
        out = Value("list", items, v.node)
        out.via = v.via
        return out
    if v.kind == "env" and v.default is not None and v.default.kind == "str":
        return Value("env", v.value, v.node, default=_split(v.default))
    return v


def _annotation_name(ann) -> str:
    ci = next((k for k in _kids(ann) if k.type in ("constructor_invocation", "user_type")), None)
    if ci is None:
        return ""
    ut = ci if ci.type == "user_type" else next((k for k in _kids(ci) if k.type == "user_type"), None)
    ids = [k for k in _kids(ut) if k.type == "identifier"] if ut is not None else []
    return text(ids[-1]) if ids else ""


def _injected(ann, f: File, depth: int, split: bool) -> Value:
    """``@Value("\\${key:default}")``: the project's configuration (java.inject)."""
    ci = next((k for k in _kids(ann) if k.type == "constructor_invocation"), None)
    if ci is None:
        return unknown(ann)
    pos, named, _ = _arguments(ci)
    arg = named.get("value") or (pos[0] if pos else None)
    key = evaluate(arg, f, depth + 1) if arg is not None else None
    if key is None or key.kind != "str":
        return unknown(ann)
    v = java.inject(f, ann, key.value, None)
    return _split(v) if split else v


def _type_name(node) -> str:
    ut = next((k for k in _kids(node) if k.type in ("user_type", "nullable_type")), None)
    if ut is not None and ut.type == "nullable_type":
        ut = next((k for k in _kids(ut) if k.type == "user_type"), None)
    ids = [k for k in _kids(ut) if k.type == "identifier"] if ut is not None else []
    return text(ids[0]) if ids else ""


def _value_annotation(mods):
    return (
        next((a for a in _kids(mods) if a.type == "annotation" and _annotation_name(a) == "Value"), None)
        if mods is not None
        else None
    )


def _parameter(node, f: File, depth: int) -> Value | None:
    """An identifier that is a parameter injected by ``@Value``: its property's value."""
    key = text(node)
    for fn, p in f._param_nodes.get(key, ()) if f.is_param(key, node.start_byte) else ():
        if not (fn.start_byte <= node.start_byte < fn.end_byte):
            continue
        param = f.parent(p)
        if param is None:
            continue
        prev = param.prev_named_sibling
        ann = _value_annotation(prev) if prev is not None and prev.type == "parameter_modifiers" else None
        if ann is not None:
            return _injected(ann, f, depth, _type_name(param) in _SPLIT_TYPES)
    return None


def _each(node, f: File, depth: int) -> Value | None:
    """``it`` (or a lambda's one parameter) of a per-element call: each element of its receiver (a list)."""
    name = text(node)
    up = f.parent(node)
    for _ in range(64):
        if up is None or up.type in ("function_declaration", "class_body", "source_file"):
            return None
        if up.type == "lambda_literal":
            params = next((k for k in _kids(up) if k.type == "lambda_parameters"), None)
            names = [text(x) for x in (params.named_children if params is not None else ())]
            if (
                (params is None and name == "it")
                or names == [name]
                or [n.split(":")[0].strip() for n in names] == [name]
            ):
                break
            if params is not None and name in names:
                return None
        up = f.parent(up)
    else:
        return None
    lam = up
    holder = f.parent(lam)
    if holder is not None and holder.type in ("value_argument", "annotated_lambda"):
        holder = f.parent(holder)
    if holder is not None and holder.type == "value_arguments":
        holder = f.parent(holder)
    if holder is None or holder.type != "call_expression":
        return None
    receiver, called = _callee(holder)
    if receiver is None or called is None or text(called) not in _PER_ELEMENT:
        return None
    v = evaluate(receiver, f, depth + 1)
    if v.kind == "str":
        return Value("list", [v], node)
    return v if v.kind in ("list", "env") else unknown(node, f"each of {shown(receiver)}")


def _call(node, f: File, depth: int) -> Value | None:
    receiver, called = _callee(node)
    if called is None:
        return None
    name = text(called)
    pos, named, _ = _arguments(node)
    if receiver is not None and text(receiver) == "System" and name == "getenv" and len(pos) == 1:
        var = evaluate(pos[0], f, depth + 1)
        if var.kind == "str" and var.value:
            return Value("env", var.value, node)
        return unknown(node, "an environment variable whose name is computed")
    if receiver is None and name in _COLLECTIONS:
        return Value("list", [evaluate(a, f, depth + 1) for a in pos], node)
    if receiver is not None and name in _CONVERSIONS and not pos:
        v = evaluate(receiver, f, depth + 1)
        if name in _NUMERIC and v.kind == "str" and number(v.value.strip()) is not None:
            n = Value("int", number(v.value.strip()), v.node)
            n.via = v.via
            return n
        return v
    if (
        receiver is not None
        and text(receiver) in ("Duration", "java.time.Duration")
        and name in _UNITS
        and len(pos) == 1
    ):
        return _scaled(evaluate(pos[0], f, depth + 1), _UNITS[name], node)
    return unknown(node)


def _scaled(v: Value, unit: float, node) -> Value:
    if v.kind != "int":
        return v
    try:
        from visguard.linter.loaders import values

        seconds = values.number(v.value * unit)
    except Exception:  # noqa: BLE001 - beyond any AWS limit: not read
        return unknown(node, f"{shown(node)} is beyond any AWS limit")
    out = Value("int", seconds, v.node)
    out.via, out.scale, out.computed = v.via, v.scale * unit, v.computed
    return out


def _hook(node, f: File, depth: int) -> Value | None:
    t = node.type
    if t in ("string_literal", "multiline_string_literal"):
        return _string(node, f, depth)
    if t == "identifier":
        raw = text(node)
        if raw in ("true", "false"):
            return Value("bool", raw == "true", node)
        if raw == "null":
            return Value("none", None, node)
        got = _parameter(node, f, depth)
        if got is None:
            got = _each(node, f, depth)
        return got
    if t == "annotation" and _annotation_name(node) == "Value":
        return _injected(node, f, depth, False)
    if t == "modifiers":  # a constructor property's modifiers: its @Value
        ann = _value_annotation(node)
        if ann is None:
            return unknown(node)
        param = f.parent(node)
        return _injected(ann, f, depth, param is not None and _type_name(param) in _SPLIT_TYPES)
    if t == "navigation_expression":
        parts = _kids(node)
        if len(parts) == 2 and parts[0].type == "this_expression":
            return f.name(parts[1], depth, field=True)
        if len(parts) == 2 and text(parts[1]) in _UNIT_PROPERTIES:  # kotlin.time: 30.seconds
            return _scaled(evaluate(parts[0], f, depth + 1), _UNIT_PROPERTIES[text(parts[1])], node)
        return unknown(node)
    if t == "call_expression":
        return _call(node, f, depth)
    if t == "binary_expression" and text(node.child_by_field_name("operator")).strip() == "?:":
        left = evaluate(node.child_by_field_name("left"), f, depth + 1)
        right = evaluate(node.child_by_field_name("right"), f, depth + 1)
        if left.kind == "env" and left.default is None:
            return Value(
                "env", left.value, left.node, default=right if right.kind in ("str", "int") else None
            )
        return left if left.kind in ("str", "int") else unknown(node, left.why or shown(node))
    if t == "collection_literal":
        return Value("list", [evaluate(k, f, depth + 1) for k in _kids(node)], node)
    return None


KOTLIN = Language(
    "kotlin",
    "kotlin",
    annotation="//",
    numbers={"number_literal", "float_literal", "long_literal", "integer_literal"},
    strings={"string_literal", "multiline_string_literal"},
    names={"identifier"},
    wrappers={"parenthesized_expression", "value_argument"},
    unary={"unary_expression", "prefix_expression"},
    binary={"binary_expression", "additive_expression", "multiplicative_expression"},
    hook=_hook,
)


# --------------------------------------------------------------------------------------------- reading
def read(path: str, data: bytes) -> CodeResult:
    f = File(KOTLIN, data, path=path)
    r = Reader(path, "kotlin", data, KOTLIN)
    done: set[int] = set()
    for node in f.captures("request"):
        _request(r, f, node, done)
    for node in f.captures("receive"):
        _receive(r, f, node, done)
    heartbeat = bool(f.captures("heartbeat"))
    for c in r.result.consumers:
        c.heartbeat = heartbeat
    spring = []
    for ann in f.captures("listener"):
        spring.extend(_listener(r, f, ann))
    for c in spring:
        c.heartbeat = heartbeat
        if c.stop_timeout is None:
            c.stop_timeout = facts.SPRING_LISTENER_SHUTDOWN_DEFAULT
    if spring and _spring2(f):
        java.spring2_defaults(r, f, spring)
    creates.read(f, r)  # the queues the code creates (issue 35)
    return r.finish()


def _option(r: Reader, f: File, c, name: str, arg) -> None:
    key = name
    for prefix in ("with", "set"):
        if key.startswith(prefix) and key[len(prefix) : len(prefix) + 1].isupper():
            key = key[len(prefix) :]
    field = _SDK_OPTIONS.get(key.lower())
    if field is None or arg is None:
        return
    v = evaluate(arg, f)
    if field == "queue":
        r.queue(c, v, f"{name} at {r.path}")
    else:
        r.number(c, field, v, name)


def _chain_options(r: Reader, f: File, c, calls) -> None:
    for call in calls:
        _, called = _callee(call)
        pos, _, lam = _arguments(call)
        if called is not None and pos:
            _option(r, f, c, text(called), pos[0])


def _lambda_options(r: Reader, f: File, c, lam) -> None:
    """A builder lambda: ``{ queueUrl = u; visibilityTimeout = 30 }`` or ``{ it.queueUrl(u).visibilityTimeout(30) }``."""
    for s in _statements(lam):
        pair = _assignment(s)
        if pair is not None:
            _option(r, f, c, pair[0], pair[1])
        elif s.type == "call_expression":
            _chain_options(r, f, c, _down_calls(s)[1])


def _request(r: Reader, f: File, node, done: set) -> None:
    """``ReceiveMessageRequest.builder()...``, ``ReceiveMessageRequest(url)...``, ``ReceiveMessageRequest { }``."""
    up = f.parent(node)
    if up is None:
        return
    if up.type == "navigation_expression" and _kids(up)[:1] == [node]:
        call = f.parent(up)
        if call is None or call.type != "call_expression" or text(_callee(call)[1] or node) != "builder":
            return
        start, first = call, []
    elif up.type == "call_expression" and _kids(up)[:1] == [node]:
        start = up
        pos, _, lam = _arguments(up)
        first = [("queue", pos[0])] if pos else []
    else:
        return
    c = r.consumer(start, "sdk")
    c.locations["queue_ref"] = c.location
    done.add(start.start_byte)
    for _, arg in first:
        r.queue(c, evaluate(arg, f), "ReceiveMessageRequest")
    _, _, lam = _arguments(start)
    if lam is not None:
        _lambda_options(r, f, c, lam)
    _chain_options(r, f, c, _up_calls(f, start))


def _receive(r: Reader, f: File, name, done: set) -> None:
    """``sqs.receiveMessage { ... }`` and v1 ``sqs.receiveMessage(queueUrl)``."""
    nav = f.parent(name)
    if nav is None or nav.type != "navigation_expression":
        return
    call = f.parent(nav)
    if call is None or call.type != "call_expression" or _callee(call)[1] != name:
        return
    pos, named, lam = _arguments(call)
    if lam is None and len(pos) == 1 and pos[0].type == "lambda_literal":
        lam = pos[0]
    if lam is not None:
        c = r.consumer(call, "sdk")
        c.locations["queue_ref"] = c.location
        _lambda_options(r, f, c, lam)
        return
    if len(pos) != 1 or any(d >= pos[0].start_byte and d < pos[0].end_byte for d in done):
        return
    v = evaluate(pos[0], f)
    if v.kind in ("str", "env"):  # v1: receiveMessage(queueUrl)
        c = r.consumer(call, "sdk")
        c.locations["queue_ref"] = c.location
        r.queue(c, v, "receiveMessage")


def _spring2(f: File) -> bool:
    """Whether the file's listeners are Spring Cloud AWS 2.x's (its import, else the build's version)."""
    if any(i in f.data for i in _SPRING2_IMPORTS):
        return True
    if b"io.awspring.cloud.sqs" in f.data:
        return False
    version = java.spring_version(f.path)
    return version is not None and version[0] < 3


def _listener(r: Reader, f: File, ann) -> list:
    """One consumer per queue of an ``@SqsListener``."""
    ci = next((k for k in _kids(ann) if k.type == "constructor_invocation"), None)
    pos, named = [], {}
    if ci is not None:
        pos, named, _ = _arguments(ci)
    else:  # a top-level function's `@SqsListener("q")` parses as an annotated parenthesized expression
        nxt = ann.next_named_sibling
        if nxt is not None and nxt.type == "parenthesized_expression":
            pos = _kids(nxt)[:1]
    attrs = dict(named)
    if pos:
        attrs.setdefault("value", pos[0])
    return java.listener_consumers(r, f, ann, attrs)


# --------------------------------------------------------------------------------------------- create sites
def create_site(f: File, token) -> dict | None:
    """The create site of a ``createQueue`` name (creates.py): {"site": the call, "kotlin": the request's fields
    ({"name": node, "attributes": node, "entries": [(key, value node)]})}, or None."""
    nav = f.parent(token)
    call = f.parent(nav) if nav is not None and nav.type == "navigation_expression" else nav
    if call is None or call.type != "call_expression" or _callee(call)[1] != token:
        return None
    pos, named, lam = _arguments(call)
    fields = {"entries": []}
    if lam is not None or (len(pos) == 1 and pos[0].type == "lambda_literal"):
        _lambda_fields(f, lam if lam is not None else pos[0], fields)
    elif named:
        for k, v in named.items():
            _field(f, k, [v], fields)
    elif len(pos) == 1:
        arg = pos[0]
        for _ in range(creates.MAX_FOLLOW):
            if arg.type != "identifier":
                break
            bound, _ = f.resolve(arg)
            if (
                bound is None
                or bound.type != "call_expression"
                or b"CreateQueueRequest" not in (bound.text or b"")
            ):
                break
            arg = bound
        if arg.type == "call_expression" and b"CreateQueueRequest" in (arg.text or b""):
            _chain_fields(f, arg, fields)
        else:
            fields["name"] = arg  # v1 createQueue("name")
    if "name" not in fields:
        return None
    return {"site": call, "kotlin": fields}


def _field(f: File, name: str, args: list, fields: dict) -> None:
    k = creates.key(name.removeprefix("with"))
    if k == "queuename" and args:
        fields.setdefault("name", args[0])
    elif k in ("attributes", "attributeswithstrings") and args:
        entries = _map_entries(f, args[0])
        if entries is None:
            fields.setdefault("attributes", args[0])
        else:
            fields["entries"] += entries
    elif k == "addattributesentry" and len(args) == 2:
        fields["entries"].append((text(args[0]), args[1]))


def _chain_fields(f: File, call, fields: dict) -> None:
    root, calls = _down_calls(call)
    if root is not None and root.type == "call_expression":  # CreateQueueRequest("name")...
        pos, _, lam = _arguments(root)
        if pos:
            fields.setdefault("name", pos[0])
        if lam is not None:
            _lambda_fields(f, lam, fields)
    for c in calls:
        receiver, called = _callee(c)
        if receiver is None and called is not None and text(called) == "CreateQueueRequest":
            pos, _, lam = _arguments(c)
            if pos:
                fields.setdefault("name", pos[0])
            if lam is not None:
                _lambda_fields(f, lam, fields)
            continue
        pos, _, _ = _arguments(c)
        if called is not None:
            _field(f, text(called), pos, fields)


def _lambda_fields(f: File, lam, fields: dict) -> None:
    for s in _statements(lam):
        pair = _assignment(s)
        if pair is not None:
            _field(f, pair[0], [pair[1]], fields)
        elif s.type == "call_expression":
            _chain_fields(f, s, fields)


def _map_entries(f: File, node, depth: int = 0) -> list | None:
    """``mapOf(K to V, ..)`` (and the mutable maps): its (key text, value node) entries; None for another map."""
    if depth > creates.MAX_FOLLOW:
        return None
    if node.type == "identifier":
        bound, _ = f.resolve(node)
        return _map_entries(f, bound, depth + 1) if bound is not None else None
    if node.type != "call_expression":
        return None
    receiver, called = _callee(node)
    if receiver is not None or called is None or text(called) not in _MAPS:
        return None
    pos, _, _ = _arguments(node)
    out = []
    for p in pos[: creates.MAX_FIELDS]:
        kids = _kids(p)
        if p.type == "infix_expression" and len(kids) == 3 and text(kids[1]) == "to":
            out.append((text(kids[0]), kids[2]))
        else:
            return None
    return out
