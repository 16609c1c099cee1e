"""Deployed queue -> owner -> declaration (a Spark join), and drift: a deployed setting that differs from the
declared one (VG085).

:func:`place` joins every deployed queue of the inventory to at most one declaration of ``--sources``
(:mod:`visguard.audit.sources`), by the first of these keys that finds any (``join_by``):

1. ``construct-path``: the owner record's CDK construct path = the declaration's ``aws:cdk:path``;
2. ``stack-logical-id``: the owner's stack (or its root stack, for a nested one) and logical id = a stack name
   the source deploys as and the declaration's logical id;
3. ``terraform-address``: the owner's Terraform address (module path included) = the declaration's;
4. ``by-name``: the deployed queue's name = the name the source resolves.

A key that finds exactly one declaration joins; two or more join nothing, and ``reason`` names every candidate
(file:line). A queue with no declaration gets a ``reason``: no sources given for its stack, its stack is in the
sources but not its logical id, its address is in no source, no owner record and no declaration of its name.

:func:`drift_rows` (pure) compares a joined queue's deployed settings with the declared ones: visibility timeout,
retention, redrive target and maxReceiveCount, and each Lambda mapping's batch size and batching window (the one
deployed mapping with the one declared, or by the owner record's logical id). A declared value the source
cannot know (a parameter, a variable) is never drift. :func:`drift_batches` runs it on the executors
(``mapInArrow``), so no per-queue loop runs on the driver.
"""

from __future__ import annotations

import functools
import json

OWNER_FIELDS = (
    "kind", "account", "region", "resource", "resource_type", "url", "owner", "stack", "stack_id", "logical_id",
    "construct_path", "root_stack", "state", "address", "module",
)  # fmt: skip
JOIN_KINDS = ("construct-path", "stack-logical-id", "terraform-address", "by-name")
PLACED_FIELDS = (
    ("arn", "string"),
    ("account", "string"),
    ("region", "string"),
    ("owner", "string"),
    ("join_by", "string"),
    ("decl_id", "string"),
    ("repository", "string"),
    ("file", "string"),
    ("line", "long"),
    ("lines", "string"),
    ("reason", "string"),
    ("reason_kind", "string"),  # the reason without names: what summary.json counts
)
SEP = "\x1f"
RANK_STEP = 1 << 58  # a candidate as one number: its key's rank x RANK_STEP + its declaration's number


def owner_schema():
    from pyspark.sql import types as T

    return T.StructType([T.StructField(n, T.StringType()) for n in OWNER_FIELDS])


def owner_frame(spark, owners):
    """Owner rows as a DataFrame: a DataFrame as is, or a list of dicts (the inventory's ``owner`` records)."""
    if owners is None:
        return spark.createDataFrame([], owner_schema())
    if hasattr(owners, "select"):
        from pyspark.sql import functions as F

        have = set(owners.columns)
        return owners.select(
            *[(F.col(n) if n in have else F.lit(None)).cast("string").alias(n) for n in OWNER_FIELDS]
        )
    rows = [tuple(None if r.get(n) is None else str(r.get(n)) for n in OWNER_FIELDS) for r in owners]
    return spark.createDataFrame(rows, owner_schema())


def record_owners(records):
    """The ``owner`` records among the audit's parsed records (``transforms.parse_records``), as owner rows."""
    from pyspark.sql import functions as F

    rows = records.where(F.col("corrupt").isNull() & (F.col("kind") == "owner"))
    have = set(rows.columns)
    return rows.select(
        *[(F.col(n) if n in have else F.lit(None)).cast("string").alias(n) for n in OWNER_FIELDS]
    )


