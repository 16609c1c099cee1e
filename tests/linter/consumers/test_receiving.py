"""A workload only given a queue's URL is a consumer when its code receives (issue 35 §5; linter/receiving.py):
the folder its image is built from says it; a workload whose code only sends is no consumer; one whose code is
not visible stays one, and VG065 says receiving is assumed; a receive grant (IAM) makes it one whatever its code.
The mechanism's fixtures: tests/linter/fixtures/consumers/join/{k8s,ecs}-producer-and-worker/."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from visguard.cli import main
from visguard.linter import receiving

JOIN = Path(__file__).resolve().parents[1] / "fixtures" / "consumers" / "join"


def _lint(capsys, *paths) -> list[dict]:
    main(["lint", "--no-config", "--fail-on", "never", "-f", "json", *map(str, paths)])
    return json.loads(capsys.readouterr().out)["findings"]


@pytest.mark.parametrize(
    ("image", "names"),
    [
        ("csuvikg/kedaexample:producer", {"kedaexample", "producer"}),
        ("123456789012.dkr.ecr.eu-west-1.amazonaws.com/orders_worker:latest", {"orders-worker"}),
        ("registry.example.com/team/worker:1.4.2", {"worker"}),
        ("worker@sha256:" + "a" * 64, {"worker"}),
        ("ghcr.io/acme/api:3f2a9c1", {"api"}),  # a commit hash is a version
        ("${ImageUri}", set()),
        ("", set()),
    ],
)
def test_what_an_image_says_it_is(image, names):
    assert receiving.image_names(image) == names


def test_a_deployment_whose_code_only_sends_is_no_consumer(capsys):
    got = _lint(capsys, JOIN / "k8s-producer-and-worker")
    assert not [f for f in got if "orders-producer" in (f.get("consumer") or "") + f["message"]]
    assert {f["consumer"] for f in got} == {
        "Deployment/orders-worker",
        str(JOIN / "k8s-producer-and-worker" / "worker" / "poll.py") + ":8",
    }


def test_a_workload_whose_code_is_not_visible_is_assumed_to_receive(capsys):
    case = JOIN / "k8s-producer-and-worker"
    got = _lint(capsys, case / "k8s", case / "infra")  # the code folders are not part of the run: not read
    vg065 = {f["consumer"]: f["message"] for f in got if f["rule"] == "VG065"}
    assert set(vg065) == {"Deployment/orders-producer", "Deployment/orders-worker"}
    assert all("that it receives is assumed" in m for m in vg065.values()), vg065


def test_an_ecs_task_whose_code_only_sends_is_no_consumer_unless_its_role_grants_receiving(tmp_path, capsys):
    case = tmp_path / "svc"
    shutil.copytree(JOIN / "ecs-producer-and-worker", case)
    got = _lint(capsys, case)
    assert sorted(f["consumer"] for f in got if f["file"].endswith("template.yaml")) == ["WorkerTask"]
    template = case / "infra" / "template.yaml"
    granted = template.read_text().replace(
        "  ProducerTask:\n    Type: AWS::ECS::TaskDefinition\n    Properties:\n",
        "  ProducerRole:\n    Type: AWS::IAM::Role\n    Properties:\n"
        "      AssumeRolePolicyDocument: {Version: '2012-10-17', Statement: []}\n"
        "      Policies:\n        - PolicyName: q\n          PolicyDocument:\n            Version: '2012-10-17'\n"
        "            Statement:\n              - {Effect: Allow, Action: ['sqs:ReceiveMessage', 'sqs:DeleteMessage'],"
        " Resource: !GetAtt Orders.Arn}\n"
        "  ProducerTask:\n    Type: AWS::ECS::TaskDefinition\n    Properties:\n"
        "      TaskRoleArn: !GetAtt ProducerRole.Arn\n",
    )
    template.write_text(granted)
    got = _lint(capsys, case)
    assert sorted(f["consumer"] for f in got if f["file"].endswith("template.yaml")) == [
        "ProducerTask",
        "WorkerTask",
    ]


def test_two_folders_that_fit_an_image_decide_nothing(tmp_path):
    for d in ("a/worker", "b/worker"):
        (tmp_path / d).mkdir(parents=True)
        (tmp_path / d / "Dockerfile").write_text("FROM scratch\n")
    (tmp_path / "k8s").mkdir()
    assert receiving.image_folder(["acme/worker:1"], str(tmp_path / "k8s"), [str(tmp_path)]) is None
    (tmp_path / "b" / "worker" / "Dockerfile").unlink()
    assert receiving.image_folder(["acme/worker:1"], str(tmp_path / "k8s"), [str(tmp_path)]) == str(
        (tmp_path / "a" / "worker").resolve()
    )


def test_no_folder_outside_the_run_is_read(tmp_path):
    (tmp_path / "worker").mkdir()
    (tmp_path / "worker" / "Dockerfile").write_text("FROM scratch\n")
    (tmp_path / "k8s").mkdir()
    assert receiving.image_folder(["acme/worker:1"], str(tmp_path / "k8s"), [str(tmp_path / "k8s")]) is None


def test_the_scan_is_bounded_and_skips_tests(tmp_path, monkeypatch):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_it.py").write_text("sqs.receive_message(QueueUrl=u)\n")  # a test's receive
    (tmp_path / "app.py").write_text("sqs.send_message(QueueUrl=u, MessageBody='x')\n")
    assert receiving.scan(str(tmp_path)) == (None, str(tmp_path / "app.py"))
    for i in range(5):
        (tmp_path / f"m{i}.py").write_text("x = 1\n")
    (tmp_path / "z.py").write_text("sqs.receive_message(QueueUrl=u)\n")
    assert receiving.scan(str(tmp_path))[0] == str(tmp_path / "z.py")
    monkeypatch.setattr(receiving, "MAX_FILES", 3)
    assert receiving.scan(str(tmp_path))[0] is None  # past the bound: not read, not guessed
