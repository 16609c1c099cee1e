"""One reading of settings for every input kind (visguard.linter.loaders.values): the same value written as a
visibility timeout or a maxReceiveCount in a CloudFormation template (YAML, JSON), a SAM template, Terraform (HCL,
JSON syntax, plan JSON), a serverless.yml and a visguard.yaml gives the same outcome: no finding, the range rule's
finding (VG001 / VG002), or one bad-input line naming the file and the line."""

from __future__ import annotations

import json

import pytest
from visguard.linter.api import lint_paths
from visguard.linter.loaders import values

DLQ = "arn:aws:sqs:eu-west-1:123456789012:dlq"  # a DLQ by ARN: every input holds one queue
BIG = "9" * 500

# name: (YAML, JSON, HCL) spelling of the value, outcome
VALUES = {
    "600": ("600", "600", "600", "ok"),
    "50000": ("50000", "50000", "50000", "range"),
    "-1": ("-1", "-1", "-1", "range"),
    "600.0": ("600.0", "600.0", "600.0", "ok"),
    "600.5": ("600.5", "600.5", "600.5", "range"),
    "'600'": ('"600"', '"600"', '"600"', "ok"),
    "' 6e2 '": ('" 6e2 "', '" 6e2 "', '" 6e2 "', "ok"),
    "'50000'": ('"50000"', '"50000"', '"50000"', "range"),
    "10**15": ("1000000000000000", "1000000000000000", "1000000000000000", "range"),
    "'abc'": ('"abc"', '"abc"', '"abc"', "bad"),
    "''": ('""', '""', '""', "bad"),
    "'nan'": ('"nan"', '"nan"', '"nan"', "bad"),
    "true": ("true", "true", "true", "bad"),
    "'true'": ('"true"', '"true"', '"true"', "bad"),
    "[1]": ("[1]", "[1]", "[1]", "bad"),
    "10**15+1": ("1000000000000001", "1000000000000001", "1000000000000001", "bad"),
    "21 digits": ("123456789012345678901", "123456789012345678901", "123456789012345678901", "bad"),
    "'21 digits'": ('"123456789012345678901"', '"123456789012345678901"', '"123456789012345678901"', "bad"),
    "-21 digits": ("-123456789012345678901", "-123456789012345678901", "-123456789012345678901", "bad"),
    "1e300": ("1.0e+300", "1e300", "1e300", "bad"),
    "'1e300'": ('"1e300"', '"1e300"', '"1e300"', "bad"),
    "1e400": ("1.0e+400", "1e400", "1e400", "bad"),
    "500 digits": (BIG, BIG, BIG, "bad"),
    "'500 digits'": (f'"{BIG}"', f'"{BIG}"', f'"{BIG}"', "bad"),
}  # fmt: skip

RANGE_RULE = {"visibility": "VG001", "mrc": "VG002"}


def _cfn_yaml(field: str, y: str) -> str:
    if field == "visibility":
        return f"      VisibilityTimeout: {y}\n"
    return f"      RedrivePolicy:\n        deadLetterTargetArn: {DLQ}\n        maxReceiveCount: {y}\n"


def cfn_yaml(tmp, field, y, j, h):
    return _write(
        tmp / "t.yaml", "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties:\n" + _cfn_yaml(field, y)
    )


def sam(tmp, field, y, j, h):
    text = "Transform: AWS::Serverless-2016-10-31\nResources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties:\n"
    return _write(tmp / "t.yaml", text + _cfn_yaml(field, y))


def serverless(tmp, field, y, j, h):
    props = _cfn_yaml(field, y).replace("\n", "\n    ").rstrip(" ")
    text = (
        "service: s\nprovider:\n  name: aws\nresources:\n  Resources:\n    Q:\n      Type: AWS::SQS::Queue\n"
    )
    return _write(tmp / "serverless.yml", text + "      Properties:\n    " + props)


def cfn_json(tmp, field, y, j, h):
    prop = (
        f'"VisibilityTimeout": {j}'
        if field == "visibility"
        else f'"RedrivePolicy": {{"deadLetterTargetArn": "{DLQ}", "maxReceiveCount": {j}}}'
    )
    return _write(
        tmp / "t.json", f'{{"Resources": {{"Q": {{"Type": "AWS::SQS::Queue", "Properties": {{{prop}}}}}}}}}'
    )


def hcl(tmp, field, y, j, h):
    arg = (
        f"visibility_timeout_seconds = {h}"
        if field == "visibility"
        else f'redrive_policy = jsonencode({{deadLetterTargetArn = "{DLQ}", maxReceiveCount = {h}}})'
    )
    _write(tmp / "tf" / "main.tf", f'resource "aws_sqs_queue" "q" {{\n  {arg}\n}}\n')
    return tmp / "tf"


