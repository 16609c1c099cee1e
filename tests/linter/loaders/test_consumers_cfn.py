"""Worker consumers read from CloudFormation, SAM, cdk.out and .ebextensions (issue 24): the Consumer records,
their locations, links, pending references, environment bindings and notes; and the CFN fix adapter for them."""

from __future__ import annotations

from pathlib import Path

import pytest
from visguard.errors import VisguardError
from visguard.linter.api import lint_paths
from visguard.linter.fix import fix_text
from visguard.linter.loaders import registry
from visguard.linter.loaders.registry import load
from visguard.linter.model import Change, Finding, Location, Severity

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "consumers"
CFN = FIX / "cloudformation"
RULES = FIX.parent / "rules"


def consumers(model):
    return {(q.id, c.id): c for q in model.queues.values() for c in q.consumers}


def one(model):
    (c,) = consumers(model).values()
    return c


# ------------------------------------------------------------------------------------------------ ECS
def test_ecs_worker_by_environment_variable_with_stop_timeout_scaling_and_declared_p99():
    m = load(str(RULES / "vg062/cfn/fail-ecs.yaml"))
    c = consumers(m)[("Jobs", "Task")]
    assert (c.kind, c.platform, c.source, c.link, c.link_ref) == (
        "worker",
        "ecs",
        "cloudformation",
        "env",
        "QUEUE_URL",
    )
    assert c.stop_timeout is None and c.effective_stop_timeout == 30
    # no StopTimeout written: located at the container, where a fix adds it
    assert c.locations["stop_timeout"].path == "Resources/Task/Properties/ContainerDefinitions/0"
    assert (
        c.processing_p99 == 300
        and c.locations["processing_p99"].path == "Resources/Task/Properties/Tags/0/Value"
    )
    # its images: the join asks whether the code built into them receives (linter/receiving.py)
    assert c.settings == {"desired_count": 2, "images": ["public.ecr.aws/docker/library/python:3.12-slim"],
                          "compatibilities": ["FARGATE"], "capacity": "FARGATE"}  # fmt: skip
    assert c.locations["capacity"].path == "Resources/Service/Properties/LaunchType"  # the service's, first
    assert c.concurrency == 2
    assert c.locations["desired_count"].path == "Resources/Service/Properties/DesiredCount"
    assert c.locations["link"].line == 26  # Value: !Ref Jobs
    (b,) = m.env
    assert (b.name, b.workload, b.queue, b.ref) == ("QUEUE_URL", "Task", "Jobs", None)
    assert "JobsDlq" not in {q for q, _ in consumers(m)}


def test_ecs_worker_by_task_role_grant_and_queue_name():
    m = load(str(RULES / "vg065/cfn/fail-ecs.yaml"))
    c = one(m)
    assert c.link in ("env", "iam") and c.processing_p99 is None
    assert [b.name for b in m.env] == ["JOBS"]


def test_ecs_links_iam_only_producer_excluded_wildcard_ignored(write):
    path = write(
        """
Resources:
  In: {Type: AWS::SQS::Queue}
  Out: {Type: AWS::SQS::Queue}
  Any: {Type: AWS::SQS::Queue}
  Role:
    Type: AWS::IAM::Role
    Properties:
      Policies:
        - PolicyName: p
          PolicyDocument:
            Statement:
              - {Effect: Allow, Action: "sqs:Receive*", Resource: !GetAtt In.Arn}
              - {Effect: Allow, Action: sqs:SendMessage, Resource: !GetAtt Out.Arn}
              - {Effect: Allow, Action: sqs:ReceiveMessage, Resource: "*"}
              - {Effect: Deny, Action: sqs:ReceiveMessage, Resource: !GetAtt Any.Arn}
  Task:
    Type: AWS::ECS::TaskDefinition
    Properties:
      TaskRoleArn: !Ref Role
      ContainerDefinitions:
        - {Name: a, Image: x, StopTimeout: 20}
        - {Name: b, Image: x, StopTimeout: 100, Environment: [{Name: OUT_URL, Value: !Ref Out}]}
"""
    )
    m = load(path)
    got = consumers(m)
    assert list(got) == [
        ("In", "Task")
    ]  # Out: the role only sends (a producer); Any: "*" and Deny link nothing
    c = got[("In", "Task")]
    assert (c.link, c.link_ref) == ("iam", "Role")
    assert c.locations["link"].path == "Resources/Role/Properties/Policies/0/PolicyDocument/Statement/0"
    assert c.stop_timeout == 100  # the largest of the containers that may consume
    assert c.locations["stop_timeout"].path == "Resources/Task/Properties/ContainerDefinitions/1/StopTimeout"
    assert [(b.name, b.queue) for b in m.env] == [("OUT_URL", "Out")]


