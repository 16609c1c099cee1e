"""Read a JSON or YAML document and remember where every mapping key was written.

cfn-lint's decoder (``cfnlint.decode``) also keeps positions, but importing it costs about 0.5 s on this
machine (it pulls in all of cfn-lint), more than the whole 0.3 s budget of ``visguard lint`` on one small
template. So this module uses the standard ``json`` scanner and PyYAML (libyaml when present) and records
positions itself:

- every mapping becomes a :class:`PosDict` (a ``dict``) carrying its own ``line``/``col`` and the position
  of each key (1-based), so a loader can turn ``Resources/Orders/Properties/VisibilityTimeout`` into a line;
- YAML short-form tags (``!Ref``, ``!GetAtt``, ``!Sub`` ...) become the long form (``{"Ref": ...}``),
  exactly what CloudFormation itself does;
- every failure is a :class:`~visguard.errors.VisguardError` naming the file and the line.
"""

from __future__ import annotations

import json
import json.decoder
import json.scanner
import re
from bisect import bisect_right

from visguard.errors import VisguardError, too_deep

from . import safe_io
from .safe_io import MAX_BYTES

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

# Deepest nesting of mappings and lists a document may have. CloudFormation templates stay below 20; libyaml's
# composer recurses in C and crashes the process (SIGSEGV) near 50,000, so depth is bounded before composing.
MAX_DEPTH = 100
# Longest integer literal: Python refuses to convert more than 4,300 digits (CVE-2020-10735 limit).
MAX_INT_DIGITS = 4_300


class PosDict(dict):
    """A mapping that knows where it and each of its keys were written (1-based line and column)."""

    __slots__ = ("line", "col", "key_pos")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.line: int | None = None
        self.col: int | None = None
        self.key_pos: dict[Any, tuple[int, int]] = {}


def position_of(node: Any, key: Any = None) -> tuple[int | None, int | None]:
    """Line and column of ``node`` (or of ``key`` inside it). Understands :class:`PosDict` and cfn-lint's
    ``dict_node`` (``start_mark``, 0-based) so templates decoded by cfn-lint keep their lines too."""
    if isinstance(node, PosDict):
        if key is not None and key in node.key_pos:
            return node.key_pos[key]
        return node.line, node.col
    if key is not None and isinstance(node, dict):
        for k in node:
            if k == key and hasattr(k, "start_mark"):
                return k.start_mark.line + 1, k.start_mark.column + 1
    mark = getattr(node, "start_mark", None)
    if mark is not None:
        return mark.line + 1, mark.column + 1
    return None, None


def locate(root: Any, path: list | tuple) -> tuple[int | None, int | None]:
    """The position of the deepest key of ``path`` that exists under ``root``."""
    best: tuple[int | None, int | None] = position_of(root)
    node = root
    for key in path:
        if isinstance(node, dict) and key in node:
            pos = position_of(node, key)
            if pos[0] is not None:
                best = pos
            node = node[key]
        elif isinstance(node, list) and isinstance(key, int) and 0 <= key < len(node):
            node = node[key]
            pos = position_of(node)
            if pos[0] is not None:
                best = pos
        else:
            break
    return best


# ---------------------------------------------------------------------------------------------- JSON
class _Lines:
    def __init__(self, text: str):
        self.starts = [0]
        find = text.find
        i = find("\n")
        while i >= 0:
            self.starts.append(i + 1)
            i = find("\n", i + 1)

    def at(self, offset: int) -> tuple[int, int]:
        n = bisect_right(self.starts, offset)
        return n, offset - self.starts[n - 1] + 1


def _key_offset(text: str, key: str, value_offset: int) -> int:
    """The offset of the opening quote of ``key``, found backwards from its value (exact unless the key
    itself contains a quote; then the value's offset, which is on the same line in every usual layout)."""
    if '"' in key or "\\" in key:
        return value_offset
    colon = text.rfind(":", 0, value_offset)
    close = text.rfind('"', 0, colon)
    start = text.rfind('"', 0, close)
    return start if start >= 0 else value_offset


