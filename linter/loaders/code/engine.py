"""The one engine every code reader runs on (issue 34): a budgeted parse, the language's tree-sitter query, one
``Value`` and one :func:`evaluate` for every language, one ``Reader`` (locations in code points, notes, consumer
ids) and the place of every value read, for the fixer.

A language is data: a :class:`Language` entry (its grammar, the node kinds :func:`evaluate` needs, the calls that
read the environment or pass a value through, the units) and a query file ``languages/<name>.scm`` saying *where*
consumers are. The query's captures follow one convention, read by :meth:`File.sites`:

    @consumer.<platform>     the node a consumer is written at (its location, its id)
    @key / @value            one keyword or field argument of that consumer (the key's text names the setting:
                             ``Language.keys``)
    @<field>                 a positional argument that sets ``field`` (``@queue``)
    @var                     the variable the consumer's request is stored in (later ``var.Key = v`` set it)
    @set.owner @set.key @set.value   a later assignment ``owner.Key = value``
    @heartbeat               a call that changes a message's visibility (the file extends its messages)
    @bind.name / @bind.value a name bound in the file, and its value (none: bound to what is not read)
    @param                   a function's parameter (a name that shadows a binding inside its function)

A capture whose name starts with ``_`` is the query's own (a predicate's operand). What a query cannot say stays
hand-written in the language's module (JavaScript's scopes, Celery's configuration merge, recovery from truncated
code), on the same ``Value`` and ``Reader``.

Numbers follow ``visguard.linter.loaders.values``: any literal up to ``values.MAX_NUMBER`` is data for the rules
(a receive's VisibilityTimeout of 50,000 is the range rule's to judge); beyond it, or NaN, it is not read and
noted. A value is read from a literal, a name bound once in the file (or to the same text every time), an
environment variable (with the literal default the code writes), a pass-through call (``aws.String(x)``,
``int(x)``), a unit (``Duration.ofMinutes(2)``, ``2.minutes``), arithmetic of numbers, and strings built from
known parts. Anything else is ``unknown``, with ``why``: the expression that stopped it.
"""

from __future__ import annotations

import os
import time

from visguard.linter.consumers import QueueRef
from visguard.linter.loaders import values
from visguard.linter.model import Consumer, Location, Note

from . import CodeResult, column, parser
from . import parse as budgeted_parse

MAX_BYTES = 2_000_000  # a larger file is read up to this size (generated or vendored code)
MAX_DEPTH = 8  # names followed and expressions nested before a value is "computed"
_QUERIES: dict[str, object] = {}


# ---------------------------------------------------------------------------------------------- the SQS API
# the consumer fields ReceiveMessage's parameters set -> the API's names; every SDK spells them its own way (Go,
# .NET, PHP as the API does; Ruby and Python in snake_case: :func:`snake`; JavaScript v3 as the API)
RECEIVE_API = {
    "queue": "QueueUrl",
    "visibility_override": "VisibilityTimeout",
    "wait_time": "WaitTimeSeconds",
    "max_messages": "MaxNumberOfMessages",
}


def snake(name: str) -> str:
    """``VisibilityTimeout`` -> ``visibility_timeout`` (the Ruby and Python SDKs' keyword arguments)."""
    return "".join(f"_{ch.lower()}" if ch.isupper() and i else ch.lower() for i, ch in enumerate(name))


# ---------------------------------------------------------------------------------------------- queue references
def queue_ref(value: str, location: Location | None, kind: str | None = None) -> QueueRef | None:
    """A queue reference from a literal: a URL (``https://...``), an ARN (``arn:...``) or a name; None for an
    empty string. The one classifier of a literal every reader uses."""
    value = value.strip()
    if not value:
        return None
    if kind is None:
        kind = (
            "url"
            if value.startswith(("https://", "http://"))
            else "arn"
            if value.startswith("arn:")
            else "name"
        )
    return QueueRef(kind, value, location)


