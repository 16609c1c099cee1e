"""The one glob matcher for queues: visguard.yaml suppressions (``queue:``) and profiles (``match:``).

A glob (``fnmatch`` rules, case-sensitive: ``*``, ``?``, ``[...]``) matches a queue when it matches any of
the names the queue goes by: its id in the model (a logical id, ``Stack/LogicalId`` in a cdk.out, an address
or an ARN), the last part of that id (the logical id alone in a cdk.out), its queue name, and its CDK
construct path. So ``OrdersQueue``, ``orders-*`` and ``OrdersStack/Orders/*`` all work the same way for a
suppression and a profile, in a template, a cloud assembly, a visguard.yaml or a fleet inventory.
"""

from __future__ import annotations

import fnmatch

from visguard.linter.model import Queue


def queue_names(queue: Queue) -> list[str]:
    names = [queue.id]
    if "/" in queue.id:
        names.append(queue.id.rsplit("/", 1)[1])
    if queue.name:
        names.append(queue.name)
    if queue.location is not None and queue.location.construct_path:
        names.append(queue.location.construct_path)
    return names


def is_glob(pattern: str) -> bool:
    return any(ch in pattern for ch in "*?[")


def matches(pattern: str, queue: Queue) -> bool:
    """Whether ``pattern`` (a glob or an exact name) names ``queue``. An exact name matches first, so a
    Terraform address such as ``aws_sqs_queue.jobs["a"]`` (whose ``[...]`` fnmatch reads as a character class)
    names its queue."""
    names = queue_names(queue)
    return pattern in names or any(fnmatch.fnmatchcase(n, pattern) for n in names)
