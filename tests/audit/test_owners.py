"""Owner records (issue 39 §1): CloudFormation stacks created through moto's CloudFormation on its server,
collected end to end; Terraform states written by the test (both formats, local, in a folder and in S3); states
full of secrets, huge or malformed; nested stacks as AWS answers (ParentId, physical id = stack ARN)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import boto3
import pytest
from visguard.audit import collector, inventory, owners, tfstate
from visguard.errors import VisguardError

from . import faults, fleet, stacks

pytestmark = pytest.mark.slow
logging.getLogger("werkzeug").setLevel(logging.ERROR)


@pytest.fixture(scope="module")
def shop(moto_endpoint):
    fleet.build(moto_endpoint)  # a known moto (reset), then the stacks in an account of their own
    return stacks.build(moto_endpoint)


def options(endpoint, out, **kw) -> collector.Options:
    base = {
        "accounts": [stacks.ACCOUNT],
        "role_name": fleet.ROLE,
        "regions": [stacks.REGION],
        "endpoint_url": endpoint,
        "out": str(out),
        "progress": False,
        "max_attempts": 3,
    }
    base.update(kw)
    return collector.Options(**base)


def records(root, kind=None) -> list[dict]:
    out = [rec for _, _, rec in inventory.iter_records(root)]
    assert all(isinstance(r, dict) for r in out)
    return [r for r in out if kind is None or r["kind"] == kind]


def cfn_owner(shop, resource, rtype, stack, logical_id, path, url=None, root=None, stack_id=None) -> dict:
    return {
        "kind": "owner", "account": stacks.ACCOUNT, "region": stacks.REGION, "resource": resource,
        "resource_type": rtype, "url": url, "owner": "cloudformation", "stack": stack,
        "stack_id": stack_id or shop["shop"], "logical_id": logical_id, "construct_path": path, "root_stack": root,
    }  # fmt: skip


def moto_url(name: str) -> str:  # the physical id moto's CloudFormation gives a queue
    return f"https://sqs.{stacks.REGION}.amazonaws.com/{stacks.ACCOUNT}/{name}"


def expected_cfn(shop, templates: bool) -> list[dict]:
    p = (lambda x: x) if templates else (lambda x: None)
    return [
        cfn_owner(shop, stacks.arn("shop-orders"), owners.QUEUE, "shop", "Orders", p("Shop/Orders/Resource"),
                  url=moto_url("shop-orders")),
        cfn_owner(shop, stacks.arn("shop-orders-dlq"), owners.QUEUE, "shop", "OrdersDlq", p("Shop/OrdersDlq/Resource"),
                  url=moto_url("shop-orders-dlq")),
        cfn_owner(shop, shop["mapping"], owners.MAPPING, "shop", "OrdersMapping",
                  p("Shop/Handler/SqsEventSource/Resource")),
        cfn_owner(shop, stacks.arn("inner"), owners.QUEUE, shop["nested"], "Inner", p("Shop/Nested/Inner/Resource"),
                  url=moto_url("inner"), root="shop", stack_id=shop["nested_id"]),
    ]  # fmt: skip


def key(r: dict) -> str:
    return json.dumps(r, sort_keys=True)


@pytest.mark.parametrize("templates", [True, False])
def test_stack_owners_exactly(shop, moto_endpoint, tmp_path, templates):
    rec = faults.Recorder()
    stats = collector.collect(options(moto_endpoint, tmp_path, templates=templates, client_hook=rec))
    assert stats.errors == 0 and stats.owners == 4 and stats.queues == 4
    got = records(tmp_path, "owner")
    assert sorted(map(key, got)) == sorted(map(key, expected_cfn(shop, templates)))
    assert inventory.validate_records(records(tmp_path)) == []
    # the queue made by hand has no owner; the deleted stack's queue is not there at all
    queues = {r["name"] for r in records(tmp_path, "queue")}
    assert "made-by-hand" in queues and not {r["resource"] for r in got} & {stacks.arn("made-by-hand")}
    assert ("retired" not in {r["stack"] for r in got}) and "retired-q" not in queues
    # the mapping record and its owner name the same UUID
    assert [m["uuid"] for m in records(tmp_path, "mapping")] == [shop["mapping"]]
    closing = records(tmp_path, "partition")[0]
    assert closing["owners"] == 4
    calls = {a for _, a in rec.calls if a.startswith("cloudformation:")}
    assert calls == {"cloudformation:ListStacks", "cloudformation:ListStackResources"} | (
        {"cloudformation:GetTemplate"} if templates else set()
    )


def test_stack_calls_are_retried_when_throttled(shop, moto_endpoint, tmp_path):
    throttle = faults.Throttle(every=2, services=("cloudformation",))
    stats = collector.collect(
        options(moto_endpoint, tmp_path, templates=True, client_hook=throttle, queue_workers=1)
    )
    assert throttle.injected >= 3 and stats.errors == 0
    assert sorted(map(key, records(tmp_path, "owner"))) == sorted(map(key, expected_cfn(shop, True)))


def test_access_denied_on_stacks_is_an_error_row_next_to_the_queues(shop, moto_endpoint, tmp_path):
    hook = faults.Deny(stacks.ACCOUNT, services=("cloudformation",))
    stats = collector.collect(options(moto_endpoint, tmp_path, client_hook=hook))
    errors = records(tmp_path, "error")
    assert [(e["operation"], e["code"]) for e in errors] == [("cloudformation:ListStacks", "AccessDenied")]
    assert stats.errors == 1 and stats.queues == 4 and not records(tmp_path, "owner")
    assert not inventory.is_complete(tmp_path, stacks.ACCOUNT, stacks.REGION)  # retried on the next run


def test_an_inventory_without_owners_closes_as_before(tmp_path):
    closing = inventory.write_partition(tmp_path, "123456789012", "eu-west-1", [])
    assert "owners" not in closing and "owners" not in records(tmp_path, "partition")[0]


# ------------------------------------------------------------------------------- nesting as AWS answers it
class FakePart:
    account, region, partition = "111122223333", "us-east-1", "aws"

    def call(self, operation, fn, resource=None):
        return fn()


class FakeCfn:
    """A CloudFormation client at the boto3 level: paginators over canned pages (real AWS: ParentId/RootId in
    ListStacks and the nested stack's ARN as the physical id of its AWS::CloudFormation::Stack resource)."""

    def __init__(self, summaries, resources, templates=None):
        self.summaries, self.resources, self.templates = summaries, resources, templates or {}
        self.calls = []

    def get_paginator(self, name):
        fake = self

        class Pages:
            def paginate(self, **kw):
                fake.calls.append((name, kw))
                if name == "list_stacks":
                    half = len(fake.summaries) // 2  # two pages: the collector follows NextToken
                    return [{"StackSummaries": fake.summaries[:half], "NextToken": "t"},
                            {"StackSummaries": fake.summaries[half:]}]  # fmt: skip
                res = fake.resources[kw["StackName"]]
                return [{"StackResourceSummaries": res[:1]}, {"StackResourceSummaries": res[1:]}]

        return Pages()

    def get_template(self, StackName, TemplateStage):  # noqa: N803 - boto3's names
        return {"TemplateBody": self.templates.get(StackName, "")}


def sid(name: str) -> str:
    return f"arn:aws:cloudformation:us-east-1:111122223333:stack/{name}/0000"


def test_nested_stacks_as_aws_lists_them():
    root, mid, leaf = sid("app"), sid("app-Mid-1"), sid("app-Mid-1-Leaf-2")
    summaries = [
        {"StackId": root, "StackName": "app", "StackStatus": "UPDATE_COMPLETE"},
        {"StackId": mid, "StackName": "app-Mid-1", "StackStatus": "UPDATE_COMPLETE", "ParentId": root, "RootId": root},
        # no ParentId: found through the parent's AWS::CloudFormation::Stack resource (physical id = its ARN)
        {"StackId": leaf, "StackName": "app-Mid-1-Leaf-2", "StackStatus": "CREATE_COMPLETE"},
    ]  # fmt: skip
    url = "https://sqs.us-east-1.amazonaws.com/111122223333/leafq"
    resources = {
        root: [{"LogicalResourceId": "Mid", "ResourceType": owners.NESTED_STACK, "PhysicalResourceId": mid}],
        mid: [{"LogicalResourceId": "Leaf", "ResourceType": owners.NESTED_STACK, "PhysicalResourceId": leaf},
              {"LogicalResourceId": "Pipe", "ResourceType": owners.PIPE, "PhysicalResourceId": "p1"}],
        leaf: [{"LogicalResourceId": "Q", "ResourceType": owners.QUEUE, "PhysicalResourceId": url},
               {"LogicalResourceId": "Svc", "ResourceType": owners.ECS_SERVICE,
                "PhysicalResourceId": "arn:aws:ecs:us-east-1:111122223333:service/c/svc"},
               {"LogicalResourceId": "Failed", "ResourceType": owners.QUEUE, "PhysicalResourceId": ""}],
    }  # fmt: skip
    yaml_template = (
        "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Metadata:\n      aws:cdk:path: App/Mid/Leaf/Q\n"
    )
    cfn = FakeCfn(summaries, resources, {leaf: yaml_template, mid: {"Resources": {}}})
    queue = {"account": "111122223333", "name": "leafq", "url": "http://elsewhere/111122223333/leafq",
             "arn": "arn:aws:sqs:us-east-1:111122223333:leafq"}  # fmt: skip
    got = owners.cloudformation(
        FakePart(), cfn, [queue], templates=True, fan_out=lambda fn, items: [fn(x) for x in items]
    )
    brief = [(r["stack"], r["logical_id"], r["resource"], r["root_stack"], r["construct_path"]) for r in got]
    assert brief == [
        ("app-Mid-1", "Pipe", "arn:aws:pipes:us-east-1:111122223333:pipe/p1", "app", None),
        ("app-Mid-1-Leaf-2", "Q", queue["arn"], "app", "App/Mid/Leaf/Q"),
        ("app-Mid-1-Leaf-2", "Svc", "arn:aws:ecs:us-east-1:111122223333:service/c/svc", "app", None),
    ]
    assert cfn.calls[0] == ("list_stacks", {"StackStatusFilter": list(owners.facts.CFN_OWNING_STATUSES)})
    assert "DELETE_COMPLETE" not in owners.facts.CFN_OWNING_STATUSES
    # GetTemplate only for the stacks that own something (not the root, which holds only a nested stack)
    assert inventory.validate_records(got) == []


def test_templates_are_bounded():
    big = "Resources:\n" + "  # " + "x" * owners.MAX_TEMPLATE_BYTES + "\n"
    assert owners.paths_of_template(big) == {}
    assert owners.paths_of_template("{not: [a template") == {}
    assert owners.paths_of_template({"Resources": {"A": {"Metadata": {"aws:cdk:path": "S/A"}}}}) == {
        "A": "S/A"
    }


# ------------------------------------------------------------------------------------------ Terraform
QUEUE_ARN = stacks.arn("shop-orders")
QUEUE_URL = f"https://sqs.{stacks.REGION}.amazonaws.com/{stacks.ACCOUNT}/shop-orders"
OTHER_ARN = "arn:aws:sqs:ap-south-1:999988887777:elsewhere"  # a partition the tests never collect
SECRETS = [f"SENTINEL-SECRET-{i}-zq" for i in range(12)]


def raw_state(secret: bool = False) -> dict:
    """A version 4 state (terraform.tfstate): a root queue, a for_each queue in a module, a mapping with count,
    an ECS service, a data source and secrets around them."""
    s = SECRETS if secret else ["x"] * len(SECRETS)
    return {
        "version": 4, "terraform_version": "1.9.5", "serial": 3, "lineage": "l-1",
        "outputs": {"db_password": {"value": s[0], "type": "string", "sensitive": True}},
        "resources": [
            {"mode": "managed", "type": "aws_sqs_queue", "name": "orders", "provider": "provider[\"registry.terraform.io/hashicorp/aws\"]",
             "instances": [{"schema_version": 0, "attributes": {
                 "arn": QUEUE_ARN, "id": QUEUE_URL, "url": QUEUE_URL, "name": "shop-orders",
                 "policy": s[1], "tags": {"token": s[2]}, "redrive_policy": s[3]},
                 "sensitive_attributes": [[{"type": "get_attr", "value": "policy"}]], "private": s[4]}]},
            {"module": "module.jobs", "mode": "managed", "type": "aws_sqs_queue", "name": "q",
             "instances": [{"index_key": "a\"b", "attributes": {"arn": OTHER_ARN, "id": "https://sqs.ap-south-1.amazonaws.com/999988887777/elsewhere",
                                                            "kms_master_key_id": s[5]}}]},
            {"mode": "managed", "type": "aws_lambda_event_source_mapping", "name": "m",
             "instances": [{"index_key": 0, "attributes": {
                 "uuid": "11111111-2222-3333-4444-555555555555", "id": "11111111-2222-3333-4444-555555555555",
                 "function_arn": f"arn:aws:lambda:{stacks.REGION}:{stacks.ACCOUNT}:function:f",
                 "source_access_configuration": [{"uri": s[6]}]}}]},
            {"mode": "managed", "type": "aws_ecs_service", "name": "svc",
             "instances": [{"attributes": {"id": f"arn:aws:ecs:{stacks.REGION}:{stacks.ACCOUNT}:service/c/svc",
                                           "name": "svc", "task_definition": s[7]}}]},
            {"mode": "managed", "type": "aws_db_instance", "name": "db",
             "instances": [{"attributes": {"id": s[8], "password": s[9], "arn": s[10]}}]},
            {"mode": "data", "type": "aws_sqs_queue", "name": "lookup",
             "instances": [{"attributes": {"arn": stacks.arn("looked-up"), "url": s[11]}}]},
        ],
    }  # fmt: skip


def show_json(secret: bool = False) -> dict:
    """The same kind of content as ``terraform show -json`` prints it."""
    s = SECRETS if secret else ["x"] * len(SECRETS)
    return {
        "format_version": "1.0", "terraform_version": "1.9.5",
        "values": {
            "outputs": {"token": {"sensitive": True, "value": s[0]}},
            "root_module": {
                "resources": [
                    {"address": "aws_sqs_queue.orders", "mode": "managed", "type": "aws_sqs_queue", "name": "orders",
                     "values": {"arn": QUEUE_ARN, "url": QUEUE_URL, "policy": s[1], "tags": {"k": s[2]}},
                     "sensitive_values": {"policy": True}},
                    {"address": "aws_secretsmanager_secret_version.v", "mode": "managed",
                     "type": "aws_secretsmanager_secret_version", "name": "v", "values": {"secret_string": s[3], "id": s[4]}},
                ],
                "child_modules": [{
                    "address": "module.app",
                    "resources": [{"address": "module.app.awscc_pipes_pipe.p[\"eu\"]", "mode": "managed",
                                   "type": "awscc_pipes_pipe", "name": "p", "index": "eu",
                                   "values": {"arn": f"arn:aws:pipes:{stacks.REGION}:{stacks.ACCOUNT}:pipe/p",
                                              "source_parameters": {"x": s[5]}}}],
                    "child_modules": [{"address": "module.app.module.inner", "resources": [
                        {"address": "module.app.module.inner.aws_ecs_task_definition.td", "mode": "managed",
                         "type": "aws_ecs_task_definition", "name": "td",
                         "values": {"arn": f"arn:aws:ecs:{stacks.REGION}:{stacks.ACCOUNT}:task-definition/td:3",
                                    "container_definitions": s[6]}}]}],
                }],
            },
        },
    }  # fmt: skip


def tf_owner(state, address, module, resource, rtype, url=None, account=stacks.ACCOUNT, region=stacks.REGION):
    return {
        "kind": "owner", "account": account, "region": region, "resource": resource, "resource_type": rtype,
        "url": url, "owner": "terraform", "state": state, "address": address, "module": module,
    }  # fmt: skip


def test_raw_state_maps_to_addresses(tmp_path):
    p = tmp_path / "terraform.tfstate"
    p.write_text(json.dumps(raw_state()))
    got = tfstate.read_states([str(p)]).records
    mapping = "11111111-2222-3333-4444-555555555555"
    assert got == [
        tf_owner(str(p), "aws_sqs_queue.orders", "", QUEUE_ARN, owners.QUEUE, url=QUEUE_URL),
        tf_owner(str(p), 'module.jobs.aws_sqs_queue.q["a\\"b"]', "module.jobs", OTHER_ARN, owners.QUEUE,
                 url="https://sqs.ap-south-1.amazonaws.com/999988887777/elsewhere", account="999988887777",
                 region="ap-south-1"),
        tf_owner(str(p), "aws_lambda_event_source_mapping.m[0]", "", mapping, owners.MAPPING),
        tf_owner(str(p), "aws_ecs_service.svc", "", f"arn:aws:ecs:{stacks.REGION}:{stacks.ACCOUNT}:service/c/svc",
                 owners.ECS_SERVICE),
    ]  # fmt: skip
    assert inventory.validate_records(got) == []


def test_show_json_maps_to_addresses_and_modules(tmp_path):
    folder = tmp_path / "states"
    (folder / "env").mkdir(parents=True)
    p = folder / "env" / "show.json"
    p.write_text(json.dumps(show_json()))
    (folder / "package.json").write_text(
        '{"name": "not-a-state"}'
    )  # a JSON that is no state: skipped, counted
    (folder / ".terraform").mkdir()
    (folder / ".terraform" / "terraform.tfstate").write_text(
        '{"version": 3, "backend": {}}'
    )  # backend settings
    read = tfstate.read_states([str(folder)])
    assert (read.files, read.not_states) == (1, 1)
    assert read.records == [
        tf_owner(str(p), "aws_sqs_queue.orders", "", QUEUE_ARN, owners.QUEUE, url=QUEUE_URL),
        tf_owner(str(p), 'module.app.awscc_pipes_pipe.p["eu"]', "module.app",
                 f"arn:aws:pipes:{stacks.REGION}:{stacks.ACCOUNT}:pipe/p", owners.PIPE),
        tf_owner(str(p), "module.app.module.inner.aws_ecs_task_definition.td", "module.app.module.inner",
                 f"arn:aws:ecs:{stacks.REGION}:{stacks.ACCOUNT}:task-definition/td:3", owners.TASK_DEFINITION),
    ]  # fmt: skip


def test_folder_symlinks_out_are_not_read(tmp_path):
    outside = tmp_path / "outside.tfstate"
    outside.write_text(json.dumps(raw_state()))
    folder = tmp_path / "states"
    folder.mkdir()
    (folder / "link.tfstate").symlink_to(outside)
    (folder / "sub").symlink_to(tmp_path, target_is_directory=True)
    read = tfstate.read_states([str(folder)])
    assert (read.files, read.records) == (0, [])


def test_collect_writes_terraform_owners_into_their_partitions(shop, moto_endpoint, tmp_path):
    state = tmp_path / "prod.tfstate"
    state.write_text(json.dumps(raw_state()))
    out = tmp_path / "inv"
    stats = collector.collect(options(moto_endpoint, out, terraform_states=[str(state)]))
    tf = [r for r in records(out, "owner") if r["owner"] == "terraform"]
    # three of the state's four resources are in the collected partition; the fourth's partition is not collected
    assert sorted(r["address"] for r in tf) == [
        "aws_ecs_service.svc", "aws_lambda_event_source_mapping.m[0]", "aws_sqs_queue.orders",
    ]  # fmt: skip
    assert stats.owners_dropped == 1 and stats.owners == 4 + 3
    assert inventory.validate_records(records(out)) == []


def test_state_in_s3_read_only(shop, moto_endpoint, tmp_path):
    s3 = boto3.client("s3", endpoint_url=moto_endpoint, region_name="us-east-1")
    s3.create_bucket(Bucket="tf-states")
    s3.put_object(Bucket="tf-states", Key="env/prod.tfstate", Body=json.dumps(raw_state()).encode())
    rec = faults.Recorder()
    out = tmp_path / "inv"
    stats = collector.collect(
        options(moto_endpoint, out, terraform_states=["s3://tf-states/env/prod.tfstate"], client_hook=rec)
    )
    tf = [r for r in records(out, "owner") if r["owner"] == "terraform"]
    assert {r["state"] for r in tf} == {"s3://tf-states/env/prod.tfstate"} and stats.owners_dropped == 1
    assert ("s3:GetObject" in {a for acc, a in rec.calls if acc is None}) and not {
        a for _, a in rec.calls if a.startswith("s3:") and a != "s3:GetObject"
    }
    with pytest.raises(VisguardError, match="s3://tf-states/missing.tfstate.*NoSuchKey"):
        tfstate.read_states(["s3://tf-states/missing.tfstate"], s3_client=lambda: s3)


def cli(args, **kw):
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
           "AWS_DEFAULT_REGION": "us-east-1", "VISGUARD_DEBUG": "1"}  # fmt: skip
    exe = str(Path(sys.executable).with_name("visguard"))
    return subprocess.run([exe, *args], env=env, capture_output=True, text=True, timeout=120, **kw)


