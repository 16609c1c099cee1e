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
    @param.scope             that function, when the query can say it (else it is the nearest function node up)
    @flow.call @flow.callee  a call and its callee's last name, for the value flow (compiled on first use)

A capture whose name starts with ``_`` is the query's own (a predicate's operand). What a query cannot say stays
hand-written in the language's module (JavaScript's scopes, Celery's configuration merge, recovery from truncated
code), on the same ``Value`` and ``Reader``.

Numbers follow ``visguard.linter.loaders.values``: any literal up to ``values.MAX_NUMBER`` is data for the rules
(a receive's VisibilityTimeout of 50,000 is the range rule's to judge); beyond it, or NaN, it is not read and
noted. A value is read from a literal, a name bound once in the file (or to the same text every time), an
environment variable (with the literal default the code writes), a pass-through call (``aws.String(x)``,
``int(x)``), a unit (``Duration.ofMinutes(2)``, ``2.minutes``), arithmetic of numbers, and strings built from
known parts (f-strings, ``%``, ``.format``, ``fmt.Sprintf``, ``String.format``: :func:`printf`, :func:`braces`).
Anything else is ``unknown``, with ``why``: the expression that stopped it.

The value flow (issue 35, :class:`Flow`): a parameter is what the calls of its function pass, in this file and
the other files of its project the run offered (or its default; several values: unknown, naming them); a field
or a name not bound here is the package's (Go: its folder for names, its module for fields; Rust likewise: its
module folder for names, its crate for fields; Python: the file's imports; JavaScript: its relative modules'
exports); a parameter's part (JavaScript's ``opts.queueUrl``) is each
call's part (:meth:`File.argument`'s ``pick``); a call read for its value binds its own arguments (:meth:`Flow.called`); a
name assigned several times is the one value its assignments that can reach the use give (:meth:`File._agreed`,
:meth:`File._before`; ``none``, "not given", aside); a language's hook adds its own steps (Python's settings
classes, "the parameter, else the queue named X", threads; JavaScript's merged options). Its memory is bounded per
file read: at most ``MAX_FLOW_FILES`` other parsed files (their trees, their call index), ``MAX_FLOW_BYTES`` of
their bytes, one cached value per parameter and function (``File._argued``), and ``MAX_FLOW_STEPS`` call sites
and look-ups in all (then unknown); values follow at most ``MAX_DEPTH`` names, calls and nestings, so a loop of
constants across files ends in a note. A consumer's ``visguard:`` annotation comment (:func:`annotation`) states
what its code does not say (:meth:`Reader.annotated`).
"""

from __future__ import annotations

import bisect
import contextlib
import itertools
import math
import os
import re
import time

from visguard.linter.consumers import QueueRef
from visguard.linter.loaders import values
from visguard.linter.model import Consumer, Location, Note

from . import CodeResult, column, parser
from . import parse as budgeted_parse

MAX_BYTES = 2_000_000  # a larger file is read up to this size (generated or vendored code)
MAX_DEPTH = 16  # names, parameters and calls followed and expressions nested before a value is "computed"
MAX_ERROR_PARTS = 5_000  # an error node of more children is queried child by child (File._matches)
_QUERIES: dict[tuple[str, str], object] = {}  # (query file, grammar) -> compiled
# the ``why`` of a literal not read (beyond values.MAX_NUMBER, NaN, infinite), after the literal's text
NOT_A_NUMBER = "is not a number visguard reads"


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
        "env_calls", "passthrough", "units", "unit_methods", "hook", "name_key", "signature", "call_args",
        "package", "annotation", "imported", "unpassed", "super_calls", "unset_field",
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
        # node -> the key a name is bound and looked up by, or None for the default (its text; ``this.x``):
        # PHP's ``$x``, ``$this->x`` and ``self::X`` are one name ``x``
        self.name_key = kw.pop("name_key", None)
        # the value flow (:class:`Flow`): fn node, File -> Signature | None (how the function's calls name it and
        # pass its parameters); call node, File -> (positional argument nodes, {keyword: node}, splat: bool)
        self.signature = kw.pop("signature", None)
        self.call_args = kw.pop("call_args", None)
        # where a name not bound in the file may be bound: "folder" (Go: a package is one folder, its files share
        # their names and fields), None (the file alone)
        self.package = kw.pop("package", None)
        self.annotation = kw.pop("annotation", "#")  # the line-comment mark of a visguard: annotation
        # (File, key) -> (the File of the module the name is imported from, its key there) | None: Python's
        # ``from .settings import QUEUE_URL`` / ``import settings`` + ``settings.QUEUE_URL``
        self.imported = kw.pop("imported", None)
        # (File, field key, node) -> Value | None: a field no code of the project sets, as its declaration says
        # it is filled (Go's struct tag ``env:"VT" envDefault:"30"``: the variable, its default)
        self.unset_field = kw.pop("unset_field", None)
        # a parameter a call does not pass is nothing (JavaScript's undefined), not an error of the call (Python's)
        self.unpassed = kw.pop("unpassed", False)
        # class inheritance (:meth:`Flow.call_sites`): a constructor fn, File -> [(File, the call of the base's
        # constructor in a subclass's: ``super(...)``, ``super().__init__(...)``, or None for a subclass without a
        # constructor of its own, that subclass's constructor node or None, the subclass's name)]
        self.super_calls = kw.pop("super_calls", None)
        if kw:
            raise TypeError(f"unknown Language fields: {sorted(kw)}")


def query(lang: Language, part: str = "sites"):
    """A compiled query of ``lang`` (``languages/<query>.scm``, shipped as package data, compiled once per
    grammar: one query file may serve several, TypeScript and TSX), on first use: the file's name patterns
    (``part="names"``: those capturing ``@bind.*`` or ``@param``, compiled and run only when a name is first
    resolved) or all its other patterns (``"sites"``). Compiling is what costs (a tenth of a second and more for
    the larger grammars), so each part is compiled from its own patterns only."""
    key = (lang.query, lang.grammar, part)
    q = _QUERIES.get(key)
    if q is None:
        import tree_sitter

        path = os.path.join(os.path.dirname(__file__), "languages", f"{lang.query}.scm")
        with open(path, encoding="utf-8") as f:
            parts = split_patterns(f.read())
        source = "\n".join(p for p in parts if _PARTS.get(_role(p.encode())[0], "sites") == part)
        q = _QUERIES[key] = tree_sitter.Query(parser(lang.grammar).language, source)
        raw = source.encode("utf-8")
        _QUERY_ROLES[id(q)] = [
            _role(raw[q.start_byte_for_pattern(i) : q.end_byte_for_pattern(i)])
            for i in range(q.pattern_count)
        ]
    return q


def split_patterns(source: str) -> list[str]:
    """The top-level patterns of a query file's text, each with its quantifier and its captures (comments and
    strings skipped: a ``(`` in either is not a pattern's)."""
    out, depth, start, i, n = [], 0, None, 0, len(source)
    while i < n:
        ch = source[i]
        if ch == ";":  # a comment to the end of the line
            j = source.find("\n", i)
            i = n if j < 0 else j
            continue
        if ch == '"':  # a string, with its escapes
            i += 1
            while i < n and source[i] != '"':
                i += 2 if source[i] == "\\" else 1
        elif ch in "([":
            if depth == 0:
                start = i
            depth += 1
        elif ch in ")]":
            depth -= 1
            if depth == 0 and start is not None:
                end = _pattern_tail(source, i + 1)
                out.append(source[start:end])
                start, i = None, end
                continue
        i += 1
    return out


def _pattern_tail(source: str, end: int) -> int:
    """The end of a top-level pattern whose last bracket ends before ``end``: its quantifier and the captures
    written after it (``(call) @consumer.sdk``, ``(pair)* @args``)."""
    n = len(source)
    while True:
        while end < n and source[end] in "*+?":
            end += 1
        j = end
        while j < n and source[j] in " \t\r\n":
            j += 1
        if j < n and source[j] == "@":
            k = j + 1
            while k < n and (source[k].isalnum() or source[k] in "_.-"):
                k += 1
            end = k
            continue
        return end


# ---------------------------------------------------------------------------------------------- values
class Value:
    """What an expression evaluates to, as far as a static reader can tell.

    ``kind``: int | str | env | bool | list | name | unknown | bad (a number literal beyond what any AWS API
    takes: ``why`` says how far); a hook may add its own: JavaScript's ``obj``, an object literal's properties,
    and ``none``, null or undefined; ``value``; ``node``: the node that writes it (the literal, followed through
    names); ``why`` (unknown): the expression that stopped the reading; ``default``
    (env): the Value of the literal default the code writes; ``via``: the name node it was reached through, when
    not written in place; ``scale``: seconds per unit the literal is written in (``Duration.ofMinutes(2)``: 60);
    ``mark``: a pass-through call's mark (``pointer``); ``env``: for a number that is an environment variable's
    default (or arithmetic of one), the variable; for an unknown value, the environment variable it depends on
    (``int(os.environ["X"]) * 60``: no literal default); ``computed``: the value is arithmetic of literals (no
    one literal to edit); ``file``: the :class:`File` ``node`` is in, when the value flowed from another file
    (a call site, a sibling of the package), else None; ``pattern`` (unknown): the string built of known parts
    and environment variables, each written ``${NAME}`` (:func:`compose`), to match against the run's queues."""

    __slots__ = (
        "kind", "value", "node", "why", "default", "via", "scale", "mark", "env", "computed", "file", "pattern",
    )  # fmt: skip

    def __init__(self, kind: str, value, node, why: str = "", default: Value | None = None):
        self.kind, self.value, self.node, self.why, self.default = kind, value, node, why, default
        self.via = self.mark = self.env = self.file = self.pattern = None
        self.scale = 1.0
        self.computed = False

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Value({self.kind}, {self.value!r})"


_NOTHING = frozenset({"None", "null", "nil", "undefined", "NULL"})  # "not set yet", in the languages read


def unknown(node, why: str = "") -> Value:
    return Value("unknown", None, node, why or shown(node))


def text(node) -> str:
    raw = node.text if node is not None else None  # each .text is a copy of the bytes: read it once
    return raw.decode("utf-8", "replace") if raw is not None else ""


def shown(node, width: int = 60) -> str:
    return text(node)[:width]


def line(node) -> int:
    return node.start_point[0] + 1


def number(raw: str) -> int | float | None:
    """The number a literal's text writes (``30``, ``30L``, ``1_000``, ``0x1E``, ``30.0``, ``3e2``), None for other
    text and for a number no rule could use (:func:`beyond`)."""
    if raw.isdigit() and raw.isascii() and len(raw) <= 15:  # the common case: 30 (below values.MAX_NUMBER)
        return int(raw)
    n = _literal(raw)
    return None if n is None or beyond(n) else n


def beyond(n) -> str | None:
    """Why the number ``n`` is beyond what visguard reads as data (``values.number``: beyond +-10**15, NaN,
    infinite), in the words of the input's other readers; None for a number to read."""
    if type(n) is int and -values.MAX_NUMBER <= n <= values.MAX_NUMBER:
        return None  # the common case, without an exception's cost
    if isinstance(n, float) and not math.isfinite(n):
        return "not a finite number"
    try:
        values.number(n)
    except values.BadValue as exc:
        return exc.got
    return None


def _literal(raw: str) -> int | float | None:
    s = raw.strip().rstrip("lLuUfFdDmMjJ").replace("_", "")
    if not s or len(s) > values.MAX_TEXT:
        return None
    try:
        return (
            int(s, 0) if not s.startswith("0") or s == "0" or s[:2].lower() in ("0x", "0o", "0b") else int(s)
        )
    except ValueError:
        try:
            return float(s)
        except ValueError:
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
        n = _literal(text(node))
        if n is None:
            return unknown(node, f"{shown(node)} {NOT_A_NUMBER}")
        why = beyond(n)
        return Value("int", n, node) if why is None else Value("bad", None, node, why)
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
    small = node.end_byte - node.start_byte < 4096
    if small and (t in lang.members or t in lang.calls or t in _MEMBER_READS):
        got = response_url(node, f, depth)
        if got is not None:
            return got
    if t in lang.names or t in lang.members:
        return f.name(node, depth)
    if t in lang.calls:
        return f.call(node, depth)
    return unknown(node)


# ------------------------------------------------------------------------- the URL a CreateQueue call returns
# (issue 35) ``queue, err := c.CreateQueue(&sqs.CreateQueueInput{QueueName: aws.String(n)})`` ... ``queue.QueueUrl``,
# ``sqs.createQueue(r -> r.queueName(n)).queueUrl()``, ``(await client.CreateQueueAsync(req)).QueueUrl``: the URL
# field of a CreateQueue (or GetQueueUrl) result is the queue the call names (a ``name`` Value, or the environment
# variable the name is), so a consumer of it joins that queue by name. The result is followed through names bound
# once (MAX_RESPONSE_FOLLOW); the request is read as :mod:`creates` reads a create call's. A name known only at
# run time gives None here (the consumer then reads the unnamed queue through the very call: creates._target).
# Python and JavaScript read the same in their hooks (python._response, javascript._lookup).
RESPONSE_CALLS = {
    "createqueue", "createqueuewithcontext", "createqueueasync", "getqueueurl", "getqueueurlwithcontext",
    "getqueueurlasync",
}  # fmt: skip
MAX_RESPONSE_FOLLOW = 4  # names followed from a result's use back to the call that returned it
_OBJECT_FIELDS = ("operand", "object", "expression", "value", "receiver")
_MEMBER_READS = {"member_access_expression", "field_access"}  # C#, Java: a field read no Language lists
_FIELD_FIELDS = ("field", "property", "name", "method")


def _word(raw: str) -> str:
    """The last word of a callee or field, lower case, without ``_`` (``QueueUrl``, ``queue_url`` are one)."""
    words = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", raw)
    return words[-1].replace("_", "").lower() if words else ""


def url_object(node, f: File):
    """The result whose URL field ``node`` reads (``out`` of ``out.QueueUrl``, ``out.queueUrl()``,
    ``out.getQueueUrl()``), or None when ``node`` is no such read."""
    member, called = node, False
    if node.type in f.lang.calls:
        if call_arguments(node, f.lang):
            return None
        fn = node.child_by_field_name("function")
        member, called = (fn if fn is not None else node), True
    obj = next((n for n in map(member.child_by_field_name, _OBJECT_FIELDS) if n is not None), None)
    field = next((n for n in map(member.child_by_field_name, _FIELD_FIELDS) if n is not None), None)
    if obj is None or field is None or obj.start_byte >= field.start_byte:
        return None
    word = _word(text(field))
    return obj if word == "queueurl" or (called and word == "getqueueurl") else None


def response_call(node, f: File):
    """The CreateQueue / GetQueueUrl call whose result ``node`` is (through wrappers, ``await`` and names bound
    once), or None."""
    for _ in range(MAX_RESPONSE_FOLLOW + 1):
        for _ in range(8):
            if node is None or not (
                node.type in f.lang.wrappers or node.type in ("await_expression", "parenthesized_expression")
            ):
                break
            kids = [k for k in node.named_children if k.type != "comment"]
            node = kids[-1] if kids else None
        if node is None:
            return None
        if node.type in f.lang.calls:
            name = callee(node, f.lang) or ""
            return node if _word(name) in RESPONSE_CALLS else None
        if node.type not in f.lang.names:
            return None
        node = f.resolve(node)[0]
    return None


def response_url(node, f: File, depth: int) -> Value | None:
    """The queue the URL read at ``node`` is, when it is the URL field of a CreateQueue / GetQueueUrl result whose
    queue name is known (a literal, a constant, an environment variable); else None."""
    obj = url_object(node, f)
    call = response_call(obj, f) if obj is not None else None
    if call is None:
        return None
    from . import creates

    token = call.child_by_field_name("function") or call.child_by_field_name("name")
    for _ in range(8):
        kids = token.named_children if token is not None else []
        if not kids:
            break
        token = kids[-1]
    entry = creates._call_site(f, token) if token is not None else None
    fields, _ = creates._request(f, entry) if entry is not None else (None, None)
    # Java: createQueue(CreateQueueRequest.builder().queueName(n).build())
    if entry is None and f.lang.name == "java":
        start = next(iter(call_arguments(call, f.lang)), None)
        for _ in range(64):
            inner = start.child_by_field_name("object") if start is not None else None
            if start is None or start.type != "method_invocation" or inner is None:
                break
            if inner.type != "method_invocation":
                break
            start = inner
        if start is not None and _word(text(start.child_by_field_name("object"))) in (
            "createqueuerequest",
            "getqueueurlrequest",
        ):
            fields = creates._chain(f, start, upward=True)[0]
    name = fields.get("name") if fields else None
    if name is None:
        return None
    v = evaluate(name, f, depth + 1)
    if v.kind == "env":
        return v
    if v.kind != "str" or not v.value.strip():
        return None
    out = Value("name", v.value.strip(), v.node)
    out.via, out.file = v.via or name, v.file
    return out


class File:
    """One parsed file of one language: its tree, its bindings and its query's matches."""

    def __init__(self, lang: Language, data: bytes, root=None, path: str | None = None, flow: bool = True):
        """``root``: the tree when the reader parsed ``data`` itself (to note a parse that ran out of time);
        ``path``: the file's path, for the value flow to find the files of its package (:data:`FLOW`);
        ``flow``: False for a file the flow itself opened (it does not start the flow's budget again)."""
        self.lang, self.data, self.path = lang, data, path
        if flow:
            FLOW.begin(self)
        self._calls: dict[str, list] | None = None  # callee's last name -> its call nodes (File.calls)
        self._param_nodes: dict[str, list[tuple]] = {}  # a parameter's key -> [(its function, its node)]
        self._param_starts: dict[str, list[int]] = {}  # a key -> its functions' starts, sorted (param_of)
        self._binding_starts: dict[str, list[int]] = {}  # a key -> where it is bound, sorted (_reaching)
        # (key, function start, part, pinned site) -> (what the calls pass, the functions of several call sites it
        # went through: Flow.shared) (File.argument)
        self._argued: dict[tuple, tuple] = {}
        if root is None:
            root = budgeted_parse(lang.grammar, data[:MAX_BYTES])
        self.root = root if root is not None else parser(lang.grammar).parse(b"").root_node
        self.gave_up = root is None  # the parse ran out of its CPU budget: nothing is read
        # the query's matches by role: consumer sites, later assignments, the rest; the names (bindings and
        # parameters) are read when a name is first resolved (:attr:`bindings`)
        self.matches: list[tuple[int, dict]] = []
        self.site_matches: list[tuple[tuple, dict]] = []
        self.set_matches: list[dict] = []
        self._bindings: dict[str, dict[int, tuple]] | None = None
        self._params: list[tuple[str, int, int]] = []
        self._scopes: dict[str, list[tuple[int, int]]] | None = None
        self._captures: dict[str, list] | None = None
        self._bound: dict[str, tuple] = {}  # name -> what resolve() found for it (File.resolve)
        self._parents: dict[int, object] | None = None  # node id -> parent (File.parent)
        self._parent_cpu = 0.0  # CPU seconds Node.parent took (File.parent)
        q = query(lang)
        roles = _QUERY_ROLES[id(q)]
        for index, caps in self._matches(q):
            role = roles[index]
            if role[0] == "site":
                self.site_matches.append((role, caps))
            elif role[0] == "set":
                self.set_matches.append(caps)
            else:
                self.matches.append((index, caps))

    @property
    def bindings(self) -> dict[str, dict[int, tuple]]:
        """name -> {start byte of the name: (the name's node, its value node or None)}: every name the query's
        ``@bind.name`` patterns capture."""
        if self._bindings is None:
            self._names()
        return self._bindings

    @property
    def params(self) -> list[tuple[str, int, int]]:
        """(name, start, end of its function) of every ``@param``."""
        if self._bindings is None:
            self._names()
        return self._params

    def _names(self) -> None:
        self._bindings = {}
        for _, caps in self._matches(query(self.lang, "names")):
            if "bind.name" in caps:
                value = (caps.get("bind.value") or [None])[0]
                for name in caps["bind.name"]:
                    slot = self._bindings.setdefault(self.key(name), {})
                    if slot.get(name.start_byte, (None, None))[1] is None:
                        slot[name.start_byte] = (name, value)
            scope = caps.get("param.scope")
            for p in caps.get("param", ()):
                if scope:  # the query says the function (no walk up the tree: a parent costs a walk down)
                    fn = scope[0]
                else:
                    fn = self.parent(p)
                    while fn is not None and fn.type not in _FUNCTIONS:
                        up = self.parent(fn)
                        if up is None:
                            break
                        fn = up
                if fn is not None:
                    key = self.key(p)
                    self._params.append((key, fn.start_byte, fn.end_byte))
                    self._param_nodes.setdefault(key, []).append((fn, p))

    def is_param(self, key: str, at: int) -> bool:
        """Whether byte ``at`` is inside a function with a parameter ``key``: a look-up in the outermost such
        functions of each name (disjoint, sorted), not a scan of every parameter of the file."""
        if self._scopes is None:
            spans: dict[str, list[tuple[int, int]]] = {}
            for name, start, end in sorted(self.params, key=lambda p: (p[1], -p[2])):
                own = spans.setdefault(name, [])
                if not own or start >= own[-1][1]:
                    own.append((start, end))
            self._scopes = spans
        own = self._scopes.get(key)
        if not own:
            return False
        i = bisect.bisect_right(own, (at, float("inf"))) - 1
        return i >= 0 and own[i][0] <= at < own[i][1]

    def _matches(self, q) -> list[tuple[int, dict]]:
        """The query's matches. tree-sitter's query cursor takes time quadratic in the parts of one error node
        (200,000 unclosed ``(`` of hostile text: minutes), so an error node of more than ``MAX_ERROR_PARTS``
        parts is queried part by part, and the rest of the file around it (a pattern of the error node itself
        does not match it)."""
        import tree_sitter

        wide = _wide_errors(self.root)
        if not wide:
            return tree_sitter.QueryCursor(q).matches(self.root)
        out, at = [], 0
        for e in [*wide, None]:
            end = e.start_byte if e is not None else self.root.end_byte + 1
            if at < end:
                cursor = tree_sitter.QueryCursor(q)
                cursor.set_byte_range(at, end)
                out += cursor.matches(self.root)
            if e is not None:
                for part in e.children:
                    if part.child_count:
                        out += tree_sitter.QueryCursor(q).matches(part)
                at = e.end_byte
        return out

    def captures(self, name: str) -> list:
        """Every node captured as ``name`` by a pattern that is not a site, binding, assignment or parameter
        (``@heartbeat``, a language's own captures), in document order, each once."""
        if self._captures is None:  # every capture indexed in one pass over the matches, on first use
            found: dict[str, dict] = {}
            for _, caps in self.matches:
                for cap, nodes in caps.items():
                    spans = found.setdefault(cap, {})
                    for n in nodes:
                        spans.setdefault((n.start_byte, n.end_byte), n)
            self._captures = {cap: [spans[k] for k in sorted(spans)] for cap, spans in found.items()}
        return list(self._captures.get(name, ()))

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

    def sites(self) -> list[tuple[object, str, list[tuple[str, object]], object]]:
        """The consumers the query finds: (node, platform, [(setting, value node)], the variable it is stored
        in or None) in document order, the settings in the order written (a keyword argument's key is mapped by
        ``Language.keys``; a positional capture ``@<field>`` is its field)."""
        found: dict[tuple[int, int], list] = {}
        keys_of = self.lang.keys
        for (_, consumer, positional), caps in self.site_matches:
            site = caps[consumer][0]
            entry = found.get((site.start_byte, site.end_byte))
            if entry is None:
                entry = found[(site.start_byte, site.end_byte)] = [site, consumer[9:], {}, None]
            args = entry[2]
            if "key" in caps:
                for k, v in zip(caps["key"], caps.get("value", ()), strict=False):
                    field = keys_of.get(text(k).strip("\"':"))
                    if field is not None:
                        args[(v.start_byte, field)] = (field, v)
            for cap in positional:
                for v in caps.get(cap, ()):
                    args[(v.start_byte, cap)] = (cap, v)
            if "var" in caps:
                entry[3] = caps["var"][0]
        out = []
        for site, platform, args, var in sorted(found.values(), key=lambda e: e[0].start_byte):
            out.append((site, platform, [args[k] for k in sorted(args)], var))
        return out

    def assignments(self) -> list[tuple[str, str, object]]:
        """``owner.Key = value`` assignments the query captures: (owner, key, value node)."""
        return [(text(c["set.owner"][0]), text(c["set.key"][0]), c["set.value"][0]) for c in self.set_matches]

    def key(self, node) -> str:
        """A name's key in the bindings: ``Language.name_key``'s, else its text, ``this.x``/``self.x`` as ``x`` of
        the object."""
        if self.lang.name_key is not None:
            k = self.lang.name_key(node)
            if k is not None:
                return k
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
            out.computed, out.env = True, v.env
            return out
        return v

    def binary(self, node, depth: int) -> Value:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        op = text(node.child_by_field_name("operator")).strip()
        if left is None or right is None:
            return unknown(node)
        a, b = evaluate(left, self, depth + 1), evaluate(right, self, depth + 1)
        env = env_of(a) or env_of(b)
        stringy = ("str", "env", "unknown")
        if (
            op in ("+", ".")
            and (a.kind == "env" or a.pattern is not None or b.kind == "env" or b.pattern is not None)
            and a.kind in stringy
            and b.kind in (*stringy, "int")
            and "str" in (a.kind, b.kind)
        ):  # "orders-" + os.environ["STAGE"]: a pattern of the queue
            return compose(node, [a, b], lambda ps: "".join(str(x.value) for x in ps), shown(node))
        if a.kind == "str" and b.kind in ("str", "int") and op in ("+", "."):
            out = Value("str", f"{a.value}{b.value}", node)
        elif a.kind == "int" and b.kind == "int" and op in _ARITHMETIC:
            try:
                n = _ARITHMETIC[op](a.value, b.value)
            except (ArithmeticError, ValueError):
                return unknown(node)
            why = beyond(n)
            if why is not None:
                return Value("bad", None, node, why)
            out = Value("int", int(n) if isinstance(n, float) and n.is_integer() else n, node)
            out.env = env
        else:
            stop = a if a.kind not in ("str", "int") else b
            out = unknown(node, stop.why or shown(node))
            out.env = env
            return out
        out.computed = True
        return out

    def resolve(self, node, field: bool = False):
        """(the one expression a name is bound to in this file, the name's node where it is bound), or (None,
        why not): a parameter of the enclosing function, not bound here, bound to what is not read, bound to
        different values. ``field``: the name is written as a field of the object (``this.x``), which no
        parameter shadows."""
        key = self.key(node)
        if not field and node.type in self.lang.names and self.is_param(key, node.start_byte):
            return None, f"{text(node)} is a parameter"
        found = self._found(key)
        if found[1] == "is assigned more than once":
            found = self._reaching(key, node) or found
        if found[0] is None:
            return None, f"{text(node)} {found[1]}"
        return found

    def _reaching(self, key: str, node):
        """The one assignment of ``key`` that reaches ``node`` when the name is assigned more than once in one
        function (``url, err = lookup(a)`` ... ``url, err = lookup(b)`` ... ``q.url = url``): the last before
        ``node`` in its function, in a block around ``node``, with none after ``node`` in the function (a loop
        could bring it back); None when that is not so."""
        fn = _around(self, node, _FUNCTIONS)
        if fn is None:
            return None
        bound = self.bindings.get(key, {})
        starts = self._binding_starts.get(key)
        if starts is None:  # sorted once: a name assigned in each of 3,000 functions is read 3,000 times
            starts = self._binding_starts[key] = sorted(bound)
        lo, hi = bisect.bisect_left(starts, fn.start_byte), bisect.bisect_left(starts, fn.end_byte)
        # Python: a name a function assigns is that function's own (unless it says `global`/`nonlocal`), so
        # another function's assignments of the name are another variable's
        local = (
            self.lang.name == "python" and node.type in self.lang.names and not _declared_outer(self, fn, key)
        )
        if hi - lo < len(starts) and not local:
            return None  # assigned outside this function too
        inside = [(at, *bound[at]) for at in starts[lo:hi]]
        before = [b for b in inside if b[0] < node.start_byte]
        if not before or any(b[0] > node.end_byte for b in inside):
            return None
        at, name, right = max(before, key=lambda b: b[0])
        block = _around(self, name, _BLOCKS)
        if right is None or block is None or not (block.start_byte <= node.start_byte < block.end_byte):
            return None
        return right, name

    def _found(self, key: str) -> tuple:
        found = self._bound.get(key)
        if found is None:  # once per name: a name bound in each of 3,000 functions is read 3,000 times
            bound = list(self.bindings.get(key, {}).values())
            if not bound or (len(bound) == 1 and bound[0][1] is None):
                found = self._bound[key] = (None, "is not a constant of this file")
            elif len(bound) > 1 and any(r is None or text(r) != text(bound[0][1]) for _, r in bound[1:]):
                found = self._bound[key] = (None, "is assigned more than once")
            else:
                found = self._bound[key] = (bound[0][1], bound[0][0])
        return found

    def name(self, node, depth: int, field: bool = False) -> Value:
        if FLOW.supers and FLOW.frames:
            sub = _set_by_subclass(self, node)
            if sub is not None:  # the object being read is a subclass's, which writes this field itself
                return unknown(node, f"{text(node)} is set by its subclass {sub} too")
        right, where = self.resolve(node, field)
        if right is None and where.endswith(" is assigned more than once"):
            agreed = self._agreed(node, depth)
            if agreed is not None:
                return agreed
        owner = self
        if right is None and where.endswith(" is a parameter"):
            return self.argument(node, self.key(node), depth)
        key = self.key(node)
        alone = right is None and where.endswith(" is not a constant of this file")
        if self.lang.package == "folder" and (alone or (right is not None and key.startswith("."))):
            # a field (".url") is the package's: every file of it may set it; a name not bound here may be
            # another file's of the package
            found = FLOW.package_binding(self, key, (right, where) if right is not None else None)
            if found is not None:
                if found[0] is None:
                    return unknown(node, f"{text(node)} {found[1]}")
                right, where, owner = found
            elif right is None and node.type in self.lang.members and node.type not in self.lang.names:
                filled = self.lang.unset_field(self, key, node) if self.lang.unset_field is not None else None
                return filled if filled is not None else unknown(node)  # a field no file of the package sets
        if right is None and alone and self.lang.imported is not None and FLOW.spend():
            got = self.lang.imported(self, key)
            if got is not None:
                g, k = got
                found = g._found(k)
                if found[0] is None:
                    return unknown(
                        node, f"{text(node)} {found[1].replace('this file', g.path or 'its module')}"
                    )
                right, where, owner = found[0], found[1], g
        if right is None:
            return unknown(node, where)
        v = evaluate(right, owner, depth + 1)
        if v.kind == "unknown":
            out = unknown(node, v.why or text(node))
            out.env = v.env
            return out
        if v.via is None:
            v.via = where
        if owner is not self and v.file is None:
            v.file = owner
        return v

    def _agreed(self, node, depth: int) -> Value | None:
        """The value of a name assigned more than once in this file when every assignment gives the same literal
        value, an assignment of nothing (``None``, ``null``, ``nil``: "not yet") aside: ``self.url =
        kwargs.get("url")`` then ``self.url = sqs.create_queue(QueueName=n)["QueueUrl"]`` or ``self.url =
        sqs.get_queue_url(QueueName=n)["QueueUrl"]`` is the queue ``n``. Unknown naming them when two differ; None
        when one is not read or there are more than :data:`MAX_AGREE` (the name stays "assigned more than once")."""
        bound = list(self.bindings.get(self.key(node), {}).values())
        if len(bound) > MAX_AGREE or depth >= MAX_DEPTH or any(r is None for _, r in bound):
            return None
        bound = self._before(node, bound)
        seen, distinct, envs = None, {}, []
        for name, right in bound:
            v = evaluate(right, self, depth + 1)
            if v.kind == "none" or (v.kind == "unknown" and text(v.node) in _NOTHING):
                continue
            if v.kind == "env" and v.default is None:
                envs.append((v, name))
                continue
            if v.kind not in ("str", "int", "bool", "name", "queue"):
                return None
            distinct.setdefault(_same(v), (v, name))
            seen = seen or v
        if envs:
            return self._env_override(envs, distinct)
        if seen is None:
            return None
        if len(distinct) > 1:  # two queues (or numbers): named, never one of them picked
            shown_ = ", ".join(
                f"{_shown_value(v.value if v.kind == 'queue' else v)} (line {line(n)})"
                for v, n in list(distinct.values())[:MAX_CANDIDATES]
            )
            more = f" and {len(distinct) - MAX_CANDIDATES} more" if len(distinct) > MAX_CANDIDATES else ""
            return unknown(
                node, f"{text(node)} is assigned more than once, to different values: {shown_}{more}"
            )
        out = Value(seen.kind, seen.value, seen.node, seen.why, seen.default)
        for slot in ("scale", "mark", "env", "computed", "file"):
            setattr(out, slot, getattr(seen, slot))
        out.via = seen.via or node
        out.computed = True  # several places write it: no one of them is the value to edit
        return out

    def _env_override(self, envs: list, distinct: dict) -> Value | None:
        """A default the environment overrides when it is set: ``vt := int64(30)`` then, under an ``if`` (``if s :=
        os.Getenv("VT"); s != "" { ... vt = parsed }``, ``if os.getenv("VT"): vt = int(os.environ["VT"])``), an
        assignment of that one variable: the variable, with the literal as its default (as ``os.getenv("VT",
        "30")``). None for any other mix (the name stays "assigned more than once")."""
        if len(distinct) != 1 or len({v.value for v, _ in envs}) != 1:
            return None
        (literal, at), env = next(iter(distinct.values())), envs[0][0]
        if literal.kind not in ("str", "int"):
            return None
        for _, name in envs:
            guard = _around(self, name, _IFS, limit=12)
            if (
                guard is None
                or guard.start_byte <= at.start_byte < guard.end_byte
                or name.start_byte < at.start_byte
            ):
                return None  # unconditional, or the default is written under the same guard or after it
        if literal.kind == "int":  # a number: the default, of the variable (as python's os.getenv("VT", 30))
            out = Value("int", literal.value, literal.node)
            out.env, out.via, out.scale = env.value, literal.via, literal.scale
            return out
        out = Value("env", env.value, env.node, default=literal)
        out.via, out.computed = env.via, True
        return out

    def _before(self, node, bound: list) -> list:
        """The assignments of a local name (every one in the function around ``node``) that can reach ``node``:
        those before it, when no loop around it in the function could bring a later one back; else all."""
        if node.type in self.lang.members or not bound:
            return bound
        fn = _around(self, node, _FUNCTIONS)
        if fn is None:
            return bound
        inside = [b for b in bound if fn.start_byte <= b[0].start_byte < fn.end_byte]
        if not inside:
            return bound
        bound = inside  # a name this function assigns is its own: other functions' of that name are theirs
        up = self.parent(node)
        for _ in range(64):
            if up is None or up.id == fn.id:
                break
            if up.type in _LOOPS:
                return bound
            up = self.parent(up)
        else:
            return bound
        return [b for b in bound if b[0].start_byte < node.start_byte]

    def argument(self, node, key: str, depth: int, pick=None, part: str | None = None) -> Value:
        """The value of the parameter ``key`` read at ``node``: what the calls of its function pass it (in this
        file and the files of its package, :class:`Flow`), else its default; one value when every call passes
        the same, else unknown naming the candidates (never one of them picked). ``pick`` (Value, depth) ->
        Value: the part of each call's value that is read (JavaScript's ``opts.queueUrl``: the property of each
        options object), named ``part``; calls then agree when their parts do."""
        found = self.param_of(key, node.start_byte)
        sig = self.lang.signature(found[0], self) if found is not None and self.lang.signature else None
        if sig is None:
            return unknown(node, f"{text(node)} is a parameter")
        fn, p = found
        for frame in reversed(FLOW.frames):  # inside a call being read: what it passes
            frame_file, frame_fn, args = frame[:3]
            if frame_file is not self or frame_fn != fn.start_byte:
                continue
            if key in args:
                arg, caller = args[key]
                v = evaluate(arg, caller, depth + 1)
                if len(frame) > 3 and v.file is None and caller is not self:
                    v.file = caller  # a pinned call site's value: written there
                return pick(v, depth + 1) if pick is not None and v.kind != "unknown" else v
            if (
                len(frame) > 3
            ):  # one call site of the function (Flow.pinned): what it does not pass, the default
                v = FLOW.unpassed(self, frame[3], key, node, depth)
                if v is not None:
                    return pick(v, depth + 1) if pick is not None and v.kind != "unknown" else v
        cached = (key, fn.start_byte, part, FLOW.pin)  # one call site pinned: its own values (Flow.pinned)
        got = self._argued.get(cached)
        if got is None:
            before = len(FLOW.touched)
            done = FLOW.argument(self, fn, p, key, sig, depth, pick=pick)
            # every function of several call sites it went through, also those already recorded since the
            # last watch (else a later read, after another watch, would not know of them)
            got = self._argued[cached] = (done, FLOW.touched[before:])
        else:  # read before: the functions of several call sites it went through, as if read again
            for entry in got[1]:
                if not any(s[0] is entry[0] and s[1].start_byte == entry[1].start_byte for s in FLOW.shared):
                    FLOW.shared.append(entry)
        done = got[0]
        out = Value(done.kind, done.value, done.node, done.why, done.default)
        for slot in ("via", "scale", "mark", "env", "computed", "file"):
            setattr(out, slot, getattr(done, slot))
        if out.kind == "unknown":  # noted where it is read, not where the parameter is declared
            out.node, out.file = node, None
            out.why = out.why or f"{text(node)} is a parameter"
        return out

    def param_of(self, key: str, at: int):
        """(the innermost function with a parameter ``key`` around byte ``at``, the parameter's node), or None."""
        self.params  # noqa: B018 - the names are read on first use
        own = self._param_nodes.get(key)
        if not own:
            return None
        if self._param_starts.get(key) is None:  # sorted once: a name that is a parameter of 3,000 functions
            own.sort(key=lambda e: e[0].start_byte)
            self._param_starts[key] = [fn.start_byte for fn, _ in own]
        i = bisect.bisect_right(self._param_starts[key], at) - 1
        for _ in range(64):  # the nearest function that starts before ``at`` and holds it is the innermost
            if i < 0:
                return None
            fn, p = own[i]
            if at < fn.end_byte:
                return fn, p
            i -= 1
        return None

    def calls(self, name: str) -> list:
        """The calls of this file whose callee's last name is ``name`` (the query's ``@flow.call`` patterns,
        indexed by ``@flow.callee`` on first use)."""
        if self._calls is None:
            self._calls = {}
            if self.lang.signature is not None:
                for _, caps in self._matches(query(self.lang, "flow")):
                    for call in caps.get("flow.call", ()):
                        for callee_node in caps.get("flow.callee", ())[:1]:
                            self._calls.setdefault(text(callee_node), []).append(call)
        return self._calls.get(name, [])

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
        mark = lang.passthrough.get(name, "")
        if (
            mark != "" and args and (len(args) == 1 or mark == "number" and text(args[1]) == "10")
        ):  # strconv.ParseInt(s, 10, 64): its first
            v = evaluate(args[0], self, depth + 1)
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
                try:
                    seconds = values.number(v.value * unit)
                except values.BadValue:
                    return unknown(node, f"{shown(node)} is beyond any AWS limit")
                out = Value("int", seconds, v.node)
                out.via, out.scale, out.computed = v.via, v.scale * unit, v.computed
                return out
            return v
        return unknown(node)


def _set_by_subclass(f: File, node) -> str | None:
    """The name of a subclass whose object is being read (:meth:`Flow.subclasses_pinned`) and whose class writes
    the field ``node`` reads (``this.x``/``self.x``/``$this->x``/``@x``, Java's and C#'s bare ``x``), or None: a
    reader that does not read the subclass's own value (JavaScript and Python do) says unknown, never the base's."""
    key = f.key(node)
    m = re.match(r"^(?:this|self)\.(\w+)$", key) or re.match(r"^@?(\w+)$", key)
    if m is None or (
        key == m.group(1) and f.lang.name not in _BARE and not text(node).startswith(("$this", "@"))
    ):
        return None
    field = re.escape(m.group(1).encode())
    owner = rb"(?:(?:this|self)\s*\.\s*|\$this\s*->\s*|@)" + (b"?" if f.lang.name in _BARE else b"")
    pattern = re.compile(rb"(?<![\w$.])" + owner + field + rb"\s*=(?!=)")  # not a keyword argument's x=v
    for g, ctor in FLOW.subclasses_pinned():
        cls = ctor.parent
        while cls is not None and cls.type not in _CLASS_NODES:
            cls = cls.parent
        if cls is not None and pattern.search(g.data[cls.start_byte : cls.end_byte]):
            name = cls.child_by_field_name("name")
            return text(name) if name is not None else "a subclass"
    return None


def _same(v: Value) -> tuple:
    """What two values compare by: kind and value (a ``queue`` response by the queue it names)."""
    if v.kind == "queue" and isinstance(v.value, Value):
        return ("queue", v.value.kind, v.value.value)
    return (v.kind, v.value)


_SITE_OWN = {"key", "value", "var", "heartbeat", "param", "param.scope"}
_NOT_FIELDS = ("consumer.", "bind.", "set.")
_CAPTURE = re.compile(rb"@([A-Za-z_][\w.-]*)")
_QUERY_ROLES: dict[int, list[tuple]] = {}  # id(compiled query) -> each pattern's role (:func:`_role`)


def _role(pattern: bytes) -> tuple:
    """What a pattern's matches are for, by the names of the captures its text writes: ("site", its consumer
    capture, its positional captures), ("bind",), ("param",), ("set",) or ("other",)."""
    names = [n.decode() for n in _CAPTURE.findall(pattern)]
    for name in names:
        if name.startswith("consumer."):
            positional = tuple(
                dict.fromkeys(
                    n for n in names if n not in _SITE_OWN and n[0] != "_" and not n.startswith(_NOT_FIELDS)
                )
            )
            return ("site", name, positional)
    if "bind.name" in names:
        return ("bind",)
    if "param" in names:
        return ("param",)
    if "set.owner" in names:
        return ("set",)
    if "flow.call" in names:
        return ("flow",)
    return ("other",)


_PARTS = {"bind": "names", "param": "names", "flow": "flow"}  # a pattern's role -> the query part it is in


def _wide_errors(root) -> list:
    """The outermost error nodes of more than ``MAX_ERROR_PARTS`` children, in document order (only the paths
    that hold an error are followed)."""
    out, stack = [], [root] if root.has_error else []
    while stack:
        n = stack.pop()
        if n.is_error and n.child_count > MAX_ERROR_PARTS:
            out.append(n)
        else:
            stack.extend(c for c in n.children if c.has_error)
    return sorted(out, key=lambda n: n.start_byte)


# CPU seconds of Node.parent calls before File.parent walks the tree once: about what that walk costs
PARENT_CPU_S, PARENT_CPU_S_PER_MB = 0.02, 0.25
_FUNCTIONS = {
    "function_definition", "function_declaration", "method_declaration", "method_definition", "arrow_function",
    "function_expression", "lambda", "constructor_declaration", "func_literal", "method", "singleton_method",
    "local_function_statement", "anonymous_function", "anonymous_function_creation_expression", "lambda_expression",
    "function_item", "closure_expression",
}  # fmt: skip
_LOOPS = {
    "for_statement", "while_statement", "for_in_statement", "do_statement", "enhanced_for_statement",
    "foreach_statement", "for_range_loop", "while", "until", "for", "do_while_statement", "list_comprehension",
    "do_block", "loop_expression", "for_expression", "while_expression",
}  # fmt: skip
_BLOCKS = {
    "block",
    "statement_list",
    "source_file",
    "module",
    "program",
    "compound_statement",
    "body_statement",
}


_IFS = frozenset(("if_statement", "if_expression", "if"))  # a statement that runs only when its test holds


def descendants(root, limit: int, prune=frozenset()):
    """``root`` and the nodes under it, depth first, at most ``limit`` of them; below a node of a kind in ``prune``
    nothing is visited (its children are not what the caller looks for)."""
    stack, seen = [root], 0
    while stack and seen < limit:
        n = stack.pop()
        seen += 1
        yield n
        if n.type not in prune:
            stack.extend(n.named_children)


def _around(f: File, node, kinds, limit: int = 64):
    """The nearest node of one of ``kinds`` above ``node`` (at most ``limit`` up), or None."""
    n = f.parent(node)
    for _ in range(limit):
        if n is None or n.type in kinds:
            return n
        n = f.parent(n)
    return None


_ARITHMETIC = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "//": lambda a, b: a // b,
    "**": lambda a, b: a**b if abs(b) <= 64 else _too_big(),
}


