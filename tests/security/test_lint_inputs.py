"""Hostile and sloppy inputs at the linter's door (issue 11): each one is a real file, FIFO, symlink or device,
run through the real ``visguard lint`` entry point. Each must give one line on stderr naming the file (and the
manifest entry or place), the documented exit code, no traceback, no hang, no read outside what was asked,
and the other inputs still linted."""

import json
import os
import re
import stat
import sys
import time

import pytest
from visguard.errors import VisguardError
from visguard.linter.loaders import safe_io

from .conftest import WARN_TEMPLATE, run_cli, run_process

SECRET = "Resources:\n  StolenSecretQueue:\n    Type: AWS::SQS::Queue\n    Properties: {VisibilityTimeout: 99999}\n"


def _assembly(root, manifest: dict, files: dict | None = None):
    root.mkdir(parents=True, exist_ok=True)
    (root / "manifest.json").write_text(json.dumps(manifest))
    for name, text in (files or {}).items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _stack(template_file: str) -> dict:
    return {
        "version": "36.0.0",
        "artifacts": {
            "S": {"type": "aws:cloudformation:stack", "properties": {"templateFile": template_file}}
        },
    }


# ------------------------------------------------------------------------------------------ cdk.out traversal
TRAVERSAL = {
    "parent": ("../secret.yaml", "artifacts/S/properties/templateFile"),
    "far parent": ("../../../../../../../../etc/passwd", "artifacts/S/properties/templateFile"),
    "absolute device": ("/dev/zero", "artifacts/S/properties/templateFile"),
    "absolute file": ("/etc/passwd", "artifacts/S/properties/templateFile"),
}


@pytest.mark.parametrize("case", sorted(TRAVERSAL))
def test_cdk_manifest_entries_outside_the_assembly_are_refused(tmp_path, capsys, good, case):
    template_file, entry = TRAVERSAL[case]
    (tmp_path / "secret.yaml").write_text(SECRET)
    out = _assembly(tmp_path / "app" / "cdk.out", _stack(template_file))
    code, report, err = run_cli(capsys, str(out), good)
    assert code == 4
    (line,) = err
    assert str(out / "manifest.json") in line and entry in line and "outside the assembly folder" in line
    assert "StolenSecretQueue" not in json.dumps(report)
    assert report["summary"]["files"] == 1 and report["findings"]  # the good file is still linted


def test_cdk_symlinked_template_out_of_the_assembly_is_refused(tmp_path, capsys, good):
    (tmp_path / "secret.yaml").write_text(SECRET)
    out = _assembly(tmp_path / "cdk.out", _stack("S.template.json"))
    os.symlink(tmp_path / "secret.yaml", out / "S.template.json")
    code, report, err = run_cli(capsys, str(out), good)
    assert code == 4 and len(err) == 1 and "outside the assembly folder" in err[0]
    assert "StolenSecretQueue" not in json.dumps(report)


def test_cdk_nested_stack_asset_path_and_nested_assembly_out_of_the_folder(tmp_path, capsys):
    (tmp_path / "x.nested.template.json").write_text(json.dumps({"Resources": {}}))
    parent = {
        "Resources": {
            "Inner": {
                "Type": "AWS::CloudFormation::Stack",
                "Metadata": {"aws:asset:path": "../x.nested.template.json"},
            }
        }
    }
    out = _assembly(tmp_path / "cdk.out", _stack("S.template.json"), {"S.template.json": json.dumps(parent)})
    code, _, err = run_cli(capsys, str(out))
    assert code == 1 and len(err) == 1
    assert "S.template.json" in err[0] and "Resources/Inner/Metadata/aws:asset:path" in err[0]
    nested = {
        "version": "36.0.0",
        "artifacts": {"A": {"type": "cdk:cloud-assembly", "properties": {"directoryName": "../../"}}},
    }
    out2 = _assembly(tmp_path / "two" / "cdk.out", nested)
    code, _, err = run_cli(capsys, str(out2))
    assert code == 1 and len(err) == 1 and "artifacts/A/properties/directoryName" in err[0]


def test_a_folder_with_any_manifest_json_is_not_an_assembly(tmp_path, capsys):
    """`visguard lint .` searches a folder whose manifest.json is not a cloud assembly manifest (a web app's,
    a Chrome extension's) like any other folder; a real assembly below it is still one input."""
    web = tmp_path / "web"
    web.mkdir()
    (web / "manifest.json").write_text('{"name": "app", "icons": [], "start_url": "/"}')
    (web / "stack.yaml").write_text(WARN_TEMPLATE)
    code, report, err = run_cli(capsys, str(tmp_path))
    assert err == [] and code == 2
    assert [f["file"].rsplit("/", 1)[-1] for f in report["findings"]][:1] == ["stack.yaml"]


