"""Terraform files -> blocks and attributes with their positions.

HCL native syntax (``.tf``, ``.tfvars``) is parsed by python-hcl2's grammar (``hcl2.parses_to_tree``: a Lark
tree that keeps every line, column and comment); the JSON syntax (``.tf.json``, ``.tfvars.json``) by the
linter's position-keeping JSON decoder. Both become the same :class:`Block` / :class:`Attr` records; the
expressions stay unevaluated (a Lark tree, or a :class:`JsonExpr`) until ``evaluate.py`` needs them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from visguard.errors import VisguardError

from ..decode import PosDict, loads_json, position_of


@dataclass
class JsonExpr:
    """A value written in Terraform's JSON syntax (strings may hold ``${...}`` templates)."""

    value: Any


@dataclass
class Attr:
    name: str
    expr: Any  # lark.Tree (native syntax) or JsonExpr
    file: str
    line: int | None
    column: int | None
    src: str = field(repr=False, default="")  # the whole file text, for quoting an expression as written


@dataclass
class Block:
    type: str
    labels: list[str]
    attrs: dict[str, Attr]
    blocks: list[Block]
    file: str
    line: int | None
    column: int | None
    end_line: int | None
    src: str = field(repr=False, default="")

    def nested(self, type_: str) -> list[Block]:
        return [b for b in self.blocks if b.type == type_]


# ---------------------------------------------------------------------------------------------- native
def parse_tree(text: str, file: str):
    """The Lark parse tree of HCL ``text``; a one-line VisguardError at the failing line otherwise."""
    import hcl2  # imported only when a Terraform file is read
    from lark.exceptions import (
        LarkError,
        UnexpectedCharacters,
        UnexpectedEOF,
        UnexpectedInput,
        UnexpectedToken,
    )

    try:
        return hcl2.parses_to_tree(text)
    except UnexpectedEOF:
        line = text.count("\n") + 1
        raise VisguardError(
            "cannot parse HCL: unexpected end of file", file=file, place=f"line {line}"
        ) from None
    except UnexpectedCharacters as exc:
        what = f"unexpected character {exc.char!r}"
        raise VisguardError(f"cannot parse HCL: {what}", file=file, place=f"line {exc.line}") from None
    except UnexpectedToken as exc:
        tok = exc.token
        what = "unexpected end of file" if tok.type == "$END" else f"unexpected {str(tok).strip()[:40]!r}"
        raise VisguardError(f"cannot parse HCL: {what}", file=file, place=f"line {exc.line}") from None
    except UnexpectedInput as exc:
        raise VisguardError("cannot parse HCL", file=file, place=f"line {exc.line}") from None
    except LarkError as exc:
        msg = str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__
        raise VisguardError(f"cannot parse HCL: {msg}", file=file) from None
    except RecursionError:
        raise VisguardError("cannot parse HCL: expression nested too deeply", file=file) from None


def name_of(node) -> str:
    """An attribute name or block label: identifier / keyword / literal_value / quoted string."""
    from lark import Token

    if isinstance(node, Token):
        return str(node)
    if node.data == "string":
        return "".join(str(c.children[0]) for c in node.children if not isinstance(c, Token))
    return str(node.children[0])


def parse_hcl(text: str, file: str) -> list[Block]:
    tree = parse_tree(text, file)
    body = tree.children[0]
    return _body(body, file, text)[1]


def parse_attrs(text: str, file: str) -> dict[str, Attr]:
    """A ``.tfvars`` file: attributes only."""
    tree = parse_tree(text, file)
    attrs, blocks = _body(tree.children[0], file, text)
    if blocks:
        b = blocks[0]
        raise VisguardError(
            f"a variables file holds NAME = VALUE lines, not blocks ({b.type})",
            file=file,
            place=f"line {b.line}",
        )
    return attrs


