"""What GuardedQueue costs at synth time: 100 GuardedQueues, each with a Lambda consumer, versus 100 plain
``aws_sqs.Queue``s with the same consumers (goal: at most 1.3 x the plain synth time).

Two more variants write by hand what GuardedQueue provisions (queue, 14-day DLQ and redrive, with and without
the two alarms, the same consumer), so the report separates the cost of the extra resources from the cost of
visguard's own work (deriving the timeout, running the rule catalogue, annotations).

Measures, each as wall time and as CPU time of Python plus its Node.js (jsii) processes (a machine shared with
other jobs disturbs CPU time less), the median of ``--repeats`` samples, variants in rotating order:
- ``strict``: in a fresh process, construction + ``app.synth()`` (CDK's built-in CloudFormation validation on)
  after a 5-queue warm-up synth: only the per-queue work, the fixed costs of a synth left out.
- ``settled``: the same, but after the warm-up it waits until the jsii kernel's CPU use stops (its background
  threads keep compiling CDK's WebAssembly validator for about a second after the first synth; ``strict``
  counts that constant work in every variant).
- ``app``: the synth as a user runs it: a fresh ``python app.py`` process (import aws_cdk, build the app,
  ``app.synth()`` to a temporary cloud assembly), CPU of the whole process tree.
- ``cli``: a fresh ``cdk synth`` (the pinned CDK CLI in node_modules, offline) of the same app.
Run: ``.venv/bin/python -P benchmarks/cdk_overhead.py [--queues 100] [--repeats 5] [--measures strict,app]
[--write]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

GOAL = 1.3
RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "RESULTS.md")
SECTION = "cdk"
PER_STACK = 20
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CDK_CLI = os.path.join(ROOT, "node_modules", ".bin", "cdk")
# jsii and the CDK CLI run on the Node.js LTS pinned in package.json (npm ci), as `make` runs them; JSII_NODE=node
# measures the machine's Node instead.
NODE_BIN = os.path.join(ROOT, "node_modules", ".bin")
if os.path.exists(os.path.join(NODE_BIN, "node")):
    os.environ.setdefault("JSII_NODE", os.path.join(NODE_BIN, "node"))
    os.environ["PATH"] = NODE_BIN + os.pathsep + os.environ.get("PATH", "")
MEASURES = ("strict", "settled", "app", "cli")
# The variants the fresh-process measures (app, cli) run: each of their samples costs a whole synth.
FRESH_VARIANTS = (
    "plain queue + consumer",
    "by hand: queue + DLQ + 2 CfnAlarms + consumer",
    "GuardedQueue + consumer (alarms=False)",
    "GuardedQueue + consumer",
)


def _function(scope, i: int):
    from aws_cdk import Duration
    from aws_cdk import aws_lambda as lambda_

    return lambda_.Function(
        scope,
        f"Fn{i}",
        runtime=lambda_.Runtime.PYTHON_3_12,
        handler="index.handler",
        code=lambda_.Code.from_inline("def handler(event, context):\n    return {}\n"),
        timeout=Duration.seconds(30),
    )


def build_plain(stack, ids: range) -> None:
    from aws_cdk import Duration
    from aws_cdk import aws_lambda_event_sources as events
    from aws_cdk import aws_sqs as sqs

    for i in ids:
        q = sqs.Queue(stack, f"Q{i}", visibility_timeout=Duration.seconds(185))
        _function(stack, i).add_event_source(
            events.SqsEventSource(
                q, batch_size=10, max_batching_window=Duration.seconds(5), report_batch_item_failures=True
            )
        )


def build_by_hand(stack, ids: range, alarms: bool = True, l1_alarms: bool = False) -> None:
    """The resources GuardedQueue creates, written without it (no derivation, no rules); the alarms as L2
    ``Alarm``s (what one would write) or, with ``l1_alarms``, as the ``CfnAlarm``s GuardedQueue creates."""
    from aws_cdk import Duration
    from aws_cdk import aws_cloudwatch as cw
    from aws_cdk import aws_lambda_event_sources as events
    from aws_cdk import aws_sqs as sqs

    for i in ids:
        dlq = sqs.Queue(stack, f"Dlq{i}", retention_period=Duration.days(14))
        q = sqs.Queue(
            stack,
            f"Q{i}",
            visibility_timeout=Duration.seconds(185),
            dead_letter_queue=sqs.DeadLetterQueue(queue=dlq, max_receive_count=5),
        )
        minute = Duration.minutes(1)
        if not alarms:
            _function(stack, i).add_event_source(
                events.SqsEventSource(
                    q, batch_size=10, max_batching_window=Duration.seconds(5), report_batch_item_failures=True
                )
            )
            continue
        if l1_alarms:
            for name, queue, metric, threshold, periods in (
                ("DlqAlarm", dlq, "ApproximateNumberOfMessagesVisible", 0, 1),
                ("AgeAlarm", q, "ApproximateAgeOfOldestMessage", 925, 5),
            ):
                cw.CfnAlarm(
                    stack,
                    f"{name}{i}",
                    namespace="AWS/SQS",
                    metric_name=metric,
                    dimensions=[cw.CfnAlarm.DimensionProperty(name="QueueName", value=queue.queue_name)],
                    statistic="Maximum",
                    period=60,
                    threshold=threshold,
                    evaluation_periods=periods,
                    datapoints_to_alarm=periods if periods > 1 else None,
                    comparison_operator="GreaterThanThreshold",
                    treat_missing_data="notBreaching",
                )
            _function(stack, i).add_event_source(
                events.SqsEventSource(
                    q, batch_size=10, max_batching_window=Duration.seconds(5), report_batch_item_failures=True
                )
            )
            continue
        cw.Alarm(
            stack,
            f"DlqAlarm{i}",
            metric=dlq.metric_approximate_number_of_messages_visible(period=minute, statistic="Maximum"),
            threshold=0,
            evaluation_periods=1,
            comparison_operator=cw.ComparisonOperator.GREATER_THAN_THRESHOLD,
            treat_missing_data=cw.TreatMissingData.NOT_BREACHING,
        )
        cw.Alarm(
            stack,
            f"AgeAlarm{i}",
            metric=q.metric_approximate_age_of_oldest_message(period=minute, statistic="Maximum"),
            threshold=925,
            evaluation_periods=5,
            datapoints_to_alarm=5,
            comparison_operator=cw.ComparisonOperator.GREATER_THAN_THRESHOLD,
            treat_missing_data=cw.TreatMissingData.NOT_BREACHING,
        )
        _function(stack, i).add_event_source(
            events.SqsEventSource(
                q, batch_size=10, max_batching_window=Duration.seconds(5), report_batch_item_failures=True
            )
        )


def build_guarded(stack, ids: range, alarms: bool = True) -> None:
    from aws_cdk import Duration
    from visguard.constructs import GuardedQueue

    for i in ids:
        q = GuardedQueue(stack, f"G{i}", alarms=alarms)
        q.add_lambda_consumer(_function(stack, i), batch_size=10, max_batching_window=Duration.seconds(5))


def cpu_seconds() -> float:
    """CPU time of this process and of its descendants (the jsii Node.js kernel does most of the work), from
    /proc: less disturbed than wall time on a machine shared with other jobs."""
    total = time.process_time()
    tick = os.sysconf("SC_CLK_TCK")
    parents, seen = {os.getpid()}, set()
    stats = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            stats[int(entry)] = (int(fields[1]), int(fields[11]) + int(fields[12]))  # ppid, utime + stime
    while parents:
        children = {pid for pid, (ppid, _) in stats.items() if ppid in parents and pid not in seen}
        seen |= children
        total += sum(stats[pid][1] for pid in children) / tick
        parents = children
    return total


def build_app(build, n: int, outdir: str | None = None, **kw):
    """An App of ``n`` queues of one variant, 20 per stack (CloudFormation allows 500 resources per stack)."""
    from aws_cdk import App, Stack

    app = App(outdir=outdir) if outdir else App()
    for first in range(0, n, PER_STACK):
        build(Stack(app, f"Bench{first // PER_STACK}"), range(first, min(n, first + PER_STACK)), **kw)
    return app


def timed(build, n: int, **kw) -> tuple[float, float]:
    """(wall seconds, CPU seconds) to build and synthesize an app of ``n`` queues."""
    start, cpu = time.perf_counter(), cpu_seconds()
    build_app(build, n, **kw).synth()
    return time.perf_counter() - start, cpu_seconds() - cpu


def settle(quiet: float = 0.02, step: float = 0.5, limit: float = 30.0) -> None:
    """Wait until this process tree uses less than ``quiet`` CPU seconds in ``step`` seconds: after the first
    synth, the jsii kernel's V8 threads go on compiling CDK's WebAssembly validator for about a second."""
    last, deadline = cpu_seconds(), time.monotonic() + limit
    while time.monotonic() < deadline:
        time.sleep(step)
        now = cpu_seconds()
        if now - last < quiet:
            return
        last = now


VARIANTS = {
    "plain queue + consumer": (build_plain, {}),
    "by hand: queue + DLQ + consumer": (build_by_hand, {"alarms": False}),
    "GuardedQueue + consumer (alarms=False)": (build_guarded, {"alarms": False}),
    "by hand: queue + DLQ + 2 alarms + consumer": (build_by_hand, {}),
    "by hand: queue + DLQ + 2 CfnAlarms + consumer": (build_by_hand, {"l1_alarms": True}),
    "GuardedQueue + consumer": (build_guarded, {}),
}


def profile_node(directory: str) -> None:
    """Run the jsii kernel under ``node --cpu-prof`` (Node refuses the flag in NODE_OPTIONS; jsii starts the
    node named by JSII_NODE, whose flags its kernel process inherits). Open the .cpuprofile files with Chrome
    DevTools or speedscope."""
    directory = os.path.abspath(directory)
    os.makedirs(directory, exist_ok=True)
    wrapper = os.path.join(directory, "node-cpu-prof.sh")
    with open(wrapper, "w") as fh:
        fh.write(f'#!/bin/sh\nexec node --cpu-prof --cpu-prof-dir="{directory}" "$@"\n')
    os.chmod(wrapper, 0o755)
    os.environ["JSII_NODE"] = wrapper


def count_requests() -> list[int]:
    """Count the jsii kernel requests (create, get, set, invoke, ...) this process sends from now on."""
    from jsii._kernel.providers import process

    counter, send = [0], process._NodeProcess.send

    def counted(self, request, response_type):
        counter[0] += 1
        return send(self, request, response_type)

    process._NodeProcess.send = counted
    return counter


def measure_one(index: int, n: int, settled: bool = False) -> tuple[float, float, int]:
    """One in-process sample of one variant in this (fresh) process, after a small warm-up synth of the same
    variant (and, with ``settled``, once the kernel's background work after it has finished): wall, CPU and
    the number of jsii requests."""
    build, kw = list(VARIANTS.values())[index]
    timed(build, 5, **kw)  # warm up jsii, CDK and its validation engine
    if settled:
        settle()
    requests = count_requests()
    wall, cpu = timed(build, n, **kw)
    return wall, cpu, requests[0]


def app_main(index: int, n: int, outdir: str | None) -> None:
    """What a user's ``app.py`` does: import aws_cdk, build the app, synthesize it. Under ``cdk synth`` the CLI
    sets the output directory (CDK_OUTDIR)."""
    build, kw = list(VARIANTS.values())[index]
    build_app(build, n, outdir=outdir, **kw).synth()


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # every waited-for descendant: Python, jsii's Node
    return usage.ru_utime + usage.ru_stime


def fresh_sample(measure: str, index: int, n: int) -> tuple[float, float]:
    """(wall, CPU) of one whole synth in new processes: ``python app.py`` or ``cdk synth`` of that app."""
    app = [sys.executable, "-P", os.path.abspath(__file__), "--app", str(index), "--queues", str(n)]
    with tempfile.TemporaryDirectory(prefix="cdk-bench-") as tmp:
        out = os.path.join(tmp, "cdk.out")
        if measure == "app":
            cmd, cwd = app + ["--outdir", out], tmp
        else:  # the CLI runs the app command through a shell: quote nothing, the paths have no spaces
            cmd = [CDK_CLI, "synth", "--no-notices", "-q", "-o", out, "--app", " ".join(app)]
            cwd = tmp  # no cdk.json there: only --app
        env = dict(os.environ, CDK_DISABLE_CLI_TELEMETRY="true")
        start, cpu = time.perf_counter(), _child_cpu()
        subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=True)
        wall, cpu = time.perf_counter() - start, _child_cpu() - cpu
        if not os.path.exists(os.path.join(out, "manifest.json")):
            raise RuntimeError(f"{measure}: no cloud assembly in {out}")
    return wall, cpu


def _in_process_sample(measure: str, index: int, n: int) -> tuple[float, float]:
    cmd = [sys.executable, "-P", os.path.abspath(__file__), "--one", str(index), "--queues", str(n)]
    out = subprocess.run(
        cmd + (["--settled"] if measure == "settled" else []), capture_output=True, text=True, check=True
    ).stdout
    wall, cpu, requests = out.strip().splitlines()[-1].split()
    REQUESTS[index] = int(requests)
    return float(wall), float(cpu)


REQUESTS: dict[int, int] = {}  # jsii requests of each variant's in-process sample


def run(n: int, repeats: int, measures: tuple[str, ...]) -> dict[str, dict[str, tuple[float, float]]]:
    """Every sample in a fresh Python + jsii kernel: one long-lived kernel keeps every object of every earlier
    app alive, and its growing heap made later variants slower whichever they were."""
    names = list(VARIANTS)
    result = {}
    for measure in measures:
        chosen = [names.index(v) for v in (names if measure in ("strict", "settled") else FRESH_VARIANTS)]
        samples: dict[str, list[tuple[float, float]]] = {names[i]: [] for i in chosen}
        for r in range(repeats):
            for i in chosen[r % len(chosen) :] + chosen[: r % len(chosen)]:  # rotate: none always runs first
                sample = _in_process_sample if measure in ("strict", "settled") else fresh_sample
                samples[names[i]].append(sample(measure, i, n))
        result[measure] = {
            k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
            for k, v in samples.items()
        }
    return result


TITLES = {
    "strict": "strict: in-process construction + `app.synth()` after a 5-queue warm-up",
    "settled": "settled: as strict, after the kernel's background compilation of the warm-up has finished",
    "app": "app: a fresh `python app.py` per sample (import aws_cdk + build + synth), whole process tree",
    "cli": "cli: a fresh `cdk synth` (pinned CDK CLI, offline) of the same app per sample, whole process tree",
}
PLAIN, HAND, GUARDED = (
    "plain queue + consumer",
    "by hand: queue + DLQ + 2 CfnAlarms + consumer",
    "GuardedQueue + consumer",
)


def ratio(medians: dict[str, tuple[float, float]], name: str) -> float:
    return medians[name][1] / medians[PLAIN][1]


def report(n: int, repeats: int, results: dict[str, dict[str, tuple[float, float]]], load: str) -> str:
    date = subprocess.run(["date"], capture_output=True, text=True).stdout.strip()
    lines = [
        f"<!-- section:{SECTION} -->",
        "## CDK: GuardedQueue synth overhead (`benchmarks/cdk_overhead.py`)",
        "",
        f"Machine: 2 vCPU AMD EPYC, 24 GiB, Python {platform.python_version()} (shared with other jobs: load "
        f"average {load}); aws-cdk-lib {_cdk_version()}; {date}.",
        f"{n} queues, each with one Lambda consumer (30 s timeout, batch 10, 5 s window), {PER_STACK} queues per "
        f"stack, CDK's built-in validation on; median of {repeats} samples per variant, each in fresh processes, "
        "in rotating order. CPU time is that of Python and its Node.js processes; the goal is judged on it.",
        "",
    ]
    verdicts = []
    names = list(VARIANTS)
    for measure, medians in results.items():
        counted = measure in ("strict", "settled")
        head = "| variant | wall time | CPU time | CPU x plain |" + (
            " jsii requests per queue |" if counted else ""
        )
        lines += [
            f"**{TITLES[measure]}**",
            "",
            head,
            "| --- | ---: | ---: | ---: |" + (" ---: |" if counted else ""),
        ]
        for name, (wall, cpu) in medians.items():
            row = f"| {name} | {wall:.2f} s | {cpu:.2f} s | {ratio(medians, name):.2f} |"
            if counted:
                row += f" {REQUESTS[names.index(name)] / n:.1f} |"
            lines.append(row)
        x = ratio(medians, GUARDED)
        met = "met" if x <= GOAL else "NOT met"
        per_queue = (medians[GUARDED][1] - medians[HAND][1]) / n * 1000
        verdicts.append(f"{measure} {x:.2f} x: **{met}**")
        lines += [
            "",
            f"Goal (<= {GOAL} x plain, CPU): **{met}** on this measure ({x:.2f} x; the same resources by hand "
            f"{ratio(medians, HAND):.2f} x; GuardedQueue's own work over them {per_queue:+.1f} ms per queue).",
            "",
        ]
    lines += [f"Summary: {'; '.join(verdicts)}.", ""]
    lines += NOTES
    lines += [
        f"Reproduce: `.venv/bin/python -P benchmarks/cdk_overhead.py --queues {n} --repeats {repeats} "
        f"--measures {','.join(results)} --write` (`--check`: exit 2 when the goal is not met on the strict "
        "measure).",
        f"<!-- /section:{SECTION} -->",
    ]
    return "\n".join(lines) + "\n"


NOTES = [
    "Where the time goes (Node.js profiles of the jsii kernel: `--one I --cpu-prof DIR`; CPU per thread from "
    "/proc; jsii requests counted by the benchmark): each jsii request costs about 0.17 ms of CPU (Python "
    "marshalling, jsii's relay process, the kernel), an L2 `sqs.Queue` about 0.8 ms to construct. In "
    "`app.synth()` Node's main thread spends 0.3 s (plain) to 0.5 s (GuardedQueue) of CPU for 100 queues, by "
    "its profile about half in CDK's built-in CloudFormation validator (WebAssembly, one call per template; "
    "as long for the plain app as for the GuardedQueue one with 60 % more resources, so not a per-resource "
    "cost), a third resolving tokens, the rest preparing the app and writing tree.json; V8's background threads add "
    "about as much again. The "
    "first synth in a process also starts about a second of background compilation of that WebAssembly on "
    "V8's worker threads, which `strict` counts in every variant and `settled` waits out. Construction: a "
    "GuardedQueue without consumers costs no more than writing the queue and DLQ by hand (shared Durations); "
    "`add_lambda_consumer` costs about 2 ms per queue more than `fn.add_event_source(SqsEventSource(q))`: about "
    "10 more jsii requests (the last column; each count includes the benchmark's own Function, Runtime, Code "
    "and Durations) to read the function's timeout, reserved concurrency and path and to set the derived "
    "timeout and age threshold once they are known. The rule catalogue takes about 0.04 ms per run; there are "
    "no callbacks from Node.js at synth unless the rules have findings. So the resources GuardedQueue adds by "
    "design (the DLQ and the two alarms, the by-hand rows) are most of its cost.",
    "Which measure to read: `strict` and `settled` isolate the per-queue work, so the DLQ and the alarms weigh "
    "most there (`settled` most: without the constant background compilation only per-queue work is left). "
    "`app` and `cli` are what a user waits for: importing aws-cdk-lib, starting the jsii kernel and the first "
    "synth are paid once per synth whatever the app holds.",
]


def _cdk_version() -> str:
    from importlib.metadata import version

    return version("aws-cdk-lib")


def write_section(text: str) -> None:
    """Replace (or append) this benchmark's own section of RESULTS.md; other sections stay as they are."""
    start, end = f"<!-- section:{SECTION} -->", f"<!-- /section:{SECTION} -->"
    old = "# Benchmark results\n"
    if os.path.exists(RESULTS):
        with open(RESULTS, encoding="utf-8") as fh:
            old = fh.read()
    if start in old and end in old:
        head, rest = old.split(start, 1)
        new = head + text.rstrip("\n") + rest.split(end, 1)[1]
    else:
        new = old.rstrip("\n") + "\n\n" + text
    with open(RESULTS, "w", encoding="utf-8") as fh:
        fh.write(new)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queues", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument(
        "--measures", default=",".join(MEASURES), help=f"comma-separated, of {', '.join(MEASURES)}"
    )
    ap.add_argument("--write", action="store_true", help="write the results into benchmarks/RESULTS.md")
    ap.add_argument("--check", action="store_true", help="exit 2 when the goal is not met (strict measure)")
    # internal: measure one variant in this process and print "wall cpu"; or be the app of one variant
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--settled", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--app", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--outdir", help=argparse.SUPPRESS)
    ap.add_argument(
        "--cpu-prof", metavar="DIR", help="with --one: write the jsii kernel's Node.js CPU profiles to DIR"
    )
    args = ap.parse_args(argv)
    if args.app is not None:
        app_main(args.app, args.queues, args.outdir)
        return 0
    if args.one is not None:
        if args.cpu_prof:
            profile_node(args.cpu_prof)
        wall, cpu, requests = measure_one(args.one, args.queues, args.settled)
        print(f"{wall:.4f} {cpu:.4f} {requests}")
        return 0
    measures = tuple(m for m in args.measures.split(",") if m)
    unknown = set(measures) - set(MEASURES)
    if unknown:
        ap.error(f"unknown measures: {', '.join(sorted(unknown))}")
    if "cli" in measures and not shutil.which(CDK_CLI):
        ap.error(f"no CDK CLI at {CDK_CLI}: run npm ci (make install)")
    loads = [os.getloadavg()[0]]
    results = run(args.queues, args.repeats, measures)
    loads.append(os.getloadavg()[0])
    text = report(
        args.queues, args.repeats, results, f"{loads[0]:.1f} at the start, {loads[1]:.1f} at the end"
    )
    print(text)
    if args.write:
        write_section(text)
    strict = results.get("strict")
    return 2 if args.check and strict and ratio(strict, GUARDED) > GOAL else 0


if __name__ == "__main__":
    sys.exit(main())
