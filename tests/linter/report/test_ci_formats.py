"""--format github, gitlab and markdown (issue 37 §2): the same findings as the other reports, in each CI system's
documented shape and escaping."""

from __future__ import annotations

import json
import re

from visguard.cli import main
from visguard.errors import VisguardError
from visguard.linter.api import LintResult
from visguard.linter.model import Finding, Location, Severity
from visguard.linter.report import FORMATS, render
from visguard.linter.report.ci import GITHUB_SHOWN


def finding(
    i: int = 0, severity: Severity = Severity.WARNING, message: str = "visibility 30 s is short"
) -> Finding:
    return Finding(
        rule="VG011",
        severity=severity,
        message=message,
        queue=f"Queue{i}",
        location=Location(file="stack.yaml", line=10 + i, column=7),
        fix="Set VisibilityTimeout to at least 180 s.",
        estimate={"duplicate_rate": 0.029},
    )


def result(*findings, errors=()) -> LintResult:
    return LintResult(
        findings=list(findings), errors=list(errors), files=["stack.yaml"], queues=len(findings)
    )


# A workflow command: ::level key=value,key=value::data, data with %, CR and LF escaped, values also : and ,
COMMAND = re.compile(
    r"^::(error|warning|notice) ((?:[a-zA-Z]+=[^,:\r\n]*)(?:,[a-zA-Z]+=[^,:\r\n]*)*)::([^\r\n]*)$"
)


def test_github_annotations_are_one_workflow_command_each_and_escaped():
    hostile = "50% of\nmessages::lost, now: 100%"
    out = render(result(finding(0, message=hostile)), "github")
    (line,) = out.splitlines()
    m = COMMAND.match(line)
    assert m, line
    assert m.group(1) == "warning"
    props = dict(p.split("=", 1) for p in m.group(2).split(","))
    assert props["file"] == "stack.yaml" and props["line"] == "10" and props["col"] == "7"
    assert props["title"] == "VG011 (Queue0)"
    assert m.group(3).startswith("50%25 of%0Amessages::lost, now: 100%25%0Afix: Set VisibilityTimeout")


def test_github_shows_what_a_step_shows_and_counts_the_rest():
    many = [finding(i) for i in range(GITHUB_SHOWN + 7)] + [
        finding(100 + i, Severity.ERROR) for i in range(3)
    ]
    lines = render(result(*many), "github").splitlines()
    assert sum(x.startswith("::warning ") for x in lines) == GITHUB_SHOWN
    assert sum(x.startswith("::error ") for x in lines) == 3
    assert lines[0].startswith("::error ")  # errors first: the ones a reviewer must see
    assert lines[-1].startswith("::notice ") and "7 warning finding(s) more" in lines[-1]


def test_github_bad_input_is_an_error_on_its_file():
    bad = VisguardError("not valid YAML", file="broken.yaml", place="line 3")
    (line,) = render(result(errors=[bad]), "github").splitlines()
    assert line.startswith("::error file=broken.yaml,title=visguard%3A bad input::line 3: ")


def test_gitlab_code_quality_has_the_documented_fields():
    bad = VisguardError("not valid YAML", file="broken.yaml", place="line 3")
    doc = json.loads(
        render(
            result(finding(0), finding(1, Severity.ERROR), finding(2, Severity.INFO), errors=[bad]), "gitlab"
        )
    )
    assert isinstance(doc, list) and len(doc) == 4
    for issue in doc:
        assert set(issue) == {"description", "check_name", "fingerprint", "severity", "location"}
        assert issue["severity"] in {"info", "minor", "major", "critical", "blocker"}
        assert isinstance(issue["location"]["path"], str)
        assert (
            isinstance(issue["location"]["lines"]["begin"], int) and issue["location"]["lines"]["begin"] >= 1
        )
    assert [i["severity"] for i in doc] == ["major", "critical", "info", "blocker"]
    assert len({i["fingerprint"] for i in doc}) == 4
    assert doc[0]["check_name"] == "VG011" and doc[0]["location"] == {
        "path": "stack.yaml",
        "lines": {"begin": 10},
    }


def test_markdown_summary_counts_and_one_escaped_row_per_finding():
    out = render(result(finding(0, message="a | b\nc"), finding(1, Severity.ERROR)), "markdown")
    rows = [x for x in out.splitlines() if x.startswith("| ") and "VG011" in x]
    assert "| VG011 | error | 1 |" in out and "| VG011 | warning | 1 |" in out
    table = [x for x in rows if "stack.yaml" in x]
    assert len(table) == 2
    assert table[0].startswith("| error | VG011 | stack.yaml:11 |")  # errors first
    assert "a \\| b<br>c" in table[1] and "≈2.9 % processed twice" in table[1]
    assert all(x.count(" | ") == 6 for x in table)  # seven cells each: no cell broke the table


def test_the_cli_offers_them_with_the_same_exit_codes(tmp_path, capsys):
    t = tmp_path / "stack.yaml"
    t.write_text(
        "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n  Fn:\n    Type: AWS::Lambda::Function\n"
        "    Properties: {Timeout: 60, Runtime: python3.12, Handler: a.b, Role: r, Code: {ZipFile: x}}\n"
        "  M:\n    Type: AWS::Lambda::EventSourceMapping\n"
        "    Properties: {EventSourceArn: !GetAtt Q.Arn, FunctionName: !Ref Fn, BatchSize: 1}\n"
    )
    assert {"github", "gitlab", "markdown"} <= set(FORMATS)
    codes = {}
    for fmt in ("json", "github", "gitlab", "markdown"):
        codes[fmt] = main(["lint", "--no-config", "-f", fmt, str(t)])
        out = capsys.readouterr().out
        if fmt == "github":
            assert out and all(COMMAND.match(x) for x in out.splitlines())
    assert len(set(codes.values())) == 1 and codes["json"] == 2