# ---------------------------------------------------------------------------------------------- the language
class Language:
    """One language's entry: what :func:`evaluate` needs to know of its grammar (node kinds by role) and its
    libraries (calls by the text of their callee: ``os.Getenv``)."""

    __slots__ = (
        "name", "grammar", "query", "keys", "numbers", "strings", "string_parts", "interpolations", "names",
        "members", "wrappers", "lists", "bools", "unary", "binary", "calls", "arguments", "argument_value",
        "env_calls", "passthrough", "units", "unit_methods", "hook",
    )  # fmt: skip

    def __init__(self, name: str, grammar: str, **kw):
        self.name, self.grammar = name, grammar
        self.query = kw.pop("query", name)
        self.keys: dict[str, str] = kw.pop("keys", {})  # an argument's key -> the consumer field it sets
        self.numbers = frozenset(kw.pop("numbers", ()))  # number literals
        self.strings = frozenset(kw.pop("strings", ()))  # string literals
        self.string_parts = frozenset(kw.pop("string_parts", ()))  # a string's text parts (its children)
        self.interpolations = frozenset(kw.pop("interpolations", ()))  # ${x} inside a string
        self.names = frozenset(kw.pop("names", ()))  # identifiers looked up in the file's bindings
        self.members = kw.pop(
            "members", {}
        )  # member access kind -> (object field, member field): this.x, self.x
        self.wrappers = frozenset(kw.pop("wrappers", ()))  # nodes whose value is their last named child
        self.lists = frozenset(kw.pop("lists", ()))
        self.bools = kw.pop("bools", {})  # kind -> True/False
        self.unary = frozenset(kw.pop("unary", ()))  # -30, +30, &x, *x
        self.binary = frozenset(kw.pop("binary", ()))  # a + b (fields left, operator, right)
        self.calls = kw.pop("calls", {})  # call kind -> its arguments field
        self.arguments = frozenset(kw.pop("arguments", ()))
        self.argument_value = frozenset(kw.pop("argument_value", ()))  # C#'s `argument` around a value
        # callee -> (position of the variable's name, position of the default or None)
        self.env_calls: dict[str, tuple[int, int | None]] = kw.pop("env_calls", {})
        # callee -> None, or a mark: "pointer" (Go's aws.Int32: always sent), "number" (a string read as one)
        self.passthrough: dict[str, str | None] = kw.pop("passthrough", {})
        self.units: dict[str, float] = kw.pop("units", {})  # callee -> seconds per unit: Duration.ofMinutes
        self.unit_methods: dict[str, float] = kw.pop("unit_methods", {})  # 2.minutes
        self.hook = kw.pop("hook", None)  # (node, File, depth) -> Value | None: what the tables cannot say
        if kw:
            raise TypeError(f"unknown Language fields: {sorted(kw)}")


def query(lang: Language):
    """The compiled query of ``lang`` (``languages/<query>.scm``, shipped as package data), on first use."""
    q = _QUERIES.get(lang.query)
    if q is None:
        import tree_sitter

        path = os.path.join(os.path.dirname(__file__), "languages", f"{lang.query}.scm")
        with open(path, encoding="utf-8") as f:
            q = _QUERIES[lang.query] = tree_sitter.Query(parser(lang.grammar).language, f.read())
    return q


# ---------------------------------------------------------------------------------------------- values
class Value:
    """What an expression evaluates to, as far as a static reader can tell.

    ``kind``: int | str | env | bool | list | name | unknown; ``value``; ``node``: the node that writes it (the
    literal, followed through names); ``why`` (unknown): the expression that stopped the reading; ``default``
    (env): the Value of the literal default the code writes; ``via``: the name node it was reached through, when
    not written in place; ``scale``: seconds per unit the literal is written in (``Duration.ofMinutes(2)``: 60);
    ``mark``: a pass-through call's mark (``pointer``); ``env``: for a number that is an environment variable's
    default, the variable; ``computed``: the value is arithmetic of literals (no one literal to edit)."""

    __slots__ = ("kind", "value", "node", "why", "default", "via", "scale", "mark", "env", "computed")

    def __init__(self, kind: str, value, node, why: str = "", default: Value | None = None):
        self.kind, self.value, self.node, self.why, self.default = kind, value, node, why, default
        self.via = self.mark = self.env = None
        self.scale = 1.0
        self.computed = False

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Value({self.kind}, {self.value!r})"


