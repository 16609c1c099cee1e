"""A CDK app read from its TypeScript source (the cdk-source loader, ``linter/loaders/code/cdk_source.py``): one test
per mechanism of ``fixtures/cdk-source/`` (its README), each finding at the source line of the construct or the
property; what the file does not say is a note and no default; ``--fix`` refuses to write into the source; a file
without a CDK import is not claimed; hostile source is read in bounded time."""

from __future__ import annotations

import os
import time

import pytest
from visguard.linter.api import lint_paths
from visguard.linter.loaders import registry
from visguard.linter.loaders.code import cdk_source

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "cdk-source")


def lint(name: str):
    result = lint_paths([os.path.join(FIXTURES, name)])
    assert result.errors == []
    return result


def found(result, *, severities=("warning", "error")) -> set[tuple[str, str, int]]:
    return {
        (f.rule, os.path.basename(f.location.file), f.location.line)
        for f in result.findings
        if str(f.severity) in severities
    }


def notes(result) -> list[str]:
    return [f.message for f in result.findings if f.rule == "VG902"]


# ------------------------------------------------------------------------------------------------ mechanisms
def test_queue_and_dead_letter_queue_at_their_lines_and_unread_props_are_no_default():
    r = lint("queue-dlq")
    assert found(r) == {
        ("VG022", "orders-stack.ts", 22),  # the DLQ (declared after its source): its retentionPeriod
        ("VG021", "orders-stack.ts", 17),  # maxReceiveCount: 2 with a Lambda consumer
        ("VG020", "orders-stack.ts", 25),  # AuditQueue has no deadLetterQueue
        ("VG011", "orders-stack.ts", 26),  # Duration.seconds(120) < 6 x Duration.seconds(30)
    }
    # OrdersQueue: the constant ORDERS_VISIBILITY (Duration.minutes(5)) is 300 s >= 180 s: no VG011
    # TunedQueue: a spread and a visibilityTimeout from a parameter: notes, and neither VG011 nor VG020 on a guess
    said = notes(r)
    assert any("TunedQueue" in m and "spread" in m for m in said)
    assert any("TunedQueue" in m and "visibilityTimeout is not known statically" in m for m in said)


def test_function_event_sources_mappings_and_cdk_v0_in_bin():
    r = lint("function-event-source")
    assert found(r) == {
        ("VG011", "jobs-stack.ts", 11),  # 300 s < 6 x 60 s + 10 s window
        ("VG031", "jobs-stack.ts", 21),  # SqsEventSource batchSize 5 without reportBatchItemFailures
        ("VG020", "legacy.ts", 10),  # CDK v0 in bin/ (a CDK app's entry point is read there)
        ("VG011", "legacy.ts", 11),  # visibilityTimeoutSec: 120 < 6 x timeout: 30
    }
    queues = {k: q for m in r.models.values() for k, q in m.queues.items()}
    (reports,) = queues["ReportsQueue"].consumers  # lambda.EventSourceMapping, reportBatchItemFailures: true
    assert (reports.batch_size, reports.report_batch_item_failures, reports.function_timeout) == (
        10,
        True,
        None,
    )
    (jobs,) = queues["JobsQueue"].consumers  # addEventSource(source): a name bound to the SqsEventSource
    assert (jobs.batch_size, jobs.batching_window, jobs.function_timeout) == (5, 10, 60)
    assert queues["JobsQueue"].locations["visibility_timeout"].line == 11


def test_fargate_container_environment_joins_the_worker_code_to_the_queue():
    r = lint("fargate-env")
    got = found(r)
    assert (
        "VG020",
        "worker-stack.ts",
        10,
    ) in got  # consumed by the task definition (env + grantConsumeMessages)
    assert ("VG060", "main.ts", 12) in got  # the worker receives with 600 s; the queue declares 120 s
    vg060 = next(f for f in r.findings if f.rule == "VG060")
    assert (
        vg060.queue == "WorkQueue" and "worker-stack.ts:11" in vg060.message
    )  # the queue's visibilityTimeout
    assert (os.path.basename(vg060.joined_by.file), vg060.joined_by.line) == (
        "worker-stack.ts",
        21,
    )  # QUEUE_URL


