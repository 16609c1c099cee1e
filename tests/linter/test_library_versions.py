"""Issue 36 (fact drift F1, F2, F8): a consumer is judged by the library release its repository pins.

Kombu: which release (kombu's pin, else Celery's as it requires kombu, else the newest), what it makes of
visibility_timeout (0 is 1,800 s; a float is VG075), how a rejected message waits. sqs-consumer: VG076 from 14.0.0
only, for a handler that returns no message, and not with alwaysAcknowledge or shouldDeleteMessages: false.
"""

from __future__ import annotations

import json
import os

import pytest
from visguard import facts
from visguard.linter.api import lint_paths
from visguard.linter.loaders import registry
from visguard.linter.loaders.code import dependencies, library_versions, loader

CELERY = """from celery import Celery

app = Celery("reports", broker="sqs://")
app.conf.task_default_queue = "reports"
app.conf.broker_transport_options = {{"region": "eu-west-1", "visibility_timeout": {vt}{wait}}}
"""


def write(root, rel, text):
    p = os.path.join(root, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w", encoding="utf-8") as fh:
        fh.write(text)
    return p


def celery_app(root, vt="21600.0", wait=""):
    return write(root, "app/celeryconfig.py", CELERY.format(vt=vt, wait=wait))


def consumer(path, asked):
    m = loader.load(path, registry.LoadOptions(asked=asked))
    (c,) = m.pending
    return c, m


def rules(root):
    return sorted(f.rule for f in lint_paths([root]).findings)


# ------------------------------------------------------------------------------------------------- Kombu
def pin(package, version, basis, file="f", line=1):
    return dependencies.Pin(package, version, "", basis, file, line)


@pytest.mark.parametrize(
    "kombu, celery, want",
    [
        (pin("kombu", (5, 5, 4), "lock"), pin("celery", (5, 6, 0), "pin"), ("5.5.4", "lock")),
        (None, pin("celery", (5, 5, 3), "pin"), ("5.5.4", "celery")),  # kombu>=5.5.2,<5.6
        (None, pin("celery", (5, 6, 2), "lock"), ("5.6.2", "celery")),
        (None, pin("celery", (5, 4, 0), "pin"), ("5.6.2", "celery")),  # kombu>=5.3.4,<6.0
        (pin("kombu", (5, 5), "range"), pin("celery", (5, 6, 2), "pin"), ("5.6.2", "celery")),  # exact wins
        (pin("kombu", (5, 5), "range"), None, ("5.5", "range")),
        (None, None, ("5.6.2", "newest")),
        (pin("kombu", None, "unknown"), None, ("5.6.2", "newest")),  # a git pin: no version stated
    ],
)
def test_which_kombu_a_celery_app_runs(kombu, celery, want):
    got = library_versions.kombu_release(kombu, celery)
    assert (".".join(map(str, got["version"])), got["basis"]) == want


def test_a_float_visibility_timeout_fails_the_worker_the_finding_names_the_assumed_release(tmp_path):
    root = str(tmp_path)
    celery_app(root)
    write(root, "app/requirements.txt", "celery[sqs]==5.5.3\n")
    result = lint_paths([root])
    (f,) = [f for f in result.findings if f.rule == "VG075"]
    assert f.location.line == 5 and f.location.file.endswith("celeryconfig.py")
    assert "Kombu 5.5.4" in f.message and "celery 5.5.3" in f.message and "requirements.txt:1" in f.message
    assert "as 21600 (an int)" in str(f.fix)


def test_without_a_pin_the_newest_kombu_release_is_assumed_and_said(tmp_path):
    root = str(tmp_path)
    celery_app(root)
    (f,) = [f for f in lint_paths([root]).findings if f.rule == "VG075"]
    assert "Kombu 5.6.2 (the newest release: no pin found)" in f.message


def test_a_whole_number_passes_and_a_declared_queue_is_only_looked_up(tmp_path):
    root = str(tmp_path)
    celery_app(os.path.join(root, "whole"), vt="21600")
    assert "VG075" not in rules(os.path.join(root, "whole"))
    declared = os.path.join(root, "declared")
    celery_app(declared)
    write(declared, "infra/main.tf", 'resource "aws_sqs_queue" "reports" {\n  name = "reports"\n}\n')
    assert "VG075" not in rules(declared)  # Kombu resolves the URL: no CreateQueue, no failure


def test_a_release_with_the_fix_takes_the_float_and_honours_zero(tmp_path, monkeypatch):
    """The version logic both ways: no release has #2581 today; one that has it reads int(float(v))."""
    root = str(tmp_path)
    path = celery_app(root)
    write(root, "app/requirements.txt", "kombu==5.7.0\n")
    c, m = consumer(path, root)
    assert c.settings.get("kombu_fractional") is True  # 5.7.0 is not known to have the fix
    monkeypatch.setattr(facts, "KOMBU_VISIBILITY_FIX_RELEASE", (5, 7, 0))
    c, m = consumer(path, root)
    assert "kombu_fractional" not in c.settings
    assert c.settings["created_visibility"] == 21600 and m.queues["reports"].visibility_timeout == 21600
    assert "VG075" not in rules(root)
    path = celery_app(root, vt="0")
    c, m = consumer(path, root)
    assert "kombu_zero_read_as" not in c.settings and m.queues["reports"].visibility_timeout == 0


def test_zero_is_kombus_1800_in_every_release(tmp_path):
    root = str(tmp_path)
    path = celery_app(root, vt="0")
    write(root, "app/requirements.txt", "kombu==5.6.2\n")
    c, m = consumer(path, root)
    assert c.settings["kombu_zero_read_as"] == 1800 and m.queues["reports"].visibility_timeout == 1800
    assert c.settings["created_visibility"] == 0  # as written (VG060 and VG077 name it)
    found = lint_paths([root]).findings
    assert {f.rule for f in found} & {"VG016", "VG060"} == set()  # not a 0-second queue, nor a declared one
    (f,) = [f for f in found if f.rule == "VG077"]
    assert "Kombu 5.6.2 (" in f.message and "requirements.txt:1" in f.message and f.location.line == 5


@pytest.mark.parametrize(
    "requirement, wait, want",
    [
        ("celery[sqs]==5.5.3", "", 0),  # kombu 5.5.4: visible at once
        ("celery[sqs]==5.6.2", "", 10),  # kombu >= 5.6.0: wait_time_seconds, default 10
        ("kombu==5.6.0", ', "wait_time_seconds": 20', 20),
        ("kombu==5.5.4", ', "wait_time_seconds": 20', 0),
    ],
)
def test_a_rejected_message_waits_wait_time_seconds_from_kombu_5_6(tmp_path, requirement, wait, want):
    root = str(tmp_path)
    path = celery_app(root, vt="60", wait=wait)
    write(root, "app/requirements.txt", requirement + "\n")
    c, _ = consumer(path, root)
    assert c.settings["reject_visibility"] == want


def test_a_pin_outside_what_was_asked_is_not_read(tmp_path):
    root = str(tmp_path)
    write(root, "requirements.txt", "kombu==5.5.4\n")
    path = celery_app(os.path.join(root, "repo"))
    c, _ = consumer(path, os.path.join(root, "repo"))
    assert c.settings["library"]["basis"] == "newest"
    c, _ = consumer(path, root)
    assert c.settings["library"]["version"] == "5.5.4"


def test_a_malformed_lock_is_a_note_not_a_failure(tmp_path):
    root = str(tmp_path)
    path = celery_app(root)
    write(root, "app/poetry.lock", "[[package]\nname = ")
    c, m = consumer(path, root)
    assert c.settings["library"]["basis"] == "newest"
    assert [n.location.file for n in m.notes if "poetry.lock" in n.message] != []


# ------------------------------------------------------------------------------------------ sqs-consumer
WORKER = """import {{ Consumer }} from "sqs-consumer";

const app = Consumer.create({{
  queueUrl: "https://sqs.eu-west-1.amazonaws.com/123456789012/jobs",
  {options}
  handleMessage: async (message) => {{
    await render(message);{ret}
  }},
}});
app.start();
"""


def node_app(root, version=None, ret="", options="", lock=True):
    write(root, "app/worker.js", WORKER.format(ret=ret, options=options))
    if version is not None:
        write(
            root, "app/package.json", json.dumps({"dependencies": {"sqs-consumer": f"^{version}"}}, indent=2)
        )
        if lock:
            packages = {"": {}, "node_modules/sqs-consumer": {"version": version}}
            write(
                root,
                "app/package-lock.json",
                json.dumps({"lockfileVersion": 3, "packages": packages}, indent=2),
            )
    return root


def vg076(root):
    return [f for f in lint_paths([root]).findings if f.rule == "VG076"]


@pytest.mark.parametrize("version, fires", [("13.0.0", False), ("14.0.0", True), ("15.0.3", True)])
def test_a_handler_returning_nothing_loses_its_delete_from_14(tmp_path, version, fires):
    found = vg076(node_app(str(tmp_path), version))
    assert bool(found) is fires
    if fires:
        (f,) = found
        assert f"sqs-consumer {version} (" in f.message and "package-lock.json:" in f.message
        assert f.location.line == 6  # the handler
        assert "until a redrive policy moves it, or forever" in f.message  # its queue is not in the run


def test_a_range_without_a_lock_is_judged_by_its_lower_bound(tmp_path):
    (f,) = vg076(node_app(str(tmp_path / "new"), "14.1.0", lock=False))
    assert "the lower bound of ^14.1.0" in f.message
    assert vg076(node_app(str(tmp_path / "old"), "13.0.0", lock=False)) == []


@pytest.mark.parametrize(
    "ret, options, fires",
    [
        ("\n    return message;", "", False),
        ("\n    return true;", "", True),  # true is not an object: v14 deletes nothing
        ("\n    return;", "", True),
        ("", "alwaysAcknowledge: true,", False),
        ("", "alwaysAcknowledge: false,", True),
        ("", "shouldDeleteMessages: false,", False),
        ("", "alwaysAcknowledge: process.env.ACK === '1',", False),  # computed: not known
    ],
)
def test_what_acknowledges_on_14(tmp_path, ret, options, fires):
    assert bool(vg076(node_app(str(tmp_path), "14.2.8", ret=ret, options=options))) is fires


def test_without_a_pin_nothing_is_judged(tmp_path):
    assert vg076(node_app(str(tmp_path))) == []


@pytest.mark.parametrize(
    "handler, returns",
    [
        ("handleMessage: async (m) => { await go(m); }", "nothing"),
        (
            "handleMessage: async (m) => { items.forEach((i) => { return i; }); }",
            "nothing",
        ),  # a nested return
        ("handleMessage: (m) => void go(m)", "nothing"),
        ("handleMessage: async (m) => { if (!m.Body) { return; } await go(m); return m; }", "a value"),
        ("handleMessage: async (m) => { await go(m); return null; }", "not a message"),
        ("handleMessage: (m) => go(m)", "a value"),  # the call's result: taken as the message
        ("async handleMessage(m) { await go(m); }", "nothing"),
        ("handleMessageBatch: async (ms) => { await Promise.all(ms.map(go)); }", "nothing"),
        ("handleMessageBatch: async (ms) => { await Promise.all(ms.map(go)); return ms; }", "a value"),
        ("handleMessage: imported", None),  # not a function of the file: not judged
    ],
)
def test_what_a_handler_returns_is_read_from_its_body(handler, returns):
    from visguard.linter.loaders.code import javascript

    src = f'import {{ Consumer }} from "sqs-consumer";\nConsumer.create({{ queueUrl: "u", {handler} }});\n'
    (c,) = javascript.read("w.js", src.encode()).consumers
    assert c.settings["handler_returns"] == returns
    assert c.settings["handler"] == handler.split(":")[0].replace("async ", "").split("(")[0]


def test_with_predefined_queues_kombu_creates_nothing_and_a_float_is_harmless(tmp_path):
    root = str(tmp_path)
    write(
        root,
        "app/celeryconfig.py",
        'from celery import Celery\n\napp = Celery("reports", broker="sqs://")\n'
        "app.conf.broker_transport_options = {\n"
        '    "visibility_timeout": 21600.0,\n'
        '    "predefined_queues": {"celery": {"url": "https://sqs.eu-west-1.amazonaws.com/123456789012/celery"}},\n'
        "}\n",
    )
    assert "VG075" not in rules(root)
