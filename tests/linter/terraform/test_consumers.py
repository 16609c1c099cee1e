"""Terraform worker consumers (issue 24): the Consumer records the loader reads from ECS task definitions,
Elastic Beanstalk worker environments and EventBridge pipes, the SNS subscriptions it attaches to queues, and the
HCL / tf.json fixes of their settings."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from visguard.linter.consumers import join
from visguard.linter.fixes import hcl as fix_hcl
from visguard.linter.loaders import terraform
from visguard.linter.model import Change, Finding, Location, Severity


def load(tmp_path: Path, text: str, name: str = "main.tf"):
    (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return terraform.load(str(tmp_path))


def consumers(model, platform: str) -> list:
    return [c for q in model.queues.values() for c in q.consumers if c.platform == platform]


def queue_of(model, consumer) -> str:
    return next(q.id for q in model.queues.values() if any(c is consumer for c in q.consumers))


ECS = """
resource "aws_sqs_queue" "jobs" {
  name                       = "jobs"
  visibility_timeout_seconds = 60
}

resource "aws_ecs_task_definition" "worker" {
  family = "worker"
  container_definitions = jsonencode([
    {
      name        = "app"
      image       = "worker:1"
      stopTimeout = 45
      environment = [
        { name = "JOBS_QUEUE_URL", value = aws_sqs_queue.jobs.url },
        { name = "LOG_LEVEL", value = "info" },
      ]
    }
  ])
  tags = { "visguard.io/processing-p99" = "20m" }
}

resource "aws_ecs_service" "worker" {
  name            = "worker"
  task_definition = aws_ecs_task_definition.worker.arn
  desired_count   = 2
}