# ------------------------------------------------------------------------------------------ unbounded reads
def test_fifo_in_a_linted_folder_is_skipped_without_blocking(tmp_path):
    (tmp_path / "stack.yaml").write_text(WARN_TEMPLATE)
    os.mkfifo(tmp_path / "pipe.yaml")
    os.mkfifo(tmp_path / "visguard.yaml")
    start = time.monotonic()
    proc = run_process(["lint", "--no-config", str(tmp_path)], timeout=30)
    assert time.monotonic() - start < 20
    assert proc.returncode == 2 and "VG011" in proc.stdout and proc.stderr == ""


@pytest.mark.parametrize("kind", ["fifo", "device", "symlink to device", "directory named .yaml"])
def test_special_files_named_on_the_command_line_are_refused(tmp_path, capsys, good, kind):
    p = tmp_path / "input.yaml"
    if kind == "fifo":
        os.mkfifo(p)
    elif kind == "device":
        p = "/dev/zero"
    elif kind == "symlink to device":
        os.symlink("/dev/zero", p)
    else:
        p.mkdir()
    code, report, err = run_cli(capsys, str(p), good)
    # an empty folder (whatever its name) has nothing to lint: one line, not bad input; the others are bad input
    assert code == (2 if kind == "directory named .yaml" else 4) and len(err) == 1 and str(p) in err[0]
    assert report["summary"]["files"] == 1
    if kind != "directory named .yaml":
        assert "not a regular file" in err[0]


def test_config_that_is_a_fifo_is_refused(tmp_path, capsys, good):
    os.mkfifo(tmp_path / "cfg.yaml")
    code = __import__("visguard.cli", fromlist=["main"]).main(
        ["lint", "--config", str(tmp_path / "cfg.yaml"), good]
    )
    err = capsys.readouterr().err
    assert code == 1 and "named pipe" in err and len(err.splitlines()) == 1


def test_symlinks_out_of_a_searched_folder_are_not_followed(tmp_path, capsys):
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.yaml").write_text(SECRET)
    tree = tmp_path / "repo"
    tree.mkdir()
    (tree / "stack.yaml").write_text(WARN_TEMPLATE)
    os.symlink(tmp_path / "outside" / "secret.yaml", tree / "link.yaml")
    os.symlink(tmp_path / "outside", tree / "linkdir")
    os.symlink("/etc/passwd", tree / "passwd.yaml")
    os.symlink(tree, tree / "loop")  # a symlink loop inside the tree: visited once
    code, report, err = run_cli(capsys, str(tree))
    assert err == [] and code == 2 and report["summary"]["files"] == 1
    assert "StolenSecretQueue" not in json.dumps(report)


def test_size_limit_applies_to_the_bytes_read_not_to_the_reported_size(tmp_path, monkeypatch):
    p = tmp_path / "grows.yaml"
    p.write_bytes(b"a: 1\n" * 1000)
    with pytest.raises(VisguardError, match="more than"):
        safe_io.read_bytes(str(p), max_bytes=100)
    real_stat = os.stat

    class Small:  # a file that says it is small (procfs, a file still being written)
        def __init__(self, st):
            self.st_mode, self.st_size = st.st_mode, 10

    monkeypatch.setattr(safe_io.os, "stat", lambda path, *a, **k: Small(real_stat(path)))
    with pytest.raises(VisguardError, match="grew beyond"):
        safe_io.read_bytes(str(p), max_bytes=100)
    assert safe_io.read_bytes(str(p), max_bytes=100, truncate=True) == (b"a: 1\n" * 20)


