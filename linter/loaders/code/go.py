"""SQS consumers in Go: ``sqs.ReceiveMessageInput`` literals of the AWS SDK v2 (and v1).

Where they are is ``languages/go.scm``; this module is the Go entry of the code engine (``engine.py``) and what
a query cannot say. One consumer per ``&sqs.ReceiveMessageInput{...}`` (platform ``sdk``): ``QueueUrl`` (a
literal, a constant or variable of the file bound once, ``os.Getenv("X")``), ``VisibilityTimeout``,
``WaitTimeSeconds``, ``MaxNumberOfMessages``, also when set later as ``input.VisibilityTimeout = N``. SDK v2 does
not send a VisibilityTimeout of 0 on ReceiveMessage (facts.GO_SDK_ZERO_NOT_SENT): a plain ``0`` leaves
``visibility_override`` None and sets ``settings["zero_not_sent"]``; v1's pointer ``aws.Int64(0)`` is sent.
``heartbeat``: True when the file changes visibility (``ChangeMessageVisibilityInput``,
``ChangeMessageVisibility``), else False. A literal cut off by the end of the file (tree-sitter recovers it as
an error holding its type and fields) is read too.
"""

from __future__ import annotations

import re

from visguard import facts

from . import CodeResult, creates
from .engine import (
    FLOW,
    RECEIVE_API,
    File,
    Language,
    Reader,
    Value,
    compose,
    descendants,
    evaluate,
    printf,
    text,
    unknown,
)
from .engine import returned as engine_returned

EXTENSIONS = (".go",)


def _name_key(node) -> str | None:
    """A field's key, ``.url``, for ``q.url`` and for the key of ``Listener{url: u}`` (a package's field is one
    name whatever the variable: engine.Flow); None for other names (their text)."""
    if node.type == "selector_expression":
        return "." + text(node.child_by_field_name("field"))
    parent = node.parent if node.type == "identifier" else None
    if parent is not None and parent.type == "literal_element":
        keyed = parent.parent
        if keyed is not None and keyed.type == "keyed_element" and keyed.named_children[0] == parent:
            return "." + text(node)
    return None


def _hook(node, f: File, depth: int):
    """A call of a function of the package that asks ``GetQueueUrl`` for one queue name
    (``url, err := getQueueURL(client, name)``): that queue, by its name; None for everything else."""
    if node.type != "call_expression":
        return None
    fn = node.child_by_field_name("function")
    if text(fn) == "fmt.Sprintf":
        return _sprintf(node, f, depth)
    full = text(fn)
    name = text(
        fn.child_by_field_name("field") if fn is not None and fn.type == "selector_expression" else fn
    )
    if not name or full in GO.passthrough or full in GO.env_calls or "GetQueueUrl" in name:
        return None
    asked = _asks_queue_url(name, f)
    if asked is None:
        return _returned(node, fn, f, depth)
    g, decl, value = asked
    v = FLOW.called(g, decl, node, f, value, depth)
    if v.kind == "str" and v.value:
        out = Value("name", v.value, v.node)
        out.via, out.file = v.via, v.file if v.file is not None else (g if g is not f else None)
        return out
    return unknown(node, v.why or text(value))


# A struct field an environment library fills (github.com/caarlos0/env: ``env:"VT" envDefault:"30"``;
# github.com/kelseyhightower/envconfig: ``envconfig:"VT" default:"30"``), as its tag says
_ENV_TAG = re.compile(r'(?:^|[\s`])(?:env|envconfig):"([A-Za-z_][A-Za-z0-9_]*)[^"]*"')
_DEFAULT_TAG = re.compile(r'(?:^|[\s`])(?:envDefault|default):"([^"]{0,256})"')
MAX_TAG_NODES = 200_000  # nodes of one file walked for its struct tags


def _tagged(f: File, key: str, node) -> Value | None:
    """A field no code of the project sets (``cfg.VisibilityTimeout``) whose struct declares it filled from an
    environment variable by its tag: that variable, with the tag's default (a number: the default, of the
    variable, as ``os.getenv("VT", 30)``); None when no struct, or several with different tags, declare it."""
    word = key.lstrip(".")
    found = []
    for g in [f, *FLOW.files_with(f, (word,))]:
        found += [(g, *t) for t in _tags(g).get(word, ())]
    if not found or len({(var, default) for _, _, var, default in found}) != 1:
        return None
    g, at, var, default = found[0]
    if default is not None and default.strip().isdigit() and len(default.strip()) <= 9:
        out = Value("int", int(default.strip()), at)
        out.env = var
    else:
        out = Value("env", var, at, default=Value("str", default, at) if default else None)
    if g is not f:
        out.file = g
    return out


