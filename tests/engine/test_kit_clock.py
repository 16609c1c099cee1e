"""Issue 28 ("Crash and hang", test kit): participants that poll without waiting, and asyncio's clock, under
mock_sqs(). Each case runs in a subprocess with a real-time timeout, so a regression (the virtual clock standing
still forever) fails the test instead of hanging the suite; the case prints what it saw as JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

PRELUDE = """
import asyncio, json, threading, time
import boto3
from visguard.engine.testing import mock_sqs

with mock_sqs() as eng:
    start = eng.now
    sqs = boto3.client("sqs", region_name="us-east-1")
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    out = {}
{body}
    out["clock"] = eng.now - start
print(json.dumps(out))
"""

CASES = {
    # a consumer thread that short-polls without ever waiting, while the test sleeps an hour
    "short-poll consumer thread": (
        """
stop, got = threading.Event(), []

def consume():
    while not stop.is_set():
        for m in sqs.receive_message(QueueUrl=url).get("Messages", []):
            got.append([m["Body"], time.time() - start])
            sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])

t = threading.Thread(target=consume)
t.start()
sqs.send_message(QueueUrl=url, MessageBody="now")
sqs.send_message(QueueUrl=url, MessageBody="in ten minutes", DelaySeconds=600)
time.sleep(3600)
stop.set()
t.join()
out["got"] = got
""",
        lambda out: out == {"got": [["now", 0.0], ["in ten minutes", 600.0]], "clock": 3600.0},
    ),
    # a thread that polls until its own deadline without sleeping; the test joins it
    "poll until a deadline in a thread": (
        """
got = []

def poll():
    deadline = time.time() + 300
    while time.time() < deadline:
        for m in sqs.receive_message(QueueUrl=url, VisibilityTimeout=1000).get("Messages", []):
            got.append([m["Body"], time.time() - start])
    got.append(["end", time.time() - start])

sqs.send_message(QueueUrl=url, MessageBody="delayed", DelaySeconds=10)
t = threading.Thread(target=poll)
t.start()
t.join()
out["got"] = got
""",
        # the message at the very moment it became visible; the loop ends at most 1/16 past its deadline
        lambda out: out["got"][0] == ["delayed", 10.0] and 300 <= out["got"][1][1] <= 300 * 17 / 16,
    ),
    # the test thread itself spins on the clock alone (no engine call, nothing scheduled)
    "busy wait on time.time": (
        """
while time.time() < start + 120:
    pass
out["at"] = time.time() - start
""",
        lambda out: 120 <= out["at"] <= 120 * 17 / 16,
    ),
    # asyncio.sleep inside mock_sqs: the event loop waits on the virtual clock
    "asyncio.sleep(3600)": (
        """
async def main():
    await asyncio.sleep(3600)
    return time.time() - start

out["slept"] = asyncio.run(main())
""",
        lambda out: abs(out["slept"] - 3600) < 1e-3 and abs(out["clock"] - 3600) < 1e-3,
    ),
    "asyncio.sleep(1), gather and wait_for": (
        """
async def main():
    await asyncio.sleep(1)
    a = time.time() - start
    await asyncio.gather(asyncio.sleep(5), asyncio.sleep(7))
    b = time.time() - start
    try:
        await asyncio.wait_for(asyncio.sleep(100), timeout=2)
    except asyncio.TimeoutError:
        c = time.time() - start
    return [a, b, c]

out["at"] = asyncio.run(main())
""",
        lambda out: [round(x, 6) for x in out["at"]] == [1.0, 8.0, 10.0],
    ),
    # a coroutine polling SQS without awaiting anything but sleep(0), beside a thread sleeping in real code
    "asyncio short poll with sleep(0)": (
        """
async def main():
    got = []
    while not got:
        got = sqs.receive_message(QueueUrl=url).get("Messages", [])
        await asyncio.sleep(0)
    return [got[0]["Body"], time.time() - start]

sqs.send_message(QueueUrl=url, MessageBody="delayed", DelaySeconds=900)
out["got"] = asyncio.run(main())
""",
        lambda out: out["got"] == ["delayed", 900.0],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_clock_moves_for_spinning_and_asyncio_participants(case):
    body, check = CASES[case]
    code = PRELUDE.replace("{body}", textwrap.indent(textwrap.dedent(body), "    "))
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    try:
        proc = subprocess.run(
            [sys.executable, "-P", "-c", code], env=env, capture_output=True, text=True, timeout=60
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{case}: the virtual clock stood still (no end within 60 real seconds)")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert check(out), out


# Issue 33 (hang): a second thread that was not started inside the open block opens its own mock_sqs(). It would
# share the engine but not the clock (its sleeps real, the opener's virtual): refused in one line. A thread started
# inside the block may open a nested one (it is a participant: same engine, same clock).
SECOND_THREAD = """
import json, queue, threading, time
from visguard.engine.testing import mock_sqs

out = {}
ready = threading.Event()
done = queue.Queue()  # waited on in real time (mock_sqs makes Event.wait virtual in the block)

def outsider():
    ready.wait()
    try:
        with mock_sqs():
            time.sleep(3600)
        out["outsider"] = "opened"
    except RuntimeError as exc:
        out["outsider"] = str(exc)
    done.put(True)

t = threading.Thread(target=outsider)
t.start()  # before the block: not a participant
with mock_sqs() as eng:
    def insider():
        with mock_sqs() as inner:
            out["insider_same_engine"] = inner is eng
            time.sleep(600)
    ready.set()
    done.get(timeout=30)
    i = threading.Thread(target=insider)
    i.start()
    i.join()
t.join()
print(json.dumps(out))
"""


def test_mock_opened_by_an_outside_thread_is_refused_in_one_line():
    proc = subprocess.run(
        [sys.executable, "-P", "-c", SECOND_THREAD], capture_output=True, text=True, timeout=60,  # a hang guard: the refusal itself is immediate
        env={**os.environ, "PYTHONSAFEPATH": "1"},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert "already open in another thread" in out["outsider"] and "\n" not in out["outsider"]
    assert out["insider_same_engine"] is True
