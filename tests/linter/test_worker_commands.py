"""Worker start commands (issue 35 §2): one command-line reader, one option grammar per framework, the same
settings wherever the command is written (Procfile, Supervisor, systemd, ECS in CloudFormation and Terraform,
Kubernetes), joined to the consumer it starts; hostile commands are one note, in bounded time."""

from __future__ import annotations

import contextlib
import glob
import os
import time

import pytest
from visguard import facts
from visguard.linter.api import lint_paths
from visguard.linter.loaders import commandline, registry, shellwords
from visguard.linter.loaders.code import frameworks

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "commands")


def one(command):
    (w,) = commandline.workers(command)
    return w


# ------------------------------------------------------------------------------------------------ grammars
def test_laravel_queue_work_options_in_both_spellings():
    w = one("php artisan queue:work sqs --timeout 900 --tries=3 --queue=a,b --sleep=3 --max-time=3600 --once")
    assert (w.framework, w.connection, [q.text for q in w.queues]) == ("laravel", "sqs", ["a", "b"])
    assert w.fields == {"work_timeout": 900, "tries": 3, "sleep": 3, "max_time": 3600}
    assert one("php artisan queue:listen --queue=high --backoff=10,60").fields == {"delays": [10, 60]}


def test_laravel_workers_of_other_drivers_and_horizon_are_not_sqs():
    assert commandline.workers("php artisan queue:work redis --timeout=30") == []
    assert commandline.workers("php artisan horizon") == []
    assert commandline.workers("php artisan migrate --force") == []


def test_celery_worker_options_short_long_and_glued():
    w = one(
        "celery -A app worker -Q q1,q2 --time-limit=300 --soft-time-limit 250 --prefetch-multiplier=1 -c4"
    )
    assert [q.text for q in w.queues] == ["q1", "q2"]
    assert w.fields == {
        "app": "app",
        "work_timeout": 300,
        "soft_time_limit": 250,
        "prefetch": 1,
        "concurrency": 4,
    }
    assert one("python -m celery worker -A tasks --concurrency 2 -l info").fields == {
        "app": "tasks",
        "concurrency": 2,
    }
    assert commandline.workers("celery -A app beat") == []
    assert commandline.workers("celery -A app flower --port=5555") == []


def test_shoryuken_queues_with_weights_and_timeouts():
    w = one("bundle exec shoryuken -q default,2 -q low -R -C config/shoryuken.yml -t 25 -c 10")
    assert [q.text for q in w.queues] == ["default", "low"] and w.weights == {"default": 2}
    assert w.fields == {"config": "config/shoryuken.yml", "stop_timeout": 25, "concurrency": 10}


@pytest.mark.parametrize(
    "command",
    [
        "sh -c 'php artisan migrate --force && exec php artisan queue:work sqs --timeout=120'",
        '/bin/bash -lc "cd /app; php artisan queue:work sqs --timeout=120"',
        "env APP_ENV=prod nohup php -d memory_limit=-1 /var/www/artisan queue:work sqs --timeout=120 2>&1",
        "APP_ENV=prod exec php artisan queue:work sqs --timeout=120 >> /var/log/worker.log",
        ["/bin/sh", "-c", "php artisan queue:work sqs --timeout=120"],
        ["php", "artisan", "queue:work", "sqs", "--timeout", "120"],
    ],
)
def test_shell_forms_and_exec_forms_give_the_same_worker(command):
    w = one(command)
    assert (w.framework, w.fields["work_timeout"], w.connection) == ("laravel", 120, "sqs")


def test_a_value_that_is_not_a_number_is_a_problem_not_a_guess():
    w = one("php artisan queue:work sqs --timeout=$TIMEOUT --tries=many")
    assert "work_timeout" not in w.fields and "tries" not in w.fields
    assert w.problems == ["--timeout $TIMEOUT is not a number of seconds", "--tries many is not a number"]


def test_every_option_of_the_tables_has_a_known_kind_and_each_framework_its_source():
    for framework, grammar in commandline.GRAMMARS.items():
        assert commandline.SOURCES[framework].startswith("https://")
        for spelling, (_field, valued, kind) in grammar.items():
            assert spelling.startswith("-") and kind in ("int", "seconds", "list", "name", "flag", "queue")
            assert valued is (kind != "flag")
    # consumers.md §3.5: Laravel's --timeout default, the one the readers apply when the flag is absent
    assert facts.LARAVEL_WORK_TIMEOUT_DEFAULT == 60


# ------------------------------------------------------------------------------------------------ every place
def _consumers(path: str):
    m = registry.load(path)
    return [c for q in m.queues.values() for c in q.consumers] + list(m.pending), m