def _tags(g: File) -> dict:
    """{field name: [(tag node, variable, default or None)]} of ``g``'s struct fields with an environment tag."""
    got = getattr(g, "go_tags", None)
    if got is None:
        got = {}
        for n in descendants(g.root, MAX_TAG_NODES, prune=frozenset(("field_declaration",))):
            tag = n.child_by_field_name("tag") if n.type == "field_declaration" else None
            m = _ENV_TAG.search(text(tag)) if tag is not None else None
            if m is not None:
                d = _DEFAULT_TAG.search(text(tag))
                for name in n.children_by_field_name("name"):
                    got.setdefault(text(name), []).append((tag, m.group(1), d.group(1) if d else None))
        g.go_tags = got
    return got


def _sprintf(node, f: File, depth: int) -> Value:
    """``fmt.Sprintf("%s-orders", prefix)`` of known parts (engine.printf); of environment variables, a
    pattern (engine.compose)."""
    args = [evaluate(a, f, depth + 1) for a in _call_args(node, f)[0]]
    if not args or args[0].kind != "str":
        return unknown(node)
    return compose(node, args[1:], lambda ps: printf(args[0].value, ps), text(node)[:60])


def _asks_queue_url(name: str, f: File):
    """(the file, the function, the QueueName node) of the one ``sqs.GetQueueUrlInput{QueueName: x}`` in the body
    of the package's function ``name`` (in ``f`` or its folder), or None."""
    if b"GetQueueUrlInput" not in f.data and not FLOW.offered:
        return None
    for g in [f, *FLOW.files_with(f, ("GetQueueUrlInput",), folder_only=True)]:
        decl = _lookups(g).get(name)
        if decl is None:
            continue
        found = []
        stack = [decl.child_by_field_name("body")]
        while stack and len(found) < 2:
            n = stack.pop()
            if n is None:
                continue
            if n.type == "keyed_element" and text(n.named_children[0]) == "QueueName":
                lit = g.parent(g.parent(n))
                if lit is not None and text(lit.child_by_field_name("type")).endswith("GetQueueUrlInput"):
                    found.append(n.named_children[-1])
                    continue
            stack.extend(n.named_children)
        return (g, decl, found[0]) if len(found) == 1 else None
    return None


def _returned(node, fn, f: File, depth: int):
    """A call of a plain function of the package (``url, err := setup(client)``): the first value its returns
    give with this call's arguments (engine.returned: one value when they agree); None for any other call."""
    if fn is None or fn.type != "identifier" or not FLOW.spend():
        return None
    name = text(fn)
    for g in [f, *FLOW.files_with(f, (name,), folder_only=True)]:
        decl = _functions(g).get(name)
        if decl is not None:
            return engine_returned(g, decl, node, f, depth, name)
    return None


def _functions(g: File) -> dict:
    """The top-level functions of ``g`` by name (once per file)."""
    index = getattr(g, "go_functions", None)
    if index is None:
        index = {}
        for d in g.root.named_children:
            if d.type == "function_declaration":
                index[text(d.child_by_field_name("name"))] = d
        g.go_functions = index
    return index


def _lookups(g: File) -> dict:
    """The top-level functions of ``g`` whose text asks GetQueueUrl, by name (once per file)."""
    index = getattr(g, "go_lookups", None)
    if index is None:
        index = {}
        if b"GetQueueUrlInput" in g.data:
            for d in g.root.named_children:
                if d.type in ("function_declaration", "method_declaration") and b"GetQueueUrlInput" in (
                    d.text or b""
                ):
                    index[text(d.child_by_field_name("name"))] = d
        g.go_lookups = index
    return index


def _signature(fn, f: File):
    """(the function's name, [(parameter, None, True)], 0): a Go call passes every parameter by position
    (a method's receiver is not one of them; ``...T`` takes the rest)."""
    if fn.type not in ("function_declaration", "method_declaration"):
        return None
    params = []
    for decl in fn.child_by_field_name("parameters").named_children:
        star = "*" if decl.type == "variadic_parameter_declaration" else ""
        for n in decl.children_by_field_name("name"):
            params.append((star + text(n), None, not star))
    return (text(fn.child_by_field_name("name")),), params, 0


