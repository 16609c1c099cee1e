"""CloudFormation stacks on moto's server for the owner tests (issue 39 §1): created through moto's
CloudFormation, so ListStacks / ListStackResources / GetTemplate answer as they do for real stacks.

In one account and region (not one of fleet.py's Organization, so the collector tests' counts stay theirs):
stack ``shop`` (a CDK-style template: ``aws:cdk:path`` metadata) with a queue, its DLQ, a Lambda function and
its event source mapping on the queue, and a nested stack with one more queue; a queue created by hand (no
owner); a stack created and deleted (DELETE_COMPLETE: not listed).
"""

from __future__ import annotations

import json

from . import fleet

ACCOUNT = "210987654321"
REGION = "eu-west-1"
BUCKET = "owners-templates"

CHILD = {
    "Resources": {
        "Inner": {
            "Type": "AWS::SQS::Queue",
            "Properties": {"QueueName": "inner", "VisibilityTimeout": 60},
            "Metadata": {"aws:cdk:path": "Shop/Nested/Inner/Resource"},
        }
    }
}
SHOP = {
    "Resources": {
        "OrdersDlq": {
            "Type": "AWS::SQS::Queue",
            "Properties": {"QueueName": "shop-orders-dlq", "MessageRetentionPeriod": 1209600},
            "Metadata": {"aws:cdk:path": "Shop/OrdersDlq/Resource"},
        },
        "Orders": {
            "Type": "AWS::SQS::Queue",
            "Properties": {
                "QueueName": "shop-orders",
                "VisibilityTimeout": 30,
                "RedrivePolicy": {
                    "deadLetterTargetArn": {"Fn::GetAtt": ["OrdersDlq", "Arn"]},
                    "maxReceiveCount": 5,
                },
            },
            "Metadata": {"aws:cdk:path": "Shop/Orders/Resource"},
        },
        "FnRole": {
            "Type": "AWS::IAM::Role",
            "Properties": {"AssumeRolePolicyDocument": {"Version": "2012-10-17", "Statement": []}},
        },
        "Handler": {
            "Type": "AWS::Lambda::Function",
            "Properties": {
                "Runtime": "python3.12",
                "Handler": "h.handler",
                "Timeout": 60,
                "Role": {"Fn::GetAtt": ["FnRole", "Arn"]},
                "Code": {"ZipFile": "def handler(e, c):\n    return {}\n"},
            },  # fmt: skip
        },
        "OrdersMapping": {
            "Type": "AWS::Lambda::EventSourceMapping",
            "Properties": {
                "EventSourceArn": {"Fn::GetAtt": ["Orders", "Arn"]},
                "FunctionName": {"Ref": "Handler"},
                "BatchSize": 10,
            },
            "Metadata": {"aws:cdk:path": "Shop/Handler/SqsEventSource/Resource"},
        },
        "Nested": {
            "Type": "AWS::CloudFormation::Stack",
            "Properties": {"TemplateURL": f"https://s3.amazonaws.com/{BUCKET}/child.json"},
        },
    }
}


def build(endpoint: str, account: str = ACCOUNT, region: str = REGION) -> dict:
    """Create the stacks and the hand-made queue; returns the names and ids the tests assert."""
    s = fleet.session_for(endpoint, account, region)
    s3 = s.client("s3", endpoint_url=endpoint, region_name="us-east-1")
    s3.create_bucket(Bucket=BUCKET)
    s3.put_object(Bucket=BUCKET, Key="child.json", Body=json.dumps(CHILD).encode())
    cfn = s.client("cloudformation", endpoint_url=endpoint)
    gone = cfn.create_stack(StackName="retired", TemplateBody=json.dumps(
        {"Resources": {"Old": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": "retired-q"}}}}
    ))["StackId"]  # fmt: skip
    cfn.delete_stack(StackName=gone)
    shop = cfn.create_stack(StackName="shop", TemplateBody=json.dumps(SHOP))["StackId"]
    stacks = {st["StackName"]: st["StackId"] for st in cfn.list_stacks()["StackSummaries"]
              if st["StackStatus"] != "DELETE_COMPLETE"}  # fmt: skip
    nested = next(n for n in stacks if n.startswith("shop-Nested-"))
    sqs = s.client("sqs", endpoint_url=endpoint)
    manual = sqs.create_queue(QueueName="made-by-hand")["QueueUrl"]
    mapping = next(
        r["PhysicalResourceId"]
        for r in cfn.list_stack_resources(StackName=shop)["StackResourceSummaries"]
        if r["LogicalResourceId"] == "OrdersMapping"
    )
    return {
        "account": account,
        "region": region,
        "shop": shop,
        "nested": nested,
        "nested_id": stacks[nested],
        "mapping": mapping,
        "manual_url": manual,
    }


def arn(name: str, account: str = ACCOUNT, region: str = REGION) -> str:
    return f"arn:aws:sqs:{region}:{account}:{name}"
