"""SQS consumers in Ruby: aws-sdk-sqs receive calls and ``QueuePoller``, Shoryuken workers.

Where they are is ``languages/ruby.scm``; this module is the Ruby entry of the code engine (``engine.py``) and what
a query cannot say.

- ``sqs.receive_message(queue_url: .., visibility_timeout: N, wait_time_seconds: .., max_number_of_messages: ..)``
  and ``Aws::SQS::QueuePoller.new(url)`` with its ``poll(visibility_timeout: N, ...)`` options: one consumer per
  receive or poller (platform ``sdk``); ``heartbeat`` True when the file changes visibility
  (``change_message_visibility(_batch)``, the poller's ``change_message_visibility_timeout``), else False.
- ``Shoryuken.add_queue(queue, weight, group)`` (platform ``shoryuken``, ``heartbeat`` not known: the worker
  registered for it decides): a consumer of that queue when it is known (a literal, or a queue the file creates from
  the same binding: ``creates.identity``), else nothing (the file's workers already say what is not known).
- Shoryuken ``shoryuken_options queue: 'name', auto_visibility_timeout: true, retry_intervals: [..], batch:``
  (platform ``shoryuken``): ``heartbeat`` True with ``auto_visibility_timeout: true`` (not for batch workers,
  which Shoryuken does not extend), else False; ``retry_intervals`` -> ``settings["delays"]``;
  ``non_retryable_exceptions: [..]`` -> ``settings["non_retryable_exceptions"]`` (the class names) and a note:
  since Shoryuken 7.0.1 such a failure deletes the message at once, so it never reaches the dead-letter queue.
Values: literals and symbols, constants and locals of the file assigned once, ``ENV['X']`` / ``ENV.fetch('X')``
(environment variables), ``N.minutes``.
"""

from __future__ import annotations

from visguard import facts

from . import CodeResult, creates
from .engine import RECEIVE_API, File, Language, Reader, Value, evaluate, snake, text, unknown

EXTENSIONS = (".rb", ".rake", "Rakefile", "rakefile")  # rake tasks are Ruby

# a keyword argument's key -> what it sets: the SDK's receive parameters (consumer fields), Shoryuken's options
_SHORYUKEN = {
    "queue": "queue_name",
    "batch": "batch",
    "auto_visibility_timeout": "auto_visibility_timeout",
    "retry_intervals": "retry_intervals",
    "non_retryable_exceptions": "non_retryable_exceptions",
}
_WRITTEN = {field: snake(api) for field, api in RECEIVE_API.items()}  # the SDK's keyword of each field


def _hook(node, f: File, depth: int) -> Value | None:
    """What the tables cannot say: symbols, ``ENV['X']``, ``x.to_i`` (the receiver's value)."""
    t = node.type
    if t in ("simple_symbol", "hash_key_symbol"):
        return Value("str", text(node).lstrip(":"), node)
    if t == "element_reference" and node.named_children:
        obj, *keys = node.named_children
        if text(obj) == "ENV" and keys and keys[0].type == "string":
            var = evaluate(keys[0], f, depth + 1)
            if var.kind == "str" and var.value:
                return Value("env", var.value, node)
            return unknown(node, "an environment variable whose name is computed")
    if t == "call" and text(node.child_by_field_name("method")) in ("to_i", "to_s", "to_f"):
        receiver = node.child_by_field_name("receiver")
        if receiver is not None:
            return evaluate(receiver, f, depth + 1)
    return None


RUBY = Language(
    "ruby",
    "ruby",
    keys={**{snake(api): field for field, api in RECEIVE_API.items()}, **_SHORYUKEN},
    numbers={"integer", "float"},
    strings={"string"},
    string_parts={"string_content", "escape_sequence"},
    interpolations={"interpolation"},
    names={"constant", "identifier", "instance_variable"},
    wrappers={"parenthesized_statements"},
    lists={"array"},
    bools={"true": True, "false": False},
    unary={"unary"},
    binary={"binary"},
    calls={"call": "arguments"},
    env_calls={"ENV.fetch": (0, 1)},
    passthrough={"Integer": None, "String": None},
    unit_methods={"second": 1, "seconds": 1, "minute": 60, "minutes": 60, "hour": 3600, "hours": 3600},
    hook=_hook,
)


