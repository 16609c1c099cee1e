"""The supported aws-cdk-lib range and the CDK-terms fixes: pure functions, no synth."""

from __future__ import annotations

import pytest


def test_below_the_range_a_clear_error_names_the_installed_version_and_the_minimum():
    from visguard.constructs.compat import MIN_CDK_VERSION, UnsupportedCdkVersion, check_version

    with pytest.raises(UnsupportedCdkVersion, match=r"installed: aws-cdk-lib 2\.100\.0.*>=2\.150\.0,<3"):
        check_version("2.100.0")
    with pytest.raises(UnsupportedCdkVersion, match="aws-cdk-lib 3.0.0"):
        check_version("3.0.0")
    with pytest.raises(UnsupportedCdkVersion, match="not installed"):
        check_version(None)
    for ok in (MIN_CDK_VERSION, "2.150.1", "2.275.0", "2.999.0"):
        check_version(ok)


def test_the_extra_states_the_tested_range():
    import tomllib
    from pathlib import Path

    from visguard.constructs.compat import MIN_CDK_VERSION

    root = Path(__file__).resolve().parents[2]
    extra = tomllib.loads((root / "pyproject.toml").read_text())["project"]["optional-dependencies"]["cdk"]
    assert f"aws-cdk-lib>={MIN_CDK_VERSION},<3" in extra
    assert f"CDK_MIN := {MIN_CDK_VERSION}" in (root / "Makefile").read_text()  # the version CI tests


def test_installed_release_is_supported_and_its_plugin_api_resolved(cdk):
    from visguard.constructs.compat import api, installed_version, require_supported

    assert require_supported() == installed_version()
    names = api()
    assert names.interfaces  # IPolicyValidationPlugin and/or IPolicyValidationPluginBeta1
    assert names.graduated == hasattr(cdk, "IPolicyValidationPlugin")
    assert (names.validations is None) == names.prints_own_warnings


def _cdk_fix(rule: str, fix, guarded: bool) -> str | None:
    """A finding's fix as the CDK vocabulary words it (a GuardedQueue's, or an aws_sqs.Queue's)."""
    from visguard.linter.model import Finding, Location, Queue, Severity
    from visguard.linter.vocabulary import word

    q = Queue(id="Q", location=Location("Stack.template.json"), source="cdk")
    f = Finding(rule, Severity.WARNING, "m", "Q", q.location, fix=fix)
    return word(f, q, "construct" if guarded else "cdk").fix


def _rule_fix(rule: str):
    from visguard.linter.rules import RULES

    return RULES[rule].fix_text


@pytest.mark.parametrize(
    ("rule", "guarded", "want"),
    [
        ("VG011", False, "Duration.seconds(180) on the aws_sqs"),
        ("VG010", True, "seconds(720)"),
        ("VG031", True, "add_lambda_consumer(fn, ..., report_batch_item_failures=True)"),
        ("VG031", False, "SqsEventSource(queue, ..., report_batch_item_failures=True)"),
        ("VG021", True, "GuardedQueue(..., max_receive_count=5)"),
        ("VG021", False, "sqs.DeadLetterQueue(queue=dlq, max_receive_count=5)"),
        ("VG013", False, "visibility_timeout=Duration.seconds(365)"),
    ],
)
def test_fixes_in_cdk_terms(rule, guarded, want):
    from visguard.linter.rules._base import raise_visibility
    from visguard.linter.vocabulary import Text

    fix = {
        "VG011": raise_visibility("180 s (3 min)", 180),
        "VG010": raise_visibility("6 x 120 s (2 min) = 720 s (12 min)", 720),
        "VG013": Text(
            "Lower {visibility_timeout} towards {need}.", id="lower_visibility", need="365 s", value=365
        ),
    }.get(rule) or _rule_fix(rule)
    assert want in _cdk_fix(rule, fix, guarded)


def test_rules_without_cdk_advice_keep_the_linter_fix():
    assert _cdk_fix("VG041", _rule_fix("VG041"), guarded=False).startswith(
        "Keep the FIFO visibility timeout close"
    )
    assert _cdk_fix("VG011", None, guarded=True) is None


def test_acknowledge_needs_a_visguard_rule_and_a_reason():
    from visguard.constructs import acknowledge

    with pytest.raises(ValueError, match="not a visguard rule id"):
        acknowledge(object(), "E3505", reason="cfn-lint's")
    with pytest.raises(ValueError, match="give a reason for acknowledging VG011"):
        acknowledge(object(), "visguard::VG011", reason="  ")


def test_acknowledgements_apply_to_the_path_and_below():
    from visguard.constructs.acks import is_acknowledged

    acks = [("App/Orders", "visguard::VG021", "cheap retries"), ("Other", "visguard::VG011", "")]
    assert is_acknowledged(acks, "VG021", "App/Orders/Queue/Resource") == "cheap retries"
    assert is_acknowledged(acks, "VG021", "App/OrdersTwo/Queue/Resource") is None  # a sibling, not a child
    assert is_acknowledged(acks, "VG011", "App/Orders/Queue/Resource") is None
    assert is_acknowledged(acks, "VG011", "Other") == ""  # acknowledged, without a reason (VG900 reports it)
