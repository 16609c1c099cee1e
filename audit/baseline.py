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
folder), or one of those directly. Anything else is bad input with the path named; a FIFO or a device is named
as such and never opened.

The baseline is read and validated completely (:func:`read`) before the audit writes or removes anything, and
a baseline inside (or equal to) a folder the audit writes (``--out``, ``--report-dir``) is refused
(:func:`refuse_inside`): ``--overwrite`` would remove it before it is compared (docs/security.md).
"""

from __future__ import annotations

import csv
import hashlib
import os
import stat
from collections import Counter
from pathlib import Path

from visguard.errors import VisguardError
from visguard.neutralize import printable

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
    """One fingerprint per row of a findings table (pyarrow): :func:`fingerprint`'s keys joined in Arrow, only
    the hashing in Python."""
    import pyarrow as pa
    import pyarrow.compute as pc

    cols = [table.column(c) for c in ("rule", "queue_arn", "consumer")]
    if any(c.type != pa.string() for c in cols):  # str() of another type is Python's, not Arrow's cast
        return [fingerprint(r, a, c) for r, a, c in zip(*(c.to_pylist() for c in cols), strict=True)]
    keys = pc.binary_join_element_wise(*cols, "\x1f", null_handling="replace", null_replacement="")
    h = hashlib.blake2b
    return [h(k, digest_size=16).hexdigest() for k in keys.cast(pa.binary()).to_pylist()]


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
    for r, fp in zip(rows, fingerprints(table), strict=True):
        r["fingerprint"] = fp
    return rows


def _read_csv(path: Path) -> list[dict]:
    from visguard.linter.loaders.safe_io import open_regular

    fd, _ = open_regular(str(path))  # a FIFO swapped in after _locate is refused, never waited on
    try:
        with os.fdopen(fd, newline="", encoding="utf-8") as fh:
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


def _stat(p: Path) -> os.stat_result | None:
    try:
        return os.stat(p)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise VisguardError(f"cannot read: {getattr(e, 'strerror', None) or e}", file=str(p)) from None


def _kind(st: os.stat_result) -> str:
    if stat.S_ISFIFO(st.st_mode):
        return "a named pipe"
    if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
        return "a device"
    if stat.S_ISSOCK(st.st_mode):
        return "a socket"
    return "not a regular file"


def _locate(previous: str | Path) -> tuple[str, Path]:
    """("parquet" | "csv", path) of the previous findings; VisguardError when there are none. Only ``stat``:
    nothing is opened here."""
    if "://" in str(previous):
        raise VisguardError(
            "--baseline must be a local folder or file (copy a remote result first)", file=str(previous)
        )
    p = Path(previous)
    st = _stat(p)
    if st is None:
        raise VisguardError("no such file or folder", file=str(p))
    if stat.S_ISDIR(st.st_mode):
        found = _stat(p / "findings")
        if found is not None and stat.S_ISDIR(found.st_mode):
            return "parquet", p / "findings"
        found = _stat(p / "findings.csv")
        if found is not None and not stat.S_ISREG(found.st_mode):
            raise VisguardError(f"{_kind(found)}, not a regular file", file=str(p / "findings.csv"))
        if found is not None:
            return "csv", p / "findings.csv"
        raise VisguardError(
            "not a visguard result: no findings/ (Parquet) or findings.csv in it", file=str(p)
        )
    if not stat.S_ISREG(st.st_mode):
        raise VisguardError(f"{_kind(st)}, not a regular file or a folder", file=str(p))
    if p.suffix == ".csv":
        return "csv", p
    if p.suffix == ".parquet":
        return "parquet", p
    raise VisguardError("expected a result folder, findings.csv or a Parquet file", file=str(p))


class Baseline:
    """A previous result's findings, read and validated in full: ``str()`` is the path it was given as."""

    __slots__ = ("path", "rows")

    def __init__(self, path: str, rows: list[dict]):
        self.path, self.rows = path, rows

    def __str__(self) -> str:
        return self.path


def read(previous: str | Path | Baseline) -> Baseline:
    """The whole baseline, every row checked (raises VisguardError on bad input, before anything is written)."""
    if isinstance(previous, Baseline):
        return previous
    kind, path = _locate(previous)
    return Baseline(str(previous), _read_parquet(path) if kind == "parquet" else _read_csv(path))


def check_previous(previous: str | Path) -> None:
    """Fail early (before the audit runs) when ``previous`` holds no findings to compare with."""
    _locate(previous)


def load_previous(previous: str | Path | Baseline) -> list[dict]:
    """The previous result's findings as dicts with a ``fingerprint`` (raises VisguardError on bad input)."""
    return read(previous).rows


def refuse_inside(previous: str | Path | Baseline, folders: dict[Path, str]) -> None:
    """A VisguardError when the baseline is one of ``folders`` (path -> its option, e.g. ``--out``) or inside
    one: the audit removes a previous result there (``--overwrite``) and writes its own."""
    mine = os.path.realpath(str(previous))
    for folder, place in folders.items():
        base = os.path.realpath(folder)
        if mine == base or mine.startswith(base.rstrip(os.sep) + os.sep):
            where = "is the" if mine == base else "is inside the"
            raise VisguardError(
                f"{where} {place} folder {printable(str(folder))}, which the audit replaces: copy the previous "
                "result elsewhere and give that",
                file=printable(str(previous)),
                place="--baseline",
            )


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
