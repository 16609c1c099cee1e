"""Which aws-cdk-lib is installed, and the one place that knows what differs between the supported releases.

visguard supports every aws-cdk-lib 2.x from ``MIN_CDK_VERSION`` (2.150.0) to the newest; the CI runs the CDK
tests on both ends. What differs, measured on 2.150.0 and 2.275.0, and how visguard bridges it:

- Plugin interface: ``IPolicyValidationPlugin`` (the graduated API, with ``Validations.of(app).add_plugins``)
  where it exists, ``IPolicyValidationPluginBeta1`` before it (plugins are passed as
  ``App(policy_validation_beta1=[...])``, which the newest releases still accept). ``VisGuardChecks``
  implements whichever the release has (both where both exist), with one ``validate``: the report and violation
  structs are picked here, and their common fields are the only ones used.
- ``IPolicyValidationContext`` (``stack_templates``) is not importable before the graduation; the context's
  ``template_paths`` exists in every release and is what visguard reads.
- Acknowledgements: ``Validations``/``Acknowledgment`` do not exist before the graduation, and plugins from
  third parties were not acknowledgeable for a while after it. ``visguard.constructs.acknowledge(scope, rule,
  reason)`` works on every release: it records the same ``aws:cdk:acknowledged-rules`` metadata that
  ``Validations.acknowledge`` writes, and both GuardedQueue's checks and VisGuardChecks honour that metadata
  themselves.
- The validation report: before the graduation the report (printed and ``validation-report.json``) leaves out a
  plugin that passed or found only warnings, so on those releases ``VisGuardChecks`` prints its warnings, infos
  and its summary to stderr itself (the CDK CLI shows it).
"""

from __future__ import annotations

from functools import lru_cache
from importlib import metadata
from types import SimpleNamespace

# The oldest aws-cdk-lib the CDK tests run on (the `[cdk]` extra's lower bound in pyproject.toml, Makefile
# CDK_MIN): policy-validation plugins, Annotations.add_warning_v2 and everything GuardedQueue uses exist there.
MIN_CDK_VERSION = "2.150.0"
MAX_CDK_MAJOR = 2


class UnsupportedCdkVersion(ImportError):
    """The installed aws-cdk-lib is outside the range visguard supports."""


def _parse(version: str) -> tuple[int, ...]:
    parts = []
    for piece in version.split(".")[:3]:
        digits = "".join(ch for ch in piece if ch.isdigit()) or "0"  # "0rc1" -> 0
        parts.append(int(digits))
    return tuple(parts)


def installed_version() -> str | None:
    try:
        return metadata.version("aws-cdk-lib")
    except metadata.PackageNotFoundError:
        return None


def check_version(version: str | None) -> None:
    """Raise ``UnsupportedCdkVersion`` naming the installed version and the supported range."""
    want = f"aws-cdk-lib>={MIN_CDK_VERSION},<{MAX_CDK_MAJOR + 1}"
    if version is None:
        raise UnsupportedCdkVersion(
            f"visguard.constructs needs aws-cdk-lib {MIN_CDK_VERSION} or newer (2.x), and it is not installed: "
            f"pip install 'visguard[cdk]' (or '{want}')"
        )
    if _parse(version) < _parse(MIN_CDK_VERSION) or _parse(version)[0] > MAX_CDK_MAJOR:
        raise UnsupportedCdkVersion(
            f"visguard.constructs supports aws-cdk-lib {MIN_CDK_VERSION} to the newest 2.x; installed: "
            f"aws-cdk-lib {version}. Upgrade it: pip install '{want}'"
        )


@lru_cache(maxsize=1)
def require_supported() -> str:
    """The installed aws-cdk-lib version, after checking it is supported (called before importing aws_cdk)."""
    version = installed_version()
    check_version(version)
    return version  # type: ignore[return-value]


@lru_cache(maxsize=1)
def api():
    """The policy-validation names of the installed release (a small namespace, resolved once)."""
    require_supported()
    import aws_cdk

    graduated = hasattr(aws_cdk, "IPolicyValidationPlugin")
    interfaces = tuple(
        getattr(aws_cdk, name)
        for name in ("IPolicyValidationPlugin", "IPolicyValidationPluginBeta1")
        if hasattr(aws_cdk, name)
    )
    return SimpleNamespace(
        graduated=graduated,
        interfaces=interfaces,
        report=aws_cdk.PolicyValidationPluginReport
        if graduated
        else aws_cdk.PolicyValidationPluginReportBeta1,
        violation=aws_cdk.PolicyViolation if graduated else aws_cdk.PolicyViolationBeta1,
        resource=aws_cdk.PolicyViolatingResource if graduated else aws_cdk.PolicyViolatingResourceBeta1,
        validations=getattr(aws_cdk, "Validations", None),
        acknowledgment=getattr(aws_cdk, "Acknowledgment", None),
        # Before the graduation the report drops a plugin that passed or has only warnings: print them.
        prints_own_warnings=not hasattr(aws_cdk, "Validations"),
    )
