"""SQS consumers in Java: AWS SDK v2 and v1 receive requests, Spring Cloud AWS 3.x listeners and container options.

- SDK v2 ``ReceiveMessageRequest.builder().queueUrl(..).visibilityTimeout(N)...build()`` and the consumer-builder
  form ``sqs.receiveMessage(r -> r.queueUrl(..).visibilityTimeout(N))``; SDK v1 ``new
  ReceiveMessageRequest(url).withVisibilityTimeout(N)`` and ``request.setVisibilityTimeout(N)``; v1
  ``sqs.receiveMessage(queueUrl)``. One consumer per request (platform ``sdk``); ``heartbeat`` True when the file
  changes visibility (``changeMessageVisibility``, ``ChangeMessageVisibilityRequest``), else False.
- Spring ``@SqsListener`` (one consumer per queue, platform ``spring``): ``messageVisibilitySeconds``,
  ``maxConcurrentMessages`` (concurrency), ``maxMessagesPerPoll``, ``pollTimeoutSeconds``,
  ``acknowledgementMode``; String attributes, so ``${...}`` placeholders are not values (a note), and a queue
  written as ``${app.queue}`` becomes ``QueueRef("env", "app.queue")``, which application.yml/properties bind
  (frameworks.py). ``SqsContainerOptions`` (``messageVisibility(Duration)``, ``listenerShutdownTimeout``,
  ``maxConcurrentMessages``...) apply to the file's listeners that do not set their own, or to the container's
  ``queueNames``; ``stop_timeout`` is ``listenerShutdownTimeout`` (facts.SPRING_LISTENER_SHUTDOWN_DEFAULT when
  not written). ``heartbeat``: True when the file calls ``Visibility.changeTo``, else False (3.x has none).
"""

from __future__ import annotations

from visguard import facts

from . import CodeResult
from ._poly import Reader, Value, apply_number, apply_queue, number, parse, text, walk

EXTENSIONS = (".java",)

_SDK_OPTIONS = {  # request option (lower case, without set/with) -> field
    "queueurl": "queue",
    "visibilitytimeout": "visibility_override",
    "waittimeseconds": "wait_time",
    "maxnumberofmessages": "max_messages",
}
_LISTENER = {  # @SqsListener attribute -> field
    "messageVisibilitySeconds": "visibility_override",
    "maxConcurrentMessages": "concurrency",
    "maxMessagesPerPoll": "max_messages",
    "pollTimeoutSeconds": "wait_time",
}
_CONTAINER = {  # SqsContainerOptions builder method -> field
    "messageVisibility": "visibility_override",
    "maxConcurrentMessages": "concurrency",
    "maxMessagesPerPoll": "max_messages",
    "pollTimeout": "wait_time",
    "listenerShutdownTimeout": "stop_timeout",
    "acknowledgementMode": "acknowledgement_mode",
}
_CONTAINER_TYPES = {
    "SqsContainerOptions",
    "SqsMessageListenerContainerFactory",
    "SqsMessageListenerContainer",
}
_DURATION = {"ofSeconds": 1, "ofMinutes": 60, "ofHours": 3600, "ofMillis": 0.001, "ofDays": 86_400}
_HEARTBEAT = {
    "changeMessageVisibility",
    "changeMessageVisibilityBatch",
    "changeMessageVisibilityAsync",
    "changeMessageVisibilityBatchAsync",
}
_HEARTBEAT_TYPES = {"ChangeMessageVisibilityRequest", "ChangeMessageVisibilityBatchRequest"}


def read(path: str, data: bytes) -> CodeResult:
    r = Reader(path, "java", data)
    _File(r, parse("java", data)).run()
    return r.result


def _chain(node):
    """``a.b(x).c(y)``: the root (``a``) and the calls [(name, argument nodes, call node)] innermost first."""
    calls = []
    while node is not None and node.type == "method_invocation":
        args = node.child_by_field_name("arguments")
        calls.append((text(node.child_by_field_name("name")), args.named_children if args else [], node))
        node = node.child_by_field_name("object")
    calls.reverse()
    return node, calls


def _string(node) -> str:
    return "".join(text(c) for c in node.named_children if c.type in ("string_fragment", "escape_sequence"))


