"""The fleet audit on Spark (``visguard audit run --inventory DIR --out DIR [--master URL | --remote sc://...]``).

The job in four modules: ``session`` (the Spark session, its class-data sharing cache, shipping visguard's code
to executors), ``tables`` (explicit schemas), ``transforms`` (read, parse, de-duplicate, join, lint) and
``summary``; this one runs them (:func:`run`) and is the command line (:func:`main`). Outputs: findings as
Parquet partitioned by account and region, the quarantine and per-queue figures as Parquet, ``summary.json``
and ``report.html``.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import time
from pathlib import Path

from visguard.audit.session import archive_of, cache_dir, spark_session, stop_session
from visguard.audit.summary import config_summary, summarize
from visguard.audit.tables import (
    CONSUMER_FIELDS,
    QUEUE_COLUMNS,
    SEVERITIES,
    figure_schema,
    finding_schema,
    out_schema,
    record_schema,
)
from visguard.audit.transforms import (
    PACKED_SCHEMA,
    attach_owners,
    drop_duplicates,
    duplicate_counts,
    join_queues,
    load,
    packed,
    parse_records,
    queue_owners,
    redrive_loops,
    remote,
    unpack,
)
from visguard.errors import VisguardError
from visguard.neutralize import printable

__all__ = [
    "CONSUMER_FIELDS",
    "QUEUE_COLUMNS",
    "SEVERITIES",
    "cache_dir",
    "exit_code",
    "figure_schema",
    "finding_schema",
    "main",
    "out_schema",
    "record_schema",
    "run",
    "spark_session",
    "stop_session",
]


DEFAULT_OWNER_TAGS = ("owner", "team")


def run(
    spark,
    inventory: str,
    out: str,
    report_dir: str | None = None,
    *,
    overwrite: bool = False,
    config=None,
    owner_tags: tuple[str, ...] = DEFAULT_OWNER_TAGS,
    baseline=None,
    progress=None,
    sources=None,
    patches=None,
    owners=None,
) -> dict:
    """The whole audit; returns the summary. Parquet goes to ``out`` (local or any Hadoop path);
    ``summary.json`` and ``report.html`` to the local ``report_dir`` (default: ``out``).

    A local ``out`` must be new, empty, or a previous result (``overwrite``: its entries are replaced, nothing
    else in it is touched; ``outdir.py``). A remote ``out`` must not hold findings/queues/quarantine yet,
    unless ``overwrite``. ``config``: a visguard.yaml's ``LintConfig`` (``visguard.linter.loaders.load_config``),
    applied to every queue as ``visguard lint`` applies it; ``owner_tags``: the tags that name a finding's owner.
    ``baseline``: a previous result (a path, or ``baseline.read``'s Baseline), read in full before anything is
    removed or written, and refused inside ``out`` or ``report_dir``. ``progress``: called with one line per
    phase done (what it did, with counts, and its seconds). ``sources``: source folders to join the deployed
    queues to (``visguard.audit.declared``: drift, a source location per finding, ``sarif/`` per repository);
    ``patches``: a folder for their fix plans (``visguard.audit.patches``); ``owners``: owner rows (a DataFrame or
    dicts) instead of the inventory's ``owner`` records.
    """
    from pyspark.sql import functions as F
    from visguard.audit import outdir

    t0 = time.perf_counter()
    phases: dict[str, float] = {}

    def mark(name: str, done: str | None = None, t: list = [t0]) -> None:  # noqa: B006 - a cell: previous mark
        now = time.perf_counter()
        phases[name] = round(now - t[0], 2)
        t[0] = now
        if progress is not None and done:
            progress(f"{done} ({phases[name]:.1f} s)")

    out = str(out).rstrip("/") or "/"
    local = Path(report_dir or out)
    folders = {} if remote(out) else {Path(out): "--out"}
    folders.setdefault(local, "--report-dir")
    if baseline is not None:  # read and checked in full before anything is removed or written
        from visguard.audit import baseline as bl

        bl.refuse_inside(baseline, folders)
        baseline = bl.read(baseline)
    if sources:  # nothing is ever written into a source folder (checked before anything is written)
        from visguard.audit import sources as src

        src.refuse_inside({**folders, **({Path(patches): "--patches"} if patches else {})}, sources)
        if patches:
            from visguard.audit import patches as pt

            pt.check_folder(patches, sources)
    foreign = {f: outdir.prepare(f, overwrite, place) for f, place in folders.items()}
    for f, theirs in foreign.items():
        outdir.write_marker(f, theirs, complete=False)
    # a local folder was emptied of the previous result above: refuse to write over anything found there now
    mode = "overwrite" if remote(out) and overwrite else "error"  # ("error": classic and Connect)
    # the one cache of the input: narrow typed rows, parsed once (joins, quarantine and summary read it)
    from visguard.audit.wording import IAC_TAG_KEYS

    tag_keys = (*owner_tags, *IAC_TAG_KEYS, *_suppression_tags(config))
    cached = records = parse_records(load(spark, inventory, tag_keys)).cache()
    duplicates = duplicate_counts(records)  # (fills the cache)
    if duplicates:
        records = drop_duplicates(records)
    mark("read", progress and f"read the inventory: {cached.count():,} records")

    loops = redrive_loops(records, config)
    joined = join_queues(records)
    lint = functools.partial(packed, extra=loops or None, config=config, owner_tags=tuple(owner_tags))
    # every finding and figure comes to the driver (Parquet, CSV, OCSF, report, summary) packed as Arrow IPC
    findings, figures, orphans = unpack(
        joined.select(*QUEUE_COLUMNS).mapInArrow(lint, PACKED_SCHEMA).toArrow()
    )
    figures = attach_owners(figures, queue_owners(records))  # who deployed each queue (issue 39 §1)
    mark(
        "join_lint",
        progress and f"joined and linted: {figures.num_rows:,} queues, {findings.num_rows:,} findings",
    )

    sourced = None
    if sources:  # the declarations of the deployed queues: drift (VG085) and a source location per finding
        from visguard.audit import declared

        findings, sourced = declared.run(
            spark, records, findings, sources, owners=owners, patches=bool(patches),
            config=config, owner_tags=tuple(owner_tags), placement_out=f"{out}/placement", mode=mode,
        )  # fmt: skip
        mark("sources", progress and f"linted {len(sourced.roots)} source folders and joined them")

    from visguard.audit import outputs  # findings.csv, findings.ocsf.json, baseline-diff.csv, report.html

    if remote(out):
        # one task per account/region writes its whole folder: one file each instead of one per task and folder
        schema = finding_schema() if sourced is None else declared.finding_schema_with_sources()
        spark.createDataFrame(findings, schema).repartition("account", "region").write.mode(mode).partitionBy(
            "account", "region"
        ).parquet(f"{out}/findings")
    else:
        outputs.write_findings(findings, f"{out}/findings")
    mark("write_findings", progress and f"wrote findings/: {findings.num_rows:,} findings")
    # every text column valid UTF-8 (a corrupt line's bytes are kept as Spark read them, and Arrow readers
    # refuse invalid UTF-8): each bad byte becomes U+FFFD
    quarantine = records.where(F.col("reason").isNotNull() | F.col("corrupt").isNotNull()).select(
        F.when(F.col("corrupt").isNull(), F.lit("queue"))
        .otherwise(F.make_valid_utf8(F.coalesce(F.col("kind"), F.lit("?"))))
        .alias("kind"),
        F.make_valid_utf8("account").alias("account"),
        F.make_valid_utf8("region").alias("region"),
        F.make_valid_utf8("arn").alias("arn"),
        F.make_valid_utf8("_file").alias("file"),
        F.make_valid_utf8(
            F.coalesce("reason", F.concat(F.lit("not an inventory record: "), F.col("corrupt")))
        ).alias("reason"),
    )
    quarantine.write.mode(mode).parquet(f"{out}/quarantine")
    mark("write_quarantine")
    if remote(out):
        spark.createDataFrame(figures, figure_schema()).write.mode(mode).parquet(f"{out}/queues")
    else:
        outputs.write_figures(figures, f"{out}/queues")
    mark("write_queues", progress and "wrote quarantine/ and queues/")

    summary = summarize(records, quarantine, findings, figures, orphans)
    summary["duplicate_records"] = dict(sorted(duplicates.items()))
    summary["config"] = config_summary(config)
    summary["owner_tags"] = list(owner_tags)
    mark("summary", progress and "summarised")
    summary["seconds"] = round(time.perf_counter() - t0, 2)
    summary["phase_seconds"] = phases
    rates = outputs.queue_rates(figures)
    if sourced is not None:
        summary["sources"] = sourced.summary
    summary.update(
        outputs.write_outputs(
            local,
            findings,
            summary,
            baseline=baseline,
            rates=rates,
            owner_tag=owner_tags,
            disabled=config.disabled if config is not None else (),
        )
    )
    if sourced is not None:
        declared.write_files(local, findings, sourced, patches, summary)
    (local / "summary.json").write_text(
        json.dumps(summary, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    if progress is not None:
        progress(f"wrote summary.json, report.html, findings.csv and findings.ocsf.json in {local}")
    cached.unpersist()
    for f, theirs in foreign.items():
        outdir.write_marker(f, theirs, complete=True)
    return summary


def _suppression_tags(config) -> tuple[str, ...]:
    if config is None:
        return ()
    return tuple(k for w in config.suppression_where.values() for k in (w.get("tags") or {}))


def main(argv: list[str], prog: str, default_master: str | None = "local[*]") -> int:
    from visguard.audit.cli import ArgumentParser

    ap = ArgumentParser(prog=prog, description="Audit a fleet inventory on Spark.")
    ap.add_argument(
        "--inventory", required=True, help="inventory directory (local, or s3://... on a cluster)"
    )
    ap.add_argument(
        "--out",
        required=True,
        help="output: findings/, quarantine/, queues/ (Parquet), summary.json, report.html",
    )
    ap.add_argument("--report-dir", help="local directory for summary.json and report.html (default: --out)")
    ap.add_argument(
        "--master",
        default=default_master,
        help=f"Spark master URL (default {default_master or 'from spark-submit'})",
    )
    ap.add_argument(
        "--remote",
        metavar="sc://HOST:PORT",
        help="run on a Spark Connect server instead (visguard's code goes to it as an artifact)",
    )
    ap.add_argument(
        "--conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Spark setting for this run (repeatable), e.g. --conf spark.sql.shuffle.partitions=64",
    )
    ap.add_argument(
        "--overwrite",
        action="store_true",
        help="replace a previous audit result in --out (only what that audit wrote is removed)",
    )
    ap.add_argument(
        "--config",
        metavar="visguard.yaml",
        help="the same file as visguard lint's: rule settings, severity overrides, suppressions (by queue "
        "ARN/name glob, account, tags), consumer profiles",
    )
    ap.add_argument(
        "--fail-on",
        choices=("error", "warning", "info", "never"),
        default="error",
        help="lowest severity that makes the exit code 2, as in visguard lint (default: error; a fleet "
        "always has warnings)",
    )
    ap.add_argument(
        "--owner-tag",
        action="append",
        metavar="KEY",
        help="tag naming the team that owns a queue (repeatable, first present wins; default: owner, team)",
    )
    ap.add_argument(
        "--baseline",
        metavar="PREVIOUS_RESULT",
        help="a previous result (its --out or report folder): new, resolved and unchanged findings",
    )
    ap.add_argument(
        "--sources",
        nargs="+",
        metavar="DIR",
        help="checkouts of the infrastructure repositories (read-only): each deployed queue joined to its "
        "declaration, drift (VG085), a source location per finding, sarif/<repository>.sarif",
    )
    ap.add_argument(
        "--patches",
        metavar="DIR",
        help="with --sources: write each repository's fix plan (what visguard lint --diff prints) as a diff "
        "into this new folder, never applied",
    )
    args = ap.parse_args(argv)
    if args.patches and not args.sources:
        raise VisguardError("--patches needs --sources", place="--patches")
    if args.sources:  # checked before Spark starts: folders, and no output inside one
        from visguard.audit import sources as src

        for d in args.sources:
            if not Path(d).is_dir():
                raise VisguardError("source folder not found", file=printable(d), place="--sources")
        outs = {} if remote(args.out) else {Path(args.out): "--out"}
        if args.report_dir:
            outs[Path(args.report_dir)] = "--report-dir"
        if args.patches:
            outs[Path(args.patches)] = "--patches"
        src.refuse_inside(outs, args.sources)
        if args.patches:
            from visguard.audit import patches as pt

            pt.check_folder(args.patches, args.sources)
    previous = None
    if args.baseline:  # checked and read in full before any folder is touched or Spark starts
        from visguard.audit import baseline as bl

        written = {} if remote(args.out) else {Path(args.out): "--out"}
        if args.report_dir:
            written.setdefault(Path(args.report_dir), "--report-dir")
        bl.refuse_inside(args.baseline, written)
        previous = bl.read(args.baseline)
    config = None
    if args.config:
        from visguard.linter.loaders import load_config

        config = load_config(args.config)  # VisguardError: one line, exit 1
    owner_tags = tuple(dict.fromkeys(t for t in (args.owner_tag or DEFAULT_OWNER_TAGS) if t.strip()))
    extra = {}
    for i, kv in enumerate(args.conf, 1):
        key, sep, value = kv.partition("=")
        if not sep or not key.strip():
            raise VisguardError(f"expected KEY=VALUE, got {kv!r}", place=f"--conf #{i}")
        extra[key.strip()] = value
    if not remote(args.inventory) and not Path(args.inventory).is_dir():
        raise VisguardError("inventory directory not found", file=printable(args.inventory))
    if remote(args.out) and not args.report_dir:
        raise VisguardError(
            "--out is not a local path: give --report-dir for summary.json and report.html", place="--out"
        )
    from visguard.audit import outdir

    if not remote(args.out):
        outdir.prepare(args.out, args.overwrite, check_only=True)
    if args.report_dir and args.report_dir != args.out:
        outdir.prepare(args.report_dir, args.overwrite, "--report-dir", check_only=True)
    import warnings

    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
    if args.remote and not args.remote.startswith("sc://"):
        raise VisguardError(f"expected sc://HOST:PORT, got {args.remote!r}", place="--remote")
    progress = _progress(prog)
    if progress:
        progress(f"starting Spark ({printable(args.remote or args.master or 'spark-submit')})")
    spark = spark_session(args.master, extra=extra, class_archive=True, remote=args.remote)
    if not args.remote:
        spark.sparkContext.setLogLevel("ERROR")
    s = run(
        spark,
        args.inventory,
        args.out,
        args.report_dir,
        overwrite=args.overwrite,
        config=config,
        owner_tags=owner_tags,
        baseline=previous,
        progress=progress,
        sources=args.sources,
        patches=args.patches,
    )
    for f in (s.get("config") or {}).get("findings", []):
        print(
            f"{prog}: {printable(config.source_file)}:{printable(f['place'])}: {f['severity']} {f['rule']} "
            f"{printable(f['message'])}",
            file=sys.stderr,
        )
    for line in (s.get("sources") or {}).get("errors", []):  # a source input that could not be linted
        print(f"{prog}: --sources: {line}", file=sys.stderr)
    print(console_line(s, printable(args.out)), file=sys.stderr)
    archive = archive_of(spark)
    if archive.writing:
        print(
            f"visguard: saving the Spark JVM's class archive for faster starts (first run only, about 20 s; "
            f"VISGUARD_SPARK_CDS=0 turns it off; 'visguard audit cache --clear' removes it) -> {archive.final}",
            file=sys.stderr,
        )
    stop_session(spark)
    return exit_code(s, args.fail_on)


def console_line(s: dict, out: str) -> str:
    """The run's one summary line: open findings by severity, suppressed ones, and with a baseline what changed
    since (new, resolved, suppressed since then: a suppression is not a fix)."""
    base = s.get("baseline")
    since = ""
    if base:
        since = (
            f"; since the baseline: {base['new']:,} new, {base['resolved']:,} resolved, "
            f"{base.get('suppressed_since_baseline', 0):,} suppressed"
        )
    return (
        f"audited {s['queues']:,} queues in {s['accounts']} accounts: {s['findings']:,} findings "
        f"({', '.join(f'{k} {v:,}' for k, v in s['findings_by_severity'].items())}), "
        f"{s.get('suppressed', 0):,} suppressed{since}; "
        f"{s['errors']} collector errors, {s['quarantined']} quarantined, {s['seconds']} s -> {out}"
    )


def _progress(prog: str):
    """One line per phase on a terminal (stderr is a TTY); nothing in a pipe or a CI log, where the summary line
    at the end says it all. ``VISGUARD_PROGRESS=1`` / ``=0`` forces it on or off."""
    forced = os.environ.get("VISGUARD_PROGRESS")
    on = forced not in ("0", "", None) if forced is not None else sys.stderr.isatty()
    if not on:
        return None
    start = time.perf_counter()

    def say(line: str) -> None:
        print(
            f"{prog}: [{time.perf_counter() - start:5.0f} s] {printable(line)}", file=sys.stderr, flush=True
        )

    return say


def exit_code(summary: dict, fail_on: str) -> int:
    """visguard lint's exit codes: 2 when a finding (or a finding about the config itself) is at or above
    ``fail_on``, else 0."""
    from visguard.errors import EXIT_FINDINGS, EXIT_OK

    if fail_on == "never":
        return EXIT_OK
    order = {"info": 1, "warning": 2, "error": 3}
    sev = dict(summary["findings_by_severity"])
    for f in (summary.get("config") or {}).get("findings", []):
        sev[f["severity"]] = sev.get(f["severity"], 0) + 1
    failing = any(n > 0 and order[k] >= order[fail_on] for k, n in sev.items())
    return EXIT_FINDINGS if failing else EXIT_OK


if (
    __name__ == "__main__"
):  # spark-submit .../visguard/audit/job.py --inventory s3://... (master from spark-submit)
    sys.exit(main(sys.argv[1:], "job.py", default_master=None))
