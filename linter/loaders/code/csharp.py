"""SQS consumers in C#: ``ReceiveMessageRequest`` of the AWS SDK for .NET.

One consumer per ``new ReceiveMessageRequest { QueueUrl = .., VisibilityTimeout = N, WaitTimeSeconds = ..,
MaxNumberOfMessages = .. }`` (or ``new ReceiveMessageRequest(queueUrl)``), with later property assignments
``request.VisibilityTimeout = N``; and ``sqs.ReceiveMessageAsync(queueUrl)`` with a queue URL (platform
``sdk``). Queue: a literal, a ``const``/field/local of the file assigned once, or
``Environment.GetEnvironmentVariable("X")``. ``heartbeat``: True when the file changes visibility
(``ChangeMessageVisibilityAsync``, ``ChangeMessageVisibilityRequest``), else False.
"""

from __future__ import annotations

from . import CodeResult
from ._poly import RECEIVE_FIELDS, Reader, Value, apply_number, apply_queue, number, parse, text, walk

EXTENSIONS = (".cs",)

_FIELDS = RECEIVE_FIELDS
_HEARTBEAT = {
    "ChangeMessageVisibility",
    "ChangeMessageVisibilityAsync",
    "ChangeMessageVisibilityBatch",
    "ChangeMessageVisibilityBatchAsync",
    "ChangeMessageVisibilityRequest",
    "ChangeMessageVisibilityBatchRequest",
}


def read(path: str, data: bytes) -> CodeResult:
    r = Reader(path, "csharp", data)
    _File(r, parse("csharp", data)).run()
    return r.result


def _declared(n):
    """The value of a ``variable_declarator`` (the named child after its name)."""
    name = n.child_by_field_name("name")
    rest = [c for c in n.named_children if c != name and c.type != "bracketed_argument_list"]
    return rest[-1] if rest else None


def _simple(n) -> str:
    return text(n).rsplit(".", 1)[-1]


