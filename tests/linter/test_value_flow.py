"""The value flow of the code engine (issue 35 §1): a queue, a visibility, a wait time and a batch size followed
from the receive to where the code writes them — a constructor's or a function's parameter (what its one call
passes, its default), a field set from one, another file of the package, a string built of known parts, a
function that asks GetQueueUrl — and the annotation comment that states what the code does not say.

Each fixture under ``fixtures/code/flow/`` is one mechanism in one language, read as a run reads it (the folder
searched, each code file loaded: the files the run was offered are the ones the flow may open)."""

from __future__ import annotations

import os
import time

import pytest
from visguard.linter.loaders import registry
from visguard.linter.loaders.code import engine, go, javascript, python

FLOW = os.path.join(os.path.dirname(__file__), "fixtures", "code", "flow")


def run(folder: str):
    """(consumers, notes) of every code file of ``folder``, loaded as ``visguard lint`` loads them."""
    errors: list = []
    consumers, notes = [], []
    for item in registry.discover([folder], errors=errors):
        if item.loader.name == "code":
            model = item.loader.load(item.path, registry.LoadOptions())
            consumers += model.pending
            notes += model.notes
    assert not errors
    return consumers, notes


def one(consumers, ending: str):
    (c,) = [c for c in consumers if c.location.file.endswith(ending)]
    return c


def rel(loc) -> str:
    return os.path.relpath(loc.file, FLOW).replace(os.sep, "/") + f":{loc.line}"


# ---------------------------------------------------------------------------------------------- parameters
def test_python_constructor_arguments_defaults_and_kwargs_reach_the_receive():
    """``ReportPoller(url, batch=5)`` in another file of the project (a subclass without its own __init__) builds
    the poller: the queue is its argument, the visibility the default 600, the batch ``**options``'s ``batch``,
    the wait ``options.get("wait", 20)``'s default."""
    consumers, _ = run(os.path.join(FLOW, "constructor-python"))
    c = one(consumers, "poller.py")
    assert c.queue_ref.value == "https://sqs.eu-west-1.amazonaws.com/123456789012/reports"
    assert rel(c.queue_ref.location) == "constructor-python/run.py:9"  # where the literal is written
    assert c.visibility_override == 600
    assert c.settings["max_messages"] == 5 and c.settings["wait_time"] == 20


def test_go_method_parameter_field_and_constructor_across_packages():
    """``Fetch(ctx, url, max, wait)`` in package poller is called with ``r.queueURL, 10, 20`` by package runner,
    whose field is set by ``NewRunner(url)`` in the struct literal, called in another file of its folder."""
    consumers, _ = run(os.path.join(FLOW, "constructor-go"))
    c = one(consumers, "client.go")
    assert c.queue_ref.kind == "url" and c.queue_ref.value == "http://localhost:4566/000000000000/orders"
    assert rel(c.queue_ref.location) == "constructor-go/runner/start.go:4"
    assert c.settings["max_messages"] == 10 and c.settings["wait_time"] == 20


def test_go_a_function_asking_get_queue_url_is_that_queue_with_its_own_argument():
    """``url, err = lookup(w.api, w.name)`` after a first ``lookup(w.api, w.deadName)``: the assignment that
    reaches ``w.url = url`` is the second, and ``lookup`` is read with that call's argument (not every call's):
    the queue named ``billing`` by ``Watch("billing", ...)`` in the module's cmd."""
    consumers, _ = run(os.path.join(FLOW, "getqueueurl-go"))
    c = one(consumers, "queue.go")
    assert (c.queue_ref.kind, c.queue_ref.value) == ("name", "billing")
    assert rel(c.queue_ref.location) == "getqueueurl-go/cmd/main.go:6"


def test_rust_constructor_field_a_constant_of_another_module_and_a_default_impl():
    """``poller::Poller::new(client, JOBS_URL)`` in main.rs builds the poller: its ``queue_url`` field is the
    constructor's parameter, given the constant of config.rs (a module of the same folder); the wait and the batch are
    the fields of ``Settings { .. }`` its ``Default`` impl writes."""
    consumers, notes = run(os.path.join(FLOW, "constructor-rust"))
    c = one(consumers, "poller.rs")
    assert (c.source, c.queue_ref.value) == ("rust", "https://sqs.eu-west-1.amazonaws.com/123456789012/jobs")
    assert rel(c.queue_ref.location) == "constructor-rust/src/config.rs:1"
    assert c.settings == {"wait_time": 20, "max_messages": 10}
    assert rel(c.locations["wait_time"]) == "constructor-rust/src/config.rs:10"
    assert notes == []


def test_rust_an_if_zero_default_yields_to_the_value_set():
    """``if cfg.wait == 0 { cfg.wait = 20; }`` is a default: main.rs's ``PollConfig { wait: 5, .. }`` is the wait."""
    consumers, notes = run(os.path.join(FLOW, "defaults-rust"))
    c = one(consumers, "poll.rs")
    assert c.queue_ref.value.endswith("/orders") and c.settings == {"wait_time": 5}
    assert rel(c.locations["wait_time"]) == "defaults-rust/src/main.rs:6"
    assert notes == []


