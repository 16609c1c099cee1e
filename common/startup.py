"""Start-up work of the ``visguard`` console script, and only of it: imported by :func:`visguard.cli.entry` before
the command runs (a library caller, a test or pre-commit's own entry never pays for it or sees it).

PyYAML's pure-Python reader (``yaml.reader.Reader``, which visguard never runs: libyaml reads the text) compiles,
when the package is imported, a negated character class spanning all of Unicode, and Python's regex compiler walks
every code point of it: a large share of a one-template ``visguard lint`` (benchmarks/RESULTS.md, "Start-up"). The
same set written as its complement (the few non-printable ranges) compiles quickly; seeded into the ``re`` module's
cache under PyYAML's pattern, PyYAML's compile becomes a cache hit. The seed is equal on every code point
(tests/linter/loaders/test_decode.py); if a PyYAML or Python release changes the pattern or the cache, it is simply
never looked up. It is put in place just before ``yaml`` is first imported (a JSON or Terraform lint never
compiles it). Offered upstream: see benchmarks/RESULTS.md.
"""

from __future__ import annotations

import re
import sys

PYYAML_PRINTABLE = "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
NON_PRINTABLE = "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]"


def seed_pyyaml_pattern() -> None:
    if isinstance(getattr(re, "_cache", None), dict):
        re._cache.setdefault((str, PYYAML_PRINTABLE, 0), re.compile(NON_PRINTABLE))  # type: ignore[attr-defined]


class _BeforeYaml:
    """An import hook that seeds the pattern when ``yaml`` is first imported, then leaves ``sys.meta_path``; it
    finds nothing itself (the normal finders import PyYAML)."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name == "yaml":
            sys.meta_path.remove(_BeforeYaml)
            seed_pyyaml_pattern()
        return None


if "yaml" in sys.modules:  # too late for a seed (imported by whoever ran first)
    pass
elif _BeforeYaml not in sys.meta_path:
    sys.meta_path.insert(0, _BeforeYaml)
