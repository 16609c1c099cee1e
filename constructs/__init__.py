"""AWS CDK constructs of visguard, imported as ``visguard.constructs``."""

if __name__ == "constructs":  # pragma: no cover - only when the repo root is on sys.path
    raise ImportError(
        "visguard's constructs/ folder is shadowing the jsii 'constructs' package that aws-cdk-lib needs: the "
        "repository root is on sys.path. Run Python with -P (or PYTHONSAFEPATH=1), use the 'visguard' console "
        "script, or run pytest with --import-mode=importlib (DESIGN.md)."
    )

from .alarms import add_queue_alarms
from .audit_role import AuditRole
from .checks import VisGuardChecks
from .guarded_queue import GuardedQueue, GuardError, ack_id
from .settings import LambdaSpec, QueueSettings, WorkerSpec

__all__ = [
    "AuditRole",
    "GuardError",
    "GuardedQueue",
    "LambdaSpec",
    "QueueSettings",
    "VisGuardChecks",
    "WorkerSpec",
    "ack_id",
    "add_queue_alarms",
]
