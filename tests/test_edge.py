"""The program's edge (``visguard.cli.run``): every command of both console scripts ends through it, so each one
turns the same failure into the same exit code and the same single line (the table in ``visguard.errors``).

Each row names a command and a function inside that command's own code path; the failure is raised from there,
so the test also proves the command reaches the edge with nothing of its own in between."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import visguard.cli
from visguard.cli import main
from visguard.errors import VisguardError, internal_error_text

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "examples" / "templates" / "orders-cfn.yaml"
BIN = Path(sys.executable).parent

# argv, the edge's name for it, a function the command calls (raised from), bad input, its one stderr line
COMMANDS = [
    (["lint", "--no-config", str(TEMPLATE)], "visguard lint", "visguard.linter.api.lint_paths",
     ["lint", "--no-config", "missing.yaml"], "visguard lint: missing.yaml: no such file or directory"),
    (["rules"], "visguard rules", "visguard.linter.cli_rules.rules_text",
     ["rules", "-f", "xml"], "visguard rules: argument -f/--format: invalid choice: 'xml' (choose from 'text', "
     "'json', 'markdown')"),
    (["explain", "VG011"], "visguard explain", "visguard.linter.cli_explain.explain_text",
     ["explain", "VG999"], "visguard explain: unknown rule 'VG999'; 'visguard rules' lists them"),
    (["simulate", "--example", "order-pipeline", "--no-progress"], "visguard simulate",
     "visguard.engine.scenario.load",
     ["simulate", "missing.yaml"], "visguard simulate: missing.yaml: cannot read the scenario: No such file or directory"),
    (["recommend", "--p50", "2", "--p99", "30"], "visguard recommend", "visguard.engine.recommend.recommend",
     ["recommend", "--p50", "-1"], "visguard recommend: argument --p50: -1 is outside 0.001 to 1.2096e+06"),
    (["engine-demo"], "visguard engine-demo", "visguard.engine.demo.run_demo",
     ["engine-demo", "--visibility-timeout", "x"],
     "visguard engine-demo: argument --visibility-timeout: invalid int value: 'x'"),
    (["audit", "cache"], "visguard audit", "visguard.audit.cache_cli.cache_entries",
     ["audit", "generate", "--accounts", "x"], "visguard audit generate: argument --accounts: invalid int value: 'x'"),
    (["pre-commit", "terraform", "--no-config", "main.tf"], "visguard-pre-commit",
     "visguard.linter.precommit.terraform_roots",
     ["pre-commit"], "usage: visguard-pre-commit {terraform|serverless} [visguard lint options] FILE..."),
]  # fmt: skip
IDS = [row[0][0] for row in COMMANDS]


def run(argv, capsys, monkeypatch) -> tuple[int, str, str]:
    """Run ``argv`` as its console script would (``pre-commit`` is ``visguard-pre-commit``'s entry, whose process
    end is recorded instead of taken)."""
    capsys.readouterr()
    if argv[0] == "pre-commit":
        from visguard.linter import precommit

        ended: list[int] = []
        monkeypatch.setattr(sys, "argv", ["visguard-pre-commit", *argv[1:]])
        monkeypatch.setattr(visguard.cli, "end_now", ended.append)
        precommit.entry()
        code = ended[0]
    else:
        code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(autouse=True)
def _quiet_env(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("VISGUARD_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("VISGUARD_DEBUG", raising=False)


def _raise(exc: BaseException):
    def boom(*args, **kwargs):
        raise exc

    return boom


@pytest.mark.parametrize(("argv", "prog", "target", "bad", "line"), COMMANDS, ids=IDS)
@pytest.mark.parametrize(
    ("exc", "code", "said"),
    [
        (ZeroDivisionError("a bug\nwith a second line"), 3,
         "internal error (ZeroDivisionError: a bug with a second line); please report it (VISGUARD_DEBUG=1 shows "
         "the traceback)"),
        (RecursionError("maximum recursion depth exceeded"), 1, "input nested too deeply"),
        (VisguardError("what is wrong", file="in\x1b]0;put.yaml", place="line 3"), 1,
         "in\\x1b]0;put.yaml:line 3: what is wrong"),
        (KeyboardInterrupt(), 130, None),
        (BrokenPipeError(32, "Broken pipe"), 141, None),
    ],
    ids=["internal", "recursion", "bad-input", "interrupt", "broken-pipe"],
)  # fmt: skip
def test_every_command_ends_through_the_one_edge(
    argv, prog, target, bad, line, exc, code, said, capsys, monkeypatch
):
    module, _, name = target.rpartition(".")
    monkeypatch.setattr(sys.modules.get(module) or __import__(module, fromlist=[name]), name, _raise(exc))
    got, _, err = run(argv, capsys, monkeypatch)
    assert got == code, err
    if said is None:  # Ctrl-C and a closed stdout pipe end quietly
        assert err == ""
    else:
        assert err == f"{prog}: {said}\n"


@pytest.mark.parametrize(("argv", "prog", "target", "bad", "line"), COMMANDS, ids=IDS)
def test_bad_input_is_one_line_and_exit_1(argv, prog, target, bad, line, capsys, monkeypatch):
    code, _, err = run(bad, capsys, monkeypatch)
    assert code == 1 and "Traceback" not in err
    lines = err.splitlines()
    if bad == ["rules", "-f", "xml"]:  # lint's own parser shows the usage above the error line
        assert lines[0].startswith("usage: visguard rules") and len(lines) == 2
        lines = lines[1:]
    assert lines == [line]


def test_a_bug_in_one_input_is_worded_as_the_edge_words_it(capsys, monkeypatch, tmp_path):
    """lint reports a bug met on one input for that input (the others still run) in the edge's one wording, and
    VISGUARD_DEBUG adds the traceback there too."""
    good = tmp_path / "good.json"
    good.write_text('{"Resources": {"Q": {"Type": "AWS::SQS::Queue"}}}')
    bug = ZeroDivisionError("boom")
    monkeypatch.setattr("visguard.linter.api.lint_model", _raise(bug))
    code, _, err = run(["lint", "--no-config", str(good)], capsys, monkeypatch)
    assert code == 3 and err == f"visguard lint: {good}: {internal_error_text(bug)}\n"
    monkeypatch.setenv("VISGUARD_DEBUG", "1")
    code, _, err = run(["lint", "--no-config", str(good)], capsys, monkeypatch)
    assert code == 3 and err.startswith("Traceback") and "ZeroDivisionError: boom" in err
    assert err.endswith(f"visguard lint: {good}: {internal_error_text(bug)}\n")


def test_input_nested_deeper_than_the_stack_is_bad_input_naming_the_file(capsys, monkeypatch, tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000 + "]" * 200_000)
    code, _, err = run(["recommend", "--samples", str(deep)], capsys, monkeypatch)
    assert (code, err) == (1, f"visguard recommend: {deep}: document nested too deeply\n")


def test_a_name_from_input_is_shown_escaped_once(capsys, monkeypatch):
    code, _, err = run(["simulate", "--example", "no\nsuch\x1b[2J"], capsys, monkeypatch)
    assert code == 1 and err.count("\n") == 1
    assert err.startswith("visguard simulate: --example: no example scenario 'no\\x0asuch\\x1b[2J';")
    code, _, err = run(["no\x1b]0;such"], capsys, monkeypatch)
    assert code == 1 and err.startswith("visguard: unknown command 'no\\x1b]0;such'\n")


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["visguard", "--help"], 141),
        (["visguard", "rules"], 141),  # a FAST_EXIT command: ends with os._exit after the flush
        (["visguard", "engine-demo"], 141),
        (["visguard", "audit", "--help"], 141),
        (["visguard", "lint", "--no-config", str(TEMPLATE)], 2),  # lint has its verdict: it keeps it
        (
            [
                "visguard-pre-commit",
                "serverless",
                "--no-config",
                "examples/serverless/serverless.yml",  # run in the repository, as pre-commit runs it
            ],
            2,
        ),
    ],
    ids=lambda v: " ".join(Path(a).name for a in v[:2]) if isinstance(v, list) else str(v),
)
def test_a_closed_stdout_pipe_ends_each_console_script_quietly(argv, code, tmp_path):
    p = subprocess.Popen(
        [BIN / argv[0], *argv[1:]],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT if argv[0] == "visguard-pre-commit" else tmp_path,
    )
    p.stdout.close()  # the reader went away before the first byte, like `| head -c 0`
    err = p.stderr.read().decode()
    assert p.wait(timeout=120) == code
    assert err == "", err
