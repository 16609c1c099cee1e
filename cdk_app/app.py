"""The sample CDK app (``cdk.json`` at the repo root runs ``python -P -m visguard.cdk_app``).

Three stacks of a small shop:
- ``VisguardOrders``: the order pipeline (a GuardedQueue with a Lambda consumer, DLQ and alarms to an SNS
  topic) and a FIFO payments queue; plus one legacy plain ``aws_sqs.Queue`` whose 60 s visibility timeout is
  shorter than its consumer needs (6 x its 30 s function timeout = 180 s): ``VisGuardChecks`` reports it as
  VG011 in the validation report.
- ``VisguardMedia``: the seed-002 video-encoding queue for an EC2 worker fleet (encodes take 40 min typically and
  up to 6 h; a heartbeat every 15 min extends visibility by 30 min, so the derived timeout is 30 min).
- ``VisguardAudit``: the read-only role the fleet collector assumes.
"""

from __future__ import annotations

from aws_cdk import App, Duration, Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_event_sources as event_sources
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sqs as sqs
from visguard.constructs import AuditRole, GuardedQueue, VisGuardChecks, add_checks

from constructs import Construct

HANDLER = """
def handler(event, context):
    failures = []
    for record in event["Records"]:
        try:
            process(record["body"])
        except Exception:
            failures.append({"itemIdentifier": record["messageId"]})
    return {"batchItemFailures": failures}


def process(body):
    return body
"""

# Example account ids (AWS documentation's reserved examples); context keys override them.
AUDIT_ACCOUNT = "111122223333"


def _function(scope: Construct, id: str, timeout: int) -> lambda_.Function:
    return lambda_.Function(
        scope,
        id,
        runtime=lambda_.Runtime.PYTHON_3_12,
        handler="index.handler",
        code=lambda_.Code.from_inline(HANDLER),
        timeout=Duration.seconds(timeout),
    )


class OrdersStack(Stack):
    def __init__(self, scope: Construct, id: str, **kwargs) -> None:
        super().__init__(scope, id, **kwargs)
        oncall = sns.Topic(self, "OnCall")

        # Order pipeline: Lambda batches of 10 collected for up to 5 s; handler p50 5 s, p99 45 s, timeout 60 s.
        self.orders_fn = _function(self, "OrderHandler", timeout=60)
        self.orders = GuardedQueue(
            self,
            "Orders",
            processing_p50=Duration.seconds(5),
            processing_p99=Duration.seconds(45),
            alarm_topic=oncall,
        )
        self.orders.add_lambda_consumer(
            self.orders_fn, batch_size=10, max_batching_window=Duration.seconds(5)
        )

        # Payments: FIFO (ordered per customer), content-based deduplication passed through to aws_sqs.Queue.
        self.payments_fn = _function(self, "PaymentHandler", timeout=20)
        self.payments = GuardedQueue(
            self,
            "Payments",
            fifo=True,
            queue_name="visguard-payments",
            content_based_deduplication=True,
            processing_p50=Duration.seconds(1),
            processing_p99=Duration.seconds(8),
            alarm_topic=oncall,
        )
        self.payments.add_lambda_consumer(self.payments_fn, batch_size=10)

        # Legacy reports queue, written by hand before visguard: 60 s is above the 30 s function timeout (so it
        # deploys) but far below the 180 s AWS recommends; VisGuardChecks reports it (VG011, VG020).
        self.reports_fn = _function(self, "ReportHandler", timeout=30)
        # `cdk synth -c legacy_visibility_timeout=10` shows an error (VG010) interrupting synthesis.
        legacy_vt = int(self.node.try_get_context("legacy_visibility_timeout") or 60)
        self.reports = sqs.Queue(self, "LegacyReports", visibility_timeout=Duration.seconds(legacy_vt))
        self.reports_fn.add_event_source(event_sources.SqsEventSource(self.reports, batch_size=1))


class MediaStack(Stack):
    def __init__(self, scope: Construct, id: str, **kwargs) -> None:
        super().__init__(scope, id, **kwargs)
        encoder_role = iam.Role(self, "EncoderRole", assumed_by=iam.ServicePrincipal("ec2.amazonaws.com"))
        self.video = GuardedQueue(self, "VideoEncoding", max_receive_count=5)
        self.video.add_worker_consumer(
            processing_p50=Duration.minutes(40),
            processing_p99=Duration.hours(6),
            heartbeat_interval=Duration.minutes(15),
            heartbeat_extend_by=Duration.minutes(30),
            concurrency=20,
            grantee=encoder_role,
            id="Encoders",
        )


class AuditStack(Stack):
    def __init__(self, scope: Construct, id: str, *, audit_account_id: str, **kwargs) -> None:
        super().__init__(scope, id, **kwargs)
        self.role = AuditRole(
            self,
            "CollectorRole",
            audit_account_id=audit_account_id,
            external_id="visguard-audit",
            role_name="VisguardAudit",
        )


def build_app(app: App | None = None) -> App:
    """The sample app with VisGuardChecks registered (tests pass their own ``App(outdir=...)``). Releases
    before ``Validations`` take the plugin only when the App is created."""
    from visguard.constructs.compat import api

    if app is None:
        app = App() if api().validations is not None else App(policy_validation_beta1=[VisGuardChecks()])
    OrdersStack(app, "VisguardOrders")
    MediaStack(app, "VisguardMedia")
    AuditStack(
        app, "VisguardAudit", audit_account_id=str(app.node.try_get_context("audit_account") or AUDIT_ACCOUNT)
    )
    if api().validations is not None:
        add_checks(app, VisGuardChecks())
    return app


def main() -> None:
    build_app().synth()
