"""Inventory rows -> the linter's model, and the per-queue figures of the audit (pure functions, no Spark).

The Spark job (``transforms.py``) parses and joins the inventory, then hands each joined queue row to
:func:`lint_rows` inside ``mapInArrow``: every queue becomes a small ``Model`` holding the queue, its
dead-letter queue and that DLQ's own DLQ (the joins resolve them by ARN), so the rule catalogue
(``visguard.linter.api.lint_model``, the one implementation of every check) sees exactly what it would see in a
template. The same functions run without Spark in tests, so the joins can be checked against a plain-Python
reference.

A joined queue row is a dict with the keys of ``tables.QUEUE_COLUMNS``; ``consumers`` is a list of dicts with
the keys of ``tables.CONSUMER_FIELDS``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable

import numpy as np
from visguard.linter.model import (
    Consumer,
    Finding,
    LintConfig,
    Location,
    Model,
    Observed,
    Queue,
    Redrive,
)

# at import: an import in a function asks policy's __getattr__ for __path__ (an exception) on every call
from visguard.policy import queue_need

# Tags a team can put on a queue to declare its worker fleet's processing profile (the same fields as a
# visguard.yaml consumer profile). CloudWatch has no per-message processing time for non-Lambda consumers.
TAG_CONSUMER = "visguard:consumer"
TAG_P50 = "visguard:processing-p50"
TAG_P99 = "visguard:processing-p99"
TAG_HEARTBEAT = "visguard:heartbeat-interval"
TAG_EXTEND = "visguard:heartbeat-extend-by"
# The only tags the audit reads: the Spark job parses just these (a struct, not a map of every tag).
TAG_KEYS = (TAG_CONSUMER, TAG_P50, TAG_P99, TAG_HEARTBEAT, TAG_EXTEND)
WINDOW_SECONDS = 14 * 86_400  # CloudWatch evidence window of the collector


def _num(v) -> float | None:
    if type(v) is float:  # the common case: a double column from Arrow
        return None if v != v else v
    if v is None:
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


def _int(v) -> int | float | None:
    """A whole number; an infinite one stays a float (an out-of-range value the rules report, not a crash)."""
    f = _num(v)
    if f is None:
        return None
    return int(f) if math.isfinite(f) else f


def _str(v) -> str | None:
    """A string column's value (None, or pandas' NaN for a missing one: None)."""
    return v if isinstance(v, str) and v else None


def _whole(v: float | None):
    """Keep whole numbers as int (rules print ``30`` rather than ``30.0``)."""
    return int(v) if v is not None and math.isfinite(v) and v == int(v) else v


def _location(row: dict) -> Location:
    return Location(file=f"{row['account']}/{row['region']}.jsonl", path=row["arn"])


def _as_list(v) -> list:
    if v is None:
        return []
    if isinstance(v, float) and math.isnan(v):
        return []
    return list(v)


def _as_dict(v) -> dict:
    if v is None or isinstance(v, float):
        return {}
    if isinstance(v, dict):
        return v
    return dict(v)  # Arrow map columns arrive as a list of (key, value) pairs


def _tags(v) -> dict:
    """The queue's tags: a dict, or the job's struct of ``TAG_KEYS`` (a dict with None for absent tags)."""
    return {k: t for k, t in _as_dict(v).items() if t is not None}


def consumers_of(row: dict, loc: Location | None = None) -> list[Consumer]:
    """Lambda consumers from the joined mappings; worker consumers from the joined worker records (ECS services,
    pipes), else a worker from the queue's tags; an unknown consumer when CloudWatch shows receives and nothing
    else is known (but never on a DLQ: people read DLQs by hand). A queue's visguard:processing-* tags declare its
    workers' processing time: they fill in what a worker record does not declare itself."""
    out: list[Consumer] = []
    loc = loc or _location(row)  # the queue's location (immutable, so one object serves both)
    tags = _as_dict(row.get("tags"))  # absent tags: missing keys, or None in the job's struct
    p99 = _num(tags.get(TAG_P99))
    for m in _as_list(row.get("consumers")):
        if m.get("worker_arn"):
            out.append(worker_consumer(row, m, tags))
            continue
        known = bool(m.get("function_found"))
        out.append(
            Consumer(
                id=m["uuid"],
                kind="lambda",
                location=loc,
                function_id=m["function_arn"] if known else None,
                function_timeout=_whole(_num(m.get("timeout"))) if known else None,
                batch_size=_int(m.get("batch_size")),
                batching_window=_whole(_num(m.get("batching_window"))),
                report_batch_item_failures="ReportBatchItemFailures"
                in _as_list(m.get("function_response_types")),
                reserved_concurrency=_int(m.get("reserved_concurrency")),
                max_concurrency=_int(m.get("maximum_concurrency")),
                # issue 36: Lambda Managed Instances, a durable function, provisioned mode (absent in older
                # inventories: standard mode on Lambda's own compute, not durable)
                capacity_provider=_str(m.get("capacity_provider")) if known else None,
                durable_execution_timeout=_whole(_num(m.get("durable_execution_timeout"))) if known else None,
                min_pollers=_int(m.get("min_pollers")),
                max_pollers=_int(m.get("max_pollers")),
                enabled=(m.get("state") or "Enabled") not in ("Disabled", "Disabling"),
                processing_p50=_num(m.get("duration_p50")),
                processing_p99=_num(m.get("duration_p99")),
                note=None if known else f"function {m['function_arn']} is not in the inventory",
                metrics=_metrics_config(m.get("metrics_config")),
                settings=_esm_settings(m.get("esm_metrics")),
            )
        )
    has_workers = any(c.kind == "worker" for c in out)
    if not has_workers and (tags.get(TAG_CONSUMER) == "worker" or p99 is not None):
        out.append(
            Consumer(
                id=f"{row['name'] or row['arn']}:workers",
                kind="worker",
                location=loc,
                processing_p50=_num(tags.get(TAG_P50)),
                processing_p99=p99,
                heartbeat_interval=_num(tags.get(TAG_HEARTBEAT)),
                heartbeat_extend_by=_num(tags.get(TAG_EXTEND)),
                arrival_rate=arrival_rate(row),
            )
        )
    received = _num(row.get("received"))
    if not out and received and received > 0 and not row.get("is_dlq"):
        out.append(
            Consumer(
                id=f"{row['name'] or row['arn']}:receivers",
                kind="unknown",
                location=loc,
                note="CloudWatch shows receives, but no mapping or declared worker fleet",
            )
        )
    return out


