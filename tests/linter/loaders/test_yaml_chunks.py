"""The language server's piecewise YAML parse (decode_yaml.ChunkCache): the same document, positions included, as
the whole parse, for every YAML template of the rule fixtures and the examples; the same findings when every
rule fixture is linted through it; only the changed piece parsed again; and documents it must not split are
parsed whole."""

from __future__ import annotations

from pathlib import Path

import pytest
from visguard.errors import VisguardError
from visguard.linter.api import lint_paths
from visguard.linter.loaders import decode_yaml
from visguard.linter.loaders.decode import PosDict

ROOT = Path(__file__).resolve().parents[3]
YAML = sorted(
    p
    for base in (ROOT / "tests/linter/fixtures", ROOT / "examples")
    for p in base.rglob("*")
    if p.suffix in (".yaml", ".yml", ".template") and p.is_file()
)


def same(a, b, where="$"):
    assert type(a) is type(b), where
    if isinstance(a, dict):
        assert list(a) == list(b), where
        if isinstance(a, PosDict):
            assert (a.line, a.col, a.key_pos) == (b.line, b.col, b.key_pos), where
        for k in a:
            same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same(x, y, f"{where}[{i}]")
    else:
        assert a == b, where


@pytest.fixture
def chunks():
    cache = decode_yaml.ChunkCache()
    before = decode_yaml.use_chunks(cache)
    yield cache
    decode_yaml.use_chunks(before)


def test_every_fixture_template_decodes_the_same_in_pieces(chunks):
    split = 0
    for path in YAML:
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            whole = decode_yaml._load_whole(text, str(path))
        except Exception:
            continue  # a bad-input fixture: the piecewise parse must fail the same way (below)
        if chunks.load(text, str(path)) is not None:
            split += 1
        same(decode_yaml.loads_yaml(text, file=str(path)), whole, str(path))
    assert split > 50  # most templates are split, not all parsed whole


def _key(result):
    return sorted((f.rule, f.queue, f.consumer, f.message, f.location.line) for f in result.findings), sorted(
        str(e) for e in result.errors
    )


def test_every_rule_fixture_lints_the_same_through_the_pieces(chunks):
    folders = sorted({p.parent for p in (ROOT / "tests/linter/fixtures/rules").rglob("*.yaml")})
    for folder in folders:
        decode_yaml.use_chunks(None)
        plain = _key(lint_paths([str(folder)]))
        decode_yaml.use_chunks(chunks)
        first, again = _key(lint_paths([str(folder)])), _key(lint_paths([str(folder)]))
        assert first == plain, folder
        assert again == plain, folder  # the shared pieces were not changed by the first lint


def test_a_flow_style_section_is_one_piece(chunks):
    text = "AWSTemplateFormatVersion: '2010-09-09'\nResources: {A: {Type: AWS::SQS::Queue}}\n"
    same(chunks.load(text, "t.yaml"), decode_yaml._load_whole(text, "t.yaml"))


def test_a_change_parses_only_its_resource(chunks):
    body = ["AWSTemplateFormatVersion: '2010-09-09'", "Resources:"]
    for i in range(50):
        body += [
            f"  Q{i}:",
            "    Type: AWS::SQS::Queue",
            "    Properties:",
            f"      VisibilityTimeout: {30 + i}",
        ]
    text = "\n".join(body) + "\n"
    decode_yaml.loads_yaml(text, file="t.yaml")
    parsed = chunks.parsed
    doc = decode_yaml.loads_yaml(
        text.replace("VisibilityTimeout: 40", "VisibilityTimeout: 400"), file="t.yaml"
    )
    assert chunks.parsed == parsed + 1
    assert doc["Resources"]["Q10"]["Properties"]["VisibilityTimeout"] == 400
    assert doc["Resources"]["Q10"]["Properties"].key_pos["VisibilityTimeout"] == (2 + 10 * 4 + 4, 7)


@pytest.mark.parametrize(
    "text",
    [
        "Resources:\n  A: &x {Type: AWS::SQS::Queue}\n  B: *x\n",  # an alias: pieces would lose it
        "---\nResources:\n  A: {Type: AWS::SQS::Queue}\n",  # a document marker
        "Resources:\n\tA: {}\n",  # a tab
        "Resources:\n  A: {Type: AWS::SQS::Queue}\n  A: {Type: AWS::SQS::Queue}\n",  # a key twice
        "Resources:\n  A: {Type: [unclosed\n  B: {}\n",  # a piece that does not parse
    ],
)
def test_what_must_not_be_split_is_parsed_whole(chunks, text):
    assert chunks.load(text, "t.yaml") is None
    try:
        want = ("ok", decode_yaml._load_whole(text, "t.yaml"))
    except Exception as exc:  # the whole parse's error, with its line, is what the user gets
        want = ("error", str(exc))
    try:
        got = ("ok", decode_yaml.loads_yaml(text, file="t.yaml"))
    except Exception as exc:
        got = ("error", str(exc))
    assert got[0] == want[0] and (got[0] == "error" and got[1] == want[1] or got[0] == "ok")


def test_a_deeply_nested_resource_gets_the_whole_parse_error(chunks):
    deep = "  Q:\n    Type: AWS::SQS::Queue\n    Properties:\n      M: " + "[" * 5000 + "]" * 5000 + "\n"
    text = "AWSTemplateFormatVersion: '2010-09-09'\nResources:\n" + deep
    with pytest.raises(VisguardError) as whole:
        decode_yaml._load_whole(text, "t.yaml")
    with pytest.raises(VisguardError) as pieces:
        decode_yaml.loads_yaml(text, file="t.yaml")
    # the whole parse's one line, naming the file and the line
    assert str(pieces.value) == str(whole.value) and str(pieces.value).startswith("t.yaml:6: ")
    assert "\n" not in str(pieces.value)
