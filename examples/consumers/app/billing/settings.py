"""The billing worker's settings: the queue as the team deploys it (../../infra/main.tf), overridable by the
environment."""

import os

BILLING_QUEUE_URL = os.environ.get("BILLING_QUEUE_URL", "https://sqs.eu-west-1.amazonaws.com/123456789012/billing")