def _metrics_config(v) -> list[str] | None:
    """A mapping's MetricsConfig.Metrics (None: not set, as the collector writes it)."""
    return None if v is None or isinstance(v, float) else [str(x) for x in v]


def _esm_settings(v) -> dict:
    """``{"esm_metrics": {"polled", "failed", "deleted"}}``: the mapping's own CloudWatch counts (issue 36), when
    the collector read any; else nothing."""
    if v is None or isinstance(v, float):
        return {}
    d = v.asDict() if hasattr(v, "asDict") else dict(v)
    counts = {k: _num(d.get(k)) for k in ("polled", "failed", "deleted")}
    return {"esm_metrics": counts} if any(x is not None for x in counts.values()) else {}


# a worker's facts that go to Consumer.settings (platform-specific, in model names)
_WORKER_EXTRA = ("desired_count", "task_definition", "container", "target", "capacity")


def worker_consumer(row: dict, w: dict, tags: dict) -> Consumer:
    """A worker record joined to its queue (an ECS service or a pipe) as the linter's worker Consumer, located at
    the service or pipe in its own partition file (the queue's findings name both places)."""
    arn = w["worker_arn"]
    parts = arn.split(":")
    account, region = (parts[4], parts[3]) if len(parts) > 5 else (row["account"], row["region"])
    where = Location(file=f"{account}/{region}.jsonl", path=arn)
    p99 = _num(w.get("processing_p99"))
    p50 = _num(w.get("processing_p50"))
    if p99 is None:  # not on the task definition or pipe: declared on the queue instead
        p99 = _num(tags.get(TAG_P99))
        p50 = p50 if p50 is not None else _num(tags.get(TAG_P50))
    heartbeat = w.get("heartbeat")
    return Consumer(
        id=arn,
        kind="worker",
        location=where,
        platform=w.get("platform"),
        source="inventory",
        link=w.get("link"),
        link_ref=w.get("link_ref"),
        stop_timeout=_whole(_num(w.get("stop_timeout"))),
        work_timeout=_whole(_num(w.get("work_timeout"))),
        heartbeat=None if heartbeat is None else bool(heartbeat),
        batch_size=_int(w.get("batch_size")),
        batching_window=_whole(_num(w.get("batching_window"))),
        processing_p50=p50,
        processing_p99=p99,
        enabled=(w.get("state") or "").upper() != "STOPPED",
        arrival_rate=arrival_rate(row),
        settings={
            k: _whole(v) if isinstance(v, float) else v for k in _WORKER_EXTRA if (v := w.get(k)) is not None
        },
        locations=dict.fromkeys(("stop_timeout", "work_timeout", "batch_size", "batching_window"), where),
    )