def test_go_if_zero_defaults_yield_to_the_value_set():
    """``if cfg.Wait == 0 { cfg.Wait = 20 }`` is a default: main sets Wait 5 (read) and no Batch (10)."""
    consumers, _ = run(os.path.join(FLOW, "defaults-go"))
    c = one(consumers, "poll.go")
    assert c.queue_ref.value.endswith("/events")
    assert c.settings["wait_time"] == 5 and c.settings["max_messages"] == 10


@pytest.mark.parametrize("lang, ending", [("go", "poll.go"), ("python", "poll.py")])
def test_a_default_an_environment_variable_overrides_under_an_if_is_that_variable_with_its_default(
    lang, ending
):
    """``hide := int32(45)`` then ``if raw := os.Getenv("V"); raw != "" { ... hide = int32(n) }`` (Go), ``hide = 45``
    then ``if os.getenv("V"): hide = int(os.environ["V"])`` (Python): the 45 is used, as the default of V, which the
    consumer's environment may set (consumers._settings_from_env)."""
    consumers, notes = run(os.path.join(FLOW, f"env-default-{lang}"))
    c = one(consumers, ending)
    assert c.queue_ref.value.endswith("/invoices") and c.visibility_override == 45
    assert c.from_env["visibility_override"][0] == "INVOICE_HIDE_SECONDS"
    (note,) = notes
    assert note.message.split(" (line")[0].endswith(
        "comes from the environment variable INVOICE_HIDE_SECONDS; its default 45 is used"
    )


def test_two_calls_with_different_values_are_never_picked_between():
    """The receive two calls of drain() share is one consumer per call (engine.Flow.pinned), at the call, with
    that call's queue and visibility (the default where it passes none): never one value picked for both."""
    consumers, notes = run(os.path.join(FLOW, "two-callers-python"))
    a, b = sorted(consumers, key=lambda c: c.location.line)
    assert (a.location.line, a.queue_ref.value[-2:], a.visibility_override) == (11, "/a", 30)
    assert (b.location.line, b.queue_ref.value[-2:], b.visibility_override) == (12, "/b", 90)
    assert a.locations["receive"].line == b.locations["receive"].line == 7
    assert not [n for n in notes if "QueueUrl" in n.message or "VisibilityTimeout" in n.message]


def test_a_parameter_read_alone_is_noted_with_how_to_tell_visguard():
    code = b"import boto3\nsqs = boto3.client('sqs')\ndef poll(url):\n    sqs.receive_message(QueueUrl=url)\n"
    result = python.read("poll.py", code)
    (c,) = result.consumers
    assert c.queue_ref is None
    (note,) = result.notes
    assert "url is a parameter of poll, and no call of it in its package passes it" in note.message
    assert "# visguard: queue=<name or URL>" in note.message


def test_a_value_from_a_call_site_is_not_edited_by_the_fixer():
    """A number given at a call site is the caller's: the place says so (the fixer refuses), no span here."""
    code = (
        b"import boto3\nsqs = boto3.client('sqs')\n"
        b"def poll(url, vt):\n    sqs.receive_message(QueueUrl=url, VisibilityTimeout=vt)\n"
        b"poll('https://sqs.eu-west-1.amazonaws.com/123456789012/q', 45)\n"
    )
    result = python.read("poll.py", code)
    (c,) = result.consumers
    assert c.visibility_override == 45 and c.queue_ref.value.endswith("/q")
    assert result.places[(c.id, "visibility_override")].reason == "binding"


def test_java_constructor_assigns_the_fields_the_new_passes():
    """``this.queueUrl = queueUrl`` in the constructor; ``new Poller(sqs, "https://...", 240)`` in Main."""
    consumers, _ = run(os.path.join(FLOW, "constructor-java"))
    c = one(consumers, "Poller.java")
    assert c.queue_ref.value == "https://sqs.eu-west-1.amazonaws.com/123456789012/shipments"
    assert rel(c.queue_ref.location) == "constructor-java/src/main/java/app/Main.java:5"
    assert c.visibility_override == 240


def test_java_injected_configuration_reads_application_properties():
    """``@ConfigProperty(name = "worker.queue")`` is ``${WORKER_QUEUE}`` in application.properties (the
    environment variable); ``@Value("${worker.visibility:30}")`` is the file's 90; an unset key its default."""
    consumers, _ = run(os.path.join(FLOW, "config-java"))
    c = one(consumers, "Receiver.java")
    assert (c.queue_ref.kind, c.queue_ref.value) == ("env", "WORKER_QUEUE")
    assert c.visibility_override == 90 and c.settings["wait_time"] == 20


