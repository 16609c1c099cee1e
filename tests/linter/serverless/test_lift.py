"""The Lift plugin's queue construct, modelled from getlift/lift docs/queue.md (and Queue.ts for what the docs
leave implicit): visibility 6 x worker timeout + maxBatchingWindow, DLQ with maxRetries (3), 14-day DLQ
retention, batchSize 1, partial batch responses on, extensions merged over the generated properties."""

from __future__ import annotations

import pytest
from visguard.errors import VisguardError

from .conftest import lint


def test_defaults_documented_by_lift(service):
    m = service("""
        service: my-app
        provider: {name: aws, stage: prod}
        constructs:
          jobs:
            type: queue
            worker:
              handler: src/worker.handler
        plugins: [serverless-lift]
    """)
    q, dlq = m.queues["constructs.jobs"], m.queues["constructs.jobs.dlq"]
    assert q.name == "my-app-prod-jobs" and dlq.name == "my-app-prod-jobs-dlq"
    assert q.visibility_timeout == 36  # 6 x the 6 s default worker timeout ("every 36 seconds")
    assert q.redrive.target == "constructs.jobs.dlq" and q.redrive.max_receive_count == 3
    assert dlq.message_retention == 14 * 86400 and not q.fifo
    (c,) = q.consumers
    assert c.id == "constructs.jobs.worker" and c.function_id == "jobsWorker"
    assert c.function_timeout == 6 and c.batch_size == 1 and c.report_batch_item_failures
    assert c.batching_window == 0
    # the only finding on Lift's defaults is AWS's own guidance on maxReceiveCount (5 or more)
    (f,) = lint(m)
    assert f.rule == "VG021" and f.fix == "Set constructs.jobs.maxRetries to 5 or more."
    assert f.location.path == "constructs.jobs" and f.location.line == 5


def test_worker_timeout_and_batching_window_drive_the_visibility(service):
    m = service("""
        service: s
        provider: {name: aws}
        constructs:
          jobs:
            type: queue
            maxRetries: 5
            batchSize: 20
            maxBatchingWindow: 10
            maxConcurrency: 50
            delay: 30
            worker: {handler: w.h, timeout: 60}
    """)
    q = m.queues["constructs.jobs"]
    assert q.visibility_timeout == 6 * 60 + 10 and q.delay == 30
    c = q.consumers[0]
    assert (c.batch_size, c.batching_window, c.max_concurrency) == (20, 10, 50)
    assert q.locations["visibility_timeout"].path == "constructs.jobs.worker.timeout"
    assert lint(m) == []


def test_provider_timeout_reaches_the_function_but_not_lifts_visibility(service):
    """getlift/lift#388: provider.timeout 450, the queue keeps 36 s and the deploy fails."""
    m = service("""
        service: api
        provider: {name: aws, timeout: 450}
        constructs:
          sendEmail:
            type: queue
            maxRetries: 5
            worker: {handler: src/sendEmail.handler}
    """)
    q = m.queues["constructs.sendEmail"]
    assert q.visibility_timeout == 36 and q.consumers[0].function_timeout == 450
    (f,) = [f for f in lint(m) if f.rule == "VG010"]
    assert "constructs.sendEmail.worker.timeout" in f.fix and "provider.timeout is not used" in f.fix
    assert f.consumer == "constructs.sendEmail.worker"


def test_worker_referencing_a_function(service):
    m = service("""
        service: s
        provider: {name: aws, timeout: 20}
        functions:
          my-worker: {handler: w.h, timeout: 10}
        constructs:
          q:
            type: queue
            maxRetries: 5
            worker: my-worker
    """)
    q = m.queues["constructs.q"]
    assert q.visibility_timeout == 60
    (c,) = q.consumers
    assert c.function_id == "my-worker" and c.function_timeout == 10
    assert lint(m) == []


def test_fifo(service):
    m = service("""
        service: s
        provider: {name: aws}
        constructs:
          orders: {type: queue, fifo: true, maxRetries: 5, worker: {handler: w.h}}
    """)
    q, dlq = m.queues["constructs.orders"], m.queues["constructs.orders.dlq"]
    assert q.fifo and dlq.fifo and q.name == "s-dev-orders.fifo" and dlq.name == "s-dev-orders-dlq.fifo"
    assert lint(m) == []


def test_extensions(service):
    m = service("""
        service: s
        provider: {name: aws}
        constructs:
          orders:
            type: queue
            maxRetries: 5
            worker: {handler: w.h, timeout: 30}
            extensions:
              queue:
                Properties:
                  VisibilityTimeout: 90
              dlq:
                Properties:
                  MessageRetentionPeriod: 3600
    """)
    q, dlq = m.queues["constructs.orders"], m.queues["constructs.orders.dlq"]
    assert q.visibility_timeout == 90 and dlq.message_retention == 3600
    rules = {f.rule: f for f in lint(m)}
    assert set(rules) == {"VG011", "VG022"}
    assert rules["VG011"].location.path == "constructs.orders.extensions.queue.Properties.VisibilityTimeout"
    assert "constructs.orders.extensions.dlq.Properties.MessageRetentionPeriod" in rules["VG022"].fix


def test_construct_variables_subscribe_other_functions(service):
    m = service("""
        service: s
        provider: {name: aws}
        constructs:
          jobs: {type: queue, maxRetries: 5, worker: {handler: w.h}}
        functions:
          audit:
            handler: a.h
            timeout: 20
            events:
              - sqs: {arn: "${construct:jobs.queueArn}", batchSize: 1}
    """)
    ids = sorted(c.id for c in m.queues["constructs.jobs"].consumers)
    assert ids == ["constructs.jobs.worker", "functions.audit.events[0]"]
    (f,) = lint(m)
    assert f.rule == "VG011" and f.consumer == "functions.audit.events[0]"


def test_other_construct_types_are_ignored(service):
    m = service("""
        service: s
        provider: {name: aws}
        constructs:
          avatars: {type: storage}
          hook: {type: webhook, path: /x, authorizer: {handler: a.h}}
    """)
    assert m.queues == {}


@pytest.mark.parametrize(
    "construct, message",
    [
        ("{type: queue}", "needs a worker"),
        ("{type: queue, worker: nope}", "'nope' is not a function of this service"),
        ("{type: queue, worker: [1]}", "must be a function definition or the name of a function"),
    ],
)
def test_bad_constructs(service, construct, message):
    with pytest.raises(VisguardError, match=message):
        service(f"service: s\nprovider: {{name: aws}}\nconstructs:\n  jobs: {construct}\n")
