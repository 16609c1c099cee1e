"""Provisioned mode for SQS event source mappings (issue 36; fact-drift-2026-12 rows L1, L2; reference
lambda-sqs-esm.md section 6): ProvisionedPollerConfig is read from every input kind into Consumer.min_pollers /
max_pollers, and the rules use the provisioned start (10 x MinimumPollers), ramp (+1,000 a minute) and ceiling
(10 x MaximumPollers)."""

from __future__ import annotations

import textwrap

import pytest
from visguard import facts
from visguard.errors import VisguardError
from visguard.linter.api import lint_paths
from visguard.linter.loaders import load_path, load_template
from visguard.linter.model import Consumer, LintConfig

QUEUES = {
    "Q": {"Type": "AWS::SQS::Queue", "Properties": {"VisibilityTimeout": 180}},
    "Fn": {"Type": "AWS::Lambda::Function", "Properties": {"Timeout": 30}},
}


def _mapping(**props) -> dict:
    base = {"EventSourceArn": {"Fn::GetAtt": ["Q", "Arn"]}, "FunctionName": {"Ref": "Fn"}}
    return {
        "Resources": {
            **QUEUES,
            "M": {"Type": "AWS::Lambda::EventSourceMapping", "Properties": {**base, **props}},
        }
    }


def _consumer(model) -> Consumer:
    [c] = model.queues["Q"].consumers
    return c


# ------------------------------------------------------------------------------------------------ the facts
def test_the_provisioned_numbers_are_the_reference_s():
    p = facts.esm_pollers(False, 3, 50)
    assert (p.initial, p.added_per_minute, p.ceiling) == (30, 1_000, 500)
    assert facts.esm_pollers(False, None, 2_000).ceiling == 20_000  # the launch's 20,000 at 2,000 pollers
    assert facts.esm_pollers(False, None, 10_000).ceiling == 100_000  # the 2026 raise
    assert facts.esm_pollers(False, 2, None).ceiling == 10 * facts.DEFAULT_MAX_POLLERS == 2_000
    assert facts.esm_pollers(False) is facts.POLLERS["standard"]  # no pollers: standard mode
    assert facts.esm_pollers(True, 2, 10).initial is None  # FIFO: the message groups decide the start
    assert (facts.MIN_POLLERS.lo, facts.MIN_POLLERS.hi, facts.MAX_POLLERS.lo, facts.MAX_POLLERS.hi) == (
        2,
        200,
        2,
        10_000,
    )
    assert facts.CDK_MAX_POLLERS == 2_000 < facts.MAX_POLLERS.hi


# ------------------------------------------------------------------------------------------------ CloudFormation
def test_cloudformation_reads_both_counts_where_they_are_written():
    c = _consumer(
        load_template(
            _mapping(ProvisionedPollerConfig={"MinimumPollers": 4, "MaximumPollers": "40"}), file="t.yaml"
        )
    )
    assert (c.min_pollers, c.max_pollers) == (4, 40)  # "40" coerced, as CloudFormation does
    assert c.locations["max_pollers"].path == "Resources/M/Properties/ProvisionedPollerConfig/MaximumPollers"
    assert c.locations["provisioned"].path == "Resources/M/Properties/ProvisionedPollerConfig"


def test_an_empty_block_is_provisioned_mode_at_the_defaults_and_no_block_is_standard_mode():
    c = _consumer(load_template(_mapping(ProvisionedPollerConfig={}), file="t.yaml"))
    assert (c.min_pollers, c.max_pollers) == (facts.DEFAULT_MIN_POLLERS, facts.DEFAULT_MAX_POLLERS)
    c = _consumer(load_template(_mapping(), file="t.yaml"))
    assert (c.min_pollers, c.max_pollers) == (None, None)


def test_one_count_leaves_the_other_to_its_default():
    c = _consumer(load_template(_mapping(ProvisionedPollerConfig={"MaximumPollers": 7}), file="t.yaml"))
    assert (c.min_pollers, c.max_pollers) == (None, 7)


def test_a_parameter_without_a_value_is_not_known_here():
    t = _mapping(ProvisionedPollerConfig={"MaximumPollers": {"Ref": "Pollers"}})
    t["Parameters"] = {"Pollers": {"Type": "Number"}}
    c = _consumer(load_template(t, file="t.yaml"))
    assert c.max_pollers is None and c.min_pollers is None


@pytest.mark.parametrize(
    "ppc, place",
    [
        (["MinimumPollers", 2], "Resources/M/Properties/ProvisionedPollerConfig"),
        ({"MaximumPollers": "many"}, "Resources/M/Properties/ProvisionedPollerConfig/MaximumPollers"),
    ],
)
def test_bad_input_is_one_error_naming_the_place(ppc, place):
    with pytest.raises(VisguardError) as err:
        load_template(_mapping(ProvisionedPollerConfig=ppc), file="t.yaml")
    assert err.value.file == "t.yaml" and place in str(err.value)
    assert "\n" not in str(err.value)


