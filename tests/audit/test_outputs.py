"""The audit's outputs besides Parquet: findings.csv, OCSF Detection Findings (validated against the published
OCSF 1.1.0 schema), the baseline comparison, and the neutralisation of hostile inventory values."""

from __future__ import annotations

import csv
import json
import math
from functools import cache

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from visguard.audit import baseline as bl
from visguard.audit import outputs
from visguard.audit.neutral import csv_cell, visible
from visguard.audit.ocsf import OCSF_VERSION
from visguard.errors import VisguardError

ACCT = "111111111111"


def finding(rule="VG031", severity="warning", queue="orders", consumer="m-1", account=ACCT, **kw) -> dict:
    arn = f"arn:aws:sqs:us-east-1:{account}:{queue}"
    row = {
        "account": account,
        "region": "us-east-1",
        "queue_arn": arn,
        "queue_name": queue,
        "rule": rule,
        "severity": severity,
        "message": f"{rule} on {queue}",
        "consumer": consumer,
        "fix": f"fix {rule}",
        "estimate": None,
    }
    row.update(kw)
    return row


def table(rows: list[dict]) -> pa.Table:
    cols = list(rows[0]) if rows else [*outputs.FINDING_COLUMNS[:-1]]
    return pa.table({c: pa.array([r.get(c) for r in rows], pa.string()) for c in cols})


