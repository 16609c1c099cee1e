"""Evaluate Terraform expressions the way ``terraform plan`` would, as far as the files alone allow.

:class:`Evaluator` is the part of a :class:`~.scope.Scope` (one module instance) that reads an expression: its
syntax (native HCL as tree-sitter nodes, or JSON), operators, ``for`` expressions, function calls, templates and
references. A reference is resolved by the scope: ``var.x`` and ``local.y`` (:mod:`.scope`), a resource and its
``count`` / ``for_each`` instances (:mod:`.instances`), ``module.x`` (:mod:`.modules`). What cannot be known
without a cloud account (a computed ARN, a data source, a variable without a value) becomes a
:class:`~.values.Ref` or an :class:`~.values.Unknown`, never a guess. The work one root module may take is
bounded by its :class:`Budget`.
"""

from __future__ import annotations

import math
import os
import re

from visguard.errors import VisguardError
from visguard.linter.model import Location

from ..values import MAX_TEXT
from .files import NAME_CHARS, excerpt
from .functions import FUNCTIONS, TERRAFORM_FUNCTIONS
from .hcl import Attr, Block, JsonExpr, Source, Span, line_of
from .template import FILE_FUNCTIONS, Templates
from .values import (
    MAX_STRING,
    SYMBOLIC,
    Bound,
    Encoded,
    EvalError,
    LimitError,
    Ref,
    Text,
    Unknown,
    kind,
    num_out,
    to_number,
    to_string,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

# Data sources visguard resolves against the resources read, by the argument that names what they look up.
DATA_NAMES = {"aws_sqs_queue": "name", "aws_lambda_function": "function_name"}

# Evaluation work in one root module (its child modules included), bounded the way the CloudFormation loader
# bounds Fn::ForEach: string-doubling locals, nested `for` over range(1000), module count x resource count would
# otherwise take minutes and gigabytes. The 820-resource module of benchmarks/ spends under 2 % of each.
MAX_STEPS = 1_000_000  # values built and loop iterations
MAX_CHARS = 50_000_000  # characters of the strings built
MAX_TOTAL_INSTANCES = 10_000  # resource and module instances (count / for_each expanded)
MAX_NUMBER_CHARS = MAX_TEXT  # a number literal longer than this is refused (loaders.values: one bound)
SHOWN_CHARS = 80  # an expression quoted in a note: at most this much of it


class Env:
    """What an expression may refer to besides the scope: each / count and for-expression names; and the
    Source of the file the expression is written in."""

    __slots__ = ("names", "src")

    def __init__(self, names: dict | None = None, src: Source | None = None):
        self.names = {} if names is None else names
        self.src = src

    def child(self, **names) -> Env:
        return Env({**self.names, **names}, self.src)

    def __repr__(self) -> str:
        return f"Env(names={self.names!r})"


def text_of(node, src: Source | None) -> str:
    """The expression ``node`` (a tree-sitter node or a Span) as written, on one line (its first
    :data:`SHOWN_CHARS` characters); "expression" for a file reached through a symlink (never quoted)."""
    if node is not None and src is not None and src.shown:
        if node.end_byte - node.start_byte > 4 * SHOWN_CHARS:  # a 9 MB heredoc is not copied to be cut
            text = src.data[node.start_byte : node.start_byte + 4 * SHOWN_CHARS].decode("utf-8", "ignore")
        else:
            text = src.slice(node)
        text = " ".join(text.split())
        return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."
    return "expression"


class Budget:
    """The evaluation work one root module may take (:data:`MAX_STEPS`, :data:`MAX_CHARS`,
    :data:`MAX_TOTAL_INSTANCES`); shared by the scopes of its module instances."""

    __slots__ = ("steps", "chars", "instances")

    def __init__(self):
        self.steps = self.chars = self.instances = 0

    def spend(self, steps: int, node=None) -> None:
        self.steps += steps
        if self.steps > MAX_STEPS:
            raise LimitError(_BOUND, node)

    def text(self, n: int, node=None) -> None:
        """A string of ``n`` characters is about to be built."""
        if n > MAX_STRING:
            raise LimitError(
                f"a string longer than {MAX_STRING:,} characters (visguard's bound on one value)", node
            )
        self.chars += n
        if self.chars > MAX_CHARS:
            raise LimitError(_BOUND, node)

    def value(self, v: Any, node=None) -> Any:
        """Charge a value just built (its elements, nested ones included, and the characters of its strings)."""
        if type(v) is str:
            self.text(len(v), node)
        elif isinstance(v, (list, dict)):
            left = MAX_STEPS - self.steps
            n, chars, stack = 0, 0, [v]
            while stack and n <= left:
                x = stack.pop()
                n += 1
                if type(x) is str:
                    chars += len(x)
                elif isinstance(x, dict):
                    stack.extend(x.values())
                elif isinstance(x, list):
                    stack.extend(x)
            self.spend(n, node)
            self.chars += chars
            if self.chars > MAX_CHARS:
                raise LimitError(_BOUND, node)
        return v

    def add_instances(self, n: int, block: Block) -> None:
        self.instances += n
        if self.instances > MAX_TOTAL_INSTANCES:
            raise Bound(
                f"count/for_each expand to more than {MAX_TOTAL_INSTANCES:,} resource and module instances "
                "(visguard's bound on one root module)",
                file=block.file,
                place=f"line {block.line}",
            )


_BOUND = (
    f"the expressions expand to more than {MAX_STEPS:,} values or {MAX_CHARS:,} characters "
    "(visguard's bound on evaluating one root module)"
)


class Instance:
    """A resource or module instance as an expression sees it (``aws_sqs_queue.q``, ``module.jobs``): its
    attributes are read by name; it has no instances to index."""

    __slots__ = ()
    address: str

    def attr(self, name: str, node=None) -> Any:
        raise NotImplementedError


class Evaluator(Templates):
    """The expressions of one module instance: mixed into :class:`~.scope.Scope`, which gives ``mod`` (the
    module's declarations), ``loader``, ``prefix``, ``budget`` and resolves the names an expression refers to
    (``var()``, ``local()``, ``resource_value()``, ``module_obj()``)."""

    # names another tool adds to the language (Terragrunt): a call or a reference to them is not known here
    unknown_functions: frozenset[str] = frozenset()
    unknown_roots: frozenset[str] = frozenset()

    # ------------------------------------------------------------------ evaluation entry points
    def eval_attr(self, attr: Attr, env: Env | None = None) -> Any:
        env = env or Env()
        key = (id(attr), id(env))
        if key in self._active:
            raise VisguardError(
                f"{attr.name}: the expression depends on itself (a cycle)",
                file=attr.file,
                place=f"line {attr.line}",
            )
        self._active.add(key)
        try:
            expr = attr.expr
            if type(expr) is JsonExpr:
                return self._json(expr.value, Env(env.names, attr.src))
            return self._node(expr, Env(env.names, attr.src))
        except EvalError as exc:
            line = line_of(exc.node) or attr.line
            if isinstance(attr.expr, JsonExpr):
                line = attr.line
            if attr.src is not None and not attr.src.shown and not isinstance(exc, LimitError):
                raise VisguardError(
                    "an expression cannot be evaluated (a file reached through a symlink: its text is not shown)",
                    file=attr.file,
                    place=f"line {line}",
                ) from None
            cls = Bound if isinstance(exc, LimitError) else VisguardError
            raise cls(f"{attr.name}: {exc}", file=attr.file, place=f"line {line}") from None
        except RecursionError:
            raise Bound(
                f"{attr.name}: expression nested too deeply", file=attr.file, place=f"line {attr.line}"
            ) from None
        finally:
            self._active.discard(key)
            hits = getattr(self.loader, "undeclared", None)
            if hits and hits[-1][2] is None:  # an undeclared name met: where the expression naming it is
                for hit in hits:
                    if hit[2] is None:
                        hit[2] = Location(attr.file, attr.line, attr.column, path=attr.name)

    def eval(self, node, env: Env) -> Any:
        if isinstance(node, JsonExpr):
            return self._json(node.value, env)
        return self._node(node, env)

    # ------------------------------------------------------------------ JSON syntax
    def _json(self, v: Any, env: Env) -> Any:
        if isinstance(v, str):
            if "${" in v or "%{" in v:
                return self._template_text(v, env)
            return v
        if isinstance(v, dict):
            return {k: self._json(x, env) for k, x in v.items()}
        if isinstance(v, list):
            return [self._json(x, env) for x in v]
        return v

    def _template_text(self, body: str, env: Env) -> Any:
        """A template given as text (a heredoc's body, a JSON-syntax string): rendered by :mod:`.template`."""
        try:
            return self.render_text(body, env)
        except VisguardError as exc:
            raise EvalError(f"invalid template ({exc.detail})") from None

    # ------------------------------------------------------------------ native syntax (tree-sitter nodes)
    def _node(self, node, env: Env) -> Any:
        t = node.type
        if t == "expression":  # the common wrappers are unwrapped here, not by a call each
            kids = node.children
            if len(kids) != 1:  # a term and its traversals (a.b[0]), as _n_expression reads them
                kids = [c for c in kids if c.type != "comment"]
                if not kids:
                    raise EvalError("malformed expression", node)
                return self._seq(kids, env)
            node = kids[0]
            t = node.type
        if t in _WRAPPERS:  # each has exactly one child
            node = node.children[0]
            t = node.type
        fn = _DISPATCH.get(t)
        if fn is None:
            return Unknown(text_of(node, env.src), f"{node.type} expressions are not evaluated")
        return fn(self, node, env)

    def _n_expression(self, node, env):
        kids = node.children
        if len(kids) == 1:
            return self._node(kids[0], env)
        kids = [c for c in kids if c.type != "comment"]
        if not kids:
            raise EvalError("malformed expression", node)
        return self._seq(kids, env)

    def _n_single(self, node, env):
        """collection_value, template_expr, for_expr, operation: one child that says which."""
        return self._node(node.children[0], env)

    def _operand(self, items: list, env):
        """An operand of an operator: one node, or a term and its traversals (``a.b[0]``: three siblings)."""
        return self._node(items[0], env) if len(items) == 1 else self._seq(items, env)

    def _seq(self, items: list, env):
        """A term with its traversals: ``x``, ``a.b[0]``, ``(expr).c``, ``f(x)[0]``, ``a[*].b``."""
        t0 = items[0].type
        paren = t0 == "("
        base = items[1] if paren else items[0]
        post = items[3:] if paren else items[1:]
        if not post:
            return self._node(base, env)
        steps, k, n = [], 0, len(post)
        data = env.src.data
        while k < n:
            step = post[k]
            t = step.type
            if t == "splat":
                break
            if t == "get_attr":  # .name: the common step, read here (what _step does)
                name = step.children[-1]
                steps.append(("attr", data[name.start_byte : name.end_byte].decode("utf-8", "replace")))
            else:
                steps.append(self._step(step, env))
            k += 1
        head = Span(items[0], post[k - 1]) if k else Span(items[0], items[2]) if paren else base
        if t0 == "variable_expr":
            value = self._reference(head, env.src.slice(base), steps, env)
        else:
            value = self._apply(self._node(base, env), steps, head, env)
        for splat in post[k:]:
            value = self._splat(value, splat, Span(items[0], splat), env)
        return value

    def _step(self, node, env) -> tuple[str, Any]:
        """("attr", name) for ``.name``; for ``[expr]`` and the legacy ``.0``: ("key", value) when the index is
        written as a literal (``["ghcr.io"]``, ``[0]``: a message may name it), ("index", value) otherwise (its
        value may come from a variables file: a message never shows it)."""
        t = node.type
        if t == "get_attr":
            return "attr", env.src.slice(node.children[-1])
        if t != "index":
            raise EvalError(f"unexpected {node.type}", node)
        idx = node.named_children[0]
        if idx.type == "legacy_index":
            return "key", int(env.src.slice(idx)[1:])
        expr = next(c for c in idx.named_children if c.type == "expression")
        literal = re.fullmatch(r'\s*(?:"[^"\\$%]*"|[0-9]+)\s*', env.src.slice(expr)) is not None
        return ("key" if literal else "index"), self._node(expr, env)

    def _n_literal_value(self, node, env):
        c = node.children[0]  # literal_value has one child
        t = c.type
        if t == "numeric_lit":
            text = env.src.data[c.start_byte : c.end_byte].decode("utf-8", "replace")
            if len(text) > MAX_NUMBER_CHARS:  # int() of 5,000 digits is refused by Python, and no AWS setting
                raise LimitError(
                    f"a number written with {len(text):,} characters, beyond any AWS limit", node
                )
            if text.isdigit():
                return int(text)
            try:
                v = float(text)
            except ValueError:
                raise EvalError(f"invalid number {excerpt(text)}", node) from None
            if not math.isfinite(v):  # 1e400
                raise LimitError(f"the number {excerpt(text)} is beyond any AWS limit", node)
            return v
        if t == "bool_lit":
            return env.src.slice(c) == "true"
        if t == "null_lit":
            return None
        return self._unescape(env.src.data[c.start_byte + 1 : c.end_byte - 1].decode("utf-8", "replace"))

    def _n_tuple(self, node, env):
        out = [self._node(c, env) for c in node.named_children if c.type == "expression"]
        return self.budget.value(out, node)

    def _n_object(self, node, env):
        out = {}
        for elem in node.named_children:
            if elem.type != "object_elem":
                continue
            key_node, value_node = _key_value(elem)
            key = self._object_key(key_node, env)
            out[key] = self._node(value_node, env)
        return self.budget.value(out, node)

    def _object_key(self, key_node, env):
        kids = [c for c in key_node.children if c.type != "comment"]
        if len(kids) == 1 and kids[0].type == "variable_expr":
            return env.src.slice(kids[0])  # a bare name is the key itself, not a reference (in, for, if too)
        v = self._node(key_node, env)
        if isinstance(v, SYMBOLIC):
            raise EvalError("an object key must be known here", key_node)
        if isinstance(v, (dict, list)) or v is None:
            raise EvalError(f"an object key must be a string, got a {kind(v)}", key_node)
        return to_string(v)

    # strings ------------------------------------------------------------------------------------------
    _ESC = r"\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)|([$%])\2\{"  # compiled on first use (``re`` caches it)

    @classmethod
    def _unescape(cls, s: str) -> str:
        if "\\" not in s and "$${" not in s and "%%{" not in s:
            return s

        def rep(m):
            e = m.group(1)
            if e is None:
                return m.group(2) + "{"  # $${ and %%{ are a literal ${ and %{
            if e[0] in "uU":
                return chr(int(e[1:], 16))
            return {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\"}.get(e, "\\" + e)

        return re.sub(cls._ESC, rep, s, flags=re.S)

    def _n_quoted_template(self, node, env):
        data = env.src.data
        kids = node.children
        pos = kids[0].end_byte  # after the opening quote
        parts: list = []  # literal text and interpolated values; a symbolic value in a 1-tuple
        values = 0
        symbolic = False
        strip_next = False
        for c in kids[1:]:
            t = c.type
            if t == "template_literal" or t == "comment":
                continue  # the literal text is read between the other parts: tree-sitter leaves out spaces
            start = c.start_byte
            lit = self._unescape(data[pos:start].decode("utf-8", "replace")) if start > pos else ""
            if strip_next:  # after the escapes: a ~ strips the newline "\n" writes too
                lit, strip_next = lit.lstrip(), False
            if t == "quoted_template_end":
                if lit:
                    parts.append(lit)
                break
            if t == "template_directive":  # %{ for } / %{ if }: the whole template by the full renderer
                return self._render(node, kids[0].end_byte, kids[-1].start_byte, env, self._unescape)
            # template_interpolation: ${ [~] expression [~] } (~ strips the spaces and newlines beside it)
            inner = c.children
            if len(inner) == 3:
                expr = inner[1]
            else:
                expr = next((x for x in inner if x.type == "expression"), None)
                if expr is None:
                    raise EvalError("an interpolation needs an expression", c)
                marks = [x.start_byte < expr.start_byte for x in inner if x.type == "strip_marker"]
                if True in marks:
                    lit = lit.rstrip()
                strip_next = False in marks
            if expr.type != "expression":
                raise EvalError("an interpolation needs an expression", c)
            if lit:
                parts.append(lit)
            v = self._node(expr, env)
            values += 1
            if isinstance(v, SYMBOLIC):
                symbolic = True
                parts.append((v,))
            else:
                parts.append(v)
            pos = c.end_byte
        if values == 1 and len(parts) == 1:
            return parts[0][0] if symbolic else parts[0]  # "${x}" is x itself, with its type
        if not symbolic:
            texts = [p if type(p) is str else to_string(p) for p in parts]
            self.budget.text(sum(len(x) for x in texts if type(x) is str), node)
            return "".join(texts)
        merged: list = []
        for p in parts:
            if type(p) is tuple:
                v = p[0]
                if isinstance(v, Text):
                    pieces = v.parts
                elif isinstance(v, Encoded):
                    pieces = (
                        Unknown(
                            text_of(node, env.src), "a JSON document holding values known only after apply"
                        ),
                    )
                else:
                    pieces = (v,)
            else:
                pieces = (p if type(p) is str else to_string(p),)
            for x in pieces:
                if type(x) is str and merged and type(merged[-1]) is str:
                    merged[-1] += x
                else:
                    merged.append(x)
        if all(type(x) is str for x in merged):
            return "".join(merged)
        return Text(tuple(merged))

    def _n_heredoc_template(self, node, env):
        trim = env.src.slice(node.children[0]) == "<<-"  # heredoc_start
        self.budget.text(node.end_byte - node.start_byte, node)
        lines = env.src.slice(node).split("\n")
        body_lines = lines[1:-1]  # first line <<EOF, last line the closing EOF
        if trim:
            indents = [len(ln) - len(ln.lstrip()) for ln in body_lines if ln.strip()]
            cut = min(indents) if indents else 0
            body_lines = [ln[cut:] for ln in body_lines]
        body = "\n".join(body_lines) + ("\n" if body_lines else "")
        if "${" in body or "%{" in body:
            return self._template_text(body, env)
        return body

    # operators ----------------------------------------------------------------------------------------
    def _n_conditional(self, node, env):
        # tree-sitter-hcl 1.2 groups a ? b : c ? d : e as (a ? b : c) ? d : e; HCL means a ? b : (c ? d : e).
        # The chain is read back in text order: conditions a, c; results b, d; else e.
        pairs = []
        cur = node
        while True:
            cond, yes, no = (c for c in cur.named_children if c.type == "expression")
            pairs.append((yes, no))
            kids = [c for c in cond.children if c.type != "comment"]
            if len(kids) != 1 or kids[0].type != "conditional":
                break
            cur = kids[0]
        pairs.reverse()
        conds = [cond] + [no for _, no in pairs[:-1]]
        return self._choose(conds, [yes for yes, _ in pairs], pairs[-1][1], 0, env)

    def _choose(self, conds, yeses, last, i, env):
        """``conds[i] ? yeses[i] : (conds[i+1] ? ... : last)``."""
        cond, yes = conds[i], yeses[i]

        def no():
            return (
                self._choose(conds, yeses, last, i + 1, env) if i + 1 < len(conds) else self._node(last, env)
            )

        c = self._node(cond, env)
        if isinstance(c, str) and c in ("true", "false"):
            c = c == "true"
        if isinstance(c, bool):
            return self._node(yes, env) if c else no()
        if isinstance(c, SYMBOLIC):
            a, b = self._node(yes, env), no()
            if a == b and not isinstance(a, SYMBOLIC):
                return a
            return Unknown(
                text_of(Span(cond, last), env.src),
                f"the condition {text_of(cond, env.src)} is not known here",
            )
        raise EvalError(f"a condition must be a bool, got a {kind(c)}", cond)

    def _n_binary_operation(self, node, env):
        kids = [c for c in node.children if c.type != "comment"]
        i = next(i for i, c in enumerate(kids) if c.type in _BINARY and not c.is_named)
        op = kids[i].type
        a = self._operand(kids[:i], env)
        if op == "&&" and a is False or op == "||" and a is True:
            return a
        b = self._operand(kids[i + 1 :], env)
        if isinstance(a, SYMBOLIC) or isinstance(b, SYMBOLIC):
            if op in ("==", "!=") and isinstance(a, Ref) and isinstance(b, Ref):
                return (a == b) == (op == "==")
            if op in ("==", "!=") and (a is None or b is None) and isinstance(a or b, (Ref, Text, Encoded)):
                return op == "!="  # an ARN, a template or a JSON document is never null
            return Unknown(text_of(node, env.src), "an operand is known only after apply")
        try:
            if op in ("==", "!="):
                eq = a == b and type(a) is type(b) or _num_eq(a, b)
                return eq if op == "==" else not eq
            if op in ("&&", "||"):
                if not isinstance(a, bool) or not isinstance(b, bool):
                    raise EvalError(f"{op} needs bools", node)
                return (a and b) if op == "&&" else (a or b)
            x, y = to_number(a), to_number(b)
            if op == "+":
                return num_out(x + y)
            if op == "-":
                return num_out(x - y)
            if op == "*":
                return num_out(x * y)
            if op == "/":
                if y == 0:
                    raise EvalError("division by zero", node)
                return num_out(x / y)
            if op == "%":
                if y == 0:
                    raise EvalError("modulo by zero", node)
                return num_out(x % y)
            return {"<": x < y, ">": x > y, "<=": x <= y, ">=": x >= y}[op]
        except EvalError as exc:
            raise EvalError(str(exc), exc.node or node) from None
        except ArithmeticError:
            raise EvalError(f"the result of {op} is out of range", node) from None

    def _n_unary_operation(self, node, env):
        kids = [c for c in node.children if c.type != "comment"]
        op = kids[0].type
        v = self._operand(kids[1:], env)
        if isinstance(v, SYMBOLIC):
            return Unknown(text_of(node, env.src), "the operand is known only after apply")
        if op == "!":
            if not isinstance(v, bool):
                raise EvalError(f"! needs a bool, got a {kind(v)}", node)
            return not v
        return num_out(-to_number(v))

    # for expressions ----------------------------------------------------------------------------------
    def _iterate(self, intro, env):
        named = [c for c in intro.named_children if c.type != "comment"]
        names = [env.src.slice(c) for c in named if c.type == "identifier"]
        coll_node = next(c for c in named if c.type == "expression")
        coll = self._node(coll_node, env)
        if isinstance(coll, SYMBOLIC):
            return None
        if isinstance(coll, dict):
            items = [(k, coll[k]) for k in sorted(coll)]
        elif isinstance(coll, list):
            items = list(enumerate(coll))
        else:
            raise EvalError(f"a for expression needs a list or an object, got a {kind(coll)}", coll_node)
        self.budget.spend(len(items), coll_node)
        out = []
        for k, v in items:
            out.append(env.child(**({names[0]: k, names[1]: v} if len(names) == 2 else {names[0]: v})))
        return out

    def _n_for_tuple_expr(self, node, env):
        intro = value = cond = None
        for c in node.named_children:
            t = c.type
            if t == "for_intro":
                intro = c
            elif t == "expression":
                value = c
            elif t == "for_cond":
                cond = c
        envs = self._iterate(intro, env)
        if envs is None:
            return Unknown(text_of(node, env.src), "the collection is known only after apply")
        out = []
        try:
            for e in envs:
                if cond is not None and not self._cond(cond, e):
                    continue
                out.append(self._node(value, e))
        except _Unknowable:
            return Unknown(text_of(node, env.src), "a condition is known only after apply")
        return self.budget.value(out, node)

    def _n_for_object_expr(self, node, env):
        intro = cond = None
        exprs = []
        group = False
        for c in node.named_children:
            t = c.type
            if t == "for_intro":
                intro = c
            elif t == "expression":
                exprs.append(c)
            elif t == "for_cond":
                cond = c
            elif t == "ellipsis":
                group = True
        key, value = exprs
        envs = self._iterate(intro, env)
        if envs is None:
            return Unknown(text_of(node, env.src), "the collection is known only after apply")
        out: dict = {}
        for e in envs:
            try:
                if cond is not None and not self._cond(cond, e):
                    continue
            except _Unknowable:
                return Unknown(text_of(node, env.src), "a condition is known only after apply")
            k = self._node(key, e)
            if isinstance(k, SYMBOLIC):
                return Unknown(text_of(node, env.src), "a key is known only after apply")
            k = to_string(k)
            v = self._node(value, e)
            if group:
                out.setdefault(k, []).append(v)
            elif k in out:
                raise EvalError("duplicate key in a for expression (group the values with ...)", node)
            else:
                out[k] = v
        return self.budget.value(out, node)

    def _cond(self, cond_node, env) -> bool:
        expr = next(c for c in cond_node.named_children if c.type == "expression")
        c = self._node(expr, env)
        if isinstance(c, SYMBOLIC):
            raise _Unknowable
        if not isinstance(c, bool):
            raise EvalError(f"a for condition must be a bool, got a {kind(c)}", cond_node)
        return c

    # function calls -----------------------------------------------------------------------------------
    def _n_function_call(self, node, env):
        name, arg_nodes, expand = call_parts(node, env.src)
        if "::" in name:
            return Unknown(text_of(node, env.src), f"provider function {name}() is not evaluated")
        if name not in TERRAFORM_FUNCTIONS:
            if name in self.unknown_functions:
                return Unknown(
                    text_of(node, env.src), f"{name}() is evaluated by Terragrunt, not from the files"
                )
            raise EvalError(f"call to unknown function {name}()", node)
        if name in ("try", "can"):
            return self._try(name, arg_nodes, node, env)
        args = [self._node(a, env) for a in arg_nodes]
        if name in FILE_FUNCTIONS and not expand:  # files beside the module (template.py)
            return self.budget.value(self.file_call(name, args, node, env), node)
        if expand and args:
            last = args.pop()
            if not isinstance(last, list):
                return Unknown(text_of(node, env.src), "expanded arguments are not known here")
            args += last
        impl = FUNCTIONS.get(name)
        if impl is None:
            return Unknown(text_of(node, env.src), f"function {name}() is not evaluated by visguard")
        try:
            out = impl(*args)
        except EvalError as exc:
            raise type(exc)(str(exc), node) from None
        except (TypeError, ValueError, IndexError, KeyError, ArithmeticError):
            raise EvalError(f"invalid arguments to {name}()", node) from None
        if (
            isinstance(out, Unknown)
            and out.text.endswith("(...)")
            or isinstance(out, Unknown)
            and out.text == "..."
        ):
            return Unknown(text_of(node, env.src), out.why)
        return self.budget.value(out, node)

    def _try(self, name, arg_nodes, node, env):
        for a in arg_nodes:
            try:
                v = self._node(a, env)
            except LimitError:
                raise  # a bound is reported, never tried around
            except (EvalError, _Unknowable):
                if name == "can":
                    return False
                continue
            if name == "can":
                return True if not isinstance(v, Unknown) else v
            return v
        if name == "can":
            return False
        raise EvalError("try(): no argument could be evaluated", node)

    # references ---------------------------------------------------------------------------------------
    def _n_variable_expr(self, node, env):
        return self._reference(node, env.src.slice(node), [], env)

    def _reference(self, node, root: str, steps: list, env: Env):
        if root in env.names:
            return self._apply(env.names[root], steps, node, env)
        if root == "var" or root == "local" or root == "module":
            if not steps or steps[0][0] != "attr":
                raise EvalError(f"{root} must be followed by a name", node)
            name = steps[0][1]
            if root == "var":
                base = self.var(name, node)
            elif root == "local":
                base = self.local(name, node)
            else:
                base = self.module_obj(name, node)
            return self._apply(base, steps[1:], node, env)
        if root in ("each", "count"):
            raise EvalError(
                f"{root} is only available in a block with {'for_each' if root == 'each' else 'count'}", node
            )
        if root == "data":
            if len(steps) >= 3 and steps[0] == ("attr", "template_file") and steps[1][0] == "attr":
                rendered = self.template_file(steps[1][1], node)  # data "template_file": rendered here
                if rendered is not None:
                    return self._apply(rendered, steps[2:], node, env)
            ref = self._data_ref(steps)
            if (
                ref is not None
            ):  # data.aws_sqs_queue.x.arn: resolved by name against the queues read (build.py)
                return self._apply(ref, steps[3:], node, env)
            return Unknown(
                text_of(node, env.src), "data sources are read by terraform plan, not from the files"
            )
        if (
            root == "path"
        ):  # absolute: file("${path.module}/x") reads the same file from any working directory
            here = os.path.abspath(self.loader.root) if self.loader is not None else os.path.abspath(".")
            if not os.path.isdir(here):
                here = os.path.dirname(here)
            return self._apply(
                {"module": os.path.abspath(self.mod.dir), "root": here, "cwd": here}, steps, node, env
            )
        if root == "terraform":
            return self._apply({"workspace": "default"}, steps, node, env)
        if root in ("self",):
            return Unknown(text_of(node, env.src), "self is known only after apply")
        if steps and steps[0][0] == "attr" and "_" in root:
            key = (root, steps[0][1])
            if key not in self.mod.resources:
                raise EvalError(f"reference to undeclared resource {root}.{steps[0][1]}", node)
            return self._apply(self.resource_value(key), steps[1:], node, env)
        if root in self.unknown_roots:
            return Unknown(text_of(node, env.src), f"{root} is known to Terragrunt only when it runs")
        raise EvalError(f"unknown name {root!r}", node)

    def _data_ref(self, steps: list) -> Ref | None:
        """``data.aws_sqs_queue.x.arn`` / ``data.aws_lambda_function.f.arn``: a reference the model builder
        resolves by the name the data source looks up (``Builder.data``); None for other data sources."""
        if len(steps) < 3 or any(how != "attr" for how, _ in steps[:3]) or self.loader is None:
            return None
        key = (steps[0][1], steps[1][1])
        block = self.mod.data.get(key)
        if key[0] not in DATA_NAMES or block is None or "count" in block.attrs or "for_each" in block.attrs:
            return None
        address = f"{self.prefix}data.{key[0]}.{key[1]}"
        self.loader.data_source(self, address, block)
        return Ref(address, steps[2][1])

    def _apply(self, value, steps, node, env):
        for how, key in steps:
            if isinstance(value, (Unknown, Ref, Text, Encoded)):
                return Unknown(
                    text_of(node, env.src),
                    value.why if isinstance(value, Unknown) else "an attribute known only after apply",
                )
            if isinstance(key, SYMBOLIC):
                return Unknown(text_of(node, env.src), "the index is known only after apply")
            if isinstance(value, Instance):
                if how != "attr":
                    raise EvalError(f"{value.address} has no instances to index", node)
                value = value.attr(key, node)
            elif isinstance(value, dict):
                k = to_string(key) if not isinstance(key, str) else key
                if k not in value:
                    raise EvalError(f"no attribute or key {_key_shown(how, k)}", node)
                value = value[k]
            elif isinstance(value, list):
                if how == "attr":
                    raise EvalError(
                        f"a list has no attribute {excerpt(key, NAME_CHARS)} (index it, or use [*])", node
                    )
                n = to_number(key)
                if not isinstance(n, int) or not 0 <= n < len(value):
                    raise EvalError(f"index {_key_shown(how, key)} out of range (length {len(value)})", node)
                value = value[n]
            elif value is None:
                raise EvalError("attempt to read an attribute of null", node)
            else:
                raise EvalError(f"a {kind(value)} has no attribute or index {_key_shown(how, key)}", node)
        return value

    def _splat(self, base, splat, node, env):
        inner = splat.named_children[0]  # attr_splat (.*) or full_splat ([*]) and the traversals after it
        steps = [self._step(s, env) for s in inner.named_children if s.type in ("get_attr", "index")]
        if isinstance(base, SYMBOLIC):
            return Unknown(text_of(node, env.src), "the collection is known only after apply")
        items = base if isinstance(base, list) else [] if base is None else [base]
        return self.budget.value([self._apply(x, steps, node, env) for x in items], node)


_WRAPPERS = frozenset(("collection_value", "template_expr", "for_expr", "operation"))
_BINARY = frozenset(("*", "/", "%", "+", "-", ">", ">=", "<", "<=", "==", "!=", "&&", "||"))
_DISPATCH = {
    "expression": Evaluator._n_expression,
    "literal_value": Evaluator._n_literal_value,
    "collection_value": Evaluator._n_single,
    "tuple": Evaluator._n_tuple,
    "object": Evaluator._n_object,
    "template_expr": Evaluator._n_single,
    "quoted_template": Evaluator._n_quoted_template,
    "heredoc_template": Evaluator._n_heredoc_template,
    "variable_expr": Evaluator._n_variable_expr,
    "function_call": Evaluator._n_function_call,
    "for_expr": Evaluator._n_single,
    "for_tuple_expr": Evaluator._n_for_tuple_expr,
    "for_object_expr": Evaluator._n_for_object_expr,
    "operation": Evaluator._n_single,
    "binary_operation": Evaluator._n_binary_operation,
    "unary_operation": Evaluator._n_unary_operation,
    "conditional": Evaluator._n_conditional,
}


def _key_value(elem) -> tuple:
    """The key and value ``expression`` nodes of an ``object_elem``."""
    exprs = [c for c in elem.named_children if c.type == "expression"]
    return exprs[0], exprs[-1]


def call_parts(node, src: Source) -> tuple[str, list, bool]:
    """(name, argument expression nodes, whether the last one is expanded with ``...``) of a function_call."""
    name, args, expand = "", [], False
    for c in node.named_children:
        t = c.type
        if t == "identifier":
            name = src.slice(c)
        elif t == "function_arguments":
            for a in c.named_children:
                if a.type == "expression":
                    args.append(a)
                elif a.type == "ellipsis":
                    expand = True
    return name, args, expand


class _Unknowable(Exception):
    """A for-expression condition that is not known here: the whole expression is unknown."""


def _key_shown(how: str, key: Any) -> str:
    """A key for a message: as written when the expression wrote it (``.name``, ``["ghcr.io"]``), never a
    computed one (it may hold a value of a variables file)."""
    if how in ("attr", "key"):
        return excerpt(key if isinstance(key, str) else str(key), NAME_CHARS)
    return f"(a computed {kind(key)})"


def _num_eq(a, b) -> bool:
    return (
        isinstance(a, (int, float))
        and isinstance(b, (int, float))
        and not isinstance(a, bool)
        and not isinstance(b, bool)
        and a == b
    )
