"""examples/local (make demo-consumers): queues a LocalStack hook and Kombu create, a worker started by its
Procfile; one run finds what its README says is wrong, each at the place to change, and nothing else."""

from __future__ import annotations

from pathlib import Path

from visguard.linter.api import lint_paths

STACK = Path(__file__).resolve().parents[3] / "examples" / "local"

EXPECTED = [
    ("VG020", "localstack/ready.d/queues.sh", 5),  # jobs: created by the AWS CLI without a redrive policy
    ("VG020", "mailer.py", 8),  # mail: created by Kombu at worker start, no redrive policy
    ("VG065", "worker.py", 11),  # the jobs worker declares no processing time
    ("VG072", "Procfile", 1),  # --time-limit=900 beyond the reports queue's 600 s
]


def test_the_local_stack_gives_exactly_what_its_readme_says():
    result = lint_paths([str(STACK)])
    assert result.errors == []
    got = sorted(
        (f.rule, Path(f.location.file).relative_to(STACK).as_posix(), f.location.line)
        for f in result.findings
    )
    assert got == sorted(EXPECTED)
