"""YAML documents for :mod:`.decode`: PyYAML (libyaml when present) with key positions and CloudFormation's
short-form tags, bounded in depth and in alias expansion.

Imported by :func:`.decode.loads_yaml` on the first YAML document only: importing PyYAML costs more than the
rest of a one-template lint, and a JSON template never needs it (tests/linter/test_cli_imports.py).
"""

from __future__ import annotations

import re

import yaml
from visguard.errors import VisguardError

from .decode import MAX_DEPTH, PosDict, _number_error

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# short form -> long form (CloudFormation template reference, "Intrinsic function reference")
_SHORT_TAGS = {
    "Ref": "Ref",
    "Condition": "Condition",
    **{
        name: f"Fn::{name}"
        for name in [
            "And",
            "Base64",
            "Cidr",
            "Equals",
            "FindInMap",
            "GetAZs",
            "GetAtt",
            "If",
            "ImportValue",
            "Join",
            "Not",
            "Or",
            "Select",
            "Split",
            "Sub",
            "Transform",
            "ToJsonString",
            "Length",
            "ForEach",
        ]
    },
}


class _Loader(_BaseLoader):  # type: ignore[misc, valid-type]
    pass


def _construct_mapping(loader: _Loader, node: yaml.MappingNode, deep: bool = False) -> PosDict:
    loader.flatten_mapping(node)
    obj = PosDict()
    obj.line, obj.col = node.start_mark.line + 1, node.start_mark.column + 1
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            raise yaml.constructor.ConstructorError(
                None, None, "a mapping key must be a scalar", key_node.start_mark
            ) from None
        if key in obj:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        obj[key] = loader.construct_object(value_node, deep=deep)
        obj.key_pos[key] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
    return obj


def _construct_tag(loader: _Loader, tag_suffix: str, node: yaml.Node) -> PosDict:
    name = _SHORT_TAGS.get(tag_suffix)
    if name is None:
        raise yaml.constructor.ConstructorError(None, None, f"unknown tag !{tag_suffix}", node.start_mark)
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
        if name == "Fn::GetAtt":  # !GetAtt Res.Attr.Sub -> ["Res", "Attr.Sub"]
            value = value.split(".", 1)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = _construct_mapping(loader, node, deep=True)
    obj = PosDict({name: value})
    obj.line, obj.col = node.start_mark.line + 1, node.start_mark.column + 1
    obj.key_pos[name] = (obj.line, obj.col)
    return obj


_Loader.add_constructor("tag:yaml.org,2002:map", _construct_mapping)
_Loader.add_multi_constructor("!", _construct_tag)


_ALIAS = re.compile(r"(?:^|[\s\[{,:-])\*[A-Za-z0-9_.-]")
MAX_EXPANDED_NODES = 2_000_000


def _expanded_size(root: Any, limit: int) -> int:
    """Nodes of ``root`` counted as if every YAML alias were copied (shared nodes memoized by id), so a
    "billion laughs" document is refused before any loader walks it."""
    sizes: dict[int, int] = {}
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if not isinstance(node, (dict, list)) or (id(node) in sizes and not done):
            continue
        children = list(node.values()) if isinstance(node, dict) else node
        if not done:
            stack.append((node, True))
            stack.extend((c, False) for c in children if isinstance(c, (dict, list)))
            continue
        total = 1 + sum(sizes.get(id(c), 1) for c in children)
        if total > limit:
            return total
        sizes[id(node)] = total
    return sizes.get(id(root), 1)


_YAML_OPENERS = (yaml.BlockMappingStartToken, yaml.BlockSequenceStartToken, yaml.FlowMappingStartToken,
                 yaml.FlowSequenceStartToken)  # fmt: skip
_YAML_CLOSERS = (yaml.BlockEndToken, yaml.FlowMappingEndToken, yaml.FlowSequenceEndToken)


def _yaml_depth_bound(text: str) -> int:
    """A cheap upper bound on a YAML document's nesting: flow openers + block levels (each at least one column
    of indentation deeper, two levels per column for a sequence under a mapping key) + the collections one
    line can open (``- - -``, ``a: b: c``)."""
    flow = text.count("[") + text.count("{")
    indent = max((len(m) for m in re.findall(r"^[ ]*", text, re.M)), default=0)
    per_line = max(
        (line.count("- ") + line.count(": ") + line.count("? ") + 1 for line in text.splitlines()),
        default=0,
    )
    return flow + 2 * (indent + 1) + per_line