resource "aws_appautoscaling_target" "worker" {
  service_namespace  = "ecs"
  scalable_dimension = "ecs:service:DesiredCount"
  resource_id        = "service/main/${aws_ecs_service.worker.name}"
  min_capacity       = 1
  max_capacity       = 8
}
"""


# ---------------------------------------------------------------------------------------------- ECS
def test_ecs_task_definition_with_the_queue_in_its_environment_is_a_located_worker(tmp_path):
    model = load(tmp_path, ECS)
    [c] = consumers(model, "ecs")
    assert queue_of(model, c) == "aws_sqs_queue.jobs"
    assert (c.id, c.kind, c.source, c.link, c.link_ref) == (
        "aws_ecs_task_definition.worker",
        "worker",
        "terraform",
        "env",
        "JOBS_QUEUE_URL",
    )
    assert c.stop_timeout == 45 and c.processing_p99 == 1200 and c.heartbeat is None
    assert c.visibility_override is None  # the queue's visibility is the one in effect
    assert c.settings == {
        "container": "app",
        "service": "aws_ecs_service.worker",
        "desired_count": 2,
        "max_count": 8,
    }
    lines = {k: (v.line, v.path) for k, v in c.locations.items()}
    assert lines["stop_timeout"] == (
        13,
        "aws_ecs_task_definition.worker/container_definitions[0].stopTimeout",
    )
    assert lines["link"] == (
        15,
        "aws_ecs_task_definition.worker/container_definitions[0].environment[0].value",
    )
    assert lines["desired_count"] == (26, "aws_ecs_service.worker/desired_count")
    assert lines["max_count"] == (34, "aws_appautoscaling_target.worker/max_capacity")
    assert lines["processing_p99"][0] == 20
    [b] = model.env
    assert (b.name, b.workload, b.queue, b.ref) == (
        "JOBS_QUEUE_URL",
        "aws_ecs_task_definition.worker/app",
        "aws_sqs_queue.jobs",
        None,
    )
    assert model.pending == [] and model.notes == []


def test_a_queue_of_another_root_is_pending_and_joins_a_model_that_declares_it(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    model = load(
        a,
        """
        resource "aws_ecs_task_definition" "w" {
          family                = "w"
          container_definitions = <<-JSON
            [{"name": "app", "environment": [
              {"name": "QUEUE", "value": "https://sqs.eu-west-1.amazonaws.com/123456789012/billing"}]}]
          JSON
        }
        """,
    )
    assert model.queues == {}
    [c] = model.pending
    assert (c.platform, c.link, c.queue_ref.kind, c.queue_ref.value) == (
        "ecs",
        "env",
        "url",
        "https://sqs.eu-west-1.amazonaws.com/123456789012/billing",
    )
    assert c.stop_timeout is None and c.effective_stop_timeout == 30
    [binding] = model.env
    assert binding.queue is None and binding.ref == c.queue_ref
    other = load(b, 'resource "aws_sqs_queue" "billing" {\n  name = "billing"\n}\n')
    join([model, other])
    assert other.queues["aws_sqs_queue.billing"].consumers == [c] and model.pending == []


def test_task_role_that_may_receive_links_the_queue_and_a_send_only_role_is_a_producer(tmp_path):
    model = load(
        tmp_path,
        """
        resource "aws_sqs_queue" "in" { name = "in" }
        resource "aws_sqs_queue" "out" { name = "out" }
        resource "aws_iam_role" "task" {
          name = "task"
          inline_policy {
            name   = "send"
            policy = jsonencode({ Statement = [{ Effect = "Allow", Action = "sqs:SendMessage",
                                                 Resource = aws_sqs_queue.out.arn }] })
          }
        }
        data "aws_iam_policy_document" "receive" {
          statement {
            actions   = ["sqs:Receive*", "sqs:DeleteMessage"]
            resources = [aws_sqs_queue.in.arn]
          }
        }
        resource "aws_iam_policy" "receive" { policy = data.aws_iam_policy_document.receive.json }
        resource "aws_iam_role_policy_attachment" "receive" {
          role       = aws_iam_role.task.name
          policy_arn = aws_iam_policy.receive.arn
        }
        resource "aws_ecs_task_definition" "w" {
          family        = "w"
          task_role_arn = aws_iam_role.task.arn
          container_definitions = jsonencode([{ name = "app",
            environment = [{ name = "OUT_QUEUE", value = aws_sqs_queue.out.url }] }])
        }
        """,
    )
    [c] = consumers(model, "ecs")
    assert queue_of(model, c) == "aws_sqs_queue.in"  # the producer's queue has no consumer
    assert (c.link, c.link_ref) == ("iam", "aws_iam_role.task")
    assert model.queues["aws_sqs_queue.out"].consumers == []
    assert [b.name for b in model.env] == ["OUT_QUEUE"]  # still the environment the workload gets


def test_a_wildcard_resource_in_the_task_role_is_no_link(tmp_path):
    model = load(
        tmp_path,
        """
        resource "aws_sqs_queue" "in" { name = "in" }
        resource "aws_iam_role" "task" { name = "task" }
        resource "aws_iam_role_policy" "p" {
          role   = aws_iam_role.task.id
          policy = jsonencode({ Statement = [{ Effect = "Allow", Action = "sqs:*", Resource = "*" }] })
        }
        resource "aws_ecs_task_definition" "w" {
          family                = "w"
          task_role_arn         = aws_iam_role.task.arn
          container_definitions = jsonencode([{ name = "app" }])
        }
        """,
    )
    assert consumers(model, "ecs") == [] and model.pending == []


def test_secret_from_a_parameter_holding_the_queue_url_links_it(tmp_path):
    model = load(
        tmp_path,
        """
        resource "aws_sqs_queue" "in" { name = "in" }
        resource "aws_ssm_parameter" "url" {
          name  = "/w/queue"
          type  = "String"
          value = aws_sqs_queue.in.url
        }
        resource "aws_ecs_task_definition" "w" {
          family                = "w"
          container_definitions = jsonencode([{ name = "app",
            secrets = [{ name = "QUEUE_URL", valueFrom = aws_ssm_parameter.url.arn }] }])
        }
        """,
    )
    [c] = consumers(model, "ecs")
    assert (c.link, c.link_ref, queue_of(model, c)) == ("secret", "QUEUE_URL", "aws_sqs_queue.in")


@pytest.mark.parametrize(
    "defs, why",
    [
        ('"not json"', "is not valid JSON"),
        ('jsonencode({ name = "app" })', "is not a list of containers"),
        ("var.defs", "is not known here"),
    ],
)
def test_container_definitions_that_cannot_be_read_are_a_note_never_a_crash(tmp_path, defs, why):
    model = load(
        tmp_path,
        f"""
        variable "defs" {{ type = string }}
        resource "aws_sqs_queue" "in" {{ name = "in" }}
        resource "aws_ecs_task_definition" "w" {{
          family                = "w"
          container_definitions = {defs}
        }}
        """,
    )
    assert consumers(model, "ecs") == [] and model.pending == []
    assert any(why in n.message and n.address == "aws_ecs_task_definition.w" for n in model.notes), [
        n.message for n in model.notes
    ]


def test_huge_and_odd_container_definitions_are_bounded(tmp_path):
    many = json.dumps(
        [{"name": f"c{i}", "environment": [{"name": "X", "value": 1}] * 50} for i in range(300)]
    )
    model = load(
        tmp_path,
        f"""
        resource "aws_sqs_queue" "in" {{ name = "in" }}
        resource "aws_ecs_task_definition" "w" {{
          family                = "w"
          container_definitions = {json.dumps(many)}
        }}
        resource "aws_ecs_task_definition" "odd" {{
          family                = "odd"
          container_definitions = jsonencode([1, "x", null, {{ environment = "no", secrets = [1] }},
                                              {{ name = "a", stopTimeout = "soon",
                                                 environment = [{{ name = "Q", value = aws_sqs_queue.in.url }}] }}])
        }}
        """,
    )
    [c] = consumers(model, "ecs")
    assert c.id == "aws_ecs_task_definition.odd" and c.stop_timeout is None
    assert any("stopTimeout must be a number" in n.message for n in model.notes)


def test_bad_processing_tag_is_a_note(tmp_path):
    model = load(tmp_path, ECS.replace('"20m"', '"twenty minutes"'))
    [c] = consumers(model, "ecs")
    assert c.processing_p99 is None
    [n] = model.notes
    assert "visguard.io/processing-p99" in n.message and n.location.line == 20


def test_a_root_of_workers_without_queues_still_loads_when_a_consumer_cannot_be_read(tmp_path):
    model = load(
        tmp_path,
        """
        resource "aws_ecs_task_definition" "w" {
          family                = "w"
          container_definitions = jsonencode([{ name = "app", environment = undefined_name }])
        }
        """,
    )
    assert model.queues == {} and model.pending == []
    assert any("aws_ecs_task_definition.w could not be read here" in n.message for n in model.notes)


def test_consumers_in_a_local_module_resolve_like_its_queues(tmp_path):
    mod = tmp_path / "modules" / "worker"
    mod.mkdir(parents=True)
    (mod / "main.tf").write_text(
        textwrap.dedent(
            """
            variable "queue_url" { type = string }
            resource "aws_ecs_task_definition" "this" {
              family                = "w"
              container_definitions = jsonencode([{ name = "app", stopTimeout = 20,
                environment = [{ name = "QUEUE_URL", value = var.queue_url }] }])
            }
            """
        ),
        encoding="utf-8",
    )
    model = load(
        tmp_path,
        """
        resource "aws_sqs_queue" "jobs" { name = "jobs" }
        module "worker" {
          source    = "./modules/worker"
          queue_url = aws_sqs_queue.jobs.url
        }
        """,
    )
    [c] = consumers(model, "ecs")
    assert (c.id, queue_of(model, c), c.stop_timeout) == (
        "module.worker.aws_ecs_task_definition.this",
        "aws_sqs_queue.jobs",
        20,
    )
    assert c.locations["stop_timeout"].file.endswith("modules/worker/main.tf")


# ---------------------------------------------------------------------------------------------- Beanstalk
BEANSTALK = """
resource "aws_sqs_queue" "work" {
  name                       = "work"
  visibility_timeout_seconds = 120
}

