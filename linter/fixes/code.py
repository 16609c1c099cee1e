"""The application-code adapter of the fix core (visguard.linter.fixes.core): a worker consumer's setting where its
code or framework configuration writes it (issue 25), in the consumer's own terms.

What is mechanical: a change of ``visibility_override``, ``heartbeat_interval``, ``stop_timeout`` or
``work_timeout`` of a consumer the code readers (visguard.linter.loaders.code) read, when the value is a plain
number written at the place the reader read it from: a receive's ``VisibilityTimeout=30``, an options object's
``visibilityTimeout: 30``, a builder's ``.visibilityTimeout(30)``, ``Duration.ofSeconds(30)``, ``2.minutes``, a
Spring String attribute ``"30"`` (the digits inside the quotes), a worker command's ``--timeout=60``, Supervisor's
``stopwaitsecs=30``, Shoryuken's ``timeout: 25``. The value is written in the unit the code writes it in
(sqs-consumer's ``handleMessageTimeout`` in milliseconds, ``Duration.ofMinutes`` in minutes...); a value that is
not a whole number of that unit is left alone.

How a place is found: the file is parsed with the reader's grammar (tree-sitter gives byte ranges) and read again
by the reader; the change's location (line and code-point column, as every reader reports them) must be where
that reader located the field of that consumer, the number there must lie in the span the reader recorded for it
(``CodeResult.spans``) and, in its unit, be the value the reader read. Only the digits are replaced: every other byte of
the file stays as it was.

Left alone with the reason naming what the value comes from (visguard never flattens a reference into a literal):
a name defined elsewhere (a constant, an import, a field), a constant's own definition (other code may use it),
an environment variable's default, an expression, a setting the code does not write (adding one is a person's
call).
"""

from __future__ import annotations

import os
import posixpath

from visguard.linter.fixes.core import Adapter, CannotFix, Edit, splice
from visguard.linter.loaders import languages
from visguard.linter.model import Change

FIELDS = ("visibility_override", "heartbeat_interval", "stop_timeout", "work_timeout")
# the code loader's language module -> the tree-sitter grammar of a file (by its ending)
_GRAMMAR = {".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx"}

NUMBERS = {
    "integer", "float", "number", "decimal_integer_literal", "decimal_floating_point_literal", "int_literal",
    "float_literal", "integer_literal", "real_literal",
}  # fmt: skip
STRINGS = {"string", "string_literal", "interpreted_string_literal", "encapsed_string"}
# a node that gives a value to a key: the value is its last named child (or its "value"/"right" field)
HOLDERS = {"keyword_argument", "pair", "element_value_pair", "keyed_element", "array_element_initializer"}
# a node that names a value for other code to use
BINDINGS = {
    "variable_declarator", "const_spec", "var_spec", "short_var_declaration", "const_element", "property_element",
    "assignment", "assignment_expression", "const_declaration", "field_declaration", "constant_declaration",
}  # fmt: skip
# a node around a single value that adds nothing to it
WRAPPERS = {
    "parenthesized_expression", "expression_list", "literal_element", "argument", "property_initializer",
    "equals_value_clause",
}  # fmt: skip
TYPED = {"as_expression", "satisfies_expression", "non_null_expression"}  # TypeScript: the value comes first
CALLS = {"call", "call_expression", "method_invocation", "invocation_expression", "function_call_expression",
         "member_call_expression", "scoped_call_expression", "new_expression", "object_creation_expression"}  # fmt: skip
ARGUMENTS = {"argument_list", "arguments"}
NAMES = {
    "identifier", "attribute", "member_expression", "field_access", "selector_expression",
    "member_access_expression", "name", "variable_name", "constant", "scope_resolution",
    "class_constant_access_expression", "qualified_name", "subscript", "subscript_expression",
}  # fmt: skip
# words that read the environment, in every language read (os.getenv, process.env, System.getenv, os.Getenv,
# Environment.GetEnvironmentVariable, getenv/env()/$_ENV, ENV[...])
ENV_WORDS = {"getenv", "Getenv", "LookupEnv", "environ", "env", "GetEnvironmentVariable", "ENV", "$_ENV",
             "_ENV", "$_SERVER", "getEnv"}  # fmt: skip
