"""``visguard audit run --sources DIR... --patches DIR``: declarations from source checkouts, the join of deployed
queues to owners and declarations, drift (VG085), source locations in every output, SARIF per repository and
patches that are exactly what ``visguard lint --diff`` prints.

The pure functions first (no Spark), then one audit of a small organisation (``sources_fleet``): a SAM stack with
its samconfig.toml, a CDK cloud assembly and a Terraform root on disk, owner rows built by hand."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from visguard.audit import drift, job, patches, sarif_repos, sources
from visguard.errors import VisguardError

from . import sources_fleet as sf

VISGUARD = str(Path(sys.executable).with_name("visguard"))


@pytest.fixture(scope="module")
def org(tmp_path_factory):
    root = tmp_path_factory.mktemp("org")
    repos = sf.build_sources(root / "src")
    inv = sf.write_inventory(root / "inventory", sf.inventory_lines())
    return {"root": root, "repos": repos, "inventory": inv}


def _tf(needle: str) -> int:
    return sf.line_of(sf.TF_MAIN, needle)


def _decls(rows):
    return {r["queue"]: r for r in rows if r["row_kind"] == "d"}


# ------------------------------------------------------------------------------------------ declarations (pure)
def test_declarations_carry_the_keys_each_input_gives(org):
    sam, cdk, tf = (str(org["repos"][k]) for k in ("sam", "cdk", "tf"))
    d = _decls(sources.lint_root(0, sam))
    orders = d["Orders"]
    assert (orders["file"], orders["line"], orders["stacks"], orders["logical_id"], orders["source"]) == (
        "template.yaml",
        4,
        ["orders-prod"],  # samconfig.toml's prod environment
        "Orders",
        "sam",
    )
    declared = json.loads(orders["declared"])
    assert declared["visibility_timeout"] == {
        "value": 400.0, "known": True, "default": False, "file": "template.yaml", "line": 7,
    }  # fmt: skip
    assert declared["max_receive_count"]["value"] == 5.0 and declared["redrive"]["known"] is False  # no name
    assert [m["batch_size"]["value"] for m in declared["mappings"]] == [1.0]
    assert json.loads(d["OrdersDlq"]["declared"])["visibility_timeout"]["default"] is True
    c = _decls(sources.lint_root(1, cdk))
    q = c["OrdersStack/OrdersA9B65338"]
    assert (q["stacks"], q["logical_id"], q["construct_path"], q["file"]) == (
        ["OrdersStack"],  # the manifest's stack
        "OrdersA9B65338",
        "OrdersStack/Orders/Resource",
        "OrdersStack.template.json",
    )
    assert json.loads(q["lines"])["VG011"] == ["OrdersStack.template.json", 26]  # the source lint's own line
    t = _decls(sources.lint_root(2, tf))
    jobs = t["aws_sqs_queue.jobs"]
    assert (jobs["address"], jobs["name"], jobs["file"], jobs["line"], jobs["stacks"]) == (
        "aws_sqs_queue.jobs", "jobs", "main.tf", 6, [],
    )  # fmt: skip
    reports = json.loads(t["aws_sqs_queue.reports"]["declared"])["visibility_timeout"]
    assert (reports["value"], reports["known"]) == (60.0, True)  # max(local.base * 3, 30), evaluated


def test_a_symlink_out_of_a_source_is_not_read_and_a_hostile_name_is_kept_as_data(org):
    rows = sources.lint_root(0, str(org["repos"]["sam"]))
    names = {r["name"] for r in rows if r["row_kind"] == "d"}
    assert "leaked-q" not in names  # leak.yaml and linked/ lead outside the folder
    hostile = next(r for r in rows if r.get("name") == "hostile-q")
    assert hostile["file"] == sf.HOSTILE_FILE and hostile["stacks"] == ["orders-prod"]
    assert sarif_repos.slugs(["/x/evil\x1b[2J\n", "/y/evil\x1b[2J\n", "/a/b/cdk.out", ".."]) == [
        "evil_2J",
        "evil_2J-2",
        "b-cdk.out",
        "root",
    ]


@pytest.mark.parametrize("collecting", [True, False])
def test_sarif_per_repository_leaves_the_collector_as_it_was(tmp_path, collecting):
    """sarif_repos.write pauses the cyclic collector while it builds the documents (their cost at 1M findings)
    and gives it back as it found it, also when a repository's file cannot be written."""
    import gc

    import pyarrow as pa

    cols = ["rule", "severity", "message", "queue_arn", "source_file", "source_line", "fix", "consumer"]
    row = ["VG001", "warning", "m", "arn:aws:sqs:us-east-1:111111111111:q", "q.yaml", 3, None, None]
    t = pa.table({**{c: [v] for c, v in zip(cols, row, strict=True)}, "source_repository": ["repo"]})
    was = gc.isenabled()
    try:
        gc.enable() if collecting else gc.disable()
        got = sarif_repos.write(tmp_path / "sarif", t, ["repo", "other"], [])
        assert gc.isenabled() is collecting
        assert got == {"repo": "sarif/repo.sarif", "other": "sarif/other.sarif"}
        assert len(json.loads((tmp_path / "sarif" / "repo.sarif").read_text())["runs"][0]["results"]) == 1
        assert json.loads((tmp_path / "sarif" / "other.sarif").read_text())["runs"][0]["results"] == []
        (tmp_path / "sarif" / "other.sarif").unlink()
        (tmp_path / "sarif" / "other.sarif").mkdir()  # a folder where the file goes: the write fails
        with pytest.raises(OSError):
            sarif_repos.write(tmp_path / "sarif", t, ["repo", "other"], [])
        assert gc.isenabled() is collecting
    finally:
        gc.enable() if was else gc.disable()