locals {
  extra = { MaxRetries = "5" }
}

resource "aws_elastic_beanstalk_environment" "worker" {
  name        = "worker"
  application = "app"
  tier        = "Worker"

  setting {
    namespace = "aws:elasticbeanstalk:sqsd"
    name      = "WorkerQueueURL"
    value     = aws_sqs_queue.work.url
  }
  setting {
    namespace = "aws:elasticbeanstalk:sqsd"
    name      = "InactivityTimeout"
    value     = "600"
  }
  dynamic "setting" {
    for_each = local.extra
    content {
      namespace = "aws:elasticbeanstalk:sqsd"
      name      = setting.key
      value     = setting.value
    }
  }
}
"""


def test_beanstalk_worker_reads_sqsd_settings_and_their_defaults(tmp_path):
    model = load(tmp_path, BEANSTALK)
    [c] = consumers(model, "beanstalk")
    assert queue_of(model, c) == "aws_sqs_queue.work"
    assert (c.link, c.link_ref, c.heartbeat) == ("source", "WorkerQueueURL", False)
    assert c.visibility_override == 300 and c.settings["visibility_default"] is True
    assert c.work_timeout == 600 and c.settings["inactivity_timeout"] == 600
    assert c.settings["max_retries"] == 5 and c.settings["error_visibility_timeout"] == 2
    assert c.locations["work_timeout"].line == 24 and c.locations["link"].line == 19
    assert c.locations["visibility_override"].line == 11  # the environment: where a setting is added
    assert c.locations["max_retries"].line == 31  # the dynamic block's value


def test_beanstalk_worker_on_the_generated_queue_is_a_note(tmp_path):
    model = load(
        tmp_path,
        """
        resource "aws_sqs_queue" "unrelated" { name = "u" }
        resource "aws_elastic_beanstalk_environment" "w" {
          name        = "w"
          application = "app"
          tier        = "Worker"
        }
        """,
    )
    assert consumers(model, "beanstalk") == [] and model.pending == []
    assert any("uses the queue Elastic Beanstalk creates" in n.message for n in model.notes)


def test_a_web_environment_is_no_consumer(tmp_path):
    model = load(
        tmp_path,
        """
        resource "aws_sqs_queue" "q" { name = "q" }
        resource "aws_elastic_beanstalk_environment" "web" {
          name        = "web"
          application = "app"
          setting {
            namespace = "aws:elasticbeanstalk:application:environment"
            name      = "QUEUE_URL"
            value     = aws_sqs_queue.q.url
          }
        }
        """,
    )
    assert consumers(model, "beanstalk") == [] and model.notes == []


# ---------------------------------------------------------------------------------------------- Pipes, SNS
PIPE = """
resource "aws_sqs_queue" "src" { name = "src" }
resource "aws_sqs_queue" "sub_dlq" { name = "sub-dlq" }
resource "aws_lambda_function" "enrich" {
  function_name = "enrich"
  timeout       = 10
}
resource "aws_sfn_state_machine" "flow" {
  name = "flow"
  type = "EXPRESS"
}
resource "aws_pipes_pipe" "p" {
  name       = "p"
  source     = aws_sqs_queue.src.arn
  target     = aws_sfn_state_machine.flow.arn
  enrichment = aws_lambda_function.enrich.arn
  source_parameters {
    sqs_queue_parameters {
      batch_size                         = 5
      maximum_batching_window_in_seconds = 20
    }
  }
}
resource "aws_sns_topic" "t" {
  name       = "t.fifo"
  fifo_topic = true
}
resource "aws_sns_topic_subscription" "s" {
  topic_arn            = aws_sns_topic.t.arn
  protocol             = "sqs"
  endpoint             = aws_sqs_queue.src.arn
  raw_message_delivery = true
  redrive_policy       = jsonencode({ deadLetterTargetArn = aws_sqs_queue.sub_dlq.arn })
}
"""


def test_pipe_reads_batching_and_the_target_and_enrichment_timeouts(tmp_path):
    model = load(tmp_path, PIPE)
    [c] = consumers(model, "pipes")
    assert queue_of(model, c) == "aws_sqs_queue.src"
    assert (c.link, c.heartbeat, c.batch_size, c.batching_window) == ("source", False, 5, 20)
    assert c.work_timeout == 310  # Step Functions express 300 s + the enrichment Lambda's 10 s
    assert c.settings == {"target_timeout": 300.0, "enrichment_timeout": 10.0}
    assert c.locations["batch_size"].line == 19 and c.locations["work_timeout"].line == 10


def test_pipe_defaults_and_a_target_not_known_here(tmp_path):
    model = load(
        tmp_path,
        """
        resource "aws_sqs_queue" "src" { name = "src" }
        resource "aws_lambda_function" "f" { function_name = "f" }
        resource "aws_pipes_pipe" "lambda" {
          source = aws_sqs_queue.src.arn
          target = aws_lambda_function.f.arn
        }
        resource "aws_pipes_pipe" "bus" {
          source = aws_sqs_queue.src.arn
          target = "arn:aws:events:eu-west-1:123456789012:event-bus/default"
        }
        resource "aws_pipes_pipe" "flow" {
          source = aws_sqs_queue.src.arn
          target = "arn:aws:states:eu-west-1:123456789012:stateMachine:elsewhere"
        }
        """,
    )
    by_id = {c.id: c for c in consumers(model, "pipes")}
    assert by_id["aws_pipes_pipe.lambda"].work_timeout == 3  # the Lambda default
    assert by_id["aws_pipes_pipe.lambda"].batch_size is None
    assert by_id["aws_pipes_pipe.bus"].work_timeout == 0  # one PutEvents call, as in a template
    assert by_id["aws_pipes_pipe.flow"].work_timeout is None  # a state machine of another root


def test_pipe_to_an_aws_service_or_fire_and_forget_is_bounded(tmp_path):
    """Real-world shapes (public Pipes patterns): a pipe into an event bus of the root holds a batch for one
    call, and a FIRE_AND_FORGET target is not waited for; neither is a worker without a bound (VG065) nor
    above the queue's visibility (VG064)."""
    model = load(
        tmp_path,
        """
        resource "aws_sqs_queue" "src" { name = "src" }
        resource "aws_cloudwatch_event_bus" "orders" { name = "orders" }
        resource "aws_sfn_state_machine" "flow" {
          name = "flow"
          type = "EXPRESS"
        }
        resource "aws_pipes_pipe" "to_bus" {
          source = aws_sqs_queue.src.arn
          target = aws_cloudwatch_event_bus.orders.arn
        }
        resource "aws_pipes_pipe" "async" {
          source = aws_sqs_queue.src.arn
          target = aws_sfn_state_machine.flow.arn
          target_parameters {
            step_function_state_machine_parameters {
              invocation_type = "FIRE_AND_FORGET"
            }
          }
        }
        resource "aws_pipes_pipe" "sync" {
          source = aws_sqs_queue.src.arn
          target = aws_sfn_state_machine.flow.arn
          target_parameters {
            step_function_state_machine_parameters {
              invocation_type = "REQUEST_RESPONSE"
            }
          }
        }
        """,
    )
    by_id = {c.id: c for c in consumers(model, "pipes")}
    assert by_id["aws_pipes_pipe.to_bus"].work_timeout == 0
    assert by_id["aws_pipes_pipe.async"].work_timeout == 0
    assert by_id["aws_pipes_pipe.async"].locations["work_timeout"].line == 17  # the invocation_type
    assert by_id["aws_pipes_pipe.sync"].work_timeout == 300  # an Express workflow, waited for


