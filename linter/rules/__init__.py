"""The rule catalogue: one rule per file ``vgNNN_short_name.py``, registered here by discovery.

``RULES`` maps a rule id to its :class:`Rule` (metadata plus ``check``). Suppression and configuration
findings (VG900-VG901) are produced by the linter itself (``visguard.linter.api``) and are described by
``META_RULES`` so they appear in ``visguard rules`` and SARIF like any other rule.
"""

from __future__ import annotations

import importlib
import os

from visguard.docs import DOCS_URL
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, as_number, fmt_rate, fmt_seconds

__all__ = [
    "RULES",
    "META_RULES",
    "ALL_RULES",
    "Rule",
    "DEFAULT_SETTINGS",
    "fmt_rate",
    "fmt_seconds",
    "as_number",
]


def _discover() -> dict[str, Rule]:
    rules: dict[str, Rule] = {}
    names = sorted(n for n in _module_names() if n.startswith("vg"))
    for name in names:
        mod = importlib.import_module(f"{__name__}.{name}")
        slug = name.split("_", 1)[1].replace("_", "-")
        rule = mod.RULE.bound(mod.check, slug=slug, check_consumer=getattr(mod, "check_consumer", None))
        if rule.id in rules:  # pragma: no cover - caught by the registry test
            raise RuntimeError(f"duplicate rule id {rule.id} in {name}")
        rules[rule.id] = rule
    return rules


def _module_names() -> set[str]:
    """The modules of this package: os.listdir of its folder (pkgutil would import typing, a cost at every
    start), or pkgutil when the package is not a folder (the code zip the audit ships to Spark executors)."""
    try:
        return {f[:-3] for folder in __path__ for f in os.listdir(folder) if f.endswith(".py")}
    except OSError:
        import pkgutil

        return {m.name for m in pkgutil.iter_modules(__path__)}


RULES: dict[str, Rule] = _discover()

SUPPRESSIONS_SOURCE = "https://github.com/visguard/visguard/blob/main/linter/README.md#suppressions"

META_RULES: dict[str, Rule] = {
    "VG900": Rule(
        id="VG900",
        slug="suppression-without-reason",
        title="Suppression without a reason",
        severity=Severity.WARNING,
        rationale=(
            "A suppression silences a finding for everyone who reads the template later. Without a reason "
            "nobody can tell whether it is still valid, so visguard ignores it (the finding it would hide is "
            "still reported) and reports the suppression itself."
        ),
        source=SUPPRESSIONS_SOURCE,
        fix="Add a reason: {suppress_example}.",
        tags=("suppression",),
    ),
    "VG901": Rule(
        id="VG901",
        slug="suppression-unknown-rule",
        title="Suppression names an unknown rule",
        severity=Severity.WARNING,
        rationale=(
            "A suppression for a rule id that does not exist (a typo, or a rule from another tool) hides nothing "
            "and suggests a finding is handled when it is not."
        ),
        source=SUPPRESSIONS_SOURCE,
        fix="Use an id listed by `visguard rules` (VGnnn), or remove the suppression.",
        tags=("suppression",),
    ),
    "VG902": Rule(
        id="VG902",
        slug="value-not-evaluated",
        title="A value the loader could not evaluate",
        severity=Severity.INFO,
        rationale=(
            "Terraform and the Serverless Framework compute some values only at plan or deploy time (a data "
            "source, an SSM parameter, a remote module output). visguard never guesses such a value: the rules "
            "that need it stay quiet, and this note says once what was not evaluated and why, so a clean run is "
            "not mistaken for a checked one."
        ),
        source=f"{DOCS_URL}terraform/",  # the site's Terraform guide (what only Terraform can know)
        fix="Give the value on the command line (Terraform: --var NAME=VALUE or --var-file; Serverless: "
        "--var NAME=VALUE for ${{opt:NAME}}, --var env:NAME=VALUE), lint the Terraform plan JSON (terraform show "
        "-json), or write the value as a literal.",
        tags=("loader",),
    ),
}

ALL_RULES: dict[str, Rule] = {**RULES, **META_RULES}

# Every rule setting with its default (visguard.yaml `settings:` overrides them).
DEFAULT_SETTINGS: dict = {}
for _rule in RULES.values():
    DEFAULT_SETTINGS.update(_rule.settings)
