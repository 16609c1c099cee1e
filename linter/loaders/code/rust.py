"""SQS consumers in Rust: the AWS SDK for Rust's (``aws-sdk-sqs``) fluent builders, and rusoto_sqs requests.

Where they are is ``languages/rust.scm``; this module is the Rust entry of the code engine (``engine.py``) and what
a query cannot say (a builder's chain of option calls, Rust's method-call idioms around a value).

- aws-sdk-sqs: one consumer (platform ``sdk``) per ``client.receive_message()`` (no arguments: the fluent builder),
  its options the calls chained on it up to ``.send()``: ``queue_url(u)`` / ``set_queue_url(Some(u))``,
  ``visibility_timeout(n)``, ``wait_time_seconds(w)``, ``max_number_of_messages(m)`` (and their ``set_*`` forms).
  The SDK serializes a field only when it is set (``Some``), and then whatever its value
  (facts.RUST_SDK_SENDS_SET_VALUE): an option not called leaves the queue's visibility in effect; a ``0`` is sent
  (the messages are visible again at once: VG070).
  ``ReceiveMessageInput::builder()`` (sent with ``.send_with(&client)``) is read the same way.
  Options set later on the builder's variable in its function (``let mut req = client.receive_message()...;`` then
  ``req = req.visibility_timeout(30);``, under an ``if`` too) are the receive's.
- rusoto_sqs: ``ReceiveMessageRequest { queue_url, visibility_timeout: Some(30), .. }`` literals, one consumer each.
- ``heartbeat``: True when the file changes visibility (``change_message_visibility()``,
  ``ChangeMessageVisibilityRequest``), else False.

Values are the engine's :func:`evaluate`: literals (``30``, ``30i32``, ``"q"``, raw strings), ``const``/``static``
items and ``let`` bindings (once, or to the same value), ``std::env::var("X")`` (``.unwrap_or("d")``,
``.unwrap_or_else(|_| "d".into())`` give its default; ``.ok().and_then(|v| v.parse().ok()).unwrap_or(30)`` a
number's), ``format!`` of known parts (positional ``{}`` and ``name = value`` arguments), ``n as i32``, the calls
that pass a value through (``.to_string()``, ``.clone()``, ``String::from(x)``, ``Some(x)``, ``&x``, ``x?``,
``x.await``), ``Duration::from_secs(n)``; a queue URL a ``get_queue_url()`` / ``create_queue()`` response gives
(``...queue_name("jobs").send().await?.queue_url()``, or the ``Ok(out) => out.queue_url()`` arm of a ``match`` on
it) is that queue, by its name; a name's value is the last ``let`` of its function before the use (Rust's
shadowing). The value flow (engine.Flow): a field (``self.queue_url``, ``config.wait_time_seconds``) is the one
value the crate's struct literals (``Worker { queue_url: u }``, ``Worker { queue_url }``) and assignments give it; a parameter is what the calls of its
function pass (a constructor ``Worker::new(u)`` by its type); a name not bound in the file is its folder's (a module
folder of the crate). The queues the code creates are ``creates.py``'s (``create_queue().queue_name(n)
.attributes(QueueAttributeName::VisibilityTimeout, "60")``, ``.set_attributes(Some(map))``).
"""

from __future__ import annotations

import bisect
import re

from visguard import facts

from . import CodeResult, creates
from .engine import (
    RECEIVE_API,
    File,
    Language,
    Reader,
    Value,
    braces,
    compose,
    evaluate,
    number,
    shown,
    text,
    unknown,
)

EXTENSIONS = (".rs",)

