"""``visguard audit run --baseline PREVIOUS_RESULT``: what changed since the last audit.

A finding is identified by its fingerprint: the rule, the queue ARN and the consumer (mapping UUID or declared
fleet), never the message, whose numbers (timeouts, estimates) move from run to run. Findings are compared as
multisets of fingerprints: a fingerprint found n times now and m times before is min(n, m) times unchanged,
n - m times new (n > m) or m - n times resolved (m > n).

A suppression is not a fix: suppressed findings stay in the result (state "suppressed"), so a finding open in the
baseline and suppressed now is "suppressed since baseline", never resolved; a previous finding of a rule the
config now turns off is set apart the same way (:func:`split_disabled`). Only a finding that is no longer found at
all, by a rule that still runs, is resolved.

PREVIOUS_RESULT is a previous result folder (its ``findings/`` Parquet, or the ``findings.csv`` of its report
folder), or one of those directly. Anything else is bad input with the path named.
"""

from __future__ import annotations

import csv
import hashlib
from collections import Counter
from pathlib import Path

from visguard.errors import VisguardError

# Columns kept from the previous result for the report's list of resolved findings.
KEEP = (
    "rule",
    "severity",
    "account",
    "region",
    "owner",
    "queue_arn",
    "queue_name",
    "consumer",
    "message",
    "fix",
    "suppressed",
)


def fingerprint(rule, queue_arn, consumer) -> str:
    """Stable id of a finding across runs: 32 hex digits of BLAKE2b over rule, queue ARN and consumer."""
    key = "\x1f".join(("" if v is None else str(v)) for v in (rule, queue_arn, consumer))
    return hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def fingerprints(table) -> list[str]:
    """One fingerprint per row of a findings table (pyarrow)."""
    cols = [table.column(c).to_pylist() for c in ("rule", "queue_arn", "consumer")]
    return [fingerprint(r, a, c) for r, a, c in zip(*cols, strict=True)]


def _read_parquet(path: Path):
    import pyarrow as pa
    import pyarrow.dataset as ds

    part = ds.partitioning(pa.schema([("account", pa.string()), ("region", pa.string())]), flavor="hive")
    try:
        dataset = ds.dataset(str(path), format="parquet", partitioning=part, exclude_invalid_files=False)
        names = set(dataset.schema.names)
        missing = {"rule", "queue_arn", "consumer"} - names
        if missing:
            raise VisguardError(
                f"not visguard findings: no column {', '.join(sorted(missing))}", file=str(path)
            )
        table = dataset.to_table(columns=[c for c in KEEP if c in names])
    except (OSError, pa.ArrowInvalid) as e:
        raise VisguardError(
            f"cannot read the previous findings: {str(e).splitlines()[0]}", file=str(path)
        ) from e
    rows = table.to_pylist()
    for r in rows:
        r["fingerprint"] = fingerprint(r["rule"], r["queue_arn"], r["consumer"])
    return rows


def _read_csv(path: Path) -> list[dict]:
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            if not reader.fieldnames or "fingerprint" not in reader.fieldnames:
                raise VisguardError("not a visguard findings.csv: no fingerprint column", file=str(path))
            rows = []
            for n, r in enumerate(reader, 2):
                fp = r.get("fingerprint") or ""
                if len(fp) != 32 or any(c not in "0123456789abcdef" for c in fp):
                    raise VisguardError(f"bad fingerprint {fp[:40]!r}", file=str(path), place=f"line {n}")
                row = {k: r.get(k) for k in (*KEEP, "fingerprint")}
                row["suppressed"] = (
                    (r.get("suppressed_by") or "suppressed") if r.get("state") == "suppressed" else None
                )
                rows.append(row)
            return rows
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise VisguardError(f"cannot read the previous findings: {e}", file=str(path)) from e


def _locate(previous: str | Path) -> tuple[str, Path]:
    """("parquet" | "csv", path) of the previous findings; VisguardError when there are none."""
    if "://" in str(previous):
        raise VisguardError(
            "--baseline must be a local folder or file (copy a remote result first)", file=str(previous)
        )
    p = Path(previous)
    if p.is_dir():
        if (p / "findings").is_dir():
            return "parquet", p / "findings"
        if (p / "findings.csv").is_file():
            return "csv", p / "findings.csv"
        raise VisguardError(
            "not a visguard result: no findings/ (Parquet) or findings.csv in it", file=str(p)
        )
    if p.is_file():
        if p.suffix == ".csv":
            return "csv", p
        if p.suffix == ".parquet":
            return "parquet", p
        raise VisguardError("expected a result folder, findings.csv or a Parquet file", file=str(p))
    raise VisguardError("no such file or folder", file=str(p))


def check_previous(previous: str | Path) -> None:
    """Fail early (before the audit runs) when ``previous`` holds no findings to compare with."""
    _locate(previous)


def load_previous(previous: str | Path) -> list[dict]:
    """The previous result's findings as dicts with a ``fingerprint`` (raises VisguardError on bad input)."""
    kind, path = _locate(previous)
    return _read_parquet(path) if kind == "parquet" else _read_csv(path)


def compare(
    current: list[str], previous: list[dict], suppressed: list[bool] | None = None
) -> tuple[list[str], list[dict], dict[str, int]]:
    """(status of each current fingerprint: "new" / "unchanged" / "suppressed since baseline", the resolved
    previous rows, counts). ``suppressed``: which current findings are suppressed (default none). A current
    finding that is suppressed now and was open in the baseline is "suppressed since baseline"; "new" and
    "unchanged" are counted over the open findings, "suppressed" over the suppressed ones."""
    suppressed = suppressed if suppressed is not None else [False] * len(current)
    before = Counter(r["fingerprint"] for r in previous)
    was_open = Counter(r["fingerprint"] for r in previous if not r.get("suppressed"))
    left = Counter(before)
    status = []
    for fp, sup in zip(current, suppressed, strict=True):
        if left[fp] > 0:
            left[fp] -= 1
            if sup and was_open[fp] > 0:
                was_open[fp] -= 1
                status.append("suppressed since baseline")
            else:
                status.append("unchanged")
        else:
            status.append("new")
    resolved = []
    for r in previous:  # the last occurrences of a fingerprint seen fewer times now
        if left[r["fingerprint"]] > 0:
            left[r["fingerprint"]] -= 1
            resolved.append(r)
    pairs = list(zip(status, suppressed, strict=True))
    counts = {
        "new": pairs.count(("new", False)),
        "unchanged": pairs.count(("unchanged", False)),
        "resolved": len(resolved),
        "suppressed": sum(suppressed),
        "suppressed_since_baseline": status.count("suppressed since baseline"),
        "previous_findings": len(previous),
        "previous_suppressed": sum(1 for r in previous if r.get("suppressed")),
    }
    return status, resolved, counts


def split_disabled(resolved: list[dict], disabled) -> tuple[list[dict], list[dict]]:
    """(the truly resolved rows, the rows of a rule the config now turns off: silenced, not fixed)."""
    off = set(disabled or ())
    return [r for r in resolved if r.get("rule") not in off], [r for r in resolved if r.get("rule") in off]
