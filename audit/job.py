"""The fleet audit on Spark (``visguard audit run --inventory DIR --out DIR [--master URL]``).

Stages (each a DataFrame with an explicit schema):

1. read every ``<account>/<region>.jsonl`` with ``RECORD_SCHEMA`` (PERMISSIVE: a line that is not a JSON
   object of that shape keeps its raw text in ``_corrupt`` and goes to quarantine);
2. parse queue attributes (strings, as GetQueueAttributes returns them) into typed columns; a queue whose
   VisibilityTimeout is missing or not a number, whose RedrivePolicy is not a JSON object, ... goes to the
   quarantine table with the reason: counted, never dropped;
3. join by ARN, across accounts: mapping -> function (exact ARN first, then the unqualified ARN for alias- or
   version-qualified ones), mappings -> the queue they read (``EventSourceArn``; the mapping lives in the
   function's account), queue -> DLQ -> the DLQ's DLQ;
4. ``mapInArrow``: each Arrow record batch of joined queues goes (as Python dicts, no pandas) through
   ``build.lint_rows``, i.e. the linter's ``lint_model`` on the row's own queue (the same rule code as every
   other door) and ``engine.risk.estimate_many`` once per batch;
5. write findings as Parquet partitioned by account and region, the quarantine as Parquet, ``summary.json``
   and ``report.html``.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from visguard.errors import VisguardError

SEVERITIES = ("error", "warning", "info")

# A mapping's own settings, in the order every projection of them uses.
MAPPING_SETTINGS = (
    "function_arn",
    "state",
    "batch_size",
    "batching_window",
    "maximum_concurrency",
    "function_response_types",
)
# Field lists shared with build.py (the dict keys of a joined queue row).
CONSUMER_FIELDS = (
    "uuid",
    *MAPPING_SETTINGS,
    "function_found",
    "timeout",
    "reserved_concurrency",
    "duration_p50",
    "duration_p99",
)


# The queue attributes the audit reads (GetQueueAttributes returns every attribute as a string; the others are
# skipped by the JSON parser instead of being built into a map).
QUEUE_ATTRIBUTES = (
    "VisibilityTimeout",
    "MessageRetentionPeriod",
    "DelaySeconds",
    "FifoQueue",
    "RedrivePolicy",
)


def record_schema():
    """The fields of an inventory record that the audit reads (the published JSON Schema has a few more, e.g. a
    queue's ``url`` and ``dlq_sources``: the parser skips what is not named here)."""
    from pyspark.sql import types as T
    from visguard.audit.build import TAG_KEYS

    s, d, i = T.StringType(), T.DoubleType(), T.LongType()
    return T.StructType(
        [
            T.StructField("kind", s),
            T.StructField("account", s),
            T.StructField("region", s),
            # queue
            T.StructField("arn", s),
            T.StructField("name", s),
            T.StructField("attributes", T.StructType([T.StructField(a, s) for a in QUEUE_ATTRIBUTES])),
            # only the visguard:* tags the audit reads (build.TAG_KEYS), not a map of every tag
            T.StructField("tags", T.StructType([T.StructField(k, s) for k in TAG_KEYS])),
            T.StructField("metrics", T.StructType([T.StructField("received", d)])),
            # mapping
            T.StructField("uuid", s),
            T.StructField("event_source_arn", s),
            T.StructField("function_arn", s),
            T.StructField("state", s),
            T.StructField("batch_size", i),
            T.StructField("batching_window", d),
            T.StructField("maximum_concurrency", i),
            T.StructField("function_response_types", T.ArrayType(s)),
            # function
            T.StructField("timeout", d),
            T.StructField("reserved_concurrency", i),
            T.StructField("duration_p50", d),
            T.StructField("duration_p99", d),
            # error
            T.StructField("operation", s),
            T.StructField("code", s),
            T.StructField("message", s),
            # partition
            T.StructField("errors", i),
            T.StructField("_corrupt", s),
        ]
    )


def finding_schema():
    from pyspark.sql import types as T

    s = T.StringType()
    return T.StructType(
        [
            T.StructField(n, s)
            for n in (
                "account",
                "region",
                "queue_arn",
                "queue_name",
                "rule",
                "severity",
                "message",
                "consumer",
                "fix",
                "estimate",
            )
        ]
    )


def figure_schema():
    from pyspark.sql import types as T

    s, d, i = T.StringType(), T.DoubleType(), T.LongType()
    return T.StructType(
        [
            T.StructField("account", s),
            T.StructField("region", s),
            T.StructField("arn", s),
            T.StructField("name", s),
            T.StructField("vt", d),
            T.StructField("required_vt", d),
            T.StructField("ratio", d),
            T.StructField("consumer_kinds", s),
            T.StructField("findings", i),
            T.StructField("worst", s),
            T.StructField("duplicate_rate", d),
        ]
    )


# One output schema for mapInArrow: a row is a finding (kind "f"), a queue's figures (kind "q") or a count of
# orphan mappings (kind "o").
def _out_schema():
    from pyspark.sql import types as T

    fields = [T.StructField("row_kind", T.StringType())]
    seen = {"row_kind"}
    for f in list(finding_schema().fields) + list(figure_schema().fields):
        if f.name not in seen:
            fields.append(f)
            seen.add(f.name)
    # kind "o": mappings of one event source ARN that is not a (well-formed) queue of the inventory
    fields.append(T.StructField("orphans", T.LongType()))
    return T.StructType(fields)


def _lint_batches(batches, extra=None):
    """mapInArrow body: runs on the executors, one Arrow record batch of joined queue rows at a time.

    Arrow straight to Python dicts and back (``to_pylist`` / ``from_pylist``) rather than through pandas: the
    two pandas conversions cost about as much CPU per queue as the rules themselves."""
    import gc

    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema
    from visguard.audit.build import lint_rows

    # This worker allocates millions of short-lived dicts and dataclasses and keeps none: fewer young-generation
    # collections, and none of them re-scanning the modules imported above (gc.freeze).
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)
    schema = to_arrow_schema(_out_schema())
    for batch in batches:
        rows = batch.to_pylist()
        queues = [r for r in rows if r["arn"] is not None]
        # the full outer join with the mappings brings the mappings of no known queue as rows without a queue
        orphans = sum(len(r["consumers"] or ()) for r in rows if r["arn"] is None)
        findings, figures = lint_rows(queues, extra=extra)
        out = [{"row_kind": "f", **f} for f in findings] + [{"row_kind": "q", **g} for g in figures]
        if orphans:
            out.append({"row_kind": "o", "orphans": orphans})
        yield pa.RecordBatch.from_pylist(out, schema=schema)