def _too_big():
    raise ValueError("an exponent beyond 64")


def env_of(v: Value) -> str | None:
    """The environment variable ``v`` is read from (an ``env`` value, a number that is its default, an expression
    of one), else None."""
    return v.value if v.kind == "env" else v.env


def _receiver(node):
    for field in ("receiver", "object", "operand"):
        n = node.child_by_field_name(field)
        if n is not None:
            return n
    fn = node.child_by_field_name("function")
    return fn.child_by_field_name("operand") or fn.child_by_field_name("object") if fn is not None else None


# ---------------------------------------------------------------------------------------------- strings of parts
_PRINTF = re.compile(r"%(?:%|([-+ #0]*\d*)([sdvqi]))")
_BRACES = re.compile(r"\{\{|\}\}|\{([A-Za-z_]\w*|\d*)\}|[{}]")


def built(node, parts: list[Value], out: str) -> Value:
    """The string ``out`` built of ``parts`` (each a known str or int): computed, at ``node``."""
    v = Value("str", out, node)
    v.computed = True
    return v


def printf(fmt: str, args: list[Value]) -> str | None:
    """``fmt`` (``fmt.Sprintf``/``String.format``/Python's ``%``) of ``args`` (known strs and ints), the verbs
    ``%s %d %v %q %i %%`` without width; None for any other verb, or a count that does not fit."""
    out, i, at = [], 0, 0
    for m in _PRINTF.finditer(fmt):
        out.append(fmt[at : m.start()])
        at = m.end()
        if m.group(0) == "%%":
            out.append("%")
            continue
        if m.group(1) or i >= len(args):
            return None
        a = args[i]
        i += 1
        if m.group(2) in "di" and a.kind != "int":
            return None
        out.append(repr(a.value) if m.group(2) == "q" else str(a.value))
    if i != len(args) or "%" in fmt[at:]:
        return None
    out.append(fmt[at:])
    return "".join(out)


