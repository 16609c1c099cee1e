"""A Terraform role an ECS task or a pod assumes, granted receiving and used by nothing of the configuration, is the
consumer of a workload deployed elsewhere (issue 35 §5: "its IAM grants receiving"). Fixtures:
tests/linter/fixtures/consumers/terraform/role-*/ (README there)."""

from __future__ import annotations

import importlib
import textwrap
from pathlib import Path

import pytest
from visguard.linter.api import lint_paths
from visguard.linter.loaders import terraform

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "consumers" / "terraform"


def load(tmp_path: Path, text: str, files: dict[str, str] | None = None):
    (tmp_path / "main.tf").write_text(textwrap.dedent(text), encoding="utf-8")
    for name, body in (files or {}).items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(body), encoding="utf-8")
    return terraform.load(str(tmp_path))


def consumers(model) -> dict[tuple[str, str], object]:
    return {(q.id, c.id): c for q in model.queues.values() for c in q.consumers}


def findings(path) -> list[tuple[str, str]]:
    return sorted((f.rule, f.queue) for f in lint_paths([str(path)]).findings)


# ---------------------------------------------------------------------------------------------- the fixtures
@pytest.mark.parametrize(
    ("name", "queue", "role", "platform", "words", "line"),
    [
        ("role-ecs-inline", "aws_sqs_queue.render", "aws_iam_role.render", "ecs", "ECS tasks of role", 25),
        (
            "role-irsa-document",
            "aws_sqs_queue.index",
            "aws_iam_role.indexer",
            "kubernetes",
            "pods of role",
            33,
        ),
        (
            "role-module",
            "aws_sqs_queue.thumbnails",
            "module.worker.aws_iam_role.this",
            "kubernetes",
            "pods of role",
            20,
        ),
    ],
)
def test_a_free_role_granted_receiving_is_one_worker_consumer_and_one_note(
    name, queue, role, platform, words, line
):
    model = terraform.load(str(FIXTURES / name))
    got = consumers(model)
    assert list(got) == [(queue, role)]  # ecs-inline: aws_sqs_queue.events is only sent to (a producer's)
    c = got[(queue, role)]
    assert (c.kind, c.platform, c.link, c.link_ref, c.source) == (
        "worker",
        platform,
        "iam",
        role,
        "terraform",
    )
    assert c.settings == {"assumed_by_other_tool": True} and c.location.line == line
    (note,) = model.notes
    assert note.address == role and queue in note.message and "were not checked" in note.message
    assert queue in note.fix and "visguard.yaml" in note.fix
    result = lint_paths([str(FIXTURES / name)])
    (vg020,) = [f for f in result.findings if f.rule == "VG020"]
    assert vg020.queue == queue and f"{words} {role}" in str(vg020.message)
    # no VG065: nothing here can declare the workload's processing time; the note says what was not checked
    others = [(f.rule, f.queue, f.fix) for f in result.findings if f.rule != "VG020"]
    assert others == [("VG902", role, note.fix)]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # the task definition that uses the role is the queue's one consumer (linked by the role's grant)
        ("role-task-definition", [("aws_sqs_queue.render", "aws_ecs_task_definition.render")]),
        (
            "role-lambda",
            [],
        ),  # a function uses it (an argument visguard does not evaluate): the role is no consumer
        ("role-send-only", []),
        ("role-wildcard", []),  # "*": which queue its workload consumes is not known
    ],
)
def test_a_role_is_no_consumer_when_something_uses_it_or_it_cannot_receive_from_a_queue_of_the_root(
    name, expected
):
    model = terraform.load(str(FIXTURES / name))
    assert list(consumers(model)) == expected
    assert [n for n in model.notes if "declared elsewhere" in n.message] == []
    if expected:
        (c,) = consumers(model).values()
        assert (c.link, c.link_ref) == ("iam", "aws_iam_role.render")
        assert "assumed_by_other_tool" not in c.settings


