"""visguard lint on Serverless Framework services vs cfn-lint on the CloudFormation those services deploy.

No tool reads serverless.yml for these checks, so the peer is the usual workflow: `serverless package`, then
cfn-lint on the packaged template. The packaged template is stood in for by the one visguard's loader
translates the service into (functions, mappings and the resources section), given the properties a packaged
function has (Runtime, Handler, Role, Code), and written as JSON; cfn-lint runs with its default rules.
Workloads, generated into a temporary folder:
  small: examples/serverless (5 functions, 2 Lift queues, includes and stage files);
  large: one service with 200 functions, each with an SQS event on its own queue + DLQ, names and timeouts
         through ${self:custom...} variables (every 7th queue too short).
Each tool runs as its command-line program (wall time, best of N runs, both in the same run). The
pre-commit path (`visguard-pre-commit serverless FILE`: map the changed file to its service, lint it) is timed
on the small service.

    .venv/bin/python -P benchmarks/lint_serverless.py [--runs 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parents[1]


def large_service(n: int) -> str:
    lines = [
        "service: bench",
        "provider:",
        "  name: aws",
        "  stage: ${opt:stage, 'dev'}",
        "  timeout: 20",
        "custom:",
        "  prefix: ${self:service}-${sls:stage}",
        "  retries: 5",
        "functions:",
    ]
    for i in range(n):
        lines += [
            f"  worker{i}:",
            f"    handler: src/w{i}.handler",
            f"    timeout: {10 + i % 50}",
            "    events:",
            "      - sqs:",
            f"          arn: !GetAtt Queue{i}.Arn",
            "          batchSize: 10",
            "          functionResponseType: ReportBatchItemFailures",
        ]
    lines += ["resources:", "  Resources:"]
    for i in range(n):
        t = 10 + i % 50
        lines += [
            f"    Queue{i}:",
            "      Type: AWS::SQS::Queue",
            "      Properties:",
            f"        QueueName: ${{self:custom.prefix}}-q{i}",
            f"        VisibilityTimeout: {t * (2 if i % 7 == 0 else 6)}",
            "        RedrivePolicy:",
            f"          deadLetterTargetArn: !GetAtt Dlq{i}.Arn",
            "          maxReceiveCount: ${self:custom.retries}",
            f"    Dlq{i}:",
            "      Type: AWS::SQS::Queue",
            "      Properties: {MessageRetentionPeriod: 1209600}",
        ]
    return "\n".join(lines) + "\n"


def packaged_template(service: Path) -> dict:
    """The CloudFormation the service deploys (as the loader translates it), with packaged function props."""
    from visguard.linter.loaders import serverless

    path = serverless.service_file(str(service))
    doc = serverless.loads(serverless._read_text(path), file=path)
    t = serverless._Translator(doc, path, serverless.values_from(SimpleNamespace()))
    template = json.loads(json.dumps(t.template(), default=str))
    for res in template["Resources"].values():
        if res.get("Type") == "AWS::Lambda::Function":
            res["Properties"].update(
                Runtime="python3.12",
                Handler="index.handler",
                Role="arn:aws:iam::123456789012:role/bench",
                Code={"S3Bucket": "deploys", "S3Key": "bench.zip"},
            )
    if not template.get("Parameters"):
        template.pop("Parameters", None)
    return {"AWSTemplateFormatVersion": "2010-09-09", **template}


def best(cmd: list[str], runs: int, ok=(0, 2)) -> tuple[float, float]:
    """(best wall time, best CPU time of the process): CPU time says more on a loaded shared machine."""
    walls, cpus = [], []
    for _ in range(runs):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        walls.append(time.perf_counter() - t0)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
        if proc.returncode not in ok:
            raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr[-500:]}")
    return min(walls), min(cpus)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json")
    args = ap.parse_args()
    visguard, cfnlint, hook = str(BIN / "visguard"), str(BIN / "cfn-lint"), str(BIN / "visguard-pre-commit")
    out: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp) / "large"
        big.mkdir()
        (big / "serverless.yml").write_text(large_service(200))
        for name, service in (("small", ROOT / "examples" / "serverless"), ("large", big)):
            tpl = Path(tmp) / f"{name}.template.json"
            tpl.write_text(json.dumps(packaged_template(service)))
            v, vc = best([visguard, "lint", str(service), "--fail-on", "never"], args.runs)
            c, cc = best([cfnlint, str(tpl)], args.runs, ok=(0, 2, 4, 6, 8, 10, 12, 14))
            out[name] = {
                "visguard_wall_s": round(v, 3),
                "cfn_lint_wall_s": round(c, 3),
                "wall_ratio": round(c / v, 1),
                "visguard_cpu_s": round(vc, 3),
                "cfn_lint_cpu_s": round(cc, 3),
                "cpu_ratio": round(cc / vc, 1),
            }
            print(
                f"{name:6s} wall: visguard {v:7.3f} s, cfn-lint {c:7.3f} s ({c / v:5.1f}x)   "
                f"CPU: visguard {vc:6.3f} s, cfn-lint {cc:7.3f} s ({cc / vc:5.1f}x)"
            )
        changed = str(ROOT / "examples" / "serverless" / "resources" / "queues.yml")
        h, hc = best([hook, "serverless", "--fail-on", "never", changed], args.runs)
        out["pre_commit_small"] = {"wall_s": round(h, 3), "cpu_s": round(hc, 3)}
        print(f"pre-commit hook, one changed include of the small service: wall {h:.3f} s, CPU {hc:.3f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
