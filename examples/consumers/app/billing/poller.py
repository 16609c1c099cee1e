"""A small poller class: the queue and the visibility reach the receive through its constructor, as real workers
pass them (visguard follows them to the one place that builds the poller, in run.py)."""

import boto3


class Poller:
    def __init__(self, queue_url: str, visibility_timeout: int = 45) -> None:
        self.queue_url = queue_url
        self.visibility_timeout = visibility_timeout
        self.sqs = boto3.client("sqs")

    def run(self, handle) -> None:
        while True:
            resp = self.sqs.receive_message(
                QueueUrl=self.queue_url,
                VisibilityTimeout=self.visibility_timeout,
                WaitTimeSeconds=20,
            )
            for msg in resp.get("Messages", []):
                handle(msg["Body"])
                self.sqs.delete_message(QueueUrl=self.queue_url, ReceiptHandle=msg["ReceiptHandle"])
