"""CloudFormation templates into the model: parameters, conditions, coercion, redrive, consumers, locations."""

import pytest
from visguard.errors import VisguardError
from visguard.linter.loaders import load_path, load_template


def test_plain_json_template(fixture_path):
    m = load_path(fixture_path("plain.json"))
    q = m.queues["Orders"]
    assert q.visibility_timeout == 30  # "30" coerced
    assert q.fifo is True  # "true" coerced
    assert q.name == "orders.fifo"
    assert q.tags == {"team": "payments"}
    assert q.redrive.target == "OrdersDlq" and q.redrive.max_receive_count == 5
    assert m.queues["OrdersDlq"].name == "orders-dlq.fifo"  # Fn::Join
    assert q.location.line == 4 and q.location.path == "Resources/Orders"
    assert q.location_of("visibility_timeout").line == 7
    assert q.location_of("visibility_timeout").path == "Resources/Orders/Properties/VisibilityTimeout"
    assert q.location_of("redrive.max_receive_count").line == 13
    assert q.source == "cloudformation"


def test_parameters_defaults_conditions_and_mappings(fixture_path):
    m = load_path(fixture_path("params_conditions.yaml"))
    assert set(m.queues) == {"Work", "DevScratch", "Unknown"}
    w = m.queues["Work"]
    assert (w.name, w.visibility_timeout, w.message_retention, w.delay) == ("dev-work", 600, 345600, 5)
    # a parameter without default stays unknown: kept as text, never a guessed default
    assert m.queues["Unknown"].visibility_timeout == "${Region}"


def test_parameter_overrides_and_unknown_conditions_keep_resources(fixture_path):
    m = load_path(fixture_path("params_conditions.yaml"), parameters={"Env": "prod", "QueueTimeout": "45"})
    # ProdAudit: IsProd true; DevScratch dropped; RegionalQueue depends on AWS::Region: unknown -> kept
    assert set(m.queues) == {"Work", "ProdAudit", "RegionalQueue", "Unknown"}
    assert m.queues["Work"].visibility_timeout == 45
    assert m.queues["Work"].message_retention == 1209600
    m = load_path(
        fixture_path("params_conditions.yaml"), parameters={"Env": "prod", "AWS::Region": "eu-west-1"}
    )
    assert "RegionalQueue" not in m.queues


def test_redrive_variants(fixture_path):
    q = load_path(fixture_path("redrive_variants.yaml")).queues
    assert (q["ByGetAtt"].redrive.target, q["ByGetAtt"].redrive.max_receive_count) == ("Dlq", 5)
    assert (q["ByJsonString"].redrive.target, q["ByJsonString"].redrive.max_receive_count) == ("Dlq", 4)
    assert (q["BySubJson"].redrive.target, q["BySubJson"].redrive.max_receive_count) == ("Dlq", 7)
    assert q["BySubArn"].redrive.target == "Dlq"
    assert q["ByRef"].redrive.target is None and "queue URL" in q["ByRef"].redrive.target_ref
    assert q["External"].redrive.target is None
    assert q["External"].redrive.target_ref == "arn:aws:sqs:eu-west-1:999999999999:elsewhere-dlq"
    assert (
        q["Imported"].redrive.target is None
        and "ImportValue platform-dlq-arn" in q["Imported"].redrive.target_ref
    )
    assert "not an SQS queue" in q["ToTopic"].redrive.target_ref
    allow = q["Allow"].redrive
    assert (allow.target, allow.target_ref, allow.max_receive_count) == (None, None, 0)
    assert q["ByGetAtt"].redrive.location.path == "Resources/ByGetAtt/Properties/RedrivePolicy"
    assert q["ByGetAtt"].location_of("redrive.target").line == 15
    assert q["Dlq"].redrive_allow == {
        "redrivePermission": "byQueue",
        "sourceQueueArns": ["ByGetAtt", "arn:aws:sqs:us-east-1:123456789012:other"],
    }
    assert q["Allow"].redrive_allow == {"redrivePermission": "denyAll", "sourceQueueArns": []}
    assert q["Dlq"].location_of("redrive_allow").line == 7
    assert q["ByGetAtt"].redrive_allow is None


