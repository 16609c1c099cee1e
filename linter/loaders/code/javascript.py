"""SQS consumers in JavaScript and TypeScript (issue 25), read from the tree-sitter syntax tree.

What a file says about its receives:
- AWS SDK v3 ``new ReceiveMessageCommand({QueueUrl, VisibilityTimeout, WaitTimeSeconds, MaxNumberOfMessages})``
  and v2 / v3-aggregated ``sqs.receiveMessage({...})``: one ``sdk`` consumer per receive site;
  ``ChangeMessageVisibility(Batch)Command`` / ``changeMessageVisibility(Batch)(...)`` in the same file is a
  heartbeat, unless every VisibilityTimeout it sends is a literal 0 (that releases the message, it extends none).
- Node ``sqs-consumer`` (``Consumer.create({...})`` / ``new Consumer({...})``, imported from ``sqs-consumer`` or
  ``@rxfork/sqs-consumer``) and ``@ssut/nestjs-sqs`` (``SqsModule.register({consumers: [...]})``,
  ``registerAsync`` whose factory returns a literal): one ``sqs-consumer`` consumer per options object.
  ``visibilityTimeout`` and ``heartbeatInterval`` are seconds, ``handleMessageTimeout`` milliseconds
  (reference/consumers.md §3.3).

A value is read when it is written in the file: a literal, arithmetic of literals, a ``const`` (or a ``let`` never
assigned again) of an enclosing scope, a class field, a property of an object of the file, a template literal of
such parts, ``process.env.X`` (the queue is then named by the variable; a number takes the ``?? 30`` / ``|| 30``
default). Anything else is computed: the field stays None and a note names its place. Nothing is evaluated,
nothing is imported but the grammar; a file that does not parse is read as far as tree-sitter recovered it.

``heartbeat``: True with a heartbeat in the file (or sqs-consumer's ``heartbeatInterval``); an SDK site without
one is None (the extension may live in another file), an sqs-consumer without one False (the library extends
only with ``heartbeatInterval``). Consumer ids are ``path:line`` (``path:line:column`` for a second one on a line).

Bounds: a file without a marker is not parsed; one linear cursor walk collects what is read; ancestors are found
by one descent from the site or declarator at hand (tree-sitter's ``parent`` descends from the root each time);
nesting, declarations per name, references followed and descents are capped, beyond which a value is computed.
"""

from __future__ import annotations

from visguard.linter.consumers import QueueRef, queue_name_of
from visguard.linter.model import Consumer, Location, Note

from . import CodeResult, parse, parser

EXTENSIONS = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")

# a file without any of these bytes names no receive this module reads: it is not parsed at all
_MARKERS = (b"eceiveMessage", b"sqs-consumer", b"nestjs-sqs", b"SqsModule")
MAX_BYTES = 8_000_000  # larger files are bundles, not application code: one note, not read
MAX_SITES = 500  # receive sites read per file
MAX_DEPTH = 24  # references followed from one value (a const naming a const naming ...)
MAX_STEPS = 200_000  # nodes a file's value resolution may visit in all
MAX_CANDIDATES = 64  # declarations of one name (minified code reuses names): beyond, the name is not read
MAX_ANCESTORS = 2_000  # nesting followed from the root to a node
MAX_DESCENTS = 1_000_000  # steps a file's descents from the root may take in all (~1 s)

SQS_CONSUMER_MODULES = ("sqs-consumer", "@rxfork/sqs-consumer")
_NEST_MODULES = ("@ssut/nestjs-sqs", "@nestjs-packages/sqs")
_SDK_MODULES = ("aws-sdk", "aws-sdk/clients/sqs", "@aws-sdk/client-sqs")
_RECEIVE_COMMANDS = ("ReceiveMessageCommand",)
_CHANGE_COMMANDS = ("ChangeMessageVisibilityCommand", "ChangeMessageVisibilityBatchCommand")
_CHANGE_METHODS = ("changeMessageVisibility", "changeMessageVisibilityBatch")
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

# the node kinds the one walk of a file collects (kind id -> name, per grammar: ids differ between grammars)
_COLLECT = (
    "new_expression",
    "call_expression",
    "variable_declarator",
    "import_statement",
    "decorator",
    "assignment_expression",
    "augmented_assignment_expression",
    "update_expression",
)
_CALLS = ("receiveMessage", "create", "register", "registerAsync", *_CHANGE_METHODS)
_KINDS: dict[str, dict[int, str]] = {}


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
    try:
        _Reader(path, data, grammar, source, root, result).run()
    except (
        Exception
    ) as e:  # untrusted input: a reader fault is one note, never a traceback (tests pin the cases)
        result.notes.append(Note(f"{path} not read completely ({type(e).__name__})", Location(path)))
    return result


