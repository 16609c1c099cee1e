"""SQS consumers in JavaScript and TypeScript (issue 25), on the code engine (issue 34: ``engine.py``).

Where they are is ``languages/javascript.scm``, one query compiled for the JavaScript, TypeScript and TSX
grammars; this module is their three ``Language`` entries and what a query cannot say: which local name is
sqs-consumer's ``Consumer`` or nestjs-sqs's ``SqsModule``, which declaration a name means where it is used (the
file's scopes), and the value of an options object (the entries' hook, :meth:`_Scopes.evaluated`).

What a file says about its receives:
- AWS SDK v3 ``new ReceiveMessageCommand({QueueUrl, VisibilityTimeout, WaitTimeSeconds, MaxNumberOfMessages})``
  and v2 / v3-aggregated ``sqs.receiveMessage({...})``: one ``sdk`` consumer per receive site;
  ``ChangeMessageVisibility(Batch)Command`` / ``changeMessageVisibility(Batch)(...)`` in the same file is a
  heartbeat, unless every VisibilityTimeout it sends is a literal 0 (that releases the message, it extends none).
- Node ``sqs-consumer`` (``Consumer.create({...})`` / ``new Consumer({...})``, imported from ``sqs-consumer`` or
  ``@rxfork/sqs-consumer``) and ``@ssut/nestjs-sqs`` (``SqsModule.register({consumers: [...]})``,
  ``registerAsync`` whose factory returns a literal): one ``sqs-consumer`` consumer per options object.
  ``visibilityTimeout`` and ``heartbeatInterval`` are seconds, ``handleMessageTimeout`` milliseconds
  (reference/consumers.md §3.3; its place's ``scale`` is 0.001, so the fixer writes milliseconds).

A value is read when it is written in the file: a literal, arithmetic of literals, a ``const`` (or a ``let`` never
assigned again) of an enclosing scope, a class field, a property of an object of the file, a template literal of
such parts, ``process.env.X`` (the queue is then named by the variable; a number takes the ``?? 30`` / ``|| 30``
default). Across functions and files the engine's value flow (issue 35, ``engine.Flow``) reads the rest, through
the entries' ``signature``, ``call_args``, ``imported`` and ``name_key`` (the end of this module) and the query's
``@flow.call``/``@param`` patterns: a parameter is what the calls of its function pass (a constructor's: ``new
Class(...)``; a destructured one: a property of the object passed; else its default), ``this.x`` its constructor's
assignment, a name imported from a relative module (``import``/``require``) what that module exports.
Numbers follow the engine's semantics: a literal beyond ``values.MAX_NUMBER`` is not read and a note
names it (a range is the rules' to judge: 50,000 is read as 50,000). Anything else is computed: the field stays
None and a note names its place. Every number set records its ``Place`` (written in place, a constant's, an
environment variable's default, computed). Nothing is evaluated, nothing is imported but the grammar; a file that
does not parse is read as far as tree-sitter recovered it.

``heartbeat``: True with a heartbeat in the file (or sqs-consumer's ``heartbeatInterval``); an SDK site without
one is None (the extension may live in another file), an sqs-consumer without one False (the library extends
only with ``heartbeatInterval``). Consumer ids are ``path:line`` (``path:line:column`` for a second one on a line).

Bounds: a file without a marker is not parsed; the query finds what is read; ancestors are found by one descent
from the site or declarator at hand (tree-sitter's ``parent`` descends from the root each time); nesting,
declarations per name, references followed and descents are capped, beyond which a value is computed.
"""

from __future__ import annotations

import contextlib
import itertools
import re

from visguard.linter.consumers import QueueRef, queue_name_of
from visguard.linter.loaders import values
from visguard.linter.model import Location, Note

from . import CodeResult, creates, engine, parse
from .engine import File, Language, Reader, Value, classes_of, evaluate, text

EXTENSIONS = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")

# a file without any of these bytes names no receive this module reads: it is not parsed at all
_MARKERS = (b"eceiveMessage", b"sqs-consumer", b"nestjs-sqs", b"SqsModule", b"reateQueue", b"squiss")
MAX_BYTES = 8_000_000  # larger files are bundles, not application code: one note, not read
MAX_SITES = 500  # receive sites read per file
MAX_DEPTH = 24  # references followed from one value (a const naming a const naming ...)
MAX_STEPS = 200_000  # nodes a file's value resolution may visit in all
MAX_SOURCES = 32  # sources of one merged options object read (_merge_sources)
_MERGES = ("assign", "extend", "merge", "assignIn")  # lodash: the last source wins
_DEFAULTS = ("defaults", "defaultsDeep")  # lodash: the first source wins
MAX_CANDIDATES = 64  # declarations of one name (minified code reuses names): beyond, the name is not read
MAX_ANCESTORS = 2_000  # nesting followed from the root to a node
MAX_DESCENTS = 1_000_000  # steps a file's descents from the root may take in all (~1 s)

SQS_CONSUMER_MODULES = ("sqs-consumer", "@rxfork/sqs-consumer")
_NEST_MODULES = ("@ssut/nestjs-sqs", "@nestjs-packages/sqs")
SQUISS_MODULES = ("squiss-ts", "squiss")  # new Squiss({queueUrl | queueName, visibilityTimeoutSecs, ...})
_SDK_MODULES = ("aws-sdk", "aws-sdk/clients/sqs", "@aws-sdk/client-sqs")
_WRAPPERS = (
    "parenthesized_expression",
    "as_expression",
    "satisfies_expression",
    "non_null_expression",
    "type_assertion",
)
_SCOPES = ("program", "statement_block", "class_body", "switch_body")
_FUNCTIONS = (
    "function_declaration",
    "function_expression",
    "function",
    "arrow_function",
    "method_definition",
    "generator_function",
    "generator_function_declaration",
)
_TO_NUMBER = ("Number", "parseInt", "parseFloat")
_LITERALS = (
    "int",
    "str",
    "bool",
    "none",
)  # the kinds of a value written as a literal (none: null, undefined)
# option keys whose number is in another unit than the model's seconds: sqs-consumer's handleMessageTimeout (ms)
_KEY_UNITS = {"handleMessageTimeout": 0.001}


def _language(name: str, grammar: str) -> Language:
    """The entry of one of the three grammars. Every value is the hook's (:meth:`_Scopes.evaluated`): a name's
    value is its nearest visible declaration's, which no table says; the literal kinds are the places'."""
    return Language(
        name,
        grammar,
        query="javascript",
        numbers={"number"},
        strings={"string"},  # a number written in quotes: its digits are inside them (engine.place)
        hook=lambda node, f, depth: _js(f).evaluated(node, depth),
        annotation="//",
        # the value flow (issue 35): defined below, with the scopes they use
        name_key=lambda node: _name_key(node),
        signature=lambda fn, f: _signature(fn, f),
        super_calls=lambda fn, f: _super_calls(fn, f),
        call_args=lambda call, f: _call_args(call, f),
        imported=lambda f, key: _imported(f, key),
        unpassed=True,  # new B() of constructor(options): options is undefined
    )


JAVASCRIPT = _language("javascript", "javascript")
TYPESCRIPT = _language("typescript", "typescript")
TSX = _language("tsx", "tsx")
_LANGUAGES = {"javascript": JAVASCRIPT, "typescript": TYPESCRIPT, "tsx": TSX}


def language_of(path: str) -> tuple[str, str]:
    """(grammar, source) for ``path``: ``.ts``/``.mts``/``.cts`` TypeScript, ``.tsx`` TSX, else JavaScript."""
    low = path.lower()
    if low.endswith(".tsx"):
        return "tsx", "typescript"
    if low.endswith((".ts", ".mts", ".cts")):
        return "typescript", "typescript"
    return "javascript", "javascript"


def read(path: str, data: bytes) -> CodeResult:
    """The consumers ``data`` (the bytes of ``path``) declares. Never raises: what cannot be read is a note."""
    result = CodeResult()
    if not any(m in data for m in _MARKERS):
        return result
    if len(data) > MAX_BYTES:
        result.notes.append(
            Note(
                f"{path} not read: {len(data):,} bytes is beyond visguard's bound for a source file",
                Location(path),
            )
        )
        return result
    grammar, source = language_of(path)
    root = parse(grammar, data)
    if root is None:  # cancelled by the CPU budget
        result.notes.append(
            Note(f"{path} not read: the parser gave up recovering from syntax errors", Location(path))
        )
        return result
    lang = _LANGUAGES[grammar]
    r = Reader(path, source, data, lang)
    try:
        f = File(lang, data, root, path=path)
        _read(r, f)
        creates.read(f, r)  # the queues the code creates (issue 35)
    except (
        Exception
    ) as e:  # untrusted input: a reader fault is one note, never a traceback (tests pin the cases)
        r.result.notes.append(Note(f"{path} not read completely ({type(e).__name__})", Location(path)))
    return r.finish()


class _Unresolved(Exception):
    """A value the file does not write (``why``: set when a literal is written but not read, a number beyond any
    AWS limit; ``flow``: ``why`` is the value flow's sentence, "url is a parameter of poll, ...")."""

    def __init__(self, why: str = "", flow: bool = False):
        super().__init__(why)
        self.why, self.flow = why, flow


def _lit(value, node) -> Value:
    """The Value of a literal of JavaScript: a number, a string, a boolean, null/undefined (``none``)."""
    if value is None:
        return Value("none", None, node)
    if isinstance(value, bool):
        return Value("bool", value, node)
    if isinstance(value, (int, float)):
        return Value("int", value, node)
    return Value("str", value, node)


def _as_number(v: Value):
    """The number a literal value is (a string as ``Number("30")`` reads it), else None."""
    if v.kind == "int":
        return v.value
    if v.kind == "str":
        try:
            float(v.value.strip())
        except ValueError:
            return None
        return engine.number(v.value.strip())
    return None


def _derived(v: Value, value, node=None) -> Value:
    """A Value of ``value`` written where ``v`` is (its node, the name it was reached through, its flags)."""
    out = _lit(value, v.node if node is None else node)
    out.via, out.env, out.computed, out.scale = v.via, v.env, v.computed, v.scale
    return out


# ----------------------------------------------------------------------------------------------- the pass
def _js(f: File) -> _Scopes:
    """The scopes of ``f`` (its declarations and imports read once), for the file read and for every file the
    value flow opens (engine.Flow); a read's step budgets start again with each read (engine.Flow.begin)."""
    js = getattr(f, "js", None)
    if js is None:
        js = f.js = _Scopes(f)
        for node in f.captures("declarator"):
            js.declare(node)
        js.assigned.update(text(n) for n in f.captures("assigned"))
        _imports(js, f)
    if js.read is not engine.FLOW.frames:  # a new read: its own budgets
        js.read, js.steps, js.descents = engine.FLOW.frames, 0, 0
    return js


def _read(r: Reader, f: File) -> None:
    js = _js(f)
    if f.root.has_error:
        bad = _first_error(f.root)
        r.remark(f"{r.path} has syntax errors; read as far as the parser recovered", bad or f.root)
    sites = []
    for node, platform, args, _ in f.sites():
        named = dict(args)
        cls = _strip(named.get("class"))
        if (
            platform == "sqs-consumer"
            and cls is not None
            and cls.type == "identifier"
            and text(cls) in js.squiss_names
        ):
            platform = "squiss"
        elif platform == "sqs-consumer" and not js.is_consumer_class(cls):
            continue
        if platform.startswith("nest-") and text(named.get("module")) not in js.nest_names:
            continue
        sites.append((platform, node))
    handlers = _handlers(r, js, f.captures("handler"))
    heartbeat = _heartbeat(js, f.captures("heartbeat"))
    if len(sites) > MAX_SITES:
        r.remark(f"{r.path}: only the first {MAX_SITES} of {len(sites)} receive sites were read", sites[0][1])
    for platform, node in sites[:MAX_SITES]:
        # a receive whose options come through a function of several call sites (a ``Worker`` class constructed
        # with two queues): one consumer per call site (engine.Reader.per_call_site)
        r.per_call_site(
            lambda platform=platform, node=node: _site(r, js, platform, node, heartbeat, handlers)
        )


def _site(r: Reader, js, platform: str, node, heartbeat, handlers) -> None:
    """The consumers of one receive site."""
    js.anchors = [node]
    if platform in ("sdk", "sdk-call"):
        _sdk(r, js, node, platform == "sdk-call", heartbeat)
    elif platform == "sqs-consumer":
        _sqs_consumer(r, js, node, _first_arg(node), heartbeat, handler=True)
    elif platform == "squiss":
        _squiss(r, js, node, _first_arg(node), heartbeat)
    else:
        _nest(r, js, node, platform == "nest-registerAsync", heartbeat, handlers)