def test_consumers_resolve_functions_every_way(fixture_path):
    jobs = load_path(fixture_path("consumers.yaml")).queues["Jobs"]
    by = {c.id: c for c in jobs.consumers}
    # the Kinesis mapping and the mapping on a queue of another account are not consumers of Jobs
    assert set(by) == {
        "ByRef",
        "ByGetAtt",
        "ByAlias",
        "ByVersion",
        "BySubAlias",
        "ByArnName",
        "ByExternalArn",
        "ByImport",
    }
    for cid in ("ByRef", "ByAlias", "ByVersion", "BySubAlias", "ByArnName"):
        assert (by[cid].kind, by[cid].function_id, by[cid].function_timeout) == ("lambda", "Worker", 60), cid
        assert by[cid].reserved_concurrency == 20
    r = by["ByRef"]
    assert (r.batch_size, r.batching_window, r.report_batch_item_failures, r.max_concurrency) == (
        20,
        5,
        True,
        10,
    )
    assert r.location_of("batch_size").path == "Resources/ByRef/Properties/BatchSize"
    assert r.location_of("function_timeout").path == "Resources/Worker/Properties/Timeout"
    d = by["ByGetAtt"]
    assert (d.function_id, d.function_timeout, d.effective_function_timeout, d.enabled) == (
        "Defaulted",
        None,
        3.0,
        False,
    )
    assert by["ByImport"].kind == "unknown" and "Fn::ImportValue shared-worker-arn" in by["ByImport"].note
    assert by["ByExternalArn"].kind == "unknown" and "someone-elses" in by["ByExternalArn"].note


def test_suppressions_on_queue_and_consumer_resources(fixture_path, write):
    jobs = load_path(fixture_path("consumers.yaml")).queues["Jobs"]
    sup = {(s.rule, s.consumer) for s in jobs.suppressions}
    # function Metadata applies to every mapping of that function; mapping Metadata to that mapping
    assert ("VG011", "ByRef") in sup and ("VG011", "ByAlias") in sup and ("VG031", "ByAlias") in sup
    assert ("VG011", "ByImport") not in sup
    no_reason = next(s for s in jobs.suppressions if s.rule == "VG031")
    assert no_reason.reason is None  # reported by the rules (VG900), not a loader error
    assert no_reason.location.path == "Resources/ByAlias/Metadata/visguard/suppress/0"
    path = write(
        "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Metadata:\n      visguard:\n        suppress: [VG020]\n"
    )
    (s,) = load_path(path).queues["Q"].suppressions
    assert (s.rule, s.reason, s.consumer, s.location.line) == ("VG020", None, None, 6)


def test_intrinsics_select_split_and_novalue(write):
    path = write(
        """
Parameters:
  Timeouts: {Type: CommaDelimitedList, Default: "10,20,30"}
Resources:
  Q:
    Type: AWS::SQS::Queue
    Properties:
      VisibilityTimeout: !Select [2, !Ref Timeouts]
      DelaySeconds: !Select [1, !Split [",", "5,6"]]
      MessageRetentionPeriod: !Ref AWS::NoValue
      QueueName: !Join ["-", [!Ref AWS::StackName, q]]
"""
    )
    q = load_path(path).queues["Q"]
    assert (q.visibility_timeout, q.delay, q.message_retention, q.name) == (30, 6, None, None)


