"""What the language server says, computed from a linted :class:`~visguard.linter.lsp.workspace.Workspace`, as
plain data (the server turns it into protocol types): diagnostics, the fix plan's edits per finding, a
suppression in the input's own syntax, and the hover text of a setting with the engine's estimate.

Lines and columns here are the protocol's: 0-based. visguard's ``Location`` lines and columns are 1-based.
"""

from __future__ import annotations

import os
import re


def rule_page(rule_id: str) -> str:
    """The rule's page on the documentation site (one home: visguard.docs)."""
    from visguard.docs import rule_url

    return rule_url(rule_id)


SEVERITY = {"error": 1, "warning": 2, "info": 3}  # DiagnosticSeverity: Error, Warning, Information


def _line_span(text: str, line0: int, column0: int | None) -> tuple[int, int, int, int]:
    """The range of the value on line ``line0``: from the column (or the line's first non-blank) to its end."""
    lines = text.splitlines()
    if not 0 <= line0 < len(lines):
        return (max(line0, 0), 0, max(line0, 0), 0)
    body = lines[line0]
    start = column0 if column0 is not None and 0 <= column0 <= len(body) else len(body) - len(body.lstrip())
    m = re.match(r"\s*[\"']?[\w.\-/]+[\"']?\s*[:=]\s*(?=\S)", body[start:])  # key: value, key = value
    if m and start + m.end() < len(body.rstrip()):
        start += m.end()  # point at the value
    end = len(body.rstrip())
    return (line0, start, line0, max(end, start))


def _related(ws, f) -> list[dict]:
    """The other place of a finding: where the joining binding is, and the queue of a consumer finding (or the
    consumer of a queue finding) when it is declared elsewhere."""
    out = []
    if f.joined_by is not None and f.joined_by.line:
        out.append({"file": f.joined_by.file, "line": int(f.joined_by.line) - 1, "message": "joined here"})
    for model in ws.models():
        q = model.queues.get(f.queue)
        if q is None:
            continue
        here = os.path.realpath(f.location.file)
        if q.location is not None and q.location.line and os.path.realpath(q.location.file) != here:
            out.append(
                {"file": q.location.file, "line": int(q.location.line) - 1, "message": f"queue {q.id}"}
            )
        for c in q.consumers:
            loc = c.location
            if (
                f.consumer
                and c.id == f.consumer
                and loc is not None
                and loc.line
                and os.path.realpath(loc.file) != here
            ):
                out.append({"file": loc.file, "line": int(loc.line) - 1, "message": f"consumer {c.id}"})
        break
    return out


def diagnostics(ws, path: str) -> list[dict]:
    """The diagnostics of one document: its findings and the bad-input errors that name it."""
    text = ws.text_of(path)
    out = []
    for f in ws.findings_in(path):
        line0 = int(f.location.line) - 1 if f.location.line else 0
        col0 = int(f.location.column) - 1 if f.location.column else None
        message = f.message + (f" Fix: {f.fix}" if f.fix else "")
        out.append(
            {
                "range": _line_span(text, line0, col0),
                "severity": SEVERITY.get(f.severity.value, 2),
                "code": f.rule,
                "href": rule_page(f.rule),
                "message": message,
                "related": _related(ws, f),
                "finding": f,
            }
        )
    for e in ws.errors_in(path):
        m = re.match(r"(\d+)", str(getattr(e, "place", "") or ""))
        line0 = int(m.group(1)) - 1 if m else 0
        out.append(
            {
                "range": _line_span(text, line0, None),
                "severity": 1,
                "code": "bad-input",
                "href": None,
                "message": getattr(e, "detail", None) or str(e),
                "related": [],
                "finding": None,
            }
        )
    return out


# -- quick fixes ------------------------------------------------------------------------------------------------
def _edits(replacements: list[dict]) -> list[tuple[int, int, int, int, str]]:
    """SARIF whole-line replacements (1-based) as (start line, start col, end line, end col, text), 0-based."""
    out = []
    for r in replacements:
        reg = r["deletedRegion"]
        out.append(
            (
                reg["startLine"] - 1,
                reg["startColumn"] - 1,
                reg["endLine"] - 1,
                reg["endColumn"] - 1,
                r["insertedContent"]["text"],
            )
        )
    return out


