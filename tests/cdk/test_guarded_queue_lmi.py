"""GuardedQueue with Lambda Managed Instances and durable functions (issue 36, fact-drift L7, L8). Kept out of
tests/cdk/MIN_VERSION_TESTS: aws-cdk-lib releases before these features have no ``capacity_provider_config`` /
``durable_config`` (GuardedQueue then reads neither; the min-version run of test_guarded_queue.py shows it
still works there)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def error_stack(cdk):
    from aws_cdk import App, Stack

    return Stack(App(), "Errors")


def test_managed_instances_and_durable_functions_get_their_own_limits(error_stack, make_function):
    """Issue 36 (fact-drift L7, L8). A 90-minute function on Lambda Managed Instances (its CfnFunction's
    capacity_provider_config) is accepted and gets 6 x 5,400 + 300 = 32,700 s; the same timeout without a capacity
    provider is VG032's error. A durable function (the L2 durable_config) gets its durable execution's bound, the
    900 s invocation limit here (its ExecutionTimeout is an hour), not 6 x its 60 s timeout."""
    from aws_cdk import Duration
    from aws_cdk import aws_lambda as lambda_
    from visguard.constructs import GuardedQueue, GuardError

    lmi = make_function(error_stack, "LmiFn", 5400)
    lmi.node.default_child.capacity_provider_config = lambda_.CfnFunction.CapacityProviderConfigProperty(
        lambda_managed_instances_capacity_provider_config=(
            lambda_.CfnFunction.LambdaManagedInstancesCapacityProviderConfigProperty(
                capacity_provider_arn="arn:aws:lambda:us-east-1:123456789012:capacity-provider/orders"
            )
        )
    )
    q = GuardedQueue(error_stack, "Lmi")
    q.add_lambda_consumer(lmi, max_batching_window=Duration.seconds(300))
    assert q.queue.node.default_child.visibility_timeout == 6 * 5400 + 300
    assert q.node.validate() == []

    # the L2 way: a CapacityProvider's add_function sets the same L1 property (its ARN a token here)
    from aws_cdk import aws_ec2 as ec2

    provider = lambda_.CapacityProvider(
        error_stack,
        "Provider",
        subnets=[ec2.Subnet.from_subnet_id(error_stack, "Subnet", "subnet-123")],
        security_groups=[ec2.SecurityGroup.from_security_group_id(error_stack, "Sg", "sg-123")],
    )
    managed = make_function(error_stack, "ManagedFn", 5400)
    provider.add_function(managed)
    q2 = GuardedQueue(error_stack, "Lmi2")
    q2.add_lambda_consumer(managed)
    assert q2.queue.node.default_child.visibility_timeout == 6 * 5400

    standard = GuardedQueue(error_stack, "NotLmi")
    with pytest.raises(GuardError, match=r"VG032 \(error\).*outside 1-900 s"):
        standard.add_lambda_consumer(make_function(error_stack, "LongFn", 5400))

    durable = lambda_.Function(
        error_stack,
        "DurableFn",
        runtime=lambda_.Runtime.PYTHON_3_12,
        handler="index.handler",
        code=lambda_.Code.from_inline("def handler(event, context):\n    return {}\n"),
        timeout=Duration.seconds(60),
        durable_config=lambda_.DurableConfig(execution_timeout=Duration.hours(1)),
    )
    dq = GuardedQueue(error_stack, "Durable")
    dq.add_lambda_consumer(durable)
    assert dq.queue.node.default_child.visibility_timeout == 900
    assert dq.node.validate() == []
