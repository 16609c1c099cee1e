"""`visguard recommend`: visibility timeout, heartbeat and maxReceiveCount for a consumer profile and targets.

Exit 0 when the targets are met, 2 when they cannot be (the best settings are still printed), 1 on bad input.
"""

from __future__ import annotations

import argparse
import json

from visguard import facts
from visguard.engine.cli_guard import ArgumentParser, number
from visguard.errors import EXIT_FINDINGS, EXIT_OK, VisguardError, too_deep

DAY14 = float(facts.RETENTION.hi)  # processing times are 1 ms to 14 days (a message's longest life in SQS)


def parser(prog: str) -> argparse.ArgumentParser:
    p = ArgumentParser(
        prog=prog,
        description="Recommend the visibility timeout, heartbeat interval and maxReceiveCount that meet a "
        "duplicate-rate and a crash-recovery target, with the trade-off curve as a plot.",
    )
    src = p.add_argument_group("consumer profile (one of)")
    src.add_argument(
        "--p50", type=number(0.001, DAY14), help="processing time median (s); lognormal with --p99"
    )
    src.add_argument("--p99", type=number(0.001, DAY14), help="processing time 99th percentile (s)")
    src.add_argument(
        "--fixed", type=number(0.001, DAY14), metavar="SECONDS", help="every attempt takes this long"
    )
    src.add_argument(
        "--samples", metavar="FILE", help="measured processing times: one number a line, or a JSON list"
    )
    src.add_argument(
        "--scenario", metavar="FILE", help="take the consumer (and its failures) from a scenario"
    )
    lam = p.add_argument_group("Lambda consumer (the profile is then the invocation duration)")
    lam.add_argument(
        "--lambda-timeout",
        type=number(facts.LAMBDA_TIMEOUT.lo, facts.LAMBDA_TIMEOUT.hi),
        metavar="SECONDS",
        help="function timeout",
    )
    lam.add_argument(
        "--batch-size", type=number(1, facts.SQS_BATCH_SIZE["standard"].hi, integer=True), default=10
    )
    lam.add_argument(
        "--batching-window", type=number(0, facts.BATCHING_WINDOW.hi), default=0.0, metavar="SECONDS"
    )
    lam.add_argument("--no-partial-batch", action="store_true", help="ReportBatchItemFailures is off")
    t = p.add_argument_group("targets")
    t.add_argument(
        "--max-duplicate-rate",
        type=number(1e-9, 1),
        default=0.001,
        help="default 0.001 (0.1 %%); from 1e-9 (one in a billion) to 1",
    )
    t.add_argument(
        "--max-recovery", type=number(1, DAY14), metavar="SECONDS", help="crash-recovery p99 target"
    )
    t.add_argument(
        "--max-dlq-false-positives", type=number(0, 1), default=1e-6, help="healthy messages in the DLQ"
    )
    t.add_argument("--crash-rate", type=number(0, 1), default=0.0, help="expected crashes per attempt")
    t.add_argument(
        "--transient", type=number(0, 1), default=0.0, help="expected transient failures per attempt"
    )
    p.add_argument("--plot", metavar="PATH", help="write the trade-off plot (.png or .svg)")
    p.add_argument("--json", action="store_true", help="print the recommendation as JSON")
    return p


MAX_SAMPLES = 1_000_000


