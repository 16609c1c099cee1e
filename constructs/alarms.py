"""The two alarms every GuardedQueue gets by default (switch off with ``alarms=False``).

- ``DeadLetterQueueAlarm``: the DLQ's ApproximateNumberOfMessagesVisible (Maximum over 1 minute) > 0. The SQS
  Developer Guide advises this metric for DLQs because NumberOfMessagesSent does not count messages redriven
  there. Missing data is not breaching: SQS stops publishing metrics for idle queues.
- ``OldestMessageAgeAlarm``: the queue's ApproximateAgeOfOldestMessage (Maximum over 1 minute) above a threshold
  derived from the settings (``settings.age_alarm_threshold``: maxReceiveCount x visibility timeout + p99,
  within 5 minutes .. half the retention period), for 5 consecutive minutes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aws_cdk import Lazy
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as actions

from constructs import Construct


def add_queue_alarms(
    scope: Construct,
    *,
    path: str,
    queue: Any,
    dead_letter_queue: Any,
    age_threshold: Callable[[], float],
    number: Callable,
    topic: Any = None,
) -> tuple[cloudwatch.Alarm, cloudwatch.Alarm]:
    """Create the DLQ alarm and the age alarm in ``scope``; ``age_threshold`` is read at synth (a Lazy), so
    consumers added after the queue still count. ``path`` is the scope's construct path (for the
    descriptions); ``number`` wraps a callable as a CDK number producer."""
    from .guarded_queue import seconds_duration

    minute = seconds_duration(60)
    dlq_alarm = cloudwatch.Alarm(
        scope,
        "DeadLetterQueueAlarm",
        metric=dead_letter_queue.metric_approximate_number_of_messages_visible(
            period=minute, statistic="Maximum"
        ),
        threshold=0,
        comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluation_periods=1,
        treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
        alarm_description=f"Messages in the dead-letter queue of {path}: they failed maxReceiveCount times.",
    )
    age_alarm = cloudwatch.Alarm(
        scope,
        "OldestMessageAgeAlarm",
        metric=queue.metric_approximate_age_of_oldest_message(period=minute, statistic="Maximum"),
        threshold=Lazy.number(number(age_threshold)),
        comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluation_periods=5,
        datapoints_to_alarm=5,
        treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
        alarm_description=(
            f"The oldest message of {path} is older than retries explain (maxReceiveCount x visibility "
            "timeout + p99): consumers are behind or down."
        ),
    )
    if topic is not None:
        for alarm in (dlq_alarm, age_alarm):
            alarm.add_alarm_action(actions.SnsAction(topic))
    return dlq_alarm, age_alarm
