"""Shapes public serverless services use for SQS -> Lambda (learned from reading public services, written here
from scratch), each with the findings it must give."""

from __future__ import annotations

from .conftest import lint


def _rules(model):
    return sorted((f.rule, f.queue, f.consumer) for f in lint(model))


def test_v1_style_names_and_join_arn(service):
    """service: {name: ...}, ${self:provider.stage}, an ARN built with Fn::Join, the DLQ ARN kept in custom."""
    m = service("""
        service:
          name: billing
        provider:
          name: aws
          stage: ${opt:stage, 'dev'}
          region: ${opt:region, 'us-east-1'}
          timeout: 60
        custom:
          queueName: ${self:service.name}-${self:provider.stage}-charges
          dlqArn:
            Fn::GetAtt: [ChargesDLQ, Arn]
        functions:
          charge:
            handler: handler.charge
            events:
              - sqs:
                  arn:
                    Fn::Join:
                      - ":"
                      - - arn
                        - aws
                        - sqs
                        - Ref: AWS::Region
                        - Ref: AWS::AccountId
                        - ${self:custom.queueName}
                  batchSize: 1
        resources:
          Resources:
            ChargesQueue:
              Type: AWS::SQS::Queue
              Properties:
                QueueName: ${self:custom.queueName}
                VisibilityTimeout: 60
                RedrivePolicy:
                  deadLetterTargetArn: ${self:custom.dlqArn}
                  maxReceiveCount: 3
            ChargesDLQ:
              Type: AWS::SQS::Queue
              Properties:
                MessageRetentionPeriod: 1209600
    """)
    q = m.queues["ChargesQueue"]
    assert q.name == "billing-dev-charges" and q.redrive.target == "ChargesDLQ"
    assert q.consumers[0].id == "functions.charge.events[0]"
    assert _rules(m) == [
        ("VG011", "ChargesQueue", "functions.charge.events[0]"),
        ("VG021", "ChargesQueue", "functions.charge.events[0]"),
    ]


def test_resources_section_from_a_file_key(service):
    """resources: {Resources: ${file(./resources/sqs.yml):Resources}, Outputs: ...}"""
    m = service(
        """
        service: s
        provider: {name: aws, runtime: nodejs20.x}
        functions:
          process:
            handler: src/process.handler
            timeout: 25
            events:
              - sqs:
                  arn: {"Fn::GetAtt": [ProcessQueue, Arn]}
                  batchSize: 10
                  functionResponseType: ReportBatchItemFailures
        resources:
          Resources: ${file(./resources/sqs.yml):Resources}
          Outputs:
            ProcessQueueUrl: {Value: {Ref: ProcessQueue}}
        """,
        files={
            "resources/sqs.yml": """\
                Resources:
                  ProcessQueue:
                    Type: AWS::SQS::Queue
                    Properties:
                      VisibilityTimeout: 150
                      RedrivePolicy:
                        deadLetterTargetArn: {"Fn::GetAtt": [ProcessDLQ, Arn]}
                        maxReceiveCount: 5
                  ProcessDLQ:
                    Type: AWS::SQS::Queue
                    Properties: {MessageRetentionPeriod: 1209600}
                """
        },
    )
    assert _rules(m) == []  # 150 s = 6 x 25 s: right


def test_imported_queue_is_not_this_services(service):
    m = service("""
        service: s
        provider: {name: aws}
        functions:
          consume:
            handler: h.c
            events:
              - sqs: {arn: {"Fn::ImportValue": shared-orders-queue-arn}}
              - sqs: arn:aws:sqs:us-east-1:123456789012:someone-elses-queue
    """)
    assert m.queues == {}  # not this service's queues; each mapping is judged alone on its batches
    assert sorted((f.rule, f.queue) for f in lint(m)) == [
        ("VG031", "arn:aws:sqs:us-east-1:123456789012:someone-elses-queue"),
        ("VG031", "shared-orders-queue-arn"),
    ]
    assert {str(c.queue_ref) for c in m.pending} == {
        "shared-orders-queue-arn",
        "arn:aws:sqs:us-east-1:123456789012:someone-elses-queue",
    }


