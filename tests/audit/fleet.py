"""A small Organization on moto's server with known defects (the end-to-end collector tests' fleet).

Accounts: the management account and three members, two regions. EXPECTED lists the findings the audit must
report (rule, queue name) and why.
"""

from __future__ import annotations

import io
import json
import zipfile

import boto3
import requests

MANAGEMENT = "123456789012"
REGIONS = ["us-east-1", "eu-west-1"]
ROLE = "OrganizationAccountAccessRole"

# (rule, queue name): the defect each queue was built with
EXPECTED = {
    ("VG010", "orders"),  # VT 30 < fn-orders timeout 60: the mapping could not even be created today
    ("VG031", "orders"),  # batch 10 without ReportBatchItemFailures
    ("VG011", "payments"),  # 60 <= VT 200 < 6 x 60
    ("VG020", "payments"),  # Lambda consumer, no redrive policy
    ("VG021", "billing.fifo"),  # maxReceiveCount 3 with a Lambda consumer
    ("VG022", "events"),  # DLQ keeps 4 days, like its source
    ("VG030", "thumbnails"),  # batch 100 without a batching window
    ("VG012", "reports"),  # workers with p99 120 s on a 60 s visibility timeout
    (
        "VG020",
        "reports",
    ),  # workers (an ECS service names it; its tags declare the profile), no redrive policy
    ("VG062", "reports"),  # the ECS service's stopTimeout 30 s < the declared p99 120 s: killed mid-message
    ("VG033", "audit-trail"),  # reserved concurrency 2
    ("VG020", "audit-trail"),  # Lambda consumer, no redrive policy
}


def _zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("handler.py", "def handler(event, context):\n    return {}\n")
    return buf.getvalue()


def session_for(endpoint: str, account: str, region: str = "us-east-1") -> boto3.Session:
    base = boto3.Session(region_name=region)
    if account == MANAGEMENT:
        return base
    sts = base.client("sts", endpoint_url=endpoint)
    c = sts.assume_role(RoleArn=f"arn:aws:iam::{account}:role/{ROLE}", RoleSessionName="seed")["Credentials"]
    return boto3.Session(
        aws_access_key_id=c["AccessKeyId"],
        aws_secret_access_key=c["SecretAccessKey"],
        aws_session_token=c["SessionToken"],
        region_name=region,
    )


class Seeder:
    def __init__(self, endpoint: str, account: str, region: str):
        s = session_for(endpoint, account, region)
        self.sqs = s.client("sqs", endpoint_url=endpoint)
        self.lam = s.client("lambda", endpoint_url=endpoint)
        self.iam = s.client("iam", endpoint_url=endpoint)
        self.ecs = s.client("ecs", endpoint_url=endpoint)
        self.pipes = s.client("pipes", endpoint_url=endpoint)
        self.account, self.region = account, region
        self._role = None

    def queue(self, name: str, **attrs) -> tuple[str, str]:
        attrs = {k: (json.dumps(v) if isinstance(v, dict) else str(v)) for k, v in attrs.items()}
        if name.endswith(".fifo"):
            attrs["FifoQueue"] = "true"
        url = self.sqs.create_queue(QueueName=name, Attributes=attrs)["QueueUrl"]
        arn = self.sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"][
            "QueueArn"
        ]
        return url, arn

    def role(self) -> str:
        if self._role is None:
            doc = {
                "Version": "2012-10-17",
                "Statement": [
                    {
                        "Effect": "Allow",
                        "Principal": {"Service": "lambda.amazonaws.com"},
                        "Action": "sts:AssumeRole",
                    }
                ],
            }
            try:
                self._role = self.iam.create_role(
                    RoleName="fn-role", AssumeRolePolicyDocument=json.dumps(doc)
                )["Role"]["Arn"]
            except self.iam.exceptions.EntityAlreadyExistsException:
                self._role = self.iam.get_role(RoleName="fn-role")["Role"]["Arn"]
        return self._role

    def function(self, name: str, timeout: int, reserved: int | None = None) -> str:
        arn = self.lam.create_function(
            FunctionName=name, Runtime="python3.12", Role=self.role(), Handler="handler.handler",
            Code={"ZipFile": _zip()}, Timeout=timeout,
        )["FunctionArn"]  # fmt: skip
        if reserved is not None:
            self.lam.put_function_concurrency(FunctionName=name, ReservedConcurrentExecutions=reserved)
        return arn

    def mapping(
        self, queue_arn: str, fn: str, batch: int = 10, window: int | None = None, partial: bool = False,
        metrics: bool = False,
    ) -> None:  # fmt: skip
        kw = {"EventSourceArn": queue_arn, "FunctionName": fn, "BatchSize": batch}
        if window is not None:
            kw["MaximumBatchingWindowInSeconds"] = window
        if partial:
            kw["FunctionResponseTypes"] = ["ReportBatchItemFailures"]
        if metrics:  # the mapping's own event counts (issue 36)
            kw["MetricsConfig"] = {"Metrics": ["EventCount"]}
        self.lam.create_event_source_mapping(**kw)

    def ecs_worker(self, name: str, env: dict[str, str], stop_timeout: int) -> None:
        self.ecs.create_cluster(clusterName="workers")
        td = self.ecs.register_task_definition(
            family=name,
            containerDefinitions=[
                {"name": "app", "image": "app:1", "memory": 512, "stopTimeout": stop_timeout,
                 "environment": [{"name": k, "value": v} for k, v in env.items()]}
            ],
        )["taskDefinition"]["taskDefinitionArn"]  # fmt: skip
        self.ecs.create_service(cluster="workers", serviceName=name, taskDefinition=td, desiredCount=2)

    def pipe(self, name: str, queue_arn: str, target: str) -> None:
        self.pipes.create_pipe(
            Name=name, RoleArn=self.role(), Source=queue_arn, Target=target,
            SourceParameters={"SqsQueueParameters": {"BatchSize": 10}},
        )  # fmt: skip


