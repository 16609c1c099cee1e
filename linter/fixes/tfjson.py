"""``--fix`` in Terraform's JSON syntax (``*.tf.json``, and a value written in ``*.tfvars.json``): the changes
``fixes.hcl`` writes in HCL, written in JSON, only where the loader read them.

- a literal value (``"visibility_timeout_seconds": 60``, ``"60"``, a list of literal strings) is rewritten in
  place, keeping its quoting (``"60"`` stays a string: Terraform converts it);
- an argument missing from an ``aws_sqs_queue`` or ``aws_lambda_event_source_mapping`` object is added as the
  object's first member, on a line of its own with the indentation of the member after it;
- a worker consumer's setting written as a literal (an sqsd ``setting`` element's ``"value": "600"``) is
  rewritten in place like any other; one that is not written is left to a person (a new ``setting`` element, a
  ``stopTimeout`` inside a JSON string);
- anything else is left alone with the reason: a template string (``"${var.timeout * 6}"``), a missing
  dead-letter queue (a new resource object and its JSON-encoded redrive policy: by hand), an object written on
  one line.

This module is the tf.json adapter of the fix core (visguard.linter.fixes.core): it locates a change and renders
its edits as spans of the text, keyed as the HCL adapter keys them (the value's line and column, and the argument
added); the core plans, applies the clash policy and checks the rewrite.
"""

from __future__ import annotations

import json

from visguard.linter.fixes import terraform as words
from visguard.linter.fixes.core import Adapter, CannotFix, Edit, splice
from visguard.linter.model import Change

_DECODER = json.JSONDecoder()
# worker consumer settings (issue 24) that are edited where written, never added in JSON syntax
_WORKER_FIELDS = {
    "stop_timeout": "the container's stopTimeout",
    "visibility_override": "the sqsd VisibilityTimeout setting",
    "inactivity_timeout": "the sqsd InactivityTimeout setting",
    "work_timeout": "the sqsd InactivityTimeout setting",
    "heartbeat_interval": "the heartbeat interval",
}
_WS = " \t\r\n"


class TfJsonAdapter(Adapter):
    source = "terraform"

    def __init__(self, path: str):
        self.path = path

    def parse(self, text: str):
        json.loads(text)
        return line_starts(text), text

    def locate(self, change: Change, doc) -> list[tuple]:
        starts, text = doc
        return edit_for(change, text, starts)

    def render(self, text: str, doc, edits: list[Edit]) -> tuple[str, dict]:
        return splice(text, edits)

    def check(self, text: str) -> None:
        json.loads(text)


def line_starts(text: str) -> list[int]:
    """The offset of each line's first character (lines end at "\\n", as the JSON loader counts them)."""
    starts = [0]
    starts += [i + 1 for i, c in enumerate(text) if c == "\n"]
    return starts


def edit_for(change: Change, text: str, starts: list[int]) -> list[tuple]:
    """(key, value, (start, end, render)) of each edit ``change`` makes in ``text`` (as ``fixes.hcl.edit_for``);
    CannotFix with the reason otherwise."""
    loc = change.location
    if loc is None or loc.line is None or loc.column is None or loc.line > len(starts):
        raise CannotFix("the loader does not know where the value is written")
    if change.field == "redrive":
        raise CannotFix("a dead-letter queue is not added in Terraform JSON syntax: add it by hand")
    at = starts[loc.line - 1] + loc.column - 1
    if text[at : at + 1] != '"':
        raise CannotFix("the value is not where the loader read it (the file changed?)")
    key, i = _DECODER.raw_decode(text, at)
    i = _skip_ws(text, i)
    if text[i : i + 1] != ":":
        raise CannotFix("the value is not where the loader read it (the file changed?)")
    start = _skip_ws(text, i + 1)
    value, end = _DECODER.raw_decode(text, start)
    where = (loc.line, loc.column)
    if isinstance(value, dict) and change.scope == "consumer" and change.field in _WORKER_FIELDS:
        raise CannotFix(f"{_WORKER_FIELDS[change.field]} is not written here: in JSON syntax, add it by hand")
    if isinstance(value, dict):  # the location is the block: the argument is missing
        arg, place = _insert(change, text, loc.path or "", value, start)
        return [((*where, arg), change.value, place)]
    written = text[start:end] if end - start <= 60 else text[start : start + 57] + "..."
    quote = ""
    if change.field == "report_batch_item_failures":
        if not (isinstance(value, list) and all(isinstance(v, str) and "${" not in v for v in value)):
            raise CannotFix(f"{written} is not a list of literal strings")
    elif isinstance(value, str) and words.NUMBER.fullmatch(value):
        quote = '"'  # the file's quoting is kept ("60" stays a string: Terraform converts it)
    elif isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CannotFix(f"{written} is an expression, not a literal: change it by hand")

    def render(new):
        return f"{quote}{words.literal(change.replace(value=new))}{quote}"

    render(change.value)  # a value visguard does not write is refused here
    return [((*where, ""), change.value, (start, end, render))]


def _insert(change: Change, text: str, address: str, block: dict, brace: int) -> tuple[str, tuple]:
    arg = words.argument(change)
    want = words.BLOCK_TYPE[change.scope]
    if not address.startswith(want + "."):
        raise CannotFix(f"{arg} is not written here and the place is not an {want} object")
    if arg in block:
        raise CannotFix(f"{arg} is already written in the object")
    first = _skip_ws(text, brace + 1)
    if not block or "\n" not in text[brace + 1 : first]:
        raise CannotFix("an object without members on lines of their own")
    indent = text[text.rindex("\n", brace, first) + 1 : first]

    def render(value):
        return f"\n{indent}{json.dumps(arg)}: {words.literal(change.replace(value=value))},"

    render(change.value)
    return arg, (brace + 1, brace + 1, render)


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i
