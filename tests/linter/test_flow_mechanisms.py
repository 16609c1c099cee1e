"""Five mechanisms of the value flow the blind set's misses name (issue 35 §1, SCORE.md): a settings class's
attributes read from another module, "this parameter, else the queue named X", a shell function called with the
queue as its argument, JavaScript options merged with defaults, a decorator's parameter forwarded to a receive.

Each fixture under ``fixtures/code/flow/`` (and ``fixtures/shell/``) is one mechanism in one language, read as a
run reads it (the folder searched, each file loaded: the files the run was offered are the ones the flow may open).
"""

from __future__ import annotations

import os
import time

import pytest
from visguard.linter.loaders import registry
from visguard.linter.loaders.code import python

FLOW = os.path.join(os.path.dirname(__file__), "fixtures", "code", "flow")
DEFAULT_AUDIT = "https://sqs.eu-west-1.amazonaws.com/123456789012/audit"


def run(folder: str, kinds=("code",)):
    """(consumers, notes, model queues) of every file of ``folder`` the loaders of ``kinds`` claim."""
    errors: list = []
    consumers, notes, queues = [], [], {}
    for item in registry.discover([folder], errors=errors):
        if item.loader.name in kinds:
            model = item.loader.load(item.path, registry.LoadOptions())
            consumers += model.pending
            notes += model.notes
            queues.update(model.queues)
    assert not errors
    return consumers, notes, queues


def at(consumers, ending: str, line: int):
    (c,) = [c for c in consumers if c.location.file.endswith(ending) and c.location.line == line]
    return c


def rel(loc) -> str:
    return os.path.relpath(loc.file, FLOW).replace(os.sep, "/") + f":{loc.line}"


def _timed(fn):
    start = time.process_time()
    out = fn()
    return out, time.process_time() - start


# ---------------------------------------------------------------------------------------------- a. settings classes
def test_python_settings_class_attributes_from_another_module_of_the_package():
    """``Config.SQS_QUEUE_NAME = os.getenv("SQS_QUEUE_NAME", "orders")`` in config.py, read after ``from .config
    import Config`` (and a subclass's inherited attribute, and ``config.Config.X`` after ``from app import
    config``); a pydantic ``BaseSettings`` instance's field (its variable, its default as fallback); a dataclass
    instance's keyword argument over its default. Each located where the class writes it."""
    consumers, notes, _ = run(os.path.join(FLOW, "settings-class-python"))
    w = at(consumers, "worker.py", 9)
    assert (w.queue_ref.kind, w.queue_ref.value, w.queue_ref.fallback.value) == (
        "env",
        "SQS_QUEUE_NAME",
        "orders",
    )
    assert rel(w.queue_ref.location) == "settings-class-python/app/config.py:7"
    assert w.visibility_override == 120 and rel(w.locations["visibility_override"]).endswith("config.py:8")
    dev = at(consumers, "worker.py", 13)
    assert dev.queue_ref.value == "SQS_QUEUE_NAME" and dev.settings["wait_time"] == 20  # DevConfig(Config)
    b = at(consumers, "billing.py", 7)
    assert (b.queue_ref.kind, b.queue_ref.value) == ("env", "BILLING_QUEUE_URL")
    assert b.queue_ref.fallback.value == "https://sqs.eu-west-1.amazonaws.com/123456789012/billing"
    assert rel(b.queue_ref.location) == "settings-class-python/app/settings.py:8"
    assert b.settings["max_messages"] == 5  # the default of the variable BATCH
    assert b.visibility_override == 90 and rel(b.locations["visibility_override"]).endswith("settings.py:21")
    assert b.settings["wait_time"] == 10
    m = at(consumers, "billing.py", 13)
    assert m.queue_ref.value == "SQS_QUEUE_NAME" and m.visibility_override is None
    assert any("the class Config sets no MISSING" in n.message for n in notes)


def test_python_settings_classes_that_rename_or_set_in_init_are_not_guessed(tmp_path):
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "conf.py").write_text(
        "from pydantic_settings import BaseSettings, SettingsConfigDict\n"
        "class S(BaseSettings):\n    model_config = SettingsConfigDict(env_prefix='APP_')\n    queue: str = 'a'\n"
        "class C:\n    QUEUE = 'b'\n    def __init__(self, q):\n        self.QUEUE = q\n"
        "s = S()\nc = C('x')\n"
    )
    (tmp_path / "w.py").write_text(
        "import boto3\nfrom .conf import s, c\nsqs = boto3.client('sqs')\n"
        "sqs.receive_message(QueueUrl=s.queue)\nsqs.receive_message(QueueUrl=c.QUEUE)\n"
    )
    consumers, notes, _ = run(str(tmp_path))
    assert all(c.queue_ref is None for c in consumers) and len(consumers) == 2
    assert any("renamed (env_prefix, alias)" in n.message for n in notes)
    assert any("is set by C.__init__" in n.message for n in notes)


def test_python_settings_classes_in_a_loop_of_bases_and_imports_end(tmp_path):
    """``class A(B)`` / ``class B(A)`` across two modules importing each other, and a 5,000-deep chain of bases:
    no value, a note, bounded."""
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "a.py").write_text("from .b import B\nclass A(B):\n    pass\n")
    (tmp_path / "b.py").write_text("from .a import A\nclass B(A):\n    pass\n")
    chain = (
        "".join(f"class K{i}(K{i + 1}):\n    pass\n" for i in range(5_000)) + "class K5000:\n    Q = 'q'\n"
    )
    (tmp_path / "w.py").write_text(
        "import boto3\nfrom .a import A\nsqs = boto3.client('sqs')\n"
        + chain
        + "sqs.receive_message(QueueUrl=A.QUEUE)\nsqs.receive_message(QueueUrl=K0.Q)\n"
    )
    (consumers, notes, _), spent = _timed(lambda: run(str(tmp_path)))
    assert len(consumers) == 2 and all(c.queue_ref is None for c in consumers)
    assert notes and spent < 10


# ---------------------------------------------------------------------------------------------- b. else the queue X
def test_python_the_parameter_else_the_queue_the_code_creates_or_asks_for():
    """``self._queue_url = kwargs.get("queue_url")`` (no call passes it: None), else ``resp["QueueUrl"]`` of the
    create_queue of ``self._queue_name`` in either branch of an if (the FIFO branch's create, refused by
    CreateQueue for a name without .fifo, is not the queue); ``if queue_url is None: queue_url =
    get_queue_url(QueueName="refunds")["QueueUrl"]``; ``url = url or os.environ.get(X) or DEFAULT``; ``if not
    url: url = DEFAULT`` with a call that passes one."""
    consumers, _, queues = run(os.path.join(FLOW, "else-queue-python"))
    listener = at(consumers, "listener.py", 27)
    assert (listener.queue_ref.kind, listener.queue_ref.value) == ("name", "orders")
    orders = queues["orders"]
    assert (orders.fifo, orders.visibility_timeout, orders.location.line) == (False, 120, 18)
    assert (
        at(consumers, "poller.py", 12).queue_ref.kind,
        at(consumers, "poller.py", 12).queue_ref.value,
    ) == (
        "name",
        "refunds",
    )
    env = at(consumers, "poller.py", 17).queue_ref
    assert (env.kind, env.value) == ("env", "AUDIT_QUEUE_URL")
    assert env.fallback.value == "https://sqs.eu-west-1.amazonaws.com/123456789012/audit"
    assert at(consumers, "poller.py", 23).queue_ref.value.endswith("/given")
    blank = at(
        consumers, "poller.py", 27
    ).queue_ref  # os.getenv("X", "") or DEFAULT: the variable, else DEFAULT
    assert (blank.kind, blank.value, blank.fallback.value) == ("env", "BLANK_QUEUE_URL", DEFAULT_AUDIT)