# a unit the code writes a number of seconds in: Duration.ofMinutes(2), 2.minutes
UNITS = {
    "ofSeconds": 1, "ofMinutes": 60, "ofHours": 3600, "ofDays": 86_400, "ofMillis": 0.001,
    "second": 1, "seconds": 1, "minute": 60, "minutes": 60, "hour": 3600, "hours": 3600,
}  # fmt: skip
# option keys whose number is in another unit than the model's seconds
KEY_UNITS = {"handleMessageTimeout": 0.001}
_STOP = ("statement", "declaration", "program", "module", "source_file", "compilation_unit", "block")


def language(path: str) -> str | None:
    """The code loader's module for ``path`` (python, javascript, ..., frameworks), None for other files and for
    the files that hold no consumer setting (.env, compose)."""
    from visguard.linter.loaders import registry

    if not os.path.basename(path).endswith(registry.CODE_ENDINGS):
        return None  # no import of the code loader for a template, a manifest, a .tf file
    from visguard.linter.loaders.code import loader

    lang = loader.language_of(path)
    return None if lang in (None, "envfiles") else lang


class _Parsed:
    """The text, its bytes, the reader's consumers by id, and (code) the syntax tree."""

    __slots__ = ("text", "data", "consumers", "root", "lines", "spans", "places")

    def __init__(self, text: str, data: bytes, consumers: dict, root=None, spans=None, places=None):
        self.text, self.data, self.consumers, self.root = text, data, consumers, root
        self.spans = spans or {}  # (consumer id, field) -> the byte span the reader read the value from
        self.places = places or {}  # (consumer id, field) -> where the reader's engine says the digits are
        self.lines = data.split(b"\n")


