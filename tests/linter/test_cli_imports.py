"""`visguard lint` on one template imports only what it needs (pre-commit runs it on every commit, issue 12).

The speed itself is measured in benchmarks/lint_vs_cfnlint.py; these tests pin what a run must not import.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from visguard.linter.loaders import registry, serverless

PROBE = """
import json, sys
from visguard.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""
NOT_FOR_ONE_TEMPLATE = (
    "visguard.linter.loaders.terraform",
    "visguard.linter.loaders.serverless",
    "tree_sitter",
    "hcl2",
    "jsonschema",
    "numpy",
    "botocore",
    "pyspark",
    "aws_cdk",
)


def _modules_after(*args: str, cwd: Path) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-P", "-c", PROBE, *args], capture_output=True, text=True, cwd=cwd, timeout=60
    )
    return set(json.loads(proc.stderr.strip().splitlines()[-1]))


def _template(tmp_path: Path) -> Path:
    t = tmp_path / "stack.yaml"
    t.write_text("Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties: {VisibilityTimeout: 60}\n")
    return t


def test_one_template_imports_no_plugin_loader_and_no_heavy_library(tmp_path):
    mods = _modules_after("lint", "--no-config", str(_template(tmp_path)), cwd=tmp_path)
    assert "visguard.linter.loaders.cfn" in mods  # the probe saw the run
    assert not {m for m in mods if m.startswith(NOT_FOR_ONE_TEMPLATE)}


def test_a_terraform_folder_imports_its_loader(tmp_path):
    (tmp_path / "main.tf").write_text(
        'resource "aws_sqs_queue" "q" {\n  visibility_timeout_seconds = 60\n}\n'
    )
    mods = _modules_after("lint", "--no-config", str(tmp_path), cwd=tmp_path)
    assert "visguard.linter.loaders.terraform" in mods
    assert "visguard.linter.loaders.serverless" not in mods


def test_plugin_tests_say_yes_to_what_their_loaders_claim(tmp_path):
    assert registry.SERVERLESS_FILES == serverless.SERVICE_FILES
    by_module = {p.module: p for p in registry.PLUGINS}
    tf = by_module["visguard.linter.loaders.terraform"]
    sls = by_module["visguard.linter.loaders.serverless"]
    head = b'{"format_version": "1.2", "terraform_version": "1.9.0", "planned_values": {}}'
    assert tf.could_claim_file("plan.json", head) and tf.could_claim_file("x.tf", b"")
    assert not tf.could_claim_file("stack.json", b'{"Resources": {}}')
    (tmp_path / "serverless.yml").write_text("service: s\nprovider: {name: aws}\n")
    (tmp_path / "queues.yml").write_text("Resources: {}\n")
    assert sls.could_claim_file(str(tmp_path / "queues.yml"), b"Resources: {}\n")
    (tmp_path / "cfn").mkdir()
    assert not sls.could_claim_file(str(tmp_path / "cfn" / "stack.yaml"), b"Resources: {}\n")
    assert not tf.could_claim_dir(str(tmp_path))
    (tmp_path / "cfn" / "main.tf").write_text("")
    assert tf.could_claim_dir(str(tmp_path / "cfn"))
