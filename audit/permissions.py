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
)

# Called in the management (or delegated administrator) account only, with --organization.
ORGANIZATION_ACTIONS: tuple[str, ...] = ("organizations:ListAccounts",)
