"""Issue 11, simulate/recommend: hostile and sloppy input gets a one-line error and exit 1, never a crash, a
hang or a memory blow-up; internal errors exit 3; a closed stdout pipe ends quietly. Table-driven probes plus a
hypothesis fuzz test of mutated scenarios and recommend argument lists."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from visguard.cli import main

BASE = {
    "name": "probe",
    "queue": {"visibility_timeout": 30, "max_receive_count": 3, "message_retention": 3600, "delay": 0},
    "workload": {"messages": 30, "arrival_rate": 5, "bursts": [{"at": 1, "count": 5}]},
    "consumer": {
        "type": "worker",
        "concurrency": 4,
        "processing": {"distribution": "lognormal", "p50": 1, "p99": 5},
        "heartbeat": {"interval": 10, "extend_by": 30},
        "failures": {"crash_before_delete": 0.01, "transient": 0.01},
    },
    "seed": 3,
}


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path, text: str, name="s.yaml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def doc_with(path: str, value) -> dict:
    doc = json.loads(json.dumps(BASE))
    *parents, last = path.split(".")
    node = doc
    for k in parents:
        node = node[int(k)] if isinstance(node, list) else node[k]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return doc


def as_yaml(doc: dict) -> str:
    return yaml.safe_dump(doc, sort_keys=False)


# (dotted path, YAML scalar written as is) -> the place the one-line error names
YAML_PROBES = [
    ("queue.message_retention", ".nan", "queue.message_retention"),
    ("queue.message_retention", "1e308", "queue.message_retention"),
    ("queue.message_retention", "1.0e-300", "queue.message_retention"),
    ("workload.arrival_rate", ".inf", "workload.arrival_rate"),
    ("workload.arrival_rate", "1.0e-300", "workload.arrival_rate"),
    ("workload.arrival_rate", "1e308", "workload.arrival_rate"),
    ("consumer.heartbeat.interval", ".nan", "consumer.heartbeat.interval"),
    ("consumer.heartbeat.interval", "1.0e-9", "consumer.heartbeat.interval"),
    ("consumer.heartbeat.interval", "-.inf", "consumer.heartbeat.interval"),
    ("consumer.processing.p99", ".inf", "consumer.processing.p99"),
    ("consumer.processing.p99", "1e308", "consumer.processing.p99"),
    ("consumer.processing.p50", "1.0e-300", "consumer.processing.p50"),
    ("workload.bursts.0.at", "1e308", "workload.bursts[0].at"),
    ("workload.bursts.0.at", ".nan", "workload.bursts[0].at"),
    ("workload.bursts.0.count", "1000000000000", "workload.bursts[0].count"),
    ("workload.messages", "1000000000000", "workload.messages"),
    ("seed", "9" * 5000, None),
    ("seed", "-1", "seed"),
    ("queue.visibility_timeout", "1e308", "queue.visibility_timeout"),
    ("consumer.failures.crash_before_delete", ".nan", "consumer.failures.crash_before_delete"),
]


@pytest.mark.parametrize(("path", "scalar", "place"), YAML_PROBES)
def test_yaml_numbers_out_of_range_are_one_line_errors(capsys, tmp_path, path, scalar, place):
    text = as_yaml(doc_with(path, "@@")).replace("'@@'", scalar)
    f = write(tmp_path, text)
    t0 = time.monotonic()
    code, out, err = run(capsys, "simulate", f, "--json", "--no-progress")
    assert time.monotonic() - t0 < 5
    assert code == 1, err
    assert out == "" and err.count("\n") == 1 and len(err) < 500
    assert str(f) in err
    if place:
        assert f":{place}:" in err


LAMBDA = {
    "queue": {"visibility_timeout": 60},
    "workload": {"messages": 20, "arrival": "burst"},
    "consumer": {
        "type": "lambda",
        "processing": {"distribution": "fixed", "seconds": 1},
        "lambda": {"timeout": 10, "batch_size": 5},
    },
}


@pytest.mark.parametrize(
    ("field", "value"),
    [("throttle_retry", 1e-300), ("scale_up_per_minute", 1e-300), ("timeout", 1e-300),
     ("initial_concurrency", 10**12), ("max_esm_concurrency", 10**12), ("error_backoff", 1e308)],
)  # fmt: skip
def test_lambda_settings_out_of_range(capsys, tmp_path, field, value):
    doc = json.loads(json.dumps(LAMBDA))
    doc["consumer"]["lambda"][field] = value
    code, _, err = run(capsys, "simulate", write(tmp_path, json.dumps(doc), "l.json"), "--no-progress")
    assert code == 1 and f"consumer.lambda.{field}" in err and err.count("\n") == 1


def test_json_is_read_as_json_and_accepts_exponents(capsys, tmp_path):
    doc = doc_with("consumer.failures.crash_before_delete", 1e-05)
    text = json.dumps(doc)
    assert "1e-05" in text
    code, out, err = run(capsys, "simulate", write(tmp_path, text, "s.json"), "--json", "--no-progress")
    assert code == 0, err
    assert json.loads(out)["messages"] == 30
    # YAML 1.1 reads 1e-05 as a string; visguard reads it as YAML 1.2 does, a number
    code, _, err = run(
        capsys, "simulate", write(tmp_path, as_yaml(doc).replace("1.0e-05", "1e-05")), "--json"
    )
    assert code == 0, err


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("NaN", "not a number a scenario can hold"),
        ("Infinity", "not a number a scenario can hold"),
        ("1e999", "not a finite number"),
        ("9" * 5000, "digits"),
    ],
)
def test_json_non_finite_and_huge_numbers(capsys, tmp_path, text, fragment):
    raw = json.dumps(doc_with("queue.message_retention", 123456)).replace("123456", text)
    code, _, err = run(capsys, "simulate", write(tmp_path, raw, "s.json"))
    assert code == 1 and fragment in err and err.count("\n") == 1


def test_alias_bomb_in_a_string_field(capsys, tmp_path):
    bomb = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    bomb += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 9)]
    text = (
        "\n".join(["x-bombs:", *("  " + line for line in bomb)])
        + "\nname: *a8\n"
        + as_yaml({k: v for k, v in BASE.items() if k != "name"})
    )
    t0 = time.monotonic()
    code, _, err = run(capsys, "simulate", write(tmp_path, text))
    assert time.monotonic() - t0 < 5
    assert code == 1 and "expands to more than" in err and err.count("\n") == 1


def test_recursive_alias_is_refused(capsys, tmp_path):
    text = "name: &a [*a]\n" + as_yaml({k: v for k, v in BASE.items() if k != "name"})
    code, _, err = run(capsys, "simulate", write(tmp_path, text))
    assert code == 1 and err.count("\n") == 1


@pytest.mark.parametrize("kind", ["yaml-flow", "yaml-block", "json"])
def test_description_nested_20000_deep(capsys, tmp_path, kind):
    rest = {k: v for k, v in BASE.items() if k != "name"}
    if kind == "json":
        text = json.dumps(rest)[:-1] + ', "description": ' + "[" * 20000 + "]" * 20000 + "}"
        f = write(tmp_path, text, "deep.json")
    elif kind == "yaml-flow":
        f = write(tmp_path, as_yaml(rest) + "description: " + "[" * 20000 + "]" * 20000 + "\n")
    else:
        f = write(tmp_path, as_yaml(rest) + "description:\n" + "".join(" " * i + "- \n" for i in range(2000)))
    code, _, err = run(capsys, "simulate", f)
    assert code == 1 and ("nested deeper" in err or "description" in err) and err.count("\n") == 1


def test_bursts_cannot_outnumber_the_messages(capsys, tmp_path):
    f = write(tmp_path, as_yaml(doc_with("workload.bursts", [{"at": 1, "count": 10_000_000}] * 3)))
    code, _, err = run(capsys, "simulate", f)
    assert code == 1 and "workload.bursts" in err


def test_work_estimate_refuses_runs_of_hours(capsys, tmp_path):
    doc = doc_with("workload.messages", 10_000_000)
    doc["consumer"]["heartbeat"] = {"interval": 1, "extend_by": 30}
    doc["consumer"]["processing"] = {"distribution": "fixed", "seconds": 3600}
    code, _, err = run(capsys, "simulate", write(tmp_path, as_yaml(doc)))
    assert code == 1 and "simulator events" in err


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--messages", str(10**12)], "--messages"),
        (["--messages", "0"], "--messages"),
        (["--messages", "1e3"], "--messages"),
        (["--seed", "9" * 5000], "--seed"),
        (["--seed", "-5"], "--seed"),
        (["--mode", "warp"], "--mode"),
        (["--bogus"], "unrecognized"),
    ],
)
def test_simulate_options_are_bounded(capsys, tmp_path, argv, fragment):
    f = write(tmp_path, as_yaml(BASE))
    code, out, err = run(capsys, "simulate", f, *argv)
    assert code == 1 and out == "" and fragment in err and err.count("\n") == 1


def test_messages_override_is_checked_against_the_arrival_span(capsys, tmp_path):
    f = write(tmp_path, as_yaml(doc_with("workload.arrival_rate", 0.001)))
    code, _, err = run(capsys, "simulate", f, "--messages", "10000000")
    assert code == 1 and "one year" in err


def test_not_a_regular_file_is_never_read(capsys, tmp_path):
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    t0 = time.monotonic()
    code, _, err = run(capsys, "simulate", fifo)
    assert code == 1 and "not a regular file" in err and time.monotonic() - t0 < 5
    code, _, err = run(capsys, "simulate", tmp_path)
    assert code == 1 and err.count("\n") == 1


def test_control_characters_in_keys_are_shown_escaped(capsys, tmp_path):
    doc = json.loads(json.dumps(BASE))
    doc["queue"]["\x1b]0;pwned\x07"] = 1
    code, _, err = run(capsys, "simulate", write(tmp_path, json.dumps(doc), "s.json"))
    assert code == 1 and "\x1b" not in err and "\x07" not in err and err.count("\n") == 1


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--fixed", "2", "--batch-size", "-1"], "--batch-size"),
        (["--fixed", "2", "--batching-window", "-5"], "--batching-window"),
        (["--fixed", "2", "--batching-window", "nan"], "--batching-window"),
        (["--p50", "nan", "--p99", "5"], "--p50"),
        (["--p50", "1", "--p99", "inf"], "--p99"),
        (["--p50", "1e-300", "--p99", "5"], "--p50"),
        (["--p50", "1", "--p99", "1e308"], "--p99"),
        (["--fixed", "2", "--lambda-timeout", "1e308"], "--lambda-timeout"),
        (["--fixed", "2", "--max-duplicate-rate", "nan"], "--max-duplicate-rate"),
        (["--fixed", "2", "--max-duplicate-rate", "0"], "--max-duplicate-rate"),
        (["--fixed", "2", "--crash-rate", "-0.1"], "--crash-rate"),
        (["--fixed", "2", "--max-recovery", "-inf"], "--max-recovery"),
        (["--fixed", "2", "--batch-size", "9" * 5000], "--batch-size"),
        (["--p50", "1", "--p99", "5000"], "1,000 x p50"),
    ],
)
def test_recommend_options_are_bounded(capsys, argv, fragment):
    code, out, err = run(capsys, "recommend", *argv)
    assert code == 1 and out == "" and fragment in err and err.count("\n") == 1


def test_recommend_samples_hostile_files(capsys, tmp_path):
    for text in (
        "[1, NaN]",
        "[1, 1e999]",
        "[" * 5000 + "]" * 5000,
        "[" + "9" * 5000 + "]",
        "1\n-3\n",
        "[[1]]",
    ):
        code, _, err = run(capsys, "recommend", "--samples", write(tmp_path, text, "t.txt"))
        assert code == 1 and err.count("\n") == 1, (text[:20], err)


def test_internal_error_exits_3_in_one_line(capsys, tmp_path, monkeypatch):
    import visguard.engine.cli_simulate as cli

    monkeypatch.setattr(cli, "render_table", lambda *a: 1 / 0)
    code, _, err = run(capsys, "simulate", write(tmp_path, as_yaml(BASE)), "--no-progress")
    assert code == 3 and "internal error" in err and err.count("\n") == 1


def test_closed_stdout_pipe_exits_quietly(tmp_path):
    f = write(tmp_path, as_yaml(BASE))
    script = "import sys; from visguard.cli import main; sys.exit(main(sys.argv[1:]))"
    p = subprocess.Popen([sys.executable, "-P", "-c", script, "simulate", str(f), "--json", "--no-progress"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    p.stdout.close()  # the reader went away before the first byte, like `| head -c 0`
    err = p.stderr.read().decode()
    assert p.wait(timeout=60) == 141  # 128 + SIGPIPE, as the dispatcher reports a closed pipe (contracts.md)
    assert "Traceback" not in err and "BrokenPipe" not in err


# ------------------------------------------------------------------------------------------------ fuzzing
HOSTILE = st.sampled_from(
    [float("nan"), float("inf"), -float("inf"), 1e-300, 1e308, -1, 0, 1, 2, 0.5, 10**40, "9" * 50, "x",
     [], {}, None, True, [1, 2], {"a": 1}, "\x1b[2J", 43199.5, 1e-05, 900, 10_000_000]
)  # fmt: skip


def _paths(node, prefix=()):
    if isinstance(node, dict):
        for k, v in node.items():
            yield (*prefix, k)
            yield from _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield (*prefix, i)
            yield from _paths(v, (*prefix, i))


PATHS = list(_paths(BASE)) + list(_paths(LAMBDA))


@st.composite
def mutated(draw):
    base = draw(st.sampled_from([BASE, LAMBDA]))
    doc = json.loads(json.dumps(base))
    for _ in range(draw(st.integers(1, 4))):
        path = draw(st.sampled_from(PATHS))
        node = doc
        try:
            for k in path[:-1]:
                node = node[k]
            action = draw(st.sampled_from(["set", "set", "set", "delete", "extra"]))
            if action == "set":
                node[path[-1]] = draw(HOSTILE)
            elif action == "delete" and isinstance(node, dict):
                node.pop(path[-1], None)
            elif isinstance(node, dict):
                node[draw(st.sampled_from(["colour", "\x07", "lambda", "heartbeat"]))] = draw(HOSTILE)
        except (KeyError, IndexError, TypeError):
            continue
    fmt = draw(st.sampled_from(["json", "yaml"]))
    try:
        text = json.dumps(doc) if fmt == "json" else yaml.safe_dump(doc)
    except ValueError:
        text = "{"
    return fmt, text


@settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=mutated(), mode=st.sampled_from(["exact", "fast"]))
def test_fuzz_mutated_scenarios(tmp_path_factory, case, mode):
    fmt, text = case
    f = tmp_path_factory.mktemp("fz") / f"s.{fmt}"
    f.write_text(text)
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    t0 = time.monotonic()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["simulate", str(f), "--json", "--no-progress", "--mode", mode, "--messages", "40"])
    # bounded: never a hang (a valid run of 40 messages takes well under 1 s)
    assert time.monotonic() - t0 < 30
    assert code in (0, 1), err.getvalue()
    if code == 1:
        assert out.getvalue() == "" and err.getvalue().count("\n") == 1
        assert "\x1b" not in err.getvalue() and "\x07" not in err.getvalue()
    else:
        json.loads(out.getvalue())


FLAGS = ["--p50", "--p99", "--fixed", "--lambda-timeout", "--batch-size", "--batching-window",
         "--max-duplicate-rate", "--max-recovery", "--max-dlq-false-positives", "--crash-rate", "--transient",
         "--no-partial-batch", "--json"]  # fmt: skip
VALUES = ["nan", "inf", "-inf", "1e-300", "1e308", "-1", "0", "1", "5", "45", "0.001", "0.5", "900", "21600",
          "43200", "9" * 400, "x", ""]  # fmt: skip


@settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    base=st.sampled_from(
        [["--p50", "5", "--p99", "45"], ["--fixed", "2"], ["--p50", "2400", "--p99", "21600"]]
    ),
    extra=st.lists(st.tuples(st.sampled_from(FLAGS), st.sampled_from(VALUES)), max_size=4),
)
def test_fuzz_recommend_arguments(base, extra):
    import contextlib
    import io

    argv = ["recommend", *base, "--json"]
    for flag, value in extra:
        argv += [flag] if flag in ("--no-partial-batch", "--json") else [flag, value]
    out, err = io.StringIO(), io.StringIO()
    t0 = time.monotonic()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    assert time.monotonic() - t0 < 5
    assert code in (0, 1, 2), (argv, err.getvalue())
    if code == 1:
        assert out.getvalue() == "" and err.getvalue().count("\n") == 1
    else:
        rec = json.loads(out.getvalue())
        assert 0 <= rec["visibility_timeout"] <= 43_200
        if rec["heartbeat_extend_by"] is not None:
            assert rec["heartbeat_extend_by"] <= 43_200
