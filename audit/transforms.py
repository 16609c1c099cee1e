"""The audit's transforms: inventory files -> typed records -> queues joined with their consumers and DLQs ->
findings and figures (``mapInArrow`` over ``build.lint_rows``). DataFrame in, DataFrame out; pyspark is
imported inside the functions.

Stages:

1. :func:`load` reads every ``<account>/<region>.jsonl`` with ``tables.record_schema`` (PERMISSIVE: a line that
   is not a JSON object of that shape keeps its raw text in ``_corrupt`` and goes to quarantine);
2. :func:`parse_records` parses queue attributes (strings, as GetQueueAttributes returns them) into typed
   columns; a queue whose VisibilityTimeout is missing or not a number, whose RedrivePolicy is not a JSON
   object, ... gets a quarantine ``reason``: counted, never dropped; :func:`drop_duplicates` keeps the latest
   record of each queue/function ARN and mapping UUID;
3. :func:`join_queues` joins by ARN, across accounts: mapping -> function (exact ARN first, then the
   unqualified ARN for alias- or version-qualified ones), mappings -> the queue they read (the mapping lives in
   the function's account), workers (ECS services, pipes) -> the queue they read (by its ARN, or its URL's
   account, region and name), queue -> DLQ -> the DLQ's DLQ;
4. :func:`lint_batches` (``mapInArrow``): in each Arrow record batch of joined queues, the rows that can have a
   finding (``build.needs_lint``, numpy over the batch) go (as Python dicts, no pandas) through
   ``build.lint_rows``, i.e. the linter's ``lint_model`` on the row's own queue and
   ``engine.risk.estimate_many`` once per batch; the others' figures come from their columns. :func:`packed`
   sends each result batch back as Arrow IPC bytes, which :func:`unpack` turns into the driver's findings and
   figures tables. This is the code executors run: it imports numpy, pyarrow and visguard's own pure-Python
   modules, nothing else.
"""

from __future__ import annotations

from visguard.audit.tables import (
    CONSUMER_FIELDS,
    DLQ_FIELDS,
    FUNCTION_FIELDS,
    KINDS,
    MAPPING_SETTINGS,
    OWNER_FIGURE_FIELDS,
    OWNER_RECORD_FIELDS,
    WORKER_SETTINGS,
    out_schema,
    record_schema,
)
from visguard.errors import VisguardError
from visguard.neutralize import printable


def remote(path: str) -> bool:
    return "://" in str(path)  # s3://, s3a://, hdfs://, abfss://, dbfs:/ ... read and written by Spark itself


def lint_batches(batches, extra=None, config=None, owner_tags=()):
    """mapInArrow body: runs on the executors, one Arrow record batch of joined queue rows at a time.

    Arrow straight to Python dicts and back (``to_pylist`` / ``from_pylist``) rather than through pandas: the
    two pandas conversions cost about as much CPU per queue as the rules themselves."""
    import gc

    import pyarrow as pa
    import pyarrow.compute as pc
    from pyspark.sql.pandas.types import to_arrow_schema
    from visguard.audit.build import lint_rows, needs_lint, quiet_figures

    # This worker allocates millions of short-lived dicts and dataclasses and keeps none: fewer young-generation
    # collections, and none of them re-scanning the modules imported above (gc.freeze).
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)
    schema = to_arrow_schema(out_schema())
    for batch in batches:
        known = batch.column("arn").is_valid()
        queues = batch.filter(known)
        # only the rows that can have a finding become Python objects and go through the rules (most queues
        # have none: build.needs_lint); the others' figures are computed from their columns
        lint = pa.array(needs_lint(queues, config, extra))
        findings, figures = lint_rows(
            queues.filter(lint).to_pylist(), config=config, extra=extra, owner_tags=owner_tags
        )
        out = [{"row_kind": "f", **f} for f in findings] + [{"row_kind": "q", **g} for g in figures]
        # the full outer join with the consumers brings those of no known queue as rows without a queue
        lost = [c for r in batch.filter(pc.invert(known)).to_pylist() for c in r["consumers"] or ()]
        if lost:
            orphans = sum(1 for c in lost if c["worker_arn"] is None)
            out.append({"row_kind": "o", "orphans": orphans, "orphan_workers": len(lost) - orphans})
        if out:
            yield pa.RecordBatch.from_pylist(out, schema=schema)
        quiet = queues.filter(pc.invert(lint))
        if quiet.num_rows:
            yield _figure_batch(quiet_figures(quiet, owner_tags), quiet.num_rows, schema)


PACKED_SCHEMA = "payload binary"