@pytest.mark.parametrize(
    "mechanism", ["procfile", "supervisor", "systemd", "compose", "script", "cfn", "terraform", "kubernetes"]
)
def test_every_place_a_command_is_written_gives_the_same_settings(mechanism):
    (path,) = glob.glob(os.path.join(FIXTURES, mechanism, "*"))
    (c,) = [c for c in _consumers(path)[0] if c.work_timeout is not None]
    assert (c.work_timeout, c.settings["tries"]) == (900, 3)
    framework = c.settings.get("framework", c.platform)
    assert framework == "laravel"
    queues = c.settings.get("command_queues") or [c.queue_ref.value]
    assert queues == ["jobs"]
    at = c.location_of("work_timeout")
    assert at.file == path and at.line is not None
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    if mechanism == "script":  # the command's line; its --timeout comes from TIMEOUT=900 above it
        assert at.line == 5 and lines[at.line - 1].startswith("exec php artisan")
    else:  # the line that writes it (systemd: the ExecStart= line, continued on the next)
        assert "900" in lines[at.line - 1 + (1 if mechanism == "systemd" else 0)]


def test_the_ecs_consumer_of_a_template_is_judged_on_the_command_it_runs():
    result = lint_paths([os.path.join(FIXTURES, "cfn", "template.yaml")])
    (vg072,) = [f for f in result.findings if f.rule == "VG072"]
    assert vg072.location.path == "Resources/Worker/Properties/ContainerDefinitions/0/Command"
    assert "queue:work --timeout" in vg072.message and "900" in vg072.message


def test_a_compose_service_command_in_both_forms(tmp_path):
    (tmp_path / "compose.yaml").write_text(
        "services:\n  mail:\n    image: app\n    entrypoint: [bundle, exec]\n"
        "    command: [shoryuken, -q, mails, -t, '20']\n"
        "  jobs:\n    image: app\n    command: sh -c 'php artisan queue:work sqs --timeout=90'\n"
        "    environment:\n      SQS_QUEUE: https://sqs.us-east-1.amazonaws.com/123456789012/jobs\n"
    )
    consumers, _ = _consumers(str(tmp_path / "compose.yaml"))
    got = {
        (c.platform, c.settings["service"], c.location.line, c.stop_timeout, c.work_timeout)
        for c in consumers
    }
    assert got == {("shoryuken", "mail", 5, 20, None), ("laravel", "jobs", 8, None, 90)}


def test_a_procfile_shoryuken_worker_is_one_consumer_per_queue(tmp_path):
    res = frameworks.read(
        "Procfile", b"worker: bundle exec shoryuken -R -q payments,2 -q refunds -t 30 -c 5\n"
    )
    assert [(c.platform, c.queue_ref.value, c.stop_timeout, c.concurrency) for c in res.consumers] == [
        ("shoryuken", "payments", 30, 5),
        ("shoryuken", "refunds", 30, 5),
    ]
    (c,) = frameworks.read("Procfile", b"worker: shoryuken -q jobs\n").consumers
    assert c.stop_timeout == facts.SHORYUKEN_SHUTDOWN_TIMEOUT_DEFAULT


def test_a_celery_worker_command_joins_the_sqs_app_of_its_project(tmp_path):
    app = tmp_path / "app"
    app.mkdir()
    (app / "celeryconfig.py").write_text('broker_url = "sqs://"\ntask_acks_late = True\n')
    (app / "Procfile").write_text("worker: celery -A app worker --time-limit=600 --prefetch-multiplier=1\n")
    (tmp_path / "queue.yaml").write_text(
        "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties:\n      QueueName: celery\n"
        "      VisibilityTimeout: 300\n      RedrivePolicy: {deadLetterTargetArn: !GetAtt D.Arn, maxReceiveCount: 5}\n"
        "  D:\n    Type: AWS::SQS::Queue\n    Properties: {MessageRetentionPeriod: 1209600}\n"
    )
    result = lint_paths([str(tmp_path)])
    (vg072,) = [f for f in result.findings if f.rule == "VG072"]
    assert (vg072.location.file, vg072.location.line) == (str(app / "Procfile"), 1)
    (c,) = [c for c in result.findings if c.rule == "VG072"]
    assert "600" in c.message


def test_a_celery_worker_command_of_a_non_sqs_project_says_nothing(tmp_path):
    (tmp_path / "celeryconfig.py").write_text('broker_url = "redis://localhost:6379/0"\n')
    (tmp_path / "Procfile").write_text("worker: celery -A app worker --time-limit=600 -Q default\n")
    result = lint_paths([str(tmp_path)])
    assert result.errors == [] and result.findings == []


