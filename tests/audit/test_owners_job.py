"""Owners in the audit job (issue 39 §1): collected from moto's CloudFormation and a Terraform state, parsed by the
job (never quarantined), put on each queue's figures, counted in summary.json and the report; hostile stack names,
logical ids, construct paths and addresses neutralised in every output; an inventory with owner records gives
the same findings as without them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from visguard.audit import inventory, job
from visguard.audit.tables import OWNER_FIGURE_FIELDS

from . import fleet, stacks

pytestmark = pytest.mark.slow

HOSTILE_STACK = "=HYPERLINK(1)\u202egnp.exe<script>alert(1)</script>"
HOSTILE_LID = "Q\x9b31m\u2066<img src=x onerror=alert(1)>"  # a C1 CSI and an isolate: XML carries both
HOSTILE_PATH = "+SUM(A1)/\u202e<b>bold</b>\x85next"
HOSTILE_KEY = 'k\x1b[31m\n\x1b]0;title\x07"'  # a for_each key: JSON carries any control character
UNSAFE = ("\x1b", "\x9b", "\x85", "\x07", "\u202e", "\u2066", "<script>alert", "<img src=x", "<b>bold")


def tf_state(url_hostile: str, url_shared: str) -> dict:
    arn = lambda url: stacks.arn(url.rsplit("/", 1)[-1])  # noqa: E731
    return {
        "version": 4, "terraform_version": "1.9.5", "lineage": "l",
        "resources": [
            {"module": "module.q", "mode": "managed", "type": "aws_sqs_queue", "name": "this",
             "instances": [{"index_key": HOSTILE_KEY, "attributes": {"arn": arn(url_hostile), "id": url_hostile}}]},
            # a queue its stack owns, claimed by a state too: the stack's record wins in the figures
            {"mode": "managed", "type": "aws_sqs_queue", "name": "imported",
             "instances": [{"attributes": {"arn": arn(url_shared), "id": url_shared}}]},
        ],
    }  # fmt: skip


@pytest.fixture(scope="module")
def audited(moto_endpoint, spark, tmp_path_factory):
    fleet.build(moto_endpoint)
    shop = stacks.build(moto_endpoint)
    s = fleet.session_for(moto_endpoint, stacks.ACCOUNT, stacks.REGION)
    cfn = s.client("cloudformation", endpoint_url=moto_endpoint)
    template = {"Resources": {HOSTILE_LID: {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": "hostile-q"},
                                            "Metadata": {"aws:cdk:path": HOSTILE_PATH}}}}  # fmt: skip
    cfn.create_stack(StackName=HOSTILE_STACK, TemplateBody=json.dumps(template))
    tf_url = s.client("sqs", endpoint_url=moto_endpoint).create_queue(QueueName="tf-managed")["QueueUrl"]
    root = tmp_path_factory.mktemp("owners-job")
    state = root / "prod.tfstate"
    state.write_text(json.dumps(tf_state(tf_url, f"https://x/{stacks.ACCOUNT}/shop-orders")))
    inv, out = root / "inventory", root / "audit"
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
           "AWS_DEFAULT_REGION": "us-east-1"}  # fmt: skip
    collect = subprocess.run(
        [str(Path(sys.executable).with_name("visguard")), "audit", "collect", "--accounts", stacks.ACCOUNT,
         "--role-name", fleet.ROLE, "--regions", stacks.REGION, "--endpoint-url", moto_endpoint, "--out", str(inv),
         "--templates", "--terraform-state", str(state)],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert collect.returncode == 0, collect.stderr
    summary = job.run(spark, str(inv), str(out))
    figures = pq.read_table(out / "queues").to_pylist()
    return {"shop": shop, "state": str(state), "inv": inv, "out": out, "summary": summary,
            "figures": {f["name"]: f for f in figures}, "collect": collect}  # fmt: skip


def owner_of(fig: dict) -> tuple:
    return tuple(fig[c] for c in OWNER_FIGURE_FIELDS)


def test_figures_carry_each_queues_owner(audited):
    f, shop, state = audited["figures"], audited["shop"], audited["state"]
    assert owner_of(f["shop-orders"]) == (
        "cloudformation",
        "shop",
        "Orders",
        "Shop/Orders/Resource",
        None,
        None,
        None,
        None,
    )
    assert owner_of(f["shop-orders-dlq"])[:4] == (
        "cloudformation",
        "shop",
        "OrdersDlq",
        "Shop/OrdersDlq/Resource",
    )
    assert owner_of(f["inner"]) == (
        "cloudformation", shop["nested"], "Inner", "Shop/Nested/Inner/Resource", "shop", None, None, None,
    )  # fmt: skip
    address = f"module.q.aws_sqs_queue.this[{json.dumps(HOSTILE_KEY)}]"  # control characters escaped
    assert owner_of(f["tf-managed"]) == ("terraform", None, None, None, None, state, address, "module.q")
    assert owner_of(f["made-by-hand"]) == (None,) * len(OWNER_FIGURE_FIELDS)
    # the data keeps the names exactly as AWS and the state have them (the source join needs them exact)
    assert owner_of(f["hostile-q"])[:4] == ("cloudformation", HOSTILE_STACK, HOSTILE_LID, HOSTILE_PATH)


def test_summary_and_report_count_the_owners(audited):
    s = audited["summary"]
    assert s["owners"] == {"cloudformation": 4, "terraform": 1, "unknown": 1}
    assert json.loads((audited["out"] / "summary.json").read_text())["owners"] == s["owners"]
    assert s["quarantined"] == 0  # owner records are inventory records, not corrupt lines
    html = (audited["out"] / "report.html").read_text()
    assert "4 queues by a CloudFormation stack, 1 by a Terraform state, 1 unknown" in html


def test_hostile_names_reach_every_output_neutralised(audited):
    inv, out = audited["inv"], audited["out"]
    for p in inventory.partition_files(inv):  # JSON lines: ASCII, every character escaped, values exact
        raw = p.read_bytes()
        assert raw.isascii() and raw.count(b"\n") == len(raw.splitlines())
    owners = [r for _, _, r in inventory.iter_records(inv) if r.get("kind") == "owner"]
    assert {(r.get("stack"), r.get("logical_id"), r.get("construct_path")) for r in owners} >= {
        (HOSTILE_STACK, HOSTILE_LID, HOSTILE_PATH)
    }
    assert f"module.q.aws_sqs_queue.this[{json.dumps(HOSTILE_KEY)}]" in {r.get("address") for r in owners}
    texts = {
        "collect stdout": audited["collect"].stdout,
        "collect stderr": audited["collect"].stderr,
        "summary.json": (out / "summary.json").read_text(),
        "report.html": (out / "report.html").read_text(),
        "findings.csv": (out / "findings.csv").read_text(),
        "findings.ocsf.json": (out / "findings.ocsf.json").read_text(),
    }
    for name, text in texts.items():
        assert not [u for u in UNSAFE if u in text], name
    for line in texts["findings.csv"].splitlines()[1:]:
        assert not any(cell.startswith(("=", "+", "-", "@")) for cell in line.split(","))


def _generated(tmp_path, with_owners: bool):
    from visguard.audit import generate

    inv = tmp_path / ("with" if with_owners else "without")
    generate.generate(400, 2, 5, str(inv))
    if with_owners:  # every third queue owned by a stack, every fifth by a state
        for p in inventory.partition_files(inv):
            recs = [json.loads(line) for line in p.read_text().splitlines()]
            body = [r for r in recs if r["kind"] != "partition"]
            extra = []
            for i, q in enumerate(r for r in body if r["kind"] == "queue" and r.get("arn")):
                if i % 3 == 0:
                    extra.append({"kind": "owner", "account": q["account"], "region": q["region"],
                                  "resource": q["arn"], "resource_type": "AWS::SQS::Queue", "url": q.get("url"),
                                  "owner": "cloudformation", "stack": "s", "stack_id": "arn:aws:cloudformation:x",
                                  "logical_id": f"Q{i}", "construct_path": None, "root_stack": None})  # fmt: skip
                elif i % 5 == 0:
                    extra.append({"kind": "owner", "account": q["account"], "region": q["region"],
                                  "resource": q["arn"], "resource_type": "AWS::SQS::Queue", "url": None,
                                  "owner": "terraform", "state": "st", "address": f"aws_sqs_queue.q{i}",
                                  "module": ""})  # fmt: skip
            p.unlink()
            inventory.write_partition(inv, p.parent.name, p.stem, body + extra)
    return inv


VARYING = {"seconds", "phase_seconds", "outputs_seconds", "owners", "outputs"}


def test_owner_records_change_no_finding(spark, tmp_path):
    results = {}
    for with_owners in (False, True):
        inv = _generated(tmp_path, with_owners)
        out = tmp_path / f"out-{with_owners}"
        s = job.run(spark, str(inv), str(out))
        findings = pq.read_table(out / "findings").drop_columns(["account", "region"])
        findings = findings.sort_by([(c, "ascending") for c in ("queue_arn", "rule", "consumer", "message")])
        figures = pq.read_table(out / "queues")
        results[with_owners] = (s, findings, figures)
    (s0, f0, q0), (s1, f1, q1) = results[False], results[True]
    assert f1.num_rows > 0 and f0.equals(f1)

    def same(s):  # what does not depend on where the inventory is or how long the run took
        kept = {k: v for k, v in s.items() if k not in VARYING}
        kept["quarantine_samples"] = [{**q, "file": Path(q["file"]).name} for q in s["quarantine_samples"]]
        return kept

    assert s0["quarantined"] > 0 and same(s0) == same(s1)
    assert s0["owners"]["unknown"] == s0["queues"] and s0["owners"]["cloudformation"] == 0
    assert s1["owners"]["cloudformation"] > 0 and s1["owners"]["terraform"] > 0
    assert sum(s1["owners"].values()) == s1["queues"]
    base = [c for c in q0.column_names if c not in OWNER_FIGURE_FIELDS]
    assert q0.select(base).sort_by("arn").equals(q1.select(base).sort_by("arn"))
    assert pc.all(pc.is_null(q0.column("iac_owner"))).as_py()
