"""The fix core: one file's findings -> edits keyed by what they set -> the file's new text (issue 23 §2).

An adapter knows one syntax and does two things: ``locate`` a change (where its value is written or would be
added, as edits keyed by what they set: a template's property path, a Terraform value's place) and ``render``
edits into the text. Everything else is here, the same for every syntax:

- a finding's changes are written all or not at all; a change an adapter cannot place is a :class:`CannotFix`
  with the reason, and the finding is left alone with it;
- the clash policy: when findings want one key set to different values, the value given in ``choices`` (the
  planner, visguard.linter.fix, picks the one every one of those findings accepts, checked by linting the
  result) is written for all of them; without a choice they are left alone with the values they want;
- the re-parse check, once per file: a rewrite that does not read back with the loader's parser is not kept.
"""

from __future__ import annotations

import difflib
import os
import posixpath

from visguard.linter.model import Finding
from visguard.records import REQUIRED, Record, fresh, internal


class CannotFix(Exception):
    """Why a change is not written: one line, said to the user after "not fixed automatically: "."""


class Edit(Record):
    # finding: whose change it writes; key: what it sets (hashable: a property path, a value's place); value: the
    # value it sets (the model's, before rendering); place: the adapter's note of where and how to write it
    __slots__ = ("finding", "key", "value", "place")


class FileFix(Record):
    # skipped: (finding, why it was not written); notes: what a reader of the change should know; stamp: the
    # file as it was read (safe_io.Stamp: write_fix replaces it only if it is still that); refused: why the
    # write policy left the file as it is (write_fix); edits: the edits ``after`` holds, with the values written;
    # clashes: key -> (the values findings want there, those findings), left alone for want of a choice;
    # adapter: the syntax (render_alone)
    __slots__ = {
        "path": REQUIRED,
        "before": REQUIRED,
        "after": REQUIRED,
        "applied": fresh(list),
        "skipped": fresh(list),
        "notes": fresh(list),
        "stamp": None,
        "refused": internal(None),
        "edits": internal(fresh(list)),
        "clashes": internal(fresh(dict)),
        "adapter": internal(None),
    }

    @property
    def changed(self) -> bool:
        return self.after != self.before

    def diff(self, shown: str | None = None) -> str:
        """The unified diff of the fix, its file named ``shown`` (default: the path as linted; ``./`` and ``x/../``
        left out, so ``visguard lint . --diff`` in a repository gives ``a/main.tf``, what ``git apply`` takes)."""
        name = shown if shown is not None else self.path
        if not os.path.isabs(name):
            name = posixpath.normpath(name.replace(os.sep, "/"))
        name = name.lstrip("/")
        return "".join(
            difflib.unified_diff(
                self.before.splitlines(keepends=True),
                self.after.splitlines(keepends=True),
                fromfile=f"a/{name}",
                tofile=f"b/{name}",
            )
        )


class Adapter:
    """One syntax. ``source`` names its words (visguard.linter.changes.describe)."""

    source = "cloudformation"

    def parse(self, text: str):
        """The document ``locate`` reads; raises when ``text`` does not parse."""
        raise NotImplementedError

    def locate(self, change, doc) -> list[tuple[object, object, object]]:
        """(key, value, place) of each edit ``change`` makes; CannotFix with the reason otherwise."""
        raise NotImplementedError

    def render(self, text: str, doc, edits: list[Edit]) -> tuple[str, dict]:
        """``text`` with ``edits`` written (all located in ``text``; edits of one key set one value), and why
        the edits of each key that could not be written were left out (key -> reason)."""
        raise NotImplementedError

    def check(self, text: str) -> None:
        """Raises when ``text`` does not read back with the loader's parser."""
        raise NotImplementedError


