"""Audit findings as OCSF Detection Finding events (class 2004, category 2 "Findings", OCSF 1.1.0, cloud
profile): the format Prowler emits and Amazon Security Lake / Security Hub ingest.

Mapping (https://schema.ocsf.io/1.1.0/classes/detection_finding):
- ``finding_info.uid`` is the finding's fingerprint (stable across runs, see :mod:`visguard.audit.baseline`),
  ``finding_info.analytic`` the visguard rule (type Rule), ``title`` the rule's title, ``desc`` the message;
- ``activity_id`` 1 Create for a finding that is new (or when there is no baseline), 2 Update for one already in
  the baseline, 3 Close for one the baseline had and this run no longer finds (``status_id`` 4 Resolved);
- ``status_id`` 1 New for an open finding, 3 Suppressed for one a visguard.yaml suppression hides or whose rule
  the config turned off (``status_detail`` says which): a suppression is not a fix, so it is never Resolved;
- ``severity_id``: error -> 4 High, warning -> 3 Medium, info -> 1 Informational;
- ``resources[0]``: the queue (``uid`` its ARN, ``type`` AWS::SQS::Queue), ``labels`` ``owner=<team>`` when the
  queue has an owner; ``cloud``: provider AWS, the account and region; ``remediation.desc``: the fix.
OCSF strings are JSON strings and keep the values verbatim; the file is ASCII (control characters, bidi overrides
and all non-ASCII characters are ``\\uXXXX`` escapes), so no viewer of the file meets a raw escape sequence.
"""

from __future__ import annotations

import json

OCSF_VERSION = "1.1.0"
CLASS_UID = 2004
CATEGORY_UID = 2
SEVERITY_ID = {"error": 4, "warning": 3, "info": 1}
SEVERITY_NAME = {4: "High", 3: "Medium", 1: "Informational", 0: "Unknown"}
ACTIVITY = {
    "new": (1, "Create"),
    "unchanged": (2, "Update"),
    "suppressed since baseline": (2, "Update"),
    "resolved": (3, "Close"),
}


def _status(status: str, suppressed: bool) -> tuple[int, str]:
    if status == "resolved":
        return 4, "Resolved"
    return (3, "Suppressed") if suppressed else (1, "New")


def _product() -> dict:
    try:
        from importlib.metadata import version

        v = version("visguard")
    except Exception:  # noqa: BLE001 - an uninstalled checkout still writes valid events
        v = "0"
    return {"name": "visguard", "vendor_name": "visguard", "version": v, "feature": {"name": "fleet audit"}}