def test_samconfig_stack_names_and_a_broken_one():
    doc = {
        "version": 0.1,
        "default": {"deploy": {"parameters": {"stack_name": "app-dev"}}},
        "prod": {"deploy": {"parameters": {"stack_name": "app-prod"}}, "build": {"parameters": {}}},
        "odd": {"deploy": "not a table"},
    }
    assert sources.samconfig_stack_names(doc) == ["app-dev", "app-prod"]
    assert sources.samconfig_stack_names(["x"]) == []


def test_a_root_that_is_not_a_folder_is_one_error_row(tmp_path):
    f = tmp_path / "file.yaml"
    f.write_text("x: 1\n")
    assert sources.lint_root(3, str(f)) == [
        {"row_kind": "e", "root": 3, "repository": str(f), "message": "not a folder; not read"}
    ]


# ------------------------------------------------------------------------------------------ drift (pure)
def _declared(**over):
    base = {
        "visibility_timeout": {"value": 60.0, "known": True, "default": False, "file": "t.yaml", "line": 7},
        "message_retention": {"value": 345600.0, "known": True, "default": True},
        "redrive": {"value": "dlq", "known": True, "default": False, "file": "t.yaml", "line": 9},
        "max_receive_count": {"value": 5.0, "known": True, "default": False, "file": "t.yaml", "line": 10},
        "mappings": [{"id": "M", "batch_size": {"value": 10.0, "known": True, "default": True},
                      "batching_window": {"value": 0.0, "known": True, "default": True}}],
    }  # fmt: skip
    base.update(over)
    return json.dumps(base)


def _row(**over):
    row = {
        "arn": sf.arn("q"), "vt": 60.0, "retention": 345600.0, "has_redrive": True, "target_arn": sf.arn("dlq"),
        "max_receive_count": 5.0, "mappings": [{"uuid": "u1", "batch_size": 10.0, "batching_window": 0.0}],
        "repository": "repo", "file": "t.yaml", "line": 4, "declared": _declared(),
    }  # fmt: skip
    row.update(over)
    return row


def test_no_drift_when_deployed_is_declared():
    assert drift.drift_rows(_row()) == []


