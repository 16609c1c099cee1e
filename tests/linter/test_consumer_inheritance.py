"""Class inheritance in the value flow (issue 35): a receive in a base class's method, reached through objects
of its subclasses, whose constructors pass their arguments up (``super(...)``, ``super().__init__(...)``) to the
base constructor's parameters, stored on ``this``/``self`` and read at the receive. Each object built whose
receiving method is called is one consumer, at the line building it, with that line's values and the defaults
(parameter defaults, an options object's defaults) it leaves; an object only sending is none.

Fixtures: ``fixtures/consumers/inheritance/<language>/`` (a subclass passing an options object on, one passing
positional values, one without a constructor of its own, an object of a subclass that only sends)."""

from __future__ import annotations

import os
import time

import pytest
from visguard.linter.loaders import registry
from visguard.linter.loaders.code import engine

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "consumers", "inheritance")
Q = "https://sqs.eu-west-1.amazonaws.com/123456789012/"


def consumers_of(folder: str):
    errors: list = []
    out = []
    for item in registry.discover([folder], errors=errors):
        if item.loader.name == "code":
            out += item.loader.load(item.path, registry.LoadOptions()).pending
    assert not errors
    return sorted(out, key=lambda c: (c.location.file, c.location.line))


def rel(top: str, loc) -> str:
    return os.path.relpath(loc.file, top).replace(os.sep, "/") + f":{loc.line}"


CASES = {
    # language: (main file, (line, queue, visibility) of each consumer, the receive's place)
    "typescript": (
        "src/main.ts",
        ((6, "billing", 30), (7, "stock", 90), (8, "mail", 45)),  # 30: the base's options default
        "src/base-worker.ts:20",
    ),
    "python": (
        "app/main.py",
        ((7, "billing", 30), (8, "stock", 90), (9, "mail", 45)),  # 30: the base's parameter default
        "app/base_worker.py:14",
    ),
    "java": (
        "src/main/java/w/Main.java",
        ((7, "billing", 30), (8, "stock", 90)),  # 30: passed up by BillingWorker's super(url, 30)
        "src/main/java/w/BaseWorker.java:19",
    ),
    "csharp": (
        "Program.cs",
        ((7, "billing", 30), (8, "stock", 90)),  # 30: the base constructor's parameter default
        "BaseWorker.cs:19",
    ),
}


@pytest.mark.parametrize("lang", sorted(CASES))
def test_a_base_class_receive_is_one_consumer_per_subclass_object_built(lang):
    """billing passes an options object (or its parameter) up, stock positional values, mail (no constructor of
    its own) runs the base's; the outbox, a StockWorker that only sends, is no consumer."""
    top = os.path.join(HERE, lang)
    main, expected, receive = CASES[lang]
    got = [
        (rel(top, c.location), c.queue_ref.value if c.queue_ref else None, c.visibility_override,
         rel(top, c.locations["receive"]))
        for c in consumers_of(top)
    ]  # fmt: skip
    assert got == [(f"{main}:{n}", Q + q, vt, receive) for n, q, vt in expected]


def _write(top, files: dict[str, str]) -> None:
    for name, body in files.items():
        (top / name).parent.mkdir(parents=True, exist_ok=True)
        (top / name).write_text(body)


TS_BASE = (
    'import { SQSClient, ReceiveMessageCommand, SendMessageCommand } from "@aws-sdk/client-sqs";\n'
    "const sqs = new SQSClient({});\n"
    "export class Base {\n"
    "  constructor(opts) { this.opts = { vt: 30, ...opts }; }\n"
    "  async run() {\n"
    "    await sqs.send(new ReceiveMessageCommand({ QueueUrl: this.opts.url, VisibilityTimeout: this.opts.vt }));\n"
    "  }\n"
    "  async post(b) { await sqs.send(new SendMessageCommand({ QueueUrl: this.opts.url, MessageBody: b })); }\n"
    "}\n"
)


def test_one_subclass_built_twice_is_two_consumers_at_its_builds(tmp_path):
    """One ``super(...)`` call (no fan-out at the base) but its subclass built at two lines with different
    queues: a consumer per build, never one queue picked for both."""
    _write(tmp_path, {
        "package.json": "{}\n",
        "base.js": TS_BASE,
        "sub.js": 'import { Base } from "./base";\n'
                  "export class Sub extends Base {\n  constructor(url, vt) { super({ url, vt }); }\n}\n",
        "main.js": 'import { Sub } from "./sub";\n'
                   f'const a = new Sub("{Q}a", 60);\nconst b = new Sub("{Q}b", 90);\na.run();\nb.run();\n',
    })  # fmt: skip
    got = [(rel(str(tmp_path), c.location), c.queue_ref.value[-1], c.visibility_override)
           for c in consumers_of(str(tmp_path))]  # fmt: skip
    assert got == [("main.js:2", "a", 60), ("main.js:3", "b", 90)]


