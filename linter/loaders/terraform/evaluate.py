"""Evaluate Terraform expressions the way ``terraform plan`` would, as far as the files alone allow.

A :class:`Scope` is one module instance (the root module, or ``module.jobs["a"]``): its variables (given by
the caller, tfvars files, ``--var`` or their defaults), locals, resources (with ``count`` / ``for_each``
instances), local child modules and the modelled registry modules. Everything is evaluated lazily and cached;
locals that depend on each other in a circle are reported as the cycle. What cannot be known without a cloud
account (a computed ARN, a data source, a variable without a value) becomes a :class:`~.values.Ref` or an
:class:`~.values.Unknown`, never a guess.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any

from visguard.errors import VisguardError

from .hcl import Attr, Block, JsonExpr, parse_tree
from .values import (
    FUNCTIONS,
    SYMBOLIC,
    TERRAFORM_FUNCTIONS,
    Encoded,
    EvalError,
    Ref,
    Text,
    Unknown,
    kind,
    num_out,
    to_number,
    to_string,
)

# Attributes of a resource that exist only after apply (a reference to them stays a Ref).
COMPUTED = {"arn", "id", "url", "invoke_arn", "qualified_arn", "qualified_invoke_arn", "version", "uuid"}
MAX_INSTANCES = 1000
MAX_MODULE_DEPTH = 16
EACH_SOURCE = (
    "\x00each"  # in an instance's Env: (the for_each argument, its scope); no expression can name it
)


@dataclass
class Env:
    """What an expression may refer to besides the scope: each / count and for-expression names."""

    names: dict = field(default_factory=dict)
    src: str = ""

    def child(self, **names) -> Env:
        return Env({**self.names, **names}, self.src)


def address_key(key: Any) -> str:
    if key is None:
        return ""
    if isinstance(key, int) and not isinstance(key, bool):
        return f"[{key}]"
    if isinstance(key, Unknown):
        return "[*]"
    return "[" + json.dumps(str(key)) + "]"


def text_of(node, src: str) -> str:
    meta = getattr(node, "meta", None)
    if meta is not None and not getattr(meta, "empty", True) and src:
        return " ".join(src[meta.start_pos : meta.end_pos].split())
    return "expression"


class Module:
    """The files of one module folder, grouped by block type."""

    def __init__(self, directory: str, blocks: list[Block]):
        self.dir = directory
        self.variables: dict[str, Block] = {}
        self.locals: dict[str, Attr] = {}
        self.resources: dict[tuple[str, str], Block] = {}
        self.modules: dict[str, Block] = {}
        self.outputs: dict[str, Block] = {}
        self.data: set[tuple[str, str]] = set()
        for b in blocks:
            key = tuple(b.labels)
            if b.type == "variable" and len(key) == 1:
                self._unique(self.variables, key[0], b, "variable")
            elif b.type == "locals":
                for name, a in b.attrs.items():
                    if name in self.locals:
                        raise VisguardError(
                            f"local.{name} is defined twice", file=a.file, place=f"line {a.line}"
                        )
                    self.locals[name] = a
            elif b.type == "resource" and len(key) == 2:
                self._unique(self.resources, key, b, "resource")
            elif b.type == "module" and len(key) == 1:
                self._unique(self.modules, key[0], b, "module")
            elif b.type == "output" and len(key) == 1:
                self.outputs[key[0]] = b
            elif b.type == "data" and len(key) == 2:
                self.data.add(key)

    @staticmethod
    def _unique(d, key, b: Block, what: str) -> None:
        if key in d:
            name = ".".join(key) if isinstance(key, tuple) else key
            raise VisguardError(f"{what} {name} is declared twice", file=b.file, place=f"line {b.line}")
        d[key] = b


class ResourceObj:
    """One instance of a resource, as an expression sees it."""

    def __init__(self, scope: Scope, block: Block, address: str, env: Env):
        self.scope, self.block, self.address, self.env = scope, block, address, env

    def get(self, attr: str) -> Any:
        if attr not in COMPUTED and attr in self.block.attrs:
            return self.scope.eval_attr(self.block.attrs[attr], self.env)
        return Ref(self.address, attr)


class Scope:
    def __init__(
        self,
        loader,
        module: Module,
        prefix: str,
        *,
        parent: Scope | None = None,
        inputs: dict[str, tuple[Attr, Scope, Env]] | None = None,
        call: Block | None = None,
        values: dict[str, Any] | None = None,
        depth: int = 0,
    ):
        self.loader = loader  # the TerraformLoader: notes, files, options
        self.mod = module
        self.prefix = prefix  # "" or "module.jobs." / 'module.jobs["a"].'
        self.parent = parent
        self.inputs = inputs  # child module: variable name -> (argument, caller scope, caller env)
        self.call = call  # the module block that created this scope
        self.values = values or {}  # root module: variable name -> (Attr | None, value) from tfvars / --var
        self.depth = depth
        self._vars: dict[str, Any] = {}
        self._locals: dict[str, Any] = {}
        self._local_stack: list[str] = []
        self._active: set = set()
        self._instances: dict[tuple, list] = {}
        self._modules: dict[str, Any] = {}

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
            return self.eval(attr.expr, Env(env.names, attr.src))
        except EvalError as exc:
            meta = getattr(exc.node, "meta", None)
            line = meta.line if meta is not None and not getattr(meta, "empty", True) else attr.line
            if isinstance(attr.expr, JsonExpr):
                line = attr.line
            raise VisguardError(f"{attr.name}: {exc}", file=attr.file, place=f"line {line}") from None
        except RecursionError:
            raise VisguardError(
                f"{attr.name}: expression nested too deeply", file=attr.file, place=f"line {attr.line}"
            ) from None
        finally:
            self._active.discard(key)

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
        """A template given as text (a heredoc, a JSON-syntax string): parsed by the HCL grammar as a string."""
        quoted = json.dumps(body)
        try:
            tree = parse_tree(f"x = {quoted}\n", "<template>")
        except VisguardError as exc:
            raise EvalError(f"invalid template ({exc.detail})") from None
        expr = tree.children[0].children[-1]
        for c in tree.children[0].children:
            if getattr(c, "data", None) == "attribute":
                expr = c.children[-1]
        return self._node(expr, Env(env.names, f"x = {quoted}\n"))

    # ------------------------------------------------------------------ native syntax
    def _node(self, node, env: Env) -> Any:
        from lark import Token

        if isinstance(node, Token):
            raise EvalError(f"unexpected {node!s}")
        fn = getattr(self, "_n_" + node.data, None)
        if fn is None:
            return Unknown(text_of(node, env.src), f"{node.data} expressions are not evaluated")
        return fn(node, env)

    @staticmethod
    def _trees(node) -> list:
        from lark import Tree

        return [c for c in node.children if isinstance(c, Tree) and c.data != "new_line_or_comment"]

    def _n_expr_term(self, node, env):
        inner = self._trees(node)
        if len(inner) != 1:
            raise EvalError("malformed expression", node)
        return self._node(inner[0], env)

    def _n_int_lit(self, node, env):
        return int(node.children[0])

    def _n_float_lit(self, node, env):
        return float(node.children[0])

    def _n_literal_value(self, node, env):
        return {"true": True, "false": False, "null": None}[str(node.children[0])]

    def _n_tuple(self, node, env):
        return [self._node(c, env) for c in self._trees(node)]

    def _n_object(self, node, env):
        out = {}
        for elem in self._trees(node):
            key_node, value_node = self._trees(elem)
            key = self._object_key(key_node, env)
            out[key] = self._node(value_node, env)
        return out

    def _object_key(self, key_node, env):
        inner = self._trees(key_node)
        if not inner:  # a keyword used as a key (in, for, if)
            return str(key_node.children[0].children[0]) if key_node.children else ""
        k = inner[0]
        if k.data == "keyword":
            return str(k.children[0])
        if k.data == "expr_term":
            sub = self._trees(k)
            if len(sub) == 1 and sub[0].data == "identifier" and len(k.children) == 1:
                return str(sub[0].children[0])  # a bare name is the key itself, not a reference
        v = self._node(k, env)
        if isinstance(v, SYMBOLIC):
            raise EvalError("an object key must be known here", key_node)
        if isinstance(v, (dict, list)) or v is None:
            raise EvalError(f"an object key must be a string, got a {kind(v)}", key_node)
        return to_string(v)

    # strings ------------------------------------------------------------------------------------------
    _ESC = re.compile(r"\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.S)

    @classmethod
    def _unescape(cls, s: str) -> str:
        def rep(m):
            e = m.group(1)
            if e[0] in "uU":
                return chr(int(e[1:], 16))
            return {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\"}.get(e, "\\" + e)

        return cls._ESC.sub(rep, s)

    def _n_string(self, node, env):
        from lark import Token

        parts: list = []
        for part in node.children:
            if isinstance(part, Token):
                continue  # the quotes
            (c,) = part.children
            if isinstance(c, Token):
                if c.type == "ESCAPED_INTERPOLATION":
                    parts.append("${" + str(c)[3:])
                elif c.type == "ESCAPED_DIRECTIVE":
                    parts.append("%{" + str(c)[3:])
                else:
                    parts.append(self._unescape(str(c)))
            elif c.data == "interpolation":
                expr = self._trees(c)[0]
                parts.append(("interp", self._node(expr, env)))
            else:  # %{if} / %{for} directives
                return Unknown(text_of(node, env.src), "template directives are not evaluated")
        if len(parts) == 1 and isinstance(parts[0], tuple):
            return parts[0][1]  # "${x}" is x itself, with its type
        out: list = []
        for p in parts:
            if isinstance(p, tuple):
                v = p[1]
                if isinstance(v, Encoded):
                    v = Unknown(
                        text_of(node, env.src), "a JSON document holding values known only after apply"
                    )
                if isinstance(v, Text):
                    out.extend(v.parts)
                    continue
                out.append(to_string(v) if not isinstance(v, SYMBOLIC) else v)
            else:
                out.append(p)
        merged: list = []
        for p in out:
            if isinstance(p, str) and merged and isinstance(merged[-1], str):
                merged[-1] += p
            else:
                merged.append(p)
        if all(isinstance(p, str) for p in merged):
            return "".join(merged)
        return Text(tuple(merged))

    def _heredoc(self, node, env, trim: bool):
        raw = str(node.children[0])
        lines = raw.split("\n")
        body_lines = lines[1:-2]  # first line <<EOF, last two: "EOF" and the empty string after its newline
        if trim:
            indents = [len(ln) - len(ln.lstrip()) for ln in body_lines if ln.strip()]
            cut = min(indents) if indents else 0
            body_lines = [ln[cut:] for ln in body_lines]
        body = "\n".join(body_lines) + ("\n" if body_lines else "")
        if "${" in body or "%{" in body:
            return self._template_text(body, env)
        return body

    def _n_heredoc_template(self, node, env):
        return self._heredoc(node, env, False)

    def _n_heredoc_template_trim(self, node, env):
        return self._heredoc(node, env, True)

    # operators ----------------------------------------------------------------------------------------
    def _n_conditional(self, node, env):
        cond, yes, no = self._trees(node)
        c = self._node(cond, env)
        if isinstance(c, str) and c in ("true", "false"):
            c = c == "true"
        if isinstance(c, bool):
            return self._node(yes if c else no, env)
        if isinstance(c, SYMBOLIC):
            a, b = self._node(yes, env), self._node(no, env)
            if a == b and not isinstance(a, SYMBOLIC):
                return a
            return Unknown(
                text_of(node, env.src), f"the condition {text_of(cond, env.src)} is not known here"
            )
        raise EvalError(f"a condition must be a bool, got a {kind(c)}", cond)

    def _n_binary_op(self, node, env):
        left, term = self._trees(node)
        op_node, right = self._trees(term)
        op = str(op_node.children[0])
        a = self._node(left, env)
        if op == "&&" and a is False or op == "||" and a is True:
            return a
        b = self._node(right, env)
        if isinstance(a, SYMBOLIC) or isinstance(b, SYMBOLIC):
            if op in ("==", "!=") and isinstance(a, Ref) and isinstance(b, Ref):
                return (a == b) == (op == "==")
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

    def _n_unary_op(self, node, env):
        from lark import Token

        op = next(str(c) for c in node.children if isinstance(c, Token))
        v = self._node(self._trees(node)[0], env)
        if isinstance(v, SYMBOLIC):
            return Unknown(text_of(node, env.src), "the operand is known only after apply")
        if op == "!":
            if not isinstance(v, bool):
                raise EvalError(f"! needs a bool, got a {kind(v)}", node)
            return not v
        return num_out(-to_number(v))

    # for expressions ----------------------------------------------------------------------------------
    def _iterate(self, intro, env):
        from lark import Tree

        names = [str(c.children[0]) for c in intro.children if isinstance(c, Tree) and c.data == "identifier"]
        coll_node = [c for c in self._trees(intro) if c.data != "identifier"][0]
        coll = self._node(coll_node, env)
        if isinstance(coll, SYMBOLIC):
            return None
        if isinstance(coll, dict):
            items = [(k, coll[k]) for k in sorted(coll)]
        elif isinstance(coll, list):
            items = list(enumerate(coll))
        else:
            raise EvalError(f"a for expression needs a list or an object, got a {kind(coll)}", coll_node)
        out = []
        for k, v in items:
            out.append(env.child(**({names[0]: k, names[1]: v} if len(names) == 2 else {names[0]: v})))
        return out

    def _n_for_tuple_expr(self, node, env):
        parts = self._trees(node)
        intro, value = parts[0], parts[1]
        cond = parts[2] if len(parts) > 2 else None
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
        return out

    def _n_for_object_expr(self, node, env):
        from lark import Token

        parts = self._trees(node)
        intro, key, value = parts[0], parts[1], parts[2]
        cond = parts[3] if len(parts) > 3 else None
        group = any(isinstance(c, Token) and c.type == "ELLIPSIS" for c in node.children)
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
                raise EvalError(f"duplicate key {k!r} in a for expression", node)
            else:
                out[k] = v
        return out

    def _cond(self, cond_node, env) -> bool:
        c = self._node(self._trees(cond_node)[0], env)
        if isinstance(c, SYMBOLIC):
            raise _Unknowable
        if not isinstance(c, bool):
            raise EvalError(f"a for condition must be a bool, got a {kind(c)}", cond_node)
        return c

    # function calls -----------------------------------------------------------------------------------
    def _n_function_call(self, node, env):
        from lark import Token

        idents = [c for c in node.children if getattr(c, "data", None) == "identifier"]
        name = "::".join(str(i.children[0]) for i in idents)
        args_node = next((c for c in node.children if getattr(c, "data", None) == "arguments"), None)
        arg_nodes = self._trees(args_node) if args_node is not None else []
        expand = args_node is not None and any(
            isinstance(c, Token) and c.type == "ELLIPSIS" for c in args_node.children
        )
        if len(idents) > 1:
            return Unknown(text_of(node, env.src), f"provider function {name}() is not evaluated")
        if name not in TERRAFORM_FUNCTIONS:
            raise EvalError(f"call to unknown function {name}()", node)
        if name in ("try", "can"):
            return self._try(name, arg_nodes, node, env)
        args = [self._node(a, env) for a in arg_nodes]
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
            raise EvalError(str(exc), node) from None
        except (TypeError, ValueError, IndexError, KeyError):
            raise EvalError(f"invalid arguments to {name}()", node) from None
        if (
            isinstance(out, Unknown)
            and out.text.endswith("(...)")
            or isinstance(out, Unknown)
            and out.text == "..."
        ):
            return Unknown(text_of(node, env.src), out.why)
        return out

    def _try(self, name, arg_nodes, node, env):
        for a in arg_nodes:
            try:
                v = self._node(a, env)
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
    def _n_identifier(self, node, env):
        return self._reference(node, str(node.children[0]), [], env)

    def _n_get_attr_expr_term(self, node, env):
        return self._traversal(node, env)

    def _n_index_expr_term(self, node, env):
        return self._traversal(node, env)

    def _traversal(self, node, env):
        steps: list = []
        cur = node
        while True:
            if cur.data == "expr_term":
                inner = self._trees(cur)
                if len(inner) == 1 and len(cur.children) == 1:
                    cur = inner[0]
                    continue
                break
            if cur.data == "get_attr_expr_term":
                base, ga = self._trees(cur)
                name_node = self._trees(ga)[0]
                steps.append(("attr", str(name_node.children[0])))
                cur = base
            elif cur.data == "index_expr_term":
                base, idx = self._trees(cur)
                if idx.data == "short_index":
                    steps.append(("index", int(idx.children[-1])))
                else:
                    steps.append(("index", self._node(self._trees(idx)[0], env)))
                cur = base
            else:
                break
        steps.reverse()
        if cur.data == "identifier":
            return self._reference(node, str(cur.children[0]), steps, env)
        return self._apply(self._node(cur, env), steps, node, env)

    def _reference(self, node, root: str, steps: list, env: Env):
        text = text_of(node, env.src)
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
            return Unknown(text, "data sources are read by terraform plan, not from the files")
        if root == "path":
            return self._apply(
                {"module": self.mod.dir, "root": self.loader.root, "cwd": "."}, steps, node, env
            )
        if root == "terraform":
            return self._apply({"workspace": "default"}, steps, node, env)
        if root in ("self",):
            return Unknown(text, "self is known only after apply")
        if steps and steps[0][0] == "attr" and "_" in root:
            key = (root, steps[0][1])
            if key not in self.mod.resources:
                raise EvalError(f"reference to undeclared resource {root}.{steps[0][1]}", node)
            return self._apply(self.resource_value(key), steps[1:], node, env)
        raise EvalError(f"unknown name {root!r}", node)

    def _apply(self, value, steps, node, env):
        for how, key in steps:
            if isinstance(value, (Unknown, Ref, Text, Encoded)):
                return Unknown(
                    text_of(node, env.src),
                    value.why if isinstance(value, Unknown) else "an attribute known only after apply",
                )
            if isinstance(key, SYMBOLIC):
                return Unknown(text_of(node, env.src), "the index is known only after apply")
            if isinstance(value, ResourceObj):
                if how != "attr":
                    raise EvalError(f"{value.address} has no instances to index", node)
                value = value.get(key)
            elif isinstance(value, ModuleObj):
                if how != "attr":
                    raise EvalError(f"{value.address} has no instances to index", node)
                value = value.output(key, node)
            elif isinstance(value, dict):
                k = to_string(key) if not isinstance(key, str) else key
                if k not in value:
                    raise EvalError(f"no attribute or key {k!r}", node)
                value = value[k]
            elif isinstance(value, list):
                if how == "attr":
                    raise EvalError(f"a list has no attribute {key!r} (index it, or use [*])", node)
                n = to_number(key)
                if not isinstance(n, int) or not 0 <= n < len(value):
                    raise EvalError(f"index {key!r} out of range (length {len(value)})", node)
                value = value[n]
            elif value is None:
                raise EvalError("attempt to read an attribute of null", node)
            else:
                raise EvalError(f"a {kind(value)} has no attribute or index {key!r}", node)
        return value

    def _n_attr_splat_expr_term(self, node, env):
        return self._splat(node, env)

    def _n_full_splat_expr_term(self, node, env):
        return self._splat(node, env)

    def _splat(self, node, env):
        base_node, splat = self._trees(node)
        base = self._node(base_node, env)
        steps = []
        for s in self._trees(splat):
            if s.data == "get_attr":
                steps.append(("attr", str(self._trees(s)[0].children[0])))
            elif s.data == "short_index":
                steps.append(("index", int(s.children[-1])))
            else:
                steps.append(("index", self._node(self._trees(s)[0], env)))
        if isinstance(base, SYMBOLIC):
            return Unknown(text_of(node, env.src), "the collection is known only after apply")
        items = base if isinstance(base, list) else [] if base is None else [base]
        return [self._apply(x, steps, node, env) for x in items]

    # ------------------------------------------------------------------ names
    def var(self, name: str, node=None) -> Any:
        if name in self._vars:
            return self._vars[name]
        block = self.mod.variables.get(name)
        if block is None:
            raise EvalError(f"reference to undeclared input variable {name!r}", node)
        v = self._var_value(name, block)
        self._vars[name] = v
        return v

    def var_source(self, name: str) -> tuple[Attr, Scope, Env] | None:
        """Where variable ``name`` of this scope got its value: a module argument, a tfvars line or the default."""
        block = self.mod.variables.get(name)
        if block is None:
            return None
        if self.inputs is not None and name in self.inputs:
            return self.inputs[name]
        if self.inputs is None and name in self.values:
            attr, _ = self.values[name]
            if attr is not None:
                return attr, self, Env()
            return None
        if "default" in block.attrs:
            return block.attrs["default"], self, Env()
        return None

    def _var_value(self, name: str, block: Block) -> Any:
        v: Any = _MISSING
        if self.inputs is not None:
            if name in self.inputs:
                attr, scope, env = self.inputs[name]
                v = scope.eval_attr(attr, env)
        elif name in self.values:
            attr, raw = self.values[name]
            v = self.eval_attr(attr, Env()) if attr is not None else raw
        nullable = block.attrs.get("nullable")
        if v is None and nullable is not None and self.eval_attr(nullable) is False:
            v = _MISSING
        if v is _MISSING:
            if "default" in block.attrs:
                v = self.eval_attr(block.attrs["default"], Env())
            else:
                where = f"{self.prefix}var.{name}" if self.prefix else f"var.{name}"
                why = (
                    f"variable {name} has no default and the module call does not set it"
                    if self.inputs is not None
                    else f"variable {name} has no default and no value (give it with --var {name}=... or a .tfvars file)"
                )
                self.loader.note(block, f"{where}: {why}")
                return Unknown(f"var.{name}", why)
        return _typed(v, block, self)

    def local(self, name: str, node=None) -> Any:
        if name in self._locals:
            return self._locals[name]
        attr = self.mod.locals.get(name)
        if attr is None:
            raise EvalError(f"reference to undeclared local value {name!r}", node)
        if name in self._local_stack:
            cycle = [*self._local_stack[self._local_stack.index(name) :], name]
            first = self.mod.locals[cycle[0]]
            raise VisguardError(
                "cycle in locals: " + " -> ".join(f"local.{c}" for c in cycle),
                file=first.file,
                place=f"line {first.line}",
            )
        self._local_stack.append(name)
        try:
            v = self.eval_attr(attr, Env())
        finally:
            self._local_stack.pop()
        self._locals[name] = v
        return v

    # ------------------------------------------------------------------ resources and modules
    def instances(self, block: Block, base_address: str) -> list[tuple[str, Env]]:
        """(address, env) of each instance of a resource or module block (count / for_each expanded)."""
        key = (block.type, tuple(block.labels))
        if key in self._instances:
            return self._instances[key]
        out: list[tuple[str, Env]] = []
        if "count" in block.attrs and "for_each" in block.attrs:
            raise VisguardError(
                "count and for_each cannot both be set", file=block.file, place=f"line {block.line}"
            )
        if "count" in block.attrs:
            n = self.eval_attr(block.attrs["count"])
            if isinstance(n, SYMBOLIC):
                self.loader.note(
                    block,
                    f"{base_address}: count ({_why(n)}) is not known here; its settings are read once, as {base_address}[*]",
                )
                out.append(
                    (
                        base_address + "[*]",
                        Env({"count": {"index": Unknown("count.index", "count is not known here")}}),
                    )
                )
            else:
                n = to_number_or_error(n, block.attrs["count"])
                if not isinstance(n, int) or n < 0 or n > MAX_INSTANCES:
                    a = block.attrs["count"]
                    raise VisguardError(
                        f"count must be a whole number 0-{MAX_INSTANCES}, got {n!r}",
                        file=a.file,
                        place=f"line {a.line}",
                    )
                out = [(f"{base_address}[{i}]", Env({"count": {"index": i}})) for i in range(n)]
        elif "for_each" in block.attrs:
            a = block.attrs["for_each"]
            coll = self.eval_attr(a)
            if (
                isinstance(coll, SYMBOLIC)
                or isinstance(coll, dict)
                and any(isinstance(k, SYMBOLIC) for k in coll)
            ):
                self.loader.note(
                    block,
                    f"{base_address}: for_each ({_why(coll)}) is not known here; its settings are read once, as {base_address}[*]",
                )
                unk = Unknown("each.value", "for_each is not known here")
                out.append(
                    (base_address + "[*]", Env({"each": {"key": Unknown("each.key", unk.why), "value": unk}}))
                )
            elif isinstance(coll, dict):
                out = [
                    (
                        base_address + address_key(k),
                        Env({"each": {"key": k, "value": coll[k]}, EACH_SOURCE: (a, self)}),
                    )
                    for k in sorted(coll)
                ]
            elif isinstance(coll, list):
                if not all(isinstance(x, str) for x in coll):
                    if any(isinstance(x, SYMBOLIC) for x in coll):
                        self.loader.note(block, f"{base_address}: a for_each key is not known here")
                        unk = Unknown("each.value", "for_each is not known here")
                        return [(base_address + "[*]", Env({"each": {"key": unk, "value": unk}}))]
                    raise VisguardError(
                        "for_each needs a map or a set of strings", file=a.file, place=f"line {a.line}"
                    )
                out = [
                    (base_address + address_key(k), Env({"each": {"key": k, "value": k}}))
                    for k in sorted(set(coll))
                ]
            else:
                raise VisguardError(
                    f"for_each needs a map or a set of strings, got a {kind(coll)}",
                    file=a.file,
                    place=f"line {a.line}",
                )
            if len(out) > MAX_INSTANCES:
                raise VisguardError(
                    f"for_each has more than {MAX_INSTANCES} elements", file=a.file, place=f"line {a.line}"
                )
        else:
            out = [(base_address, Env())]
        self._instances[key] = out
        return out

    def resource_value(self, key: tuple[str, str]) -> Any:
        block = self.mod.resources[key]
        base = self.prefix + ".".join(key)
        insts = self.instances(block, base)
        objs = [ResourceObj(self, block, addr, env) for addr, env in insts]
        if "count" in block.attrs:
            return (
                objs
                if not (len(insts) == 1 and insts[0][0].endswith("[*]"))
                else Unknown(base, "count is not known here")
            )
        if "for_each" in block.attrs:
            if len(insts) == 1 and insts[0][0].endswith("[*]"):
                return Unknown(base, "for_each is not known here")
            return {env.names["each"]["key"]: o for (addr, env), o in zip(insts, objs, strict=True)}
        return objs[0]

    def module_obj(self, name: str, node=None) -> Any:
        if name in self._modules:
            return self._modules[name]
        block = self.mod.modules.get(name)
        if block is None:
            raise EvalError(f"reference to undeclared module {name!r}", node)
        insts = self.loader.module_instances(self, name, block)
        if "count" in block.attrs:
            v: Any = [m for _, m in insts]
        elif "for_each" in block.attrs:
            v = {env.names["each"]["key"]: m for env, m in insts}
        else:
            v = insts[0][1] if insts else Unknown(f"module.{name}", "the module is not read")
        if (
            ("count" in block.attrs or "for_each" in block.attrs)
            and len(insts) == 1
            and insts[0][1].address.endswith("[*]")
        ):
            v = Unknown(f"module.{name}", "the module's count/for_each is not known here")
        self._modules[name] = v
        return v


class ModuleObj:
    """A module instance as an expression sees it: ``module.jobs.queue_arn``."""

    def __init__(self, address: str, outputs):
        self.address = address
        self._outputs = outputs  # callable(name, node) -> value

    def output(self, name: str, node=None) -> Any:
        return self._outputs(name, node)


class _Unknowable(Exception):
    """A for-expression condition that is not known here: the whole expression is unknown."""


_MISSING = object()


def _why(v) -> str:
    return v.why if isinstance(v, Unknown) else "known only after apply"


def _num_eq(a, b) -> bool:
    return (
        isinstance(a, (int, float))
        and isinstance(b, (int, float))
        and not isinstance(a, bool)
        and not isinstance(b, bool)
        and a == b
    )


def to_number_or_error(v, attr: Attr):
    try:
        return to_number(v)
    except EvalError as exc:
        raise VisguardError(f"{attr.name}: {exc}", file=attr.file, place=f"line {attr.line}") from None


def _typed(v: Any, block: Block, scope: Scope) -> Any:
    """Apply the primitive type constraint of a variable (``type = number``) to its value."""
    t = block.attrs.get("type")
    if t is None or isinstance(t.expr, JsonExpr) or v is None or isinstance(v, SYMBOLIC):
        return v
    name = text_of(t.expr, t.src)
    try:
        if name == "number":
            return to_number(v)
        if name == "string" and isinstance(v, (int, float, bool)):
            return to_string(v)
        if name == "bool" and isinstance(v, str) and v in ("true", "false"):
            return v == "true"
    except EvalError as exc:
        raise VisguardError(
            f"variable {block.labels[0]}: {exc}", file=block.file, place=f"line {block.line}"
        ) from None
    return v


def module_dir(base: str, source: str) -> str:
    return os.path.normpath(os.path.join(base, source))