def test_python_the_parameter_else_a_queue_with_two_candidates_is_not_picked(tmp_path):
    """One call passes ``queue_url=``, another passes none (the created queue): two queues, no join (the created
    queue's name is one of two: a queue named by its create call); two defaults under ``if x is None`` that differ:
    no join, a note."""
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "lib.py").write_text(
        "import boto3\nsqs = boto3.client('sqs')\n"
        "class L:\n    def __init__(self, name, **kw):\n        self.name = name\n"
        "        self.url = kw.get('queue_url')\n"
        "    def go(self):\n        if self.url is None:\n"
        "            self.url = sqs.create_queue(QueueName=self.name)['QueueUrl']\n"
        "        sqs.receive_message(QueueUrl=self.url)\n"
        "def poll(url=None, fifo=False):\n    if url is None:\n        url = 'a'\n"
        "    if not url:\n        url = 'b'\n    sqs.receive_message(QueueUrl=url)\n"
    )
    (tmp_path / "main.py").write_text(
        "from .lib import L, poll\nL('orders').go()\nL('x', queue_url='https://sqs.eu-west-1.amazonaws.com/1/o').go()\n"
        "poll()\n"
    )
    consumers, notes, queues = run(str(tmp_path))
    # the receive L's two calls share is one consumer per call (engine.Flow.pinned): L('orders') passes no
    # queue_url (the queue it creates, by its name), the other's url is not read past `if self.url is None`
    # (both candidates named, none picked)
    assert at(consumers, "main.py", 2).queue_ref.value == "orders"
    assert at(consumers, "main.py", 3).queue_ref is None and at(consumers, "lib.py", 16).queue_ref is None
    assert len(consumers) == 3
    assert any("assigned more than once, to different values" in n.message for n in notes)
    # the create's name is one of two: the queue declared at that call, named by it, picked by no consumer
    assert [q.id for q in queues.values() if q.name is None] == [f"<name built at {tmp_path / 'lib.py'}:9>"]
    assert any("one of several values" in n.message for n in notes)


def test_python_a_fifo_create_refused_for_its_name_is_kept_when_it_is_the_only_one():
    """``create_queue(QueueName="jobs", Attributes={"FifoQueue": "true"})`` alone: still the queue the file
    creates (the rules judge its name), not dropped."""
    code = b"import boto3\nsqs = boto3.client('sqs')\nsqs.create_queue(QueueName='jobs', Attributes={'FifoQueue': 'true'})\n"
    (q,) = python.read("c.py", code).queues
    assert q.name == "jobs" and q.fifo is True


# ---------------------------------------------------------------------------------------------- c. shell functions
def test_a_shell_function_called_with_literal_arguments_creates_each_queue_at_its_call(tmp_path):
    """``create_queue() { aws sqs create-queue --queue-name "$1" --attributes VisibilityTimeout=${2:-30}; }``
    called three times (one through a wrapper's ``"$@"``, one without its second argument: the default): three queues, each at its call's line; a function
    never called by its name is read once as before (its ``$1`` unknown, noted)."""
    script = (
        "#!/bin/bash\nset -e\ncreate_queue() {\n  # don't mind the quote in this comment\n"
        '  awslocal sqs create-queue --queue-name "$1" --attributes "VisibilityTimeout=${2:-30}"\n}\n'
        'function wrap {\n  create_queue "$@"\n}\n'
        "create_queue order-events 60\ncreate_queue payment-events\nwrap refunds 90\n"
        'unused() { aws sqs create-queue --queue-name "$1"; }\n'
    )
    (tmp_path / "setup-queues.sh").write_text(script)
    _, notes, queues = run(str(tmp_path), kinds=("shell",))
    got = {n: (q.visibility_timeout, q.location.line) for n, q in queues.items()}
    assert got == {"order-events": (60, 10), "payment-events": (30, 11), "refunds": (90, 12)}
    assert [n.location.line for n in notes if "name is not known" in n.message] == [13]


def test_shell_function_calls_are_bounded():
    from visguard.linter.loaders import shellwords

    rec = 'f() { aws sqs create-queue --queue-name "$1"; f "$1"; }\nf q\n'
    out, spent = _timed(lambda: shellwords.commands(rec))
    assert (
        spent < 5
        and [c.argv[-1] for c in out if "create-queue" in c.argv] == ["q"] * shellwords.MAX_CALL_DEPTH
    )
    doubling = "".join(f"f{i}() {{ f{i + 1}; f{i + 1}; }}\n" for i in range(30)) + "f30() { echo x; }\nf0\n"
    out, spent = _timed(lambda: shellwords.commands(doubling))
    assert spent < 5 and len(out) <= shellwords.MAX_CALLS * 2


# ---------------------------------------------------------------------------------------------- d. merged options
def test_javascript_options_merged_over_defaults_resolve_per_key():
    """``this.options = { ...DEFAULTS, ...options }`` with ``new Poller({ queueUrl, visibilityTimeout: 90 })``: the
    queue and 90 are the call's (located there), the wait and the batch the defaults'; ``Object.assign({},
    DEFAULTS, opts)`` and lodash ``defaults({}, opts, {...})`` (the first source wins) the same way."""
    consumers, _, _ = run(os.path.join(FLOW, "defaults-merge-javascript"))
    c = at(consumers, "poller.js", 16)
    assert c.queue_ref.value == "https://sqs.eu-west-1.amazonaws.com/123456789012/jobs"
    assert rel(c.queue_ref.location) == "defaults-merge-javascript/main.js:3"
    assert c.visibility_override == 90 and rel(c.locations["visibility_override"]).endswith("main.js:3")
    assert c.settings["wait_time"] == 20 and c.settings["max_messages"] == 10
    assert rel(c.locations["wait_time"]) == "defaults-merge-javascript/poller.js:6"
    d = at(consumers, "poller.js", 31)
    assert d.queue_ref.value.endswith("/dead-jobs") and d.visibility_override == 30
    assert d.settings["wait_time"] == 5


