"""The value a function of the project returns (issue 35 §1, engine.returned): a call of a function declared in the
file or imported from a module of the project is what its ``return`` statements give, read with the call's
arguments: a field of a returned object or dict literal, shorthand properties, ``await`` and ``x!`` unwrapped;
returns that disagree leave the value unknown, naming them; recursion and long chains end within the budgets
(fixtures: tests/linter/fixtures/created/code/returned/)."""

from __future__ import annotations

import json
import os
import time

from visguard.cli import main

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "created", "code", "returned")


def _lint(capsys, path: str) -> list[dict]:
    main(["lint", "--no-config", "-f", "json", path])
    out, err = capsys.readouterr()
    assert err == ""
    return json.loads(out)["findings"]


def _got(findings) -> set:
    return {
        (f["rule"], f["file"].split("returned/")[-1], f["line"]) for f in findings if f["rule"] != "VG065"
    }


def test_typescript_returned_object_shorthand_and_direct_url_join_their_queues(capsys):
    findings = _lint(capsys, os.path.join(FIXTURES, "ts"))
    assert _got(findings) == {
        ("VG060", "ts/worker.ts", 6),  # topology.payments.url! of an object returned by an imported function
        ("VG060", "ts/worker.ts", 7),  # { url } shorthand
        ("VG060", "ts/worker.ts", 8),  # await direct(): an arrow function returning created.QueueUrl!
        (
            "VG060",
            "ts/methods.ts",
            11,
        ),  # await this.setup(), returning queues.direct() of `import * as queues`
        ("VG020", "ts/queues.ts", 7),
        ("VG020", "ts/queues.ts", 8),
        ("VG020", "ts/queues.ts", 13),
        ("VG902", "ts/worker.ts", 9),  # either(): two returns, two queues: not joined
    }
    joined = {f["line"]: f["message"] for f in findings if f["rule"] == "VG065"}
    assert "ts-returned-payments" in joined[6] and "ts-returned-shorthand" in joined[7]
    assert "ts-returned-direct" in joined[8]
    why = [f["message"] for f in findings if f["rule"] == "VG902" and "computed" in f["message"]]
    assert len(why) == 1 and "either() returns different values (line 21, line 24)" in why[0]


def test_python_returned_dict_tuple_and_dataclass_join_their_queues_and_disagreeing_returns_do_not(capsys):
    findings = _lint(capsys, os.path.join(FIXTURES, "py"))
    assert _got(findings) == {
        ("VG060", "py/worker.py", 21),  # setup()'s dict: urls["payments"]
        ("VG020", "py/worker.py", 8),
        ("VG902", "py/worker.py", 22),
        ("VG060", "py/shapes.py", 28),  # pair()[0] of `return first, None`
        ("VG020", "py/shapes.py", 14),
        ("VG060", "py/shapes.py", 30),  # queues.audit of a returned dataclass instance
        ("VG020", "py/shapes.py", 19),
        ("VG902", "py/shapes.py", 31),  # loop(): returns itself, ends unknown
        ("VG060", "py/unpack.py", 18),  # url, err = orders(): `url` of poll, not the `url` of orders/refunds
        ("VG020", "py/unpack.py", 7),
        ("VG060", "py/unpack.py", 19),  # refunds(): its own `url`, though another function assigns one too
        ("VG020", "py/unpack.py", 12),
    }
    why = {
        f["file"][-9:]: f["message"] for f in findings if f["rule"] == "VG902" and "computed" in f["message"]
    }
    assert "either() returns different values (line 15, line 16)" in why["worker.py"]
    assert "(loop())" in why["shapes.py"]


def test_recursive_and_branching_returns_end_in_bounded_time(capsys, tmp_path):
    """Hostile: 40 functions each returning one of eight calls of the next (8**40 paths), a function returning
    itself, and two returning each other: the budgets end the read, unknown, in well under the parse budget."""
    lines = [
        'import { ReceiveMessageCommand, SQSClient } from "@aws-sdk/client-sqs";',
        "const c = new SQSClient({});",
    ]
    for i in range(40):
        body = " ".join(f"if (x === {k}) return f{i + 1}(x);" for k in range(7))
        lines.append(f"function f{i}(x: number) {{ {body} return f{i + 1}(x + 1); }}")
    lines.append('function f40(x: number) { return "https://sqs.us-east-1.amazonaws.com/1/q" + x; }')
    lines.append("function self_(x: number) { return self_(x); }")
    lines.append("function ping(x: number) { return pong(x); }")
    lines.append("function pong(x: number) { return ping(x); }")
    for n, call in enumerate(("f0(1)", "self_(1)", "ping(1)")):
        lines.append(
            f"export async function r{n}() {{ await c.send(new ReceiveMessageCommand({{ QueueUrl: {call},"
            " VisibilityTimeout: 40 }})); }"
        )
    (tmp_path / "hostile.ts").write_text("\n".join(lines) + "\n")
    start = time.process_time()
    findings = _lint(capsys, str(tmp_path))
    assert time.process_time() - start < 10
    assert {f["rule"] for f in findings} <= {"VG902", "VG065"}
    assert len([f for f in findings if f["rule"] == "VG902" and "computed" in f["message"]]) == 3