def test_each_drifted_setting_names_both_values_and_both_places():
    got = drift.drift_rows(
        _row(vt=120.0, target_arn=sf.arn("other"), mappings=[{"uuid": "u1", "batch_size": 5.0, "batching_window": 0.0}])
    )  # fmt: skip
    assert [(f["setting"], f["deployed"], f["declared"], f["source_line"], f["consumer"]) for f in got] == [
        ("visibility_timeout", "120", "60", 7, None),
        ("redrive", "other", "dlq", 9, None),
        ("batch_size", "5", "10 (not set: the AWS default)", 4, "u1"),  # not written: the queue's line
    ]
    m = got[0]["message"]
    assert m == (
        f"VisibilityTimeout is 120 on the deployed queue {sf.arn('q')} but 60 where it is declared (repo:t.yaml:7): "
        "changed outside the source, or the source was never deployed"
    )
    assert {f["rule"] for f in got} == {"VG085"}
    plain = {
        "value": 60.0,
        "known": True,
        "default": False,
    }  # written nowhere known: the queue's file is named
    hostile = drift.drift_rows(
        _row(vt=1.0, file="a\x1b[2J\nb.yaml", declared=_declared(visibility_timeout=plain))
    )[0]["message"]
    assert "\x1b" not in hostile and "\n" not in hostile and "(repo:a\\x1b[2J\\x0ab.yaml:4)" in hostile


def test_unknown_declared_values_are_never_drift():
    unknown = {"value": None, "known": False, "default": False}
    declared = _declared(visibility_timeout=unknown, redrive=unknown, message_retention=unknown)
    assert drift.drift_rows(_row(vt=999.0, retention=60.0, target_arn=sf.arn("x"), declared=declared)) == []


def test_a_removed_redrive_policy_is_drift_and_two_mappings_are_not_guessed():
    got = drift.drift_rows(_row(has_redrive=False, target_arn=None, mappings=[{"uuid": "a"}, {"uuid": "b"}]))
    assert [(f["setting"], f["deployed"], f["declared"]) for f in got] == [
        ("redrive", "no redrive policy", "dlq")
    ]


@pytest.mark.slow
def test_may_drift_keeps_every_queue_drift_rows_reports_and_drops_the_quiet_ones(spark):
    """The column drift_frame filters by before Python (drift.may_drift): true for every row drift_rows finds drift
    on, false for the rows it finds none on (so the filter does its work), whatever setting differs."""
    unknown = {"value": None, "known": False, "default": False}
    unset = {"value": None, "known": True, "default": True}
    two = [
        {"uuid": "a", "batch_size": 10.0, "batching_window": 0.0},
        {"uuid": "b", "batch_size": 1.0, "batching_window": 0.0},
    ]
    rows = {
        "same": _row(),
        "vt": _row(vt=120.0),
        "vt close": _row(vt=60.0 + 1e-12),
        "vt not deployed": _row(vt=None),
        "vt unknown": _row(vt=999.0, declared=_declared(visibility_timeout=unknown)),
        "vt unset both": _row(vt=None, declared=_declared(visibility_timeout=unset)),
        "retention": _row(retention=60.0),
        "target": _row(target_arn=sf.arn("other")),
        "no redrive deployed": _row(has_redrive=False, target_arn=None),
        "no redrive anywhere": _row(has_redrive=False, target_arn=None, declared=_declared(redrive=unset)),
        "redrive not read": _row(target_arn=sf.arn("other"), declared=_declared(redrive=unknown)),
        "mrc": _row(max_receive_count=3.0),
        "mrc, no declared target": _row(max_receive_count=3.0, declared=_declared(redrive=unset)),
        "batch size": _row(mappings=[{"uuid": "u1", "batch_size": 5.0, "batching_window": 0.0}]),
        "window": _row(mappings=[{"uuid": "u1", "batch_size": 10.0, "batching_window": 3.0}]),
        "two mappings": _row(mappings=two),
        "no mapping": _row(mappings=None),
        "no mapping declared": _row(mappings=[{"uuid": "u1", "batch_size": 5.0, "batching_window": 0.0}],
                                    declared=_declared(mappings=[])),
        "nothing declared": _row(vt=1.0, declared="{}"),
    }  # fmt: skip
    schema = (
        "k string, vt double, retention double, has_redrive boolean, target_arn string, max_receive_count double, "
        "mappings array<struct<uuid:string,batch_size:double,batching_window:double>>, declared string"
    )
    cols = ("vt", "retention", "has_redrive", "target_arn", "max_receive_count", "mappings", "declared")
    df = spark.createDataFrame([(k, *(r[c] for c in cols)) for k, r in rows.items()], schema)
    got = {r["k"]: r["m"] for r in df.select("k", drift.may_drift().alias("m")).collect()}
    want = {k: bool(drift.drift_rows(r)) for k, r in rows.items()}
    assert {k for k, v in want.items() if v} == {
        "vt", "vt not deployed", "retention", "target", "no redrive deployed", "mrc", "batch size", "window",
        "mrc, no declared target",  # its redrive: deployed, declared none
    }  # fmt: skip
    assert got == want


