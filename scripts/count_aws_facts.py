"""Count the places in visguard's source that state an AWS-owned number themselves (issue 14, closing note).

A "place" is a numeric literal in code (not in a docstring, comment or message text) whose value is one of the
distinctive AWS limits/defaults below, or a call ``ndtri(0.99)``/``inv_cdf(0.99)`` (z of the p99), outside
``common/facts.py``, the one home (and the one z(0.99) in ``common/policy.py``). Usage: ``python -P scripts/count_aws_facts.py [ROOT]`` (prints per file + total).
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path

AWS_NUMBERS = {
    43_200: "visibility cap",
    1_209_600: "max retention",
    345_600: "default retention",
    900: "Lambda max timeout / max delay",
    120_000: "in-flight quota (standard)",
    20_000: "in-flight quota (FIFO)",
    262_144: "max message size",
    10_000: "max batch size (standard)",
    1_250: "max ESM concurrency",
    2.3263478740408408: "z of the 99th percentile",
}
FOLDERS = ("engine", "linter", "constructs", "audit", "common", "cdk_app")
HOME = Path("common/facts.py")
Z99_HOME = Path("common/policy.py")  # the one z(0.99), next to the policy that uses it


def count(root: Path) -> Counter:
    found: Counter = Counter()
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*.py")):
            rel = path.relative_to(root)
            if rel == HOME:
                continue
            tree = ast.parse(path.read_text())
            for node in ast.walk(tree):
                if (
                    isinstance(node, ast.Constant)
                    and type(node.value) in (int, float)
                    and node.value in AWS_NUMBERS
                ) or (
                    rel != Z99_HOME
                    and isinstance(node, ast.Call)
                    and getattr(node.func, "id", getattr(node.func, "attr", "")) in ("ndtri", "inv_cdf")
                    and node.args
                    and isinstance(node.args[0], ast.Constant)
                    and node.args[0].value == 0.99
                ):
                    found[str(rel)] += 1
    return found


if __name__ == "__main__":
    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    found = count(root)
    for file, n in found.most_common():
        print(f"{n:4d}  {file}")
    print(f"{sum(found.values()):4d}  total in {len(found)} files")