def test_typescript_options_merged_over_defaults_resolve_per_key():
    consumers, _, _ = run(os.path.join(FLOW, "defaults-merge-typescript"))
    c = at(consumers, "worker.ts", 20)
    assert (c.queue_ref.kind, c.queue_ref.value) == ("env", "EMAILS_QUEUE_URL")
    assert c.queue_ref.fallback.value == "https://sqs.eu-west-1.amazonaws.com/123456789012/emails"
    assert (
        c.settings["wait_time"] == 20 and c.visibility_override == 45
    )  # the call's wait, the default's visibility


def test_javascript_merged_options_are_not_guessed(tmp_path):
    """A spread of an object visguard cannot read after the defaults; a key deep-merged (``_.merge``) from
    objects: neither is read, each noted. Two calls with different queues: one consumer per call (engine.Reader.
    per_call_site), each with its own queue and the defaults' key it does not pass, never one picked for both."""
    (tmp_path / "package.json").write_text("{}\n")
    (tmp_path / "p.js").write_text(
        'const AWS = require("aws-sdk");\nconst _ = require("lodash");\nconst sqs = new AWS.SQS();\n'
        "const D = { vt: 30, receive: { WaitTimeSeconds: 20 } };\n"
        "class P {\n  constructor(o) { this.o = { ...D, ...o }; this.m = _.merge({}, D, o); }\n"
        "  poll() { return sqs.receiveMessage({ QueueUrl: this.o.queueUrl, VisibilityTimeout: this.o.vt }); }\n"
        "  deep() { return sqs.receiveMessage({ QueueUrl: 'q', ...this.m.receive }); }\n"
        "}\nfunction f(x) {\n  const s = { ...D, ...load(x) };\n"
        "  return sqs.receiveMessage({ QueueUrl: 'q', VisibilityTimeout: s.vt });\n}\n"
        "module.exports = { P, f };\n"
    )
    (tmp_path / "a.js").write_text(
        'const { P } = require("./p");\nnew P({ queueUrl: "https://sqs.eu-west-1.amazonaws.com/1/a" });\n'
    )
    (tmp_path / "b.js").write_text(
        'const { P } = require("./p");\nnew P({ queueUrl: "https://sqs.eu-west-1.amazonaws.com/1/b", vt: 60 });\n'
    )
    consumers, notes, _ = run(str(tmp_path))
    deep, f = (at(consumers, "p.js", n) for n in (8, 12))
    assert not [c for c in consumers if c.location.file.endswith("p.js") and c.location.line == 7]
    a, b = at(consumers, "a.js", 2), at(consumers, "b.js", 2)
    assert (a.queue_ref.value[-2:], a.visibility_override, a.locations["receive"].line) == ("/a", 30, 7)
    assert (b.queue_ref.value[-2:], b.visibility_override, b.locations["receive"].line) == ("/b", 60, 7)
    assert f.visibility_override is None and deep.settings.get("wait_time") is None and deep.queue_ref is None
    assert any("spreads an object visguard cannot read" in n.message for n in notes)
    assert any("VisibilityTimeout is computed" in n.message for n in notes)


def test_javascript_merges_in_loops_and_chains_are_bounded(tmp_path):
    """A 5,000-deep chain of objects spreading the next, a merge spreading itself, Object.assign of 10,000
    sources, and two modules' options spreading each other: no value, bounded."""
    from visguard.linter.loaders.code import javascript

    head = 'const AWS = require("aws-sdk");\nconst sqs = new AWS.SQS();\n'
    chain = (
        "".join(f"const o{i} = {{ ...o{i + 1} }};\n" for i in range(5_000))
        + "const o5000 = { q: 'x', ...z };\n"
    )
    code = head + chain + "sqs.receiveMessage({ QueueUrl: o0.q });\n"
    code += "const s = { ...s, q: 1 };\nsqs.receiveMessage({ QueueUrl: 'q', VisibilityTimeout: s.vt });\n"
    code += "const w = Object.assign({}, " + ", ".join(["D"] * 10_000) + ");\n"
    code += "sqs.receiveMessage({ QueueUrl: 'q', WaitTimeSeconds: w.wait });\n"
    result, spent = _timed(lambda: javascript.read("m.js", code.encode()))
    assert spent < 10 and len(result.consumers) == 3
    assert result.consumers[0].queue_ref is None and result.consumers[1].visibility_override is None


# ---------------------------------------------------------------------------------------------- e. decorators
def test_python_a_decorators_parameters_reach_the_receive_in_its_body():
    """``@sqs_listener(queue_url=os.environ["ORDERS_QUEUE_URL"])`` (a decorator factory of the package),
    ``@listener("refunds", visibility=120, batch=5)`` whose body hands the receive to a thread
    (``Thread(target=poll, args=(url,), kwargs={...})``) and reads ``options["batch"]`` of its ``**options``, and
    ``@Subscriber(url, max_messages=4)`` (a class whose instance wraps the handler)."""
    consumers, _, _ = run(os.path.join(FLOW, "decorator-python"))
    orders = at(consumers, "sqs.py", 15)
    assert (orders.queue_ref.kind, orders.queue_ref.value) == ("env", "ORDERS_QUEUE_URL")
    assert rel(orders.queue_ref.location) == "decorator-python/worker/handlers.py:6"
    assert orders.settings["wait_time"] == 20
    refunds = at(consumers, "sqs.py", 28)
    assert (refunds.queue_ref.kind, refunds.queue_ref.value) == ("name", "refunds")
    assert refunds.visibility_override == 120 and refunds.settings["max_messages"] == 5
    assert rel(refunds.locations["visibility_override"]) == "decorator-python/worker/handlers.py:11"
    audit = at(consumers, "sqs.py", 46)
    assert audit.queue_ref.value.endswith("/audit") and audit.settings["max_messages"] == 4
    # @app.route(url, visibility=240) registers the handler (self.routes[queue_url] = fn, self.fallbacks.append(
    # (visibility, fn))); run() receives from each: the loop's names are what the one route puts there (and not
    # the `url` another function of the file binds)
    routed = at(consumers, "sqs.py", 70)
    assert (routed.queue_ref.kind, routed.queue_ref.value) == ("env", "EVENTS_QUEUE_URL")
    assert routed.visibility_override == 240


