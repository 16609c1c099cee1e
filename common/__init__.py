"""visguard: keep Amazon SQS visibility timeouts, redrive policies and dead-letter queues right."""

__version__ = "0.1.0"