def test_a_container_command_that_is_not_a_number_is_a_note_naming_the_workload(tmp_path):
    (tmp_path / "deploy.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w}\nspec:\n  template:\n    spec:\n"
        "      containers:\n        - name: w\n          args: [php, artisan, queue:work, sqs, --timeout=soon]\n"
        "          env: [{name: Q, value: 'https://sqs.us-east-1.amazonaws.com/123456789012/jobs'}]\n"
    )
    (c,), m = _consumers(str(tmp_path / "deploy.yaml"))
    assert c.work_timeout is None and c.settings["framework"] == "laravel"
    assert any("--timeout soon is not a number" in n.message and n.address == "Deployment/w" for n in m.notes)


# ------------------------------------------------------------------------------------------------ hostile commands
HOSTILE = [
    "php artisan queue:work sqs --timeout='90",
    'celery -A app worker -Q "open',
    "php artisan queue:work sqs --queue=" + "q," * 200_000,
    "shoryuken " + "-q x " * 100_000,
    "sh -c " + "'sh -c \"" * 30 + "php artisan queue:work",
    "php artisan queue:work\x00 sqs --timeout=9\x00",
    "celery worker $(" * 3000 + ")" * 3000,
    "php artisan queue:work sqs --timeout=" + "9" * 100_000,
    "x" * 1_000_000,
]


@pytest.mark.parametrize("command", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_commands_are_one_note_or_read_in_bounded_time(command):
    start = time.process_time()
    try:
        found = commandline.workers(command)
    except shellwords.ShellError as exc:
        assert exc.line >= 1 and exc.message
        found = []
    for w in found:
        assert w.framework in commandline.GRAMMARS
        assert all(isinstance(v, (int, str, list)) for v in w.fields.values())
    res = frameworks.read("Procfile", ("worker: " + command + "\n").encode())
    assert len(res.notes) <= 2 and all(n.location.line == 1 for n in res.notes)
    assert time.process_time() - start < 10


def test_random_commands_never_escape_as_anything_but_shellerror():
    import hypothesis
    from hypothesis import strategies as st

    words = st.sampled_from(
        ["php", "artisan", "queue:work", "sqs", "--timeout", "=", "90", "celery", "worker", "-Q", "shoryuken",
         "-q", ",", "-c", "sh", "-c", "'", '"', "$(", ")", "&&", ";", "\\", "\n", " ", "exec", "env", "A=b"]
    )  # fmt: skip

    @hypothesis.settings(max_examples=300, deadline=None)
    @hypothesis.given(st.lists(words, max_size=30))
    def run(parts):
        text = " ".join(parts)
        with contextlib.suppress(shellwords.ShellError):
            commandline.workers(text)
        with contextlib.suppress(shellwords.ShellError):  # the exec form: its sh -c string is split too
            commandline.workers(parts)

    run()


def test_a_sidecars_command_does_not_hide_the_workers(tmp_path):
    (tmp_path / "t.yaml").write_text(
        "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n  Task:\n    Type: AWS::ECS::TaskDefinition\n"
        "    Properties:\n      ContainerDefinitions:\n"
        "        - {Name: proxy, Image: envoy, Command: [envoy, -c, /etc/envoy.yaml],"
        " Environment: [{Name: QUEUE_URL, Value: !Ref Q}]}\n"
        "        - {Name: worker, Image: app, Command: [celery, -A, app, worker, --time-limit, '300'],"
        " Environment: [{Name: QUEUE_URL, Value: !Ref Q}]}\n"
    )
    (c,), _ = _consumers(str(tmp_path / "t.yaml"))
    assert (c.settings["framework"], c.work_timeout) == ("celery", 300)
    assert c.location_of("work_timeout").path == "Resources/Task/Properties/ContainerDefinitions/1/Command"


def test_compose_interpolation_defaults_and_a_services_own_environment():
    """``SQS_QUEUE=${SQS_QUEUE:-jobs}`` is ``jobs`` as Compose reads it with the variable unset; the worker a
    compose service starts sees its own service's environment only, never a sibling's (``web`` names ``other``):
    one VG072, on ``jobs``, joined by the worker's own binding (fixtures/commands/compose-env)."""
    from visguard.linter.loaders.code.envfiles import interpolated

    assert interpolated("${Q:-jobs}") == "jobs" and interpolated("${Q-a}-${R:-b}") == "a-b"
    assert interpolated("a$$b") == "a$b" and interpolated("plain") == "plain"
    for unknown in ("$Q", "${Q}", "${Q:?required}", "${Q:+other}", "${Q:-${R}}", "${Q"):
        assert interpolated(unknown) is None, unknown
    result = lint_paths([os.path.join(FIXTURES, "compose-env")])
    vg072 = [f for f in result.findings if f.rule == "VG072"]
    assert [(f.queue, f.location.line) for f in vg072] == [("jobs", 8)]
    assert vg072[0].joined_by.path == "services/worker/environment/SQS_QUEUE"