# ------------------------------------------------------------------------------------------ no crash
def _deep_tree(root, levels):
    """``root/d/d/.../d/stack.yaml``, ``levels`` deep: longer than PATH_MAX, so built with directory fds."""
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(levels):
            os.mkdir("d", dir_fd=fd)
            sub = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = sub
        out = os.open("stack.yaml", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(out, WARN_TEMPLATE.encode())
        os.close(out)
    finally:
        os.close(fd)


ANY_WORDING = None  # the line must name the file and a line number; which layer worded it is not pinned

CRASHERS = {
    # YAML nesting: visguard bounds the depth before composing, and PyYAML (>= 6.0.4) may stop it first in its
    # scanner, with its own words: either way one line naming the file and the line (ANY_WORDING)
    "yaml flow nested 50,000 deep": ("deep.yaml", "a: " + "[" * 50_000 + "]" * 50_000, ANY_WORDING),
    "yaml compact sequences 50,000 deep": ("deep2.yaml", "- " * 50_000 + "x\n", ANY_WORDING),
    "yaml flow mappings 50,000 deep": ("deep3.yaml", "{a: " * 50_000 + "1" + "}" * 50_000, ANY_WORDING),
    "json nested 50,000 deep": ("deep.json", '{"a":' * 50_000 + "1" + "}" * 50_000, "nested too deeply"),
    "integer of 5,000 digits": ("long.yaml", "Resources:\n  Q:\n    Type: " + "9" * 5000, ":3: a number has more than"),
    "integer of 5,000 digits in JSON": ("long.json", '{"Resources": ' + "9" * 5000 + "}", "a number has more than"),
    "10**400 as a function Timeout": (
        "t400.yaml",
        WARN_TEMPLATE.replace("{Timeout: 30", "{Timeout: 1" + "0" * 400),
        "Resources/Fn/Properties/Timeout: expected a number, got an integer of 401 digits",
    ),
    "10**400 in SAM Globals": (
        "sam400.yaml",
        "Transform: AWS::Serverless-2016-10-31\nGlobals:\n  Function:\n    Timeout: 1" + "0" * 400 + "\n"
        "Resources:\n  Q: {Type: AWS::SQS::Queue}\n  Fn:\n    Type: AWS::Serverless::Function\n"
        "    Properties:\n      Events: {E: {Type: SQS, Properties: {Queue: !GetAtt Q.Arn}}}\n",
        "Globals/Function/Timeout",
    ),
    "1e400 as a string": ("s400.yaml", WARN_TEMPLATE.replace("{Timeout: 30", "{Timeout: '1e400'"), "expected a number"),
    "a date that does not exist": ("date.yaml", "Resources:\n  Q: {Type: AWS::SQS::Queue}\nX: 2020-13-45\n", "invalid value"),
    "Fn::ForEach bomb": (
        "bomb.json",
        json.dumps({"Resources": {"Fn::ForEach::A": ["A", [str(i) for i in range(100)], {
            "Fn::ForEach::B": ["B", [str(i) for i in range(100)], {
                "Fn::ForEach::C": ["C", [str(i) for i in range(100)], {
                    "Q${A}x${B}y${C}": {"Type": "AWS::SQS::Queue"}}]}]}]}}),
        "Fn::ForEach expands to more than 5,000 resources",
    ),
    "yaml alias bomb": (
        "laughs.yaml",
        "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
            f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
            f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
            for i in range(8)
        ),
        "aliases expand",
    ),
    "binary file": ("bin.yaml", "\x00\x01\x02", "NUL"),
}  # fmt: skip

CONFIG_CRASHERS = {
    ".inf p99": ("profiles:\n  - {match: '*', p99: .inf}\n", "profiles/0/p99: expected a number, got inf"),
    ".nan p50": ("profiles:\n  - {match: '*', p50: .nan, p99: 4}\n", "profiles/0/p50: expected a number, got nan"),
    ".nan setting": ("settings: {lambda_multiplier: .nan}\n", "settings/lambda_multiplier: expected a number, got nan"),
    "-.inf visibility": ("queues:\n  - {name: q, visibility_timeout: -.inf}\n", "queues/0/visibility_timeout"),
    "10**400 concurrency": ("profiles:\n  - {match: '*', p99: 4, concurrency: 1" + "0" * 400 + "}\n", "got an integer of 401 digits, beyond any AWS limit"),
    ".inf heartbeat": ("profiles:\n  - {match: '*', p99: 4, heartbeat: {interval: .inf}}\n", "heartbeat/interval"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CRASHERS))
def test_crashers_are_one_bad_input_line_and_the_others_still_run(tmp_path, capsys, good, case):
    name, text, expected = CRASHERS[case]
    bad = tmp_path / name
    bad.write_text(text)
    code, report, err = run_cli(capsys, str(bad), good)
    assert code == 4, err
    (line,) = err
    assert line.startswith(f"visguard lint: {bad}") and "Traceback" not in line, line
    if expected is ANY_WORDING:
        assert re.match(rf"visguard lint: {re.escape(str(bad))}:\d+: \S", line), line
    else:
        assert expected in line, line
    assert report["summary"]["files"] == 1 and any(f["rule"] == "VG011" for f in report["findings"])


