"""The test kit: mock_sqs() routes boto3 to one engine on a virtual clock; threaded consumers run unchanged."""

from __future__ import annotations

import threading
import time

import boto3
import pytest
from botocore.exceptions import ClientError
from visguard.engine import Engine
from visguard.engine.testing import mock_sqs


class HeartbeatConsumer:
    """A realistic consumer, written for real SQS: a worker thread long-polls batches, a heartbeat thread
    extends the visibility of what is being worked on every `beat` seconds (time.sleep), batch deletes."""

    def __init__(self, url, work_seconds, beat=20, extend=60):
        self.sqs = boto3.client("sqs", region_name="us-east-1")
        self.url, self.work, self.beat, self.extend = url, work_seconds, beat, extend
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.inflight = {}  # receipt handle -> body
        self.done = []
        self.threads = [threading.Thread(target=self._work), threading.Thread(target=self._heartbeat)]

    def start(self):
        for t in self.threads:
            t.start()

    def close(self):
        self.stop.set()
        for t in self.threads:
            t.join()

    def _work(self):
        while not self.stop.is_set():
            got = self.sqs.receive_message(QueueUrl=self.url, MaxNumberOfMessages=10, WaitTimeSeconds=20)
            batch = got.get("Messages", [])
            with self.lock:
                self.inflight.update({m["ReceiptHandle"]: m["Body"] for m in batch})
            finished = []
            for m in batch:
                time.sleep(self.work)  # the work itself
                self.done.append((m["Body"], time.time()))
                finished.append({"Id": str(len(finished)), "ReceiptHandle": m["ReceiptHandle"]})
            if finished:
                with self.lock:
                    for e in finished:
                        self.inflight.pop(e["ReceiptHandle"])
                r = self.sqs.delete_message_batch(QueueUrl=self.url, Entries=finished)
                assert "Failed" not in r, r

    def _heartbeat(self):
        while not self.stop.is_set():
            time.sleep(self.beat)
            with self.lock:
                handles = list(self.inflight)
            for h in handles:
                try:
                    self.sqs.change_message_visibility(
                        QueueUrl=self.url, ReceiptHandle=h, VisibilityTimeout=self.extend
                    )
                except ClientError as e:  # deleted by the worker since the snapshot: as on AWS
                    assert e.response["Error"]["Code"] == "InvalidParameterValue"


@pytest.mark.slow
def test_threaded_heartbeat_consumer_runs_unchanged_across_12_virtual_hours():
    with mock_sqs() as eng:
        sqs = boto3.client("sqs", region_name="us-east-1")
        url = sqs.create_queue(QueueName="jobs", Attributes={"VisibilityTimeout": "30"})["QueueUrl"]
        t0 = time.time()
        assert t0 == eng.now
        for i in range(20):
            sqs.send_message(QueueUrl=url, MessageBody=f"job{i}")
        consumer = HeartbeatConsumer(url, work_seconds=1800, beat=120, extend=300)  # 30 min each, 60 x the VT
        consumer.start()
        time.sleep(12 * 3600)
        consumer.close()
        bodies = [b for b, _ in consumer.done]
        # 20 jobs x 30 min = 10 h < 12 h: every job done exactly once (the heartbeat kept each batch hidden)
        assert sorted(bodies) == sorted(f"job{i}" for i in range(20))
        assert [round(t - t0) for _, t in consumer.done] == [1800 * (i + 1) for i in range(20)]
        assert eng.now >= t0 + 12 * 3600
        assert eng.peek(url) == []


def test_without_heartbeat_the_same_consumer_duplicates():
    with mock_sqs():
        sqs = boto3.client("sqs", region_name="us-east-1")
        url = sqs.create_queue(QueueName="jobs", Attributes={"VisibilityTimeout": "30"})["QueueUrl"]
        sqs.send_message(QueueUrl=url, MessageBody="slow")
        consumer = HeartbeatConsumer(url, work_seconds=45, beat=10**6)  # a heartbeat that never beats
        consumer.threads = consumer.threads[:1]
        c2 = HeartbeatConsumer(url, work_seconds=45, beat=10**6)
        c2.threads = c2.threads[:1]
        consumer.start()
        c2.start()
        time.sleep(200)
        consumer.close()
        c2.close()
    assert [b for b, _ in consumer.done + c2.done] == ["slow", "slow"]  # a duplicate, 30 s after the receive