# ---------------------------------------------------------------------------------------------- trust policies
QUEUE = 'resource "aws_sqs_queue" "jobs" { name = "jobs" }\n'
GRANT = """
resource "aws_iam_role_policy" "consume" {
  role   = aws_iam_role.w.id
  policy = jsonencode({ Statement = [{ Effect = "Allow", Action = "sqs:ReceiveMessage", Resource = aws_sqs_queue.jobs.arn }] })
}
"""


def role(trust: str, extra: str = "") -> str:
    return (
        QUEUE
        + f'resource "aws_iam_role" "w" {{\n  name = "w"\n  assume_role_policy = {trust}\n}}\n'
        + GRANT
        + extra
    )


ECS_TRUST = 'jsonencode({ Statement = [{ Effect = "Allow", Principal = { Service = "ecs-tasks.amazonaws.com" }, Action = "sts:AssumeRole" }] })'


@pytest.mark.parametrize(
    ("trust", "platform"),
    [
        (ECS_TRUST, "ecs"),
        (
            '"{\\"Statement\\": [{\\"Effect\\": \\"Allow\\", \\"Principal\\": {\\"Service\\": \\"pods.eks.amazonaws.com\\"}, '
            '\\"Action\\": [\\"sts:AssumeRole\\", \\"sts:TagSession\\"]}]}"',
            "kubernetes",
        ),  # a JSON string
        (
            '<<-EOF\n    {"Statement": [{"Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity",\n'
            '      "Principal": {"Federated": "arn:aws:iam::123456789012:oidc-provider/${var.oidc}"}}]}\n    EOF',
            "kubernetes",
        ),  # a heredoc with a template: IRSA
        (
            'jsonencode({ Statement = [{ Effect = "Deny", Principal = { Service = "ecs-tasks.amazonaws.com" }, '
            'Action = "sts:AssumeRole" }] })',
            None,
        ),
        (
            'jsonencode({ Statement = [{ Effect = "Allow", Principal = { Federated = "arn:aws:iam::1:oidc-provider/x" }, '
            'Action = "sts:AssumeRole" }] })',
            None,
        ),  # federated, but not the web-identity action
        (
            'jsonencode({ Statement = [{ Effect = "Allow", Principal = { Service = "ec2.amazonaws.com" }, '
            'Action = "sts:AssumeRole", Sid = "not ecs-tasks.amazonaws.com" }] })',
            None,
        ),  # only the text names it
    ],
)
def test_the_trust_policy_decides_the_platform(tmp_path, trust, platform):
    model = load(tmp_path, 'variable "oidc" { default = "oidc.eks.example/id/X" }\n' + role(trust))
    got = consumers(model)
    if platform is None:
        assert got == {}
    else:
        assert [(k, c.platform) for k, c in got.items()] == [
            (("aws_sqs_queue.jobs", "aws_iam_role.w"), platform)
        ]


def test_a_policy_document_trust_with_service_principals(tmp_path):
    model = load(
        tmp_path,
        role(
            "data.aws_iam_policy_document.trust.json",
            """
            data "aws_iam_policy_document" "trust" {
              statement {
                actions = ["sts:AssumeRole"]
                principals {
                  type        = "Service"
                  identifiers = ["ecs-tasks.amazonaws.com"]
                }
              }
            }
            """,
        ),
    )
    assert [c.platform for c in consumers(model).values()] == ["ecs"]


def test_an_awscc_role_with_its_policies_attribute(tmp_path):
    model = load(
        tmp_path,
        QUEUE
        + """
        resource "awscc_iam_role" "w" {
          role_name                   = "w"
          assume_role_policy_document = jsonencode({ Statement = [{ Effect = "Allow",
            Principal = { Service = "ecs-tasks.amazonaws.com" }, Action = "sts:AssumeRole" }] })
          policies = [{
            policy_name     = "consume"
            policy_document = jsonencode({ Statement = [{ Effect = "Allow", Action = ["sqs:ReceiveMessage"],
                                                          Resource = aws_sqs_queue.jobs.arn }] })
          }]
        }
        """,
    )
    ((key, c),) = consumers(model).items()
    assert key == ("aws_sqs_queue.jobs", "awscc_iam_role.w") and c.platform == "ecs"