@pytest.mark.parametrize("case", sorted(CONFIG_CRASHERS))
def test_non_finite_and_huge_numbers_in_visguard_yaml(tmp_path, capsys, good, case):
    text, expected = CONFIG_CRASHERS[case]
    cfg = tmp_path / "visguard.yaml"
    cfg.write_text(text)
    code, report, err = run_cli(capsys, str(cfg), good)  # linted as an input
    assert code == 4 and len(err) == 1 and str(cfg) in err[0] and expected in err[0], err
    assert report["summary"]["files"] == 1
    code = __import__("visguard.cli", fromlist=["main"]).main(["lint", "--config", str(cfg), good])
    err = capsys.readouterr().err.splitlines()
    assert code == 1 and len(err) == 1 and expected in err[0]  # and as the --config file


def _remove_deep_tree(root, levels):
    """Remove what _deep_tree made, bottom-up (shutil.rmtree recurses and fails past ~1,000 levels)."""
    fds = [os.open(root, os.O_RDONLY)]
    for _ in range(levels):
        fds.append(os.open("d", os.O_RDONLY, dir_fd=fds[-1]))
    os.unlink("stack.yaml", dir_fd=fds[-1])
    for i in range(levels, 0, -1):
        os.close(fds[i])
        os.rmdir("d", dir_fd=fds[i - 1])
    os.close(fds[0])


def test_a_folder_tree_1100_levels_deep(tmp_path, capsys):
    (tmp_path / "stack.yaml").write_text(WARN_TEMPLATE)
    deep = tmp_path / "deep"
    deep.mkdir()
    _deep_tree(deep, 1100)
    try:
        code, report, err = run_cli(capsys, str(tmp_path))
    finally:
        _remove_deep_tree(deep, 1100)
    assert code == 4 and len(err) == 1 and "deeper than 64 levels" in err[0]
    assert report["summary"]["files"] == 1  # the template at the top is linted


def test_an_internal_error_in_one_file_exits_3_and_the_others_still_run(tmp_path, capsys, good, monkeypatch):
    from visguard.linter.loaders import cfn

    real = cfn.load_template

    def boom(template, *, file, **kw):
        if file.endswith("boom.yaml"):
            raise ZeroDivisionError("a bug\nwith a second line")
        return real(template, file=file, **kw)

    monkeypatch.setattr(cfn, "load_template", boom)
    bad = tmp_path / "boom.yaml"
    bad.write_text(WARN_TEMPLATE)
    code, report, err = run_cli(capsys, str(bad), good)
    assert code == 3
    (line,) = err
    assert str(bad) in line and "internal error (ZeroDivisionError: a bug with a second line)" in line
    assert report["summary"]["files"] == 1 and report["errors"][0]["file"] == str(bad)
    assert report["errors"][0]["kind"] == "internal-error"