def event(
    row: dict, *, status: str, time_ms: int, rules: dict, product: dict, suppressed: bool = False
) -> dict:
    """One Detection Finding. ``row`` is a findings row with ``fingerprint``; ``status`` new/unchanged/resolved
    (or "suppressed since baseline"); ``suppressed``: the finding is suppressed (``row["suppressed_by"]`` says
    why); ``rules`` maps a rule id to its catalogue entry (title, source URL) when known."""
    activity_id, activity = ACTIVITY[status]
    sev = SEVERITY_ID.get(row.get("severity") or "", 0)
    rule_id = row.get("rule") or "?"
    rule = rules.get(rule_id)
    title = rule.title if rule is not None else rule_id
    arn = row.get("queue_arn") or ""
    resource = {"type": "AWS::SQS::Queue", "uid": arn}
    if row.get("queue_name"):
        resource["name"] = row["queue_name"]
    if row.get("region"):
        resource["region"] = row["region"]
    if arn.startswith("arn:") and arn.count(":") >= 5:
        resource["cloud_partition"] = arn.split(":")[1]
    if row.get("owner"):
        resource["labels"] = [f"owner={row['owner']}"]
    data = {k: row[k] for k in ("consumer",) if row.get(k)}
    if row.get("estimate"):
        try:
            data["estimate"] = json.loads(row["estimate"])
        except ValueError:
            data["estimate"] = row["estimate"]
    if row.get("source_repository"):
        data["source"] = source_data(row)
    if data:
        resource["data"] = data
    cloud = {"provider": "AWS"}
    if row.get("account"):
        cloud["account"] = {"uid": row["account"], "type": "AWS Account", "type_id": 10}
    if row.get("region"):
        cloud["region"] = row["region"]
    remediation = {"desc": row.get("fix") or (rule.fix if rule is not None else "")}
    if rule is not None and rule.source:
        remediation["references"] = [rule.source]
    out = {
        "activity_id": activity_id,
        "activity_name": activity,
        "category_uid": CATEGORY_UID,
        "category_name": "Findings",
        "class_uid": CLASS_UID,
        "class_name": "Detection Finding",
        "type_uid": CLASS_UID * 100 + activity_id,
        "type_name": f"Detection Finding: {activity}",
        "time": time_ms,
        "severity_id": sev,
        "severity": SEVERITY_NAME[sev],
        "status_id": _status(status, suppressed)[0],
        "status": _status(status, suppressed)[1],
        **({"status_detail": f"suppressed: {row.get('suppressed_by') or ''}"} if suppressed else {}),
        "message": row.get("message") or "",
        "finding_info": {
            "uid": row["fingerprint"],
            "title": title,
            "analytic": {"uid": rule_id, "name": title, "type": "Rule", "type_id": 1},
        },
        "metadata": {
            "version": OCSF_VERSION,
            "product": product,
            "profiles": ["cloud"],
            "event_code": rule_id,
        },
        "cloud": cloud,
        "resources": [resource],
        "remediation": remediation,
    }
    return out


_q = json.encoder.encode_basestring_ascii  # a JSON string literal, ASCII only (as json.dumps)
_SEP = (",", ":")


SOURCE_KEYS = ("source_repository", "source_file", "source_line", "declared_by")


def source_data(row: dict) -> dict:
    """Where the finding's queue is declared (``--sources``): resources[].data.source."""
    line = row.get("source_line")
    return {
        "repository": row.get("source_repository"),
        "file": row.get("source_file"),
        "line": int(line) if line not in (None, "") else None,
        "declared_by": row.get("declared_by"),
    }


def _data_json(row: dict) -> str:
    """``,"data":{...}`` of a row with an estimate or a source location (json.dumps, as :func:`event`)."""
    g = row.get
    data = {"consumer": row["consumer"]} if g("consumer") else {}
    if g("estimate"):
        try:
            data["estimate"] = json.loads(row["estimate"])
        except ValueError:
            data["estimate"] = row["estimate"]
    if g("source_repository"):
        data["source"] = source_data(row)
    return ',"data":' + json.dumps(data, ensure_ascii=True, separators=_SEP)