def _imports(js, f: File) -> None:
    """The names the file's imports bind (the query's ``@import.*``): sqs-consumer's Consumer and module object,
    nestjs-sqs's SqsModule and SqsMessageHandler; and whether it imports the SDK."""
    for _, caps in f.matches:
        source = caps.get("import.module")
        if not source:
            continue
        module = js.key(source[0])
        if module.startswith("."):  # a module of the project: its names are followed (_imported)
            for n in (*caps.get("import.default", ()), *caps.get("import.namespace", ())):
                js.imports[text(n)] = (module, None)
            for name in caps.get("import.name", ()):
                js.imports[text((caps.get("import.alias") or [name])[0])] = (module, js.key(name))
        if module in _SDK_MODULES:
            js.sdk_imported = True
        is_consumer = module in SQS_CONSUMER_MODULES
        is_nest = module in _NEST_MODULES or module.endswith("nestjs-sqs")
        is_squiss = module in SQUISS_MODULES
        if is_squiss:
            js.squiss_names.update(text(n) for n in caps.get("import.default", ()))
        if is_consumer:  # import Consumer from "sqs-consumer" (before v6), import * as ns from "sqs-consumer"
            js.consumer_names.update(text(n) for n in caps.get("import.default", ()))
            js.consumer_ns.update(text(n) for n in caps.get("import.namespace", ()))
        for name in caps.get("import.name", ()):
            local, imported = text((caps.get("import.alias") or [name])[0]), js.key(name)
            if is_consumer and imported == "Consumer":
                js.consumer_names.add(local)
            elif is_squiss and imported == "Squiss":
                js.squiss_names.add(local)
            elif is_nest and imported == "SqsModule":
                js.nest_names.add(local)
            elif is_nest and imported == "SqsMessageHandler":
                js.handler_names.add(local)


# ----------------------------------------------------------------------------------------------- heartbeats
def _heartbeat(js, changes):
    """The first ChangeMessageVisibility call of the file that may extend (not only literal 0s), else None."""
    for node in changes:
        arg = _first_arg(node)
        values = _pairs_named(js, arg, "VisibilityTimeout") if arg is not None else []
        zeros = [v for v in values if (x := js.value(v)) is not None and _as_number(x) == 0]
        if not values or len(zeros) < len(values):
            return node
    return None


def _pairs_named(js, node, key, budget=2000):
    """Value nodes of the properties named ``key`` in the object literals under ``node`` (bounded)."""
    v = js.value(node)
    found, stack = [], [v.node if v is not None and v.kind == "obj" else node]
    while stack and budget > 0:
        n = stack.pop()
        budget -= 1
        if n.type == "pair" and js.key(n.child_by_field_name("key")) == key:
            found.append(n.child_by_field_name("value"))
        elif n.type == "shorthand_property_identifier" and text(n) == key:
            found.append(n)
        stack.extend(n.named_children)
    return found


# ----------------------------------------------------------------------------------------------- consumers
def _consumer(r: Reader, node, platform, heartbeat):
    c = r.consumer(node, platform)
    if heartbeat is not None:
        c.heartbeat = True
        c.locations["heartbeat"] = r.loc(heartbeat)
    return c


def _sdk(r: Reader, js, node, is_call, heartbeat):
    arg = _first_arg(node)
    params = js.value(arg) if arg is not None else None
    params = _with_defaults(js, arg, params)
    bound, pin = _client_queue_url(js, node)
    used = None  # the call site the client's QueueUrl is read with pinned (a helper's callback), when sent
    if bound is not None and (params is None or params.kind == "none" or params.kind == "obj"):
        # new AWS.SQS({ params: { QueueUrl } }): every call of the client sends it, unless the call's own does
        props = dict(params.value) if params is not None and params.kind == "obj" else {}
        if "QueueUrl" not in props and (params is None or params.file in (None, js.file)):
            props["QueueUrl"] = bound
            mark = params.mark if params is not None else None
            params = Value("obj", props, arg if arg is not None else node)
            params.mark = mark
            used = pin
    if (
        is_call
        and not js.sdk_imported
        and not (params is not None and params.kind == "obj" and "QueueUrl" in params.value)
    ):
        return  # x.receiveMessage(...) of something that is not visibly the AWS SDK
    c = _consumer(r, node, "sdk", heartbeat)
    where = f"the receive at {c.location.file}:{c.location.line}"
    if params is None or params.kind != "obj":
        r.remark(
            f"{where} passes parameters visguard cannot read; its queue and visibility are not known",
            node,
            c.id,
        )
        return
    opts = _Opts(params)
    # a client a helper gives its callback: its QueueUrl read for the helper's call whose callback this is (the
    # queue the helper creates under that call's name: creates._per_call_site's queue of the same call chain)
    with engine.FLOW.pinned(*used) if used is not None else contextlib.nullcontext():
        _queue(r, js, c, opts.get("QueueUrl"), where, "QueueUrl", opts.owner, opts.open)
    _seconds(r, js, c, opts, "VisibilityTimeout", "visibility_override", where)
    _seconds(r, js, c, opts, "WaitTimeSeconds", "wait_time", where)
    _seconds(r, js, c, opts, "MaxNumberOfMessages", "max_messages", where)


def _client_queue_url(js, call):
    """The ``QueueUrl`` of the ``params`` an SDK v2 client is constructed with (``const q = new AWS.SQS({ params:
    { QueueUrl: url } })``) when ``call`` is a call on that client (``q.receiveMessage(...)``), else None; and the
    call site to read it with pinned (:func:`_callback_argument`), else None."""
    fn = call.child_by_field_name("function")
    obj = (
        _strip(fn.child_by_field_name("object"))
        if fn is not None and fn.type == "member_expression"
        else None
    )
    if obj is None or obj.type != "identifier":
        return None, None
    try:
        decl = js.declaration(text(obj), obj)
    except _Unresolved:
        return None, None
    made = (
        _strip(decl.child_by_field_name("value"))
        if decl is not None and decl.type == "variable_declarator"
        else None
    )
    pin = None
    if made is None and decl is None:  # _getQueue(name, function (err, q) { q.receiveMessage(..) })
        given, pin = _callback_argument(js, obj)
        made = _stored(js, given)
    if made is None or made.type != "new_expression":
        return None, None
    if not text(made.child_by_field_name("constructor")).endswith("SQS"):
        return None, None
    arg = _first_arg(made)
    opts = js.value(arg) if arg is not None else None
    given = (
        opts.value.get("params") if opts is not None and opts.kind == "obj" and opts.file is None else None
    )
    inner = js.value(given) if given is not None else None
    if inner is None or inner.kind != "obj" or inner.file is not None:
        return None, None
    url = inner.value.get("QueueUrl")
    return url, (pin if url is not None else None)


MAX_CALLBACK_WALK = 4000  # nodes of a function's body looked at for the calls of its callback
MAX_STORED = 50  # assignments of one entry looked at (_stored)


def _callback_argument(js, param):
    """What the function a callback is passed to gives the callback's parameter ``param`` (the identifier used):
    ``_getQueue(name, function (err, q) {..})`` with ``function _getQueue(n, callback) {.. callback(null, X) ..}``
    declared in this file is ``X``, when every call of ``callback`` there that passes that argument passes the same
    text; else None. With it, that call of ``_getQueue`` (:meth:`engine.Flow.pinned`'s arguments, or None when its
    arguments are not read): ``X`` is what ``_getQueue`` gives for that call, its ``n`` that call's ``name`` (the
    queue ``_getQueue`` creates for the call whose callback receives, not for its other calls)."""
    found = _callback_given(js, param)
    if found is None:
        return None, None
    arg, call, target = found
    f = js.file
    sig = f.lang.signature(target, f) if f.lang.signature else None
    got = f.lang.call_args(call, f) if f.lang.call_args else None
    if sig is None or got is None or got[2]:
        return arg, None
    return arg, (f, target, sig, (f, call, got[0], got[1]))


def _callback_given(js, param):
    """(the argument, the call the callback is passed to, the function called) of :func:`_callback_argument`."""
    name = text(param)
    fn = js._param_of(name, param)
    args = js.file.parent(fn) if fn is not None else None
    call = js.file.parent(args) if args is not None and args.type == "arguments" else None
    callee = call.child_by_field_name("function") if call is not None else None
    if callee is None or callee.type != "identifier":
        return None
    k = next((i for i, p in enumerate(_params(fn)) if _param_name(p)[0] == name), None)
    passed = [a for a in args.named_children if a.type != "comment"]
    j = next((i for i, a in enumerate(passed) if a.id == fn.id), None)
    target = _declared_function(js, text(callee))
    if k is None or j is None or target is None:
        return None
    formal = _params(target)
    if j >= len(formal):
        return None
    cb = _param_name(formal[j])[0]
    found, stack, budget = [], [target.child_by_field_name("body")], MAX_CALLBACK_WALK
    while stack and budget > 0:
        n = stack.pop()
        budget -= 1
        if n is None:
            continue
        f = n.child_by_field_name("function") if n.type == "call_expression" else None
        if f is not None and f.type == "identifier" and text(f) == cb:
            given = [a for a in n.child_by_field_name("arguments").named_children if a.type != "comment"]
            if k < len(given):  # (a call that passes fewer: the error path, ``callback(err)``)
                found.append(given[k])
        stack.extend(n.named_children)
    if not found or budget <= 0 or len({text(a) for a in found}) != 1:
        return None
    return found[0], call, target


def _declared_function(js, name: str):
    """The one ``function name(..) {..}`` of this file, or None (none, or several)."""
    functions = getattr(js, "_declared", None)
    if functions is None:
        functions = {}
        stack, budget = [js.root], 200_000
        while stack and budget > 0:
            n = stack.pop()
            budget -= 1
            if n.type in ("function_declaration", "generator_function_declaration"):
                nm = n.child_by_field_name("name")
                if nm is not None:
                    functions.setdefault(text(nm), []).append(n)
            stack.extend(n.named_children)
        js._declared = functions
    got = functions.get(name, [])
    return got[0] if len(got) == 1 else None


def _function_named(js, name: str):
    """The one top-level function of the module named ``name``: ``function name(..)``, or ``const name = (..) =>
    ..`` / ``function (..)``; None otherwise."""
    decl = _declared_function(js, name)
    if decl is not None:
        return decl
    bound = js.declaration(name, js.root)
    value = _strip(bound.child_by_field_name("value")) if bound is not None else None
    if value is not None and value.type in ("arrow_function", "function_expression", "function"):
        return value
    return None


def _stored(js, node):
    """The value ``node`` holds: a new expression written there, or the one value assigned to the same entry
    (``QUEUES[name] = new AWS.SQS(..)`` for ``QUEUES[name]``) in this file; else None."""
    node = _strip(node)
    if node is None or node.type == "new_expression":
        return node
    if node.type not in ("subscript_expression", "member_expression"):
        return None
    want, got = text(node), []
    pattern = re.escape(want).encode() + rb"\s*=(?![=>])"
    for m in itertools.islice(re.finditer(pattern, js.file.data), MAX_STORED):
        left = js.root.descendant_for_byte_range(m.start(), m.start() + len(want.encode()))
        up = js.file.parent(left) if left is not None else None
        if left is None or text(left) != want or up is None or up.type != "assignment_expression":
            continue
        got.append(up.child_by_field_name("right"))
        if len(got) > 1:
            return None
    return _strip(got[0]) if got else None


# -- a parameter object's defaults (issue 35): ``if (options.K === undefined) options.K = V``, ``options.K =
# options.K || V``, ``options.K ??= V`` (and ``if (options === undefined) options = {}``) in the function's body
# before the use: K is V where the calls do not set it. Read from the body's own statements, at most MAX_DEFAULTS.
MAX_DEFAULTS = 64
_UNSET = r"(?:\s*(?:===?\s*(?:undefined|null|void\s+0)|==\s*null))"


def _with_defaults(js, arg, params):
    """``params`` (the value read for the receive's or poller's argument ``arg``) with the defaults the function
    whose parameter ``arg`` is gives the keys its calls leave unset; ``params`` itself when there are none or the
    calls' object is not this file's."""
    node = _strip(arg)
    if node is None or node.type != "identifier":
        return params
    name = text(node)
    fn = js._param_of(name, node)
    if fn is None:
        return params
    found, emptied = _param_defaults(fn, name, node.start_byte)
    if not found:
        return params
    if params is not None and params.kind == "obj" and params.file in (None, js.file):
        props, mark = dict(params.value), params.mark
    elif params is None or params.kind == "none" or (emptied and params.kind == "unknown"):
        # not passed (``get(name, handler)``): the object the body makes; unknown: only when the body makes one
        # whatever is passed (then the keys it does not default are not known: open)
        props, mark = {}, ("open" if params is not None and params.kind == "unknown" else None)
    else:
        return params
    for k, v in found.items():
        props.setdefault(k, v)
    out = Value("obj", props, node)
    out.mark = mark
    return out


