"""``visguard lint``, ``visguard rules`` and ``visguard explain`` through the real dispatcher: exit codes,
bad input that names the file and place without stopping the other files, outputs, options."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from visguard.cli import main

FIX = Path(__file__).resolve().parent / "fixtures" / "rules"
CLEAN = str(FIX / "vg011" / "cfn" / "pass.yaml")
WARN = str(FIX / "vg011" / "cfn" / "fail.yaml")  # one warning (VG011)
ERROR = str(FIX / "vg010" / "cfn" / "fail.yaml")  # one error (VG010)
INFO = str(FIX / "vg050" / "cfn" / "fail.yaml")  # one info (VG050)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["lint", "--no-config", *argv] if argv and argv[0] != "-" else list(argv[1:]))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("path", "fail_on", "code"),
    [
        (CLEAN, "warning", 0),
        (WARN, "warning", 2),
        (WARN, "error", 0),
        (ERROR, "error", 2),
        (INFO, "warning", 0),
        (INFO, "info", 2),
        (ERROR, "never", 0),
    ],
)
def test_exit_codes(capsys, path, fail_on, code):
    assert run(capsys, path, "--fail-on", fail_on)[0] == code


def test_bad_files_are_reported_and_the_others_still_linted(capsys, tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text("Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties: [\n")
    not_template = tmp_path / "list.json"
    not_template.write_text("[1, 2, 3]")
    code, out, err = run(capsys, str(broken), WARN, str(not_template), str(tmp_path / "missing.yaml"))
    assert code == 4  # both: bad input, and a warning in the file that was read
    lines = err.strip().splitlines()
    assert len(lines) == 3, err
    assert all(line.startswith("visguard lint: ") for line in lines)
    assert any("broken.yaml:" in line for line in lines) and any("list.json" in line for line in lines)
    assert any("missing.yaml: no such file" in line for line in lines)
    assert "Traceback" not in err
    assert "VG011" in out and "could not be linted" in out  # the good file was still linted


def test_wrong_property_type_names_the_place(capsys, tmp_path):
    t = tmp_path / "t.yaml"
    t.write_text(
        "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties:\n      VisibilityTimeout: [1]\n"
    )
    code, _, err = run(capsys, str(t))
    assert code == 1 and "t.yaml:5" in err and "VisibilityTimeout" in err


def test_usage_errors_exit_1(capsys):
    assert main(["lint"]) == 1
    assert main(["lint", CLEAN, "--format", "xml"]) == 1
    assert main(["lint", CLEAN, "--parameter", "novalue"]) == 1
    err = capsys.readouterr().err
    assert "KEY=VALUE" in err
    assert main(["lint", "--help"]) == 0


def test_parameters_override_defaults(capsys, tmp_path):
    t = tmp_path / "p.yaml"
    body = (
        (FIX / "vg011" / "cfn" / "pass.yaml")
        .read_text()
        .replace("VisibilityTimeout: 180", "VisibilityTimeout: !Ref Vt")
    )
    t.write_text(
        body.replace(
            "Resources:\n", "Parameters:\n  Vt:\n    Type: Number\n    Default: 180\nResources:\n", 1
        )
    )
    assert run(capsys, str(t))[0] == 0
    code, out, _ = run(capsys, str(t), "--parameter", "Vt=20", "--format", "json")
    assert code == 2 and {f["rule"] for f in json.loads(out)["findings"]} == {"VG010"}


def test_output_file_and_formats(capsys, tmp_path):
    for fmt in ("text", "json", "sarif", "junit"):
        dest = tmp_path / f"report.{fmt}"
        code, out, _ = run(capsys, WARN, "--format", fmt, "--output", str(dest))
        assert code == 2 and out == ""
        assert "VG011" in dest.read_text()
    code, _, err = run(capsys, WARN, "--output", str(tmp_path / "no" / "such" / "dir.txt"))
    assert code == 1 and "cannot write report" in err


def test_config_overrides_severity_and_disables(capsys, tmp_path):
    cfg = tmp_path / "visguard.yaml"
    cfg.write_text("version: 1\nrules: {VG011: info}\n")
    assert main(["lint", WARN, "--config", str(cfg)]) == 0
    cfg.write_text("version: 1\nrules: {VG011: off}\n")
    assert main(["lint", WARN, "--config", str(cfg), "--fail-on", "info"]) == 0
    cfg.write_text("version: 1\nsettings: {lambda_multiplier: 3}\n")
    assert main(["lint", WARN, "--config", str(cfg)]) == 0
    cfg.write_text("version: 1\nrulez: {}\n")
    assert main(["lint", WARN, "--config", str(cfg)]) == 1
    assert "visguard.yaml" in capsys.readouterr().err


def test_config_is_discovered_in_the_working_directory(capsys, tmp_path, monkeypatch):
    (tmp_path / "visguard.yaml").write_text("version: 1\nrules: {VG011: off}\n")
    monkeypatch.chdir(tmp_path)
    assert main(["lint", WARN]) == 0
    assert main(["lint", WARN, "--no-config"]) == 2


def test_directory_input(capsys):
    code, out, _ = run(capsys, str(FIX / "vg011" / "cfn"), "--format", "json")
    doc = json.loads(out)
    templates = sorted((FIX / "vg011" / "cfn").glob("*.yaml"))  # fail.yaml, pass.yaml and their variants
    assert len(templates) >= 2 and doc["summary"]["files"] == len(templates) and code == 2


def test_colour(capsys):
    _, out, _ = run(capsys, WARN)
    assert "\033[" not in out  # not a terminal
    _, out, _ = run(capsys, WARN, "--color", "always")
    assert "\033[33mwarning" in out


def test_rules_and_explain(capsys):
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    assert "VG011  warning" in out and "VG900" in out
    assert main(["rules", "--format", "json"]) == 0
    rules = json.loads(capsys.readouterr().out)
    assert {r["id"] for r in rules} >= {"VG001", "VG041"} and all(r["source"] for r in rules)
    assert main(["explain", "VG011"]) == 0
    out = capsys.readouterr().out
    assert "lambda_multiplier: 6" in out and "services-sqs-configure" in out
    assert "Documentation: https://visguard.github.io/visguard/rules/vg011/" in out.splitlines()  # its page
    assert main(["explain", "11"]) == 0
    assert main(["explain", "VG999"]) == 1
    assert "unknown rule" in capsys.readouterr().err


def test_readme_rules_section_is_generated():
    from visguard.linter.cli_rules import rules_markdown

    readme = (Path(__file__).resolve().parents[2] / "linter" / "README.md").read_text()
    assert rules_markdown() in readme, "regenerate with: visguard rules --format markdown"


def test_lint_start_imports_nothing_heavy():
    code = (
        "import sys; from visguard.cli import main; "
        f"rc = main(['lint', '--no-config', {CLEAN!r}]); "
        "heavy = {'pyspark', 'aws_cdk', 'matplotlib', 'scipy', 'numpy', 'boto3', 'jsonschema'}; "
        "print(sorted(heavy & {m.split('.')[0] for m in sys.modules}))"
    )
    out = subprocess.run(
        [sys.executable, "-P", "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_config_naming_an_unknown_rule_is_reported(capsys, tmp_path):
    cfg = tmp_path / "visguard.yaml"
    cfg.write_text("version: 1\nrules: {VG998: off}\n")
    code = main(["lint", CLEAN, "--config", str(cfg), "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 2 and [f["rule"] for f in doc["findings"]] == ["VG901"]
    assert "VG998" in doc["findings"][0]["message"]


def test_folder_skips_json_and_yaml_that_are_not_templates(capsys, tmp_path):
    (tmp_path / "package.json").write_text('{"name": "app", "version": "1.0.0"}')
    (tmp_path / ".github").mkdir()
    (tmp_path / "ci.yml").write_text("on: push\n")
    (tmp_path / "infra").mkdir()
    (tmp_path / "infra" / "stack.yaml").write_text(Path(WARN).read_text())
    code, out, err = run(capsys, str(tmp_path))
    assert code == 2 and err == "" and "stack.yaml" in out and "1 file" in out
    (tmp_path / "infra" / "stack.yaml").unlink()
    code, _, err = run(capsys, str(tmp_path))
    assert code == 0 and "nothing to lint: looked for CloudFormation/SAM templates" in err  # not bad input
