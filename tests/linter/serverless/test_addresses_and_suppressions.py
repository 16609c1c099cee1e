"""Findings name serverless addresses and serverless.yml places; suppressions by comment, by resource
Metadata and by visguard.yaml (queue ids); the loader joins the registry by name and content."""

from __future__ import annotations

import pytest
from visguard.linter.loaders import registry, serverless, serverless_translate
from visguard.linter.model import LintConfig, Suppression

from .conftest import lint, options

SERVICE = """\
service: orders
provider:
  name: aws
  timeout: 30
functions:
  ingest-orders:   # visguard:ignore VG031 each record is idempotent, whole-batch retries are fine
    handler: h.main
    events:
      - sqs:
          arn: !GetAtt OrdersQueue.Arn
  # visguard:ignore VG011 bursts are rare; throttling retries accepted
  report_worker:
    handler: h.report
    events:
      - sqs:
          arn: !GetAtt OrdersQueue.Arn
          batchSize: 1
resources:
  Resources:
    OrdersQueue:
      Type: AWS::SQS::Queue
      Properties:
        VisibilityTimeout: 100
        RedrivePolicy: {deadLetterTargetArn: !GetAtt OrdersDLQ.Arn, maxReceiveCount: 5}
    OrdersDLQ:
      Type: AWS::SQS::Queue
      Properties: {MessageRetentionPeriod: 1209600}
"""


def test_ids_follow_the_serverless_framework_naming():
    assert serverless_translate.function_logical_id("ingest-orders") == "IngestDashordersLambdaFunction"
    assert serverless_translate.function_logical_id("report_worker") == "ReportUnderscoreworkerLambdaFunction"
    assert (
        serverless_translate.mapping_logical_id("ingest-orders", "orders-queue.fifo")
        == "IngestDashordersEventSourceMappingSQSOrdersqueuefifo"
    )


def test_findings_name_functions_events_and_lines(service):
    m = service(SERVICE)
    q = m.queues["OrdersQueue"]
    assert [c.id for c in q.consumers] == [
        "functions.ingest-orders.events[0]",
        "functions.report_worker.events[0]",
    ]
    c = q.consumers[0]
    assert c.function_id == "ingest-orders" and c.batch_size == 10  # Serverless's default batchSize
    assert c.location_of("function_timeout").path == "provider.timeout"
    assert c.location_of("function_timeout").line == 4
    findings = lint(m)
    # VG031 on ingest-orders and VG011 on report_worker are suppressed by the comments
    got = sorted((f.rule, f.consumer) for f in findings)
    assert got == [("VG011", "functions.ingest-orders.events[0]")]
    (f,) = findings
    assert (f.location.line, f.location.column) == (23, 9)
    assert f.location.path == "resources.Resources.OrdersQueue.Properties.VisibilityTimeout"
    assert (
        f.fix == "Set resources.Resources.OrdersQueue.Properties.VisibilityTimeout to at least 180 s (3 min)."
    )


def test_comment_suppressions_need_a_reason(service):
    m = service(SERVICE.replace("VG031 each record is idempotent, whole-batch retries are fine", "VG031"))
    rules = sorted(f.rule for f in lint(m))
    assert rules == ["VG011", "VG031", "VG900"]


def test_comment_on_a_resource_and_on_an_event(service):
    text = SERVICE.replace(
        "    OrdersQueue:\n", "    OrdersQueue:  # visguard:ignore * legacy queue, replaced in Q3\n"
    )
    assert lint(service(text)) == []
    text = SERVICE.replace("      - sqs:\n          arn: !GetAtt OrdersQueue.Arn\n  #",
                           "      - sqs:  # visguard:ignore VG011,VG031 drained by hand\n"
                           "          arn: !GetAtt OrdersQueue.Arn\n  #", 1)  # fmt: skip
    assert lint(service(text)) == []


def test_metadata_suppression_on_a_resource(service):
    text = SERVICE.replace(
        "      Type: AWS::SQS::Queue\n      Properties:\n        VisibilityTimeout: 100",
        "      Type: AWS::SQS::Queue\n      Metadata:\n        visguard:\n          suppress:\n"
        "            - {rule: VG011, reason: checked with the team}\n"
        "      Properties:\n        VisibilityTimeout: 100",
    )
    assert lint(service(text)) == []