def quick_fixes(ws, path: str) -> list[dict]:
    """The code actions of one document: for each finding the plan writes, its share of the edits (what SARIF
    ``fixes`` carries), and "fix all" with exactly what ``--fix`` writes to the file; for a finding the plan
    refuses, a disabled action with the reason."""
    from visguard.linter.fix import replacements, sarif_fix_map

    real = os.path.realpath(path)
    plan = ws.fixes()
    mine = [ff for ff in plan if os.path.realpath(ff.path) == real]
    out = []
    fix_map = sarif_fix_map(mine, lambda p: p)
    for ff in mine:
        for f in ff.applied:
            fix = (fix_map.get(id(f)) or [None])[0]
            if fix is None:
                continue
            edits = [e for ch in fix["artifactChanges"] for e in _edits(ch["replacements"])]
            out.append({"title": f"{f.rule}: {fix['description']['text']}", "edits": edits, "finding": f})
        for f, why in ff.skipped:
            out.append({"title": f"{f.rule}: not fixed", "edits": [], "finding": f, "disabled": why})
        if ff.changed and len(ff.applied) > 1:
            out.append(
                {
                    "title": "visguard: fix all in this file (what visguard lint --fix writes)",
                    "edits": _edits(replacements(ff.before, ff.after)),
                    "finding": None,
                }
            )
    return out


REASON = "why this is safe"  # the placeholder a suppression is inserted with: the user writes the reason


def suppression(ws, path: str, f) -> dict | None:
    """An edit that suppresses finding ``f`` in the input's own syntax: a ``# visguard:ignore`` comment above the
    Terraform block or the Serverless function/resource; a ``Metadata: visguard: suppress`` entry on a
    CloudFormation/SAM resource that has no Metadata yet. None where the input has no syntax this can write (the
    suppression then goes in visguard.yaml, by queue)."""
    text = ws.text_of(path)
    lines = text.splitlines()
    line0 = int(f.location.line) - 1 if f.location.line else None
    lower = path.lower()
    if line0 is None or not lines:
        return None
    if lower.endswith((".tf", ".tofu", ".hcl")) or os.path.basename(lower).startswith("serverless."):
        start = _block_start(lines, line0, lower.endswith((".tf", ".tofu", ".hcl")))
        indent = re.match(r"\s*", lines[start]).group(0)
        return {
            "title": f"{f.rule}: suppress with a reason",
            "edits": [(start, 0, start, 0, f"{indent}# visguard:ignore {f.rule} {REASON}\n")],
        }
    if lower.endswith((".yaml", ".yml", ".template")) and "Resources:" in text:
        loc_path = f.location.path or ""
        resource = loc_path.split("/")[1] if loc_path.startswith("Resources/") else None
        if resource is None:
            return None
        for i, ln in enumerate(lines):
            m = re.match(rf"(\s+){re.escape(resource)}\s*:\s*$", ln)
            if not m:
                continue
            inner = None
            j = i + 1
            while j < len(lines) and (
                not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > len(m.group(1))
            ):
                if lines[j].strip():
                    inner = inner or re.match(r"\s*", lines[j]).group(0)
                    if lines[j].strip().startswith("Metadata:"):
                        return None
                j += 1
            if inner is None:
                return None
            step = inner[len(m.group(1)) :] or "  "
            block = (
                f"{inner}Metadata:\n{inner}{step}visguard:\n{inner}{step * 2}suppress:\n"
                f'{inner}{step * 3}- {{rule: {f.rule}, reason: "{REASON}"}}\n'
            )
            return {"title": f"{f.rule}: suppress with a reason", "edits": [(i + 1, 0, i + 1, 0, block)]}
    return None


