"""``visguard audit run --out X`` never deletes what visguard did not write."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from visguard.audit import outdir
from visguard.errors import VisguardError


def _result(folder, entries=("findings", "summary.json")):
    folder.mkdir(parents=True, exist_ok=True)
    for e in entries:
        if "." in e:
            (folder / e).write_text("{}")
        else:
            (folder / e).mkdir()
            (folder / e / "part-0.parquet").write_bytes(b"x")
    (folder / outdir.MARKER).write_text(json.dumps({"entries": list(entries)}))


def test_new_and_empty_folders_are_used(tmp_path):
    assert outdir.prepare(tmp_path / "new" / "deeper", False) == set()
    assert (tmp_path / "new" / "deeper").is_dir()
    (tmp_path / "empty").mkdir()
    assert outdir.prepare(tmp_path / "empty", False) == set()


@pytest.mark.parametrize(
    ("setup", "overwrite", "message"),
    [
        ("user-files", False, "is not empty and is not a visguard audit result"),
        ("user-files", True, "is not empty and is not a visguard audit result"),
        ("user-findings-folder", True, "is not empty and is not a visguard audit result"),
        ("a-file", False, "is not a folder"),
        ("previous", False, "give --overwrite"),
        ("damaged-marker", True, "is damaged"),
        ("marker-escapes", True, "is damaged"),
        ("dangling-link", False, "dangling symbolic link"),
    ],
)
def test_refused_folders_are_left_untouched(tmp_path, setup, overwrite, message):
    out = tmp_path / "out"
    if setup == "user-files":
        out.mkdir()
        (out / "thesis.tex").write_text("mine")
    elif setup == "user-findings-folder":
        (out / "findings").mkdir(parents=True)
        (out / "findings" / "notes.txt").write_text("mine")
    elif setup == "a-file":
        out.write_text("mine")
    elif setup == "previous":
        _result(out)
    elif setup == "damaged-marker":
        _result(out)
        (out / outdir.MARKER).write_text("{not json")
    elif setup == "marker-escapes":
        (tmp_path / "precious").mkdir()
        _result(out)
        (out / outdir.MARKER).write_text(json.dumps({"entries": ["../precious"]}))
    elif setup == "dangling-link":
        out.symlink_to(tmp_path / "nowhere")
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    with pytest.raises(VisguardError, match=message):
        outdir.prepare(out, overwrite)
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before


def test_overwrite_removes_only_what_the_marker_lists(tmp_path):
    out = tmp_path / "out"
    _result(out)
    (out / "notes.md").write_text("mine")  # added by the user after the audit
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep").write_text("x")
    (out / "link").symlink_to(outside)
    marker = json.loads((out / outdir.MARKER).read_text())
    (out / outdir.MARKER).write_text(json.dumps({"entries": [*marker["entries"], "link"]}))
    foreign = outdir.prepare(out, True)
    assert foreign == {"notes.md"}
    assert sorted(p.name for p in out.iterdir()) == ["notes.md"]
    assert (outside / "keep").read_text() == "x"  # the link went, not what it pointed at
    outdir.write_marker(out, foreign, complete=False)
    (out / "summary.json").write_text("{}")
    outdir.write_marker(out, foreign, complete=True)
    doc = json.loads((out / outdir.MARKER).read_text())
    assert doc == {"tool": "visguard audit run", "status": "complete", "entries": ["summary.json"]}


def test_cli_refuses_before_starting_spark(tmp_path):
    inv = tmp_path / "inv"
    (inv / "111111111111").mkdir(parents=True)
    (inv / "111111111111" / "us-east-1.jsonl").write_text('{"kind":"partition"}\n')
    out = tmp_path / "out"
    out.mkdir()
    (out / "queues").mkdir()
    (out / "queues" / "mine.parquet").write_bytes(b"x")
    r = subprocess.run(
        [sys.executable, "-P", "-m", "visguard", "audit", "run", "--inventory", str(inv), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "VISGUARD_SPARK_CDS": "0"},
    )
    assert r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr
    assert "is not a visguard audit result" in r.stderr and "pyspark" not in r.stderr.lower()
    assert (out / "queues" / "mine.parquet").read_bytes() == b"x"


@pytest.mark.slow
def test_overwrite_replaces_a_previous_result_and_keeps_user_files(spark, tmp_path):
    from visguard.audit import generate, job

    inv = tmp_path / "inv"
    generate.generate(200, 2, 3, str(inv))
    out = tmp_path / "out"
    first = job.run(spark, str(inv), str(out))
    marker = json.loads((out / outdir.MARKER).read_text())
    assert marker["status"] == "complete" and {"findings", "queues", "summary.json"} <= set(marker["entries"])
    (out / "my-notes.txt").write_text("mine")
    with pytest.raises(VisguardError, match="--overwrite"):
        job.run(spark, str(inv), str(out))
    second = job.run(spark, str(inv), str(out), overwrite=True)
    assert second["findings_by_rule"] == first["findings_by_rule"]
    assert (out / "my-notes.txt").read_text() == "mine"
    assert "my-notes.txt" not in json.loads((out / outdir.MARKER).read_text())["entries"]
