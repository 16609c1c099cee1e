"""Issue 28: what ``visguard lint --fix`` writes, and what it must never write. Every case runs the real
``visguard lint`` entry point on real files: planted links, hard links, modes, FIFOs, a second process that edits
the file while --fix runs. The same write policy holds for every syntax --fix edits (CloudFormation YAML and JSON,
Terraform HCL and JSON, a Serverless service's resources file): one writer (``fix.write_fix``)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from visguard.cli import main
from visguard.linter import fix
from visguard.linter.loaders import safe_io

from .conftest import WARN_TEMPLATE, run_process

ROOT = Path(__file__).resolve().parents[2]

CFN_JSON = """{
  "Resources": {
    "Orders": {"Type": "AWS::SQS::Queue", "Properties": {"VisibilityTimeout": 30}},
    "Fn": {"Type": "AWS::Lambda::Function",
           "Properties": {"Timeout": 30, "Runtime": "python3.12", "Handler": "a.b", "Role": "r",
                          "Code": {"ZipFile": "x"}}},
    "Map": {"Type": "AWS::Lambda::EventSourceMapping",
            "Properties": {"EventSourceArn": {"Fn::GetAtt": ["Orders", "Arn"]}, "FunctionName": {"Ref": "Fn"}}}
  }
}
"""
WORKER_TF = """
resource "aws_lambda_function" "worker" {
  function_name = "worker"
  role          = "arn:aws:iam::123456789012:role/worker"
  handler       = "app.handler"
  runtime       = "python3.12"
  filename      = "worker.zip"
  timeout       = 300
}

resource "aws_lambda_event_source_mapping" "worker" {
  event_source_arn        = aws_sqs_queue.jobs.arn
  function_name           = aws_lambda_function.worker.arn
  batch_size              = 1
  function_response_types = ["ReportBatchItemFailures"]
}
"""
HCL = 'resource "aws_sqs_queue" "jobs" {\n  visibility_timeout_seconds = 60\n}\n' + WORKER_TF
TF_JSON = """{
  "resource": {
    "aws_sqs_queue": {
      "jobs": {
        "visibility_timeout_seconds": 60
      }
    }
  }
}
"""
SERVERLESS = """service: shop
provider:
  name: aws
  runtime: python3.12
functions:
  worker:
    handler: app.handler
    timeout: 30
    events:
      - sqs:
          arn: !GetAtt Jobs.Arn
          batchSize: 1
resources:
  - ${file(./queues.yml)}