def spark_session(
    master: str | None = "local[*]",
    app: str = "visguard-audit",
    extra: dict | None = None,
    class_archive: bool = False,
):
    """A Spark session for the audit. ``class_archive`` (local masters only): start the JVM from a class-data
    sharing archive of the classes Spark loads, kept in the cache directory; without one, this session's JVM
    writes it when it exits (see :func:`stop_session`)."""
    from pyspark.sql import SparkSession

    local = bool(master and master.startswith("local"))
    if local:
        # Local workers must run this interpreter (the one with visguard installed), not the first python3.
        # On a cluster, spark-submit's --archives/--conf spark.pyspark.python decide (README).
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    builder = SparkSession.builder.appName(app)
    if master:  # None under spark-submit: its --master wins
        builder = builder.master(master)
    builder = (
        builder.config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "8")
        .config("spark.driver.memory", os.environ.get("VISGUARD_SPARK_DRIVER_MEMORY", "4g"))
        # the inventory glob names one file per account and region: list them on the driver (milliseconds)
        # rather than in a Spark job of one task per file
        .config("spark.sql.sources.parallelPartitionDiscovery.threshold", "100000")
    )
    _ARCHIVE.clear()
    if local:
        # The local JVM is the driver and the executor, and lives for a minute or two: a third or more of its
        # CPU goes to the JIT compilers. The parallel collector's simpler write barriers give the JIT less code
        # than G1's, 5x the default compile thresholds leaves the lukewarm code interpreted, and shallower C2
        # inlining makes each compilation cheaper (benchmarks/RESULTS.md). A cluster's own settings apply there.
        java = os.environ.get("VISGUARD_SPARK_JAVA_OPTIONS", LOCAL_JAVA_OPTIONS)
        # (not when the caller sets the JVM options itself through ``extra``: those replace these)
        own = "spark.driver.extraJavaOptions" in (extra or {})
        archive = _class_archive_options(java) if class_archive and not own else ""
        builder = builder.config("spark.driver.extraJavaOptions", f"{java} {archive}".strip())
        # Adaptive execution re-plans the query after every shuffle stage; on two local cores that planning
        # (and the code it generates and compiles) costs more than it saves: the plan is the same at 20k and
        # 1M queues (join keys without skew, 8 shuffle partitions). A cluster keeps its own setting.
        builder = builder.config("spark.sql.adaptive.enabled", "false")
    for k, v in (extra or {}).items():
        builder = builder.config(k, v)
    try:
        return builder.getOrCreate()
    except Exception:
        used = _ARCHIVE.pop("used", None)
        if used is None or os.environ.get("VISGUARD_SPARK_CDS") == "require":
            raise
        # an archive this JVM cannot map (truncated, or from another build of the JDK at the same path) makes
        # it exit at start: drop the archive and start without one (the next run writes a new one)
        used.unlink(missing_ok=True)
        return builder.config("spark.driver.extraJavaOptions", java).getOrCreate()


