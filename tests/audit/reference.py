"""A plain-Python reference of the Spark job's parse and joins, for tests: the Spark job must produce exactly
the rows this produces (same quarantine, same joined rows, therefore the same findings)."""

from __future__ import annotations

import json
import re

from visguard.audit import inventory
from visguard.audit.tables import CONSUMER_FIELDS, FUNCTION_FIELDS, WORKER_SETTINGS
from visguard.audit.transforms import LEGACY_HOST, URL_PATH, URL_REGION

NUM = re.compile(r"^\s*-?[0-9]+(\.[0-9]+)?\s*$")
BASE = re.compile(r"^(arn:[^:]+:lambda:[^:]+:[^:]+:function:[^:]+)")


def _f(v):
    return None if v is None else float(v)


def parse_queue(rec: dict) -> tuple[dict | None, str | None]:
    a = rec.get("attributes") or {}
    vt, ret, rp = a.get("VisibilityTimeout"), a.get("MessageRetentionPeriod"), a.get("RedrivePolicy")
    if vt is None:
        return None, "attribute VisibilityTimeout is missing"
    if not NUM.match(vt):
        return None, "VisibilityTimeout is not a number"
    if ret is not None and not NUM.match(ret):
        return None, "MessageRetentionPeriod is not a number"
    target = mrc = None
    if rp is not None:
        try:
            pol = json.loads(rp)
        except ValueError:
            return None, "RedrivePolicy is not a JSON object"
        if not isinstance(pol, dict):
            return None, "RedrivePolicy is not a JSON object"
        target = pol.get("deadLetterTargetArn")
        mrc = pol.get("maxReceiveCount")
        if mrc is not None and not NUM.match(str(mrc)):
            return None, "RedrivePolicy maxReceiveCount is not a number"
    return {
        "account": rec["account"],
        "region": rec["region"],
        "arn": rec["arn"],
        "name": rec.get("name"),
        "tags": rec.get("tags") or {},
        "received": (rec.get("metrics") or {}).get("received"),
        "deleted": (rec.get("metrics") or {}).get("deleted"),
        "age_oldest": (rec.get("metrics") or {}).get("age_oldest_max"),
        "fifo": (a.get("FifoQueue") or "false").lower() == "true",
        "vt": float(vt),
        "retention": _f(ret),
        "delay": _f(a.get("DelaySeconds")),
        "has_redrive": rp is not None,
        "target_arn": target,
        "max_receive_count": None if mrc is None else float(mrc),
    }, None


def latest_records(root: str) -> list[dict]:
    """Every record, those that repeat an identity (a queue's or function's ARN, a mapping's UUID) counted once:
    the latest (files in name order, lines in file order) wins, in the place of the first."""
    by_key: dict = {}
    for _, _, rec in inventory.iter_records(root):
        if not isinstance(rec, dict):
            continue
        k = rec.get("kind")
        ident = (
            rec.get("uuid")
            if k == "mapping"
            else rec.get("arn")
            if k in ("queue", "function")
            else (rec.get("arn"), rec.get("queue"))
            if k == "worker"
            else None
        )
        by_key[(k, ident) if ident is not None else ("#", len(by_key))] = rec
    return list(by_key.values())


def queue_key(ref: str, region: str | None) -> str | None:
    """REGION:ACCOUNT:NAME of a queue ARN or URL (transforms.queue_key)."""
    if ref.startswith("arn:"):
        return ":".join(ref.split(":")[3:6])
    path = re.match(URL_PATH, ref)
    if not path:
        return None
    host = re.match(URL_REGION, ref)
    r = host.group(1) if host else "us-east-1" if re.match(LEGACY_HOST, ref) else region
    return f"{r}:{path.group(1)}:{path.group(2)}"


def joined_rows(root: str) -> tuple[list[dict], dict[str, str]]:
    """(joined queue rows, {arn: quarantine reason})."""
    queues, quarantine, mappings, functions, workers, known = {}, {}, [], {}, [], set()
    for rec in latest_records(root):
        k = rec.get("kind")
        if k == "queue":
            row, why = parse_queue(rec)
            if why:
                quarantine[rec["arn"]] = why
            else:
                queues[row["arn"]] = row
        elif k == "mapping" and ":sqs:" in rec["event_source_arn"]:
            mappings.append(rec)
        elif k == "function":
            functions[rec["arn"]] = rec
        elif k == "worker" and rec.get("arn") and rec.get("queue"):
            workers.append(rec)
        elif k == "partition" and rec["errors"] == 0:
            known.add(f"{rec['account']}/{rec['region']}")
    for q in queues.values():
        t = q["target_arn"]
        q["target_partition_known"] = (
            bool(t) and f"{t.split(':')[4]}/{t.split(':')[3]}" in known if t and t.count(":") >= 5 else False
        )
    consumers: dict[str, list] = {}
    by_key = {k: a for a in queues if (k := queue_key(a, None)) is not None}
    for w in workers:
        key = queue_key(w["queue"], w["region"])
        arn = by_key.get(key) if key is not None else None
        consumers.setdefault(arn or w["queue"], []).append(
            {
                **dict.fromkeys(CONSUMER_FIELDS),
                "worker_arn": w["arn"],
                "queue_ref": w["queue"],
                **{c: w.get(c) for c in ("state", "batch_size", "batching_window", *WORKER_SETTINGS)},
            }
        )
    for m in mappings:
        fn = functions.get(m["function_arn"])
        if fn is None:
            b = BASE.match(m["function_arn"])
            fn = functions.get(b.group(1)) if b else None
        consumers.setdefault(m["event_source_arn"], []).append(
            {
                **dict.fromkeys(CONSUMER_FIELDS),
                "uuid": m["uuid"],
                "function_arn": m["function_arn"],
                "state": m.get("state"),
                "batch_size": m.get("batch_size"),
                "batching_window": m.get("batching_window"),
                "maximum_concurrency": m.get("maximum_concurrency"),
                "function_response_types": m.get("function_response_types"),
                "metrics_config": m.get("metrics_config"),
                "esm_metrics": m.get("esm_metrics"),
                "min_pollers": m.get("min_pollers"),
                "max_pollers": m.get("max_pollers"),
                "function_found": fn is not None,
                **{k: (fn or {}).get(k) for k in FUNCTION_FIELDS},
            }
        )
    targets = {q["target_arn"] for q in queues.values() if q["target_arn"]}
    cols = (
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
        "age_oldest",
        "target_partition_known",
    )
    rows = []
    for q in queues.values():
        row = dict(q)
        # as Spark's sort_array: nulls first (workers before mappings), then by the consumer's identity
        row["consumers"] = sorted(
            consumers.get(q["arn"], []),
            key=lambda c: (c["uuid"] is not None, c["uuid"] or "", c["worker_arn"] or ""),
        )
        row["is_dlq"] = q["arn"] in targets
        d1 = queues.get(q["target_arn"]) if q["target_arn"] else None
        d2 = queues.get(d1["target_arn"]) if d1 and d1["target_arn"] else None
        for p, d in (("dlq_", d1), ("dlq2_", d2)):
            for c in cols:
                row[p + c] = d[c] if d else None
        rows.append(row)
    return rows, quarantine