def test_sns_subscription_is_attached_to_its_queue_with_its_own_redrive(tmp_path):
    model = load(tmp_path, PIPE)
    [s] = model.queues["aws_sqs_queue.src"].subscriptions
    assert (s.id, s.topic, s.topic_fifo, s.redrive, s.raw_delivery, s.source) == (
        "aws_sns_topic_subscription.s",
        "aws_sns_topic.t",
        True,
        "aws_sqs_queue.sub_dlq",
        True,
        "terraform",
    )
    assert s.locations["redrive"].line == 33


def test_a_root_without_consumers_reads_no_consumer_side_resource(tmp_path, monkeypatch):
    import importlib

    tf_load = importlib.import_module("visguard.linter.loaders.terraform.load")

    read = []
    original = tf_load.TerraformLoader.resource

    def spy(self, scope, block, rtype, address, env):
        read.append(rtype)
        return original(self, scope, block, rtype, address, env)

    monkeypatch.setattr(tf_load.TerraformLoader, "resource", spy)
    load(
        tmp_path,
        """
        resource "aws_sqs_queue" "q" { name = "q" }
        resource "aws_iam_role" "r" { name = "r" }
        resource "aws_iam_role_policy" "p" {
          role   = aws_iam_role.r.id
          policy = "{}"
        }
        resource "aws_ecs_service" "s" { name = "s" }
        """,
    )
    assert read == ["aws_sqs_queue"]


