"""SQS consumers in PHP: AWS SDK receive calls, Laravel's queue configuration and job classes.

Where they are is ``languages/php.scm``; this module is the PHP entry of the code engine (``engine.py``) and what
a query cannot say.

- AWS SDK for PHP ``$client->receiveMessage(['QueueUrl' => .., 'VisibilityTimeout' => N, 'WaitTimeSeconds' => ..,
  'MaxNumberOfMessages' => ..])``: one consumer per call (platform ``sdk``); ``heartbeat`` True when the file calls
  ``changeMessageVisibility(Batch)``, else False.
- Laravel ``config/queue.php``: one consumer per connection with ``'driver' => 'sqs'`` (platform ``laravel``,
  ``settings["connection"]``): ``'queue' => env('SQS_QUEUE', 'default')`` is ``QueueRef("env", "SQS_QUEUE")``;
  a literal queue is a URL when it is one, else the name (with a literal ``suffix``). The worker's
  ``--timeout`` is in its command line (frameworks.py), so ``work_timeout`` stays None here.
- Laravel job classes (``implements ShouldQueue``): ``public $timeout = N`` -> ``work_timeout`` (the largest
  of the classes of one file that name the same queue), ``$tries`` -> ``settings["tries"]``, ``$backoff`` and
  ``release(N)`` -> ``settings["delays"]``; the queue from ``public $queue = '..'`` / ``onQueue('..')``.
  Laravel 13's class attributes say the same and win over the property (``ReadsQueueAttributes``):
  ``#[Timeout(n)]``, ``#[Tries(n)]``, ``#[Backoff(n | [..])]``, ``#[Queue('..')]``, ``#[Connection('..')]``, and
  ``#[FailOnTimeout]`` (``settings["fail_on_timeout"]``: a timed-out job is failed, not retried). A job that names
  no queue runs on the default queue of its connection (``#[Connection]`` / ``public $connection``, else the
  ``'default'`` of the project's config/queue.php, an ``env('QUEUE_CONNECTION', 'sqs')`` read as its fallback):
  that connection's ``'queue'`` when its driver is ``sqs`` (``settings["queue_from"] = "default"``), else none
  (``settings["job_class"]`` names the classes).
Values: literals (a string of digits is a number), ``const``/``define`` and properties or variables of the file
assigned once, ``env('X')``, ``getenv('X')``, ``$_ENV['X']`` / ``$_SERVER['X']`` (environment variables).
"""

from __future__ import annotations

import bisect

from . import CodeResult, creates
from .engine import FLOW, RECEIVE_API, File, Language, Reader, Value, evaluate, number, shown, text, unknown

EXTENSIONS = (".php",)

# an array key or property name -> what it sets: the SDK's receive parameters (consumer fields), a Laravel
# connection's and a job class's settings
_KEYS = {
    **{api: field for field, api in RECEIVE_API.items()},
    **{k: k for k in ("suffix", "retry_after", "timeout", "tries", "backoff")},
    "queue": "queue_name",
    "connection": "connection",
}
# Laravel 13's job class attributes (Illuminate\\Queue\\Attributes) -> the property key of the same meaning
_ATTRIBUTES = {
    "Timeout": "timeout",
    "Tries": "tries",
    "Backoff": "backoff",
    "Queue": "queue_name",
    "Connection": "connection",
    "FailOnTimeout": "fail_on_timeout",
}


def _name_key(node) -> str | None:
    """``$x``, ``$this->x`` and ``self::X`` are the names ``x`` and ``X`` of the file."""
    t = node.type
    if t == "variable_name":
        return text(node).lstrip("$")
    if t == "member_access_expression":
        return text(node.child_by_field_name("name"))
    if t == "class_constant_access_expression" and node.named_children:
        return text(node.named_children[-1])
    return None


