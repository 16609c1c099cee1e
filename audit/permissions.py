"""The IAM actions the fleet collector calls: defined once, granted by the CDK ``AuditRole``.

A test records every operation the collector issues in an end-to-end run and asserts this list covers
exactly those (tests/audit).
"""

COLLECTOR_ACTIONS: tuple[str, ...] = (
    "sqs:ListQueues",
    "sqs:GetQueueAttributes",
    "sqs:ListQueueTags",
    "sqs:ListDeadLetterSourceQueues",
    "lambda:ListEventSourceMappings",
    "lambda:GetFunctionConfiguration",
    "lambda:GetFunctionConcurrency",
    "ecs:ListClusters",
    "ecs:ListServices",
    "ecs:DescribeServices",
    "ecs:DescribeTaskDefinition",
    "pipes:ListPipes",
    "pipes:DescribePipe",
    # with --metrics: AWS/SQS queue metrics, Lambda Duration, and an event source mapping's own counts where its
    # MetricsConfig has EventCount (AWS/Lambda, EventSourceMappingUUID): one read-only action for all of them
    "cloudwatch:GetMetricData",
    "ec2:DescribeRegions",
    # which stack owns a queue, mapping, ECS service, task definition or pipe (owners.py); GetTemplate only with
    # --templates (CDK construct paths), of the stacks that own one of them
    "cloudformation:ListStacks",
    "cloudformation:ListStackResources",
    "cloudformation:GetTemplate",
)

# Called in the management (or delegated administrator) account only, with --organization.
ORGANIZATION_ACTIONS: tuple[str, ...] = ("organizations:ListAccounts",)

# With --terraform-state s3://BUCKET/KEY: GetObject of that one object, with the caller's own credentials (the
# account that holds the state, not a member account's AuditRole).
TERRAFORM_STATE_ACTIONS: tuple[str, ...] = ("s3:GetObject",)