class Writer:
    """``findings.ocsf.json``: one JSON array, one event per line (streamed: a 1M-queue fleet's findings never
    sit in memory as one document).

    :meth:`add` writes exactly :func:`event` (a test checks it), but from string pieces: what is constant per
    rule or per (status, severity) is encoded once, and each finding only encodes its own strings. That is
    about four times faster than building and dumping a dict per finding."""

    def __init__(self, path, *, time_ms: int):
        from visguard.audit.report import rule_catalogue

        self.path = path
        self.tmp = path.with_name(path.name + ".tmp")
        self.fh = self.tmp.open("wb")  # ASCII: every string is written as a JSON escape beyond it
        self.fh.write(b"[")
        self.n = 0
        self.time_ms = time_ms
        self.rules = rule_catalogue()
        self.product = json.dumps(_product(), ensure_ascii=True, separators=_SEP)
        self._heads: dict = {}
        self._rule: dict = {}

    def _head(self, status: str, sev: int, suppressed: bool) -> str:
        key = (status, sev, suppressed)
        if key not in self._heads:
            sid, sname = _status(status, suppressed)
            aid, act = ACTIVITY[status]
            self._heads[key] = (
                f'{{"activity_id":{aid},"activity_name":"{act}","category_uid":{CATEGORY_UID},'
                f'"category_name":"Findings","class_uid":{CLASS_UID},"class_name":"Detection Finding",'
                f'"type_uid":{CLASS_UID * 100 + aid},"type_name":"Detection Finding: {act}","time":{self.time_ms},'
                f'"severity_id":{sev},"severity":"{SEVERITY_NAME[sev]}","status_id":{sid},"status":"{sname}"'
            )
        return self._heads[key]

    def _rule_parts(self, rule_id: str) -> tuple[str, str, str, str]:
        if rule_id not in self._rule:
            rule = self.rules.get(rule_id)
            title = rule.title if rule is not None else rule_id
            info = f',"title":{_q(title)},"analytic":{{"uid":{_q(rule_id)},"name":{_q(title)},"type":"Rule","type_id":1}}}}'
            meta = (
                f',"metadata":{{"version":"{OCSF_VERSION}","product":{self.product},"profiles":["cloud"],'
                f'"event_code":{_q(rule_id)}}}'
            )
            refs = f',"references":[{_q(rule.source)}]' if rule is not None and rule.source else ""
            self._rule[rule_id] = (info, meta, refs, rule.fix if rule is not None else "")
        return self._rule[rule_id]

    def add(self, row: dict, status: str, *, suppressed: bool = False) -> None:
        g = row.get
        sev = SEVERITY_ID.get(g("severity") or "", 0)
        info, meta, refs, default_fix = self._rule_parts(g("rule") or "?")
        arn = g("queue_arn") or ""
        res = ['{"type":"AWS::SQS::Queue","uid":', _q(arn)]
        if g("queue_name"):
            res += [',"name":', _q(row["queue_name"])]
        if g("region"):
            res += [',"region":', _q(row["region"])]
        if arn.startswith("arn:") and arn.count(":") >= 5:
            res += [',"cloud_partition":', _q(arn.split(":")[1])]
        if g("owner"):
            res += [',"labels":[', _q(f"owner={row['owner']}"), "]"]
        if g("consumer") and not g("estimate") and not g("source_repository"):
            res += [',"data":{"consumer":', _q(row["consumer"]), "}"]
        elif g("estimate") or g("source_repository"):
            res.append(_data_json(row))
        cloud = ['{"provider":"AWS"']
        if g("account"):
            cloud += [',"account":{"uid":', _q(row["account"]), ',"type":"AWS Account","type_id":10}']
        if g("region"):
            cloud += [',"region":', _q(row["region"])]
        self.fh.write(
            "".join(
                [
                    "\n" if self.n == 0 else ",\n",
                    self._head(status, sev, suppressed),
                    ',"status_detail":' + _q(f"suppressed: {g('suppressed_by') or ''}") if suppressed else "",
                    ',"message":',
                    _q(g("message") or ""),
                    ',"finding_info":{"uid":',
                    _q(row["fingerprint"]),
                    info,
                    meta,
                    ',"cloud":',
                    *cloud,
                    '},"resources":[',
                    *res,
                    '}],"remediation":{"desc":',
                    _q(g("fix") or default_fix),
                    refs,
                    "}}",
                ]
            ).encode("utf-8")
        )
        self.n += 1

    def add_table(self, t, *, chunk: int = 32_768) -> None:
        """:meth:`add` for every row of a prioritised findings table, in order (status: its ``baseline``, new
        when null; suppressed: its ``state``), byte for byte the same events (a test checks it) but built
        column-wise: the pieces a few values decide (head, rule, cloud, labels) are made once per distinct
        value, the strings are quoted in Arrow (only those with something to escape go through Python), and
        each chunk of events is joined in Arrow and written as one buffer."""
        for start in range(0, t.num_rows, chunk):
            data = _buffer(self._events(t.slice(start, chunk)))
            self.fh.write(
                data[1:] if self.n == 0 else data
            )  # the first event follows "[" with "\n", not ",\n"
            self.n += min(chunk, t.num_rows - start)

    def _events(self, t):
        """The events of the rows of ``t`` (one chunk), each ``",\n{...}"``, as an Arrow string array."""
        import pyarrow as pa
        import pyarrow.compute as pc
        from visguard.audit.columns import joined, json_strings, per_distinct, truthy

        def col(name):
            return t.column(name).combine_chunks()

        empty = pa.scalar("", pa.string())

        def present(cond, *parts):
            return pc.if_else(cond, joined(*parts), empty)

        def head(status, sev, state, sup_by):
            suppressed = state == "suppressed"
            detail = ',"status_detail":' + _q(f"suppressed: {sup_by or ''}") if suppressed else ""
            return self._head(status or "new", SEVERITY_ID.get(sev or "", 0), suppressed) + detail

        def cloud(account, region):
            acct = f',"account":{{"uid":{_q(account)},"type":"AWS Account","type_id":10}}' if account else ""
            return '{"provider":"AWS"' + acct + (f',"region":{_q(region)}' if region else "") + "}"

        def resource_tail(region, partition, owner):
            return (
                (f',"region":{_q(region)}' if region else "")
                + (f',"cloud_partition":{_q(partition)}' if partition is not None else "")
                + (f',"labels":[{_q(f"owner={owner}")}]' if owner else "")
            )

        def rule_info(rule):
            info, meta, _, _ = self._rule_parts(rule or "?")
            return info + meta

        def rule_tail(rule):
            return self._rule_parts(rule or "?")[2] + "}}"

        arn = pc.fill_null(col("queue_arn"), "")
        is_arn = pc.and_(pc.starts_with(arn, "arn:"), pc.greater_equal(pc.count_substring(arn, ":"), 5))
        partition = pc.if_else(
            is_arn,
            pc.struct_field(pc.extract_regex(arn, "^arn:(?P<p>[^:]*):"), [0]),
            pa.scalar(None, pa.string()),
        )
        consumer, estimate, fix = col("consumer"), col("estimate"), col("fix")
        has_estimate = truthy(estimate)
        data = present(
            pc.and_(truthy(consumer), pc.invert(has_estimate)),
            ',"data":{"consumer":',
            json_strings(consumer),
            "}",
        )
        if "source_repository" in t.column_names:  # --sources: a located finding's data says where
            has_estimate = pc.or_(has_estimate, truthy(col("source_repository")))
        rows = pc.indices_nonzero(has_estimate)
        if len(rows):
            names = [c for c in ("consumer", "estimate", *SOURCE_KEYS) if c in t.column_names]
            picked = t.select(names).take(rows).to_pylist()
            data = pc.replace_with_mask(
                data, has_estimate, pa.array([_data_json(r) for r in picked], pa.string())
            )
        desc = pc.if_else(
            truthy(fix),
            json_strings(fix),
            per_distinct(lambda r: _q(self._rule_parts(r or "?")[3]), col("rule")),
        )
        return joined(
            ",\n",
            per_distinct(head, col("baseline"), col("severity"), col("state"), col("suppressed_by")),
            ',"message":',
            json_strings(pc.fill_null(col("message"), "")),
            ',"finding_info":{"uid":',
            json_strings(col("fingerprint")),
            per_distinct(rule_info, col("rule")),
            ',"cloud":',
            per_distinct(cloud, col("account"), col("region")),
            ',"resources":[{"type":"AWS::SQS::Queue","uid":',
            json_strings(arn),
            present(truthy(col("queue_name")), ',"name":', json_strings(col("queue_name"))),
            per_distinct(resource_tail, col("region"), partition, col("owner")),
            data,
            '}],"remediation":{"desc":',
            desc,
            per_distinct(rule_tail, col("rule")),
        )

    def close(self) -> int:
        if not self.fh.closed:
            self.fh.write(b"\n]\n")
            self.fh.close()
            self.tmp.replace(self.path)
        return self.n


def _buffer(strings) -> memoryview:
    """The bytes of all the strings of an Arrow string array (no nulls), one after the other."""
    import numpy as np

    _, offsets, data = strings.buffers()
    at = np.frombuffer(offsets, np.int32, count=len(strings) + 1, offset=4 * strings.offset)
    return memoryview(data)[int(at[0]) : int(at[-1])]