def test_fifo_queue_with_a_batching_window(service):
    m = service("""
        service: s
        provider: {name: aws}
        functions:
          ordered:
            handler: h.o
            timeout: 10
            events:
              - sqs:
                  arn: !GetAtt Ordered.Arn
                  batchSize: 10
                  maximumBatchingWindow: 5
                  functionResponseType: ReportBatchItemFailures
        resources:
          Resources:
            Ordered:
              Type: AWS::SQS::Queue
              Properties:
                FifoQueue: true
                QueueName: ordered.fifo
                VisibilityTimeout: 65
                RedrivePolicy: {deadLetterTargetArn: !GetAtt OrderedDLQ.Arn, maxReceiveCount: 5}
            OrderedDLQ:
              Type: AWS::SQS::Queue
              Properties: {FifoQueue: true, QueueName: ordered-dlq.fifo}
    """)
    (f,) = lint(m)
    assert f.rule == "VG030" and f.location.path == "functions.ordered.events[0].sqs.maximumBatchingWindow"
    assert "functions.ordered.events[0].sqs.maximumBatchingWindow" in f.fix
    # the event's own key, not CloudFormation's
    assert "MaximumBatchingWindowInSeconds" not in f.message + f.fix


def test_one_function_two_queues_and_a_stage_param(service):
    m = service(
        """
        service: s
        stages:
          default:
            params: {workerTimeout: 30}
        provider: {name: aws}
        functions:
          worker:
            handler: h.w
            timeout: ${param:workerTimeout}
            events:
              - sqs: {arn: !GetAtt High.Arn, batchSize: 1}
              - sqs: {arn: !GetAtt Low.Arn, batchSize: 1}
        resources:
          Resources:
            High:
              Type: AWS::SQS::Queue
              Properties: {VisibilityTimeout: 180, RedrivePolicy: {deadLetterTargetArn: !GetAtt Dlq.Arn, maxReceiveCount: 5}}
            Low:
              Type: AWS::SQS::Queue
              Properties: {VisibilityTimeout: 30, RedrivePolicy: {deadLetterTargetArn: !GetAtt Dlq.Arn, maxReceiveCount: 5}}
            Dlq:
              Type: AWS::SQS::Queue
              Properties: {MessageRetentionPeriod: 1209600}
        """
    )
    assert _rules(m) == [("VG011", "Low", "functions.worker.events[1]")]
    (f,) = lint(m)
    assert f.location.path == "resources.Resources.Low.Properties.VisibilityTimeout"


def test_functions_split_into_files(service):
    """functions: [${file(./foo-functions.yml)}, ...] (Serverless Framework docs, "Functions")."""
    m = service(
        """
        service: s
        provider: {name: aws, timeout: 40}
        functions:
          - ${file(./functions/orders.yml)}
          - ${file(./functions/emails.yml)}
        resources:
          Resources:
            Orders: {Type: AWS::SQS::Queue, Properties: {VisibilityTimeout: 240}}
            Emails: {Type: AWS::SQS::Queue, Properties: {VisibilityTimeout: 60}}
        """,
        files={
            "functions/orders.yml": "ordersWorker:\n  handler: o.h\n  events:\n    - sqs: {arn: !GetAtt Orders.Arn, batchSize: 1}\n",
            "functions/emails.yml": "emailsWorker:\n  handler: e.h\n  events:\n    - sqs: {arn: !GetAtt Emails.Arn, batchSize: 1}\n",
        },
    )
    assert [c.id for c in m.queues["Orders"].consumers] == ["functions.ordersWorker.events[0]"]
    f = next(f for f in lint(m) if f.rule == "VG011")
    assert f.queue == "Emails" and f.consumer == "functions.emailsWorker.events[0]"


