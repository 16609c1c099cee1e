"""Machine output: one JSON document with the findings, the inputs that could not be read, and counts."""

from __future__ import annotations

import json

from visguard import __version__
from visguard.linter.api import severity_counts
from visguard.linter.report._common import display_path, error_parts, fingerprint
from visguard.linter.rules import ALL_RULES


def finding_dict(f) -> dict:
    rule = ALL_RULES.get(f.rule)
    loc = f.location
    out = {
        "rule": f.rule,
        "severity": f.severity.value,
        "title": rule.title if rule else None,
        "message": f.message,
        "fix": f.fix,
        "queue": f.queue,
        "consumer": f.consumer,
        "file": display_path(loc.file),
        "line": loc.line,
        "column": loc.column,
        "path": loc.path,
        "construct_path": loc.construct_path,
        "estimate": f.estimate,
        "source": rule.source if rule else None,
        "fingerprint": fingerprint(f),
    }
    if f.joined_by is not None:  # only then: the other findings' documents stay as they were
        b = f.joined_by
        out["joined_by"] = {"file": display_path(b.file), "line": b.line, "column": b.column, "path": b.path}
    return out


def render_json(result) -> str:
    errors = []
    for e in result.errors:
        file, place, detail = error_parts(e)
        kind = "internal-error" if getattr(e, "exit_code", 1) == 3 else "bad-input"
        errors.append({"file": file, "place": place, "message": detail, "kind": kind})
    doc = {
        "tool": "visguard",
        "version": __version__,
        "summary": {
            "files": result.files_read,
            "queues": result.queues,
            **severity_counts(result.findings),
            "bad_inputs": len(result.errors),
        },
        "findings": [finding_dict(f) for f in result.findings],
        "errors": errors,
    }
    return json.dumps(doc, indent=2, sort_keys=False) + "\n"
