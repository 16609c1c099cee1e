"""Celery on SQS (LocalStack): the reports queue is created by ./localstack/ready.d/queues.sh; the worker is
started by ./Procfile."""

from celery import Celery

app = Celery("reports", broker="sqs://localstack:4566")
app.conf.update(
    broker_transport_options={"region": "us-east-1", "visibility_timeout": 600},
    task_default_queue="reports",
    task_acks_late=True,
)


@app.task
def build_report(report_id: str) -> None: ...  # up to 15 minutes (the worker's --time-limit)
