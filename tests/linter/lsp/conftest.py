"""A scratch workspace for the language server's tests: a template whose queue a Lambda mapping reads, and a
Terraform root with a queue that a Python worker in another folder receives from."""

from __future__ import annotations

import pytest

TEMPLATE = """\
AWSTemplateFormatVersion: "2010-09-09"
Resources:
  Orders:
    Type: AWS::SQS::Queue
    Properties:
      VisibilityTimeout: 200
      RedrivePolicy:
        deadLetterTargetArn: !GetAtt OrdersDLQ.Arn
        maxReceiveCount: 5
  OrdersDLQ:
    Type: AWS::SQS::Queue
    Properties:
      MessageRetentionPeriod: 1209600
  Handler:
    Type: AWS::Lambda::Function
    Properties:
      Runtime: python3.12
      Handler: app.handler
      Timeout: 30
      Role: arn:aws:iam::123456789012:role/x
      Code: {ZipFile: "def handler(e, c): pass"}
  Mapping:
    Type: AWS::Lambda::EventSourceMapping
    Properties:
      EventSourceArn: !GetAtt Orders.Arn
      FunctionName: !Ref Handler
      BatchSize: 1
"""

MAIN_TF = """\
resource "aws_sqs_queue" "jobs" {
  name                       = "jobs"
  visibility_timeout_seconds = 30
}
"""

WORKER = """\
import boto3

sqs = boto3.client("sqs")
URL = "https://sqs.eu-west-1.amazonaws.com/123456789012/jobs"


def poll():
    while True:
        out = sqs.receive_message(QueueUrl=URL, MaxNumberOfMessages=10, VisibilityTimeout=20)
        for m in out.get("Messages", []):
            sqs.delete_message(QueueUrl=URL, ReceiptHandle=m["ReceiptHandle"])
"""


@pytest.fixture
def workspace(tmp_path):
    (tmp_path / "template.yaml").write_text(TEMPLATE)
    (tmp_path / "infra").mkdir()
    (tmp_path / "infra" / "main.tf").write_text(MAIN_TF)
    (tmp_path / "worker").mkdir()
    (tmp_path / "worker" / "worker.py").write_text(WORKER)
    return tmp_path