def _json_decoder(text: str) -> json.JSONDecoder:
    """A ``json`` decoder whose objects are :class:`PosDict` with key positions.

    The pure-Python scanner calls ``parse_object`` for every ``{``; wrapping it (and the ``scan_once`` it is
    handed) gives the offset of the object and of each value, in the order the pairs are returned."""
    lines = _Lines(text)
    dec = json.JSONDecoder(object_pairs_hook=list)
    base_object = json.decoder.JSONObject

    def parse_object(s_and_end, strict, scan_once, object_hook, object_pairs_hook, memo):
        start = s_and_end[1] - 1
        offsets: list[int] = []

        def scan_value(s, idx):
            offsets.append(idx)
            return scan_once(s, idx)

        pairs, end = base_object(s_and_end, strict, scan_value, object_hook, object_pairs_hook, memo)
        obj = PosDict()
        obj.line, obj.col = lines.at(start)
        for (key, value), off in zip(pairs, offsets, strict=False):
            if key in obj:
                line, _ = lines.at(off)
                raise VisguardError(f"duplicate key {key!r}", place=str(line))
            obj[key] = value
            obj.key_pos[key] = lines.at(_key_offset(text, key, off))
        return obj, end

    dec.parse_object = parse_object
    dec.scan_once = json.scanner.py_make_scanner(dec)
    return dec


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def json_depth(text: str, limit: int = MAX_DEPTH) -> tuple[int, int | None]:
    """The deepest nesting of ``[``/``{`` outside strings and the line (1-based) where it first goes past
    ``limit`` (stops counting there); ``(0, None)`` when there are too few openers to go past it."""
    if text.count("[") + text.count("{") <= limit:
        return 0, None  # cannot be deeper than the number of openers
    depth = deepest = 0
    for m in _JSON_TOKEN.finditer(text):
        ch = m.group()
        if ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    return deepest, text.count("\n", 0, m.start()) + 1
        elif ch in "]}":
            depth -= 1
    return deepest, None


def _number_error(text: str, exc: Exception, file: str) -> VisguardError:
    """A ValueError/OverflowError out of a parser (an integer literal over 4,300 digits, a date that does not
    exist) as bad input, with the line when it can be found."""
    m = re.search(r"[0-9_]{" + str(MAX_INT_DIGITS + 1) + ",}", text)
    if m is not None:
        line = text.count("\n", 0, m.start()) + 1
        return VisguardError(f"a number has more than {MAX_INT_DIGITS:,} digits", file=file, place=str(line))
    first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return VisguardError(f"invalid value: {first}", file=file)


def loads_json(text: str, *, file: str) -> Any:
    deepest, line = json_depth(text)
    if deepest > MAX_DEPTH:
        raise VisguardError(
            f"document nested too deeply (more than {MAX_DEPTH} levels)", file=file, place=line and str(line)
        )
    try:
        return _json_decoder(text).decode(text)
    except json.JSONDecodeError as exc:
        raise VisguardError(f"malformed JSON: {exc.msg}", file=file, place=str(exc.lineno)) from None
    except VisguardError as exc:
        raise VisguardError(exc.detail, file=file, place=exc.place) from None
    except (ValueError, OverflowError) as exc:
        raise _number_error(text, exc, file) from None


# ---------------------------------------------------------------------------------------------- YAML
def loads_yaml(text: str, *, file: str) -> Any:
    """A YAML document (:mod:`.decode_yaml`: PyYAML is imported on the first YAML document, so linting a JSON
    template does not pay for it)."""
    from .decode_yaml import loads_yaml

    return loads_yaml(text, file=file)


# ---------------------------------------------------------------------------------------------- files
def read_text(path: str) -> str:
    """The text of ``path``: a regular file, at most :data:`MAX_BYTES` read (``safe_io``)."""
    return safe_io.read_text(path, max_bytes=MAX_BYTES)


def loads(text: str, *, file: str) -> Any:
    """Decode JSON when the document starts with ``{`` (or the file ends in .json), YAML otherwise."""
    if len(text) > MAX_BYTES:
        raise VisguardError(f"document is larger than the {MAX_BYTES // 1048576} MB limit", file=file)
    if "\x00" in text:
        raise VisguardError("not a text file (contains NUL bytes)", file=file)
    try:
        if file.endswith(".json"):
            return loads_json(text, file=file)
        if text.lstrip().startswith("{"):
            try:
                return loads_json(text, file=file)
            except VisguardError as json_error:  # a YAML flow mapping also starts with "{"
                try:
                    return loads_yaml(text, file=file)
                except VisguardError:
                    raise json_error from None
        return loads_yaml(text, file=file)
    except RecursionError:
        raise too_deep(file, limit=MAX_DEPTH) from None


def loads_all(text: str, *, file: str) -> list:
    """Every document of ``text``: a YAML stream's (``---`` separated, :func:`.decode_yaml.loads_yaml_all`), or
    the one JSON document; the same bounds and errors as :func:`loads`."""
    if file.endswith(".json") or text.lstrip().startswith("{") or len(text) > MAX_BYTES or "\x00" in text:
        return [loads(text, file=file)]
    from .decode_yaml import loads_yaml_all

    try:
        return loads_yaml_all(text, file=file)
    except RecursionError:
        raise too_deep(file, limit=MAX_DEPTH) from None


def load_file(path: str) -> Any:
    return loads(read_text(path), file=path)
