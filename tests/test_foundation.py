"""The package layout works from the repo root (DESIGN.md's constructs/ shadowing trap) and the CLI is light."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
ENV = {**os.environ, "JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION": "1"}
ENV.pop("PYTHONSAFEPATH", None)


def run(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        list(args), cwd=ROOT, env=kw.pop("env", ENV), capture_output=True, text=True, timeout=120
    )


def test_console_script_from_repo_root():
    out = run(str(BIN / "visguard"), "--version")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "visguard 0.1.0"
    helped = run(str(BIN / "visguard"), "--help")
    assert helped.returncode == 0
    for name in ("simulate", "lint", "audit", "recommend"):
        assert f"  {name}" in helped.stdout


def test_unknown_command_is_a_usage_error():
    out = run(str(BIN / "visguard"), "frobnicate")
    assert out.returncode == 1
    assert "unknown command 'frobnicate'" in out.stderr


def test_aws_cdk_imports_from_repo_root_with_safe_path():
    out = run(
        sys.executable, "-P", "-c", "import aws_cdk, constructs; print(constructs.Construct.__module__)"
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().startswith("constructs")


def test_shadowing_is_explained_not_a_jsii_traceback():
    # Without -P the repo root is sys.path[0] and constructs/ would shadow the jsii package: our guard says how to fix it.
    out = run(sys.executable, "-c", "import aws_cdk")
    assert out.returncode != 0
    assert "shadowing the jsii 'constructs' package" in out.stderr
    assert "Run Python with -P" in out.stderr


def test_cli_start_imports_nothing_heavy():
    code = (
        "import sys, visguard.cli as c\n"
        "c.main(['--help'])\n"
        "heavy = [m for m in ('aws_cdk', 'pyspark', 'matplotlib', 'moto') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    out = run(sys.executable, "-P", "-c", code)
    assert out.returncode == 0, out.stderr


def test_visguard_namespace_maps_the_top_level_folders():
    code = (
        "import visguard.engine, visguard.linter, visguard.audit, visguard.cdk_app, visguard.constructs\n"
        "for m in (visguard.engine, visguard.linter, visguard.audit):\n"
        "    print(m.__file__)\n"
    )
    out = run(sys.executable, "-P", "-c", code)
    assert out.returncode == 0, out.stderr
    files = out.stdout.split()
    assert files[0].endswith("engine/__init__.py") and files[1].endswith("linter/__init__.py")


def test_help_names_every_input_format():
    top = run(str(BIN / "visguard"), "--help").stdout
    lint = run(str(BIN / "visguard"), "lint", "--help").stdout
    for text in (top, " ".join(lint.split())):
        for name in (
            "CloudFormation",
            "cdk.out",
            "Terraform",
            "OpenTofu",
            "Serverless Framework",
            "visguard.yaml",
        ):
            assert name in text, (name, text)
