"""Serverless variables: self, opt, sls, env, param, file, strToBool, nesting, fallbacks; what is not resolved
(and why) is recorded once per value, never guessed; cycles and blow-ups are bad input."""

from __future__ import annotations

import os

import pytest
from visguard.errors import VisguardError

from .conftest import lint

QUEUE_AND_WORKER = """
service: orders
provider:
  name: aws
  stage: ${opt:stage, 'dev'}
custom:
  %s
functions:
  worker:
    handler: h.main
    timeout: %s
    events:
      - sqs:
          arn: !GetAtt OrdersQueue.Arn
          functionResponseType: ReportBatchItemFailures
resources:
  Resources:
    OrdersQueue:
      Type: AWS::SQS::Queue
      Properties:
        VisibilityTimeout: %s
        RedrivePolicy: {deadLetterTargetArn: !GetAtt OrdersDLQ.Arn, maxReceiveCount: 5}
    OrdersDLQ:
      Type: AWS::SQS::Queue
      Properties: {MessageRetentionPeriod: 1209600}
"""


def _svc(custom="x: 1", timeout="30", vt="180"):
    return QUEUE_AND_WORKER % (custom, timeout, vt)


def _consumer(model):
    return model.queues["OrdersQueue"].consumers[0]


def test_self_references_resolve_through_each_other(service):
    m = service(_svc("base: 40\n  workerTimeout: ${self:custom.base}\n  vt: ${self:custom.missing, 300}",
                     "${self:custom.workerTimeout}", "${self:custom.vt}"))  # fmt: skip
    assert _consumer(m).function_timeout == 40
    assert m.queues["OrdersQueue"].visibility_timeout == 300
    assert m.notes == []


def test_opt_defaults_and_var_overrides(service):
    text = _svc("timeouts: {dev: 10, prod: 90}", "${self:custom.timeouts.${sls:stage}}", "${opt:vt, 200}")
    dev = service(text)
    assert _consumer(dev).function_timeout == 10 and dev.queues["OrdersQueue"].visibility_timeout == 200
    prod = service(text, variables={"stage": "prod", "opt:vt": "400"})
    assert _consumer(prod).function_timeout == 90 and prod.queues["OrdersQueue"].visibility_timeout == 400


def test_sls_stage_falls_back_to_provider_stage_then_dev(service):
    m = service("""
        service: s
        provider: {name: aws, stage: staging}
        resources:
          Resources:
            Q:
              Type: AWS::SQS::Queue
              Properties: {QueueName: "q-${sls:stage}"}
    """)
    assert m.queues["Q"].name == "q-staging"
    m = service("""
        service: s
        provider: {name: aws}
        resources:
          Resources:
            Q: {Type: AWS::SQS::Queue, Properties: {QueueName: "q-${sls:stage}-${aws:region}"}}
    """)
    assert m.queues["Q"].name == "q-dev-us-east-1"


def test_env_uses_the_written_default_and_never_the_process_environment(service, monkeypatch):
    monkeypatch.setenv("WORKER_TIMEOUT", "700")
    monkeypatch.setenv("QUEUE_VT", "AKIAEXAMPLESECRET")
    m = service(_svc(timeout="${env:WORKER_TIMEOUT, 30}", vt="${env:QUEUE_VT}"))
    assert _consumer(m).function_timeout == 30  # the default, not the 700 in the environment
    q = m.queues["OrdersQueue"]
    assert q.visibility_timeout == "${env:QUEUE_VT}"  # unresolved: the rules stay quiet
    assert "AKIAEXAMPLESECRET" not in repr(m.queues) + repr(m.notes)
    (note,) = m.notes
    assert note.text == "${env:QUEUE_VT}" and "--var env:QUEUE_VT=VALUE" in note.message
    assert note.location.path == "resources.Resources.OrdersQueue.Properties.VisibilityTimeout"
    assert note.location.line == 21
    assert [f.rule for f in lint(m)] == []
    given = service(_svc(timeout="${env:WORKER_TIMEOUT, 30}", vt="${env:QUEUE_VT}"),
                    variables={"env:WORKER_TIMEOUT": "60", "env:QUEUE_VT": "100"})  # fmt: skip
    assert _consumer(given).function_timeout == 60
    assert [f.rule for f in lint(given)] == ["VG011"]