def _kinds(grammar: str) -> dict[int, str]:
    kinds = _KINDS.get(grammar)
    if kinds is None:
        lang = parser(grammar).language
        kinds = _KINDS[grammar] = {
            i: lang.node_kind_for_id(i)
            for i in range(lang.node_kind_count)
            if lang.node_kind_is_named(i) and lang.node_kind_for_id(i) in _COLLECT
        }
    return kinds


def _collect(root, kinds: dict[int, str]) -> dict[str, list]:
    """The nodes of ``kinds`` in document order: one cursor walk, linear in the tree (a query cursor takes
    seconds on deeply nested error trees)."""
    out: dict[str, list] = {k: [] for k in _COLLECT}
    cur = root.walk()
    while True:
        node = cur.node
        kind = kinds.get(node.kind_id)
        if kind is not None:
            out[kind].append(node)
        if cur.goto_first_child():
            continue
        while not cur.goto_next_sibling():
            if not cur.goto_parent():
                return out


class _Val:
    """A resolved value: ``lit`` (a str, number, bool or None), ``env`` (a variable's name, ``default`` a lit),
    ``obj`` (property name -> value node, spreads merged), ``arr`` (element nodes), ``qname`` (the QueueName a
    GetQueueUrl call looks up). ``node`` is where it is written."""

    __slots__ = ("kind", "value", "node", "default")

    def __init__(self, kind, value, node, default=None):
        self.kind, self.value, self.node, self.default = kind, value, node, default


class _Unresolved(Exception):
    pass


def _number(v):
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return v
    if isinstance(v, str):
        try:
            f = float(v.strip())
        except ValueError:
            return None
        return int(f) if f.is_integer() else f
    return None