def place(queues, owners, decls):
    """One row per deployed queue: :data:`PLACED_FIELDS`, the queue's other columns as given (``queues``: at least
    account, region, arn, name; :func:`deployed` adds what drift compares) and ``declared`` (the declaration's
    JSON). ``owners``: :func:`owner_frame`; ``decls``: the "d" rows of ``sources.declaration_frame``.

    Four shuffles whatever the fleet: queue ⋈ owner, the queue's keys ⋈ the declarations' keys (a left join: the
    queue's own row, key "self", rides along and matches nothing), the candidates grouped by queue, which gives
    the whole placed row (no join back onto the queues, and the queue ⋈ owner join is computed once), and the
    chosen declaration joined to it by number. A declaration is a number through the first three (its key rows
    carry only that and its place, the candidates only numbers and places): its settings' JSON is shuffled once,
    not with every candidate. A queue is its ARN (one row per ARN, as the audit's queues are). Give only the
    columns needed (``declared.run`` gives those four; :func:`drift_frame` joins the deployed settings by ARN):
    every column of ``queues`` goes through the first three shuffles."""
    from pyspark.sql import functions as F
    from visguard.audit.transforms import queue_key

    # a queue is named by its ARN or its URL: both become REGION:ACCOUNT:NAME (transforms.queue_key)
    ref = F.when(F.col("resource").startswith("arn:"), F.col("resource")).otherwise(
        F.coalesce(F.col("url"), F.col("resource"))
    )
    own = (
        owners.where(F.coalesce(F.col("resource_type"), F.lit("AWS::SQS::Queue")) == "AWS::SQS::Queue")
        .withColumn("o_key", queue_key(ref, F.col("region")))
        .where(F.col("o_key").isNotNull())
        # a queue several records claim keeps one, whatever the order of the files (as transforms.queue_owners):
        # CloudFormation first, then the smallest stack, logical id, state and address
        .groupBy("o_key")
        .agg(
            F.min(
                F.struct(
                    F.when(F.col("owner") == "cloudformation", 0)
                    .when(F.col("owner") == "terraform", 1)
                    .otherwise(2)
                    .alias("r"),
                    F.col("stack").alias("o_stack"),
                    F.col("logical_id").alias("o_lid"),
                    F.col("state").alias("o_state"),
                    F.col("address").alias("o_address"),
                    F.col("owner").alias("o_owner"),
                    F.col("root_stack").alias("o_root"),
                    F.col("construct_path").alias("o_path"),
                )
            ).alias("o")
        )
        .select("o_key", "o.o_owner", "o.o_stack", "o.o_root", "o.o_lid", "o.o_path", "o.o_address")
    )
    q = (
        queues.withColumn("o_key", queue_key(F.col("arn"), F.lit(None)))
        .join(own, "o_key", "left")
        .drop("o_key")
    )

    def key(kind, rank, value):
        return F.struct(F.lit(kind).alias("k"), F.lit(rank).alias("rank"), value.alias("v"))

    def lid_key(stack):
        return F.when(stack.isNotNull() & F.col("o_lid").isNotNull(), F.concat_ws(SEP, stack, F.col("o_lid")))

    keys = (
        key("construct-path", 1, F.col("o_path")),
        key("stack-logical-id", 2, lid_key(F.col("o_stack"))),
        key("stack-logical-id", 2, F.when(F.col("o_root") != F.col("o_stack"), lid_key(F.col("o_root")))),
        key("terraform-address", 3, F.col("o_address")),
        key("by-name", 4, F.col("name")),
    )
    # the queue's own columns ride on one more row of its keys ("self", never offered), so the candidates grouped by
    # ARN give the whole placed row: the queue rows go through one shuffle after the owner join, not a join back
    info = [c for c in q.columns if c != "arn"]
    own_row = F.struct(F.lit("self").alias("k"), F.lit(0).alias("rank"), F.col("arn").alias("v"))
    wanted = (
        q.select("arn", F.struct(*info).alias("qi"), F.posexplode(F.array(own_row, *keys)).alias("i", "x"))
        .where(F.col("x.v").isNotNull() | (F.col("i") == 0))
        .select(
            "arn",
            F.when(F.col("i") == 0, F.col("qi")).alias("qi"),
            F.col("x.k").alias("k"),
            F.col("x.rank").alias("rank"),
            F.col("x.v").alias("v"),
        )
    )
    # each declaration by a number (its row of ``decls``: the same in both uses below, ``decls`` being one plan):
    # the keys' join and the grouping by queue carry numbers, and the chosen declaration is joined back once
    d = decls.withColumn("idx", F.monotonically_increasing_id())
    at_of = F.concat(F.col("repository"), F.lit(":"), F.col("file"), F.lit(":"), F.col("line").cast("string"))
    keyed = d.select("construct_path", "stacks", "logical_id", "address", "name", "idx", at_of.alias("at"))
    stack_keys = F.transform(
        F.when(F.col("logical_id").isNotNull(), F.col("stacks")).otherwise(F.array()),
        lambda s: F.concat_ws(SEP, s, F.col("logical_id")),
    )
    offered = (
        keyed.select(F.lit("construct-path").alias("k"), F.col("construct_path").alias("v"), "idx", "at")
        .unionByName(keyed.select(F.lit("stack-logical-id").alias("k"), F.explode(stack_keys).alias("v"), "idx", "at"))
        .unionByName(keyed.select(F.lit("terraform-address").alias("k"), F.col("address").alias("v"), "idx", "at"))
        .unionByName(keyed.select(F.lit("by-name").alias("k"), F.col("name").alias("v"), "idx", "at"))
        .where(F.col("v").isNotNull())
    )  # fmt: skip
    # the best candidate as two numbers: the lowest rank and at that rank the smallest declaration (lo), the same
    # rank and the largest (hi); lo = hi: exactly one declaration (two or more otherwise, whose numbers and places
    # are gathered for every queue and read only for those)
    cand = wanted.join(offered, ["k", "v"], "left")
    has = F.col("idx").isNotNull()  # a candidate (the "self" row and a key no declaration offers: none)
    lo_of = F.col("rank").cast("long") * RANK_STEP + F.col("idx")
    hi_of = (len(JOIN_KINDS) + 1 - F.col("rank")).cast("long") * RANK_STEP + F.col("idx")

    def rank_of(p):
        return F.shiftright(p, RANK_STEP.bit_length() - 1).cast("int")

    lo, hi = F.col("lo"), F.col("hi")

    best = (
        cand.groupBy("arn")
        .agg(
            # each queue's one "self" row (its ARN is its identity)
            F.first("qi", ignorenulls=True).alias("qi"),
            F.min(F.when(has, lo_of)).alias("lo"),
            F.max(F.when(has, hi_of)).alias("hi"),
            F.collect_list(F.when(has, F.struct(lo_of.alias("p"), "at"))).alias("c"),
        )
        .select(
            "arn",
            "qi.*",
            F.element_at(F.array(*map(F.lit, JOIN_KINDS)), rank_of(lo)).alias("join_kind"),
            F.when(lo % RANK_STEP == hi % RANK_STEP, lo % RANK_STEP).alias("one_idx"),
            F.when(
                lo % RANK_STEP != hi % RANK_STEP, F.filter("c", lambda x: rank_of(x["p"]) == rank_of(lo))
            ).alias("tied"),
        )
    )
    chosen = d.select(
        F.col("idx").alias("one_idx"), F.struct("decl_id", "repository", "file", "line", "lines", "declared").alias("one")
    )  # fmt: skip
    best = best.join(chosen, "one_idx", "left")
    stacks = decls.select(F.explode("stacks").alias("s_stack")).distinct()
    placed = best.join(
        F.broadcast(stacks), F.coalesce(F.col("o_root"), F.col("o_stack")) == F.col("s_stack"), "left"
    )
    # 0: no candidate, 1: joined, 2 or more: not joined (their places in "at")
    n = (
        F.when(F.col("one").isNotNull(), 1)
        .when(F.col("tied").isNotNull(), F.size(F.array_distinct(F.transform("tied", lambda x: x["p"]))))
        .otherwise(0)
    )
    at = F.array_sort(F.array_distinct(F.transform("tied", lambda x: x["at"])))
    reason = (
        F.when(n > 1, F.concat(n.cast("string"), F.lit(" declarations match by "), F.col("join_kind"), F.lit(": "), F.concat_ws(", ", at), F.lit("; not joined")))
        .when(n == 1, F.lit(None))
        .when(
            (F.col("o_owner") == "cloudformation") & F.col("s_stack").isNotNull(),
            F.concat(F.lit("stack "), F.coalesce("o_root", "o_stack"), F.lit(" is in the sources but not its logical id "), F.coalesce("o_lid", F.lit("?"))),
        )
        .when(
            F.col("o_owner") == "cloudformation",
            F.concat(F.lit("no sources given for its stack "), F.coalesce("o_root", "o_stack", F.lit("?"))),
        )
        .when(
            F.col("o_owner") == "terraform",
            F.concat(F.lit("Terraform address "), F.coalesce("o_address", F.lit("?")), F.lit(" is in no source")),
        )
        .when(F.col("o_owner").isNull(), F.lit("no owner record, and no declaration of its name in the sources"))
        .otherwise(F.concat(F.lit("owner "), F.col("o_owner"), F.lit(": no declaration of its name in the sources")))
    )  # fmt: skip
    why = (
        F.when(n > 1, F.lit("ambiguous"))
        .when(n == 1, F.lit(None))
        .when((F.col("o_owner") == "cloudformation") & F.col("s_stack").isNotNull(), F.lit("logical id not in its stack's source"))
        .when(F.col("o_owner") == "cloudformation", F.lit("no sources given for its stack"))
        .when(F.col("o_owner") == "terraform", F.lit("Terraform address in no source"))
        .when(F.col("o_owner").isNull(), F.lit("no owner record and no declaration of its name"))
        .otherwise(F.lit("no declaration of its name"))
    )  # fmt: skip
    given = [c for c in queues.columns if c not in ("arn", "account", "region")]
    return placed.select(
        "arn",
        "account",
        "region",
        F.coalesce("o_owner", F.lit("unknown")).alias("owner"),
        F.when(n == 1, F.col("join_kind")).alias("join_by"),
        F.col("one.decl_id").alias("decl_id"),
        F.col("one.repository").alias("repository"),
        F.col("one.file").alias("file"),
        F.col("one.line").alias("line"),
        F.col("one.lines").alias("lines"),
        reason.alias("reason"),
        why.alias("reason_kind"),
        F.col("one.declared").alias("declared"),
        *[c for c in given if c != "name"],
        "name",
    )