class _File:
    def __init__(self, r: Reader, root):
        self.r, self.root = r, root
        self.nodes = list(walk(root))
        self.bindings: dict[str, list] = {}  # name -> [(declared type, value node)]
        for n in self.nodes:
            if n.type == "variable_declarator":
                decl = n.parent
                typ = text(decl.child_by_field_name("type")) if decl is not None else ""
                self.bindings.setdefault(text(n.child_by_field_name("name")), []).append(
                    (typ, n.child_by_field_name("value"))
                )
        self.request_vars: dict[str, object] = {}  # variable -> consumer of the request it holds

    # ----------------------------------------------------------------------------------------- values
    def value(self, node, depth: int = 0) -> Value:
        t = node.type
        if t in ("decimal_integer_literal", "hex_integer_literal", "decimal_floating_point_literal"):
            n = number(text(node))
            return Value("int", n, node) if n is not None else Value("unknown", None, node)
        if t == "string_literal":
            s = _string(node)
            n = number(s) if s.strip().isdigit() else None
            return Value("int", n, node) if n is not None else Value("str", s, node)
        if t in ("true", "false"):
            return Value("bool", t == "true", node)
        if t in ("parenthesized_expression", "cast_expression"):
            inner = node.child_by_field_name("value") or (
                node.named_children[-1] if node.named_children else None
            )
            return (
                self.value(inner, depth + 1)
                if inner is not None and depth < 8
                else Value("unknown", None, node)
            )
        if t == "element_value_array_initializer" or t == "array_initializer":
            return Value("list", [self.value(c, depth + 1) for c in node.named_children], node)
        if t == "identifier" or (t == "field_access" and text(node.child_by_field_name("object")) == "this"):
            name = text(node if t == "identifier" else node.child_by_field_name("field"))
            found = self.bindings.get(name, [])
            if len(found) == 1 and found[0][1] is not None and depth < 8:
                v = self.value(found[0][1], depth + 1)
                return Value(v.kind, v.value, node if v.kind == "unknown" else v.node, v.why or f"{name}")
            why = (
                f"{name} is assigned more than once"
                if len(found) > 1
                else f"{name} is not a constant of this file"
            )
            return Value("unknown", None, node, why)
        if t == "method_invocation":
            return self.call_value(node, depth)
        return Value("unknown", None, node, text(node)[:60])

    def call_value(self, node, depth: int) -> Value:
        root, calls = _chain(node)
        name, args, _ = calls[-1]
        owner = text(root) if root is not None else ""
        if owner == "System" and calls[0][0] == "getenv":
            first = calls[0][1]
            if first and first[0].type == "string_literal":
                return Value("env", _string(first[0]), node)
            if len(calls) > 1 and calls[1][0] in ("get", "getOrDefault") and calls[1][1]:  # noqa: SIM102
                if calls[1][1][0].type == "string_literal":
                    return Value("env", _string(calls[1][1][0]), node)
        if owner in ("Integer", "Long", "String") and name in ("parseInt", "valueOf", "parseLong") and args:
            v = self.value(args[0], depth + 1)
            if v.kind == "str" and number(v.value) is not None:
                return Value("int", number(v.value), v.node)
            return v
        if owner == "Duration" and name in _DURATION and args:
            v = self.value(args[0], depth + 1)
            if v.kind == "int":
                seconds = v.value * _DURATION[name]
                return Value("int", int(seconds) if float(seconds).is_integer() else seconds, v.node)
            return v
        if any(n == "getQueueUrl" for n, _, _ in calls):  # sqs.getQueueUrl(b -> b.queueName("orders"))
            for sub in walk(node):
                if sub.type == "method_invocation" and text(sub.child_by_field_name("name")) in (
                    "queueName",
                    "getQueueUrl",
                    "withQueueName",
                ):
                    a = sub.child_by_field_name("arguments")
                    if a is not None and a.named_children:
                        v = self.value(a.named_children[0], depth + 1)
                        if v.kind in ("str", "env"):
                            return Value("name" if v.kind == "str" else "env", v.value, v.node)
        return Value("unknown", None, node, f"{text(node)[:60]}")

    # ----------------------------------------------------------------------------------------- SDK
    def run(self) -> None:
        r = self.r
        heartbeat = False
        spring_heartbeat = False
        for n in self.nodes:
            if n.type == "method_invocation":
                name = text(n.child_by_field_name("name"))
                heartbeat |= name in _HEARTBEAT
                spring_heartbeat |= name in ("changeTo", "changeToAsync")
            elif n.type == "type_identifier" or n.type == "identifier":
                heartbeat |= text(n) in _HEARTBEAT_TYPES
        for n in self.nodes:
            if n.type == "method_invocation" and not _is_inner(n):
                self.sdk_chain(n)
            elif (
                n.type == "object_creation_expression"
                and _type_name(n) == "ReceiveMessageRequest"
                and not (n.parent is not None and n.parent.type == "method_invocation" and _is_object(n))
            ):
                self.sdk_request(n, [])
        for n in self.nodes:
            if n.type == "method_invocation":
                self.setter(n)
                self.receive_call(n)
        for c in r.result.consumers:
            c.heartbeat = heartbeat
        listeners = [
            n
            for n in self.nodes
            if n.type in ("annotation", "marker_annotation") and _ann(n) == "SqsListener"
        ]
        spring = []
        for a in listeners:
            spring.extend(self.listener(a))
        spring.extend(self.container(spring))
        for c in spring:
            c.heartbeat = spring_heartbeat
            if c.stop_timeout is None:
                c.stop_timeout = facts.SPRING_LISTENER_SHUTDOWN_DEFAULT

    def sdk_chain(self, node) -> None:
        root, calls = _chain(node)
        if root is not None and root.type == "identifier" and text(root) == "ReceiveMessageRequest":
            if calls and calls[0][0] == "builder":
                self.sdk_request(calls[0][2], calls[1:], holder=node)
        elif (
            root is not None
            and root.type == "object_creation_expression"
            and _type_name(root) == "ReceiveMessageRequest"
        ):
            self.sdk_request(root, calls, holder=node)

    def sdk_request(self, node, calls, holder=None):
        r = self.r
        c = r.consumer(node, "sdk")
        if node.type == "object_creation_expression":
            args = node.child_by_field_name("arguments")
            if args is not None and args.named_children:
                apply_queue(r, c, self.value(args.named_children[0]), "ReceiveMessageRequest")
        for name, args, call in calls:
            self.option(c, name, args, call)
        top = holder if holder is not None else node
        if top.parent is not None and top.parent.type == "variable_declarator":
            self.request_vars[text(top.parent.child_by_field_name("name"))] = c
        if c.queue_ref is None and "queue_ref" not in c.locations:
            c.locations["queue_ref"] = c.location
        return c

    def option(self, c, name: str, args, call) -> None:
        key = name
        for prefix in ("with", "set"):
            if key.startswith(prefix) and key[len(prefix) : len(prefix) + 1].isupper():
                key = key[len(prefix) :]
        field = _SDK_OPTIONS.get(key.lower())
        if field is None or not args:
            return
        v = self.value(args[0])
        if field == "queue":
            apply_queue(self.r, c, v, f"{name} at {self.r.path}")
        else:
            apply_number(self.r, c, field, v, f"{name}")

    def setter(self, n) -> None:
        obj = n.child_by_field_name("object")
        if obj is None or obj.type != "identifier" or text(obj) not in self.request_vars:
            return
        args = n.child_by_field_name("arguments")
        self.option(self.request_vars[text(obj)], text(n.child_by_field_name("name")), args.named_children, n)

    def receive_call(self, n) -> None:
        """``sqs.receiveMessage(r -> r.queueUrl(..)...)`` and v1 ``sqs.receiveMessage(queueUrl)``."""
        if text(n.child_by_field_name("name")) not in ("receiveMessage", "receiveMessageAsync"):
            return
        if n.child_by_field_name("object") is None:
            return
        args = n.child_by_field_name("arguments")
        if args is None or len(args.named_children) != 1:
            return
        arg = args.named_children[0]
        if arg.type == "lambda_expression":
            body = arg.child_by_field_name("body")
            if body is not None and body.type == "method_invocation":
                _, calls = _chain(body)
                c = self.sdk_request_at(n)
                for name, a, call in calls:
                    self.option(c, name, a, call)
            return
        if arg.type in ("string_literal",) or (
            arg.type == "method_invocation" and text(arg).startswith("System.")
        ):
            apply_queue(self.r, self.sdk_request_at(n), self.value(arg), "receiveMessage")
            return
        if arg.type == "identifier":
            found = self.bindings.get(text(arg), [])
            if found and all(t == "String" for t, _ in found):
                apply_queue(self.r, self.sdk_request_at(n), self.value(arg), "receiveMessage")

    def sdk_request_at(self, n):
        c = self.r.consumer(n, "sdk")
        c.locations.setdefault("queue_ref", c.location)
        return c

    # ----------------------------------------------------------------------------------------- Spring
    def listener(self, ann) -> list:
        r = self.r
        attrs: dict[str, object] = {}
        args = ann.child_by_field_name("arguments")
        for a in args.named_children if args is not None else []:
            if a.type == "element_value_pair":
                attrs[text(a.child_by_field_name("key"))] = a.child_by_field_name("value")
            elif "value" not in attrs:
                attrs["value"] = a
        queues = []
        for key in ("value", "queueNames"):
            if key in attrs:
                v = self.value(attrs[key])
                queues.extend(v.value if v.kind == "list" else [v])
        out = []
        for q in queues or [None]:
            c = r.consumer(ann, "spring")
            if isinstance(q, Value) and q.kind == "str" and q.value.startswith("${"):
                prop = q.value[2:].rstrip("}").split(":", 1)[0]
                apply_queue(r, c, Value("env", prop, q.node), "@SqsListener")
            elif q is not None:
                apply_queue(r, c, q, "@SqsListener")
            for attr, field in _LISTENER.items():
                if attr in attrs:
                    v = self.value(attrs[attr])
                    if v.kind == "str" and v.value.startswith("${"):
                        r.note(f"@SqsListener {attr} is the property {v.value}: not read", v.node)
                    else:
                        apply_number(r, c, field, v, f"@SqsListener {attr}")
            if "acknowledgementMode" in attrs:
                v = self.value(attrs["acknowledgementMode"])
                mode = v.value if v.kind == "str" else text(attrs["acknowledgementMode"]).rsplit(".", 1)[-1]
                r.set(c, "acknowledgement_mode", mode, attrs["acknowledgementMode"])
            out.append(c)
        return out

    def container(self, listeners: list) -> list:
        """SqsContainerOptions set in this file: onto its listeners, or a container's queueNames, or alone."""
        if not any(
            n.type in ("type_identifier", "identifier") and text(n) in _CONTAINER_TYPES for n in self.nodes
        ):
            return []
        r = self.r
        options = []
        queues = []
        for n in self.nodes:
            if n.type != "method_invocation":
                continue
            name = text(n.child_by_field_name("name"))
            args = n.child_by_field_name("arguments")
            if name in _CONTAINER and args is not None and args.named_children:
                options.append((_CONTAINER[name], name, args.named_children[0], n))
            elif name == "queueNames" and args is not None:
                queues.extend(self.value(a) for a in args.named_children)
        if not options and not queues:
            return []
        targets = list(listeners)
        if queues:
            for q in queues:
                c = r.consumer(q.node, "spring")
                apply_queue(r, c, q, "SqsMessageListenerContainer queueNames")
                targets.append(c)
        elif not targets:
            targets.append(r.consumer(options[0][3], "spring"))
        made = targets[len(listeners) :]
        for c in targets:
            for field, name, arg, _ in options:
                if field in c.locations:
                    continue  # the listener's own attribute wins
                if field == "acknowledgement_mode":
                    r.set(c, field, text(arg).rsplit(".", 1)[-1], arg)
                else:
                    apply_number(r, c, field, self.value(arg), f"SqsContainerOptions {name}")
        return made


def _is_inner(n) -> bool:
    """``n`` is the object of another call (so not the outermost call of its chain)."""
    p = n.parent
    return p is not None and p.type == "method_invocation" and p.child_by_field_name("object") == n


def _is_object(n) -> bool:
    p = n.parent
    return p.child_by_field_name("object") == n


def _type_name(n) -> str:
    return text(n.child_by_field_name("type")).rsplit(".", 1)[-1]


def _ann(n) -> str:
    return text(n.child_by_field_name("name")).rsplit(".", 1)[-1]
