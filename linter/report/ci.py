"""The lint result in the formats CI systems read natively, rendered from the same findings as text, JSON, SARIF
and JUnit (no wording of their own):

- ``github``: GitHub Actions workflow commands (``::error file=F,line=L,col=C,title=VG011::message``), one per
  finding, capped at what GitHub shows of one step (:data:`GITHUB_SHOWN` of each kind; the rest are summarised in
  one ``::notice``); input that could not be read is an ``::error`` on its file. Data and properties are escaped as
  the Actions runner unescapes them (``%``, CR, LF; in properties also ``:`` and ``,``).
- ``gitlab``: a GitLab Code Quality report (a JSON array of ``description``, ``check_name``, ``fingerprint``,
  ``severity``, ``location.path``, ``location.lines.begin``), for ``artifacts: reports: codequality``.
- ``markdown``: a job summary / pull-request comment: counts by severity and by rule, then a table of the findings
  with their place, the engine's estimate where the rule quotes one, and the fix (cells escaped for tables).
"""

from __future__ import annotations

import json

from visguard.linter.report._common import display_path, error_parts, fingerprint

# GitHub shows 10 error, 10 warning and 10 notice annotations per step (50 per job); the rest are dropped without
# a word: https://github.com/actions/toolkit/blob/main/docs/problem-matchers.md ("Limitations"), checked 2026-12-02.
GITHUB_SHOWN = 10
_GITHUB_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}
# GitLab Code Quality severities: info, minor, major, critical, blocker
# (https://docs.gitlab.com/ci/testing/code_quality/#code-quality-report-format, checked 2026-12-02)
_GITLAB_SEVERITY = {"error": "critical", "warning": "major", "info": "info"}
_ORDER = {"error": 0, "warning": 1, "info": 2}


def _data(text: str) -> str:
    return str(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def _sorted(findings):
    return sorted(
        findings,
        key=lambda f: (_ORDER.get(f.severity.value, 3), display_path(f.location.file), f.location.line or 0),
    )


def render_github(result) -> str:
    lines: list[str] = []
    shown = {"error": 0, "warning": 0, "notice": 0}
    left: dict[str, int] = {}
    for f in _sorted(result.findings):
        level = _GITHUB_LEVEL.get(f.severity.value, "notice")
        if shown[level] >= GITHUB_SHOWN:
            left[level] = left.get(level, 0) + 1
            continue
        shown[level] += 1
        props = [f"file={_prop(display_path(f.location.file))}"]
        if f.location.line:
            props.append(f"line={f.location.line}")
            if f.location.column:
                props.append(f"col={f.location.column}")
        props.append(f"title={_prop(f'{f.rule} ({f.queue})')}")
        body = f"{f.message}\nfix: {f.fix}" if f.fix else f.message
        lines.append(f"::{level} {','.join(props)}::{_data(body)}")
    for e in result.errors:
        file, place, detail = error_parts(e)
        where = f"file={_prop(display_path(file))}," if file else ""
        lines.append(
            f"::error {where}title=visguard%3A bad input::{_data(f'{place}: {detail}' if place else detail)}"
        )
    if left:
        more = ", ".join(f"{n} {level}" for level, n in sorted(left.items()))
        lines.append(
            f"::notice title=visguard::{_data(f'{more} finding(s) more than GitHub shows of one step: see the log or the SARIF report')}"
        )
    return "".join(line + "\n" for line in lines)


def render_gitlab(result) -> str:
    issues = []
    for f in result.findings:
        issues.append(
            {
                "description": f"{f.rule}: {f.message}",
                "check_name": f.rule,
                "fingerprint": fingerprint(f),
                "severity": _GITLAB_SEVERITY.get(f.severity.value, "info"),
                "location": {"path": display_path(f.location.file), "lines": {"begin": f.location.line or 1}},
            }
        )
    for e in result.errors:
        file, place, detail = error_parts(e)
        issues.append(
            {
                "description": f"bad input: {place + ': ' if place else ''}{detail}",
                "check_name": "visguard-bad-input",
                "fingerprint": fingerprint_of_error(file, detail),
                "severity": "blocker",
                "location": {"path": display_path(file), "lines": {"begin": 1}},
            }
        )
    return json.dumps(issues, indent=2) + "\n"


def fingerprint_of_error(file: str | None, detail: str) -> str:
    import hashlib

    return hashlib.md5(f"bad-input|{display_path(file)}|{detail}".encode(), usedforsecurity=False).hexdigest()


def _cell(text) -> str:
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", "<br>")


def _estimate(f) -> str:
    e = f.estimate or {}
    said = []
    if isinstance(e.get("duplicate_rate"), (int, float)):
        said.append(f"≈{100 * e['duplicate_rate']:.2g} % processed twice")
    if isinstance(e.get("recovery_p99"), (int, float)):
        said.append(f"recovery p99 {e['recovery_p99']:.0f} s")
    return "; ".join(said)


def render_markdown(result) -> str:
    from visguard.linter.api import severity_counts

    counts = severity_counts(result.findings)
    out = ["## visguard", ""]
    out.append(
        f"{len(result.findings)} finding(s): {counts['error']} error, {counts['warning']} warning, {counts['info']} info"
        f" in {result.files_read} file(s), {result.queues} queue(s); {len(result.errors)} input(s) not read."
    )
    if result.findings:
        by_rule: dict[tuple[str, str], int] = {}
        for f in result.findings:
            by_rule[(f.rule, f.severity.value)] = by_rule.get((f.rule, f.severity.value), 0) + 1
        out += ["", "| rule | severity | findings |", "| --- | --- | --- |"]
        out += [f"| {r} | {s} | {n} |" for (r, s), n in sorted(by_rule.items())]
        out += [
            "",
            "| severity | rule | where | queue | finding | estimate | fix |",
            "| --- | --- | --- | --- | --- | --- | --- |",
        ]
        for f in _sorted(result.findings):
            where = display_path(f.location.file) + (f":{f.location.line}" if f.location.line else "")
            out.append(
                "| "
                + " | ".join(
                    _cell(x)
                    for x in (f.severity.value, f.rule, where, f.queue, f.message, _estimate(f), f.fix or "")
                )
                + " |"
            )
    if result.errors:
        out += ["", "Inputs not read:", ""]
        for e in result.errors:
            file, place, detail = error_parts(e)
            out.append(
                f"- `{_cell(display_path(file))}`{' ' + _cell(place) if place else ''}: {_cell(detail)}"
            )
    return "\n".join(out) + "\n"