def deployed(records):
    """The deployed settings drift compares, per queue ARN: the parsed queue columns and its Lambda mappings
    (``mappings``: uuid, batch size, batching window, the owner's logical id of the mapping when known)."""
    from pyspark.sql import functions as F
    from visguard.audit.transforms import good_queues

    maps = (
        records.where((F.col("kind") == "mapping") & F.col("corrupt").isNull() & F.col("event_source_arn").isNotNull())
        .groupBy("event_source_arn")
        .agg(
            F.sort_array(
                F.collect_list(F.struct("uuid", F.col("batch_size").cast("double").alias("batch_size"), F.col("batching_window").cast("double").alias("batching_window")))
            ).alias("mappings")
        )
    )  # fmt: skip
    return (
        good_queues(records)
        .select(
            "account",
            "region",
            "arn",
            "name",
            "vt",
            "retention",
            "has_redrive",
            "target_arn",
            "max_receive_count",
            "tags",
        )
        .join(maps, F.col("arn") == F.col("event_source_arn"), "left")
        .drop("event_source_arn")
    )


# --------------------------------------------------------------------------------------------- pure: drift
SETTING_WORDS = {
    "visibility_timeout": "VisibilityTimeout",
    "message_retention": "MessageRetentionPeriod",
    "redrive": "RedrivePolicy deadLetterTargetArn",
    "max_receive_count": "RedrivePolicy maxReceiveCount",
    "batch_size": "BatchSize",
    "batching_window": "MaximumBatchingWindowInSeconds",
}