def unknown(node, why: str = "") -> Value:
    return Value("unknown", None, node, why or shown(node))


def text(node) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def shown(node, width: int = 60) -> str:
    return text(node)[:width]


def line(node) -> int:
    return node.start_point[0] + 1


def number(raw: str) -> int | float | None:
    """The number a literal's text writes (``30``, ``30L``, ``1_000``, ``0x1E``, ``30.0``, ``3e2``), None for other
    text; a number beyond ``values.MAX_NUMBER`` (or NaN/infinite) is None too: not data any rule could use."""
    s = raw.strip().rstrip("lLuUfFdDmMjJ").replace("_", "")
    if not s or len(s) > values.MAX_TEXT:
        return None
    try:
        n = int(s, 0) if not s.startswith("0") or s == "0" or s[:2].lower() in ("0x", "0o", "0b") else int(s)
    except ValueError:
        try:
            n = float(s)
        except ValueError:
            return None
    try:
        return values.number(n)
    except values.BadValue:
        return None


def callee(node, lang: Language) -> str | None:
    """The text of what a call calls, without spaces (``os.Getenv``, ``ENV.fetch``), or None for no call."""
    field = lang.calls.get(node.type)
    if field is None:
        return None
    args = node.child_by_field_name(field)
    end = args.start_byte if args is not None else node.end_byte
    data = node.text or b""
    return "".join(data[: end - node.start_byte].decode("utf-8", "replace").split())


def call_arguments(node, lang: Language) -> list:
    field = lang.calls.get(node.type)
    args = node.child_by_field_name(field) if field else None
    if args is None:
        return []
    return [a for a in args.named_children if a.type != "comment"]


def evaluate(node, f: File, depth: int = 0) -> Value:
    """The :class:`Value` of ``node`` in file ``f`` (see the module docstring)."""
    lang = f.lang
    if node is None:
        return Value("unknown", None, node, "nothing written")
    if depth > MAX_DEPTH:
        return unknown(node)
    if lang.hook is not None:
        v = lang.hook(node, f, depth)
        if v is not None:
            return v
    t = node.type
    if t in lang.numbers:
        n = number(text(node))
        return (
            Value("int", n, node)
            if n is not None
            else unknown(node, f"{shown(node)} is not a number visguard reads")
        )
    if t in lang.strings:
        return f.string(node, depth)
    if t in lang.bools:
        return Value("bool", lang.bools[t], node)
    if t in lang.wrappers or t in lang.argument_value:
        kids = [k for k in node.named_children if k.type != "comment"]
        return evaluate(kids[-1], f, depth + 1) if kids else unknown(node)
    if t in lang.unary:
        return f.unary(node, depth)
    if t in lang.binary:
        return f.binary(node, depth)
    if t in lang.lists:
        return Value(
            "list", [evaluate(k, f, depth + 1) for k in node.named_children if k.type != "comment"], node
        )
    if t in lang.names or t in lang.members:
        return f.name(node, depth)
    if t in lang.calls:
        return f.call(node, depth)
    return unknown(node)


