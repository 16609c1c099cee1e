"""The Python consumer reader (issue 25): boto3/aioboto3 receive sites and Celery/Kombu apps on SQS."""

from __future__ import annotations

import textwrap

import pytest
from visguard import facts
from visguard.linter.consumers import QueueRef
from visguard.linter.loaders import code
from visguard.linter.loaders.code import python

URL = "https://sqs.eu-west-1.amazonaws.com/123456789012/orders"


def read(code: str, path: str = "app/worker.py"):
    return python.read(path, textwrap.dedent(code).lstrip("\n").encode())


def only(result):
    assert len(result.consumers) == 1, result.consumers
    return result.consumers[0]


def line_of(code: str, needle: str) -> int:
    lines = textwrap.dedent(code).lstrip("\n").splitlines()
    return next(i for i, text in enumerate(lines, 1) if needle in text)


# ------------------------------------------------------------------------------------------------ SDK
LOOP = f"""
import boto3

sqs = boto3.client("sqs")

def main():
    while True:
        resp = sqs.receive_message(
            QueueUrl="{URL}",
            VisibilityTimeout=45,
            WaitTimeSeconds=20,
            MaxNumberOfMessages=10,
        )
        for msg in resp.get("Messages", []):
            handle(msg)
            sqs.delete_message(QueueUrl="{URL}", ReceiptHandle=msg["ReceiptHandle"])
"""


def test_receive_loop_with_literals_is_one_located_consumer():
    result = read(LOOP)
    c = only(result)
    assert (c.kind, c.platform, c.source) == ("worker", "sdk", "python")
    assert c.id == f"app/worker.py:{line_of(LOOP, 'receive_message')}"
    assert c.location.file == "app/worker.py" and c.location.line == line_of(LOOP, "receive_message")
    assert c.queue_ref == QueueRef("url", URL, c.queue_ref.location)
    assert c.queue_ref.location.line == line_of(LOOP, "QueueUrl=")
    assert c.visibility_override == 45
    assert c.locations["visibility_override"].line == line_of(LOOP, "VisibilityTimeout=45")
    assert c.locations["visibility_override"].column == 13
    assert c.settings == {"wait_time": 20, "max_messages": 10}
    assert c.locations["wait_time"].line == line_of(LOOP, "WaitTimeSeconds")
    assert c.locations["max_messages"].line == line_of(LOOP, "MaxNumberOfMessages")
    assert c.heartbeat is False  # nothing in the file extends visibility
    assert result.notes == []


def test_module_constants_and_environment_queue():
    code = """
    import os
    import boto3

    QUEUE_URL = os.environ["ORDERS_QUEUE_URL"]
    VISIBILITY = 10 * 60
    client = boto3.client("sqs")

    def poll():
        return client.receive_message(QueueUrl=QUEUE_URL, VisibilityTimeout=VISIBILITY)
    """
    c = only(read(code))
    assert (c.queue_ref.kind, c.queue_ref.value) == ("env", "ORDERS_QUEUE_URL")
    assert c.visibility_override == 600


def test_getenv_with_a_default_keeps_the_variable_and_uses_the_default_number():
    code = """
    import os
    import boto3

    sqs = boto3.client("sqs")
    queue_url = os.environ.get("JOBS_QUEUE_URL", "https://sqs.us-east-1.amazonaws.com/111111111111/jobs")
    messages = sqs.receive_message(QueueUrl=queue_url, VisibilityTimeout=int(os.getenv("JOB_VT", "30")))
    """
    result = read(code)
    c = only(result)
    assert (c.queue_ref.kind, c.queue_ref.value) == ("env", "JOBS_QUEUE_URL")
    assert c.visibility_override == 30
    assert len(result.notes) == 1 and "JOB_VT" in result.notes[0].message
    assert result.notes[0].location.line == line_of(code, "receive_message")