def test_sst_queue_with_consumer_and_dead_letter_queue():
    r = lint("sst-queue")
    assert found(r) == {
        ("VG011", "Jobs.ts", 11),  # SST Queue: 30 s < 6 x the function's timeout: 20 (seconds)
        ("VG031", "Jobs.ts", 12),  # the consumer: an SqsEventSource with CDK's batch size 10
        ("VG022", "Jobs.ts", 9),  # the DLQ's default retention: at its declaration
        ("VG021", "Jobs.ts", 17),  # maxReceiveCount 1
    }


def test_sst_function_without_timeout_takes_sst_default_unless_the_app_changes_defaults(tmp_path):
    from visguard import facts

    stack = (
        'import { StackContext, Queue } from "sst/constructs";\n'
        "export function S({ stack }: StackContext) {\n"
        '  new Queue(stack, "q", { consumer: "src/f.handler" });\n'
        "}\n"
    )
    (tmp_path / "S.ts").write_text(stack)
    model = registry.load(str(tmp_path / "S.ts"))
    (fn_consumer,) = model.queues["q"].consumers
    assert fn_consumer.function_timeout == facts.SST_FUNCTION_TIMEOUT
    (tmp_path / "sst.config.ts").write_text(
        "export default { stacks(app) { app.setDefaultFunctionProps({}) } }\n"
    )
    model = registry.load(str(tmp_path / "S.ts"))
    (fn_consumer,) = model.queues["q"].consumers
    assert not isinstance(fn_consumer.function_timeout, int)  # not known here: no default assumed
    assert any("setDefaultFunctionProps" in n.message for n in model.notes)


def test_pipe_with_an_sqs_source():
    r = lint("pipe")
    assert ("VG020", "pipe-stack.ts", 9) in found(r)
    q = next(m for m in r.models.values() if "PipeSource" in m.queues).queues["PipeSource"]
    (pipe,) = q.consumers
    assert (pipe.platform, pipe.batch_size, pipe.batching_window) == ("pipes", 5, 30)


# ------------------------------------------------------------------------------------------------ Python CDK apps
def test_python_cdk_app_queue_without_dlq_lambda_batch_10_without_partial_failures():
    r = lint("python-lambda")
    assert found(r) == {
        ("VG020", "jobs_stack.py", 14),  # JobsQueue: no dead_letter_queue
        ("VG011", "jobs_stack.py", 17),  # visibility_timeout=Duration.seconds(120) < 6 x JOB_TIMEOUT (60 s)
        (
            "VG031",
            "jobs_stack.py",
            28,
        ),  # SqsEventSource(self.jobs, batch_size=10), no report_batch_item_failures
        ("VG021", "jobs_stack.py", 35),  # sqs.DeadLetterQueue(max_receive_count=3, ...)
        (
            "VG020",
            "jobs_stack.py",
            46,
        ),  # AuditQueue, consumed through events=[SqsEventSource(queue=audit, ...)]
    }
    queues = {k: q for m in r.models.values() for k, q in m.queues.items()}
    (jobs,) = queues["JobsQueue"].consumers  # worker.add_event_source(...) on self.jobs
    assert (jobs.batch_size, jobs.report_batch_item_failures, jobs.function_timeout) == (10, False, 60)
    (reports,) = queues[
        "ReportsQueue"
    ].consumers  # lambda_.EventSourceMapping(event_source_arn=reports.queue_arn)
    assert (reports.batch_size, reports.report_batch_item_failures) == (5, True)
    assert queues["ReportsQueue"].redrive.target == "ReportsDlq"
    raw = queues["RawQueue"]  # sqs.CfnQueue with snake_case props
    assert (raw.visibility_timeout, raw.message_retention) == (20, 60)
    # the fix speaks Python's CDK
    vg031 = next(f for f in r.findings if f.rule == "VG031")
    assert "report_batch_item_failures=True" in vg031.fix


