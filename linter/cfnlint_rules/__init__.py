"""visguard's rules as a cfn-lint plugin: ``cfn-lint -a visguard.linter.cfnlint_rules template.yaml``.

One cfn-lint rule per visguard rule, generated from the catalogue: VGnnn becomes E9nnn, W9nnn or I9nnn by
its severity (cfn-lint reads the severity from the first letter; 9xxx is cfn-lint's range for user rules).
E9000 reports a template visguard could not read. Informational rules (I9xxx) show with ``-c I`` like
cfn-lint's own. The table is in linter/README.md and ``ID_MAP`` below.
"""

from __future__ import annotations

from visguard.linter.cfnlint_rules._base import LoadErrorRule, make_rule_class
from visguard.linter.rules import ALL_RULES
from visguard.linter.rules._base import cfnlint_id

ID_MAP: dict[str, str] = {rid: cfnlint_id(rule) for rid, rule in ALL_RULES.items()}

for _rule in ALL_RULES.values():
    _cls = make_rule_class(_rule)
    globals()[_cls.__name__] = _cls
del _rule, _cls

__all__ = ["ID_MAP", "LoadErrorRule"]