def test_params_by_stage(service):
    text = """
        service: s
        stages:
          default: {params: {vt: 60}}
          prod: {params: {vt: 900}}
        provider: {name: aws}
        resources:
          Resources:
            Q: {Type: AWS::SQS::Queue, Properties: {VisibilityTimeout: "${param:vt}"}}
    """
    assert service(text).queues["Q"].visibility_timeout == 60
    assert service(text, variables={"stage": "prod"}).queues["Q"].visibility_timeout == 900
    assert service(text, variables={"param:vt": "5"}).queues["Q"].visibility_timeout == 5


def test_file_includes_with_nested_variables_keep_their_own_lines(service, tmp_path):
    m = service(
        """
        service: orders
        provider: {name: aws}
        custom: ${file(./config/${opt:stage, 'dev'}.yml)}
        functions:
          worker:
            handler: h.main
            timeout: ${self:custom.workerTimeout}
            events:
              - sqs: {arn: !GetAtt OrdersQueue.Arn, batchSize: 1}
        resources:
          - ${file(./resources/queues.yml)}
        """,
        files={
            "config/dev.yml": "workerTimeout: 60\nvisibility: 120\n",
            "resources/queues.yml": """\
                Resources:
                  OrdersQueue:
                    Type: AWS::SQS::Queue
                    Properties:
                      VisibilityTimeout: ${self:custom.visibility}
                      RedrivePolicy:
                        deadLetterTargetArn: !GetAtt OrdersDLQ.Arn
                        maxReceiveCount: 5
                  OrdersDLQ:
                    Type: AWS::SQS::Queue
                    Properties: {MessageRetentionPeriod: 1209600}
                """,
        },
    )
    q = m.queues["OrdersQueue"]
    assert q.visibility_timeout == 120 and _consumer(m).function_timeout == 60
    (f,) = lint(m)
    assert f.rule == "VG011"
    assert f.location.file == str(tmp_path / "resources" / "queues.yml") and f.location.line == 5
    assert f.fix.startswith(
        "Set resources[0].Resources.OrdersQueue.Properties.VisibilityTimeout to at least 360 s"
    )


def test_file_include_outside_the_service_folder_is_not_read(service, tmp_path):
    outside = tmp_path.parent / "secret.yml"
    outside.write_text("vt: 5\n")
    (tmp_path / "link.yml").symlink_to(outside)
    m = service(_svc("a: ${file(../secret.yml):vt}\n  b: ${file(./link.yml):vt}\n  c: ${file(/etc/hostname)}",
                     "30", "${self:custom.b}"))  # fmt: skip
    assert m.queues["OrdersQueue"].visibility_timeout == "${file(./link.yml):vt}"
    assert any("outside the service folder" in n.why for n in m.notes)


def test_missing_file_takes_the_fallback(service):
    m = service(_svc(vt="${file(./nope.yml):vt, 240}"))
    assert m.queues["OrdersQueue"].visibility_timeout == 240


@pytest.mark.parametrize(
    "value, why",
    [
        ("${ssm:/orders/vt}", "SSM parameter"),
        ("${ssm:/orders/vt, 180}", "SSM parameter"),  # a fallback is not a guess of what SSM holds
        ("${cf:other-stack.QueueVisibility}", "CloudFormation stack output"),
        ("${aws:ssm:/x}", "AWS"),
        ("${file(./values.js):vt}", "JavaScript"),
        ("${madeup:thing}", "unknown variable source"),
        ("${self:custom.nothere}", "no value"),
    ],
)
def test_unresolvable_values_are_reported_once_and_never_guessed(service, value, why):
    other = (
        f"    Other:\n      Type: AWS::SQS::Queue\n      Properties:\n        VisibilityTimeout: {value}\n"
    )
    m = service(_svc(vt=value) + other)
    q = m.queues["OrdersQueue"]
    assert isinstance(q.visibility_timeout, str) and "${" in q.visibility_timeout
    notes = [n for n in m.notes if n.location.path.endswith("OrdersQueue.Properties.VisibilityTimeout")]
    assert len(notes) == 1 and why in notes[0].why
    assert len(m.notes) == 2  # one per value where it is used
    assert [f.rule for f in lint(m)] == []