def _hook(node, f: File, depth: int) -> Value | None:
    """What the tables cannot say: PHP strings (a string of digits is a number; ``"..{$x}"`` is not read),
    ``true``/``false``, ``$_ENV['X']``, and which members are the file's names (``$this->x``, ``self::X``)."""
    t = node.type
    if t in ("string", "encapsed_string"):
        kids = node.named_children
        if t == "encapsed_string" and any(k.type != "string_content" for k in kids):
            return unknown(node)
        s = "".join(text(k) for k in kids if k.type in ("string_content", "escape_sequence"))
        if not s.isdigit():
            return Value("str", s, node)
        n = number(s)
        return (
            Value("int", n, node)
            if n is not None
            else unknown(node, f"{shown(node)} is not a number visguard reads")
        )
    if t == "boolean":
        return Value("bool", text(node).lower() == "true", node)
    if t == "subscript_expression" and node.named_children:
        base, *rest = node.named_children
        if text(base) in ("$_ENV", "$_SERVER") and rest and rest[0].type == "string":
            var = evaluate(rest[0], f, depth + 1)
            if var.kind == "str" and var.value:
                return Value("env", var.value, node)
            return unknown(node, "an environment variable whose name is computed")
    if t == "member_access_expression" and text(node.child_by_field_name("object")) != "$this":
        return unknown(node)
    if t == "class_constant_access_expression" and (
        not node.named_children or text(node.named_children[0]) not in ("self", "static")
    ):
        return unknown(node)
    return None


PHP = Language(
    "php",
    "php",
    annotation="//",
    keys=_KEYS,
    numbers={"integer", "float"},
    strings={"string", "encapsed_string"},
    string_parts={"string_content", "escape_sequence"},
    names={"variable_name", "name", "member_access_expression", "class_constant_access_expression"},
    wrappers={"parenthesized_expression", "array_element_initializer", "cast_expression"},
    argument_value={"argument"},
    lists={"array_creation_expression"},
    unary={"unary_op_expression"},
    binary={"binary_expression"},
    calls={
        "function_call_expression": "arguments",
        "member_call_expression": "arguments",
        "nullsafe_member_call_expression": "arguments",
        "scoped_call_expression": "arguments",
    },
    env_calls={"env": (0, 1), "getenv": (0, 1)},
    passthrough={"intval": None, "int": None},
    hook=_hook,
    name_key=_name_key,
)


def read(path: str, data: bytes) -> CodeResult:
    f = File(PHP, data)
    r = Reader(path, "php", data, PHP)
    sdk, jobs = [], []
    for site, platform, args, _ in f.sites():
        if platform == "sdk":  # one consumer per call site of a shared receive (engine.Reader.per_call_site)
            n = len(r.result.consumers)
            r.per_call_site(lambda site=site, args=args: _receive(r, f, site, args))
            sdk.extend(r.result.consumers[n:])
        elif platform == "laravel":
            _connection(r, f, site)
        else:
            jobs.append((site, args))
    heartbeat = bool(f.captures("heartbeat"))
    for c in sdk:
        c.heartbeat = heartbeat
    _jobs(r, f, jobs)
    creates.read(f, r)  # the queues the code creates (issue 35)
    return r.finish()


def _args(call) -> list:
    args = call.child_by_field_name("arguments")
    return [
        a.named_children[-1] for a in (args.named_children if args is not None else []) if a.named_children
    ]


def _receive(r: Reader, f: File, site, args: list):
    c = r.consumer(site, "sdk")
    c.locations["queue_ref"] = c.location
    for field, node in args:
        if field == "options":  # ->receiveMessage($params): the one array $params is bound to
            bound, _ = f.resolve(node)
            if bound is None or bound.type != "array_creation_expression":
                r.note(f"receiveMessage options are computed ({text(node)}): not read", node)
                return c
            args = [(_KEYS[k], v) for k, v in _items(f, bound) if k in RECEIVE_API.values()]
            break
    for field, node in args:
        if field == "queue":
            r.queue(c, evaluate(node, f), "receiveMessage QueueUrl")
        elif field in RECEIVE_API:
            r.number(c, field, evaluate(node, f), f"receiveMessage {RECEIVE_API[field]}")
    return c


def _items(f: File, array) -> list[tuple[str, object]]:
    """(key, value node) of an array's ``'key' => value`` elements whose key is a string."""
    out = []
    for el in array.named_children:
        if el.type == "array_element_initializer" and len(el.named_children) == 2:
            k = evaluate(el.named_children[0], f)
            if k.kind == "str":
                out.append((k.value, el.named_children[1]))
    return out


