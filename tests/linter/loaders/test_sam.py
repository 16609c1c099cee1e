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
