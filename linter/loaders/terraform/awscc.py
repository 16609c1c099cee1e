"""The Cloud Control provider (``hashicorp/awscc``): its resources read as the AWS provider's, into the same model.

An ``awscc_*`` resource is CloudFormation's resource type with its properties in snake_case
(``AWS::SQS::Queue.VisibilityTimeout`` -> ``awscc_sqs_queue.visibility_timeout``), nested properties as
attribute objects (``scaling_config = { maximum_concurrency = 5 }``, not blocks) and tags as a list of
``{ key, value }``. :data:`RESOURCES` says, per awscc type, which ``aws_*`` type it is read as and the awscc name
of each argument the readers use (``build.ARGS``, ``consumers.ARGS``); the loader reads the awscc argument and
keeps it under the ``aws_*`` name, its location naming the awscc argument (so a finding and ``--fix`` say
``visibility_timeout``, the argument as written). The resource keeps its own address (``awscc_sqs_queue.jobs``).

Checked 2026-12-02 against the provider's documentation (registry.terraform.io/providers/hashicorp/awscc/latest
/docs; the source is github.com/hashicorp/terraform-provider-awscc, docs/resources/<name>.md):
``sqs_queue`` (queue_name, visibility_timeout, message_retention_period, delay_seconds, fifo_queue,
redrive_policy and redrive_allow_policy as JSON strings, tags; read-only arn, id, queue_url),
``lambda_event_source_mapping`` (event_source_arn, function_name, batch_size,
maximum_batching_window_in_seconds, function_response_types, enabled, scaling_config.maximum_concurrency,
provisioned_poller_config.{minimum_pollers, maximum_pollers}: issue 36, not re-read,
metrics_config.metrics),
``lambda_function`` (function_name, timeout, reserved_concurrent_executions), ``pipes_pipe`` (name, source,
target, enrichment, source_parameters.sqs_queue_parameters.{batch_size, maximum_batching_window_in_seconds},
target_parameters.lambda_function_parameters.invocation_type, tags as a map), ``ecs_task_definition`` (family,
container_definitions as a list of objects: name, command, entry_point, environment [{name, value}], secrets
[{name, value_from}], stop_timeout; task_role_arn, tags, requires_compatibilities; read-only
task_definition_arn), ``ecs_service`` (service_name, task_definition, desired_count, launch_type,
capacity_provider_strategy as a list of {capacity_provider, weight, base}); checked 2026-12-03 (docs/resources
/iam_role.md): ``iam_role`` (role_name, assume_role_policy_document as a JSON string, policies as a list of
{policy_document, policy_name}, managed_policy_arns; read-only arn), ``iam_role_policy`` (role_name,
policy_document).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

# awscc type -> (the aws_* type it is read as, {aws argument: awscc argument})
RESOURCES: dict[str, tuple[str, dict[str, str]]] = {
    "awscc_sqs_queue": (
        "aws_sqs_queue",
        {
            "name": "queue_name",
            "fifo_queue": "fifo_queue",
            "visibility_timeout_seconds": "visibility_timeout",
            "message_retention_seconds": "message_retention_period",
            "delay_seconds": "delay_seconds",
            "redrive_policy": "redrive_policy",
            "redrive_allow_policy": "redrive_allow_policy",
            "tags": "tags",
        },
    ),
    "awscc_lambda_event_source_mapping": (
        "aws_lambda_event_source_mapping",
        {
            a: a
            for a in (
                "event_source_arn",
                "function_name",
                "batch_size",
                "maximum_batching_window_in_seconds",
                "function_response_types",
                "enabled",
                "scaling_config.maximum_concurrency",
                "provisioned_poller_config.minimum_pollers",
                "provisioned_poller_config.maximum_pollers",
                "metrics_config.metrics",
            )
        },
    ),
    "awscc_lambda_function": (
        "aws_lambda_function",
        {a: a for a in ("function_name", "timeout", "reserved_concurrent_executions")},
    ),
    "awscc_pipes_pipe": (
        "aws_pipes_pipe",
        {
            a: a
            for a in (
                "name",
                "source",
                "target",
                "enrichment",
                "source_parameters",
                "target_parameters",
                "tags",
            )
        },
    ),
    "awscc_ecs_task_definition": (
        "aws_ecs_task_definition",
        {
            a: a
            for a in ("family", "container_definitions", "task_role_arn", "tags", "requires_compatibilities")
        },
    ),
    "awscc_ecs_service": (
        "aws_ecs_service",
        {
            "name": "service_name",
            "task_definition": "task_definition",
            "desired_count": "desired_count",
            "launch_type": "launch_type",
            "capacity_provider_strategy": "capacity_provider_strategy",
        },  # fmt: skip
    ),
}
RESOURCES.update(
    {
        "awscc_iam_role": (
            "aws_iam_role",
            {
                "name": "role_name",
                "inline_policy": "policies",
                "managed_policy_arns": "managed_policy_arns",
                "assume_role_policy": "assume_role_policy_document",
            },
        ),
        "awscc_iam_role_policy": ("aws_iam_role_policy", {"role": "role_name", "policy": "policy_document"}),
    }
)
# attributes a reference reads (``awscc_sqs_queue.q.queue_url``) -> the aws_* attribute the readers know
QUEUE_URL_ATTRS = ("queue_url",)
QUEUE_NAME_ATTRS = ("queue_name",)
# a container definition's keys in awscc (snake_case) -> ECS's JSON keys (what consumers.py reads)
CONTAINER_KEYS = {"stop_timeout": "stopTimeout", "value_from": "valueFrom", "entry_point": "entryPoint"}
# the attribute objects of these arguments are read as blocks are (a list of one map, located per key)
OBJECT_ARGS = ("source_parameters", "target_parameters")


def kind(rtype: str) -> str:
    """The type a resource is read as: an awscc type's aws_* type, any other type itself."""
    spec = RESOURCES.get(rtype)
    return spec[0] if spec is not None else rtype


def argument(rtype: str, arg: str) -> str | None:
    """The name ``rtype`` writes the readers' argument ``arg`` under (None: it has none)."""
    spec = RESOURCES.get(rtype)
    return arg if spec is None else spec[1].get(arg)


def normalize(r) -> None:
    """An awscc resource's values in the shapes the readers take: tags as a map, container definitions with
    ECS's JSON keys (their locations renamed alike)."""
    policies = r.values.get("inline_policy")
    if r.type == "aws_iam_role" and isinstance(policies, list):  # awscc_iam_role's policies attribute
        r.values["inline_policy"] = [
            {"name": p.get("policy_name"), "policy": p.get("policy_document")}
            for p in policies
            if isinstance(p, dict)
        ]
    tags = r.values.get("tags")
    if isinstance(tags, list):
        r.values["tags"] = _tag_map(tags)
    defs = r.values.get("container_definitions")
    if isinstance(defs, list):
        r.values["container_definitions"] = [_json_keys(c) for c in defs]
        for key in [k for k in r.locations if k.startswith("container_definitions")]:
            new = key
            for snake, camel in CONTAINER_KEYS.items():
                new = new.replace(f".{snake}", f".{camel}")
            if new != key:
                r.locations[new] = r.locations.pop(key)


def _tag_map(tags: list) -> Any:
    out = {}
    for t in tags:
        if isinstance(t, dict) and isinstance(t.get("key"), str):
            out[t["key"]] = t.get("value")
    return out


def _json_keys(v: Any) -> Any:
    if isinstance(v, dict):
        return {CONTAINER_KEYS.get(k, k): _json_keys(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_json_keys(x) for x in v]
    return v