def _param_defaults(fn, name: str, before: int) -> tuple[dict, bool]:
    """({key: the default's node}, whether the body sets the parameter to an object when it is not given) from
    the statements of ``fn``'s body before byte ``before``."""
    body = fn.child_by_field_name("body")
    if body is None or body.type != "statement_block":
        return {}, False
    p = re.escape(name)
    member = rf"{p}\s*\.\s*([A-Za-z_$][\w$]*)"
    cond = re.compile(
        rf"^\(\s*(?:!\s*{member}|{member}{_UNSET}|typeof\s+{member}\s*===?\s*['\"]undefined['\"])\s*\)$"
    )
    whole = re.compile(rf"^\(\s*(?:!\s*{p}|{p}{_UNSET}|typeof\s+{p}\s*===?\s*['\"]undefined['\"])\s*\)$")
    out: dict = {}
    emptied = False
    for stmt in body.named_children[:MAX_DEFAULTS]:
        if stmt.start_byte >= before:
            break
        assign = None
        if stmt.type == "if_statement" and stmt.child_by_field_name("alternative") is None:
            c = stmt.child_by_field_name("condition")
            then = stmt.child_by_field_name("consequence")
            if then is not None and then.type == "statement_block" and len(then.named_children) == 1:
                then = then.named_children[0]
            if c is None or then is None or then.type != "expression_statement" or not then.named_children:
                continue
            m = cond.match(text(c))
            e = then.named_children[0]
            if e.type != "assignment_expression":
                continue
            left, right = e.child_by_field_name("left"), e.child_by_field_name("right")
            if m is None:
                if (
                    whole.match(text(c))
                    and text(left) == name
                    and right is not None
                    and right.type == "object"
                ):
                    emptied = True
                continue
            k = next(g for g in m.groups() if g)
            if left is not None and left.type == "member_expression" and _is_member(left, name, k):
                assign = (k, right)
        elif stmt.type == "expression_statement" and stmt.named_children:
            e = stmt.named_children[0]
            left, right = e.child_by_field_name("left"), e.child_by_field_name("right")
            if left is None or right is None:
                continue
            if e.type == "augmented_assignment_expression" and text(e.child_by_field_name("operator")) in (
                "??=",
                "||=",
            ):
                if left.type == "member_expression" and text(left.child_by_field_name("object")) == name:
                    assign = (text(left.child_by_field_name("property")), right)
            elif e.type == "assignment_expression" and right.type == "binary_expression":
                op = right.child_by_field_name("operator")
                a = right.child_by_field_name("left")
                if op is None or text(op) not in ("||", "??") or a is None or text(a) != text(left):
                    continue
                b = _strip(right.child_by_field_name("right"))
                if text(left) == name and b is not None and b.type == "object":
                    emptied = True
                elif left.type == "member_expression" and text(left.child_by_field_name("object")) == name:
                    assign = (text(left.child_by_field_name("property")), right.child_by_field_name("right"))
        if assign is not None and assign[1] is not None:
            out.setdefault(assign[0], assign[1])
    return out, emptied


def _is_member(node, name: str, key: str) -> bool:
    obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
    return obj is not None and prop is not None and text(obj) == name and text(prop) == key


def _options(r: Reader, js, c, node, arg, where: str):
    """A poller's options object (``Consumer.create({...})``, ``new Squiss({...})``) as read, or None after one
    remark that its queue and visibility are not known."""
    opts = js.value(arg) if arg is not None else None
    opts = _with_defaults(js, arg, opts)
    if opts is None or opts.kind != "obj":
        r.remark(
            f"{where} takes options visguard cannot read; its queue and visibility are not known", node, c.id
        )
        return None
    return _Opts(opts)


def _sqs_consumer(r: Reader, js, node, arg, heartbeat, where=None, handler=False):
    c = _consumer(r, node, "sqs-consumer", heartbeat)
    where = where or f"the sqs-consumer at {c.location.file}:{c.location.line}"
    opts = _options(r, js, c, node, arg, where)
    if opts is None:
        return c
    if handler:  # Consumer.create's own handler (nestjs-sqs wraps the application's: not read)
        _acknowledgement(r, js, c, opts)
    _queue(r, js, c, opts.get("queueUrl"), where, "queueUrl", opts.owner, opts.open)
    _seconds(r, js, c, opts, "visibilityTimeout", "visibility_override", where)
    if js.present(opts.get("heartbeatInterval"), opts.owner):
        _seconds(r, js, c, opts, "heartbeatInterval", "heartbeat_interval", where)
        c.heartbeat = True
        c.locations["heartbeat"] = _loc(r, js, opts["heartbeatInterval"], opts.owner)
    elif c.heartbeat is None:
        c.heartbeat = False  # sqs-consumer extends only with heartbeatInterval; none in this file either
    _seconds(r, js, c, opts, "handleMessageTimeout", "work_timeout", where)
    _seconds(r, js, c, opts, "batchSize", "max_messages", where)
    _seconds(r, js, c, opts, "waitTimeSeconds", "wait_time", where)
    tv = opts.get("terminateVisibilityTimeout")
    if js.present(tv, opts.owner):
        v = js.value(tv, opts.owner)
        n = _as_number(v) if v is not None else None
        if v is not None and v.kind == "bool":
            r.set(c, "terminate_visibility_timeout", v.value, v.node)
        elif n is not None:
            r.set(c, "terminate_visibility_timeout", n, v.node, _derived(v, n))
        else:
            r.remark(
                f"{where}: terminateVisibilityTimeout is computed; visguard does not read it",
                _spot(js, tv, opts.owner),
                c.id,
            )
    return c


# ------------------------------------------------------------------------ sqs-consumer's acknowledgement (issue 36)
# From sqs-consumer 14 a message is deleted only when its handler returns it (facts.SQS_CONSUMER_ACK_SOURCE). What
# the handler returns, as far as the file shows: "nothing" (no return with a value on any path, `return;`,
# `return undefined`), "not a message" (only literals: true, 1, "ok", null), "a value" (anything else: the message,
# a call's result, an object; taken as acknowledging), None (the handler is not a function of this file).
_FUNCTIONS = ("arrow_function", "function_expression", "function", "method_definition", "function_declaration",
              "generator_function", "generator_function_declaration")  # fmt: skip
_NOT_A_MESSAGE = ("true", "false", "number", "string", "template_string", "null", "regex")
MAX_HANDLER_NODES = 20_000  # nodes of a handler's body searched for its returns


def _acknowledgement(r: Reader, js, c, opts) -> None:
    """``handleMessage``/``handleMessageBatch``'s returns, ``alwaysAcknowledge`` and ``shouldDeleteMessages``
    on ``c.settings`` (read by VG076 with the package's version)."""
    for key, setting in (
        ("alwaysAcknowledge", "always_acknowledge"),
        ("shouldDeleteMessages", "should_delete"),
    ):
        if key in opts:
            v = js.value(opts[key], opts.owner) if js.present(opts[key], opts.owner) else None
            c.settings[setting] = v.value if v is not None and v.kind == "bool" else "computed"
            c.locations[setting] = _loc(r, js, opts[key], opts.owner)
    key = "handleMessageBatch" if "handleMessageBatch" in opts else "handleMessage"
    if key not in opts or opts.owner not in (None, js.file):
        return
    fn = _handler_function(js, _strip(opts[key]))
    c.settings["handler"] = key
    c.settings["handler_returns"] = _returns(fn) if fn is not None else None
    c.locations["handler"] = r.loc(fn if fn is not None else opts[key])


def _handler_function(js, node):
    """The function a handler option names: written in place, or a function or ``const`` of the file by that
    name (one declaration only), else None."""
    if node is None:
        return None
    if node.type in _FUNCTIONS:
        return node
    if node.type != "identifier":
        return None
    name, found, stack, budget = text(node), [], [js.file.root], MAX_HANDLER_NODES * 5
    while stack and budget > 0 and len(found) < 2:
        n = stack.pop()
        budget -= 1
        if n.type in ("function_declaration", "generator_function_declaration"):
            if text(n.child_by_field_name("name")) == name:
                found.append(n)
        elif n.type == "variable_declarator" and text(n.child_by_field_name("name")) == name:
            value = _strip(n.child_by_field_name("value"))
            found.append(value if value is not None and value.type in _FUNCTIONS else None)
        stack.extend(reversed(n.named_children))
    return found[0] if len(found) == 1 and budget > 0 else None


def _returns(fn) -> str | None:
    body = fn.child_by_field_name("body")
    if body is None:
        return None
    if body.type != "statement_block":  # an arrow's expression: what it evaluates to
        return _returned(body)
    kinds, stack, budget = [], list(body.named_children), MAX_HANDLER_NODES
    while stack and budget > 0:
        n = stack.pop()
        budget -= 1
        if n.type in _FUNCTIONS or n.type in ("class_declaration", "class"):
            continue  # a nested function's returns are its own
        if n.type == "return_statement":
            inner = n.named_children
            kinds.append(_returned(inner[0]) if inner else "nothing")
            continue
        stack.extend(n.named_children)
    if budget <= 0:
        return None
    if "a value" in kinds:
        return "a value"
    return "not a message" if "not a message" in kinds else "nothing"


def _returned(expr) -> str:
    expr = _strip(expr)
    while expr is not None and expr.type == "await_expression" and expr.named_children:
        expr = _strip(expr.named_children[0])
    if expr is None or (expr.type == "identifier" and text(expr) == "undefined") or expr.type == "undefined":
        return "nothing"
    if expr.type == "unary_expression" and text(expr).startswith("void"):
        return "nothing"
    if expr.type in _NOT_A_MESSAGE:
        return "not a message"
    return "a value"


def _squiss(r: Reader, js, node, arg, heartbeat):
    """``new Squiss({...})`` (squiss-ts, squiss): its queue (``queueUrl``, else ``queueName``), the
    ``visibilityTimeoutSecs`` it receives with (none: the queue's), ``receiveWaitTimeSecs``, ``receiveBatchSize``,
    ``maxInFlight`` (concurrency), and ``autoExtendTimeout`` (it extends the visibility while a message is
    handled). Options as squiss-ts's ISquissOptions names them (github.com/pruvonet/squiss-ts, checked 2026-12-02)."""
    c = _consumer(r, node, "squiss", heartbeat)
    where = f"the Squiss poller at {c.location.file}:{c.location.line}"
    opts = _options(r, js, c, node, arg, where)
    if opts is None:
        return c
    key = "queueUrl" if js.present(opts.get("queueUrl"), opts.owner) else "queueName"
    _queue(r, js, c, opts.get(key), where, "queueUrl or queueName", opts.owner, opts.open)
    _seconds(r, js, c, opts, "visibilityTimeoutSecs", "visibility_override", where)
    _seconds(r, js, c, opts, "receiveWaitTimeSecs", "wait_time", where)
    _seconds(r, js, c, opts, "receiveBatchSize", "max_messages", where)
    _seconds(r, js, c, opts, "maxInFlight", "concurrency", where)
    extend = (
        js.value(opts["autoExtendTimeout"], opts.owner)
        if js.present(opts.get("autoExtendTimeout"), opts.owner)
        else None
    )
    if extend is not None and extend.kind == "bool" and extend.value:
        c.heartbeat = True
        c.locations["heartbeat"] = r.at(extend, extend.node)
    elif c.heartbeat is None:
        c.heartbeat = False
    return c


def _nest(r: Reader, js, node, is_async, heartbeat, handlers):
    arg = _first_arg(node)
    where = f"SqsModule.{'registerAsync' if is_async else 'register'} at {r.path}:{node.start_point.row + 1}"
    opts = js.value(arg) if arg is not None else None
    if is_async and opts is not None and opts.kind == "obj":
        opts = _factory_result(js, opts.value.get("useFactory"))
    entries = None
    if opts is not None and opts.kind == "obj" and "consumers" in opts.value:
        entries = js.value(opts.value["consumers"])
    if entries is None or entries.kind != "list":
        if opts is None or opts.kind != "obj" or "consumers" in opts.value:
            r.remark(f"{where} builds its consumers in a way visguard cannot read", node)
        return
    for entry in entries.value:
        v = js.value(entry)
        if v is None or v.kind != "obj":
            r.remark(f"{where}: a consumer entry visguard cannot read", entry)
            continue
        c = _sqs_consumer(
            r,
            js,
            entry,
            entry,
            heartbeat,
            where=f"the nestjs-sqs consumer at {r.path}:{entry.start_point.row + 1}",
        )
        name = v.value.get("name")
        name = js.value(name) if name is not None else None
        if name is not None and name.kind in _LITERALS and name.value in handlers:
            c.locations["handler"] = handlers[name.value]


def _factory_result(js, fn):
    """The object a ``useFactory`` returns when it returns one literal (an arrow's body, a single return)."""
    fn = _strip(fn) if fn is not None else None
    if fn is not None and fn.type == "identifier":  # useFactory: makeSqsOptions, a const of the file
        decl = js.declaration(text(fn), fn)
        fn = (
            _strip(decl.child_by_field_name("value"))
            if decl is not None and decl.type == "variable_declarator"
            else None
        )
    if fn is None:
        return None
    if fn.type == "pair":
        fn = fn.child_by_field_name("value")
    if fn is None or fn.type not in _FUNCTIONS:
        return None
    body = fn.child_by_field_name("body")
    if body is None:
        return None
    if body.type != "statement_block":
        return js.value(body)
    returns = [s for s in body.named_children if s.type == "return_statement"]
    if len(returns) != 1 or not returns[0].named_children:
        return None
    return js.value(returns[0].named_children[0])


