"""Differential test: visguard's decoder reads templates exactly as cfn-lint's decoder does.

visguard does not use ``cfnlint.decode`` at run time (its import alone costs more than the 0.3 s budget of
``visguard lint``), so this test holds the two to the same data and the same key lines: every fixture and
example template, and mutated texts wherever both decoders accept them.
"""

import glob
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from visguard.errors import VisguardError
from visguard.linter.loaders import decode

from .conftest import FIXTURES

ROOT = os.path.abspath(os.path.join(FIXTURES, "..", "..", "..", ".."))
FILES = sorted(
    glob.glob(os.path.join(FIXTURES, "*.yaml"))
    + glob.glob(os.path.join(FIXTURES, "*.json"))
    + glob.glob(os.path.join(ROOT, "examples", "templates", "*"))
    + glob.glob(os.path.join(ROOT, "tests", "linter", "fixtures", "rules", "*", "cfn", "*.yaml"))
)


def _cfnlint(text: str):
    from cfnlint.decode import decode_str

    template, errors = decode_str(text)
    return None if errors else template


def _lines(doc, out, path=()):
    """(path, line) of every mapping key, from either decoder's nodes."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            line, _ = decode.position_of(doc, k)
            out[(*path, str(k))] = line
            _lines(v, out, (*path, str(k)))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            _lines(v, out, (*path, i))
    return out


def test_same_data_and_key_lines_as_cfn_lint_on_every_fixture():
    assert len(FILES) >= 20
    for path in FILES:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        ours, theirs = decode.loads(text, file=path), _cfnlint(text)
        assert theirs is not None, path
        assert ours == theirs, path
        if not path.endswith(".json"):  # cfn-lint's JSON nodes mark values, visguard marks keys
            assert _lines(ours, {}) == _lines(theirs, {}), path


SOURCES = [open(p, encoding="utf-8").read() for p in FILES if p.endswith((".yaml", ".json"))]  # noqa: SIM115
SNIPPETS = [
    "!Ref ",
    "!GetAtt ",
    "!Sub ",
    "{",
    "}",
    "[",
    "]",
    ":",
    "- ",
    "\n",
    "  ",
    '"',
    "'",
    "0x1F",
    "yes",
    "1e3",
    "~",
]


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(SOURCES))
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(text)))
        if draw(st.booleans()):
            text = text[:i] + draw(st.sampled_from(SNIPPETS)) + text[i:]
        else:
            text = text[:i] + text[i + draw(st.integers(1, 12)) :]
    return text


@settings(
    max_examples=int(os.environ.get("VISGUARD_FUZZ_EXAMPLES", "300")),
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(mutated())
def test_mutated_texts_decode_the_same_wherever_both_accept_them(text):
    name = "m.json" if text.lstrip().startswith("{") else "m.yaml"
    try:
        ours = decode.loads(text, file=name)
    except VisguardError:
        return
    theirs = _cfnlint(text)
    if theirs is not None and isinstance(theirs, dict):
        assert ours == theirs