def test_python_functions_handed_to_threads_and_executors(tmp_path):
    """``executor.submit(poll, URL)``, ``asyncio.to_thread(poll, url=...)``, ``loop.run_in_executor(None, poll,
    URL)`` agree: the queue; a thread given ``args=ARGS`` (not a literal tuple) is not read; a function that hands
    itself to a thread in a 2,000-deep chain ends, bounded."""
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "p.py").write_text(
        "import asyncio, threading\nimport boto3\nsqs = boto3.client('sqs')\nURL = 'https://sqs.eu-west-1.amazonaws.com/1/q'\n"
        "def poll(url):\n    sqs.receive_message(QueueUrl=url)\n"
        "def go(executor, loop):\n    executor.submit(poll, URL)\n    asyncio.to_thread(poll, url=URL)\n"
        "    loop.run_in_executor(None, poll, URL)\n"
        "def other(u):\n    sqs.receive_message(QueueUrl=u)\n"
        "def start(ARGS):\n    threading.Thread(target=other, args=ARGS).start()\n"
    )
    chain = "".join(f"def f{i}(q):\n    threading.Thread(target=f{i + 1}, args=(q,))\n" for i in range(2_000))
    chain += "def f2000(q):\n    sqs.receive_message(QueueUrl=q)\nthreading.Thread(target=f0, args=('x',))\n"
    (tmp_path / "deep.py").write_text("import threading\nimport boto3\nsqs = boto3.client('sqs')\n" + chain)
    (consumers, notes, _), spent = _timed(lambda: run(str(tmp_path)))
    assert at(consumers, "p.py", 6).queue_ref.value.endswith("/1/q")
    assert at(consumers, "p.py", 12).queue_ref is None
    assert at(consumers, "deep.py", 4005).queue_ref is None and spent < 10


def test_python_a_field_given_two_queues_names_both():
    """``self.url = kwargs.get("queue_url")`` (None), then the URL of ``create_queue(QueueName="a")`` in one method
    and of ``get_queue_url(QueueName="b")`` in another: two queues, no join, the note names both."""
    code = (
        b"import boto3\nsqs = boto3.client('sqs')\nclass L:\n    def __init__(self, **kw):\n"
        b"        self.url = kw.get('queue_url')\n"
        b"    def make(self):\n        self.url = sqs.create_queue(QueueName='a')['QueueUrl']\n"
        b"    def find(self):\n        self.url = sqs.get_queue_url(QueueName='b').get('QueueUrl')\n"
        b"    def poll(self):\n        sqs.receive_message(QueueUrl=self.url)\n"
    )
    result = python.read("l.py", code)
    (c,) = result.consumers
    assert c.queue_ref is None
    (note,) = [n for n in result.notes if "QueueUrl" in n.message]
    assert "to different values: the queue a (line 7), the queue b (line 9)" in note.message


def test_python_registries_with_two_queues_and_names_of_other_functions_are_not_guessed(tmp_path):
    """Two routes registering two queues: one consumer per route; a list filled by ``extend``:
    not read; a name bound only in another function is not the value of the same name here."""
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "r.py").write_text(
        "import boto3\nsqs = boto3.client('sqs')\n"
        "class App:\n    def __init__(self):\n        self.queues = []\n        self.more = []\n"
        "    def route(self, q):\n        def deco(fn):\n            self.queues.append(q)\n            return fn\n"
        "        return deco\n"
        "    def add(self, qs):\n        self.more.extend(qs)\n"
        "    def run(self):\n        for q in self.queues:\n            sqs.receive_message(QueueUrl=q)\n"
        "        for m in self.more:\n            sqs.receive_message(QueueUrl=m)\n"
        "def setup():\n    url = 'https://sqs.eu-west-1.amazonaws.com/1/setup'\n"
        "def poll(other):\n    for url in other:\n        pass\n    sqs.receive_message(QueueUrl=url)\n"
        "app = App()\n@app.route('https://sqs.eu-west-1.amazonaws.com/1/a')\ndef a(m):\n    pass\n"
        "@app.route('https://sqs.eu-west-1.amazonaws.com/1/b')\ndef b(m):\n    pass\n"
    )
    consumers, notes, _ = run(str(tmp_path))
    # each route's call is its own consumer of the loop over self.queues (engine.Flow.pinned), at the decorator
    assert [(c.location.line, c.queue_ref and c.queue_ref.value[-2:]) for c in consumers] == [
        (26, "/a"), (29, "/b"), (18, None), (24, None)
    ]  # fmt: skip
    assert consumers[0].locations["receive"].line == 16
    assert any("is filled by self.more.extend(qs)" in n.message for n in notes)
    assert any("url is a local name of another function" in n.message for n in notes)


def test_javascript_options_not_passed_are_the_defaults(tmp_path):
    """``new Poller()`` of ``constructor(options) { this.options = { ...DEFAULTS, ...options } }``: options is
    undefined, its spread adds nothing: the defaults' queue and visibility."""
    (tmp_path / "package.json").write_text("{}\n")
    (tmp_path / "p.js").write_text(
        'const AWS = require("aws-sdk");\n'
        'const DEFAULTS = { queueUrl: "https://sqs.eu-west-1.amazonaws.com/1/default", vt: 30 };\n'
        "class Poller {\n  constructor(options) { this.sqs = new AWS.SQS(); this.options = { ...DEFAULTS, ...options }; }\n"
        "  poll() { return this.sqs.receiveMessage({ QueueUrl: this.options.queueUrl, VisibilityTimeout: this.options.vt }); }\n"
        "}\nmodule.exports = { Poller };\n"
    )
    (tmp_path / "m.js").write_text('const { Poller } = require("./p");\nnew Poller().poll();\n')
    consumers, _, _ = run(str(tmp_path))
    c = at(consumers, "p.js", 5)
    assert c.queue_ref.value.endswith("/1/default") and c.visibility_override == 30


def test_python_a_global_set_in_a_function_is_the_modules():
    """``global QUEUE`` in ``init()`` makes its assignment the module's: the receive of another function reads it."""
    code = (
        b"import boto3\nsqs = boto3.client('sqs')\nQUEUE = None\n"
        b"def init():\n    global QUEUE\n    QUEUE = 'https://sqs.eu-west-1.amazonaws.com/1/g'\n"
        b"def poll():\n    sqs.receive_message(QueueUrl=QUEUE)\n"
        b"def other():\n    LOCAL = 'https://sqs.eu-west-1.amazonaws.com/1/local'\n"
        b"def poll2():\n    sqs.receive_message(QueueUrl=LOCAL)\n"
    )
    first, second = python.read("g.py", code).consumers
    assert first.queue_ref.value.endswith("/1/g") and second.queue_ref is None


def test_python_self_attributes_are_their_own_class_s(tmp_path):
    """Two classes of one file each assign ``self.queue_url = queue_url``: the receive in one reads its own
    class's (its own constructor's calls), never the other class's parameter; a field only a base class assigns is
    still read (the file's one binding)."""
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "w.py").write_text(
        "import boto3\nsqs = boto3.client('sqs')\n"
        "class Extender:\n    def __init__(self, queue_url, rh):\n        self.queue_url = queue_url\n"
        "        self.rh = rh\n"
        "class Engine:\n    def __init__(self, queue_url, vt=45):\n        self.queue_url = queue_url\n"
        "        self.vt = vt\n"
        "    def loop(self):\n        sqs.receive_message(QueueUrl=self.queue_url, VisibilityTimeout=self.vt)\n"
        "        Extender(self.queue_url, 'x')\n"
        "class Base:\n    def __init__(self):\n        self.wait = 20\n"
        "class Child(Base):\n    def go(self):\n        sqs.receive_message(QueueUrl=self.queue_url, WaitTimeSeconds=self.wait)\n"
        "Engine('https://sqs.eu-west-1.amazonaws.com/1/jobs')\n"
    )
    consumers, notes, _ = run(str(tmp_path))
    engine = at(consumers, "w.py", 12)
    assert engine.queue_ref.value.endswith("/1/jobs") and engine.visibility_override == 45
    child = at(consumers, "w.py", 19)
    assert child.settings["wait_time"] == 20
    assert not any("parameter of Extender" in n.message for n in notes)