def test_csharp_constructor_assigns_the_fields_the_new_passes_with_a_default():
    """``_queueUrl = queueUrl;`` and ``this._wait = wait;`` (default 20) in the constructor; ``new Poller(sqs,
    "https://...")`` in Program.cs."""
    consumers, _ = run(os.path.join(FLOW, "constructor-csharp"))
    c = one(consumers, "Poller.cs")
    assert c.queue_ref.value == "https://sqs.us-west-2.amazonaws.com/123456789012/payments"
    assert rel(c.queue_ref.location) == "constructor-csharp/Program.cs:5"
    assert c.settings["wait_time"] == 20 and c.visibility_override == 120


# ---------------------------------------------------------------------------------------------- packages
def test_python_module_constants_imported_from_the_package():
    """``settings.QUEUE_URL`` (``from . import settings``), ``VT`` (``from .settings import VISIBILITY as VT``),
    ``STAGE_QUEUE`` (``from app.settings import ...``: an environment variable with its default)."""
    consumers, _ = run(os.path.join(FLOW, "imports-python"))
    w = one(consumers, "worker.py")
    assert w.queue_ref.value == "https://sqs.eu-west-1.amazonaws.com/123456789012/invoices"
    assert rel(w.queue_ref.location) == "imports-python/app/settings.py:6"
    assert w.visibility_override == 300
    s = one(consumers, "stage.py")
    assert (s.queue_ref.kind, s.queue_ref.value, s.queue_ref.fallback.value) == (
        "env",
        "STAGE_QUEUE",
        "invoices-dev",
    )


def test_python_absolute_imports_resolve_from_a_folder_above_the_file():
    """``from module.constants import VT`` in ``functions/worker/module/sqs_service.py``, where ``module/`` (no
    ``__init__.py``) sits in the Lambda package's root ``functions/worker/``: the constants of that file."""
    consumers, notes = run(os.path.join(FLOW, "imports-root-python"))
    c = one(consumers, "sqs_service.py")
    assert c.visibility_override == 30 and c.settings["max_messages"] == 5
    assert (
        rel(c.locations["visibility_override"])
        == "imports-root-python/functions/worker/module/constants.py:1"
    )
    assert notes == []


def test_python_a_property_is_what_it_returns():
    """``QueueUrl=self.queue_url`` of ``@property def queue_url(self): return self.client.get_queue_url(QueueName=
    self.queue_name).get("QueueUrl")`` (the constructor's ``queue_name`` given ``os.environ.get("REPORTS_QUEUE",
    "reports")``) and ``VisibilityTimeout=self.visibility`` of a property returning 120."""
    consumers, notes = run(os.path.join(FLOW, "property-python"))
    c = one(consumers, "processor.py")
    assert (c.queue_ref.kind, c.queue_ref.value, c.queue_ref.fallback.value) == (
        "env",
        "REPORTS_QUEUE",
        "reports",
    )
    assert c.visibility_override == 120
    assert rel(c.locations["visibility_override"]) == "property-python/processor.py:20"
    assert notes == []


def test_go_a_struct_field_an_environment_library_fills_is_its_variable_with_its_default():
    """``cfg.VisibilityTimeout`` of ``VisibilityTimeout int32 `env:"INGEST_VISIBILITY_TIMEOUT" envDefault:"45"```
    (caarlos0/env), ``envconfig:"INGEST_WAIT_SECONDS" default:"20"`` (kelseyhightower/envconfig), a URL's default:
    the variable, its default used (located at the tag), which the consumer's environment may set."""
    consumers, notes = run(os.path.join(FLOW, "struct-tags-go"))
    c = one(consumers, "poll.go")
    assert (c.queue_ref.kind, c.queue_ref.value) == ("env", "INGEST_QUEUE_URL")
    assert c.queue_ref.fallback.value.endswith("/ingest")
    assert c.visibility_override == 45 and c.settings["wait_time"] == 20
    assert c.from_env == {
        "visibility_override": ["INGEST_VISIBILITY_TIMEOUT", 1.0],
        "wait_time": ["INGEST_WAIT_SECONDS", 1.0],
    }
    assert rel(c.locations["visibility_override"]) == "struct-tags-go/config.go:7"
    assert len(notes) == 2 and all("its default" in n.message for n in notes)


def test_typescript_class_field_arrow_methods_and_a_url_whose_host_only_the_function_knows():
    """``client.poll('job-results', context)`` (another file, an instance of the imported class) of a class field
    ``poll = async (queueName, context) => ..`` that calls ``this.urlOf(queueName, context)``, a field returning
    ``https://sqs.${region}.amazonaws.com/${account}/${queueName}`` with the region and account of the running
    function: the queue named ``job-results``."""
    consumers, notes = run(os.path.join(FLOW, "class-fields-typescript"))
    c = one(consumers, "sqs-util.ts")
    assert (c.queue_ref.kind, c.queue_ref.value) == ("name", "job-results")
    assert c.visibility_override == 20 and c.settings["max_messages"] == 1
    assert notes == []