def test_secrets_in_state_reach_no_output(shop, moto_endpoint, tmp_path):
    folder = tmp_path / "states"
    folder.mkdir()
    (folder / "raw.tfstate").write_text(json.dumps(raw_state(secret=True)))
    (folder / "show.json").write_text(json.dumps(show_json(secret=True)))
    out = tmp_path / "inv"
    r = cli([
        "audit", "collect", "--accounts", stacks.ACCOUNT, "--role-name", fleet.ROLE, "--regions", stacks.REGION,
        "--endpoint-url", moto_endpoint, "--out", str(out), "--terraform-state", str(folder), "--templates",
    ])  # fmt: skip
    assert r.returncode == 0, r.stderr
    written = "".join(p.read_text() for p in out.rglob("*") if p.is_file())
    assert "terraform" in written  # the owners are there ...
    for s in SECRETS:  # ... and no secret is, anywhere
        assert s not in written and s not in r.stdout and s not in r.stderr
    # the parsed documents themselves keep no secret (what the collector holds in memory after the parse)
    for name in ("raw.tfstate", "show.json"):
        kept = json.dumps(tfstate.parse((folder / name).read_bytes(), name))
        assert not [s for s in SECRETS if s in kept]


def test_huge_state_is_refused_in_one_line_before_parsing(tmp_path):
    big = tmp_path / "huge.tfstate"
    with open(big, "wb") as fh:  # sparse: 1 GiB without writing it
        fh.truncate(1024**3)
    r = cli(["audit", "collect", "--accounts", stacks.ACCOUNT, "--out", str(tmp_path / "inv"),
             "--terraform-state", str(big)])  # fmt: skip
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and str(big) in r.stderr, r.stderr
    assert not (tmp_path / "inv").exists() or not list((tmp_path / "inv").rglob("*.jsonl"))


