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


@pytest.mark.parametrize(
    "name, value, kept",
    [
        ("VISIBILITY_TIMEOUT", "30", 30),
        ("WORKER_WAIT_SECONDS", 20, 20),
        ("SQS_BATCH_SIZE", " 10 ", 10),
        ("VISIBILITY_TIMEOUT", "30s", None),  # not a plain number: not read as one
        ("VISIBILITY_TIMEOUT", True, None),
        ("VISIBILITY_TIMEOUT", "1234567890", None),  # beyond any setting
        ("DB_PASSWORD", "123456", None),  # a variable not named as a setting: never kept
        ("API_PIN", 4321, None),
    ],
)
def test_only_a_whole_number_named_as_a_setting_is_kept(name, value, kept):
    from visguard.linter.model import Location

    b = envfiles.binding(name, value, Location("compose.yaml", line=3), "worker")
    if kept is None:
        assert b is None or b.number is None and b.ref is None and b.queue is None
    else:
        assert b is not None and b.number == kept and b.ref is None and b.queue is None


def test_a_dot_env_file_keeps_no_other_value(tmp_path):
    f = tmp_path / ".env"
    f.write_text("DB_SECRET=abc123\nDB_PIN=4242\nHEARTBEAT_INTERVAL=15\n")
    got = envfiles.read(str(f), f.read_bytes())
    assert [(b.name, b.number) for b in got.env] == [("HEARTBEAT_INTERVAL", 15)]