def test_a_file_read_alone_opens_no_other(tmp_path):
    """Outside a run's search (a file named alone, a reader called alone) no other file is read."""
    (tmp_path / "settings.py").write_text("QUEUE = 'q'\n")
    (tmp_path / "w.py").write_text(
        "import boto3\nfrom settings import QUEUE\nc.receive_message(QueueUrl=QUEUE)\n"
    )
    consumers, _ = run(str(tmp_path / "w.py"))
    assert consumers[0].queue_ref is None


def test_a_new_run_forgets_the_files_of_the_last(tmp_path):
    (tmp_path / "settings.py").write_text("QUEUE = 'first'\n")
    (tmp_path / "w.py").write_text(
        "import boto3\nfrom settings import QUEUE\nc.receive_message(QueueUrl=QUEUE)\n"
    )
    assert run(str(tmp_path))[0][0].queue_ref.value == "first"
    (tmp_path / "settings.py").write_text("QUEUE = 'second'\n")
    assert run(str(tmp_path))[0][0].queue_ref.value == "second"


# ---------------------------------------------------------------------------------------------- strings
def test_strings_built_of_known_parts_in_python_go_and_java():
    consumers, notes = run(os.path.join(FLOW, "strings"))
    by = {os.path.basename(c.location.file) + f":{c.location.line}": c for c in consumers}
    for at in ("parts.py:10", "parts.py:11", "parts.py:12"):
        assert by[at].queue_ref.value == "https://sqs.eu-west-1.amazonaws.com/123456789012/orders", at
    assert by["parts.go:6"].queue_ref.value == "https://sqs.eu-west-1.amazonaws.com/123456789012/jobs"
    assert by["Parts.java:8"].queue_ref.value == "https://sqs.eu-west-1.amazonaws.com/123456789012/mail"
    # a part known only where the code runs: not guessed, and not taken for the queue's own variable
    assert by["parts.py:13"].queue_ref is None
    (stage,) = [n for n in notes if "STAGE" in n.message]
    assert "built from the environment (STAGE), known only where it runs" in stage.message
    # ... but the pattern it leaves is on the consumer, for the join to match against the run's queues
    pattern = by["parts.py:13"].settings["queue_pattern"]
    assert pattern == "https://sqs.eu-west-1.amazonaws.com/123456789012/${STAGE}-orders"
    rx = engine.pattern_regex(pattern)
    assert rx.match("https://sqs.eu-west-1.amazonaws.com/123456789012/prod-orders")
    assert not rx.match("https://sqs.eu-west-1.amazonaws.com/123456789012/orders")
    assert not rx.match("https://sqs.eu-west-1.amazonaws.com/123456789012/a/b-orders")


def test_a_prefix_from_the_environment_plus_a_constant_is_a_pattern_in_every_language():
    py = python.read(
        "p.py",
        b"import os, boto3\nsqs = boto3.client('sqs')\nsqs.receive_message(QueueUrl=os.environ['P'] + '-jobs')\n",
    )
    assert py.consumers[0].settings["queue_pattern"] == "${P}-jobs"
    src = b'package x\nfunc f() { c.ReceiveMessage(&sqs.ReceiveMessageInput{QueueUrl: aws.String(fmt.Sprintf("%s-jobs", os.Getenv("P")))}) }\n'
    assert go.read("p.go", src).consumers[0].settings["queue_pattern"] == "${P}-jobs"


@pytest.mark.parametrize(
    "fmt,args,out",
    [
        ("%s/%s", ["a", "b"], "a/b"),
        ("%d%%", [5], "5%"),
        ("%s", [], None),
        ("%5s", ["a"], None),
        ("%s %s", ["a"], None),
        ("%x", [1], None),
    ],
)
def test_printf_reads_only_the_plain_verbs(fmt, args, out):
    vals = [engine.Value("int" if isinstance(a, int) else "str", a, None) for a in args]
    assert engine.printf(fmt, vals) == out


def test_braces_reads_only_plain_fields():
    v = engine.Value("str", "x", None)
    assert engine.braces("{}-{0}-{n}-{{}}", [v], {"n": v}) == "x-x-x-{}"
    assert engine.braces("{0!r}", [v], {}) is None and engine.braces("{a}", [], {}) is None


# ---------------------------------------------------------------------------------------------- annotations
def test_the_annotation_states_what_the_code_does_not_say():
    consumers, notes = run(os.path.join(FLOW, "annotation"))
    py = [c for c in consumers if c.location.file.endswith(".py")]
    good, broken = sorted(py, key=lambda c: c.location.line)
    assert (good.queue_ref.kind, good.queue_ref.value) == ("name", "orders")
    assert good.queue_ref.location.line == 7 and good.visibility_override == 120  # located at the comment
    assert good.locations["visibility_override"].line == 7
    assert broken.queue_ref is None  # a malformed annotation gives nothing
    assert any("annotation at line 12 is not read: visibility='two-minutes'" in n.message for n in notes)
    g = one(consumers, ".go")
    assert g.queue_ref.value == "jobs" and g.settings["wait_time"] == 20


