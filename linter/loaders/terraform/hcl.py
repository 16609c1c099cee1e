"""Terraform files -> blocks and attributes with their positions.

HCL native syntax (``.tf``, ``.tfvars``) is parsed by tree-sitter's HCL grammar (``tree-sitter-hcl``: a concrete
syntax tree built in C that keeps every byte offset, line and comment); the JSON syntax (``.tf.json``,
``.tfvars.json``) by the linter's position-keeping JSON decoder. Both become the same :class:`Block` /
:class:`Attr` records; the expressions stay unevaluated (a tree-sitter ``expression`` node with the
:class:`Source` it came from, or a :class:`JsonExpr`) until ``evaluate.py`` needs them.

tree-sitter is error-tolerant: it always returns a tree, with ``ERROR`` and ``MISSING`` nodes where the text is
not HCL. Any such node makes the file bad input here (one line naming the file and the line of the first
error), as Terraform would reject it. tree-sitter counts bytes (UTF-8) and 0-based rows and columns; the records
give 1-based lines and 1-based columns counted in characters (:meth:`Source.column`).
"""

from __future__ import annotations

import re
import time

from visguard.errors import VisguardError
from visguard.records import REQUIRED, Record

from ..decode import PosDict, loads_json, position_of

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

MAX_BLOCK_DEPTH = 64  # blocks inside blocks: Terraform's deepest (dynamic > content > ...) is far below
# CPU seconds a parse may take: a valid file parses at several MB/s (0.04 s for 156 KB on a loaded 2-vCPU VM)
PARSE_CPU_S = 2.0
PARSE_CPU_S_PER_MB = 2.0
# Heredoc bytes in one file: tree-sitter-hcl's heredoc scanner takes ~175 bytes of memory and ~0.8 s per MB
# of heredoc (a 9 MB heredoc: 1.6 GB), far more than the rest of HCL; a value is at most 1,000,000 characters
# anyway (evaluate.py). Checked on the text before it is parsed.
MAX_HEREDOC_BYTES = 1_000_000
_HEREDOC = rb"(?m)[=(,\[:?]\s*<<-?([A-Za-z_][A-Za-z0-9_-]*)[ \t]*\r?\n"  # compiled on first use


class JsonExpr(Record):
    """A value written in Terraform's JSON syntax (strings may hold ``${...}`` templates)."""

    __slots__ = ("value",)


class Source:
    """The text of one parsed file. tree-sitter counts bytes; a finding's column counts characters. ``shown`` is
    False for a file reached through a symlink: no message quotes its text."""

    __slots__ = ("ascii", "data", "text", "shown")

    def __init__(self, text: str, data: bytes | None = None):
        self.text = text
        self.data = text.encode("utf-8", "surrogatepass") if data is None else data
        self.ascii = len(self.data) == len(text)
        self.shown = True

    def slice(self, node) -> str:
        """The text of ``node`` (a tree-sitter node or a :class:`Span`) as written."""
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def column(self, node) -> int:
        """The 1-based column of ``node``'s start, in characters."""
        col = node.start_point.column
        if self.ascii or col == 0:
            return col + 1
        start = node.start_byte
        return len(self.data[start - col : start].decode("utf-8", "replace")) + 1

    def offset(self, byte: int) -> int:
        """The index in :attr:`text` of byte offset ``byte``."""
        return byte if self.ascii else len(self.data[:byte].decode("utf-8", "replace"))


class Span:
    """Consecutive sibling nodes as one place (an operand written ``a.b[0]`` is three nodes in the tree); read
    only for a message, so nothing is asked of the nodes before."""

    __slots__ = ("first", "last")

    def __init__(self, first, last):
        self.first, self.last = first, last

    @property
    def start_byte(self) -> int:
        return self.first.start_byte

    @property
    def end_byte(self) -> int:
        return self.last.end_byte

    @property
    def start_point(self):
        return self.first.start_point


def line_of(node) -> int | None:
    point = getattr(node, "start_point", None)
    return point.row + 1 if point is not None else None


