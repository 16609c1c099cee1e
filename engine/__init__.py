"""visguard.engine: exact Amazon SQS visibility semantics on a virtual clock.

``Engine`` (engine/core.py) is the native API the simulator drives; ``Engine.client()`` (engine/client.py) is a
boto3-shaped client over the same core. See engine/README.md for options and documented deviations.
"""

from .core import Engine, Message, Queue, Receipt
from .errors import SQSError

__all__ = ["Engine", "Message", "Queue", "Receipt", "SQSError"]
