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