def _connection(r: Reader, f: File, array) -> None:
    """A connection of config/queue.php: an array with ``'driver' => 'sqs'`` (its items are read here: a query of
    an array's elements around its 'driver' element takes time quadratic in the array's length)."""
    items = {_KEYS.get(k, k): v for k, v in _items(f, array)}
    driver = evaluate(items.get("driver"), f)
    if not (driver.kind == "str" and driver.value == "sqs"):
        return
    c = r.consumer(array, "laravel")
    c.heartbeat = False
    # the application's worker until its worker command is seen (consumers._fold_laravel_connections)
    c.settings["laravel_connection"] = True
    c.locations["queue_ref"] = c.location
    owner = array.parent
    if owner is not None and owner.type == "array_element_initializer" and len(owner.named_children) == 2:
        name = evaluate(owner.named_children[0], f)
        if name.kind == "str":
            r.set(c, "connection", name.value, owner.named_children[0])
    if "queue_name" in items:
        r.queue(c, _connection_queue(r, f, items), "Laravel sqs connection 'queue'")
    if "retry_after" in items:
        r.note(
            "retry_after is not used by Laravel's SQS driver: the queue's visibility timeout applies",
            items["retry_after"],
        )


def _connection_queue(r: Reader | None, f: File, items: dict) -> Value:
    """The queue a connection's items name: its ``'queue'`` (a URL, or a name with a literal ``'suffix'``)."""
    q = evaluate(items["queue_name"], f)
    if q.kind == "str" and not q.value.startswith(("https://", "http://")):
        suffix = evaluate(items["suffix"], f) if "suffix" in items else None
        if suffix is not None and suffix.kind == "str":
            q = Value("str", q.value + suffix.value, q.node)
        elif suffix is not None and r is not None:
            r.note(f"the queue name {q.value} takes a suffix from {shown(items['suffix'])}", suffix.node)
    return q


def _attributes(f: File, cls) -> dict:
    """A job class's Laravel 13 attributes: {property key: the argument node (the attribute itself when it has
    none)}."""
    out = {}
    attrs = cls.child_by_field_name("attributes")
    for group in attrs.named_children if attrs is not None else ():
        for a in group.named_children if group.type == "attribute_group" else ():
            if a.type != "attribute" or not a.named_children:
                continue
            name = text(a.named_children[0]).rsplit("\\", 1)[-1]
            key = _ATTRIBUTES.get(name)
            if key is None:
                continue
            args = a.child_by_field_name("parameters")
            first = next(
                (x for x in (args.named_children if args is not None else ()) if x.type == "argument"), None
            )
            if first is not None and first.named_children:
                out[key] = first.named_children[-1]
            elif key == "fail_on_timeout":
                out[key] = a
    return out


def _default_queues(f: File, path: str) -> tuple[dict, str | None, object] | None:
    """The project's config/queue.php, read: ({connection: its items}, the default connection's name, the file),
    or None (not offered, not one, or outside a run)."""
    import os

    if not FLOW.offered:
        return None
    top = FLOW.root(path)
    found = [
        p
        for p in FLOW.offered
        if p.replace(os.sep, "/").endswith("config/queue.php") and os.path.abspath(p).startswith(top + os.sep)
    ]
    if len(found) != 1 or os.path.abspath(found[0]) == os.path.abspath(path):
        return None
    g = FLOW.file(found[0], PHP)
    if g is None:
        return None
    top_array = next((n for n in g.root.named_children if n.type == "return_statement"), None)
    array = next(
        (n for n in (top_array.named_children if top_array else ()) if n.type == "array_creation_expression"),
        None,
    )
    if array is None:
        return None
    items = dict(_items(g, array))
    default = evaluate(items["default"], g) if "default" in items else None
    if (
        default is not None and default.kind == "env"
    ):  # env('QUEUE_CONNECTION', 'sqs'): the project's .env, else
        written = _dotenv(top, default.value)  # the fallback
        default = Value("str", written, default.node) if written is not None else default.default
    name = default.value if default is not None and default.kind == "str" else None
    conns = {}
    if "connections" in items and items["connections"].type == "array_creation_expression":
        for k, v in _items(g, items["connections"]):
            if v.type == "array_creation_expression":
                conns[k] = {_KEYS.get(kk, kk): vv for kk, vv in _items(g, v)}
    return conns, name, g


def _dotenv(top: str, var: str) -> str | None:
    """``var``'s value in the project's own ``.env`` (offered to the run, at the project folder), or None."""
    import os
    import re

    path = FLOW.offered_file(os.path.join(top, ".env"))
    data = FLOW.data(path) if path is not None else None
    if data is None:
        return None
    for raw in data.decode("utf-8", "replace").splitlines():
        m = re.match(r"\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$", raw)
        if m and m.group(1) == var:
            value = m.group(2)
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            return value.split(" #", 1)[0].strip() or None
    return None