def test_a_subclass_object_that_only_sends_is_no_consumer(tmp_path):
    _write(tmp_path, {
        "package.json": "{}\n",
        "base.js": TS_BASE,
        "subs.js": 'import { Base } from "./base";\n'
                   "export class A extends Base {\n  constructor(o) { super({ ...o }); }\n}\n"
                   "export class B extends Base {\n  constructor(o) { super({ ...o, vt: 5 }); }\n}\n",
        "main.js": 'import { A, B } from "./subs";\n'
                   f'const a = new A({{ url: "{Q}a" }});\nconst b = new B({{ url: "{Q}b" }});\n'
                   'a.post("x");\nb.run();\n',
    })  # fmt: skip
    got = [(rel(str(tmp_path), c.location), c.queue_ref.value[-1], c.visibility_override)
           for c in consumers_of(str(tmp_path))]  # fmt: skip
    assert got == [("main.js:3", "b", 5)]  # a pair after the spread wins over the base's default


def test_many_subclasses_are_bounded(tmp_path):
    """Far more subclasses and builds than a receive may have consumers (MAX_SITES): the read ends quickly, with
    at most that many consumers."""
    subs = "".join(
        f"export class S{i} extends Base {{\n  constructor(o) {{ super({{ ...o }}); }}\n}}\n"
        for i in range(300)
    )
    builds = "".join(f'const s{i} = new S{i}({{ url: "{Q}q{i}" }});\ns{i}.run();\n' for i in range(300))
    names = ", ".join(f"S{i}" for i in range(300))
    _write(tmp_path, {
        "package.json": "{}\n", "base.js": TS_BASE, "subs.js": 'import { Base } from "./base";\n' + subs,
        "main.js": f'import {{ {names} }} from "./subs";\n' + builds,
    })  # fmt: skip
    start = time.process_time()
    got = consumers_of(str(tmp_path))
    assert time.process_time() - start < 20
    assert 1 <= len(got) <= engine.MAX_SITES


# ------------------------------------------------------------------- an object passed into another constructor
# (engine._passed_into) ``Worker(queue=Queue(url))`` / ``new Worker(new SqsQueue(url))``: the Queue object is a
# consumer when the Worker stores it and a Worker method calling its receiving method is called on the Worker;
# ``drain(Queue(url))`` when the function calls it on the parameter. An Outbox storing it only to send, or a
# Worker whose other methods only are called, is none. Fixtures: ``fixtures/consumers/passed-object/<language>/``.
PASSED = {
    # language: (main file, (line, queue, visibility) of each consumer, the receive's place)
    "typescript": (
        "src/main.ts",
        ((6, "orders", 90), (8, "audit", 30), (14, "backlog", 600)),  # backlog: drain(q) calls q.pull()
        "src/queue.ts:10",
    ),
    "python": (
        "app/main.py",
        ((7, "orders", 90), (9, "audit", 30), (15, "backlog", 600)),  # 30: the queue class's default
        "app/queue.py:14",
    ),
    "java": ("src/main/java/w/Main.java", ((7, "orders", 90),), "src/main/java/w/SqsQueue.java:19"),
    "csharp": ("Program.cs", ((7, "orders", 90),), "SqsQueue.cs:19"),  # fields read without this.
}


@pytest.mark.parametrize("lang", sorted(PASSED))
def test_an_object_passed_into_another_constructor_is_followed_to_its_receive(lang):
    """idle (only its other methods called) and outbox (stores the queue to send) are no consumers."""
    top = os.path.join(HERE, "..", "passed-object", lang)
    main, expected, receive = PASSED[lang]
    got = [
        (rel(top, c.location), c.queue_ref.value if c.queue_ref else None, c.visibility_override,
         rel(top, c.locations["receive"]))
        for c in consumers_of(top)
    ]  # fmt: skip
    assert got == [(f"{main}:{n}", Q + q, vt, receive) for n, q, vt in expected]


