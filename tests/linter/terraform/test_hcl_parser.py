"""The HCL front end (tree-sitter-hcl): every expression form the evaluator reads, positions in characters,
syntax errors as one line at the first bad line, hostile nesting, and what a Terraform lint imports."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from visguard.errors import InternalError, VisguardError
from visguard.linter.fixes import hcl as fix_hcl
from visguard.linter.loaders import terraform
from visguard.linter.loaders.terraform.hcl import parse_attrs, parse_hcl
from visguard.linter.loaders.terraform.load import TerraformLoader
from visguard.linter.loaders.terraform.scope import Scope
from visguard.linter.loaders.terraform.values import Unknown
from visguard.linter.model import Change, Finding, Location, Severity


def _local(module, expr: str, extra: str = ""):
    """The value of ``local.x = <expr>`` in a root module (``local.l`` and ``local.k`` are there to use)."""
    text = f'locals {{\n  l = [{{ a = 1 }}, {{ a = 2 }}]\n  k = "key"\n  x = {expr}\n}}\n{extra}'
    d = module({"main.tf": text})
    loader = TerraformLoader(d)
    scope = Scope(loader, loader.read_module(d), "", values={})
    return scope.local("x")


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ("1 + 2 * 3", 7),
        ("(1 + 2) * 3", 9),
        ("10 - 4 - 3", 3),
        ("2 * 3 % 4", 2),
        ("-2 * 3", -6),
        ("2 - -3", 5),
        ("1 < 2 == true", True),
        ("!false && true || false", True),
        ("1 == 1.0", True),
        ('"1" == 1', False),
        ("false ? 1 : true ? 2 : 3", 2),
        ("false ? 1 : false ? 2 : 3", 3),
        ("true ? 1 : false ? 2 : 3", 1),
        ("(true ? false : true) ? 2 : 3", 3),
        ("true ? false ? 1 : 2 : 3", 2),
        ("1e3", 1000.0),
        ("1.5e2", 150.0),
        ("2E+1 + 1", 21),
        ('"1e5"', "1e5"),
        (r'"a\"b\\c\n\u00e9 $${x} %%{y}"', 'a"b\\c\né ${x} %{y}'),
        ('"${1 + 1}"', 2),
        ('"n=${1 + 1}!"', "n=2!"),
        ('"a  ${~ "x" ~}  b"', "axb"),
        ('"${local.k}-${local.k}"', "key-key"),
        ("<<EOF\nline ${local.k}\n  two \\n $${x}\nEOF", "line key\n  two \\n ${x}\n"),
        ("<<-EOT\n    a ${local.k}\n      b\n    EOT", "a key\n  b\n"),
        ("[for i, x in ['a', 'b'] : \"${i}${x}\" if i > 0]".replace("'", '"'), ["1b"]),
        ('{ for x in ["a", "b", "a"] : x => x... }', {"a": ["a", "a"], "b": ["b"]}),
        ("{ for k, v in { a = 1, b = 2 } : upper(k) => v + 1 }", {"A": 2, "B": 3}),
        ("[{ a = 1 }, { a = 2 }][*].a", [1, 2]),
        ("local.l.*.a", [1, 2]),
        ("local.l[*].a", [1, 2]),
        ("local.l.1.a", 2),
        ("local.l[0]", {"a": 1}),
        ("(local.l)[1].a", 2),
        ("max([4, 9, 2]...)", 9),
        ("concat([1], [2, 3],)", [1, 2, 3]),
        ("length(\n    [1, 2] # a comment\n  )", 2),
        (
            '{ in = 1, for = 2, if = 3, "q" = 4, (local.k) = 5, "${local.k}2" = 6, a : 7 }',
            {"in": 1, "for": 2, "if": 3, "q": 4, "key": 5, "key2": 6, "a": 7},
        ),
        ('try(local.l[5].a, "fallback")', "fallback"),
        ("can(local.l[5].a)", False),
        ("null", None),
    ],
)
def test_expressions(module, expr, value):
    got = _local(module, expr)
    assert got == value and type(got) is type(value)


def test_what_is_not_evaluated_is_unknown_with_its_text(module):
    v = _local(module, 'provider::aws::arn_parse("arn:aws:sqs:eu-west-1:1:q")')
    assert isinstance(v, Unknown) and v.text == 'provider::aws::arn_parse("arn:aws:sqs:eu-west-1:1:q")'
    assert "provider function provider::aws::arn_parse()" in v.why
    v = _local(module, '"%{ if var.nothing == null }yes%{ endif }"', 'variable "nothing" {}\n')
    assert isinstance(v, Unknown) and "%{ if }" in v.why  # directives are rendered (test_tf_templatefile.py)
    v = _local(module, "data.aws_sqs_queue.q.arn  +  1")
    assert isinstance(v, Unknown) and v.text == "data.aws_sqs_queue.q.arn + 1"
    v = _local(module, "aws_sqs_queue.d.arn == null ? 1 : 2", 'resource "aws_sqs_queue" "d" {}\n')
    assert v == 2  # an ARN is known only after apply, but never null


def test_unicode_names_and_columns_count_characters(module):
    text = (
        'locals {\n  größe = 40\n  note = "Zoë"\n}\n'
        'resource "aws_sqs_queue" "q" {\n'
        '  tags = { owner = "Zoë" } ; visibility_timeout_seconds = local.größe\n'
        '  redrive_policy = jsonencode({ note = "日本語", maxReceiveCount = 3, deadLetterTargetArn = "arn:aws:sqs:eu-west-1:1:d" })\n'
        "}\n"
    ).replace(" ; ", " ")
    blocks = parse_hcl(text, "main.tf")
    q = blocks[1]
    assert (q.line, q.column, q.end_line) == (5, 1, 8)
    vt = q.attrs["visibility_timeout_seconds"]
    assert (vt.line, vt.column) == (6, text.splitlines()[5].index("visibility") + 1)
    m = terraform.load(module({"main.tf": text}))
    queue = m.queues["aws_sqs_queue.q"]
    assert queue.visibility_timeout == 40 and queue.redrive.max_receive_count == 3
    loc = queue.location_of("redrive.max_receive_count")
    assert (loc.line, loc.column) == (7, text.splitlines()[6].index("maxReceiveCount") + 1)


def test_fix_edits_characters_not_bytes(module):
    text = (
        "# 日本語のコメント\n"
        'resource "aws_sqs_queue" "jobs" {\n'
        '  name = "ジョブ"\n'
        '  redrive_policy = jsonencode({ note = "日本語", maxReceiveCount = 3, deadLetterTargetArn = "x" })\n'
        "  visibility_timeout_seconds = 60\n"
        "}\n"
    )
    col = text.splitlines()[3].index("maxReceiveCount") + 1
    loc = Location("main.tf", 4, col, path="x")
    ch = Change("queue", "aws_sqs_queue.jobs", "redrive.max_receive_count", 5, loc)
    vt = Change("queue", "aws_sqs_queue.jobs", "visibility_timeout", 1800, Location("main.tf", 5, 3))
    findings = [
        Finding("VG020", Severity.WARNING, "m", "aws_sqs_queue.jobs", loc, "fix", changes=(ch,)),
        Finding("VG010", Severity.ERROR, "m", "aws_sqs_queue.jobs", vt.location, "fix", changes=(vt,)),
    ]
    ff = fix_hcl.fix_text("main.tf", text, findings)
    assert ff.after == text.replace("maxReceiveCount = 3", "maxReceiveCount = 5").replace("= 60", "= 1800")


@pytest.mark.parametrize(
    ("text", "line", "what"),
    [
        ('resource "aws_sqs_queue" "q" {\n  name = "x"\n', 3, "unexpected end of file"),
        ('resource "aws_sqs_queue" "q" {\n  name = = "x"\n}\n', 2, "unexpected '='"),
        ('resource "aws_sqs_queue" "q" {\n  name = "x" ^\n}\n', 2, "unexpected '^'"),
        ('a = "x\nb = 2\n', 1, "unterminated string"),
        ("a = <<EOF\nhello\n", 1, "unterminated heredoc"),
        ('resource "x" "y" {\n  a = 1\n}\n}\n', 4, "unexpected '}'"),
        ("a = 1\n\n\n@@@\n", 4, "unexpected '@@@'"),
        ("x {\n a = 1\n}\nb = [1,\n2,,3]\n", 5, "unexpected ',3]'"),
        ("a = [1, 2\nb = 3\n", 2, "unexpected 'b'"),
        ("locals {\n  x = var.\n}\n", 2, "unexpected '.'"),
        ('a = "\\q"\n', 1, "unexpected"),  # not an HCL escape
        ("a = x[1:2]\n", 1, "unexpected"),
        ("a = f(1,\n", 2, "unexpected end of file"),
    ],
)
def test_syntax_errors_name_the_line_of_the_first_error(text, line, what):
    with pytest.raises(VisguardError) as exc:
        parse_hcl(text, "main.tf")
    err = exc.value
    assert err.place == f"line {line}" and err.detail.startswith("cannot parse HCL: " + what)
    assert str(err).startswith("main.tf:") and "\n" not in str(err)


def test_a_variables_file_is_name_value_lines():
    assert parse_attrs("a = 1 # c\nb = [\n  2,\n]\n", "x.tfvars")["b"].line == 2
    with pytest.raises(VisguardError, match="cannot parse HCL") as exc:
        parse_attrs("{\n  a = 1\n}\n", "x.tfvars")  # tree-sitter-hcl reads a lone object: HCL does not
    assert exc.value.place == "line 1"


Q = 'resource "aws_sqs_queue" "q" {\n  tags = '


@pytest.mark.parametrize(
    ("text", "what"),
    [
        (Q + "[" * 5000 + "]" * 5000 + "\n}\n", "nested too deeply"),
        (Q + "(" * 3000 + "1" + ")" * 3000 + "\n}\n", "nested too deeply"),
        (Q + "-" * 5000 + "1\n}\n", "nested too deeply"),
        (Q + "[" * 5000 + "\n}\n", "cannot parse HCL"),
        ("".join(f"b{i} {{\n" for i in range(3000)) + "}\n" * 3000, "blocks nested too deeply"),
        ("".join(f"b{i} {{\n" for i in range(3000)), "unexpected end of file"),
        (Q + '"' + "${" * 3000 + "\n}\n", "cannot parse HCL"),
    ],
    ids=["tuples", "parens", "unary", "unclosed", "blocks", "unclosed-blocks", "interpolations"],
)
def test_hostile_nesting_is_one_line_bad_input(module, text, what):
    with pytest.raises(VisguardError, match=what) as exc:
        terraform.load(module({"main.tf": text}))
    assert not isinstance(exc.value, InternalError)
    assert "\n" not in str(exc.value) and exc.value.file.endswith("main.tf") and exc.value.place


def test_a_terraform_lint_imports_tree_sitter_not_python_hcl2_or_lark(tmp_path):
    (tmp_path / "main.tf").write_text(
        'resource "aws_sqs_queue" "q" {\n  visibility_timeout_seconds = 60\n}\n'
    )
    probe = (
        "import json, sys\nfrom visguard.cli import main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-P", "-c", probe, "lint", "--no-config", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    mods = set(json.loads(proc.stderr.strip().splitlines()[-1]))
    assert {"tree_sitter", "tree_sitter_hcl", "visguard.linter.loaders.terraform.hcl"} <= mods
    assert not {m for m in mods if m.split(".")[0] in ("hcl2", "lark")}


def test_a_parse_that_never_ends_is_stopped(monkeypatch):
    """tree-sitter's error recovery is quadratic after an unclosed bracket and many blank lines (1 MB of them
    would take hours): the parse is stopped at a CPU budget, and the parser still parses the next file."""
    from visguard.linter.loaders.terraform import hcl

    monkeypatch.setattr(hcl, "PARSE_CPU_S", 0.2)
    monkeypatch.setattr(hcl, "PARSE_CPU_S_PER_MB", 0.0)
    with pytest.raises(VisguardError, match="the parser gave up after 0.2 s") as exc:
        parse_hcl("a = [" + " \n" * 200_000, "main.tf")
    assert exc.value.place.startswith("line ") and exc.value.file == "main.tf"
    assert [b.type for b in parse_hcl('resource "aws_sqs_queue" "q" {}\n', "next.tf")] == ["resource"]


def test_a_runaway_parse_is_stopped_before_it_takes_the_memory_too():
    """The budget is checked at every progress report: between two reports of a runaway recovery the parser's
    stacks grow by tens of MB (checking every 16th let this input take 620 MB)."""
    import subprocess
    import sys

    code = (
        "import resource, sys\n"
        "from visguard.linter.loaders.terraform import hcl\n"
        "hcl.PARSE_CPU_S, hcl.PARSE_CPU_S_PER_MB = 0.2, 0.0\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "try:\n"
        "    hcl.parse_hcl('a = [' + ' \\n' * 200_000, 'main.tf')\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__, (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)\n"
    )
    out = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, timeout=120)
    kind, grown_mb = out.stdout.split()
    assert kind == "VisguardError" and int(grown_mb) < 200, out.stdout + out.stderr