@pytest.mark.parametrize(
    ("props", "path_part", "words"),
    [
        ("VisibilityTimeout: [1, 2]", "VisibilityTimeout", "expected a number, got a list"),
        ("VisibilityTimeout: soon", "VisibilityTimeout", "expected a number, got 'soon'"),
        ("VisibilityTimeout: true", "VisibilityTimeout", "expected a number, got true"),
        ("VisibilityTimeout: .nan", "VisibilityTimeout", "expected a number"),
        ("FifoQueue: maybe", "FifoQueue", "expected true or false"),
        ("RedrivePolicy: '{not json'", "RedrivePolicy", "not valid JSON"),
        ("RedrivePolicy: [1]", "RedrivePolicy", "must be a mapping or a JSON string"),
        ("RedriveAllowPolicy: {sourceQueueArns: 5}", "sourceQueueArns", "must be a list of queue ARNs"),
        ("RedriveAllowPolicy: '{bad'", "RedriveAllowPolicy", "not valid JSON"),
        (
            "RedrivePolicy: {deadLetterTargetArn: [a], maxReceiveCount: 3}",
            "deadLetterTargetArn",
            "must be a queue ARN",
        ),
        ("RedrivePolicy: {maxReceiveCount: five}", "maxReceiveCount", "expected a number"),
        ("QueueName: {a: b}", "QueueName", "expected a string"),
        ("VisibilityTimeout: !GetAtt 5", "Fn::GetAtt", "Fn::GetAtt takes"),
        ("VisibilityTimeout: !If [Nope, 1, 2]", "Fn::If", "unknown condition 'Nope'"),
        ("VisibilityTimeout: !FindInMap [M, a, b]", "Fn::FindInMap", "no entry"),
        ("VisibilityTimeout: !Select [5, [1]]", "Fn::Select", "outside the list"),
    ],
)
def test_wrong_property_types_are_bad_input_with_place(write, props, path_part, words):
    path = write(f"Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties:\n      {props}\n")
    with pytest.raises(VisguardError) as err:
        load_path(path)
    msg = str(err.value)
    assert words in msg and path_part in msg and err.value.file == path
    assert err.value.place == "5"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("AWSTemplateFormatVersion: '2010-09-09'\n", "no Resources section"),
        ("Resources: [a]\n", "Resources: must be a mapping"),
        ("Resources:\n  Q: 5\n", "a resource must be a mapping"),
        ("Resources:\n  Q: {Properties: {}}\n", "needs a Type"),
        ("Resources:\n  Q: {Type: AWS::SQS::Queue, Properties: [1]}\n", "Properties: must be a mapping"),
        ("Resources:\n  Q: {Type: AWS::SQS::Queue, Metadata: {visguard: [1]}}\n", "with a suppress list"),
        (
            "Resources:\n  Q: {Type: AWS::SQS::Queue, Metadata: {visguard: {suppress: [{reason: x}]}}}\n",
            "needs a rule id",
        ),
        ("Parameters: 5\nResources: {}\n", "Parameters must be a mapping"),
    ],
)
def test_not_a_template(write, text, words):
    with pytest.raises(VisguardError, match=words):
        load_path(write(text))


def test_cyclic_conditions(write):
    path = write(
        "Conditions:\n  A: !Condition B\n  B: !Not [!Condition A]\nResources:\n  Q:\n    Type: AWS::SQS::Queue\n    Condition: A\n"
    )
    with pytest.raises(VisguardError, match="cyclic condition reference: A -> B -> A") as err:
        load_path(path)
    assert err.value.place == "2"


def test_cyclic_resources(write):
    path = write(
        """Resources:
  A:
    Type: AWS::SQS::Queue
    Properties:
      RedrivePolicy: {deadLetterTargetArn: !GetAtt B.Arn, maxReceiveCount: 3}
  B:
    Type: AWS::SQS::Queue
    Properties:
      QueueName: !Sub "${A.QueueName}-dlq"
      RedrivePolicy: {deadLetterTargetArn: !GetAtt A.Arn, maxReceiveCount: 3}
"""
    )
    with pytest.raises(VisguardError, match="circular dependency between resources: A -> B -> A"):
        load_path(path)
    # DependsOn counts too, and a self-reference is a cycle
    path = write("Resources:\n  A:\n    Type: AWS::SQS::Queue\n    DependsOn: A\n")
    with pytest.raises(VisguardError, match="A -> A"):
        load_path(path)


def test_alias_cycle(write):
    path = write(
        """Resources:
  Q: {Type: AWS::SQS::Queue}
  A1: {Type: AWS::Lambda::Alias, Properties: {FunctionName: !Ref A2}}
  A2: {Type: AWS::Lambda::Alias, Properties: {FunctionName: !Ref A1}}
  M: {Type: AWS::Lambda::EventSourceMapping, Properties: {EventSourceArn: !GetAtt Q.Arn, FunctionName: !Ref A1}}
"""
    )
    with pytest.raises(VisguardError, match="A1 -> A2"):
        load_path(path)


def test_load_template_takes_a_dict_and_construct_paths():
    template = {
        "Resources": {
            "Q": {"Type": "AWS::SQS::Queue", "Properties": {"VisibilityTimeout": 10}},
            "P": {"Type": "AWS::SQS::Queue", "Metadata": {"aws:cdk:path": "S/P/Resource"}},
        }
    }
    m = load_template(template, file="S.template.json", construct_paths={"Q": "S/Orders/Resource"})
    assert m.queues["Q"].location.construct_path == "S/Orders/Resource"
    assert m.queues["Q"].location_of("visibility_timeout").construct_path == "S/Orders/Resource"
    assert m.queues["P"].location.construct_path == "S/P/Resource"
    assert m.queues["Q"].location.line is None  # a plain dict has no positions