# ------------------------------------------------------------------------------------------------ Terraform
TF = """
resource "{q}" "orders" {{
  {name} = "orders"
}}
resource "{f}" "worker" {{
  function_name = "orders-worker"
  timeout       = 30
}}
resource "{m}" "orders" {{
  event_source_arn = {q}.orders.arn
  function_name    = {f}.worker.arn
  {block}
}}
"""


@pytest.mark.parametrize(
    "provider, block",
    [
        ("aws", "provisioned_poller_config {\n    minimum_pollers = 3\n    maximum_pollers = 30\n  }"),
        ("awscc", "provisioned_poller_config = {\n    minimum_pollers = 3\n    maximum_pollers = 30\n  }"),
    ],
)
def test_terraform_reads_the_block_of_either_provider(tmp_path, provider, block):
    names = {
        "q": f"{provider}_sqs_queue",
        "f": f"{provider}_lambda_function",
        "m": f"{provider}_lambda_event_source_mapping",
    }
    text = TF.format(name="name" if provider == "aws" else "queue_name", block=block, **names)
    (tmp_path / "main.tf").write_text(textwrap.dedent(text), encoding="utf-8")
    model = load_path(str(tmp_path))
    [c] = model.queues[f"{names['q']}.orders"].consumers
    assert (c.min_pollers, c.max_pollers) == (3, 30)
    assert c.locations["max_pollers"].line == 14


def test_awscc_gets_the_same_findings_as_its_aws_twin(tmp_path):
    found = {}
    for provider, block in (
        ("aws", "provisioned_poller_config {\n    maximum_pollers = 4000\n  }"),
        ("awscc", "provisioned_poller_config = {\n    maximum_pollers = 4000\n  }"),
    ):
        d = tmp_path / provider
        d.mkdir()
        names = {
            "q": f"{provider}_sqs_queue",
            "f": f"{provider}_lambda_function",
            "m": f"{provider}_lambda_event_source_mapping",
        }
        text = TF.format(name="name" if provider == "aws" else "queue_name", block=block, **names)
        (d / "main.tf").write_text(textwrap.dedent(text), encoding="utf-8")
        found[provider] = sorted(f.rule for f in lint_paths([str(d)], config=LintConfig()).findings)
    assert found["aws"] == found["awscc"] and "VG036" in found["aws"]


# ------------------------------------------------------------------------------------------------ Serverless
def test_serverless_reads_an_override_of_the_generated_mapping(tmp_path):
    (tmp_path / "serverless.yml").write_text(
        textwrap.dedent(
            """
            service: s
            provider: {name: aws, runtime: python3.12}
            functions:
              worker:
                handler: h.main
                events:
                  - sqs: {arn: !GetAtt Q.Arn}
            resources:
              Resources:
                WorkerEventSourceMappingSQSQ:
                  Properties:
                    ProvisionedPollerConfig: {MinimumPollers: 5, MaximumPollers: 9}
                Q: {Type: AWS::SQS::Queue, Properties: {VisibilityTimeout: 60}}
            """
        ),
        encoding="utf-8",
    )
    model = load_path(str(tmp_path / "serverless.yml"))
    [c] = model.queues["Q"].consumers
    assert (c.min_pollers, c.max_pollers) == (5, 9)
    assert c.locations["min_pollers"].path.startswith(
        "resources.Resources.WorkerEventSourceMappingSQSQ.Properties"
    )


def test_a_typeless_override_of_the_generated_function_is_merged_too(tmp_path):
    (tmp_path / "serverless.yml").write_text(
        textwrap.dedent(
            """
            service: s
            provider: {name: aws, runtime: python3.12}
            functions:
              worker:
                handler: h.main
                events:
                  - sqs: {arn: !GetAtt Q.Arn}
            resources:
              Resources:
                WorkerLambdaFunction:
                  Properties: {Timeout: 45}
                Q: {Type: AWS::SQS::Queue, Properties: {VisibilityTimeout: 60}}
            """
        ),
        encoding="utf-8",
    )
    [c] = load_path(str(tmp_path / "serverless.yml")).queues["Q"].consumers
    assert c.function_timeout == 45  # the Framework's default is 6 s


# ------------------------------------------------------------------------------------------------ the rules
def _findings(rule: str, **props) -> list:
    from visguard.linter.api import lint_model

    return [f for f in lint_model(load_template(_mapping(**props), file="t.yaml")) if f.rule == rule]


def test_vg035_mutual_exclusion_and_ranges():
    [f] = _findings(
        "VG035", ScalingConfig={"MaximumConcurrency": 40}, ProvisionedPollerConfig={"MaximumPollers": 4}
    )
    assert "MaximumConcurrency 40" in f.message and "4 pollers for about 40" in f.fix
    assert _findings("VG035", ScalingConfig={"MaximumConcurrency": 40}) == []  # standard mode: fine
    [lo] = _findings("VG035", ProvisionedPollerConfig={"MinimumPollers": 1})
    assert "MinimumPollers 1 (SQS accepts 2-200)" in lo.message
    assert _findings("VG035", ProvisionedPollerConfig={"MinimumPollers": 200, "MaximumPollers": 10_000}) == []
    [hi] = _findings("VG035", ProvisionedPollerConfig={"MaximumPollers": 10_001})
    assert "10001" in hi.message
    [order] = _findings("VG035", ProvisionedPollerConfig={"MinimumPollers": 201 - 1, "MaximumPollers": 150})
    assert "above ProvisionedPollerConfig.MaximumPollers 150" in order.message