def arrival_rate(row: dict) -> float | None:
    received = _num(row.get("received"))
    return None if received is None else received / WINDOW_SECONDS


# the joined row's keys for the queue itself and for its DLQ and DLQ's DLQ (built once, not per row)
_QUEUE_KEYS = {
    p: tuple(
        f"{p}{c}"
        for c in (
            "arn", "account", "region", "target_arn", "has_redrive", "target_partition_known", "name", "fifo",
            "vt", "retention", "delay", "max_receive_count", "age_oldest",
        )
    )
    for p in ("", "dlq_", "dlq2_")
}  # fmt: skip


def _queue(row: dict, prefix: str = "", location: Location | None = None) -> Queue:
    """A queue from the joined row's own columns (prefix "") or its DLQ's (prefix "dlq_" / "dlq2_")."""
    k_arn, k_acc, k_reg, k_tgt, k_hr, k_tpk, k_name, k_fifo, k_vt, k_ret, k_delay, k_mrc, k_age = _QUEUE_KEYS[
        prefix
    ]
    get = row.get
    arn = row[k_arn]
    account, region = get(k_acc) or row["account"], get(k_reg) or row["region"]
    file = f"{account}/{region}.jsonl"
    target = get(k_tgt)
    redrive = None
    if get(k_hr):
        external = not get(k_tpk, True)
        redrive = Redrive(
            target=None if external or not target else target,
            target_ref=target,
            max_receive_count=_whole(_num(get(k_mrc))),
            location=Location(file, path=f"{arn}/RedrivePolicy"),
        )
    age = _num(get(k_age))
    if prefix:  # a DLQ: only its age of the oldest message travels with its sources' rows (DLQ inflow)
        observed = None if age is None else Observed(age_oldest=age, window=WINDOW_SECONDS, is_dlq=True)
    else:
        received, deleted = _num(get("received")), _num(get("deleted"))
        observed = (
            None
            if received is None and deleted is None and age is None
            else Observed(received, deleted, age, WINDOW_SECONDS, bool(get("is_dlq")))
        )
    return Queue(
        id=arn,
        location=location or Location(file, path=arn),
        name=get(k_name),
        arn=arn,
        fifo=bool(get(k_fifo)),
        visibility_timeout=_whole(_num(get(k_vt))),
        message_retention=_whole(_num(get(k_ret))),
        delay=_whole(_num(get(k_delay))),
        redrive=redrive,
        account=account,
        region=region,
        source="inventory",
        observed=observed,
    )


def model_for(row: dict) -> Model:
    """The queue with its consumers, plus its DLQ and the DLQ's DLQ when the inventory has them."""
    loc = _location(row)
    model = Model(source_file=loc.file)
    q = _queue(row, "", loc)
    q.consumers = consumers_of(row, loc)
    q.tags = _tags(row.get("tags"))
    q.arrival_rate = arrival_rate(row)
    model.add(q)
    for prefix in ("dlq_", "dlq2_"):
        arn = row.get(f"{prefix}arn")
        if arn and arn not in model.queues:
            model.add(_queue(row, prefix))
    return model