def test_sub_arn_mixing_serverless_and_cloudformation_variables(service):
    m = service("""
        service: mailer
        provider: {name: aws, stage: prod, timeout: 15}
        custom:
          queueName: ${self:service}-${self:provider.stage}-outbox
        functions:
          send:
            handler: h.send
            events:
              - sqs:
                  arn: !Sub "arn:aws:sqs:${AWS::Region}:${AWS::AccountId}:${self:custom.queueName}"
                  batchSize: 1
        resources:
          Resources:
            Outbox:
              Type: AWS::SQS::Queue
              Properties:
                QueueName: ${self:custom.queueName}
                VisibilityTimeout: 30
                RedrivePolicy: {deadLetterTargetArn: !GetAtt OutboxDLQ.Arn, maxReceiveCount: 5}
            OutboxDLQ:
              Type: AWS::SQS::Queue
              Properties: {MessageRetentionPeriod: 1209600}
    """)
    assert [c.id for c in m.queues["Outbox"].consumers] == ["functions.send.events[0]"]
    assert _rules(m) == [("VG011", "Outbox", "functions.send.events[0]")]


def test_the_sns_sqs_lambda_plugin_makes_a_queue_its_dlq_and_the_mapping(service):
    """``snsSqs`` of @agiledigital/serverless-sns-sqs-lambda: ``<name>Queue`` named ``<service>-<stage>-<Function>
    <name>Queue``, its ``<name>DeadLetterQueue`` and a redrive of ``maxRetryCount`` (5 when not written), the
    mapping's batch (10 when not written); the values located at their keys of the event. Without the plugin in
    ``plugins`` the event is another plugin's: nothing is read."""
    m = service("""
        service: billing
        provider: {name: aws, stage: prod, timeout: 60}
        plugins:
          - "@agiledigital/serverless-sns-sqs-lambda"
        functions:
          charge-card:
            handler: h.charge
            events:
              - snsSqs:
                  name: Payments
                  topicArn: arn:aws:sns:eu-west-1:123456789012:payments
                  visibilityTimeout: 60
                  maxRetryCount: 2
              - snsSqs:
                  name: Refunds
                  topicArn: arn:aws:sns:eu-west-1:123456789012:refunds
                  batchSize: 1
                  deadLetterQueueEnabled: false
    """)
    q = m.queues["PaymentsQueue"]
    assert (q.name, q.visibility_timeout, q.redrive.max_receive_count) == (
        "billing-prod-ChargeCardPaymentsQueue",
        60,
        2,
    )
    assert q.redrive.target == "PaymentsDeadLetterQueue" and q.location_of("visibility_timeout").line == 13
    (c,) = q.consumers
    assert (c.kind, c.batch_size, c.function_timeout) == ("lambda", 10, 60)
    refunds = m.queues["RefundsQueue"]
    assert refunds.redrive is None and [x.batch_size for x in refunds.consumers] == [1]
    assert "RefundsDeadLetterQueue" not in m.queues
    assert sorted((f.rule, f.queue) for f in lint(m)) == [
        ("VG010", "RefundsQueue"),  # SQS's 30 s < the 60 s function timeout
        ("VG011", "PaymentsQueue"),  # 60 s < 6 x 60 s
        ("VG020", "RefundsQueue"),  # consumed, no redrive (deadLetterQueueEnabled: false)
        ("VG021", "PaymentsQueue"),  # maxRetryCount 2 with a Lambda consumer
        ("VG022", "PaymentsQueue"),  # the DLQ keeps SQS's 4 days, as its source does
        ("VG031", "PaymentsQueue"),  # batches of 10 without ReportBatchItemFailures
    ]


def test_an_sns_sqs_event_without_its_plugin_is_not_read(service):
    m = service("""
        service: billing
        provider: {name: aws}
        functions:
          charge:
            handler: h.charge
            events:
              - snsSqs: {name: Payments, topicArn: arn:aws:sns:eu-west-1:123456789012:payments}
    """)
    assert m.queues == {}