# ------------------------------------------------------------------------------------------ patches (pure)
def test_the_patch_is_what_visguard_lint_diff_prints_byte_for_byte(org):
    tf = str(org["repos"]["tf"])
    rows = sources.lint_root(2, tf, patches=True)
    plan = next(r for r in rows if r["row_kind"] == "p")
    cli = subprocess.run(  # in a checkout of the repository, as a pull request applies it
        [VISGUARD, "lint", ".", "--diff"],
        capture_output=True,
        cwd=tf,
        env={**os.environ, "PYTHONSAFEPATH": "1"},
    )
    assert cli.stdout.decode("utf-8") == plan["diff"] and plan["diff"].startswith("--- a/main.tf\n")
    assert "+  message_retention_seconds = 1209600\n" in plan["diff"]
    assert plan["refused"] == (
        "main.tf: VG010 on aws_sqs_queue.reports: max(local.base * 3, 30) is an expression, not a literal: "
        "change it by hand"
    )
    assert "VG010 on aws_sqs_queue.reports not fixed automatically" in cli.stderr.decode()


def test_patches_folder_is_refused_inside_a_source_and_must_be_empty(org, tmp_path):
    tf = org["repos"]["tf"]
    with pytest.raises(VisguardError, match="inside a source folder"):
        patches.check_folder(tf / "patches", [str(tf)])
    with pytest.raises(VisguardError, match="inside a source folder"):
        patches.check_folder(tf.parent, [str(tf)])  # a folder holding a source
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "x").write_text("")
    with pytest.raises(VisguardError, match="new or empty"):
        patches.check_folder(tmp_path / "p", [str(tf)])
    patches.check_folder(tmp_path / "new", [str(tf)])  # fine: nothing created by the check
    assert not (tmp_path / "new").exists()


# ------------------------------------------------------------------------------------------ the audit on Spark
@pytest.fixture(scope="module")
def audit(spark, org):
    out, pdir = org["root"] / "out", org["root"] / "patches"
    roots = [str(org["repos"][k]) for k in ("sam", "cdk", "tf")]
    # the owner records in the inventory, as the collector writes them (issue 39 §1)
    inv = sf.write_inventory(org["root"] / "inventory-owned", sf.inventory_lines() + sf.owner_rows())
    s = job.run(spark, str(inv), str(out), sources=roots, patches=str(pdir))
    return {"out": out, "patches": pdir, "summary": s, "roots": roots}


def _csv(path):
    import csv

    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.slow
