"""What the code readers and the code fixer make of every code file under some folders, as one JSON line per file:
the consumers (every field), the environment bindings, the notes, the spans, and for each settable field of each
consumer what ``--fix`` would do (the edit, or the reason it refuses). Two runs of it on two revisions are diffed
to show a rewrite of the readers changes nothing (issue 34: "byte-identical at each step").

    .venv/bin/python scripts/code_snapshot.py tests/linter examples /path/to/checkouts > after.jsonl
    diff <(git stash; python scripts/code_snapshot.py ...) after.jsonl

Files are taken in sorted order; only files the code loader claims by name and marker are read.
"""

from __future__ import annotations

import json
import os
import sys

from visguard.records import Record


def plain(v):
    if isinstance(v, Record):
        return {"@": type(v).__name__, **{k: plain(getattr(v, k)) for k in type(v).__slots__}}
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in sorted(v.items(), key=lambda kv: str(kv[0]))}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, float) and v.is_integer():
        return v
    return v if v is None or isinstance(v, (str, int, float, bool)) else repr(v)


def fixes(path: str, data: bytes, consumers) -> dict:
    from visguard.linter.fixes.code import FIELDS, CodeAdapter
    from visguard.linter.fixes.core import CannotFix
    from visguard.linter.model import Change

    out = {}
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return {"error": "not utf-8"}
    adapter = CodeAdapter(path)
    try:
        doc = adapter.parse(text)
    except ValueError as e:
        return {"error": str(e)}
    for c in consumers:
        for field in FIELDS:
            loc = c.locations.get(field)
            if loc is None:
                continue
            change = Change("consumer", c.id, field, 123, location=loc)
            try:
                placed = adapter.locate(change, doc)
                out[f"{c.id} {field}"] = [list(p[0]) for p in placed]
            except CannotFix as e:
                out[f"{c.id} {field}"] = str(e)
    return out


def main(roots: list[str]) -> None:
    from visguard.linter.loaders.code import loader

    files = []
    for root in roots:
        for dirpath, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in (".git", "node_modules", ".venv"))
            files += [os.path.join(dirpath, n) for n in names]
    for path in sorted(files):
        language = loader.language_of(path)
        if language is None or not os.path.isfile(path) or os.path.islink(path):
            continue
        with open(path, "rb") as f:
            data = loader.utf8(f.read(loader.MAX_CODE_BYTES + 1))
        if len(data) > loader.MAX_CODE_BYTES or loader.skipped(data) or not loader.wanted(language, data):
            continue
        mod = loader.module(language)
        if mod is None or not loader._reads(mod, path):
            continue
        result = mod.read(path, data)
        record = {"file": path, **{k: plain(getattr(result, k)) for k in ("consumers", "env", "notes")}}
        record["spans"] = {f"{k[0]} {k[1]}": list(v) for k, v in sorted(result.spans.items())}
        if language != "envfiles":
            record["fixes"] = fixes(path, data, result.consumers)
        print(json.dumps(record, sort_keys=True, default=str))


if __name__ == "__main__":
    main(sys.argv[1:])