def test_python_call_sites_of_a_shared_receive_are_bounded(tmp_path):
    """A receive shared by more than MAX_SITES calls stays one consumer at the receive (the values named, none
    picked); a site that passes ``**options`` is its own consumer whose values are not read (never another
    site's)."""
    from visguard.linter.loaders.code.engine import MAX_SITES

    (tmp_path / "__init__.py").write_text("")
    lib = "import boto3\nsqs = boto3.client('sqs')\ndef poll(url, vt=30):\n    sqs.receive_message(QueueUrl=url, VisibilityTimeout=vt)\n"
    calls = "".join(
        f"poll('https://sqs.eu-west-1.amazonaws.com/1/q{i}', {i + 1})\n" for i in range(MAX_SITES + 1)
    )
    (tmp_path / "many.py").write_text(lib + calls)
    consumers, notes, _ = run(str(tmp_path))
    (c,) = consumers
    assert c.location.line == 4 and c.queue_ref is None
    assert any(f"given different values by its {MAX_SITES + 1} calls" in n.message for n in notes)
    (tmp_path / "many.py").unlink()
    (tmp_path / "two.py").write_text(
        lib + "poll('https://sqs.eu-west-1.amazonaws.com/1/a', vt=60)\nopts = load()\npoll(**opts)\n"
    )
    consumers, notes, _ = run(str(tmp_path))
    a, b = sorted(consumers, key=lambda c: c.location.line)
    assert (a.location.line, a.queue_ref.value[-2:], a.visibility_override) == (5, "/a", 60)
    assert (b.location.line, b.queue_ref, b.visibility_override) == (7, None, None)
    assert any("the call at" in n.message and "cannot read" in n.message for n in notes)


def test_python_a_listener_library_s_registry_gives_one_consumer_per_decorator():
    """A src/ layout (pyproject.toml above src/lk/, the application beside src/): ``@listener(...)`` stores its
    arguments in a dataclass of a registry, ``run()`` builds one Engine per entry with ``**{k: v for k, v in
    spec.opts.items() if v is not None or k in _KEEP}``, the Engine's receive reads ``self.visibility`` (``x if x
    is not None else _env_int("LK_VISIBILITY", 60)``). Each decorator is its own consumer at its line: the
    queue it names (else ``QUEUE_URL``), the visibility it gives (else the helper's default)."""
    consumers, notes, _ = run(os.path.join(FLOW, "registry-python"))
    order, audit = sorted(consumers, key=lambda c: c.location.line)
    assert (
        rel(order.location) == "registry-python/app.py:6"
        and rel(audit.location) == "registry-python/app.py:11"
    )
    assert (order.queue_ref.kind, order.queue_ref.value) == ("env", "ORDERS_QUEUE_URL")
    assert (audit.queue_ref.kind, audit.queue_ref.value) == ("env", "QUEUE_URL")
    assert (
        order.visibility_override == 90
        and rel(order.locations["visibility_override"]) == "registry-python/app.py:6"
    )
    assert (
        audit.visibility_override == 60
        and audit.settings["wait_time"] == 5
        and order.settings["wait_time"] == 20
    )
    assert (
        rel(order.locations["receive"])
        == rel(audit.locations["receive"])
        == "registry-python/src/lk/engine.py:27"
    )
    assert [n.message for n in notes] == [
        "the VisibilityTimeout of this receive comes from the environment variable LK_VISIBILITY; its default 60 is used"
    ]


def test_python_conditionals_helpers_and_splats_are_read_only_where_known():
    """``a if x is not None else b`` takes its branch only when x is known (an environment variable may be
    unset: not read); a helper that does more than return is followed to its return (engine.returned); a splat
    whose condition, spread or source is not one visguard reads leaves the keys it may pass unknown."""
    code = (
        b"import os, boto3\nsqs = boto3.client('sqs')\nU = 'https://sqs.eu-west-1.amazonaws.com/1/q'\n"
        b"def helper(d):\n    return d * 2\n"
        b"def busy(d):\n    x = d\n    return x\n"
        b"N = None\nE = os.environ.get('VT')\n"
        b"sqs.receive_message(QueueUrl=U, VisibilityTimeout=30 if N is None else 60)\n"  # 11: 30
        b"sqs.receive_message(QueueUrl=U, VisibilityTimeout=30 if E is not None else 60)\n"  # 12: unknown
        b"sqs.receive_message(QueueUrl=U, VisibilityTimeout=helper(20))\n"  # 13: 40
        b"sqs.receive_message(QueueUrl=U, VisibilityTimeout=busy(20))\n"  # 14: 20 (x = d; return x)
    )
    got = {c.location.line: c.visibility_override for c in python.read("c.py", code).consumers}
    assert got == {11: 30, 12: None, 13: 40, 14: 20}
    lib = (
        b"import boto3\nsqs = boto3.client('sqs')\n"
        b"def poll(url, vt=30, wait=None):\n    sqs.receive_message(QueueUrl=url, VisibilityTimeout=vt)\n"
        b"U = 'https://sqs.eu-west-1.amazonaws.com/1/q'\n"
    )
    cases = {
        b"poll(U, **{'vt': 45})\n": 45,  # a dict literal
        b"D = {'vt': 50}\npoll(U, **D)\n": 50,  # a name bound to one
        b"D = {'vt': None, 'wait': 2}\npoll(U, **{k: v for k, v in D.items() if v is not None})\n": 30,  # dropped
        b"D = {'vt': 5}\npoll(U, **{k: v for k, v in D.items() if len(k) > 1})\n": None,  # a condition not read
        b"poll(U, **{k: v for k, v in load().items()})\n": None,  # a source not read
        b"def f(**more):\n    poll(U, **{'wait': 1, **more})\n": None,  # more may hold vt
    }
    for tail, expected in cases.items():
        (c,) = python.read("p.py", lib + tail).consumers
        assert c.visibility_override == expected, tail