def packed(batches, **kw):
    """mapInArrow body: :func:`lint_batches`' output, each of its record batches as one Arrow IPC stream (LZ4) in
    one ``payload`` value (:data:`PACKED_SCHEMA`), for :func:`unpack` on the driver.

    The driver needs every finding and figure as Arrow tables (Parquet, CSV, OCSF, the report, the summary);
    packed, they cross the JVM as opaque bytes: Spark neither converts the ~16 columns of a million rows to its
    own rows and back nor caches them (benchmarks/RESULTS.md)."""
    import pyarrow as pa

    options = pa.ipc.IpcWriteOptions(compression="lz4")
    for batch in lint_batches(batches, **kw):
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, batch.schema, options=options) as writer:
            writer.write_batch(batch)
        data = sink.getvalue()
        offsets = pa.array([0, data.size], pa.int32()).buffers()[1]
        value = pa.Array.from_buffers(pa.binary(), 1, [None, offsets, data])  # the stream's bytes, not a copy
        yield pa.RecordBatch.from_arrays([value], names=["payload"])


def unpack(packed_table):
    """(findings, figures, (orphan mappings, orphan workers)) from the collected ``payload`` column of
    :func:`packed`: the findings with ``tables.finding_schema``'s columns, the figures with ``figure_schema``'s."""
    import pyarrow as pa
    import pyarrow.compute as pc
    from pyspark.sql.pandas.types import to_arrow_schema
    from visguard.audit.tables import figure_schema, finding_schema

    schema = to_arrow_schema(out_schema())
    parts = [
        pa.ipc.open_stream(value.as_buffer()).read_all()
        for chunk in packed_table.column("payload").chunks
        for value in chunk
        if value.is_valid
    ]
    rows = pa.concat_tables(parts) if parts else schema.empty_table()
    kind = rows.column("row_kind")
    findings = rows.filter(pc.equal(kind, "f")).select([f.name for f in finding_schema().fields])
    figures = rows.filter(pc.equal(kind, "q")).select(
        [f.name for f in figure_schema().fields if f.name not in OWNER_FIGURE_FIELDS]
    )
    other = rows.filter(pc.equal(kind, "o"))
    orphans = tuple(int(pc.sum(other.column(c)).as_py() or 0) for c in ("orphans", "orphan_workers"))
    return findings, figures, orphans


def _figure_batch(columns: dict, n: int, schema):
    """A batch of ``out_schema`` rows of kind "q" from figure columns (the finding columns null)."""
    import pyarrow as pa

    arrays = [
        pa.array(["q"] * n, f.type)
        if f.name == "row_kind"
        else columns[f.name].cast(f.type)
        if f.name in columns
        else pa.nulls(n, f.type)
        for f in schema
    ]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def load(spark, inventory: str, tag_keys: tuple[str, ...] = ()):
    """All inventory records as one DataFrame (explicit schema)."""
    from visguard.audit import inventory as inv

    if not remote(inventory) and not inv.partition_files(inventory):
        raise VisguardError("no <account>/<region>.jsonl files found", file=printable(inventory))
    # One glob rather than a list of files: no file-listing job; names starting with "." (a killed
    # collector's temporary files) are skipped by Spark as hidden files.
    return (
        spark.read.schema(record_schema(tag_keys))
        .option("mode", "PERMISSIVE")
        .option("columnNameOfCorruptRecord", "_corrupt")
        .json(f"{inventory.rstrip('/')}/*/*{inv.SUFFIX}")
    )


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
        F.col("metrics.deleted").alias("deleted"),
        F.col("metrics.age_oldest_max").alias("age_oldest"),
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
        "queue",
        *WORKER_SETTINGS,
        *FUNCTION_FIELDS,
        *OWNER_COLUMNS,
        "operation",
        "code",
        "message",
        "errors",
        ok.alias("json_ok"),
        F.when(corrupt, F.substring(F.coalesce("_corrupt", F.lit("kind missing or unknown")), 1, 120)).alias(
            "corrupt"
        ),
        F.when(corrupt | reason.isNotNull(), F.input_file_name()).alias("_file"),
        # which record is the latest of several with one identity: the later file, then the later line
        # (monotonically_increasing_id counts up within a file split, and a file's splits are numbered in order)
        F.when(F.col("kind").isin(*DEDUP_KINDS) & ok, F.input_file_name()).alias("_src"),
        F.monotonically_increasing_id().alias("_pos"),
        F.when(ok & F.col("kind").isin("queue", "function"), F.col("arn"))
        .when(ok & (F.col("kind") == "mapping"), F.col("uuid"))
        .when(ok & (F.col("kind") == "worker"), F.concat_ws("\u0000", "arn", "queue"))
        .alias("_key"),
    )


