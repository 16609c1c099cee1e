"""Worker consumers in the audit (issue 27 §1): the collector reads ECS services and EventBridge pipes that
consume a queue (moto in-process), the inventory records validate, and the audit's joins turn them into the
linter's worker Consumers (plain-Python reference path; the Spark job is checked against it in test_job)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import boto3
import pytest
from moto import mock_aws
from visguard.audit import build, collector, inventory
from visguard.audit.permissions import COLLECTOR_ACTIONS

from . import faults, reference

ACCOUNT = "123456789012"  # moto's default account
REGION = "us-east-1"
FOREIGN = "arn:aws:sqs:eu-west-1:210987654321:remote-jobs"


@pytest.fixture
def aws(monkeypatch):
    for k, v in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": REGION,
    }.items():
        monkeypatch.setenv(k, v)
    with mock_aws():
        yield boto3.Session(region_name=REGION)


def _role(session) -> str:
    doc = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole",
           "Principal": {"Service": ["lambda.amazonaws.com", "pipes.amazonaws.com"]}}]}  # fmt: skip
    return session.client("iam").create_role(RoleName="r", AssumeRolePolicyDocument=json.dumps(doc))["Role"][
        "Arn"
    ]


def seed(session) -> dict:
    """Queues, an ECS service naming three of them (URL, bare name, another account's ARN), and two pipes."""
    sqs, ecs, pipes, lam = (session.client(s) for s in ("sqs", "ecs", "pipes", "lambda"))
    urls = {
        n: sqs.create_queue(QueueName=n, Attributes={"VisibilityTimeout": vt})["QueueUrl"]
        for n, vt in (("jobs", "60"), ("thumbs", "600"), ("events", "30"), ("unread", "30"))
    }
    arn = {n: f"arn:aws:sqs:{REGION}:{ACCOUNT}:{n}" for n in urls}
    role = _role(session)
    ecs.create_cluster(clusterName="work")
    td = ecs.register_task_definition(
        family="jobs-worker",
        containerDefinitions=[
            {"name": "app", "image": "app:1", "memory": 512, "stopTimeout": 30,
             "environment": [{"name": "JOBS_QUEUE_URL", "value": urls["jobs"]},
                             {"name": "THUMBS_QUEUE", "value": "thumbs"},
                             {"name": "REMOTE_QUEUE_ARN", "value": FOREIGN},
                             {"name": "DB_PASSWORD", "value": "plain-hunter2"},
                             {"name": "JOBS_AGAIN", "value": arn["jobs"]}],  # the same queue: one record
             "secrets": [{"name": "DB_PASSWORD", "valueFrom": "arn:aws:secretsmanager:us-east-1:123456789012:secret:db"}]},
        ],
        tags=[{"key": "visguard.io/processing-p99", "value": "2m"}, {"key": "visguard.io/processing-p50", "value": "20s"}],
    )["taskDefinition"]["taskDefinitionArn"]  # fmt: skip
    ecs.register_task_definition(
        family="web", containerDefinitions=[{"name": "web", "image": "web:1", "memory": 256,
                                             "environment": [{"name": "PORT", "value": "8080"}]}],
    )  # fmt: skip
    ecs.create_service(cluster="work", serviceName="jobs-worker", taskDefinition=td, desiredCount=3)
    ecs.create_service(cluster="work", serviceName="web", taskDefinition="web", desiredCount=2)
    fn = lam.create_function(
        FunctionName="enrich", Runtime="python3.12", Role=role, Handler="h.h", Code={"ZipFile": b"x"}, Timeout=120
    )["FunctionArn"]  # fmt: skip
    pipes.create_pipe(
        Name="events-to-fn", RoleArn=role, Source=arn["events"], Target=fn,
        SourceParameters={"SqsQueueParameters": {"BatchSize": 5, "MaximumBatchingWindowInSeconds": 20}},
        Tags={"visguard.io/processing-p99": "45"},
    )  # fmt: skip
    sfn = f"arn:aws:states:{REGION}:{ACCOUNT}:stateMachine:flow"
    pipes.create_pipe(
        Name="jobs-to-flow", RoleArn=role, Source=arn["jobs"], Target=sfn, DesiredState="STOPPED",
        TargetParameters={"StepFunctionStateMachineParameters": {"InvocationType": "REQUEST_RESPONSE"}},
    )  # fmt: skip
    # a pipe from another kind of source: not ours
    pipes.create_pipe(
        Name="stream", RoleArn=role, Source=f"arn:aws:kinesis:{REGION}:{ACCOUNT}:stream/s", Target=fn
    )
    return {"urls": urls, "arn": arn, "fn": fn, "sfn": sfn, "td": td}


def deny_ecs(client, account):
    """AccessDenied for every ECS call (before-call answers in moto's place: in-process moto answers before-send)."""
    if client.meta.service_model.endpoint_prefix != "ecs":
        return

    def answer(model, **_):
        err = {"Code": "AccessDeniedException", "Message": f"not authorized to perform ecs:{model.name}"}
        return SimpleNamespace(status_code=400, headers={}), {"Error": err, "ResponseMetadata": {}}

    client.meta.events.register("before-call", answer)


def run(session, out, **kw) -> collector.Stats:
    opts = collector.Options(
        accounts=[ACCOUNT], regions=[REGION], session=session, out=str(out), progress=False, **kw
    )
    return collector.collect(opts)


def records(out) -> list[dict]:
    return [r for _, _, r in inventory.iter_records(out)]


def test_collects_ecs_services_and_pipes_as_worker_records(aws, tmp_path):
    s = seed(aws)
    rec = faults.Recorder()
    stats = run(aws, tmp_path, client_hook=rec)
    recs = records(tmp_path)
    assert inventory.validate_records(recs) == []
    assert stats.workers == 5 and stats.errors == 0
    workers = sorted((r for r in recs if r["kind"] == "worker"), key=lambda r: (r["platform"], r["queue"]))
    ecs = [w for w in workers if w["platform"] == "ecs"]
    service = f"arn:aws:ecs:{REGION}:{ACCOUNT}:service/work/jobs-worker"
    # the partition's queues by their ARN (named by URL or bare name); another account's queue as written
    assert [(w["queue"], w["link"], w["link_ref"]) for w in ecs] == [
        (FOREIGN, "env", "REMOTE_QUEUE_ARN"),
        (s["arn"]["jobs"], "env", "JOBS_AGAIN"),  # variables in name order: JOBS_AGAIN before JOBS_QUEUE_URL
        (s["arn"]["thumbs"], "env", "THUMBS_QUEUE"),
    ]
    for w in ecs:
        assert (w["arn"], w["stop_timeout"], w["desired_count"], w["container"], w["task_definition"]) == (
            service, 30, 3, "app", s["td"],
        )  # fmt: skip
        assert (w["processing_p99"], w["processing_p50"], w["heartbeat"]) == (120.0, 20.0, None)
    pipes = {w["name"]: w for w in workers if w["platform"] == "pipes"}
    assert set(pipes) == {"events-to-fn", "jobs-to-flow"}
    ev = pipes["events-to-fn"]
    assert (ev["queue"], ev["link"], ev["batch_size"], ev["batching_window"], ev["work_timeout"]) == (
        s["arn"]["events"], "source", 5, 20, 120,
    )  # fmt: skip
    assert (ev["heartbeat"], ev["processing_p99"], ev["target"]) == (False, 45.0, s["fn"])
    flow = pipes["jobs-to-flow"]
    assert (flow["work_timeout"], flow["state"]) == (300, "STOPPED")  # Express maximum (REQUEST_RESPONSE)
    text = "".join(p.read_text() for p in inventory.partition_files(tmp_path))
    # only the matched variables' names and queues: no other value, no secret reference, no credential
    assert "plain-hunter2" not in text and "DB_PASSWORD" not in text and "secretsmanager" not in text
    assert "testing" not in text
    calls = {a for acc, a in rec.calls if acc is not None}
    assert {a for a in COLLECTOR_ACTIONS if a.startswith(("ecs:", "pipes:"))} <= calls


def test_access_denied_on_ecs_keeps_the_queues(aws, tmp_path):
    seed(aws)
    stats = run(aws, tmp_path, client_hook=deny_ecs)
    recs = records(tmp_path)
    errors = [r for r in recs if r["kind"] == "error"]
    assert [(e["operation"], e["code"]) for e in errors] == [("ecs:ListClusters", "AccessDenied")]
    assert stats.queues == 4 and stats.errors == 1
    assert {r["platform"] for r in recs if r["kind"] == "worker"} == {"pipes"}
    assert not inventory.is_complete(tmp_path, ACCOUNT, REGION)  # a re-run tries again


def test_worker_records_become_worker_consumers(aws, tmp_path):
    s = seed(aws)
    run(aws, tmp_path)
    rows, _ = reference.joined_rows(str(tmp_path))
    by_name = {r["name"]: r for r in rows}
    jobs = build.model_for(by_name["jobs"]).queues[s["arn"]["jobs"]]
    got = {(c.id, c.kind, c.platform, c.source, c.link, c.link_ref) for c in jobs.consumers}
    service = f"arn:aws:ecs:{REGION}:{ACCOUNT}:service/work/jobs-worker"
    pipe = f"arn:aws:pipes:{REGION}:{ACCOUNT}:pipe/jobs-to-flow"
    assert got == {
        (service, "worker", "ecs", "inventory", "env", "JOBS_AGAIN"),
        (pipe, "worker", "pipes", "inventory", "source", None),
    }
    ecs = next(c for c in jobs.consumers if c.platform == "ecs")
    assert (ecs.stop_timeout, ecs.effective_stop_timeout, ecs.processing_p99, ecs.processing_p50) == (
        30,
        30,
        120,
        20,
    )
    assert ecs.settings == {
        "desired_count": 3,
        "task_definition": s["td"],
        "container": "app",
        "capacity": "EC2",
    }
    assert ecs.location.path == service and ecs.location.file == f"{ACCOUNT}/{REGION}.jsonl"
    flow = next(c for c in jobs.consumers if c.platform == "pipes")
    assert (flow.work_timeout, flow.heartbeat, flow.enabled) == (300, False, False)
    events = build.model_for(by_name["events"]).queues[s["arn"]["events"]]
    (ev,) = events.consumers
    assert (ev.batch_size, ev.batching_window, ev.work_timeout, ev.processing_p99, ev.heartbeat) == (
        5,
        20,
        120,
        45,
        False,
    )
    # no worker record: no consumer (the queue has no tags and no metrics)
    assert build.model_for(by_name["unread"]).queues[s["arn"]["unread"]].consumers == []


def test_vg020_fires_for_a_worker_consumed_queue_without_redrive(aws, tmp_path):
    seed(aws)
    run(aws, tmp_path)
    rows, _ = reference.joined_rows(str(tmp_path))
    findings, figures = build.lint_rows(rows)
    vg020 = {f["queue_name"]: f["message"] for f in findings if f["rule"] == "VG020"}
    service = f"arn:aws:ecs:{REGION}:{ACCOUNT}:service/work/jobs-worker"
    assert set(vg020) == {"jobs", "thumbs", "events"}  # not "unread": no consumer
    assert service in vg020["thumbs"] and "pipe/events-to-fn" in vg020["events"]
    kinds = {g["name"]: g["consumer_kinds"] for g in figures}
    assert kinds["thumbs"] == "worker" and kinds["unread"] == ""


def test_url_of_another_account_joins_by_account_region_and_name(tmp_path):
    """A worker naming a queue by URL (another account's, as the collector writes it) joins to that queue."""
    acc_a, acc_b = "111111111111", "222222222222"
    q = {"kind": "queue", "account": acc_a, "region": "eu-west-1", "arn": f"arn:aws:sqs:eu-west-1:{acc_a}:work",
         "name": "work", "attributes": {"VisibilityTimeout": "30"}}  # fmt: skip
    base = {"kind": "worker", "account": acc_b, "region": "us-east-1", "platform": "ecs", "link": "env",
            "link_ref": "Q", "stop_timeout": 10}  # fmt: skip
    workers = [
        {**base, "arn": f"arn:aws:ecs:us-east-1:{acc_b}:service/c/a", "queue": f"https://sqs.eu-west-1.amazonaws.com/{acc_a}/work"},
        {**base, "arn": f"arn:aws:ecs:us-east-1:{acc_b}:service/c/b", "queue": f"https://eu-west-1.queue.amazonaws.com/{acc_a}/work"},
        # a host without a region: the worker's own (us-east-1), so not this queue
        {**base, "arn": f"arn:aws:ecs:us-east-1:{acc_b}:service/c/c", "queue": f"https://vpce-1.example.com/{acc_a}/work"},
    ]  # fmt: skip
    assert inventory.validate_records([q, *workers]) == []
    inventory.write_partition(tmp_path, acc_a, "eu-west-1", [q])
    inventory.write_partition(tmp_path, acc_b, "us-east-1", workers)
    (row,), _ = reference.joined_rows(str(tmp_path))
    assert [c["worker_arn"].rsplit("/", 1)[-1] for c in row["consumers"]] == ["a", "b"]
    consumers = build.model_for(row).queues[q["arn"]].consumers
    assert {c.location.file for c in consumers} == {f"{acc_b}/us-east-1.jsonl"}


def test_schema_rejects_a_worker_without_its_queue():
    bad = {"kind": "worker", "account": ACCOUNT, "region": REGION, "arn": "arn:aws:ecs:x", "platform": "ecs"}
    assert inventory.validate_records([bad])
    assert inventory.validate_records([{**bad, "queue": "q", "platform": "k8s"}])


# ---------------------------------------------------------------------------------------------- ECS capacity
# issue 36 (fact-drift row P2): where a service's tasks run, from DescribeServices and DescribeTaskDefinition
@pytest.mark.parametrize(
    ("service", "td", "capacity"),
    [
        ({"launchType": "MANAGED_INSTANCES"}, {}, "MANAGED_INSTANCES"),
        ({"launchType": "EC2"}, {"requiresCompatibilities": ["FARGATE"]}, "EC2"),  # the service's, first
        ({"capacityProviderStrategy": [{"capacityProvider": "FARGATE"}, {"capacityProvider": "FARGATE_SPOT"}]},
         {}, "FARGATE"),
        # a provider of the cluster's own (its kind needs DescribeCapacityProviders): the task definition decides
        ({"capacityProviderStrategy": [{"capacityProvider": "managed"}]},
         {"requiresCompatibilities": ["MANAGED_INSTANCES"]}, "MANAGED_INSTANCES"),
        ({"capacityProviderStrategy": [{"capacityProvider": "managed"}]}, {}, None),
        ({}, {"requiresCompatibilities": ["EC2", "FARGATE"]}, None),
        ({"launchType": "SOMETHING_NEW"}, {}, None),
    ],
)  # fmt: skip
def test_ecs_capacity_of_a_service(service, td, capacity):
    assert collector.ecs_capacity(service, td) == capacity


def test_the_collected_ecs_worker_records_its_capacity(aws, tmp_path):
    seed(aws)
    run(aws, tmp_path)
    recs = records(tmp_path)
    assert inventory.validate_records(recs) == []
    # moto answers launchType EC2 for a service created without one (as ECS does without a strategy)
    assert {r["capacity"] for r in recs if r["kind"] == "worker" and r["platform"] == "ecs"} == {"EC2"}
    assert {r["capacity"] for r in recs if r["kind"] == "worker" and r["platform"] == "pipes"} == {None}


def _worker_row(capacity):
    service = f"arn:aws:ecs:{REGION}:{ACCOUNT}:service/work/jobs-worker"
    w = {"worker_arn": service, "platform": "ecs", "link": "env", "link_ref": "Q", "state": "ACTIVE",
         "stop_timeout": 30.0, "processing_p99": 600.0, "container": "app", "capacity": capacity}  # fmt: skip
    return {"account": ACCOUNT, "region": REGION, "arn": f"arn:aws:sqs:{REGION}:{ACCOUNT}:jobs", "name": "jobs",
            "vt": 3600.0, "has_redrive": True, "consumers": [w]}  # fmt: skip


def test_audit_vg062_says_host_replacement_on_managed_instances():
    findings, _ = build.lint_rows([_worker_row("MANAGED_INSTANCES")])
    (f,) = [f for f in findings if f["rule"] == "VG062"]
    assert "host replacement" in f["message"] and "14 days" in f["message"]
    assert "no maximum is documented for ECS Managed Instances" in f["fix"]
    findings, _ = build.lint_rows([_worker_row(None)])
    (f,) = [f for f in findings if f["rule"] == "VG062"]
    assert "host replacement" not in f["message"] and "at most 120 s on Fargate" in f["fix"]