def braces(fmt: str, pos: list[Value], kw: dict[str, Value]) -> str | None:
    """``fmt.format(*pos, **kw)`` of known strs and ints (Python's ``str.format``, fields ``{}``, ``{0}``,
    ``{name}`` without a conversion or spec); None for anything else."""
    out, auto, at = [], 0, 0
    for m in _BRACES.finditer(fmt):
        out.append(fmt[at : m.start()])
        at = m.end()
        tok = m.group(0)
        if tok in ("{{", "}}"):
            out.append(tok[0])
            continue
        if tok in ("{", "}"):
            return None
        field = m.group(1)
        if field == "":
            field, auto = str(auto), auto + 1
        v = pos[int(field)] if field.isdigit() and int(field) < len(pos) else kw.get(field)
        if v is None:
            return None
        out.append(str(v.value))
    out.append(fmt[at:])
    return "".join(out)


def why_of(v: Value) -> str:
    """What stops a string built of parts at the part ``v``: an environment variable (known where the code
    runs), or the expression that stopped its reading."""
    if v.kind == "env":
        return f"the environment variable {v.value}, known only where it runs"
    return v.why or shown(v.node)


def compose(node, vs: list[Value], make, what: str) -> Value:
    """The string ``make(parts)`` builds of ``vs`` (:func:`printf`, :func:`braces`, a join): a known string when
    every part is a known string or number; when some are environment variables (or patterns of them), unknown
    with its ``pattern`` (each variable written ``${NAME}``: :func:`pattern_regex`); else unknown at the part that
    stops it (``what``: the expression, for the note)."""
    parts, envs = [], []
    for v in vs:
        if v.kind in ("str", "int"):
            parts.append(v)
        elif v.kind == "env" and v.value:
            parts.append(Value("str", "${" + str(v.value) + "}", v.node))
            envs.append(str(v.value))
        elif v.kind == "unknown" and v.pattern is not None:
            parts.append(Value("str", v.pattern, v.node))
            envs += _PATTERN_VAR.findall(v.pattern)
        else:
            return unknown(node, f"{what}: {why_of(v)}")
    got = make(parts)
    if got is None or len(got) > MAX_BUILT:
        return unknown(node, what)
    if envs:
        names = ", ".join(dict.fromkeys(envs))
        out = unknown(node, f"{what}: built from the environment ({names}), known only where it runs")
        out.pattern = got
        return out
    return built(node, parts, got)


