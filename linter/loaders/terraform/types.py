"""Variable type constraints, applied the way Terraform converts a value to a variable's type.

``type = number`` turns ``"60"`` into 60; ``object({...})`` keeps the attributes of the type only and
``optional(T, default)`` fills the absent ones (nested objects included): modern modules take their settings
as such objects, so without this a missing optional attribute would look like an error.
"""

from __future__ import annotations

from visguard.errors import VisguardError

from .evaluate import Env, _key_value, call_parts
from .hcl import Block, JsonExpr
from .scope import Scope
from .values import SYMBOLIC, EvalError, to_number, to_string

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any


def typed(v: Any, block: Block, scope: Scope) -> Any:
    """Convert a variable's value to its type constraint, as Terraform does: numbers from strings, and for
    ``object({...})`` the attributes of the type only, with ``optional(T, default)`` filling absent ones."""
    t = block.attrs.get("type")
    if t is None or isinstance(t.expr, JsonExpr) or v is None or isinstance(v, SYMBOLIC):
        return v
    try:
        return convert(v, parse_type(t.expr, scope, Env(src=t.src)), scope)
    except EvalError as exc:
        raise VisguardError(
            f"variable {block.labels[0]}: {exc}", file=block.file, place=f"line {block.line}"
        ) from None


# A type: "string" | "number" | "bool" | "any" | ("list"|"set"|"map", T) | ("tuple", [T]) |
# ("object", {name: (T, optional, default-expression-node | None, env)})
def _inner(node):
    """The one term an ``expression`` node is (parentheses removed); None when it has traversals or operators."""
    while node is not None and node.type == "expression":
        kids = [c for c in node.children if c.type != "comment"]
        if len(kids) == 1:
            node = kids[0]
        elif len(kids) == 3 and kids[0].type == "(":
            node = kids[1]
        else:
            return None
    if node is not None and node.type == "collection_value":
        node = node.named_children[0]
    return node


def parse_type(node, scope: Scope, env: Env):
    term = _inner(node)
    kind = term.type if term is not None else None
    if kind == "variable_expr":
        name = env.src.slice(term)
        return name if name in ("string", "number", "bool") else "any"
    if kind == "function_call":
        name, args, _ = call_parts(term, env.src)
        if name in ("list", "set", "map") and args:
            return (name, parse_type(args[0], scope, env))
        if name == "optional" and args:  # only meaningful inside object(): handled there
            return parse_type(args[0], scope, env)
        if name == "tuple" and args:
            elems = _inner(args[0])
            items = (
                [c for c in elems.named_children if c.type == "expression"]
                if elems is not None and elems.type == "tuple"
                else []
            )
            return ("tuple", [parse_type(e, scope, env) for e in items])
        if name == "object" and args:
            obj = _inner(args[0])
            attrs = {}
            if obj is not None and obj.type == "object":
                for elem in obj.named_children:
                    if elem.type != "object_elem":
                        continue
                    key_node, type_node = _key_value(elem)
                    key = scope._object_key(key_node, env)
                    attrs[key] = _attr_type(type_node, scope, env)
            return ("object", attrs)
    return "any"


def _attr_type(node, scope: Scope, env: Env):
    """(type, optional?, default node, env) of one attribute of an object type."""
    term = _inner(node)
    if term is not None and term.type == "function_call":
        name, args, _ = call_parts(term, env.src)
        if name == "optional":
            t = parse_type(args[0], scope, env) if args else "any"
            return t, True, (args[1] if len(args) > 1 else None), env
    return parse_type(node, scope, env), False, None, env


def convert(v: Any, t, scope: Scope) -> Any:
    if v is None or isinstance(v, SYMBOLIC) or t == "any":
        return v
    if t == "number":
        return to_number(v)
    if t == "string":
        return to_string(v) if isinstance(v, (int, float, bool)) else v
    if t == "bool":
        return v == "true" if isinstance(v, str) and v in ("true", "false") else v
    kind, arg = t
    if kind in ("list", "set") and isinstance(v, list):
        return [convert(x, arg, scope) for x in v]
    if kind == "map" and isinstance(v, dict):
        return {k: convert(x, arg, scope) for k, x in v.items()}
    if kind == "tuple" and isinstance(v, list):
        return [convert(x, arg[i], scope) if i < len(arg) else x for i, x in enumerate(v)]
    if kind == "object" and isinstance(v, dict):
        out = {}
        for name, (at, optional, default, env) in arg.items():
            if name in v and v[name] is not None:
                out[name] = convert(v[name], at, scope)
            elif optional or name in v:
                d = scope._node(default, env) if default is not None else None
                out[name] = convert(d, at, scope)
            else:
                raise EvalError(f"attribute {name!r} is required by the variable's type")
        return out
    return v