def test_objects_passed_through_too_many_constructors_are_not_followed(tmp_path):
    """Wrappers of wrappers deeper than MAX_PASSED: not followed (a note), never guessed a consumer."""
    wraps = "".join(
        f"class W{i}:\n    def __init__(self, inner):\n        self.inner = inner\n\n"
        f"    def run(self):\n        self.inner.{'pull' if i == 0 else 'run'}()\n\n\n"
        for i in range(engine.MAX_PASSED + 2)
    )
    _write(tmp_path, {
        "requirements.txt": "boto3\n",
        "q.py": "import boto3\nsqs = boto3.client('sqs')\n\n\nclass Queue:\n"
                "    def __init__(self, url):\n        self.url = url\n\n"
                "    def pull(self):\n        return sqs.receive_message(QueueUrl=self.url)\n\n"
                "    def push(self, b):\n        sqs.send_message(QueueUrl=self.url, MessageBody=b)\n\n\n" + wraps,
        "main.py": "from q import *\n\n"
                   f"a = W1(W0(Queue('{Q}a')))\na.run()\nb = W0(Queue('{Q}b'))\nb.run()\n"
                   "deep = " + "".join(f"W{i}(" for i in reversed(range(engine.MAX_PASSED + 2)))
                   + f"Queue('{Q}c')" + ")" * (engine.MAX_PASSED + 2) + "\ndeep.run()\n",
    })  # fmt: skip
    got = [(rel(str(tmp_path), c.location), c.queue_ref.value[-1]) for c in consumers_of(str(tmp_path))]
    assert got == [("main.py:3", "a"), ("main.py:5", "b")]


def test_a_subclass_of_a_subclass_passes_its_values_up_both_constructors(tmp_path):
    """Leaf extends Mid extends Base: Leaf's super(url, 120) gives Mid's parameters, Mid's super({ url, vt })
    Base's; Mid built itself is its own consumer; Other (a second subclass of Base) leaves Base's default."""
    _write(tmp_path, {
        "package.json": "{}\n",
        "base.js": TS_BASE,
        "subs.js": 'import { Base } from "./base";\n'
                   "export class Mid extends Base {\n  constructor(url, vt) { super({ url, vt }); }\n}\n"
                   "export class Leaf extends Mid {\n  constructor(url) { super(url, 120); }\n}\n"
                   "export class Other extends Base {\n  constructor(url) { super({ url }); }\n}\n",
        "main.js": 'import { Leaf, Mid, Other } from "./subs";\n'
                   f'const leaf = new Leaf("{Q}leaf");\nconst mid = new Mid("{Q}mid", 60);\n'
                   f'const other = new Other("{Q}other");\nleaf.run();\nmid.run();\nother.run();\n',
    })  # fmt: skip
    got = [(rel(str(tmp_path), c.location), c.queue_ref.value[-4:], c.visibility_override)
           for c in consumers_of(str(tmp_path))]  # fmt: skip
    assert got == [("main.js:2", "leaf", 120), ("main.js:3", "/mid", 60), ("main.js:4", "ther", 30)]


SLOW = "https://sqs.eu-west-1.amazonaws.com/1/slow"


def test_a_field_a_subclass_sets_is_its_objects_not_the_bases(tmp_path):
    """``this.visibility = 120`` after ``super(url)`` (and a class field of the subclass) win over the base's
    class field for the subclass's objects; another subclass keeps the base's; one subclass alone too."""
    base = (
        'import { SQSClient, ReceiveMessageCommand } from "@aws-sdk/client-sqs";\n'
        "const sqs = new SQSClient({});\n"
        "export class Base {\n  visibility = 30;\n  constructor(url) { this.url = url; }\n"
        "  async run() {\n"
        "    await sqs.send(new ReceiveMessageCommand({ QueueUrl: this.url, VisibilityTimeout: this.visibility }));\n"
        "  }\n}\n"
    )
    subs = (
        'import { Base } from "./base";\n'
        "export class Slow extends Base {\n  constructor(url) { super(url); this.visibility = 120; }\n}\n"
        "export class Slower extends Base {\n  visibility = 300;\n  constructor(url) { super(url); }\n}\n"
        "export class Plain extends Base {\n  constructor(url) { super(url); }\n}\n"
    )
    main = (
        'import { Slow, Slower, Plain } from "./subs";\n'
        f'new Slow("{SLOW}").run();\nnew Slower("{SLOW}er").run();\nnew Plain("{SLOW}-plain").run();\n'
    )
    _write(tmp_path, {"package.json": "{}\n", "base.js": base, "subs.js": subs, "main.js": main})
    got = [(rel(str(tmp_path), c.location), c.visibility_override) for c in consumers_of(str(tmp_path))]
    assert got == [("main.js:2", 120), ("main.js:3", 300), ("main.js:4", 30)]
    only = subs.split("export class Slower")[0]
    _write(
        tmp_path,
        {"subs.js": only, "main.js": f'import {{ Slow }} from "./subs";\nnew Slow("{SLOW}").run();\n'},
    )
    got = [(rel(str(tmp_path), c.location), c.visibility_override) for c in consumers_of(str(tmp_path))]
    assert got == [("main.js:2", 120)]


