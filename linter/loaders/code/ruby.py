"""SQS consumers in Ruby: aws-sdk-sqs receive calls and ``QueuePoller``, Shoryuken workers.

- ``sqs.receive_message(queue_url: .., visibility_timeout: N, wait_time_seconds: .., max_number_of_messages: ..)``
  and ``Aws::SQS::QueuePoller.new(url)`` with its ``poll(visibility_timeout: N, ...)`` options: one consumer per
  receive or poller (platform ``sdk``); ``heartbeat`` True when the file changes visibility
  (``change_message_visibility(_batch)``, the poller's ``change_message_visibility_timeout``), else False.
- Shoryuken ``shoryuken_options queue: 'name', auto_visibility_timeout: true, retry_intervals: [..], batch:``
  (platform ``shoryuken``): ``heartbeat`` True with ``auto_visibility_timeout: true`` (not for batch workers,
  which Shoryuken does not extend), else False; ``retry_intervals`` -> ``settings["delays"]``.
Values: literals and symbols, constants and locals of the file assigned once, ``ENV['X']`` / ``ENV.fetch('X')``
(environment variables), ``N.minutes``.
"""

from __future__ import annotations

from . import CodeResult
from ._poly import RECEIVE_FIELDS, Reader, Value, apply_number, apply_queue, number, parse, snake, text, walk

EXTENSIONS = (".rb",)

_SDK = {snake(api): field for api, field in RECEIVE_FIELDS.items()}
_HEARTBEAT = {
    "change_message_visibility",
    "change_message_visibility_batch",
    "change_message_visibility_timeout",
}
_UNITS = {"second": 1, "seconds": 1, "minute": 60, "minutes": 60, "hour": 3600, "hours": 3600}


def read(path: str, data: bytes) -> CodeResult:
    r = Reader(path, "ruby", data)
    _File(r, parse("ruby", data)).run()
    return r.result


def _method(n) -> str:
    return text(n.child_by_field_name("method"))


def _args(n) -> list:
    args = n.child_by_field_name("arguments")
    return list(args.named_children) if args is not None else []