_ROLE_TRUST = {
    "ecs": "Principal: {Service: ecs-tasks.amazonaws.com}\n            Action: sts:AssumeRole",
    "pod-identity": "Principal: {Service: pods.eks.amazonaws.com}\n            Action: [sts:AssumeRole, sts:TagSession]",
    "irsa": "Principal: {Federated: arn:aws:iam::123456789012:oidc-provider/oidc.eks.example}\n"
    "            Action: sts:AssumeRoleWithWebIdentity",
    "lambda": "Principal: {Service: lambda.amazonaws.com}\n            Action: sts:AssumeRole",
    "ec2": "Principal: {Service: ec2.amazonaws.com}\n            Action: sts:AssumeRole",
    "irsa-assume-role": "Principal: {Federated: arn:aws:iam::123456789012:oidc-provider/x}\n"
    "            Action: sts:AssumeRole",
}


def _role_template(
    trust: str, extra: str = "", actions: str = "[sqs:ReceiveMessage, sqs:DeleteMessage]"
) -> str:
    return f"""
Resources:
  Jobs: {{Type: AWS::SQS::Queue}}
  Events: {{Type: AWS::SQS::Queue}}
  Role:
    Type: AWS::IAM::Role
    Properties:
      AssumeRolePolicyDocument:
        Statement:
          - Effect: Allow
            {_ROLE_TRUST[trust]}
      Policies:
        - PolicyName: p
          PolicyDocument:
            Statement:
              - {{Effect: Allow, Action: {actions}, Resource: !GetAtt Jobs.Arn}}
              - {{Effect: Allow, Action: sqs:SendMessage, Resource: !GetAtt Events.Arn}}
{extra}"""


@pytest.mark.parametrize(
    ("trust", "platform"), [("ecs", "ecs"), ("pod-identity", "kubernetes"), ("irsa", "kubernetes")]
)
def test_a_role_granted_receiving_is_the_consumer_of_a_workload_deployed_elsewhere(write, trust, platform):
    """Issue 35 §5: a workload is a consumer when its IAM grants receiving. A role an ECS task or a pod assumes,
    used by nothing in the template, is the workload another tool deploys (ecspresso, a Helm chart)."""
    m = load(write(_role_template(trust)))
    got = consumers(m)
    assert list(got) == [("Jobs", "Role")]  # Events: the role only sends to it (a producer)
    c = got[("Jobs", "Role")]
    assert (c.kind, c.platform, c.link, c.link_ref) == ("worker", platform, "iam", "Role")
    assert c.location.path == "Resources/Role/Properties/Policies/0/PolicyDocument/Statement/0"
    (note,) = m.notes
    assert note.address == "Role" and "Jobs" in note.message and "Jobs" in note.fix
    found = lint_paths([write(_role_template(trust), "t2.yaml")]).findings
    # Jobs is consumed without a redrive policy; Events has no consumer: no VG020 (and no VG065: nothing here can
    # declare the workload's processing time, the note says what was not checked)
    assert sorted((f.rule, f.queue) for f in found) == [("VG020", "Jobs"), ("VG902", "Role")]