@pytest.mark.parametrize(
    "line,mark,want",
    [
        ("# visguard: queue=orders", "#", ({"queue": "orders"}, "")),
        ("  // visguard: queue=a.fifo visibility=60 wait=20 batch=10", "//", (
            {"queue": "a.fifo", "visibility_override": 60, "wait_time": 20, "max_messages": 10}, "")),
        ("x = 1  # visguard: batch=5", "#", ({"max_messages": 5}, "")),
        ("# visguard:", "#", ({}, "it sets nothing (write key=value: queue, visibility, wait, batch)")),
        ("# visguard: queue=a queue=b", "#", ({}, "queue is given twice")),
        ("# visguard: timeout=5", "#", ({}, "'timeout=5' is not key=value of queue, visibility, wait, batch")),
        ("# visguard: wait=-1", "#", ({}, "wait='-1' is not a whole number")),
        ("# visguard: queue=a;rm", "#", ({}, "queue='a;rm' is not a queue name, URL or ARN")),
        ('s = "visguard: queue=a"', "#", (None, "")),  # not in a comment
        ("// visguard: queue=a", "#", (None, "")),  # another language's comment
    ],
)  # fmt: skip
def test_annotation_is_parsed_strictly(line, mark, want):
    assert engine.annotation(line, mark) == want


# ---------------------------------------------------------------------------------------------- bounds
def _timed(fn):
    """(what ``fn()`` returns, the CPU seconds it took)."""
    start = time.process_time()
    out = fn()
    return out, time.process_time() - start


def test_constants_in_a_loop_across_the_files_of_a_package_end_in_a_note(tmp_path):
    (tmp_path / "go.mod").write_text("module x\n")
    (tmp_path / "a.go").write_text(
        "package x\nconst A = B\nvar _ = &sqs.ReceiveMessageInput{QueueUrl: aws.String(A)}\n"
    )
    (tmp_path / "b.go").write_text("package x\nconst B = C\n")
    (tmp_path / "c.go").write_text("package x\nconst C = A\n")
    consumers, notes = run(str(tmp_path))
    (c,) = consumers
    assert c.queue_ref is None and any("QueueUrl" in n.message for n in notes)


def test_parameters_passed_around_in_a_loop_end(tmp_path):
    """f(q) calls g(q) calls f(q), in two files: no value, bounded, a note."""
    (tmp_path / "go.mod").write_text("module x\n")
    (tmp_path / "a.go").write_text(
        "package x\nfunc f(q string) { g(q); c.ReceiveMessage(&sqs.ReceiveMessageInput{QueueUrl: aws.String(q)}) }\n"
    )
    (tmp_path / "b.go").write_text("package x\nfunc g(q string) { f(q) }\n")
    (consumers, notes), spent = _timed(lambda: run(str(tmp_path)))
    assert consumers[0].queue_ref is None and notes and spent < 5


def test_a_10000_deep_chain_and_a_huge_fstring_are_bounded():
    chain = b"\n".join(b"A%d = A%d" % (i, i + 1) for i in range(10_000)) + b"\nA10000 = 'q'\n"
    chain += b"import boto3\nsqs.receive_message(QueueUrl=A0)\n"
    calls = b"".join(b"def f%d(q):\n    f%d(q)\n" % (i, i + 1) for i in range(10_000))
    calls += b"import boto3\ndef f10000(q):\n    sqs.receive_message(QueueUrl=q)\nf0('x')\n"
    huge = b"import boto3\nB = 'b'\nsqs.receive_message(QueueUrl=f'" + b"{B}" * 200_000 + b"')\n"
    for data in (chain, calls, huge):
        result, spent = _timed(lambda data=data: python.read("deep.py", data))
        (c,) = result.consumers
        assert spent < 10
        if data is huge:  # 100,000 characters are no queue's name or URL: not built (engine.compose's bound)
            assert c.queue_ref is None
        else:
            assert c.queue_ref is None and result.notes  # beyond MAX_DEPTH: a note, no guess


def test_go_deep_call_chain_is_bounded():
    src = b"package x\n" + b"".join(b"func f%d(q string) { f%d(q) }\n" % (i, i + 1) for i in range(5_000))
    src += b"func f5000(q string) { c.ReceiveMessage(&sqs.ReceiveMessageInput{QueueUrl: aws.String(q)}) }\n"
    src += b'func main() { f0("x") }\n'
    result, spent = _timed(lambda: go.read("deep.go", src))
    (c,) = result.consumers
    assert c.queue_ref is None and spent < 10


AGREE = """import boto3

URL = "https://sqs.us-east-1.amazonaws.com/123456789012/orders"
OTHER = "{other}"


class Poller:
    def __init__(self):
        self.url = None
        self.sqs = boto3.client("sqs")

    def start(self):
        self.url = URL

    def restart(self):
        self.url = OTHER

    def poll(self):
        return self.sqs.receive_message(QueueUrl=self.url)
"""