def test_an_awscc_role_policy_with_an_object_document(tmp_path):
    model = load(
        tmp_path,
        QUEUE
        + """
        resource "awscc_iam_role" "w" {
          assume_role_policy_document = jsonencode({ Statement = [{ Effect = "Allow",
            Principal = { Service = "pods.eks.amazonaws.com" }, Action = ["sts:AssumeRole", "sts:TagSession"] }] })
        }
        resource "awscc_iam_role_policy" "consume" {
          policy_name     = "consume"
          role_name       = awscc_iam_role.w.role_name
          policy_document = { Statement = [{ Effect = "Allow", Action = "sqs:ReceiveMessage",
                                             Resource = aws_sqs_queue.jobs.arn }] }
        }
        """,
    )
    ((key, c),) = consumers(model).items()
    assert key == ("aws_sqs_queue.jobs", "awscc_iam_role.w") and c.platform == "kubernetes"
    assert c.location.line == 10  # the policy document


def test_managed_policy_arns_of_a_role_are_its_grants(tmp_path):
    model = load(
        tmp_path,
        QUEUE
        + f"""
        resource "aws_iam_policy" "consume" {{
          policy = jsonencode({{ Statement = [{{ Effect = "Allow", Action = "sqs:ReceiveMessage",
                                                Resource = aws_sqs_queue.jobs.arn }}] }})
        }}
        resource "aws_iam_role" "w" {{
          assume_role_policy  = {ECS_TRUST}
          managed_policy_arns = [aws_iam_policy.consume.arn, "arn:aws:iam::aws:policy/ReadOnlyAccess"]
        }}
        """,
    )
    assert list(consumers(model)) == [("aws_sqs_queue.jobs", "aws_iam_role.w")]


# ---------------------------------------------------------------------------------------------- used by nothing
@pytest.mark.parametrize(
    "extra",
    [
        'resource "aws_iam_instance_profile" "p" { role = aws_iam_role.w.name }',
        'resource "aws_instance" "i" {\n  ami = "ami-1"\n  depends_on = [aws_iam_role.w]\n}',
        'resource "aws_lambda_function" "f" {\n  function_name = "f"\n  role = "arn:aws:iam::123456789012:role/w"\n}',
        'resource "aws_iam_instance_profile" "p" { role = "w" }',  # by its name
        'resource "aws_ecs_task_definition" "t" {\n  family = "t"\n  container_definitions = "[]"\n'
        '  task_role_arn = "arn:aws:iam::123456789012:role/teams/w"\n}',  # by its ARN, with a path
        "locals { role = aws_iam_role.w.arn }",  # a local may reach anything: a use
        'module "app" {\n  source = "./app"\n  role_arn = aws_iam_role.w.arn\n}',  # the module call hands it on
        'resource "helm_release" "app" {\n  name = "app"\n  set {\n    name = "role"\n    value = aws_iam_role.w.arn\n  }\n}',
    ],
)
def test_any_mention_of_the_role_outside_its_bindings_is_a_use(tmp_path, extra):
    model = load(tmp_path, role(ECS_TRUST, extra), {"app/main.tf": 'variable "role_arn" {}\n'})
    # the role is no consumer of its own (a task definition that names it by ARN is, by the role's grant)
    assert [c for _, c in consumers(model) if c == "aws_iam_role.w"] == []
    assert [n for n in model.notes if "declared elsewhere" in n.message] == []