def _num(v) -> str:
    if v is None:
        return "not set"
    return f"{v:g}" if isinstance(v, float) else str(v)


def drift_rows(row: dict) -> list[dict]:
    """The VG085 findings of one joined queue (pure). ``row``: the deployed columns of :func:`deployed`, the
    placed columns of :func:`place` (``repository``, ``file``, ``line``) and ``declared`` (the declaration's JSON,
    ``sources.declared_settings``). Each finding names both values and both places."""
    from visguard.linter.rules.vg085_declared_setting_differs import RULE, message
    from visguard.neutralize import printable

    declared = json.loads(row["declared"]) if row.get("declared") else {}
    arn = row["arn"]
    out: list[dict] = []

    def at(setting: dict) -> tuple[str, int | None]:
        return setting.get("file") or row.get("file"), setting.get("line") or row.get("line")

    def differ(field: str, dep, dec: dict, consumer=None):
        if not dec or not dec.get("known"):
            return
        want = dec.get("value")
        if field == "redrive":
            have = None if dep is None else str(dep).rsplit(":", 1)[-1]
            if have == want:
                return
            dep_text, dec_text = have or "no redrive policy", want or "no redrive policy"
        else:
            if dep is None and want is None:
                return
            if dep is not None and want is not None and abs(float(dep) - float(want)) < 1e-9:
                return
            dep_text, dec_text = _num(dep), _num(want)
            if dec.get("default") and want is not None:
                dec_text += " (not set: the AWS default)"
        file, line = at(dec)
        where = f"{row.get('repository')}:{file}:{line}" if line else f"{row.get('repository')}:{file}"
        where = printable(where)  # a file name is data: no control character reaches the message
        out.append(
            {
                "rule": RULE.id,
                "severity": str(RULE.severity),
                "queue_arn": arn,
                "consumer": consumer,
                "setting": field,
                "deployed": dep_text,
                "declared": dec_text,
                "source_file": file,
                "source_line": line,
                "message": message(SETTING_WORDS[field], dep_text, arn, dec_text, where, consumer),
                "fix": RULE.fix,
            }
        )

    differ("visibility_timeout", row.get("vt"), declared.get("visibility_timeout"))
    differ("message_retention", row.get("retention"), declared.get("message_retention"))
    target = row.get("target_arn") if row.get("has_redrive") else None
    differ("redrive", target, declared.get("redrive"))
    if target is not None and (declared.get("redrive") or {}).get("value") is not None:
        differ("max_receive_count", row.get("max_receive_count"), declared.get("max_receive_count"))
    have = row.get("mappings") or []
    want = declared.get("mappings") or []
    if len(have) == 1 and len(want) == 1:  # the one deployed mapping is the one declared
        m, dm = have[0], want[0]
        for field in ("batch_size", "batching_window"):
            differ(field, m.get(field), dm.get(field), consumer=m.get("uuid"))
    return out


