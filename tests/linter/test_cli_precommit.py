"""The pre-commit hooks, run by pre-commit itself (`pre-commit try-repo`) against a temporary git repository.

The Terraform and Serverless Framework hooks run `visguard-pre-commit`, which maps the changed files to the
Terraform root modules and serverless services they belong to (tests/linter/serverless/test_precommit_roots.py)
and lints those with `visguard lint`.

The offline test uses the `-system` hooks (they run the visguard on PATH): try-repo of the `language: python`
hooks installs visguard and its dependencies from PyPI into a fresh virtualenv, which needs the network and
minutes; it was checked by hand (linter/README.md). The hook definitions are shared, so the python hooks
differ from the tested ones only in `language`, which the last test checks.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from visguard.linter.loaders import registry

ROOT = Path(__file__).resolve().parents[2]
FIX = Path(__file__).resolve().parent / "fixtures" / "rules"
BIN = Path(sys.executable).parent
PRE_COMMIT = BIN / "pre-commit"
GIT = shutil.which("git") or "git"  # pre-commit needs git: the test environment has it


def _git(cwd: Path, *args: str) -> None:
    subprocess.run([GIT, *args], cwd=cwd, check=True, capture_output=True)


def _repo(path: Path, files: dict[str, str]) -> Path:
    path.mkdir()
    _git(path, "init", "-q")
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    _git(path, "add", ".")
    _git(path, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "init")
    return path


@pytest.fixture(scope="module")
def hooks_repo(tmp_path_factory) -> Path:
    """A git repository holding this project's .pre-commit-hooks.yaml (what try-repo clones)."""
    hooks = (ROOT / ".pre-commit-hooks.yaml").read_text()
    return _repo(tmp_path_factory.mktemp("hooks") / "visguard", {".pre-commit-hooks.yaml": hooks})