def _tf_json_args(field: str, j: str) -> str:
    if field == "visibility":
        return f'"visibility_timeout_seconds": {j}'
    policy = f'{{"deadLetterTargetArn": "{DLQ}", "maxReceiveCount": {j}}}'  # a JSON string, as written
    return f'"redrive_policy": {json.dumps(policy)}'


def tf_json(tmp, field, y, j, h):
    _write(
        tmp / "tf" / "main.tf.json",
        f'{{"resource": {{"aws_sqs_queue": {{"q": {{{_tf_json_args(field, j)}}}}}}}}}',
    )
    return tmp / "tf"


def plan(tmp, field, y, j, h):
    resource = '{"address": "aws_sqs_queue.q", "mode": "managed", "type": "aws_sqs_queue", "name": "q", "values": {%s}}'
    text = '{"format_version": "1.2", "planned_values": {"root_module": {"resources": [%s]}}}'
    return _write(tmp / "plan.json", text % (resource % _tf_json_args(field, j)))


def visguard_yaml(tmp, field, y, j, h):
    setting = (
        f"visibility_timeout: {y}"
        if field == "visibility"
        else f"redrive: {{target: {DLQ}, max_receive_count: {y}}}"
    )
    return _write(tmp / "visguard.yaml", f"queues:\n  - name: q\n    {setting}\n")


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


KINDS = {
    "cloudformation-yaml": cfn_yaml,
    "cloudformation-json": cfn_json,
    "sam": sam,
    "terraform-hcl": hcl,
    "terraform-json": tf_json,
    "terraform-plan": plan,
    "serverless": serverless,
    "visguard.yaml": visguard_yaml,
}  # fmt: skip


@pytest.mark.parametrize("field", sorted(RANGE_RULE))
@pytest.mark.parametrize("value", list(VALUES))
def test_the_same_value_has_the_same_outcome_in_every_input_kind(tmp_path, field, value):
    y, j, h, expected = VALUES[value]
    outcomes = {}
    for kind, write in KINDS.items():
        path = write(tmp_path / kind, field, y, j, h)
        result = lint_paths([str(path)])
        rules = {f.rule for f in result.findings} & set(RANGE_RULE.values())
        if result.errors:
            (err,) = result.errors
            assert err.place and err.file.startswith(str(path)), (kind, str(err))  # the file and the line
            assert "internal error" not in str(err) and not rules, (kind, str(err))
            outcomes[kind] = "bad"
        else:
            outcomes[kind] = "range" if rules == {RANGE_RULE[field]} else "ok" if not rules else str(rules)
    assert outcomes == dict.fromkeys(KINDS, expected)


@pytest.mark.parametrize(
    ("value", "read"),
    [
        (600, 600),
        (600.0, 600),
        ("600", 600),
        (" 6e2 ", 600),
        ("-1.5", -1.5),
        (50_000, 50_000),
        (10**15, 10**15),
    ],
)
def test_a_number_is_read_as_written_or_from_its_string(value, read):
    assert values.number(value) == read and type(values.number(value)) is type(read)


@pytest.mark.parametrize(
    ("value", "got", "bound"),
    [
        (True, "true", False),
        ("soon", "a string that is not a number", False),
        ("1_000", "a string that is not a number", False),  # Python reads it; no AWS API does
        ("٣", "a string that is not a number", False),
        ([1], "a list", False),
        ({"a": 1}, "a mapping", False),
        (float("nan"), "nan", True),
        (10**15 + 1, "an integer of 16 digits, beyond any AWS limit", True),
        (-1e300, "-1e+300, beyond any AWS limit", True),
        ("9" * 401, "a string of more than 400 characters", True),
    ],
)
def test_what_no_aws_api_takes_is_bad_value_and_says_what_it_got(value, got, bound):
    with pytest.raises(values.BadValue) as err:
        values.number(value)
    assert (err.value.got, err.value.bound) == (got, bound)


def test_integer_boolean_string_and_values_not_known_here():
    class Unknown(str):
        pass

    assert values.integer("10") == 10 and values.number(Unknown("${x}"), unknown=(Unknown,)) == "${x}"
    with pytest.raises(values.BadValue, match="expected a whole number, got 2.5"):
        values.integer(2.5)
    assert [values.boolean(v) for v in (True, "False", " true ", None)] == [True, False, True, None]
    with pytest.raises(values.BadValue):
        values.boolean(1)
    assert values.string(600) == "600" and values.string(Unknown("x"), unknown=(Unknown,)) is None
    with pytest.raises(values.BadValue, match="got a boolean"):
        values.string(False)


@pytest.mark.parametrize(
    ("written", "name"),
    [
        ("worker", "worker"),
        ("worker:live", "worker"),
        ("123456789012:function:worker", "worker"),
        ("arn:aws:lambda:eu-west-1:123456789012:function:worker:3", "worker"),
    ],
)
def test_function_name_of_every_form_the_lambda_api_takes(written, name):
    assert values.function_name(written) == name
