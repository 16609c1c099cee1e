"""Celery on SQS with no declared queue: Kombu creates `mail` at worker start, with the visibility below and
no redrive policy, so a message that always fails is retried until the queue's retention ends."""

from celery import Celery

app = Celery("mailer", broker="sqs://localstack:4566")
app.conf.update(
    broker_transport_options={"region": "us-east-1", "visibility_timeout": 300},
    task_default_queue="mail",
)


@app.task
def send(to: str) -> None: ...