@pytest.mark.parametrize(
    ("name", "stack", "lines"),
    [
        ("python-queue-processing", "workers_stack.py", {"made": 12, "given": 18, "service": 19}),
        ("queue-processing", "workers-stack.ts", {"made": 12, "given": 16, "service": 17}),
    ],
)
def test_queue_processing_service_makes_its_queue_with_cdk_defaults_or_uses_the_given_one(name, stack, lines):
    from visguard import facts

    r = lint(name)
    queues = {k: q for m in r.models.values() for k, q in m.queues.items()}
    made = queues["ThumbnailsEcsProcessingQueue"]
    dlq = queues["ThumbnailsEcsProcessingDeadLetterQueue"]
    assert made.redrive.target == "ThumbnailsEcsProcessingDeadLetterQueue"
    assert dlq.message_retention == facts.CDK_QUEUE_PROCESSING_DLQ_RETENTION
    if stack.endswith(".py"):  # visibility_timeout=cdk.Duration.minutes(5); max_receive_count: CDK's 3
        assert (made.visibility_timeout, made.redrive.max_receive_count) == (300, 3)
    else:  # no visibilityTimeout: SQS's (left unset); maxReceiveCount: 8
        assert made.visibility_timeout in (None, facts.CDK_QUEUE_PROCESSING_VISIBILITY_DEFAULT)
        assert made.redrive.max_receive_count == 8
    (worker,) = made.consumers  # the service's container receives: QUEUE_NAME and the grant
    assert worker.platform == "ecs"
    given = queues["Exports"]  # a given queue is used as is: no queue made for that service
    assert not any(k.startswith("Exporter") and k.endswith("Queue") for k in queues)
    assert [c.platform for c in given.consumers] == ["ecs"]
    assert found(r) == {("VG020", stack, lines["given"])}  # the given queue has no dead-letter queue
    assert ("VG065", stack, lines["made"]) in found(r, severities=("info",))
    vg020 = next(f for f in r.findings if f.rule == "VG020")
    expected = (
        "dead_letter_queue=sqs.DeadLetterQueue(" if stack.endswith(".py") else "deadLetterQueue: { queue"
    )
    assert expected in vg020.fix


@pytest.mark.parametrize(
    ("name", "expect", "queue", "role", "platform"),
    [
        ("role-grant", {("VG020", "jobs-stack.ts", 11)}, "Jobs", "WorkerRole", "ecs"),
        ("role-grant-python", {("VG020", "jobs_stack.py", 13)}, "IndexJobs", "IndexerRole", "kubernetes"),
    ],
)
def test_a_role_granted_consuming_is_the_consumer_of_a_workload_deployed_elsewhere(
    name, expect, queue, role, platform
):
    """``queue.grantConsumeMessages(role)`` of an ``iam.Role`` an ECS task or a pod assumes, used by nothing of
    the app: its workload (ecspresso, a Helm chart) consumes the queue; a role that only sends does not."""
    r = lint(name)
    assert found(r) == expect
    queues = {k: q for m in r.models.values() for k, q in m.queues.items()}
    consumer = next(c for q in queues.values() for c in q.consumers)
    assert (consumer.id, consumer.platform, consumer.link) == (role, platform, "iam")
    assert [q for q in queues if queues[q].consumers] == [queue]  # Events: ApiRole only sends to it
    (note,) = notes(r)
    assert f"assumes role {role}" in note


def test_a_role_that_is_a_task_definitions_task_role_makes_that_task_definition_the_consumer():
    r = lint("role-task")
    assert found(r) == {("VG020", "render-stack.ts", 12)}
    (c,) = [c for m in r.models.values() for q in m.queues.values() for c in q.consumers]
    assert (c.id, c.link, c.link_ref, c.stop_timeout) == ("RenderTask", "iam", "RenderRole", 60)
    assert notes(r) == []


def test_typescript_fix_hints_are_camel_case():
    r = lint("function-event-source")
    fixes = {f.rule: f.fix for f in r.findings if f.rule in ("VG011", "VG031")}
    assert (
        "visibilityTimeout: Duration.seconds(" in fixes["VG011"]
        and "visibility_timeout" not in fixes["VG011"]
    )
    assert "reportBatchItemFailures: true" in fixes["VG031"]