def test_an_unexpected_crash_in_a_command_exits_3_without_traceback(capsys, monkeypatch):
    from visguard import cli
    from visguard.linter import cli as lint_cli

    monkeypatch.setattr(lint_cli, "main", lambda argv, prog: {}["missing"])
    assert cli.main(["lint", "x.yaml"]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error (KeyError: 'missing')" in err and "Traceback" not in err


# ------------------------------------------------------------------------------------------ output injection
EVIL_ID = "Q\x1b]0;pwned\x07\x1b[2J\nforged.yaml\n  Fake\u202eevil\u2028x\ud800"


def _evil_template() -> str:
    return json.dumps(
        {
            "Resources": {
                EVIL_ID: {
                    "Type": "AWS::SQS::Queue",
                    "Properties": {"VisibilityTimeout": 99999, "QueueName": "n\x1b[31m\r"},
                }
            }
        }
    )


def _no_raw_controls(text: str) -> bool:
    return not any(
        (ord(c) < 32 and c not in "\n")
        or 0x7F <= ord(c) <= 0x9F
        or c in "\u202e\u2028"
        or 0xD800 <= ord(c) <= 0xDFFF
        for c in text
    )


def test_text_report_and_stderr_show_control_characters_escaped(tmp_path, capsys):
    evil = tmp_path / "evil.json"
    evil.write_text(_evil_template())
    bad = tmp_path / "bad\x1b[2Jname\n.yaml"
    bad.write_text("Resources: [")
    code = __import__("visguard.cli", fromlist=["main"]).main(["lint", "--no-config", str(evil), str(bad)])
    out, err = capsys.readouterr()
    assert code == 4
    assert _no_raw_controls(out) and _no_raw_controls(err)
    assert "\\x1b]0;pwned\\x07" in out and "\\u202e" in out and "\\ud800" in out
    assert len(err.splitlines()) == 1 and "bad\\x1b[2Jname\\x0a.yaml" in err
    # every finding line of the one queue stays under its one header line
    assert sum(1 for line in out.splitlines() if "forged.yaml" in line) == 1


def test_junit_is_valid_xml_1_0_and_sarif_uris_are_percent_encoded(tmp_path, capsys):
    import xml.etree.ElementTree as ET
    from urllib.parse import unquote

    d = tmp_path / "dir with space#1%"
    d.mkdir()
    evil = d / "evil\x1b.json"
    evil.write_text(_evil_template())
    bad = d / "bad\x07.yaml"
    bad.write_text("Resources: [")
    main = __import__("visguard.cli", fromlist=["main"]).main
    assert main(["lint", "--no-config", "-f", "junit", str(evil), str(bad)]) == 4
    xml = capsys.readouterr().out
    assert _no_raw_controls(xml.replace("\n", ""))
    root = ET.fromstring(xml.encode())  # parses: valid XML
    assert root.get("errors") == "1" and "\\x1b]0;pwned" in xml
    assert main(["lint", "--no-config", "-f", "sarif", str(evil), str(bad)]) == 4
    sarif = json.loads(capsys.readouterr().out)
    uris = [
        loc["physicalLocation"]["artifactLocation"]["uri"]
        for r in sarif["runs"][0]["results"]
        for loc in r["locations"]
    ]
    uris += [
        n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for n in sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    ]
    assert uris and all(" " not in u and "#" not in u and "\x1b" not in u and "\x07" not in u for u in uris)
    assert any(unquote(u).endswith("dir with space#1%/evil\x1b.json") for u in uris)
    assert main(["lint", "--no-config", "-f", "json", str(evil)]) == 2
    raw = capsys.readouterr().out
    assert _no_raw_controls(raw) and json.loads(raw)["findings"][0]["queue"] == EVIL_ID


@pytest.mark.skipif(sys.platform != "linux", reason="non-UTF-8 file names")
def test_a_file_name_that_is_not_utf8(tmp_path, capsys):
    name = os.fsdecode(b"caf\xe9.yaml")
    (tmp_path / name).write_text(WARN_TEMPLATE)
    main = __import__("visguard.cli", fromlist=["main"]).main
    assert main(["lint", "--no-config", str(tmp_path)]) == 2
    out = capsys.readouterr().out
    assert "caf\\udce9.yaml" in out
    assert main(["lint", "--no-config", "-f", "sarif", str(tmp_path)]) == 2
    assert "caf%E9.yaml" in capsys.readouterr().out


def test_broken_pipe_is_quiet_and_keeps_the_exit_code(tmp_path):
    queues = {
        f"Queue{i}": {"Type": "AWS::SQS::Queue", "Properties": {"VisibilityTimeout": 50_000 + i}}
        for i in range(600)
    }
    (tmp_path / "many.json").write_text(json.dumps({"Resources": queues}))
    import subprocess

    from .conftest import VISGUARD

    proc = subprocess.Popen(
        [VISGUARD, "lint", "--no-config", str(tmp_path / "many.json")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.readline()
    proc.stdout.close()  # like `| head -1`
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=30) == 2
    assert err == ""


def test_no_file_is_opened_for_writing_or_changed(tmp_path, capsys, good):
    """Linting never writes into the inputs (modes and contents unchanged)."""
    before = {p: (p.read_bytes(), stat.S_IMODE(p.stat().st_mode)) for p in tmp_path.rglob("*") if p.is_file()}
    run_cli(capsys, str(tmp_path))
    after = {p: (p.read_bytes(), stat.S_IMODE(p.stat().st_mode)) for p in tmp_path.rglob("*") if p.is_file()}
    assert before == after


def test_regressions_found_by_the_fuzzer(tmp_path, capsys, good):
    """`!!timestamp` on text that is not a date raised AttributeError inside PyYAML (exit 3)."""
    bad = tmp_path / "ts.yaml"
    bad.write_text("!!timestamp 2020-99-01 Resources: {}\n")
    code, _, err = run_cli(capsys, str(bad), good)
    assert code == 4 and len(err) == 1 and "invalid value" in err[0]