_OPTIONS = {  # builder method (without set_) -> consumer field
    "queue_url": "queue",
    "visibility_timeout": "visibility_override",
    "wait_time_seconds": "wait_time",
    "max_number_of_messages": "max_messages",
}
# methods whose value is their receiver's (for a static reader): conversions, borrows, Option/Result unwrapping
_THROUGH = frozenset({
    "to_string", "to_owned", "clone", "into", "as_str", "as_ref", "as_deref", "borrow", "unwrap", "expect",
    "unwrap_or_default", "ok", "parse", "to_vec", "trim", "into_owned", "cloned", "copied", "try_into", "as_secs",
})  # fmt: skip
_DEFAULTED = frozenset({"unwrap_or", "unwrap_or_else"})  # x.unwrap_or(d): an environment variable's default d
# env::var("X").ok().and_then(|v| v.parse().ok()): still the variable
_MAPPED = frozenset({"and_then", "map"})
# a response whose queue_url() is the queue its queue_name names
_RESPONSES = ("create_queue", "get_queue_url")
_SUFFIX = re.compile(r"(?:_?(?:[iu](?:8|16|32|64|128|size)|f32|f64))$")
MAX_CHAIN = 64  # calls followed along one builder chain


def _name_key(node) -> str | None:
    """A field's key, ``.queue_url``: of ``self.queue_url`` / ``cfg.queue_url``, of the field of a struct literal
    (``Worker { queue_url: u }``) and of a shorthand field (``Worker { queue_url }``); None for other names."""
    t = node.type
    if t == "field_expression":
        field = node.child_by_field_name("field")
        return "." + text(field) if field is not None and field.type == "field_identifier" else None
    if t == "field_identifier":
        return "." + text(node)
    if t == "identifier" and node.parent is not None and node.parent.type == "shorthand_field_initializer":
        return "." + text(node)
    return None


def _method(node):
    """(the receiver, the method's name, its argument nodes) of a method call ``recv.m(args)``, or None."""
    if node.type != "call_expression":
        return None
    fn = node.child_by_field_name("function")
    if fn is None or fn.type != "field_expression":
        return None
    field = fn.child_by_field_name("field")
    args = node.child_by_field_name("arguments")
    kids = [a for a in args.named_children if a.type not in _COMMENTS] if args is not None else []
    return fn.child_by_field_name("value"), text(field), kids


_COMMENTS = frozenset({"line_comment", "block_comment"})


def _hook(node, f: File, depth: int) -> Value | None:
    t = node.type
    if t == "integer_literal" or t == "float_literal":
        raw = text(node)
        stripped = _SUFFIX.sub("", raw.replace("_", "")) if not raw.startswith(("0x", "0X")) else raw
        if stripped != raw:
            n = number(stripped)
            return Value("int", n, node) if n is not None else unknown(node, f"{shown(node)} is not a number")
        return None
    if t == "identifier" and node.parent is not None and node.parent.type == "shorthand_field_initializer":
        return _local(node, f, depth)  # `Worker { queue_url }`: the local queue_url (its key is the field's)
    if t == "boolean_literal":
        return Value("bool", text(node) == "true", node)
    if t == "identifier":
        return _scoped(node, f, depth)
    if t == "type_cast_expression":
        return evaluate(node.child_by_field_name("value"), f, depth + 1)
    if t == "macro_invocation":
        return _macro(node, f, depth)
    if t == "match_expression":
        return _matched(node, f, depth)
    if t == "closure_expression":
        return evaluate(node.child_by_field_name("body"), f, depth + 1)
    m = _method(node)
    if m is None:
        return None
    recv, name, args = m
    if recv is None:
        return unknown(node)
    if name == "queue_url" and not args:  # a response's queue URL: the queue its request names
        return _response(recv, f, depth)
    if name in _THROUGH or (name in _MAPPED and len(args) == 1):
        v = evaluate(recv, f, depth + 1)
        if v.kind == "str" and name == "parse" and number(v.value.strip()) is not None:
            return Value("int", number(v.value.strip()), v.node)
        return v
    if name in _DEFAULTED and len(args) == 1:
        v = evaluate(recv, f, depth + 1)
        if v.kind == "env":
            d = evaluate(args[0], f, depth + 1)
            return Value("env", v.value, v.node, default=d if d.kind in ("str", "int") else None)
        return v if v.kind != "unknown" else unknown(node, v.why)
    return None