MAX_BUILT = 10_000  # characters of a string built of parts: a queue's URL or name is far shorter
_PATTERN_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def pattern_regex(pattern: str) -> re.Pattern:
    """The regular expression a queue's name or URL matches when it is ``pattern`` (:func:`compose`) with each
    ``${NAME}`` some non-empty text without ``/``: what a join tries against the run's queues (exactly one fits:
    that queue; more or none: not joined)."""
    out, at = [], 0
    for m in _PATTERN_VAR.finditer(pattern):
        out.append(re.escape(pattern[at : m.start()]))
        out.append("[^/]+")
        at = m.end()
    out.append(re.escape(pattern[at:]))
    return re.compile("^" + "".join(out) + "$")


def known(vs: list[Value]) -> Value | None:
    """The first of ``vs`` that is not a known str or int (what stops a string built of them), else None."""
    return next((v for v in vs if v.kind not in ("str", "int")), None)


# ---------------------------------------------------------------------------------------------- the value flow
MAX_FLOW_STEPS = 400  # call sites and package files a read follows in all (then the value is unknown)
MAX_SCOPE_FILES = 2_000  # files of one package looked at (a byte search for a name) for one name
MAX_SCANNED = 8_000  # files byte-searched in all for one file read
MAX_FLOW_FILES = 24  # other files parsed and kept for one read (the least recently used is dropped)
MAX_FLOW_BYTES = 32_000_000  # bytes of the run's other files kept in memory for the byte search
MAX_AGREE = 8  # assignments of one name evaluated to see whether they all give one value (File._agreed)
MAX_CANDIDATES = 3  # values named in the note of a parameter given different values
MAX_SITES = 32  # call sites of a function a shared receive is read once for (Flow.pinned), at most
MAX_TOUCHED = 4_096  # functions of several call sites recorded for one file read (Flow.touched), repeats too
MANIFESTS = (
    "go.mod", "package.json", "pyproject.toml", "setup.py", "setup.cfg", "pom.xml", "build.gradle",
    "build.gradle.kts", "composer.json", "Gemfile", "Cargo.toml",
)  # fmt: skip
PYTHON_MANIFESTS = ("pyproject.toml", "setup.py", "setup.cfg")  # a Python distribution's root
MAX_UP = 8  # folders walked up from a file to find its project's manifest
_TEST_DIRS = {"test", "tests", "__tests__", "spec", "specs", "testdata", "e2e"}
_TEST_NAME = re.compile(r"(^test_.*\.py$|_test\.(py|go)$|\.(test|spec)\.[jt]sx?$|Tests?\.(java|cs|kt)$)")


def is_test(path: str) -> bool:
    """Whether ``path`` is a test's (its folder or its name says so): its calls are taken only when no other
    file calls the function."""
    parts = path.replace("\\", "/").split("/")
    return bool(_TEST_NAME.search(parts[-1])) or any(p in _TEST_DIRS for p in parts[:-1])