def test_computed_visibility_is_unknown_and_noted_at_its_place():
    code = """
    import boto3

    class Worker:
        def __init__(self, queue_url, timeout):
            self.sqs = boto3.client("sqs")
            self.queue_url = queue_url
            self.timeout = timeout

        def fetch(self, extra):
            return self.sqs.receive_message(
                QueueUrl=self.queue_url,
                VisibilityTimeout=self.timeout + extra,
            )
    """
    result = read(code)
    c = only(result)
    assert c.visibility_override is None
    assert c.queue_ref is None  # a constructor parameter: the join notes it
    assert c.locations["visibility_override"].line == line_of(code, "VisibilityTimeout=")
    queue, note = result.notes  # the queue (a parameter no call passes), the visibility
    assert "QueueUrl" in queue.message and "visguard: queue=" in queue.message
    assert note.location.line == line_of(code, "VisibilityTimeout=") and note.address == c.id
    assert "self.timeout + extra" in note.message


def test_a_parameter_shadows_a_module_constant():
    code = """
    import boto3

    VT = 30
    sqs = boto3.client("sqs")

    def receive(url, VT):
        return sqs.receive_message(QueueUrl=url, VisibilityTimeout=VT)
    """
    result = read(code)
    assert only(result).visibility_override is None
    assert len([n for n in result.notes if "VisibilityTimeout" in n.message]) == 1


def test_a_name_assigned_two_values_is_not_guessed():
    code = """
    import boto3

    sqs = boto3.client("sqs")
    vt = 30
    if FAST:
        vt = 5
    sqs.receive_message(QueueUrl="orders", VisibilityTimeout=vt)
    """
    c = only(read(code))
    assert c.visibility_override is None
    assert (c.queue_ref.kind, c.queue_ref.value) == ("name", "orders")


def test_get_queue_url_result_names_the_queue():
    code = """
    import boto3

    sqs = boto3.client("sqs", region_name="eu-west-1")
    url = sqs.get_queue_url(QueueName="invoices")["QueueUrl"]
    other = sqs.get_queue_url(QueueName="refunds").get("QueueUrl")

    def work():
        a = sqs.receive_message(QueueUrl=url, VisibilityTimeout=120)
        b = sqs.receive_message(QueueUrl=other)
    """
    a, b = read(code).consumers
    assert (a.queue_ref.kind, a.queue_ref.value) == ("name", "invoices")
    assert (b.queue_ref.kind, b.queue_ref.value) == ("name", "refunds")
    assert a.visibility_override == 120 and b.visibility_override is None


def test_aioboto3_awaited_receive():
    code = f"""
    import aioboto3

    async def consume():
        session = aioboto3.Session()
        async with session.client("sqs") as sqs:
            while True:
                resp = await sqs.receive_message(QueueUrl="{URL}", WaitTimeSeconds=20, VisibilityTimeout=90)
    """
    c = only(read(code))
    assert c.queue_ref.value == URL and c.visibility_override == 90 and c.settings["wait_time"] == 20


def test_parameters_passed_as_a_dict():
    code = f"""
    import boto3

    PARAMS = {{"QueueUrl": "{URL}", "VisibilityTimeout": 300, "MaxNumberOfMessages": 5}}
    boto3.client("sqs").receive_message(**PARAMS)
    """
    c = only(read(code))
    assert c.queue_ref.value == URL and c.visibility_override == 300 and c.settings["max_messages"] == 5
    assert c.locations["visibility_override"].line == 3


def test_resource_api_queue_objects():
    code = """
    import os
    import boto3

    sqs = boto3.resource("sqs")
    queue = sqs.Queue(os.environ["THUMBNAIL_QUEUE_URL"])
    named = sqs.get_queue_by_name(QueueName="thumbnails-retry")

    def run():
        for message in queue.receive_messages(MaxNumberOfMessages=1, VisibilityTimeout=60):
            message.delete()
        for message in named.receive_messages():
            message.delete()
    """
    a, b = read(code).consumers
    assert (a.queue_ref.kind, a.queue_ref.value) == ("env", "THUMBNAIL_QUEUE_URL")
    assert a.visibility_override == 60 and a.settings["max_messages"] == 1
    assert (b.queue_ref.kind, b.queue_ref.value) == ("name", "thumbnails-retry")
    assert b.visibility_override is None


