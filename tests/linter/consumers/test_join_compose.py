"""A compose service's environment applies to the code it is built from (issue 35 §5: join by what the reference
says: the service a compose file describes). Fixture: tests/linter/fixtures/consumers/join/compose-two-services/."""

from __future__ import annotations

import json
import os

import pytest
from visguard.linter.consumers import binding_folder
from visguard.linter.loaders.code import envfiles

URL = "https://sqs.eu-west-1.amazonaws.com/123456789012/orders"


@pytest.mark.parametrize(
    ("build", "folder"),
    [
        ("./worker", "svc/worker"),
        ({"context": "worker", "dockerfile": "Dockerfile"}, "svc/worker"),
        ({"dockerfile": "Dockerfile"}, "svc"),  # compose's default context: the compose file's folder
        ("../shared", "shared"),
        ("https://github.com/acme/worker.git", None),  # a remote context: no folder of this run
        ("git@github.com:acme/worker.git", None),
        (["not", "a", "path"], None),
        ("x" * 5000, None),
        (None, None),
    ],
)
def test_the_folder_a_compose_binding_applies_to(tmp_path, build, folder):
    compose = tmp_path / "svc" / "compose.yaml"
    compose.parent.mkdir()
    service = {"environment": {"ORDERS_QUEUE_URL": URL}}
    if build is not None:
        service["build"] = build
    data = json.dumps({"services": {"worker": service}}).encode()  # JSON is YAML: a compose file
    (b,) = envfiles.read(str(compose), data).env
    expect = (
        os.path.join(tmp_path, folder) if folder else str(compose.parent)
    )  # else: the compose file's folder
    assert binding_folder(b) == os.path.normpath(expect)