def _call_args(call, f: File):
    args = call.child_by_field_name("arguments")
    if args is None:
        return None
    pos = [a for a in args.named_children if a.type != "comment"]
    splat = any(c.type == "..." for c in args.children)
    return pos, {}, splat


GO = Language(
    "go",
    "go",
    keys={api: field for field, api in RECEIVE_API.items()},
    numbers={"int_literal", "float_literal"},
    strings={"interpreted_string_literal", "raw_string_literal"},
    string_parts={"interpreted_string_literal_content", "raw_string_literal_content", "escape_sequence"},
    names={"identifier"},
    members={"selector_expression": ("operand", "field")},
    wrappers={"literal_element", "parenthesized_expression"},
    unary={"unary_expression"},
    binary={"binary_expression"},
    calls={"call_expression": "arguments"},
    env_calls={"os.Getenv": (0, None)},
    passthrough={
        "aws.String": None,
        "aws.Int64": "pointer",
        "aws.Int32": "pointer",
        "aws.Int": "pointer",
        "int32": None,
        "int64": None,
        "int": None,
        "strconv.Atoi": "number",
        "strconv.ParseInt": "number",
        "strconv.ParseUint": "number",
    },  # fmt: skip
    name_key=_name_key,
    hook=_hook,
    signature=_signature,
    call_args=_call_args,
    package="folder",
    annotation="//",
    unset_field=lambda f, key, node: _tagged(f, key, node),
)


def read(path: str, data: bytes) -> CodeResult:
    f = File(GO, data, path=path)
    r = Reader(path, "go", data, GO)
    found = [(site.start_byte, site, args, var) for site, _, args, var in f.sites()]
    for err in f.captures("truncated"):
        found.extend(_truncated(err))
    found.sort(key=lambda x: x[0])
    # an input's later assignments (``in.VisibilityTimeout = 60``) are the last input bound to that name's
    later: dict[str, list] = {}
    for owner, key, value in f.assignments():
        if key in GO.keys:
            later.setdefault(owner, []).append((GO.keys[key], value))
    last = {text(var): site.start_byte for _, site, _, var in found if var is not None}

    def one(site, args, var) -> None:
        c = r.request(site, "sdk", args, lambda c, field, node: _field(r, f, c, field, node))
        if var is not None and last.get(text(var)) == site.start_byte:
            for field, value in later.get(text(var), ()):
                _field(r, f, c, field, value)

    for _, site, args, var in found:
        # an input whose fields come through a function of several call sites (``NewListener(url, visibility)``
        # called for two queues): one consumer per call site (engine.Reader.per_call_site)
        r.per_call_site(lambda site=site, args=args, var=var: one(site, args, var))
    heartbeat = bool(f.captures("heartbeat"))
    for c in r.result.consumers:
        c.heartbeat = heartbeat
    creates.read(f, r)  # the queues the code creates (issue 35)
    return r.finish()


def _truncated(err) -> list:
    """A ReceiveMessageInput literal cut off by the end of the file: its type, then its fields as siblings."""
    out = []
    kids = err.named_children
    for i, k in enumerate(kids):
        if k.type == "qualified_type" and text(k).rsplit(".", 1)[-1] == "ReceiveMessageInput":
            j = i + 1
            while j < len(kids) and kids[j].type == "keyed_element":
                j += 1
            args = []
            for el in kids[i + 1 : j]:
                if len(el.named_children) >= 2 and text(el.named_children[0]) in GO.keys:
                    args.append((GO.keys[text(el.named_children[0])], el.named_children[-1]))
            out.append((k.start_byte, k, args, None))
    return out


def _field(r: Reader, f: File, c, field: str, node) -> None:
    v = evaluate(node, f)
    what = f"ReceiveMessageInput {RECEIVE_API[field]}"
    if field == "queue":
        r.queue(c, v, what)
    elif field == "visibility_override" and v.kind == "int" and v.value == 0 and v.mark != "pointer":
        c.visibility_override = None
        r.set(c, "zero_not_sent", facts.GO_SDK_ZERO_NOT_SENT, v.node)
    else:
        r.number(c, field, v, what)
