"""Reporters: the lint result as text, JSON, SARIF 2.1.0, JUnit XML, or what CI systems read (ci.py: GitHub
workflow commands, GitLab Code Quality, Markdown). Pure functions from a ``LintResult``
to a string; the CLI decides where it goes."""

from __future__ import annotations

from visguard.linter.model import Severity

FORMATS = ("text", "json", "sarif", "junit", "github", "gitlab", "markdown")


def render(result, fmt: str, *, color: bool = False, fail_on: str = "warning") -> str:
    if fmt == "text":
        from visguard.linter.report.text import render_text

        return render_text(result, color=color)
    if fmt == "json":
        from visguard.linter.report.json_report import render_json

        return render_json(result)
    if fmt == "sarif":
        from visguard.linter.report.sarif import render_sarif

        return render_sarif(result)
    if fmt == "junit":
        from visguard.linter.report.junit import render_junit

        return render_junit(result, fail_on=fail_on)
    if fmt in ("github", "gitlab", "markdown"):  # the formats CI systems read natively
        from visguard.linter.report import ci

        return getattr(ci, f"render_{fmt}")(result)
    raise ValueError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")


def at_or_above(severity: Severity, fail_on: str) -> bool:
    """True if a finding of ``severity`` fails a run with ``--fail-on fail_on`` (never: nothing fails)."""
    if fail_on == "never":
        return False
    return severity.rank >= Severity(fail_on).rank
