"""`visguard simulate` and `visguard recommend` through the real dispatcher (visguard.cli.main)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from visguard.cli import main
from visguard.engine.cli_simulate import Progress

EXAMPLES = Path(__file__).parents[2] / "engine" / "examples"
KEYS = {
    "messages", "deliveries", "processed_more_than_once", "duplicate_rate", "concurrent_duplicates",
    "dlq_messages", "dlq_false_positives", "max_inflight", "latency_p50", "latency_p99", "recovery_p99",
    "completed_more_than_once",
}  # fmt: skip
SMALL = """
queue: {visibility_timeout: 30, max_receive_count: 3}
workload: {messages: 3000, arrival_rate: 10}
consumer:
  concurrency: 200
  processing: {distribution: lognormal, p50: 5, p99: 45}
  failures: {crash_before_delete: 0.02}
seed: 4
"""


@pytest.fixture
def scenario(tmp_path):
    p = tmp_path / "small.yaml"
    p.write_text(SMALL)
    return p


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_simulate_json_has_the_contract_keys_and_is_deterministic(capsys, scenario):
    code, out, _ = run(capsys, "simulate", str(scenario), "--json", "--no-progress")
    assert code == 0
    a = json.loads(out)
    assert set(a) >= KEYS
    assert a["messages"] == 3000 and a["mode"] == "exact"
    assert a["duplicate_rate"] == a["processed_more_than_once"] / 3000
    _, out2, _ = run(capsys, "simulate", str(scenario), "--json", "--no-progress")
    b = json.loads(out2)
    a.pop("wall_seconds"), b.pop("wall_seconds")
    assert a == b


def test_simulate_table_and_plot(capsys, scenario, tmp_path):
    plot = tmp_path / "run.svg"
    code, out, _ = run(capsys, "simulate", str(scenario), "--plot", str(plot), "--no-progress")
    assert code == 0
    assert "duplicate rate" in out and "crash recovery p99" in out
    assert plot.read_text().lstrip().startswith("<?xml")


def test_simulate_fast_mode(capsys, scenario):
    code, out, _ = run(capsys, "simulate", str(scenario), "--mode", "fast", "--json")
    assert code == 0
    r = json.loads(out)
    assert r["mode"] == "fast" and r["applicable"]
    assert r["duplicate_rate"] == pytest.approx(0.02 + 0.98 * 0.0289, abs=2e-4)
    code, out, _ = run(capsys, "simulate", str(scenario), "--mode", "fast")
    assert "duplicate rate" in out


def test_simulate_bad_input_is_one_line_exit_1(capsys, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(SMALL.replace("p99: 45", "p99: fast"))
    code, out, err = run(capsys, "simulate", str(bad))
    assert code == 1 and out == ""
    assert err.strip().count("\n") == 0
    assert f"{bad}:consumer.processing.p99:" in err
    code, _, err = run(capsys, "simulate", str(tmp_path / "missing.yaml"))
    assert code == 1 and "cannot read" in err


def test_examples_run_through_the_cli(capsys):
    code, out, _ = run(
        capsys, "simulate", str(EXAMPLES / "order-pipeline.yaml"), "--messages", "2000", "--json"
    )
    assert code == 0
    r = json.loads(out)
    assert r["messages"] == 2000 and r["left_in_queue"] == 0


def test_progress_bar_only_on_a_tty_after_a_second():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty, pipe = Tty(), io.StringIO()
    fast_tty, slow_tty, slow_pipe = Progress(tty), Progress(tty), Progress(pipe)
    fast_tty(10, 100)  # under a second: nothing
    assert tty.getvalue() == ""
    slow_tty.t0 -= 2
    slow_tty(50, 100)
    slow_tty.close()
    assert "50%" in tty.getvalue() and tty.getvalue().endswith("\n")
    slow_pipe.t0 -= 2
    slow_pipe(50, 100)  # not a TTY, not yet a long run
    assert pipe.getvalue() == ""
    slow_pipe.t0 -= 20
    slow_pipe(60, 100)
    assert "60/100" in pipe.getvalue()


def test_recommend_no_heartbeat_when_timeout_alone_works(capsys):
    code, out, _ = run(
        capsys, "recommend", "--p50", "5", "--p99", "45", "--max-duplicate-rate", "0.001", "--json"
    )
    assert code == 0
    r = json.loads(out)
    assert r["met"] and r["heartbeat_interval"] is None
    assert r["expected"]["duplicate_rate"] <= 0.001
    # the smallest such timeout: one second less breaks the target
    from visguard.engine.risk import Profile

    assert Profile.lognormal(5, 45).sf(r["visibility_timeout"] - 1) > 0.001
    assert "VisibilityTimeout" in r["advice"]


def test_recommend_heartbeat_for_the_video_encoder(capsys, tmp_path):
    plot = tmp_path / "tradeoff.png"
    code, out, _ = run(capsys, "recommend", "--p50", "1800", "--p99", "21600", "--max-recovery", "1800",
                       "--max-duplicate-rate", "0.005", "--plot", str(plot))  # fmt: skip
    assert code == 0, out
    assert "every 600 s" in out and "1800 s" in out
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_recommend_exit_2_when_targets_cannot_be_met(capsys):
    code, out, _ = run(capsys, "recommend", "--p50", "20000", "--p99", "80000", "--max-recovery", "600")
    assert code == 2
    assert "TARGETS NOT MET" in out and "12-hour cap" in out


def test_recommend_lambda_follows_aws_guidance(capsys):
    code, out, _ = run(capsys, "recommend", "--p50", "2", "--p99", "20", "--lambda-timeout", "60", "--json")
    r = json.loads(out)
    assert code == 0
    assert r["visibility_timeout"] == 360  # 6 x function timeout
    assert r["max_receive_count"] >= 5


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--p50", "3", "--p99", "2"], "p50 <= p99"),
        (["--p50", "3"], "both --p50 and --p99"),
        (["--p50", "3", "--p99", "9", "--fixed", "2"], "exactly one"),
        (["--fixed", "2", "--max-duplicate-rate", "5"], "--max-duplicate-rate"),
    ],
)
def test_recommend_bad_input(capsys, argv, fragment):
    code, _, err = run(capsys, "recommend", *argv)
    assert code == 1 and fragment in err


def test_recommend_samples_file(capsys, tmp_path):
    f = tmp_path / "times.txt"
    f.write_text("1\n2\n3\n4\n40\n")
    code, out, _ = run(capsys, "recommend", "--samples", str(f), "--max-duplicate-rate", "0.1", "--json")
    assert code == 0 and json.loads(out)["visibility_timeout"] == 40
    f.write_text("1\nabc\n")
    code, _, err = run(capsys, "recommend", "--samples", str(f))
    assert code == 1 and f"{f}:line 2" in err