def test_visguard_yaml_suppression_by_queue_id(service):
    m = service(SERVICE)
    config = LintConfig(suppressions=[Suppression("VG011", "known")], suppression_queues={0: "Orders*"})
    assert lint(m, config) == []


def test_lift_addresses_in_suppressions(service):
    m = service("""
        service: s
        provider: {name: aws}
        constructs:
          jobs:  # visguard:ignore VG021 three retries are enough for this worker
            type: queue
            worker: {handler: w.h}
    """)
    assert lint(m) == []
    config = LintConfig(suppressions=[Suppression("VG021", "ok")], suppression_queues={0: "constructs.*"})
    m = service(
        "service: s\nprovider: {name: aws}\nconstructs:\n  jobs: {type: queue, worker: {handler: w.h}}\n"
    )
    assert lint(m, config) == []


@pytest.mark.parametrize(
    "name, head, claimed",
    [
        ("serverless.yml", b"service: orders\nprovider:\n  name: aws\n", True),
        ("serverless.yaml", b"# c\nservice: orders\n\nprovider: {name: aws}\n", True),
        ("serverless.json", b'{"service": "s", "provider": {"name": "aws"}}', True),
        ("serverless.yml", b"service: orders\n", False),  # no provider: not a service
        ("template.yaml", b"service: orders\nprovider: {}\n", False),
        ("serverless.yml", b"Resources: {}\n", False),
    ],
)
def test_claims(name, head, claimed):
    assert serverless.claim_file(f"some/dir/{name}", head) is claimed
    assert serverless.claim_dir("some/dir") is False


def test_registered_with_the_loader_registry():
    spec = registry.get("serverless")
    assert spec.load is serverless.load and spec.claim_file is serverless.claim_file


def test_included_fragments_are_claimed_and_linted_with_their_service(tmp_path):
    (tmp_path / "resources").mkdir()
    (tmp_path / "config").mkdir()
    (tmp_path / "other").mkdir()
    (tmp_path / "serverless.yml").write_text(
        "service: s\nprovider: {name: aws}\ncustom: ${file(./config/${sls:stage}.yml)}\n"
        "resources:\n  - ${file(resources/queues.yml)}\n"
    )
    frag = tmp_path / "resources" / "queues.yml"
    frag.write_text(
        "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties:\n      VisibilityTimeout: ${self:custom.vt}\n"
    )
    (tmp_path / "config" / "dev.yml").write_text("vt: 30\n")
    (tmp_path / "other" / "template.yaml").write_text("Resources: {}\n")
    # the service above the fragment's folder is read only once it was claimed (it is inside what was asked)
    serverless._seen_services.discard(str((tmp_path / "serverless.yml").resolve()))
    assert not serverless.claim_file(str(frag), frag.read_bytes())
    svc = tmp_path / "serverless.yml"
    assert serverless.claim_file(str(svc), svc.read_bytes())
    assert serverless.claim_file(str(frag), frag.read_bytes())
    assert serverless.claim_file(str(tmp_path / "config" / "dev.yml"), b"vt: 30\n")
    assert not serverless.claim_file(str(tmp_path / "other" / "template.yaml"), b"Resources: {}\n")
    assert serverless.load(str(frag), options()).queues == {}
    assert serverless.load(str(tmp_path), options()).queues["Q"].visibility_timeout == 30


def test_fixes_name_serverless_addresses(service):
    from visguard.linter.api import lint_model

    m = service(SERVICE)
    found = lint_model(m)
    assert found
    for f in found:
        assert "Properties.VisibilityTimeout" in f.fix or "functionResponseType" in f.fix


def test_visguard_yaml_profiles_match_serverless_ids(service, tmp_path):
    """A consumer profile in visguard.yaml, matched by a Lift construct's id, brings the engine's figures."""
    from visguard.linter.loaders import apply_profiles, load_config

    cfg = tmp_path / "visguard.yaml"
    cfg.write_text("version: 1\nprofiles:\n  - {match: 'constructs.*', kind: lambda, p50: 10, p99: 60}\n")
    m = service("""
        service: s
        provider: {name: aws}
        constructs:
          jobs: {type: queue, maxRetries: 5, worker: {handler: w.h, timeout: 10}}
    """)
    config = load_config(str(cfg))
    apply_profiles(m, config)
    (f,) = [f for f in lint(m, config) if f.rule in ("VG012", "VG034")]
    assert f.queue == "constructs.jobs" and f.consumer == "constructs.jobs.worker"
