"""Starts the billing worker: the queue from the settings module, the poller's default visibility (45 s), which
replaces the queue's 600 s on every receive."""

from .poller import Poller
from .settings import BILLING_QUEUE_URL


def charge(body: str) -> None:
    ...  # a few seconds per invoice


if __name__ == "__main__":
    Poller(BILLING_QUEUE_URL).run(charge)