class Flow:
    """The value flow across the files of a package (issue 35): the files of the run the code loader was
    offered (:attr:`offered`, set by ``loader.py``: a read never opens a file the run was not asked to read),
    how to read one (:attr:`reader`: bytes or None), and what one read of a file has followed so far.

    Bounded per file read (:meth:`begin` resets it): at most ``MAX_FLOW_STEPS`` call sites and package look-ups,
    ``MAX_SCANNED`` files byte-searched, ``MAX_FLOW_FILES`` other files parsed (kept for the read and its
    successors, least recently used dropped), ``MAX_FLOW_BYTES`` of other files' bytes kept for the byte search,
    ``MAX_SCOPE_FILES`` files searched for one name; a value is followed ``MAX_DEPTH`` names and calls deep (a loop
    of constants across files ends there, unknown). Outside a run (a test calling ``read`` alone) nothing is
    offered: only the file itself is read."""

    def __init__(self):
        self.offered: dict[str, None] = {}  # every code file path the run's search offered, in order
        self.run = 0  # which run of the process the files below are of (loader.py)
        self.reader = None  # path -> bytes | None (loader.py: the safe read, the generated/minified skip)
        self.steps = self.scanned = 0
        # the calls being read into (:meth:`called`): (the callee's File, its function's start, {parameter:
        # (argument node, the caller's File)}[, the pinned call site: :meth:`pinned`])
        self.frames: list[tuple] = []
        # the functions of several call sites a value was read through since :meth:`watch` (File, function, its
        # signature, the sites), first reached first; and the call site pinned now (its file's path, its start)
        self.shared: list[tuple] = []
        self.touched: list[tuple] = []  # every such function a read went through (repeats kept), in order
        self.pin: tuple | None = None  # the call sites pinned now, outermost first ((path, start), ...)
        self._tests: list[tuple] = []  # the test files' call sites the last :meth:`call_sites` left out
        # (path, start) of a subclass constructor's call of its base's (``super(...)``) -> (its File, that
        # subclass constructor's node): the objects of such a call site are built where the subclass is
        self.supers: dict[tuple, tuple] = {}
        self._files: dict[tuple[str, str], File | None] = {}  # (path, grammar) -> parsed (LRU order)
        self._bytes: dict[str, bytes | None] = {}
        self._kept = 0
        self._roots: dict[str, str] = {}
        self._abs: dict[str, str] | None = None  # absolute path -> the offered path (offered_file)
        self._abs_of: dict | None = None  # the offered set _abs was made from, and its size then
        self._abs_n = 0
        self._scopes: dict[tuple, list] = {}  # (folder, ending, folder only) -> [(absolute, offered path)]
        self._hits: dict[tuple, list] = {}  # (file, folder only, words) -> the paths of its scope holding one

    def reset(self, run: int) -> None:
        """Forget what another run's files said (their bytes, their trees, their folders)."""
        self.run = run
        self._files, self._bytes, self._roots, self._abs, self._kept = {}, {}, {}, None, 0
        self._scopes, self._hits = {}, {}
        self.supers = {}

    def begin(self, f: File) -> None:
        self.steps = self.scanned = 0
        self.frames = []
        self.shared, self.pin, self.touched = [], None, []

    # ------------------------------------------------------------------------------------------ call sites
    # (issue 35) a receive shared by the call sites of one function (a listener library's ``@listener(...)``
    # decorator, a ``Poller(queue_url=..., visibility_timeout=...)`` constructed in several places, whose
    # arguments are stored and read by one receive loop): each call site is its own consumer, with the values
    # that call gives (or the defaults it leaves), read with the site pinned; see the language's reader
    # (python._sdk) for when a receive is read per site.
    def watch(self) -> None:
        """Start recording the functions of several call sites the values read next go through."""
        self.shared = []

    def sites_of_shared(self, room: int = MAX_SITES):
        """(File, function, signature, call sites) of the first function of 2..``room`` call sites a value read
        since :meth:`watch` went through and that is not pinned now, or None. A test file's call sites are among
        them, when there is room, if that file creates a queue (an integration test receiving from the queue it
        creates against a local SQS: each call its own consumer, the test's no longer spoils the others' value); a
        unit test's calls (fakes, the defaults) stay out, as when one value is read for every call."""
        for f, fn, sig, sites, tests in self.shared:
            if any(len(fr) > 3 and fr[0] is f and fr[1] == fn.start_byte for fr in self.frames):
                continue  # read per call site already (a nested read: per_call_site)
            if 2 <= len(sites) <= room or (
                len(sites) == 1 and (sites[0][0].path, sites[0][1].start_byte) in self.supers
            ):  # one subclass's super(...): its objects, whose own fields may differ from the base's
                tests = [s for s in tests if s[0].captures("create.call")]
                return f, fn, sig, sites + tests if len(sites) + len(tests) <= room else sites
        return None

    def pinned(self, f: File, fn, sig, site):
        """A context in which ``fn``'s parameters are what the call ``site`` (file, call, positional nodes or
        None, {keyword: node}) passes, and the defaults it leaves (:meth:`unpassed`)."""
        import contextlib

        g, call, pos, kw = site
        # beside a `**x`, what it writes is still known (a key it is known not to pass, None: the default)
        args = {k: (kw[k], g) for k, _, _ in sig[1] if kw.get(k) is not None}
        if pos is not None:
            for i, (k, _, positional) in enumerate(sig[1]):
                at = i - sig[2]
                if positional and 0 <= at < len(pos):
                    args[k] = (pos[at], g)
                elif kw.get(k) is not None:
                    args[k] = (kw[k], g)

        @contextlib.contextmanager
        def context():
            before = self.pin
            self.pin = (*(before or ()), (g.path, call.start_byte))
            self.frames.append((f, fn.start_byte, args, (sig, site)))
            try:
                yield
            finally:
                self.frames.pop()
                self.pin = before

        return context()

    def subclasses_pinned(self) -> list[tuple]:
        """(File, constructor) of each subclass whose object is being read now (a ``super(...)`` call site pinned,
        :attr:`supers`), the most derived first: a field it writes (``this.vt = 120`` after ``super(url)``, a
        class field) is the object's, not the base's."""
        out = []
        for frame in self.frames:
            if len(frame) > 3:
                g, call = frame[3][1][0], frame[3][1][1]
                sub = self.supers.get((g.path, call.start_byte))
                if sub is not None:
                    out.append(sub)
        return out

    def unpassed(self, f: File, pinned, key: str, node, depth: int) -> Value | None:
        """The value of parameter ``key`` a pinned call site does not pass: its default (a parameter without
        one: unknown; a call whose arguments are not read: unknown, never another call's); None when ``key`` is
        no parameter of the function's signature."""
        sig, (g, call, pos, kw) = pinned
        params = {k: default for k, default, _ in sig[1]}
        if key not in params:
            return None
        if pos is None and key not in kw:
            return unknown(node, f"{key}: the call at {_at(g, call)} passes arguments visguard cannot read")
        if params[key] is None:
            return unknown(node, f"{key} is not passed by the call at {_at(g, call)}")
        v = evaluate(params[key], f, depth + 1)
        if v.kind != "unknown" and v.via is None:
            v.via = node
        if v.file is None:
            v.file = f  # the default, written in the function's file
        return v

    def called(self, g: File, fn, call, caller: File, node, depth: int) -> Value:
        """The value of ``node`` (in the body of ``fn``, of file ``g``) for the call ``call`` of ``caller``: the
        function's parameters are what that call passes (context: ``getQueueURL(client, "orders")``)."""
        sig = g.lang.signature(fn, g) if g.lang.signature else None
        got = caller.lang.call_args(call, caller) if caller.lang.call_args else None
        args = {}
        if sig is not None and got is not None and not got[2]:
            pos, kw, _ = got
            for i, (k, _, positional) in enumerate(sig[1]):
                at = i - sig[2]
                if positional and 0 <= at < len(pos):
                    args[k] = (pos[at], caller)
                elif kw.get(k) is not None:  # None: a key a `**x` is known not to pass
                    args[k] = (kw[k], caller)
        self.frames.append((g, fn.start_byte, args))
        try:
            return evaluate(node, g, depth + 1)
        finally:
            self.frames.pop()

    def spend(self) -> bool:
        self.steps += 1
        return self.steps <= MAX_FLOW_STEPS

    # ------------------------------------------------------------------------------------------ files
    def root(self, path: str) -> str:
        """The project folder of ``path``: the nearest folder up holding a manifest (``go.mod``,
        ``package.json``, ...), or for Python the folder above its top package; else the file's folder."""
        folder = os.path.dirname(os.path.abspath(path))
        got = self._roots.get(folder)
        if got is None:
            got = here = folder
            if path.endswith(".py") and os.path.exists(os.path.join(here, "__init__.py")):
                for _ in range(MAX_UP):  # a package's project is the folder above its top package
                    here = os.path.dirname(here)
                    if not os.path.exists(os.path.join(here, "__init__.py")):
                        break
                got = here
            else:
                got = _up_to(here, MANIFESTS) or folder
            self._roots[folder] = got
        return got

    def distribution(self, path: str) -> str:
        """The folder whose files may call ``path``'s functions: its project (:meth:`root`), or for a Python
        package the distribution it is in, when a ``pyproject.toml``/``setup.py``/``setup.cfg`` is above its top
        package (a ``src/`` layout whose application sits beside ``src/``)."""
        top = self.root(path)
        here = os.path.dirname(os.path.abspath(path))
        if not path.endswith(".py") or not os.path.exists(os.path.join(here, "__init__.py")):
            return top
        key = "dist:" + top
        got = self._roots.get(key)
        if got is None:
            got = self._roots[key] = _up_to(top, PYTHON_MANIFESTS) or top
        return got

    def scope(self, f: File, folder_only: bool = False) -> list[str]:
        """The other files of ``f``'s package the run offered, of its ending: its folder's (``folder_only``: a
        Go package), else its project's (:meth:`root`); a test's files only for a test."""
        if f.path is None or not self.offered:
            return []
        here = os.path.abspath(f.path)
        ext = os.path.splitext(here)[1]
        top = os.path.dirname(here) if folder_only else self.distribution(f.path)
        key = (top, ext, folder_only)
        found = self._scopes.get(key)
        if found is None:  # once per folder and ending: every file of a project asks the same
            found = []
            for a, p in self._absolute().items():
                if a.endswith(ext) and (
                    (os.path.dirname(a) == top) if folder_only else a.startswith(top + os.sep)
                ):
                    found.append((a, p))
                    if len(found) > MAX_SCOPE_FILES:
                        break
            self._scopes[key] = found
        return [p for a, p in found if a != here][:MAX_SCOPE_FILES]

    def offered_file(self, path: str) -> str | None:
        """The path as the run was offered it of the file at ``path`` (any spelling), or None: not offered."""
        return self._absolute().get(os.path.abspath(path))

    def _absolute(self) -> dict[str, str]:
        """Absolute path -> the path as offered, of every offered file (made once per set of offered files)."""
        if self._abs is None or self._abs_of is not self.offered or self._abs_n != len(self.offered):
            self._abs = {os.path.abspath(p): p for p in self.offered}
            self._abs_of, self._abs_n = self.offered, len(self.offered)
        return self._abs

    def data(self, path: str) -> bytes | None:
        if path in self._bytes:
            return self._bytes[path]
        data = None
        if self.reader is not None:
            try:
                data = self.reader(path)
            except Exception:  # noqa: BLE001 - a file that cannot be read now is one the flow does not follow
                data = None
        if data is not None and self._kept + len(data) <= MAX_FLOW_BYTES:
            self._bytes[path] = data
            self._kept += len(data)
        return data

    def file(self, path: str, lang: Language) -> File | None:
        key = (path, lang.grammar)
        if key in self._files:
            f = self._files.pop(key)
            self._files[key] = f  # most recently used last
            return f
        data = self.data(path)
        f = None
        if data is not None:
            f = File(lang, data, path=path, flow=False)
            if f.gave_up:
                f = None
        self._files[key] = f
        while len(self._files) > MAX_FLOW_FILES:
            self._files.pop(next(iter(self._files)))
        return f

    def files_with(self, f: File, words: tuple[str, ...], folder_only: bool = False) -> list[File]:
        """The other files of ``f``'s package (:meth:`scope`) whose bytes hold one of ``words``, parsed."""
        out = []
        raw = tuple(w.encode() for w in words if w)
        key = (f.path, folder_only, raw)
        hits = self._hits.get(key)
        if hits is None:
            hits = []
            for path in self.scope(f, folder_only):
                self.scanned += 1
                if self.scanned > MAX_SCANNED:  # the read's byte searches are spent: what is left is unknown
                    return out
                data = self.data(path)
                if data is not None and any(w in data for w in raw):
                    hits.append(path)
            if len(self._hits) > MAX_FLOW_STEPS * 10:
                self._hits.clear()
            self._hits[key] = hits
        for path in hits:
            if not self.spend():
                break
            g = self.file(path, f.lang)
            if g is not None:
                out.append(g)
        return out

    # ------------------------------------------------------------------------------------------ values
    def package_binding(self, f: File, key: str, local):
        """The one binding of ``key`` in ``f``'s package (a Go folder): (value node, name node, its File), (None,
        why) when the package's files bind it differently, or None when no other file binds it (``local``: the
        binding ``f`` has, or None)."""
        word = key.lstrip(".")
        found = [(local[0], local[1], f)] if local is not None else []
        # a field may be set by any package of the project (``&worker.Config{QueueName: "q"}`` in main); a name
        # is its own package's (a folder)
        for g in self.files_with(f, (word,), folder_only=not key.startswith(".")):
            if is_test(g.path or "") and not is_test(f.path or ""):
                continue
            got = g._found(key)
            if got[0] is not None:
                found.append((got[0], got[1], g))
            elif got[1] == "is assigned more than once":
                return None, "is assigned more than once in its package"
        if not found or (len(found) == 1 and local is not None):
            return None
        set_ = [b for b in found if not _default_guard(b[2], b[1], key)]
        if set_ and len(set_) < len(found):  # `if c.Wait == 0 { c.Wait = 20 }`: a default, the set value wins
            found = set_
        if any(text(r) != text(found[0][0]) for r, _, _ in found[1:]):
            return None, "is assigned more than once in its package"
        return found[0]

    def argument(self, f: File, fn, p, key: str, sig, depth: int, keyword=False, pick=None) -> Value:
        """What the calls of ``fn`` (its signature ``sig``: Language.signature) pass as its parameter ``key``
        (``p``: its node), or with ``keyword`` (the default node or None) as the keyword ``key`` its ``**x``
        takes (Python's ``kwargs.get("key", default)``); the default when no call passes it. ``pick``: the part
        of each value read (:meth:`File.argument`)."""
        names, params, bound = sig
        keys = [k for k, _, _ in params]
        if keyword is not False:
            for frame in reversed(
                self.frames
            ):  # one call site pinned (:meth:`pinned`): its keyword, else the default
                if len(frame) > 3 and frame[0] is f and frame[1] == fn.start_byte:
                    g, call, pos, kw = frame[3][1]
                    if pos is None and key not in kw:
                        return unknown(
                            p, f"{key}: the call at {_at(g, call)} passes arguments visguard cannot read"
                        )
                    if kw.get(key) is None:
                        return (
                            evaluate(keyword, f, depth + 1) if keyword is not None else Value("none", None, p)
                        )
                    v = evaluate(kw[key], g, depth + 1)
                    if v.file is None and g is not f:
                        v.file = g
                    return pick(v, depth + 1) if pick is not None and v.kind != "unknown" else v
            default, position = keyword, None
        elif key not in keys:
            return unknown(p, f"{text(p)} is a parameter")
        else:
            at = keys.index(key)
            _, default, positional = params[at]
            position = at - bound if positional else None
        sites = self.call_sites(f, fn, names, len([x for x in params if x[2]]) - bound, sig)
        if len(sites) > 1 or (
            len(sites) == 1 and (sites[0][0].path, sites[0][1].start_byte) in self.supers
        ):  # a function of several call sites the value goes through (:meth:`sites_of_shared`)
            entry = (f, fn, sig, sites, self._tests)
            if len(self.touched) < MAX_TOUCHED:
                self.touched.append(entry)
            if len(self.shared) < MAX_SITES and not any(
                s[0] is f and s[1].start_byte == fn.start_byte for s in self.shared
            ):
                self.shared.append(entry)
        what = key if keyword is not False else text(p)
        label = f"{what} is a parameter of {names[0] if names else 'its function'}"
        if not sites:
            if default is not None:
                v = evaluate(default, f, depth + 1)
                if pick is not None and v.kind != "unknown":
                    v = pick(v, depth + 1)
                if v.kind != "unknown" and v.via is None:
                    v.via = p
                return v
            if keyword is None:  # kwargs.get("key") no call passes: None
                return Value("none", None, p)
            return unknown(p, f"{label}, and no call of it in its package passes it")
        got = []
        for g, call, pos, kw in sites:
            if not self.spend():
                return unknown(p, f"{label}: visguard stopped following its calls (MAX_FLOW_STEPS)")
            if pos is None and key not in kw:  # a keyword written beside `**options` is that keyword's value
                return unknown(
                    p, f"{label}, and the call at {_at(g, call)} passes arguments visguard cannot read"
                )
            if pos is None:
                arg = kw[key]  # None: a key the call's `**x` is known not to pass (the default)
            else:
                arg = pos[position] if position is not None and 0 <= position < len(pos) else kw.get(key)
            if arg is None:
                if default is None and keyword is not None and not f.lang.unpassed:
                    return unknown(p, f"{label}, not passed by the call at {_at(g, call)}")
                v = evaluate(default, f, depth + 1) if default is not None else Value("none", None, p)
                owner = f
            else:
                v = evaluate(arg, g, depth + 1)
                owner = g
            if pick is not None and v.kind != "unknown":
                if v.file is None and owner is not f:
                    v.file = owner
                v = pick(v, depth + 1)
            if v.kind == "unknown":
                out = unknown(p, f"{label}, given {v.why or shown(arg)} at {_at(g, call)}")
                out.env = v.env
                return out
            if v.file is None and owner is not f:
                v.file = owner
            got.append((v, g, call))
        distinct = {(v.kind, repr(v.value)) for v, _, _ in got}
        if len(distinct) > 1:
            shown_ = ", ".join(f"{_shown_value(v)} at {_at(g, call)}" for v, g, call in got[:MAX_CANDIDATES])
            more = f" and {len(got) - MAX_CANDIDATES} more" if len(got) > MAX_CANDIDATES else ""
            return unknown(p, f"{label} given different values by its {len(got)} calls: {shown_}{more}")
        v = got[0][0]
        if v.via is None:
            v.via = p
        return v

    def call_sites(self, f: File, fn, names: tuple[str, ...], arity: int, sig) -> list[tuple]:
        """(file, call, positional argument nodes, {keyword: node}) of each call of ``fn`` by one of ``names``:
        in ``f``, then in the other files of its project (:meth:`scope`); a test's calls only when no other
        file's call it. A call with more positional arguments than the function takes is another function's."""
        variadic = sig[1] and any(k.startswith("*") for k, _, _ in sig[1])
        found: list[tuple] = []
        subs = f.lang.super_calls(fn, f) if f.lang.super_calls is not None and _is_constructor(fn) else []
        for g, call, ctor, sub in subs[:MAX_SITES]:  # a subclass's constructor calling this one: a call site
            if call is None:  # a subclass without its own constructor: its `new Sub(...)` calls this one
                names = (*names, sub) if sub not in names else names
                continue
            args = g.lang.call_args(call, g)
            if args is None:
                continue
            if len(self.supers) > MAX_FLOW_STEPS * 10:
                self.supers.clear()
            self.supers[(g.path, call.start_byte)] = (g, ctor)
            found.append((g, call, None if args[2] else args[0], args[1]))
        files = [f] + self.files_with(f, names)
        for g in files:
            for name in names:
                for call in g.calls(name):
                    if g is f and fn.start_byte <= call.start_byte < fn.end_byte:
                        continue  # a recursive call passes what it was passed
                    args = g.lang.call_args(call, g)
                    if args is None:
                        continue
                    pos, kw, splat = args
                    if len(pos) > arity and not variadic:
                        continue
                    found.append((g, call, None if splat else pos, kw))  # a splat: what it passes is not read
        plain = [s for s in found if not is_test(s[0].path or "")]
        self._tests = [s for s in found if is_test(s[0].path or "")] if plain else []
        if plain or not found:
            return plain
        return found


