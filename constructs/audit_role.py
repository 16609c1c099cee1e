"""``AuditRole``: the read-only role the fleet collector (``visguard audit collect``) assumes in each account."""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_iam as iam
from visguard.audit.permissions import COLLECTOR_ACTIONS, ORGANIZATION_ACTIONS

from constructs import Construct


class AuditRole(Construct):
    """A role trusted by ``audit_account_id`` (optionally requiring ``external_id``) that grants exactly the
    IAM actions the collector calls, ``visguard.audit.permissions.COLLECTOR_ACTIONS``, and nothing else.

    The actions are List/Get/Describe calls; ListQueues, DescribeRegions, GetMetricData,
    ListEventSourceMappings, ecs:ListClusters, ecs:DescribeTaskDefinition, pipes:ListPipes and
    cloudformation:ListStacks support no resource-level permissions (Service Authorization Reference), and the
    collector reads every queue, function, ECS service, pipe and stack of the account, so the statement's resource
    is ``*``. The CloudFormation actions (ListStacks, ListStackResources, GetTemplate) tell which stack owns a
    queue; GetTemplate is called only with ``--templates``.
    ``organization=True`` adds ``organizations:ListAccounts`` for the management or delegated-admin account.
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        audit_account_id: str,
        external_id: str | None = None,
        role_name: str | None = None,
        organization: bool = False,
        max_session_duration: Duration | None = None,
    ) -> None:
        super().__init__(scope, id)
        actions = sorted(COLLECTOR_ACTIONS + (ORGANIZATION_ACTIONS if organization else ()))
        self.actions = tuple(actions)
        self.role = iam.Role(
            self,
            "Role",
            role_name=role_name,
            assumed_by=iam.AccountPrincipal(audit_account_id),
            external_ids=[external_id] if external_id else None,
            max_session_duration=max_session_duration,
            description="visguard fleet collector: read-only SQS, Lambda, ECS, Pipes, CloudFormation and CloudWatch metadata",
            inline_policies={
                "VisguardCollector": iam.PolicyDocument(
                    statements=[
                        iam.PolicyStatement(sid="VisguardCollectorReadOnly", actions=actions, resources=["*"])
                    ]
                )
            },
        )