def test_a_field_assigned_several_times_is_the_value_they_all_give():
    """``self.url = None`` ("not yet"), then ``self.url = URL`` and ``self.url = OTHER``: one queue when both
    constants are that queue; no queue (and the note) when they differ."""
    same = python.read(
        "poll.py", AGREE.format(other="https://sqs.us-east-1.amazonaws.com/123456789012/orders").encode()
    )
    (c,) = same.consumers
    assert c.queue_ref.value == "https://sqs.us-east-1.amazonaws.com/123456789012/orders"
    differ = python.read(
        "poll.py", AGREE.format(other="https://sqs.us-east-1.amazonaws.com/123456789012/refunds").encode()
    )
    (c,) = differ.consumers
    assert c.queue_ref is None
    assert any("assigned more than once" in n.message for n in differ.notes)


# ============================================================================================== JavaScript / TS
# (issue 35 §1 for javascript.py: the same engine.Flow, through the JavaScript entries' signature, call_args and
# imported, and the scopes' hook; each fixture is one mechanism, under fixtures/code/flow/<mechanism>-javascript)
def test_javascript_constants_of_a_relative_module_require_import_and_exports():
    """``const { ORDERS_URL } = require("./config")`` of ``module.exports = {...}`` (an env variable with a
    literal fallback), and ``import { BILLING_URL as URL, BILLING_VISIBILITY } from "./settings.mjs"`` of
    ``export const``: located where the module writes them."""
    consumers, _ = run(os.path.join(FLOW, "imports-javascript"))
    orders = one(consumers, "orders.js")
    assert (orders.queue_ref.kind, orders.queue_ref.value) == ("env", "ORDERS_QUEUE_URL")
    assert orders.queue_ref.fallback.value == "https://sqs.eu-west-1.amazonaws.com/123456789012/orders"
    assert rel(orders.queue_ref.location) == "imports-javascript/config.js:4"
    billing = one(consumers, "billing.mjs")
    assert billing.queue_ref.value == "https://sqs.eu-west-1.amazonaws.com/123456789012/billing"
    assert rel(billing.queue_ref.location) == "imports-javascript/settings.mjs:1"
    assert billing.visibility_override == 90
    assert rel(billing.locations["visibility_override"]) == "imports-javascript/settings.mjs:2"


def test_javascript_constructor_options_reach_this_fields_and_the_receive():
    """``new Poller({ queueUrl: QUEUE_URL, visibilityTimeout: 45 })`` in main.js (QUEUE_URL: ``exports.X`` of
    another module) sets ``this.queueUrl = opts.queueUrl``; ``opts.waitTime ?? 20``, not passed, is 20."""
    consumers, _ = run(os.path.join(FLOW, "constructor-javascript"))
    c = one(consumers, "poller.js")
    assert c.queue_ref.value == "https://sqs.eu-west-1.amazonaws.com/123456789012/payments"
    assert rel(c.queue_ref.location) == "constructor-javascript/queues.js:1"
    assert c.visibility_override == 45
    assert rel(c.locations["visibility_override"]) == "constructor-javascript/main.js:4"
    assert c.settings["wait_time"] == 20


def test_javascript_default_and_destructured_parameters():
    """``poll(url, vt = 30)`` called with the URL alone: 30; ``({ queueUrl, visibilityTimeout = 60, batchSize }
    = {}) => Consumer.create({...})`` called with ``{ queueUrl, batchSize: 5 }``: 60 and 5."""
    consumers, _ = run(os.path.join(FLOW, "defaults-javascript"))
    sdk, lib = sorted(
        [c for c in consumers if c.location.file.endswith("workers.js")], key=lambda c: c.location.line
    )
    assert sdk.queue_ref.value.endswith("/audit") and sdk.visibility_override == 30
    assert rel(sdk.queue_ref.location) == "defaults-javascript/start.js:3"
    assert lib.queue_ref.value.endswith("/emails") and lib.visibility_override == 60
    assert lib.settings["max_messages"] == 5


def test_typescript_constructor_parameter_and_an_imported_constant():
    """``constructor(queueUrl: string, private waitSeconds: number = 10)`` (a parameter property: the field
    ``this.waitSeconds``) and ``new ReportPoller(URL)`` of a constant ``process.env.X ?? "<url>"`` exported by
    config.ts."""
    consumers, _ = run(os.path.join(FLOW, "constructor-typescript"))
    c = one(consumers, "poller.ts")
    assert (c.queue_ref.kind, c.queue_ref.value) == ("env", "REPORTS_QUEUE_URL")
    assert c.queue_ref.fallback.value == "https://sqs.eu-west-1.amazonaws.com/123456789012/reports"
    assert rel(c.queue_ref.location) == "constructor-typescript/config.ts:2"
    assert c.settings["wait_time"] == 10  # this.waitSeconds: the parameter property's default


