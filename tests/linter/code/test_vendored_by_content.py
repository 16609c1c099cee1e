"""Issue 33 (hang): a vendored copy of an SQS client library or AWS SDK is skipped by what its package manifest
says it is, whatever its folder is called (third_party/ and vendor/ are skipped by name already). Its sources
define the receive calls the application makes; reading them cost minutes and found nothing of the user's."""

from __future__ import annotations

import pytest
from visguard.linter.loaders import registry

MANIFESTS = {  # (manifest, text) -> the package it names, when that is a library visguard reads consumers of
    ("pyproject.toml", '[project]\nname = "botocore"\nversion = "1.40.0"\n'): "botocore",
    ("pyproject.toml", '[tool.poetry]\nname = "kombu"\n'): "kombu",
    ("setup.py", 'from setuptools import setup\nsetup(\n    name="boto3",\n)\n'): "boto3",
    ("setup.cfg", "[metadata]\nname = celery\n"): "celery",
    ("package.json", '{\n  "name": "@aws-sdk/client-sqs",\n  "version": "3.0.0"\n}\n'): "@aws-sdk/client-sqs",
    ("package.json", '{"name": "sqs-consumer", "version": "14.0.0"}'): "sqs-consumer",
    ("composer.json", '{"name": "aws/aws-sdk-php"}'): "aws/aws-sdk-php",
    ("go.mod", "module github.com/aws/aws-sdk-go-v2/service/sqs\n\ngo 1.22\n"): "github.com/aws/aws-sdk-go-v2/service/sqs",
    ("Cargo.toml", '[package]\nname = "aws-sdk-sqs"\nversion = "1.90.0"\n'): "aws-sdk-sqs",
    ("Cargo.toml", '[package]\nedition = "2018"\nname = "rusoto_sqs"\n'): "rusoto_sqs",
    # the user's own packages, and files that are not manifests
    ("Cargo.toml", '[package]\nname = "jobs-worker"\n\n[dependencies]\naws-sdk-sqs = "1"\n'): None,
    ("Cargo.toml", '[workspace]\nmembers = ["worker"]\n[dependencies]\nname = "aws-sdk-sqs"\n'): None,
    ("pyproject.toml", '[project]\nname = "orders-worker"\ndependencies = ["boto3"]\n'): None,
    ("package.json", '{"name": "billing", "dependencies": {"sqs-consumer": "^14"}}'): None,
    ("go.mod", "module example.com/poller\n\nrequire github.com/aws/aws-sdk-go-v2 v1.30.0\n"): None,
    ("requirements.txt", "boto3\n"): None,
    ("package.json", "not json at all"): None,
}  # fmt: skip


@pytest.mark.parametrize(("manifest", "text", "package"), [(*k, v) for k, v in MANIFESTS.items()])
def test_a_manifest_names_the_library_its_folder_is(manifest, text, package):
    assert registry.vendored_package(f"lib/x/{manifest}", text.encode()) == package


WORKER = "import boto3\nsqs = boto3.client('sqs')\n\ndef poll(url):\n    return sqs.receive_message(QueueUrl=url)\n"


@pytest.mark.parametrize(
    ("manifest", "text"),
    [
        ("pyproject.toml", '[project]\nname = "botocore"\n'),
        ("package.json", '{"name": "@aws-sdk/client-sqs"}'),
    ],
)
def test_a_vendored_copy_is_not_searched_for_consumers(tmp_path, manifest, text):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "worker.py").write_text(WORKER)
    copy = tmp_path / "libs" / "sdk-copy"
    (copy / "deep" / "er").mkdir(parents=True)
    (copy / manifest).write_text(text)
    for where in (copy, copy / "deep" / "er"):
        (where / "client.py").write_text(WORKER)
        (where / "client.js").write_text(
            "const { ReceiveMessageCommand } = require('@aws-sdk/client-sqs');\n"
        )
    errors: list = []
    found = sorted(
        i.path.replace(str(tmp_path), "") for i in registry.discover([str(tmp_path)], errors=errors)
    )
    assert errors == [] and found == ["/app/worker.py"]
    # the root of the search is the user's project, whatever its manifest says (the library's own repository)
    found = registry.discover([str(copy)], errors=errors)
    assert errors == [] and len(found) == 4