def test_undefined_references_are_unknown_not_crashes(write):
    path = write(
        """Resources:
  Q:
    Type: AWS::SQS::Queue
    Properties:
      VisibilityTimeout: !GetAtt Nowhere.Timeout
      RedrivePolicy: {deadLetterTargetArn: !GetAtt Missing.Arn, maxReceiveCount: 3}
  M:
    Type: AWS::Lambda::EventSourceMapping
    Properties: {EventSourceArn: !GetAtt Q.Arn, FunctionName: !Ref Ghost}
"""
    )
    q = load_path(path).queues["Q"]
    assert isinstance(q.visibility_timeout, str)
    assert q.redrive.target is None
    (c,) = q.consumers
    assert c.kind == "unknown" and "Ghost" in c.note


def test_foreach_language_extension(fixture_path, write):
    m = load_path(fixture_path("foreach.yaml"))
    assert set(m.queues) == {
        "QueueOrders",
        "DlqOrders",
        "QueuePayments",
        "DlqPayments",
        "TeambillingQueue",
        "TeamshippingQueue",
    }
    q = m.queues["QueuePayments"]
    assert (q.name, q.visibility_timeout, q.redrive.target) == ("Payments-queue", 60, "DlqPayments")
    assert q.location.line == 11 and q.location_of("visibility_timeout").line == 15
    assert m.queues["TeambillingQueue"].name == "billing"
    m = load_path(fixture_path("foreach.yaml"), parameters={"Teams": "a-b"})
    assert "TeamabQueue" in m.queues  # &{Team}: non-alphanumerics removed
    bad = write("Resources:\n  Fn::ForEach::X: [Id, [a]]\n")
    with pytest.raises(VisguardError, match="Fn::ForEach takes") as err:
        load_path(bad)
    assert err.value.place == "2"
    dup = write(
        "Resources:\n  Fn::ForEach::X:\n    - Id\n    - [a, a]\n    - Q${Id}: {Type: AWS::SQS::Queue}\n"
    )
    with pytest.raises(VisguardError, match="logical id 'Qa' twice"):
        load_path(dup)
    # found by the mutation fuzzer: a loop over a parameter when Parameters is not a mapping
    odd = write(
        "Parameters: 'billing,shipping'\nResources:\n  Fn::ForEach::T:\n    - Team\n    - !Ref Teams\n"
        "    - Q&{Team}: {Type: AWS::SQS::Queue}\n"
    )
    with pytest.raises(VisguardError, match="Parameters must be a mapping"):
        load_path(odd)


def test_function_timeout_known_only_at_deploy_time_makes_the_consumer_unknown(write):
    path = write(
        """Parameters:
  FnTimeout: {Type: Number}
Resources:
  Q: {Type: AWS::SQS::Queue}
  Fn: {Type: AWS::Lambda::Function, Properties: {Timeout: !Ref FnTimeout}}
  M: {Type: AWS::Lambda::EventSourceMapping, Properties: {EventSourceArn: !GetAtt Q.Arn, FunctionName: !Ref Fn}}
"""
    )
    (c,) = load_path(path).queues["Q"].consumers
    assert (c.kind, c.function_id, c.function_timeout) == ("unknown", "Fn", None)
    assert "${FnTimeout}" in c.note
    (c,) = load_path(path, parameters={"FnTimeout": "40"}).queues["Q"].consumers
    assert (c.kind, c.function_timeout) == ("lambda", 40)


@pytest.mark.parametrize("key", ["on", "off", "yes", "no", "true", "1", "null"])
def test_a_parameter_whose_name_yaml_reads_as_another_type_loads(write, key):
    """A parameter named ``on`` (YAML 1.1 reads the key as a boolean) without a default: the template loads
    (it was a TypeError building the parameter's placeholder)."""
    path = write(
        f"Parameters:\n  {key}:\n    Type: Number\nResources:\n  Q:\n    Type: AWS::SQS::Queue\n"
        "    Properties:\n      VisibilityTimeout: 30\n"
    )
    model = load_path(path)
    assert list(model.queues) == ["Q"]
