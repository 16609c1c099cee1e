"""Issue 36, fact-drift rows L7 and L8: Lambda Managed Instances (a capacity provider: timeouts up to 5,400 s for
event source mapping invocations) and durable functions (DurableConfig.ExecutionTimeout: a mapped batch stays in
flight for the whole durable execution, at most the mapping's invocation limit). Read from every input kind that
documents them; judged by VG032, VG010, VG011, VG012, VG034; no false error on such functions."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from visguard import facts, policy
from visguard.errors import VisguardError
from visguard.linter.api import lint_paths
from visguard.linter.loaders import load_path, terraform

ARN = "arn:aws:lambda:us-east-1:123456789012:capacity-provider/orders"
PLAN_FIXTURE = Path(__file__).parents[1] / "terraform" / "fixtures" / "plan" / "plan.json"


def _write(tmp_path, name: str, text: str):
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(textwrap.dedent(text))
    return str(p)


def _rules(result) -> list[str]:
    assert result.errors == [], result.errors
    return sorted(f.rule for f in result.findings)


def _template(vt: int, timeout: int, function_extra: str = "", sam: bool = False) -> str:
    head = 'AWSTemplateFormatVersion: "2010-09-09"\n' + (
        "Transform: AWS::Serverless-2016-10-31\n" if sam else ""
    )
    fn_type = "AWS::Serverless::Function" if sam else "AWS::Lambda::Function"
    extra = textwrap.indent(textwrap.dedent(function_extra), "      ")
    body = f"""\
Resources:
  Q:
    Type: AWS::SQS::Queue
    Properties:
      VisibilityTimeout: {vt}
      RedrivePolicy: {{deadLetterTargetArn: !GetAtt DLQ.Arn, maxReceiveCount: 5}}
  DLQ:
    Type: AWS::SQS::Queue
    Properties: {{MessageRetentionPeriod: 1209600}}
  Fn:
    Type: {fn_type}
    Properties:
      Runtime: python3.12
      Handler: index.handler
      Timeout: {timeout}
{extra}"""
    if sam:
        body += """\
      CodeUri: src/
      Events:
        Jobs:
          Type: SQS
          Properties: {Queue: !GetAtt Q.Arn, FunctionResponseTypes: [ReportBatchItemFailures]}
"""
    else:
        body += """\
      Role: arn:aws:iam::123456789012:role/fn
      Code: {ZipFile: "x"}
  Map:
    Type: AWS::Lambda::EventSourceMapping
    Properties:
      EventSourceArn: !GetAtt Q.Arn
      FunctionName: !Ref Fn
      FunctionResponseTypes: [ReportBatchItemFailures]
"""
    return head + body


CFN_CP = f"""\
CapacityProviderConfig:
  LambdaManagedInstancesCapacityProviderConfig:
    CapacityProviderArn: {ARN}