_ZERO = {"0", '""', "nil", "None", "null", "0.0"}


def _declared_outer(f: File, fn, key: str) -> bool:
    """Whether the Python function ``fn`` declares ``key`` ``global`` or ``nonlocal`` (then its assignments are
    the module's or the enclosing function's)."""
    body = f.data[fn.start_byte : fn.end_byte]
    return re.search(rb"\b(?:global|nonlocal)\b[^\n]*\b" + re.escape(key.encode()) + rb"\b", body) is not None


def _default_guard(g: File, name, key: str) -> bool:
    """Whether the assignment of ``name`` (key ``key``) is a default: the one statement of an ``if`` whose
    condition is ``<the same name> == 0`` (``""``, ``nil``): ``if cfg.WaitTime == 0 { cfg.WaitTime = 20 }``."""
    stmt = _around(g, name, {"if_statement", "if_expression"}, limit=6)
    cond = stmt.child_by_field_name("condition") if stmt is not None else None
    if cond is None or cond.type != "binary_expression":
        return False
    left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
    op = text(cond.child_by_field_name("operator")).strip()
    return op == "==" and left is not None and g.key(left) == key and text(right).strip() in _ZERO


def _at(g: File, node) -> str:
    return f"{g.path or 'this file'}:{line(node)}"


def _shown_value(v: Value) -> str:
    if v.kind == "str":
        return repr(v.value)
    if v.kind == "name":
        return f"the queue {v.value}"
    if v.kind == "env":
        return f"${v.value}"
    return str(v.value)


FLOW = Flow()  # one per process: the loader sets what the run offered (loader.py)


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
    if raw.isdigit() and raw.isascii() and (len(raw) == 1 or raw[0] != "0"):  # the common case: 30
        return 0, len(raw)
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


# ---------------------------------------------------------------------------------------------- annotations
# `# visguard: queue=orders visibility=60 wait=20 batch=10` (the language's line comment) on the line of a receive
# or the line above: what the user states of a consumer whose code does not say it. The key -> the consumer
# field it sets; each key once; a number is a whole number of seconds (messages for batch) up to
# values.MAX_NUMBER; a queue is a name, URL or ARN without spaces. Anything else: the annotation is not read.
ANNOTATION_KEYS = {
    "queue": "queue",
    "visibility": "visibility_override",
    "wait": "wait_time",
    "batch": "max_messages",
}
ANNOTATION_FIELDS = {field: key for key, field in ANNOTATION_KEYS.items()}
_ANNOTATION = re.compile(r"visguard:(?=\s|$)(?P<rest>.*)$")
_QUEUE_TOKEN = re.compile(r"[A-Za-z0-9_.:/\-]{1,1024}")


def annotation(line: str, mark: str) -> tuple[dict | None, str]:
    """The annotation a source line writes: ({field: value}, "") when it is well formed, ({}, why not) when
    it is malformed, (None, "") when the line holds none (no comment ``mark`` before ``visguard:``)."""
    m = _ANNOTATION.search(line)
    if m is None or mark not in line[: m.start()] or line[: m.start()].rstrip()[-len(mark) :] != mark:
        return None, ""
    rest = m.group("rest").strip()
    for end in ("*/", "-->"):
        rest = rest.removesuffix(end).strip()
    if not rest:
        return {}, "it sets nothing (write key=value: queue, visibility, wait, batch)"
    out: dict = {}
    for token in rest.split():
        key, eq, value = token.partition("=")
        field = ANNOTATION_KEYS.get(key)
        if not eq or field is None:
            return {}, f"{token[:40]!r} is not key=value of queue, visibility, wait, batch"
        if field in out:
            return {}, f"{key} is given twice"
        if field == "queue":
            if not _QUEUE_TOKEN.fullmatch(value):
                return {}, f"queue={value[:40]!r} is not a queue name, URL or ARN"
            out[field] = value
        else:
            if not (value.isdigit() and value.isascii() and len(value) <= 15) or beyond(int(value)):
                return {}, f"{key}={value[:40]!r} is not a whole number"
            out[field] = int(value)
    return out, ""


# ---------------------------------------------------------------------------------------------- the reader
def said(c: Consumer) -> str:
    """What a consumer's code says, apart from where the consumer is (two call sites that say the same)."""
    fields = {k: getattr(c, k) for k in type(c).__slots__ if k not in ("id", "location", "locations")}
    return repr((fields, {k: v for k, v in c.locations.items() if k != "receive"}))


class Reader:
    """One file being read: its path, its result, and helpers to locate values, set fields and note what is not
    read, in one form for every language."""

    def __init__(
        self, path: str, source: str, data: bytes = b"", lang: Language | None = None, lines: bool = True
    ):
        self.path, self.source, self.data, self.lang = path, source, data, lang
        self.ascii = data.isascii()
        # a note's message ends with its line ("(line 4)"); else its location alone says it (Python's notes)
        self.lines = lines
        self.result = CodeResult()
        self._ids: set[str] = set()
        self._noted: set[tuple] = set()
        self._lines: list[bytes] | None = None  # the file's lines, for the annotations (Reader.annotation)
        # (consumer, the expression of its queue, the notes that say it is computed) of each consumer whose queue
        # is not known: a queue the file creates from the same binding may be it (creates.py)
        self.computed_queues: list[tuple] = []
        # where the next consumers are located instead of their node (a call site of a shared receive:
        # Reader.placed_at), and the receive they share
        self._placed: tuple[Location, str] | None = None
        self._log: list | None = None  # what :meth:`mark` asked to be logged since (ids and notes said)

    def mark(self, within: bool = False) -> tuple:
        """What the result holds now, for :meth:`rollback` (what is added from now on is logged: no copy);
        ``within``: inside another mark's span (its log kept, this one's a suffix of it)."""
        if not within or self._log is None:
            self._log = []
        return len(self.result.consumers), len(self.result.notes), self._log, len(self._log)

    def rollback(self, mark: tuple) -> None:
        """Forget the consumers and notes read since ``mark`` (a receive read again per call site)."""
        n, k, log, at = mark
        res = self.result
        gone = {c.id for c in res.consumers[n:]}
        dropped = {id(c) for c in res.consumers[n:]}
        self.computed_queues = [t for t in self.computed_queues if id(t[0]) not in dropped]
        del res.consumers[n:], res.notes[k:]
        for which, item in log[at:]:
            (self._ids if which == "id" else self._noted).discard(item)
        del log[at:]
        for table in (res.spans, res.places):  # keyed (consumer id, field)
            for key in [key for key in table if key[0] in gone]:
                del table[key]

    def per_call_site(self, read, _room: list | None = None):
        """Read one receive with ``read()`` (its consumers added to the result; what it returns is returned), and
        when the values it read came through a function of several call sites (:meth:`Flow.sites_of_shared`: a
        listener library's decorator, a ``Worker(queue_url, visibility)`` constructed in several places, whose
        arguments one receive loop reads back), read it again once per call site: each its own consumer, located
        at the call (the receive's location kept under ``locations["receive"]``), with the values that call gives
        and the defaults it leaves (:meth:`Flow.pinned`); a site whose arguments are not read gives unknown values,
        never another site's. Call sites that all say the same (:func:`said`) stay one consumer at the receive.
        A site whose value comes through another such function (a ``new`` called by ``add_handler`` called from
        five places) is read per call site of that one too, located at the outermost call, while the receive's
        consumers stay within ``MAX_SITES`` in all (then that site is read once: its values unknown, noted).
        Every language's receive loop goes through here (issue 35)."""
        room = _room if _room is not None else [MAX_SITES]  # consumers the receive may still have
        mark, steps = self.mark(within=_room is not None), FLOW.steps
        FLOW.watch()
        got = read()
        shared = FLOW.sites_of_shared(room[0]) if len(self.result.consumers) > mark[0] else None
        if shared is None:
            return got
        made = self.result.consumers[mark[0] :]
        receive = made[0].location if made else None
        self.rollback(mark)
        g, fn, sig, sites = shared
        kept = _receiving_sites(g, fn, sites, receive)
        if kept is not None:  # a constructor's sites: only the objects whose receiving method is called
            dropped, plan = len(sites) - len({id(s[0]) for s in kept[0]}), kept[0]
            for where, why in kept[1]:
                self.result.notes.append(
                    Note(
                        f"{why}: whether it receives is not followed, so no queue is judged by it",
                        where,
                        self.path,
                    )
                )
        else:  # every object is a consumer: a subclass's super(...) is one per object of the subclass built
            plan = [(site, outer) for site in sites for outer in _built(site)]
            dropped = len(sites) - len({id(s[0]) for s in plan})
        if not plan:
            if all((s[0].path, s[1].start_byte) in FLOW.supers and not _built(s) for s in sites):
                # subclasses built nowhere in the package (a library's): the receive read once, as before
                FLOW.steps = steps
                FLOW.watch()
                return read()
            return None
        if len(plan) > room[0]:  # more objects than the receive may still have: one per call site of fn
            plan, dropped = [(site, None) for site in sites], 0
        room[0] -= len(plan) - 1
        placed = self._placed
        for site, outer in plan:
            FLOW.steps = steps  # each site read with the budget the receive had
            built = site if outer is None else outer[-1][3]  # where the object is built: the consumer's place
            self.placed_at(built[0], built[1])
            try:
                with contextlib.ExitStack() as pins:
                    for pin in reversed(outer or ()):  # the subclasses' constructors: what their calls pass
                        pins.enter_context(FLOW.pinned(*pin))
                    pins.enter_context(FLOW.pinned(g, fn, sig, site))
                    got = self.per_call_site(
                        read, room
                    )  # its value through another function of several calls
            finally:
                self._placed = placed
        if (
            not dropped
            and not any(outer for _, outer in plan)
            and len({said(c) for c in self.result.consumers[mark[0] :]}) == 1
        ):
            # every call gives the same values from the same places (three threads of one poll loop): one
            # consumer at the receive (or at the outer call), as before; objects of subclasses stay apart (a
            # read without them would take the base's fields for theirs)
            self.rollback(mark)
            room[0] += len(plan) - 1
            FLOW.steps = steps
            FLOW.watch()
            got = read()
        return got

    def placed_at(self, g: File | None, node) -> None:
        """Locate the next consumers at ``node`` of file ``g`` (a call site in another file, or this one); None:
        at their own node again."""
        if g is None:
            self._placed = None
            return
        where = (
            self.loc(node)
            if g.path in (None, self.path)
            else Location(g.path, line=line(node), column=column(g.data, node))
        )
        self._placed = (where, f"{where.file}:{where.line}")

    def at(self, v: Value | None, node) -> Location:
        """Where ``v`` is written: ``node`` here, or its node in the file it flowed from (:attr:`Value.file`)."""
        g = v.file if v is not None else None
        if g is None or g.path is None or g.path == self.path:
            return self.loc(node)
        return Location(g.path, line=line(v.node), column=column(g.data, v.node))

    def elsewhere(self, v: Value | None) -> bool:
        """Whether ``v`` flowed from another file (no span or place of this file's bytes is its)."""
        return v is not None and v.file is not None and v.file.path != self.path

    def loc(self, node) -> Location:
        row, col = node.start_point
        if not self.ascii:  # tree-sitter counts bytes; a column is in code points
            col = column(self.data, node) - 1
        return Location(self.path, line=row + 1, column=col + 1)

    def note(self, message: str, node, address: str | None = None, v: Value | None = None) -> None:
        """Note ``message`` at ``node`` (for ``address``: a consumer's id; the file's path by default), once;
        ``v``: the value noted, located in its own file when it flowed from another (:meth:`at`)."""
        loc = self.at(v, node)
        if self.lines:
            message = (
                f"{message} (line {loc.line})" if self.elsewhere(v) else f"{message} (line {line(node)})"
            )
        if (message, loc) not in self._noted:
            self._noted.add((message, loc))
            if self._log is not None:
                self._log.append(("noted", (message, loc)))
            self.result.notes.append(Note(message, loc, address or self.path))

    def remark(self, message: str, node, address: str | None = None) -> None:
        """A note whose message names its own place (no line is added), for ``address`` (a consumer id) or none."""
        self.result.notes.append(Note(message, self.loc(node), address))

    def consumer(self, node, platform: str, **fields) -> Consumer:
        where, cid = (
            self._placed if self._placed is not None else (self.loc(node), f"{self.path}:{line(node)}")
        )
        c = Consumer(id=cid, kind="worker", platform=platform, source=self.source, location=where, **fields)
        if c.id in self._ids:  # a call site two receives of the file share: named by the receive too
            c.id = f"{c.id}@{line(node)}" if self._placed is not None else f"{c.id}:{column(self.data, node)}"
        if self._placed is not None:  # the receive it shares with the other call sites
            c.locations["receive"] = self.loc(node)
        self._ids.add(c.id)
        if self._log is not None:
            self._log.append(("id", c.id))
        self.result.consumers.append(c)
        return c

    def set(self, c: Consumer, field: str, value, node, v: Value | None = None) -> None:
        """Set ``field`` of ``c`` (a Consumer field, else a settings key), locate it and record its place."""
        if field in Consumer.__slots__:
            setattr(c, field, value)
        else:
            c.settings[field] = value
        if v is not None and v.env is not None:  # its default: the environment's number, where one is given
            self.from_env(c, field, v.env, v.scale)
        if self.elsewhere(v):  # written in another file (a call site): located there, edited by hand
            c.locations[field] = self.at(v, v.node)
            if v.kind == "int":
                via = v.via if v.via is not None else v.node
                self.result.places[(c.id, field)] = Place(
                    0,
                    0,
                    v.scale,
                    "binding",
                    f"{text(via)} (given at {v.file.path}:{line(v.node)})",
                    line(via),
                )
            return
        c.locations[field] = self.loc(node)
        self.result.spans[(c.id, field)] = (node.start_byte, node.end_byte)
        if v is not None and v.kind == "int" and self.lang is not None:
            self.result.places[(c.id, field)] = place(v, self.lang)

    @staticmethod
    def from_env(c: Consumer, field: str, var: str, scale: float = 1.0) -> None:
        """Record that ``field`` of ``c`` is read from the environment variable ``var`` (in units of ``scale``
        seconds): the join gives it the number the consumer's environment sets (consumers._settings_from_env)."""
        c.from_env[field] = [var, scale]

    def request(self, site, platform: str, args, apply) -> Consumer:
        """A consumer at ``site`` (a request or receive the query found) located as its own queue reference
        until one is read, each of its settings ``args`` [(field, value node)] given to ``apply(c, field,
        node)``."""
        c = self.consumer(site, platform)
        c.locations["queue_ref"] = c.location
        for field, node in args:
            apply(c, field, node)
        return c

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
            if v.env is not None:
                self.note(
                    f"{what} comes from the environment variable {v.env}; its default {v.value:g} is used",
                    v.node,
                    v=v,
                )
            self.set(c, field, v.value, v.node, v)
        elif v.kind == "env":
            self.note(f"{what} comes from the environment variable {v.value}: not read", v.node, v=v)
            self.from_env(c, field, v.value, v.scale)
        elif v.kind == "bad":
            self.note(f"{what} = {shown(v.node)} is {v.why}: not read (no AWS API takes it)", v.node, v=v)
        else:
            if self.annotated(c, field):
                return
            key = ANNOTATION_FIELDS.get(field)
            hint = f"; {self.hint(key, '<seconds>' if field != 'max_messages' else '<n>')}" if key else ""
            self.note(f"{what} is computed ({v.why or shown(v.node)}): not read{hint}", v.node)

    # ------------------------------------------------------------------------------------------ annotations
    def hint(self, key: str, example: str) -> str:
        """How to tell visguard a value the code does not say: the annotation comment (:func:`annotation`)."""
        mark = self.lang.annotation if self.lang is not None else "#"
        return f"tell visguard with `{mark} visguard: {key}={example}` on the line of the receive or the line above"

    def annotation(self, c: Consumer) -> dict:
        """The ``visguard:`` annotation of consumer ``c`` (on the line of its location or the line above), as
        {field: (value, Location)}; a malformed one is noted once and gives nothing (:func:`annotation`)."""
        at = c.locations.get("receive") or c.location  # a call site's consumer: its shared receive's
        if at is None or at.line is None or self.lang is None or at.file != self.path:
            return {}
        if self._lines is None:
            self._lines = self.data.split(b"\n")
        for n in (at.line, at.line - 1):
            if not 1 <= n <= len(self._lines) or b"visguard:" not in self._lines[n - 1]:
                continue
            raw = self._lines[n - 1][: values.MAX_TEXT].decode("utf-8", "replace")
            got, why = annotation(raw, self.lang.annotation)
            if got is None:
                continue
            where = Location(self.path, line=n, column=raw.find("visguard:") + 1)
            if why:
                key = ("annotation", n)
                if key not in self._noted:
                    self._noted.add(key)
                    if self._log is not None:
                        self._log.append(("noted", key))
                    self.result.notes.append(
                        Note(f"the visguard annotation at line {n} is not read: {why}", where, self.path)
                    )
                return {}
            return {field: (value, where) for field, value in got.items()}
        return {}

    def annotated(self, c: Consumer, field: str) -> bool:
        """Set ``field`` of ``c`` from its annotation, when it has one for it (the code does not say it); the
        field is located at the annotation, which the finding then cites as where the value comes from."""
        got = self.annotation(c).get(field)
        if got is None:
            return False
        value, where = got
        if field == "queue":
            ref = queue_ref(value, where)
            if ref is None:
                return False
            self.link(c, ref)
        else:
            if field in Consumer.__slots__:
                setattr(c, field, value)
            else:
                c.settings[field] = value
            c.locations[field] = where
            self.result.places[(c.id, field)] = Place(
                0, 0, 1.0, "written", shown=f"visguard: {ANNOTATION_FIELDS[field]}={value:g} (an annotation)"
            )
        c.locations.setdefault("annotation", where)
        return True

    def finish(self) -> CodeResult:
        """The result, each consumer given what its annotation states that its code does not write
        (:meth:`annotated`): a queue when it names none, a setting it does not set."""
        for c in self.result.consumers:
            for field in self.annotation(c):
                if field == "queue" and c.queue_ref is None:
                    self.annotated(c, "queue")
                elif field != "queue" and field not in c.locations:
                    self.annotated(c, field)
        return self.result

    def queue(self, c: Consumer, v: Value | None, what: str) -> None:
        """Set ``c.queue_ref`` from ``v`` (a literal or an environment variable), else note why not."""
        if v is None:
            return
        if v.kind == "str":
            ref = queue_ref(v.value, self.at(v, v.node))
        elif v.kind == "env":
            ref = QueueRef("env", v.value, self.at(v, v.node))
            if v.default is not None and v.default.kind == "str" and v.default.value:
                ref.fallback = queue_ref(v.default.value, self.at(v, v.default.node))
        elif v.kind == "name":
            ref = queue_ref(v.value, self.at(v, v.node), "name")
        else:
            if v.pattern is not None:
                c.settings["queue_pattern"] = v.pattern
                c.locations["queue_pattern"] = self.loc(v.node)
            if not self.annotated(c, "queue"):
                why = "it is not given (None)" if v.kind == "none" else v.why or shown(v.node)
                before = len(self.result.notes)
                self.note(
                    f"{what}: the queue is computed ({why}), not joined; "
                    f"{self.hint('queue', '<name or URL>')}",
                    v.node,
                )
                if getattr(v, "file", None) is None:  # an expression of this file
                    self.computed_queues.append((c, v.node, self.result.notes[before:]))
            return
        if ref is not None:
            self.link(c, ref)

    def link(self, c: Consumer, ref: QueueRef) -> None:
        """``c`` reads the queue ``ref`` names: its reference, how it joins (env, name or literal), its place."""
        c.queue_ref = ref
        c.link = {"env": "env", "name": "name"}.get(ref.kind, "literal")
        c.link_ref = ref.value
        c.locations["queue_ref"] = ref.location