class _Reader:
    def __init__(self, path, data, grammar, source, root, result):
        self.path, self.data, self.grammar, self.source, self.root = path, data, grammar, source, root
        self.result = result
        self.decls: dict[str, list] = {}  # name -> [(declarator node, binding node)]
        self.assigned: set[str] = set()
        self.consumer_names: set[str] = set()  # local names of sqs-consumer's Consumer
        self.consumer_ns: set[str] = set()  # local names of the sqs-consumer module object
        self.nest_names: set[str] = set()  # local names of nestjs-sqs's SqsModule
        self.handler_names: set[str] = set()  # ... and of its SqsMessageHandler decorator
        self.sdk_imported = False
        self.steps = 0
        self.ids: set[str] = set()
        self.chains: dict[int, list] = {}
        self.anchors: list = []  # the site being read and the declarators being followed (see _ancestors)
        self.descents = 0
        self.params: dict[int, set] = {}  # function node id -> its parameters' names

    # ------------------------------------------------------------------------------------------- text, places
    def text(self, node) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def loc(self, node) -> Location:
        row, col = node.start_point
        start = node.start_byte
        col = len(self.data[start - col : start].decode("utf-8", "replace")) + 1 if col else 1
        return Location(self.path, line=row + 1, column=col)

    def note(self, message: str, node, address=None):
        self.result.notes.append(Note(message, self.loc(node), address))

    # ------------------------------------------------------------------------------------------- the pass
    def run(self):
        if self.root.has_error:
            bad = _first_error(self.root)
            self.note(f"{self.path} has syntax errors; read as far as the parser recovered", bad or self.root)
        nodes = _collect(self.root, _kinds(self.grammar))
        for node in nodes["variable_declarator"]:
            self._declare(node)
        for kind, field in (
            ("assignment_expression", "left"),
            ("augmented_assignment_expression", "left"),
            ("update_expression", "argument"),
        ):
            for node in nodes[kind]:
                target = node.child_by_field_name(field)
                if target is not None and target.type == "identifier":
                    self.assigned.add(self.text(target))
        for node in nodes["import_statement"]:
            self._import(node)
        sites, changes = [], []
        for node in nodes["new_expression"]:
            ctor = _strip(node.child_by_field_name("constructor"))
            name = self._callee_name(ctor)
            if name in _RECEIVE_COMMANDS:
                sites.append(("sdk", node))
            elif name in _CHANGE_COMMANDS:
                changes.append(node)
            elif self._is_consumer_class(ctor):
                sites.append(("sqs-consumer", node))
        for node in nodes["call_expression"]:
            fn = node.child_by_field_name("function")
            prop = (
                fn.child_by_field_name("property")
                if fn is not None and fn.type == "member_expression"
                else None
            )
            method = self.text(prop) if prop is not None else None
            if method not in _CALLS:
                continue
            obj = _strip(fn.child_by_field_name("object"))
            if method == "receiveMessage":
                sites.append(("sdk-call", node))
            elif method in _CHANGE_METHODS:
                changes.append(node)
            elif method == "create" and self._is_consumer_class(obj):
                sites.append(("sqs-consumer", node))
            elif (
                method in ("register", "registerAsync")
                and obj is not None
                and self.text(obj) in self.nest_names
            ):
                sites.append(("nest-" + method, node))
        handlers = self._handlers(nodes["decorator"])
        heartbeat = self._heartbeat(changes)
        sites.sort(key=lambda s: s[1].start_byte)
        if len(sites) > MAX_SITES:
            self.note(
                f"{self.path}: only the first {MAX_SITES} of {len(sites)} receive sites were read",
                sites[0][1],
            )
        for kind, node in sites[:MAX_SITES]:
            self.anchors = [node]
            if kind in ("sdk", "sdk-call"):
                self._sdk(node, kind == "sdk-call", heartbeat)
            elif kind == "sqs-consumer":
                c = self._sqs_consumer(node, _first_arg(node), heartbeat)
                if c is not None:
                    self.result.consumers.append(c)
            else:
                self._nest(node, kind == "nest-registerAsync", heartbeat, handlers)

    def _declare(self, decl):
        name = decl.child_by_field_name("name")
        value = _strip(decl.child_by_field_name("value"))
        module = self._require_of(value) if value is not None else None
        if module in _SDK_MODULES:
            self.sdk_imported = True
        if name.type == "identifier":
            self.decls.setdefault(self.text(name), []).append((decl, name))
            if (
                module in SQS_CONSUMER_MODULES
            ):  # const Consumer = require("sqs-consumer"): the class, or the module
                self.consumer_names.add(self.text(name))
                self.consumer_ns.add(self.text(name))
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
                self.decls.setdefault(self.text(target), []).append((decl, part))
        if module in SQS_CONSUMER_MODULES:
            for part in name.named_children:
                key, local = self._pattern_names(part)
                if key == "Consumer" and local:
                    self.consumer_names.add(local)

    def _pattern_names(self, part):
        """(property name, local name) of one part of an object pattern."""
        if part.type == "shorthand_property_identifier_pattern":
            return self.text(part), self.text(part)
        if part.type == "pair_pattern":
            key, value = part.child_by_field_name("key"), part.child_by_field_name("value")
            if value is not None and value.type == "identifier":
                return self._key(key), self.text(value)
        if part.type == "object_assignment_pattern":
            left = part.child_by_field_name("left")
            if left is not None:
                return self.text(left), self.text(left)
        return None, None

    def _require_of(self, node):
        """The module ``require("m")`` (or ``require("m").X``'s) names, else None."""
        if node.type == "call_expression":
            fn, args = node.child_by_field_name("function"), _first_arg(node)
            if fn is not None and fn.type == "identifier" and self.text(fn) == "require" and args is not None:
                return self._string(args) if args.type == "string" else None
        return None

    def _import(self, node):
        src = node.child_by_field_name("source")
        module = self._string(src) if src is not None else None
        if module in _SDK_MODULES:
            self.sdk_imported = True
        is_consumer = module in SQS_CONSUMER_MODULES
        is_nest = module in _NEST_MODULES or (module or "").endswith("nestjs-sqs")
        if not (is_consumer or is_nest):
            return
        clause = next((c for c in node.named_children if c.type == "import_clause"), None)
        for part in clause.named_children if clause is not None else ():
            if part.type == "identifier" and is_consumer:  # import Consumer from "sqs-consumer" (before v6)
                self.consumer_names.add(self.text(part))
            elif part.type == "namespace_import" and is_consumer:
                self.consumer_ns.update(self.text(c) for c in part.named_children if c.type == "identifier")
            elif part.type == "named_imports":
                for spec in part.named_children:
                    name, alias = spec.child_by_field_name("name"), spec.child_by_field_name("alias")
                    if name is None:
                        continue
                    local = self.text(alias or name)
                    imported = self._key(name)
                    if is_consumer and imported == "Consumer":
                        self.consumer_names.add(local)
                    elif is_nest and imported == "SqsModule":
                        self.nest_names.add(local)
                    elif is_nest and imported == "SqsMessageHandler":
                        self.handler_names.add(local)

    def _callee_name(self, node):
        if node is None:
            return None
        if node.type == "identifier":
            return self.text(node)
        if node.type == "member_expression":
            prop = node.child_by_field_name("property")
            return self.text(prop) if prop is not None else None
        return None

    def _is_consumer_class(self, node):
        if node is None:
            return False
        if node.type == "identifier":
            return self.text(node) in self.consumer_names
        if node.type == "member_expression":  # ns.Consumer, require("sqs-consumer").Consumer
            obj, prop = _strip(node.child_by_field_name("object")), node.child_by_field_name("property")
            if prop is None or self.text(prop) != "Consumer" or obj is None:
                return False
            if obj.type == "identifier":
                name = self.text(obj)
                if name in self.consumer_ns:
                    return True
                decl = self._declaration(name, obj)
                value = decl.child_by_field_name("value") if decl is not None else None
                return value is not None and self._require_of(_strip(value)) in SQS_CONSUMER_MODULES
            return self._require_of(obj) in SQS_CONSUMER_MODULES
        return False

    # ------------------------------------------------------------------------------------------- heartbeats
    def _heartbeat(self, changes):
        """The first ChangeMessageVisibility call of the file that may extend (not only literal 0s), else None."""
        for node in sorted(changes, key=lambda n: n.start_byte):
            arg = _first_arg(node)
            values = self._pairs_named(arg, "VisibilityTimeout") if arg is not None else []
            zeros = [
                v
                for v in values
                if (r := self._try(v)) is not None and r.kind == "lit" and _number(r.value) == 0
            ]
            if not values or len(zeros) < len(values):
                return node
        return None

    def _pairs_named(self, node, key, budget=2000):
        """Value nodes of the properties named ``key`` in the object literals under ``node`` (bounded)."""
        v = self._try(node)
        found, stack = [], [v.node if v is not None and v.kind == "obj" else node]
        while stack and budget > 0:
            n = stack.pop()
            budget -= 1
            if n.type == "pair" and self._key(n.child_by_field_name("key")) == key:
                found.append(n.child_by_field_name("value"))
            elif n.type == "shorthand_property_identifier" and self.text(n) == key:
                found.append(n)
            stack.extend(n.named_children)
        return found

    # ------------------------------------------------------------------------------------------- consumers
    def _consumer(self, node, platform, heartbeat) -> Consumer:
        loc = self.loc(node)
        cid = f"{self.path}:{loc.line}"
        if cid in self.ids:  # two on one line (minified code): the column tells them apart
            cid = f"{cid}:{loc.column}"
        self.ids.add(cid)
        c = Consumer(cid, "worker", location=loc, platform=platform, source=self.source)
        if heartbeat is not None:
            c.heartbeat = True
            c.locations["heartbeat"] = self.loc(heartbeat)
        return c

    def _sdk(self, node, is_call, heartbeat):
        arg = _first_arg(node)
        params = self._try(arg) if arg is not None else None
        if (
            is_call
            and not self.sdk_imported
            and not (params is not None and params.kind == "obj" and "QueueUrl" in params.value)
        ):
            return  # x.receiveMessage(...) of something that is not visibly the AWS SDK
        c = self._consumer(node, "sdk", heartbeat)
        self.result.consumers.append(c)
        where = f"the receive at {self.path}:{c.location.line}"
        if params is None or params.kind != "obj":
            self.note(
                f"{where} passes parameters visguard cannot read; its queue and visibility are not known",
                node,
                c.id,
            )
            return
        opts = params.value
        self._queue(c, opts.get("QueueUrl"), where, "QueueUrl")
        self._seconds(c, opts, "VisibilityTimeout", "visibility_override", where)
        self._seconds(c, opts, "WaitTimeSeconds", "wait_time", where, setting=True)
        self._seconds(c, opts, "MaxNumberOfMessages", "max_messages", where, setting=True)

    def _sqs_consumer(self, node, arg, heartbeat, where=None):
        c = self._consumer(node, "sqs-consumer", heartbeat)
        where = where or f"the sqs-consumer at {self.path}:{c.location.line}"
        opts = self._try(arg) if arg is not None else None
        if opts is None or opts.kind != "obj":
            self.note(
                f"{where} takes options visguard cannot read; its queue and visibility are not known",
                node,
                c.id,
            )
            return c
        opts = opts.value
        self._queue(c, opts.get("queueUrl"), where, "queueUrl")
        self._seconds(c, opts, "visibilityTimeout", "visibility_override", where)
        if self._present(opts.get("heartbeatInterval")):
            self._seconds(c, opts, "heartbeatInterval", "heartbeat_interval", where)
            c.heartbeat = True
            c.locations["heartbeat"] = self.loc(opts["heartbeatInterval"])
        elif c.heartbeat is None:
            c.heartbeat = False  # sqs-consumer extends only with heartbeatInterval; none in this file either
        self._seconds(c, opts, "handleMessageTimeout", "work_timeout", where, scale=0.001)
        self._seconds(c, opts, "batchSize", "max_messages", where, setting=True)
        self._seconds(c, opts, "waitTimeSeconds", "wait_time", where, setting=True)
        tv = opts.get("terminateVisibilityTimeout")
        if self._present(tv):
            v = self._try(tv)
            if (
                v is not None
                and v.kind == "lit"
                and (isinstance(v.value, bool) or _number(v.value) is not None)
            ):
                c.settings["terminate_visibility_timeout"] = (
                    v.value if isinstance(v.value, bool) else _number(v.value)
                )
                c.locations["terminate_visibility_timeout"] = self.loc(v.node)
            else:
                self.note(
                    f"{where}: terminateVisibilityTimeout is computed; visguard does not read it", tv, c.id
                )
        return c

    def _nest(self, node, is_async, heartbeat, handlers):
        arg = _first_arg(node)
        where = f"SqsModule.{'registerAsync' if is_async else 'register'} at {self.path}:{node.start_point.row + 1}"
        opts = self._try(arg) if arg is not None else None
        if is_async and opts is not None and opts.kind == "obj":
            opts = self._factory_result(opts.value.get("useFactory"))
        entries = None
        if opts is not None and opts.kind == "obj" and "consumers" in opts.value:
            entries = self._try(opts.value["consumers"])
        if entries is None or entries.kind != "arr":
            if opts is None or opts.kind != "obj" or "consumers" in opts.value:
                self.note(f"{where} builds its consumers in a way visguard cannot read", node)
            return
        for entry in entries.value:
            v = self._try(entry)
            if v is None or v.kind != "obj":
                self.note(f"{where}: a consumer entry visguard cannot read", entry)
                continue
            c = self._sqs_consumer(
                entry,
                entry,
                heartbeat,
                where=f"the nestjs-sqs consumer at {self.path}:{entry.start_point.row + 1}",
            )
            name = v.value.get("name")
            name = self._try(name) if name is not None else None
            if name is not None and name.kind == "lit" and name.value in handlers:
                c.locations["handler"] = handlers[name.value]
            self.result.consumers.append(c)

    def _factory_result(self, fn):
        """The object a ``useFactory`` returns when it returns one literal (an arrow's body, a single return)."""
        fn = _strip(fn) if fn is not None else None
        if fn is not None and fn.type == "identifier":  # useFactory: makeSqsOptions, a const of the file
            decl = self._declaration(self.text(fn), fn)
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
            return self._try(body)
        returns = [s for s in body.named_children if s.type == "return_statement"]
        if len(returns) != 1 or not returns[0].named_children:
            return None
        return self._try(returns[0].named_children[0])

    def _handlers(self, decorators):
        """name -> Location of ``@SqsMessageHandler("name", batch)`` methods of the file."""
        out = {}
        for d in decorators:
            call = next((c for c in d.named_children if c.type == "call_expression"), None)
            fn = call.child_by_field_name("function") if call is not None else None
            if (
                fn is None
                or fn.type != "identifier"
                or self.text(fn) not in (self.handler_names or {"SqsMessageHandler"})
            ):
                continue
            name = self._try(_first_arg(call)) if _first_arg(call) is not None else None
            if name is not None and name.kind == "lit" and isinstance(name.value, str):
                out.setdefault(name.value, self.loc(d))
        return out

    # ------------------------------------------------------------------------------------------- fields
    def _present(self, node):
        if node is None:
            return False
        v = self._try(node)
        return not (v is not None and v.kind == "lit" and v.value is None)

    def _seconds(self, c, opts, key, field, where, setting=False, scale=1):
        node = opts.get(key)
        if not self._present(node):
            return
        v = self._try(node)
        value = None
        if v is not None and v.kind == "lit":
            value, at = _number(v.value), v.node
        elif v is not None and v.kind == "env" and v.default is not None:
            value, at = _number(v.default.value), v.default.node
        if value is None:
            why = (
                f"comes from the environment variable {v.value}"
                if v is not None and v.kind == "env"
                else "is computed"
            )
            self.note(f"{where}: {key} {why}; visguard does not know its value", node, c.id)
            return
        if scale != 1:
            value = value * scale
            value = int(value) if float(value).is_integer() else value
        if setting:
            c.settings[field] = value
        else:
            setattr(c, field, value)
        c.locations[field] = self.loc(at)
        self.result.spans[(c.id, field)] = (at.start_byte, at.end_byte)

    def _queue(self, c, node, where, key):
        if node is None:
            self.result.notes.append(
                Note(f"{where} names no {key}; its queue is not known", c.location, c.id)
            )
            return
        v = self._try(node)
        ref = None
        if v is not None and v.kind == "env":
            ref = QueueRef("env", v.value, self.loc(v.node))
            d = v.default
            if d is not None and d.kind == "lit" and isinstance(d.value, str):  # process.env.Q ?? "<literal>"
                ref.fallback = _literal_ref(d.value, self.loc(d.node))
        elif v is not None and v.kind == "lit" and isinstance(v.value, str):
            ref = _literal_ref(v.value, self.loc(v.node))
        elif v is not None and v.kind == "qname":
            ref = QueueRef("name", v.value, self.loc(v.node))
        if ref is None:
            tail = self._url_tail(node)
            if tail is not None:
                ref = QueueRef("name", tail[0], self.loc(tail[1]))
        if ref is None:
            why = "is not a queue URL, ARN or name" if v is not None and v.kind == "lit" else "is computed"
            self.note(f"{where}: {key} {why}; the consumer's queue is not known", node, c.id)
            return
        c.queue_ref = ref
        c.link = "env" if ref.kind == "env" else "literal" if ref.kind in ("url", "arn") else "name"
        c.link_ref = ref.value
        c.locations["queue_ref"] = ref.location

    def _url_tail(self, node, depth=0):
        """(name, node) when a URL is built as ``${endpoint}/orders`` or ``base + "/orders"``: the queue's name
        is the literal after the last ``/``."""
        node = _strip(node)
        if node is None or depth > MAX_DEPTH:
            return None
        last = None
        if node.type == "template_string":
            parts = node.named_children
            last = parts[-1] if parts and parts[-1].type == "string_fragment" else None
        elif node.type == "binary_expression" and self.text(node.child_by_field_name("operator")) == "+":
            last = _strip(node.child_by_field_name("right"))
            v = self._try(last) if last is not None else None
            if v is None or v.kind != "lit" or not isinstance(v.value, str):
                return None
            text = v.value
            if "/" in text and queue_name_of(text.rsplit("/", 1)[1]):
                return text.rsplit("/", 1)[1], v.node
            return None
        elif node.type == "identifier":
            decl = self._declaration(self.text(node), node)
            return self._url_tail(decl, depth + 1) if decl is not None else None
        if last is None:
            return None
        text = self.text(last)
        if "/" in text and queue_name_of(text.rsplit("/", 1)[1]):
            return text.rsplit("/", 1)[1], last
        return None

    # ------------------------------------------------------------------------------------------- values
    def _try(self, node):
        try:
            return self._value(node, 0)
        except _Unresolved:
            return None

    def _value(self, node, depth) -> _Val:
        self.steps += 1
        if node is None or depth > MAX_DEPTH or self.steps > MAX_STEPS:
            raise _Unresolved
        node = _strip(node)
        t = node.type
        if t == "number":
            n = _js_number(self.text(node))
            if n is None:
                raise _Unresolved
            return _Val("lit", n, node)
        if t == "string":
            return _Val("lit", self._string(node), node)
        if t in ("true", "false"):
            return _Val("lit", t == "true", node)
        if t in ("null", "undefined"):
            return _Val("lit", None, node)
        if t == "template_string":
            return self._template(node, depth)
        if t == "identifier":
            name = self.text(node)
            if name == "undefined":
                return _Val("lit", None, node)
            return self._value(self._declaration(name, node), depth + 1)
        if t == "shorthand_property_identifier":
            return self._value(self._declaration(self.text(node), node), depth + 1)
        if t in ("member_expression", "subscript_expression"):
            return self._member(node, depth)
        if t == "binary_expression":
            return self._binary(node, depth)
        if t == "unary_expression":
            op, arg = self.text(node.child_by_field_name("operator")), node.child_by_field_name("argument")
            v = self._value(arg, depth + 1)
            n = _number(v.value) if v.kind == "lit" else None
            if op in ("-", "+") and n is not None:
                return _Val("lit", -n if op == "-" else n, node)
            if op == "+" and v.kind == "env":  # +process.env.VT
                return v
            raise _Unresolved
        if t == "call_expression":
            return self._call(node, depth)
        if t == "await_expression":
            return self._lookup(node)
        if t == "object":
            return self._object(node, depth)
        if t == "array":
            return _Val("arr", [c for c in node.named_children if c.type != "comment"], node)
        if t in ("pair", "public_field_definition", "field_definition"):
            return self._value(node.child_by_field_name("value"), depth + 1)
        if t in ("shorthand_property_identifier_pattern", "pair_pattern", "object_assignment_pattern"):
            return self._pattern_value(node, depth)
        if t == "variable_declarator":
            self.anchors.append(node)
            try:
                return self._value(node.child_by_field_name("value"), depth + 1)
            finally:
                self.anchors.pop()
        raise _Unresolved

    def _string(self, node) -> str:
        out = []
        for c in node.named_children:
            if c.type == "escape_sequence":
                out.append(_unescape(self.text(c)))
            elif c.type != "comment":
                out.append(self.text(c))
        return "".join(out)

    def _template(self, node, depth):
        parts, subs = [], []
        for c in node.named_children:
            if c.type == "string_fragment":
                parts.append(self.text(c))
            elif c.type == "escape_sequence":
                parts.append(_unescape(self.text(c)))
            elif c.type == "template_substitution":
                inner = c.named_children
                if len(inner) != 1:
                    raise _Unresolved
                v = self._value(inner[0], depth + 1)
                subs.append(v)
                if v.kind != "lit" or v.value is None:
                    parts.append(None)
                else:
                    parts.append(str(v.value).lower() if isinstance(v.value, bool) else _js_str(v.value))
        if len(subs) == 1 and len(parts) == 1:  # `${process.env.QUEUE_URL}`
            return subs[0]
        if any(p is None for p in parts):
            raise _Unresolved
        return _Val("lit", "".join(parts), node)

    def _member(self, node, depth):
        obj = _strip(node.child_by_field_name("object"))
        if node.type == "member_expression":
            prop = node.child_by_field_name("property")
            key = self.text(prop) if prop is not None else None
        else:
            index = node.child_by_field_name("index")
            iv = self._value(index, depth + 1) if index is not None else None
            key = (
                iv.value if iv is not None and iv.kind == "lit" and isinstance(iv.value, (str, int)) else None
            )
            key = str(key) if key is not None else None
        if key is None or obj is None:
            raise _Unresolved
        if self._is_process_env(obj):
            return _Val("env", key, node)
        if obj.type == "this":
            return self._value(self._field(key, node), depth + 1)
        base = self._value(obj, depth + 1)
        if base.kind == "obj" and key in base.value:
            return self._value(base.value[key], depth + 1)
        if base.kind == "arr" and key.isdigit() and int(key) < len(base.value):
            return self._value(base.value[int(key)], depth + 1)
        raise _Unresolved

    def _is_process_env(self, node):
        if node.type != "member_expression":
            return False
        obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
        return (
            obj is not None and prop is not None and self.text(obj) == "process" and self.text(prop) == "env"
        )

    def _binary(self, node, depth):
        op = self.text(node.child_by_field_name("operator"))
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if op in ("??", "||"):
            lv = self._value(left, depth + 1)
            if lv.kind == "env":
                rv = self._value(right, depth + 1)
                if rv.kind != "lit":
                    raise _Unresolved
                return _Val("env", lv.value, lv.node, rv)
            if lv.kind == "lit" and (lv.value is None or (op == "||" and not lv.value)):
                return self._value(right, depth + 1)
            return lv
        lv, rv = self._value(left, depth + 1), self._value(right, depth + 1)
        if lv.kind != "lit" or rv.kind != "lit":
            raise _Unresolved
        if op == "+" and (isinstance(lv.value, str) or isinstance(rv.value, str)):
            return _Val("lit", _js_str(lv.value) + _js_str(rv.value), node)
        a, b = _number(lv.value), _number(rv.value)
        if a is None or b is None or isinstance(lv.value, str) or isinstance(rv.value, str):
            raise _Unresolved
        if op == "+":
            return _Val("lit", a + b, node)
        if op == "-":
            return _Val("lit", a - b, node)
        if op == "*":
            return _Val("lit", a * b, node)
        if op == "/" and b:
            q = a / b
            return _Val("lit", int(q) if q.is_integer() else q, node)
        raise _Unresolved

    def _call(self, node, depth):
        fn = node.child_by_field_name("function")
        name = None
        if fn is not None and fn.type == "identifier":
            name = self.text(fn)
        elif (
            fn is not None
            and fn.type == "member_expression"
            and self.text(fn) in ("Number.parseInt", "Number.parseFloat")
        ):
            name = self._callee_name(fn)
        arg = _first_arg(node)
        if name in _TO_NUMBER and arg is not None:
            v = self._value(arg, depth + 1)
            if v.kind == "lit":
                n = _number(v.value)
                if n is None:
                    raise _Unresolved
                return _Val("lit", int(n) if name == "parseInt" else n, v.node)
            if v.kind == "env":
                return v
            raise _Unresolved
        if name == "String" and arg is not None:
            return self._value(arg, depth + 1)
        # ConfigService.get("ORDERS_QUEUE_URL") (NestJS): the variable of that name
        if fn is not None and fn.type == "member_expression" and arg is not None and arg.type == "string":
            prop = fn.child_by_field_name("property")
            obj = fn.child_by_field_name("object")
            key = self._string(arg)
            if (
                prop is not None
                and obj is not None
                and self.text(prop) in ("get", "getOrThrow")
                and "config" in self.text(obj).lower()
                and _env_name(key)
            ):
                return _Val("env", key, node)
        return self._lookup(node)

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
            if callee in ("GetQueueUrlCommand", "getQueueUrl"):
                arg = _first_arg(n)
                v = self._try(arg) if arg is not None else None
                if v is not None and v.kind == "obj" and "QueueName" in v.value:
                    q = self._try(v.value["QueueName"])
                    if q is not None and q.kind == "lit" and isinstance(q.value, str):
                        return _Val("qname", q.value, q.node)
                raise _Unresolved
            stack.extend(n.named_children)
        raise _Unresolved

    def _object(self, node, depth):
        props = {}
        for c in node.named_children:
            if c.type == "pair":
                key = c.child_by_field_name("key")
                if key is not None and key.type == "computed_property_name":
                    inner = key.named_children
                    kv = self._try(inner[0]) if inner else None
                    if kv is None or kv.kind != "lit" or not isinstance(kv.value, str):
                        continue
                    props[kv.value] = c.child_by_field_name("value")
                elif key is not None:
                    props[self._key(key)] = c.child_by_field_name("value")
            elif c.type == "shorthand_property_identifier":
                props[self.text(c)] = c
            elif c.type == "method_definition":
                name = c.child_by_field_name("name")
                if name is not None:
                    props[self._key(name)] = c
            elif c.type == "spread_element":
                inner = c.named_children
                v = self._try(inner[0]) if inner else None
                if v is not None and v.kind == "obj":
                    props.update(v.value)
                else:  # an unknown spread may set any key: what came before is no longer known
                    props = {k: None for k in props}
        return _Val("obj", {k: v for k, v in props.items() if v is not None}, node)

    def _key(self, node) -> str:
        if node is None:
            return ""
        if node.type == "string":
            return self._string(node)
        return self.text(node)

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
                if default.kind != "lit":
                    raise _Unresolved
            return _Val("env", key, part, default)
        if key == "QueueUrl":
            return self._lookup(value)
        base = self._value(value, depth + 1)
        if base.kind == "obj" and key in base.value:
            return self._value(base.value[key], depth + 1)
        raise _Unresolved

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

    def _declaration(self, name, use):
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
            scope = self._enclosing(decl, _SCOPES)
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
        parent = self._ancestors(decl)[-1]
        kind = parent.child_by_field_name("kind")
        if (kind is None or self.text(kind) != "const") and name in self.assigned:
            return None
        if self._shadowed(name, use, scope):
            return None
        return decl if binding.type == "identifier" else binding

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
                names.add(self.text(n))
            elif n.type in ("type_annotation", "string", "number"):
                continue
            else:
                stack.extend(n.named_children)
        return names

    def _field(self, key, use):
        """``this.key``'s value: a class field, or the one ``this.key = ...`` of the constructor."""
        body = self._enclosing(use, ("class_body",))
        if body is None:
            return None
        found = []
        for member in body.named_children:
            if member.type in ("public_field_definition", "field_definition"):
                name = member.child_by_field_name("name") or member.child_by_field_name("property")
                if (
                    name is not None
                    and self.text(name) == key
                    and member.child_by_field_name("value") is not None
                ):
                    found.append(member)
            elif (
                member.type == "method_definition"
                and self.text(member.child_by_field_name("name")) == "constructor"
            ):
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
                            and self.text(left) == f"this.{key}"
                        ):
                            found.append(expr.child_by_field_name("right"))
        return found[0] if len(found) == 1 else None


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


def _literal_ref(value: str, loc: Location) -> QueueRef | None:
    value = value.strip()
    if value.startswith(("https://", "http://")):
        return QueueRef("url", value, loc) if queue_name_of(value) else None
    if value.startswith("arn:"):
        return QueueRef("arn", value, loc) if queue_name_of(value) else None
    return QueueRef("name", value, loc) if queue_name_of(value) else None


def _env_name(text: str) -> bool:
    return bool(text) and text[0].isalpha() and all(ch.isupper() or ch.isdigit() or ch == "_" for ch in text)


def _js_number(text: str):
    text = text.replace("_", "").rstrip("n")
    low = text.lower()
    try:
        if low.startswith(("0x", "0o", "0b")):
            return int(low, 0)
        f = float(text)
    except ValueError:
        return None
    return int(f) if f.is_integer() and "e" not in low and "." not in low else f


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