"""


# ---- facts and the policy -------------------------------------------------------------------------------------
def test_the_durable_bound_is_the_execution_timeout_or_the_invocation_limit():
    assert facts.lambda_max_timeout(False) == 900 and facts.lambda_max_timeout(True) == 5400
    assert facts.durable_esm_bound(3600, False) == (900.0, "invocation_limit")
    assert facts.durable_esm_bound(600, True) == (600.0, "execution_timeout")
    assert facts.durable_esm_bound(7200, True) == (5400.0, "invocation_limit")
    assert facts.durable_esm_bound(900, False) == (900.0, "execution_timeout")


def test_the_policy_asks_a_durable_function_for_its_bound_without_a_multiple():
    plain = policy.need(policy.Work("lambda", 60, 10))
    assert (plain.visibility_timeout, plain.basis) == (370, "lambda-guidance")
    durable = policy.need(policy.Work("lambda", 60, 10, durable_bound=900))
    assert (durable.visibility_timeout, durable.basis) == (910, "durable-bound")  # 900 + 10, not 6 x 900
    # the 6 x guidance on the function timeout still wins when it is larger
    long = policy.need(policy.Work("lambda", 600, 0, durable_bound=900))
    assert (long.visibility_timeout, long.basis) == (3600, "lambda-guidance")
    # 90 minutes on Managed Instances: 6 x 5,400 + 300 = 32,700 fits under the 12-hour cap
    lmi = policy.need(policy.Work("lambda", 5400, 300))
    assert lmi.visibility_timeout == 32_700 <= facts.MAX_VISIBILITY


# ---- CloudFormation and SAM -------------------------------------------------------------------------------------
def test_a_90_minute_function_with_a_capacity_provider_is_no_error(tmp_path):
    assert _rules(lint_paths([_write(tmp_path, "t.yaml", _template(32400, 5400, CFN_CP))])) == []
    # the same function without a capacity provider: VG032 (and VG011's 6 x, which it implies)
    assert "VG032" in _rules(lint_paths([_write(tmp_path, "u.yaml", _template(32400, 5400))]))


def test_sam_capacity_provider_from_globals(tmp_path):
    text = _template(32700, 5400, sam=True).replace(
        "Resources:",
        f"Globals:\n  Function:\n    CapacityProviderConfig: {{Arn: {ARN}}}\n    MemorySize: 2048\nResources:",
        1,
    )
    path = _write(tmp_path, "sam.yaml", text)
    model = load_path(path)
    (c,) = model.queues["Q"].consumers
    assert c.capacity_provider == ARN and c.max_function_timeout == 5400
    assert _rules(lint_paths([path])) == []


def test_a_durable_function_is_judged_by_its_bound_and_the_finding_says_which(tmp_path):
    durable = "DurableConfig: {ExecutionTimeout: 3600}\n"
    r = lint_paths([_write(tmp_path, "d.yaml", _template(360, 60, durable))])
    assert _rules(r) == ["VG011", "VG017"]  # VG017: the hour the ExecutionTimeout allows is never waited for
    f, late = sorted(r.findings, key=lambda x: x.rule)
    assert late.location.path == "Resources/Fn/Properties/DurableConfig/ExecutionTimeout"
    assert late.estimate == f.estimate
    assert f.estimate == {
        "durable_bound": 900.0,
        "durable_bound_basis": "invocation_limit",
        "durable_multiple_stated": False,
    }
    assert "the 900 s limit of an event source mapping invocation" in f.message
    assert "AWS states no visibility multiple for durable executions" in f.message
    assert [(c.field, c.value) for c in f.changes] == [("visibility_timeout", 900)]
    # on Managed Instances the ExecutionTimeout (under 5,400 s) is the bound, worded as the template's setting
    lmi = CFN_CP + "DurableConfig: {ExecutionTimeout: 3600}\n"
    (g,) = lint_paths([_write(tmp_path, "e.yaml", _template(360, 60, lmi))]).findings
    assert g.estimate["durable_bound"] == 3600.0 and g.estimate["durable_bound_basis"] == "execution_timeout"
    assert "its DurableConfig.ExecutionTimeout" in g.message
    assert _rules(lint_paths([_write(tmp_path, "ok.yaml", _template(3600, 60, lmi))])) == []


def test_vg010_on_a_durable_function_asks_for_the_durable_bound(tmp_path):
    (f,) = lint_paths(
        [_write(tmp_path, "d.yaml", _template(30, 60, "DurableConfig: {ExecutionTimeout: 600}\n"))]
    ).findings
    assert f.rule == "VG010" and "600 s (10 min) durable execution bound" in f.fix
    assert [(c.field, c.value) for c in f.changes] == [("visibility_timeout", 600)]


def test_a_durable_profile_longer_than_the_function_timeout_is_not_a_timeout(tmp_path):
    """VG034/VG012: a durable execution spans invocations; its p99 is judged against the durable bound."""
    config = _write(
        tmp_path,
        "visguard.yaml",
        """\
        version: 1
        profiles:
          - {match: Q, kind: lambda, p50: 120, p99: 600}
        """,
    )
    from visguard.linter.loaders.config import load_config

    durable = "DurableConfig: {ExecutionTimeout: 900}\n"
    ok = lint_paths([_write(tmp_path, "d.yaml", _template(905, 60, durable))], config=load_config(config))
    assert _rules(ok) == []
    plain = lint_paths([_write(tmp_path, "p.yaml", _template(905, 60))], config=load_config(config))
    assert "VG034" in _rules(plain)


def test_an_execution_timeout_not_known_here_is_not_judged(tmp_path):
    text = _template(360, 60, "DurableConfig: {ExecutionTimeout: !Ref Exec}\n").replace(
        "Resources:", "Parameters:\n  Exec: {Type: Number}\nResources:", 1
    )
    model = load_path(_write(tmp_path, "u.yaml", text))
    (c,) = model.queues["Q"].consumers
    assert c.kind == "unknown" and "ExecutionTimeout" in c.note
    assert "VG011" not in _rules(lint_paths([_write(tmp_path, "u.yaml", text)]))


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ("CapacityProviderConfig: [a]\n", "CapacityProviderConfig must be a mapping"),
        (
            "CapacityProviderConfig: {LambdaManagedInstancesCapacityProviderConfig: x}\n",
            "LambdaManagedInstancesCapacityProviderConfig must be a mapping",
        ),
        ("DurableConfig: [1]\n", "DurableConfig must be a mapping"),
        ("DurableConfig: {ExecutionTimeout: soon}\n", "ExecutionTimeout"),
    ],
)
def test_bad_compute_settings_are_one_line_errors_naming_the_place(tmp_path, extra, said):
    path = _write(tmp_path, "bad.yaml", _template(360, 60, extra))
    with pytest.raises(VisguardError) as exc:
        load_path(path)
    text = str(exc.value)
    assert said in text and "\n" not in text and "bad.yaml" in (exc.value.file or text)


# ---- Terraform -----------------------------------------------------------------------------------------------
TF = """\
resource "aws_sqs_queue" "q" {{
  name                       = "q"
  visibility_timeout_seconds = {vt}
  redrive_policy = jsonencode({{ deadLetterTargetArn = aws_sqs_queue.dlq.arn, maxReceiveCount = 5 }})
}}
resource "aws_sqs_queue" "dlq" {{
  name                      = "dlq"
  message_retention_seconds = 1209600
}}
variable "cp" {{
  type    = string
  default = null
}}
resource "aws_lambda_function" "fn" {{
  function_name = "fn"
  role          = "arn:aws:iam::123456789012:role/fn"
  timeout       = {timeout}
{extra}
}}
resource "aws_lambda_event_source_mapping" "m" {{
  event_source_arn        = aws_sqs_queue.q.arn
  function_name           = aws_lambda_function.fn.arn
  function_response_types = ["ReportBatchItemFailures"]
}}
"""
DYNAMIC = """\
  dynamic "capacity_provider_config" {{
    for_each = {each}
    content {{
      lambda_managed_instances_capacity_provider_config {{
        capacity_provider_arn = "{arn}"
      }}
    }}
  }}