@pytest.mark.parametrize(
    ("name", "queue", "role", "message"),
    [
        ("vg020-role-only.yaml", "RenderJobs", "RenderTaskRole", "ECS tasks of role RenderTaskRole"),
        ("vg020-role-irsa.yaml", "IndexJobs", "IndexerRole", "pods of role IndexerRole"),
    ],
)
def test_a_queue_only_a_role_consumes_is_judged_and_its_workload_named(name, queue, role, message):
    result = lint_paths([str(CFN / name)])
    (vg020,) = [f for f in result.findings if f.rule == "VG020"]
    assert vg020.queue == queue and vg020.location.line == 6 + (name.endswith("irsa.yaml") * 3)
    assert message in str(vg020.message)
    assert [(f.rule, f.queue) for f in result.findings if f.rule != "VG020"] == [("VG902", role)]


@pytest.mark.parametrize(
    ("trust", "extra", "actions"),
    [
        (
            "lambda",
            "",
            "sqs:ReceiveMessage",
        ),  # a function's role: its mapping is the consumer, read elsewhere
        ("ec2", "", "sqs:ReceiveMessage"),  # an instance's: what runs there is not known
        ("irsa-assume-role", "", "sqs:ReceiveMessage"),  # federated, but not the web-identity action
        ("ecs", "", "sqs:SendMessage"),  # it only sends
        ("ecs", "", "sqs:GetQueueAttributes"),  # it only reads attributes
        (
            "ecs",
            "  Task:\n    Type: AWS::ECS::TaskDefinition\n    Properties:\n      TaskRoleArn: !GetAtt Role.Arn\n"
            "      ContainerDefinitions: [{Name: a, Image: x}]\n",
            "sqs:ReceiveMessage",
        ),  # the task definition that uses it is the consumer (one, not two)
    ],
)
def test_a_role_is_no_consumer_of_its_own_when_it_cannot_receive_or_its_user_is_declared(
    write, trust, extra, actions
):
    m = load(write(_role_template(trust, extra, actions)))
    got = consumers(m)
    if extra:
        assert list(got) == [("Jobs", "Task")] and got[("Jobs", "Task")].link == "iam"
    else:
        assert got == {} and m.notes == []


@pytest.mark.parametrize(
    "props",
    [
        "{AssumeRolePolicyDocument: 7}",
        "{AssumeRolePolicyDocument: [1, {}]}",
        "{AssumeRolePolicyDocument: {Statement: ecs-tasks.amazonaws.com}}",
    ],
)
def test_a_malformed_role_is_never_a_crash(write, props):
    m = load(
        write(
            f"Resources:\n  Jobs: {{Type: AWS::SQS::Queue}}\n  Role: {{Type: AWS::IAM::Role, Properties: {props}}}\n"
        )
    )
    assert consumers(m) == {}


def test_ecs_secret_through_ssm_parameter_and_autoscaling_max_count():
    m = load(str(CFN / "consistent-ecs.yaml"))
    c = consumers(m)[("Jobs", "Task")]
    assert (c.link, c.link_ref) == ("secret", "JOBS_QUEUE_URL")
    assert c.stop_timeout == 120 and c.processing_p99 == 90
    assert {k: v for k, v in c.settings.items() if k != "images"} == {
        "max_count": 8, "compatibilities": ["FARGATE"], "capacity": "FARGATE"
    } and c.concurrency == 8  # fmt: skip
    assert c.locations["max_count"].path == "Resources/Scaling/Properties/MaxCapacity"
    assert m.env == []  # a secret is not an environment binding


def test_ecs_queue_of_another_stack_is_pending_and_becomes_a_note():
    m = load(str(CFN / "vg902-ecs-queue-of-another-stack.yaml"))
    assert m.queues == {}
    refs = sorted((c.queue_ref.kind, c.queue_ref.value, c.link_ref) for c in m.pending)
    assert refs == [
        ("name", "Fn::ImportValue billing-dead-letters-url", "DEAD_LETTER_QUEUE_URL"),
        ("url", "https://sqs.eu-west-1.amazonaws.com/123456789012/billing-events", "QUEUE_URL"),
    ]
    assert {b.name: b.ref.kind for b in m.env} == {"QUEUE_URL": "url", "DEAD_LETTER_QUEUE_URL": "name"}
    result = lint_paths([str(CFN / "vg902-ecs-queue-of-another-stack.yaml")])
    assert sorted(f.rule for f in result.findings) == ["VG902", "VG902"]