_LET_FUNCTIONS = ("function_item", "closure_expression")


def _scoped(node, f: File, depth: int) -> Value | None:
    """A local name by Rust's scopes: a ``let`` binds the name from its end to the end of its block, a later ``let``
    shadows it (``let queue_url = queue_url.to_string();`` after the parameter). So the name a use reads is the last
    ``let`` of its function that ends before the use, in a block around it; None (the engine's reading: the file's
    one binding, the parameter) when there is none, or when the function assigns the name (``x = ...``)."""
    key = text(node)
    bound = f.bindings.get(key)
    if not bound or (len(bound) == 1 and not f.is_param(key, node.start_byte)):
        return None
    fn = f.parent(node)
    for _ in range(MAX_CHAIN):
        if fn is None or fn.type in _LET_FUNCTIONS:
            break
        fn = f.parent(fn)
    if fn is None or fn.type not in _LET_FUNCTIONS:
        return None
    starts = _starts(f, key, bound)
    lo, hi = bisect.bisect_left(starts, fn.start_byte), bisect.bisect_left(starts, fn.end_byte)
    best = None
    for at in starts[lo:hi]:  # only this function's bindings (a name bound in each of 5,000 functions)
        name, value = bound[at]
        decl = f.parent(name)
        if decl is not None and decl.type == "mut_pattern":
            decl = f.parent(decl)
        if decl is None or decl.type != "let_declaration":
            return None  # assigned in the function: the engine's reading of assignments
        block = f.parent(decl)
        if (
            decl.end_byte <= node.start_byte
            and block is not None
            and block.start_byte <= node.start_byte < block.end_byte
            and (best is None or at > best[0])
        ):
            best = (at, name, value)
    if best is None:
        return None
    _, name, value = best
    if value is None:
        return unknown(node, f"{key} is declared without a value")
    v = evaluate(value, f, depth + 1)
    if v.kind == "unknown":
        out = unknown(node, v.why or key)
        out.env = v.env
        return out
    if v.via is None:
        v.via = name
    return v


def _starts(f: File, key: str, bound: dict) -> list[int]:
    """Where ``key`` is bound in ``f``, sorted (once per name and file)."""
    index = getattr(f, "rust_starts", None)
    if index is None:
        index = f.rust_starts = {}
    got = index.get(key)
    if got is None:
        got = index[key] = sorted(bound)
    return got


def _local(node, f: File, depth: int) -> Value:
    """The value of a local name whose node is keyed as a field (a shorthand field's value)."""
    key = text(node)
    if f.is_param(key, node.start_byte):
        return f.argument(node, key, depth)
    right, where = f._found(key)
    if right is None:
        return unknown(node, f"{key} {where}")
    v = evaluate(right, f, depth + 1)
    if v.kind != "unknown" and v.via is None:
        v.via = where
    return v


def _response(recv, f: File, depth: int) -> Value:
    """``client.get_queue_url().queue_name("jobs").send().await?`` (or create_queue): the queue ``jobs``, by name;
    a name bound to such a response too."""
    node = recv
    for _ in range(MAX_CHAIN):
        if node is None:
            break
        if node.type in (
            "try_expression",
            "await_expression",
            "parenthesized_expression",
            "reference_expression",
        ):
            kids = [k for k in node.named_children if k.type not in _COMMENTS]
            node = kids[0] if kids else None
            continue
        if node.type == "identifier":
            if f.is_param(text(node), node.start_byte):
                break
            right, _ = f._found(text(node))
            node = right
            continue
        m = _method(node)
        if m is None:
            break
        inner, name, args = m
        if name in _THROUGH or name == "send":
            node = inner
            continue
        chain = _down(node)
        if not chain or chain[0][1] not in _RESPONSES:
            break
        for _, method, margs in chain:
            if method in ("queue_name", "set_queue_name") and margs:
                v = evaluate(_some(margs[0]), f, depth + 1)
                if v.kind == "str" and v.value.strip():
                    out = Value("name", v.value.strip(), v.node)
                    out.via = v.via
                    return out
                return unknown(recv, f"the queue named {v.why or shown(margs[0])}")
        break
    return unknown(recv, f"{shown(recv)}.queue_url()")