"""
SERVERLESS_QUEUES = (
    "Resources:\n  Jobs:\n    Type: AWS::SQS::Queue\n    Properties:\n      VisibilityTimeout: 30\n"
)

# syntax -> (the files of the input, the input to lint, the file --fix changes, a line it writes there)
SYNTAXES = {
    "cloudformation yaml": ({"t.yaml": WARN_TEMPLATE}, "t.yaml", "t.yaml", "VisibilityTimeout: 180"),
    "cloudformation json": ({"t.json": CFN_JSON}, "t.json", "t.json", '"VisibilityTimeout": 180'),
    "terraform hcl": ({"main.tf": HCL}, ".", "main.tf", "visibility_timeout_seconds = 1800"),
    "terraform json": ({"main.tf.json": TF_JSON, "worker.tf": WORKER_TF}, ".", "main.tf.json", ": 1800"),
    "serverless": (
        {"serverless.yml": SERVERLESS, "queues.yml": SERVERLESS_QUEUES},
        ".",
        "queues.yml",
        "VisibilityTimeout: 180",
    ),
}


def lint(capsys, *argv):
    code = main(["lint", "--no-config", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def project(tmp_path: Path, syntax: str) -> tuple[Path, Path, Path, str]:
    """(the folder, the input to lint, the file --fix changes, a line it writes) of a small project."""
    files, target, changed, line = SYNTAXES[syntax]
    folder = tmp_path / "project"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder, folder / target, folder / changed, line


@pytest.fixture(params=sorted(SYNTAXES))
def syntax(request):
    return request.param


# ------------------------------------------------------------------------------------------ every syntax is fixed
def test_each_syntax_is_fixed_in_place_keeping_mode_and_inode_free_of_temporaries(tmp_path, capsys, syntax):
    folder, target, changed, line = project(tmp_path, syntax)
    changed.chmod(0o640)
    code, _, err = lint(capsys, target, "--fix")
    assert code == 2 and f"{changed.name}: fixed" in err, err
    assert line in changed.read_text()
    st = os.lstat(changed)
    assert stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o640
    assert sorted(p.name for p in folder.iterdir()) == sorted(SYNTAXES[syntax][0])  # no temporary left


# ------------------------------------------------------------------------------------------ planted names
def test_a_planted_temporary_link_is_never_written_through(tmp_path, capsys, syntax):
    folder, target, changed, line = project(tmp_path, syntax)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    planted = folder / f"{changed.name}.visguard-fix.tmp"
    planted.symlink_to(Path("..") / "victim.txt")
    code, _, err = lint(capsys, target, "--fix")
    assert code == 2 and line in changed.read_text(), err
    assert victim.read_text() == "precious\n"
    assert planted.is_symlink() and os.readlink(planted) == str(Path("..") / "victim.txt")
    assert not changed.is_symlink()


def test_a_folder_with_the_old_temporary_name_is_no_obstacle(tmp_path, capsys, syntax):
    folder, target, changed, line = project(tmp_path, syntax)
    (folder / f"{changed.name}.visguard-fix.tmp").mkdir()
    code, _, err = lint(capsys, target, "--fix")
    assert code == 2 and line in changed.read_text() and "internal error" not in err, err
    assert (folder / f"{changed.name}.visguard-fix.tmp").is_dir()


# ------------------------------------------------------------------------------------------ refused files
def _hard_link(folder: Path, changed: Path) -> Path:
    other = folder.parent / "elsewhere"
    os.link(changed, other)
    return other


def _symlink(folder: Path, changed: Path) -> Path:
    (folder / "real").mkdir()
    real = folder / "real" / changed.name
    changed.rename(real)
    changed.symlink_to(Path("real") / changed.name)
    return real


def _read_only(folder: Path, changed: Path) -> Path:
    changed.chmod(0o444)
    return changed


REFUSED = {
    "hard link": (_hard_link, "hard links"),
    "symbolic link": (_symlink, "a symbolic link"),
    "read-only": (_read_only, "read-only (mode 0444)"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_links_and_read_only_files_are_refused_with_the_reason(tmp_path, capsys, syntax, case):
    folder, target, changed, _ = project(tmp_path, syntax)
    make, reason = REFUSED[case]
    other = make(folder, changed)
    before, st = changed.read_bytes(), os.lstat(changed)
    code, _, err = lint(capsys, target, "--fix")
    after = os.lstat(changed)
    assert changed.read_bytes() == before and other.read_bytes() == before
    assert (after.st_ino, after.st_mode, after.st_nlink) == (st.st_ino, st.st_mode, st.st_nlink)
    assert f"{changed.name}: fixed" not in err
    if syntax.startswith("terraform") and case == "symbolic link":
        return  # the Terraform loader may refuse the link before --fix sees it: nothing is written either way
    assert code == 4, err
    (line,) = [x for x in err.splitlines() if "not written by --fix" in x]
    assert str(changed) in line and reason in line


def test_diff_says_when_fix_would_refuse_the_file(tmp_path, capsys):
    folder, target, changed, _ = project(tmp_path, "cloudformation yaml")
    changed.chmod(0o444)
    code, out, err = lint(capsys, target, "--diff")
    assert code == 2 and out.startswith("--- a/")
    assert "note: --fix would not write it: read-only (mode 0444)" in err


# ------------------------------------------------------------------------------------------ concurrent edits
def _append_by_another_process(path: Path) -> None:
    script = "import sys; open(sys.argv[1], 'a', newline='').write('# edited meanwhile\\n')"
    subprocess.run([sys.executable, "-c", script, str(path)], check=True, timeout=60)


def _same_size_same_mtime(path: Path) -> None:
    st = os.stat(path)
    text = path.read_bytes()
    path.write_bytes(text[:-2] + b"#\n")  # a new last byte, same length
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def _replaced_by_rename(path: Path) -> None:
    new = path.with_name(path.name + ".new")
    new.write_bytes(path.read_bytes() + b"\n")
    os.replace(new, path)


EDITS = {
    "appended by another process": _append_by_another_process,
    "same size and mtime": _same_size_same_mtime,
    "replaced by an editor": _replaced_by_rename,
}


@pytest.mark.parametrize("when", ["while planning", "just before the rename"])
@pytest.mark.parametrize("edit", sorted(EDITS))
def test_an_edit_made_while_fix_runs_is_never_lost(tmp_path, capsys, monkeypatch, syntax, edit, when):
    folder, target, changed, _ = project(tmp_path, syntax)
    done = []

    def edit_once():
        if not done:
            done.append(1)
            EDITS[edit](changed)

    if when == "while planning":  # between the read and the write: the plan is made on the old text
        real = fix.keep_line_endings

        def planning(before, after):
            edit_once()
            return real(before, after)

        monkeypatch.setattr(fix, "keep_line_endings", planning)
    else:  # the temporary file is written: the check right before the rename must see the edit
        real_create = safe_io._create_temp

        def creating(dfd, name):
            edit_once()
            return real_create(dfd, name)

        monkeypatch.setattr(safe_io, "_create_temp", creating)
    code, _, err = lint(capsys, target, "--fix")
    edited = changed.read_bytes()
    assert done and code == 4, err
    (line,) = [x for x in err.splitlines() if "not written by --fix" in x]
    assert str(changed) in line and "changed since visguard read it" in line
    assert f"{changed.name}: fixed" not in err
    assert [p.name for p in folder.iterdir() if "visguard-fix" in p.name] == []
    # the edit is what is on disk, whatever it was
    assert edited == changed.read_bytes() and edited != SYNTAXES[syntax][0][changed.name].encode()


# ------------------------------------------------------------------------------------------ line endings
@pytest.mark.parametrize("syntax_", ["cloudformation yaml", "terraform hcl"])
def test_crlf_files_get_crlf_lines(tmp_path, capsys, syntax_):
    folder, target, changed, line = project(tmp_path, syntax_)
    if syntax_ == "terraform hcl":  # a dead-letter queue block is added: several new lines
        changed.write_text(
            HCL.replace("visibility_timeout_seconds = 60", "visibility_timeout_seconds = 1800")
        )
    crlf = changed.read_text().replace("\n", "\r\n").encode()
    changed.write_bytes(crlf)
    code, _, err = lint(capsys, target, "--fix")
    after = changed.read_bytes()
    assert code == 2 and after != crlf, err
    assert after.count(b"\n") > crlf.count(b"\n")  # lines were added
    assert after.count(b"\n") == after.count(b"\r\n")  # every one of them ends as the file's lines do


def test_a_mostly_lf_file_keeps_lf_and_its_odd_crlf_line(tmp_path, capsys):
    folder, target, changed, _ = project(tmp_path, "cloudformation yaml")
    text = WARN_TEMPLATE.replace("Resources:\n", "Resources:\r\n", 1)
    changed.write_bytes(text.encode())
    lint(capsys, target, "--fix")
    after = changed.read_bytes()
    assert after.startswith(b"Resources:\r\n") and after.count(b"\r\n") == 1


def test_keep_line_endings_touches_only_the_written_lines():
    before = "a\r\nb\r\nc\nd\r\n"  # CRLF dominant, one LF line left as it was
    after = "a\r\nnew\nb\r\nc\nd\r\nend\n"
    assert fix.keep_line_endings(before, after) == "a\r\nnew\r\nb\r\nc\nd\r\nend\r\n"
    assert fix.keep_line_endings("a\nb\n", "a\nx\nb\n") == "a\nx\nb\n"


# ------------------------------------------------------------------------------------------ --output
def _same_path(folder: Path, t: Path):
    return [t], t


def _link_to_it(folder: Path, t: Path):
    (folder / "report.txt").symlink_to(t)
    return [t], folder / "report.txt"


def _hard_link_to_it(folder: Path, t: Path):
    os.link(t, folder / "report.txt")
    return [t], folder / "report.txt"


def _other_spelling(folder: Path, t: Path):
    return [t], folder / "sub" / ".." / t.name


def _found_in_a_folder(folder: Path, t: Path):
    return [folder], t


OUTPUTS = {
    "the input itself": _same_path,
    "a symbolic link to it": _link_to_it,
    "a hard link to it": _hard_link_to_it,
    "another spelling": _other_spelling,
    "a template found in a linted folder": _found_in_a_folder,
}


@pytest.mark.parametrize("fix_too", [False, True])
@pytest.mark.parametrize("case", sorted(OUTPUTS))
def test_an_output_that_is_an_input_is_refused_before_anything_is_written(tmp_path, capsys, case, fix_too):
    folder = tmp_path / "in"
    (folder / "sub").mkdir(parents=True)
    t = folder / "t.yaml"
    t.write_text(WARN_TEMPLATE)
    inputs, output = OUTPUTS[case](folder, t)
    code, out, err = lint(capsys, *inputs, "--output", output, *(["--fix"] if fix_too else []))
    assert code == 1 and t.read_text() == WARN_TEMPLATE and out == ""
    (line,) = err.splitlines()
    assert "--output" in line and "the report would replace it" in line


def test_an_output_next_to_the_inputs_is_written(tmp_path, capsys):
    t = tmp_path / "t.yaml"
    t.write_text(WARN_TEMPLATE)
    code, _, _ = lint(capsys, t, "--output", tmp_path / "report.txt")
    assert code == 2 and "VG011" in (tmp_path / "report.txt").read_text()


# ------------------------------------------------------------------------------------------ references
def test_the_serverless_example_keeps_its_per_stage_variable(tmp_path, capsys):
    code, out, err = lint(capsys, ROOT / "examples" / "serverless", "--diff")
    assert code == 2
    assert "${self:custom.stage.ordersVisibility}" not in "".join(
        x for x in out.splitlines(keepends=True) if x.startswith("-")
    )
    assert "VisibilityTimeout: 725" not in out
    assert (
        "VG011 on OrdersQueue not fixed automatically: the value comes from the variable "
        "${self:custom.stage.ordersVisibility}: change it where it is defined" in err
    )


PARAMETER = "Parameters:\n  Vt: {Type: Number, Default: 30}\n"
REFERENCES = {
    "yaml !Ref": (
        "t.yaml",
        PARAMETER + WARN_TEMPLATE.replace("VisibilityTimeout: 30", "VisibilityTimeout: !Ref Vt"),
        "!Ref Vt",
        "the value comes from the parameter Vt (Ref)",
    ),
    "json Ref": (
        "t.json",
        CFN_JSON.replace('"VisibilityTimeout": 30', '"VisibilityTimeout": {"Ref": "Vt"}').replace(
            '"Resources"', '"Parameters": {"Vt": {"Type": "Number", "Default": 30}},\n  "Resources"'
        ),
        '{"Ref": "Vt"}',
        "the value comes from the parameter Vt (Ref)",
    ),
    "yaml Fn::If": (
        "t.yaml",
        "Conditions:\n  Big: !Equals [a, b]\n"
        + WARN_TEMPLATE.replace("VisibilityTimeout: 30", "VisibilityTimeout: !If [Big, 60, 30]"),
        "!If [Big, 60, 30]",
        "the value comes from !If",
    ),
    "yaml alias": (
        "t.yaml",
        "Mappings: {M: {a: {b: &vt 30}}}\n"
        + WARN_TEMPLATE.replace("VisibilityTimeout: 30", "VisibilityTimeout: *vt"),
        "*vt",
        "the value is the YAML anchor &vt, shared with its aliases",
    ),
}


@pytest.mark.parametrize("case", sorted(REFERENCES))
def test_a_reference_is_never_flattened_into_a_literal(tmp_path, capsys, case):
    name, text, reference, reason = REFERENCES[case]
    t = tmp_path / name
    t.write_text(text)
    lint(capsys, t, "--fix")
    _, _, err = lint(capsys, t, "--fix")  # the other findings are fixed by now: only the reference is left
    assert reference in t.read_text()
    assert f"VG011 on Orders not fixed automatically: {reason}" in err, err


def test_a_serverless_variable_is_left_where_it_is_defined(tmp_path, capsys):
    folder, target, changed, _ = project(tmp_path, "serverless")
    (folder / "serverless.yml").write_text(SERVERLESS.replace("functions:", "custom:\n  vt: 30\nfunctions:"))
    changed.write_text(
        SERVERLESS_QUEUES.replace("VisibilityTimeout: 30", "VisibilityTimeout: ${self:custom.vt}")
    )
    code, out, err = lint(capsys, target, "--diff")
    assert "${self:custom.vt}" in changed.read_text() and "VisibilityTimeout: 180" not in out
    assert (
        "VG011 on Jobs not fixed automatically: the value comes from the variable ${self:custom.vt}: change it "
        "where it is defined" in err
    ), err


# ------------------------------------------------------------------------------------------ FIFOs and devices
def _fifo(tmp_path: Path) -> str:
    p = tmp_path / "vars.tfvars"
    os.mkfifo(p)
    return str(p)


SPECIAL = {
    "named pipe": (_fifo, "a named pipe, not a regular file"),
    "device": (lambda tmp_path: "/dev/null", "a device, not a regular file"),
    "folder": (lambda tmp_path: str(tmp_path), "a directory, not a regular file"),
    "missing": (lambda tmp_path: str(tmp_path / "nope.tfvars"), "no such file"),
}


@pytest.mark.parametrize("case", sorted(SPECIAL))
def test_var_file_says_what_it_names_without_opening_it(tmp_path, case):
    make, said = SPECIAL[case]
    path = make(tmp_path)
    (tmp_path / "main.tf").write_text(HCL)
    r = run_process(["lint", "--no-config", str(tmp_path / "main.tf"), "--var-file", path], timeout=60)
    assert r.returncode == 1, r.stderr
    (line,) = r.stderr.splitlines()
    assert path in line and "--var-file" in line and said in line


def _baseline_fifo(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "prev").mkdir()
    os.mkfifo(tmp_path / "prev" / "findings.csv")
    return str(tmp_path / "prev"), str(tmp_path / "prev" / "findings.csv")


BASELINES = {
    "named pipe": (lambda tmp_path: (_fifo(tmp_path),) * 2, "a named pipe, not a regular file or a folder"),
    "named pipe in a result": (_baseline_fifo, "a named pipe, not a regular file"),
    "device": (lambda tmp_path: ("/dev/null",) * 2, "a device, not a regular file or a folder"),
    "missing": (lambda tmp_path: (str(tmp_path / "nope"),) * 2, "no such file or folder"),
}


@pytest.mark.parametrize("case", sorted(BASELINES))
def test_audit_baseline_says_what_it_names_without_opening_it(tmp_path, case):
    make, said = BASELINES[case]
    given, named = make(tmp_path)
    (tmp_path / "inv").mkdir()
    args = ["audit", "run", "--inventory", str(tmp_path / "inv"), "--out", str(tmp_path / "out")]
    r = run_process([*args, "--baseline", given], timeout=120)
    assert r.returncode == 1, r.stderr
    (line,) = r.stderr.splitlines()
    assert f"{named}: {said}" in line
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------------------------------ globs
@pytest.mark.parametrize(
    "entry, where",
    [
        ("suppressions:\n  - rule: VG011\n    reason: r\n    queue: '{glob}'\n", "suppressions/0/queue"),
        ("suppressions:\n  - rule: VG011\n    reason: r\n    account: '{glob}'\n", "suppressions/0/account"),
        (
            "suppressions:\n  - rule: VG011\n    reason: r\n    tags: {{team: '{glob}'}}\n",
            "suppressions/0/tags/team",
        ),
        ("profiles:\n  - match: [a, '{glob}']\n    p99: 3\n", "profiles/0/match/1"),
    ],
)
def test_a_huge_glob_in_the_config_is_one_clear_line(tmp_path, entry, where):
    cfg = tmp_path / "visguard.yaml"
    cfg.write_text(entry.format(glob="[" * 40_000))
    t = tmp_path / "t.yaml"
    t.write_text(WARN_TEMPLATE)
    r = run_process(["lint", str(t), "--config", str(cfg)], timeout=60)
    assert r.returncode == 1, r.stderr
    (line,) = r.stderr.splitlines()
    assert str(cfg) in line and where in line and "a glob of 40000 characters, more than 1000" in line


def test_a_glob_of_the_longest_allowed_length_still_matches(tmp_path, capsys):
    cfg = tmp_path / "visguard.yaml"
    glob = "Ord*" + "?" * 0 + "*" * 996
    cfg.write_text(f"suppressions:\n  - rule: VG011\n    reason: r\n    queue: '{glob}'\n")
    t = tmp_path / "t.yaml"
    t.write_text(WARN_TEMPLATE)
    code = main(["lint", str(t), "--config", str(cfg), "--format", "json"])
    out, _ = capsys.readouterr()
    assert code in (0, 2) and '"VG011"' not in out