class CodeAdapter(Adapter):
    """Locate a consumer's setting where its reader read it; render edits as spans of the digits."""

    source = "code"

    def __init__(self, path: str):
        self.path = path
        self.module = language(path)
        ending = os.path.splitext(path)[1].lower()
        self.grammar = _GRAMMAR.get(ending) or languages.grammar(self.module or "", path)
        self._had_error = False

    # ---------------------------------------------------------------------------------------- the core's steps
    def parse(self, text: str) -> _Parsed:
        from visguard.linter.loaders.code import loader, parse

        data = text.encode("utf-8")
        mod = loader.module(self.module) if self.module else None
        if mod is None:
            raise ValueError("no reader")
        result = mod.read(self.path, data)
        consumers = {c.id: c for c in result.consumers}
        root = None
        if self.module != "frameworks":
            root = parse(self.grammar, data)
            if root is None:
                raise ValueError("the parse ran out of time")
            self._had_error = root.has_error
        return _Parsed(text, data, consumers, root, result.spans, result.places)

    def locate(self, change: Change, doc: _Parsed) -> list[tuple[tuple, object, object]]:
        from visguard.linter.consumer_words import term

        if change.scope != "consumer" or change.field not in FIELDS:
            raise CannotFix(f"{change.field} is not a setting visguard writes in application code")
        loc = change.location
        if loc is None or not loc.file or not _same_file(loc.file, self.path):
            raise CannotFix(f"its change is written in {loc.file if loc else 'another file'}")
        c = doc.consumers.get(change.target)
        if c is None:
            raise CannotFix("the consumer is not read from this file as it is now")
        words = term(c, change.field)
        at = c.locations.get(change.field)
        if at is None or (at.line, at.column) != (loc.line, loc.column):
            raise CannotFix(f"{words} is not written in this consumer's code: add it by hand")
        value = change.value
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise CannotFix(f"{words} = {value!r} is not a number of seconds")
        read = getattr(c, change.field) if change.field in type(c).__slots__ else c.settings.get(change.field)
        at_place = doc.places.get((c.id, change.field))
        if at_place is not None:
            start, end, digits, scale = _from_place(doc, at_place, words)
        elif self.module == "frameworks":
            name = posixpath.basename(self.path.replace("\\", "/"))
            raise CannotFix(f"{words} is not a setting visguard writes in {name}")
        else:
            start, end, digits, scale = _code_place(doc, loc.line, loc.column, words)
        if read is None or abs(int(digits) * scale - float(read)) > 1e-9:
            raise CannotFix(f"{words} is not the number written at line {loc.line}: change it by hand")
        span = doc.spans.get((c.id, change.field))
        if span is not None and not (span[0] <= start and end <= span[1]):
            raise CannotFix(
                f"{words}: the number at line {loc.line} is not the literal the reader read: change it by hand"
            )
        s, e = len(doc.data[:start].decode("utf-8")), len(doc.data[:end].decode("utf-8"))
        return [((s, e), value, (s, e, scale, words))]

    def render(self, text: str, doc: _Parsed, edits: list[Edit]) -> tuple[str, dict]:
        placed, failed = [], {}
        for e in edits:
            start, end, scale, words = e.place
            n = float(e.value) / scale
            if abs(n - round(n)) > 1e-9:
                unit = {0.001: "milliseconds", 60: "minutes", 3600: "hours", 86_400: "days"}.get(
                    scale, "its unit"
                )
                failed[e.key] = f"{e.value:g} s is not a whole number of {unit}, as {words} is written"
                continue
            placed.append(
                Edit(e.finding, e.key, e.value, (start, end, lambda v, k=scale: str(int(round(v / k)))))
            )
        out, overlap = splice(text, placed)
        failed.update(overlap)
        return out, failed

    def check(self, text: str) -> None:
        """The edited text still parses with the reader's grammar (no syntax error it did not have)."""
        if self.module == "frameworks":
            return  # line-based files: only digits were replaced by digits
        from visguard.linter.loaders.code import parse

        root = parse(self.grammar, text.encode("utf-8"))
        if root is None or (root.has_error and not self._had_error):
            raise ValueError("the rewrite does not parse")


# -------------------------------------------------------------------------------------------- code files
def _from_place(doc: _Parsed, at, words: str) -> tuple[int, int, str, float]:
    """(start, end, digits, unit in seconds) of the number the reader recorded the place of
    (``visguard.linter.loaders.code.engine.Place``), else CannotFix with what the value comes from."""
    if at.reason == "binding":
        raise CannotFix(
            f"{words} is {at.name}, defined at line {at.line}, which other code may use: change it there by hand"
        )
    if at.reason == "env":
        raise CannotFix(
            f"{words} is the default of the environment variable {at.name}: set {at.name} where the worker "
            "runs, or change the default by hand"
        )
    if at.reason == "computed":
        raise CannotFix(f"{words} is computed ({_squeeze(at.shown)}): change it by hand")
    if at.reason == "absent":
        raise CannotFix(f"{words} is not written as one {at.shown} here: add or change it by hand")
    if at.reason == "written":
        raise CannotFix(f"{words} is written as {_squeeze(at.shown)}: change it by hand")
    return at.start, at.end, doc.data[at.start : at.end].decode("ascii", "replace"), float(at.scale)


def _squeeze(s: str | None) -> str:
    s = " ".join((s or "").split())
    return s if len(s) <= 60 else s[:57] + "..."


def _offset(doc: _Parsed, line: int, column: int) -> int:
    """The byte offset of (line, column): every reader counts columns in Unicode code points, 1-based
    (``visguard.linter.loaders.code.column``); a node must start there."""
    if not 1 <= line <= len(doc.lines):
        raise CannotFix(f"line {line} is not in the file as it is now")
    raw = doc.lines[line - 1].decode("utf-8", "replace")
    if not 1 <= column <= len(raw) + 1:
        raise CannotFix(f"line {line} has no column {column} in the file as it is now")
    off = sum(len(x) + 1 for x in doc.lines[: line - 1]) + len(raw[: column - 1].encode("utf-8"))
    n = doc.root.descendant_for_byte_range(off, off)
    if n is None or n.start_byte != off:
        raise CannotFix(f"nothing is written at line {line}, column {column} of the file as it is now")
    return off


