"""A small organisation for the --sources tests: source repositories on disk (a SAM stack with its samconfig.toml,
a CDK cloud assembly, a Terraform root) and the inventory of what is deployed from them, with owner rows built by
hand (the collector's owner-record contract)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

A = "111111111111"
REGION = "eu-west-1"
CDK_FIXTURE = Path(__file__).resolve().parents[1] / "linter" / "fixtures" / "rules" / "vg011" / "cdk" / "fail"

# the repositories of examples/org (make demo-audit runs the same audit on them)
ORG = Path(__file__).resolve().parents[2] / "examples" / "org" / "repos"
SAM_TEMPLATE = (ORG / "orders-app" / "template.yaml").read_text(encoding="utf-8")
SAMCONFIG = (ORG / "orders-app" / "samconfig.toml").read_text(encoding="utf-8")
TF_MAIN = (ORG / "infra-tf" / "main.tf").read_text(encoding="utf-8")


HOSTILE_FILE = "evil\x1b[2J\u202e\n=cmd.yaml"  # a file name with an escape, a bidi override, a newline
HOSTILE_TEMPLATE = """\
Resources:
  Hostile:
    Type: AWS::SQS::Queue
    Properties:
      QueueName: hostile-q
      VisibilityTimeout: 30
"""


def line_of(text: str, needle: str) -> int:
    """The 1-based line of ``text`` that holds ``needle``."""
    return next(i for i, ln in enumerate(text.splitlines(), 1) if needle in ln)


def arn(name: str, account: str = A) -> str:
    return f"arn:aws:sqs:{REGION}:{account}:{name}"


def build_sources(root: Path) -> dict[str, Path]:
    """The three repositories under ``root``; returns {kind: folder}."""
    sam = root / "orders-app"
    sam.mkdir(parents=True)
    (sam / "template.yaml").write_text(SAM_TEMPLATE)
    (sam / "samconfig.toml").write_text(SAMCONFIG)
    (sam / HOSTILE_FILE).write_text(HOSTILE_TEMPLATE)
    outside = root / "outside"  # a template outside every source, and a symlink to it from inside one
    outside.mkdir()
    (outside / "leak.yaml").write_text(HOSTILE_TEMPLATE.replace("hostile-q", "leaked-q"))
    (sam / "leak.yaml").symlink_to(outside / "leak.yaml")
    (sam / "linked").symlink_to(outside, target_is_directory=True)
    cdk = root / "payments-cdk" / "cdk.out"  # a CDK app's source root is its synthesized assembly
    shutil.copytree(CDK_FIXTURE, cdk)
    tf = root / "infra-tf"
    tf.mkdir()
    (tf / "main.tf").write_text(TF_MAIN)
    return {"sam": sam, "cdk": cdk, "tf": tf}


def queue(name: str, vt: int, retention: int = 345600, dlq: str | None = None, mrc: int = 5) -> dict:
    attrs = {"QueueArn": arn(name), "VisibilityTimeout": str(vt), "MessageRetentionPeriod": str(retention)}
    if dlq:
        attrs["RedrivePolicy"] = json.dumps({"deadLetterTargetArn": arn(dlq), "maxReceiveCount": mrc})
    return {
        "kind": "queue",
        "account": A,
        "region": REGION,
        "arn": arn(name),
        "url": f"https://sqs.{REGION}.amazonaws.com/{A}/{name}",
        "name": name,
        "attributes": attrs,
        "tags": {},
    }


# what is deployed: names as CloudFormation and CDK make them (stack-logicalId-suffix), Terraform's as declared
ORDERS = "orders-prod-Orders-1A2B3C"  # the SAM stack's queue: visibility 120 deployed, 400 declared (drift)
ORDERS_DLQ = "orders-prod-OrdersDlq-4D5E6F"
PAYMENTS = "PaymentsStack-Orders-7G8H9I"  # the CDK queue (construct path OrdersStack/Orders/Resource)
PAYMENTS_DLQ = "PaymentsStack-OrdersDlq-0J1K2L"
JOBS, JOBS_DLQ = "jobs", "jobs-dlq"  # Terraform (state address aws_sqs_queue.jobs)
EMAILS, EMAILS_DLQ = (
    "emails",
    "emails-dlq",
)  # created by Terraform, but no owner record: joined by their names
BILLING = "billing-prod-Invoices-3M4N5O"  # stack billing-prod: its source is not given
GHOST = "orders-prod-Ghost-6P7Q8R"  # stack orders-prod, whose source is given, but no resource Ghost in it
HOSTILE = "hostile-q"  # declared in a file with a hostile name; no owner record: joined by name, drifted
LEAKED = "leaked-q"  # declared only outside the sources (through a symlink): never read, so not joined


def inventory_lines() -> list[dict]:
    fn = f"arn:aws:lambda:{REGION}:{A}:function:orders-worker"
    return [
        queue(ORDERS, 120, dlq=ORDERS_DLQ),
        queue(ORDERS_DLQ, 30, retention=1209600),
        queue(PAYMENTS, 60, dlq=PAYMENTS_DLQ),
        queue(PAYMENTS_DLQ, 30, retention=1209600),
        queue(JOBS, 300, dlq=JOBS_DLQ),
        queue(JOBS_DLQ, 30, retention=1209600),
        queue(EMAILS, 20, dlq=EMAILS_DLQ),
        queue(EMAILS_DLQ, 30),
        queue(BILLING, 30),
        queue(GHOST, 30),
        queue(HOSTILE, 45),
        queue(LEAKED, 30),
        {"kind": "mapping", "account": A, "region": REGION, "uuid": "m-orders", "event_source_arn": arn(ORDERS),
         "function_arn": fn, "state": "Enabled", "batch_size": 1, "batching_window": 0,
         "maximum_concurrency": None, "function_response_types": []},
        {"kind": "function", "account": A, "region": REGION, "arn": fn, "name": "orders-worker", "timeout": 60},
    ]  # fmt: skip


def owner_rows() -> list[dict]:
    def cfn(name, stack, lid, path=None, url=False):  # url: the stack resource's physical id, a queue URL
        ref = f"https://sqs.{REGION}.amazonaws.com/{A}/{name}" if url else arn(name)
        return {"kind": "owner", "account": A, "region": REGION, "resource": ref,
                "resource_type": "AWS::SQS::Queue", "url": None, "owner": "cloudformation", "stack": stack,
                "stack_id": f"arn:aws:cloudformation:{REGION}:{A}:stack/{stack}/x", "logical_id": lid,
                "construct_path": path, "root_stack": None}  # fmt: skip

    def tf(name, address):
        return {"kind": "owner", "account": A, "region": REGION, "resource": arn(name),
                "resource_type": "AWS::SQS::Queue", "url": None, "owner": "terraform",
                "state": "s3://state/infra.tfstate", "address": address, "module": ""}  # fmt: skip

    return [
        cfn(ORDERS, "orders-prod", "Orders"),
        cfn(ORDERS_DLQ, "orders-prod", "OrdersDlq"),
        cfn(PAYMENTS, "PaymentsStack", "OrdersA9B65338", "OrdersStack/Orders/Resource", url=True),
        cfn(PAYMENTS_DLQ, "PaymentsStack", "OrdersDlq16CD0DA3", "OrdersStack/OrdersDlq/Resource"),
        tf(JOBS, "aws_sqs_queue.jobs"),
        tf(JOBS_DLQ, "aws_sqs_queue.jobs_dlq"),
        cfn(BILLING, "billing-prod", "Invoices"),
        cfn(GHOST, "orders-prod", "Ghost"),
    ]


def write_inventory(root: Path, lines: list[dict]) -> Path:
    from collections import Counter

    from visguard.audit import inventory

    counts = Counter(x["kind"] for x in lines)
    inventory.write_lines(
        root,
        A,
        REGION,
        [json.dumps(x) for x in lines],
        {k: counts.get(k, 0) for k in ("queue", "mapping", "function")} | {"error": 0},
    )
    return root