class File:
    """One parsed file of one language: its tree, its bindings and its query's matches."""

    def __init__(self, lang: Language, data: bytes):
        self.lang, self.data = lang, data
        root = budgeted_parse(lang.grammar, data[:MAX_BYTES])
        self.root = root if root is not None else parser(lang.grammar).parse(b"").root_node
        self.matches = self._matches()
        self._captures: dict[str, list] = {}
        self._parents: dict[int, object] | None = None  # node id -> parent (File.parent)
        self._parent_cpu = 0.0  # CPU seconds Node.parent took (File.parent)
        # name -> {start byte of the name: (the name's node, its value node or None)}
        self.bindings: dict[str, dict[int, tuple]] = {}
        self.params: list[tuple[str, int, int]] = []  # (name, start, end of its function)
        self._scopes: tuple[int, dict] | None = None  # the params by name (File._parameter)
        for _, caps in self.matches:
            names = caps.get("bind.name")
            if names:
                value = (caps.get("bind.value") or [None])[0]
                for name in names:
                    slot = self.bindings.setdefault(self.key(name), {})
                    if slot.get(name.start_byte, (None, None))[1] is None:
                        slot[name.start_byte] = (name, value)
            for p in caps.get("param", ()):
                fn = self.parent(p)
                while fn is not None and fn.type not in _FUNCTIONS:
                    up = self.parent(fn)
                    if up is None:
                        break
                    fn = up
                if fn is not None:
                    self.params.append((text(p), fn.start_byte, fn.end_byte))

    def _matches(self) -> list[tuple[int, dict]]:
        import tree_sitter

        return tree_sitter.QueryCursor(query(self.lang)).matches(self.root)

    def captures(self, name: str) -> list:
        """Every node captured as ``name``, in document order, each once (found once per file and name, and
        shared: a hook may ask for them for every node it reads; not to be changed)."""
        found = self._captures.get(name)
        if found is None:
            seen, out = set(), []
            for _, caps in self.matches:
                for n in caps.get(name, ()):
                    if (n.start_byte, n.end_byte) not in seen:
                        seen.add((n.start_byte, n.end_byte))
                        out.append(n)
            found = self._captures[name] = sorted(out, key=lambda n: n.start_byte)
        return found

    def parent(self, node):
        """``node.parent``. tree-sitter finds a parent by walking down from the root (O(depth) a call: O(n^2) up
        a chain of n calls), so once those walks took about what one walk of the whole tree costs
        (``PARENT_CPU_S_PER_MB``), the parents come from one walk of the tree (the same parents, only sooner)."""
        if self._parents is None:
            if self._parent_cpu <= PARENT_CPU_S + PARENT_CPU_S_PER_MB * len(self.data) / 1_000_000:
                start = time.process_time()
                up = node.parent
                self._parent_cpu += time.process_time() - start
                return up
            self._parents = {}
            cursor, stack = self.root.walk(), []
            while True:
                here = cursor.node
                if stack:
                    self._parents[here.id] = stack[-1]
                if cursor.goto_first_child():
                    stack.append(here)
                    continue
                while not cursor.goto_next_sibling():
                    if not stack or not cursor.goto_parent():
                        break
                    stack.pop()
                else:
                    continue
                break
        return self._parents.get(node.id)

    def sites(self) -> list[tuple[object, str, list[tuple[str, object]]]]:
        """The consumers the query finds: (node, platform, [(setting, value node)]) in document order, the
        settings in the order written (a keyword argument's key is mapped by ``Language.keys``; a positional
        capture ``@<field>`` is its field)."""
        found: dict[tuple[int, int], list] = {}
        for _, caps in self.matches:
            for name, nodes in caps.items():
                if not name.startswith("consumer."):
                    continue
                site = nodes[0]
                entry = found.setdefault((site.start_byte, site.end_byte), [site, name[9:], {}, None])
                args = entry[2]
                keys, vals = caps.get("key", []), caps.get("value", [])
                for k, v in zip(keys, vals, strict=False):
                    field = self.lang.keys.get(text(k).strip("\"':"))
                    if field is not None:
                        args[(v.start_byte, field)] = (field, v)
                for cap, ns in caps.items():
                    if cap in ("key", "value", "var") or cap.startswith(("consumer.", "_", "bind.", "set.")):
                        continue
                    if cap in ("heartbeat", "param"):
                        continue
                    for v in ns:
                        args[(v.start_byte, cap)] = (cap, v)
                if caps.get("var"):
                    entry[3] = caps["var"][0]
        out = []
        for site, platform, args, var in sorted(found.values(), key=lambda e: e[0].start_byte):
            out.append((site, platform, [args[k] for k in sorted(args)], var))
        return out

    def assignments(self) -> list[tuple[str, str, object]]:
        """``owner.Key = value`` assignments the query captures: (owner, key, value node)."""
        out = []
        for _, caps in self.matches:
            if "set.owner" in caps:
                out.append((text(caps["set.owner"][0]), text(caps["set.key"][0]), caps["set.value"][0]))
        return out

    def key(self, node) -> str:
        """A name's key in the bindings: its text, ``this.x``/``self.x`` as ``x`` of the object."""
        if node.type in self.lang.members:
            obj_field, member_field = self.lang.members[node.type]
            return (
                f"{text(node.child_by_field_name(obj_field))}.{text(node.child_by_field_name(member_field))}"
            )
        return text(node)

    # ------------------------------------------------------------------------------------------- evaluation
    def string(self, node, depth: int) -> Value:
        lang = self.lang
        parts, built = [], []
        for k in node.named_children:
            if k.type in lang.interpolations:
                inner = [x for x in k.named_children if x.type != "comment"]
                v = evaluate(inner[0], self, depth + 1) if len(inner) == 1 else unknown(k)
                if v.kind not in ("str", "int"):
                    return unknown(node, f"built from {shown(k)}")
                built.append(v)
                parts.append(str(v.value))
            elif k.type in lang.string_parts:
                parts.append(text(k))
        if not lang.string_parts:
            raw = text(node)
            quote = raw[:1]
            parts = [raw[1:-1] if quote in "\"'`" and raw.endswith(quote) and len(raw) > 1 else raw]
        v = Value("str", "".join(parts), node)
        v.computed = bool(built)
        return v

    def unary(self, node, depth: int) -> Value:
        kids = [k for k in node.named_children if k.type != "comment"]
        if not kids:
            return unknown(node)
        v = evaluate(kids[-1], self, depth + 1)
        op = text(node)[:1]
        if op == "-" and v.kind == "int":
            out = Value("int", -v.value, v.node)
            out.computed = True
            return out
        return v

    def binary(self, node, depth: int) -> Value:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        op = text(node.child_by_field_name("operator")).strip()
        if left is None or right is None:
            return unknown(node)
        a, b = evaluate(left, self, depth + 1), evaluate(right, self, depth + 1)
        if a.kind == "str" and b.kind in ("str", "int") and op in ("+", "."):
            out = Value("str", f"{a.value}{b.value}", node)
        elif a.kind == "int" and b.kind == "int" and op in _ARITHMETIC:
            try:
                n = _ARITHMETIC[op](a.value, b.value)
            except (ArithmeticError, ValueError):
                return unknown(node)
            try:
                n = values.number(n)
            except values.BadValue:
                return unknown(node, f"{shown(node)} is beyond any AWS limit")
            out = Value("int", n, node)
        else:
            stop = a if a.kind not in ("str", "int") else b
            return unknown(node, stop.why or shown(node))
        out.computed = True
        return out

    def resolve(self, node, field: bool = False):
        """(the one expression a name is bound to in this file, the name's node where it is bound), or (None,
        why not): a parameter of the enclosing function, not bound here, bound to what is not read, bound to
        different values. ``field``: the name is written as a field of the object (``this.x``), which no
        parameter shadows."""
        key = self.key(node)
        if not field and node.type in self.lang.names and self._parameter(key, node.start_byte):
            return None, f"{key} is a parameter"
        bound = list(self.bindings.get(key, {}).values())
        if not bound or (len(bound) == 1 and bound[0][1] is None):
            return None, f"{key} is not a constant of this file"
        first = text(bound[0][1])
        if any(r is None or text(r) != first for _, r in bound):
            return None, f"{key} is assigned more than once"
        return bound[0][1], bound[0][0]

    def _parameter(self, key: str, at: int) -> bool:
        """``key`` is a parameter of a function around byte ``at`` (the parameters indexed by name, once)."""
        if self._scopes is None or self._scopes[0] != len(self.params):
            index: dict[str, list[tuple[int, int]]] = {}
            for name, start, end in self.params:
                index.setdefault(name, []).append((start, end))
            self._scopes = (len(self.params), index)
        return any(start <= at < end for start, end in self._scopes[1].get(key, ()))

    def name(self, node, depth: int, field: bool = False) -> Value:
        right, where = self.resolve(node, field)
        if right is None:
            return unknown(node, where)
        v = evaluate(right, self, depth + 1)
        if v.kind == "unknown":
            return unknown(node, v.why or text(node))
        if v.via is None:
            v.via = where
        return v

    def call(self, node, depth: int) -> Value:
        lang = self.lang
        name = callee(node, lang) or ""
        args = call_arguments(node, lang)
        if name in lang.env_calls:
            at, default_at = lang.env_calls[name]
            if at < len(args):
                var = evaluate(args[at], self, depth + 1)
                if var.kind == "str" and var.value:
                    default = None
                    if default_at is not None and default_at < len(args):
                        default = evaluate(args[default_at], self, depth + 1)
                    return Value("env", var.value, node, default=default)
            return unknown(node, "an environment variable whose name is computed")
        if name in lang.passthrough and len(args) == 1:
            v = evaluate(args[0], self, depth + 1)
            mark = lang.passthrough[name]
            if mark == "number" and v.kind == "str" and number(v.value) is not None:  # Integer.parseInt("30")
                n = Value("int", number(v.value), v.node)
                n.via = v.via
                return n
            if mark:
                v.mark = mark
            return v
        unit = lang.units.get(name)
        if unit is None and "." in name and name.rsplit(".", 1)[1] in lang.unit_methods:
            unit = lang.unit_methods[name.rsplit(".", 1)[1]]
            receiver = _receiver(node)
            args = [receiver] if receiver is not None else []
        if unit is not None and len(args) == 1:
            v = evaluate(args[0], self, depth + 1)
            if v.kind == "int":
                seconds = v.value * unit
                out = Value("int", int(seconds) if float(seconds).is_integer() else seconds, v.node)
                out.via, out.scale, out.computed = v.via, v.scale * unit, v.computed
                return out
            return v
        return unknown(node)