def _matched(node, f: File, depth: int) -> Value:
    """``match client.create_queue().queue_name("jobs").send().await { Ok(out) => out.queue_url()..., Err(e) => ..
    }``: the queue of the response its ``Ok`` arm reads the URL of (the other arms handle the call's failure)."""
    scrutinee = node.child_by_field_name("value")
    body = node.child_by_field_name("body")
    for arm in body.named_children if body is not None and scrutinee is not None else ():
        pat = arm.child_by_field_name("pattern")
        inner = pat.named_children[0] if pat is not None and pat.named_children else None
        if (
            inner is None
            or inner.type != "tuple_struct_pattern"
            or text(inner.child_by_field_name("type")) != "Ok"
        ):
            continue
        bound = [
            k
            for k in inner.named_children
            if k.type == "identifier" and k != inner.child_by_field_name("type")
        ]
        value = arm.child_by_field_name("value")
        for _ in range(MAX_CHAIN):
            m = _method(value) if value is not None else None
            if m is None or m[1] not in _THROUGH:
                break
            value = m[0]
        m = _method(value) if value is not None else None
        if (
            len(bound) == 1
            and m is not None
            and m[1] == "queue_url"
            and not m[2]
            and text(m[0]) == text(bound[0])
        ):
            return _response(scrutinee, f, depth)
        break
    return unknown(node)


def _down(call) -> list:
    """The calls of a builder chain ending at ``call``, first first: [(call, method, args)]."""
    out = []
    node = call
    for _ in range(MAX_CHAIN):
        m = _method(node) if node is not None else None
        if m is None:
            break
        out.append((node, m[1], m[2]))
        node = m[0]
    out.reverse()
    return out


def up_chain(f: File, call) -> list:
    """The calls chained on ``call`` (``call.a(x).b(y)``), in order: [(call node, method name node, args)]."""
    out = []
    node = call
    for _ in range(MAX_CHAIN):
        fe = f.parent(node)
        if fe is None or fe.type != "field_expression" or fe.child_by_field_name("value") != node:
            break
        up = f.parent(fe)
        if up is None or up.type != "call_expression" or up.child_by_field_name("function") != fe:
            break
        args = up.child_by_field_name("arguments")
        kids = [a for a in args.named_children if a.type not in _COMMENTS] if args is not None else []
        out.append((up, fe.child_by_field_name("field"), kids))
        node = up
    return out


def _some(node):
    """``Some(x)`` -> ``x`` (a ``set_*`` option takes an Option); any other node as it is."""
    if node.type == "call_expression" and text(node.child_by_field_name("function")) == "Some":
        args = node.child_by_field_name("arguments")
        kids = [a for a in args.named_children if a.type not in _COMMENTS] if args is not None else []
        if len(kids) == 1:
            return kids[0]
    return node


def _macro(node, f: File, depth: int) -> Value | None:
    """``format!("{}-jobs", prefix)`` / ``format!("{p}-jobs", p = prefix)`` of known parts (engine.braces); of
    environment variables, a pattern (engine.compose). Other macros are not read."""
    name = text(node.child_by_field_name("macro"))
    if name not in ("format", "std::format"):
        return unknown(node)
    tree = next((k for k in node.named_children if k.type == "token_tree"), None)
    if tree is None:
        return unknown(node)
    groups, cur = [], []
    for k in tree.children[1:-1]:  # between the brackets
        if k.type == ",":
            groups.append(cur)
            cur = []
        elif k.type not in _COMMENTS:
            cur.append(k)
    if cur:
        groups.append(cur)
    if not groups or len(groups[0]) != 1 or groups[0][0].type not in RUST.strings:
        return unknown(node)
    fmt = evaluate(groups[0][0], f, depth + 1)
    if fmt.kind != "str":
        return unknown(node)
    pos, kw = [], {}
    for g in groups[1:]:
        if len(g) == 1 and g[0].is_named:
            pos.append(evaluate(g[0], f, depth + 1))
        elif len(g) == 3 and g[0].type == "identifier" and g[1].type == "=" and g[2].is_named:
            kw[text(g[0])] = evaluate(g[2], f, depth + 1)
        else:
            return unknown(node, f"{shown(node)}: an argument visguard does not read")
    names = list(kw)
    parts = pos + [kw[k] for k in names]

    def make(ps):
        return braces(fmt.value, ps[: len(pos)], dict(zip(names, ps[len(pos) :], strict=True)))

    return compose(node, parts, make, shown(node))