def test_pending_ecs_consumer_joins_a_queue_of_another_input(write, tmp_path):
    write(
        "Resources:\n  Billing:\n    Type: AWS::SQS::Queue\n    Properties: {QueueName: billing-events}\n",
        "q.yaml",
    )
    (tmp_path / "w.yaml").write_text((CFN / "vg902-ecs-queue-of-another-stack.yaml").read_text())
    result = lint_paths([str(tmp_path)])
    rules = sorted(f.rule for f in result.findings)
    assert rules == [
        "VG020",
        "VG065",
        "VG902",
    ]  # joined: no redrive, no declared bound; the ImportValue one a note
    (f,) = [f for f in result.findings if f.rule == "VG020"]
    assert f.queue == "Billing" and "ECS task definition Task" in f.message


def test_bad_processing_tag_is_a_note_naming_the_place(write):
    path = write(
        """
Resources:
  Q: {Type: AWS::SQS::Queue}
  T:
    Type: AWS::ECS::TaskDefinition
    Properties:
      Tags: [{Key: visguard.io/processing-p99, Value: soon}]
      ContainerDefinitions: [{Name: a, Image: x, Environment: [{Name: Q, Value: !Ref Q}]}]
"""
    )
    m = load(path)
    assert one(m).processing_p99 is None
    (n,) = m.notes
    assert (
        "not a duration" in n.message
        and n.location.path == "Resources/T/Properties/Tags/0/Value"
        and n.address == "T"
    )


@pytest.mark.parametrize(
    "containers",
    [
        "ContainerDefinitions: {Name: a}",
        "ContainerDefinitions: [1, null, [], {Environment: {Name: Q}}, {Environment: [{Name: Q}, {Value: x}, 3]}]",
        "ContainerDefinitions: [{Secrets: [{Name: S}], Environment: [{Name: Q, Value: [1]}]}]",
        "ContainerDefinitions: [" + ", ".join(["{Environment: [{Name: Q, Value: word}]}"] * 3000) + "]",
    ],
)
def test_malformed_task_definitions_never_crash(write, containers):
    path = write(
        f"Resources:\n  Q: {{Type: AWS::SQS::Queue}}\n  T:\n    Type: AWS::ECS::TaskDefinition\n    Properties:\n      {containers}\n"
    )
    m = load(path)
    assert consumers(m) == {} and m.pending == []


def test_bad_stop_timeout_is_bad_input_naming_the_place(write):
    path = write(
        "Resources:\n  Q: {Type: AWS::SQS::Queue}\n  T:\n    Type: AWS::ECS::TaskDefinition\n    Properties:\n"
        "      ContainerDefinitions: [{StopTimeout: soon, Environment: [{Name: Q, Value: !Ref Q}]}]\n"
    )
    with pytest.raises(VisguardError) as e:
        load(path)
    assert "ContainerDefinitions/0/StopTimeout" in str(e.value)


# ------------------------------------------------------------------------------------------------ cdk.out
def test_cdk_queue_processing_fargate_service_is_recognised():
    m = load(str(FIX / "cdk" / "queue-processing-fargate"))
    queue = m.queues["QueueWorker/WorkerEcsProcessingQueue96AA4E1D"]
    (c,) = queue.consumers
    assert (c.platform, c.source, c.link, c.link_ref) == ("ecs", "cdk", "env", "QUEUE_NAME")
    # ApplicationLoadBalanced/QueueProcessingFargateService: the service's LaunchType (issue 36)
    assert c.settings == {"max_count": 4, "compatibilities": ["FARGATE"], "capacity": "FARGATE"}
    assert c.processing_p99 == 300
    assert c.location.construct_path == "QueueWorker/Worker/QueueProcessingTaskDef/Resource"
    assert c.locations["max_count"].construct_path.endswith("TaskCount/Target/Resource")
    (s,) = queue.subscriptions
    assert (s.topic, s.topic_fifo, s.raw_delivery, s.redrive, s.source) == (
        "EventsD32975C2",
        False,
        True,
        None,
        "cdk",
    )
    (b,) = m.env
    assert b.queue == "QueueWorker/WorkerEcsProcessingQueue96AA4E1D"
    assert [f.rule for f in lint_paths([str(FIX / "cdk" / "queue-processing-fargate")]).findings] == [
        "VG012",
        "VG062",
    ]


