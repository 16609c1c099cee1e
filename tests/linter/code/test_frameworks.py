"""Framework configuration: Laravel worker commands (Procfile, Supervisor), shoryuken.yml, Spring properties."""

from __future__ import annotations

from visguard import facts
from visguard.linter.loaders.code import frameworks


def _read(path: str, text: str):
    return frameworks.read(path, text.encode())


def test_procfile_queue_work_flags():
    res = _read(
        "Procfile",
        "web: vendor/bin/heroku-php-apache2 public/\n"
        "# worker: php artisan queue:work sqs --timeout=9999\n"
        "worker: php artisan queue:work sqs --sleep=3 --tries=3 --timeout=90 --backoff=10,60\n"
        "cache: php artisan queue:work redis --timeout=30\n",
    )
    (c,) = res.consumers
    assert (c.platform, c.source, c.location.line) == ("laravel", "procfile", 3)
    assert c.work_timeout == 90 and c.settings["tries"] == 3 and c.settings["connection"] == "sqs"
    assert [d["seconds"] for d in c.settings["delays"]] == [10, 60]
    assert (c.queue_ref.kind, c.queue_ref.value) == ("env", "SQS_QUEUE")  # the stock config's variable
    assert c.heartbeat is False and c.locations["work_timeout"].line == 3


def test_procfile_default_timeout_and_queue_flag_through_sh_c():
    res = _read(
        "Procfile", "worker: sh -c 'php artisan migrate --force && php artisan queue:work --queue=emails'\n"
    )
    (c,) = res.consumers
    assert c.work_timeout == facts.LARAVEL_WORK_TIMEOUT_DEFAULT and c.queue_ref.value == "emails"
    assert "connection" not in c.settings


SUPERVISOR = """[program:laravel-worker]
process_name=%(program_name)s_%(process_num)02d
command=php /var/www/html/artisan queue:work sqs
    --queue=high,default --tries=5 --timeout=300
autostart=true
autorestart=true
numprocs=4
stopwaitsecs=360
user=www-data

[program:nginx]
command=nginx -g 'daemon off;'
"""


def test_supervisor_program_one_consumer_per_queue_with_numprocs_and_stopwaitsecs():
    res = _read("docker/supervisor/laravel-worker.conf", SUPERVISOR)
    high, default = res.consumers
    assert [high.queue_ref.value, default.queue_ref.value] == ["high", "default"]
    for c in (high, default):
        assert (c.source, c.work_timeout, c.settings["tries"]) == ("supervisor", 300, 5)
        assert (c.concurrency, c.stop_timeout) == (4, 360)
        assert c.locations["concurrency"].line == 7 and c.locations["stop_timeout"].line == 8
        assert c.location.line == 3
    assert high.id != default.id


def test_worker_command_that_is_not_a_shell_line_is_a_note():
    res = _read("Procfile", "worker: php artisan queue:work sqs --timeout='90\n")
    assert res.consumers == [] and len(res.notes) == 1 and res.notes[0].location.line == 1


SHORYUKEN = """concurrency: 15
timeout: 25
delay: 0
queues:
  - [payments, 2]
  - refunds
  - <%= ENV['AUDIT_QUEUE'] %>
"""


def test_shoryuken_yml_queues_concurrency_and_timeout():
    res = _read("config/shoryuken.yml", SHORYUKEN)
    payments, refunds, audit = res.consumers
    assert [payments.queue_ref.value, refunds.queue_ref.value] == ["payments", "refunds"]
    assert (audit.queue_ref.kind, audit.queue_ref.value) == ("env", "AUDIT_QUEUE")
    assert all(
        c.platform == "shoryuken" and c.concurrency == 15 and c.stop_timeout == 25 for c in res.consumers
    )
    assert payments.locations["stop_timeout"].line == 2 and payments.locations["concurrency"].line == 1
    assert payments.heartbeat is None  # the worker class decides (shoryuken_options)


def test_shoryuken_groups_and_default_timeout():
    res = _read("shoryuken.yml", "groups:\n  slow:\n    concurrency: 2\n    queues:\n      - reports\n")
    (c,) = res.consumers
    assert c.settings["group"] == "slow" and c.concurrency == 2
    assert c.stop_timeout == facts.SHORYUKEN_SHUTDOWN_TIMEOUT_DEFAULT


APPLICATION_YML = """app:
  orders-queue: orders-prod
  name: shop
spring:
  cloud:
    aws:
      region:
        static: eu-west-1
      sqs:
        listener:
          max-concurrent-messages: 5
          max-messages-per-poll: 10
          poll-timeout: 20s
---
spring:
  config:
    activate:
      on-profile: dev
"""


def test_spring_application_yml_listener_defaults_and_queue_bindings():
    res = _read("src/main/resources/application.yml", APPLICATION_YML)
    (c,) = res.consumers
    assert (c.platform, c.settings["scope"], c.queue_ref) == ("spring", "defaults", None)
    assert (c.concurrency, c.settings["max_messages"], c.settings["wait_time"]) == (5, 10, 20)
    assert c.locations["concurrency"].line == 11
    (b,) = res.env
    assert (b.name, b.ref.kind, b.ref.value, b.location.line) == (
        "app.orders-queue",
        "name",
        "orders-prod",
        2,
    )


def test_spring_properties_file():
    res = _read(
        "application.properties",
        "# listener\nspring.cloud.aws.sqs.listener.max-concurrent-messages=8\n"
        "sqs.queue-url=https://sqs.eu-west-1.amazonaws.com/123456789012/orders\nserver.port=8080\n",
    )
    (c,) = res.consumers
    assert c.concurrency == 8 and c.locations["concurrency"].line == 2 and c.source == "properties"
    (b,) = res.env
    assert b.name == "sqs.queue-url" and b.ref.kind == "url"


def test_bad_yaml_is_a_note_and_other_files_have_nothing():
    res = _read("config/shoryuken.yml", "queues: [a\nconcurrency: {")
    assert res.consumers == [] and len(res.notes) == 1
    deep = _read("application.yml", "a: " + "[" * 5000 + "]" * 5000)
    assert deep.consumers == [] and len(deep.notes) == 1
    assert _read("nginx.conf", "server {\n listen 80;\n}\n").consumers == []
    for data in (b"\x00\xff" * 3000, b"\xfe\xff[program:x]\ncommand=\xff"):
        for name in ("Procfile", "x.conf", "shoryuken.yml", "application.yml", "application.properties"):
            assert isinstance(frameworks.read(name, data).consumers, list)


def test_spring_queue_name_nested_under_a_queue_key_binds_and_the_loader_offers_the_file(tmp_path):
    # Spring Cloud AWS 2.x layout: no spring.cloud.aws key, the name nested as <prefix>.queue.name
    from visguard.linter.loaders.code import loader

    text = "server:\n  port: 8081\nbilling:\n  queue:\n    name: invoices-q\n    url: http://localhost:4566/0/x\n"
    assert loader.wanted("frameworks", text.encode())
    res = _read("src/main/resources/application.yaml", text)
    assert res.consumers == []
    assert sorted((b.name, b.ref.kind, b.ref.value, b.location.line) for b in res.env) == [
        ("billing.queue.name", "name", "invoices-q", 5),
        ("billing.queue.url", "url", "http://localhost:4566/0/x", 6),
    ]
    assert _read("application.yaml", "billing:\n  name: not-a-queue\n").env == []