def _signature(fn, f: File):
    """(the names its calls use, [(parameter, None, True)], 0): a function's or method's name (``self`` is the
    receiver, not passed by position); a ``new`` is called by its impl's type (``Worker::new(u)``)."""
    if fn.type != "function_item":
        return None
    name = text(fn.child_by_field_name("name"))
    params = []
    plist = fn.child_by_field_name("parameters")
    for p in plist.named_children if plist is not None else ():
        if p.type == "parameter":
            pat = p.child_by_field_name("pattern")
            if pat is not None and pat.type == "mut_pattern":
                pat = next((k for k in pat.named_children if k.type == "identifier"), pat)
            params.append((text(pat), None, True))
    names: tuple = (name,)
    if name == "new":
        owner = f.parent(f.parent(fn)) if f.parent(fn) is not None else None
        if owner is not None and owner.type == "impl_item":
            ty = owner.child_by_field_name("type")
            if ty is not None and ty.type == "generic_type":
                ty = ty.child_by_field_name("type")
            if ty is not None and ty.type == "scoped_type_identifier":
                ty = ty.child_by_field_name("name")
            names = (text(ty),) if ty is not None else names
    return names, params, 0


def _call_args(call, f: File):
    args = call.child_by_field_name("arguments")
    if args is None:
        return None
    return [a for a in args.named_children if a.type not in _COMMENTS], {}, False


RUST = Language(
    "rust",
    "rust",
    keys=dict(_OPTIONS),
    numbers={"integer_literal", "float_literal"},
    strings={"string_literal", "raw_string_literal"},
    string_parts={"string_content", "escape_sequence"},
    names={"identifier"},
    members={"field_expression": ("value", "field")},
    wrappers={"parenthesized_expression", "reference_expression", "try_expression", "await_expression"},
    unary={"unary_expression"},
    binary={"binary_expression"},
    calls={"call_expression": "arguments"},
    env_calls={
        "env::var": (0, None),
        "std::env::var": (0, None),
        "env::var_os": (0, None),
        "dotenvy::var": (0, None),
        "dotenv::var": (0, None),
    },
    passthrough={"Some": None, "String::from": None, "i32::from": None, "i32::try_from": None},
    units={
        "Duration::from_secs": 1,
        "std::time::Duration::from_secs": 1,
        "Duration::from_millis": 0.001,
        "Duration::from_mins": 60,
    },
    hook=_hook,
    name_key=_name_key,
    signature=_signature,
    call_args=_call_args,
    package="folder",
    annotation="//",
)