@pytest.mark.parametrize(
    "extra",
    [
        "",
        'output "arn" { value = aws_iam_role.w.arn }',  # handed to the tool that deploys the workload
        'resource "aws_eks_pod_identity_association" "a" {\n  cluster_name = "c"\n  namespace = "n"\n'
        '  service_account = "s"\n  role_arn = aws_iam_role.w.arn\n}',
        'resource "kubernetes_service_account" "s" {\n  metadata {\n    name = "s"\n'
        '    annotations = { "eks.amazonaws.com/role-arn" = aws_iam_role.w.arn }\n  }\n}',
        'resource "aws_iam_role_policy_attachment" "ro" {\n  role = aws_iam_role.w.name\n'
        '  policy_arn = "arn:aws:iam::aws:policy/ReadOnlyAccess"\n}',
        'resource "aws_sqs_queue" "w" { name = "w" }',  # the same name, not where a role is named
    ],
)
def test_bindings_and_root_outputs_are_no_use(tmp_path, extra):
    model = load(tmp_path, role(ECS_TRUST, extra))
    assert list(consumers(model)) == [("aws_sqs_queue.jobs", "aws_iam_role.w")]


MODULE = """
variable "queue_arn" { type = string }
resource "aws_iam_role" "this" {
  assume_role_policy = jsonencode({ Statement = [{ Effect = "Allow", Principal = { Service = "ecs-tasks.amazonaws.com" },
                                                   Action = "sts:AssumeRole" }] })
  inline_policy {
    name   = "consume"
    policy = jsonencode({ Statement = [{ Effect = "Allow", Action = "sqs:ReceiveMessage", Resource = var.queue_arn }] })
  }
}
output "role_arn" { value = aws_iam_role.this.arn }
output "queue" { value = var.queue_arn }
"""


@pytest.mark.parametrize(
    ("use", "free"),
    [
        ('output "r" { value = module.w.role_arn }', True),
        (
            'output "q" { value = module.w.queue }\nresource "aws_lambda_function" "f" { role = module.w.queue }',
            True,
        ),
        ('resource "aws_lambda_function" "f" {\n  function_name = "f"\n  role = module.w.role_arn\n}', False),
        ("locals { all = values(module.w) }", False),  # every output of it: a use
    ],
)
def test_a_child_modules_role_is_used_when_its_caller_uses_the_output_that_names_it(tmp_path, use, free):
    text = QUEUE + 'module "w" {\n  source = "./w"\n  queue_arn = aws_sqs_queue.jobs.arn\n}\n' + use
    model = load(tmp_path, text, {"w/main.tf": MODULE})
    assert list(consumers(model)) == ([("aws_sqs_queue.jobs", "module.w.aws_iam_role.this")] if free else [])


def test_a_module_with_a_file_not_read_is_never_sure(tmp_path):
    model = load(tmp_path, role(ECS_TRUST), {"broken.tf": 'resource "x" {\n'})
    assert consumers(model) == {}


# ---------------------------------------------------------------------------------------------- what is read
def spy(monkeypatch) -> list:
    tf_load = importlib.import_module("visguard.linter.loaders.terraform.load")
    read: list = []
    original = tf_load.TerraformLoader.resource

    def resource(self, scope, block, rtype, address, env):
        read.append(address)
        return original(self, scope, block, rtype, address, env)

    monkeypatch.setattr(tf_load.TerraformLoader, "resource", resource)
    return read


def test_roles_are_read_only_with_a_queue_and_a_trust_that_names_a_workload(tmp_path, monkeypatch):
    read = spy(monkeypatch)
    lambda_trust = ECS_TRUST.replace("ecs-tasks", "lambda")
    load(tmp_path, role(lambda_trust))
    assert read == ["aws_sqs_queue.jobs"]  # a function's role: not evaluated, nor its policies
    read.clear()
    load(tmp_path, role(ECS_TRUST).replace(QUEUE, ""))
    assert read == []  # no queue: nothing of IAM is read
    read.clear()
    load(tmp_path, role(ECS_TRUST, 'resource "aws_lambda_function" "f" { role = aws_iam_role.w.arn }'))
    assert read == [
        "aws_sqs_queue.jobs",
        "aws_lambda_function.f",
    ]  # used: neither it nor its policies are read