def test_heartbeat_thread_with_a_literal_interval():
    code = """
    import threading
    import boto3

    QUEUE_URL = "https://sqs.us-west-2.amazonaws.com/222222222222/render"
    sqs = boto3.client("sqs")

    def keep_alive(handle, done):
        while not done.wait(25):
            sqs.change_message_visibility(QueueUrl=QUEUE_URL, ReceiptHandle=handle, VisibilityTimeout=60)

    def main():
        resp = sqs.receive_message(QueueUrl=QUEUE_URL, VisibilityTimeout=60)
    """
    c = only(read(code))
    assert c.heartbeat is True
    assert c.heartbeat_interval == 25 and c.locations["heartbeat_interval"].line == line_of(code, "done.wait")
    assert c.heartbeat_extend_by == 60
    assert c.locations["heartbeat"].line == line_of(code, "change_message_visibility")


def test_setting_visibility_to_zero_is_a_release_not_a_heartbeat():
    code = """
    import boto3

    sqs = boto3.client("sqs")

    def loop(url):
        resp = sqs.receive_message(QueueUrl=url, VisibilityTimeout=30)
        for m in resp.get("Messages", []):
            try:
                handle(m)
            except Exception:
                sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"], VisibilityTimeout=0)
        sqs.change_message_visibility_batch(
            QueueUrl=url,
            Entries=[{"Id": m["MessageId"], "ReceiptHandle": m["ReceiptHandle"], "VisibilityTimeout": 0} for m in []],
        )
    """
    assert only(read(code)).heartbeat is False


def test_batch_and_resource_extensions_are_heartbeats():
    batch = """
    import boto3

    sqs = boto3.client("sqs")
    sqs.receive_message(QueueUrl="q")
    sqs.change_message_visibility_batch(QueueUrl="q", Entries=[{"Id": "1", "ReceiptHandle": h, "VisibilityTimeout": 120}])
    """
    resource = """
    import boto3

    queue = boto3.resource("sqs").Queue("https://sqs.us-east-1.amazonaws.com/1/q")
    for message in queue.receive_messages():
        message.change_visibility(VisibilityTimeout=extend_by)
    """
    assert only(read(batch)).heartbeat is True
    c = only(read(resource))
    assert c.heartbeat is True and c.heartbeat_interval is None


def test_other_libraries_receive_calls_are_not_sqs_consumers():
    code = """
    from azure.servicebus import ServiceBusClient

    with ServiceBusClient.from_connection_string(conn) as client:
        receiver = client.get_queue_receiver(queue_name="orders")
        for msg in receiver.receive_messages(max_message_count=10, max_wait_time=5):
            receiver.complete_message(msg)
        socket.receive_message(timeout=3)
    """
    wrapper = """
    import boto3

    class Inbox:
        def __init__(self, url):
            self.sqs, self.url = boto3.client("sqs"), url

        def receive_message(self):
            return self.sqs.receive_message(QueueUrl=self.url, VisibilityTimeout=40)

    def run(inbox):
        return inbox.receive_message()
    """
    assert read(code).consumers == []
    assert only(read(wrapper)).location.line == line_of(wrapper, "self.sqs.receive_message")


# ------------------------------------------------------------------------------------------------ Celery
CELERY_APP = """
import os
from datetime import datetime, timedelta

from celery import Celery

app = Celery("notify", broker="sqs://")
app.conf.update(
    broker_transport_options={
        "region": "eu-west-2",
        "visibility_timeout": 310,
        "predefined_queues": {
            "email-tasks": {"url": "https://sqs.eu-west-2.amazonaws.com/333333333333/email-tasks"},
            "sms-tasks": {"url": os.environ["SMS_QUEUE_URL"]},
        },
    },
    task_acks_late=True,
    worker_prefetch_multiplier=1,
)
app.conf.task_time_limit = 5 * 60


@app.task(bind=True, time_limit=900, default_retry_delay=300, retry_backoff_max=1200)
def send_email(self, notification_id):
    try:
        deliver(notification_id)
    except TemporaryError as e:
        self.retry(exc=e, countdown=2 ** self.request.retries)


def schedule(notification_id):
    send_email.apply_async((notification_id,), countdown=60 * 60)
    send_email.apply_async((notification_id,), eta=datetime.utcnow() + timedelta(hours=2))
"""