DRIFT_FIELDS = (
    ("arn", "string"),
    ("account", "string"),
    ("region", "string"),
    ("queue_name", "string"),
    ("owner", "string"),
    ("rule", "string"),
    ("severity", "string"),
    ("consumer", "string"),
    ("setting", "string"),
    ("deployed", "string"),
    ("declared", "string"),
    ("source_file", "string"),
    ("source_line", "long"),
    ("message", "string"),
    ("fix", "string"),
    ("suppressed", "string"),
)


def drift_schema() -> str:
    return ", ".join(f"{n} {t}" for n, t in DRIFT_FIELDS)


def with_config(findings: list[dict], row: dict, config) -> list[dict]:
    """The visguard.yaml of the run applied to a queue's VG085 rows (pure): its severity override, and its
    suppressions (by queue glob, account, tags) as ``suppressed``, the reason (the audit keeps suppressed findings,
    as ``build.unsuppressed`` does for every other rule)."""
    if config is None or not findings:
        return findings
    from visguard.audit.build import unsuppressed
    from visguard.linter.model import Finding, Location, Queue, Severity

    sev = config.severity_overrides.get("VG085")
    _, suppressed_by = unsuppressed(config)
    tags = row.get("tags") or {}
    if isinstance(tags, list):  # a map column comes as (key, value) pairs
        tags = dict(tags)
    q = Queue(
        id=row["arn"], location=Location(file=row["arn"]), name=row.get("name"), arn=row["arn"],
        tags={k: v for k, v in tags.items() if v is not None}, account=row.get("account"), region=row.get("region"),
    )  # fmt: skip
    for f in findings:
        if sev:
            f["severity"] = str(Severity(sev))
        why = suppressed_by(q, Finding(f["rule"], Severity(f["severity"]), f["message"], q.id, q.location,
                                       consumer=f.get("consumer")))  # fmt: skip
        f["suppressed"] = why
    return findings


def drift_batches(batches, config=None):
    """mapInArrow body over the joined queues (deployed columns + placed + declared): their VG085 rows."""
    import pyarrow as pa
    from visguard.audit.sources import arrow_schema

    schema = arrow_schema(DRIFT_FIELDS)
    for batch in batches:
        out = []
        for r in batch.to_pylist():
            for f in with_config(drift_rows(r), r, config):
                f["arn"] = f.pop("queue_arn")
                f.update(account=r["account"], region=r["region"], queue_name=r["name"], owner=r["owner"])
                out.append({n: f.get(n) for n, _ in DRIFT_FIELDS})
        if out:
            yield pa.RecordBatch.from_pylist(out, schema=schema)


# what drift_rows reads of a declaration's JSON (sources.declared_settings), every value as its JSON text (Spark
# gives a number's or a boolean's text for a string field): a setting "known" unless its flag is absent, null or
# false, its value compared as drift_rows compares it
_SETTING = "struct<value:string,known:string>"
DECLARED_SCHEMA = (
    f"struct<visibility_timeout:{_SETTING},message_retention:{_SETTING},redrive:{_SETTING},"
    f"max_receive_count:{_SETTING},mappings:array<struct<batch_size:{_SETTING},batching_window:{_SETTING}>>>"
)