# ------------------------------------------------------------------------------------------------ Beanstalk
def test_beanstalk_defaults_are_recorded_as_defaults():
    m = load(str(RULES / "vg060/cfn/fail-beanstalk-default.yaml"))
    c = consumers(m)[("Jobs", "Worker")]
    assert (c.platform, c.link, c.link_ref, c.heartbeat) == ("beanstalk", "source", "WorkerQueueURL", False)
    assert c.visibility_override == 300 and "visibility_override" in c.settings["defaults"]
    assert c.work_timeout == 240 and c.settings["inactivity_timeout"] == 240
    assert "inactivity_timeout" not in c.settings["defaults"]
    assert c.concurrency == 50 and c.processing_p99 == 600
    # the unset option is located where a fix adds it: the environment's OptionSettings
    assert c.locations["visibility_override"].path == "Resources/Worker/Properties/OptionSettings"
    assert c.locations["inactivity_timeout"].path == "Resources/Worker/Properties/OptionSettings/1/Value"


def test_beanstalk_options_from_the_configuration_template():
    c = one(load(str(RULES / "vg063/cfn/fail-beanstalk.yaml")))
    assert (c.visibility_override, c.work_timeout) == (600, 900)
    assert (
        c.locations["visibility_override"].path == "Resources/WorkerConfig/Properties/OptionSettings/0/Value"
    )
    assert c.settings["defaults"] == ["error_visibility_timeout", "max_retries", "retention_period",
                                      "connect_timeout", "http_connections"]  # fmt: skip


def test_beanstalk_without_worker_queue_url_is_a_note(write):
    m = load(
        write(
            "Resources:\n  E:\n    Type: AWS::ElasticBeanstalk::Environment\n    Properties: {Tier: {Name: Worker}}\n"
        )
    )
    (n,) = m.notes
    assert "WorkerQueueURL" in n.message and n.address == "E" and m.pending == []


# ------------------------------------------------------------------------------------------------ Pipes
def test_pipe_lambda_target_timeout_and_batching():
    c = one(load(str(RULES / "vg064/cfn/fail-pipes.yaml")))
    assert (c.platform, c.link, c.heartbeat) == ("pipes", "source", False)
    assert (c.batch_size, c.batching_window, c.work_timeout) == (50, 30, 120)
    assert c.locations["work_timeout"].path == "Resources/Target/Properties/Timeout"
    assert c.processing_p99 == 20


def test_pipe_express_state_machine_and_defaults(write):
    c = one(load(str(CFN / "consistent-pipes.yaml")))
    assert c.work_timeout == 300 and c.settings["target_kind"] == "express"
    path = write(
        """
Resources:
  Q: {Type: AWS::SQS::Queue}
  F: {Type: AWS::Lambda::Function, Properties: {Runtime: python3.12, Handler: i.h, Role: r, Code: {ZipFile: x}}}
  P:
    Type: AWS::Pipes::Pipe
    Properties:
      Source: !GetAtt Q.Arn
      Enrichment: !GetAtt F.Arn
      Target: arn:aws:events:eu-west-1:123456789012:api-destination/a/b
"""
    )
    c = one(load(path))
    assert (c.batch_size, c.batching_window, c.work_timeout) == (10, None, 3 + 5)  # 3 s: Lambda's default


def test_pipe_fire_and_forget_target_and_unknown_target(write):
    base = "Resources:\n  Q: {Type: AWS::SQS::Queue}\n  P:\n    Type: AWS::Pipes::Pipe\n    Properties:\n      Source: !GetAtt Q.Arn\n"
    c = one(load(write(base + "      Target: arn:aws:lambda:eu-west-1:123456789012:function:elsewhere\n")))
    assert c.work_timeout is None
    m = load(write(base + "      Target: arn:aws:lambda:eu-west-1:123456789012:function:elsewhere\n"
                   "      TargetParameters: {LambdaFunctionParameters: {InvocationType: FIRE_AND_FORGET}}\n"))  # fmt: skip
    assert one(m).work_timeout == 0 and m.notes == []