def test_celery_app_with_predefined_queues_is_one_consumer_per_queue():
    result = read(CELERY_APP, "app/celery.py")
    email, sms = result.consumers
    assert email.queue_ref == QueueRef(
        "url", "https://sqs.eu-west-2.amazonaws.com/333333333333/email-tasks", email.queue_ref.location
    )
    assert (sms.queue_ref.kind, sms.queue_ref.value) == ("env", "SMS_QUEUE_URL")
    app_line = line_of(CELERY_APP, "Celery(")
    assert email.id == f"app/celery.py:{app_line}[email-tasks]" and email.location.line == app_line
    for c in (email, sms):
        assert (c.kind, c.platform, c.source) == ("worker", "celery", "python")
        assert c.visibility_override is None  # Kombu never sends it on receive
        assert c.heartbeat is False
        assert c.settings["created_visibility"] == 310
        assert c.locations["created_visibility"].line == line_of(CELERY_APP, '"visibility_timeout"')
        assert c.work_timeout == 900  # the largest declared: the task's, above task_time_limit 300
        assert c.locations["work_timeout"].line == line_of(CELERY_APP, "time_limit=900")
        assert c.settings["acks_late"] is True and c.settings["prefetch"] == 1
    delays = {(d["what"], d["seconds"]): d["location"].line for d in email.settings["delays"]}
    assert delays == {
        ("default_retry_delay", 300): line_of(CELERY_APP, "default_retry_delay"),
        ("retry_backoff_max", 1200): line_of(CELERY_APP, "retry_backoff_max"),
        ("apply_async countdown", 3600): line_of(CELERY_APP, "countdown=60"),
        ("apply_async eta", 7200): line_of(CELERY_APP, "eta="),
    }
    (note,) = result.notes  # the computed retry countdown
    assert note.location.line == line_of(CELERY_APP, "self.retry") and "countdown" in note.message


def test_celeryconfig_module_default_queue_and_default_visibility():
    code = """
    broker_url = "sqs://"
    broker_transport_options = {"region": "us-east-1", "queue_name_prefix": "prod-", "wait_time_seconds": 20}
    task_soft_time_limit = 120
    """
    c = only(read(code, "celeryconfig.py"))
    assert (c.queue_ref.kind, c.queue_ref.value) == ("name", "prod-celery")
    assert c.settings["created_visibility"] == facts.CELERY_SQS_VISIBILITY_DEFAULT
    assert "created_visibility" not in c.locations
    assert c.settings["wait_time"] == 20 and c.location.line == 1
    assert c.work_timeout == 120 and c.settings["soft_time_limit"] == 120  # no hard limit: the soft one
    assert "acks_late" not in c.settings and "delays" not in c.settings


def test_django_settings_namespace_with_environment_broker():
    code = """
    import environ

    env = environ.Env()
    CELERY_BROKER_URL = env("CELERY_BROKER_URL", default="sqs://")
    CELERY_TASK_DEFAULT_QUEUE = "reports"
    CELERY_BROKER_TRANSPORT_OPTIONS = {"region": "eu-central-1", "visibility_timeout": 3600}
    CELERY_TASK_TIME_LIMIT = 1800
    CELERY_TASK_ACKS_LATE = True
    """
    c = only(read(code, "proj/settings.py"))
    assert (c.queue_ref.kind, c.queue_ref.value) == ("name", "reports")
    assert c.settings["created_visibility"] == 3600 and c.work_timeout == 1800
    assert c.settings["acks_late"] is True
    assert c.location.line == line_of(code, "CELERY_BROKER_URL =")