@pytest.mark.parametrize(
    "body, words",
    [(b'{"version": 4, "resources": [', "not JSON"), (b"\xff\xfe\x00garbage", "not"),
     (b'{"version": 3, "modules": []}', "version 3"), (b"[1, 2]", "not a Terraform state"),
     (b"[" * 100_000 + b"]" * 100_000, "nested too deeply")],
)  # fmt: skip
def test_bad_state_is_one_line_naming_the_file(tmp_path, body, words):
    bad = tmp_path / "bad.tfstate"
    bad.write_bytes(body)
    r = cli(["audit", "collect", "--accounts", stacks.ACCOUNT, "--out", str(tmp_path / "inv"),
             "--terraform-state", str(bad)])  # fmt: skip
    assert r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr
    assert str(bad) in r.stderr and words in r.stderr and "Traceback" not in r.stderr


def test_generator_owners_only_on_request(tmp_path):
    from visguard.audit import generate

    plain, owned = tmp_path / "plain", tmp_path / "owned"
    c0 = generate.generate(600, 3, 9, str(plain))
    c1 = generate.generate(600, 3, 9, str(owned), owners=True)
    assert "owners" not in c0 and 0.7 * 600 < c1["owners"] < 0.9 * 600
    for p in inventory.partition_files(plain):
        lines = p.read_text().splitlines()
        theirs = (owned / p.parent.name / p.name).read_text().splitlines()
        assert '"kind":"owner"' not in "".join(lines) and '"owners"' not in lines[-1]
        # the same fleet line for line; the owned one adds owner records and their count
        assert [x for x in theirs[:-1] if '"kind":"owner"' not in x] == lines[:-1]
        closing = json.loads(theirs[-1])
        assert closing.pop("owners") == sum('"kind":"owner"' in x for x in theirs)
        assert closing == json.loads(lines[-1])
    recs = [r for _, _, r in inventory.iter_records(owned)]
    assert inventory.validate_records([r for r in recs if r["kind"] in ("owner", "partition")]) == []
    assert {r["owner"] for r in recs if r["kind"] == "owner"} == {"cloudformation", "terraform"}


