"""SQS consumers in PHP: AWS SDK receive calls, Laravel's queue configuration and job classes.

- AWS SDK for PHP ``$client->receiveMessage(['QueueUrl' => .., 'VisibilityTimeout' => N, 'WaitTimeSeconds' => ..,
  'MaxNumberOfMessages' => ..])``: one consumer per call (platform ``sdk``); ``heartbeat`` True when the file calls
  ``changeMessageVisibility(Batch)``, else False.
- Laravel ``config/queue.php``: one consumer per connection with ``'driver' => 'sqs'`` (platform ``laravel``,
  ``settings["connection"]``): ``'queue' => env('SQS_QUEUE', 'default')`` is ``QueueRef("env", "SQS_QUEUE")``;
  a literal queue is a URL when it is one, else the name (with a literal ``suffix``). The worker's
  ``--timeout`` is in its command line (frameworks.py), so ``work_timeout`` stays None here.
- Laravel job classes (``implements ShouldQueue``): ``public $timeout = N`` -> ``work_timeout`` (the largest
  of the classes of one file that name the same queue), ``$tries`` -> ``settings["tries"]``, ``$backoff`` and
  ``release(N)`` -> ``settings["delays"]``; the queue from ``public $queue = '..'`` / ``onQueue('..')``, else
  None (``settings["job_class"]`` names the classes; the job runs on whichever worker takes it).
Values: literals, ``const``/``define`` and properties or variables of the file assigned once, ``env('X')``,
``getenv('X')``, ``$_ENV['X']`` / ``$_SERVER['X']`` (environment variables).
"""

from __future__ import annotations

from . import CodeResult
from ._poly import RECEIVE_FIELDS, Reader, Value, apply_number, apply_queue, number, parse, text, walk

EXTENSIONS = (".php",)

_SDK = RECEIVE_FIELDS
_HEARTBEAT = {"changeMessageVisibility", "changeMessageVisibilityBatch"}
_ENV_FUNCS = {"env", "getenv"}


def read(path: str, data: bytes) -> CodeResult:
    r = Reader(path, "php", data)
    _File(r, parse("php", data)).run()
    return r.result


def _name(n) -> str:
    return text(n.child_by_field_name("name")) if n is not None else ""


def _args(n) -> list:
    args = n.child_by_field_name("arguments")
    return [
        a.named_children[-1] for a in (args.named_children if args is not None else []) if a.named_children
    ]


def _pairs(array) -> list:
    """(key node, value node) of an ``array_creation_expression``'s keyed elements."""
    out = []
    for el in array.named_children:
        if el.type == "array_element_initializer" and len(el.named_children) == 2:
            out.append((el.named_children[0], el.named_children[1]))
    return out