def test_python_two_receives_sharing_the_call_sites_are_distinct_consumers(tmp_path):
    """A poller whose two receives (a main queue and a retry queue) both read the constructor's arguments: each
    call site is one consumer per receive, with distinct ids; MAX_SITES sites stay bounded in time."""
    from visguard.linter.loaders.code.engine import MAX_SITES

    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "p.py").write_text(
        "import boto3\nsqs = boto3.client('sqs')\n"
        "class P:\n    def __init__(self, url, vt=30):\n        self.url = url\n        self.vt = vt\n"
        "    def main(self):\n        sqs.receive_message(QueueUrl=self.url, VisibilityTimeout=self.vt)\n"
        "    def retry(self):\n        sqs.receive_message(QueueUrl=self.url + '-retry', VisibilityTimeout=self.vt)\n"
        "P('https://sqs.eu-west-1.amazonaws.com/1/a', 40)\nP('https://sqs.eu-west-1.amazonaws.com/1/b')\n"
    )
    consumers, _, _ = run(str(tmp_path))
    got = sorted((c.location.line, c.locations["receive"].line, c.visibility_override) for c in consumers)
    assert got == [(11, 8, 40), (11, 10, 40), (12, 8, 30), (12, 10, 30)]
    assert len({c.id for c in consumers}) == 4
    sites = "".join(f"P('https://sqs.eu-west-1.amazonaws.com/1/q{i}', {i + 1})\n" for i in range(MAX_SITES))
    (tmp_path / "many.py").write_text(
        "import boto3\nsqs = boto3.client('sqs')\nclass P:\n    def __init__(self, url, vt):\n"
        "        self.url = url\n        self.vt = vt\n    def go(self):\n"
        "        sqs.receive_message(QueueUrl=self.url, VisibilityTimeout=self.vt, WaitTimeSeconds=self.vt)\n"
        + sites
    )
    (tmp_path / "p.py").unlink()
    (consumers, _, _), spent = _timed(lambda: run(str(tmp_path)))
    assert len(consumers) == MAX_SITES and spent < 20
    assert sorted(c.visibility_override for c in consumers) == list(range(1, MAX_SITES + 1))


def test_python_an_annotation_on_a_shared_receive_is_every_call_site_s():
    """``# visguard: wait=15`` on the receive the call sites share: each site's consumer states it (its own
    values still its call's)."""
    code = (
        b"import boto3\nsqs = boto3.client('sqs')\n"
        b"def poll(url, vt=30):\n    # visguard: wait=15\n    sqs.receive_message(QueueUrl=url, VisibilityTimeout=vt)\n"
        b"poll('https://sqs.eu-west-1.amazonaws.com/1/a')\npoll('https://sqs.eu-west-1.amazonaws.com/1/b', 90)\n"
    )
    a, b = sorted(python.read("p.py", code).consumers, key=lambda c: c.location.line)
    assert (a.location.line, a.visibility_override, a.settings["wait_time"]) == (6, 30, 15)
    assert (b.location.line, b.visibility_override, b.settings["wait_time"]) == (7, 90, 15)
    assert a.locations["wait_time"].line == 4


def test_python_a_loop_s_instance_is_the_one_the_registry_holds():
    """``for spec in REG: receive(QueueUrl=spec.url)``: the one dataclass instance the code appends (two
    appended: not read, never one picked); a name bound to an instance only in another function is not this
    function's."""
    head = (
        b"import boto3\nfrom dataclasses import dataclass\nsqs = boto3.client('sqs')\n"
        b"@dataclass\nclass _S:\n    url: str\nREG = []\n"
    )
    one = b"def add():\n    s = _S(url='https://sqs.eu-west-1.amazonaws.com/1/a')\n    REG.append(s)\n"
    two = b"def add2():\n    t = _S(url='https://sqs.eu-west-1.amazonaws.com/1/b')\n    REG.append(t)\n"
    loop = b"def run():\n    for spec in REG:\n        sqs.receive_message(QueueUrl=spec.url)\n"
    (c,) = python.read("r.py", head + one + loop).consumers
    assert c.queue_ref.value.endswith("/1/a")
    (c,) = python.read("r.py", head + one + two + loop).consumers
    assert c.queue_ref is None
    other = b"def run():\n    sqs.receive_message(QueueUrl=s.url)\n"
    (c,) = python.read("r.py", head + one + other).consumers
    assert c.queue_ref is None


# ------------------------------------------------------------------------- one consumer per call site, every language
# (engine.Reader.per_call_site) a receive whose queue and visibility come through a constructor called from two
# places: one consumer per call, at the call, with its values and the defaults it leaves; calls that say the same:
# one consumer at the receive; a call whose arguments are not read: unknown values, never the other call's
Q = "https://sqs.eu-west-1.amazonaws.com/1/"
SHARED = {
    "javascript": (
        "package.json",
        "{}\n",
        "worker.js",
        'const { SQSClient, ReceiveMessageCommand } = require("@aws-sdk/client-sqs");\n'
        "const client = new SQSClient({});\n"
        "class Worker {\n  constructor(queueUrl, visibility = 30) { this.queueUrl = queueUrl; this.vt = visibility; }\n"
        "  async poll() {\n"
        "    return client.send(new ReceiveMessageCommand({ QueueUrl: this.queueUrl, VisibilityTimeout: this.vt }));\n"
        "  }\n}\nmodule.exports = { Worker };\n",
        6,
        "app.js",
        'const { Worker } = require("./worker");\n',
        lambda q, vt: f'new Worker("{q}"{", " + str(vt) if vt else ""});\n',
        "new Worker(...process.argv);\n",
        ["const U = process.env.QUEUE_URL;\n", "new Worker(U);\n", "new Worker(U);\n"],
    ),
    "go": (
        "go.mod",
        "module example.com/w\n\ngo 1.22\n",
        "listener.go",
        'package w\n\nimport (\n\t"context"\n\n\t"github.com/aws/aws-sdk-go-v2/aws"\n'
        '\t"github.com/aws/aws-sdk-go-v2/service/sqs"\n)\n\n'
        "type Listener struct {\n\tc   *sqs.Client\n\turl string\n\tvt  int32\n}\n\n"
        "func NewListener(c *sqs.Client, url string, vt int32) *Listener {\n"
        "\treturn &Listener{c: c, url: url, vt: vt}\n}\n\n"
        "func (l *Listener) Poll(ctx context.Context) {\n"
        "\tl.c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(l.url), VisibilityTimeout: l.vt})\n}\n",
        21,
        "main.go",
        "package w\n\nfunc start() {\n",
        lambda q, vt: f'\tNewListener(nil, "{q}", {vt or 30})\n',
        "\tNewListener(args...)\n",
        [
            "\tNewListener(nil, U, V)\n",
            "\tNewListener(nil, U, V)\n",
            '}\n\nconst U = "https://q/a"\nconst V = 30\n',
        ],
    ),
    "rust": (
        "Cargo.toml",
        '[package]\nname = "w"\nversion = "0.1.0"\n\n[dependencies]\naws-sdk-sqs = "1"\n',
        "src/worker.rs",
        "use aws_sdk_sqs::Client;\n\npub struct Worker {\n    client: Client,\n    queue_url: String,\n"
        "    visibility: i32,\n}\n\nimpl Worker {\n"
        "    pub fn new(client: Client, queue_url: &str, visibility: i32) -> Self {\n"
        "        Worker { client, queue_url: queue_url.to_string(), visibility }\n    }\n\n"
        "    pub async fn poll(&self) {\n"
        "        let _ = self.client.receive_message().queue_url(&self.queue_url)"
        ".visibility_timeout(self.visibility).send().await;\n    }\n}\n",
        15,
        "src/main.rs",
        "mod worker;\nuse worker::Worker;\n\nfn start(c: aws_sdk_sqs::Client) {\n",
        lambda q, vt: f'    Worker::new(c.clone(), "{q}", {vt or 30});\n',
        None,  # Rust has no spread of arguments
        [
            "    Worker::new(c.clone(), U, V);\n",
            "    Worker::new(c, U, V);\n",
            '}\n\nconst U: &str = "https://q/a";\nconst V: i32 = 30;\n',
        ],
    ),
}