def test_config_dict_with_an_sqs_endpoint_and_transport():
    code = """
    import os

    class Config:
        NOTIFICATION_QUEUE_PREFIX = os.getenv("NOTIFICATION_QUEUE_PREFIX")
        CELERY = {
            "broker_url": "https://sqs.eu-west-1.amazonaws.com",
            "broker_transport": "sqs",
            "broker_transport_options": {
                "region": "eu-west-1",
                "visibility_timeout": 310,
                "queue_name_prefix": NOTIFICATION_QUEUE_PREFIX,
            },
            "worker_prefetch_multiplier": 1,
        }
    """
    result = read(code, "app/config.py")
    c = only(result)
    assert c.settings["created_visibility"] == 310 and c.settings["prefetch"] == 1
    assert c.queue_ref is None  # the prefix comes from the environment
    assert any("queue name" in n.message for n in result.notes)


def test_attribute_configuration_and_shared_tasks():
    code = """
    from celery import Celery, shared_task

    app = Celery("etl")
    app.conf.broker_url = "sqs://"
    app.conf.broker_transport_options = {"predefined_queues": {"etl": {"url": "https://sqs.us-east-1.amazonaws.com/4/etl"}}}

    @shared_task(acks_late=True, soft_time_limit=50, time_limit=60)
    def load(batch):
        pass

    def later(batch):
        load.apply_async((batch,), countdown=90)
    """
    c = only(read(code, "etl/celery.py"))
    assert c.queue_ref.value == "https://sqs.us-east-1.amazonaws.com/4/etl"
    assert "created_visibility" not in c.settings  # Kombu does not create predefined queues
    assert c.work_timeout == 60 and c.settings["soft_time_limit"] == 50
    assert c.settings["acks_late"] is True and c.locations["acks_late"].line == line_of(code, "acks_late")
    assert [d["seconds"] for d in c.settings["delays"]] == [90]


def test_redis_and_amqp_celery_apps_are_not_sqs_consumers():
    redis = """
    broker_url = "redis://localhost:6379/0"
    broker_transport_options = {"visibility_timeout": 43200}
    task_time_limit = 60
    """
    amqp = """
    from celery import Celery

    app = Celery("x", broker="amqp://guest@localhost//")
    app.conf.update(task_acks_late=True)

    @app.task(time_limit=10)
    def f():
        pass
    """
    assert read(redis, "celeryconfig.py").consumers == []
    assert read(amqp, "tasks.py").consumers == []
    assert read(amqp, "tasks.py").notes == []


TASKS_ONLY = """
from app.worker import app

DELAY = 7200


@app.task(bind=True, soft_time_limit=600, time_limit=900, acks_late=True, default_retry_delay=300)
def remind(self, user_id):
    try:
        send(user_id)
    except IOError:
        self.retry(countdown=DELAY)


@app.task(time_limit=120)
def ping():
    ...


def later(user_id):
    remind.apply_async(args=[user_id], countdown=60 * 60)
    remind.apply_async(args=[user_id], countdown=wait_for(user_id))
"""


def test_a_file_of_tasks_with_no_broker_is_one_tasks_only_consumer():
    result = read(TASKS_ONLY, "app/tasks.py")
    c = only(result)
    assert (c.kind, c.platform, c.source, c.queue_ref) == ("worker", "celery", "python", None)
    assert c.settings["celery_tasks_only"] is True
    first = line_of(TASKS_ONLY, "@app.task(bind")
    assert c.id == f"app/tasks.py:{first}" and c.location.line == first
    assert [(d["seconds"], d["what"], d["location"].line) for d in c.settings["delays"]] == [
        (300, "default_retry_delay", first),
        (7200, "retry countdown", line_of(TASKS_ONLY, "self.retry")),
        (3600, "apply_async countdown", line_of(TASKS_ONLY, "countdown=60")),
    ]
    assert c.work_timeout == 900 and c.locations["work_timeout"].line == first  # the largest time_limit
    assert c.locations["work_timeout"].column == TASKS_ONLY.splitlines()[first].index("time_limit=900") + 1
    assert c.settings["acks_late"] is True and c.locations["acks_late"].line == first
    assert c.locations["delays"].line == first
    # the computed countdown waits on the consumer (noted only when an SQS app of the project takes the tasks)
    assert result.notes == []
    (note,) = c.settings["celery_tasks_notes"]
    assert "wait_for(user_id)" in note.message and note.address == c.id
    assert note.location.line == line_of(TASKS_ONLY, "wait_for(")