def _body(body, file: str, src: str) -> tuple[dict[str, Attr], list[Block]]:
    from lark import Token, Tree

    attrs: dict[str, Attr] = {}
    blocks: list[Block] = []
    for child in body.children:
        if not isinstance(child, Tree):
            continue
        if child.data == "attribute":
            name = name_of(child.children[0])
            if name in attrs:
                raise VisguardError(
                    f"argument {name!r} is set twice", file=file, place=f"line {child.meta.line}"
                )
            attrs[name] = Attr(name, child.children[-1], file, child.meta.line, child.meta.column, src)
        elif child.data == "block":
            parts = [c for c in child.children if not isinstance(c, Token)]
            head = [p for p in parts if p.data in ("identifier", "keyword", "literal_value", "string")]
            inner = next(p for p in parts if p.data == "body")
            a, b = _body(inner, file, src)
            blocks.append(
                Block(
                    name_of(head[0]),
                    [name_of(h) for h in head[1:]],
                    a,
                    b,
                    file,
                    child.meta.line,
                    child.meta.column,
                    child.meta.end_line,
                    src,
                )
            )
    return attrs, blocks


# ---------------------------------------------------------------------------------------------- JSON
_LABELS = {
    "resource": 2,
    "data": 2,
    "module": 1,
    "variable": 1,
    "output": 1,
    "provider": 1,
    "locals": 0,
    "terraform": 0,
    "moved": 0,
    "import": 0,
    "check": 1,
    "removed": 0,
}


def parse_json(text: str, file: str) -> list[Block]:
    """Terraform's JSON syntax: ``{"resource": {"aws_sqs_queue": {"orders": {...}}}, "variable": {...}}``."""
    doc = loads_json(text, file=file)
    if not isinstance(doc, dict):
        raise VisguardError("a .tf.json file must hold a JSON object", file=file, place="line 1")
    blocks: list[Block] = []
    for btype, body in doc.items():
        n = _LABELS.get(btype)
        if n is None:
            continue
        _json_blocks(btype, [], body, n, doc, btype, file, text, blocks)
    return blocks


def _json_blocks(btype, labels, node, remaining, parent, key, file, src, out) -> None:
    line, col = position_of(parent, key)
    if remaining == 0:
        for item in node if isinstance(node, list) else [node]:
            if not isinstance(item, dict):
                raise VisguardError(f"{btype}: expected a JSON object", file=file, place=f"line {line}")
            out.append(_json_block(btype, labels, item, file, src, line, col))
        return
    if not isinstance(node, dict):
        raise VisguardError(f"{btype}: expected a JSON object of labels", file=file, place=f"line {line}")
    for label, sub in node.items():
        _json_blocks(btype, [*labels, label], sub, remaining - 1, node, label, file, src, out)


# arguments that are nested blocks in the resources visguard reads (everything else is an attribute)
JSON_NESTED = {"scaling_config"}


def _json_block(btype, labels, body: dict, file, src, line, col) -> Block:
    attrs: dict[str, Attr] = {}
    blocks: list[Block] = []
    for k, v in body.items():
        kline, kcol = position_of(body, k)
        if btype == "resource" and k in JSON_NESTED:
            for item in v if isinstance(v, list) else [v]:
                if isinstance(item, dict):
                    blocks.append(_json_block(k, [], item, file, src, kline, kcol))
        else:
            attrs[k] = Attr(k, JsonExpr(v), file, kline, kcol, src)
    end = max((a.line or 0 for a in attrs.values()), default=line or 0)
    return Block(btype, list(labels), attrs, blocks, file, line, col, end, src)


def json_vars(text: str, file: str) -> dict[str, Attr]:
    doc = loads_json(text, file=file)
    if not isinstance(doc, PosDict):
        raise VisguardError("a .tfvars.json file must hold a JSON object", file=file, place="line 1")
    out = {}
    for k, v in doc.items():
        line, col = position_of(doc, k)
        out[k] = Attr(k, JsonExpr(v), file, line, col, text)
    return out