# ---------------------------------------------------------------------------------------------- fixes
def finding(consumer, field: str, value, queue: str) -> Finding:
    change = Change("consumer", consumer.id, field, value, consumer.location_of(field))
    return Finding(
        "VG062", Severity.WARNING, "m", queue, consumer.location, consumer=consumer.id, changes=(change,)
    )


def fix(path: Path, findings) -> tuple[str, list]:
    text = path.read_text(encoding="utf-8")
    ff = fix_hcl.fix_text(str(path), text, findings)
    return ff.after, [why for _, why in ff.skipped]


def test_fix_edits_a_written_stop_timeout_inside_jsonencode(tmp_path):
    model = load(tmp_path, ECS)
    [c] = consumers(model, "ecs")
    after, skipped = fix(tmp_path / "main.tf", [finding(c, "stop_timeout", 120, "aws_sqs_queue.jobs")])
    assert skipped == []
    assert "      stopTimeout = 120\n" in after and "stopTimeout = 45" not in after
    assert consumers(load(tmp_path, after), "ecs")[0].stop_timeout == 120


def test_fix_adds_stop_timeout_to_a_literal_container_object(tmp_path):
    model = load(tmp_path, ECS.replace("      stopTimeout = 45\n", ""))
    [c] = consumers(model, "ecs")
    assert c.stop_timeout is None and c.locations["stop_timeout"].line == 10  # the container's "{"
    after, skipped = fix(tmp_path / "main.tf", [finding(c, "stop_timeout", 90, "aws_sqs_queue.jobs")])
    assert skipped == []
    assert consumers(load(tmp_path, after), "ecs")[0].stop_timeout == 90


