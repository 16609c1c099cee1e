"""``--fix`` in Terraform's JSON syntax (``*.tf.json``, and a value written in ``*.tfvars.json``): the changes
``fix_hcl`` writes in HCL, written in JSON, only where the loader read them.

- a literal value (``"visibility_timeout_seconds": 60``, ``"60"``, a list of literal strings) is rewritten in
  place, keeping its quoting (``"60"`` stays a string: Terraform converts it);
- an argument missing from an ``aws_sqs_queue`` or ``aws_lambda_event_source_mapping`` object is added as the
  object's first member, on a line of its own with the indentation of the member after it;
- anything else is left alone with the reason: a template string (``"${var.timeout * 6}"``), a missing
  dead-letter queue (a new resource object and its JSON-encoded redrive policy: by hand), an object written on
  one line.

Edits are (start, end, new text, what) in characters, as ``fix_hcl.edit_for`` returns them; ``fix_hcl.fix_text``
plans, applies and checks them for both syntaxes.
"""

from __future__ import annotations

import json

from visguard.linter.model import Change

from .fix_hcl import _BLOCK_TYPE, _NUMBER, Skip, _argument, _new_text

_DECODER = json.JSONDecoder()
_WS = " \t\r\n"


def parse(text: str, path: str) -> None:
    """Raise VisguardError when ``text`` is not JSON (as ``fix_hcl._parse`` does for HCL)."""
    from visguard.errors import VisguardError

    try:
        json.loads(text)
    except ValueError as exc:
        raise VisguardError(f"not JSON: {exc}", file=path) from None


def line_starts(text: str) -> list[int]:
    """The offset of each line's first character (lines end at "\\n", as the JSON loader counts them)."""
    starts = [0]
    starts += [i + 1 for i, c in enumerate(text) if c == "\n"]
    return starts


def edit_for(change: Change, text: str, starts: list[int]) -> list[tuple[int, int, str, str]]:
    """The edits ``change`` makes in ``text``; Skip with the reason otherwise."""
    loc = change.location
    if loc is None or loc.line is None or loc.column is None or loc.line > len(starts):
        raise Skip("the loader does not know where the value is written")
    if change.field == "redrive":
        raise Skip("a dead-letter queue is not added in Terraform JSON syntax: add it by hand")
    at = starts[loc.line - 1] + loc.column - 1
    if text[at : at + 1] != '"':
        raise Skip("the value is not where the loader read it (the file changed?)")
    key, i = _DECODER.raw_decode(text, at)
    i = _skip_ws(text, i)
    if text[i : i + 1] != ":":
        raise Skip("the value is not where the loader read it (the file changed?)")
    start = _skip_ws(text, i + 1)
    value, end = _DECODER.raw_decode(text, start)
    if isinstance(value, dict):  # the location is the block: the argument is missing
        return [_insert(change, text, loc.path or "", value, start)]
    new = _new_text(change)
    written = text[start:end] if end - start <= 60 else text[start : start + 57] + "..."
    if change.field == "report_batch_item_failures":
        if not (isinstance(value, list) and all(isinstance(v, str) and "${" not in v for v in value)):
            raise Skip(f"{written} is not a list of literal strings")
    elif isinstance(value, str) and _NUMBER.fullmatch(value):
        new = f'"{new}"'
    elif isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Skip(f"{written} is an expression, not a literal: change it by hand")
    return [(start, end, new, "")]


def _insert(change: Change, text: str, address: str, block: dict, brace: int) -> tuple[int, int, str, str]:
    arg = _argument(change)
    want = _BLOCK_TYPE[change.scope]
    if not address.startswith(want + "."):
        raise Skip(f"{arg} is not written here and the place is not an {want} object")
    if arg in block:
        raise Skip(f"{arg} is already written in the object")
    first = _skip_ws(text, brace + 1)
    if not block or "\n" not in text[brace + 1 : first]:
        raise Skip("an object without members on lines of their own")
    indent = text[text.rindex("\n", brace, first) + 1 : first]
    return brace + 1, brace + 1, f"\n{indent}{json.dumps(arg)}: {_new_text(change)},", arg


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i