def yaml_depth(text: str, limit: int = MAX_DEPTH) -> tuple[int, int | None]:
    """The nesting of a YAML document from libyaml's token stream (the scanner is a state machine, it does not
    recurse) and the line (1-based) where it first goes past ``limit``; ``(0, None)`` when the cheap bound
    already shows it is shallow. Stops counting past ``limit``."""
    if _yaml_depth_bound(text) <= limit:
        return 0, None
    depth = deepest = 0
    try:
        for tok in yaml.scan(text, Loader=_BaseLoader):
            if isinstance(tok, _YAML_OPENERS):
                depth += 1
                if depth > deepest:
                    deepest = depth
                    if deepest > limit:
                        return deepest, tok.start_mark.line + 1
            elif isinstance(tok, _YAML_CLOSERS):
                depth -= 1
    except yaml.YAMLError:
        pass  # the real load reports it with its line
    return deepest, None


def loads_yaml(text: str, *, file: str) -> Any:
    return _loads(text, file, all_documents=False)


def loads_yaml_all(text: str, *, file: str) -> list:
    """Every document of a YAML stream (``---`` separated; Kubernetes manifests, rendered Helm output), each
    with the positions of the whole stream, under the same bounds as one document."""
    return _loads(text, file, all_documents=True)


def _loads(text: str, file: str, *, all_documents: bool) -> Any:
    if _CHUNKS is not None and not all_documents:
        doc = _CHUNKS.load(text, file)
        if doc is not None:
            return doc
    return _load_whole(text, file, all_documents=all_documents)


def _load_whole(text: str, file: str, *, all_documents: bool = False) -> Any:
    deepest, line = yaml_depth(text)
    if deepest > MAX_DEPTH:
        raise VisguardError(
            f"document nested too deeply (more than {MAX_DEPTH} levels)", file=file, place=line and str(line)
        )
    try:
        if all_documents:
            doc: Any = list(yaml.load_all(text, Loader=_Loader))  # noqa: S506 - a SafeLoader subclass
        else:
            doc = yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader subclass
        if _ALIAS.search(text) and _expanded_size(doc, MAX_EXPANDED_NODES) > MAX_EXPANDED_NODES:
            raise VisguardError("YAML aliases expand to more than 2,000,000 nodes", file=file)
        return doc
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        place = str(mark.line + 1) if mark is not None else None
        what = exc.problem or exc.context or "malformed YAML"
        raise VisguardError(f"malformed YAML: {what}", file=file, place=place) from None
    except yaml.YAMLError as exc:
        raise VisguardError(f"malformed YAML: {str(exc).splitlines()[0]}", file=file) from None
    except (ValueError, OverflowError, TypeError, AttributeError, IndexError, KeyError) as exc:
        # PyYAML's constructors on a scalar they cannot take: int('9' * 5000), a date that does not exist,
        # `!!timestamp` on text that is not one (AttributeError inside PyYAML)
        raise _number_error(text, exc, file) from None


# -- the language server's parse of a changed template: only what changed ----------------------------------------
_KEY_LINE = re.compile(
    r"[^\s#][^\n]*?:(?:[ \t]+#[^\n]*)?[ \t]*$"
)  # `Name:` alone on its line (a block follows)
_TOP = re.compile(r"[^\s#]")
_ANCHOR = re.compile(r"(?:^|[\s\[{,:-])&[A-Za-z0-9_.-]")


