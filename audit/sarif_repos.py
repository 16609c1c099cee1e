"""``sarif/<repository>.sarif``: the audit's findings on deployed queues, one SARIF 2.1.0 file per source repository
(``--sources``), each finding located at the line that declares its queue (relative to the repository, as code
scanning wants it), written by the linter's own SARIF writer (``visguard.linter.report.sarif``). A repository
without findings still gets its file (no results), so an upload clears the alerts that are gone. The errors of the
repository's lint are the run's tool notifications.
"""

from __future__ import annotations

import gc
import re
from pathlib import Path

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def slugs(roots: list[str]) -> list[str]:
    """A file name for each root (its last folder's name, made safe; ``-2``, ``-3`` ... when two are alike)."""
    out: list[str] = []
    seen: dict[str, int] = {}
    for r in roots:
        p = Path(str(r).rstrip("/\\"))
        name = f"{p.parent.name}-cdk.out" if p.name == "cdk.out" and p.parent.name else p.name
        base = _UNSAFE.sub("_", name or "root").strip("._") or "root"
        base = base[:80]
        n = seen.get(base, 0) + 1
        seen[base] = n
        out.append(base if n == 1 else f"{base}-{n}")
    return out


def sarif_text(rows: list[dict], errors: list[str]) -> str:
    """One repository's SARIF: ``rows`` are findings rows with ``source_file``/``source_line``."""
    from visguard.errors import VisguardError
    from visguard.linter.api import LintResult, sort_findings
    from visguard.linter.model import Finding, Location, Severity
    from visguard.linter.report.sarif import render_sarif

    findings = [
        Finding(
            r["rule"],
            Severity(r["severity"]),
            r["message"] or "",
            r["queue_arn"] or "",
            Location(file=r["source_file"] or "<unknown>", line=r.get("source_line")),
            fix=r.get("fix"),
            consumer=r.get("consumer"),
        )
        for r in rows
    ]
    result = LintResult(findings=sort_findings(findings), errors=[VisguardError(e) for e in errors])
    return render_sarif(result, compact=True)


def write(folder: Path, findings, roots: list[str], errors: list[tuple[int, str]]) -> dict[str, str]:
    """Write ``folder/<slug>.sarif`` for every root; returns {root as given: file name}."""
    import pyarrow.compute as pc

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    names = slugs(roots)
    cols = ["rule", "severity", "message", "queue_arn", "source_file", "source_line", "fix", "consumer"]
    open_ = findings
    if "suppressed" in findings.column_names:  # suppressed findings are not alerts
        open_ = findings.filter(pc.is_null(findings.column("suppressed")))
    out = {}
    # building the SARIF documents allocates millions of small objects and no cycles; the cyclic collector would
    # traverse the driver's whole heap again and again for nothing (a third of this stage's CPU at 1M findings)
    collecting = gc.isenabled()
    gc.disable()
    try:
        _write_each(folder, open_, cols, roots, names, errors, out)
    finally:
        if collecting:
            gc.enable()
    return out


def _write_each(folder, open_, cols, roots, names, errors, out) -> None:
    import pyarrow.compute as pc

    for i, (root, name) in enumerate(zip(roots, names, strict=True)):
        mine = open_.filter(pc.fill_null(pc.equal(open_.column("source_repository"), root), False))
        rows = mine.select(cols).to_pylist()
        text = sarif_text(rows, [m for k, m in errors if k == i])
        (folder / f"{name}.sarif").write_text(text, encoding="utf-8")
        out[root] = f"{folder.name}/{name}.sarif"