def _handlers(r: Reader, js, decorators):
    """name -> Location of ``@SqsMessageHandler("name", batch)`` methods of the file."""
    out = {}
    for d in decorators:
        call = next((c for c in d.named_children if c.type == "call_expression"), None)
        fn = call.child_by_field_name("function") if call is not None else None
        if (
            fn is None
            or fn.type != "identifier"
            or text(fn) not in (js.handler_names or {"SqsMessageHandler"})
        ):
            continue
        name = js.value(_first_arg(call)) if _first_arg(call) is not None else None
        if name is not None and name.kind == "str":
            out.setdefault(name.value, r.loc(d))
    return out


# ----------------------------------------------------------------------------------------------- fields
def _seconds(r: Reader, js, c, opts, key, field, where):
    """Set ``field`` from the option ``key`` (in its unit: ``_KEY_UNITS``), with its place; else a note."""
    node = opts.get(key)
    if node is None:
        return
    owner = getattr(opts, "owner", None)
    v = js.read_in(owner, node)
    if v.kind == "none":  # null, undefined: not given
        return
    at, env, value = v, None, None
    if v.kind in _LITERALS:
        value = _as_number(v)
    elif v.kind == "env":
        env = v.value
        if v.default is not None:
            at, value = v.default, _as_number(v.default)
    if value is None:
        if v.kind == "unknown" and v.why:
            said = f"is computed ({v.why})" if v.mark == "flow" else f"is {v.why}"
            r.remark(f"{where}: {key} {said}; not read", _spot(js, node, owner), c.id)
            return
        why = f"comes from the environment variable {env}" if env is not None else "is computed"
        r.remark(f"{where}: {key} {why}; visguard does not know its value", _spot(js, node, owner), c.id)
        return
    scale = _KEY_UNITS.get(key, 1)
    if scale != 1:
        value = value * scale
        value = int(value) if float(value).is_integer() else value
    at.kind, at.value, at.scale = "int", value, float(scale)  # the number read, where it is written
    if at.file is None:
        at.file = v.file
    if env is not None and at.via is None and not at.computed:
        at.env = env  # the default written in place; a constant's or an expression's place says so itself
    r.set(c, field, value, at.node, at)


class _Opts(dict):
    """An options object's properties (name -> value node) and ``owner``: the File they are written in when the
    object flowed from another (a call site, a module), else None."""

    def __init__(self, v: Value):
        super().__init__(v.value)
        self.owner = v.file
        self.open = v.mark == "open"  # a spread visguard cannot read may set any key


def _spot(js, node, owner):
    """Where a note about ``node`` is placed: the node, or the site being read when it is another file's."""
    return node if owner in (None, js.file) or not js.anchors else js.anchors[0]


def _loc(r: Reader, js, node, owner):
    if owner in (None, js.file):
        return r.loc(node)
    return engine.Location(owner.path, line=engine.line(node), column=engine.column(owner.data, node))


def _ref(value: str, loc) -> QueueRef | None:
    """A literal's queue reference when the literal names a queue (a URL, an ARN, a queue's name)."""
    ref = engine.queue_ref(value, loc)
    return ref if ref is not None and queue_name_of(ref.value) else None


def _queue(r: Reader, js, c, node, where, key, owner=None, open_=False):
    if node is None:
        what = f"spreads an object visguard cannot read over its {key}" if open_ else f"names no {key}"
        r.result.notes.append(Note(f"{where} {what}; its queue is not known", c.location, c.id))
        return
    v = js.read_in(owner, node)
    why = v.why if v.kind == "unknown" else ""
    v = None if v.kind == "unknown" else v
    ref = None
    if v is not None and v.kind == "env":
        ref = QueueRef("env", v.value, r.at(v, v.node))
        d = v.default
        if d is not None and d.kind == "str":  # process.env.Q ?? "<literal>"
            d.file = d.file or v.file
            ref.fallback = _ref(d.value, r.at(d, d.node))
    elif v is not None and v.kind == "str":
        ref = _ref(v.value, r.at(v, v.node))
    elif v is not None and v.kind == "name":
        ref = QueueRef("name", v.value, r.at(v, v.node))
    elif v is not None and v.kind == "created" and (v.file is None or v.file is js.file):
        from visguard.linter import created_queues

        # the URL a create call returns whose name its function's caller gives: the queue declared at that call
        ref = QueueRef("id", created_queues.unnamed_id(r.loc(v.value)), r.loc(node))
    if ref is None and owner in (None, js.file):
        tail = js.url_tail(node)
        if tail is not None:
            ref = QueueRef("name", tail[0], r.loc(tail[1]))
    if ref is None:
        why = (
            "is not a queue URL, ARN or name"
            if v is not None and v.kind in _LITERALS
            else f"is computed ({why})"
            if why and v is None
            else "is computed"
        )
        r.remark(f"{where}: {key} {why}; the consumer's queue is not known", _spot(js, node, owner), c.id)
        return
    r.link(c, ref)


