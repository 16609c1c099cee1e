"""AWS CDK constructs of visguard, imported as ``visguard.constructs``."""

if __name__ == "constructs":  # pragma: no cover - only when the repo root is on sys.path
    raise ImportError(
        "visguard's constructs/ folder is shadowing the jsii 'constructs' package that aws-cdk-lib needs: the "
        "repository root is on sys.path. Run Python with -P (or PYTHONSAFEPATH=1), use the 'visguard' console "
        "script, or run pytest with --import-mode=importlib (DESIGN.md)."
    )