def test_python_syntax_names_imports_and_spreads(tmp_path):
    path = tmp_path / "stack.py"
    path.write_text(
        "import aws_cdk as cdk\n"
        "import aws_cdk.aws_lambda as lambda_\n"
        "from aws_cdk.aws_sqs import Queue\n"
        "OPTS = {'visibility_timeout': cdk.Duration.seconds(45)}\n"
        "def build(scope, extra):\n"
        "    a = Queue(scope, 'A', **OPTS)\n"
        "    b = cdk.aws_sqs.Queue(scope, 'B', retention_period=cdk.Duration.days(2), **extra)\n"
        "    fn = lambda_.Function(scope, 'F', timeout=cdk.Duration.seconds(5))\n"
        "    fn.add_event_source_mapping('M', event_source_arn=b.queue_arn, batch_size=3)\n"
        "    Queue(scope, 'C', visibility_timeout=cdk.Duration.seconds(extra))\n"
    )
    model = registry.load(str(path))
    assert model.queues["A"].visibility_timeout == 45  # a **dict of the file
    assert model.queues["B"].message_retention == 2 * 86400
    assert model.queues["B"].visibility_timeout != 30  # **extra may set it: not known, no default
    (m,) = model.queues["B"].consumers
    assert (m.batch_size, m.function_timeout) == (3, 5)
    assert any("**kwargs" in n.message for n in model.notes)
    # a note names the property as the Python file writes it
    assert any("C: visibility_timeout is not known statically" in n.message for n in model.notes)


# ------------------------------------------------------------------------------------------------ the fix
def test_fix_refuses_to_write_into_cdk_source(tmp_path):
    import shutil

    from visguard.linter.fix import CDK_SOURCE_REFUSED, plan

    shutil.copytree(os.path.join(FIXTURES, "sst-queue"), tmp_path / "app")
    before = (tmp_path / "app" / "stacks" / "Jobs.ts").read_text()
    result = lint_paths([str(tmp_path / "app")])
    fixes = plan(result)
    assert fixes and all(not ff.changed for ff in fixes)
    skipped = [(f.rule, why) for ff in fixes for f, why in ff.skipped]
    assert {rule for rule, _ in skipped} >= {"VG011", "VG022", "VG021", "VG031"}
    assert all(why == CDK_SOURCE_REFUSED for _, why in skipped)
    assert (tmp_path / "app" / "stacks" / "Jobs.ts").read_text() == before


# ------------------------------------------------------------------------------------------------ the claim
def test_claimed_only_with_a_cdk_import_and_a_js_beside_its_ts_is_not_read_twice(tmp_path):
    cdk = b"import * as sqs from 'aws-cdk-lib/aws-sqs';\n"
    assert cdk_source.claim_file(str(tmp_path / "a.ts"), cdk)
    assert registry._cdk_file(str(tmp_path / "a.ts"), cdk)  # the registry's cheap claim says yes too
    assert not cdk_source.claim_file(
        str(tmp_path / "b.ts"), b"import { SQSClient } from '@aws-sdk/client-sqs';\n"
    )
    assert not cdk_source.claim_file(str(tmp_path / "c.d.ts"), cdk)
    (tmp_path / "d.ts").write_bytes(cdk)
    assert not cdk_source.claim_file(str(tmp_path / "d.js"), cdk)


def test_a_cdk_stack_file_is_also_read_as_application_code(tmp_path):
    path = tmp_path / "stack.ts"
    path.write_text(
        "import * as sqs from 'aws-cdk-lib/aws-sqs';\n"
        "import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';\n"
        "new ReceiveMessageCommand({ QueueUrl: process.env.Q, VisibilityTimeout: 5 });\n"
    )
    assert [s.name for s in registry.claims(str(path), explicit=False)] == ["cdk-source", "code"]


# ------------------------------------------------------------------------------------------------ bad input
HOSTILE = {
    "deep.ts": "import * as sqs from 'aws-cdk-lib/aws-sqs';\nnew sqs.Queue(this, 'Q', "
    + "{ a: " * 20_000
    + "1"
    + " }" * 20_000
    + ");\n",
    "wide.ts": "import * as sqs from 'aws-cdk-lib/aws-sqs';\nnew sqs.Queue(this, 'Q', {"
    + ", ".join(f"k{i}: {i}" for i in range(100_000))
    + "});\n",
    "many.ts": "import * as sqs from 'aws-cdk-lib/aws-sqs';\n"
    + "".join(
        f"new sqs.Queue(this, 'Q{i}', {{ deadLetterQueue: {{ queue: x{i}, maxReceiveCount: 1 }} }});\n"
        for i in range(3_000)
    ),
    "chain.ts": "import { Duration } from 'aws-cdk-lib';\nimport * as sqs from 'aws-cdk-lib/aws-sqs';\nconst v0 = Duration.seconds(1);\n"
    + "".join(f"const v{i + 1} = v{i};\n" for i in range(5_000))
    + "new sqs.Queue(this, 'Q', { visibilityTimeout: v5000 });\n",
    "unclosed.ts": "import * as sqs from 'aws-cdk-lib/aws-sqs';\nnew sqs.Queue(this, 'Q', "
    + "(" * 50_000
    + "\n",
}


