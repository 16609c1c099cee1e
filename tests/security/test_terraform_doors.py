"""The Terraform doors attacked for real (issue 28): symlinks out of the root module, secrets in linked and own
variable files, numbers and expressions that exhaust the evaluator, and the pre-commit hook's folder search.

Every case builds real files, real symlinks and real deep folders under tmp_path and runs the real entry point
(in process for the messages and the three report formats; as a memory-limited process for the bombs).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys

import pytest
from visguard.cli import main
from visguard.linter import precommit

from .conftest import VISGUARD, WARN_TEMPLATE
from .test_lint_inputs import _deep_tree, _remove_deep_tree

# Planted secrets: no 6-character piece of either may appear in any output of a case.
KEY_ID = "AKIAQ7XJ3LQZ5EXAMPLE"
TOKEN = "Z2hwX3M0Y3JldFRva2VuOTg3NjU0MzIxMHF3ZXJ0eXVpb3Bhc2Rm"
SECRETS = (KEY_ID, TOKEN)

QUEUE = 'resource "aws_sqs_queue" "ok" {\n  visibility_timeout_seconds = 60\n}\n'
OUTSIDE = {
    "outside/passwd": f"root:x:0:0:{KEY_ID}:/root:/bin/bash\nsvc:x:1:1:{TOKEN}:/:/bin/sh\n",
    "outside/main.tf": (
        'resource "aws_sqs_queue" "stolen" {\n  visibility_timeout_seconds = 99999\n'
        f'  tags = {{ k = "{KEY_ID}{TOKEN}" }}\n}}\n'
    ),
    "outside/config.json": json.dumps({"auths": {"ghcr.io": {"auth": TOKEN + KEY_ID}}}),
    "outside/credentials": f"[default]\naws_access_key_id = {KEY_ID}\naws_secret_access_key = {TOKEN}\n",
    "outside/plan.json": '{"format_version": "1.2", "planned_values": {}, '
    f'"{KEY_ID}{TOKEN}": 1, "{KEY_ID}{TOKEN}": 2}}',
}
USES_AUTH = (
    'variable "auths" {}\n'
    'resource "aws_sqs_queue" "q" {\n  visibility_timeout_seconds = var.auths["ghcr.io"]["auth"]\n}\n'
)

# name: (files, symlinks {link: target relative to the link's folder}, lint arguments, exit code, said)
DOORS = {
    "main.tf linked to /etc/passwd-like file": (
        {},
        {"infra/main.tf": "../outside/passwd"},
        ["infra"],
        1,
        "symlink(s) leading outside it not read",
    ),
    "a .tf linked out of the folder is not linted": (
        {"infra/ok.tf": QUEUE},
        {"infra/linked.tf": "../outside/main.tf"},
        ["infra"],
        0,
        "infra/linked.tf: a symlink leading outside infra: not read",
    ),
    "a .tf.json linked out": (
        {"infra/ok.tf": QUEUE},
        {"infra/x.tf.json": "../outside/config.json"},
        ["infra"],
        0,
        "a symlink leading outside infra: not read",
    ),
    "auto.tfvars.json linked to a Docker config": (
        {"infra/main.tf": USES_AUTH},
        {"infra/docker.auto.tfvars.json": "../outside/config.json"},
        ["infra"],
        0,
        "docker.auto.tfvars.json: a symlink leading outside infra: not read",
    ),
    "terraform.tfvars linked to AWS credentials": (
        {"infra/main.tf": QUEUE},
        {"infra/terraform.tfvars": "../outside/credentials"},
        ["infra"],
        0,
        "terraform.tfvars: a symlink leading outside infra: not read",
    ),
    "--var-file naming a linked Docker config (read: asked for)": (
        {"infra/main.tf": USES_AUTH},
        {"cfg.tfvars.json": "outside/config.json"},
        ["--var-file", "cfg.tfvars.json", "infra"],
        1,
        "visibility_timeout_seconds: expected a number, got a string",
    ),
    "--var-file of the user's own, token into a type error": (
        {"infra/main.tf": USES_AUTH, "mine.tfvars.json": json.dumps({"auths": {"ghcr.io": {"auth": TOKEN}}})},
        {},
        ["--var-file", "mine.tfvars.json", "infra"],
        1,
        "visibility_timeout_seconds: expected a number, got a string",
    ),
    "own terraform.tfvars token into a type error": (
        {
            "infra/main.tf": 'variable "t" {}\nresource "aws_sqs_queue" "q" {\n  delay_seconds = var.t\n}\n',
            "infra/terraform.tfvars": f't = "{KEY_ID}"\n',
        },
        {},
        ["infra"],
        1,
        "delay_seconds: expected a number, got a string",
    ),
    "token as a computed key": (
        {
            "infra/main.tf": 'variable "t" {}\nlocals { m = { a = 1 } }\n'
            'resource "aws_sqs_queue" "q" {\n  delay_seconds = local.m[var.t]\n}\n',
            "infra/terraform.tfvars": f't = "{TOKEN}"\n',
        },
        {},
        ["infra"],
        1,
        "no attribute or key (a computed string)",
    ),
    "the named .tf is a link to a passwd-like file (read: asked for)": (
        {},
        {"infra/main.tf": "../outside/passwd"},
        ["infra/main.tf"],
        1,
        "cannot parse HCL (a file reached through a symlink: its text is not shown)",
    ),
    "the named plan is a link (read: asked for)": (
        {},
        {"plan.json": "outside/plan.json"},
        ["plan.json"],
        1,
        "cannot parse JSON (a file reached through a symlink: its text is not shown)",
    ),
}


def _build(root, files, links):
    for name, text in {**OUTSIDE, **files}.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    for name, target in links.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.symlink_to(target)


def _leaks(blob: str) -> list[str]:
    return [s[i : i + 6] for s in SECRETS for i in range(len(s) - 5) if s[i : i + 6] in blob]


@pytest.mark.parametrize("case", sorted(DOORS))
@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_no_read_out_of_the_root_and_no_secret_in_any_output(tmp_path, capsys, monkeypatch, case, fmt):
    files, links, args, code, said = DOORS[case]
    _build(tmp_path, files, links)
    monkeypatch.chdir(tmp_path)  # paths as a user types them (relative)
    out = tmp_path / f"report.{fmt}"
    got = main(["lint", "--no-config", "-f", fmt, "--output", str(out), *args])
    stdout, stderr = capsys.readouterr()
    blob = stdout + stderr + out.read_text()
    assert got == code, blob
    assert not _leaks(blob), (_leaks(blob), blob)
    assert "stolen" not in blob and "Traceback" not in blob
    assert said in blob
    if code == 1:
        assert len(stderr.splitlines()) == 1, stderr  # one line for the one bad input


def test_a_parse_error_quotes_a_short_neutralised_excerpt_of_the_users_own_file(tmp_path, capsys):
    d = tmp_path / "infra"
    d.mkdir()
    (d / "main.tf").write_text(
        'resource "aws_sqs_queue" "q" {\n  name = "x" \x1b]0;owned\x07' + "A" * 60 + "\n}\n"
    )
    assert main(["lint", "--no-config", str(d)]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert ":line 2: cannot parse HCL: unexpected '" in line
    quoted = line.split("unexpected ", 1)[1]
    assert "\x1b" not in quoted and "\\x1b" in quoted  # escaped, not sent to the terminal
    assert "A" * 20 not in quoted and quoted.endswith("...'")


# ---------------------------------------------------------------------------------------------- crash and hang
def _locals(lines: list[str], use: str) -> str:
    return (
        "locals {\n"
        + "\n".join(f"  {x}" for x in lines)
        + f'\n}}\nresource "aws_sqs_queue" "q" {{\n  {use}\n}}\n'
    )


def _chain(first: str, step: str, n: int = 40) -> list[str]:
    return [f"l0 = {first}"] + [f"l{i} = {step.format(p=f'local.l{i - 1}')}" for i in range(1, n + 1)]


RANGE3 = "[for a in range(1000): [for b in range(1000): [for c in range(1000): 1]]]"
PLAN = '{{"format_version": "1.2", "planned_values": {{"root_module": {{"resources": {}}}}}}}'


def _planned(values: str) -> str:
    return PLAN.format(
        f'[{{"address": "aws_sqs_queue.q", "type": "aws_sqs_queue", "name": "q", "values": {values}}}]'
    )


# name: (files of the input, the input (default: the folder "m"), words of the one error line)
BOMBS = {
    "HCL 5,000-digit integer": (
        {"m/main.tf": f"resource \"aws_sqs_queue\" \"q\" {{\n  delay_seconds = {'9' * 5000}\n}}\n"},
        None,
        "a number written with 5,000 characters, beyond any AWS limit",
    ),
    "HCL 10^400": (
        {"m/main.tf": f"resource \"aws_lambda_function\" \"f\" {{\n  timeout = 1{'0' * 400}\n}}\n"
         'resource "aws_sqs_queue" "q" {}\n'
         'resource "aws_lambda_event_source_mapping" "m" {\n  event_source_arn = aws_sqs_queue.q.arn\n'
         "  function_name = aws_lambda_function.f.arn\n}\n"},
        None,
        "timeout: a number written with 401 characters, beyond any AWS limit",
    ),
    "HCL 1e400": (
        {"m/main.tf": 'resource "aws_sqs_queue" "q" {\n  delay_seconds = 1e400\n}\n'},
        None,
        "the number '1e400' is beyond any AWS limit",
    ),
    "HCL 10^20 retention": (
        {"m/main.tf": f"resource \"aws_sqs_queue\" \"q\" {{\n  message_retention_seconds = 1{'0' * 20}\n}}\n"},
        None,
        "expected a number, got an integer of 21 digits, beyond any AWS limit",
    ),
    "tfvars JSON 10^400": (
        {"m/main.tf": 'variable "v" {}\nresource "aws_sqs_queue" "q" {\n  delay_seconds = var.v\n}\n',
         "m/terraform.tfvars.json": '{"v": 1' + "0" * 400 + "}"},
        None,
        "got an integer of 401 digits, beyond any AWS limit",
    ),
    "squaring chain": (
        {"m/main.tf": _locals(_chain("99999999999", "{p} * {p}", 20), "delay_seconds = local.l20")},
        None,
        "beyond any AWS limit (more than 420 digits)",
    ),
    "template doubling": (
        {"m/main.tf": _locals(_chain('"xxxxxxxxxxxxxxxx"', '"${{{p}}}${{{p}}}"'), "name = local.l40")},
        None,
        "a string longer than 1,000,000 characters (visguard's bound on one value)",
    ),
    "join doubling": (
        {"m/main.tf": _locals(_chain('"xxxxxxxx"', 'join("", [{p}, {p}])'), "name = local.l40")},
        None,
        "join(): the result would be longer than 1,000,000 characters",
    ),
    "format doubling": (
        {"m/main.tf": _locals(_chain('"xxxxxxxx"', 'format("%s%s", {p}, {p})'), "name = local.l40")},
        None,
        "longer than 1,000,000 characters (visguard's bound on one value)",
    ),
    "replace blow-up": (
        {"m/main.tf": _locals([f'l0 = "{"y" * 3000}"', 'l1 = replace(local.l0, "", local.l0)'],
                              "name = local.l1")},
        None,
        "replace(): the result would be longer than 1,000,000 characters",
    ),
    "concat doubling": (
        {"m/main.tf": _locals(_chain("[1, 2, 3, 4]", "concat({p}, {p})"), "delay_seconds = length(local.l40)")},
        None,
        "expand to more than 1,000,000 values or 50,000,000 characters",
    ),
    "tuple doubling (shared references)": (
        {"m/main.tf": _locals(_chain('["x"]', "[{p}, {p}]"), "name = jsonencode(local.l40)")},
        None,
        "expand to more than 1,000,000 values",
    ),
    "range in a for": (
        {"m/main.tf": _locals(["x = [for i in range(1000): range(1000)]"], "delay_seconds = length(local.x)")},
        None,
        "expand to more than 1,000,000 values",
    ),
    "three nested for over range(1000)": (
        {"m/main.tf": _locals([f"x = length(flatten({RANGE3}))"], "delay_seconds = local.x")},
        None,
        "expand to more than 1,000,000 values",
    ),
    "9 MB heredoc": (
        {"m/main.tf": 'resource "aws_sqs_queue" "q" {\n  name = <<EOF\n'
         + "".join(f"line {i} ${{path.module}}\n" for i in range(330_000)) + "EOF\n}\n"},
        None,
        "heredocs hold more than 1,000,000 bytes (visguard's bound on one file)",
    ),
    "module count 1000 x resource count 1000": (
        {"m/main.tf": 'module "c" {\n  source = "./c"\n  count = 1000\n}\n',
         "m/c/main.tf": 'resource "aws_sqs_queue" "q" {\n  count = 1000\n}\n'},
        None,
        "count/for_each expand to more than 10,000 resource and module instances",
    ),
    "plan 10^400 visibility": (
        {"plan.json": _planned('{"visibility_timeout_seconds": 1' + "0" * 400 + "}")},
        "plan.json",
        "visibility_timeout_seconds: expected a number, got an integer of 401 digits, beyond any AWS limit",
    ),
    "plan 1e400 timeout": (
        {"plan.json": PLAN.format(
            '[{"address": "aws_lambda_function.f", "type": "aws_lambda_function", "name": "f", '
            '"values": {"function_name": "f", "timeout": 1e400}}, '
            '{"address": "aws_sqs_queue.q", "type": "aws_sqs_queue", "name": "q", "values": {"name": "q"}}, '
            '{"address": "aws_lambda_event_source_mapping.m", "type": "aws_lambda_event_source_mapping", '
            '"name": "m", "values": {"function_name": "f", '
            '"event_source_arn": "arn:aws:sqs:us-east-1:123456789012:q"}}]'
        )},
        "plan.json",
        "timeout: expected a number, got inf",
    ),
    "plan retention 1e300": (
        {"plan.json": _planned('{"message_retention_seconds": 1e300}')},
        "plan.json",
        "message_retention_seconds: expected a number, got 1e+300, beyond any AWS limit",
    ),
    "plan resources as a mapping": (
        {"plan.json": PLAN.format('{"aws_sqs_queue.q": {"type": "aws_sqs_queue"}}')},
        "plan.json",
        "planned_values.root_module.resources: expected a list, got an object",
    ),
}  # fmt: skip


def _write(root, files):
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


@pytest.mark.parametrize("case", sorted(BOMBS))
def test_numbers_and_bombs_are_one_bad_input_line(tmp_path, capsys, case):
    files, target, said = BOMBS[case]
    _write(tmp_path, files)
    (tmp_path / "good.yaml").write_text(WARN_TEMPLATE)
    code = main(
        ["lint", "--no-config", "-f", "json", str(tmp_path / (target or "m")), str(tmp_path / "good.yaml")]
    )
    out, err = capsys.readouterr()
    assert code == 4, err  # bad input, never an internal error (3)
    (line,) = err.splitlines()
    assert said in line and "internal error" not in line, line
    assert json.loads(out)["summary"]["files"] == 1  # the other input still linted


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS")
def test_every_bomb_in_one_memory_limited_process(tmp_path):
    """All of them in one process under the fuzz suite's 1 GB address-space limit: one line each, the good
    template linted, the process ends (a hang would hit the timeout)."""
    targets = []
    for i, case in enumerate(sorted(BOMBS)):
        files, target, _ = BOMBS[case]
        _write(tmp_path / str(i), files)
        targets.append(str(tmp_path / str(i) / (target or "m")))
    (tmp_path / "good.yaml").write_text(WARN_TEMPLATE)

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    proc = subprocess.run(
        [VISGUARD, "lint", "--no-config", "-f", "json", *targets, str(tmp_path / "good.yaml")],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limit,
    )
    assert proc.returncode == 4, proc.stderr
    assert len(proc.stderr.splitlines()) == len(BOMBS) and "internal error" not in proc.stderr, proc.stderr
    assert json.loads(proc.stdout)["summary"]["files"] == 1


# ---------------------------------------------------------------------------------------------- pre-commit
def test_precommit_survives_a_1100_level_tree(tmp_path, capsys, monkeypatch):
    (tmp_path / "infra").mkdir()
    (tmp_path / "infra" / "main.tf").write_text(QUEUE.replace("60", "99999"))
    (tmp_path / "deep").mkdir()
    _deep_tree(tmp_path / "deep", 1100)  # a real tree deeper than PATH_MAX
    monkeypatch.chdir(tmp_path)
    try:
        code = precommit.main(["terraform", os.path.join("infra", "main.tf")])
    finally:
        _remove_deep_tree(tmp_path / "deep", 1100)
    out, err = capsys.readouterr()
    assert code == 2 and "VG001" in out, out + err  # the changed root is linted (a finding at its error)
    assert "Traceback" not in err and "RecursionError" not in err


@pytest.mark.parametrize(
    "layout",
    [
        {
            "a/main.tf": 'module "b" {\n  source = "../b"\n}\n',
            "b/main.tf": 'module "a" {\n  source = "../a"\n}\n',
        },
        {"a/main.tf": 'module "self" {\n  source = "./"\n}\n'},
    ],
    ids=["two-folder cycle", "self"],
)
def test_precommit_lints_a_changed_module_in_a_cycle(tmp_path, capsys, monkeypatch, layout):
    _write(tmp_path, layout)
    monkeypatch.chdir(tmp_path)
    code = precommit.main(["terraform", os.path.join("a", "main.tf")])
    err = capsys.readouterr().err
    assert code == 1 and "includes itself" in err, err  # reported, never a silent exit 0