def read(path: str, data: bytes) -> CodeResult:
    f = File(RUBY, data, path=path)
    r = Reader(path, "ruby", data, RUBY)
    sdk, pollers, polls, launchers = [], {}, [], []
    for site, platform, args, var in f.sites():
        if platform == "poll":
            polls.append((site, args))
        elif platform == "launcher":  # Shoryuken.add_queue(queue, weight, group)
            c = r.consumer(site, "shoryuken", heartbeat=None)
            c.locations["queue_ref"] = c.location
            before = len(r.result.notes)
            for _field, node in args[:1]:
                r.queue(c, evaluate(node, f), "Shoryuken.add_queue")
            launchers.append((c, r.result.notes[before:]))
        elif platform == "shoryuken":
            _shoryuken(r, f, site, args)
        elif text(site.child_by_field_name("method")) == "new":  # Aws::SQS::QueuePoller.new(url, ...)
            c = _sdk(r, site)
            for field, node in args:
                if field == "queue" and "pair" not in (node.type, node.parent.type):
                    r.queue(c, evaluate(node, f), "QueuePoller.new")
            _options(r, f, c, [(k, v) for k, v in args if k != "queue"], "QueuePoller.new")
            if var is not None:
                pollers[text(var)] = c
            pollers[(site.start_byte, site.end_byte)] = c
            sdk.append(c)
        else:  # one consumer per call site of a shared receive (engine.Reader.per_call_site)
            n = len(r.result.consumers)
            r.per_call_site(
                lambda site=site, args=args: _options(r, f, _sdk(r, site), args, "receive_message")
            )
            sdk.extend(r.result.consumers[n:])
    for site, args in polls:  # poller.poll(visibility_timeout: 60), QueuePoller.new(url).poll(...)
        recv = site.child_by_field_name("receiver")
        c = pollers.get(text(recv)) or pollers.get((recv.start_byte, recv.end_byte))
        if c is not None:
            _options(r, f, c, args, "QueuePoller#poll")
    heartbeat = bool(f.captures("heartbeat"))
    for c in sdk:
        c.heartbeat = heartbeat
    creates.read(f, r)  # the queues the code creates (issue 35)
    for c, notes in launchers:  # a queue registration says no more than the file's workers: kept when joined
        if c.queue_ref is None:
            r.result.consumers = [x for x in r.result.consumers if x is not c]
            r.result.notes = [n for n in r.result.notes if all(n is not x for x in notes)]
    return r.finish()


def _sdk(r: Reader, site):
    c = r.consumer(site, "sdk")
    c.locations["queue_ref"] = c.location
    return c


def _options(r: Reader, f: File, c, args: list, what: str) -> None:
    for field, node in args:
        if field not in RECEIVE_API:
            continue
        key = _WRITTEN[field]
        if field == "queue":
            r.queue(c, evaluate(node, f), f"{what} {key}")
        else:
            r.number(c, field, evaluate(node, f), f"{what} {key}")


def _shoryuken(r: Reader, f: File, site, args: list) -> None:
    c = r.consumer(site, "shoryuken", heartbeat=False)
    c.locations["queue_ref"] = c.location
    opts = {field: node for field, node in args}
    if "queue_name" in opts:
        q = evaluate(opts["queue_name"], f)
        items = q.value if q.kind == "list" else [q]
        if len(items) > 1:
            r.note("a Shoryuken worker of several queues: the first is joined", items[0].node)
        if items:
            r.queue(c, items[0], "shoryuken_options queue")
    batch = evaluate(opts["batch"], f) if "batch" in opts else None
    if batch is not None and batch.kind == "bool":
        r.set(c, "batch", batch.value, batch.node)
    if "auto_visibility_timeout" in opts:
        v = evaluate(opts["auto_visibility_timeout"], f)
        if v.kind == "bool":
            r.set(c, "heartbeat", v.value and not (batch is not None and batch.value is True), v.node)
        else:
            c.heartbeat = None
            r.note("auto_visibility_timeout is computed: not read", v.node)
    if "non_retryable_exceptions" in opts:
        _non_retryable(r, f, c, opts["non_retryable_exceptions"])
    if "retry_intervals" in opts:
        v = evaluate(opts["retry_intervals"], f)
        if v.kind == "list":
            for item in v.value:
                if item.kind == "int":
                    r.delay(c, item.value, "retry_intervals", item.node)
        else:
            r.note(f"retry_intervals are computed ({text(v.node)[:60]}): not read", v.node)


def _non_retryable(r: Reader, f: File, c, node) -> None:
    """``non_retryable_exceptions: [Errors::Invalid, ArgumentError]``: the names, and what they mean for the DLQ."""
    items = node.named_children if node.type == "array" else [node]
    names = [text(n) for n in items if n.type in ("constant", "scope_resolution")]
    if not names:
        return
    r.set(c, "non_retryable_exceptions", names, node)
    since = ".".join(map(str, facts.SHORYUKEN_NON_RETRYABLE_DELETES_SINCE))
    r.note(
        f"Shoryuken {since}+ deletes a message whose job raises {', '.join(names)[:80]} at once: it never reaches "
        "the dead-letter queue",
        node,
        c.id,
    )


def environment(code: bytes) -> tuple[str, str | None] | None:
    """The environment variable a Ruby expression is (``ENV['X']``, ``ENV.fetch('X', 'default')``) and its literal
    default, else None: an ERB value of a Shoryuken YAML file (frameworks.py)."""
    f = File(RUBY, code)
    exprs = [n for n in f.root.named_children if n.type != "comment"]
    v = evaluate(exprs[0], f) if len(exprs) == 1 else None
    if v is None or v.kind != "env":
        return None
    d = v.default
    return v.value, (d.value if d is not None and d.kind == "str" and d.value else None)