# CPU seconds of Node.parent calls before File.parent walks the tree once: about what that walk costs
PARENT_CPU_S, PARENT_CPU_S_PER_MB = 0.02, 0.25
_FUNCTIONS = {
    "function_definition", "function_declaration", "method_declaration", "method_definition", "arrow_function",
    "function_expression", "lambda", "constructor_declaration", "func_literal", "method", "singleton_method",
    "local_function_statement", "anonymous_function", "anonymous_function_creation_expression", "lambda_expression",
}  # fmt: skip
_ARITHMETIC = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "//": lambda a, b: a // b,
}


def _receiver(node):
    for field in ("receiver", "object", "operand"):
        n = node.child_by_field_name(field)
        if n is not None:
            return n
    fn = node.child_by_field_name("function")
    return fn.child_by_field_name("operand") or fn.child_by_field_name("object") if fn is not None else None


# ---------------------------------------------------------------------------------------------- places
class Place:
    """Where a consumer's setting is written, for the fixer: the byte span of the digits to replace and the unit
    they are written in (``scale`` seconds each), or ``reason`` why they are not to be edited there (``binding``:
    ``name`` is defined at ``line`` and other code may use it; ``env``: the default of the environment variable
    ``name``; ``computed``: an expression; ``written``: the literal is not plain digits (``0x1E``, ``"30s"``))."""

    __slots__ = ("start", "end", "scale", "reason", "name", "line", "shown")

    def __init__(self, start, end, scale=1.0, reason=None, name=None, line=None, shown=None):
        self.start, self.end, self.scale = start, end, scale
        self.reason, self.name, self.line, self.shown = reason, name, line, shown

    def __eq__(self, other) -> bool:
        return isinstance(other, Place) and all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    def __repr__(self) -> str:
        return "Place(" + ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__) + ")"