def _read_samples(path: str) -> list[float]:
    from visguard.engine.scenario import read_text
    from visguard.neutralize import printable

    text = read_text(path)
    text_s = text.strip()
    if text_s.startswith("["):
        try:
            values = json.loads(text_s, parse_constant=lambda c: c)
        except json.JSONDecodeError as exc:
            raise VisguardError(
                f"not a JSON list: {exc.msg}", file=path, place=f"line {exc.lineno}"
            ) from None
        except ValueError:
            raise VisguardError("not a JSON list of numbers", file=path) from None
        except RecursionError:
            raise too_deep(path) from None
        items = [(1, v) for v in values]
    else:
        items = [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    if len(items) > MAX_SAMPLES:
        raise VisguardError(f"more than {MAX_SAMPLES:,} samples", file=path)
    out = []
    for n, v in items:
        shown = printable(repr(v)[:40])
        try:
            x = (
                float(v)
                if isinstance(v, (str, int, float)) and not isinstance(v, bool) and len(str(v)) <= 40
                else None
            )
        except (TypeError, ValueError, OverflowError):
            x = None
        if x is None:
            raise VisguardError(f"{shown} is not a number", file=path, place=f"line {n}") from None
        if not (0.001 <= x <= DAY14):
            raise VisguardError(
                f"processing time {shown} must be 0.001 to {DAY14:,.0f} s", file=path, place=f"line {n}"
            )
        out.append(x)
    if not out:
        raise VisguardError("no samples in the file", file=path)
    return out


def consumer_and_targets(args):
    from visguard.engine.recommend import Consumer, Targets
    from visguard.engine.risk import Profile

    crash, transient = args.crash_rate, args.transient
    chosen = [
        n for n, v in (("--p50/--p99", args.p50 or args.p99), ("--fixed", args.fixed),
                       ("--samples", args.samples), ("--scenario", args.scenario)) if v
    ]  # fmt: skip
    if len(chosen) != 1:
        raise VisguardError(
            "give exactly one consumer profile: --p50 and --p99, --fixed, --samples or --scenario"
        )
    lam_timeout, window, batch, rbif = (
        args.lambda_timeout,
        args.batching_window,
        args.batch_size,
        not args.no_partial_batch,
    )
    if args.scenario:
        from visguard.engine.scenario import load

        sc = load(args.scenario)
        profile = sc.profile
        crash = crash or sc.crash_before_delete
        transient = transient or sc.transient
        if sc.is_lambda:
            lam_timeout, window, batch = sc.lam.timeout, sc.lam.batching_window, sc.lam.batch_size
            rbif = sc.lam.report_batch_item_failures
    elif args.samples:
        profile = Profile.empirical(_read_samples(args.samples))
    elif args.fixed is not None:
        if args.fixed <= 0:
            raise VisguardError("must be a positive number of seconds", place="--fixed")
        profile = Profile.fixed(args.fixed)
    else:
        if args.p50 is None or args.p99 is None:
            raise VisguardError("a lognormal profile needs both --p50 and --p99")
        if not 0 < args.p50 <= args.p99:
            raise VisguardError(
                f"need 0 < p50 <= p99, got p50 {args.p50:g} and p99 {args.p99:g}", place="--p99"
            )
        if args.p99 > 1000 * args.p50:
            raise VisguardError("p99 may be at most 1,000 x p50 (use --samples otherwise)", place="--p99")
        profile = Profile.lognormal(args.p50, args.p99)
    for name, v in (("--max-duplicate-rate", args.max_duplicate_rate),):
        if not 0 < v < 1:
            raise VisguardError("must be between 0 and 1 (e.g. 0.001 for 0.1 %)", place=name)
    for name, v in (("--crash-rate", crash), ("--transient", transient), ("--max-dlq-false-positives", args.max_dlq_false_positives)):  # fmt: skip
        if not 0 <= v < 1:
            raise VisguardError("must be between 0 and 1", place=name)
    if args.max_recovery is not None and args.max_recovery <= 0:
        raise VisguardError("must be a positive number of seconds", place="--max-recovery")
    if lam_timeout is not None and lam_timeout not in facts.LAMBDA_TIMEOUT:
        raise VisguardError("a Lambda timeout is 1-900 s", place="--lambda-timeout")
    consumer = Consumer(profile, lam_timeout, window, batch, rbif)
    targets = Targets(
        args.max_duplicate_rate, args.max_recovery, args.max_dlq_false_positives, crash, transient
    )
    return consumer, targets


def render(rec, consumer) -> str:
    kind = "Lambda" if consumer.is_lambda else "workers"
    p = consumer.profile
    lines = [
        f"visguard recommend ({kind}; processing p50 {p.p50:g} s, p99 {p.p99:g} s)",
        "",
        f"  visibility timeout   {rec.visibility_timeout} s",
        "  heartbeat            "
        + (f"ChangeMessageVisibility({rec.heartbeat_extend_by}) every {rec.heartbeat_interval} s, never past 12 h from the receive" if rec.heartbeat_interval else "none needed"),
        f"  maxReceiveCount      {rec.max_receive_count}",
    ]  # fmt: skip
    if rec.function_timeout is not None:
        lines.append(f"  function timeout     {rec.function_timeout} s")
    e = rec.expected
    lines += [
        f"  duplicates           {e.duplicate_rate:.6%}",
        f"  crash recovery p99   {e.recovery_p99:,.1f} s",
        f"  healthy to DLQ       {e.dlq_false_positive_rate:.2e}",
        "",
        ("  " if rec.met else "  TARGETS NOT MET. ") + rec.advice,
    ]
    lines += [f"  note: {n}" for n in rec.notes]
    return "\n".join(lines)


def main(argv: list[str], prog: str = "visguard recommend") -> int:
    args = parser(prog).parse_args(argv)
    from visguard.engine.recommend import plot, recommend

    if args.plot and not args.plot.lower().endswith((".png", ".svg")):
        raise VisguardError("the plot must be a .png or .svg file", file=args.plot)
    consumer, targets = consumer_and_targets(args)
    rec = recommend(consumer, targets)
    if args.plot:
        try:
            plot(args.plot, consumer, targets, rec)
        except OSError as exc:
            raise VisguardError(f"cannot write the plot: {exc.strerror or exc}", file=args.plot) from None
    if args.json:
        print(json.dumps(rec.as_dict(), indent=2))
    else:
        print(render(rec, consumer))
        if args.plot:
            print(f"\n  trade-off plot written to {args.plot}")
    return EXIT_OK if rec.met else EXIT_FINDINGS