def long_redrive_loops(members: list[dict], config=None) -> dict[str, list[Finding]]:
    """VG023 for redrive loops longer than a row's model can hold (the queue, its DLQ and the DLQ's DLQ: loops
    of up to three queues are found row by row).

    ``members`` are joined-row-shaped dicts of the queues that have a redrive target and are one (the only
    queues a loop of two or more passes through; few in a fleet). Every queue has at most one target, so a
    walk along targets finds each loop once; its queues then form one model and the linter's own VG023 reports
    the loop, on its first queue by ARN as in a template. Returns {queue ARN: [finding]}.
    """
    from visguard.linter.api import lint_model
    from visguard.linter.model import LintConfig
    from visguard.linter.rules import RULES

    by_arn = {m["arn"]: m for m in members}
    state: dict[str, int] = {}  # 1: on the current walk, 2: done
    loops = []
    for start in sorted(by_arn):
        path, arn = [], start
        while arn in by_arn and arn not in state:
            state[arn] = 1
            path.append(arn)
            arn = by_arn[arn]["target_arn"]
        if arn in by_arn and state.get(arn) == 1:  # the walk came back to itself: a loop
            loops.append(path[path.index(arn) :])
        for a in path:
            state[a] = 2
    others = set(RULES) - {"VG023"}
    # suppressions are applied (marked, not dropped) by lint_rows with the row's other findings
    only_vg023 = (
        config.replace(
            disabled=set(config.disabled) | others,
            suppressions=[],
            suppression_queues={},
            suppression_where={},
        )
        if config
        else LintConfig(disabled=others)
    )
    out: dict[str, list[Finding]] = {}
    for loop in loops:
        if len(loop) <= 3:
            continue
        model = Model()
        for arn in loop:
            q = _queue({**by_arn[arn], "target_partition_known": True})
            q.tags = _tags(by_arn[arn].get("tags"))
            model.add(q)
        first = min(loop)
        model.source_file = model.queues[first].location.file
        out[first] = lint_model(model, only_vg023, only=(first,))
    return out


def required_visibility(
    consumers: Iterable[Consumer], settings: dict | None = None, *, context=None
) -> float | None:
    """What the queue's consumers need, by the one visibility-need policy (visguard.policy, as the rules and
    GuardedQueue): 6 x function timeout + batching window for Lambda (AWS guidance), the timeout that keeps
    duplicates under the target for a declared or measured profile (at most the 12-hour cap; past it a
    heartbeat plan is the advice), the heartbeat's window for workers that heartbeat. Every consumer counts.

    ``context``: the ``RuleContext`` the queue was just linted in (instead of ``settings``: its config's), whose
    consumers' needs the rules have mostly computed already (``RuleContext.need``)."""
    if context is None:
        from visguard.linter.context import RuleContext

        context = RuleContext(Model(), LintConfig(settings=dict(settings or {})))
    assert context.rule is None  # the config's settings, no rule's own
    needs = [n for n in map(context.need, consumers) if n is not None and n.basis != "default"]
    if not needs:
        return None
    q = queue_need(needs)
    return float(q.visibility_timeout if q.heartbeat is None else q.without_heartbeat)