class _File:
    def __init__(self, r: Reader, root):
        self.r = r
        self.nodes = list(walk(root))
        self.bindings: dict[str, list] = {}
        for n in self.nodes:
            if n.type == "variable_declarator":
                decl = n.parent
                typ = text(decl.child_by_field_name("type")) if decl is not None else ""
                self.bindings.setdefault(text(n.child_by_field_name("name")), []).append((typ, _declared(n)))
            elif (
                n.type == "assignment_expression"
                and n.parent is not None
                and n.parent.type == "expression_statement"
            ):
                left = n.child_by_field_name("left")
                if left is not None and left.type == "identifier":
                    self.bindings.setdefault(text(left), []).append(("", n.child_by_field_name("right")))
        self.requests: dict[str, object] = {}

    def value(self, node, depth: int = 0) -> Value:
        t = node.type
        if t == "argument" and node.named_children:
            return self.value(node.named_children[-1], depth)
        if t in ("integer_literal", "real_literal"):
            n = number(text(node))
            return Value("int", n, node) if n is not None else Value("unknown", None, node)
        if t in ("string_literal", "verbatim_string_literal", "raw_string_literal"):
            parts = [
                text(c)
                for c in node.named_children
                if c.type in ("string_literal_content", "escape_sequence")
            ]
            s = "".join(parts) if parts else text(node).lstrip("@").strip('"')
            return Value("str", s, node)
        if t in ("parenthesized_expression", "cast_expression") and node.named_children and depth < 8:
            return self.value(node.named_children[-1], depth + 1)
        if t == "identifier" or (t == "member_access_expression" and text(node).startswith("this.")):
            name = _simple(node)
            found = self.bindings.get(name, [])
            if len(found) == 1 and found[0][1] is not None and depth < 8:
                v = self.value(found[0][1], depth + 1)
                return v if v.kind != "unknown" else Value("unknown", None, node, v.why or name)
            why = "assigned more than once" if len(found) > 1 else "not a constant of this file"
            return Value("unknown", None, node, f"{name} is {why}")
        if t == "invocation_expression":
            fn = node.child_by_field_name("function")
            args = node.child_by_field_name("arguments")
            a = args.named_children if args is not None else []
            if (
                text(fn)
                in ("Environment.GetEnvironmentVariable", "System.Environment.GetEnvironmentVariable")
                and a
            ):
                v = self.value(a[0], depth + 1)
                if v.kind == "str":
                    return Value("env", v.value, node)
            if text(fn) in ("int.Parse", "Int32.Parse", "Convert.ToInt32") and a and depth < 8:
                v = self.value(a[0], depth + 1)
                return Value("int", number(v.value), v.node) if v.kind == "str" and number(v.value) else v
        return Value("unknown", None, node, text(node)[:60])

    def run(self) -> None:
        r = self.r
        heartbeat = False
        for n in self.nodes:
            if n.type == "object_creation_expression":
                typ = _simple(n.child_by_field_name("type"))
                heartbeat |= typ in _HEARTBEAT
                if typ == "ReceiveMessageRequest":
                    self.request(n)
            elif n.type == "invocation_expression":
                fn = n.child_by_field_name("function")
                name = _simple(
                    fn.child_by_field_name("name") if fn.type == "member_access_expression" else fn
                )
                heartbeat |= name in _HEARTBEAT
                if name in ("ReceiveMessageAsync", "ReceiveMessage"):
                    self.receive_call(n)
        for n in self.nodes:  # request.VisibilityTimeout = 30;
            if n.type == "assignment_expression":
                left = n.child_by_field_name("left")
                if left is not None and left.type == "member_access_expression":
                    owner = text(left.child_by_field_name("expression"))
                    prop = text(left.child_by_field_name("name"))
                    if owner in self.requests and prop in _FIELDS:
                        self.field(self.requests[owner], prop, n.child_by_field_name("right"))
        for c in r.result.consumers:
            c.heartbeat = heartbeat

    def request(self, n) -> None:
        r = self.r
        c = r.consumer(n, "sdk")
        c.locations["queue_ref"] = c.location
        args = n.child_by_field_name("arguments")
        if args is not None and args.named_children:
            self.field(c, "QueueUrl", args.named_children[0])
        init = n.child_by_field_name("initializer")
        for a in init.named_children if init is not None else []:
            if a.type == "assignment_expression":
                key = text(a.child_by_field_name("left"))
                if key in _FIELDS:
                    self.field(c, key, a.child_by_field_name("right"))
        if n.parent is not None and n.parent.type == "variable_declarator":
            self.requests[text(n.parent.child_by_field_name("name"))] = c
        elif n.parent is not None and n.parent.type == "assignment_expression":
            self.requests[text(n.parent.child_by_field_name("left"))] = c

    def receive_call(self, n) -> None:
        """``ReceiveMessageAsync(queueUrl)``: a receive with the queue's visibility."""
        args = n.child_by_field_name("arguments")
        a = args.named_children if args is not None else []
        if not a or not a[0].named_children:
            return
        first = a[0].named_children[-1]
        if first.type == "object_creation_expression":
            return
        v = self.value(first)
        if v.kind not in ("str", "env"):
            found = self.bindings.get(_simple(first), [])
            if not found or not all(typ in ("string", "String") for typ, _ in found):
                return  # a request variable, read where it is created
        c = self.r.consumer(n, "sdk")
        c.locations["queue_ref"] = c.location
        apply_queue(self.r, c, v, "ReceiveMessageAsync")

    def field(self, c, key: str, val) -> None:
        if val is None:
            return
        v = self.value(val)
        if _FIELDS[key] == "queue":
            apply_queue(self.r, c, v, f"ReceiveMessageRequest {key}")
        else:
            apply_number(self.r, c, _FIELDS[key], v, f"ReceiveMessageRequest {key}")