# ----------------------------------------------------------------------------------------------- scopes
class _Scopes:
    """What a query cannot say of a JavaScript file: which declaration a name means where it is used (the nearest
    enclosing scope's, unless a parameter shadows it or it is assigned again), which local names are
    sqs-consumer's, nestjs-sqs's and the SDK's, and the value of an expression through them (the Language's hook:
    :meth:`evaluated`)."""

    def __init__(self, f: File):
        self.file, self.root = f, f.root
        self.decls: dict[str, list] = {}  # name -> [(declarator node, binding node)]
        self.assigned: set[str] = set()
        self.consumer_names: set[str] = set()  # local names of sqs-consumer's Consumer
        self.consumer_ns: set[str] = set()  # local names of the sqs-consumer module object
        self.squiss_names: set[str] = set()  # local names of squiss(-ts)'s Squiss class
        self.nest_names: set[str] = set()  # local names of nestjs-sqs's SqsModule
        self.handler_names: set[str] = set()  # ... and of its SqsMessageHandler decorator
        self.sdk_imported = False
        self.steps = 0
        self.chains: dict[int, list] = {}
        self.anchors: list = []  # the site being read and the declarators being followed (see _ancestors)
        self.descents = 0
        self.params: dict[int, set] = {}  # function node id -> its parameters' names
        self.scopes: dict[int, tuple] = {}  # declarator node id -> (its scope, const)
        # local name -> (a relative module, the name imported from it; None: the module itself)
        self.imports: dict[str, tuple[str, str | None]] = {}
        self.read = None  # the read the budgets above are of (_js)
        self.exports: dict[str, list] | None = None  # ".KEY" / "" (a whole object) -> the nodes exported

    # ------------------------------------------------------------------------------------------- names
    def declare(self, decl):
        name = decl.child_by_field_name("name")
        value = _strip(decl.child_by_field_name("value"))
        module = self.require_of(value) if value is not None else None
        if module in _SDK_MODULES:
            self.sdk_imported = True
        if name.type == "identifier":
            self.decls.setdefault(text(name), []).append((decl, name))
            if (
                module in SQS_CONSUMER_MODULES
            ):  # const Consumer = require("sqs-consumer"): the class, or the module
                self.consumer_names.add(text(name))
                self.consumer_ns.add(text(name))
            if module in SQUISS_MODULES:  # const Squiss = require("squiss")
                self.squiss_names.add(text(name))
            return
        if name.type != "object_pattern":
            return
        for part in name.named_children:  # { A, B: b, C = "x" }: each bound name points at its pattern part
            target = part
            if part.type == "pair_pattern":
                target = part.child_by_field_name("value")
            elif part.type == "object_assignment_pattern":
                target = part.child_by_field_name("left")
            if target is not None and target.type in ("identifier", "shorthand_property_identifier_pattern"):
                self.decls.setdefault(text(target), []).append((decl, part))
        if module in SQS_CONSUMER_MODULES or module in SQUISS_MODULES:
            for part in name.named_children:
                key, local = self._pattern_names(part)
                if key == "Consumer" and local and module in SQS_CONSUMER_MODULES:
                    self.consumer_names.add(local)
                elif key == "Squiss" and local and module in SQUISS_MODULES:
                    self.squiss_names.add(local)

    def _pattern_names(self, part):
        """(property name, local name) of one part of an object pattern."""
        if part.type == "shorthand_property_identifier_pattern":
            return text(part), text(part)
        if part.type == "pair_pattern":
            key, value = part.child_by_field_name("key"), part.child_by_field_name("value")
            if value is not None and value.type == "identifier":
                return self.key(key), text(value)
        if part.type == "object_assignment_pattern":
            left = part.child_by_field_name("left")
            if left is not None:
                return text(left), text(left)
        return None, None

    def require_of(self, node):
        """The module ``require("m")`` (or ``require("m").X``'s) names, else None."""
        if node.type == "call_expression":
            fn, args = node.child_by_field_name("function"), _first_arg(node)
            if fn is not None and fn.type == "identifier" and text(fn) == "require" and args is not None:
                return self._string(args) if args.type == "string" else None
        return None

    def _callee_name(self, node):
        if node is None:
            return None
        if node.type == "identifier":
            return text(node)
        if node.type == "member_expression":
            prop = node.child_by_field_name("property")
            return text(prop) if prop is not None else None
        return None

    def is_consumer_class(self, node):
        if node is None:
            return False
        if node.type == "identifier":
            return text(node) in self.consumer_names
        if node.type == "member_expression":  # ns.Consumer, require("sqs-consumer").Consumer
            obj, prop = _strip(node.child_by_field_name("object")), node.child_by_field_name("property")
            if prop is None or text(prop) != "Consumer" or obj is None:
                return False
            if obj.type == "identifier":
                name = text(obj)
                if name in self.consumer_ns:
                    return True
                decl = self.declaration(name, obj)
                value = decl.child_by_field_name("value") if decl is not None else None
                return value is not None and self.require_of(_strip(value)) in SQS_CONSUMER_MODULES
            return self.require_of(obj) in SQS_CONSUMER_MODULES
        return False

    # ------------------------------------------------------------------------------------------- values
    def value(self, node, owner=None) -> Value | None:
        """``node``'s Value (through :func:`engine.evaluate` and this hook; ``owner``: the File it is written in,
        None: this one), None when the file does not say it."""
        v = evaluate(node, self.file) if owner in (None, self.file) else self.read_in(owner, node)
        return None if v.kind == "unknown" else v

    def present(self, node, owner=None) -> bool:
        """An option is given: written, and not as null or undefined."""
        if node is None:
            return False
        v = self.value(node, owner)
        return not (v is not None and v.kind == "none")

    def evaluated(self, node, depth: int = 0) -> Value:
        """The Language's hook: every JavaScript value is read here (its names by the file's scopes; ``depth``:
        how deep the engine's flow already is, so a loop across files ends)."""
        try:
            return self._value(node, depth)
        except _Unresolved as e:
            out = Value("unknown", None, node, e.why)
            out.mark = "flow" if e.flow else None
            return out

    def within(self, owner, node, depth) -> Value:
        """The value of ``node``, written in the File ``owner`` (None: this file), located there."""
        if owner is None or owner is self.file:
            return self._value(node, depth)
        v = _js(owner)._value(node, depth)
        if v.file is None:
            v.file = owner
        return v

    def read_in(self, owner, node) -> Value:
        """:meth:`within` at the top, unknown instead of raising."""
        try:
            return self.within(owner, node, 0)
        except _Unresolved as e:
            out = Value("unknown", None, node, e.why)
            out.mark = "flow" if e.flow else None
            return out

    # ------------------------------------------------------------------------------------------- the flow
    def _outer(self, name, node, depth) -> Value:
        """A name no declaration of this file's scopes binds: a parameter (what the calls of its function pass,
        engine.File.argument: its default, a property of the object passed to a destructured parameter), or a
        name imported from a module of the project (_imported)."""
        fn = self._param_of(name, node)
        if fn is not None:
            return self._param(fn, name, node, depth)
        got = _imported(self.file, name) if name in self.imports and engine.FLOW.spend() else None
        if got is not None:
            g, key = got
            if key is None:
                return Value("module", g, node)
            return _js(g).exported(key, depth + 1)
        raise _Unresolved

    def _param(self, fn, name, node, depth, prop=None, absent=False) -> Value:
        """The parameter ``name`` of ``fn`` read at ``node`` (engine.File.argument), or with ``prop`` its property
        ``prop`` (``opts.queueUrl``: each call's options object's, so calls agree when their ``queueUrl`` does;
        ``absent``: a property an object written in full lacks is undefined)."""
        f = self.file
        for p in _params(fn):
            key, pattern, _default = _param_name(p)
            if key == name:
                if prop is None:
                    return _checked(f.argument(node, key, depth + 1))
                return _checked(f.argument(node, key, depth + 1, self._picker(prop, None, absent), prop))
            if pattern is None or name not in _bound_in(pattern):
                continue
            part = _bound_in(pattern)[name]
            field, default = _pattern_part(self, part)
            v = _checked(f.argument(pattern, key, depth + 1, self._picker(field, default, True), name))
            if prop is None:
                return v
            if v.kind == "obj" and prop in v.value:
                return self.within(v.file, v.value[prop], depth + 1)
            if absent and v.kind == "obj" and v.mark != "open":
                return Value("none", None, node)
            raise _Unresolved(f"{name}.{prop} is not read", flow=True)
        raise _Unresolved(f"{name} is a parameter", flow=True)

    def _picker(self, prop, default, absent):
        """engine.File.argument's ``pick``: the property ``prop`` of an options object (its value written in the
        object's file; ``default``: the pattern's default in this file when the object lacks it)."""

        def pick(v: Value, depth: int) -> Value:
            try:
                merged = self._spread_part(v, prop, depth)
                if merged is not None:
                    v = merged
                    if v.kind != "none" or (default is None and absent):
                        return v
                    if default is not None:
                        return self._value(default, depth)
                    raise _Unresolved(f"{prop} is not passed")
                if v.kind == "obj" and prop in v.value:
                    return self.within(v.file, v.value[prop], depth)
                if v.kind in ("obj", "none") and v.mark != "open":
                    if default is not None:
                        return self._value(default, depth)
                    if absent:
                        return Value("none", None, v.node)
                why = f"{engine.shown(v.node)} (no {prop} visguard can read)"
            except _Unresolved as e:
                why = e.why or prop
            return Value("unknown", None, v.node, why)

        return pick

    def _spread_part(self, v: Value, prop: str, depth: int) -> Value | None:
        """``prop`` of an options object a call writes with spreads (``super({ ...options, name: "x" })``: a
        subclass passing its own parameter on), read as a merge in the file it is written in (its spread
        parameter's part is what the calls of that function pass: engine.Flow); None when ``v`` is no such
        object."""
        node = _strip(v.node) if v.kind == "obj" else None
        if (
            node is None
            or node.type != "object"
            or not any(c.type == "spread_element" for c in node.named_children)
        ):
            return None
        owner = _js(v.file) if v.file is not None and v.file is not self.file else self
        sources = owner._merge_sources(node, depth)
        if sources is None:
            return None
        return owner._merged_key(sources, prop, node, depth + 1, True)

    def _param_of(self, name, node):
        """The innermost function around ``node`` with a parameter ``name`` when no declaration nearer binds it,
        else None."""
        try:
            if self.declaration(name, node) is not None:
                return None
            for n in reversed(self._ancestors(node)):
                if n.type in _FUNCTIONS and name in self._param_names(n):
                    return n
        except _Unresolved:
            return None
        return None

    def exported(self, key, depth) -> Value:
        """The value this module exports as ``key``: ``export const KEY = ...`` (or a top-level declaration
        exported by name), ``module.exports.KEY = ...``, ``exports.KEY = ...``, or a property of its
        ``module.exports = {...}`` / ``export default {...}``."""
        if self.exports is None:  # the module's export statements, indexed once
            self.exports = {}
            for stmt in self.root.named_children:
                if stmt.type == "export_statement":
                    node = stmt.child_by_field_name("value")  # export default {...}
                    if node is not None:
                        self.exports.setdefault("", []).append(node)
                    continue
                node = (
                    stmt.named_children[0]
                    if stmt.type == "expression_statement" and stmt.named_children
                    else None
                )
                if node is None or node.type != "assignment_expression":
                    continue
                left, right = text(node.child_by_field_name("left")), node.child_by_field_name("right")
                if left in ("module.exports", "exports"):
                    self.exports.setdefault("", []).append(right)
                elif left.startswith(("module.exports.", "exports.")):
                    self.exports.setdefault("." + left.rsplit(".", 1)[1], []).append(right)
        decl = self.declaration(key, self.root)
        found = [decl] if decl is not None else []
        found += self.exports.get("." + key, [])
        v = None
        if found:
            v = self._value(found[0], depth + 1)
        else:
            for node in self.exports.get("", []):
                whole = self._value(node, depth + 1)
                if whole.kind == "obj" and key in whole.value:
                    v = self.within(whole.file, whole.value[key], depth + 1)
                    break
        if v is None:
            raise _Unresolved(f"{key} is not a constant {self.file.path or 'its module'} exports", flow=True)
        if v.file is None:
            v.file = self.file
        return v

    def _value(self, node, depth) -> Value:
        self.steps += 1
        if node is None or depth > MAX_DEPTH or self.steps > MAX_STEPS:
            raise _Unresolved
        node = _strip(node)
        if node is None:
            raise _Unresolved
        t = node.type
        if t == "number":
            raw = text(node)
            n = engine.number(raw[:-1] if raw.endswith("n") else raw)  # 30n: a BigInt
            if n is None:
                raise _Unresolved(f"{engine.shown(node)}, beyond any number a setting takes (10**15)")
            return Value("int", n, node)
        if t == "string":
            return Value("str", self._string(node), node)
        if t in ("true", "false"):
            return Value("bool", t == "true", node)
        if t in ("null", "undefined"):
            return Value("none", None, node)
        if t == "template_string":
            return self._template(node, depth)
        if t == "identifier":
            name = text(node)
            if name == "undefined":
                return Value("none", None, node)
            decl = self.declaration(name, node)
            return self._value(decl, depth + 1) if decl is not None else self._outer(name, node, depth)
        if t == "shorthand_property_identifier":
            decl = self.declaration(text(node), node)
            return self._value(decl, depth + 1) if decl is not None else self._outer(text(node), node, depth)
        if t in ("member_expression", "subscript_expression"):
            return self._member(node, depth)
        if t == "binary_expression":
            return self._binary(node, depth)
        if t == "unary_expression":
            op, arg = text(node.child_by_field_name("operator")), node.child_by_field_name("argument")
            v = self._value(arg, depth + 1)
            n = _as_number(v)
            if op in ("-", "+") and n is not None:
                out = Value("int", -n if op == "-" else n, node)
                out.computed = True
                return out
            if op == "+" and v.kind == "env":  # +process.env.VT
                return v
            raise _Unresolved
        if t == "call_expression":
            return self._call(node, depth)
        if t == "await_expression":
            inner = _strip(node.named_children[0]) if node.named_children else None
            got = self._user_call(inner, depth) if inner is not None else None
            return got if got is not None else self._lookup(node)
        if t == "object":
            return self._object(node, depth)
        if t == "ternary_expression":
            return self._ternary(node, depth)
        if t == "array":
            return Value("list", [c for c in node.named_children if c.type != "comment"], node)
        if t == "pair":
            return self._value(node.child_by_field_name("value"), depth + 1)
        if t in ("public_field_definition", "field_definition"):  # a class field: a name other code may use
            name = node.child_by_field_name("name") or node.child_by_field_name("property")
            return self._bound(name, node.child_by_field_name("value"), depth)
        if t in ("shorthand_property_identifier_pattern", "pair_pattern", "object_assignment_pattern"):
            return self._pattern_value(node, depth)
        if t == "variable_declarator":
            self.anchors.append(node)
            try:
                return self._bound(node.child_by_field_name("name"), node.child_by_field_name("value"), depth)
            finally:
                self.anchors.pop()
        raise _Unresolved

    def _bound(self, name, value, depth) -> Value:
        """The value a declaration binds ``name`` to; a literal written there is reached ``via`` the name."""
        v = self._value(value, depth + 1)
        written = _strip(value)
        if (
            v.kind in _LITERALS
            and v.via is None
            and not v.computed
            and written is not None
            and (written.start_byte, written.end_byte) == (v.node.start_byte, v.node.end_byte)
        ):
            v.via = name
        return v

    def _string(self, node) -> str:
        out = []
        for c in node.named_children:
            if c.type == "escape_sequence":
                out.append(_unescape(text(c)))
            elif c.type != "comment":
                out.append(text(c))
        return "".join(out)

    def _template(self, node, depth):
        parts, subs, stop = [], [], None
        for c in node.named_children:
            if c.type == "string_fragment":
                parts.append(text(c))
            elif c.type == "escape_sequence":
                parts.append(_unescape(text(c)))
            elif c.type == "template_substitution":
                inner = c.named_children
                if len(inner) != 1:
                    raise _Unresolved
                try:
                    v = self._value(inner[0], depth + 1)
                except _Unresolved as e:  # a host part only the running function knows (its region, account)
                    stop = stop or e
                    v = Value("unknown", None, inner[0])
                subs.append(v)
                if v.kind not in _LITERALS or v.kind == "none":
                    parts.append(None)
                else:
                    parts.append(str(v.value).lower() if v.kind == "bool" else _js_str(v.value))
        if len(subs) == 1 and len(parts) == 1:  # `${process.env.QUEUE_URL}`
            if stop is not None:
                raise stop
            return subs[0]
        if any(p is None for p in parts):
            tail = _url_tail(parts)
            if (
                tail is not None
            ):  # `https://sqs.${region}.amazonaws.com/${account}/${name}`: the queue of that name
                out = Value("name", tail, node)
                out.computed = True
                return out
            if stop is not None:
                raise stop
            raise _Unresolved
        out = Value("str", "".join(parts), node)
        out.computed = True  # a template is not a literal to edit
        return out

    def _member(self, node, depth, absent=False):
        """``obj.key`` / ``obj[key]``; ``absent``: a key an object written in full lacks is undefined (the left of
        ``??`` / ``||``), else not read."""
        obj = _strip(node.child_by_field_name("object"))
        if node.type == "member_expression":
            prop = node.child_by_field_name("property")
            key = text(prop) if prop is not None else None
        else:
            index = node.child_by_field_name("index")
            iv = self._value(index, depth + 1) if index is not None else None
            key = iv.value if iv is not None and iv.kind in ("str", "int") else None
            key = str(key) if key is not None else None
        if key is None or obj is None:
            raise _Unresolved
        if self._is_process_env(obj):
            return Value("env", key, node)
        if obj.type == "this":
            sub = self._subclass_field(key, depth)
            if sub is not None:
                return sub
            return self._value(self._field(key, node), depth + 1)
        named = obj
        if obj.type == "member_expression" and text(obj.child_by_field_name("object")) == "this":
            if self._subclass_field(text(obj.child_by_field_name("property")), depth) is not None:
                raise _Unresolved(f"{engine.shown(obj)} is set by a subclass")
            named = _strip(self._field(text(obj.child_by_field_name("property")), obj))  # this.opts = opts
        if named is not None and named.type == "identifier":  # opts.queueUrl of a parameter: each call's
            fn = self._param_of(text(named), named)
            if fn is not None:
                call = self._result_of_callback(fn, text(named)) if key == "QueueUrl" else None
                if call is not None:  # createQueue({..}, function (err, data) { .. data.QueueUrl .. })
                    return self._lookup(call)
                return self._param(fn, text(named), named, depth, prop=key, absent=absent)
        sources = self._merge_sources(named, depth)
        if sources is not None:  # { ...DEFAULTS, ...options }.key: the last source that sets it
            return self._merged_key(sources, key, node, depth, absent)
        base = self._value(obj, depth + 1)
        if base.kind == "module":  # config.QUEUE_URL of `const config = require("./config")`
            return _js(base.value).exported(key, depth + 1)
        if key == "QueueUrl" and base.kind in ("name", "env") and base.mark == "response":
            return base  # (await client.send(new CreateQueueCommand({..}))).QueueUrl: the queue it names
        if base.kind == "obj" and key in base.value:
            return self.within(base.file, base.value[key], depth + 1)
        if absent and base.kind == "obj" and base.mark != "open":
            return Value("none", None, node)  # opts.wait ?? 20 of an options object without it
        if base.kind == "list" and key.isdigit() and int(key) < len(base.value):
            return self._value(base.value[int(key)], depth + 1)
        raise _Unresolved

    # -- options merged with defaults (issue 35 §1): `this.options = { ...DEFAULTS, ...options }`,
    # `Object.assign({}, DEFAULTS, opts)`, lodash `_.assign/_.extend/_.merge` (the last source wins) and
    # `_.defaults/_.defaultsDeep` (the first wins): `this.options.queueUrl` is the key of the last source that sets
    # it, a parameter's part (`options.queueUrl`) being what each call passes (absent: the source before it).
    # Bounded as every read (MAX_DEPTH, MAX_STEPS); at most MAX_SOURCES sources per object.
    def _merge_sources(self, node, depth):
        """The sources of a merged object at ``node`` (or the one declaration it names), the last the winner:
        [("pair", key, value node) | ("spread", node, deep)]; None when it is no merge (an object literal
        without a spread, anything else)."""
        node = _strip(node)
        for _ in range(4):  # const opts = {...}; this.opts = opts
            if node is None or node.type != "identifier" or self._param_of(text(node), node) is not None:
                break
            try:
                decl = self.declaration(text(node), node)
            except _Unresolved:
                return None
            if decl is None or decl.type != "variable_declarator":
                return None
            node = _strip(decl.child_by_field_name("value"))
        if node is None:
            return None
        if node.type == "object":
            out = []
            for c in node.named_children:
                if c.type == "pair":
                    key = c.child_by_field_name("key")
                    if key is None or key.type == "computed_property_name":
                        return None
                    out.append(("pair", self.key(key), c.child_by_field_name("value")))
                elif c.type == "shorthand_property_identifier":
                    out.append(("pair", text(c), c))
                elif c.type == "spread_element" and c.named_children:
                    out.append(("spread", c.named_children[0], False))
            spreads = sum(1 for e in out if e[0] == "spread")
            return out[:MAX_SOURCES] if spreads and len(out) <= MAX_SOURCES else None
        if node.type != "call_expression":
            return None
        fn = node.child_by_field_name("function")
        callee = text(fn) if fn is not None else ""
        last = callee.rsplit(".", 1)[-1]
        args = node.child_by_field_name("arguments")
        kids = [k for k in args.named_children if k.type != "comment"] if args is not None else []
        if not kids or len(kids) > MAX_SOURCES or any(k.type == "spread_element" for k in kids):
            return None
        lodash = callee.startswith(("_.", "lodash.")) or (
            fn.type == "identifier" and last in (*_MERGES, *_DEFAULTS) and self._from_lodash(last)
        )
        if callee == "Object.assign" or (lodash and last in _MERGES):
            return [("spread", k, last == "merge") for k in kids]
        if lodash and last in _DEFAULTS:
            return [("spread", k, last == "defaultsDeep") for k in reversed(kids)]
        return None

    def _from_lodash(self, name: str) -> bool:
        """Whether the module imports ``name`` from lodash (``import { defaults } from "lodash"``, a require)."""
        cache = self.__dict__.setdefault("_lodash", {})  # once per name and file: a file of 3,000 merges
        if name not in cache:
            pattern = (
                rb"\b" + name.encode() + rb"\b[^;]{0,200}?(?:from\s*|require\(\s*)['\"]lodash(?:/|['\"])"
            )
            cache[name] = re.search(pattern, self.file.data[: engine.MAX_BYTES]) is not None
        return cache[name]

    def _merged_key(self, sources, key, node, depth, absent):
        """``key`` of a merged object (:meth:`_merge_sources`)."""
        for kind, a, b in reversed(sources):
            if kind == "pair":
                if a == key:
                    return self._value(b, depth + 1)
                continue
            inner = _strip(a)
            if inner is not None and inner.type == "identifier":
                fn = self._param_of(text(inner), inner)
                if (
                    fn is not None
                ):  # each call's options object's key; none of them gives it: the source before
                    v = self._param(fn, text(inner), inner, depth + 1, prop=key, absent=True)
                    if v.kind == "none":
                        continue
                    if b and v.kind == "obj":
                        raise _Unresolved(f"{key} is deep-merged from several sources")
                    return v
            v = self._value(inner, depth + 1)
            if v.kind == "none":
                continue
            if v.kind != "obj":
                raise _Unresolved(f"{engine.shown(inner)} may set {key}")
            if key in v.value:
                got = self.within(v.file, v.value[key], depth + 1)
                if b and got.kind == "obj":
                    raise _Unresolved(f"{key} is deep-merged from several sources")
                return got
            if v.mark == "open":
                raise _Unresolved(f"{engine.shown(inner)} may set {key}")
        if absent:
            return Value("none", None, node)
        raise _Unresolved(f"no source of {engine.shown(node)} sets {key}")

    def _is_process_env(self, node):
        if node.type != "member_expression":
            return False
        obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
        return obj is not None and prop is not None and text(obj) == "process" and text(prop) == "env"

    def _binary(self, node, depth):
        op = text(node.child_by_field_name("operator"))
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if op in ("??", "||"):
            inner = _strip(left)
            if inner is not None and inner.type == "member_expression":
                lv = self._member(inner, depth + 1, absent=True)
            else:
                lv = self._value(left, depth + 1)
            if lv.kind == "env":
                rv = self._value(right, depth + 1)
                if rv.kind not in _LITERALS:
                    raise _Unresolved
                return Value("env", lv.value, lv.node, default=rv)
            if lv.kind in _LITERALS and (lv.kind == "none" or (op == "||" and not lv.value)):
                return self._value(right, depth + 1)
            return lv
        lv, rv = self._value(left, depth + 1), self._value(right, depth + 1)
        if lv.kind not in _LITERALS or rv.kind not in _LITERALS:
            raise _Unresolved
        if op == "+" and (lv.kind == "str" or rv.kind == "str"):
            out = Value("str", _js_str(lv.value) + _js_str(rv.value), node)
            out.computed = True
            return out
        a, b = _as_number(lv), _as_number(rv)
        if a is None or b is None or lv.kind == "str" or rv.kind == "str":
            raise _Unresolved
        if op == "+":
            n = a + b
        elif op == "-":
            n = a - b
        elif op == "*":
            n = a * b
        elif op == "/" and b:
            q = a / b
            n = int(q) if q.is_integer() else q
        else:
            raise _Unresolved
        try:
            n = values.number(n)
        except values.BadValue:
            raise _Unresolved(f"{engine.shown(node)}, beyond any number a setting takes (10**15)") from None
        out = Value("int", n, node)
        out.computed = True
        return out

    def _call(self, node, depth):
        fn = node.child_by_field_name("function")
        name = None
        if fn is not None and fn.type == "identifier":
            name = text(fn)
        elif (
            fn is not None
            and fn.type == "member_expression"
            and text(fn) in ("Number.parseInt", "Number.parseFloat")
        ):
            name = self._callee_name(fn)
        arg = _first_arg(node)
        if name in _TO_NUMBER and arg is not None:
            v = self._value(arg, depth + 1)
            if v.kind in _LITERALS:
                n = _as_number(v)
                if n is None:
                    raise _Unresolved
                return _derived(v, int(n) if name == "parseInt" else n)
            if v.kind == "env":
                return v
            raise _Unresolved
        if name == "String" and arg is not None:
            return self._value(arg, depth + 1)
        if fn is not None and text(fn) in ("Math.min", "Math.max"):  # Math.min(10, this.batchSize)
            args = node.child_by_field_name("arguments")
            got = [self._value(a, depth + 1) for a in (args.named_children if args is not None else ())[:8]]
            ns = [_as_number(v) if v.kind in ("int", "str") else None for v in got]
            if not ns or any(n is None for n in ns) or len(got) != len(args.named_children):
                raise _Unresolved
            out = Value("int", (min if text(fn) == "Math.min" else max)(ns), node)
            out.computed = True
            return out
        if name == "require" and arg is not None and arg.type == "string":
            spec = self._string(arg)
            g = _module_file(self.file, spec) if spec.startswith(".") and engine.FLOW.spend() else None
            if g is not None:
                return Value("module", g, node)
            raise _Unresolved
        # ConfigService.get("ORDERS_QUEUE_URL") (NestJS): the variable of that name
        if fn is not None and fn.type == "member_expression" and arg is not None and arg.type == "string":
            prop = fn.child_by_field_name("property")
            obj = fn.child_by_field_name("object")
            key = self._string(arg)
            if (
                prop is not None
                and obj is not None
                and text(prop) in ("get", "getOrThrow")
                and "config" in text(obj).lower()
                and _env_name(key)
            ):
                return Value("env", key, node)
        got = self._user_call(node, depth)
        return got if got is not None else self._lookup(node)

    def _ternary(self, node, depth) -> Value:
        """``cond ? a : b``: the branch a known condition takes (a key an options object written in full lacks is
        undefined: false), else the one value both branches give; else not read."""
        cond = _strip(node.child_by_field_name("condition"))
        branches = [node.child_by_field_name(k) for k in ("consequence", "alternative")]
        if cond is None or None in branches:
            raise _Unresolved
        try:
            c = self._member(cond, depth + 1, absent=True) if cond.type == "member_expression" else None
            c = c if c is not None else self._value(cond, depth + 1)
        except _Unresolved:
            c = None
        if c is not None and c.kind in ("bool", "none", "str", "int"):
            return self._value(branches[0] if c.value else branches[1], depth + 1)
        a, b = (self._value(x, depth + 1) for x in branches)
        if a.kind in _LITERALS and (a.kind, a.value) == (b.kind, b.value):
            return a
        raise _Unresolved(f"{engine.shown(node)} (its condition is not known)")

    def _method_call(self, node, fn, depth) -> Value | None:
        """``this.setup()`` (a method of the class around the call) or ``queues.setup()`` of ``import * as queues``
        from a module of the project: what that method or function returns (engine.returned); None otherwise."""
        obj, prop = _strip(fn.child_by_field_name("object")), fn.child_by_field_name("property")
        if obj is None or prop is None:
            return None
        name = text(prop)
        if obj.type == "this":
            cls = self._enclosing(node, _CLASSES)
            body = cls.child_by_field_name("body") if cls is not None else None
            found = [
                _method_of(m) for m in (body.named_children if body is not None else ()) if _names(m, name)
            ]
            found = [m for m in found if m is not None]
            if len(found) != 1 or engine.FLOW.subclasses_pinned():
                return None  # an object of a subclass being read may override it
            return _checked(engine.returned(self.file, found[0], node, self.file, depth + 1, name))
        imported = self.imports.get(text(obj)) if obj.type == "identifier" else None
        if imported is None or imported[1] is not None:  # a module imported whole: `import * as queues`
            return None
        if self.declaration(text(obj), node) is not None or not engine.FLOW.spend():
            return None
        got = _imported(self.file, f"{text(obj)}.{name}")
        if got is None or got[1] is None:
            return None
        owner = _js(got[0])
        decl = _function_named(owner, got[1])
        if decl is None:
            return None
        return _checked(engine.returned(owner.file, decl, node, self.file, depth + 1, name))

    def _user_call(self, node, depth) -> Value | None:
        """The value a call of a function of the project returns (engine.returned): ``initializeQueues()`` of a
        ``function`` (or ``const f = () => ..``) declared in this file or imported from a relative module; None
        for any other call (the SDK's, a method)."""
        fn = node.child_by_field_name("function") if node.type == "call_expression" else None
        if fn is not None and fn.type == "member_expression":
            return self._method_call(node, fn, depth)
        if fn is None or fn.type != "identifier":
            return None
        name = text(fn)
        owner, decl = self._callee(name, node)
        if decl is None:
            return None
        return _checked(engine.returned(owner.file, decl, node, self.file, depth + 1, name))

    def _callee(self, name: str, node):
        """(the scopes of the file that declares it, the function) a call of ``name`` at ``node`` runs: a
        ``function`` or ``const f = () => ..`` of this file, or one imported from a relative module (through the
        modules that re-export it); (self, None) for any other."""
        owner, decl = self, _declared_function(self, name)
        if decl is None:
            bound = self.declaration(name, node)
            value = _strip(bound.child_by_field_name("value")) if bound is not None else None
            if value is not None and value.type in ("arrow_function", "function_expression", "function"):
                decl = value
            elif bound is None and name in self.imports and engine.FLOW.spend():
                got = _imported(self.file, name)
                if got is not None and got[1] is not None:
                    g, key = _reexported(got[0], got[1])
                    owner = _js(g)
                    decl = _function_named(owner, key)
        return owner, decl

    def _returned_response(self, value):
        """The queue the response a helper returns names: ``const { QueueUrl } = await ensureQueue(client)`` where
        ``ensureQueue`` returns ``client.send(new CreateQueueCommand({ QueueName: "jobs" }))`` (in this file or
        a relative module): :meth:`_lookup` of what it returns, in its own file; raises when not one such."""
        call = (
            _strip(value.named_children[0])
            if value.type == "await_expression" and value.named_children
            else value
        )
        fn = (
            call.child_by_field_name("function")
            if call is not None and call.type == "call_expression"
            else None
        )
        if fn is None or fn.type != "identifier":
            raise _Unresolved
        owner, decl = self._callee(text(fn), call)
        returns = engine.returns_of(decl) if decl is not None else None
        if not returns or len(returns) > 1:
            raise _Unresolved
        got = owner._lookup(returns[0])
        if got.kind not in ("name", "env"):  # a queue the helper's caller names: read per call site, not here
            raise _Unresolved
        return got

    def _lookup(self, node):
        """A GetQueueUrl call under ``node`` (``await client.send(new GetQueueUrlCommand({QueueName}))``)."""
        budget, stack = 400, [node]
        while stack and budget > 0:
            n = stack.pop()
            budget -= 1
            callee = None
            if n.type == "new_expression":
                callee = self._callee_name(_strip(n.child_by_field_name("constructor")))
            elif n.type == "call_expression":
                callee = self._callee_name(n.child_by_field_name("function"))
            if (
                callee == "send" and n.type == "call_expression"
            ):  # client.send(command): the command bound once
                arg = _strip(_first_arg(n))
                decl = (
                    self.declaration(text(arg), arg) if arg is not None and arg.type == "identifier" else None
                )
                value = (
                    decl.child_by_field_name("value")
                    if decl is not None and decl.type == "variable_declarator"
                    else None
                )
                if value is not None:
                    stack.append(value)
                    continue
            if callee in _RESPONSE_CALLS:
                arg = _first_arg(n)
                v = self.value(arg) if arg is not None else None
                named = _strip(v.value.get("QueueName")) if v is not None and v.kind == "obj" else None
                # createQueue({ QueueName: name }) of a parameter: the name the call site pinned now gives (or
                # every call, when they agree; through a function of several calls the receive is then read per
                # call site, as creates._per_call_site reads the create), else the queue declared at this call
                created = (
                    callee in ("CreateQueueCommand", "createQueue")
                    and named is not None
                    and v.file is None
                    and named.type in ("identifier", "shorthand_property_identifier")
                    and self._param_of(text(named), named) is not None
                )
                if v is not None and v.kind == "obj" and "QueueName" in v.value:
                    q = self.value(v.value["QueueName"])
                    fallback = q.default if q is not None and q.kind == "env" else None
                    if fallback is not None and fallback.kind == "str":
                        q = fallback
                    if q is not None and q.kind == "str" and q.value.strip():
                        out = Value("name", q.value.strip(), q.node)
                        out.mark = "response"
                        return out
                    if q is not None and q.kind == "env":
                        out = Value("env", q.value, q.node)
                        out.mark = "response"
                        return out
                if created:
                    return Value("created", n, n)
                raise _Unresolved
            stack.extend(n.named_children)
        raise _Unresolved

    def _result_of_callback(self, fn, name):
        """The CreateQueue / GetQueueUrl call (SDK v2) that ``fn`` is the callback of when ``name`` is the
        callback's second parameter, the result (``sqs.createQueue({QueueName}, function (err, data) {..})``);
        else None."""
        params = _params(fn)
        if len(params) < 2 or _param_name(params[1])[0] != name:
            return None
        args = self.file.parent(fn)
        call = self.file.parent(args) if args is not None and args.type == "arguments" else None
        if call is None or call.type != "call_expression":
            return None
        if self._callee_name(call.child_by_field_name("function")) not in _RESPONSE_CALLS:
            return None
        kids = [c for c in args.named_children if c.type != "comment"]
        return call if kids and kids[-1].id == fn.id else None

    def _object(self, node, depth):
        props, open_ = {}, False
        for c in node.named_children:
            if c.type == "pair":
                key = c.child_by_field_name("key")
                if key is not None and key.type == "computed_property_name":
                    inner = key.named_children
                    kv = self._known(inner[0], depth) if inner else None
                    if kv is None or kv.kind != "str":
                        continue
                    props[kv.value] = c.child_by_field_name("value")
                elif key is not None:
                    props[self.key(key)] = c.child_by_field_name("value")
            elif c.type == "shorthand_property_identifier":
                props[text(c)] = c
            elif c.type == "method_definition":
                name = c.child_by_field_name("name")
                if name is not None:
                    props[self.key(name)] = c
            elif c.type == "spread_element":
                inner = c.named_children
                v = self._known(inner[0], depth) if inner else None  # depth: a chain of spreads ends
                keys = self._maybe_keys(inner[0]) if inner and (v is None or v.kind != "obj") else None
                if v is not None and v.kind == "obj" and v.file in (None, self.file):
                    props.update(v.value)
                    open_ = open_ or v.mark == "open"  # a spread of an object that may hold more
                elif keys is not None:  # ...(vt ? { VisibilityTimeout: vt } : {}): those keys are computed
                    props.update(dict.fromkeys(keys, c))
                else:  # an unknown spread may set any key: what came before is no longer known
                    props = {k: None for k in props}
                    open_ = True
        out = Value("obj", {k: v for k, v in props.items() if v is not None}, node)
        out.mark = "open" if open_ else None  # open: a key it lacks may still be set
        return out

    def _known(self, node, depth) -> Value | None:
        """``node``'s Value read ``depth`` deep, None when it is not known (:meth:`value`, without restarting the
        depth: a chain of 10,000 objects spreading the next ends at MAX_DEPTH)."""
        try:
            v = self._value(node, depth + 1)
        except _Unresolved:
            return None
        return None if v.kind == "unknown" else v

    def _maybe_keys(self, node) -> list | None:
        """The keys a conditional spread may set (``cond ? { A: x } : null``: each branch an object literal
        without spreads, or null/undefined/{}), or None when that is not so."""
        node = _strip(node)
        if node is None or node.type != "ternary_expression":
            return None
        keys = []
        for field in ("consequence", "alternative"):
            branch = _strip(node.child_by_field_name(field))
            if branch is not None and branch.type in ("null", "undefined"):
                continue
            if branch is None or branch.type != "object":
                return None
            for part in branch.named_children:
                if part.type == "pair" and part.child_by_field_name("key").type != "computed_property_name":
                    keys.append(self.key(part.child_by_field_name("key")))
                elif part.type == "shorthand_property_identifier":
                    keys.append(text(part))
                elif part.type != "comment":
                    return None
        return keys

    def key(self, node) -> str:
        if node is None:
            return ""
        if node.type == "string":
            return self._string(node)
        return text(node)

    def _pattern_value(self, part, depth):
        """A name bound by destructuring: ``const { QUEUE_URL = "x" } = process.env``, or a GetQueueUrl result."""
        decl = self._enclosing(part, ("variable_declarator",))
        value = _strip(decl.child_by_field_name("value")) if decl is not None else None
        if value is None:
            raise _Unresolved
        key, _local = self._pattern_names(part)
        if self._is_process_env(value) and key:
            default = None
            if part.type == "object_assignment_pattern":
                default = self._value(part.child_by_field_name("right"), depth + 1)
                if default.kind not in _LITERALS:
                    raise _Unresolved
            return Value("env", key, part, default=default)
        if key == "QueueUrl":
            try:
                return self._lookup(value)
            except _Unresolved:
                return self._returned_response(value)
        base = self._value(value, depth + 1)
        if base.kind == "module":  # const { QUEUE_URL } = require("./config")
            return _js(base.value).exported(key, depth + 1)
        if base.kind == "obj" and key in base.value:
            return self.within(base.file, base.value[key], depth + 1)
        raise _Unresolved

    def url_tail(self, node, depth=0):
        """(name, node) when a URL is built as ``${endpoint}/orders`` or ``base + "/orders"``: the queue's name
        is the literal after the last ``/``."""
        node = _strip(node)
        if node is None or depth > MAX_DEPTH:
            return None
        last = None
        if node.type == "template_string":
            parts = node.named_children
            last = parts[-1] if parts and parts[-1].type == "string_fragment" else None
        elif node.type == "binary_expression" and text(node.child_by_field_name("operator")) == "+":
            last = _strip(node.child_by_field_name("right"))
            v = self.value(last) if last is not None else None
            if v is None or v.kind != "str":
                return None
            s = v.value
            if "/" in s and queue_name_of(s.rsplit("/", 1)[1]):
                return s.rsplit("/", 1)[1], v.node
            return None
        elif node.type == "identifier":
            decl = self.declaration(text(node), node)
            return self.url_tail(decl, depth + 1) if decl is not None else None
        if last is None:
            return None
        s = text(last)
        if "/" in s and queue_name_of(s.rsplit("/", 1)[1]):
            return s.rsplit("/", 1)[1], last
        return None

    # ------------------------------------------------------------------------------------------- scopes
    def _ancestors(self, node) -> list:
        """The nodes from the root down to ``node``'s parent. tree-sitter finds a parent by descending from the
        root, so a walk up by ``parent`` is quadratic in the depth; one descent is linear (and cached)."""
        chain = self.chains.get(node.id)
        if chain is not None:
            return chain
        chain, n = [], self.root
        for a in reversed(self.anchors):  # start from the site or declarator being read when it holds node
            if a.id != node.id and a.start_byte <= node.start_byte and node.end_byte <= a.end_byte:
                chain, n = [*self._ancestors(a), a], a.child_with_descendant(node)
                break
        while n is not None and n.id != node.id:
            self.descents += 1
            if len(chain) >= MAX_ANCESTORS or self.descents > MAX_DESCENTS:
                raise _Unresolved
            chain.append(n)
            n = n.child_with_descendant(node)
        self.chains[node.id] = chain
        return chain

    def _enclosing(self, node, kinds):
        for n in reversed(self._ancestors(node)):
            if n.type in kinds:
                return n
        return None

    def declaration(self, name, use):
        """The node a name's nearest visible declaration binds it to (a declarator or a pattern part), or None
        when it is a parameter, declared elsewhere, reassigned, or not declared in this file."""
        try:
            return self._visible(name, use)
        except _Unresolved:  # nesting beyond visguard's bounds
            return None

    def _visible(self, name, use):
        candidates = self.decls.get(name)
        if not candidates or len(candidates) > MAX_CANDIDATES:
            return None
        best, best_span = None, None
        for decl, binding in candidates:
            scope, const = self._scope_of(decl)
            if scope is None or not (scope.start_byte <= use.start_byte < scope.end_byte):
                continue
            span = scope.end_byte - scope.start_byte
            if (
                best_span is None
                or span < best_span
                or (span == best_span and decl.start_byte <= use.start_byte)
            ):
                best, best_span = (decl, binding, scope), span
        if best is None:
            return None
        decl, binding, scope = best
        if not self._scope_of(decl)[1] and name in self.assigned:
            return None
        if self._shadowed(name, use, scope):
            return None
        return decl if binding.type == "identifier" else binding

    def _scope_of(self, decl):
        """(the scope a declarator declares its names in, whether it is a ``const``), once per declarator."""
        found = self.scopes.get(decl.id)
        if found is None:
            kind = self._ancestors(decl)[-1].child_by_field_name("kind")
            found = self.scopes[decl.id] = (
                self._enclosing(decl, _SCOPES),
                kind is not None and text(kind) == "const",
            )
        return found

    def _shadowed(self, name, use, scope):
        """Whether a function between ``use`` and ``scope`` takes a parameter ``name``."""
        for n in reversed(self._ancestors(use)):
            if n.id == scope.id:
                return False
            if n.type in _FUNCTIONS and name in self._param_names(n):
                return True
        return False

    def _param_names(self, fn, budget=200):
        names = self.params.get(fn.id)
        if names is not None:
            return names
        params = fn.child_by_field_name("parameters") or fn.child_by_field_name("parameter")
        names = self.params[fn.id] = set()
        stack = [params] if params is not None else []
        while stack and budget > 0:
            n = stack.pop()
            budget -= 1
            if n.type in ("identifier", "shorthand_property_identifier_pattern"):
                names.add(text(n))
            elif n.type in ("type_annotation", "string", "number"):
                continue
            else:
                stack.extend(n.named_children)
        return names

    def _subclass_field(self, key, depth) -> Value | None:
        """``this.key`` of an object of a subclass being read (engine.Flow.subclasses_pinned): the class field or
        constructor assignment of the most derived subclass writing it, read in its file; None when none does."""
        for g, ctor in engine.FLOW.subclasses_pinned():
            body = ctor.parent if ctor.parent is not None and ctor.parent.type == "class_body" else None
            found = _js(g)._field_nodes(body, key) if body is not None else []
            if len(found) > 1:
                raise _Unresolved(f"this.{key} is set more than once by a subclass")
            if found:
                return (
                    self.within(g, found[0], depth + 1)
                    if g is not self.file
                    else self._value(found[0], depth + 1)
                )
        return None

    def _field(self, key, use):
        """``this.key``'s value: a class field, or the one ``this.key = ...`` of the constructor."""
        body = self._enclosing(use, ("class_body",))
        if body is None:
            return None
        found = self._field_nodes(body, key)
        return found[0] if len(found) == 1 else None

    def _field_nodes(self, body, key) -> list:
        """The nodes a class body writes ``this.key`` with: its class field, parameter property, constructor
        assignments."""
        found = []
        for member in body.named_children:
            if member.type in ("public_field_definition", "field_definition"):
                name = member.child_by_field_name("name") or member.child_by_field_name("property")
                if name is not None and text(name) == key and member.child_by_field_name("value") is not None:
                    found.append(member)
            elif (
                member.type == "method_definition"
                and text(member.child_by_field_name("name")) == "constructor"
            ):
                for p in _params(member):  # TypeScript's parameter property: constructor(private url: string)
                    pattern = p.child_by_field_name("pattern") if p.type in _PARAMS else None
                    modified = any(
                        k.type in ("accessibility_modifier", "override_modifier") for k in p.children
                    )
                    if pattern is not None and text(pattern) == key and (modified or "readonly" in text(p)):
                        found.append(pattern)
                block = member.child_by_field_name("body")
                for stmt in block.named_children if block is not None else ():
                    expr = (
                        stmt.named_children[0]
                        if stmt.type == "expression_statement" and stmt.named_children
                        else None
                    )
                    if expr is not None and expr.type == "assignment_expression":
                        left = expr.child_by_field_name("left")
                        if (
                            left is not None
                            and left.type == "member_expression"
                            and text(left) == f"this.{key}"
                        ):
                            found.append(expr.child_by_field_name("right"))
        return found