def lint_rows(
    rows: list[dict],
    config=None,
    extra: dict | None = None,
    owner_tags: tuple[str, ...] = (),
    audit_wording: bool = True,
) -> tuple[list[dict], list[dict]]:
    """Lint every joined queue row and compute its figures.

    Returns (findings, queue figures): one dict per finding (only findings on the row's own queue: the DLQs
    in each small model are there for context and get linted as rows of their own), and one dict per queue
    with the visibility / required-visibility ratio and the engine's duplicate-risk estimate. ``extra`` maps a
    queue ARN to findings found beyond its row's model (:func:`long_redrive_loops`), added to its own.
    ``config`` is a visguard.yaml's ``LintConfig`` (settings, severities, suppressions, profiles);
    ``owner_tags``: the tags whose value (the first one present) is a finding's ``owner``;
    ``audit_wording``: messages and fixes for existing resources (``wording.audit_finding``).
    """
    from visguard.linter.api import lint_model
    from visguard.linter.context import RuleContext

    apply_profiles = None
    if config is not None and config.profiles:
        from visguard.linter.loaders.config import apply_profiles
    if audit_wording:
        from visguard.audit.wording import audit_finding
    lint_config, suppressed_by = unsuppressed(config)
    lint_config = lint_config or LintConfig()
    findings: list[dict] = []
    figures: list[dict] = []
    risk_in: list[tuple] = []
    for row in rows:
        model = model_for(row)
        if apply_profiles is not None:
            apply_profiles(model, config)
        q = model.queues[row["arn"]]
        owner = next((q.tags[k] for k in owner_tags if q.tags.get(k)), None)
        worst = 0
        n = 0
        ctx = RuleContext(model, lint_config)
        # only the row's own queue is checked: its DLQs are context here and are linted as rows of their own
        for f in lint_model(model, only=(q.id,), context=ctx) + (extra.get(q.id, []) if extra else []):
            if audit_wording:
                f = audit_finding(f, q, model.dlq_of(q))
            why = suppressed_by(q, f)
            findings.append(finding_row(row, f, owner, why))
            if why is None:
                worst = max(worst, f.severity.rank)
                n += 1
        need = required_visibility(q.consumers, context=ctx)
        vt = _num(q.visibility_timeout)
        obs = q.observed
        figures.append(
            {
                "account": row["account"],
                "region": row["region"],
                "arn": row["arn"],
                "name": row.get("name"),
                "vt": vt,
                "required_vt": need,
                "ratio": vt / need if vt is not None and need else None,
                "consumer_kinds": ",".join(sorted({c.kind for c in q.consumers})),
                "findings": n,
                "worst": {3: "error", 2: "warning", 1: "info"}.get(worst),
                "duplicate_rate": None,
                "owner": owner,
                "received": None if obs is None else obs.received,
                "deleted": None if obs is None else obs.deleted,
                "age_oldest": None if obs is None else obs.age_oldest,
                # a DLQ's receives are people looking at messages, unless it has a consumer of its own (VG042)
                "observed_rate": None
                if obs is not None and obs.is_dlq and not any(c.kind != "unknown" for c in q.consumers)
                else observed_rate(obs),
            }
        )
        risk_in.append(_risk_inputs(q, vt))
    dup = _duplicate_rates(risk_in)
    for fig, d in zip(figures, dup, strict=True):
        fig["duplicate_rate"] = None if math.isnan(d) else float(d)
    return findings, figures


def observed_rate(obs: Observed | None) -> float | None:
    """Extra deliveries per deleted message that CloudWatch saw (received / deleted - 1, at least 0); infinity
    when messages were received and none deleted; None without receives (no traffic, or no metrics)."""
    if obs is None or not obs.received or obs.received <= 0 or obs.deleted is None:
        return None
    if obs.deleted <= 0:
        return math.inf
    return max(obs.received / obs.deleted - 1, 0.0)


def unsuppressed(config):
    """(the config to lint with: ``config`` without its suppressions, and ``suppressed_by(queue, finding)``: the
    reason of the visguard.yaml suppression that hides the finding, or None). The audit keeps suppressed findings,
    marked: a suppression is not a fix, and week to week a finding that was suppressed must not look resolved.
    Suppressions without a reason or of an unknown rule are not applied (VG900/VG901), as in ``visguard lint``."""
    if config is None or not config.suppressions:
        return config, lambda q, f: None
    from visguard.linter.api import _suppresses, _suppressions_for
    from visguard.linter.rules import ALL_RULES

    lint_config = config.replace(suppressions=[], suppression_queues={}, suppression_where={})

    def suppressed_by(q: Queue, f: Finding) -> str | None:
        for s in _suppressions_for(q, config):
            if (s.reason or "").strip() and (s.rule == "*" or s.rule in ALL_RULES) and _suppresses(s, f):
                return s.reason.strip()
        return None

    return lint_config, suppressed_by