def _up_to(folder: str, manifests) -> str | None:
    """The nearest folder at or above ``folder`` (at most ``MAX_UP`` levels) that holds one of ``manifests``."""
    here = folder
    for _ in range(MAX_UP):
        if any(os.path.exists(os.path.join(here, m)) for m in manifests):
            return here
        up = os.path.dirname(here)
        if up == here:
            return None
        here = up
    return None


# the node types of a function or method definition, across the languages the engine reads
_FUNCTION_NODES = frozenset(
    ("function_definition", "method_definition", "function_declaration", "method_declaration", "function_item",
     "constructor_declaration", "local_function_statement", "function_expression", "arrow_function")
)  # fmt: skip
_CONSTRUCTORS = ("__init__", "constructor", "new", "initialize")
MAX_USES = 200  # uses of an object's name read to decide whether it receives


def _name_of(fn) -> str:
    node = fn.child_by_field_name("name")
    return text(node) if node is not None else ""


def _is_constructor(fn) -> bool:
    """Whether ``fn`` builds an object (a class's constructor, Go's ``NewX``, Rust's ``new``): its call sites
    are objects, not registrations (a decorator, ``add_handler(queue, f)``)."""
    name = _name_of(fn)
    return (
        fn.type == "constructor_declaration"
        or name in _CONSTRUCTORS
        or (name[:3] == "New" and name[3:4].isupper())
    )


def _receiving_methods(g: File, receive) -> tuple[set[str], bool] | None:
    """(the names of the functions of ``g`` that reach the receive at ``receive``: the one that holds it and those
    that call one of these by name, bounded; whether another function of ``g`` sends to SQS: a type that may be
    a producer or a consumer), or None when the receive is not located in ``g``."""
    if receive is None or receive.line is None or g.path is None or receive.file != g.path:
        return None
    point = (receive.line - 1, max(0, (receive.column or 1) - 1))
    node = g.root.descendant_for_point_range(point, point)
    while node is not None and node.type not in _FUNCTION_NODES:
        node = node.parent
    name = _name_of(node) if node is not None else ""
    if not name:
        return None
    functions = _functions_of(g)
    reach = {name}
    for _ in range(8):
        calls = [re.compile(rb"\." + re.escape(r.encode()) + rb"\s*\(") for r in reach]
        more = {f for f, body in functions if f not in reach and any(c.search(body) for c in calls)}
        if not more:
            break
        reach |= more
    sends = any(f not in reach and _SENDS.search(body) for f, body in functions)
    return reach, sends


def _functions_of(g: File) -> list[tuple[str, bytes]]:
    """(name, text) of the first 2,000 named functions of ``g``, found once per file (every shared receive of a
    file asks the same)."""
    found = getattr(g, "_functions", None)
    if found is None:
        found, stack = [], [g.root]
        while stack and len(found) < 2000:
            n = stack.pop()
            if n.type in _FUNCTION_NODES and _name_of(n):
                found.append((_name_of(n), g.data[n.start_byte : n.end_byte]))
            stack.extend(n.named_children)
        g._functions = found
    return found


_SENDS = re.compile(rb"(?i)send_?message")  # SendMessage(Batch) in every SDK's spelling


def _receiving_sites(g: File, fn, sites: list, receive) -> tuple[list, list] | None:
    """For a constructor's call sites (:func:`_is_constructor`) whose receive is in another method: (the sites
    whose object calls a method reaching the receive, [(where, why)] of those not followed). A site whose object
    is bound to a name used only through other methods is a producer (``outbox = Queue(url); outbox.post(m)``):
    left out; one passed on or kept elsewhere (an argument, a field, returned) is not followed: left out with a
    note. None for other functions' sites (a decorator, a registering call: each call is a consumer). Each kept
    site is (site, None), or for a subclass constructor's ``super(...)`` (:attr:`Flow.supers`) (site, (File,
    the subclass constructor, its signature, the site building the subclass)): one per object of the subclass
    built, checked the same way."""
    if not _is_constructor(fn):
        return None
    found = _receiving_methods(g, receive)
    if found is None or _name_of(fn) in found[0] or not found[1]:
        # the receive is in the constructor itself, or not located, or the type only receives: every object
        # built is a consumer
        return None
    reach = found[0]
    kept, unfollowed = [], []
    for site in sites:
        for outer in _built(site):
            got = _receives(site if outer is None else outer[-1][3], reach)
            if got is True:
                kept.append((site, outer))
            elif got is not None:
                unfollowed.append(got)
    return kept, unfollowed


MAX_CLASS_NODES = 20_000  # nodes of a file walked for its classes (Flow.call_sites: inheritance)


def classes_of(g: File, kinds) -> list:
    """The class nodes of ``g`` whose type is one of ``kinds`` (nested ones too), found once per file, bounded."""
    found = getattr(g, "_classes", None)
    if found is None:
        found, stack, seen = [], [g.root], 0
        while stack and seen < MAX_CLASS_NODES:
            n = stack.pop()
            seen += 1
            if n.type in kinds:
                found.append(n)
            stack.extend(n.named_children)
        g._classes = found
    return found


MAX_SUPERS = 3  # subclasses of subclasses a base constructor's super(...) is followed through


def _built(site, depth: int = 0) -> list:
    """[None] for a call site that builds the object itself; for a subclass constructor's ``super(...)``
    (:attr:`Flow.supers`), for each call building the subclass (:meth:`Flow.call_sites`, bounded by
    ``MAX_SITES``) the constructors it runs, innermost first: ((File, that constructor, its signature, the call of
    it), ...), the last call the one building the object (a subclass of the subclass: its own super(...) followed
    ``MAX_SUPERS`` deep)."""
    sup = FLOW.supers.get((site[0].path, site[1].start_byte))
    if sup is None:
        return [None]
    h, ctor = sup
    sig = h.lang.signature(ctor, h) if h.lang.signature else None
    if sig is None or depth >= MAX_SUPERS:
        return []
    tests = FLOW._tests
    try:
        sites = FLOW.call_sites(h, ctor, sig[0], len([x for x in sig[1] if x[2]]) - sig[2], sig)
    finally:
        FLOW._tests = tests
    out = []
    for s in sites[:MAX_SITES]:
        for chain in _built(s, depth + 1):
            out.append(((h, ctor, sig, s), *(chain or ())))
            if len(out) >= MAX_SITES:
                return out
    return out


def _receives(site, reach: set[str], depth: int = 0):
    """Whether the object built at ``site`` calls a method of ``reach``: True; None when it does not (a producer);
    (where, why) when it is not followed (passed on, used too often). An object built as the argument of another
    call is followed into it (:func:`_passed_into`)."""
    h, call = site[0], site[1]
    where = Location(h.path, line=line(call), column=column(h.data, call))
    chained = _chained_method(call)
    if chained is not None:  # Worker(url).poll()
        return True if chained in reach else None
    bound = _bound_name(call)
    if bound is None:
        into = _passed_into(h, call, reach, depth)
        if into is not False:
            return into
        return (where, f"the object built at {h.path}:{line(call)} is passed on ({shown(call.parent)})")
    name = re.compile(rb"(?<![\w.$])" + re.escape(bound.encode()) + rb"(?![\w$])")
    uses = list(itertools.islice(name.finditer(h.data), MAX_USES + 1))
    if len(uses) > MAX_USES:  # a name used this often is not followed: said, never judged
        return (where, f"the object {bound} built at {h.path}:{line(call)} is used too often to follow")
    methods, other = set(), False
    for m in uses:
        token = h.root.descendant_for_byte_range(m.start(), m.end())
        if token is None or (token.start_byte, token.end_byte) != m.span() or "identifier" not in token.type:
            continue  # inside a string or a comment, or part of another name
        after = re.match(rb"\s*(?:\?\.|\.)\s*([A-Za-z_]\w*)\s*(?:\(|!?\()", h.data[m.end() : m.end() + 120])
        if after:
            methods.add(after.group(1).decode())
        elif not re.match(rb"\s*(?::=|=(?!=)|:[^=])", h.data[m.end() : m.end() + 8]):
            other = True  # passed, returned, aliased: not followed
    if methods & reach:
        return True
    if other:
        return (where, f"the object {bound} built at {h.path}:{line(call)} is passed on")
    return None