class _Parsed(Record):
    """Equality from every field; ``repr`` leaves out ``src`` (a whole file's text)."""

    __slots__ = ()

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields if name != "src")
        return f"{type(self).__name__}({fields})"


class Attr(_Parsed):
    # expr: a tree-sitter ``expression`` node (native syntax) or JsonExpr; src: the file's text, for quoting an
    # expression as written
    __slots__ = {
        "name": REQUIRED,
        "expr": REQUIRED,
        "file": REQUIRED,
        "line": REQUIRED,
        "column": REQUIRED,
        "src": None,
    }


class Block(_Parsed):
    __slots__ = {
        "type": REQUIRED,
        "labels": REQUIRED,
        "attrs": REQUIRED,
        "blocks": REQUIRED,
        "file": REQUIRED,
        "line": REQUIRED,
        "column": REQUIRED,
        "end_line": REQUIRED,
        "src": None,
    }

    def nested(self, type_: str) -> list[Block]:
        return [b for b in self.blocks if b.type == type_]


# ---------------------------------------------------------------------------------------------- native
_PARSER: Any = None
# HCL writes 1e5 (an exponent without a fraction); tree-sitter-hcl 1.2's numeric literal needs "1.0e5". Such a
# literal is parsed as a run of digits of the same length (positions unchanged); its value is read from the text.
_EXPONENT = rb"(?<![\w.])[0-9]+[eE][-+]?[0-9]+(?![\w.])"  # compiled on first use (``re`` caches it)


def _parser():
    global _PARSER
    if _PARSER is None:
        import tree_sitter  # imported only when a Terraform file is read
        import tree_sitter_hcl

        _PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_hcl.language()))
    return _PARSER


def parse_source(text: str, file: str) -> tuple[Any, Source]:
    """The tree-sitter root node of HCL ``text`` and its :class:`Source`; a one-line VisguardError at the line of
    the first syntax error otherwise."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        raise VisguardError("cannot parse HCL: the text is not valid Unicode", file=file) from None
    src = Source(text, data)
    _check_heredocs(data, file)
    root = _parse(data, file)
    if root.has_error:
        patched = re.sub(_EXPONENT, lambda m: b"1" * len(m.group()), data)
        if patched != data:
            root = _parse(patched, file)
        if root.has_error:
            line, what = _first_error(root, src)
            raise VisguardError(f"cannot parse HCL: {what}", file=file, place=f"line {line}")
    return root, src


def _check_heredocs(data: bytes, file: str) -> None:
    """Refuse a file whose heredocs (``<<EOF`` ... ``EOF``; an unterminated one runs to the end) hold more than
    :data:`MAX_HEREDOC_BYTES`, before tree-sitter spends a gigabyte on them."""
    if b"<<" not in data:
        return
    total, pos = 0, 0
    pattern = re.compile(_HEREDOC)
    while total <= MAX_HEREDOC_BYTES:
        m = pattern.search(data, pos)
        if m is None:
            return
        end = re.compile(rb"(?m)^[ \t]*" + re.escape(m.group(1)) + rb"[ \t]*\r?$").search(data, m.end())
        stop = end.start() if end is not None else len(data)
        total += stop - m.end()
        pos = end.end() if end is not None else len(data)
        if total > MAX_HEREDOC_BYTES:
            line = data.count(b"\n", 0, m.start()) + 1
            raise VisguardError(
                f"heredocs hold more than {MAX_HEREDOC_BYTES:,} bytes (visguard's bound on one file)",
                file=file,
                place=f"line {line}",
            )


# The language server's last parse of each file (``use_trees``; reuse.py): file -> (the bytes parsed, the tree).
# The next parse of a changed file is tree-sitter's incremental one, given the edit (the bytes between the common
# prefix and suffix); a tree with an error is parsed again whole, so every error is found as a one-shot lint
# finds it. At most MAX_KEPT_TREES files, the least recently parsed dropped first.
_TREES: dict | None = None
MAX_KEPT_TREES = 32


def use_trees(trees: dict | None) -> dict | None:
    """Keep each file's last parse in ``trees`` from now on (None: nothing kept); returns what was in use."""
    global _TREES
    before, _TREES = _TREES, trees
    return before


