"""SAM functions with SQS events, read directly (cfn-lint >= 1.54 does not expand SAM)."""

from visguard.linter.loaders import load_path


def test_sam_events_globals_and_auto_alias(fixture_path):
    m = load_path(fixture_path("sam_app.yaml"))
    inbox, outbox = m.queues["Inbox"], m.queues["Outbox"]
    assert inbox.source == "sam"
    (c,) = inbox.consumers
    assert c.id == "Handler/FromInbox" and c.kind == "lambda" and c.function_id == "Handler"
    assert c.function_timeout == 45  # Globals.Function.Timeout
    assert c.location_of("function_timeout").path == "Globals/Function/Timeout"
    assert (c.batch_size, c.batching_window, c.report_batch_item_failures, c.max_concurrency) == (
        100,
        10,
        True,
        5,
    )
    assert c.reserved_concurrency == 5
    assert c.location.path == "Resources/Handler/Properties/Events/FromInbox"
    assert c.location.line == 22
    (s,) = inbox.suppressions  # Metadata on the SAM event
    assert (s.rule, s.reason, s.consumer) == ("VG020", "replayed from the outbox", "Handler/FromInbox")
    quick, alias, dot_alias = outbox.consumers
    assert (quick.function_timeout, quick.enabled) == (3, False)
    assert (alias.id, alias.function_id, alias.function_timeout) == ("AliasMapping", "Handler", 45)
    assert (dot_alias.kind, dot_alias.function_id) == ("lambda", "Handler")  # !Ref Handler.Alias


def test_sam_function_without_timeout_uses_the_lambda_default(fixture_path):
    (c,) = load_path(fixture_path("sam_defaults.yaml")).queues["Q"].consumers
    assert c.function_timeout is None and c.effective_function_timeout == 3.0
    assert c.batch_size is None and c.effective_batch_size == 10  # SAM and Lambda default


def test_sam_bad_events_are_clean_errors(write):
    import pytest
    from visguard.errors import VisguardError

    base = "Transform: AWS::Serverless-2016-10-31\nResources:\n  Q: {Type: AWS::SQS::Queue}\n  F:\n    Type: AWS::Serverless::Function\n    Properties:\n"
    cases = [
        ("      Events: [1]\n", "Events must be a mapping"),
        ("      Events: {E: 5}\n", "an event must be a mapping"),
        ("      Events: {E: {Type: SQS}}\n", "needs Properties"),
        ("      Events: {E: {Type: SQS, Properties: {BatchSize: 5}}}\n", "needs Properties/Queue"),
        (
            "      Events: {E: {Type: SQS, Properties: {Queue: !GetAtt Q.Arn, BatchSize: 2.5}}}\n",
            "expected an integer",
        ),
    ]
    for text, words in cases:
        with pytest.raises(VisguardError, match=words) as err:
            load_path(write(base + text))
        assert err.value.place == "7"


def test_sns_sqs_subscription_queues_and_mappings(fixture_path):
    """SqsSubscription: true -> the queue SAM creates (defaults) and its mapping; a mapping -> an existing queue."""
    m = load_path(fixture_path("sam_sns_subscription.yaml"))
    assert sorted(m.queues) == [
        "Existing",
        "WorkerFromOrdersQueue",
        "WorkerFromPaymentsQueue",
    ]  # Direct: none
    orders, payments = m.queues["WorkerFromOrdersQueue"], m.queues["WorkerFromPaymentsQueue"]
    assert orders.visibility_timeout is None and orders.effective_visibility_timeout == 30
    assert orders.redrive is None and orders.fifo is False and orders.created_by.startswith("SAM creates")
    assert payments.fifo is True  # the topic is a FIFO topic of this template
    assert orders.location.path == "Resources/Worker/Properties/Events/FromOrders/Properties/SqsSubscription"
    assert orders.location.line == 27
    (c,) = orders.consumers
    assert (c.id, c.function_id, c.function_timeout, c.batch_size) == ("Worker/FromOrders", "Worker", 60, 10)
    assert c.report_batch_item_failures is not True and c.batching_window is None
    # a suppression on the event covers the generated queue's own findings (VG020) and the mapping's
    assert {(s.rule, s.consumer) for s in payments.suppressions} == {
        ("VG020", None),
        ("VG020", "Worker/FromPayments"),
    }
    (existing,) = m.queues["Existing"].consumers
    assert (existing.id, existing.batch_size, existing.created_by is not None) == (
        "Worker/ViaExisting",
        5,
        True,
    )
    assert m.queues["Existing"].created_by is None