def read_csv(path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@cache
def ocsf_validator():
    """JSON Schema (draft 2020-12) of OCSF 1.1.0 Detection Finding (class 2004) with the cloud profile, generated
    from the schema.ocsf.io export that the ocsf-json-schema package ships (Apache-2.0, ocsf/ocsf-schema)."""
    from jsonschema import Draft202012Validator
    from ocsf_json_schema import OcsfJsonSchemaEmbedded, get_ocsf_schema

    schema = OcsfJsonSchemaEmbedded(get_ocsf_schema(version=OCSF_VERSION))
    assert schema.lookup_class_name_from_uid(class_uid=2004) == "detection_finding"
    js = schema.get_class_schema(class_name="detection_finding", profiles=["cloud"])
    Draft202012Validator.check_schema(js)
    return Draft202012Validator(js)


def validate_ocsf(path) -> list[dict]:
    events = json.loads(path.read_text(encoding="utf-8"))
    v = ocsf_validator()
    for ev in events:
        errors = sorted(v.iter_errors(ev), key=str)
        assert not errors, f"{errors[0].json_path}: {errors[0].message}"
    return events


# ------------------------------------------------------------------------------------------------ neutral
def test_visible_escapes_controls_and_bidi():
    assert visible("a\x1b]0;pwned\x07b") == "a\\x1b]0;pwned\\x07b"
    assert visible("line\nforged") == "line\\x0aforged"
    assert visible("evil\u202etxt.exe") == "evil\\u202etxt.exe"
    assert visible("\x9b31m") == "\\x9b31m"
    assert visible("plain ünïcode") == "plain ünïcode" and visible(None) == ""


@pytest.mark.parametrize("value", ['=HYPERLINK("http://x")', "+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1"])
def test_csv_cell_defuses_formulas(value):
    cell = csv_cell(value)
    assert cell.startswith("'") and "\t" not in cell and "\r" not in cell


def test_csv_cell_keeps_plain_values():
    assert csv_cell("orders-1") == "orders-1" and csv_cell("arn:aws:sqs:x") == "arn:aws:sqs:x"


# ------------------------------------------------------------------------------------------------ outputs
HOSTILE = [
    finding("VG010", "error", queue="=cmd|' /C calc'!A0", consumer="@evil", owner="+team"),
    finding(
        "VG012",
        "warning",
        queue="q\x1b[2J\x1b]0;title\x07",
        owner="-ops",
        message="x</script><script>alert(1)</script>",
    ),
    finding("VG031", "warning", queue="plain", owner="payments", message="line one\nFORGED line"),
]


def test_write_outputs_csv_one_row_per_finding_neutralised(tmp_path):
    extra = outputs.write_outputs(tmp_path, table(HOSTILE), {"findings": 3}, owner_tag="team")
    rows = read_csv(tmp_path / "findings.csv")
    assert len(rows) == 3 and list(rows[0]) == list(outputs.CSV_COLUMNS)
    raw = (tmp_path / "findings.csv").read_bytes()
    assert b"\x1b" not in raw and b"\x07" not in raw
    by_rule = {r["rule"]: r for r in rows}
    assert by_rule["VG010"]["queue_name"] == "'=cmd|' /C calc'!A0"
    assert by_rule["VG010"]["consumer"] == "'@evil" and by_rule["VG010"]["owner"] == "'+team"
    assert by_rule["VG012"]["owner"] == "'-ops"
    assert by_rule["VG012"]["queue_name"] == "q\\x1b[2J\\x1b]0;title\\x07"
    assert by_rule["VG031"]["message"] == "line one\\x0aFORGED line"  # one finding = one line
    assert all(not any(v.startswith(("=", "+", "-", "@")) for v in r.values()) for r in rows)
    assert extra["outputs"]["csv"] == "findings.csv" and extra["findings_by_owner"]["payments"] == 1


def test_report_neutralises_hostile_values(tmp_path):
    outputs.write_outputs(tmp_path, table(HOSTILE), {"findings": 3})
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "\x1b" not in page and "\x07" not in page
    assert "<script>alert(1)" not in page and "</script><script>" not in page
    # the embedded data cannot close its script element: every < and > of a value is a JSON escape
    data = page[page.index("id='vg-data'>") : page.index("</script>", page.index("id='vg-data'>"))]
    assert "<" not in data[len("id='vg-data'>") :]
    assert "q\\\\x1b[2J" in data  # the ESC shown as text: \x1b, JSON-escaped once more


def test_missing_owner_column_and_fix_first_order(tmp_path):
    rows = [
        finding("VG031", "warning", queue="a"),
        finding("VG012", "warning", queue="b", estimate=json.dumps({"duplicate_rate": 0.2})),
        finding("VG013", "info", queue="c"),
        finding("VG010", "error", queue="d"),
        finding("VG012", "warning", queue="e", estimate=json.dumps({"duplicate_rate": 0.01})),
        finding("VG022", "warning", queue="f", consumer=None),
    ]
    t = table(rows)
    assert "owner" not in t.column_names
    outputs.write_outputs(tmp_path, t, {}, rates={"arn:aws:sqs:us-east-1:111111111111:f": 0.05})
    got = read_csv(tmp_path / "findings.csv")
    assert [r["queue_name"] for r in got] == ["d", "b", "f", "e", "a", "c"]
    assert [r["priority"] for r in got] == ["1", "2", "3", "4", "5", "6"]
    assert all(r["owner"] == "" for r in got)
    assert got[0]["why"].startswith("error") and "20 % of messages processed twice" in got[1]["why"]
    assert got[2]["duplicate_rate"] == "0.05"


def test_ocsf_events_validate_against_the_published_schema(tmp_path):
    rows = [*HOSTILE, finding("VG013", "info", queue="i", estimate=json.dumps({"recovery_p99": 3.0}))]
    outputs.write_outputs(tmp_path, table(rows), {}, now=1_767_225_600.0)
    events = validate_ocsf(tmp_path / "findings.ocsf.json")
    assert len(events) == 4
    e = {ev["finding_info"]["analytic"]["uid"]: ev for ev in events}
    assert (
        e["VG010"]["severity_id"] == 4 and e["VG012"]["severity_id"] == 3 and e["VG013"]["severity_id"] == 1
    )
    assert (
        e["VG010"]["class_uid"] == 2004
        and e["VG010"]["type_uid"] == 200401
        and e["VG010"]["time"] == 1_767_225_600_000
    )
    assert e["VG010"]["resources"][0]["uid"] == HOSTILE[0]["queue_arn"]
    assert e["VG010"]["cloud"]["account"]["uid"] == ACCT
    assert e["VG012"]["resources"][0]["name"] == HOSTILE[1]["queue_name"]  # JSON keeps the value, escaped
    assert "\x1b" not in (tmp_path / "findings.ocsf.json").read_text(encoding="utf-8")
    assert e["VG013"]["resources"][0]["data"]["estimate"] == {"recovery_p99": 3.0}
    assert e["VG010"]["finding_info"]["uid"] == bl.fingerprint("VG010", HOSTILE[0]["queue_arn"], "@evil")


def test_ocsf_validator_is_strict():
    v = ocsf_validator()
    good = {
        "activity_id": 1,
        "category_uid": 2,
        "class_uid": 2004,
        "type_uid": 200401,
        "time": 1,
        "severity_id": 3,
        "cloud": {"provider": "AWS"},
        "finding_info": {"uid": "x", "title": "t"},
        "metadata": {"version": "1.1.0", "product": {"vendor_name": "visguard", "name": "visguard"}},
    }
    assert v.is_valid(good)
    for broken in (
        {**good, "finding_info": {"title": "t"}},  # no uid
        {**good, "type_uid": 200405},
        {**good, "severity": 3},  # a string attribute
        {**good, "invented": 1},  # not in the class
        {
            **good,
            "metadata": {"version": "1.1.0", "product": {"vendor_name": "visguard"}},
        },  # product: no name/uid
    ):
        assert not v.is_valid(broken)


# ------------------------------------------------------------------------------------------------ baseline
def test_fingerprint_ignores_the_message_and_severity():
    a = bl.fingerprints(table([finding(message="vt 30 s, 2.9 %")]))
    b = bl.fingerprints(table([finding(message="vt 45 s, 0.3 %", severity="error")]))
    c = bl.fingerprints(table([finding(consumer="m-2")]))
    assert a == b and a != c and len(a[0]) == 32


def test_compare_is_a_multiset_difference():
    prev = [{"fingerprint": f} for f in ("a", "a", "b", "c")]
    status, resolved, counts = bl.compare(["a", "b", "b", "d"], prev)
    assert status == ["unchanged", "unchanged", "new", "new"]
    assert sorted(r["fingerprint"] for r in resolved) == ["a", "c"]
    assert counts == {
        "new": 2,
        "unchanged": 2,
        "resolved": 2,
        "previous_findings": 4,
        "suppressed": 0,
        "suppressed_since_baseline": 0,
        "previous_suppressed": 0,
    }
    # suppressed now, open before: "suppressed since baseline", never resolved; suppressed before and now: unchanged
    prev = [{"fingerprint": "a"}, {"fingerprint": "b", "suppressed": "why"}]
    status, resolved, counts = bl.compare(["a", "b"], prev, suppressed=[True, True])
    assert status == ["suppressed since baseline", "unchanged"] and resolved == []
    assert (counts["suppressed"], counts["suppressed_since_baseline"], counts["new"]) == (2, 1, 0)


def _previous_parquet(root, rows):
    for r in rows:  # the job's layout: findings/account=/region=/part-*.parquet without those two columns
        d = root / "findings" / f"account={r['account']}" / f"region={r['region']}"
        d.mkdir(parents=True, exist_ok=True)
    for (acct, region), group in _groupby(rows).items():
        t = table([{k: v for k, v in r.items() if k not in ("account", "region")} for r in group])
        pq.write_table(t, root / "findings" / f"account={acct}" / f"region={region}" / "part-0.parquet")


def _groupby(rows):
    out: dict = {}
    for r in rows:
        out.setdefault((r["account"], r["region"]), []).append(r)
    return out


@pytest.mark.parametrize("source", ["parquet", "csv"])
def test_baseline_new_resolved_unchanged(tmp_path, source):
    before = [
        finding("VG010", "error", queue="stays"),
        finding("VG012", "warning", queue="fixed", message="about 7.3 %"),
        finding("VG031", "warning", queue="stays", account="222222222222"),
    ]
    now = [
        finding("VG010", "error", queue="stays", message="changed numbers 99 s"),
        finding("VG031", "warning", queue="stays", account="222222222222"),
        finding("VG001", "error", queue="broken"),
    ]
    prev = tmp_path / "prev"
    if source == "parquet":
        _previous_parquet(prev, before)
    else:
        outputs.write_outputs(prev, table(before), {}, report=False)
    out = tmp_path / "now"
    extra = outputs.write_outputs(out, table(now), {}, baseline=str(prev))
    b = extra["baseline"]
    assert (b["new"], b["resolved"], b["unchanged"], b["previous_findings"]) == (1, 1, 2, 3)
    assert b["new_by_severity"]["error"] == 1 and b["resolved_by_severity"]["warning"] == 1
    assert b["new_sample"][0]["queue_arn"].endswith(":broken")
    assert b["resolved_sample"][0]["queue_arn"].endswith(":fixed")
    rows = read_csv(out / "findings.csv")
    assert {r["queue_name"]: r["baseline"] for r in rows if r["rule"] != "VG031"} == {
        "stays": "unchanged",
        "broken": "new",
    }
    diff = read_csv(out / "baseline-diff.csv")
    assert sorted((d["status"], d["rule"]) for d in diff) == [("new", "VG001"), ("resolved", "VG012")]
    events = validate_ocsf(out / "findings.ocsf.json")
    acts = sorted((e["finding_info"]["analytic"]["uid"], e["activity_name"], e["status"]) for e in events)
    assert acts == [
        ("VG001", "Create", "New"),
        ("VG010", "Update", "New"),
        ("VG012", "Close", "Resolved"),
        ("VG031", "Update", "New"),
    ]
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "id='baseline-resolved'" in page and ":fixed" in page


@pytest.mark.parametrize(
    ("make", "needle"),
    [
        (lambda p: p, "no such file or folder"),
        (lambda p: (p.mkdir(), p)[1], "not a visguard result"),
        (lambda p: (p.write_text("a,b\n1,2\n"), p)[1], "expected a result folder"),
        (
            lambda p: (p.with_suffix(".csv").write_text("a,b\n1,2\n"), p.with_suffix(".csv"))[1],
            "no fingerprint column",
        ),
        (
            lambda p: (p.with_suffix(".parquet").write_bytes(b"PAR1 not parquet"), p.with_suffix(".parquet"))[
                1
            ],
            "cannot read",
        ),
    ],
)
def test_bad_baseline_is_a_clear_error(tmp_path, make, needle):
    path = make(tmp_path / "prev")
    with pytest.raises(VisguardError, match=needle) as e:
        outputs.write_outputs(tmp_path / "out", table(HOSTILE), {}, baseline=str(path))
    assert "\n" not in str(e.value) and str(path) in str(e.value)
    assert not (tmp_path / "out" / "findings.csv").exists()


def test_remote_baseline_is_refused():
    with pytest.raises(VisguardError, match="local folder"):
        bl.check_previous("s3://bucket/prev")


# ------------------------------------------------------------------------------------------------ the job
@pytest.mark.slow
def test_job_writes_csv_and_ocsf_for_every_finding(audited):
    out, s = audited["out"], audited["summary"]
    parquet = outputs.findings_table(str(out))
    rows = read_csv(out / "findings.csv")
    assert len(rows) == parquet.num_rows == s["findings"] > 0
    assert sorted(r["fingerprint"] for r in rows) == sorted(bl.fingerprints(parquet))
    assert s["outputs"]["ocsf"] == "findings.ocsf.json" and "outputs_seconds" in s
    events = validate_ocsf(out / "findings.ocsf.json")
    assert len(events) == s["findings"]
    assert sum(e["severity_id"] == 4 for e in events) == s["findings_by_severity"]["error"]
    on_disk = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert on_disk["outputs"] == s["outputs"]


def test_cli_refuses_a_bad_baseline_before_running_spark(tmp_path):
    import subprocess
    import sys

    (tmp_path / "inv").mkdir()
    cmd = [sys.executable, "-P", "-m", "visguard", "audit", "run", "--inventory", str(tmp_path / "inv")]
    p = subprocess.run(
        [*cmd, "--out", str(tmp_path / "out"), "--baseline", str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 1, p.stderr
    assert p.stderr.strip().count("\n") == 0 and "no such file or folder" in p.stderr and "nope" in p.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_baseline_against_a_real_previous_result(audited, tmp_path):
    """The job's own Parquet as the baseline: drop some findings (resolved), add one (new), change messages."""
    import pyarrow.compute as pc

    prev = outputs.findings_table(str(audited["out"]))
    errors = pc.equal(prev.column("severity"), "error")
    now = prev.filter(pc.invert(errors))  # every error fixed since
    msg = pc.binary_join_element_wise(now.column("message"), " (numbers moved: 42 s)", "")
    now = now.set_column(now.column_names.index("message"), "message", msg)
    extra = outputs.write_outputs(tmp_path, now, {}, baseline=str(audited["out"]), report=False)
    b = extra["baseline"]
    n_err = audited["summary"]["findings_by_severity"]["error"]
    assert (b["new"], b["resolved"], b["unchanged"]) == (0, n_err, prev.num_rows - n_err)
    assert b["resolved_by_severity"]["error"] == n_err
    diff = read_csv(tmp_path / "baseline-diff.csv")
    assert len(diff) == n_err and {d["status"] for d in diff} == {"resolved"}
    # and the other way round, from the previous run's findings.csv: all errors are new again
    extra = outputs.write_outputs(tmp_path / "again", prev, {}, baseline=str(tmp_path / "findings.csv"))
    assert (extra["baseline"]["new"], extra["baseline"]["resolved"]) == (n_err, 0)


def test_ocsf_writer_writes_exactly_the_reference_event(tmp_path):
    from visguard.audit.ocsf import Writer, event
    from visguard.audit.report import rule_catalogue

    rows = [
        *HOSTILE,
        finding("VG012", estimate=json.dumps({"duplicate_rate": 0.07})),
        finding("VG013", "info", estimate="not json", consumer=None),
        finding(
            "VG999", "bogus", queue_arn="not-an-arn", queue_name=None, region=None, account=None, fix=None
        ),
        finding("VG004", "error", fix="", message=None, owner="ünïcode \u202e team"),
    ]
    w = Writer(tmp_path / "e.json", time_ms=123)
    for i, r in enumerate(rows):
        r["fingerprint"] = f"{i:032x}"
        r["suppressed_by"] = "a reason \u202e" if i % 2 else None
        w.add(r, ("new", "unchanged", "resolved")[i % 3], suppressed=bool(i % 2) and i % 3 != 2)
    w.close()
    got = json.loads((tmp_path / "e.json").read_text(encoding="utf-8"))
    product = json.loads(w.product)
    want = [
        event(
            r,
            status=("new", "unchanged", "resolved")[i % 3],
            time_ms=123,
            rules=rule_catalogue(),
            product=product,
            suppressed=bool(i % 2) and i % 3 != 2,
        )
        for i, r in enumerate(rows)
    ]
    assert got == want
    assert {e["status"] for e in got} == {"New", "Suppressed", "Resolved"}
    v = ocsf_validator()
    assert all(v.is_valid(e) for e in got)


@pytest.mark.slow
def test_hostile_inventory_values_are_neutralised_end_to_end(spark, tmp_path):
    """A queue whose name and tags carry terminal escapes and spreadsheet formulas, through the real job."""
    from visguard.audit import generate, job

    inv = tmp_path / "inv"
    generate.generate(40, 1, 3, str(inv))
    acct = next(p.name for p in inv.iterdir() if p.is_dir())
    name = '=HYPERLINK("http://x")\x1b]0;owned\x07\x1b[2J'
    arn = f"arn:aws:sqs:us-east-1:{acct}:{name}"
    record = {
        "kind": "queue",
        "account": acct,
        "region": "us-east-1",
        "arn": arn,
        "name": name,
        "url": f"https://sqs.us-east-1.amazonaws.com/{acct}/x",
        "attributes": {"QueueArn": arn, "VisibilityTimeout": "50000", "MessageRetentionPeriod": "345600"},
        "tags": {"team": "@evil\u202e\x1b[31m", "owner": "+1"},
        "dlq_sources": None,
        "metrics": None,
    }
    with (inv / acct / "us-east-1.jsonl").open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(record) + "\n")
    out = tmp_path / "out"
    job.run(spark, str(inv), str(out))
    for f in ("report.html", "findings.csv", "summary.json", "findings.ocsf.json"):
        text = (out / f).read_text(encoding="utf-8")
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text, f
    rows = [r for r in read_csv(out / "findings.csv") if "HYPERLINK" in r["queue_name"]]
    assert rows and all(r["queue_name"].startswith("'=HYPERLINK") for r in rows)
    assert any(r["rule"] == "VG001" and r["severity"] == "error" for r in rows)
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "\\\\x1b]0;owned\\\\x07" in page  # shown as text (JSON-escaped once more in the page's data)


def test_write_findings_one_file_per_account_region_whatever_the_row_order(tmp_path):
    """The job's local findings layout (account=/region=/part-0.parquet), written by pyarrow from rows in any
    order, with more folders than the writer keeps open; hostile values stay one folder level deep."""
    import random

    import pyarrow.dataset as ds

    combos = [(f"{100000000000 + i}", r) for i in range(150) for r in ("us-east-1", "eu-west-1")]
    combos += [("../../escape", "a/b"), (None, "us-east-1")]
    rows = [finding(queue=f"q{n}", account=a, region=r) for n, (a, r) in enumerate(combos * 3)]
    random.Random(7).shuffle(rows)
    t = pa.Table.from_pylist(rows)
    t = pa.Table.from_batches(t.to_batches(max_chunksize=10))  # many small batches, as toArrow() gives them
    outputs.write_findings(t, str(tmp_path / "findings"))
    files = list((tmp_path / "findings").rglob("*.parquet"))
    assert len(files) == len(combos)
    assert all(f.parent.parent.parent == tmp_path / "findings" for f in files)
    back = ds.dataset(
        tmp_path / "findings", format="parquet", partitioning=outputs._partitioning()
    ).to_table()
    key = lambda r: r["queue_name"]  # noqa: E731
    assert sorted(back.to_pylist(), key=key) == sorted(
        [{k: r[k] for k in back.column_names} for r in rows], key=key
    )


def test_ocsf_table_writer_writes_exactly_what_add_writes(tmp_path):
    """Writer.add_table (column-wise, the job's path) writes byte for byte the events Writer.add writes row by
    row, over hostile and odd values, every status and suppression, and chunks that split the rows."""
    from visguard.audit.ocsf import Writer

    rows = [
        *HOSTILE,
        finding("VG012", estimate=json.dumps({"duplicate_rate": 0.07})),
        finding("VG013", "info", estimate="not json", consumer=None),
        finding("VG013", "info", estimate="", consumer='c\x7f"\\'),
        finding(
            "VG999", "bogus", queue_arn="not-an-arn", queue_name=None, region=None, account=None, fix=None
        ),
        finding("VG004", "error", fix="", message=None, owner="ünïcode \u202e team \U0001f600"),
        finding("VG004", None, queue_arn="arn:x:y:z:w", queue_name="", owner="", consumer=""),
        finding(None, "info", queue_arn=None, account="", region="", fix='say "hi" \\ there'),
    ] * 3
    for i, r in enumerate(rows):
        r["fingerprint"] = f"{i:032x}"
        r["state"] = "suppressed" if i % 2 else "open"
        r["suppressed_by"] = ("a reason \u202e" if i % 4 == 1 else "") if i % 2 else None
        r["baseline"] = (None, "new", "unchanged", "suppressed since baseline", "")[i % 5]
        r.setdefault("owner", None)
    by_row = Writer(tmp_path / "rows.json", time_ms=123)
    for r in rows:
        by_row.add(r, r["baseline"] or "new", suppressed=r["state"] == "suppressed")
    by_row.close()
    by_table = Writer(tmp_path / "table.json", time_ms=123)
    by_table.add_table(pa.Table.from_pylist(rows), chunk=4)
    assert by_table.close() == len(rows)
    assert (tmp_path / "table.json").read_bytes() == (tmp_path / "rows.json").read_bytes()
    assert len(json.loads((tmp_path / "table.json").read_text(encoding="utf-8"))) == len(rows)


def test_why_column_is_why_for_every_row():
    """The column-wise fix-first reason equals the row-wise one (outputs.why) over every combination of
    severity, estimate, observation (none, zero, NaN, infinite), rule and suppression."""
    import itertools
    import math

    combos = itertools.product(
        ["error", "warning", "info", "bogus", "", None, "=x"],
        [None, 0.0, -0.0, 1e-9, 0.05, 1.0, math.nan, math.inf],
        [None, 0.0, 0.0008, 12.5, math.nan, math.inf],
        ["VG010", "VG999", "", None],
        [None, "", "a reason \u202e"],
    )
    names = ("severity", "duplicate_rate", "observed_redelivery", "rule", "suppressed_by")
    rows = [dict(zip(names, c, strict=True)) for c in combos]
    types = (pa.string(), pa.float64(), pa.float64(), pa.string(), pa.string())
    t = pa.Table.from_pylist(rows, schema=pa.schema(list(zip(names, types, strict=True))))
    titles = {"VG010": "Ten", "": "never shown"}
    assert outputs.why_column(t, titles).to_pylist() == [outputs.why(r, titles) for r in rows]


def test_prioritise_rates_from_the_queue_when_the_finding_has_none():
    """A finding's own estimate beats its queue's; the queue's rates (a pair or a bare estimate) fill the rest."""
    rows = [
        finding(queue="own", estimate=json.dumps({"duplicate_rate": 0.3, "observed_redelivery_rate": None})),
        finding(queue="pair"),
        finding(queue="bare"),
        finding(queue="none"),
    ]
    arn = "arn:aws:sqs:us-east-1:111111111111:"
    rates = {arn + "own": (0.9, 0.01), arn + "pair": (0.2, 0.04), arn + "bare": 0.1}
    got = {r["queue_name"]: r for r in outputs.prioritise(table(rows), rates).to_pylist()}
    assert (got["own"]["duplicate_rate"], got["own"]["observed_redelivery"]) == (0.3, math.inf)
    assert (got["pair"]["duplicate_rate"], got["pair"]["observed_redelivery"]) == (0.2, 0.04)
    assert (got["bare"]["duplicate_rate"], got["bare"]["observed_redelivery"]) == (0.1, None)
    assert (got["none"]["duplicate_rate"], got["none"]["observed_redelivery"]) == (None, None)
    # ranked by the observed rate where there is one (inf, 4 %), else the estimate (10 %)
    assert [got[q]["priority"] for q in ("own", "bare", "pair", "none")] == [1, 2, 3, 4]