MAX_PASSED = 3  # objects passed into another constructor's (Worker(Queue(url))) followed that deep
_BARE = ("java", "csharp")  # languages whose fields are read without this.
MAX_PASSED_FILES = 8  # files looked at for the function an object is passed into


def _passed_into(h: File, call, reach: set[str], depth: int):
    """Whether the object built at ``call``, an argument of another call (``new Worker(new Queue(url))``,
    ``Worker(queue=Queue(url))``, ``run(Queue(url))``), is received from: that call's function (a class's
    constructor, of this file or its package) stores it (``this.queue = queue``, ``self.q = q``, ``@q = q``)
    and a method of the class calls a method of ``reach`` on it: then as for that class's object built there
    (:func:`_receives`: a method reaching that one called on it); a function or constructor calling one on the
    parameter itself: True. None when the function only uses other methods (a producer's outbox); False when
    it is not followed (not an argument, the function not found, deeper than ``MAX_PASSED``)."""
    node, parent, key = call, call.parent, None
    if parent is not None and parent.type in ("keyword_argument", "argument", "named_argument"):
        name = parent.child_by_field_name("name")
        key = text(name) if name is not None and parent.type != "argument" else None
        node, parent = parent, parent.parent
    if depth >= MAX_PASSED or parent is None or parent.type not in ("arguments", "argument_list"):
        return False
    outer = parent.parent
    if outer is None:
        return False
    head = next(
        (outer.child_by_field_name(k) for k in ("constructor", "function", "type", "method", "name")
         if outer.child_by_field_name(k) is not None),
        None,
    )  # fmt: skip
    m = re.search(r"([A-Za-z_$][\w$]*)\W*$", text(head)) if head is not None else None
    if m is None:
        return False
    fname = m.group(1)
    position = None
    if key is None:
        plain = [a for a in parent.named_children if "comment" not in a.type and a.type != "keyword_argument"]
        position = next((i for i, a in enumerate(plain) if a.start_byte == node.start_byte), None)
    for g in [h, *FLOW.files_with(h, (fname,))][:MAX_PASSED_FILES]:
        for d in _definitions(g).get(fname, ())[:4]:
            got = _received_in(g, d, key, position, reach)
            if got is None or got is True:
                return got
            if isinstance(got, set):  # the class's methods that reach the receive through the stored object
                return _receives((h, outer), got, depth + 1)
    return False


def _received_in(g: File, d, key, position, reach: set[str]):
    """For :func:`_passed_into`: a definition ``d`` (a class or a function) taking the object as parameter ``key``
    or at ``position``: True (the parameter's reaching method called where the function runs), the class's
    methods reaching the receive through the field it is stored in, None (neither), False (not read)."""
    fn = d
    if d.type not in _FUNCTION_NODES:  # a class: its constructor
        fn = next((n for n in _members(d) if n.type in _FUNCTION_NODES and _is_constructor(n)), None)
        if fn is None:
            return False
    sig = g.lang.signature(fn, g) if g.lang.signature else None
    if sig is None:
        return False
    keys = [k for k, _, positional in sig[1]]
    if key is None:
        at = position + sig[2] if position is not None else None
        if at is None or at >= len(sig[1]) or not sig[1][at][2]:
            return False
        key = keys[at]
    elif key not in keys:
        return False
    param = re.escape(key.lstrip("$").encode())
    calls = rb"\s*(?:\?\.|\.|->|&\.)\s*(\w+)\s*[(!]?"
    body = g.data[fn.start_byte : fn.end_byte]
    if any(u.group(1).decode() in reach for u in re.finditer(rb"(?<![\w.$])\$?" + param + calls, body)):
        return True
    if d is fn:
        return None
    # a field is written ``this.x``/``self.x``/``$this->x``/``@x``; Java's and C#'s also bare (``_queue = queue``)
    owner = (
        rb"(?:(?:self|this)\s*\.\s*|\$this\s*->\s*|@"
        + (rb"|(?<![\w.$])" if g.lang.name in _BARE else b"")
        + rb")"
    )
    fields = {f.group(1) for f in re.finditer(owner + rb"(\w+)\s*=\s*\$?" + param + rb"\b", body)}
    params = fn.child_by_field_name("parameters")
    if (
        params is not None
        and re.search(  # TypeScript's constructor(private readonly queue: Queue)
            rb"(?:private|public|protected|readonly)\s+(?:readonly\s+)?" + param + rb"\b",
            g.data[params.start_byte : params.end_byte],
        )
    ):
        fields.add(param)
    methods = [(n, g.data[n.start_byte : n.end_byte]) for n in _members(d) if n.type in _FUNCTION_NODES]
    got = set()
    for field in fields:
        use = re.compile(owner + re.escape(field) + calls)
        got |= {_name_of(n) for n, b in methods if any(u.group(1).decode() in reach for u in use.finditer(b))}
    got.discard("")
    for _ in range(8):  # and the methods calling those by name
        names = [re.compile(rb"\." + re.escape(r.encode()) + rb"\s*\(") for r in got]
        more = {_name_of(n) for n, b in methods if _name_of(n) not in got and any(c.search(b) for c in names)}
        if not more:
            break
        got |= more
    return got or None


def _members(cls) -> list:
    """The named nodes of a class's body (its methods), its decorated ones unwrapped."""
    body = cls.child_by_field_name("body")
    if body is None:  # Ruby's class: its statements follow its name
        body = next((c for c in cls.named_children if c.type == "body_statement"), cls)
    out = []
    for n in body.named_children[:2000]:
        if n.type == "decorated_definition":
            n = n.child_by_field_name("definition") or n
        out.append(n)
    return out


_CLASS_NODES = frozenset(("class_definition", "class_declaration", "class", "abstract_class_declaration"))


def _definitions(g: File) -> dict[str, list]:
    """Name -> the classes and named functions of ``g`` so named, found once per file (its first 20,000 nodes)."""
    found = getattr(g, "_definitions", None)
    if found is None:
        found, stack, seen = {}, [g.root], 0
        while stack and seen < 20000:
            n = stack.pop()
            seen += 1
            if n.type in _CLASS_NODES or n.type in _FUNCTION_NODES:
                name = _name_of(n)
                if name:
                    found.setdefault(name, []).append(n)
            stack.extend(n.named_children)
        g._definitions = found
    return found


_MEMBERS = {  # a member access node type -> (its object field, its member field)
    "attribute": ("object", "attribute"),
    "member_expression": ("object", "property"),
    "selector_expression": ("operand", "field"),
    "field_expression": ("value", "field"),
    "member_access_expression": ("expression", "name"),
}


def _chained_method(call) -> str | None:
    """``m`` of ``C(..).m(..)`` (also through ``await``/``?``): the method called on the object built, else None."""
    node, parent = call, call.parent
    while parent is not None and parent.type in (
        "await",
        "await_expression",
        "try_expression",
        "parenthesized_expression",
    ):
        node, parent = parent, parent.parent
    if parent is None:
        return None
    if parent.type == "method_invocation" and parent.child_by_field_name("object") == node:  # Java
        name = parent.child_by_field_name("name")
        return text(name) if name is not None else None
    fields = _MEMBERS.get(parent.type)
    if fields is None or parent.child_by_field_name(fields[0]) != node:
        return None
    outer = parent.parent
    if outer is None or outer.type not in ("call", "call_expression", "invocation_expression"):
        return None
    member = parent.child_by_field_name(fields[1])
    return text(member) if member is not None else None


def _bound_name(call) -> str | None:
    """The plain name the result of ``call`` is bound to (``x = C(..)``, ``const x = new C(..)``, ``x := NewC(..)``,
    ``let x = C::new(..)``, ``var x = new C(..)``), through ``await``/``?``/``.unwrap()``/``&``; None otherwise."""
    node = call
    for _ in range(4):
        parent = node.parent
        if parent is None:
            return None
        if parent.type in (
            "await",
            "await_expression",
            "try_expression",
            "unary_expression",
            "reference_expression",
            "parenthesized_expression",
        ) or (
            parent.type in ("call_expression", "field_expression")
            and text(parent).startswith(text(node))
            and re.search(r"\.(unwrap|expect)\b", text(parent)[len(text(node)) :][:20])
        ):
            node = parent
            continue
        break
    parent = node.parent
    if parent is None:
        return None
    left = None
    if parent.type == "assignment":  # Python
        left = parent.child_by_field_name("left")
    elif parent.type == "variable_declarator":  # JS/TS, Java, C#
        left = parent.child_by_field_name("name") or (
            parent.named_children[0] if parent.named_children else None
        )
    elif parent.type == "let_declaration":  # Rust
        left = parent.child_by_field_name("pattern")
    elif (
        parent.type == "expression_list"
        and parent.parent is not None
        and parent.parent.type in ("short_var_declaration", "assignment_statement")
    ):  # Go
        lhs = parent.parent.child_by_field_name("left")
        left = lhs.named_children[0] if lhs is not None and lhs.named_children else None
    elif parent.type == "equals_value_clause" and parent.parent is not None:  # C#
        left = parent.parent.child_by_field_name("name") or (
            parent.parent.named_children[0] if parent.parent.named_children else None
        )
    if left is None or left.type not in ("identifier", "identifier_pattern"):
        if left is not None and left.type == "mutable_specifier":
            return None
        if parent.type == "let_declaration" and left is not None and text(left).startswith("mut "):
            return text(left)[4:].strip() or None
        return None
    return text(left)


# ------------------------------------------------------------------------ the value a user function returns
# (issue 35) ``const topology = await initializeQueues()`` ... ``topology.payments.url!``, ``url = setup()``,
# ``url, err := setup()``: the value of a call of a function of the package is what its ``return`` statements give,
# read with that call's arguments (Flow.called). Several returns must agree (a literal, a name, an object literal
# written once), else the value is unknown naming them: never one of them picked. At most MAX_RETURNS returns
# are read per function, each a flow step (Flow.spend); a chain or a recursion of calls ends at MAX_DEPTH.
MAX_RETURNS = 8  # return statements of one function read
MAX_RETURN_NODES = 20_000  # nodes of a function's body searched for its returns
_RETURNS = frozenset(("return_statement",))
_AGREEING = ("str", "int", "bool", "name", "env", "none")
_ZEROS = frozenset(('""', "''", "``", "0", *_NOTHING))  # the first result of a failure's return


def returns_of(fn) -> list | None:
    """The expressions ``fn``'s own ``return`` statements give (those of the functions nested in it aside), in
    order; an arrow function's expression body is its one; None when there are more than :data:`MAX_RETURNS` or
    the body is too large to search, or a ``return`` gives nothing. A return of several results whose first is a
    zero value and whose others are not all ``nil`` (Go's ``return "", err``) is a failure's: left out; of a Go
    function of several results, a return's first result is the one a call's first name binds."""
    body = fn.child_by_field_name("body")
    if body is None:
        return None
    if body.type not in ("statement_block", "block", "compound_statement", "body_statement"):
        return [body]  # () => ({ url }) / lambda: expr
    out, stack, seen, errors = [], list(reversed(body.named_children)), 0, 0
    while stack:
        n = stack.pop()
        seen += 1
        if seen > MAX_RETURN_NODES:
            return None
        if n.type in _FUNCTIONS or n.type in _FUNCTION_NODES or n.type in _CLASS_NODES:
            continue
        if n.type in _RETURNS:
            kids = [k for k in n.named_children if k.type != "comment"]
            if not kids:
                return None
            first = kids[0] if len(kids) == 1 else n
            if first.type == "expression_list" and len(first.named_children) == 1:
                first = first.named_children[0]  # Go's `return *out.QueueUrl`: one result, no tuple
            elif first.type == "expression_list" and first.named_children:  # Go's `return url, nil`
                values_ = first.named_children
                if text(values_[0]) in _ZEROS and any(text(r) not in _NOTHING for r in values_[1:]):
                    errors += 1  # `return "", err`: a failure, whose value no consumer gets
                    continue
                result = fn.child_by_field_name("result")
                if (
                    result is not None and result.type == "parameter_list"
                ):  # Go: a call binds its first result
                    first = values_[0]
            out.append(first)
            if len(out) > MAX_RETURNS:
                return None
            continue
        stack.extend(reversed(n.named_children))
    return out if out or not errors else None


def returned(g: File, fn, call, caller: File, depth: int, name: str = "") -> Value:
    """The value the call ``call`` (in ``caller``) of the function ``fn`` (of ``g``) returns: its return
    expressions read with that call's arguments, one value when they agree, else unknown naming why."""
    name = name or _name_of(fn) or "the function"
    if depth >= MAX_DEPTH:
        return unknown(call, f"{name}() returns a value followed too deep")
    exprs = returns_of(fn)
    if not exprs:
        return unknown(call, f"{name}() returns nothing visguard reads")
    got = []
    for expr in exprs:
        if not FLOW.spend():
            return unknown(call, f"{name}(): the value flow's budget ran out")
        if expr.type == "expression_list":  # Python's `return url, None`: a tuple
            v = Value(
                "list", [FLOW.called(g, fn, call, caller, k, depth) for k in expr.named_children[:64]], expr
            )
        else:
            v = FLOW.called(g, fn, call, caller, expr, depth)
        if len(exprs) > 1 and (v.kind == "none" or text(expr) in _NOTHING):
            continue  # an early `return None`: "nothing yet", as an assignment of it (File._agreed)
        if v.kind == "unknown":
            parts = f"{name}() returns {v.why or shown(expr)}".split(" returns ")
            if len(parts) > 4:  # a chain of calls: its first two and what stopped it
                parts = [*parts[:2], "...", parts[-1]]
            out = unknown(call, " returns ".join(parts))
            out.env = v.env
            return out
        if v.file is None and g is not caller:
            v.file = g
        got.append((v, expr))
    if not got:
        return unknown(call, f"{name}() returns nothing")
    first = got[0][0]
    if len(got) == 1:
        return first
    if first.kind in _AGREEING and all(v.kind == first.kind and _same(v) == _same(first) for v, _ in got):
        out = Value(first.kind, first.value, first.node, first.why, first.default)
        for slot in ("via", "scale", "mark", "env", "file"):
            setattr(out, slot, getattr(first, slot))
        out.computed = True  # several returns write it
        return out
    lines = ", ".join(f"line {line(e)}" for _, e in got[:MAX_CANDIDATES])
    return unknown(call, f"{name}() returns different values ({lines})")