def _try_repo(hooks_repo: Path, project: Path, hook: str, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "NO_COLOR": "1",
    }
    return subprocess.run(
        [str(PRE_COMMIT), "try-repo", str(hooks_repo), hook, "--all-files", "--color", "never"],
        cwd=project, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_template_hook_fails_on_findings_and_skips_other_yaml(hooks_repo, tmp_path):
    project = _repo(
        tmp_path / "project",
        {
            "infra/orders-stack.yaml": (FIX / "vg011" / "cfn" / "fail.yaml").read_text(),
            "template.yaml": (FIX / "vg011" / "cfn" / "pass.yaml").read_text(),
            "docker-compose.yml": "services: {web: {image: nginx}}\n",  # not a template: not passed
        },
    )
    proc = _try_repo(hooks_repo, project, "visguard-lint-system", tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # pre-commit reports any non-zero hook as 1
    assert "VG011" in proc.stdout and "orders-stack.yaml" in proc.stdout
    assert "docker-compose" not in proc.stdout


def test_template_hook_passes_clean_templates(hooks_repo, tmp_path):
    project = _repo(
        tmp_path / "project", {"template.yaml": (FIX / "vg011" / "cfn" / "pass.yaml").read_text()}
    )
    proc = _try_repo(hooks_repo, project, "visguard-lint-system", tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Passed" in proc.stdout


def test_config_hook_rejects_a_bad_visguard_yaml(hooks_repo, tmp_path):
    project = _repo(tmp_path / "project", {"visguard.yaml": "version: 1\nrulez: {VG011: off}\n"})
    proc = _try_repo(hooks_repo, project, "visguard-config-system", tmp_path)
    assert proc.returncode == 1 and "visguard.yaml" in proc.stdout, proc.stdout


def _hooks() -> dict:
    return {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}


def test_python_hooks_match_the_system_hooks():
    hooks = _hooks()
    entries = {
        "visguard-lint": "visguard lint",
        "visguard-config": "visguard lint",
        "visguard-terraform": "visguard-pre-commit terraform",
        "visguard-serverless": "visguard-pre-commit serverless",
        "visguard-code": "visguard lint .",
    }
    for name, entry in entries.items():
        py, system = hooks[name], hooks[f"{name}-system"]
        assert py["language"] == "python" and system["language"] == "system"
        assert py["entry"] == system["entry"] == entry and py["files"] == system["files"]
        assert py["require_serial"] is True


@pytest.mark.parametrize(
    "hook, path, passed",
    [
        ("visguard-terraform", "infra/live/prod/main.tf", True),
        ("visguard-terraform", "main.tf.json", True),
        ("visguard-terraform", "envs/prod.tfvars", True),
        ("visguard-terraform", "infra/main.tf.bak", False),
        ("visguard-terraform", "serverless.yml", False),
        ("visguard-serverless", "services/orders/serverless.yml", True),
        ("visguard-serverless", "services/orders/resources/queues.yml", True),  # an included file
        ("visguard-serverless", "serverless.json", True),
        ("visguard-serverless", "main.tf", False),
        ("visguard-serverless", "handler.py", False),
        ("visguard-code", "handler.py", True),
        ("visguard-code", "src/worker/index.ts", True),
        ("visguard-code", ".env.production", True),
        ("visguard-code", "deploy/docker-compose.yml", True),
        ("visguard-code", "config/shoryuken.yml", True),
        ("visguard-code", "template.yaml", False),
        ("visguard-code", "main.tf", False),
    ],
)
def test_hook_file_patterns(hook, path, passed):
    assert bool(re.search(_hooks()[hook]["files"], path)) is passed


SERVICE = """\
service: orders
provider:
  name: aws
  timeout: 60
functions:
  worker:
    handler: handler.main
    events:
      - sqs: {arn: !GetAtt OrdersQueue.Arn, batchSize: 1}
resources: ${file(./resources/queues.yml)}
"""
QUEUES = """\
Resources:
  OrdersQueue:
    Type: AWS::SQS::Queue
    Properties:
      VisibilityTimeout: %d
      RedrivePolicy: {deadLetterTargetArn: !GetAtt OrdersDLQ.Arn, maxReceiveCount: 5}
  OrdersDLQ:
    Type: AWS::SQS::Queue
    Properties: {MessageRetentionPeriod: 1209600}
"""


def test_serverless_hook_lints_the_service_of_a_changed_include(hooks_repo, tmp_path):
    project = _repo(
        tmp_path / "project",
        {
            "services/orders/serverless.yml": SERVICE,
            "services/orders/resources/queues.yml": QUEUES % 100,
            ".github/workflows/ci.yml": "on: push\njobs: {}\n",  # not in a service: not linted
        },
    )
    proc = _try_repo(hooks_repo, project, "visguard-serverless-system", tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "VG011" in proc.stdout and "queues.yml" in proc.stdout and "ci.yml" not in proc.stdout
    (project / "services/orders/resources/queues.yml").write_text(QUEUES % 360)
    proc = _try_repo(hooks_repo, project, "visguard-serverless-system", tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_terraform_hook_lints_the_root_of_a_changed_child_module(hooks_repo, tmp_path):
    assert "terraform" in [s.name for s in registry.loaders()]  # `visguard lint` routes the root through it
    project = _repo(
        tmp_path / "project",
        {
            "live/main.tf": 'module "jobs" {\n  source = "../modules/jobs"\n}\n',
            "modules/jobs/main.tf": (
                'resource "aws_sqs_queue" "jobs" {\n  visibility_timeout_seconds = 30\n}\n'
                'resource "aws_lambda_function" "worker" {\n  function_name = "worker"\n  timeout = 300\n}\n'
                'resource "aws_lambda_event_source_mapping" "m" {\n'
                "  event_source_arn = aws_sqs_queue.jobs.arn\n"
                "  function_name = aws_lambda_function.worker.arn\n}\n"
            ),
        },
    )
    proc = _try_repo(hooks_repo, project, "visguard-terraform-system", tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "VG010" in proc.stdout and "module.jobs" in proc.stdout