def _jobs(r: Reader, f: File, jobs: list) -> None:
    """Laravel job classes, one consumer per queue they name (the largest timeout of the classes of one queue)."""
    calls = f.captures("job.call")  # in document order
    starts = [n.start_byte for n in calls]
    groups: dict[object, object] = {}
    config = []  # the project's config/queue.php, read once when a job names no queue
    for cls, args in jobs:
        props = {field: node for field, node in args}
        attributes = _attributes(f, cls)
        props.update(attributes)  # an attribute wins over the property (ReadsQueueAttributes)
        body = cls.child_by_field_name("body")
        mine = (
            calls[bisect.bisect_left(starts, body.start_byte) : bisect.bisect_left(starts, body.end_byte)]
            if body is not None
            else []
        )
        if not ({"timeout", "tries", "backoff", "queue_name", "fail_on_timeout"} & set(props) or mine):
            continue
        queue = evaluate(props["queue_name"], f) if "queue_name" in props else None
        for call in mine:
            if _method(call) == "onQueue" and _args(call):
                queue = evaluate(_args(call)[0], f)
        default = None
        if queue is None:  # the default queue of the job's connection
            if not config:
                config.append(_default_queues(f, r.path))
            default = _default_queue(f, props, config[0])
        key = (queue.kind, queue.value) if queue is not None else ("default", default[0]) if default else None
        c = groups.get(key)
        if c is None:
            c = groups[key] = r.consumer(cls, "laravel", heartbeat=False)
            c.locations["queue_ref"] = c.location
            if default is not None:
                conn, q = default
                r.queue(c, q, f"the default queue of the connection {conn} (config/queue.php)")
                c.settings["queue_from"] = "default"
            else:
                r.queue(c, queue, "job class queue")
        c.settings.setdefault("job_class", []).append(text(cls.child_by_field_name("name")))
        _job(r, f, c, props, mine, attributes)


def _default_queue(f: File, props: dict, config) -> tuple[str, Value] | None:
    """(the connection, its queue) a job that names no queue is pushed to, when that connection is an SQS one."""
    if config is None:
        return None
    conns, name, g = config
    if "connection" in props:
        v = evaluate(props["connection"], f)
        name = v.value if v.kind == "str" else None
    items = conns.get(name) if name is not None else None
    if not items or "queue_name" not in items:
        return None
    driver = evaluate(items.get("driver"), g)
    if not (driver.kind == "str" and driver.value == "sqs"):
        return None
    return name, _connection_queue(None, g, items)


def _method(call) -> str:
    return text(call.child_by_field_name("name"))


def _job(r: Reader, f: File, c, props: dict, calls: list, attributes: dict) -> None:
    """A job class's settings (``attributes``: the keys its Laravel 13 attributes set, worded so)."""
    if "fail_on_timeout" in props:
        node = props["fail_on_timeout"]
        v = Value("bool", True, node) if node.type == "attribute" else evaluate(node, f)
        if v.kind == "bool":
            r.set(c, "fail_on_timeout", v.value or c.settings.get("fail_on_timeout", False), node)
    if "timeout" in props:
        v = evaluate(props["timeout"], f)
        if v.kind == "int" and (c.work_timeout is None or v.value > c.work_timeout):
            r.set(c, "work_timeout", v.value, v.node, v)
        elif v.kind != "int":
            r.number(c, "work_timeout", v, "job #[Timeout]" if "timeout" in attributes else "job $timeout")
    if "tries" in props:
        v = evaluate(props["tries"], f)
        if v.kind == "int" and v.value > c.settings.get("tries", 0):
            r.set(c, "tries", v.value, v.node, v)
    if "backoff" in props:
        v = evaluate(props["backoff"], f)
        for item in v.value if v.kind == "list" else [v]:
            if item.kind == "int":
                r.delay(c, item.value, "#[Backoff]" if "backoff" in attributes else "$backoff", item.node)
    for call in calls:
        if _method(call) == "release":
            a = _args(call)
            v = evaluate(a[0], f) if a else Value("int", 0, call)
            if v.kind == "int":
                r.delay(c, v.value, "release", v.node)
            else:
                r.note(f"release() delay is computed ({shown(v.node)}): not read", v.node)
