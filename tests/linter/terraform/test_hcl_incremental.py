"""The language server's incremental HCL parse (``hcl.use_trees``): after any edit, the blocks, and the error of
a text that does not parse, are exactly those of a one-shot parse of the same text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from visguard.errors import VisguardError
from visguard.linter.loaders.terraform import hcl

BASE = """\
variable "vt" {
  default = 30
}

resource "aws_sqs_queue" "q" {
  name                       = "q-${var.vt}"
  visibility_timeout_seconds = var.vt * 2
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.dlq.arn
    maxReceiveCount     = 5
  })
  tags = { team = "ünïcode" }
}

resource "aws_sqs_queue" "dlq" {
  name   = "dlq"
  policy = <<EOT
{"Version": "2012-10-17"}
EOT
}
"""


def _outcome(text: str):
    """What parsing ``text`` gives: the tree as an S-expression and the blocks, or the error's line."""
    try:
        root, src = hcl.parse_source(text, "main.tf")
        return ("ok", str(root), repr(hcl._file_body(root, src, "main.tf")))
    except VisguardError as exc:
        return ("error", exc.detail, exc.place)


def _incremental(texts: list[str]):
    trees: dict = {}
    before = hcl.use_trees(trees)
    try:
        return [_outcome(t) for t in texts]
    finally:
        hcl.use_trees(before)


def _one_shot(texts: list[str]):
    assert hcl._TREES is None
    return [_outcome(t) for t in texts]


def test_edits_parse_as_a_one_shot_parse():
    texts = [
        BASE,
        BASE.replace("default = 30", "default = 3000"),
        BASE.replace("maxReceiveCount     = 5", "maxReceiveCount = 5\n    extra = 1"),
        BASE.replace('name   = "dlq"', 'name   = "dlq'),  # does not parse: the same error
        BASE,
        "\n\n" + BASE,
        BASE.replace("ünïcode", "ascii"),
        BASE[: len(BASE) // 2],
        "",
        BASE,
    ]
    got = _incremental(texts)
    assert got == _one_shot(texts)
    assert got[3][0] == "error" and got[7][0] == "error"


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, len(BASE)),
            st.integers(0, 12),
            st.sampled_from(["", "x", "}", "{", '"', "\n", " = 1", "é", "${"]),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_random_edits_parse_as_a_one_shot_parse(edits):
    texts, text = [BASE], BASE
    for at, cut, insert in edits:
        at = min(at, len(text))
        text = text[:at] + insert + text[at + cut :]
        texts.append(text)
    assert _incremental(texts) == _one_shot(texts)


def test_common_prefix_and_suffix():
    assert hcl._common(b"abcXdef", b"abcYYdef") == (3, 3)
    assert hcl._common(b"aaaa", b"aaaa") == (4, 0)
    assert hcl._common(b"", b"abc") == (0, 0)
    assert hcl._common(b"abab", b"ab") == (2, 0)


def test_kept_trees_are_bounded():
    trees: dict = {}
    before = hcl.use_trees(trees)
    try:
        for i in range(hcl.MAX_KEPT_TREES + 10):
            hcl.parse_source(f"x{i} = 1\n", f"f{i}.tf")
    finally:
        hcl.use_trees(before)
    assert len(trees) == hcl.MAX_KEPT_TREES
    assert "f0.tf" not in trees and f"f{hcl.MAX_KEPT_TREES + 9}.tf" in trees