def test_partly_unresolved_arn_still_finds_the_queue_by_name(service):
    m = service("""
        service: orders
        provider: {name: aws, region: eu-west-1}
        functions:
          worker:
            handler: h.main
            timeout: 60
            events:
              - sqs: arn:aws:sqs:${aws:region}:${aws:accountId}:${self:service}-${sls:stage}-jobs
        resources:
          Resources:
            Jobs:
              Type: AWS::SQS::Queue
              Properties: {QueueName: "${self:service}-${sls:stage}-jobs", VisibilityTimeout: 60}
    """)
    c = m.queues["Jobs"].consumers[0]
    assert c.id == "functions.worker.events[0]" and c.function_timeout == 60
    assert m.notes == []  # the account id inside an ARN is not worth a note
    assert {f.rule for f in lint(m)} >= {"VG011", "VG020", "VG031"}


def test_str_to_bool_and_enabled(service):
    m = service("""
        service: s
        provider: {name: aws}
        custom: {flag: "false"}
        functions:
          w:
            handler: h.m
            events:
              - sqs: {arn: !GetAtt Q.Arn, enabled: "${strToBool(${self:custom.flag})}"}
        resources:
          Resources:
            Q: {Type: AWS::SQS::Queue}
    """)
    assert m.queues["Q"].consumers[0].enabled is False


def test_circular_references_are_bad_input(service):
    with pytest.raises(VisguardError, match=r"circular variable reference: custom.a -> custom.b -> custom.a"):
        service(_svc("a: ${self:custom.b}\n  b: ${self:custom.a}", "${self:custom.a}"))


def test_circular_file_includes_are_bad_input(service):
    with pytest.raises(VisguardError, match="circular"):
        service(_svc(vt="${file(./a.yml):vt}"), files={"a.yml": "vt: ${file(./a.yml):vt}\n"})


def test_exponential_self_references_are_bounded(service):
    lines = ["l0: xxxxxxxxxxxxxxxx"] + [f"l{i}: ${{self:custom.l{i - 1}}}${{self:custom.l{i - 1}}}" for i in
                                          range(1, 40)]  # fmt: skip
    with pytest.raises(VisguardError, match="more than"):
        service(_svc("\n  ".join(lines), "30", "${self:custom.l39}"))


def test_deep_variable_chains_are_bounded(service):
    lines = ["v0: 1"] + [f"v{i}: ${{self:custom.v{i - 1}}}" for i in range(1, 200)]
    with pytest.raises(VisguardError, match="nested more than"):
        service(_svc("\n  ".join(lines), "30", "${self:custom.v199}"))


def test_cloudformation_sub_variables_are_left_alone(service):
    m = service("""
        service: s
        provider: {name: aws}
        resources:
          Resources:
            Q:
              Type: AWS::SQS::Queue
              Properties:
                QueueName: !Sub "${AWS::StackName}-q"
                RedrivePolicy:
                  deadLetterTargetArn: !Sub "arn:aws:sqs:${AWS::Region}:${AWS::AccountId}:${self:service}-dlq"
                  maxReceiveCount: 5
            D: {Type: AWS::SQS::Queue, Properties: {QueueName: s-dlq}}
    """)
    assert m.queues["Q"].redrive.target == "D"
    assert os.environ.get("AWS_SECRET_ACCESS_KEY") is None or m.notes == []


def test_variable_syntax_edges(service):
    from visguard.linter.loaders.serverless_vars import split_variables

    assert split_variables("a-${AWS::Region}-${Queue.Arn}") == ["a-${AWS::Region}-${Queue.Arn}"]  # Fn::Sub's
    assert split_variables("x${self:a.${opt:b}}y") == ["x", ("var", "self:a.${opt:b}"), "y"]
    assert split_variables("${unbalanced") == ["${unbalanced"]
    m = service(_svc("list: 'a,b'", '${opt:t, self:provider.nothere, "45"}', "${opt:v, 120}"))
    assert _consumer(m).function_timeout == 45 and m.queues["OrdersQueue"].visibility_timeout == 120
    with pytest.raises(VisguardError, match="VisibilityTimeout: expected a number, got 'one, two'"):
        service(_svc(vt="${opt:v, 'one, two'}"))  # a quoted default with a comma is one literal


def test_self_reference_to_the_whole_section_and_list_items(service):
    m = service(_svc("timeouts: [10, 20, 30]\n  vis: {orders: 180}", "${self:custom.timeouts.2}",
                     "${self:custom.vis.orders}"))  # fmt: skip
    assert _consumer(m).function_timeout == 30 and m.queues["OrdersQueue"].visibility_timeout == 180
