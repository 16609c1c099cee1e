"""Issue 28: ``visguard audit run --baseline`` reads and checks the whole baseline before the audit removes or
writes anything, and refuses a baseline the audit would replace (``--out``/``--report-dir`` or inside them).
The refusals happen before Spark starts: run through the real ``visguard audit run`` (and ``job.run``)."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from visguard.audit import baseline as bl
from visguard.audit import job, outdir
from visguard.errors import VisguardError

GOOD_FP = "0123456789abcdef0123456789abcdef"


def _previous(folder: Path, fingerprints: list[str]) -> Path:
    """A previous result folder as the audit leaves it: a marker listing its entries, a findings.csv."""
    folder.mkdir(parents=True)
    with open(folder / "findings.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["rule", "queue_arn", "consumer", "fingerprint"])
        for fp in fingerprints:
            w.writerow(["VG011", "arn:aws:sqs:us-east-1:111111111111:q", "", fp])
    (folder / "summary.json").write_text("{}")
    (folder / outdir.MARKER).write_text(json.dumps({"entries": ["findings.csv", "summary.json"]}))
    return folder


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _inventory(tmp_path: Path) -> Path:
    inv = tmp_path / "inv"
    (inv / "111111111111").mkdir(parents=True)
    (inv / "111111111111" / "us-east-1.jsonl").write_text('{"kind":"partition"}\n')
    return inv


def _cases(tmp_path: Path) -> dict[str, tuple[list[str], Path, str]]:
    """name -> (arguments after --inventory, the previous result that must survive, what the one line says)."""
    prev = _previous(tmp_path / "prev", [GOOD_FP, GOOD_FP])
    bad = _previous(tmp_path / "bad", [GOOD_FP, "not-a-fingerprint"])
    return {
        "corrupt baseline, --out the previous result": (
            ["--out", str(prev), "--overwrite", "--baseline", str(bad)],
            prev,
            f"{bad / 'findings.csv'}:line 3: bad fingerprint 'not-a-fingerprint'",
        ),
        "baseline is --out": (
            ["--out", str(prev), "--overwrite", "--baseline", str(prev)],
            prev,
            "--baseline: is the --out folder",
        ),
        "baseline inside --out": (
            ["--out", str(prev), "--overwrite", "--baseline", str(prev / "findings.csv")],
            prev,
            "--baseline: is inside the --out folder",
        ),
        "baseline inside --report-dir": (
            [
                "--out",
                str(tmp_path / "new"),
                "--report-dir",
                str(prev),
                "--overwrite",
                "--baseline",
                str(prev),
            ],
            prev,
            "--baseline: is the --report-dir folder",
        ),
        "baseline inside --out through a link": (
            ["--out", str(prev), "--overwrite", "--baseline", str(_link(tmp_path, prev))],
            prev,
            "--baseline: is the --out folder",
        ),
    }


def _link(tmp_path: Path, target: Path) -> Path:
    link = tmp_path / "link-to-prev"
    link.symlink_to(target)
    return link


CASES = [
    "corrupt baseline, --out the previous result",
    "baseline is --out",
    "baseline inside --out",
    "baseline inside --report-dir",
    "baseline inside --out through a link",
]


@pytest.mark.parametrize("case", CASES)
def test_cli_refuses_before_anything_is_removed(tmp_path, case):
    inv = _inventory(tmp_path)
    args, kept, said = _cases(tmp_path)[case]
    before = _snapshot(kept)
    r = subprocess.run(
        [sys.executable, "-P", "-m", "visguard", "audit", "run", "--inventory", str(inv), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "VISGUARD_SPARK_CDS": "0"},
    )
    assert r.returncode == 1, r.stderr
    (line,) = r.stderr.splitlines()
    assert said in line and "pyspark" not in line.lower()
    assert _snapshot(kept) == before
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize("case", CASES)
def test_job_run_refuses_before_anything_is_removed(tmp_path, case):
    """The same through the Python entry point: the baseline is checked before Spark is used (none is given)."""
    inv = _inventory(tmp_path)
    args, kept, said = _cases(tmp_path)[case]
    flags = [a for a in args if a != "--overwrite"]
    opts = dict(zip(flags[::2], flags[1::2], strict=True))
    before = _snapshot(kept)
    with pytest.raises(VisguardError) as e:
        job.run(
            None,
            str(inv),
            opts["--out"],
            opts.get("--report-dir"),
            overwrite=True,
            baseline=opts["--baseline"],
        )
    assert said.replace("--baseline: ", "") in str(e.value)
    assert _snapshot(kept) == before


def test_the_whole_baseline_is_read_once_and_kept(tmp_path):
    prev = _previous(tmp_path / "prev", [GOOD_FP, GOOD_FP])
    b = bl.read(str(prev))
    assert str(b) == str(prev) and [r["fingerprint"] for r in b.rows] == [GOOD_FP, GOOD_FP]
    (prev / "findings.csv").unlink()  # what the audit does to a previous result it replaces
    assert bl.load_previous(b) == b.rows  # the rows read before are what is compared
    assert bl.read(b) is b


def test_a_baseline_beside_out_is_used(tmp_path):
    prev = _previous(tmp_path / "prev", [GOOD_FP])
    bl.refuse_inside(prev, {tmp_path / "out": "--out", tmp_path / "prev-2": "--report-dir"})  # no error


@pytest.mark.slow
def test_quarantine_and_every_parquet_folder_read_with_pyarrow(spark, tmp_path):
    """A corrupt inventory line (invalid UTF-8 included) lands in quarantine/, which pyarrow reads, as it reads
    findings/ and queues/."""
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq
    from visguard.audit import generate

    inv = tmp_path / "inv"
    generate.generate(60, 1, 5, str(inv))
    first = sorted(inv.rglob("*.jsonl"))[0]
    with open(first, "ab") as fh:
        fh.write(b"not json {\n")
        fh.write(b'{"kind": "queue", "arn": "\xff\xfe bad bytes"}\n')
        fh.write(b"\xff\xfe\xfd\n")
    out = tmp_path / "out"
    summary = job.run(spark, str(inv), str(out))
    assert summary["quarantined"] >= 3
    rows = pq.read_table(out / "quarantine").to_pylist()
    assert len(rows) == summary["quarantined"]
    assert any("\ufffd" in (r["reason"] or "") for r in rows)  # the bad bytes, shown as U+FFFD
    for name in ("findings", "queues", "quarantine"):
        table = ds.dataset(str(out / name), format="parquet", partitioning="hive").to_table()
        table.to_pylist()  # every string decodes
    assert (
        ds.dataset(str(out / "findings"), format="parquet", partitioning="hive").count_rows()
        == summary["findings"]
    )
    # the result as the next audit's baseline, read before that audit writes anything
    again = job.run(spark, str(inv), str(tmp_path / "again"), baseline=str(out))
    assert again["baseline"]["unchanged"] == summary["findings"] > 0
    assert again["baseline"]["new"] == again["baseline"]["resolved"] == 0
