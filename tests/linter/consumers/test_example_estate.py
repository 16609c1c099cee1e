"""examples/consumers (make demo-consumers): one run over Terraform, manifests and application code finds what
its comments say is wrong, each at the place to change, and nothing else."""

from __future__ import annotations

from pathlib import Path

from visguard.linter.api import lint_paths

ESTATE = Path(__file__).resolve().parents[3] / "examples" / "consumers"

EXPECTED = [
    ("VG060", "app/tasks.py", 9),  # Celery's visibility_timeout ignored: Terraform declares the queue
    ("VG060", "app/worker.py", 21),  # the receive's 60 s replaces the queue's 600 s
    (
        "VG060",
        "infra/main.tf",
        79,
    ),  # sqsd's 300 s replaces the queue's 900 s (raise the setting: VG060 points there)
    ("VG061", "app/worker.py", 21),  # 60 s below the ECS task's declared p99 of 5 min, no heartbeat
    ("VG062", "infra/main.tf", 46),  # stopTimeout 30 s below the p99 of 5 min
    ("VG062", "k8s/report-worker.yaml", 16),  # grace period (default 30 s) below the p99 of 20 min
    ("VG063", "infra/main.tf", 79),  # InactivityTimeout 600 s >= sqsd VisibilityTimeout 300 s
    ("VG064", "infra/main.tf", 26),  # pipe target 120 s + window 10 s >= queue 60 s
    ("VG065", "infra/main.tf", 65),  # the Beanstalk worker declares no processing time
    ("VG071", "app/tasks.py", 25),  # countdown 2 h beyond the queue's 600 s
    ("VG072", "app/notify.js", 7),  # handleMessageTimeout 120 s beyond the queue's 30 s
    ("VG074", "app/poller.go", 14),  # the Go receive's VisibilityTimeout 5,400,000 s: outside 0-43,200
    ("VG012", "infra/main.tf", 21),  # reports: 1800 s is a little short for a p99 of 20 min
    ("VG020", "infra/main.tf", 19),  # reports (KEDA) without a redrive policy
    ("VG020", "infra/main.tf", 24),  # thumbnails (pipe) without a redrive policy
    ("VG020", "infra/main.tf", 29),  # exports (Beanstalk) without a redrive policy
    (
        "VG060",
        "app/billing/poller.py",
        17,
    ),  # billing: the poller's default 45 s (its constructor's) replaces 600 s
    ("VG065", "app/billing/poller.py", 15),  # the billing poller declares no processing time
]


def test_the_estate_gives_exactly_what_its_comments_say():
    result = lint_paths([str(ESTATE)])
    assert result.errors == []
    got = sorted(
        (f.rule, Path(f.location.file).relative_to(ESTATE).as_posix(), f.location.line)
        for f in result.findings
    )
    assert got == sorted(EXPECTED)
    # every consumer joined: no "not checked" note
    assert not [f for f in result.findings if f.rule == "VG902"]