# ---------------------------------------------------------------------------------------------- hostile input
@pytest.mark.parametrize(
    "trust",
    [
        "7",
        '"not json ecs-tasks.amazonaws.com"',
        "var.trust",
        "jsonencode([1, {}])",
        'jsonencode({ Statement = "ecs-tasks.amazonaws.com" })',
        'jsonencode({ Statement = [1, null, { Principal = "ecs-tasks.amazonaws.com" }, { Principal = { Service = 5 } }] })',
        'jsonencode({ Statement = [{ Effect = "Allow", Principal = { Federated = null }, Action = "sts:AssumeRoleWithWebIdentity" }] })',
        "data.aws_iam_policy_document.missing.json",
        '"${jsonencode({ a = "ecs-tasks.amazonaws.com" })}"',
        '"' + "ecs-tasks.amazonaws.com" * 20000 + '"',
    ],
)
def test_a_hostile_trust_policy_is_never_a_crash_nor_a_consumer(tmp_path, trust):
    model = load(tmp_path, 'variable "trust" { type = string }\n' + role(trust))
    assert consumers(model) == {}
    lint_paths([str(tmp_path)])


@pytest.mark.parametrize(
    "doc",
    [
        'statement {\n  principals {\n    type = "Service"\n    identifiers = 5\n  }\n}',
        'statement {\n  principals {\n    type = ["Service"]\n    identifiers = ["ecs-tasks.amazonaws.com"]\n  }\n}',
        'dynamic "statement" {\n  for_each = var.trust\n  content {\n    actions = ["sts:AssumeRole"]\n  }\n}\n'
        "# ecs-tasks.amazonaws.com",
    ],
)
def test_a_hostile_policy_document_trust_is_never_a_crash(tmp_path, doc):
    model = load(
        tmp_path,
        'variable "trust" { type = string }\n'
        + role("data.aws_iam_policy_document.t.json", f'data "aws_iam_policy_document" "t" {{\n{doc}\n}}\n'),
    )
    assert consumers(model) == {}
    lint_paths([str(tmp_path)])


def test_many_roles_and_mentions_are_read_in_bounded_time(tmp_path):
    import time

    roles = "".join(
        f'resource "aws_iam_role" "w{i}" {{\n  name = "w{i}"\n  assume_role_policy = {ECS_TRUST}\n'
        f'  inline_policy {{\n    name = "p"\n    policy = jsonencode({{ Statement = [{{ Effect = "Allow", '
        f'Action = "sqs:ReceiveMessage", Resource = aws_sqs_queue.jobs.arn }}] }})\n  }}\n}}\n'
        f'output "w{i}" {{ value = aws_iam_role.w{i}.arn }}\n'
        for i in range(300)
    )
    noise = 'output "n" { value = "' + "role " * 50_000 + '" }\n'
    outs = "".join(f'output "x{i}" {{ value = aws_iam_role.w0.arn }}\n' for i in range(1500))
    started = time.process_time()
    model = load(tmp_path, QUEUE + roles + noise + outs)
    assert time.process_time() - started < 20
    got = consumers(model)
    # w0 is named 1,501 times: past the bound, a use; the others are each one consumer
    assert len(got) == 299 and ("aws_sqs_queue.jobs", "aws_iam_role.w0") not in got


# ---------------------------------------------------------------------------------------------- a plan JSON
def _plan(extra_config: list, outputs: dict | None = None, configuration: bool = True) -> dict:
    import json

    arn = "arn:aws:sqs:eu-west-1:123456789012:jobs"
    trust = {"Statement": [{"Effect": "Allow", "Principal": {"Service": "ecs-tasks.amazonaws.com"},
                            "Action": "sts:AssumeRole"}]}  # fmt: skip
    grant = {"Statement": [{"Effect": "Allow", "Action": "sqs:ReceiveMessage", "Resource": arn}]}
    resources = [
        {"address": "aws_sqs_queue.jobs", "mode": "managed", "type": "aws_sqs_queue", "name": "jobs",
         "values": {"name": "jobs", "arn": arn}},
        {"address": "aws_iam_role.w", "mode": "managed", "type": "aws_iam_role", "name": "w",
         "values": {"name": "w", "assume_role_policy": json.dumps(trust)}},
        {"address": "aws_iam_role_policy.p", "mode": "managed", "type": "aws_iam_role_policy", "name": "p",
         "values": {"role": "w", "policy": json.dumps(grant)}},
    ]  # fmt: skip
    config = [
        {"address": "aws_iam_role.w", "type": "aws_iam_role", "name": "w", "expressions": {}},
        {"address": "aws_iam_role_policy.p", "type": "aws_iam_role_policy", "name": "p",
         "expressions": {"role": {"references": ["aws_iam_role.w.id", "aws_iam_role.w"]}}},
        *extra_config,
    ]  # fmt: skip
    doc: dict = {"format_version": "1.2", "planned_values": {"root_module": {"resources": resources}}}
    if configuration:
        doc["configuration"] = {"root_module": {"resources": config, "outputs": outputs or {}}}
    return doc