HOSTILE_PY = {
    "deep.py": "from aws_cdk import aws_sqs as sqs\nsqs.Queue(self, 'Q', dead_letter_queue="
    + "sqs.DeadLetterQueue(queue=" * 5_000
    + "x"
    + ")" * 5_000
    + ")\n",
    "wide.py": "from aws_cdk import aws_sqs as sqs\nsqs.Queue(self, 'Q', "
    + ", ".join(f"k{i}={i}" for i in range(100_000))
    + ")\n",
    "many.py": "from aws_cdk import aws_sqs as sqs\n"
    + "".join(
        f"sqs.Queue(self, 'Q{i}', dead_letter_queue=sqs.DeadLetterQueue(queue=x{i}, max_receive_count=1))\n"
        for i in range(3_000)
    ),
    "chain.py": "from aws_cdk import Duration, aws_sqs as sqs\nv0 = Duration.seconds(1)\n"
    + "".join(f"v{i + 1} = v{i}\n" for i in range(5_000))
    + "sqs.Queue(self, 'Q', visibility_timeout=v5000)\n",
    "splat.py": "from aws_cdk import aws_sqs as sqs\nd0 = {'fifo': True}\n"
    + "".join(f"d{i + 1} = {{**d{i}}}\n" for i in range(3_000))
    + "sqs.Queue(self, 'Q', **d3000)\n",
    "unclosed.py": "from aws_cdk import aws_sqs as sqs\nsqs.Queue(self, 'Q', " + "(" * 50_000 + "\n",
}
HOSTILE.update(HOSTILE_PY)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_cdk_source_is_read_in_bounded_time(tmp_path, name):
    (tmp_path / name).write_text(HOSTILE[name])
    start = time.process_time()
    model = registry.load(str(tmp_path / name))
    assert time.process_time() - start < 20
    assert len(model.queues) <= cdk_source.MAX_CONSTRUCTS
    for q in model.queues.values():
        assert q.location.file == str(tmp_path / name) and q.location.line >= 1


def test_a_repository_without_cdk_does_not_import_the_reader(tmp_path):
    import subprocess
    import sys

    (tmp_path / "worker.ts").write_text(
        'import { ReceiveMessageCommand } from "@aws-sdk/client-sqs";\n'
        "new ReceiveMessageCommand({ QueueUrl: process.env.Q, VisibilityTimeout: 5 });\n"
    )
    code = (
        "import sys; from visguard.linter.api import lint_paths; lint_paths([sys.argv[1]]); "
        "print('visguard.linter.loaders.code.cdk_source' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-P", "-c", code, str(tmp_path)], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


def test_a_python_repository_without_cdk_does_not_import_the_python_cdk_reader(tmp_path):
    import subprocess
    import sys

    (tmp_path / "worker.py").write_text(
        "import boto3\nboto3.client('sqs').receive_message(QueueUrl='u', VisibilityTimeout=5)\n"
    )
    (tmp_path / "app.ts").write_text(
        "import * as sqs from 'aws-cdk-lib/aws-sqs';\nnew sqs.Queue(this, 'Q');\n"
    )
    code = (
        "import sys; from visguard.linter.api import lint_paths; lint_paths([sys.argv[1]]); "
        "print('visguard.linter.loaders.code.cdk_python' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-P", "-c", code, str(tmp_path)], capture_output=True, text=True, check=True
    )
    assert (
        out.stdout.strip() == "False"
    )  # a TypeScript CDK app and a Python worker: the Python CDK syntax unused
    assert not cdk_source.claim_file(str(tmp_path / "worker.py"), (tmp_path / "worker.py").read_bytes())
    assert cdk_source.claim_file(str(tmp_path / "s.py"), b"from aws_cdk import aws_sqs as sqs\n")
