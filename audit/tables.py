"""The audit's tables: the explicit Spark schemas of inventory records, findings and per-queue figures, and the
columns of a joined queue row (the dict keys ``build.lint_rows`` reads). Schemas are built in functions: pyspark
is imported only when one is asked for."""

from __future__ import annotations

KINDS = ("queue", "mapping", "function", "worker", "owner", "error", "partition")

SEVERITIES = ("error", "warning", "info")
# The columns of findings/ (every one a string; account and region are also the partition folders).
FINDING_FIELDS = (
    "account",
    "region",
    "queue_arn",
    "queue_name",
    "rule",
    "severity",
    "message",
    "consumer",
    "fix",
    "estimate",
    "owner",
    "suppressed",  # the reason of the visguard.yaml suppression that hides the finding; null: open
)
# A queue's own columns that its sources' rows carry as dlq_* and dlq2_* (its DLQ and the DLQ's DLQ).
DLQ_FIELDS = (
    "arn",
    "name",
    "account",
    "region",
    "fifo",
    "vt",
    "retention",
    "delay",
    "has_redrive",
    "target_arn",
    "max_receive_count",
    "age_oldest",  # CloudWatch: the DLQ's oldest message (inflow into a source's DLQ)
)

# A mapping's own settings, in the order every projection of them uses.
MAPPING_SETTINGS = (
    "function_arn",
    "state",
    "batch_size",
    "batching_window",
    "maximum_concurrency",
    "function_response_types",
    "metrics_config",  # MetricsConfig.Metrics (issue 36, fact-drift row L4)
    "esm_metrics",  # the mapping's own counts where EventCount is on: polled, failed, deleted
    "min_pollers",  # ProvisionedPollerConfig (provisioned mode, issue 36); both null: standard mode
    "max_pollers",
)
# A worker record's own facts (ECS service, pipe), besides batch_size and batching_window (MAPPING_SETTINGS).
WORKER_SETTINGS = (
    "platform",
    "link",
    "link_ref",
    "stop_timeout",
    "desired_count",
    "work_timeout",
    "heartbeat",
    "processing_p50",
    "processing_p99",
    "task_definition",
    "container",
    "target",
    "capacity",  # where an ECS service's tasks run (EC2, FARGATE, EXTERNAL, MANAGED_INSTANCES; issue 36)
)
# A function record's facts a mapping's consumer carries (joined by the function's ARN).
FUNCTION_FIELDS = (
    "timeout",
    "reserved_concurrency",
    "capacity_provider",  # Lambda Managed Instances (issue 36, fact-drift row L7): the capacity provider's ARN
    "durable_execution_timeout",  # DurableConfig.ExecutionTimeout, seconds (a durable function; row L8)
    "duration_p50",
    "duration_p99",
)
# Field lists shared with build.py (the dict keys of a joined queue row). A consumer is a mapping (``uuid`` set,
# the worker fields null) or a worker (``worker_arn`` set: the ECS service or pipe; ``queue_ref``: the queue as
# the record names it; ``state``: the service's status or the pipe's desired state).
CONSUMER_FIELDS = (
    "uuid",
    "worker_arn",
    *MAPPING_SETTINGS,
    "function_found",
    *FUNCTION_FIELDS,
    "queue_ref",
    *WORKER_SETTINGS,
)


# The queue attributes the audit reads (GetQueueAttributes returns every attribute as a string; the others are
# skipped by the JSON parser instead of being built into a map).
QUEUE_ATTRIBUTES = (
    "VisibilityTimeout",
    "MessageRetentionPeriod",
    "DelaySeconds",
    "FifoQueue",
    "RedrivePolicy",
)