def test_go_first_result_of_a_package_function_joins_its_queue_and_error_returns_are_left_out(capsys):
    """``url, err := setup(ctx, client)`` (setup in another file of the package): its ``return "", err`` is a
    failure's, its ``return *out.QueueUrl, nil`` the queue; either()'s two queues are not one of them."""
    findings = _lint(capsys, os.path.join(FIXTURES, "go"))
    assert _got(findings) == {
        ("VG060", "go/worker.go", 15),
        ("VG020", "go/setup.go", 12),
        ("VG902", "go/worker.go", 17),
        ("VG060", "go/topology.go", 25),  # t.Audit of a returned &Topology{Audit: *out.QueueUrl}
        ("VG020", "go/topology.go", 16),
    }
    why = [f["message"] for f in findings if f["rule"] == "VG902" and "computed" in f["message"]]
    assert len(why) == 1 and "either() returns different values (line 23, line 26)" in why[0]


def test_a_create_helper_returns_the_queue_each_call_names():
    """``await makeQueue(NAMES.billing, {..})`` of a helper that sends a command bound once (``client.send(command)``)
    whose QueueName is ``opts.fifo ? `${name}.fifo` : name``: each consumer's queue is the name its call passes, the
    ``.fifo`` one where the call's options set ``fifo`` (a key an options object lacks is false)."""
    from visguard.linter.loaders import registry

    folder = os.path.join(FIXTURES, "helper")
    errors: list = []
    consumers = []
    for item in registry.discover([folder], errors=errors):
        if item.loader.name == "code":
            consumers += item.loader.load(item.path, registry.LoadOptions()).pending
    assert not errors
    got = sorted(
        (c.location.line, c.queue_ref.value if c.queue_ref else None, c.visibility_override)
        for c in consumers
    )
    assert got == [(9, "helper-billing", 40), (10, "helper-audit.fifo", 45)]


def test_the_response_a_helper_returns_through_a_module_that_re_exports_it_names_the_created_queue(capsys):
    """``const { QueueUrl } = await ensureJobsQueue(client)`` of a helper imported from ``queues/index.js``, which
    re-exports it (``export { ensureJobsQueue } from``, ``export * from``), and which returns
    ``client.send(new CreateQueueCommand({ QueueName: .. }))``: the consumer's queue is the created one (VG060 at the
    consumer's 10 s vs SQS's 30 s, VG020 at each create); the audit consumer's 60 s agree with its queue's."""
    findings = _lint(capsys, os.path.join(FIXTURES, "reexport"))
    assert _got(findings) == {
        ("VG060", "reexport/listen/jobs.js", 12),
        ("VG020", "reexport/queues/ensure-jobs-queue.js", 4),
        ("VG020", "reexport/queues/ensure-audit-queue.js", 4),
    }
    joined = {f["file"].split("returned/")[-1]: f["queue"] for f in findings if f["rule"] == "VG065"}
    assert joined == {
        "reexport/listen/jobs.js": "reexport-jobs",
        "reexport/listen/audit.js": "reexport-audit",
    }


def test_returns_that_all_agree_through_a_wide_tree_of_calls_end_at_the_flow_budget(capsys, tmp_path):
    """Hostile: 8 levels of functions each with 8 returns calling the next, every leaf the same URL (8**7 paths, each
    would agree): the flow's step budget ends the read, unknown, quickly."""
    lines = ["import boto3", "sqs = boto3.client('sqs')"]
    for i in range(7):
        body = "".join(f"    if x == {k}:\n        return f{i + 1}(x)\n" for k in range(7))
        lines.append(f"def f{i}(x):\n{body}    return f{i + 1}(x)\n")
    lines.append("def f7(x):\n    return 'https://sqs.us-east-1.amazonaws.com/1/q'\n")
    lines.append("sqs.receive_message(QueueUrl=f0(1), VisibilityTimeout=40)")
    (tmp_path / "wide.py").write_text("\n".join(lines) + "\n")
    start = time.process_time()
    findings = _lint(capsys, str(tmp_path))
    assert time.process_time() - start < 10
    assert [f["rule"] for f in findings if f["rule"] != "VG902"] == []
    assert any("computed" in f["message"] for f in findings)