def _outermost(root, off: int):
    n = root.descendant_for_byte_range(off, off)
    while n.parent is not None and n.parent.start_byte == off and not n.parent.type.endswith(_STOP):
        n = n.parent
    return n


def _value_of(holder):
    v = holder.child_by_field_name("value") or holder.child_by_field_name("right")
    if v is None and holder.named_children:
        v = holder.named_children[-1]
    return v


def _unwrap(n):
    while n is not None and (
        (n.type in WRAPPERS and n.named_child_count == 1) or (n.type in TYPED and n.named_child_count)
    ):
        n = n.named_children[0]
    return n


def _up(n):
    """The first ancestor of ``n`` that is not a wrapper."""
    p = n.parent
    while p is not None and (p.type in WRAPPERS or p.type in TYPED):
        p = p.parent
    return p


def _text(n) -> str:  # the trees are parsed from bytes (loaders.code.parse): a node's text is a slice of them
    return n.text.decode("utf-8", "replace") if n is not None and n.text is not None else ""


def _shown(n) -> str:
    s = " ".join(_text(n).split())
    return s if len(s) <= 60 else s[:57] + "..."


def _same(a, b) -> bool:
    return a is not None and b is not None and (a.start_byte, a.end_byte) == (b.start_byte, b.end_byte)


def _code_place(doc: _Parsed, line: int, column: int, words: str) -> tuple[int, int, str, float]:
    """(start, end, digits, unit in seconds) of the number at (line, column), else CannotFix with what the value
    comes from."""
    v = _outermost(doc.root, _offset(doc, line, column))
    scale = 1.0
    if v.type in HOLDERS:
        scale = KEY_UNITS.get(_key_of(v), 1.0)
        v = _value_of(v)
    v = _unwrap(v)
    if v is not None and v.type in CALLS:  # 2.minutes (Ruby): a number and its unit
        recv, method = v.child_by_field_name("receiver"), v.child_by_field_name("method")
        if recv is not None and recv.type in NUMBERS and _text(method) in UNITS:
            scale, v = float(UNITS[_text(method)]), recv
    if v is None:
        raise CannotFix(f"{words} has no value written here")
    if v.type not in NUMBERS and v.type not in STRINGS:
        raise CannotFix(_source_of(v, words))
    start, end, digits = _digits(v, words)
    # what holds the number: the option itself, a unit (Duration.ofMinutes), or something that makes it another
    # value (a constant's definition, an environment variable's default, an expression)
    holder = _up(v)
    if holder is not None and holder.type in HOLDERS and _same(_unwrap(_value_of(holder)), v):
        return start, end, digits, KEY_UNITS.get(_key_of(holder), scale)
    if holder is not None and holder.type in ARGUMENTS:
        call = holder.parent
        if _call_reads_env(call):
            raise CannotFix(_env_reason(call, words))
        name = _text(call.child_by_field_name("name")) if call is not None else ""
        return start, end, digits, float(UNITS.get(name, scale))
    if holder is not None and holder.type in CALLS and scale != 1.0:
        return start, end, digits, scale  # 2.minutes
    if holder is not None and holder.type in ("assignment_expression", "assignment"):
        left = holder.child_by_field_name("left")
        in_initializer = holder.parent is not None and holder.parent.type == "initializer_expression"
        if in_initializer or (
            left is not None and left.type not in ("identifier", "variable_name", "constant")
        ):
            return start, end, digits, scale  # r.VisibilityTimeout = 30, new R { VisibilityTimeout = 30 }
    if holder is not None and holder.type in BINDINGS:
        name = _binding_name(holder)
        raise CannotFix(
            f"{words} is {name}, defined at line {holder.start_point[0] + 1}, which other code may use: change "
            "it there by hand"
        )
    if holder is not None and _reads_env(holder):
        raise CannotFix(_env_reason(holder, words))
    raise CannotFix(f"{words} is computed ({_shown(holder or v)}): change it by hand")