_NO_RISK = (math.nan,) * 8  # no consumer with a profile: no estimate


def _risk_inputs(q: Queue, vt: float | None) -> tuple:
    """The inputs of the risk model for ``q`` (vt, p50, p99, function timeout, batch size, batching window,
    ReportBatchItemFailures, maxReceiveCount): of the consumer it scores, the first one with a processing
    profile."""
    c = next((c for c in q.consumers if c.processing_p99 is not None and c.processing_p99 > 0), None)
    if c is None or vt is None:
        return _NO_RISK
    p50 = (
        c.processing_p50
        if c.processing_p50 and c.processing_p50 <= c.processing_p99
        else c.processing_p99 / 4
    )
    lam = c.kind == "lambda" and c.function_id is not None
    mrc = _num(q.redrive.max_receive_count) if q.redrive else None
    return (
        vt,
        p50,
        c.processing_p99,
        c.effective_function_timeout if lam else math.nan,
        float(c.effective_batch_size) if lam else 1.0,
        c.effective_batching_window if lam else 0.0,
        bool(c.report_batch_item_failures) if lam else True,
        mrc if mrc and 1 <= mrc <= 1000 else 0.0,
    )


def _duplicate_rates(rows: list[tuple]) -> np.ndarray:
    """``visguard.engine.risk.estimate_many`` over the batch (a ``_risk_inputs`` tuple per queue): NaN where no
    profile or the model does not apply."""
    if not rows:
        return np.asarray([], dtype=float)
    from visguard.engine.risk import estimate_many

    vt, p50, p99, fto, batch, window, rbif, mrc = zip(*rows, strict=True)
    out = estimate_many(
        np.asarray(vt, dtype=float),
        np.asarray(p50, dtype=float),
        np.asarray(p99, dtype=float),
        function_timeout=np.asarray(fto, dtype=float),
        batch_size=np.asarray(batch, dtype=float),
        batching_window=np.asarray(window, dtype=float),
        report_batch_item_failures=np.asarray([bool(x) if isinstance(x, bool) else True for x in rbif]),
        max_receive_count=np.asarray(mrc, dtype=float),
    )
    return np.where(out["applicable"], out["duplicate_rate"], np.nan)


_ESTIMATE_JSON = json.JSONEncoder(
    sort_keys=True
)  # json.dumps(..., sort_keys=True), without a new encoder a call


def finding_row(row: dict, f: Finding, owner: str | None = None, suppressed: str | None = None) -> dict:
    """A findings/ row; ``suppressed``: the reason of the suppression that hides it (None: open)."""
    return {
        "account": row["account"],
        "region": row["region"],
        "queue_arn": row["arn"],
        "queue_name": row.get("name"),
        "rule": f.rule,
        "severity": f.severity.value,
        "message": f.message,
        "consumer": f.consumer,
        "fix": f.fix,
        "estimate": _ESTIMATE_JSON.encode(f.estimate) if f.estimate else None,
        "owner": owner,
        "suppressed": suppressed,
    }


# -- which rows need the linter at all (numpy over an Arrow batch of joined rows) ------------------------------
# About half of a fleet's queues have no finding, most of them DLQs: no consumer, no traffic, no redrive policy
# of their own. Building their model and running the rules costs most of the audit's Python time, so the job
# asks first which rows CAN have a finding and lints only those; the others get their figures from their
# columns (:func:`quiet_figures`). The rules stay where they are (``lint_model``): this only rules rows out, by
# facts that make every rule of the catalogue silent. A queue without consumers is checked by the rules below
# only (the others are ``consumers_only``); if the catalogue gains one more such rule, every row is linted until
# the pre-filter learns about it (``tests/audit/test_prefilter.py`` checks both).
QUIET_RULES = frozenset(
    {
        "VG001",
        "VG002",
        "VG003",
        "VG004",
        "VG005",
        "VG022",
        "VG023",
        "VG041",
        "VG042",
        "VG066",
        "VG067",
        "VG085",
    }
)  # VG085's check finds nothing in a lint (drift is found beside it: visguard.audit.drift)