def test_fix_leaves_a_heredoc_container_definition_alone_with_the_reason(tmp_path):
    model = load(
        tmp_path,
        """
        resource "aws_sqs_queue" "in" { name = "in" }
        resource "aws_ecs_task_definition" "w" {
          family                = "w"
          container_definitions = <<-JSON
            [{"name": "app", "environment": [{"name": "Q", "value": "${aws_sqs_queue.in.url}"}]}]
          JSON
        }
        """,
    )
    [c] = consumers(model, "ecs")
    after, [why] = fix(tmp_path / "main.tf", [finding(c, "stop_timeout", 90, "aws_sqs_queue.in")])
    assert "add stopTimeout to the container by hand" in why and after == (tmp_path / "main.tf").read_text()


def test_fix_edits_and_adds_sqsd_settings(tmp_path):
    model = load(tmp_path, BEANSTALK)
    [c] = consumers(model, "beanstalk")
    after, skipped = fix(
        tmp_path / "main.tf",
        [
            finding(c, "work_timeout", 240, "aws_sqs_queue.work"),
            finding(c, "visibility_override", 900, "aws_sqs_queue.work"),
        ],
    )
    assert skipped == []
    assert 'value     = "240"' in after
    [again] = consumers(load(tmp_path, after), "beanstalk")
    assert (again.work_timeout, again.visibility_override) == (240, 900)
    assert "visibility_default" not in again.settings


