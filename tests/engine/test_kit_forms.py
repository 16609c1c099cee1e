"""Issue 22 section 1: every form of moto's mock_aws works as mock_sqs, with the same meaning. Generated test
files run under pytest and under unittest in a subprocess; the counts of collected tests and the marks each
test body writes (from inside the mock: virtual time, a routed client) show that each test was collected and ran.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET

import boto3
import pytest
from visguard.engine import Engine
from visguard.engine.testing import mock_sqs

FORMS = textwrap.dedent(
    """
    import asyncio, os, time, unittest

    import boto3
    import pytest
    from visguard.engine import Engine
    from visguard.engine.testing import mock_sqs

    START = 1_767_225_600.0  # the engine's default start: time.time() reads it only inside a mock


    def queues():
        return boto3.client("sqs", region_name="us-east-1").list_queues().get("QueueUrls", [])


    def mark(name, expect_queues=()):
        # inside a mock: virtual time and a client answered by the engine (no credentials, no network)
        assert START <= time.time() < START + 86_400 or time.time() < 10_000
        names = sorted(u.rsplit("/", 1)[1] for u in queues())
        assert names == sorted(expect_queues) if expect_queues is not None else "from-setup" in names
        with open(os.environ["KIT_MARKS"], "a") as f:
            f.write(name + "\\n")


    @mock_sqs
    def test_bare():
        assert time.time() == START
        mark("bare")


    @mock_sqs()
    def test_called():
        boto3.client("sqs", region_name="us-east-1").create_queue(QueueName="a")
        mark("called", ["a"])


    @mock_sqs(start_time=1000.0, account_id="111122223333")
    def test_with_arguments():
        url = boto3.client("sqs", region_name="us-east-1").create_queue(QueueName="k")["QueueUrl"]
        assert time.time() == 1000.0 and "/111122223333/" in url
        mark("arguments", ["k"])


    @mock_sqs
    @pytest.mark.parametrize("n", [1, 2])
    def test_bare_parametrized(n):
        mark(f"param{n}")  # a new engine per call: no queue of the other case


    def test_context_manager():
        with mock_sqs() as eng:
            boto3.client("sqs", region_name="us-east-1").create_queue(QueueName="cm")
            assert [q.name for q in eng.queues()] == ["cm"]
            mark("context", ["cm"])


    def test_nested_mocks_share_the_engine():
        with mock_sqs() as outer:
            with mock_sqs() as inner:
                assert inner is outer
            boto3.client("sqs", region_name="us-east-1").create_queue(QueueName="n")
            mark("nested", ["n"])


    @mock_sqs
    class TestPytestStyle:
        def setup_method(self, method):
            boto3.client("sqs", region_name="us-east-1").create_queue(QueueName="from-setup")

        def test_sees_setup(self):
            self.helper()
            mark("pytest-class-1", ["from-setup", "helper"])

        def test_fresh_engine_per_test(self):
            mark("pytest-class-2", ["from-setup"])

        def helper(self):  # a decorated method called from a test: joins the open mock
            boto3.client("sqs", region_name="us-east-1").create_queue(QueueName="helper")

        @staticmethod
        def not_a_test():
            return 1

        def teardown_method(self, method):
            assert time.time() == START
            mark("pytest-teardown", None)


    @mock_sqs
    class TestUnittestStyle(unittest.TestCase):
        def setUp(self):
            boto3.client("sqs", region_name="us-east-1").create_queue(QueueName="from-setup")

        def test_one(self):
            time.sleep(60)  # virtual: tearDown sees the same engine 60 s later
            mark("unittest-1", ["from-setup"])

        def test_two(self):
            mark("unittest-2", ["from-setup"])

        def tearDown(self):
            assert time.time() in (START, START + 60)
            mark("unittest-teardown", ["from-setup"])


    class TestStartStop(unittest.TestCase):
        def setUp(self):
            self.mock = mock_sqs()
            self.eng = self.mock.start()

        def tearDown(self):
            self.mock.stop()

        def test_started(self):
            boto3.client("sqs", region_name="us-east-1").create_queue(QueueName="s")
            assert [q.name for q in self.eng.queues()] == ["s"]
            mark("start-stop", ["s"])


    @mock_sqs
    class TestAsync(unittest.IsolatedAsyncioTestCase):
        async def asyncSetUp(self):
            boto3.client("sqs", region_name="us-east-1").create_queue(QueueName="async")

        async def test_sleep_an_hour(self):
            await asyncio.sleep(3600)
            assert abs(time.time() - (START + 3600)) < 1e-3
            mark("async", ["async"])
    """
)
PYTEST_MARKS = {
    "bare", "called", "arguments", "param1", "param2", "context", "nested", "pytest-class-1", "pytest-class-2",
    "unittest-1", "unittest-2", "start-stop", "async",
}  # fmt: skip
UNITTEST_MARKS = {"unittest-1", "unittest-2", "start-stop", "async"}


def _run(tmp_path, argv):
    marks = tmp_path / "marks.txt"
    marks.write_text("")
    env = {**os.environ, "KIT_MARKS": str(marks), "AWS_EC2_METADATA_DISABLED": "true"}
    for k in ("AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
        env.pop(k, None)
    proc = subprocess.run(
        [sys.executable, "-P", *argv], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    return proc, marks.read_text().split()


def test_every_form_is_collected_and_runs_under_pytest(tmp_path):
    (tmp_path / "test_forms.py").write_text(FORMS)
    proc, marks = _run(
        tmp_path, ["-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml=out.xml", "test_forms.py"]
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    suite = ET.parse(tmp_path / "out.xml").getroot().find("testsuite")
    counts = {k: int(suite.get(k)) for k in ("tests", "failures", "errors", "skipped")}
    assert counts == {"tests": 13, "failures": 0, "errors": 0, "skipped": 0}
    assert set(marks) - {"pytest-teardown", "unittest-teardown"} == PYTEST_MARKS
    assert marks.count("pytest-teardown") == 2 and marks.count("unittest-teardown") == 2
    assert len(marks) == len(PYTEST_MARKS) + 4  # each body ran once


def test_class_forms_run_under_unittest(tmp_path):
    (tmp_path / "test_forms.py").write_text(FORMS)
    proc, marks = _run(tmp_path, ["-m", "unittest", "discover", "-s", ".", "-p", "test_forms.py", "-v"])
    assert proc.returncode == 0, proc.stderr
    assert "Ran 4 tests" in proc.stderr and proc.stderr.rstrip().endswith("OK")
    assert sorted(marks) == sorted([*UNITTEST_MARKS, "unittest-teardown", "unittest-teardown"])


@pytest.mark.parametrize(
    ("make", "error", "fragment"),
    [
        (lambda: mock_sqs(engine="eng"), TypeError, "takes an Engine instance"),
        (lambda: mock_sqs(engine=Engine), TypeError, "not the Engine class"),
        (lambda: mock_sqs(Engine), TypeError, "not the Engine class"),
        (lambda: mock_sqs(42), TypeError, "not int"),
        (lambda: mock_sqs()(42), TypeError, "decorates a function or a class, not int"),
        (lambda: mock_sqs(inflight_limt=5), TypeError, "inflight_limit"),
        (lambda: mock_sqs(Engine(), start_time=5.0), TypeError, "start_time cannot apply"),
        (lambda: mock_sqs(clock="fast"), ValueError, "'virtual' or 'wall'"),
        (lambda: mock_sqs(stall=0), ValueError, "positive"),
        (lambda: mock_sqs().stop(), RuntimeError, "before start()"),
    ],
)
def test_misuse_is_a_clear_error(make, error, fragment):
    with pytest.raises(error, match=None) as e:
        make()
    assert fragment in str(e.value)


def test_bare_decorator_returns_the_function_and_runs_it_in_a_mock():
    calls = []

    @mock_sqs
    def body(x, *, y):
        calls.append(
            (x, y, boto3.client("sqs", region_name="us-east-1").create_queue(QueueName="z")["QueueUrl"])
        )
        return "result"

    assert callable(body) and not isinstance(body, mock_sqs) and body.__name__ == "body"
    assert (
        body(1, y=2) == "result" and body(1, y=2) == "result"
    )  # a fresh engine per call: create works twice
    assert [c[:2] for c in calls] == [(1, 2), (1, 2)]


def test_start_stop_and_nesting_share_one_engine():
    eng = Engine()
    m = mock_sqs(eng)
    assert m.start() is eng
    with mock_sqs() as inner:
        assert inner is eng
    with pytest.raises(RuntimeError, match="another engine"):
        mock_sqs(Engine()).start()
    with mock_sqs(region="us-east-1"):  # the same as the open one's: nothing to refuse
        pass
    for options, named in (({"clock": "wall"}, "clock"), ({"region": "eu-west-1"}, "region"),
                           ({"start_time": 5.0}, "start_time")):  # fmt: skip
        with pytest.raises(RuntimeError, match=f"its {named} cannot apply"), mock_sqs(**options):
            pass
    m.stop()
    with pytest.raises(RuntimeError, match="before start"):
        m.stop()