def test_global_task_settings_of_a_file_with_no_broker_are_task_facts():
    code = """
    import os

    CELERY_BROKER_URL = os.environ["BROKER_URL"]
    CELERY_TASK_ACKS_LATE = True
    CELERY_TASK_TIME_LIMIT = 1800
    """
    c = only(read(code, "proj/settings.py"))
    assert c.settings["celery_tasks_only"] is True and c.queue_ref is None
    assert c.work_timeout == 1800 and c.settings["acks_late"] is True
    assert c.locations["acks_late"].line == line_of(code, "ACKS_LATE")


def test_no_tasks_only_consumer_without_task_facts_or_beside_a_broker_that_is_not_sqs():
    plain = """
    from app.worker import app

    @app.task
    def ping():
        return "pong"

    def go():
        ping.delay()
    """
    assert read(plain, "app/tasks.py").consumers == []
    redis = """
    from celery import Celery

    app = Celery("x", broker="redis://localhost:6379/0")

    @app.task(time_limit=900, acks_late=True)
    def f():
        f.apply_async(countdown=wait())
    """
    result = read(redis, "app/tasks.py")
    assert (result.consumers, result.notes) == ([], [])
    sqs = TASKS_ONLY.replace(
        "from app.worker import app", 'from celery import Celery\napp = Celery("x", broker="sqs://")'
    )
    c = only(read(sqs, "app/tasks.py"))
    assert "celery_tasks_only" not in c.settings and c.queue_ref.value == "celery"  # an app of its own


# ------------------------------------------------------------------------------------------------ consistent
def test_a_consistent_consumer_reads_cleanly():
    code = """
    import threading
    import boto3

    QUEUE_URL = "https://sqs.eu-west-1.amazonaws.com/123456789012/orders"
    VISIBILITY = 300
    sqs = boto3.client("sqs")

    def extend(handle, stop):
        while not stop.wait(120):
            sqs.change_message_visibility(QueueUrl=QUEUE_URL, ReceiptHandle=handle, VisibilityTimeout=VISIBILITY)

    def run():
        while True:
            resp = sqs.receive_message(QueueUrl=QUEUE_URL, VisibilityTimeout=VISIBILITY, WaitTimeSeconds=20)
            for m in resp.get("Messages", []):
                stop = threading.Event()
                threading.Thread(target=extend, args=(m["ReceiptHandle"], stop)).start()
                process(m)
                stop.set()
                sqs.delete_message(QueueUrl=QUEUE_URL, ReceiptHandle=m["ReceiptHandle"])
    """
    result = read(code)
    c = only(result)
    assert result.notes == []
    assert (c.queue_ref.kind, c.queue_ref.value, c.visibility_override) == ("url", URL, 300)
    assert (c.heartbeat, c.heartbeat_interval, c.heartbeat_extend_by) == (True, 120, 300)
    assert c.settings == {"wait_time": 20}


# ------------------------------------------------------------------------------------------------ robustness
def test_a_file_with_syntax_errors_is_read_as_far_as_possible():
    code = """
    import boto3

    sqs = boto3.client("sqs")
    resp = sqs.receive_message(QueueUrl="orders", VisibilityTimeout=60)

    def broken(:
        return [1, 2,
    """
    c = only(read(code))
    assert c.visibility_override == 60 and c.queue_ref.value == "orders"