def test_huge_state_in_s3_is_refused_before_reading(shop, moto_endpoint, monkeypatch):
    s3 = boto3.client("s3", endpoint_url=moto_endpoint, region_name="us-east-1")
    s3.create_bucket(Bucket="tf-big")
    s3.put_object(Bucket="tf-big", Key="big.tfstate", Body=b" " * 5000)
    monkeypatch.setattr(tfstate, "MAX_STATE_BYTES", 4096)  # the bound, scaled down: the same code path
    with pytest.raises(VisguardError, match=r"s3://tf-big/big.tfstate: a Terraform state over 4,096 bytes"):
        tfstate.read_states(["s3://tf-big/big.tfstate"], s3_client=lambda: s3)


def test_schema_holds_each_owner_kind_to_its_own_fields():
    good = owners.owner_record("123456789012", "eu-west-1", "arn:aws:sqs:eu-west-1:123456789012:q", owners.QUEUE,
                               "terraform", url=None, state="s.tfstate", address="aws_sqs_queue.q", module="")  # fmt: skip
    assert inventory.validate_records([good]) == []
    for bad in ({**good, "stack": "s"}, {**good, "owner": "cloudformation"}, {**good, "resource_type": "AWS::X"},
                {k: v for k, v in good.items() if k != "address"}, {**good, "resource": ""}):  # fmt: skip
        assert inventory.validate_records([bad]) != []
        assert not inventory.quick_check()(bad)