def _block_start(lines: list[str], line0: int, hcl: bool) -> int:
    """The first line of the block that holds line ``line0``: a Terraform ``resource``/``module`` header, or the
    Serverless key at a lower indent."""
    if hcl:
        for i in range(min(line0, len(lines) - 1), -1, -1):
            if re.match(r"\s*(resource|module|data)\s+\"", lines[i]):
                return i
        return line0
    here = len(lines[line0]) - len(lines[line0].lstrip())
    for i in range(line0 - 1, -1, -1):
        s = lines[i]
        if s.strip() and len(s) - len(s.lstrip()) < here and s.rstrip().endswith(":"):
            return i
    return line0


# -- hover ------------------------------------------------------------------------------------------------------
HOVER_FIELDS = (
    "visibility_timeout",
    "function_timeout",
    "visibility_override",
    "stop_timeout",
    "work_timeout",
    "batching_window",
)


def _at(loc, real: str, line1: int) -> bool:
    return loc is not None and loc.line == line1 and os.path.realpath(loc.file) == real


def hover(ws, path: str, line0: int) -> str | None:
    """Markdown for the setting on line ``line0``: the visibility in effect and where it comes from, each
    consumer's processing bound, the engine's estimate for the value written (duplicates, recovery) and the
    recommended value; then the findings on that line."""
    from visguard.linter.context import RuleContext

    real, line1 = os.path.realpath(path), line0 + 1
    parts: list[str] = []
    for model in ws.models():
        ctx = RuleContext(model, getattr(ws, "_config", None))
        for q in model.queues.values():
            hits = [fld for fld in HOVER_FIELDS if _at(q.locations.get(fld), real, line1)]
            consumers = [
                c
                for c in q.consumers
                if _at(c.location, real, line1)
                or any(_at(c.locations.get(fld), real, line1) for fld in HOVER_FIELDS)
            ]
            if not hits and not consumers and not (_at(q.location, real, line1) and q.consumers):
                continue
            parts.append(_queue_hover(ctx, q, consumers or q.consumers))
    for f in ws.findings_in(path):
        if f.location.line == line1:
            parts.append(f"**{f.rule}** ({f.severity.value}): {f.message} [docs]({rule_page(f.rule)})")
    return "\n\n".join(parts) if parts else None


def fmt_seconds(v: float) -> str:
    s = f"{v:g} s"
    if v >= 3600:
        s += f" ({v / 3600:.3g} h)"
    elif v >= 120:
        s += f" ({v / 60:.3g} min)"
    return s


def _queue_hover(ctx, q, consumers) -> str:
    vt = ctx.visibility(q)
    out = [f"**visguard: queue `{q.id}`**"]
    out.append(
        f"- visibility timeout in effect: {fmt_seconds(vt) if vt is not None else 'not a usable number'} "
        f"({ctx.queue_visibility_said(q)})"
    )
    need = ctx.queue_need(q)
    for c in consumers:
        label = ctx.consumer_label(c)
        cvt = ctx.visibility_for(q, c)
        if c.kind == "lambda":
            bound = f"function timeout {fmt_seconds(c.effective_function_timeout)}"
        elif c.processing_p99 is not None:
            bound = f"processing p99 {fmt_seconds(float(c.processing_p99))}"
        elif c.work_timeout is not None:
            bound = f"work limit {fmt_seconds(float(c.work_timeout))}"
        else:
            bound = "processing time not declared"
        line = f"- consumer {label}: {bound}"
        if cvt is not None and ctx.overrides(c):
            line += f"; it sets {fmt_seconds(cvt)} on its receives ({ctx.visibility_said(q, c)})"
        risk = ctx.risk(cvt, c) if cvt is not None else None
        if risk is not None:
            line += f"; engine estimate at {fmt_seconds(cvt)}: {risk.duplicate_rate:.2%} of messages processed twice"
            rec = risk.recovery_p99
            if rec is not None:
                line += f", crash recovery p99 {fmt_seconds(rec)}"
        out.append(line)
    if need is not None:
        out.append(f"- recommended: {fmt_seconds(need.visibility_timeout)} ({need.why})")
    return "\n".join(out)
