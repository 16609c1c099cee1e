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

How a place is found: the file is read again by its reader, which records for every number it reads the
``Place`` where it is written (``CodeResult.places``, made by the code engine from the same query capture the
reader read the value through: visguard.linter.loaders.code.engine.place): the byte span of its digits and the
unit they are written in, or why it is not to be edited there. The change's location (line and code-point column,
as every reader reports them) must be where that reader located the field of that consumer, and the digits there
must be, in their unit, the value the reader read. Only the digits are replaced: every other byte of the file stays
as it was. This module knows no grammar: the edited file is only parsed again to check that it still parses.

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
        self.grammar = languages.grammar(self.module or "", path)
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
        else:  # the reader located the setting but read no number there (it said why in a note)
            raise CannotFix(f"{words} at line {loc.line} is not a number visguard reads: change it by hand")
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


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)