def test_garbage_binary_and_deep_nesting_never_raise():
    samples = [
        bytes(range(256)) * 200,
        b"x = " + b"(" * 20_000 + b"1" + b")" * 20_000,
        b"import boto3\nsqs.receive_message(QueueUrl='q', VisibilityTimeout=5\n" + b"[\n" * 20_000,
        b"import boto3\nA = B\nB = A\nsqs.receive_message(QueueUrl=A, VisibilityTimeout=B)\n",
        b"\n".join(b"a%d = a%d + a%d" % (i, i + 1, i + 1) for i in range(500))
        + b"\nimport boto3\nc.receive_message(QueueUrl='q', VisibilityTimeout=a0)\n",
        b"import boto3\nc.receive_message(**" + b'{"a": ' * 3_000 + b"1" + b"}" * 3_000 + b")\n",
        "\ufeffimport boto3\n# é\nc.receive_message(QueueUrl='é', VisibilityTimeout=1e400)\n".encode(),
    ]
    for data in samples:
        result = python.read("odd.py", data)
        for c in result.consumers:
            assert c.visibility_override is None or isinstance(c.visibility_override, (int, float))
    cycle = python.read("odd.py", samples[3])
    assert only(cycle).visibility_override is None
    assert len([n for n in cycle.notes if "VisibilityTimeout" in n.message]) == 1


def test_a_parse_that_runs_out_of_budget_is_one_note(monkeypatch):
    monkeypatch.setattr(code, "PARSE_CPU_S", -10.0)  # the one budgeted parse of every reader
    result = python.read("big.py", b"import boto3\n" + b"sqs.receive_message(QueueUrl='q')\n" * 20_000)
    assert result.consumers == []
    (note,) = result.notes
    assert note.location.file == "big.py" and "parser gave up" in note.message
    monkeypatch.undo()
    assert len(python.read("big.py", b"import boto3\nsqs.receive_message(QueueUrl='q')\n").consumers) == 1


def test_a_settings_file_with_one_class_per_environment_keeps_the_sqs_one():
    # the base settings are on SQS; a later test class swaps in a fake broker and must not hide them
    code = """
    class Config:
        CELERY = {
            "broker_url": "sqs://",
            "broker_transport_options": {"queue_name_prefix": "live-", "visibility_timeout": 310},
            "task_default_queue": "jobs",
        }

    class Test(Config):
        CELERY = {"broker_url": "memory://", "broker_transport": None}
    """
    c = only(read(code, "app/config.py"))
    assert c.platform == "celery" and (c.queue_ref.kind, c.queue_ref.value) == ("name", "live-jobs")
    assert c.settings["created_visibility"] == 310
    assert c.locations["created_visibility"].line == line_of(code, "visibility_timeout")
    # a file whose only settings class is not on SQS stays without consumer
    assert read(code.replace('"sqs://"', '"redis://cache:6379/0"')).consumers == []


# ------------------------------------------------------------------------------------------------ numbers
BEYOND = "123456789012345678901"  # 21 digits: beyond values.MAX_NUMBER (10**15), no setting comes near it


@pytest.mark.parametrize(
    ("setup", "argument", "literal"),
    [
        ("", f"VisibilityTimeout={BEYOND}", BEYOND),
        (f"VT = {BEYOND}\n", "VisibilityTimeout=VT", BEYOND),  # through a constant of the file
        ("", "VisibilityTimeout=1e400", "1e400"),  # infinite as a float
        ("", "VisibilityTimeout=0x1000000000000000000", "0x1000000000000000000"),
        ("", f"WaitTimeSeconds={BEYOND}", BEYOND),
    ],
    ids=["literal", "constant", "float", "hex", "wait-time"],
)
def test_a_number_beyond_any_aws_limit_is_not_read_and_is_named_in_a_note(setup, argument, literal):
    code = f'import boto3\nsqs = boto3.client("sqs")\n{setup}sqs.receive_message(QueueUrl="q", {argument})\n'
    result = python.read("app/worker.py", code.encode())
    c = only(result)
    assert c.visibility_override is None and "wait_time" not in c.settings
    (note,) = result.notes
    assert literal in note.message and "not read" in note.message and note.address == c.id
    assert note.location.line == code.count("\n")  # at the receive's argument


@pytest.mark.parametrize("value", [50_000, 43_200, 0, -1, 10**15])
def test_a_number_outside_the_aws_range_is_read_for_the_rules_to_judge(value):
    code = f'import boto3\nsqs = boto3.client("sqs")\nsqs.receive_message(QueueUrl="q", VisibilityTimeout={value})\n'
    result = python.read("app/worker.py", code.encode())
    assert only(result).visibility_override == value and result.notes == []


