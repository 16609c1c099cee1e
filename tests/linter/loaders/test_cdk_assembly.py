"""A cdk.out cloud assembly (synthesized once by fixtures/loaders/make_cdk_sample.py, committed as data)."""

import json
import shutil

import pytest
from visguard.errors import VisguardError
from visguard.linter.loaders import load_path


def test_every_stack_nested_stack_and_stage(fixture_path):
    m = load_path(fixture_path("cdk.out.sample"))
    by_cp = {q.location.construct_path: q for q in m.queues.values()}
    assert set(by_cp) == {
        "OrdersStack/Orders/Resource",
        "OrdersStack/OrdersDlq/Resource",
        "OrdersStack/AuditLog/Resource",
        "OrdersStack/Inner/Retries/Resource",  # nested stack
        "Billing/BillingStack/Invoices/Resource",  # stage = nested assembly
        "Messaging/Events/Resource",
        "Messaging/EventsDlq/Resource",
    }
    orders = by_cp["OrdersStack/Orders/Resource"]
    assert orders.id.startswith("OrdersStack/Orders") and orders.source == "cdk"
    assert orders.visibility_timeout == 60
    assert orders.redrive.target == by_cp["OrdersStack/OrdersDlq/Resource"].id
    assert m.dlq_of(orders) is by_cp["OrdersStack/OrdersDlq/Resource"]
    (c,) = orders.consumers
    assert (c.kind, c.function_timeout, c.batch_size, c.batching_window) == ("lambda", 30, 10, 5)
    assert c.location.construct_path.startswith("OrdersStack/Processor/SqsEventSource")
    assert orders.location.file.endswith("OrdersStack.template.json") and orders.location.line > 1
    assert orders.location_of("visibility_timeout").construct_path == "OrdersStack/Orders/Resource"
    (s,) = by_cp["OrdersStack/AuditLog/Resource"].suppressions
    assert s.rule == "VG020" and s.reason
    assert by_cp["OrdersStack/Inner/Retries/Resource"].visibility_timeout == 900
    assert by_cp["Billing/BillingStack/Invoices/Resource"].fifo is True


def test_construct_paths_from_the_manifest_when_path_metadata_is_off(fixture_path, tmp_path):
    out = tmp_path / "cdk.out"
    shutil.copytree(fixture_path("cdk.out.sample"), out)
    tpl = out / "OrdersStack.template.json"
    doc = json.loads(tpl.read_text())
    for res in doc["Resources"].values():
        res.get("Metadata", {}).pop("aws:cdk:path", None)
    tpl.write_text(json.dumps(doc, indent=1))
    # manifest.json alone also works as the path
    m = load_path(str(out / "manifest.json"))
    cps = {q.location.construct_path for q in m.queues.values()}
    assert "OrdersStack/Orders/Resource" in cps


def test_bad_assemblies(tmp_path, fixture_path):
    with pytest.raises(VisguardError, match="no manifest.json"):
        load_path(str(tmp_path))
    (tmp_path / "manifest.json").write_text('{"artifacts": 5}')
    with pytest.raises(VisguardError, match="no artifacts mapping"):
        load_path(str(tmp_path))
    (tmp_path / "manifest.json").write_text(
        '{"artifacts": {"S": {"type": "aws:cloudformation:stack", "properties": {}}}}'
    )
    with pytest.raises(VisguardError, match="templateFile"):
        load_path(str(tmp_path))
    (tmp_path / "manifest.json").write_text(
        '{"artifacts": {"S": {"type": "aws:cloudformation:stack", "properties": {"templateFile": "S.template.json"}}}}'
    )
    with pytest.raises(VisguardError, match="no such file") as err:
        load_path(str(tmp_path))
    assert err.value.file.endswith("S.template.json")
    (tmp_path / "S.template.json").write_text(
        '{"Resources": {"Q": {"Type": "AWS::SQS::Queue",\n "Properties": []}}}'
    )
    with pytest.raises(VisguardError, match="Properties: must be a mapping") as err:
        load_path(str(tmp_path))
    assert err.value.place == "2"


def test_cross_stack_import_links_the_consumer_to_the_exporting_stacks_queue(fixture_path):
    m = load_path(fixture_path("cdk.out.sample"))
    events = next(q for q in m.queues.values() if q.location.construct_path == "Messaging/Events/Resource")
    assert events.id.startswith("Messaging/") and events.location.file.endswith("Messaging.template.json")
    (c,) = events.consumers  # declared in the Compute stack, through Fn::ImportValue of the queue ARN
    assert (c.kind, c.function_timeout, c.batch_size, c.report_batch_item_failures) == (
        "lambda",
        120,
        5,
        True,
    )
    assert c.location.file.endswith("Compute.template.json")
    assert c.location.construct_path.startswith("Compute/EventsHandler/SqsEventSource")
    assert m.dlq_of(events).location.construct_path == "Messaging/EventsDlq/Resource"


def test_cross_stack_import_order_does_not_matter(tmp_path):
    """The importing stack listed first in the manifest still links to the exporter's queue."""
    exporter = {
        "Resources": {"Q": {"Type": "AWS::SQS::Queue", "Properties": {"VisibilityTimeout": 10}}},
        "Outputs": {"QArn": {"Value": {"Fn::GetAtt": ["Q", "Arn"]}, "Export": {"Name": "A:QArn"}}},
    }
    importer = {
        "Resources": {
            "Fn": {"Type": "AWS::Lambda::Function", "Properties": {"Timeout": 60}},
            "Dlq": {"Type": "AWS::SQS::Queue"},
            "Src": {
                "Type": "AWS::SQS::Queue",
                "Properties": {
                    "RedrivePolicy": {
                        "deadLetterTargetArn": {"Fn::ImportValue": "A:QArn"},
                        "maxReceiveCount": 5,
                    }
                },
            },
            "M": {
                "Type": "AWS::Lambda::EventSourceMapping",
                "Properties": {
                    "EventSourceArn": {"Fn::ImportValue": "A:QArn"},
                    "FunctionName": {"Ref": "Fn"},
                },
            },
        }
    }
    (tmp_path / "A.template.json").write_text(json.dumps(exporter))
    (tmp_path / "B.template.json").write_text(json.dumps(importer))
    manifest = {
        "artifacts": {
            name: {
                "type": "aws:cloudformation:stack",
                "properties": {"templateFile": f"{name}.template.json"},
            }
            for name in ("B", "A")
        }
    }
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    m = load_path(str(tmp_path))
    (c,) = m.queues["A/Q"].consumers
    assert (c.id, c.function_id, c.function_timeout) == ("M", "Fn", 60)
    assert m.queues["B/Src"].redrive.target == "A/Q"
    assert m.is_dlq(m.queues["A/Q"])
