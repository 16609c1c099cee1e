"""JUnit XML for CI dashboards: one test suite per file, one failing test case per finding at or above
--fail-on (findings below it are listed as passing cases with their message in system-out), one error case
per input that could not be read. Values from input are made valid XML 1.0 (``visguard.neutralize``)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from itertools import groupby

from visguard.linter.report import at_or_above
from visguard.linter.report._common import display_path, error_parts
from visguard.neutralize import xml_text as x


def render_junit(result, *, fail_on: str = "warning") -> str:
    root = ET.Element("testsuites", name="visguard")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    key = lambda f: display_path(f.location.file)  # noqa: E731
    grouped = {k: list(v) for k, v in groupby(sorted(result.findings, key=key), key=key)}
    for file in sorted({display_path(p) for p in result.files} | set(grouped)):
        findings = grouped.get(file, [])
        suite = ET.SubElement(root, "testsuite", name=x(file))
        failures = 0
        for f in findings:
            case = ET.SubElement(suite, "testcase", classname=x(file), name=x(f"{f.rule} {f.queue}"))
            body = f"{f.message}\nfix: {f.fix}" if f.fix else f.message
            if f.location.line:
                body += f"\nat {file}:{f.location.line}"
            if at_or_above(f.severity, fail_on):
                failures += 1
                fail = ET.SubElement(case, "failure", type=f.severity.value, message=x(f.message))
                fail.text = x(body)
            else:
                ET.SubElement(case, "system-out").text = x(f"{f.severity.value}: {body}")
        if not findings:
            ET.SubElement(suite, "testcase", classname=x(file), name="visguard lint")
        n = max(len(findings), 1)
        suite.set("tests", str(n))
        suite.set("failures", str(failures))
        suite.set("errors", "0")
        totals["tests"] += n
        totals["failures"] += failures
    for e in result.errors:
        file, place, detail = error_parts(e)
        name = display_path(file) if file else "<input>"
        suite = ET.SubElement(root, "testsuite", name=x(name), tests="1", failures="0", errors="1")
        case = ET.SubElement(suite, "testcase", classname=x(name), name="load")
        kind = "internal-error" if getattr(e, "exit_code", 1) == 3 else "bad-input"
        ET.SubElement(case, "error", type=kind, message=x(str(e))).text = x(str(e))
        totals["tests"] += 1
        totals["errors"] += 1
    for k, v in totals.items():
        root.set(k, str(v))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