LOCAL_JAVA_OPTIONS = (
    "-XX:+UseParallelGC -XX:CompileThresholdScaling=5 -XX:MaxInlineLevel=9 -XX:FreqInlineSize=150 "
    "-XX:InlineSmallCode=1000"
)
KEEP_ARCHIVES = 3
# The class archive of this process's JVM: {"used": path} or, while the JVM writes one, {"tmp": .., "final": ..}
_ARCHIVE: dict[str, Path] = {}


def cache_dir() -> Path:
    """Where visguard keeps files worth keeping between runs (``VISGUARD_CACHE_DIR``, else the XDG cache)."""
    env = os.environ.get("VISGUARD_CACHE_DIR")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "visguard"


def _class_archive_options(java_options: str) -> str:
    """JVM options to start from a dynamic class-data sharing archive (JEP 350) of the classes Spark loads.

    Loading and verifying ~20,000 classes from Spark's jars costs a short-lived local JVM 3-6 s of CPU on every
    run; mapped from an archive they cost almost nothing. The archive is specific to the JVM, the jars (and
    where they are) and the options, so its name carries a hash of them. Without an archive, the JVM writes
    one to a temporary name when it exits and :func:`stop_session` moves it into place. A JVM that cannot map
    an archive (damaged, or from another JDK build at the same path) exits at start: :func:`spark_session`
    then drops it and starts without. ``VISGUARD_SPARK_CDS=0`` turns all this off; ``=require`` makes a JVM
    that cannot map an existing archive fail instead."""
    if os.environ.get("VISGUARD_SPARK_CDS", "1") in ("0", "false", "no", "off"):
        return ""
    import hashlib
    import shutil

    import pyspark

    java = Path(
        os.path.realpath(
            Path(os.environ["JAVA_HOME"]) / "bin" / "java"
            if os.environ.get("JAVA_HOME")
            else shutil.which("java") or "java"
        )
    )
    # the JVM binary's size and time too: a JDK updated in place keeps its path
    st = java.stat() if java.is_file() else None
    jvm = [str(java), *((str(st.st_size), str(int(st.st_mtime))) if st else ())]
    jars = Path(pyspark.__file__).parent / "jars"
    listing = sorted(f"{p.name}:{p.stat().st_size}" for p in jars.glob("*.jar")) if jars.is_dir() else []
    # the jars' directory too: the JVM checks that its class path is the one the archive was written with
    text = "\n".join([*jvm, pyspark.__version__, str(jars), java_options, *listing])
    key = hashlib.sha256(text.encode()).hexdigest()[:16]
    folder = cache_dir()
    if any(ch.isspace() or ch in "'\"" for ch in str(folder)):
        return ""  # Spark splits extraJavaOptions on whitespace: no archive rather than a broken option
    final = folder / f"spark-classes-{key}.jsa"
    # cds logging off: the JVM would print a warning per class it cannot archive (signed jars, old bytecode);
    # a JVM that crashes on a damaged archive writes its report here, not into the working directory
    quiet = f"-Xlog:cds=off -Xlog:cds+dynamic=off -XX:ErrorFile={folder / 'jvm-error-%p.log'}"
    if final.is_file():
        _ARCHIVE["used"] = final
        # "require": fail to start rather than run without the archive (to check that it is used)
        strict = " -Xshare:on" if os.environ.get("VISGUARD_SPARK_CDS") == "require" else ""
        return f"-XX:SharedArchiveFile={final} {quiet}{strict}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return ""  # a read-only home: run without an archive
    for stale in folder.glob(".spark-classes-*.tmp"):  # left by a JVM killed while writing (an hour is ample)
        try:
            if time.time() - stale.stat().st_mtime > 3600:
                stale.unlink()
        except OSError:
            pass
    tmp = folder / f".spark-classes-{key}.{os.getpid()}.tmp"
    _ARCHIVE.update(tmp=tmp, final=final)
    return f"-XX:ArchiveClassesAtExit={tmp} {quiet}"


def stop_session(spark, timeout: float = 120.0) -> None:
    """Stop the session; when its JVM is writing a class archive, wait for the JVM to exit (it writes the
    archive then, in about 20 s) and move the archive into place, atomically."""
    gateway = spark.sparkContext._gateway
    spark.stop()
    if "tmp" not in _ARCHIVE:
        return
    tmp, final = _ARCHIVE.pop("tmp"), _ARCHIVE.pop("final")
    proc = getattr(gateway, "proc", None)
    try:
        if proc is not None and proc.stdin is not None:
            proc.stdin.close()  # the gateway JVM exits on EOF of its stdin
            proc.wait(timeout)
        if proc is not None and proc.returncode == 0 and tmp.is_file() and tmp.stat().st_size > 0:
            os.replace(tmp, final)
            # ~190 MB each: keep the newest few (a user with several environments or Spark versions)
            archives = sorted(final.parent.glob("spark-classes-*.jsa"), key=lambda p: p.stat().st_mtime)
            for old in archives[:-KEEP_ARCHIVES]:
                old.unlink(missing_ok=True)
    except (OSError, subprocess.TimeoutExpired):
        pass  # no archive this time; the next run tries again
    finally:
        tmp.unlink(missing_ok=True)