class ChunkCache:
    """The parsed pieces of block-style YAML templates, each top-level section and each resource of
    ``Resources`` keyed by (its first line, its text), so a document that changed in one resource is parsed in
    that resource only (the language server's edits: ``visguard.linter.lsp``). Pieces are parsed at their own
    lines (the text is preceded by as many newlines), so every position is the one the whole parse gives.

    Only documents where the pieces cannot mean anything else are split: one document, no anchor or alias, no
    tab or directive, every line at column 0 a ``Key:`` of a block mapping or a comment, and ``Resources:``
    alone on its line. Anything else, a piece that does not parse, or a key twice, is parsed whole (which says
    what is wrong, with its line). Pieces are shared between parses: the loaders read a decoded template and
    never change it (tests/linter/loaders/test_yaml_chunks.py lints every rule fixture both ways)."""

    def __init__(self, max_pieces: int = 50_000):
        self.max_pieces = max_pieces
        self.pieces: dict[tuple[int, str], Any] = {}
        self.parsed = 0  # pieces parsed (not found in the cache): for tests and the benchmark

    def _piece(self, first: int, text: str, file: str) -> Any:
        key = (first, text)
        hit = self.pieces.get(key)
        if hit is None:
            if yaml_depth(text)[0] > MAX_DEPTH - 2:
                raise _Whole
            hit = yaml.load("\n" * first + text, Loader=_Loader)  # noqa: S506 - a SafeLoader subclass
            if not isinstance(hit, PosDict) or len(hit) != 1:
                raise _Whole
            if len(self.pieces) >= self.max_pieces:
                self.pieces.clear()
            self.pieces[key] = hit
            self.parsed += 1
        return hit

    def load(self, text: str, file: str) -> Any:
        """The document, or None when it is not split (the caller parses it whole)."""
        if (
            "\t" in text
            or _ALIAS.search(text)
            or _ANCHOR.search(text)
            or text.startswith(("%", "---"))
            or "\n---" in text
        ):
            return None
        lines = text.splitlines(keepends=True)
        tops = []
        for i, ln in enumerate(lines):
            if _TOP.match(ln):
                if not _KEY_LINE.match(ln.rstrip("\r\n")) and ": " not in ln:
                    return None
                tops.append(i)
        if not tops or "Resources" not in text:
            return None
        try:
            root = PosDict()
            bounds = tops + [len(lines)]
            for n, start in enumerate(tops):
                end = bounds[n + 1]
                head = lines[start].split("#", 1)[0].strip()
                if head == "Resources:":
                    key, value = "Resources", self._resources(lines, start, end, file)
                    pos = (start + 1, 1)
                else:
                    first = 0 if n == 0 else start  # comments before the first key go with it
                    piece = self._piece(first, "".join(lines[first:end]), file)
                    ((key, value),) = piece.items()
                    pos = piece.key_pos[key]
                if key in root:
                    raise _Whole
                if root.line is None:
                    root.line, root.col = pos
                root[key] = value
                root.key_pos[key] = pos
            return root
        except (
            _Whole,
            yaml.YAMLError,
            ValueError,
            OverflowError,
            TypeError,
            AttributeError,
            IndexError,
            KeyError,
        ):
            return None

    def _resources(self, lines: list[str], start: int, end: int, file: str) -> PosDict:
        body = [
            i for i in range(start + 1, end) if lines[i].strip() and not lines[i].lstrip().startswith("#")
        ]
        if not body:
            raise _Whole
        indent = len(lines[body[0]]) - len(lines[body[0]].lstrip(" "))
        heads = [i for i in body if len(lines[i]) - len(lines[i].lstrip(" ")) == indent]
        if indent == 0 or any(len(lines[i]) - len(lines[i].lstrip(" ")) < indent for i in body):
            raise _Whole
        out = PosDict()
        bounds = heads + [end]
        for n, h in enumerate(heads):
            if lines[h].lstrip().startswith(("- ", "-\n", "? ", "{", "[")):
                raise _Whole
            piece = self._piece(h, "".join(lines[h : bounds[n + 1]]), file)
            ((key, value),) = piece.items()
            if key in out:
                raise _Whole
            if out.line is None:
                out.line, out.col = piece.line, piece.col
            out[key] = value
            out.key_pos[key] = piece.key_pos[key]
        return out


class _Whole(Exception):
    """This document is parsed whole."""


_CHUNKS: ChunkCache | None = None


def use_chunks(cache: ChunkCache | None) -> ChunkCache | None:
    """Parse YAML documents through ``cache`` from now on (None: whole, as a one-shot lint does); returns the
    cache that was in use."""
    global _CHUNKS
    before, _CHUNKS = _CHUNKS, cache
    return before