def _shared(tmp_path, lang: str, calls: list[str]):
    manifest, body, lib, code, receive, app, head = SHARED[lang][:7]
    close = "}\n" if lang != "javascript" and not calls[-1].startswith("}") else ""
    for name, text_ in ((manifest, body), (lib, code), (app, head + "".join(calls) + close)):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text_)
    consumers, notes, _ = run(str(tmp_path))
    return sorted(consumers, key=lambda c: (c.location.file, c.location.line)), notes, receive, app


@pytest.mark.parametrize("lang", sorted(SHARED))
def test_every_language_one_consumer_per_call_site_of_a_shared_receive(tmp_path, lang):
    call = SHARED[lang][7]
    first = len(SHARED[lang][6].splitlines()) + 1
    consumers, notes, receive, app = _shared(tmp_path, lang, [call(Q + "a", 45), call(Q + "b", 0)])
    got = [(c.location.file.endswith(app), c.location.line, c.queue_ref.value[-1], c.visibility_override,
            c.locations["receive"].line) for c in consumers]  # fmt: skip
    assert got == [(True, first, "a", 45, receive), (True, first + 1, "b", 30, receive)]
    assert len({c.id for c in consumers}) == 2
    assert not [n for n in notes if "given different values" in n.message]


@pytest.mark.parametrize("lang", sorted(SHARED))
def test_every_language_call_sites_that_say_the_same_stay_one_consumer_at_the_receive(tmp_path, lang):
    """Two calls passing the same names (a constant written once, the default left): one consumer at the receive;
    the same literal written at two calls is two places, so two consumers."""
    consumers, _, receive, _ = _shared(tmp_path, lang, SHARED[lang][9])
    (c,) = consumers
    assert c.location.line == receive and "receive" not in c.locations
    assert c.visibility_override == 30
    call = SHARED[lang][7]
    assert len(_shared(tmp_path, lang, [call(Q + "a", 0), call(Q + "a", 0)])[0]) == 2


@pytest.mark.parametrize("lang", [k for k, v in sorted(SHARED.items()) if v[8] is not None])
def test_every_language_a_call_site_whose_arguments_are_not_read_gives_unknown_values(tmp_path, lang):
    call, unread = SHARED[lang][7], SHARED[lang][8]
    consumers, _, _, app = _shared(tmp_path, lang, [call(Q + "a", 45), unread])
    a, b = consumers
    assert (a.queue_ref.value[-1], a.visibility_override) == ("a", 45)
    assert (b.queue_ref, b.visibility_override) == (None, None)
    assert a.location.line + 1 == b.location.line and b.location.file.endswith(app)


RUST_HUB = (
    "use aws_sdk_sqs::Client;\n\npub struct Poller {\n    client: Client,\n    queue_url: String,\n}\n\n"
    "impl Poller {\n    pub fn new(client: Client, queue_url: &str) -> Self {\n"
    "        Poller { client, queue_url: queue_url.to_string() }\n    }\n\n"
    "    pub async fn poll(&self) {\n"
    "        let _ = self.client.receive_message().queue_url(&self.queue_url).send().await;\n    }\n}\n\n"
    "pub struct Hub {\n    client: Client,\n    pollers: Vec<Poller>,\n}\n\n"
    "impl Hub {\n    pub fn add_queue(&mut self, queue_url: &str) {\n"
    "        self.pollers.push(Poller::new(self.client.clone(), queue_url));\n    }\n\n"
    "    pub fn add_named(&mut self, name: &str) {\n        self.add_queue(name);\n    }\n}\n"
)


def _hub(tmp_path, main: str, test: str | None = None, lib: str = RUST_HUB):
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "hub"\nversion = "0.1.0"\n')
    (tmp_path / "src").mkdir(exist_ok=True)
    (tmp_path / "src" / "lib.rs").write_text(lib)
    (tmp_path / "src" / "main.rs").write_text("use hub::Hub;\n\nfn start(mut h: Hub) {\n" + main + "}\n")
    if test is not None:
        (tmp_path / "tests").mkdir(exist_ok=True)
        (tmp_path / "tests" / "it.rs").write_text("use hub::Hub;\n\nfn it(mut h: Hub) {\n" + test + "}\n")
    consumers, _, _ = run(str(tmp_path))
    return sorted(
        (rel_to(tmp_path, c.location), c.queue_ref.value if c.queue_ref else None) for c in consumers
    )


def rel_to(top, loc) -> str:
    return os.path.relpath(loc.file, top).replace(os.sep, "/") + f":{loc.line}"


def test_a_call_site_whose_value_comes_through_another_shared_function_is_read_per_call_of_that_one(tmp_path):
    """``Poller::new`` is called by ``add_queue`` (and one other place), ``add_queue`` by ``add_named`` and two
    places, ``add_named`` by two: each outermost call is its own consumer, with its own queue."""
    main = (
        '    h.add_queue("https://q/a");\n    h.add_queue("https://q/b");\n'
        '    h.add_named("https://q/c");\n    h.add_named("https://q/d");\n'
        '    let _ = hub::Poller::new(h.client.clone(), "https://q/e");\n'
    )
    assert _hub(tmp_path, main) == [
        ("src/main.rs:4", "https://q/a"), ("src/main.rs:5", "https://q/b"), ("src/main.rs:6", "https://q/c"),
        ("src/main.rs:7", "https://q/d"), ("src/main.rs:8", "https://q/e"),
    ]  # fmt: skip


