"""Bad input through the real `visguard lint` door: one line naming file and line, exit 1, others still linted."""

import subprocess
import sys

import pytest
from visguard.cli import main

BAD = {
    "malformed.json": ('{"Resources": {\n  "Q": }\n}', ":2: malformed JSON"),
    "malformed.yaml": ("Resources:\n  Q: [\n", ":3: malformed YAML"),
    "notatemplate.yaml": ("hello: world\n", "not a CloudFormation template"),
    "wrongtype.yaml": (
        "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties: {DelaySeconds: {a: 1}}\n",
        ":4: Resources/Q/Properties/DelaySeconds",
    ),
    "cycle.yaml": ("Conditions:\n  A: !Condition A\nResources: {}\n", "cyclic condition reference: A -> A"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_is_one_line_exit_1_and_other_files_still_linted(tmp_path, capsys, fixture_path, name):
    text, expected = BAD[name]
    bad = tmp_path / name
    bad.write_text(text)
    rc = main(["lint", "--format", "json", str(bad), fixture_path("plain.json")])
    err = capsys.readouterr().err
    assert rc == 1
    lines = [line for line in err.splitlines() if str(bad) in line]
    assert len(lines) == 1 and expected in lines[0], err
    assert "Traceback" not in err


def test_missing_path_and_parameters_flag(capsys, fixture_path):
    assert main(["lint", "/nonexistent/template.yaml"]) == 1
    assert "no such file or directory" in capsys.readouterr().err


def test_small_template_cli_does_not_import_heavy_modules(fixture_path):
    """The loaders keep `visguard lint` light: no cfn-lint, aws_cdk or jsonschema for a plain template."""
    code = (
        "import sys; from visguard.cli import main; "
        f"main(['lint', '--fail-on', 'never', {fixture_path('consumers.yaml')!r}]); "
        "print(sorted(m for m in ('cfnlint', 'aws_cdk', 'jsonschema', 'pyspark', 'samtranslator') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-P", "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip().splitlines()[-1] == "[]"