def test_fix_never_rewrites_a_dynamic_setting_expression(tmp_path):
    model = load(tmp_path, BEANSTALK)
    [c] = consumers(model, "beanstalk")
    change = Change("consumer", c.id, "visibility_override", 900, c.locations["max_retries"])
    f = Finding(
        "VG060", Severity.WARNING, "m", "aws_sqs_queue.work", c.location, consumer=c.id, changes=(change,)
    )
    _, [why] = fix(tmp_path / "main.tf", [f])
    assert "is an expression, not a literal" in why


def test_tf_json_sqsd_value_is_edited_in_place_and_a_missing_one_left_alone(tmp_path):
    doc = {
        "resource": {
            "aws_sqs_queue": {"work": {"name": "work"}},
            "aws_elastic_beanstalk_environment": {
                "w": {
                    "name": "w",
                    "tier": "Worker",
                    "setting": [
                        {
                            "namespace": "aws:elasticbeanstalk:sqsd",
                            "name": "WorkerQueueURL",
                            "value": "${aws_sqs_queue.work.url}",
                        },
                        {
                            "namespace": "aws:elasticbeanstalk:sqsd",
                            "name": "InactivityTimeout",
                            "value": "600",
                        },
                    ],
                }
            },
        }
    }
    model = load(tmp_path, json.dumps(doc, indent=2), "main.tf.json")
    [c] = consumers(model, "beanstalk")
    assert c.work_timeout == 600
    path = tmp_path / "main.tf.json"
    after, skipped = fix(path, [finding(c, "work_timeout", 200, "aws_sqs_queue.work")])
    assert (
        skipped == []
        and json.loads(after)["resource"]["aws_elastic_beanstalk_environment"]["w"]["setting"][1]["value"]
        == "200"
    )
    _, [why] = fix(path, [finding(c, "visibility_override", 900, "aws_sqs_queue.work")])
    assert "in JSON syntax, add it by hand" in why


def test_plan_json_consumers_are_read_with_the_values_terraform_resolved(tmp_path):
    plan = {
        "format_version": "1.2",
        "planned_values": {
            "root_module": {
                "resources": [
                    {
                        "address": "aws_sqs_queue.q",
                        "mode": "managed",
                        "type": "aws_sqs_queue",
                        "name": "q",
                        "values": {"name": "q", "visibility_timeout_seconds": 30},
                    },
                    {
                        "address": "aws_ecs_task_definition.t",
                        "mode": "managed",
                        "type": "aws_ecs_task_definition",
                        "name": "t",
                        "values": {
                            "family": "t",
                            "container_definitions": json.dumps(
                                [
                                    {
                                        "name": "app",
                                        "stopTimeout": 10,
                                        "environment": [
                                            {"name": "Q", "value": "https://sqs.us-east-1.amazonaws.com/1/q"}
                                        ],
                                    }
                                ]
                            ),
                        },
                    },
                ]
            }
        },
    }
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan), encoding="utf-8")
    model = terraform.load(str(path))
    [c] = consumers(model, "ecs")
    assert (queue_of(model, c), c.stop_timeout, c.link_ref) == ("aws_sqs_queue.q", 10, "Q")
    assert isinstance(c.location, Location) and c.location.file == str(path)