def test_routes_client_session_and_resource_to_one_engine_with_regions_in_urls():
    with mock_sqs(account_id="111122223333") as eng:
        a = boto3.client("sqs", region_name="eu-west-1")
        b = boto3.Session(region_name="eu-west-1").client("sqs")
        url = a.create_queue(QueueName="shared")["QueueUrl"]
        assert url == "https://sqs.eu-west-1.amazonaws.com/111122223333/shared"
        arn = b.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        assert arn == "arn:aws:sqs:eu-west-1:111122223333:shared"
        other = boto3.client("sqs", region_name="us-west-2")
        assert "QueueUrls" not in other.list_queues()  # queue names are per region
        other.create_queue(QueueName="shared")
        res = boto3.resource("sqs", region_name="eu-west-1")
        q = res.get_queue_by_name(QueueName="shared")
        q.send_message(MessageBody="via resource")
        (m,) = q.receive_messages(WaitTimeSeconds=1)
        assert m.body == "via resource"
        m.change_visibility(VisibilityTimeout=0)
        (m,) = q.receive_messages()
        m.delete()
        assert eng.peek(url) == []
        with pytest.raises(a.exceptions.QueueDoesNotExist):
            a.get_queue_url(QueueName="missing")
        assert a.can_paginate("list_queues") and not a.can_paginate("receive_message")


def test_paginators_walk_every_page():
    with mock_sqs():
        sqs = boto3.client("sqs", region_name="us-east-1")
        dlq = sqs.create_queue(QueueName="dlq")["QueueUrl"]
        arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        for i in range(25):
            sqs.create_queue(
                QueueName=f"src{i:02d}",
                Attributes={"RedrivePolicy": f'{{"deadLetterTargetArn":"{arn}","maxReceiveCount":"3"}}'},
            )
        pages = list(sqs.get_paginator("list_queues").paginate(PaginationConfig={"PageSize": 10}))
        assert [len(p["QueueUrls"]) for p in pages] == [10, 10, 6]
        sources = sqs.get_paginator("list_dead_letter_source_queues").paginate(QueueUrl=dlq, MaxResults=7)
        assert sum(len(p["queueUrls"]) for p in sources) == 25
    native = Engine().client()
    native.create_queue(QueueName="x")
    assert list(native.get_paginator("list_queues").paginate())[0]["QueueUrls"][0].endswith("/x")


def test_decorator_and_time_is_restored():
    seen = {}

    @mock_sqs(start_time=1_000_000.0)
    def body():
        seen["now"] = time.time()
        time.sleep(3600)
        seen["later"] = time.time()

    real = time.time()
    body()
    assert seen == {"now": 1_000_000.0, "later": 1_003_600.0}
    assert abs(time.time() - real) < 60 and time.sleep.__module__ == "time"


def test_sqs_engine_fixture(sqs_engine):
    sqs = boto3.client("sqs", region_name="us-east-1")
    url = sqs.create_queue(QueueName="f")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="x")
    m = sqs.receive_message(QueueUrl=url, VisibilityTimeout=60)["Messages"][0]
    sqs_engine.advance(61)
    again = sqs.receive_message(QueueUrl=url, AttributeNames=["ApproximateReceiveCount"])["Messages"][0]
    assert again["MessageId"] == m["MessageId"] and again["Attributes"]["ApproximateReceiveCount"] == "2"


def test_wall_clock_long_poll_is_answered_by_another_thread():
    with mock_sqs(clock="wall") as eng:
        sqs = boto3.client("sqs", region_name="us-east-1")
        url = sqs.create_queue(QueueName="w")["QueueUrl"]
        start = time.time()
        assert abs(eng.now - start) < 5
        sender = threading.Timer(0.3, lambda: sqs.send_message(QueueUrl=url, MessageBody="late"))
        sender.start()
        got = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=5)
        sender.join()
        assert got["Messages"][0]["Body"] == "late"
        assert 0.2 < time.time() - start < 4.5


def test_readme_heartbeat_across_12_hours(sqs_engine):  # the example of engine/README.md, verbatim
    sqs = boto3.client("sqs", region_name="us-east-1")
    url = sqs.create_queue(QueueName="jobs", Attributes={"VisibilityTimeout": "120"})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="encode video")
    m = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20)["Messages"][0]
    done, errors = threading.Event(), []

    def heartbeat():  # the production heartbeat, unchanged
        while not done.wait(60):
            try:
                sqs.change_message_visibility(
                    QueueUrl=url, ReceiptHandle=m["ReceiptHandle"], VisibilityTimeout=120
                )
            except ClientError as e:
                errors.append(e.response["Error"]["Message"])
                return

    t = threading.Thread(target=heartbeat)
    t.start()
    for _ in range(23):  # 11.5 hours of work: never redelivered meanwhile
        time.sleep(1800)
        assert "Messages" not in sqs.receive_message(QueueUrl=url)
    time.sleep(1800)  # 12 hours: the cap per receipt (AWS: no extension past it)
    done.set()
    t.join()
    assert "beyond the limit [43200 seconds]" in errors[0]
    again = sqs.receive_message(QueueUrl=url, AttributeNames=["ApproximateReceiveCount"])["Messages"][0]
    assert again["Attributes"]["ApproximateReceiveCount"] == "2" and sqs_engine.now == 1_767_225_600 + 43_200