def test_python_an_attribute_a_subclass_sets_after_super_init_is_its_objects(tmp_path):
    base = (
        "import boto3\n\nsqs = boto3.client('sqs')\n\n\nclass Base:\n"
        "    def __init__(self, url):\n        self.url = url\n        self.visibility = 30\n\n"
        "    def run(self):\n        sqs.receive_message(QueueUrl=self.url, VisibilityTimeout=self.visibility)\n"
    )
    subs = (
        "from base import Base\n\n\nclass Slow(Base):\n    def __init__(self, url):\n"
        "        super().__init__(url)\n        self.visibility = 120\n\n\n"
        "class Odd(Base):\n    def __init__(self, url):\n        super().__init__(url)\n\n"
        "    def tune(self):\n        self.visibility = 5\n"
    )
    main = f"from subs import Odd, Slow\n\nSlow('{SLOW}').run()\nOdd('{SLOW}-odd').run()\n"
    _write(tmp_path, {"requirements.txt": "boto3\n", "base.py": base, "subs.py": subs, "main.py": main})
    got = [(rel(str(tmp_path), c.location), c.visibility_override) for c in consumers_of(str(tmp_path))]
    assert got == [("main.py:3", 120), ("main.py:4", None)]  # Odd's is set elsewhere too: not read


def test_a_field_a_subclass_writes_where_its_reader_does_not_follow_is_unknown_never_the_bases(tmp_path):
    """Java's reader reads the base's fields: a StockWorker writing ``this.visibility`` itself leaves its
    consumer's visibility unknown (noted), never the base's value; BillingWorker's stays read."""
    import shutil

    top = tmp_path / "java"
    shutil.copytree(os.path.join(HERE, "java"), top)
    w = top / "src" / "main" / "java" / "w"
    (w / "BaseWorker.java").write_text(
        (w / "BaseWorker.java")
        .read_text()
        .replace("private final int visibility;", "protected int visibility;")
    )
    stock = (w / "StockWorker.java").read_text()
    (w / "StockWorker.java").write_text(
        stock.replace("super(url, visibility);", "super(url, visibility);\n        this.visibility = 600;")
    )
    got = [(c.location.line, c.queue_ref.value[-5:], c.visibility_override) for c in consumers_of(str(top))]
    assert got == [(7, "lling", 30), (8, "stock", None)]


def test_a_loop_of_classes_extending_each_other_ends(tmp_path):
    """``A extends B``, ``B extends A`` (bad input): the super(...) chain ends at MAX_SUPERS, quickly."""
    _write(tmp_path, {
        "package.json": "{}\n",
        "base.js": TS_BASE,
        "loop.js": 'import { Base } from "./base";\n'
                   "export class A extends B {\n  constructor(o) { super(o); }\n}\n"
                   "export class B extends A {\n  constructor(o) { super(o); }\n}\n"
                   "export class C extends Base {\n  constructor(o) { super(o); }\n}\n"
                   "export class D extends Base {\n  constructor(o) { super(o); }\n}\n",
        "main.js": 'import { A, B, C, D } from "./loop";\n'
                   + "".join(f'const x{i} = new {k}({{ url: "{Q}{k}{i}" }});\nx{i}.run();\n'
                             for i, k in enumerate("ABCD" * 10)),
    })  # fmt: skip
    start = time.process_time()
    got = consumers_of(str(tmp_path))
    assert time.process_time() - start < 20
    assert {c.queue_ref.value[len(Q)] for c in got if c.queue_ref} == {"C", "D"}


def test_subclasses_built_nowhere_in_the_package_leave_the_receive_one_consumer(tmp_path):
    """A library's base and subclasses, none built here: the receive stays one consumer at its line (its queue
    not known), as without the subclasses."""
    _write(tmp_path, {
        "requirements.txt": "boto3\n",
        "lib.py": "import boto3\n\nsqs = boto3.client('sqs')\n\n\nclass Base:\n"
                  "    def __init__(self, url, visibility=30):\n        self.url = url\n"
                  "        self.visibility = visibility\n\n    def run(self):\n"
                  "        sqs.receive_message(QueueUrl=self.url, VisibilityTimeout=self.visibility)\n\n\n"
                  "class Fast(Base):\n    def __init__(self, url):\n        super().__init__(url, 5)\n",
    })  # fmt: skip
    (c,) = consumers_of(str(tmp_path))
    assert (rel(str(tmp_path), c.location), c.queue_ref) == ("lib.py:12", None)