def test_a_celery_time_limit_beyond_any_aws_limit_is_not_read():
    code = f'from celery import Celery\napp = Celery("x", broker="sqs://")\n\n@app.task(time_limit={BEYOND})\ndef f():\n    pass\n'
    result = python.read("app/tasks.py", code.encode())
    assert only(result).work_timeout is None
    (note,) = result.notes
    assert BEYOND in note.message and "time_limit" in note.message


# ------------------------------------------------------------------------------------------------ places
PLACED = {
    "loop": (LOOP, "app/worker.py"),
    "constants": (
        """
        import os
        import boto3

        VT = 10 * 60
        sqs = boto3.client("sqs")

        def keep_alive(handle, done):
            while not done.wait(25):
                sqs.change_message_visibility(QueueUrl="q", ReceiptHandle=handle, VisibilityTimeout=60)

        def poll():
            return sqs.receive_message(
                QueueUrl="q", VisibilityTimeout=VT, WaitTimeSeconds=int(os.getenv("WAIT", "20")) * 1
            )
        """,
        "app/worker.py",
    ),
    "splat": (
        f'import boto3\nPARAMS = {{"QueueUrl": "{URL}", "VisibilityTimeout": 300}}\nboto3.client("sqs").receive_message(**PARAMS)\n',
        "app/worker.py",
    ),
    "celery": (CELERY_APP, "app/celery.py"),
    "celeryconfig": (
        """
        broker_url = "sqs://"
        broker_transport_options = {"region": "us-east-1", "wait_time_seconds": 20, "visibility_timeout": 90}
        task_soft_time_limit = 120
        worker_prefetch_multiplier = 4
        """,
        "celeryconfig.py",
    ),
    "tasks-only": (TASKS_ONLY, "app/tasks.py"),
}


@pytest.mark.parametrize("name", list(PLACED))
def test_every_number_the_reader_sets_has_a_place_for_the_fixer(name):
    code, path = PLACED[name]
    data = textwrap.dedent(code).lstrip("\n").encode()
    result = python.read(path, data)
    checked = 0
    for c in result.consumers:
        for field in c.locations:
            value = getattr(c, field) if field in type(c).__slots__ else c.settings.get(field)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                continue
            at = result.places[(c.id, field)]
            checked += 1
            span = result.spans[(c.id, field)]
            if at.reason is None:  # the digits of the literal read, inside what the reader read
                assert data[at.start : at.end].decode() == str(value)
                assert span[0] <= at.start and at.end <= span[1]
            else:
                assert at.reason in ("binding", "env", "computed", "written")
    assert checked >= 1


def test_a_place_says_what_a_number_comes_from():
    code, path = PLACED["constants"]
    result = python.read(path, textwrap.dedent(code).lstrip("\n").encode())
    c = only(result)
    vt, wait = result.places[(c.id, "visibility_override")], result.places[(c.id, "wait_time")]
    assert (vt.reason, vt.name, vt.line) == ("binding", "VT", 4)
    assert (wait.reason, wait.name) == ("env", "WAIT")
    assert c.visibility_override == 600 and c.settings["wait_time"] == 20
    assert result.places[(c.id, "heartbeat_interval")].reason is None and c.heartbeat_interval == 25


@pytest.mark.parametrize(
    "line",
    [
        'a = sqs.receive_message(QueueUrl="a", VisibilityTimeout=30); b = sqs.receive_message(QueueUrl="b")',
        'sqs.receive_message(QueueUrl="a"), boto3.resource("sqs").Queue("b").receive_messages(VisibilityTimeout=5)',
    ],
    ids=["two-clients", "client-and-resource"],
)
def test_two_receives_on_one_line_are_two_consumers_with_their_own_ids(line):
    code = f'import boto3\nsqs = boto3.client("sqs")\n{line}\n'
    result = python.read("app/worker.py", code.encode())
    a, b = result.consumers
    assert (
        a.id == "app/worker.py:3" and b.id == f"app/worker.py:3:{b.location.column}" and b.location.column > 1
    )
    assert (a.queue_ref.value, b.queue_ref.value) == ("a", "b")
