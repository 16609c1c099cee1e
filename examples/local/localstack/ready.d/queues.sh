#!/bin/bash
# LocalStack ready hook: the queues of the local stack.
set -euo pipefail

awslocal sqs create-queue --queue-name jobs --attributes VisibilityTimeout=120

awslocal sqs create-queue --queue-name reports-dlq --attributes MessageRetentionPeriod=1209600
DLQ_ARN=arn:aws:sqs:us-east-1:000000000000:reports-dlq
awslocal sqs create-queue --queue-name reports \
  --attributes "{\"VisibilityTimeout\": \"600\", \"RedrivePolicy\": \"{\\\"deadLetterTargetArn\\\":\\\"$DLQ_ARN\\\",\\\"maxReceiveCount\\\":\\\"5\\\"}\"}"
