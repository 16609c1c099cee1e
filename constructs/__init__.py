"""AWS CDK constructs of visguard, imported as ``visguard.constructs``."""

if __name__ == "constructs":  # pragma: no cover - only when the repo root is on sys.path
    raise ImportError(
        "visguard's constructs/ folder is shadowing the jsii 'constructs' package that aws-cdk-lib needs: the "
        "repository root is on sys.path. Run Python with -P (or PYTHONSAFEPATH=1), use the 'visguard' console "
        'script, or run pytest with --import-mode=importlib (README.md, the note under "Install").'
    )

# Exports load lazily (PEP 562): importing aws_cdk takes seconds, and visguard.constructs.settings (pure) must
# stay importable without it.
_EXPORTS = {
    "MIN_CDK_VERSION": ".compat",
    "UnsupportedCdkVersion": ".compat",
    "acknowledge": ".acks",
    "add_checks": ".checks",
    "AuditRole": ".audit_role",
    "GuardError": ".guarded_queue",
    "GuardedQueue": ".guarded_queue",
    "LambdaSpec": ".settings",
    "QueueSettings": ".settings",
    "VisGuardChecks": ".checks",
    "WorkerSpec": ".settings",
    "ack_id": ".acks",
    "add_queue_alarms": ".alarms",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    if _EXPORTS[name] not in (".settings", ".compat"):  # the rest imports aws_cdk: say how to install it
        from .compat import require_supported

        require_supported()
    value = getattr(importlib.import_module(_EXPORTS[name], __name__), name)
    globals()[name] = value
    return value