def _project(tmp_path, files: dict[str, str]) -> str:
    (tmp_path / "package.json").write_text("{}\n")
    for name, body in files.items():
        (tmp_path / name).write_text(body)
    return str(tmp_path)


SDK_POLL = 'const AWS = require("aws-sdk");\nconst sqs = new AWS.SQS();\n'


def test_javascript_two_calls_with_different_values_are_not_picked_between(tmp_path):
    folder = _project(
        tmp_path,
        {
            "poll.js": SDK_POLL + "function poll(url) { return sqs.receiveMessage({ QueueUrl: url }); }\n"
            "module.exports = { poll };\n",
            "a.js": 'const { poll } = require("./poll");\npoll("https://sqs.eu-west-1.amazonaws.com/1/a");\n',
            "b.js": 'const { poll } = require("./poll");\npoll("https://sqs.eu-west-1.amazonaws.com/1/b");\n',
        },
    )
    # the receive the two calls share is one consumer per call (engine.Reader.per_call_site), at the call, with
    # its own queue: never one value picked for both
    consumers, notes = run(folder)
    a, b = one(consumers, "a.js"), one(consumers, "b.js")
    assert (a.location.line, a.queue_ref.value[-2:], a.locations["receive"].line) == (2, "/a", 3)
    assert (b.location.line, b.queue_ref.value[-2:], b.locations["receive"].line) == (2, "/b", 3)
    assert not [c for c in consumers if c.location.file.endswith("poll.js")]
    assert not [n for n in notes if "QueueUrl" in n.message]


def test_javascript_a_parameter_no_call_passes_is_a_note():
    result = javascript.read(
        "poll.js", (SDK_POLL + "function poll(url) { sqs.receiveMessage({ QueueUrl: url }); }\n").encode()
    )
    (c,) = result.consumers
    assert c.queue_ref is None
    assert any("url is a parameter of poll" in n.message for n in result.notes)


def test_javascript_a_10000_deep_chain_across_two_modules_importing_each_other_ends(tmp_path):
    """a.js and b.js require each other, each constant naming the other's next: no value, a note, bounded."""
    n = 10_000
    a = ['const b = require("./b");'] + [f"exports.A{i} = b.B{i};" for i in range(n)]
    b = ['const a = require("./a");'] + [f"exports.B{i} = a.A{i + 1};" for i in range(n)]
    a.append(SDK_POLL + "sqs.receiveMessage({ QueueUrl: exports.A0 });")
    a.append('const { A0 } = require("./a");\nsqs.receiveMessage({ QueueUrl: b.B0, VisibilityTimeout: A0 });')
    folder = _project(
        tmp_path, {"a.js": "\n".join(a) + "\n", "b.js": "\n".join(b) + f'\nexports.A{n} = "q";\n'}
    )
    (consumers, notes), spent = _timed(lambda: run(folder))
    assert consumers and all(c.queue_ref is None for c in consumers)
    assert notes and spent < 20


def test_javascript_options_objects_agree_on_the_property_read(tmp_path):
    """Two ``new Poller({...})`` with one queue and two visibilities: one consumer per call (engine.Reader.
    per_call_site), each with the queue (each call's queueUrl is the same constant, read through two imports) and
    its own visibility."""
    folder = _project(
        tmp_path,
        {
            "poller.js": SDK_POLL + "class Poller {\n  constructor(opts) { this.opts = opts; }\n"
            "  poll() {\n    const { queueUrl, visibilityTimeout } = this.opts;\n"
            "    return sqs.receiveMessage({ QueueUrl: this.opts.queueUrl, VisibilityTimeout: this.opts.vt });\n"
            "  }\n}\nmodule.exports = { Poller };\n",
            "queues.js": 'exports.URL = "https://sqs.eu-west-1.amazonaws.com/1/jobs";\n',
            "a.js": 'const { Poller } = require("./poller");\nconst { URL } = require("./queues");\n'
            "new Poller({ queueUrl: URL, vt: 30 });\n",
            "b.js": 'const { Poller } = require("./poller");\nconst q = require("./queues");\n'
            "new Poller({ queueUrl: q.URL, vt: 60 });\n",
        },
    )
    consumers, notes = run(folder)
    a, b = one(consumers, "a.js"), one(consumers, "b.js")
    assert a.queue_ref.value == b.queue_ref.value == "https://sqs.eu-west-1.amazonaws.com/1/jobs"
    assert (a.location.line, a.visibility_override) == (3, 30)
    assert (b.location.line, b.visibility_override) == (3, 60)
    assert not [n for n in notes if "VisibilityTimeout" in n.message]


