"""The Kubernetes adapter of the fix core (visguard.linter.fixes.core): manifests in YAML (one or more documents)
or JSON.

What is mechanical: a worker consumer's grace period, ``terminationGracePeriodSeconds`` of the pod its
Deployment, StatefulSet or ScaledJob runs (``stop_timeout``; the loader, visguard.linter.loaders.kubernetes,
locates it, or the pod spec to add it to). ruamel.yaml's round-trip parser says where the pod spec and its keys
are; an edit replaces the number's characters, or inserts one line (one ``key: value,`` in flow style and JSON)
before the pod spec's first key. Every other character of the file, every other document of a multi-document
file included, stays as it was.

Left alone with the reason: a value that is not a number written there (an anchor, an alias), a document
rendered by Helm (its ``# Source:`` comment: the fix belongs in the chart), a pod spec visguard cannot place a
line in.
"""

from __future__ import annotations

import io
import math
import os
import re

from visguard.linter.fixes.core import Adapter, CannotFix, Edit, splice
from visguard.linter.model import Change

KEY = "terminationGracePeriodSeconds"
KINDS = ("Deployment", "StatefulSet", "ScaledJob")
_NUMBER = re.compile(r"([\"']?)(\d+)\1(?![\w.])")


class _Parsed:
    """The text as read, its line starts, and its documents (ruamel round-trip, positions in the whole text)."""

    __slots__ = ("text", "lines", "starts", "docs")

    def __init__(self, text: str):
        from ruamel.yaml import YAML

        y = YAML(typ="rt")
        y.preserve_quotes = True
        self.text = text
        self.docs = [d for d in y.load_all(io.StringIO(text)) if hasattr(d, "lc")]
        self.lines = text.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))


def _objects(docs):
    """(top-level document, object) of each object: a document, or an item of a List."""
    for doc in docs:
        kind = doc.get("kind") if hasattr(doc, "get") else None
        items = doc.get("items") if isinstance(kind, str) and kind.endswith("List") else None
        for obj in items if isinstance(items, list) else [doc]:
            if hasattr(obj, "get") and hasattr(obj, "lc"):
                yield doc, obj


def _helm_source(p: _Parsed, doc) -> str | None:
    """The chart template a rendered document came from (its ``# Source:`` comment), else None."""
    i = doc.lc.line - 1
    while i >= 0 and (not p.lines[i].strip() or p.lines[i].lstrip().startswith("#")):
        line = p.lines[i].strip()
        if line.startswith("# Source:"):
            return line.removeprefix("# Source:").strip()
        i -= 1
    return None


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


class KubeAdapter(Adapter):
    """Locate a grace period by the workload and pod spec the loader named; render edits as spans of the text."""

    source = "kubernetes"

    def __init__(self, path: str):
        self.path = path

    def parse(self, text: str) -> _Parsed:
        return _Parsed(text)

    def locate(self, change: Change, doc: _Parsed) -> list[tuple[tuple, object, object]]:
        if change.scope != "consumer" or change.field != "stop_timeout":
            raise CannotFix(f"{change.field} is not a setting visguard writes in a Kubernetes manifest")
        loc = change.location
        if loc is None or not loc.path:
            raise CannotFix("the pod of this consumer is not known")
        if loc.file and not _same_file(loc.file, self.path):
            raise CannotFix(f"its {KEY} is written in {loc.file}")
        kind, _, rest = loc.path.partition("/")
        name, _, rest = rest.partition("/")
        path = [int(p) if p.isdigit() else p for p in rest.split("/") if p]
        if path[-1:] == [KEY]:
            path = path[:-1]
        if kind not in KINDS or not path:
            raise CannotFix(f"{loc.path} is not the pod spec of a Deployment, StatefulSet or ScaledJob")
        found = [(top, obj) for top, obj in _objects(doc.docs) if _named(obj, kind, name)]
        if len(found) != 1:
            raise CannotFix(f"{'no' if not found else 'more than one'} {kind} named {name} in this file")
        top, obj = found[0]
        helm = _helm_source(doc, top)
        if helm:
            raise CannotFix(f"this manifest is rendered by Helm from {helm}: set {KEY} in the chart, by hand")
        pod = obj
        for p in path:
            try:
                pod = pod[p]
            except (KeyError, IndexError, TypeError):
                raise CannotFix(f"{kind} {name} has no pod spec at {'/'.join(map(str, path))}") from None
        if not hasattr(pod, "lc") or not hasattr(pod, "keys"):
            raise CannotFix(f"the pod spec of {kind} {name} is not a mapping")
        value = change.value
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise CannotFix(f"{KEY} = {value!r} is not a number of seconds")
        return [((kind, name, KEY), math.ceil(value), pod)]

    def render(self, text: str, doc: _Parsed, edits: list[Edit]) -> tuple[str, dict]:
        placed, failed = [], {}
        for e in edits:
            try:
                placed.append(Edit(e.finding, e.key, e.value, _span(doc, e.place)))
            except CannotFix as why:
                failed[e.key] = str(why)
        out, overlap = splice(text, [e for e in placed if e.key not in failed])
        failed.update(overlap)
        return out, failed

    def check(self, text: str) -> None:
        """The edited text still reads as manifests, with the parser the loader reads them with."""
        from visguard.linter.loaders.decode import loads_all

        loads_all(text, file=self.path)


def _named(obj, kind: str, name: str) -> bool:
    meta = obj.get("metadata")
    return obj.get("kind") == kind and hasattr(meta, "get") and meta.get("name") == name


def _span(p: _Parsed, pod) -> tuple[int, int, object]:
    """(start, end, render) that sets the grace period of ``pod``: the number in place, or a new line."""
    if KEY in pod:
        vl, vc = pod.lc.value(KEY)
        m = _NUMBER.match(p.lines[vl], vc)
        if m is None or hasattr(pod[KEY], "anchor") and getattr(pod[KEY].anchor, "value", None):
            raise CannotFix(f"{KEY} is not a number written here (an anchor or alias): change it by hand")
        at = p.starts[vl]
        return at + m.start(2), at + m.end(2), str
    keys = list(pod)
    if not keys:
        raise CannotFix("the pod spec is empty")
    kl, kc = pod.lc.key(keys[0])
    line = p.lines[kl]
    own_line = line[:kc].strip() == ""
    if not pod.fa.flow_style():
        if not own_line:
            raise CannotFix(f"the pod spec's first key does not start its line: add {KEY} by hand")
        at = kl
        while at > 0 and p.lines[at - 1].strip().startswith("#") and _indent(p.lines[at - 1]) == kc:
            at -= 1  # the comment above the first key stays with it
        return p.starts[at], p.starts[at], lambda v: f"{' ' * kc}{KEY}: {v}\n"
    key = f'"{KEY}"' if line[kc : kc + 1] == '"' else KEY
    if own_line:
        return p.starts[kl], p.starts[kl], lambda v: f"{' ' * kc}{key}: {v},\n"
    return p.starts[kl] + kc, p.starts[kl] + kc, lambda v: f"{key}: {v}, "


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))
