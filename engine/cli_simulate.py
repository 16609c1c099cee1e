"""`visguard simulate FILE [--json] [--plot PATH] [--mode exact|fast]`."""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

from visguard.engine.cli_guard import ArgumentParser, number
from visguard.errors import VisguardError, need
from visguard.neutralize import printable

# (key, label, format) of the readable table, in order
ROWS = [
    ("messages", "messages", "{:,}"),
    ("deliveries", "deliveries (receives handed to consumers)", "{:,}"),
    ("processed_more_than_once", "processed more than once", "{:,}"),
    ("duplicate_rate", "duplicate rate", "{:.3%}"),
    ("completed_more_than_once", "completed more than once (side effects twice)", "{:,}"),
    ("concurrent_duplicates", "processed by two consumers at once", "{:,}"),
    ("dlq_messages", "messages in the DLQ", "{:,}"),
    ("dlq_false_positives", "  of which healthy (false positives)", "{:,}"),
    ("max_inflight", "max in flight", "{:,}"),
    ("latency_p50", "latency p50 (send -> delete)", "{:,.1f} s"),
    ("latency_p99", "latency p99", "{:,.1f} s"),
    ("recovery_p99", "crash recovery p99 (crash -> redelivery)", "{:,.1f} s"),
    ("throttled_invokes", "throttled invokes", "{:,}"),
    ("function_timeouts", "function timeouts", "{:,}"),
    ("left_in_queue", "left in the queue at the end", "{:,}"),
    ("virtual_seconds", "virtual time simulated", "{:,.0f} s"),
    ("wall_seconds", "wall time", "{:.2f} s"),
]
FAST_ROWS = [
    ("duplicate_rate", "duplicate rate", "{:.3%}"),
    ("processed_more_than_once", "processed more than once (expected)", "{:,.0f}"),
    ("completed_more_than_once_rate", "completed more than once (rate)", "{:.3%}"),
    ("dlq_false_positive_rate", "healthy messages to the DLQ (rate)", "{:.4%}"),
    ("dlq_rate", "all messages to the DLQ (rate)", "{:.4%}"),
    ("recovery_p99", "crash recovery p99", "{:,.1f} s"),
    ("effective_timeout", "effective timeout (duplicate after)", "{:,.0f} s"),
    ("esm_ramp_seconds", "event source mapping: start to ceiling", "{:,.0f} s"),
    ("esm_burst_drain_seconds", "event source mapping: burst drained in", "{:,.0f} s"),
    ("esm_burst_latency_p99", "event source mapping: burst latency p99", "{:,.0f} s"),
]


EXAMPLES = Path(__file__).resolve().parent / "examples"  # shipped in the wheel (package data)


def example_names() -> list[str]:
    """The scenarios shipped with visguard (``--example NAME``), by file name without ``.yaml``."""
    return sorted(f.stem for f in EXAMPLES.glob("*.yaml"))


def parser(prog: str) -> argparse.ArgumentParser:
    p = ArgumentParser(
        prog=prog,
        description="Simulate a consumer fleet against an SQS queue described by a scenario (YAML or JSON; "
        "schema: engine/schemas/scenario.schema.json in the visguard package).",
    )
    p.add_argument("file", nargs="?", help="scenario document (YAML or JSON)")
    p.add_argument(
        "--example",
        nargs="?",
        const="",
        metavar="NAME",
        help="run a scenario shipped with visguard instead of a file; without NAME, list them: "
        + ", ".join(example_names()),
    )
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.add_argument("--plot", metavar="PATH", help="write a plot (PNG or SVG, by the file extension)")
    p.add_argument(
        "--mode",
        choices=["exact", "fast"],
        default="exact",
        help="exact: discrete-event simulation on the engine core (default); fast: closed-form risk model",
    )
    p.add_argument("--seed", type=number(0, 2**63 - 1, integer=True), help="override the scenario's seed")
    p.add_argument(
        "--messages",
        type=number(1, 10_000_000, integer=True),
        help="override the number of messages (1-10,000,000)",
    )
    p.add_argument("--no-progress", action="store_true", help="never draw a progress bar")
    return p


class Progress:
    """A progress bar on stderr: on a TTY once a run passes one second; elsewhere a line every 10 s."""

    def __init__(self, stream=None, enabled: bool = True):
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.t0 = time.monotonic()
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.drawn = False
        self.last_line = 0.0

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.t0
        if self.tty and elapsed > 1.0:
            frac = done / total if total else 1.0
            bar = "#" * int(frac * 30)
            self.stream.write(
                f"\rsimulating [{bar:<30}] {frac:4.0%} {done:,}/{total:,} messages, {elapsed:.0f}s"
            )
            self.stream.flush()
            self.drawn = True
        elif not self.tty and elapsed > 10.0 and elapsed - self.last_line >= 10.0:
            self.last_line = elapsed
            self.stream.write(f"simulating: {done:,}/{total:,} messages done, {elapsed:.0f}s\n")
            self.stream.flush()

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()


