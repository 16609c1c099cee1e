"""Celery on SQS: the reminders queue is created by Terraform, not by Kombu."""

from celery import Celery

app = Celery("reminders", broker="sqs://")
app.conf.update(
    broker_transport_options={
        "region": "eu-west-1",
        "visibility_timeout": 3600,
        "predefined_queues": {
            "orders": {"url": "https://sqs.eu-west-1.amazonaws.com/123456789012/orders"},
        },
    },
    task_acks_late=True,
)


@app.task(bind=True, time_limit=300)
def send_reminder(self, order_id: str) -> None:
    ...


def schedule(order_id: str) -> None:
    # remind the customer in two hours
    send_reminder.apply_async(args=[order_id], countdown=7200)