# the calls whose result names a queue (its QueueUrl): the queue their QueueName names (issue 35)
_RESPONSE_CALLS = ("GetQueueUrlCommand", "getQueueUrl", "CreateQueueCommand", "createQueue")


# ----------------------------------------------------------------------------------------------- helpers
def _strip(node):
    while node is not None and node.type in _WRAPPERS:
        inner = node.named_children
        node = inner[0] if inner else None
    return node


def _first_arg(node):
    args = node.child_by_field_name("arguments")
    if args is None:
        return None
    for c in args.named_children:
        if c.type != "comment":
            return c
    return None


def _first_error(root, budget=100_000):
    stack = [root]
    while stack and budget > 0:
        n = stack.pop()
        budget -= 1
        if n.is_error or n.is_missing:
            return n
        if n.has_error:
            stack.extend(reversed(n.children))
    return None


def _env_name(text: str) -> bool:
    return bool(text) and text[0].isalpha() and all(ch.isupper() or ch.isdigit() or ch == "_" for ch in text)


def _js_str(v) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "b": "\b", "f": "\f", "v": "\v"}


def _unescape(seq: str) -> str:
    body = seq[1:]
    if len(body) == 1:
        return _ESCAPES.get(body, body)
    if body[:1] in ("x", "u"):
        digits = body[1:].strip("{}")
        try:
            return chr(int(digits, 16))
        except ValueError:
            return seq
    return body