def parsed_declared():
    """The ``declared`` column parsed as :func:`may_drift` reads it (cache it with the placement: parsed once)."""
    from pyspark.sql import functions as F

    return F.from_json(F.col("declared"), DECLARED_SCHEMA)


def may_drift(d=None):
    """A Spark column over the joined queues of :func:`place` (with :func:`deployed`'s columns): false only where
    :func:`drift_rows` finds no drift, decided by column expressions, so only the queues it is true for go to
    Python (:func:`drift_frame`). It errs only towards true (a declaration it cannot read: true), and
    ``drift_rows`` then decides: the findings are drift_rows' alone."""
    from pyspark.sql import functions as F

    if d is None:  # the parsed declaration (drift_frame's is parsed once per queue, before its join)
        d = parsed_declared()

    def same(dep, dec):  # differ() returns without a finding
        want = dec["value"]
        num = want.try_cast("double")
        return (
            dec.isNull()
            | dec["known"].isNull()
            | (dec["known"] == "false")
            | (dep.isNull() & want.isNull())
            | (dep.isNotNull() & num.isNotNull() & (F.abs(dep.cast("double") - num) < 1e-9))
        )

    target = F.when(F.col("has_redrive"), F.col("target_arn"))
    redrive = d["redrive"]
    have = F.substring_index(target, ":", -1)
    same_redrive = (
        redrive.isNull()
        | redrive["known"].isNull()
        | (redrive["known"] == "false")
        | have.eqNullSafe(redrive["value"])
    )
    mrc_checked = target.isNotNull() & redrive["value"].isNotNull()
    one = F.coalesce((F.size("mappings") == 1) & (F.size(d["mappings"]) == 1), F.lit(False))
    m, dm = F.get(F.col("mappings"), 0), F.get(d["mappings"], 0)  # (ANSI: no out-of-bounds error)
    quiet = (
        d.isNotNull()
        & same(F.col("vt"), d["visibility_timeout"])
        & same(F.col("retention"), d["message_retention"])
        & same_redrive
        & (~mrc_checked | same(F.col("max_receive_count"), d["max_receive_count"]))
        & (
            ~one
            | (same(m["batch_size"], dm["batch_size"]) & same(m["batching_window"], dm["batching_window"]))
        )
    )
    return ~F.coalesce(quiet, F.lit(False))


def drift_frame(placed, queues, owner_tags=(), config=None):
    """VG085 rows of every joined queue of :func:`place`: a Spark DataFrame of :data:`DRIFT_FIELDS`, computed on the
    executors. ``queues``: :func:`deployed` (the deployed settings, joined by ARN to the joined queues). Only the
    queues :func:`may_drift` keeps go to Python (:func:`drift_batches`, the one comparison that writes findings).
    ``owner_tags``: the tags naming a finding's owner (the first present wins, as for every other finding)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    tags = queues.schema["tags"].dataType
    have = (
        {f.name for f in tags.fields} if isinstance(tags, T.StructType) else None
    )  # the job reads named tags
    owner = F.lit(None).cast("string")
    for k in reversed(tuple(owner_tags)):
        if have is not None and k not in have:
            continue
        v = F.col("tags")[k]
        owner = F.when(v.isNotNull() & (v != ""), v).otherwise(owner)
    cols = ["arn", "account", "region", "name", "vt", "retention", "has_redrive", "target_arn",
            "max_receive_count", "mappings", "repository", "file", "line", "declared"]  # fmt: skip
    # the declaration parsed once per queue: a cached ``settings`` column (declared.run's), else parsed here; a parse in
    # the filter itself would be inlined into the join's condition and run once per setting read
    settings = F.col("settings") if "settings" in placed.columns else parsed_declared()
    joined = placed.where(F.col("decl_id").isNotNull()).select(
        "arn", "repository", "file", "line", "declared", settings.alias("_d")
    )
    return (
        joined.join(queues, "arn")
        .where(may_drift(F.col("_d")))
        .select(*cols, "tags", owner.alias("owner"))
        .mapInArrow(functools.partial(drift_batches, config=config), drift_schema())
    )