class _File:
    def __init__(self, r: Reader, root):
        self.r = r
        self.nodes = list(walk(root))
        self.bindings: dict[str, list] = {}
        for n in self.nodes:
            if n.type in ("assignment", "operator_assignment"):
                left = n.child_by_field_name("left")
                if left is not None and left.type in ("constant", "identifier", "instance_variable"):
                    self.bindings.setdefault(text(left), []).append(n.child_by_field_name("right"))
        self.pollers: dict[str, object] = {}

    def pairs(self, call) -> dict:
        """Keyword arguments of ``call`` (``key: v``, ``:key => v``, ``'key' => v``, or one hash argument)."""
        out = {}
        items = _args(call)
        if len(items) == 1 and items[0].type == "hash":
            items = items[0].named_children
        for p in items:
            if p.type != "pair":
                continue
            key = p.child_by_field_name("key")
            k = text(key).rstrip(":").lstrip(":").strip("'\"")
            out[k] = p.child_by_field_name("value")
        return out

    def value(self, node, depth: int = 0) -> Value:
        t = node.type
        if t in ("integer", "float"):
            n = number(text(node))
            return Value("int", n, node) if n is not None else Value("unknown", None, node)
        if t == "string":
            if any(c.type == "interpolation" for c in node.named_children):
                return Value("unknown", None, node, "an interpolated string")
            return Value("str", "".join(text(c) for c in node.named_children), node)
        if t in ("simple_symbol", "hash_key_symbol"):
            return Value("str", text(node).lstrip(":"), node)
        if t in ("true", "false"):
            return Value("bool", t == "true", node)
        if t == "array":
            return Value("list", [self.value(c, depth + 1) for c in node.named_children], node)
        if t == "parenthesized_statements" and node.named_children and depth < 8:
            return self.value(node.named_children[-1], depth + 1)
        if t == "element_reference" and node.named_children:
            obj, *keys = node.named_children
            if text(obj) == "ENV" and keys and keys[0].type == "string":
                return Value("env", self.value(keys[0]).value, node)
        if t == "call":
            recv = node.child_by_field_name("receiver")
            m = _method(node)
            a = _args(node)
            if recv is not None and text(recv) == "ENV" and m == "fetch" and a and a[0].type == "string":
                default = self.value(a[1], depth + 1) if len(a) > 1 and depth < 8 else None
                return Value("env", self.value(a[0]).value, node, default=default)
            if recv is not None and m in ("to_i", "to_s", "to_f") and depth < 8:
                return self.value(recv, depth + 1)
            if recv is not None and m in _UNITS and depth < 8:
                v = self.value(recv, depth + 1)
                if v.kind == "int":
                    return Value("int", v.value * _UNITS[m], v.node)
            if recv is None and m in ("Integer", "String") and a and depth < 8:
                return self.value(a[0], depth + 1)
        if t in ("constant", "identifier", "instance_variable"):
            found = [f for f in self.bindings.get(text(node), []) if f is not None]
            if len(found) == 1 and depth < 8:
                v = self.value(found[0], depth + 1)
                return v if v.kind != "unknown" else Value("unknown", None, node, v.why or text(node))
            why = "assigned more than once" if len(found) > 1 else "not a constant of this file"
            return Value("unknown", None, node, f"{text(node)} is {why}")
        return Value("unknown", None, node, text(node)[:60])

    def run(self) -> None:
        heartbeat = False
        sdk = []
        for n in self.nodes:
            if n.type != "call":
                continue
            m = _method(n)
            heartbeat |= m in _HEARTBEAT
            recv = n.child_by_field_name("receiver")
            if m == "receive_message" and recv is not None:
                sdk.append(self.receive(n))
            elif m == "new" and recv is not None and text(recv).rsplit("::", 1)[-1] == "QueuePoller":
                sdk.append(self.poller(n))
            elif m == "shoryuken_options":
                self.shoryuken(n)
        for n in self.nodes:  # poller.poll(visibility_timeout: 60)
            if n.type == "call" and _method(n) == "poll":
                recv = n.child_by_field_name("receiver")
                c = self.pollers.get(text(recv)) if recv is not None else None
                if c is None and recv is not None and recv.type == "call":
                    c = self.pollers.get(id(recv))
                if c is not None:
                    self.options(c, self.pairs(n), "QueuePoller#poll")
        for c in sdk:
            c.heartbeat = heartbeat

    def options(self, c, opts: dict, what: str) -> None:
        for key, val in opts.items():
            field = _SDK.get(key)
            if field == "queue":
                apply_queue(self.r, c, self.value(val), f"{what} queue_url")
            elif field is not None:
                apply_number(self.r, c, field, self.value(val), f"{what} {key}")

    def receive(self, n):
        c = self.r.consumer(n, "sdk")
        c.locations["queue_ref"] = c.location
        self.options(c, self.pairs(n), "receive_message")
        return c

    def poller(self, n):
        c = self.r.consumer(n, "sdk")
        c.locations["queue_ref"] = c.location
        a = _args(n)
        if a and a[0].type != "pair":
            apply_queue(self.r, c, self.value(a[0]), "QueuePoller.new")
        self.options(c, {k: v for k, v in self.pairs(n).items() if k != "queue_url"}, "QueuePoller.new")
        p = n.parent
        if p is not None and p.type == "assignment":
            self.pollers[text(p.child_by_field_name("left"))] = c
        self.pollers[id(n)] = c
        return c

    def shoryuken(self, n) -> None:
        r = self.r
        c = r.consumer(n, "shoryuken", heartbeat=False)
        c.locations["queue_ref"] = c.location
        opts = self.pairs(n)
        if "queue" in opts:
            q = self.value(opts["queue"])
            for item in q.value if q.kind == "list" else [q]:
                if item is not q:
                    r.note("a Shoryuken worker of several queues: the first is joined", item.node)
                apply_queue(r, c, item, "shoryuken_options queue")
                break
        batch = self.value(opts["batch"]) if "batch" in opts else None
        if batch is not None and batch.kind == "bool":
            r.set(c, "batch", batch.value, batch.node)
        if "auto_visibility_timeout" in opts:
            v = self.value(opts["auto_visibility_timeout"])
            if v.kind == "bool":
                r.set(c, "heartbeat", v.value and not (batch is not None and batch.value is True), v.node)
            else:
                c.heartbeat = None
                r.note("auto_visibility_timeout is computed: not read", v.node)
        if "retry_intervals" in opts:
            v = self.value(opts["retry_intervals"])
            if v.kind == "list":
                for item in v.value:
                    if item.kind == "int":
                        r.delay(c, item.value, "retry_intervals", item.node)
            else:
                r.note(f"retry_intervals are computed ({text(v.node)[:60]}): not read", v.node)