def test_a_fan_out_includes_the_test_files_call_sites(tmp_path):
    """Two calls of the application (and ``add_named``'s, which no one calls: unknown, never another call's) and
    one of an integration test that creates a queue: a consumer each, the test's with the queue it passes; a
    unit test's call (its file creates no queue) is no consumer; a test's call beside one call of the application
    is still not another consumer (that call's value is the receive's, as before)."""
    main = '    h.add_queue("https://q/a");\n    h.add_queue("https://q/b");\n'
    unit = '    h.add_queue("https://q/t");\n'
    assert _hub(tmp_path, main, unit) == [
        ("src/lib.rs:29", None), ("src/main.rs:4", "https://q/a"), ("src/main.rs:5", "https://q/b"),
    ]  # fmt: skip
    test = '    let _ = h.client.create_queue().queue_name("t").send();\n    h.add_queue("https://q/t");\n'
    assert _hub(tmp_path, main, test) == [
        ("src/lib.rs:29", None), ("src/main.rs:4", "https://q/a"), ("src/main.rs:5", "https://q/b"),
        ("tests/it.rs:5", "https://q/t"),
    ]  # fmt: skip
    main = '    h.add_queue("https://q/a");\n'
    lib = RUST_HUB[: RUST_HUB.index("    pub fn add_named")] + "}\n"
    assert _hub(tmp_path, main, test, lib) == [("src/lib.rs:14", "https://q/a")]


def test_nested_call_sites_stay_within_max_sites_consumers(tmp_path):
    """``add_named`` called MAX_SITES times beside two ``add_queue`` calls: the receive's consumers stay within
    MAX_SITES (the ``add_named`` call of ``add_queue`` read once: its queue unknown), in bounded time."""
    from visguard.linter.loaders.code.engine import MAX_SITES

    main = '    h.add_queue("https://q/a");\n    h.add_queue("https://q/b");\n' + "".join(
        f'    h.add_named("https://q/n{i}");\n' for i in range(MAX_SITES)
    )
    got, spent = _timed(lambda: _hub(tmp_path, main))
    assert len(got) <= MAX_SITES and spent < 20
    assert ("src/main.rs:4", "https://q/a") in got and ("src/main.rs:5", "https://q/b") in got
    assert not [q for _, q in got if q and "/n" in q]


def test_javascript_a_registering_function_s_calls_are_each_a_consumer(tmp_path):
    """``addQueue(url)`` builds ``new Poller(url)``, and the application builds one Poller itself: each of the
    three outermost calls is a consumer, with its queue."""
    (tmp_path / "package.json").write_text("{}\n")
    (tmp_path / "lib.js").write_text(
        'const { SQSClient, ReceiveMessageCommand } = require("@aws-sdk/client-sqs");\n'
        "const client = new SQSClient({});\nclass Poller {\n  constructor(url) { this.url = url; }\n"
        "  poll() { return client.send(new ReceiveMessageCommand({ QueueUrl: this.url })); }\n}\n"
        "const pollers = [];\nfunction addQueue(url) { pollers.push(new Poller(url)); }\n"
        "module.exports = { Poller, addQueue };\n"
    )
    (tmp_path / "app.js").write_text(
        'const { Poller, addQueue } = require("./lib");\n'
        f'addQueue("{Q}a");\naddQueue("{Q}b");\nnew Poller("{Q}c");\n'
    )
    consumers, _, _ = run(str(tmp_path))
    got = sorted(
        (rel_to(tmp_path, c.location), c.queue_ref.value[-1], c.locations["receive"].line) for c in consumers
    )
    assert got == [("app.js:2", "a", 5), ("app.js:3", "b", 5), ("app.js:4", "c", 5)]


# ------------------------------------------------------------------ objects of a type that sends and receives
QUEUE_TYPE = (
    "import boto3\n\n\nclass Queue:\n"
    "    def __init__(self, url, visibility=20):\n"
    "        self.client = boto3.client('sqs')\n        self.url = url\n        self.visibility = visibility\n\n"
    "    def post(self, body):\n        return self.client.send_message(QueueUrl=self.url, MessageBody=body)\n\n"
    "    def get(self):\n"
    "        return self.client.receive_message(QueueUrl=self.url, VisibilityTimeout=self.visibility)\n\n"
    "    def drain(self):\n        return self.get()\n"
)
URL = "https://sqs.eu-west-1.amazonaws.com/123456789012/"


@pytest.mark.parametrize(
    ("main", "consumed", "noted"),
    [
        # only the object whose receiving method is called consumes; the other only sends (a producer)
        (
            f"inbox = Queue('{URL}inbox', visibility=120)\noutbox = Queue('{URL}outbox')\n"
            "for m in inbox.get()['Messages']:\n    outbox.post(m['Body'])\n",
            {"inbox": 120},
            [],
        ),
        # a method that reaches the receive (drain calls get), and a call chained on the construction
        (
            f"a = Queue('{URL}a', 40)\na.drain()\nQueue('{URL}b', 50).get()\nQueue('{URL}c').post('x')\n",
            {"a": 40, "b": 50},
            [],
        ),
        # an object passed on (to a controller): not followed, said, never judged
        (
            f"inbox = Queue('{URL}inbox', 60)\noutbox = Queue('{URL}outbox')\nrun(inbox, outbox)\n",
            {},
            ["inbox", "outbox"],
        ),
    ],
)
def test_objects_of_a_type_that_sends_and_receives_consume_only_when_their_receiving_method_is_called(
    tmp_path, main, consumed, noted
):
    """Issue 35 §5: a workload is a consumer when its code receives. Per-call-site consumers of a constructor
    (engine.Reader.per_call_site) whose type also sends: a construction is a consumer only when a method reaching
    the receive is called on the object it builds; one that only sends is a producer, one passed on is a note."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'w'\n")
    (tmp_path / "sqsq.py").write_text(QUEUE_TYPE)
    (tmp_path / "main.py").write_text("from sqsq import Queue\n\n" + main)
    consumers, notes, _ = run(str(tmp_path))
    got = {c.queue_ref.value.rsplit("/", 1)[-1]: c.visibility_override for c in consumers if c.queue_ref}
    assert got == consumed
    assert all(c.queue_ref is not None for c in consumers)
    said = [n.message for n in notes if "whether it receives is not followed" in n.message]
    assert [any(f" {name} built at" in m for m in said) for name in noted] == [True] * len(noted)
    assert len(said) == len(noted)


def test_an_object_used_too_often_to_follow_is_a_note_and_read_in_bounded_time(tmp_path):
    """20,000 uses of one object's name: its uses are not all read (``engine.MAX_USES``), so it is not judged,
    and the file is read in bounded time."""
    import time

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'w'\n")
    (tmp_path / "sqsq.py").write_text(QUEUE_TYPE)
    body = f"inbox = Queue('{URL}inbox', 60)\noutbox = Queue('{URL}outbox')\ninbox.get()\n"
    body += "outbox.post('x')\n" * 20_000
    (tmp_path / "main.py").write_text("from sqsq import Queue\n\n" + body)
    started = time.process_time()
    consumers, notes, _ = run(str(tmp_path))
    assert time.process_time() - started < 30
    assert {c.queue_ref.value.rsplit("/", 1)[-1] for c in consumers if c.queue_ref} == {"inbox"}
    assert any("outbox built at" in n.message and "too often" in n.message for n in notes)