# ----------------------------------------------------------------------------------------------- the value flow
# (issue 35, engine.Flow): how the calls of a JavaScript function name it and pass its parameters, and the
# relative modules a name is imported from; the flow itself (call sites, budgets, several callers) is the engine's
_PARAMS = ("assignment_pattern", "object_pattern", "array_pattern", "rest_pattern", "required_parameter",
           "optional_parameter")  # fmt: skip
_CLASSES = ("class_declaration", "class", "abstract_class_declaration")


def _param_name(p) -> tuple[str, object, object]:
    """(the key a formal parameter is known by, its destructuring pattern or None, its default or None): ``url``,
    ``vt = 30``, ``{ queueUrl, vt = 30 } = {}`` (a pattern's key is ``{}@<its start>``: no name is its own),
    ``...rest`` (``*rest``), TypeScript's ``url: string`` / ``vt?: number``."""
    default = None
    if p.type in ("required_parameter", "optional_parameter"):
        default = p.child_by_field_name("value")
        p = p.child_by_field_name("pattern") or p
    if p.type == "assignment_pattern":
        default = p.child_by_field_name("right")
        p = p.child_by_field_name("left") or p
    if p.type in ("object_pattern", "array_pattern"):
        return f"{{}}@{p.start_byte}", p, default
    if p.type == "rest_pattern":
        inner = p.named_children
        return "*" + (text(inner[0]) if inner else ""), None, None
    return text(p), None, default