def fast_result(sc) -> dict:
    """The scenario through the fast risk model (visguard.engine.risk)."""
    from visguard.engine.risk import estimate

    lam = sc.lam
    conc = sc.concurrency
    if sc.is_lambda:
        caps = [lam.max_esm_concurrency, lam.max_concurrency, lam.reserved_concurrency]
        conc = min(c for c in caps if c is not None)
    r = estimate(
        sc.visibility_timeout,
        sc.profile,
        heartbeat_interval=None if sc.is_lambda else sc.heartbeat_interval,
        heartbeat_extend_by=None if sc.is_lambda else sc.heartbeat_extend_by,
        crash_before_delete=sc.crash_before_delete,
        max_receive_count=sc.max_receive_count,
        transient=sc.transient,
        poison=sc.poison,
        function_timeout=lam.timeout if sc.is_lambda else None,
        batch_size=lam.batch_size if sc.is_lambda else 1,
        batching_window=lam.batching_window if sc.is_lambda else 0.0,
        report_batch_item_failures=lam.report_batch_item_failures if sc.is_lambda else True,
        arrival_rate=sc.arrival_rate if sc.arrival != "burst" and not sc.bursts else None,
        concurrency=conc,
    )
    out = {"mode": "fast", "messages": sc.messages, **r.as_dict()}
    if sc.is_lambda and lam.reserved_concurrency is not None and r.applicable:
        floor = min(lam.initial_concurrency, lam.max_concurrency or lam.initial_concurrency)
        if lam.reserved_concurrency < max(floor, 5):
            out.update(applicable=False, reason="reserved concurrency below the event source mapping's pollers: "
                       "throttling, run the exact simulator")  # fmt: skip
    if out["applicable"]:
        out["processed_more_than_once"] = out["duplicate_rate"] * sc.messages
        if sc.is_lambda:
            out.update(_esm_scaling(sc))
    else:
        for k in list(out):
            if k not in ("mode", "messages", "applicable", "reason"):
                out[k] = None
    return out


def _esm_scaling(sc) -> dict:
    """How the event source mapping scales (visguard.engine.risk.EsmScaling): standard or provisioned mode, its
    start, ramp and ceiling, and for a burst the time to run every batch once at the profile's mean duration."""
    from visguard.engine.risk import EsmScaling

    lam = sc.lam
    esm = EsmScaling.of(lam)
    out = {
        "esm_mode": "provisioned" if lam.provisioned else "standard",
        "esm_initial_concurrency": esm.initial,
        "esm_added_per_minute": esm.added_per_minute,
        "esm_ceiling": esm.ceiling,
        "esm_ramp_seconds": esm.ramp_seconds,
    }
    if (sc.arrival == "burst" or sc.bursts) and not sc.fifo:
        batches = math.ceil(sc.messages / lam.batch_size)
        mean = float(sc.profile.mean())
        out["esm_burst_drain_seconds"] = esm.drain_seconds(batches, mean)
        out["esm_burst_latency_p99"] = esm.drain_seconds(
            batches, mean, 0.99
        )  # cf. the simulator's latency_p99
    return out


def render_table(sc, res: dict, file: str) -> str:
    title = f"visguard simulate {file}" + (f" ({sc.name})" if sc.name else "")
    ctype = "Lambda event source mapping" if sc.is_lambda else f"{sc.concurrency} workers"
    lines = [
        title,
        f"  queue: visibility {sc.visibility_timeout:g} s, "
        + ("FIFO" if sc.fifo else "standard")
        + (f", maxReceiveCount {sc.max_receive_count}" if sc.max_receive_count else ", no redrive")
        + f"; consumer: {ctype}; seed {sc.seed}; mode {res.get('mode', 'exact')}",
        "",
    ]
    if res.get("mode") == "fast":
        if not res["applicable"]:
            lines.append(f"  the fast model does not apply: {res['reason']}")
            return "\n".join(lines)
        rows = FAST_ROWS
    else:
        rows = ROWS
    width = max(len(label) for _, label, _ in rows)
    for key, label, fmt in rows:
        if key not in res:
            continue
        v = res[key]
        text = "-" if v is None or (isinstance(v, float) and math.isnan(v)) else fmt.format(v)
        lines.append(f"  {label.ljust(width)}  {text}")
    if res.get("horizon_reached"):
        lines.append("  (stopped at the simulation horizon: some messages were still in the queue)")
    return "\n".join(lines)