# An owner record's own columns (``state`` is shared with mappings and workers, selected above).
OWNER_COLUMNS = ("resource", "resource_type", "owner", "stack", "logical_id", "construct_path", "root_stack",
                 "address", "module")  # fmt: skip
QUEUE_TYPE = "AWS::SQS::Queue"
OWNER_ORDER = ("cloudformation", "terraform")  # a queue two records claim: its stack's, then its state's


def queue_owners(records):
    """The owner of each queue named by an owner record, as an Arrow table on the driver: ``arn`` and the
    ``tables.OWNER_FIGURE_FIELDS`` columns. Few columns of few records (a Spark filter of the cached rows, no
    shuffle); a queue that several records claim keeps one: CloudFormation first, then the smallest stack and
    logical id, state and address (the same answer whatever the order of the files)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    from pyspark.sql import functions as F

    cols = [F.col("resource").alias("arn"), *(F.col(r).alias(f) for f, r in OWNER_RECORD_FIELDS.items())]
    t = (
        records.where(
            F.col("corrupt").isNull()
            & (F.col("kind") == "owner")
            & (F.col("resource_type") == QUEUE_TYPE)
            & F.col("resource").isNotNull()
            & F.col("owner").isin(*OWNER_ORDER)
        )
        .select(*cols)
        .toArrow()
    )
    if t.num_rows == 0:
        return None
    rank = pc.index_in(t.column("iac_owner"), value_set=pa.array(OWNER_ORDER))
    t = t.append_column("_rank", rank).sort_by(
        [("arn", "ascending"), ("_rank", "ascending")]
        + [(c, "ascending") for c in ("iac_stack", "iac_logical_id", "iac_state", "iac_address")]
    )
    t = t.append_column("_i", pa.array(range(t.num_rows), pa.int64()))
    first = t.group_by("arn", use_threads=False).aggregate([("_i", "min")]).column("_i_min")
    return t.take(first).select(["arn", *OWNER_FIGURE_FIELDS])


def attach_owners(figures, owners):
    """``figures`` (the driver's per-queue table) with the ``tables.OWNER_FIGURE_FIELDS`` columns of each queue's
    owner (:func:`queue_owners`; null when none names it); rows stay in their order."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = figures.num_rows
    if owners is None or owners.num_rows == 0:
        for c in OWNER_FIGURE_FIELDS:
            figures = figures.append_column(c, pa.nulls(n, pa.string()))
        return figures
    idx = pc.index_in(figures.column("arn"), value_set=owners.column("arn"))
    for c in OWNER_FIGURE_FIELDS:
        figures = figures.append_column(c, pc.cast(owners.column(c), pa.string()).take(idx))
    return figures


# Records with an identity: a queue and a function by ARN, a mapping by UUID, a worker by its service's or pipe's
# ARN and the queue it reads. Several records of one identity (an inventory merged by hand, a file copied into
# another account's folder) are counted once: the latest wins.
DEDUP_KINDS = ("queue", "mapping", "function", "worker")


def duplicate_counts(records) -> dict[str, int]:
    """{kind: records that repeat an identity} (one Spark job over the narrow keys; it also fills the cache)."""
    from pyspark.sql import functions as F

    rows = (
        records.where(F.col("_key").isNotNull())
        .groupBy("kind", "_key")
        .count()
        .where(F.col("count") > 1)
        .groupBy("kind")
        .agg(F.sum(F.col("count") - 1).alias("extra"))
        .collect()
    )
    return {r["kind"]: int(r["extra"]) for r in rows}


def drop_duplicates(records):
    """``records`` without the records that a later record of the same identity replaces. Only called when
    :func:`duplicate_counts` found some: the ranking runs over the repeated identities alone (broadcast)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    repeated = (
        records.where(F.col("_key").isNotNull())
        .groupBy("kind", "_key")
        .count()
        .where(F.col("count") > 1)
        .select("kind", "_key")
    )
    rank = F.row_number().over(Window.partitionBy("kind", "_key").orderBy(F.desc("_src"), F.desc("_pos")))
    losers = (
        records.join(F.broadcast(repeated), ["kind", "_key"], "left_semi")
        .select("_pos", rank.alias("_rank"))
        .where(F.col("_rank") > 1)
        .select("_pos")
    )
    return records.join(F.broadcast(losers), "_pos", "left_anti")


def _arn_part(col, idx: int):
    from pyspark.sql import functions as F

    return F.split(col, ":").getItem(idx)


# The type of every consumer field that is not a column of the parsed records (the others are: record_schema).
_CONSUMER_TYPES = {"worker_arn": "string", "function_found": "boolean", "queue_ref": "string"}


def _consumer_struct(**cols):
    """One consumer as a struct of ``tables.CONSUMER_FIELDS`` (a mapping's or a worker's: the other kind's
    fields null), so mappings and workers make one list per queue."""
    from pyspark.sql import functions as F

    types = {f.name: f.dataType for f in record_schema().fields}
    return F.struct(
        *[
            (cols[c] if c in cols else F.lit(None).cast(types.get(c) or _CONSUMER_TYPES[c])).alias(c)
            for c in CONSUMER_FIELDS
        ]
    )


# The account, region and name of the queue a worker record names: an ARN's fields, or a queue URL's path (its
# host's region: sqs.REGION.amazonaws.com, REGION.queue.amazonaws.com; queue.amazonaws.com is us-east-1; any
# other host, e.g. a VPC endpoint, is taken to be in the worker's own region). tests/audit/reference.py mirrors it.
URL_PATH = r"^https?://[^/]+/([0-9]{12})/([^/?#]+?)/?$"
URL_REGION = r"^https?://(?:sqs\.)?([a-z]{2}(?:-[a-z]+)+-[0-9]+)\.(?:queue\.)?amazonaws\.com"
LEGACY_HOST = r"^https?://queue\.amazonaws\.com/"


def queue_key(ref, region):
    """``REGION:ACCOUNT:NAME`` of a queue ARN or URL (``region``: the worker's own, for a host without one)."""
    from pyspark.sql import functions as F

    host_region = F.regexp_extract(ref, URL_REGION, 1)
    url_region = (
        F.when(host_region != "", host_region)
        .when(ref.rlike(LEGACY_HOST), F.lit("us-east-1"))
        .otherwise(region)
    )
    from_url = F.concat_ws(
        ":", url_region, F.regexp_extract(ref, URL_PATH, 1), F.regexp_extract(ref, URL_PATH, 2)
    )
    from_arn = F.concat_ws(":", _arn_part(ref, 3), _arn_part(ref, 4), _arn_part(ref, 5))
    return F.when(ref.startswith("arn:"), from_arn).when(ref.rlike(URL_PATH), from_url)


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
        "account", "region", "arn", "name", "tags", "received", "deleted", "age_oldest", "fifo", "vt",
        "retention", "delay", "has_redrive", "target_arn", "max_receive_count",
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

    fn_fields = FUNCTION_FIELDS
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
            _consumer_struct(
                uuid=F.col("uuid"),
                **{c: F.col(c) for c in MAPPING_SETTINGS},
                function_found=F.col("fn").isNotNull(),
                **{c: F.col("fn")[c] for c in fn_fields},
            ).alias("c"),
        )
    )
    # Workers: the queue they read by its ARN, or its URL's region, account and name (few records: the keys are
    # broadcast and the queues scanned once, no shuffle of them); one that names no queue of the inventory keeps
    # its reference and comes out of the full outer join below as an orphan.
    workers = records.where(
        (F.col("kind") == "worker") & F.col("arn").isNotNull() & F.col("queue").isNotNull()
    ).select(
        queue_key(F.col("queue"), F.col("region")).alias("w_key"),
        F.col("queue").alias("w_ref"),
        _consumer_struct(
            worker_arn=F.col("arn"),
            queue_ref=F.col("queue"),
            **{c: F.col(c) for c in ("state", "batch_size", "batching_window", *WORKER_SETTINGS)},
        ).alias("c"),
    )
    hits = good.select(queue_key(F.col("arn"), F.lit(None)).alias("w_key"), F.col("arn").alias("q_arn")).join(
        F.broadcast(workers.select("w_key").distinct()), "w_key", "left_semi"
    )
    w = workers.join(F.broadcast(hits), "w_key", "left").select(
        F.coalesce("q_arn", "w_ref").alias("event_source_arn"), "c"
    )
    consumers = (
        m.unionByName(w).groupBy("event_source_arn").agg(F.sort_array(F.collect_list("c")).alias("consumers"))
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
    dlqs = base_q.select(*DLQ_FIELDS, "target_partition_known").join(
        targets, F.col("arn") == F.col("t_arn"), "left_semi"
    )
    d1 = dlqs.select([F.col(c).alias(f"dlq_{c}") for c in (*DLQ_FIELDS, "target_partition_known")])
    d2 = dlqs.select([F.col(c).alias(f"dlq2_{c}") for c in (*DLQ_FIELDS, "target_partition_known")])
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


def redrive_loops(records, config=None) -> dict:
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
            "tags",
        )
    )
    return long_redrive_loops([r.asDict() for r in members.collect()], config)
