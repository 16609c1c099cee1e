"""visguard-pre-commit: which Terraform root modules and which serverless services the changed files that
pre-commit passes belong to, and the `visguard lint` command line built from them."""

from __future__ import annotations

import os

import pytest
from visguard.linter import precommit


@pytest.fixture
def repo(tmp_path, monkeypatch):
    def write(files: dict[str, str]):
        for name, text in files.items():
            p = tmp_path / name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
        monkeypatch.chdir(tmp_path)
        return tmp_path

    return write


TF = {
    "live/prod/main.tf": 'module "jobs" {\n  source = "../../modules/jobs"\n}\n',
    "live/prod/prod.auto.tfvars": "x = 1\n",
    "live/dev/main.tf.json": '{"module": {"jobs": {"source": "../../modules/jobs"}}}',
    "modules/jobs/main.tf": 'module "q" {\n  source = "./queue"\n}\n',
    "modules/jobs/queue/main.tf": 'resource "aws_sqs_queue" "this" {}\n',
    "standalone/main.tf": 'module "remote" {\n  source = "terraform-aws-modules/sqs/aws"\n}\n',
    "standalone/.terraform/modules/remote/main.tf": 'resource "aws_sqs_queue" "this" {}\n',
}


def test_a_changed_root_file_selects_its_folder(repo):
    repo(TF)
    assert precommit.terraform_roots(["live/prod/prod.auto.tfvars", "standalone/main.tf"]) == [
        os.path.join("live", "prod"),
        "standalone",
    ]


def test_a_changed_child_module_selects_every_root_that_calls_it(repo):
    repo(TF)
    want = [os.path.join("live", "dev"), os.path.join("live", "prod")]
    assert precommit.terraform_roots(["modules/jobs/queue/main.tf"]) == want
    assert precommit.terraform_roots(["modules/jobs/main.tf", "live/prod/main.tf"]) == want


def test_downloaded_modules_and_other_files_are_ignored(repo):
    repo(TF)
    assert precommit.terraform_roots(["standalone/.terraform/modules/remote/main.tf", "README.md"]) == []


def test_module_call_cycles_end(repo):
    repo(
        {
            "a/main.tf": 'module "b" {\n  source = "../b"\n}\n',
            "b/main.tf": 'module "a" {\n  source = "../a"\n}\n',
        }
    )
    assert precommit.terraform_roots(["a/main.tf"]) == ["a"]  # the changed folder: its cycle gets reported


def test_serverless_services_of_changed_files(repo):
    repo({
        "svc/orders/serverless.yml": "service: orders\nprovider: {name: aws}\n",
        "svc/orders/resources/queues.yml": "Resources: {}\n",
        "svc/jobs/serverless.ts": "export default {}\n",
        "svc/jobs/config.yml": "a: 1\n",
        ".github/workflows/ci.yml": "on: push\n",
        "svc/orders/node_modules/x/serverless.yml": "service: x\nprovider: {}\n",
    })  # fmt: skip
    changed = ["svc/orders/resources/queues.yml", "svc/orders/serverless.yml", "svc/jobs/config.yml",
               ".github/workflows/ci.yml", "svc/orders/node_modules/x/serverless.yml"]  # fmt: skip
    assert precommit.serverless_services(changed) == [os.path.join("svc", "orders", "serverless.yml")]


def test_main_lints_the_roots_with_the_hook_args(repo, monkeypatch):
    repo(TF)
    calls = []
    monkeypatch.setattr("visguard.cli.main", lambda argv: calls.append(argv) or 2)
    rc = precommit.main(
        ["terraform", "--fail-on", "error", "modules/jobs/queue/main.tf", "live/prod/main.tf"]
    )
    assert rc == 2
    assert calls == [
        ["lint", "--fail-on", "error", os.path.join("live", "dev"), os.path.join("live", "prod")]
    ]
    calls.clear()
    assert precommit.main(["serverless", "docs/readme.yml"]) == 0 and calls == []  # nothing to lint


def test_usage():
    assert precommit.main([]) == 1 and precommit.main(["helm"]) == 1


# Issue 33: a file outside the repository (a `..` path, an absolute path, a symlink out of it) never starts a
# search: it would lint a service or a root above the repository. One line names it, exit 1 (bad input), and
# the files inside are still linted.
@pytest.mark.parametrize("hook", ["serverless", "terraform"])
@pytest.mark.parametrize("form", ["dotdot", "absolute", "symlink", "symlinked-folder"])
def test_files_outside_the_repository_are_not_read(tmp_path, monkeypatch, capsys, hook, form):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "serverless.yml").write_text("service: other\nprovider: {name: aws}\n")
    (outside / "main.tf").write_text('resource "aws_sqs_queue" "q" {}\n')
    project = tmp_path / "project"
    (project / "svc").mkdir(parents=True)
    (project / "svc" / "serverless.yml").write_text("service: mine\nprovider: {name: aws}\n")
    (project / "svc" / "main.tf").write_text('resource "aws_sqs_queue" "mine" {}\n')
    name = "serverless.yml" if hook == "serverless" else "main.tf"
    if form == "dotdot":
        given = f"../outside/{name}"
    elif form == "absolute":
        given = str(outside / name)
    elif form == "symlink":
        (project / f"link-{name}").symlink_to(outside / name)
        given = f"link-{name}"
    else:
        (project / "linked").symlink_to(outside, target_is_directory=True)
        given = f"linked/{name}"
    monkeypatch.chdir(project)
    calls = []
    monkeypatch.setattr("visguard.cli.main", lambda argv: calls.append(argv) or 0)
    rc = precommit.main([hook, given, f"svc/{name}"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 1
    assert len(err) == 1 and given in err[0] and "outside the repository" in err[0]
    assert calls == [["lint", os.path.join("svc", name) if hook == "serverless" else "svc"]]
    calls.clear()
    assert (
        precommit.main([hook, given]) == 1 and calls == []
    )  # nothing inside: nothing linted, still bad input
