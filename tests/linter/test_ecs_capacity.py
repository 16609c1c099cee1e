"""Issue 36 (fact-drift row P2): where an ECS worker runs (EC2, FARGATE, EXTERNAL, MANAGED_INSTANCES), read from
CloudFormation, cdk.out and Terraform (aws_* and awscc_*) into ``Consumer.settings["capacity"]``; VG062's cap on
the stop timeout it proposes (Fargate's 120 s only where the task may run on Fargate) and its reason on ECS Managed
Instances (host replacement); the CloudFormation fixer's cap."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest
from visguard import facts
from visguard.cli import main
from visguard.linter.api import lint_paths
from visguard.linter.loaders import load_template, terraform

FIXTURES = Path(__file__).parent / "fixtures" / "rules" / "vg062"


def cfn(task_props: dict, service_props: dict | None = None, extra: dict | None = None) -> dict:
    res = {
        "Jobs": {
            "Type": "AWS::SQS::Queue",
            "Properties": {
                "VisibilityTimeout": 3600,
                "RedrivePolicy": {
                    "deadLetterTargetArn": {"Fn::GetAtt": ["Dlq", "Arn"]},
                    "maxReceiveCount": 5,
                },
            },
        },
        "Dlq": {"Type": "AWS::SQS::Queue", "Properties": {"MessageRetentionPeriod": 1209600}},
        "Task": {
            "Type": "AWS::ECS::TaskDefinition",
            "Properties": {
                "Tags": [{"Key": "visguard.io/processing-p99", "Value": "10m"}],
                "ContainerDefinitions": [
                    {
                        "Name": "w",
                        "Image": "w:1",
                        "Environment": [{"Name": "QUEUE_URL", "Value": {"Ref": "Jobs"}}],
                    }
                ],
                **task_props,
            },
        },
    }
    if service_props is not None:
        res["Service"] = {
            "Type": "AWS::ECS::Service",
            "Properties": {"TaskDefinition": {"Ref": "Task"}, **service_props},
        }
    res.update(extra or {})
    return {"Resources": res}


def consumer_of(model):
    (c,) = model.queues["Jobs"].consumers
    return c


MI_PROVIDER = {
    "Type": "AWS::ECS::CapacityProvider",
    "Properties": {
        "Name": "mi",
        "ManagedInstancesProvider": {"InfrastructureRoleArn": "arn:aws:iam::1:role/r"},
    },
}
ASG_PROVIDER = {
    "Type": "AWS::ECS::CapacityProvider",
    "Properties": {"AutoScalingGroupProvider": {"AutoScalingGroupArn": "arn:aws:autoscaling:x"}},
}


@pytest.mark.parametrize(
    ("task", "service", "extra", "capacity", "where"),
    [
        ({"RequiresCompatibilities": ["MANAGED_INSTANCES"]}, None, None, "MANAGED_INSTANCES", "RequiresCompatibilities"),
        ({"RequiresCompatibilities": ["EC2", "FARGATE"]}, {"LaunchType": "EC2"}, None, "EC2", "LaunchType"),
        ({}, {"CapacityProviderStrategy": [{"CapacityProvider": "FARGATE_SPOT"}]}, None, "FARGATE",
         "CapacityProviderStrategy"),
        ({}, {"CapacityProviderStrategy": [{"CapacityProvider": {"Ref": "Cp"}}]}, {"Cp": MI_PROVIDER},
         "MANAGED_INSTANCES", "CapacityProviderStrategy"),
        ({}, {"CapacityProviderStrategy": [{"CapacityProvider": "mi"}]}, {"Cp": MI_PROVIDER}, "MANAGED_INSTANCES",
         "CapacityProviderStrategy"),
        ({}, {"CapacityProviderStrategy": [{"CapacityProvider": {"Ref": "Cp"}}]}, {"Cp": ASG_PROVIDER}, "EC2",
         "CapacityProviderStrategy"),
    ],
)  # fmt: skip
def test_cloudformation_capacity_is_read_where_it_is_written(task, service, extra, capacity, where):
    c = consumer_of(load_template(cfn(task, service, extra), file="t.yaml"))
    assert c.settings["capacity"] == capacity
    assert c.locations["capacity"].path.split("/")[-1] == where


@pytest.mark.parametrize(
    ("task", "service"),
    [
        ({}, None),  # nothing says
        ({"RequiresCompatibilities": ["EC2", "FARGATE"]}, None),  # two: the service does not say which
        (
            {},
            {
                "CapacityProviderStrategy": [
                    {"CapacityProvider": "FARGATE"},
                    {"CapacityProvider": "cluster-cp"},
                ]
            },
        ),
        ({}, {"CapacityProviderStrategy": [{"CapacityProvider": {"Fn::ImportValue": "Provider"}}]}),
    ],
)
def test_cloudformation_capacity_not_known_here_is_left_unset(task, service):
    c = consumer_of(load_template(cfn(task, service), file="t.yaml"))
    assert "capacity" not in c.settings


def test_the_stop_timeout_cap_is_fargates_only_where_the_task_may_run_on_fargate():
    cap = facts.ecs_stop_timeout_cap
    assert cap("FARGATE") == 120 and cap(None) == 120  # Fargate, or not known: Fargate's cap
    assert cap("EC2", ["EC2", "FARGATE"]) == 120  # validated against Fargate: its cap
    assert (
        cap("MANAGED_INSTANCES") is None and cap("EC2") is None and cap(None, ["MANAGED_INSTANCES"]) is None
    )
    assert facts.ECS_MANAGED_INSTANCES_STOP_TIMEOUT_CAP is None  # unconfirmed: no source states one


def _vg062(model_or_template):
    from visguard.linter.api import lint_model

    return [f for f in lint_model(model_or_template) if f.rule == "VG062"]


def test_vg062_on_managed_instances_says_host_replacement_and_proposes_past_120_s():
    m = load_template(cfn({"RequiresCompatibilities": ["MANAGED_INSTANCES"]}), file="t.yaml")
    (f,) = _vg062(m)
    assert "host replacement" in f.message and "14 days" in f.message and "deploys" in f.message
    assert "no maximum is documented for ECS Managed Instances" in f.fix
    assert [(c.field, c.value) for c in f.changes] == [("stop_timeout", 600)]  # past Fargate's 120 s


@pytest.mark.parametrize(
    ("task", "service", "changed"),
    [
        ({"RequiresCompatibilities": ["EC2"]}, None, True),  # EC2: no documented maximum
        ({"RequiresCompatibilities": ["FARGATE"]}, None, False),  # Fargate: 600 s is past its 120 s
        (
            {"RequiresCompatibilities": ["EC2", "FARGATE"]},
            {"LaunchType": "EC2"},
            False,
        ),  # validated for Fargate
        ({}, None, False),  # not known: Fargate's cap, as before
    ],
)
def test_vg062_proposes_a_stop_timeout_past_120_s_only_where_no_cap_applies(task, service, changed):
    (f,) = _vg062(load_template(cfn(task, service), file="t.yaml"))
    assert bool(f.changes) is changed
    assert "host replacement" not in f.message and "a deploy or scale-in kills" in f.message
    assert ("scale-in protection" in f.fix) is not changed


def test_cdk_assembly_reads_the_capacity_as_cloudformation_does():
    model = lint_paths([str(FIXTURES / "cdk" / "fail-managed-instances")])
    (f,) = [f for f in model.findings if f.rule == "VG062"]
    assert "host replacement" in f.message and f.location.construct_path == "WorkersStack/Task/Resource"


# ---------------------------------------------------------------------------------------------- Terraform
TF = """
resource "aws_sqs_queue" "jobs" {
  name                       = "jobs"
  visibility_timeout_seconds = 3600
}
resource "aws_ecs_task_definition" "w" {
  family = "w"
  %s
  container_definitions = jsonencode([
    { name = "w", image = "w:1", environment = [{ name = "QUEUE_URL", value = aws_sqs_queue.jobs.url }] }
  ])
  tags = { "visguard.io/processing-p99" = "10m" }
}
resource "aws_ecs_service" "w" {
  name            = "w"
  task_definition = aws_ecs_task_definition.w.arn
  %s
}
%s
"""
TF_MI = """
resource "aws_ecs_capacity_provider" "mi" {
  name = "mi"
  managed_instances_provider {
    infrastructure_role_arn = "arn:aws:iam::123456789012:role/r"
  }
}
"""


@pytest.mark.parametrize(
    ("task", "service", "extra", "capacity", "arg"),
    [
        ('requires_compatibilities = ["MANAGED_INSTANCES"]', "", "", "MANAGED_INSTANCES", "requires_compatibilities"),
        ('requires_compatibilities = ["EC2", "FARGATE"]', 'launch_type = "FARGATE"', "", "FARGATE", "launch_type"),
        ("", "capacity_provider_strategy {\n capacity_provider = aws_ecs_capacity_provider.mi.name\n }", TF_MI,
         "MANAGED_INSTANCES", "capacity_provider"),
        ("", 'capacity_provider_strategy {\n capacity_provider = "mi"\n }', TF_MI, "MANAGED_INSTANCES",
         "capacity_provider"),
        ("", 'capacity_provider_strategy {\n capacity_provider = "FARGATE"\n }', "", "FARGATE",
         "capacity_provider"),
    ],
)  # fmt: skip
def test_terraform_capacity_is_read_where_it_is_written(tmp_path, task, service, extra, capacity, arg):
    (tmp_path / "main.tf").write_text(textwrap.dedent(TF % (task, service, extra)), encoding="utf-8")
    (c,) = terraform.load(str(tmp_path)).queues["aws_sqs_queue.jobs"].consumers
    assert c.settings["capacity"] == capacity
    assert c.locations["capacity"].path.endswith(arg)


def test_terraform_without_a_capacity_leaves_it_unset(tmp_path):
    (tmp_path / "main.tf").write_text(TF % ("", "", ""), encoding="utf-8")
    (c,) = terraform.load(str(tmp_path)).queues["aws_sqs_queue.jobs"].consumers
    assert "capacity" not in c.settings and "compatibilities" not in c.settings


def test_awscc_reads_requires_compatibilities_and_the_strategy(tmp_path):
    (tmp_path / "main.tf").write_text(
        textwrap.dedent(
            """
            resource "awscc_sqs_queue" "jobs" {
              queue_name         = "jobs"
              visibility_timeout = 3600
            }
            resource "awscc_ecs_task_definition" "w" {
              family                   = "w"
              requires_compatibilities = ["EC2", "MANAGED_INSTANCES"]
              container_definitions = [{ name = "w", image = "w:1", environment = [{ name = "Q", value = awscc_sqs_queue.jobs.queue_url }] }]
              tags = [{ key = "visguard.io/processing-p99", value = "10m" }]
            }
            resource "awscc_ecs_service" "w" {
              service_name               = "w"
              task_definition            = awscc_ecs_task_definition.w.task_definition_arn
              capacity_provider_strategy = [{ capacity_provider = "FARGATE", weight = 1 }]
            }
            """
        ),
        encoding="utf-8",
    )
    (c,) = terraform.load(str(tmp_path)).queues["awscc_sqs_queue.jobs"].consumers
    assert (
        c.settings["compatibilities"] == ["EC2", "MANAGED_INSTANCES"] and c.settings["capacity"] == "FARGATE"
    )


# ---------------------------------------------------------------------------------------------- --fix
def _fixed(tmp_path, capsys, template: dict) -> dict:
    path = tmp_path / "t.template.json"
    path.write_text(json.dumps(template, indent=2), encoding="utf-8")
    main(["lint", "--no-config", str(path), "--fix"])
    capsys.readouterr()
    return json.loads(path.read_text(encoding="utf-8"))


def test_fix_writes_a_stop_timeout_past_120_s_on_managed_instances(tmp_path, capsys):
    out = _fixed(tmp_path, capsys, cfn({"RequiresCompatibilities": ["MANAGED_INSTANCES"]}))
    assert out["Resources"]["Task"]["Properties"]["ContainerDefinitions"][0]["StopTimeout"] == 600


def test_fix_refuses_past_120_s_where_the_task_definition_names_fargate(tmp_path, capsys):
    from visguard.linter.fixes import cfn as fix_cfn
    from visguard.linter.fixes.core import CannotFix
    from visguard.linter.model import Change, Location

    template = cfn({"RequiresCompatibilities": ["EC2", "FARGATE"]}, {"LaunchType": "EC2"})
    loc = Location("t.yaml", path="Resources/Task/Properties/ContainerDefinitions/0")
    change = Change("consumer", "Task", "stop_timeout", 600, location=loc)
    with pytest.raises(CannotFix, match="at most 120 s"):
        fix_cfn._worker_edits(change, template["Resources"])
    assert json.dumps(_fixed(tmp_path, capsys, template)).count("StopTimeout") == 0  # VG062 offered no change


def test_managed_instances_fixtures_pass_with_a_stop_timeout_past_120_s():
    for kind, case in (("cfn", "pass-managed-instances.yaml"), ("terraform", "pass-managed-instances")):
        src = FIXTURES / kind / case
        text = src.read_text() if src.is_file() else (src / "main.tf").read_text()
        assert "900" in text
        assert lint_paths([str(src)]).findings == []


def test_a_copy_of_the_terraform_fixture_is_fixed_past_120_s(tmp_path, capsys):
    root = tmp_path / "infra"
    shutil.copytree(FIXTURES / "terraform" / "fail-managed-instances", root)
    main(["lint", "--no-config", str(root), "--fix"])
    capsys.readouterr()
    assert "stopTimeout = 600" in (root / "main.tf").read_text()
    assert [f.rule for f in lint_paths([str(root)]).findings] == []


def test_vg062_on_managed_instances_validated_for_fargate_too_keeps_120_s():
    t = cfn(
        {"RequiresCompatibilities": ["FARGATE", "MANAGED_INSTANCES"]}, {"LaunchType": "MANAGED_INSTANCES"}
    )
    (f,) = _vg062(load_template(t, file="t.yaml"))
    assert (
        "host replacement" in f.message and f.changes == ()
    )  # 600 s is past the 120 s Fargate validation allows
    assert "at most 120 s" in f.fix and "does not hold it off" in f.fix