def test_pipe_sam_state_machine_enrichment_is_bounded_by_its_type(write):
    """SAM's AWS::Serverless::StateMachine names its type `Type`: an Express enrichment holds the batch up to
    5 minutes, a standard one is not known here (real-world: a public Pipes pattern enriching with SAM)."""
    template = """Transform: AWS::Serverless-2016-10-31
Resources:
  Q: {Type: AWS::SQS::Queue}
  Enrich:
    Type: AWS::Serverless::StateMachine
    Properties: {Type: %s, Definition: {StartAt: S, States: {S: {Type: Pass, End: true}}}}
  Handler: {Type: AWS::Serverless::Function, Properties: {Handler: i.h, Runtime: python3.12, Timeout: 20}}
  P:
    Type: AWS::Pipes::Pipe
    Properties: {Source: !GetAtt Q.Arn, Enrichment: !GetAtt Enrich.Arn, Target: !GetAtt Handler.Arn}
"""
    c = one(load(write(template % "EXPRESS")))
    assert (c.settings["enrichment_kind"], c.work_timeout) == ("express", 300 + 20)
    m = load(write(template % "STANDARD"))
    assert one(m).work_timeout is None and one(m).settings["enrichment_kind"] == "standard"
    assert [n.address for n in m.notes] == ["P"]


# ------------------------------------------------------------------------------------------------ SNS
def test_sns_subscription_with_fifo_topic_and_redrive():
    m = load(str(RULES / "vg066/cfn/fail-sns.yaml"))
    (s,) = m.queues["OrderEvents"].subscriptions
    assert (s.id, s.topic, s.topic_fifo, s.redrive, s.raw_delivery) == (
        "Subscription",
        "Orders",
        True,
        "DeliveryFailures",
        True,
    )
    assert (
        s.locations["redrive.target"].path
        == "Resources/Subscription/Properties/RedrivePolicy/deadLetterTargetArn"
    )
    (s,) = load(str(RULES / "vg067/cfn/fail-sns.yaml")).queues["Inbox"].subscriptions
    assert s.redrive == "Dead" and s.topic_fifo is False


def test_sam_sqs_subscription_is_a_subscription(write):
    path = write(
        """
Transform: AWS::Serverless-2016-10-31
Resources:
  Topic: {Type: AWS::SNS::Topic}
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: python3.12
      Handler: i.h
      InlineCode: x
      Events:
        Orders:
          Type: SNS
          Properties:
            Topic: !Ref Topic
            SqsSubscription: true
"""
    )
    m = load(path)
    (s,) = m.queues["FnOrdersQueue"].subscriptions
    assert (s.id, s.topic, s.source) == ("Fn/Orders", "Topic", "sam")


# ------------------------------------------------------------------------------------------------ .ebextensions
def test_ebextensions_folder_is_one_input_joined_by_worker_queue_url():
    app = FIX / "ebextensions" / "worker-app"
    inputs = registry.discover([str(app)], errors=[])
    assert sorted((Path(i.path).name, i.loader.name) for i in inputs) == [
        (".ebextensions", "ebextensions"), ("queues.yaml", "cloudformation")]  # fmt: skip
    m = load(str(app / ".ebextensions"))
    (c,) = m.pending
    assert (c.platform, c.source, c.queue_ref.kind) == ("beanstalk", "ebextensions", "url")
    assert (c.visibility_override, c.work_timeout, c.concurrency) == (1200, 1800, 2)  # both files together
    assert c.locations["visibility_override"].file.endswith("02-tuning.config")
    assert c.locations["inactivity_timeout"].line == 8
    assert [b.name for b in m.env] == ["REPORT_JOBS_URL"]
    result = lint_paths([str(app)])
    assert result.errors == [] and [f.rule for f in result.findings if f.rule == "VG902"] == []