def _key_of(holder) -> str:
    key = holder.child_by_field_name("key") or holder.child_by_field_name("name")
    if key is None and holder.named_child_count > 1:
        key = holder.named_children[0]
    return _text(key).strip("\"'`:$").split(".")[-1]


def _binding_name(node) -> str:
    for field in ("name", "left"):
        n = node.child_by_field_name(field)
        if n is not None:
            return _shown(n)
    for n in node.named_children:
        if n.type in NAMES:
            return _text(n)
    return _shown(node)


def _digits(v, words: str) -> tuple[int, int, str]:
    """(start, end, digits) of the whole number a literal writes: ``30``, ``30L`` (the suffix stays), ``"30"``
    (inside the quotes)."""
    raw = _text(v)
    i = 0
    while i < len(raw) and not raw[i].isdigit():
        i += 1
    j = i
    while j < len(raw) and raw[j].isdigit():
        j += 1
    head, digits, tail = raw[:i], raw[i:j], raw[j:]
    quote = v.type in STRINGS
    ok_head = all(ch in "\"'`@$" for ch in head) if quote else head == ""
    ok_tail = all(ch in "\"'`" for ch in tail) if quote else all(ch in "lLuU" for ch in tail)
    if not digits or not ok_head or not ok_tail or (len(digits) > 1 and digits[0] == "0"):
        raise CannotFix(f"{words} is written as {_shown(v)}: change it by hand")
    return v.start_byte + len(head.encode("utf-8")), v.start_byte + len(head.encode("utf-8")) + j - i, digits


def _reads_env(node) -> bool:
    stack = [node] if node is not None else []
    seen = 0
    while stack and seen < 500:
        n = stack.pop()
        seen += 1
        leaf = n.child_count == 0 or n.type in NAMES
        if leaf and (_text(n) in ENV_WORDS or _text(n).split(".")[-1] in ENV_WORDS):
            return True
        stack.extend(n.children)
    return False


def _call_reads_env(call) -> bool:
    """``call`` reads the environment by its own name (``os.getenv``, ``ENV.fetch``), not by what a chain of
    calls before it does (a builder's ``.queueUrl(System.getenv(...))``)."""
    if call is None:
        return False
    parts = [call.child_by_field_name(f) for f in ("name", "function", "method")]
    parts += [
        n
        for n in (call.child_by_field_name(f) for f in ("object", "receiver", "scope"))
        if n is not None and n.type in NAMES
    ]
    return any(_reads_env(p) for p in parts if p is not None)


def _env_name(node) -> str | None:
    """The variable an environment read names: its first string, or ``process.env.X``'s ``X``."""
    stack, seen = [node], 0
    while stack and seen < 500:
        n = stack.pop()
        seen += 1
        if n.type in STRINGS:
            s = _text(n).strip("\"'`")
            if s and not s.isdigit():
                return s
        if n.type == "member_expression" and _text(n.child_by_field_name("object")).endswith("env"):
            return _text(n.child_by_field_name("property"))
        stack.extend(reversed(n.children))
    return None


def _env_reason(node, words: str) -> str:
    name = _env_name(node)
    var = f"the environment variable {name}" if name else "an environment variable"
    return (
        f"{words} is the default of {var}: set {name or 'it'} where the worker runs, or change the default by "
        "hand"
    )


def _source_of(v, words: str) -> str:
    """Why a value that is not a number written here is left alone, naming what it comes from."""
    if _reads_env(v):
        return _env_reason(v, words)
    if v.type in NAMES:
        return (
            f"{words} is {_shown(v)}, defined elsewhere: change it where it is defined, by hand (visguard does "
            "not replace a reference with a number)"
        )
    return f"{words} is computed ({_shown(v)}): change it by hand"


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)
