"""SQS consumers in Go: ``sqs.ReceiveMessageInput`` literals of the AWS SDK v2 (and v1).

One consumer per ``&sqs.ReceiveMessageInput{...}`` (platform ``sdk``): ``QueueUrl`` (a literal, a constant or
variable of the file assigned once, ``os.Getenv("X")``), ``VisibilityTimeout``, ``WaitTimeSeconds``,
``MaxNumberOfMessages``, also when set later as ``input.VisibilityTimeout = N``. SDK v2 does not send a
VisibilityTimeout of 0 on ReceiveMessage (facts.GO_SDK_ZERO_NOT_SENT): a plain ``0`` leaves
``visibility_override`` None and sets ``settings["zero_not_sent"]``; v1's pointer ``aws.Int64(0)`` is sent.
``heartbeat``: True when the file changes visibility (``ChangeMessageVisibilityInput``,
``ChangeMessageVisibility``), else False.
"""

from __future__ import annotations

from visguard import facts

from . import CodeResult
from ._poly import RECEIVE_FIELDS, Reader, Value, apply_number, apply_queue, number, parse, text, walk

EXTENSIONS = (".go",)

_FIELDS = RECEIVE_FIELDS
_HEARTBEAT = {"ChangeMessageVisibility", "ChangeMessageVisibilityBatch"}
_POINTER = {"Int64", "Int32", "Int"}  # aws.Int64(30): a pointer, always sent


def read(path: str, data: bytes) -> CodeResult:
    r = Reader(path, "go", data)
    _File(r, parse("go", data)).run()
    return r.result


def _type(n) -> str:
    return text(n.child_by_field_name("type")).rsplit(".", 1)[-1]


class _File:
    def __init__(self, r: Reader, root):
        self.r = r
        self.nodes = list(walk(root))
        self.bindings: dict[str, list] = {}
        for n in self.nodes:
            if n.type in ("const_spec", "var_spec"):
                names = [c for c in n.children_by_field_name("name")]
                values = n.child_by_field_name("value")
                vals = values.named_children if values is not None else []
                for i, name in enumerate(names):
                    self.bindings.setdefault(text(name), []).append(vals[i] if i < len(vals) else None)
            elif n.type in ("short_var_declaration", "assignment_statement"):
                left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
                lv = left.named_children if left is not None else []
                rv = right.named_children if right is not None else []
                for i, name in enumerate(lv):
                    if name.type == "identifier":
                        single = len(lv) == len(rv)
                        self.bindings.setdefault(text(name), []).append(rv[i] if single else None)
        self.inputs: dict[str, object] = {}

    def value(self, node, depth: int = 0) -> Value:
        t = node.type
        if t == "literal_element":
            return (
                self.value(node.named_children[0], depth)
                if node.named_children
                else Value("unknown", None, node)
            )
        if t in ("int_literal", "float_literal"):
            n = number(text(node))
            return Value("int", n, node) if n is not None else Value("unknown", None, node)
        if t == "interpreted_string_literal":
            return Value("str", "".join(text(c) for c in node.named_children), node)
        if t == "raw_string_literal":
            return Value("str", text(node).strip("`"), node)
        if t in ("unary_expression", "parenthesized_expression") and node.named_children and depth < 8:
            return self.value(node.named_children[-1], depth + 1)
        if t == "identifier":
            found = self.bindings.get(text(node), [])
            if len(found) == 1 and found[0] is not None and depth < 8:
                v = self.value(found[0], depth + 1)
                return v if v.kind != "unknown" else Value("unknown", None, node, v.why or text(node))
            why = "assigned more than once" if len(found) > 1 else "not a constant of this file"
            return Value("unknown", None, node, f"{text(node)} is {why}")
        if t == "call_expression":
            fn = node.child_by_field_name("function")
            args = node.child_by_field_name("arguments")
            a = args.named_children if args is not None else []
            name = text(fn)
            if name == "os.Getenv" and a and a[0].type == "interpreted_string_literal":
                return Value("env", self.value(a[0]).value, node)
            wrappers = {"aws.String", "aws.Int64", "aws.Int32", "aws.Int", "int32", "int64", "int"}
            if name in wrappers and len(a) == 1 and depth < 8:
                v = self.value(a[0], depth + 1)
                if name.startswith("aws.Int"):
                    v.why = "pointer"
                return v
        return Value("unknown", None, node, text(node)[:60])

    def run(self) -> None:
        r = self.r
        heartbeat = False
        for n in self.nodes:
            if n.type == "composite_literal":
                typ = _type(n)
                heartbeat |= typ in ("ChangeMessageVisibilityInput", "ChangeMessageVisibilityBatchInput")
                if typ == "ReceiveMessageInput":
                    body = n.child_by_field_name("body")
                    self.receive(n, body.named_children if body is not None else [])
            elif n.type == "ERROR":  # a truncated literal: its type, then its fields as siblings
                kids = n.named_children
                for i, k in enumerate(kids):
                    if k.type == "qualified_type" and text(k).rsplit(".", 1)[-1] == "ReceiveMessageInput":
                        j = i + 1
                        while j < len(kids) and kids[j].type == "keyed_element":
                            j += 1
                        self.receive(k, kids[i + 1 : j])
            elif n.type == "selector_expression":
                f = text(n.child_by_field_name("field"))
                heartbeat |= f in _HEARTBEAT or f.removesuffix("WithContext") in _HEARTBEAT
        for n in self.nodes:  # input.VisibilityTimeout = 30
            if n.type == "assignment_statement":
                left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
                if left is None or right is None or len(left.named_children) != 1 or not right.named_children:
                    continue
                target = left.named_children[0]
                if target.type != "selector_expression":
                    continue
                owner = text(target.child_by_field_name("operand"))
                field = text(target.child_by_field_name("field"))
                if owner in self.inputs and field in _FIELDS:
                    self.field(self.inputs[owner], field, right.named_children[0])
        for c in r.result.consumers:
            c.heartbeat = heartbeat

    def receive(self, lit, elements) -> None:
        r = self.r
        c = r.consumer(lit, "sdk")
        c.locations["queue_ref"] = c.location
        for el in elements:
            if el.type != "keyed_element" or len(el.named_children) < 2:
                continue
            key, val = el.named_children[0], el.named_children[-1]
            if text(key) in _FIELDS:
                self.field(c, text(key), val)
        holder = lit.parent if lit.parent is not None and lit.parent.type == "unary_expression" else lit
        decl = holder.parent.parent if holder.parent is not None else None
        if decl is not None and decl.type in ("short_var_declaration", "var_spec", "assignment_statement"):
            left = decl.child_by_field_name("left") or decl.child_by_field_name("name")
            if left is not None:
                name = left if left.type == "identifier" else (left.named_children or [None])[0]
                if name is not None:
                    self.inputs[text(name)] = c

    def field(self, c, key: str, val) -> None:
        r = self.r
        target = _FIELDS[key]
        v = self.value(val)
        if target == "queue":
            apply_queue(r, c, v, "ReceiveMessageInput QueueUrl")
        elif target == "visibility_override" and v.kind == "int" and v.value == 0 and v.why != "pointer":
            c.visibility_override = None
            r.set(c, "zero_not_sent", facts.GO_SDK_ZERO_NOT_SENT, v.node)
        else:
            apply_number(r, c, target, v, f"ReceiveMessageInput {key}")