def redrive(dlq_arn: str, mrc: int) -> dict:
    return {"RedrivePolicy": {"deadLetterTargetArn": dlq_arn, "maxReceiveCount": mrc}}


def build(endpoint: str) -> list[str]:
    """Reset moto and build the Organization; returns the account ids (management first)."""
    requests.post(f"{endpoint}/moto-api/reset", timeout=10)
    org = boto3.client("organizations", endpoint_url=endpoint, region_name="us-east-1")
    org.create_organization(FeatureSet="ALL")
    members = []
    for name in ("team-b", "team-c", "team-d"):
        st = org.create_account(AccountName=name, Email=f"{name}@example.com")["CreateAccountStatus"]
        members.append(st["AccountId"])
    b, c, d = members

    s = Seeder(endpoint, b, "us-east-1")
    _, dlq = s.queue("orders-dlq", MessageRetentionPeriod=1_209_600)
    _, q = s.queue("orders", VisibilityTimeout=30, **redrive(dlq, 5))
    s.mapping(q, s.function("fn-orders", 60), batch=10)
    _, q = s.queue("payments", VisibilityTimeout=200)
    s.mapping(q, s.function("fn-pay", 60), batch=1)
    _, dlq = s.queue("billing-dlq.fifo", MessageRetentionPeriod=1_209_600)
    _, q = s.queue("billing.fifo", VisibilityTimeout=180, **redrive(dlq, 3))
    s.mapping(q, s.function("fn-bill", 30), batch=10, partial=True)
    s.queue("idle", VisibilityTimeout=30)

    s = Seeder(endpoint, b, "eu-west-1")
    _, dlq = s.queue("events-dlq", MessageRetentionPeriod=345_600)
    s.queue("events", VisibilityTimeout=30, MessageRetentionPeriod=345_600, **redrive(dlq, 10))

    s = Seeder(endpoint, c, "us-east-1")
    _, dlq = s.queue("thumbnails-dlq", MessageRetentionPeriod=1_209_600)
    _, q = s.queue("thumbnails", VisibilityTimeout=900, **redrive(dlq, 5))
    s.mapping(q, s.function("fn-thumb", 120), batch=100, partial=True, metrics=True)

    s = Seeder(endpoint, d, "us-east-1")
    url, _ = s.queue("reports", VisibilityTimeout=60)
    s.sqs.tag_queue(
        QueueUrl=url,
        Tags={
            "visguard:consumer": "worker",
            "visguard:processing-p50": "5",
            "visguard:processing-p99": "120",
        },
    )
    s.ecs_worker("reports-worker", {"REPORTS_QUEUE_URL": url}, stop_timeout=30)
    s = Seeder(endpoint, d, "eu-west-1")
    _, dlq = s.queue("ingest-dlq", MessageRetentionPeriod=1_209_600)
    _, q = s.queue("ingest", VisibilityTimeout=30, **redrive(dlq, 5))
    s.pipe("ingest-pipe", q, s.function("fn-ingest", 10))  # 10 s target on a 30 s queue: nothing to report

    s = Seeder(endpoint, MANAGEMENT, "us-east-1")
    _, q = s.queue("audit-trail", VisibilityTimeout=60)
    s.mapping(q, s.function("fn-rc", 10, reserved=2), batch=1)
    return [MANAGEMENT, b, c, d]
