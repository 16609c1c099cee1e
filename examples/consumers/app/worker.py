"""The orders worker (runs in the ECS service of ../infra/main.tf)."""

import os

import boto3

QUEUE_URL = os.environ["ORDERS_QUEUE_URL"]
sqs = boto3.client("sqs")


def handle(body: str) -> None:
    ...  # charge the card, write the order: up to 5 minutes at p99


def main() -> None:
    while True:
        resp = sqs.receive_message(
            QueueUrl=QUEUE_URL,
            MaxNumberOfMessages=10,
            WaitTimeSeconds=20,
            VisibilityTimeout=60,
        )
        for msg in resp.get("Messages", []):
            handle(msg["Body"])
            sqs.delete_message(QueueUrl=QUEUE_URL, ReceiptHandle=msg["ReceiptHandle"])


if __name__ == "__main__":
    main()