def test_vg035_minimum_above_the_default_maximum():
    assert _findings("VG035", ProvisionedPollerConfig={"MinimumPollers": 150}) == []
    [f] = _findings("VG035", ProvisionedPollerConfig={"MinimumPollers": 150, "MaximumPollers": 100})
    assert f.severity.value == "error"


def test_vg036_only_between_2000_and_10000():
    assert _findings("VG036", ProvisionedPollerConfig={"MaximumPollers": 2_000}) == []
    [f] = _findings("VG036", ProvisionedPollerConfig={"MaximumPollers": 2_001})
    assert f.severity.value == "warning" and "aws-cdk-lib" in f.message
    assert _findings("VG036", ProvisionedPollerConfig={"MaximumPollers": 10_001}) == []  # VG035's error


def test_vg033_uses_the_provisioned_start_and_ceiling():
    fn = {"Type": "AWS::Lambda::Function", "Properties": {"Timeout": 30, "ReservedConcurrentExecutions": 25}}

    def run(**ppc):
        t = _mapping(ProvisionedPollerConfig=ppc)
        t["Resources"]["Fn"] = fn
        from visguard.linter.api import lint_model

        return [f.message for f in lint_model(load_template(t, file="t.yaml")) if f.rule == "VG033"]

    [start] = run(MinimumPollers=3, MaximumPollers=10)  # 30 warm invokes > 25 reserved
    assert "below the 30 concurrent invokes its ProvisionedPollerConfig.MinimumPollers (3) keep warm" in start
    [ceiling] = run(MinimumPollers=2, MaximumPollers=10)  # 20 at start, up to 100 > 25
    assert "below the 100 concurrent invokes" in ceiling
    assert run(MinimumPollers=2, MaximumPollers=2) == []  # at most 20 <= 25


def test_vg040_caps_in_flight_at_10_x_maximum_pollers_x_batch_size():
    from visguard.linter.rules.vg040_inflight_near_quota import _hold_and_cap

    def cap(**kw):
        c = Consumer(
            id="m",
            kind="lambda",
            function_id="f",
            function_timeout=60,
            batch_size=50,
            batching_window=5,
            **kw,
        )
        return _hold_and_cap(c)[1]

    assert cap() == 1_250 * 50  # standard mode
    assert cap(max_concurrency=100) == 100 * 50
    assert cap(min_pollers=2, max_pollers=200) == 10 * 200 * 50 == 100_000
    assert cap(min_pollers=2) == 10 * facts.DEFAULT_MAX_POLLERS * 50


@pytest.mark.parametrize("version, read", [("~> 7.17", True), ("~> 7.16.0", False), ("~> 8.0", True)])
def test_the_lambda_registry_module_passes_the_block_since_7_17(tmp_path, version, read):
    (tmp_path / "main.tf").write_text(
        textwrap.dedent(
            f"""
            resource "aws_sqs_queue" "orders" {{
              name                       = "orders"
              visibility_timeout_seconds = 180
            }}
            module "worker" {{
              source        = "terraform-aws-modules/lambda/aws"
              version       = "{version}"
              function_name = "orders-worker"
              timeout       = 30
              event_source_mapping = {{
                sqs = {{
                  event_source_arn          = aws_sqs_queue.orders.arn
                  provisioned_poller_config = {{ minimum_pollers = 3, maximum_pollers = 30 }}
                }}
              }}
            }}
            """
        ),
        encoding="utf-8",
    )
    [c] = load_path(str(tmp_path)).queues["aws_sqs_queue.orders"].consumers
    assert (c.min_pollers, c.max_pollers) == ((3, 30) if read else (None, None))


def test_a_terraform_plan_gives_the_block_as_a_list_of_one(tmp_path):
    import json
    from pathlib import Path

    plan = json.loads(
        (Path(__file__).parent / "terraform" / "fixtures" / "plan" / "plan.json").read_text(encoding="utf-8")
    )
    [jobs] = [
        r
        for r in plan["planned_values"]["root_module"]["resources"]
        if r["address"] == "aws_lambda_event_source_mapping.jobs"
    ]
    jobs["values"]["provisioned_poller_config"] = [{"minimum_pollers": 3, "maximum_pollers": 30}]
    (tmp_path / "plan.json").write_text(json.dumps(plan), encoding="utf-8")
    model = load_path(str(tmp_path / "plan.json"))
    [c] = model.queues["module.jobs.aws_sqs_queue.this"].consumers
    assert (c.min_pollers, c.max_pollers, c.max_concurrency) == (3, 30, 10)
    from visguard.linter.api import lint_model

    assert "VG035" in {f.rule for f in lint_model(model)}  # the plan's scaling_config is still there
