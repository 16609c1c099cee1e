"""The decoder: positions of keys, short-form tags, and every malformed-input error with its line."""

import pytest
from visguard.errors import VisguardError
from visguard.linter.loaders import decode, load_path


def test_yaml_keeps_key_lines_and_columns():
    doc = decode.loads("a: 1\nb:\n  c: !Ref X\n  d: [1, 2]\n", file="t.yaml")
    assert doc.key_pos["a"] == (1, 1)
    assert doc.key_pos["b"] == (2, 1)
    assert doc["b"].key_pos["c"] == (3, 3)
    assert decode.locate(doc, ["b", "d"]) == (4, 3)
    assert decode.locate(doc, ["b", "missing"]) == (2, 1)  # deepest key that exists


def test_json_keeps_key_lines_and_columns():
    text = '{\n  "Resources": {\n    "Q": {\n      "Type": "AWS::SQS::Queue"\n    }\n  }\n}\n'
    doc = decode.loads(text, file="t.json")
    assert doc.key_pos["Resources"] == (2, 3)
    assert decode.locate(doc, ["Resources", "Q", "Type"]) == (4, 7)
    assert doc == {"Resources": {"Q": {"Type": "AWS::SQS::Queue"}}}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("!Ref X", {"Ref": "X"}),
        ("!GetAtt Q.Arn", {"Fn::GetAtt": ["Q", "Arn"]}),
        ("!GetAtt Db.Endpoint.Address", {"Fn::GetAtt": ["Db", "Endpoint.Address"]}),
        ("!GetAtt [Q, Arn]", {"Fn::GetAtt": ["Q", "Arn"]}),
        ("!Sub '${A}-x'", {"Fn::Sub": "${A}-x"}),
        ("!Join [':', [a, b]]", {"Fn::Join": [":", ["a", "b"]]}),
        ("!If [C, 1, 2]", {"Fn::If": ["C", 1, 2]}),
        ("!Select [0, [a]]", {"Fn::Select": [0, ["a"]]}),
        ("!FindInMap [M, a, b]", {"Fn::FindInMap": ["M", "a", "b"]}),
        ("!ImportValue shared", {"Fn::ImportValue": "shared"}),
        ("!Equals [a, b]", {"Fn::Equals": ["a", "b"]}),
        ("!Not [!Condition C]", {"Fn::Not": [{"Condition": "C"}]}),
        ("!Base64 {Ref: X}", {"Fn::Base64": {"Ref": "X"}}),
    ],
)
def test_short_form_tags_become_long_form(text, expected):
    assert decode.loads(f"v: {text}\n", file="t.yaml")["v"] == expected


@pytest.mark.parametrize(
    ("name", "text", "line", "words"),
    [
        ("bad.json", '{\n  "a": 1,\n  "b": \n}\n', "4", "malformed JSON"),
        ("bad.yaml", "a: 1\nb: [1, 2\nc: 3\n", "3", "malformed YAML"),
        ("tab.yaml", "a:\n\tb: 1\n", "2", "malformed YAML"),
        ("tag.yaml", "a: 1\nb: !Bogus x\n", "2", "unknown tag !Bogus"),
        ("dup.yaml", "a: 1\nb: 2\na: 3\n", "3", "duplicate key 'a'"),
        ("dup.json", '{"a": 1,\n "a": 2}', "2", "duplicate key 'a'"),
        ("key.yaml", "? [a, b]\n: 1\n", "1", "mapping key must be a scalar"),
    ],
)
def test_malformed_documents_name_file_and_line(write, name, text, line, words):
    path = write(text, name)
    with pytest.raises(VisguardError) as err:
        load_path(path)
    assert err.value.file == path
    assert err.value.place == line
    assert words in str(err.value)
    assert "\n" not in str(err.value)


def test_missing_file(tmp_path):
    with pytest.raises(VisguardError, match="no such file"):
        load_path(str(tmp_path / "nope.yaml"))


def test_binary_and_non_utf8(tmp_path):
    p = tmp_path / "bin.yaml"
    p.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(VisguardError, match="UTF-8"):
        load_path(str(p))
    p.write_bytes(b"a: 1\x00\n")
    with pytest.raises(VisguardError, match="NUL"):
        load_path(str(p))


def test_file_over_10_mb_is_refused_before_reading(tmp_path):
    p = tmp_path / "huge.json"
    with open(p, "wb") as fh:
        fh.truncate(decode.MAX_BYTES + 1)
    with pytest.raises(VisguardError, match="10 MB limit") as err:
        load_path(str(p))
    assert err.value.file == str(p)


def test_deep_nesting_is_a_clean_error(write):
    path = write("[" * 50_000 + "]" * 50_000, "deep.json")
    with pytest.raises(VisguardError, match="nested too deeply"):
        load_path(path)


