"""CDK terms for the constructs' own texts (``settings.py``): a Duration as a user writes it, a heartbeat plan as
``add_worker_consumer`` arguments. They live with the CDK vocabulary in ``visguard.linter.vocabulary``, which
words every finding on a CDK app (the validation report, GuardedQueue annotations, ``visguard lint cdk.out``)."""

from __future__ import annotations

from visguard.linter.vocabulary import duration_expr, heartbeat_fix

__all__ = ["duration_expr", "heartbeat_fix"]