def digits(raw: str, quoted: bool) -> tuple[int, int] | None:
    """The (start, end) in characters of the whole number a literal's text writes as plain digits: ``30``,
    ``30L`` (the suffix stays), ``"30"`` (inside the quotes); None for other text (``0x1E``, ``1_000``, ``"30s"``)."""
    i = 0
    while i < len(raw) and not raw[i].isdigit():
        i += 1
    j = i
    while j < len(raw) and raw[j].isdigit():
        j += 1
    head, found, tail = raw[:i], raw[i:j], raw[j:]
    ok_head = all(ch in "\"'`@$" for ch in head) if quoted else head == ""
    ok_tail = all(ch in "\"'`" for ch in tail) if quoted else all(ch in "lLuU" for ch in tail)
    if not found or not ok_head or not ok_tail or (len(found) > 1 and found[0] == "0"):
        return None
    return i, j


def place(v: Value, lang: Language) -> Place:
    """The :class:`Place` of a number value ``v`` (see there)."""
    node = v.node
    if v.env is not None:
        return Place(node.start_byte, node.end_byte, v.scale, "env", v.env)
    if v.via is not None:
        return Place(node.start_byte, node.end_byte, v.scale, "binding", text(v.via), line(v.via))
    if v.computed:
        return Place(node.start_byte, node.end_byte, v.scale, "computed", shown=text(node))
    raw = text(node)
    span = digits(raw, node.type in lang.strings)
    if span is None:
        return Place(node.start_byte, node.end_byte, v.scale, "written", shown=raw)
    start = node.start_byte + len(raw[: span[0]].encode("utf-8"))
    return Place(start, start + span[1] - span[0], v.scale)


