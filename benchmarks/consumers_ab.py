"""Issue 35 (value flow, worker command lines, shell-declared and code-created queues) side by side with an
earlier commit, in one run: the 10,000-file application repository (``code_scan.py``'s generator), a
CloudFormation template and a Terraform root with 200 queues and no consumer (the goal: nothing of the new
readers is paid for there), and a package whose receive reaches its queue through a constructor argument, a
settings module and a start command (what issue 35 adds; old versions leave it unjoined).

Each version runs from its own files (``git archive REV``, ``code_parse_ab.layout``), one ``visguard lint``
process per run; reported: CPU seconds of the child (user + system) and wall time, best of ``--runs``
(interleaved), and the ratio new / old of CPU (below 1.0: the new version is faster).

    .venv/bin/python -P benchmarks/consumers_ab.py [--at d65a99b] [--runs 5] [--files 10000]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from code_engine_ab import table  # noqa: E402
from code_parse_ab import ROOT, layout  # noqa: E402
from code_scan import code_repo  # noqa: E402

QUEUES = 200


def template(folder: Path) -> None:
    body = ["AWSTemplateFormatVersion: '2010-09-09'", "Resources:"]
    for i in range(QUEUES):
        body += [f"  Dlq{i}:", "    Type: AWS::SQS::Queue", "    Properties: {MessageRetentionPeriod: 1209600}",
                 f"  Queue{i}:", "    Type: AWS::SQS::Queue", "    Properties:", f"      VisibilityTimeout: {30 + i}",
                 "      RedrivePolicy:", f"        deadLetterTargetArn: !GetAtt Dlq{i}.Arn", "        maxReceiveCount: 5"]  # fmt: skip
    folder.mkdir()
    (folder / "stack.yaml").write_text("\n".join(body) + "\n")


def terraform(folder: Path) -> None:
    body = []
    for i in range(QUEUES):
        body.append(
            f'resource "aws_sqs_queue" "dlq{i}" {{\n  name = "q{i}-dlq"\n  message_retention_seconds = 1209600\n}}\n'
            f'resource "aws_sqs_queue" "q{i}" {{\n  name = "q{i}"\n  visibility_timeout_seconds = {30 + i}\n'
            f"  redrive_policy = jsonencode({{ deadLetterTargetArn = aws_sqs_queue.dlq{i}.arn, maxReceiveCount = 5 }})\n}}\n"
        )
    folder.mkdir()
    (folder / "main.tf").write_text("\n".join(body))


def wired(folder: Path) -> None:
    """A worker package: the queue reaches the receive through a settings module and a constructor argument."""
    (folder / "worker").mkdir(parents=True)
    (folder / "worker" / "__init__.py").write_text("")
    (folder / "worker" / "settings.py").write_text(
        "QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/123456789012/orders'\n"
    )
    (folder / "worker" / "poller.py").write_text(
        "import boto3\nfrom .settings import QUEUE_URL\n\n\nclass Poller:\n"
        "    def __init__(self, url, visibility=20):\n        self.url = url\n        self.visibility = visibility\n"
        "        self.sqs = boto3.client('sqs')\n\n    def poll(self):\n"
        "        return self.sqs.receive_message(QueueUrl=self.url, VisibilityTimeout=self.visibility)\n\n\n"
        "POLLER = Poller(QUEUE_URL)\n"
    )  # fmt: skip
    (folder / "main.tf").write_text('resource "aws_sqs_queue" "orders" {\n  name = "orders"\n}\n')


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--at", default="d65a99b")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--files", type=int, default=10_000)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()  # fmt: skip
        paths = {a.at: layout(a.at, work), head: layout(head, work)}
        n = code_repo(work / "repo", a.files)
        template(work / "cfn")
        terraform(work / "tf")
        wired(work / "wired")
        cases = [(f"the {n:,}-file application repository", work / "repo"),
                 (f"CloudFormation template, {2 * QUEUES} queues, no consumer", work / "cfn"),
                 (f"Terraform root, {2 * QUEUES} queues, no consumer", work / "tf"),
                 ("a worker package (settings module + constructor argument)", work / "wired")]  # fmt: skip
        table(cases, paths, a.at, head, a.runs, new_over_old=True)


if __name__ == "__main__":
    main()