"""


def _tf(tmp_path, name, vt, timeout, extra=""):
    return _write(tmp_path, f"{name}/main.tf", TF.format(vt=vt, timeout=timeout, extra=extra))


@pytest.mark.parametrize(
    ("each", "managed"),
    [('["on"]', True), ("[]", False), ("var.cp != null ? [1] : []", False)],
)
def test_terraform_dynamic_capacity_provider_blocks(tmp_path, each, managed):
    root = _tf(tmp_path, "r", 32400, 5400, DYNAMIC.format(each=each, arn=ARN))
    model = terraform.load(str(tmp_path / "r"))
    (c,) = model.queues["aws_sqs_queue.q"].consumers
    assert (c.capacity_provider is not None) is managed
    assert ("VG032" in _rules(lint_paths([root]))) is not managed


def test_terraform_durable_config_and_a_plan(tmp_path):
    durable = "  durable_config {\n    execution_timeout = 3600\n  }\n"
    (f,) = [f for f in lint_paths([_tf(tmp_path, "d", 360, 60, durable)]).findings if f.rule == "VG011"]
    assert f.estimate["durable_bound"] == 900.0
    assert "durable_config.execution_timeout" in f.message
    plan = json.loads((PLAN_FIXTURE).read_text())
    for r in plan["planned_values"]["root_module"]["resources"]:
        if r["address"] == "aws_lambda_function.worker":
            r["values"]["timeout"] = 5400
            r["values"]["capacity_provider_config"] = [
                {"lambda_managed_instances_capacity_provider_config": [{"capacity_provider_arn": ARN}]}
            ]
            r["values"]["durable_config"] = [{"execution_timeout": 7200, "retention_period": 14}]
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    model = terraform.load(str(tmp_path / "plan.json"))
    worker = [
        c for q in model.queues.values() for c in q.consumers if c.function_id == "aws_lambda_function.worker"
    ]
    assert worker, "the fixture's worker consumes a queue"
    for c in worker:
        assert c.capacity_provider == ARN and c.durable_execution_timeout == 7200
        assert c.durable_bound == (5400.0, "invocation_limit") and c.max_function_timeout == 5400


# ---- Serverless ----------------------------------------------------------------------------------------------
def test_serverless_capacity_provider(tmp_path):
    text = """\
        service: jobs
        provider: {name: aws, runtime: python3.12, stage: dev}
        functions:
          worker:
            handler: h.main
            timeout: 5400
            capacityProvider: default
            events:
              - sqs: {arn: !GetAtt Q.Arn, functionResponseType: ReportBatchItemFailures}
        resources:
          Resources:
            Q:
              Type: AWS::SQS::Queue
              Properties:
                VisibilityTimeout: 32400
                RedrivePolicy: {deadLetterTargetArn: !GetAtt DLQ.Arn, maxReceiveCount: 5}
            DLQ:
              Type: AWS::SQS::Queue
              Properties: {MessageRetentionPeriod: 1209600}
        """
    ok = _write(tmp_path, "a/serverless.yml", text)
    assert _rules(lint_paths([ok])) == []
    bad = _write(tmp_path, "b/serverless.yml", text.replace("timeout: 5400", "timeout: 5401"))
    (f,) = [f for f in lint_paths([bad]).findings if f.rule == "VG032"]
    assert "functions.worker.capacityProvider" in f.message and "1-5400 s" in f.message


# ---- no false error: every timeout and ExecutionTimeout AWS accepts, with the visibility the fix asks for ------
ACCEPTED = [
    (managed, timeout, execution)
    for managed in (False, True)
    for timeout in (1, 60, 900, 901, 3600, 5400)
    for execution in (None, 1, 600, 900, 3600, 5400, 31_622_400)
    if timeout <= facts.lambda_max_timeout(managed)  # a timeout Lambda rejects is VG032's error, rightly
]


@pytest.mark.parametrize(("managed", "timeout", "execution"), ACCEPTED)
def test_no_error_on_accepted_settings_once_the_visibility_covers_them(managed, timeout, execution):
    from visguard.linter.api import lint_model
    from visguard.linter.model import Consumer, Location, Model, Queue, Redrive

    c = Consumer(
        id="m",
        kind="lambda",
        location=Location("t.yaml", line=30),
        function_id="fn",
        function_timeout=timeout,
        batching_window=300,
        report_batch_item_failures=True,
        capacity_provider=ARN if managed else None,
        durable_execution_timeout=execution,
    )
    need = policy.need(
        policy.Work("lambda", timeout, 300, durable_bound=c.durable_bound[0] if c.durable_bound else None)
    )
    m = Model()
    m.add(Queue(id="dlq", location=Location("t.yaml", line=20), message_retention=1_209_600))
    q = Queue(id="q", location=Location("t.yaml", line=3), visibility_timeout=need.visibility_timeout)
    q.redrive = Redrive("dlq", "dlq", 5)
    q.consumers.append(c)
    m.add(q)
    found = [f for f in lint_model(m) if f.queue == "q"]
    assert need.visibility_timeout <= facts.MAX_VISIBILITY
    assert [f.rule for f in found if f.severity == "error"] == []
    # what is left is VG017 alone, for an ExecutionTimeout the mapping never waits for
    late = execution is not None and execution > facts.lambda_max_timeout(managed)
    assert sorted(f.rule for f in found) == (["VG017"] if late else [])