def test_every_deployed_queue_is_placed_or_says_why(spark, audit):
    rows = spark.read.parquet(str(audit["out"] / "placement")).collect()
    got = {
        r["arn"].rsplit(":", 1)[-1]: (r["owner"], r["join_by"], r["file"], r["line"], r["reason"])
        for r in rows
    }
    sam, cdk, tf = audit["roots"]
    assert got == {
        sf.ORDERS: ("cloudformation", "stack-logical-id", "template.yaml", 4, None),
        sf.ORDERS_DLQ: ("cloudformation", "stack-logical-id", "template.yaml", 11, None),
        sf.PAYMENTS: ("cloudformation", "construct-path", "OrdersStack.template.json", 14, None),
        sf.PAYMENTS_DLQ: ("cloudformation", "construct-path", "OrdersStack.template.json", 3, None),
        sf.JOBS: ("terraform", "terraform-address", "main.tf", 6, None),
        sf.JOBS_DLQ: ("terraform", "terraform-address", "main.tf", 1, None),
        sf.EMAILS: ("unknown", "by-name", "main.tf", _tf('"emails" {'), None),
        sf.EMAILS_DLQ: ("unknown", "by-name", "main.tf", _tf('"emails_dlq" {'), None),
        sf.HOSTILE: ("unknown", "by-name", sf.HOSTILE_FILE, 2, None),
        sf.BILLING: ("cloudformation", None, None, None, "no sources given for its stack billing-prod"),
        sf.GHOST: ("cloudformation", None, None, None, "stack orders-prod is in the sources but not its logical id Ghost"),
        sf.LEAKED: ("unknown", None, None, None, "no owner record, and no declaration of its name in the sources"),
    }  # fmt: skip
    s = audit["summary"]["sources"]
    assert (s["roots"], s["declarations"], s["root_errors"], s["drift_findings"], s["errors"]) == (
        3,
        10,
        0,
        2,
        [],
    )
    assert s["not_joined_reasons"] == {
        "logical id not in its stack's source": 1,
        "no owner record and no declaration of its name": 1,
        "no sources given for its stack": 1,
    }
    assert s["queues_by_join"] == {
        "by-name": 3, "construct-path": 2, "not joined": 3, "stack-logical-id": 2, "terraform-address": 2,
    }  # fmt: skip


@pytest.mark.slow
def test_findings_carry_their_source_location_and_drift_is_a_finding(audit):
    rows = _csv(audit["out"] / "findings.csv")
    sam, cdk, tf = audit["roots"]
    got = {
        (
            r["queue_name"],
            r["rule"],
            r["source_repository"],
            r["source_file"],
            r["source_line"],
            r["declared_by"],
        )
        for r in rows
    }
    hostile_cell = "evil\\x1b[2J\\u202e\\x0a=cmd.yaml"  # neutralised: no escape, no bidi, no line break
    assert got == {
        (sf.ORDERS, "VG011", sam, "template.yaml", "4", "stack-logical-id"),  # the source lint has no VG011
        (sf.ORDERS, "VG085", sam, "template.yaml", "7", "stack-logical-id"),  # at the VisibilityTimeout line
        # the line the source lint gives for VG022 (the DLQ's retention), not the queue's
        (sf.EMAILS, "VG022", tf, "main.tf", str(_tf("message_retention_seconds = 345600")), "by-name"),
        (sf.HOSTILE, "VG085", sam, hostile_cell, "6", "by-name"),  # its VisibilityTimeout line
    }
    drifted = next(r for r in rows if r["queue_name"] == sf.ORDERS and r["rule"] == "VG085")
    assert drifted["message"] == (
        f"VisibilityTimeout is 120 on the deployed queue {sf.arn(sf.ORDERS)} but 400 where it is declared "
        f"({sam}:template.yaml:7): changed outside the source, or the source was never deployed"
    )
    events = json.loads((audit["out"] / "findings.ocsf.json").read_text())
    ev = next(
        e for e in events if e["finding_info"]["analytic"]["uid"] == "VG085" and sf.ORDERS in e["message"]
    )
    assert ev["resources"][0]["data"]["source"] == {
        "repository": sam, "file": "template.yaml", "line": 7, "declared_by": "stack-logical-id",
    }  # fmt: skip
    html = (audit["out"] / "report.html").read_text()
    assert f"file://{sam}/template.yaml#L7" in html and "\x1b" not in html and "\u202e" not in html
    assert "<td>no sources given for its stack</td><td class='num'>1</td>" in html