def read(path: str, data: bytes) -> CodeResult:
    f = File(RUST, data, path=path)
    r = Reader(path, "rust", data, RUST)
    found = []
    for token in f.captures("receive"):
        fe = f.parent(token)
        call = f.parent(fe) if fe is not None and fe.type == "field_expression" else None
        if call is None or call.type != "call_expression" or call.child_by_field_name("function") != fe:
            continue
        args = call.child_by_field_name("arguments")
        if args is None or any(a.type not in _COMMENTS for a in args.named_children):
            continue  # rusoto's receive_message(request): the request literal is the consumer
        found.append((token.start_byte, "builder", token, call))
    for call in f.captures("receive.input"):  # ReceiveMessageInput::builder(): the same options, then build()
        found.append((call.start_byte, "builder", call, call))
    for site, _, args, _ in f.sites():
        found.append((site.start_byte, "literal", site, args))
    for _, kind, site, what in sorted(found, key=lambda x: x[0]):
        if kind == "builder":
            options = []
            chain = up_chain(f, what)
            for _, name_node, margs in chain + _continued(f, chain[-1][0] if chain else what):
                method = text(name_node)
                field = _OPTIONS.get(method.removeprefix("set_"))
                if field is not None and margs:
                    options.append((field, _some(margs[0]) if method.startswith("set_") else margs[0]))
        else:
            options = what
        # a receive whose options come through a function of several call sites (``Worker::new(queue_url,
        # visibility)`` for two queues): one consumer per call site (engine.Reader.per_call_site)
        r.per_call_site(
            lambda site=site, options=options: r.request(
                site, "sdk", options, lambda c, key, node: _field(r, f, c, key, node)
            )
        )
    heartbeat = bool(f.captures("heartbeat"))
    for c in r.result.consumers:
        c.heartbeat = heartbeat
    creates.read(f, r)  # the queues the code creates (issue 35)
    return r.finish()


MAX_CONTINUED = 50  # options set on a builder's variable, read for one receive


def _continued(f: File, top) -> list:
    """The options set later on the variable a builder is bound to, in its function: ``let mut req =
    client.receive_message().queue_url(u);`` then ``req = req.visibility_timeout(30);`` (or
    ``req.wait_time_seconds(20).send()``): [(call, method name node, args)] in the order written."""
    decl = f.parent(top)
    while decl is not None and decl.type in RUST.wrappers:
        decl = f.parent(decl)
    if decl is None or decl.type != "let_declaration":
        return []
    pat = decl.child_by_field_name("pattern")
    if pat is None or pat.type != "identifier":
        return []
    fn = f.parent(decl)
    for _ in range(MAX_CHAIN):
        if fn is None or fn.type in _LET_FUNCTIONS:
            break
        fn = f.parent(fn)
    if fn is None:
        return []
    name = text(pat).encode()
    needle = re.compile(
        rb"\b"
        + re.escape(name)
        + rb"\s*\.\s*((?:set_)?(?:"
        + b"|".join(o.encode() for o in _OPTIONS)
        + rb"))\b"
    )
    out = []
    seen = set()
    for m in needle.finditer(f.data, decl.end_byte, fn.end_byte):
        if len(out) >= MAX_CONTINUED:
            break
        token = f.root.descendant_for_byte_range(m.start(1), m.end(1))
        fe = f.parent(token) if token is not None and token.type == "field_identifier" else None
        call = f.parent(fe) if fe is not None and fe.type == "field_expression" else None
        if call is None or call.type != "call_expression" or call.child_by_field_name("function") != fe:
            continue
        if text(fe.child_by_field_name("value")) != text(pat) or (call.start_byte, call.end_byte) in seen:
            continue
        args = call.child_by_field_name("arguments")
        kids = [a for a in args.named_children if a.type not in _COMMENTS] if args is not None else []
        for c, n, k in [(call, token, kids), *up_chain(f, call)]:
            if (c.start_byte, c.end_byte) not in seen:
                seen.add((c.start_byte, c.end_byte))
                out.append((c, n, k))
    return out


def _field(r: Reader, f: File, c, field: str, node) -> None:
    if text(node) == "None":  # set_visibility_timeout(None): not set, not sent
        return
    v = evaluate(node, f)
    what = f"receive_message {RECEIVE_API[field]}"
    if field == "queue":
        r.queue(c, v, what)
    elif (
        field == "visibility_override"
        and v.kind == "int"
        and v.value == 0
        and not facts.RUST_SDK_SENDS_SET_VALUE
    ):
        c.visibility_override = None  # (an SDK that dropped a 0, as Go's v2 does: the queue's applies)
        r.set(c, "zero_not_sent", True, v.node)
    else:
        r.number(c, field, v, what)
