"""SQS consumers in C#: ``ReceiveMessageRequest`` of the AWS SDK for .NET.

Where they are is ``languages/csharp.scm``; this module is the C# entry of the code engine (``engine.py``) and what
a query cannot say. One consumer per ``new ReceiveMessageRequest { QueueUrl = .., VisibilityTimeout = N,
WaitTimeSeconds = .., MaxNumberOfMessages = .. }`` (or ``new ReceiveMessageRequest(queueUrl)``), with later
property assignments ``request.VisibilityTimeout = N``; and ``sqs.ReceiveMessageAsync(queueUrl)`` with a queue URL
(platform ``sdk``). Queue: a literal, a ``const``/field/local of the file assigned once, or
``Environment.GetEnvironmentVariable("X")``. ``heartbeat``: True when the file changes visibility
(``ChangeMessageVisibilityAsync``, ``ChangeMessageVisibilityRequest``), else False.
"""

from __future__ import annotations

import re

from . import CodeResult, creates
from .engine import FLOW, RECEIVE_API, File, Language, Reader, Value, classes_of, evaluate, text

EXTENSIONS = (".cs",)


def _hook(node, f: File, depth: int) -> Value | None:
    """What the tables cannot say: ``@"verbatim"`` strings (no part nodes) and ``this.x`` (the field ``x``)."""
    if node.type == "verbatim_string_literal":
        return Value("str", text(node).lstrip("@").strip('"'), node)
    if node.type == "member_access_expression" and text(node.child_by_field_name("expression")) == "this":
        name = node.child_by_field_name("name")
        return f.name(name, depth, field=True) if name is not None and name.type == "identifier" else None
    return None


def _signature(fn, f: File):
    """(the names its calls use: a constructor's class, a method's name; [(parameter, default, True)], 0)."""
    if fn.type not in ("constructor_declaration", "method_declaration", "local_function_statement"):
        return None
    params = []
    for p in fn.child_by_field_name("parameters").named_children:
        if p.type != "parameter":
            continue
        name = p.child_by_field_name("name")
        after = [c for c in p.named_children if c.start_byte > name.end_byte] if name is not None else []
        params.append((text(name), after[0] if after else None, True))
    return (text(fn.child_by_field_name("name")),), params, 0


def _call_args(call, f: File):
    """(positional arguments, {name: argument} of ``name: value``, False); a constructor's ``: base(...)`` too."""
    args = call.child_by_field_name("arguments")
    if args is None and call.type == "constructor_initializer":
        args = next((c for c in call.named_children if c.type == "argument_list"), None)
    if args is None:
        return None
    pos, kw = [], {}
    for a in args.named_children:
        if a.type != "argument":
            continue
        name = a.child_by_field_name("name")
        if name is not None:
            kw[text(name)] = a
        else:
            pos.append(a)
    return pos, kw, False


def _super_calls(fn, f: File) -> list:
    """engine.Language.super_calls: for a class's constructor, the ``: base(...)`` of the constructors of the
    classes of its package deriving from it (``class Billing : BaseWorker``, ``: Lib.BaseWorker, IWorker``), and
    (File, None, None, name) for a subclass without a constructor (``new Sub()`` runs the base's)."""
    if fn.type != "constructor_declaration":
        return []
    base, out = text(fn.child_by_field_name("name")), []
    for g in [f, *FLOW.files_with(f, (base,))]:
        for cls in classes_of(g, ("class_declaration",)):
            bases = next((c for c in cls.named_children if c.type == "base_list"), None)
            first = bases.named_children[0] if bases is not None and bases.named_children else None
            name, body = cls.child_by_field_name("name"), cls.child_by_field_name("body")
            if first is None or re.sub(r"<.*", "", text(first)).rsplit(".", 1)[-1] != base or name is None:
                continue
            ctors = [
                c
                for c in (body.named_children if body is not None else ())
                if c.type == "constructor_declaration"
            ]
            if not ctors:
                out.append((g, None, None, text(name)))
            for ctor in ctors:
                init = next((c for c in ctor.named_children if c.type == "constructor_initializer"), None)
                if init is not None and text(init).lstrip(":").lstrip().startswith("base"):
                    out.append((g, init, ctor, text(name)))
    return out