def _column(batch, name: str):
    import pyarrow as pa

    i = batch.schema.get_field_index(name)
    return batch.column(i) if i >= 0 else pa.nulls(batch.num_rows)


def _tag(batch, key: str):
    """The tags column's field ``key`` (the job's struct of the tags it reads; all null when absent)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    tags = _column(batch, "tags")
    if pa.types.is_struct(tags.type) and tags.type.get_field_index(key) >= 0:
        return pc.struct_field(tags, [tags.type.get_field_index(key)])
    return pa.nulls(batch.num_rows, pa.string())


def _floats(batch, name: str) -> np.ndarray:
    """A numeric column as floats, NaN for null."""
    import pyarrow as pa
    import pyarrow.compute as pc

    col = _column(batch, name)
    if pa.types.is_null(col.type):
        return np.full(batch.num_rows, np.nan)
    return pc.fill_null(pc.cast(col, pa.float64()), np.nan).to_numpy(zero_copy_only=False)


def _flags(batch, name: str) -> np.ndarray:
    """A boolean column, False for null."""
    import pyarrow as pa
    import pyarrow.compute as pc

    col = _column(batch, name)
    if pa.types.is_null(col.type):
        return np.zeros(batch.num_rows, dtype=bool)
    return pc.fill_null(col, False).to_numpy(zero_copy_only=False).astype(bool)


def _whole_in(v: np.ndarray, rng) -> np.ndarray:
    """v is a whole number within the AWS range (``Range.__contains__`` and ``v == int(v)``, per element)."""
    with np.errstate(invalid="ignore"):
        return (v == np.floor(v)) & (v >= rng.lo) & (v <= rng.hi)


def needs_lint(batch, config=None, extra: dict | None = None) -> np.ndarray:
    """Per joined row (an Arrow batch with the columns of ``tables.QUEUE_COLUMNS``): False where no rule of the
    catalogue can report anything, i.e. ``lint_rows`` would give the row no finding and the figures of
    :func:`quiet_figures`. Conservative: a row it cannot rule out is linted.

    A row is quiet when its queue has no consumer (no mapping or worker joined, no worker declared by tag, and
    no receives unless it is a DLQ: so no unknown consumer, and no observed redelivery, VG042); its visibility
    timeout, retention and delay are whole numbers in AWS's ranges or unset (VG001, VG005); a FIFO queue's
    visibility timeout is at most ``fifo_block_seconds`` (VG041); and either it has no redrive policy, or its
    policy has a maxReceiveCount in 1-1000 (VG002) and a target that the inventory holds (VG004): a queue of the
    same type (VG003), other than itself and without a redrive policy of its own (no loop in the row's model:
    VG023), that keeps messages longer than a standard source (VG022). An inventory queue has no subscriptions
    (VG066, VG067). ``extra`` (long redrive loops) and visguard.yaml profiles (which add consumers) send their
    rows to the linter."""
    from visguard.facts import (
        DEFAULT_RETENTION,
        DELAY,
        MAX_RECEIVE_COUNT,
        RETENTION,
        VISIBILITY_TIMEOUT,
    )
    from visguard.linter.context import RuleContext
    from visguard.linter.model import LintConfig
    from visguard.linter.rules import RULES

    n = batch.num_rows
    disabled = set(config.disabled) if config is not None else set()
    unknown = {r.id for r in RULES.values() if not r.consumers_only and r.id not in disabled} - QUIET_RULES
    if unknown or (config is not None and config.profiles):
        return np.ones(n, dtype=bool)
    import pyarrow as pa
    import pyarrow.compute as pc

    consumers = _column(batch, "consumers")
    if consumers.null_count == n:
        has_consumers = np.zeros(n, dtype=bool)
    else:
        has_consumers = pc.fill_null(pc.list_value_length(consumers), 0).to_numpy(zero_copy_only=False) > 0
    tag_worker = pc.fill_null(pc.equal(_tag(batch, TAG_CONSUMER), "worker"), False).to_numpy(
        zero_copy_only=False
    ) | _tag(batch, TAG_P99).is_valid().to_numpy(zero_copy_only=False)
    with np.errstate(invalid="ignore"):
        received = (_floats(batch, "received") > 0) & ~_flags(batch, "is_dlq")
    fifo = _flags(batch, "fifo")
    ctx = RuleContext(Model(), config or LintConfig())
    ctx.rule = RULES["VG041"]
    block = float(ctx.setting("fifo_block_seconds"))
    vt, ret, delay = _floats(batch, "vt"), _floats(batch, "retention"), _floats(batch, "delay")
    ranges_ok = (
        (np.isnan(vt) | _whole_in(vt, VISIBILITY_TIMEOUT))
        & (np.isnan(ret) | _whole_in(ret, RETENTION))
        & (np.isnan(delay) | _whole_in(delay, DELAY))
    )
    dlq_ret = _floats(batch, "dlq_retention")
    own_ret = np.where(np.isnan(ret), DEFAULT_RETENTION, ret)
    with np.errstate(invalid="ignore"):
        longer = np.where(np.isnan(dlq_ret), DEFAULT_RETENTION, dlq_ret) > own_ret
    arn, dlq_arn = _column(batch, "arn"), pc.cast(_column(batch, "dlq_arn"), pa.string())
    # the row's DLQ is its redrive target, and another queue than itself
    dlq = pc.and_(
        pc.equal(dlq_arn, pc.cast(_column(batch, "target_arn"), pa.string())),
        pc.not_equal(dlq_arn, pc.cast(arn, pa.string())),
    )
    dlq = pc.fill_null(dlq, False).to_numpy(zero_copy_only=False)
    redrive_ok = (
        _whole_in(_floats(batch, "max_receive_count"), MAX_RECEIVE_COUNT)
        & _flags(batch, "target_partition_known")
        & dlq
        & (_flags(batch, "dlq_fifo") == fifo)
        & ~_flags(batch, "dlq_has_redrive")
        & (longer | fifo)
    )
    quiet = (
        ~has_consumers
        & ~tag_worker
        & ~received
        & (~fifo | (np.where(np.isnan(vt), 30.0, vt) <= block))
        & ranges_ok
        & (~_flags(batch, "has_redrive") | redrive_ok)
    )
    if extra:
        quiet &= ~pc.fill_null(pc.is_in(arn, value_set=pa.array(list(extra), arn.type)), False).to_numpy(
            zero_copy_only=False
        )
    return ~quiet


def quiet_figures(batch, owner_tags: tuple[str, ...] = ()) -> dict:
    """The figures ``lint_rows`` gives a row that :func:`needs_lint` rules out, as Arrow arrays by column
    name: no consumers (no required timeout, ratio, kinds or duplicate estimate), no findings, no receives (no
    observed rate); the owner is the first non-empty owner tag."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = batch.num_rows

    def num(name):  # _num: a float, NaN as null
        v = pc.cast(_column(batch, name), pa.float64())
        return pc.if_else(pc.is_nan(v), pa.scalar(None, pa.float64()), v)

    owner = pa.nulls(n, pa.string())
    for key in reversed(owner_tags):  # the first present (non-empty) tag wins
        v = pc.cast(_tag(batch, key), pa.string())
        owner = pc.if_else(pc.fill_null(pc.not_equal(v, ""), False), v, owner)
    nothing = pa.nulls(n, pa.float64())
    return {
        "account": _column(batch, "account"),
        "region": _column(batch, "region"),
        "arn": _column(batch, "arn"),
        "name": _column(batch, "name"),
        "vt": num("vt"),
        "required_vt": nothing,
        "ratio": nothing,
        "consumer_kinds": pa.array([""] * n, pa.string()),
        "findings": pa.array(np.zeros(n, dtype=np.int64)),
        "worst": pa.nulls(n, pa.string()),
        "duplicate_rate": nothing,
        "owner": owner,
        "received": num("received"),
        "deleted": num("deleted"),
        "age_oldest": num("age_oldest"),
        "observed_rate": nothing,
    }