def test_empty_document_is_not_a_template(write):
    with pytest.raises(VisguardError, match="not a CloudFormation template: the document is empty"):
        load_path(write("", "empty.yaml"))
    with pytest.raises(VisguardError, match="is a list"):
        load_path(write("- a\n- b\n", "list.yaml"))


def test_cfn_lint_nodes_positions_are_understood():
    """Templates decoded by cfn-lint (the cfn-lint plugin) keep their lines through load_template."""
    from cfnlint.decode import cfn_yaml
    from visguard.linter.loaders import load_template

    text = "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties:\n      VisibilityTimeout: !Ref T\nParameters:\n  T: {Type: Number, Default: 5}\n"
    template = cfn_yaml.loads(text)
    q = load_template(template, file="c.yaml").queues["Q"]
    assert q.location.line == 2
    assert q.location_of("visibility_timeout").line == 5
    assert q.visibility_timeout == 5


def test_yaml_flow_mapping_starting_with_a_brace(write):
    path = write(
        "{Resources: {Q: {Type: AWS::SQS::Queue, Properties: {VisibilityTimeout: !Ref T}}},\n Parameters: {T: {Type: Number, Default: 9}}}\n"
    )
    assert load_path(path).queues["Q"].visibility_timeout == 9
    with pytest.raises(VisguardError, match="malformed JSON"):  # neither JSON nor YAML: the JSON error
        load_path(write('{"Resources": {"Q": [}\n', "broken.template"))


def test_yaml_alias_bomb_is_refused_and_ordinary_aliases_work(write):
    levels = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for prev, name in zip("abcdefg", "bcdefgh", strict=False):
        levels.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 10) + "]")
    bomb = "\n".join(levels) + "\nResources: {Q: {Type: AWS::SQS::Queue, Properties: {Tags: *h}}}\n"
    with pytest.raises(VisguardError, match="aliases expand to more than"):
        load_path(write(bomb, "bomb.yaml"))
    ok = write(
        "Base: &base {VisibilityTimeout: 30}\nResources:\n  Q: {Type: AWS::SQS::Queue, Properties: *base}\n"
        "  P: {Type: AWS::SQS::Queue, Properties: {<<: *base, DelaySeconds: 1}}\n"
    )
    m = load_path(ok)
    assert (m.queues["Q"].visibility_timeout, m.queues["P"].visibility_timeout, m.queues["P"].delay) == (
        30,
        30,
        1,
    )


def test_the_seeded_pyyaml_printable_class_is_the_same_set_on_every_code_point():
    """The console script's start-up seeds re's cache so PyYAML's import does not compile its all-of-Unicode class:
    the seed must find exactly what PyYAML's own pattern finds, for every code point."""
    import re

    from visguard import startup

    theirs = re.compile(startup.PYYAML_PRINTABLE, re.UNICODE)  # another cache key: compiled here
    ours = re.compile(startup.NON_PRINTABLE)
    found = 0
    for start in range(0, 0x110000, 0x10000):  # in planes: one string of every code point is 70 MB to build
        plane = "".join(map(chr, range(start, start + 0x10000)))
        assert theirs.findall(plane) == ours.findall(plane), hex(start)
        found += len(ours.findall(plane))
    assert found == 2111


def test_pyyaml_reads_the_same_with_and_without_the_seed():
    """The seed never changes what PyYAML's pure-Python reader accepts: the same documents are accepted and
    rejected in a fresh interpreter that imports visguard first (the seed in place, if this PyYAML release
    still writes the seeded pattern) and in one that imports only PyYAML. Behaviour, not PyYAML's internals: a
    release that changes its pattern just leaves the seed unused."""
    import subprocess
    import sys

    probe = (
        "import yaml\n"
        "docs = ['a: caf\\u00e9', 'a: \\U0001f600', 'a: x\\u00a0y', 'a: \\x07', 'a: \\x7f', 'a: \\ufffe', 'a: 1']\n"
        "out = []\n"
        "for d in docs:\n"
        "    try:\n"
        "        yaml.load(d, Loader=yaml.SafeLoader); out.append('ok')\n"
        "    except yaml.YAMLError:\n"
        "        out.append('bad')\n"
        "print(','.join(out))\n"
    )
    first = "from visguard import startup  # noqa\n"
    runs = [
        subprocess.run([sys.executable, "-P", "-c", pre + probe], capture_output=True, text=True, timeout=60)
        for pre in (first, "")
    ]
    assert [r.returncode for r in runs] == [0, 0], [r.stderr for r in runs]
    seeded, plain = (r.stdout.strip() for r in runs)
    assert seeded == plain == "ok,ok,ok,bad,bad,bad,ok", (seeded, plain)
