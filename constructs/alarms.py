"""The two alarms every GuardedQueue gets by default (switch off with ``alarms=False``).

- ``DeadLetterQueueAlarm``: the DLQ's ApproximateNumberOfMessagesVisible (Maximum over 1 minute) > 0. The SQS
  Developer Guide advises this metric for DLQs because NumberOfMessagesSent does not count messages redriven
  there. Missing data is not breaching: SQS stops publishing metrics for idle queues.
- ``OldestMessageAgeAlarm``: the queue's ApproximateAgeOfOldestMessage (Maximum over 1 minute) above a threshold
  derived from the settings (``settings.age_alarm_threshold``: maxReceiveCount x visibility timeout + p99,
  within 5 minutes .. half the retention period), for 5 consecutive minutes.

Both are ``aws_cloudwatch.CfnAlarm`` (L1) resources with the metric written out (namespace AWS/SQS, dimension
QueueName, 60 s period; SQS publishes these metrics every minute): the L2 ``Alarm`` and ``Metric`` objects
render the same template but cost several jsii round trips and callbacks each, which made the alarms the
largest part of GuardedQueue's synth overhead (benchmarks/cdk_overhead.py).
"""

from __future__ import annotations

from typing import Any

from aws_cdk import aws_cloudwatch as cloudwatch

from constructs import Construct

PERIOD = 60  # seconds: SQS sends its CloudWatch metrics at 1-minute intervals


def add_queue_alarms(
    scope: Construct,
    *,
    path: str,
    queue: Any,
    dead_letter_queue: Any,
    age_threshold: int,
    topic: Any = None,
) -> tuple[cloudwatch.CfnAlarm, cloudwatch.CfnAlarm]:
    """Create the DLQ alarm and the age alarm in ``scope``. ``path`` is the scope's construct path (for the
    descriptions); ``age_threshold`` is the current threshold in seconds: the caller sets the age alarm's
    ``threshold`` again when consumers added later change it."""
    actions = [topic.topic_arn] if topic is not None else None

    def alarm(id: str, watched: Any, metric: str, **props: Any) -> cloudwatch.CfnAlarm:
        return cloudwatch.CfnAlarm(
            scope,
            id,
            namespace="AWS/SQS",
            metric_name=metric,
            dimensions=[cloudwatch.CfnAlarm.DimensionProperty(name="QueueName", value=watched.queue_name)],
            statistic="Maximum",
            period=PERIOD,
            comparison_operator="GreaterThanThreshold",
            treat_missing_data="notBreaching",
            alarm_actions=actions,
            **props,
        )

    dlq_alarm = alarm(
        "DeadLetterQueueAlarm",
        dead_letter_queue,
        "ApproximateNumberOfMessagesVisible",
        threshold=0,
        evaluation_periods=1,
        alarm_description=f"Messages in the dead-letter queue of {path}: they failed maxReceiveCount times.",
    )
    age_alarm = alarm(
        "OldestMessageAgeAlarm",
        queue,
        "ApproximateAgeOfOldestMessage",
        threshold=age_threshold,
        evaluation_periods=5,
        datapoints_to_alarm=5,
        alarm_description=(
            f"The oldest message of {path} is older than retries explain (maxReceiveCount x visibility "
            "timeout + p99): consumers are behind or down."
        ),
    )
    return dlq_alarm, age_alarm