def _common(a: bytes, b: bytes) -> tuple[int, int]:
    """The lengths of the common prefix and suffix of ``a`` and ``b`` (not overlapping), by halving: each step
    one comparison of two slices (C's memcmp), never a Python loop over bytes."""
    n = min(len(a), len(b))
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    prefix = lo
    lo, hi = 0, n - prefix
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid :] == b[len(b) - mid :]:
            lo = mid
        else:
            hi = mid - 1
    return prefix, lo


def _point(data: bytes, offset: int) -> tuple[int, int]:
    return data.count(b"\n", 0, offset), offset - (data.rfind(b"\n", 0, offset) + 1)


def _edited(file: str, data: bytes):
    """The kept tree of ``file``, copied and told how ``data`` differs from the bytes it was parsed from."""
    old_data, old_tree = _TREES[file]
    prefix, suffix = _common(old_data, data)
    tree = old_tree.copy()  # the kept tree's nodes stay as they were (a kept model may still point at them)
    tree.edit(
        start_byte=prefix,
        old_end_byte=len(old_data) - suffix,
        new_end_byte=len(data) - suffix,
        start_point=_point(old_data, prefix),
        old_end_point=_point(old_data, len(old_data) - suffix),
        new_end_point=_point(data, len(data) - suffix),
    )
    return tree


def _keep(file: str, data: bytes, tree) -> None:
    if _TREES is None:
        return
    _TREES.pop(file, None)
    if not tree.root_node.has_error:
        _TREES[file] = (data, tree)
        while len(_TREES) > MAX_KEPT_TREES:
            del _TREES[next(iter(_TREES))]


def _parse(data: bytes, file: str):
    """tree-sitter's parse of ``data``, stopped when it takes more CPU than any real file needs: its error
    recovery can be quadratic (an unclosed ``[`` followed by a million blank lines takes hours)."""
    kept = _TREES.get(file) if _TREES is not None else None
    if kept is not None:
        if kept[0] == data:
            return kept[1].root_node
        tree = _parse_tree(data, file, _edited(file, data))
        if not tree.root_node.has_error:
            _keep(file, data, tree)
            return tree.root_node
    tree = _parse_tree(data, file, None)
    _keep(file, data, tree)
    return tree.root_node


def _parse_tree(data: bytes, file: str, old):
    parser = _parser()
    budget = PARSE_CPU_S + PARSE_CPU_S_PER_MB * len(data) / 1_000_000
    start = time.process_time()
    at = [0, 0]  # the last offset reported, the number of reports

    def progress(offset: int, has_error: bool) -> bool:
        # tree-sitter reports every few hundred steps (~16 times per KB of a clean file); the CPU clock is read at
        # each: in a runaway recovery the reports come far apart, and skipping 15 of them let one hostile file
        # grow the parser's stacks by 570 MB past the budget (tests/linter/terraform/test_hcl_parser.py)
        at[0] = offset
        at[1] += 1
        return time.process_time() - start > budget

    try:
        read = lambda byte, _point: data[byte : byte + 65536]  # noqa: E731
        tree = (
            parser.parse(read, old, progress_callback=progress)
            if old is not None
            else parser.parse(read, progress_callback=progress)
        )
    except ValueError:  # cancelled by progress()
        parser.reset()  # a cancelled parser would resume this text on its next call
        line = data.count(b"\n", 0, at[0]) + 1
        raise VisguardError(
            f"cannot parse HCL: the parser gave up after {budget:.1f} s recovering from syntax errors",
            file=file,
            place=f"line {line}",
        ) from None
    return tree


