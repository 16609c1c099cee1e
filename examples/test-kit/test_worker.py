"""A consumer and its tests on visguard's test kit, as a team would write them (``make demo-kit`` runs them).

The worker receives, processes for longer than the queue's visibility timeout, and keeps the message hidden with
a heartbeat thread. On the virtual clock each test covers hours of consumer time in a fraction of a second.
"""

import asyncio
import threading
import time
import unittest

import boto3
from visguard.engine.testing import mock_sqs


def work_with_heartbeat(sqs, url, seconds, every):
    """Receive one message, 'process' it for ``seconds`` while extending its visibility every ``every`` s."""
    (msg,) = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20)["Messages"]
    done = threading.Event()

    def beat():
        while not done.wait(every):
            sqs.change_message_visibility(
                QueueUrl=url, ReceiptHandle=msg["ReceiptHandle"], VisibilityTimeout=2 * every
            )

    t = threading.Thread(target=beat)
    t.start()
    time.sleep(seconds)  # the work
    done.set()
    t.join()
    sqs.delete_message(QueueUrl=url, ReceiptHandle=msg["ReceiptHandle"])


@mock_sqs  # bare, as moto users write @mock_aws
def test_heartbeat_keeps_a_three_hour_job_hidden():
    sqs = boto3.client("sqs", region_name="eu-west-1")
    url = sqs.create_queue(QueueName="jobs", Attributes={"VisibilityTimeout": "60"})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="encode video 42")
    start = time.time()
    work_with_heartbeat(sqs, url, seconds=3 * 3600, every=30)
    assert time.time() - start >= 3 * 3600  # three virtual hours
    attrs = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert (
        attrs["ApproximateNumberOfMessages"] == "0" and attrs["ApproximateNumberOfMessagesNotVisible"] == "0"
    )


@mock_sqs
class TestWithoutHeartbeat(unittest.TestCase):  # on a class: setUp and each test share one engine
    def setUp(self):
        self.sqs = boto3.client("sqs", region_name="eu-west-1")
        self.url = self.sqs.create_queue(QueueName="jobs", Attributes={"VisibilityTimeout": "60"})["QueueUrl"]
        self.sqs.send_message(QueueUrl=self.url, MessageBody="encode video 43")

    def test_a_slow_job_is_delivered_twice(self):
        (first,) = self.sqs.receive_message(QueueUrl=self.url)["Messages"]
        time.sleep(90)  # longer than the 60 s visibility timeout, no heartbeat
        (again,) = self.sqs.receive_message(QueueUrl=self.url, AttributeNames=["All"])["Messages"]
        assert again["MessageId"] == first["MessageId"]
        assert again["Attributes"]["ApproximateReceiveCount"] == "2"


def test_asyncio_consumers_use_the_virtual_clock_too():
    async def poll(sqs, url):
        await asyncio.sleep(3600)  # an hour, virtually
        return sqs.receive_message(QueueUrl=url).get("Messages", [])

    with mock_sqs() as eng:
        sqs = boto3.client("sqs", region_name="eu-west-1")
        url = sqs.create_queue(QueueName="later", Attributes={"DelaySeconds": "900"})["QueueUrl"]
        sqs.send_message(QueueUrl=url, MessageBody="x")
        t0 = eng.now
        assert len(asyncio.run(poll(sqs, url))) == 1
        assert eng.now - t0 >= 3600
