"""The model read from the translated template (:mod:`.serverless_translate`), said in serverless.yml terms.

Findings name serverless addresses: queues by their logical id (``OrdersQueue``) or Lift construct
(``constructs.jobs``, its DLQ ``constructs.jobs.dlq``), consumers as ``functions.worker.events[0]`` (Lift:
``constructs.jobs.worker``), functions by name; every location is the serverless.yml (or included file)
line and column of the value to change, with its address (``functions.worker.timeout``); an error about the
template names the serverless.yml place too. A comment ``# visguard:ignore VG011 reason`` on (or on the line
above) a function, one of its events, a resource or a construct becomes a suppression.
"""

from __future__ import annotations

import re

from visguard.errors import VisguardError
from visguard.linter.model import Consumer, Location, Model, Queue, Suppression

from .serverless_vars import Node

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

    from .serverless_translate import Translator

_IGNORE = re.compile(r"#\s*visguard:ignore\s+([A-Za-z0-9*,]+)(?:\s+(.*?))?\s*$")


def relocate(model: Model, template: dict, t: Translator) -> None:
    """Serverless ids and addresses, locations in serverless.yml, comment suppressions, notes."""
    rename = t.ids

    def loc(location: Location | None) -> Location | None:
        return _relocate(location, template, t.file) if location is not None else None

    queues: dict[str, Queue] = {}
    for q in model.queues.values():
        q.id = rename.get(q.id, q.id)
        q.location = loc(q.location)
        q.locations = {k: loc(v) for k, v in q.locations.items()}
        if q.redrive is not None:
            q.redrive.target = rename.get(q.redrive.target, q.redrive.target) if q.redrive.target else None
            q.redrive.location = loc(q.redrive.location)
        if q.redrive_allow and isinstance(q.redrive_allow.get("sourceQueueArns"), list):
            q.redrive_allow["sourceQueueArns"] = [
                rename.get(s, s) for s in q.redrive_allow["sourceQueueArns"]
            ]
        q.suppressions = [
            s.replace(
                location=loc(s.location),
                consumer=rename.get(s.consumer, s.consumer) if s.consumer else None,
            )
            for s in q.suppressions
        ]
        for c in q.consumers:
            _rename_consumer(c, rename, loc)
        queues[q.id] = q
    model.queues = queues
    for c in (
        model.pending
    ):  # a mapping whose queue is another stack's (a ${cf:..}, an import): pending, relocated
        _rename_consumer(c, rename, loc)
        if c.queue_ref is not None and c.queue_ref.location is not None:
            c.queue_ref = c.queue_ref.replace(location=loc(c.queue_ref.location))
    model.env = [  # a function's environment, for the code of its package (issue 35): its name and places
        b.replace(function=rename.get(b.function, b.function), workload=rename.get(b.workload, b.workload),
                  location=loc(b.location), timeout_location=loc(b.timeout_location))
        if b.function else b
        for b in model.env
    ]  # fmt: skip
    comment_suppressions(model, t)
    model.notes = sorted(
        t.vars.notes.values(), key=lambda n: (n.location.file, n.location.line or 0, n.location.path)
    )


def comment_suppressions(model: Model, t: Translator) -> None:
    """``# visguard:ignore VG011 reason`` on the line of a function/event/resource/construct key, or on its
    own line just above it."""
    try:
        lines = t.read(t.file).splitlines()
    except VisguardError:
        return
    for i, text in enumerate(lines, start=1):
        if "visguard:ignore" not in text:
            continue
        m = _IGNORE.search(text)
        if not m:
            continue
        target = i
        if text.lstrip().startswith("#"):
            target = next(
                (
                    j
                    for j in range(i + 1, len(lines) + 1)
                    if lines[j - 1].strip() and not lines[j - 1].lstrip().startswith("#")
                ),
                i,
            )
        where = Location(t.file, line=i, column=text.index("#") + 1, path="comment")
        for kind, ident in t.event_lines.get(target, []):
            for rule in filter(None, m.group(1).split(",")):
                s = Suppression(rule.strip().upper() if rule != "*" else "*", m.group(2), where)
                _apply_suppression(model, kind, ident, s)


def _apply_suppression(model: Model, kind: str, ident: str, s: Suppression) -> None:
    for q in model.queues.values():
        if kind == "queue":
            if q.id == ident:
                q.suppressions.append(s)
            continue
        for c in q.consumers:
            if (kind == "function" and c.function_id == ident) or (kind == "event" and c.id == ident):
                q.suppressions.append(s.replace(consumer=c.id))


def _rename_consumer(c: Consumer, rename: dict, loc) -> None:
    c.id = rename.get(c.id, c.id)
    if c.function_id:
        c.function_id = rename.get(c.function_id, c.function_id)
    c.location = loc(c.location)
    c.locations = {k: loc(v) for k, v in c.locations.items()}
    if c.note:
        for old, new in rename.items():
            c.note = c.note.replace(f"function {old} ", f"function {new} ")


def _relocate(location: Location, template: dict, main_file: str) -> Location:
    """A location in the translated template (``Resources/X/Properties/Timeout``) -> the file, line, column
    and serverless address where that value was written."""
    if not location.path:
        return location
    node: Any = template
    best: tuple = (location.file, location.line, location.column, None)
    addr: str | None = None
    for raw in location.path.split("/"):
        key: Any = raw
        if isinstance(node, list):
            if not raw.isdigit() or int(raw) >= len(node):
                break
            node = node[int(raw)]
            addr = f"{addr}[{raw}]" if addr else addr
            if isinstance(node, Node):
                addr = node.addr or addr
                if node.line is not None:
                    best = (node.file or best[0], node.line, node.col, addr)
            continue
        if not isinstance(node, dict) or key not in node:
            break
        if isinstance(node, Node):
            addr = node.key_addr.get(key) or (f"{node.addr}.{key}" if node.addr else addr)
            pos = node.key_pos.get(key)
            if pos is not None:
                best = (node.key_file.get(key) or node.file or main_file, pos[0], pos[1], addr)
        node = node[key]
    file, line, col, where = best
    return Location(file or main_file, line=line, column=col, path=where or location.path)


def relocate_error(exc: VisguardError, template: dict, file: str) -> VisguardError:
    """``Resources/XLambdaFunction/Properties/Timeout: expected a number`` -> ``functions.x.timeout: ...`` at the
    file and line where it was written."""
    where, sep, what = exc.detail.partition(": ")
    if not sep or not where.startswith("Resources/"):
        return exc
    loc = _relocate(Location(file, path=where), template, file)
    path = loc.path if loc.path and "/" not in loc.path else where
    return VisguardError(f"{path}: {what}", file=loc.file, place=str(loc.line) if loc.line else exc.place)