def test_ebextensions_single_file_map_form_without_queue_is_a_note(write, tmp_path):
    (tmp_path / ".ebextensions").mkdir()
    p = tmp_path / ".ebextensions" / "sqsd.config"
    p.write_text("option_settings:\n  aws:elasticbeanstalk:sqsd:\n    VisibilityTimeout: 600\n")
    m = load(str(p))
    (n,) = m.notes
    assert "no WorkerQueueURL" in n.message and m.pending == []
    p.write_text(
        "option_settings:\n  aws:elasticbeanstalk:sqsd:\n    VisibilityTimeout: soon\n    WorkerQueueURL: q\n"
    )
    with pytest.raises(VisguardError):
        load(str(p))
    p.write_text("option_settings: 3\n")
    with pytest.raises(VisguardError):
        load(str(p))


def test_ebextensions_queue_of_its_own_resources(tmp_path):
    (tmp_path / ".ebextensions").mkdir()
    p = tmp_path / ".ebextensions" / "queue.config"
    p.write_text(
        "Resources:\n  Jobs: {Type: AWS::SQS::Queue}\n"
        'option_settings:\n  aws:elasticbeanstalk:sqsd:\n    WorkerQueueURL: \'`{"Ref": "Jobs"}`\'\n'
    )
    m = load(str(p))
    assert one(m).platform == "beanstalk" and m.pending == []


# Issue 33: an sqsd option written as an .ebextensions function call (backticks, or a one-key mapping in a JSON
# config) has a value known only at deploy time, as a WorkerQueueURL's may: a note and the option left unchecked,
# never bad input. Each option, both forms, both option_settings layouts.
_DEPLOY_TIME = [
    ("map", '\'`{"Fn::GetOptionSetting": {"OptionName": "Vis", "DefaultValue": "60"}}`\''),
    ("map", '\'`{"Ref": "AWSEBEnvironmentName"}`\''),
    ("map", "{Fn::GetOptionSetting: {OptionName: Vis}}"),
    ("list", '\'`{"Fn::GetOptionSetting": {"OptionName": "Vis"}}`\''),
]


@pytest.mark.parametrize(
    "option", ["VisibilityTimeout", "InactivityTimeout", "HttpConnections", "MaxRetries"]
)
@pytest.mark.parametrize(("layout", "value"), _DEPLOY_TIME)
def test_ebextensions_sqsd_option_as_a_function_is_known_at_deploy_time(tmp_path, option, layout, value):
    from visguard import facts

    (tmp_path / ".ebextensions").mkdir()
    p = tmp_path / ".ebextensions" / "sqsd.config"
    url = "https://sqs.us-east-1.amazonaws.com/123456789012/jobs"
    if layout == "map":
        body = f"option_settings:\n  aws:elasticbeanstalk:sqsd:\n    WorkerQueueURL: {url}\n    {option}: {value}\n"
    else:
        body = (
            "option_settings:\n  - namespace: aws:elasticbeanstalk:sqsd\n    option_name: WorkerQueueURL\n"
            f"    value: {url}\n  - namespace: aws:elasticbeanstalk:sqsd\n    option_name: {option}\n"
            f"    value: {value}\n"
        )
    p.write_text(body)
    m = load(str(p))
    (c,) = m.pending
    field = facts.SQSD_OPTIONS[option][0]
    assert field in c.settings["unknown"]
    (n,) = [n for n in m.notes if option in n.message]
    assert "deploy time" in n.message and "\n" not in n.message
    assert n.location.line == (4 if layout == "map" else 7)