@pytest.mark.slow
def test_one_sarif_file_per_repository_at_the_declaring_lines(audit):
    folder = audit["out"] / "sarif"
    assert sorted(p.name for p in folder.iterdir()) == [
        "infra-tf.sarif",
        "orders-app.sarif",
        "payments-cdk-cdk.out.sarif",
    ]

    def results(name):
        run = json.loads((folder / name).read_text())["runs"][0]
        return sorted(
            (
                r["ruleId"],
                r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                r["locations"][0]["physicalLocation"]["region"]["startLine"],
                r["locations"][0]["logicalLocations"][0]["name"],
            )
            for r in run["results"]
        )

    assert results("orders-app.sarif") == [
        ("VG011", "template.yaml", 4, sf.arn(sf.ORDERS)),
        ("VG085", "evil%1B%5B2J%E2%80%AE%0A%3Dcmd.yaml", 6, sf.arn(sf.HOSTILE)),
        ("VG085", "template.yaml", 7, sf.arn(sf.ORDERS)),
    ]
    assert results("infra-tf.sarif") == [
        ("VG022", "main.tf", _tf("message_retention_seconds = 345600"), sf.arn(sf.EMAILS))
    ]
    assert results("payments-cdk-cdk.out.sarif") == []  # no finding: the file clears old alerts


@pytest.mark.slow
def test_patches_are_the_linters_plan_per_repository(audit):
    pdir = audit["patches"]
    sam, cdk, tf = audit["roots"]
    assert sorted(p.name for p in pdir.iterdir()) == ["README.md", "infra-tf.diff", "refused.txt"]
    cli = subprocess.run(
        [VISGUARD, "lint", ".", "--diff"],
        capture_output=True,
        cwd=tf,
        env={**os.environ, "PYTHONSAFEPATH": "1"},
    )
    assert (pdir / "infra-tf.diff").read_bytes() == cli.stdout
    applied = subprocess.run(
        ["git", "apply", "--check", str(pdir / "infra-tf.diff")], cwd=tf, capture_output=True
    )
    assert applied.returncode == 0, applied.stderr  # ready to open as a pull request
    assert (pdir / "refused.txt").read_text() == (
        f"{tf}: main.tf: VG010 on aws_sqs_queue.reports: max(local.base * 3, 30) is an expression, not a "
        "literal: change it by hand\n"
    )
    readme = (pdir / "README.md").read_text()
    assert f"| `{tf}` | `infra-tf.diff` | 1 | 1 | 0 |" in readme
    assert f"| `{sam}` | (nothing to change) | 0 | 0 | 0 |" in readme


@pytest.mark.slow
def test_without_sources_the_findings_are_what_they_were(spark, org, tmp_path):
    from visguard.audit import generate, outputs

    inv = tmp_path / "inv"
    generate.generate(400, 2, 5, str(inv))
    plain = job.run(spark, str(inv), str(tmp_path / "plain"))
    with_src = job.run(spark, str(inv), str(tmp_path / "src"), sources=[str(org["repos"]["tf"])], owners=[])
    a, b = (outputs.findings_table(str(tmp_path / n)) for n in ("plain", "src"))
    cols = [c for c in a.column_names]
    assert set(b.column_names) - set(cols) == {
        "source_repository",
        "source_file",
        "source_line",
        "declared_by",
    }

    def rows(t):
        return sorted(json.dumps(r, sort_keys=True) for r in t.select(cols).to_pylist())

    assert rows(a) == rows(b) and plain["findings"] == with_src["findings"]
    assert (tmp_path / "plain" / "findings.csv").read_text().splitlines()[0] == ",".join(
        f'"{c}"' for c in outputs.CSV_COLUMNS
    )
    assert not (tmp_path / "plain" / "sarif").exists() and "sources" not in plain


def test_the_command_refuses_an_output_inside_a_source(org, tmp_path, capsys):
    tf = str(org["repos"]["tf"])
    with pytest.raises(VisguardError, match="--patches must not be inside a source folder"):
        job.main(["--inventory", str(org["inventory"]), "--out", str(tmp_path / "o"), "--sources", tf,
                  "--patches", f"{tf}/p"], "visguard audit run")  # fmt: skip
    with pytest.raises(VisguardError, match="--out must not be inside a source folder"):
        job.main(["--inventory", str(org["inventory"]), "--out", f"{tf}/out", "--sources", tf], "x")
    with pytest.raises(VisguardError, match="--patches needs --sources"):
        job.main(["--inventory", str(org["inventory"]), "--out", str(tmp_path / "o"), "--patches", "p"], "x")
    assert not (Path(tf) / "p").exists() and not (Path(tf) / "out").exists()