CSHARP = Language(
    "csharp",
    "csharp",
    annotation="//",
    signature=_signature,
    call_args=_call_args,
    super_calls=lambda fn, f: _super_calls(fn, f),
    keys={api: field for field, api in RECEIVE_API.items()},
    numbers={"integer_literal", "real_literal"},
    strings={"string_literal", "raw_string_literal", "verbatim_string_literal"},
    string_parts={"string_literal_content", "escape_sequence", "raw_string_content"},
    names={"identifier"},
    wrappers={"parenthesized_expression", "cast_expression"},
    argument_value={"argument"},
    unary={"prefix_unary_expression"},
    binary={"binary_expression"},
    calls={"invocation_expression": "arguments"},
    env_calls={
        "Environment.GetEnvironmentVariable": (0, None),
        "System.Environment.GetEnvironmentVariable": (0, None),
    },
    passthrough={"int.Parse": "number", "Int32.Parse": "number", "Convert.ToInt32": "number"},
    hook=_hook,
)


def read(path: str, data: bytes) -> CodeResult:
    f = File(CSHARP, data, path=path)
    r = Reader(path, "csharp", data, CSHARP)
    strings = {n.start_byte for n in f.captures("string")}
    # in the order written: requests (their settings, a list) and receive calls (their first argument)
    found = [(site.start_byte, -site.end_byte, site, args, var) for site, _, args, var in f.sites()]
    for name in f.captures("receive"):
        call = _invocation(f, name)
        listed = call.child_by_field_name("arguments") if call is not None else None
        args = listed.named_children if listed is not None else []
        if args and args[0].named_children:
            found.append((call.start_byte, -call.end_byte, call, args[0].named_children[-1], None))
    found.sort(key=lambda x: x[:2])
    # a request's later assignments (``req.VisibilityTimeout = 60;``) are the last request bound to that name's
    later: dict[str, list] = {}
    for owner, key, value in f.assignments():
        if key in CSHARP.keys:
            later.setdefault(owner, []).append((CSHARP.keys[key], value))
    last = {
        text(var): site.start_byte
        for _, _, site, args, var in found
        if var is not None and isinstance(args, list)
    }

    def one(site, args, var) -> None:
        if not isinstance(args, list):
            _receive(r, f, site, args, strings)
            return
        c = r.request(site, "sdk", args, lambda c, field, node: _field(r, f, c, field, node))
        if var is not None and last.get(text(var)) == site.start_byte:
            for field, value in later.get(text(var), ()):
                _field(r, f, c, field, value)

    for _, _, site, args, var in found:
        # a request whose settings come through a function of several call sites (``new Listener(url,
        # visibility)`` for two queues): one consumer per call site (engine.Reader.per_call_site)
        r.per_call_site(lambda site=site, args=args, var=var: one(site, args, var))
    heartbeat = bool(f.captures("heartbeat")) or any(_invocation(f, n) for n in f.captures("heartbeat.call"))
    for c in r.result.consumers:
        c.heartbeat = heartbeat
    creates.read(f, r)  # the queues the code creates (issue 35)
    return r.finish()


def _invocation(f: File, name):
    """The call ``name`` names (``F(..)``, ``sqs.F(..)``, ``sqs?.F(..)``), or None."""
    fn, up = name, f.parent(name)
    if up is not None and up.type == "member_access_expression" and up.child_by_field_name("name") == name:
        fn, up = up, f.parent(up)
    elif up is not None and up.type == "member_binding_expression" and up.child_by_field_name("name") == name:
        cond = f.parent(up)
        if cond is None or cond.type != "conditional_access_expression" or cond.named_children[-1] != up:
            return None
        fn, up = cond, f.parent(cond)
    if up is not None and up.type == "invocation_expression" and up.child_by_field_name("function") == fn:
        return up
    return None


def _receive(r: Reader, f: File, call, first, strings: set[int]) -> None:
    """``ReceiveMessageAsync(queueUrl)``: a receive at the queue's visibility, when its argument is a queue URL
    (a literal, an environment variable, a name of the file declared only as a string)."""
    if first.type == "object_creation_expression":
        return  # read where the request is created
    v = evaluate(first, f)
    if v.kind not in ("str", "env"):
        name = first.child_by_field_name("name") if first.type == "member_access_expression" else first
        bound = f.bindings.get(text(name), {})
        if not bound or not all(start in strings for start in bound):
            return  # a request variable, read where it is created
    c = r.consumer(call, "sdk")
    c.locations["queue_ref"] = c.location
    r.queue(c, v, "ReceiveMessageAsync")


def _field(r: Reader, f: File, c, field: str, node) -> None:
    v = evaluate(node, f)
    what = f"ReceiveMessageRequest {RECEIVE_API[field]}"
    if field == "queue":
        r.queue(c, v, what)
    else:
        r.number(c, field, v, what)