def _name_key(node) -> str | None:
    """engine.File.key of a formal parameter's node (the query captures each whole: :func:`_param_name`)."""
    return _param_name(node)[0] if node.type in _PARAMS else None


def _params(fn) -> list:
    params = fn.child_by_field_name("parameters")
    if params is None:
        one = fn.child_by_field_name("parameter")
        return [one] if one is not None else []
    return [p for p in params.named_children if p.type != "comment"]


def _bound_in(pattern, budget=200) -> dict:
    """name -> the part of an object pattern that binds it (``{ a, b: c, d = 1, e: { f } }``)."""
    out, stack = {}, [pattern]
    while stack and budget > 0:
        budget -= 1
        n = stack.pop()
        if n.type == "shorthand_property_identifier_pattern":
            out[text(n)] = n
        elif n.type == "object_assignment_pattern":
            left = n.child_by_field_name("left")
            if left is not None:
                out[text(left)] = n
        elif n.type == "pair_pattern":
            value = n.child_by_field_name("value")
            if value is not None and value.type == "identifier":
                out[text(value)] = n
            elif value is not None and value.type == "assignment_pattern":
                left = value.child_by_field_name("left")
                if left is not None and left.type == "identifier":
                    out[text(left)] = n
        elif n.type == "object_pattern":
            stack.extend(n.named_children)
    return out


def _pattern_part(js, part) -> tuple[str | None, object]:
    """(the property a part of a pattern reads, its default or None)."""
    if part.type == "shorthand_property_identifier_pattern":
        return text(part), None
    if part.type == "object_assignment_pattern":
        return text(part.child_by_field_name("left")), part.child_by_field_name("right")
    value = part.child_by_field_name("value")
    default = (
        value.child_by_field_name("right")
        if value is not None and value.type == "assignment_pattern"
        else None
    )
    return js.key(part.child_by_field_name("key")), default


def _checked(v: Value) -> Value:
    if v.kind == "unknown":
        raise _Unresolved(v.why, flow=True)
    return v


_SQS_URL_STATIC = re.compile(r"^https?://(?:sqs\.|[^/]*\.queue\.amazonaws\.com|queue\.amazonaws\.com)")


def _url_tail(parts: list) -> str | None:
    """The queue name a template URL ends in when only parts before its last ``/`` are unknown and it is written
    as an SQS endpoint's (``https://sqs.${region}.amazonaws.com/${account}/${name}``); else None."""
    known_after, tail = True, []
    for p in reversed(parts):
        if p is None:
            known_after = False
            break
        if "/" in p:
            tail.append(p.rsplit("/", 1)[1])
            break
        tail.append(p)
    head = parts[0] if parts and parts[0] is not None else ""
    name = "".join(reversed(tail))
    if (
        not known_after
        or not _SQS_URL_STATIC.match(head)
        or not re.fullmatch(r"[A-Za-z0-9_-]{1,80}(\.fifo)?", name)
    ):
        return None
    return name


def _names(member, name: str) -> bool:
    """Whether a class body's ``member`` is a method or a field named ``name``."""
    if member.type == "method_definition":
        return text(member.child_by_field_name("name")) == name
    if member.type in ("public_field_definition", "field_definition"):
        key = member.child_by_field_name("name") or member.child_by_field_name("property")
        return key is not None and text(key) == name
    return False


def _method_of(member):
    """The function a class member runs when called: a method, or a field bound to an arrow function or a
    function expression (``url = (name) => ...``); None for a field of any other value."""
    if member.type == "method_definition":
        return member
    value = _strip(member.child_by_field_name("value"))
    return (
        value
        if value is not None and value.type in ("arrow_function", "function_expression", "function")
        else None
    )


def _signature(fn, f: File):
    """engine.Language.signature: (the names its calls call it by, [(parameter key, default, positional)], 0).
    A function declaration or method by its name; a class's constructor by the class's (``new Poller(...)``); an
    arrow or function expression by the name it is bound to (``const poll = (url) => ...``, ``poll: function``, a
    class field ``poll = async (url) => ...``)."""
    name = None
    if fn.type in ("function_declaration", "generator_function_declaration"):
        name = text(fn.child_by_field_name("name"))
    elif fn.type == "method_definition":
        name = text(fn.child_by_field_name("name"))
        if name == "constructor":
            body = f.parent(fn)
            cls = f.parent(body) if body is not None else None
            name = None
            if cls is not None and cls.type in _CLASSES:
                n = cls.child_by_field_name("name")
                if n is not None:
                    name = text(n)
                else:  # const Poller = class { ... }
                    up = f.parent(cls)
                    if up is not None and up.type == "variable_declarator":
                        name = text(up.child_by_field_name("name"))
    elif fn.type in ("arrow_function", "function_expression", "function", "generator_function"):
        up = f.parent(fn)
        if up is not None and up.type == "variable_declarator":
            name = text(up.child_by_field_name("name"))
        elif up is not None and up.type == "pair":
            name = js_key(up.child_by_field_name("key"))
        elif up is not None and up.type == "assignment_expression":
            left = up.child_by_field_name("left")
            prop = left.child_by_field_name("property") if left is not None else None
            name = text(prop if prop is not None else left)
        elif up is not None and up.type in ("public_field_definition", "field_definition"):
            key = up.child_by_field_name("name") or up.child_by_field_name(
                "property"
            )  # getMessages = (q) => ..
            name = text(key) if key is not None else None
    if not name or not name.isidentifier():
        return None
    params = []
    for p in _params(fn):
        key, _, default = _param_name(p)
        params.append((key, default, not key.startswith("*")))
    return (name,), params, 0


def _super_calls(fn, f: File) -> list:
    """engine.Language.super_calls: for a class's ``constructor``, the ``super(...)`` calls in the constructors of
    the classes of its package that extend it (``class Billing extends BaseWorker``, ``extends lib.BaseWorker``,
    TypeScript's ``extends BaseWorker<T>``), and (File, None, None, name) for a subclass without a constructor of
    its own (its ``new`` calls run the base's)."""
    sig = _signature(fn, f) if fn.type == "method_definition" else None
    if sig is None or text(fn.child_by_field_name("name")) != "constructor":
        return []
    base, out = sig[0][0], []
    for g in [f, *engine.FLOW.files_with(f, (base,))]:
        for cls in classes_of(g, _CLASSES):
            heritage = next((c for c in cls.named_children if c.type == "class_heritage"), None)
            m = re.match(r"\s*extends\s+([\w$.]+)", text(heritage)) if heritage is not None else None
            name = cls.child_by_field_name("name")
            body = cls.child_by_field_name("body")
            if m is None or m.group(1).rsplit(".", 1)[-1] != base or name is None or body is None:
                continue
            ctor = next(
                (
                    c
                    for c in body.named_children
                    if c.type == "method_definition" and text(c.child_by_field_name("name")) == "constructor"
                ),
                None,
            )
            if ctor is None:
                out.append((g, None, None, text(name)))
                continue
            stack = [ctor.child_by_field_name("body")]
            while stack:
                n = stack.pop()
                if n is None or (n is not ctor.child_by_field_name("body") and n.type in _NESTED):
                    continue  # a nested function's or class's super is its own
                callee = n.child_by_field_name("function") if n.type == "call_expression" else None
                if callee is not None and callee.type == "super":
                    out.append((g, n, ctor, text(name)))
                    continue
                stack.extend(reversed(n.named_children))
    return out


_NESTED = frozenset(
    ("function_declaration", "function_expression", "function", "method_definition", *_CLASSES)
)


def js_key(node) -> str:
    raw = text(node)
    return raw[1:-1] if node is not None and node.type == "string" and len(raw) > 1 else raw


def _call_args(call, f: File):
    """engine.Language.call_args: (the arguments, {}, whether one is a spread ``...args``); None for a tagged
    template."""
    args = call.child_by_field_name("arguments")
    if args is None:
        return ([], {}, False) if call.type == "new_expression" else None
    if args.type != "arguments":
        return None
    pos = [a for a in args.named_children if a.type != "comment"]
    return pos, {}, any(a.type == "spread_element" for a in pos)


def _imported(f: File, key: str):
    """engine.Language.imported: (the File of the relative module a name of ``f`` is imported from, its name
    there; None: the module itself), or None: ``import { QUEUE_URL } from "./config"`` (``as`` too), ``import *
    as config`` / ``import config from "./config"`` with ``config.QUEUE_URL``. A module is a file of the run's
    project (engine.Flow.offered)."""
    head, _, rest = key.partition(".")
    got = _js(f).imports.get(head)
    if got is None or "." in rest:
        return None
    spec, name = got
    g = _module_file(f, spec)
    if g is None:
        return None
    if name is None:
        return g, rest or None
    return (g, name) if not rest else None


# how a relative module's path is completed (Node's resolution and TypeScript's: "./config" is config.js,
# config.ts, config/index.js, ...; "./config.js" written in TypeScript is config.ts):
# https://nodejs.org/api/modules.html#all-together, https://www.typescriptlang.org/docs/handbook/modules/reference.html
# (checked 2026-12-02)
_COMPLETIONS = ("", ".js", ".ts", ".mjs", ".cjs", ".jsx", ".tsx", ".mts", ".cts", "/index.js", "/index.ts")


MAX_REEXPORTS = 4  # modules an import is followed through (``export { f } from "./f.js"`` in an index.js)


def _reexported(g: File, key: str) -> tuple[File, str]:
    """(the module that declares ``key``, its name there): ``g`` itself, or the relative module ``g`` re-exports it
    from (``export { key } from "./x.js"``, ``export { k as key } from``, ``export * from``), followed up to
    :data:`MAX_REEXPORTS` modules."""
    for _ in range(MAX_REEXPORTS):
        if _function_named(_js(g), key) is not None:
            return g, key
        nxt = None
        for stmt in g.root.named_children:
            source = stmt.child_by_field_name("source") if stmt.type == "export_statement" else None
            if source is None:
                continue
            clause = next((c for c in stmt.named_children if c.type == "export_clause"), None)
            if clause is None:  # export * from "./x"
                if any(c.type == "*" for c in stmt.children):
                    nxt = nxt or (source, key)
                continue
            for spec in clause.named_children:
                name, alias = spec.child_by_field_name("name"), spec.child_by_field_name("alias")
                if name is not None and text(alias if alias is not None else name) == key:
                    nxt = (source, text(name))
                    break
        if nxt is None:
            return g, key
        spec = text(nxt[0]).strip("\"'`")
        h = _module_file(g, spec) if engine.FLOW.spend() else None
        if h is None:
            return g, key
        g, key = h, nxt[1]
    return g, key


def _module_file(f: File, spec: str) -> File | None:
    import os

    if f.path is None or not engine.FLOW.offered:
        return None
    base = os.path.join(os.path.dirname(os.path.abspath(f.path)), spec)
    stem, ext = os.path.splitext(base)
    candidates = [base + c for c in _COMPLETIONS]
    if ext in (".js", ".mjs", ".cjs", ".jsx"):
        candidates += [stem + t for t in (".ts", ".tsx", ".mts", ".cts")]
    for candidate in candidates:
        path = engine.FLOW.offered_file(candidate)
        if path is not None and os.path.abspath(path) != os.path.abspath(f.path):
            return engine.FLOW.file(path, _LANGUAGES[language_of(path)[0]])
    return None