# ---------------------------------------------------------------------------------------------- the reader
class Reader:
    """One file being read: its path, its result, and helpers to locate values, set fields and note what is not
    read, in one form for every language."""

    def __init__(self, path: str, source: str, data: bytes = b"", lang: Language | None = None):
        self.path, self.source, self.data, self.lang = path, source, data, lang
        self.result = CodeResult()
        self._ids: set[str] = set()

    def loc(self, node) -> Location:
        return Location(self.path, line=line(node), column=column(self.data, node))

    def note(self, message: str, node) -> None:
        self.result.notes.append(Note(f"{message} (line {line(node)})", self.loc(node), self.path))

    def consumer(self, node, platform: str, **fields) -> Consumer:
        c = Consumer(
            id=f"{self.path}:{line(node)}",
            kind="worker",
            platform=platform,
            source=self.source,
            location=self.loc(node),
            **fields,
        )
        if c.id in self._ids:
            c.id = f"{c.id}:{column(self.data, node)}"
        self._ids.add(c.id)
        self.result.consumers.append(c)
        return c

    def set(self, c: Consumer, field: str, value, node, v: Value | None = None) -> None:
        """Set ``field`` of ``c`` (a Consumer field, else a settings key), locate it and record its place."""
        if field in Consumer.__slots__:
            setattr(c, field, value)
        else:
            c.settings[field] = value
        c.locations[field] = self.loc(node)
        self.result.spans[(c.id, field)] = (node.start_byte, node.end_byte)
        if v is not None and v.kind == "int" and self.lang is not None:
            self.result.places[(c.id, field)] = place(v, self.lang)

    def delay(self, c: Consumer, seconds, what: str, node) -> None:
        c.settings.setdefault("delays", []).append(
            {"seconds": seconds, "what": what, "location": self.loc(node)}
        )
        c.locations.setdefault("delays", self.loc(node))

    def number(self, c: Consumer, field: str, v: Value | None, what: str) -> None:
        """Set a numeric ``field`` from ``v``, else note why it is not read."""
        if v is None:
            return
        if v.kind == "int" and isinstance(v.value, (int, float)):
            self.set(c, field, v.value, v.node, v)
        elif v.kind == "env":
            self.note(f"{what} comes from the environment variable {v.value}: not read", v.node)
        else:
            self.note(f"{what} is computed ({v.why or shown(v.node)}): not read", v.node)

    def queue(self, c: Consumer, v: Value | None, what: str) -> None:
        """Set ``c.queue_ref`` from ``v`` (a literal or an environment variable), else note why not."""
        if v is None:
            return
        if v.kind == "str":
            ref = queue_ref(v.value, self.loc(v.node))
        elif v.kind == "env":
            ref = QueueRef("env", v.value, self.loc(v.node))
            if v.default is not None and v.default.kind == "str" and v.default.value:
                ref.fallback = queue_ref(v.default.value, self.loc(v.default.node))
        elif v.kind == "name":
            ref = queue_ref(v.value, self.loc(v.node), "name")
        else:
            self.note(f"{what}: the queue is computed ({v.why or shown(v.node)}), not joined", v.node)
            return
        if ref is not None:
            c.queue_ref = ref
            c.link = {"env": "env", "name": "name"}.get(ref.kind, "literal")
            c.link_ref = ref.value
            c.locations["queue_ref"] = ref.location