def record_schema(tag_keys: tuple[str, ...] = ()):
    """The fields of an inventory record that the audit reads (the published JSON Schema has a few more, e.g. a
    queue's ``url`` and ``dlq_sources``: the parser skips what is not named here). ``tag_keys``: tags read
    besides the visguard:* ones (owner tags, IaC tags, tags that suppressions match)."""
    from pyspark.sql import types as T
    from visguard.audit.build import TAG_KEYS

    tags = tuple(dict.fromkeys((*TAG_KEYS, *tag_keys)))

    s, d, i = T.StringType(), T.DoubleType(), T.LongType()
    return T.StructType(
        [
            T.StructField("kind", s),
            T.StructField("account", s),
            T.StructField("region", s),
            # queue
            T.StructField("arn", s),
            T.StructField("name", s),
            T.StructField("attributes", T.StructType([T.StructField(a, s) for a in QUEUE_ATTRIBUTES])),
            # only the visguard:* tags the audit reads (build.TAG_KEYS), not a map of every tag
            T.StructField("tags", T.StructType([T.StructField(k, s) for k in tags])),
            T.StructField(
                "metrics",
                T.StructType([T.StructField(n, d) for n in ("received", "deleted", "age_oldest_max")]),
            ),
            # mapping
            T.StructField("uuid", s),
            T.StructField("event_source_arn", s),
            T.StructField("function_arn", s),
            T.StructField("state", s),
            T.StructField("batch_size", i),
            T.StructField("batching_window", d),
            T.StructField("maximum_concurrency", i),
            T.StructField("function_response_types", T.ArrayType(s)),
            T.StructField("metrics_config", T.ArrayType(s)),
            T.StructField(
                "esm_metrics", T.StructType([T.StructField(n, d) for n in ("polled", "failed", "deleted")])
            ),
            T.StructField("min_pollers", i),
            T.StructField("max_pollers", i),
            # function
            T.StructField("timeout", d),
            T.StructField("reserved_concurrency", i),
            T.StructField("capacity_provider", s),
            T.StructField("durable_execution_timeout", d),
            T.StructField("duration_p50", d),
            T.StructField("duration_p99", d),
            # worker (arn, name, state, batch_size, batching_window: above)
            T.StructField("platform", s),
            T.StructField("queue", s),
            T.StructField("link", s),
            T.StructField("link_ref", s),
            T.StructField("stop_timeout", d),
            T.StructField("desired_count", i),
            T.StructField("work_timeout", d),
            T.StructField("heartbeat", T.BooleanType()),
            T.StructField("processing_p50", d),
            T.StructField("processing_p99", d),
            T.StructField("task_definition", s),
            T.StructField("container", s),
            T.StructField("target", s),
            T.StructField("capacity", s),
            # owner (issue 39 §1: owners.py; state above is a Terraform owner's state path)
            T.StructField("resource", s),
            T.StructField("resource_type", s),
            T.StructField("owner", s),
            T.StructField("stack", s),
            T.StructField("logical_id", s),
            T.StructField("construct_path", s),
            T.StructField("root_stack", s),
            T.StructField("address", s),
            T.StructField("module", s),
            # error
            T.StructField("operation", s),
            T.StructField("code", s),
            T.StructField("message", s),
            # partition
            T.StructField("errors", i),
            T.StructField("_corrupt", s),
        ]
    )


def finding_schema():
    from pyspark.sql import types as T

    s = T.StringType()
    return T.StructType([T.StructField(n, s) for n in FINDING_FIELDS])


def figure_schema():
    from pyspark.sql import types as T

    s, d, i = T.StringType(), T.DoubleType(), T.LongType()
    return T.StructType(
        [
            T.StructField("account", s),
            T.StructField("region", s),
            T.StructField("arn", s),
            T.StructField("name", s),
            T.StructField("vt", d),
            T.StructField("required_vt", d),
            T.StructField("ratio", d),
            T.StructField("consumer_kinds", s),
            T.StructField("findings", i),
            T.StructField("worst", s),
            T.StructField("duplicate_rate", d),
            T.StructField("owner", s),
            # CloudWatch over the collection window: sums, the oldest message's age, received / deleted - 1
            T.StructField("received", d),
            T.StructField("deleted", d),
            T.StructField("age_oldest", d),
            T.StructField("observed_rate", d),
            # who deployed the queue (issue 39 §1): an owner record's, null when none names it ("unknown")
            *(T.StructField(n, s) for n in OWNER_FIGURE_FIELDS),
        ]
    )


# The owner columns of a queue's figures, from the owner record of the queue (transforms.queue_owners): the
# record's ``owner`` (cloudformation, terraform), its stack, logical id, construct path and root stack, or its
# state, address and module. Added on the driver after the lint (transforms.attach_owners), not by it.
OWNER_FIGURE_FIELDS = (
    "iac_owner",
    "iac_stack",
    "iac_logical_id",
    "iac_construct_path",
    "iac_root_stack",
    "iac_state",
    "iac_address",
    "iac_module",
)
# the owner record's field each owner column comes from
OWNER_RECORD_FIELDS = dict(
    zip(
        OWNER_FIGURE_FIELDS,
        ("owner", "stack", "logical_id", "construct_path", "root_stack", "state", "address", "module"),
        strict=True,
    )
)


# One output schema for mapInArrow: a row is a finding (kind "f"), a queue's figures (kind "q") or a count of
# orphan mappings and workers (kind "o").
def out_schema():
    from pyspark.sql import types as T

    fields = [T.StructField("row_kind", T.StringType())]
    seen = {"row_kind"}
    for f in list(finding_schema().fields) + list(figure_schema().fields):
        if f.name not in seen and f.name not in OWNER_FIGURE_FIELDS:  # owners: added after the lint
            fields.append(f)
            seen.add(f.name)
    # kind "o": mappings (orphans) and worker records (orphan_workers) of a queue that is not a (well-formed)
    # queue of the inventory
    fields.append(T.StructField("orphans", T.LongType()))
    fields.append(T.StructField("orphan_workers", T.LongType()))
    return T.StructType(fields)


QUEUE_COLUMNS = (
    "account",
    "region",
    "arn",
    "name",
    "tags",
    "received",
    "deleted",
    "age_oldest",
    "fifo",
    "vt",
    "retention",
    "delay",
    "has_redrive",
    "target_arn",
    "max_receive_count",
    "target_partition_known",
    "consumers",
    "is_dlq",
    *(f"{p}{c}" for p in ("dlq_", "dlq2_") for c in (*DLQ_FIELDS, "target_partition_known")),
)