@pytest.mark.parametrize(
    ("config", "outputs", "configuration", "free"),
    [
        ([], {"arn": {"expression": {"references": ["aws_iam_role.w.arn", "aws_iam_role.w"]}}}, True, True),
        ([{"address": "aws_lambda_function.f", "type": "aws_lambda_function", "name": "f",
           "expressions": {"role": {"references": ["aws_iam_role.w.arn", "aws_iam_role.w"]}}}], None, True, False),
        ([{"address": "aws_instance.i", "type": "aws_instance", "name": "i", "depends_on": ["aws_iam_role.w"]}],
         None, True, False),
        ([{"address": "aws_iam_instance_profile.p", "type": "aws_iam_instance_profile", "name": "p",
           "expressions": {"role": {"constant_value": "w"}}}], None, True, False),
        ([], None, False, False),  # a state's JSON: what uses the role is not known
    ],
)  # fmt: skip
def test_a_plan_json_role_is_a_consumer_when_its_configuration_uses_it_nowhere(
    tmp_path, config, outputs, configuration, free
):
    import json

    path = tmp_path / "plan.json"
    path.write_text(json.dumps(_plan(config, outputs, configuration)), encoding="utf-8")
    model = terraform.load(str(path))
    assert list(consumers(model)) == ([("aws_sqs_queue.jobs", "aws_iam_role.w")] if free else [])
    assert [n.address for n in model.notes if "declared elsewhere" in n.message] == (
        ["aws_iam_role.w"] if free else []
    )


@pytest.mark.parametrize(
    ("root_resources", "free"),
    [
        ([], True),
        ([{"address": "aws_lambda_function.f", "type": "aws_lambda_function", "name": "f",
           "expressions": {"role": {"references": ["module.w.role_arn", "module.w"]}}}], False),
        ([{"address": "aws_lambda_function.f", "type": "aws_lambda_function", "name": "f",
           "expressions": {"role": {"references": ["module.w.other", "module.w"]}}}], True),
    ],
)  # fmt: skip
def test_a_plan_json_role_of_a_child_module_follows_its_output_to_the_caller(tmp_path, root_resources, free):
    import json

    doc = _plan([])
    pv = doc["planned_values"]["root_module"]
    role_res = [r for r in pv["resources"] if r["type"] != "aws_sqs_queue"]
    for r in role_res:
        r["address"] = "module.w." + r["address"]
    pv["resources"] = [r for r in pv["resources"] if r["type"] == "aws_sqs_queue"]
    pv["child_modules"] = [{"address": "module.w", "resources": role_res}]
    inner = doc["configuration"]["root_module"]
    inner["outputs"] = {
        "role_arn": {"expression": {"references": ["aws_iam_role.w.arn", "aws_iam_role.w"]}},
        "other": {"expression": {"references": ["var.x"]}},
    }
    doc["configuration"]["root_module"] = {
        "resources": root_resources,
        "outputs": {"r": {"expression": {"references": ["module.w.role_arn", "module.w"]}}},
        "module_calls": {"w": {"source": "./w", "expressions": {}, "module": inner}},
    }
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    model = terraform.load(str(path))
    assert list(consumers(model)) == ([("aws_sqs_queue.jobs", "module.w.aws_iam_role.w")] if free else [])