def test_sns_sqs_subscription_findings_say_how_to_fix_a_generated_queue(fixture_path):
    from visguard.linter.api import lint_model

    findings = lint_model(load_path(fixture_path("sam_sns_subscription.yaml")))
    got = {(f.queue, f.rule) for f in findings}
    assert ("WorkerFromOrdersQueue", "VG010") in got  # 30 s default < 60 s function timeout
    assert ("WorkerFromOrdersQueue", "VG020") in got  # no DLQ on the generated queue
    assert ("WorkerFromPaymentsQueue", "VG020") not in got  # suppressed with a reason on the event
    assert ("Existing", "VG031") in got  # SAM's mapping has no partial batch responses
    vg010 = next(f for f in findings if (f.queue, f.rule) == ("WorkerFromOrdersQueue", "VG010"))
    assert vg010.location.line == 27 and "declare the queue (with its DLQ) yourself" in vg010.fix
    vg031 = next(f for f in findings if (f.queue, f.rule) == ("Existing", "VG031"))
    assert "takes only BatchSize" in vg031.fix


def test_sns_sqs_subscription_bad_values_are_clean_errors(write):
    import pytest
    from visguard.errors import VisguardError

    base = (
        "Transform: AWS::Serverless-2016-10-31\nResources:\n  T: {Type: AWS::SNS::Topic}\n"
        "  Q: {Type: AWS::SQS::Queue}\n  F:\n    Type: AWS::Serverless::Function\n    Properties:\n"
        "      Events:\n        E:\n          Type: SNS\n          Properties:\n            Topic: !Ref T\n"
    )
    cases = [
        ("            SqsSubscription: 5\n", "SqsSubscription must be true, false or a mapping", "13"),
        ("            SqsSubscription: {QueueArn: !GetAtt Q.Arn}\n", "needs QueueArn and QueueUrl", "13"),
    ]
    for text, words, line in cases:
        with pytest.raises(VisguardError, match=words) as err:
            load_path(write(base + text))
        assert err.value.place == line
    clash = base.replace("  Q: {Type", "  FEQueue: {Type") + "            SqsSubscription: true\n"
    with pytest.raises(VisguardError, match="SAM creates queue FEQueue"):
        load_path(write(clash))
    assert load_path(write(base + "            SqsSubscription: false\n")).queues["Q"].consumers == []


def test_sam_api_event_naming_the_api_that_names_the_function_is_no_cycle(write):
    """An Api event makes a permission of its own: the function does not depend on the API it names, so an
    API whose body names the function is no cycle (real-world: a pipe's target API backed by a SAM function)."""
    path = write(
        """Transform: AWS::Serverless-2016-10-31
Resources:
  Jobs:
    Type: AWS::SQS::Queue
    Properties: {VisibilityTimeout: 60}
  Gateway:
    Type: AWS::Serverless::Api
    Properties:
      StageName: live
      DefinitionBody:
        paths:
          /:
            post:
              x-amazon-apigateway-integration:
                uri: !Sub "arn:aws:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${Backend.Arn}/invocations"
  Backend:
    Type: AWS::Serverless::Function
    Properties:
      Handler: app.handler
      Runtime: python3.12
      Events:
        Post: {Type: Api, Properties: {Path: /, Method: POST, RestApiId: !Ref Gateway}}
"""
    )
    m = load_path(path)
    assert m.queues["Jobs"].visibility_timeout == 60
    # a real cycle through the function's own properties is still refused
    import pytest
    from visguard.errors import VisguardError

    looped = write(
        """Transform: AWS::Serverless-2016-10-31
Resources:
  Gateway:
    Type: AWS::Serverless::Api
    Properties: {StageName: live, Description: !GetAtt Backend.Arn}
  Backend:
    Type: AWS::Serverless::Function
    Properties: {Handler: app.handler, Runtime: python3.12, Description: !Ref Gateway}
"""
    )
    with pytest.raises(VisguardError, match="circular dependency"):
        load_path(looped)