def test_javascript_an_options_object_passed_whole_is_read_in_the_callers_file(tmp_path):
    """``function start(opts) { return Consumer.create(opts); }`` called with a literal in another module: the
    options are the caller's, located there."""
    folder = _project(
        tmp_path,
        {
            "start.js": 'const { Consumer } = require("sqs-consumer");\n'
            "function start(opts) {\n  return Consumer.create(opts);\n}\nmodule.exports = { start };\n",
            "main.js": 'const { start } = require("./start");\n'
            'start({ queueUrl: "https://sqs.eu-west-1.amazonaws.com/1/mail", visibilityTimeout: 75 });\n',
        },
    )
    consumers, _ = run(folder)
    c = one(consumers, "start.js")
    assert c.queue_ref.value.endswith("/1/mail") and c.visibility_override == 75
    assert c.locations["visibility_override"].file.endswith("main.js")
    assert c.locations["visibility_override"].line == 2


def test_javascript_esm_modules_importing_each_other_and_calls_in_a_loop_end(tmp_path):
    """A 10,000-deep chain of ``export const`` across two ES modules importing each other, and f(q) -> g(q) ->
    f(q) across two files: no value, a note, bounded."""
    n = 10_000
    a = ['import { Consumer } from "sqs-consumer";', 'import * as b from "./b.mjs";']
    a += [f"export const A{i} = b.B{i};" for i in range(n)]
    a.append("Consumer.create({ queueUrl: A0, handleMessage: async () => {} });")
    b = ['import { A1 } from "./a.mjs";', 'import * as a from "./a.mjs";']
    b += [f"export const B{i} = a.A{i + 1};" for i in range(n)]
    loop = {
        "f.js": 'const { Consumer } = require("sqs-consumer");\nconst { g } = require("./g");\n'
        "function f(q) { g(q); Consumer.create({ queueUrl: q }); }\nmodule.exports = { f };\n",
        "g.js": 'const { f } = require("./f");\nfunction g(q) { f(q); }\nmodule.exports = { g };\n',
    }
    folder = _project(tmp_path, {"a.mjs": "\n".join(a) + "\n", "b.mjs": "\n".join(b) + "\n", **loop})
    (consumers, notes), spent = _timed(lambda: run(folder))
    assert len(consumers) == 2 and all(c.queue_ref is None for c in consumers)
    assert notes and spent < 20


def test_javascript_a_spread_over_the_queue_is_noted_as_such():
    """``{ QueueUrl: URL, ...extra }`` with ``extra`` not read: the spread may set QueueUrl, and the note says so
    (not that the receive names none)."""
    code = SDK_POLL + 'const URL = "https://sqs.eu-west-1.amazonaws.com/1/q";\n'
    code += "function poll(extra) { return sqs.receiveMessage({ QueueUrl: URL, ...extra }); }\n"
    result = javascript.read("poll.js", code.encode())
    (c,) = result.consumers
    assert c.queue_ref is None
    assert any("spreads an object visguard cannot read over its QueueUrl" in n.message for n in result.notes)


def test_javascript_a_method_is_what_its_calls_pass(tmp_path):
    """``fetch(url, max = 10)`` of a class, called ``jobs.fetch(URL)`` in another module: the URL and the default."""
    folder = _project(
        tmp_path,
        {
            "jobs.js": SDK_POLL + "class Jobs {\n  fetch(url, max = 10) {\n"
            "    return sqs.receiveMessage({ QueueUrl: url, MaxNumberOfMessages: max });\n  }\n}\n"
            "module.exports = { Jobs };\n",
            "main.js": 'const { Jobs } = require("./jobs");\nconst jobs = new Jobs();\n'
            'jobs.fetch("https://sqs.eu-west-1.amazonaws.com/1/jobs");\n',
        },
    )
    consumers, _ = run(folder)
    c = one(consumers, "jobs.js")
    assert c.queue_ref.value.endswith("/1/jobs") and c.settings["max_messages"] == 10


def test_javascript_a_conditional_spread_sets_only_its_own_keys():
    """``{ QueueUrl: URL, ...(vt ? { VisibilityTimeout: vt } : null) }``: the queue is read, the visibility is
    computed (the spread may or may not set it)."""
    code = SDK_POLL + 'const URL = "https://sqs.eu-west-1.amazonaws.com/1/q";\n'
    code += "function poll(vt) {\n  return sqs.receiveMessage({ QueueUrl: URL, ...(vt ? { VisibilityTimeout: vt } : null) });\n}\n"
    result = javascript.read("poll.js", code.encode())
    (c,) = result.consumers
    assert c.queue_ref.value.endswith("/1/q") and c.visibility_override is None
    assert any("VisibilityTimeout is computed" in n.message for n in result.notes)


def test_javascript_math_min_of_known_numbers_is_computed():
    code = (
        SDK_POLL
        + "const BATCH = 25;\nsqs.receiveMessage({ QueueUrl: 'q', MaxNumberOfMessages: Math.min(10, BATCH) });\n"
    )
    result = javascript.read("poll.js", code.encode())
    (c,) = result.consumers
    assert c.settings["max_messages"] == 10
    assert result.places[(c.id, "max_messages")].reason == "computed"
