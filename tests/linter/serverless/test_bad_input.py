"""Bad serverless.yml input: one VisguardError naming the file and place, never a traceback or a hang."""

from __future__ import annotations

import os

import pytest
from visguard.errors import VisguardError
from visguard.linter.loaders import serverless

from .conftest import options


def _load(tmp_path, text: str, name: str = "serverless.yml"):
    p = tmp_path / name
    p.write_text(text)
    return serverless.load(str(p), options())


@pytest.mark.parametrize(
    "text, message",
    [
        ("service: s\nprovider: [\n", "malformed YAML"),
        ("- just\n- a list\n", "not a Serverless Framework service"),
        ("service: s\n", "not a Serverless Framework service"),
        ("service: s\nprovider: {name: aws}\nfunctions: [a, b]\n", "functions must be a mapping"),
        ("service: s\nprovider: {name: aws}\nfunctions: 3\n", "functions must be a mapping"),
        ("service: s\nprovider: {name: aws}\nfunctions:\n  w: {handler: h, events: 3}\n", "events must be a list"),
        ("service: s\nprovider: {name: aws}\nfunctions:\n  w: {handler: h, events: [{sqs: {batchSize: 1}}]}\n",
         "needs an arn"),
        ("service: s\nprovider: {name: aws}\nresources: 7\n", "resources must be a mapping"),
        ("service: s\nprovider: {name: aws}\nresources:\n  Resources:\n    Q: {Type: AWS::SQS::Queue, "
         "Properties: {VisibilityTimeout: [1]}}\n", "expected a number"),
        ("service: s\nprovider: {name: aws}\nresources:\n  Resources:\n    Q: !Bogus x\n", "unknown tag !Bogus"),
    ],
)  # fmt: skip
def test_bad_documents(tmp_path, text, message):
    with pytest.raises(VisguardError, match=message) as exc:
        _load(tmp_path, text)
    assert exc.value.file and exc.value.file.endswith("serverless.yml")


def test_errors_name_the_line(tmp_path):
    with pytest.raises(VisguardError) as exc:
        _load(
            tmp_path, "service: s\nprovider: {name: aws}\nfunctions:\n  w:\n    handler: h\n    events: 3\n"
        )
    assert exc.value.place == "6"


def test_folder_without_a_service(tmp_path):
    with pytest.raises(VisguardError, match="no serverless.yml"):
        serverless.load(str(tmp_path), options())


def test_folder_with_a_service(tmp_path):
    (tmp_path / "serverless.yaml").write_text("service: s\nprovider: {name: aws}\n")
    assert serverless.load(str(tmp_path), options()).queues == {}


def test_json_service(tmp_path):
    text = '{"service": "s", "provider": {"name": "aws"}, "resources": {"Resources": {"Q": {"Type": "AWS::SQS::Queue"}}}}'
    m = _load(tmp_path, text, "serverless.json")
    assert list(m.queues) == ["Q"] and m.queues["Q"].location.line == 1


def test_only_regular_files_are_read(tmp_path):
    fifo = tmp_path / "serverless.yml"
    os.mkfifo(fifo)  # reading it would block forever
    with pytest.raises(VisguardError, match="not a regular file"):
        serverless.load(str(fifo), options())


def test_oversized_file(tmp_path, monkeypatch):
    monkeypatch.setattr(serverless, "MAX_BYTES", 100)
    with pytest.raises(VisguardError, match="more than the"):
        _load(tmp_path, "service: s\nprovider: {name: aws}\n" + "#" * 200 + "\n")


def test_not_utf8(tmp_path):
    p = tmp_path / "serverless.yml"
    p.write_bytes(b"service: \xff\xfe\nprovider: {}\n")
    with pytest.raises(VisguardError, match="not UTF-8"):
        serverless.load(str(p), options())


def test_bad_var_option():
    with pytest.raises(VisguardError, match="use NAME, opt:NAME, env:NAME or param:NAME"):
        serverless.values_from(options(variables={"ssm:/x": "1"}))


def test_var_files_yaml_only(tmp_path):
    vf = tmp_path / "vars.yml"
    vf.write_text("stage: prod\nenv:TIMEOUT: '30'\n")
    tf = tmp_path / "prod.tfvars"
    tf.write_text('region = "eu-west-1"\n')  # Terraform's: not read here
    v = serverless.values_from(options(var_files=[str(vf), str(tf)], variables={"stage": "qa"}))
    assert v.opt == {"stage": "qa"} and v.env == {"TIMEOUT": "30"}


def test_hostile_yaml_aliases(tmp_path):
    lines = ["service: s", "provider: {name: aws}", "custom:", "  a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        lines.append(f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    with pytest.raises(VisguardError, match="aliases expand"):
        _load(tmp_path, "\n".join(lines) + "\n")


def test_errors_about_translated_resources_speak_serverless(tmp_path):
    with pytest.raises(VisguardError) as exc:
        _load(
            tmp_path,
            "service: s\nprovider: {name: aws}\nfunctions:\n  w:\n    handler: h\n    timeout: [1]\n"
            "    events: [{sqs: {arn: !GetAtt Q.Arn}}]\nresources:\n  Resources:\n    Q: {Type: AWS::SQS::Queue}\n",
        )
    assert str(exc.value).endswith("serverless.yml:6: functions.w.timeout: expected a number, got a list")
    with pytest.raises(VisguardError) as exc:
        _load(tmp_path, "service: s\nprovider: {name: aws}\nfunctions:\n  w:\n    handler: h\n    events:\n"
                        "      - sqs: {arn: !GetAtt Q.Arn, batchSize: lots}\n"
                        "resources:\n  Resources:\n    Q: {Type: AWS::SQS::Queue}\n")  # fmt: skip
    assert "functions.w.events[0].sqs.batchSize: expected an integer" in str(exc.value)
    assert exc.value.place == "7"