def plot(path: str, sc, res: dict, fleet=None) -> None:
    matplotlib = need("matplotlib", extra="plots", what="--plot")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, axes = plt.subplots(2, 1, figsize=(8, 7))
    if fleet is not None and fleet.series:
        t, vis, inf, dlq = (np.asarray(c) for c in zip(*fleet.series, strict=True))
        ax = axes[0]
        ax.plot(t, vis, label="visible")
        ax.plot(t, inf, label="in flight")
        if sc.max_receive_count:
            ax.plot(t, dlq, label="in DLQ")
        ax.set_xlabel("virtual time (s)")
        ax.set_ylabel("messages")
        ax.set_title(f"queue depth — duplicate rate {res['duplicate_rate']:.2%}")
        ax.legend()
        lat = np.asarray(
            [d - s for d, s in zip(fleet.tally.done_at, fleet.tally.sent_at, strict=True) if d >= 0]
        )
        ax = axes[1]
        if lat.size:
            lat.sort()
            ax.plot(lat, np.arange(1, lat.size + 1) / lat.size)
            ax.axvline(sc.visibility_timeout, color="grey", ls="--", label="visibility timeout")
            ax.set_xscale("log")
            ax.legend()
        ax.set_xlabel("latency, send -> delete (s)")
        ax.set_ylabel("fraction of messages")
    else:
        from visguard.engine.recommend import curve

        pts = curve(sc.profile, heartbeat=(sc.heartbeat_interval, sc.heartbeat_extend_by))
        axes[0].plot(pts["visibility_timeout"], pts["duplicate_rate"])
        axes[0].axvline(sc.visibility_timeout, color="grey", ls="--")
        axes[0].set_yscale("log")
        axes[0].set_ylabel("duplicate rate")
        axes[1].plot(pts["visibility_timeout"], pts["recovery_p99"])
        axes[1].axvline(sc.visibility_timeout, color="grey", ls="--")
        axes[1].set_ylabel("crash recovery p99 (s)")
        axes[1].set_xlabel("visibility timeout (s)")
    fig.tight_layout()
    try:
        fig.savefig(path)
    except (OSError, ValueError) as exc:
        raise VisguardError(f"cannot write the plot: {exc}", file=path) from None
    finally:
        plt.close(fig)


def list_examples() -> str:
    from visguard.engine.scenario import load

    names = example_names()
    width = max(len(n) for n in names)
    lines = ["scenarios shipped with visguard (visguard simulate --example NAME):"]
    lines += [f"  {n.ljust(width)}  {load(str(EXAMPLES / (n + '.yaml'))).name or ''}".rstrip() for n in names]
    return "\n".join(lines)


def _source(args) -> tuple[str, str] | None:
    """(path to read, name to show) of the scenario asked for; None to list the examples."""
    if args.example is None:
        if not args.file:
            raise VisguardError("give a scenario file, or --example NAME (--example alone lists them)")
        return args.file, args.file
    if args.file:
        raise VisguardError("give a scenario file or --example NAME, not both")
    if not args.example:
        return None
    if args.example not in example_names():
        raise VisguardError(
            f"no example scenario '{printable(args.example)}'; there are: {', '.join(example_names())}",
            place="--example",
        )
    return str(EXAMPLES / f"{args.example}.yaml"), f"--example {args.example}"


def main(argv: list[str], prog: str = "visguard simulate") -> int:
    args = parser(prog).parse_args(argv)
    from visguard.engine.scenario import check_limits, load

    source = _source(args)
    if source is None:
        print(list_examples())
        return 0
    file, shown = source
    sc = load(file)
    if args.seed is not None:
        sc = sc.with_changes(seed=args.seed)
    if args.messages is not None:
        sc = sc.with_changes(messages=args.messages)
        check_limits(sc, shown, messages_place="--messages")
    if args.plot and not args.plot.lower().endswith((".png", ".svg")):
        raise VisguardError("the plot must be a .png or .svg file", file=args.plot)
    if args.plot:  # before a simulation that may take minutes
        need("matplotlib", extra="plots", what="--plot")
    if args.mode == "exact":  # the base install has the fast model (--mode fast) only
        need("numpy", extra="sim", what="the exact simulator (--mode exact, the default)")
    fleet = None
    if args.mode == "fast":
        res = fast_result(sc)
    else:
        from visguard.engine.sim import build

        bar = Progress(enabled=not args.no_progress)
        span = sc.messages / sc.arrival_rate if sc.arrival_rate else 10 * sc.visibility_timeout
        fleet = build(sc, progress=bar, sample_every=max(span, 1.0) / 400 if args.plot else None)
        try:
            res = {"mode": "exact", **fleet.run()}
        finally:
            bar.close()
    if args.plot:
        plot(args.plot, sc, res, fleet)
    if args.json:
        print(json.dumps(res, indent=2, sort_keys=False))
    else:
        print(render_table(sc, res, shown))
        if args.plot:
            print(f"\nplot written to {args.plot}")
    return 0
