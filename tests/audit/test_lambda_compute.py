"""Issue 36 in the audit: a function's Lambda Managed Instances capacity provider and DurableConfig.ExecutionTimeout,
and a mapping's ProvisionedPollerConfig, from the Lambda API's answers (botocore's Stubber: moto knows neither
CapacityProviderConfig nor DurableConfig, and the Stubber checks every answer against botocore's Lambda model)
into the inventory record and from the record into the model the rules get (no Spark; tests/audit/test_job.py
carries them through the job)."""

from __future__ import annotations

import boto3
import pytest
from botocore.stub import Stubber
from visguard import facts
from visguard.audit import build, collector, inventory

A = "111111111111"
FN = f"arn:aws:lambda:us-east-1:{A}:function:mi"
CP = f"arn:aws:lambda:us-east-1:{A}:capacity-provider:fleet"
QUEUE = f"arn:aws:sqs:us-east-1:{A}:jobs"


@pytest.fixture
def lam():
    client = boto3.client(
        "lambda", region_name="us-east-1", aws_access_key_id="testing", aws_secret_access_key="testing"
    )
    with Stubber(client) as stub:
        yield client, stub
        stub.assert_no_pending_responses()


def _part(client) -> collector.Partition:
    return collector.Partition(collector.Options(progress=False), A, "us-east-1", sqs=None, lam=client)


def _function(lam, **config) -> dict:
    client, stub = lam
    stub.add_response(
        "get_function_configuration",
        {"FunctionName": "mi", "FunctionArn": FN, "Timeout": 3600, "MemorySize": 2048, **config},
        {"FunctionName": FN},
    )
    stub.add_response("get_function_concurrency", {}, {"FunctionName": FN})
    return collector.function_record(_part(client), FN)


def test_a_managed_instances_and_durable_function_record(lam):
    rec = _function(
        lam,
        CapacityProviderConfig={
            "LambdaManagedInstancesCapacityProviderConfig": {
                "CapacityProviderArn": CP,
                "PerExecutionEnvironmentMaxConcurrency": 4,
            }
        },
        DurableConfig={"ExecutionTimeout": 3000, "RetentionPeriodInDays": 7},
    )
    assert rec["capacity_provider"] == CP and rec["durable_execution_timeout"] == 3000
    assert rec["timeout"] == 3600
    assert inventory.validate_records([rec]) == []


def test_a_function_on_lambdas_own_compute_is_neither(lam):
    rec = _function(lam)
    assert rec["capacity_provider"] is None and rec["durable_execution_timeout"] is None
    assert inventory.validate_records([rec]) == []


def _mappings(lam, *configs) -> list[dict]:
    client, stub = lam
    stub.add_response(
        "list_event_source_mappings",
        {
            "EventSourceMappings": [
                {
                    "UUID": f"00000000-0000-4000-8000-{i:012d}",
                    "EventSourceArn": QUEUE,
                    "FunctionArn": FN,
                    "State": "Enabled",
                    **cfg,
                }
                for i, cfg in enumerate(configs)
            ]
        },
        {},
    )
    return collector.list_mappings(_part(client))


def test_mapping_records_keep_the_provisioned_pollers(lam):
    got = _mappings(
        lam,
        {"ProvisionedPollerConfig": {"MinimumPollers": 3, "MaximumPollers": 40}},
        {"ProvisionedPollerConfig": {"MaximumPollers": 40}},  # the minimum at Lambda's default
        {"ProvisionedPollerConfig": {}},  # provisioned mode at the defaults (2 and 200)
        {"ScalingConfig": {"MaximumConcurrency": 20}},  # standard mode
    )
    assert [(m["min_pollers"], m["max_pollers"]) for m in got] == [
        (3, 40),
        (None, 40),
        (facts.DEFAULT_MIN_POLLERS, facts.DEFAULT_MAX_POLLERS),
        (None, None),
    ]
    assert got[3]["maximum_concurrency"] == 20
    assert inventory.validate_records(got) == []


def test_the_schema_types_the_new_fields():
    fn = {"kind": "function", "account": A, "region": "us-east-1", "arn": FN}
    m = {"kind": "mapping", "account": A, "region": "us-east-1", "uuid": "u", "event_source_arn": QUEUE,
         "function_arn": FN}  # fmt: skip
    assert inventory.validate_records([fn, m]) == []  # an inventory collected before issue 36
    ok = [{**fn, "capacity_provider": CP, "durable_execution_timeout": 900.5}, {**m, "min_pollers": 2}]
    assert inventory.validate_records(ok) == []
    for bad in (
        {**fn, "capacity_provider": 5},
        {**fn, "durable_execution_timeout": "1h"},
        {**m, "max_pollers": 2.5},
    ):
        assert len(inventory.validate_records([bad])) == 1, bad


# ---------------------------------------------------------------------------------------------- the model
def _row(**consumer) -> dict:
    return {
        "account": A, "region": "us-east-1", "arn": QUEUE, "name": "jobs",
        "consumers": [{"uuid": "u0", "function_arn": FN, "function_found": True, "timeout": 3600.0,
                       "state": "Enabled", **consumer}],
    }  # fmt: skip


def test_the_model_gets_capacity_provider_durable_bound_and_pollers():
    (c,) = build.consumers_of(
        _row(capacity_provider=CP, durable_execution_timeout=4000.0, min_pollers=2, max_pollers=30)
    )
    assert c.capacity_provider == CP and c.max_function_timeout == facts.MAX_LAMBDA_TIMEOUT_MANAGED
    assert c.durable_execution_timeout == 4000 and c.durable_bound == (4000.0, "execution_timeout")
    assert (c.min_pollers, c.max_pollers) == (2, 30)


def test_an_older_inventory_without_the_fields_is_standard_mode_on_lambdas_compute():
    (c,) = build.consumers_of(_row())
    assert c.capacity_provider is None and c.max_function_timeout == facts.MAX_LAMBDA_TIMEOUT
    assert c.durable_execution_timeout is None and c.durable_bound is None
    assert c.min_pollers is None and c.max_pollers is None
    # nulls and NaN (a missing value in an Arrow batch) read the same
    (c,) = build.consumers_of(
        _row(
            capacity_provider=None, durable_execution_timeout=float("nan"), min_pollers=None, max_pollers=None
        )
    )
    assert c.capacity_provider is None and c.durable_bound is None and c.max_pollers is None


def test_a_function_missing_from_the_inventory_lends_no_compute_facts():
    (c,) = build.consumers_of(
        _row(function_found=False, capacity_provider=CP, durable_execution_timeout=600.0)
    )
    assert c.capacity_provider is None and c.durable_execution_timeout is None