def parse_expression(text: str, file: str) -> tuple[Any, Source]:
    """The ``expression`` node of ``x = <text>`` (a ``--var`` value, a template given as text)."""
    root, src = parse_source(f"x = {text}\n", file)
    for attr in _kids(_kids(root)[0]):
        if attr.type == "attribute":
            return expr_of(attr), src
    raise VisguardError("cannot parse HCL: no expression", file=file)


def _kids(node) -> list:
    """The children of ``node`` without comments."""
    return [c for c in node.children if c.type != "comment"]


def expr_of(node):
    """The value of an ``attribute`` or ``object_elem``: its last ``expression`` child."""
    for c in reversed(node.children):
        if c.type == "expression":
            return c
    return None


def _first_error(root, src: Source) -> tuple[int, str]:
    """(line, what) of the first ERROR or MISSING node, in text order (an iterative walk: no recursion limit)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_missing:
            return _missing(node, src)
        if node.is_error:
            nested = [c for c in node.children if c.has_error or c.is_missing]
            if not nested:
                return _unexpected(node, src)
        stack.extend(reversed([c for c in node.children if c.has_error or c.is_missing]))
    return root.start_point.row + 1, "syntax error"


def _rest_is_empty(src: Source, byte: int) -> bool:
    """Only spaces and comments after ``byte`` (one linear scan: hostile text must not make it quadratic)."""
    data, i, n = src.data, byte, len(src.data)
    while i < n:
        c = data[i : i + 1]
        if c.isspace():
            i += 1
        elif c == b"#" or data.startswith(b"//", i):
            j = data.find(b"\n", i)
            i = n if j < 0 else j + 1
        elif data.startswith(b"/*", i):
            j = data.find(b"*/", i + 2)
            i = n if j < 0 else j + 2
        else:
            return False
    return True


def _eof(src: Source) -> tuple[int, str]:
    return src.text.count("\n") + 1, "unexpected end of file"


def _token_at(src: Source, byte: int) -> tuple[int, str]:
    """(line, a short quoted excerpt of the first word) of the text at ``byte`` (after whitespace)."""
    from .files import excerpt

    data = src.data
    m = re.compile(rb"\s*").match(data, byte)
    start = m.end() if m else byte
    word = (data[start : start + 40].split() or [b""])[0]
    line = data.count(b"\n", 0, start) + 1
    return line, f"unexpected {excerpt(word.decode('utf-8', 'replace'))}"


def _missing(node, src: Source) -> tuple[int, str]:
    parent = node.parent
    if node.type == "quoted_template_end" and parent is not None:
        return parent.start_point.row + 1, "unterminated string"
    if node.type == "heredoc_identifier" and parent is not None:
        return parent.start_point.row + 1, "unterminated heredoc"
    if _rest_is_empty(src, node.start_byte):
        return _eof(src)
    return _token_at(src, node.start_byte)


def _unexpected(node, src: Source) -> tuple[int, str]:
    """An ERROR node holds what parsed before the error and the tokens skipped after it: the first text it does
    not cover with a child is the unexpected one; a stray token (``}``, ``=``) is; one that ends the file where a
    statement is still open means the file ended too early."""
    pos = node.start_byte
    kids = [c for c in node.children if c.start_byte != c.end_byte]
    for c in kids:
        if src.data[pos : c.start_byte].strip():
            return _token_at(src, pos)
        pos = c.end_byte
    if src.data[pos : node.end_byte].strip():
        return _token_at(src, pos)
    if kids and kids[0].is_named and _rest_is_empty(src, pos):
        return _eof(src)
    return _token_at(src, node.start_byte)


def name_of(node, src: Source) -> str:
    """An attribute name or block label: an identifier, or a quoted string (as written, without its quotes)."""
    if node.type == "string_lit":
        return src.data[node.start_byte + 1 : node.end_byte - 1].decode("utf-8", "replace")
    return src.slice(node)


def block_parts(node, src: Source) -> tuple[list[str], Any]:
    """([type, label, ...], body node or None) of a ``block`` node."""
    names, body = [], None
    data = src.data
    for c in node.children:
        t = c.type
        if t == "identifier":
            names.append(data[c.start_byte : c.end_byte].decode("utf-8", "replace"))
        elif t == "string_lit":
            names.append(data[c.start_byte + 1 : c.end_byte - 1].decode("utf-8", "replace"))
        elif t == "body":
            body = c
        elif t == "block_end":
            break
    return names, body


def body_of(root):
    """The top-level ``body`` node of a parsed file (None when it holds nothing)."""
    for c in root.children:
        if c.type == "body":
            return c
    return None


def parse_hcl(text: str, file: str) -> list[Block]:
    root, src = parse_source(text, file)
    return _file_body(root, src, file)[1]


def parse_attrs(text: str, file: str) -> dict[str, Attr]:
    """A ``.tfvars`` file: attributes only."""
    root, src = parse_source(text, file)
    attrs, blocks = _file_body(root, src, file)
    if blocks:
        b = blocks[0]
        raise VisguardError(
            f"a variables file holds NAME = VALUE lines, not blocks ({b.type})",
            file=file,
            place=f"line {b.line}",
        )
    return attrs


def _file_body(root, src: Source, file: str) -> tuple[dict[str, Attr], list[Block]]:
    for c in root.children:
        if c.type == "object":  # tree-sitter-hcl also reads a file that is one object: not HCL
            line, what = _token_at(src, c.start_byte)
            raise VisguardError(f"cannot parse HCL: {what}", file=file, place=f"line {line}")
    body = body_of(root)
    return _body(body, file, src, 0) if body is not None else ({}, [])


def _body(body, file: str, src: Source, depth: int) -> tuple[dict[str, Attr], list[Block]]:
    # The hot loop of reading a module (every argument of every block): node kinds are compared by their
    # numeric ids and names sliced from the bytes here, which spares a string per node and a call per name.
    if depth > MAX_BLOCK_DEPTH:
        raise VisguardError(
            "cannot parse HCL: blocks nested too deeply", file=file, place=f"line {body.start_point.row + 1}"
        )
    attrs: dict[str, Attr] = {}
    blocks: list[Block] = []
    ascii_ = src.ascii
    data = src.data
    attribute, block = _kind_ids()
    for child in body.children:
        k = child.kind_id
        if k == attribute:
            kids = child.children  # identifier, "=", expression (comments may sit between them)
            first = kids[0]
            name = data[first.start_byte : first.end_byte].decode("utf-8", "replace")
            row, col = child.start_point
            if name in attrs:
                raise VisguardError(f"argument {name!r} is set twice", file=file, place=f"line {row + 1}")
            expr = kids[2] if len(kids) == 3 else expr_of(child)
            attrs[name] = Attr(name, expr, file, row + 1, col + 1 if ascii_ else src.column(child), src)
        elif k == block:
            names, inner = block_parts(child, src)
            a, b = _body(inner, file, src, depth + 1) if inner is not None else ({}, [])
            row, col = child.start_point
            blocks.append(
                Block(
                    names[0],
                    names[1:],
                    a,
                    b,
                    file,
                    row + 1,
                    col + 1 if ascii_ else src.column(child),
                    child.end_point.row + 1,
                    src,
                )
            )
    return attrs, blocks


_KIND_IDS: tuple[int, int] | None = None


def _kind_ids() -> tuple[int, int]:
    """The grammar's numeric ids of ``attribute`` and ``block`` nodes."""
    global _KIND_IDS
    if _KIND_IDS is None:
        language = _parser().language
        _KIND_IDS = (
            language.id_for_node_kind("attribute", True),
            language.id_for_node_kind("block", True),
        )
    return _KIND_IDS


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
    src = Source(text)
    for btype, body in doc.items():
        n = _LABELS.get(btype)
        if n is None:
            continue
        _json_blocks(btype, [], body, n, doc, btype, file, src, blocks)
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
JSON_NESTED = {"scaling_config", "setting"}


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
    src = Source(text)
    for k, v in doc.items():
        line, col = position_of(doc, k)
        out[k] = Attr(k, JsonExpr(v), file, line, col, src)
    return out