class _File:
    def __init__(self, r: Reader, root):
        self.r = r
        self.nodes = list(walk(root))
        self.bindings: dict[str, list] = {}
        for n in self.nodes:
            if n.type == "const_element" and len(n.named_children) >= 2:
                self.bind(text(n.named_children[0]), n.named_children[-1])
            elif n.type == "property_element":
                name = n.child_by_field_name("name")
                self.bind(text(name).lstrip("$"), n.child_by_field_name("default_value"))
            elif n.type == "assignment_expression":
                left = n.child_by_field_name("left")
                if left is not None and left.type in ("variable_name", "member_access_expression"):
                    key = text(left) if left.type == "variable_name" else _name(left)
                    self.bind(key.lstrip("$"), n.child_by_field_name("right"))
            elif n.type == "function_call_expression" and text(n.child_by_field_name("function")) == "define":
                a = _args(n)
                if len(a) == 2 and a[0].type == "string":
                    self.bind(self.string(a[0]), a[1])

    def bind(self, name: str, value) -> None:
        self.bindings.setdefault(name, []).append(value)

    @staticmethod
    def string(node) -> str:
        return "".join(
            text(c) for c in node.named_children if c.type in ("string_content", "escape_sequence")
        )

    def value(self, node, depth: int = 0) -> Value:
        t = node.type
        if t in ("integer", "float"):
            n = number(text(node))
            return Value("int", n, node) if n is not None else Value("unknown", None, node)
        if t == "string" or (
            t == "encapsed_string" and all(c.type == "string_content" for c in node.named_children)
        ):
            s = self.string(node)
            return Value("int", number(s), node) if s.isdigit() else Value("str", s, node)
        if t == "boolean":
            return Value("bool", text(node).lower() == "true", node)
        if t == "array_creation_expression":
            return Value(
                "list", [self.value(el.named_children[-1], depth + 1) for el in node.named_children], node
            )
        if t == "parenthesized_expression" and node.named_children and depth < 8:
            return self.value(node.named_children[0], depth + 1)
        if t == "function_call_expression":
            fn = text(node.child_by_field_name("function"))
            a = _args(node)
            if fn in _ENV_FUNCS and a and a[0].type in ("string", "encapsed_string"):
                default = self.value(a[1], depth + 1) if len(a) > 1 and depth < 8 else None
                return Value("env", self.string(a[0]), node, default=default)
            if fn in ("intval", "int") and a and depth < 8:
                return self.value(a[0], depth + 1)
        if t == "cast_expression" and node.named_children and depth < 8:
            return self.value(node.named_children[-1], depth + 1)
        if t == "subscript_expression" and node.named_children:
            base, *rest = node.named_children
            if text(base) in ("$_ENV", "$_SERVER") and rest and rest[0].type == "string":
                return Value("env", self.string(rest[0]), node)
        name = None
        if t == "variable_name":
            name = text(node).lstrip("$")
        elif t == "member_access_expression" and text(node.child_by_field_name("object")) == "$this":
            name = _name(node)
        elif t == "class_constant_access_expression" and node.named_children:
            scope = text(node.named_children[0])
            name = text(node.named_children[-1]) if scope in ("self", "static") else None
        elif t == "name":
            name = text(node)
        if name is not None:
            found = [f for f in self.bindings.get(name, []) if f is not None]
            if len(found) == 1 and depth < 8:
                v = self.value(found[0], depth + 1)
                return v if v.kind != "unknown" else Value("unknown", None, node, v.why or name)
            why = "assigned more than once" if len(found) > 1 else "not a constant of this file"
            return Value("unknown", None, node, f"{text(node)} is {why}")
        return Value("unknown", None, node, text(node)[:60])

    # ----------------------------------------------------------------------------------------------- run
    def run(self) -> None:
        heartbeat = False
        sdk = []
        for n in self.nodes:
            if n.type in (
                "member_call_expression",
                "nullsafe_member_call_expression",
                "scoped_call_expression",
            ):
                name = _name(n)
                heartbeat |= name in _HEARTBEAT or name.removesuffix("Async") in _HEARTBEAT
                if name in ("receiveMessage", "receiveMessageAsync"):
                    sdk.append(self.receive(n))
            elif n.type == "array_creation_expression":
                self.connection(n)
            elif n.type == "class_declaration":
                pass
        for c in sdk:
            c.heartbeat = heartbeat
        self.jobs()

    def receive(self, n):
        r = self.r
        c = r.consumer(n, "sdk")
        c.locations["queue_ref"] = c.location
        a = _args(n)
        if a and a[0].type == "array_creation_expression":
            opts = a[0]
        elif a and a[0].type == "variable_name":
            found = self.bindings.get(text(a[0]).lstrip("$"), [])
            opts = found[0] if len(found) == 1 and found[0] is not None else None
            if opts is None or opts.type != "array_creation_expression":
                r.note(f"receiveMessage options are computed ({text(a[0])}): not read", a[0])
                return c
        else:
            return c
        for key, val in _pairs(opts):
            k = self.value(key)
            if k.kind == "str" and k.value in _SDK:
                field = _SDK[k.value]
                if field == "queue":
                    apply_queue(r, c, self.value(val), "receiveMessage QueueUrl")
                else:
                    apply_number(r, c, field, self.value(val), f"receiveMessage {k.value}")
        return c

    # ----------------------------------------------------------------------------------------------- Laravel
    def connection(self, array) -> None:
        """A connection of config/queue.php: an array with ``'driver' => 'sqs'``."""
        items = {}
        for key, val in _pairs(array):
            k = self.value(key)
            if k.kind == "str":
                items[k.value] = val
        if "driver" not in items:
            return
        driver = self.value(items["driver"])
        if not (driver.kind == "str" and driver.value == "sqs"):
            return
        r = self.r
        c = r.consumer(array, "laravel")
        c.heartbeat = False
        c.locations["queue_ref"] = c.location
        owner = array.parent
        if owner is not None and owner.type == "array_element_initializer" and len(owner.named_children) == 2:
            name = self.value(owner.named_children[0])
            if name.kind == "str":
                r.set(c, "connection", name.value, owner.named_children[0])
        if "queue" in items:
            q = self.value(items["queue"])
            if q.kind == "str" and not q.value.startswith(("https://", "http://")):
                suffix = self.value(items["suffix"]) if "suffix" in items else None
                if suffix is not None and suffix.kind == "str":
                    q = Value("str", q.value + suffix.value, q.node)
                elif suffix is not None:
                    r.note(
                        f"the queue name {q.value} takes a suffix from {text(items['suffix'])[:60]}",
                        suffix.node,
                    )
            apply_queue(r, c, q, "Laravel sqs connection 'queue'")
        if "retry_after" in items:
            r.note(
                "retry_after is not used by Laravel's SQS driver: the queue's visibility timeout applies",
                items["retry_after"],
            )

    def jobs(self) -> None:
        r = self.r
        groups: dict[object, object] = {}
        for cls in (n for n in self.nodes if n.type == "class_declaration"):
            body = cls.child_by_field_name("body")
            if body is None or "ShouldQueue" not in text(cls)[: max(1, body.start_byte - cls.start_byte)]:
                continue
            props = {}
            for p in body.named_children:
                if p.type == "property_declaration":
                    for el in p.named_children:
                        if (
                            el.type == "property_element"
                            and el.child_by_field_name("default_value") is not None
                        ):
                            props[text(el.child_by_field_name("name")).lstrip("$")] = el.child_by_field_name(
                                "default_value"
                            )
            calls = [
                n
                for n in walk(body)
                if n.type in ("member_call_expression", "scoped_call_expression")
                and _name(n) in ("release", "onQueue", "backoff")
            ]
            if not ({"timeout", "tries", "backoff", "queue"} & set(props) or calls):
                continue
            queue = self.value(props["queue"]) if "queue" in props else None
            for call in calls:
                if _name(call) == "onQueue" and _args(call):
                    queue = self.value(_args(call)[0])
            key = (queue.kind, queue.value) if queue is not None else None
            c = groups.get(key)
            if c is None:
                c = groups[key] = r.consumer(cls, "laravel", heartbeat=False)
                c.locations["queue_ref"] = c.location
                apply_queue(r, c, queue, "job class queue")
            c.settings.setdefault("job_class", []).append(_name(cls))
            self.job(c, props, calls)

    def job(self, c, props: dict, calls: list) -> None:
        r = self.r
        if "timeout" in props:
            v = self.value(props["timeout"])
            if v.kind == "int" and (c.work_timeout is None or v.value > c.work_timeout):
                r.set(c, "work_timeout", v.value, v.node)
            elif v.kind != "int":
                apply_number(r, c, "work_timeout", v, "job $timeout")
        if "tries" in props:
            v = self.value(props["tries"])
            if v.kind == "int" and v.value > c.settings.get("tries", 0):
                r.set(c, "tries", v.value, v.node)
        if "backoff" in props:
            v = self.value(props["backoff"])
            for item in v.value if v.kind == "list" else [v]:
                if item.kind == "int":
                    r.delay(c, item.value, "$backoff", item.node)
        for call in calls:
            if _name(call) == "release":
                a = _args(call)
                v = self.value(a[0]) if a else Value("int", 0, call)
                if v.kind == "int":
                    r.delay(c, v.value, "release", v.node)
                else:
                    r.note(f"release() delay is computed ({text(v.node)[:60]}): not read", v.node)