@pytest.mark.slow
def test_two_declarations_of_one_name_join_nothing_and_are_named(spark, tmp_path):
    roots = []
    for name in ("team-a", "team-b"):
        d = tmp_path / name
        d.mkdir()
        (d / "main.tf").write_text('resource "aws_sqs_queue" "q" {\n  name = "dup-q"\n}\n')
        roots.append(str(d))
    rows = [r for i, root in enumerate(roots) for r in sources.lint_root(i, root)]
    decls = spark.createDataFrame(
        [{n: r.get(n) for n, _ in sources.SOURCE_FIELDS} for r in rows], sources.source_schema()
    )
    queues = spark.createDataFrame(
        [(sf.A, sf.REGION, sf.arn("dup-q"), "dup-q")],
        "account string, region string, arn string, name string",
    )
    got = drift.place(queues, drift.owner_frame(spark, []), decls).collect()
    assert [(r["join_by"], r["decl_id"], r["reason"]) for r in got] == [
        (
            None,
            None,
            f"2 declarations match by by-name: {roots[0]}:main.tf:1, {roots[1]}:main.tf:1; not joined",
        )
    ]


@pytest.mark.slow
def test_place_gives_every_queue_one_row_with_its_own_columns_joined_or_not(spark, tmp_path):
    # the queue's columns reach the placed row by its own "self" row, not by a join back onto the queues: the
    # queues whose keys find no declaration and the joined one each keep theirs, one row each
    (tmp_path / "main.tf").write_text('resource "aws_sqs_queue" "q" {\n  name = "known-q"\n}\n')
    rows = sources.lint_root(0, str(tmp_path))
    decls = spark.createDataFrame(
        [{n: r.get(n) for n, _ in sources.SOURCE_FIELDS} for r in rows], sources.source_schema()
    )
    queues = spark.createDataFrame(
        [
            (sf.A, sf.REGION, sf.arn(n), n, vt)
            for n, vt in (("known-q", 30.0), ("other-q", 60.0), ("third-q", 90.0))
        ],
        "account string, region string, arn string, name string, vt double",
    )
    got = sorted(drift.place(queues, drift.owner_frame(spark, []), decls).collect(), key=lambda r: r["name"])
    assert [(r["name"], r["account"], r["vt"], r["join_by"], r["file"], r["reason_kind"]) for r in got] == [
        ("known-q", sf.A, 30.0, "by-name", "main.tf", None),
        ("other-q", sf.A, 60.0, None, None, "no owner record and no declaration of its name"),
        ("third-q", sf.A, 90.0, None, None, "no owner record and no declaration of its name"),
    ]


def test_the_config_applies_to_drift_as_to_every_finding(tmp_path):
    from visguard.linter.loaders import load_config

    cfg = tmp_path / "visguard.yaml"
    cfg.write_text(
        "version: 1\nrules:\n  VG085: error\nsuppressions:\n"
        "  - rule: VG085\n    queue: 'arn:aws:sqs:*:q'\n    reason: changed by hand on purpose, ticket 12\n"
    )
    config = load_config(str(cfg))
    row = _row(vt=120.0, account=sf.A, region=sf.REGION, name="q", tags={"team": "a"})
    got = drift.with_config(drift.drift_rows(row), row, config)
    assert [(f["severity"], f["suppressed"]) for f in got] == [
        ("error", "changed by hand on purpose, ticket 12")
    ]
    other = _row(vt=120.0, arn=sf.arn("other"), name="other", tags=None)
    assert [f["suppressed"] for f in drift.with_config(drift.drift_rows(other), other, config)] == [None]


def test_a_broken_input_of_a_root_is_one_error_row_naming_its_file(tmp_path):
    (tmp_path / "good.yaml").write_text(sf.HOSTILE_TEMPLATE)
    (tmp_path / "bad.yaml").write_text("Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties: [\n")
    rows = sources.lint_root(0, str(tmp_path))
    errors = [r["message"] for r in rows if r["row_kind"] == "e"]
    assert len(errors) == 1 and errors[0].startswith("bad.yaml: ")
    assert [r["name"] for r in rows if r["row_kind"] == "d"] == ["hostile-q"]  # the other file still read
