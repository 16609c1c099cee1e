"""The jobs worker of the local stack: a boto3 receive loop on LocalStack's jobs queue."""

import boto3

JOBS_URL = "http://localhost:4566/000000000000/jobs"
sqs = boto3.client("sqs", endpoint_url="http://localhost:4566")


def main() -> None:
    while True:
        resp = sqs.receive_message(QueueUrl=JOBS_URL, WaitTimeSeconds=20, MaxNumberOfMessages=10)
        for msg in resp.get("Messages", []):
            print(msg["Body"])  # a few milliseconds
            sqs.delete_message(QueueUrl=JOBS_URL, ReceiptHandle=msg["ReceiptHandle"])


if __name__ == "__main__":
    main()