def splice(text: str, edits: list[Edit]) -> tuple[str, dict]:
    """For adapters whose edits are spans of the text: ``text`` with each edit's (start, end, render) span
    written, one per key, last first; an edit that overlaps
    another is left out (the reason by key)."""
    spans, failed, seen = [], {}, set()
    for e in edits:
        if e.key not in seen:
            seen.add(e.key)
            start, end, render = e.place
            spans.append((start, end, render(e.value), e.key))
    out, pos = [], 0
    for start, end, new, key in sorted(spans, key=lambda s: s[:2]):
        if start < pos:
            failed[key] = "two edits would overlap"
            continue
        out += [text[pos:start], new]
        pos = end
    return "".join(out) + text[pos:], failed


_NO_CHOICE = object()


def said(values) -> str:
    return " or ".join(sorted(str(v) for v in values))


def plan_text(adapter: Adapter, path: str, text: str, findings: list[Finding], choices=None) -> FileFix:
    """The FileFix of one file: the changes of ``findings`` (those about this file) written into ``text``.
    ``choices``: key -> the value to write where findings want different ones. Never raises on a file it cannot
    edit (the reasons are in ``skipped``)."""
    out = FileFix(path, text, text)
    out.adapter = adapter
    findings = [f for f in findings if f.changes]
    try:
        doc = adapter.parse(text)
    except Exception:  # noqa: BLE001 - parsers raise many types; a file that does not parse is never touched
        out.skipped += [(f, "the file does not parse") for f in findings]
        return out
    planned: list[tuple[Finding, list[Edit]]] = []
    wanted: dict = {}  # key -> the distinct values wanted there
    for f in findings:
        try:
            mine: dict = {}
            for ch in f.changes:
                for key, value, place in adapter.locate(ch, doc):
                    if key in mine and mine[key].value != value:
                        raise CannotFix("its changes set the same value twice, differently")
                    mine[key] = Edit(f, key, value, place)
        except CannotFix as why:
            out.skipped.append((f, str(why)))
            continue
        planned.append((f, list(mine.values())))
        for e in mine.values():
            values = wanted.setdefault(e.key, [])
            if e.value not in values:
                values.append(e.value)
    choices = choices or {}
    edits: list[Edit] = []
    for f, mine in planned:
        clash = [e.key for e in mine if len(wanted[e.key]) > 1]
        pick = [choices.get(k, _NO_CHOICE) for k in clash]
        if any(p is _NO_CHOICE or p is None for p in pick):
            for k in clash:
                out.clashes.setdefault(k, (wanted[k], []))[1].append(f)
            out.skipped.append(
                (f, f"findings want this value set to {said(wanted[clash[0]])}: choose by hand")
            )
            continue
        chosen = dict(zip(clash, pick, strict=True))
        edits += [Edit(f, e.key, chosen.get(e.key, e.value), e.place) for e in mine]
    while True:  # a finding's edits are written all or none
        after, failed = adapter.render(text, doc, edits) if edits else (text, {})
        why = {}
        for e in edits:
            if e.key in failed:
                why.setdefault(id(e.finding), failed[e.key])
        if not why:
            break
        out.skipped += [(f, why[id(f)]) for f, _ in planned if id(f) in why]
        edits = [e for e in edits if id(e.finding) not in why]
    out.edits = edits
    out.applied = [f for f, _ in planned if any(e.finding is f for e in edits)]
    if after != text:
        try:
            adapter.check(after)
        except Exception:  # noqa: BLE001 - the loader's parser: whatever it raises, the rewrite is not kept
            out.skipped += [(f, "the rewrite would not parse: left untouched") for f in out.applied]
            out.applied, out.edits = [], []
            return out
    out.after = after
    return out


def render_alone(ff: FileFix, finding: Finding) -> str | None:
    """``ff.before`` with only ``finding``'s edits (as the plan writes them), or None when that does not read back
    (a SARIF fix is one finding's)."""
    mine = [e for e in ff.edits if e.finding is finding]
    if not mine or ff.adapter is None:
        return None
    try:
        doc = ff.adapter.parse(ff.before)
        after, failed = ff.adapter.render(ff.before, doc, mine)
        if failed or after == ff.before:
            return None
        ff.adapter.check(after)
    except Exception:  # noqa: BLE001 - a fix that cannot be shown alone is not offered
        return None
    return after