def load(spark, inventory: str):
    """All inventory records as one DataFrame (explicit schema)."""
    from visguard.audit import inventory as inv

    if not _remote(inventory) and not inv.partition_files(inventory):
        raise VisguardError("no <account>/<region>.jsonl files found", file=inventory)
    # One glob rather than a list of files: no file-listing job; names starting with "." (a killed
    # collector's temporary files) are skipped by Spark as hidden files.
    return (
        spark.read.schema(record_schema())
        .option("mode", "PERMISSIVE")
        .option("columnNameOfCorruptRecord", "_corrupt")
        .json(f"{inventory.rstrip('/')}/*/*{inv.SUFFIX}")
    )


KINDS = ("queue", "mapping", "function", "error", "partition")


def parse_records(raw):
    """One narrow, typed row per record: the record's own fields, a queue's attributes parsed into typed
    columns, ``reason`` (non-null for a queue that goes to quarantine), ``corrupt`` (a line that is not an
    inventory record) and ``_file`` (only on those two kinds of row: the quarantine table names the file)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    a = F.col("attributes")
    rp_schema = T.StructType(
        [
            T.StructField("deadLetterTargetArn", T.StringType()),
            T.StructField("maxReceiveCount", T.StringType()),
        ]
    )
    ok = F.col("_corrupt").isNull()
    is_queue = ok & (F.col("kind") == "queue")
    corrupt = ~ok | F.col("kind").isNull() | ~F.col("kind").isin(*KINDS)
    q = raw.select(
        "*",
        a["VisibilityTimeout"].alias("vt_raw"),
        a["MessageRetentionPeriod"].alias("retention_raw"),
        a["RedrivePolicy"].alias("rp_raw"),
    )
    # A JSON object with the two documented keys (RedrivePolicy is a JSON string: SetQueueAttributes API).
    rp_ok = F.col("rp_raw").rlike(r"^\s*\{.*\}\s*$")
    q = q.withColumn("rp", F.when(is_queue & rp_ok, F.from_json("rp_raw", rp_schema, {"mode": "PERMISSIVE"})))
    num = r"^\s*-?[0-9]+(\.[0-9]+)?\s*$"
    reason = (
        F.when(F.col("arn").isNull(), F.lit("queue record without arn"))
        .when(
            F.col("account").isNull() | F.col("region").isNull(),
            F.lit("queue record without account or region"),
        )
        .when(F.col("vt_raw").isNull(), F.lit("attribute VisibilityTimeout is missing"))
        .when(
            ~F.col("vt_raw").rlike(num),
            F.concat(F.lit("VisibilityTimeout is not a number: "), F.col("vt_raw")),
        )
        .when(
            F.col("retention_raw").isNotNull() & ~F.col("retention_raw").rlike(num),
            F.concat(F.lit("MessageRetentionPeriod is not a number: "), F.col("retention_raw")),
        )
        .when(
            F.col("rp_raw").isNotNull() & (~rp_ok | F.col("rp").isNull()),
            F.concat(F.lit("RedrivePolicy is not a JSON object: "), F.substring("rp_raw", 1, 80)),
        )
        .when(
            F.col("rp.maxReceiveCount").isNotNull() & ~F.col("rp.maxReceiveCount").rlike(num),
            F.concat(F.lit("RedrivePolicy maxReceiveCount is not a number: "), F.col("rp.maxReceiveCount")),
        )
    )
    reason = F.when(is_queue, reason)
    return q.select(
        "kind",
        "account",
        "region",
        "arn",
        "name",
        "tags",
        F.col("metrics.received").alias("received"),
        reason.alias("reason"),
        F.col("vt_raw").try_cast("double").alias("vt"),
        F.col("retention_raw").try_cast("double").alias("retention"),
        a["DelaySeconds"].try_cast("double").alias("delay"),
        # a case-insensitive regex rather than lower(): Spark 4's lower() initialises ICU case mapping tables
        # on first use (about a second of CPU)
        F.coalesce(a["FifoQueue"], F.lit("false")).rlike(r"(?i)^true$").alias("fifo"),
        F.col("rp_raw").isNotNull().alias("has_redrive"),
        F.col("rp.deadLetterTargetArn").alias("target_arn"),
        F.col("rp.maxReceiveCount").try_cast("double").alias("max_receive_count"),
        "uuid",
        "event_source_arn",
        *MAPPING_SETTINGS,
        "timeout",
        "reserved_concurrency",
        "duration_p50",
        "duration_p99",
        "operation",
        "code",
        "message",
        "errors",
        ok.alias("json_ok"),
        F.when(corrupt, F.substring(F.coalesce("_corrupt", F.lit("kind missing or unknown")), 1, 120)).alias(
            "corrupt"
        ),
        F.when(corrupt | reason.isNotNull(), F.input_file_name()).alias("_file"),
    )


def _arn_part(col, idx: int):
    from pyspark.sql import functions as F

    return F.split(col, ":").getItem(idx)


def good_queues(records):
    """The queues of :func:`parse_records`' output that are not quarantined (``reason`` is set for a queue
    without an ARN, too)."""
    from pyspark.sql import functions as F

    return records.where(F.col("corrupt").isNull() & (F.col("kind") == "queue") & F.col("reason").isNull())


def join_queues(records):
    """Queues with their consumers (mapping + function), DLQ and DLQ's DLQ, joined by ARN across accounts.

    ``records`` is :func:`parse_records`' output. The mappings are joined with a full outer join: the
    mappings of an ARN that is no (well-formed) queue of the inventory come out as rows without ``arn``
    (orphans, counted in the same pass instead of by a join of their own)."""
    from pyspark.sql import functions as F

    records = records.where(F.col("corrupt").isNull())
    # only the columns the model needs travel through the joins' shuffles (not raw strings or file names)
    good = good_queues(records).select(
        "account", "region", "arn", "name", "tags", "received", "fifo", "vt", "retention", "delay",
        "has_redrive", "target_arn", "max_receive_count",
    )  # fmt: skip
    # partitions the inventory holds without errors: a redrive target elsewhere is "external", not "missing"
    known_parts = (
        records.where(F.col("kind") == "partition")
        .where(F.coalesce(F.col("errors"), F.lit(0)) == 0)
        .select(F.concat_ws("/", "account", "region").alias("part"))
        .distinct()
    )

    # A mapping's function: the record of its exact ARN (an alias- or version-qualified ARN can have one), else
    # that of the unqualified ARN. Function records are grouped by unqualified ARN, so one join finds both.
    def unqualified(col):
        # arn:aws:lambda:REGION:ACCOUNT:function:NAME[:QUALIFIER] -> without the qualifier; anything else as is
        arn = F.regexp_extract(col, r"^(arn:[^:]+:lambda:[^:]+:[^:]+:function:[^:]+)", 1)
        return F.when(arn != "", arn).otherwise(col)

    fn_fields = ("timeout", "reserved_concurrency", "duration_p50", "duration_p99")
    functions = (
        records.where((F.col("kind") == "function") & F.col("arn").isNotNull())
        .select(
            unqualified(F.col("arn")).alias("g_arn"),
            F.struct(F.col("arn").alias("f_arn"), *fn_fields).alias("f"),
        )
        .groupBy("g_arn")
        .agg(F.collect_list("f").alias("fs"))
    )
    mappings = records.where(
        (F.col("kind") == "mapping")
        & F.col("event_source_arn").startswith("arn:")
        & F.col("event_source_arn").contains(":sqs:")
    ).select(
        "uuid", "event_source_arn", *MAPPING_SETTINGS, unqualified(F.col("function_arn")).alias("base_arn")
    )

    def first(arn_col):  # the grouped record of exactly this ARN (null when none)
        return F.get(F.filter("fs", lambda f: f["f_arn"] == arn_col), 0)

    m = (
        mappings.join(functions, F.col("base_arn") == F.col("g_arn"), "left")
        .withColumn("fn", F.coalesce(first(F.col("function_arn")), first(F.col("base_arn"))))
        .select(
            "event_source_arn",
            F.struct(
                "uuid",
                *MAPPING_SETTINGS,
                F.col("fn").isNotNull().alias("function_found"),
                *[F.col("fn")[c].alias(c) for c in fn_fields],
            ).alias("c"),
        )
    )
    consumers = m.groupBy("event_source_arn").agg(F.sort_array(F.collect_list("c")).alias("consumers"))

    dlq_cols = (
        "arn",
        "name",
        "account",
        "region",
        "fifo",
        "vt",
        "retention",
        "delay",
        "has_redrive",
        "target_arn",
        "max_receive_count",
    )
    # target partition known: join with known_parts on "<account>/<region>" of the target ARN
    kp = known_parts.withColumnRenamed("part", "kp")
    base_q = (
        good.withColumn(
            "_tp", F.concat_ws("/", _arn_part(F.col("target_arn"), 4), _arn_part(F.col("target_arn"), 3))
        )
        .join(F.broadcast(kp), F.col("_tp") == F.col("kp"), "left")
        .withColumn("target_partition_known", F.col("kp").isNotNull())
        .drop("_tp", "kp")
    )
    targets = (
        good.where(F.col("target_arn").isNotNull()).select(F.col("target_arn").alias("t_arn")).distinct()
    )
    # The DLQ and the DLQ's DLQ of every queue that is a redrive target: (dlq_*, dlq2_*) pairs built from the
    # narrow DLQ columns, so the wide queue rows are shuffled once by the target ARN for both levels.
    dlqs = base_q.select(*dlq_cols, "target_partition_known").join(
        targets, F.col("arn") == F.col("t_arn"), "left_semi"
    )
    d1 = dlqs.select([F.col(c).alias(f"dlq_{c}") for c in (*dlq_cols, "target_partition_known")])
    d2 = dlqs.select([F.col(c).alias(f"dlq2_{c}") for c in (*dlq_cols, "target_partition_known")])
    pairs = d1.join(d2, F.col("dlq_target_arn") == F.col("dlq2_arn"), "left")

    # the two joins on the queue's own ARN come first and back to back: the second reuses the first one's
    # partitioning, so the wide queue rows are shuffled once for both (a full outer join's output has no
    # known partitioning, so it is the second); then one shuffle by the redrive target for the DLQ pairs
    joined = (
        base_q.join(targets, F.col("arn") == F.col("t_arn"), "left")
        .join(consumers, F.col("arn") == consumers.event_source_arn, "full")
        # Queues without a redrive target (40% of a fleet) would all hash to one partition on a null key:
        # one task would get them all and lint them alone. A key of their own, which the join condition
        # rules out, spreads them over every task.
        .withColumn(
            "_dlq_key",
            F.coalesce("target_arn", F.concat(F.lit("\u0000"), F.coalesce("arn", "event_source_arn"))),
        )
        .join(pairs, (F.col("_dlq_key") == F.col("dlq_arn")) & F.col("target_arn").isNotNull(), "left")
        .withColumn("is_dlq", F.col("t_arn").isNotNull())
        .drop("t_arn", "event_source_arn", "_dlq_key")
    )
    return joined


def redrive_loops(records) -> dict:
    """VG023 findings of redrive loops longer than three queues, by the ARN of the queue they are reported on
    (``build.long_redrive_loops``). Only queues that have a redrive target and are one can be on such a loop:
    a few in a fleet (DLQs with a DLQ of their own), collected to the driver."""
    from pyspark.sql import functions as F
    from visguard.audit.build import long_redrive_loops

    good = good_queues(records)
    targets = good.where(F.col("target_arn").isNotNull()).select(F.col("target_arn").alias("t_arn"))
    members = (
        good.where(F.col("target_arn").isNotNull())
        .join(targets, F.col("arn") == F.col("t_arn"), "left_semi")
        .select(
            "arn",
            "account",
            "region",
            "target_arn",
            "has_redrive",
            "name",
            "fifo",
            "vt",
            "retention",
            "delay",
            "max_receive_count",
        )
    )
    return long_redrive_loops([r.asDict() for r in members.collect()])


QUEUE_COLUMNS = (
    "account",
    "region",
    "arn",
    "name",
    "tags",
    "received",
    "fifo",
    "vt",
    "retention",
    "delay",
    "has_redrive",
    "target_arn",
    "max_receive_count",
    "target_partition_known",
    "consumers",
    "is_dlq",
    *(
        f"{p}{c}"
        for p in ("dlq_", "dlq2_")
        for c in (
            "arn",
            "name",
            "account",
            "region",
            "fifo",
            "vt",
            "retention",
            "delay",
            "has_redrive",
            "target_arn",
            "max_receive_count",
            "target_partition_known",
        )
    ),
)


def _remote(path: str) -> bool:
    return "://" in str(path)  # s3://, s3a://, hdfs://, abfss://, dbfs:/ ... read and written by Spark itself


def run(spark, inventory: str, out: str, report_dir: str | None = None, baseline: str | None = None) -> dict:
    """The whole audit; returns the summary. Parquet goes to ``out`` (local or any Hadoop path);
    ``summary.json`` and ``report.html`` to the local ``report_dir`` (default: ``out``)."""
    from pyspark.sql import functions as F

    t0 = time.perf_counter()
    phases: dict[str, float] = {}

    def mark(name: str, t: list = [t0]) -> None:  # noqa: B006 - a cell for the previous mark
        now = time.perf_counter()
        phases[name] = round(now - t[0], 2)
        t[0] = now

    out = str(out).rstrip("/")
    local = Path(report_dir or out)
    local.mkdir(parents=True, exist_ok=True)
    # the one cache of the input: narrow typed rows, parsed once (joins, quarantine and summary read it)
    records = parse_records(load(spark, inventory)).cache()
    records.count()
    mark("read")

    loops = redrive_loops(records)
    joined = join_queues(records)
    lint = functools.partial(_lint_batches, extra=loops) if loops else _lint_batches
    result = joined.select(*QUEUE_COLUMNS).mapInArrow(lint, _out_schema()).cache()
    result.count()
    mark("join_lint")
    findings = result.where(F.col("row_kind") == "f").select([f.name for f in finding_schema().fields])
    figures = result.where(F.col("row_kind") == "q").select([f.name for f in figure_schema().fields])

    # one task per account/region writes its whole folder: one file each instead of one per task and folder
    findings.repartition("account", "region").write.mode("overwrite").partitionBy(
        "account", "region"
    ).parquet(f"{out}/findings")
    quarantine = records.where(F.col("reason").isNotNull() | F.col("corrupt").isNotNull()).select(
        F.when(F.col("corrupt").isNull(), F.lit("queue"))
        .otherwise(F.coalesce(F.col("kind"), F.lit("?")))
        .alias("kind"),
        "account",
        "region",
        "arn",
        F.col("_file").alias("file"),
        F.coalesce("reason", F.concat(F.lit("not an inventory record: "), F.col("corrupt"))).alias("reason"),
    )
    quarantine.write.mode("overwrite").parquet(f"{out}/quarantine")
    figures.write.mode("overwrite").parquet(f"{out}/queues")
    mark("write")

    summary = summarize(records, result, quarantine)
    mark("summary")
    summary["seconds"] = round(time.perf_counter() - t0, 2)
    summary["phase_seconds"] = phases
    from visguard.audit import outputs  # findings.csv, findings.ocsf.json, baseline-diff.csv, report.html

    table = outputs.findings_table(findings, out)
    rates = outputs.queue_rates(figures, out)
    summary.update(outputs.write_outputs(local, table, summary, baseline=baseline, rates=rates))
    (local / "summary.json").write_text(
        json.dumps(summary, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    for df in (records, result):
        df.unpersist()
    return summary


def summarize(records, result, quarantine) -> dict:
    """Small aggregates collected to the driver (a handful of Spark actions over the two caches): the summary
    and every figure the report plots."""
    from pyspark.sql import functions as F

    kinds: dict[str, int] = {}
    accounts: set[str] = set()
    error_codes: dict[str, int] = {}
    for r in records.where("json_ok").groupBy("kind", "account", "code").count().collect():
        kinds[r["kind"]] = kinds.get(r["kind"], 0) + r["count"]
        if r["account"] is not None:
            accounts.add(r["account"])
        if r["kind"] == "error":
            code = r["code"] or "?"
            error_codes[code] = error_codes.get(code, 0) + r["count"]
    error_rows = []
    if error_codes:
        errors = records.where(F.col("kind") == "error").select(
            "account", "region", "operation", "code", "message"
        )
        error_rows = [r.asDict() for r in errors.orderBy("account", "region").limit(50).collect()]

    q_reasons: dict[str, int] = {}
    for r in quarantine.groupBy(F.regexp_extract("reason", r"^([^:]*)", 1).alias("why")).count().collect():
        q_reasons[r["why"]] = r["count"]

    # findings by rule/account/severity, the queues' histogram bins and the orphan mappings: one pass
    ratio = Histogram(-2.0, 3.0, 25)
    dup = Histogram(-7.0, 0.0, 28)
    is_q = F.col("row_kind") == "q"
    rb = F.when(is_q & (F.col("ratio") > 0), ratio.bin(F.log10("ratio")))
    db = F.when(
        is_q & F.col("duplicate_rate").isNotNull(),
        dup.bin(F.log10(F.greatest(F.col("duplicate_rate"), F.lit(1e-7)))),
    )
    by_rule: dict[str, int] = {}
    by_sev = dict.fromkeys(SEVERITIES, 0)
    rule_account: dict[tuple[str, str], int] = {}
    n_queues = with_findings = orphans = 0
    grouped = result.select(
        "row_kind",
        F.when(F.col("row_kind") == "f", F.col("rule")).alias("rule"),
        F.when(F.col("row_kind") == "f", F.col("account")).alias("account"),
        F.when(F.col("row_kind") == "f", F.col("severity")).alias("severity"),
        rb.alias("rb"),
        db.alias("db"),
        (is_q & (F.col("findings") > 0)).alias("hf"),
        F.coalesce(F.col("orphans"), F.lit(0)).alias("orphans"),
    )
    for r in (
        grouped.groupBy("row_kind", "rule", "account", "severity", "rb", "db", "hf")
        .agg(F.count(F.lit(1)).alias("count"), F.sum("orphans").alias("orphans"))
        .collect()
    ):
        if r["row_kind"] == "f":
            by_rule[r["rule"]] = by_rule.get(r["rule"], 0) + r["count"]
            by_sev[r["severity"]] = by_sev.get(r["severity"], 0) + r["count"]
            key = (r["rule"], r["account"])
            rule_account[key] = rule_account.get(key, 0) + r["count"]
        elif r["row_kind"] == "q":
            n_queues += r["count"]
            with_findings += r["count"] if r["hf"] else 0
            ratio.add(r["rb"], r["count"])
            dup.add(r["db"], r["count"])
        else:
            orphans += int(r["orphans"] or 0)
    riskiest = [
        r.asDict()
        for r in result.where(is_q & F.col("duplicate_rate").isNotNull())
        .orderBy(F.desc("duplicate_rate"), "arn")
        .select(
            "account", "region", "arn", "name", "vt", "required_vt", "duplicate_rate", "findings", "worst"
        )
        .limit(25)
        .collect()
    ]
    return {
        "queues": n_queues,
        "queues_in_inventory": int(kinds.get("queue", 0)),
        "accounts": len(accounts),
        "partitions": int(kinds.get("partition", 0)),
        "mappings": int(kinds.get("mapping", 0)),
        "functions": int(kinds.get("function", 0)),
        "orphan_mappings": orphans,
        "queues_with_findings": with_findings,
        "findings": int(sum(by_rule.values())),
        "findings_by_rule": dict(sorted(by_rule.items())),
        "findings_by_severity": by_sev,
        "findings_by_rule_and_account": [
            {"rule": k[0], "account": k[1], "count": v} for k, v in sorted(rule_account.items())
        ],
        "errors": int(sum(error_codes.values())),
        "errors_by_code": dict(sorted(error_codes.items())),
        "error_samples": error_rows,
        "quarantined": int(sum(q_reasons.values())),
        "quarantine_reasons": dict(sorted(q_reasons.items())),
        "ratio_histogram": ratio.as_dict(),
        "duplicate_rate_histogram": dup.as_dict(),
        "riskiest_queues": riskiest,
    }


class Histogram:
    """Equal bins over [lo, hi] of a log10 value; values outside land in the end bins."""

    def __init__(self, lo: float, hi: float, bins: int):
        self.lo, self.hi, self.bins = lo, hi, bins
        self.counts = [0] * bins

    def bin(self, expr):
        from pyspark.sql import functions as F

        width = (self.hi - self.lo) / self.bins
        raw = F.floor((expr - F.lit(self.lo)) / F.lit(width))
        return F.least(F.greatest(raw, F.lit(0)), F.lit(self.bins - 1)).cast("int")

    def add(self, b, n: int) -> None:
        if b is not None:
            self.counts[b] += n

    def as_dict(self) -> dict:
        return {"lo": self.lo, "hi": self.hi, "bins": self.bins, "log10": True, "counts": self.counts}


def main(argv: list[str], prog: str, default_master: str | None = "local[*]") -> int:
    import argparse

    ap = argparse.ArgumentParser(prog=prog, description="Audit a fleet inventory on Spark.")
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
        "--conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Spark setting for this run (repeatable), e.g. --conf spark.sql.shuffle.partitions=64",
    )
    ap.add_argument(
        "--baseline",
        metavar="PREVIOUS_RESULT",
        help="a previous result (its --out or report folder): new, resolved and unchanged findings",
    )
    args = ap.parse_args(argv)
    if args.baseline:
        from visguard.audit.baseline import check_previous

        check_previous(args.baseline)
    extra = {}
    for i, kv in enumerate(args.conf, 1):
        key, sep, value = kv.partition("=")
        if not sep or not key.strip():
            raise VisguardError(f"expected KEY=VALUE, got {kv!r}", place=f"--conf #{i}")
        extra[key.strip()] = value
    if not _remote(args.inventory) and not Path(args.inventory).is_dir():
        raise VisguardError("inventory directory not found", file=args.inventory)
    if _remote(args.out) and not args.report_dir:
        raise VisguardError(
            "--out is not a local path: give --report-dir for summary.json and report.html", place="--out"
        )
    import warnings

    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
    spark = spark_session(args.master, extra=extra, class_archive=True)
    spark.sparkContext.setLogLevel("ERROR")
    s = run(spark, args.inventory, args.out, args.report_dir, baseline=args.baseline)
    print(
        f"audited {s['queues']:,} queues in {s['accounts']} accounts: {s['findings']:,} findings "
        f"({', '.join(f'{k} {v:,}' for k, v in s['findings_by_severity'].items())}), "
        f"{s['errors']} collector errors, {s['quarantined']} quarantined, {s['seconds']} s -> {args.out}",
        file=sys.stderr,
    )
    if "tmp" in _ARCHIVE:
        print(
            f"visguard: saving the Spark JVM's class archive for faster starts (first run only, about 20 s; "
            f"VISGUARD_SPARK_CDS=0 turns it off) -> {_ARCHIVE['final']}",
            file=sys.stderr,
        )
    stop_session(spark)
    return 0


if (
    __name__ == "__main__"
):  # spark-submit .../visguard/audit/job.py --inventory s3://... (master from spark-submit)
    sys.exit(main(sys.argv[1:], "job.py", default_master=None))