# Issue 33/35: a resource without a Type customises one of Elastic Beanstalk's own (AWSEBAutoScalingGroup:
# Metadata: ..., the documented pattern): valid, not read; the file's own resources keep their lines.
_CUSTOMISED = {
    "yaml, customisation only": (
        "Resources:\n  AWSEBAutoScalingGroup:\n    Metadata:\n      AWS::CloudFormation::Authentication:\n"
        "        S3Auth: {type: s3, buckets: [b]}\n"
        "option_settings:\n  aws:elasticbeanstalk:sqsd:\n    WorkerQueueURL: https://sqs.us-east-1.amazonaws.com/1/jobs\n",
        None,
    ),
    "yaml, customisation and own queue": (
        "Resources:\n  AWSEBLoadBalancer:\n    Properties: {CrossZone: true}\n  Jobs:\n    Type: AWS::SQS::Queue\n"
        'option_settings:\n  aws:elasticbeanstalk:sqsd:\n    WorkerQueueURL: \'`{"Ref": "Jobs"}`\'\n',
        4,
    ),
    "json, customisation and own queue": (
        '{"Resources": {"AWSEBAutoScalingGroup": {"Metadata": {"k": 1}},\n "Jobs": {"Type": "AWS::SQS::Queue"}},\n'
        ' "option_settings": {"aws:elasticbeanstalk:sqsd": {"WorkerQueueURL": {"Ref": "Jobs"}}}}\n',
        2,
    ),
}


@pytest.mark.parametrize("text,queue_line", _CUSTOMISED.values(), ids=_CUSTOMISED)
def test_ebextensions_customising_beanstalks_own_resources_is_valid(tmp_path, text, queue_line):
    (tmp_path / ".ebextensions").mkdir()
    p = tmp_path / ".ebextensions" / "custom.config"
    p.write_text(text)
    m = load(str(p))
    assert not [q for q in m.queues if q.startswith("AWSEB")]
    if queue_line is None:
        assert m.queues == {} and len(m.pending) == 1
    else:
        assert m.queues["Jobs"].location.line == queue_line and one(m).platform == "beanstalk"


# ------------------------------------------------------------------------------------------------ fixes
def _fix(path: str, field: str, value):
    m = load(path)
    c = next(iter(consumers(m).values()))
    ch = Change("consumer", c.id, field, value, c.location_of(field))
    f = Finding(rule="VG062", severity=Severity.WARNING, message="m", queue="q", location=Location(path, line=1),
                changes=(ch,))  # fmt: skip
    return fix_text(path, Path(path).read_text(), [f])


def test_fix_adds_stop_timeout_to_the_container_and_respects_the_fargate_maximum(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text((RULES / "vg062/cfn/fail-ecs.yaml").read_text())
    ff = _fix(str(path), "stop_timeout", 110)
    assert ff.skipped == [] and "          StopTimeout: 110\n" in ff.after
    path.write_text(ff.after)
    assert one(load(str(path))).stop_timeout == 110
    ff = _fix(str(path), "stop_timeout", 300)
    assert ff.after == ff.before and "Fargate" in ff.skipped[0][1]


def test_fix_beanstalk_option_in_place_appended_or_refused_for_a_parameter(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text((RULES / "vg060/cfn/fail-beanstalk-default.yaml").read_text())
    ff = _fix(str(path), "visibility_override", 900)
    assert '          OptionName: VisibilityTimeout\n          Value: "900"\n' in ff.after
    path.write_text(ff.after)
    assert one(load(str(path))).visibility_override == 900
    ff = _fix(str(path), "inactivity_timeout", 800)
    assert 'Value: "800"' in ff.after and 'Value: "240"' not in ff.after
    path.write_text(
        ff.after.replace('Value: "900"', "Value: !Ref Vt") + "Parameters:\n  Vt: {Type: String}\n"
    )
    ff = _fix(str(path), "visibility_override", 1000)
    assert ff.after == ff.before and "parameter Vt" in ff.skipped[0][1]


def test_fix_appends_to_a_json_option_list(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(
        '{"Resources": {"Q": {"Type": "AWS::SQS::Queue"}, "E": {"Type": "AWS::ElasticBeanstalk::Environment",'
        ' "Properties": {"Tier": {"Name": "Worker"}, "OptionSettings": [{"Namespace": "aws:elasticbeanstalk:sqsd",'
        ' "OptionName": "WorkerQueueURL", "Value": {"Ref": "Q"}}]}}}}'
    )
    ff = _fix(str(path), "visibility_override", 700)
    path.write_text(ff.after)
    assert one(load(str(path))).visibility_override == 700
