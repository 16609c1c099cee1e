"""Arrow column helpers for the driver's outputs: a per-row Python function applied once per distinct value (or
combination of values) instead of once per row, truthiness as Python sees it, and JSON string literals built in
Arrow. A 1M-queue fleet has ~800,000 findings but a few hundred accounts, twenty rules and three severities."""

from __future__ import annotations

import json

_q = json.encoder.encode_basestring_ascii  # a JSON string literal, ASCII only (as json.dumps)
# what encode_basestring_ascii escapes: a backslash, a quote, and anything outside printable ASCII (space to ~)
_NEEDS_ESCAPE_RE2 = r"[^\x20\x21\x23-\x5b\x5d-\x7e]"


def per_distinct(fn, *cols, type=None):
    """``fn(*values)`` for every row of the Arrow columns ``cols`` (None for null), as an Arrow array of ``type``
    (string by default), calling ``fn`` once per distinct combination of values."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    type = type or pa.string()
    n = len(cols[0])
    if n == 0:
        return pa.array([], type)
    key = np.zeros(n, np.int64)
    uniques = []
    for c in cols:
        u = pc.unique(c)  # null included when there is one
        code = pc.index_in(c, value_set=u, skip_nulls=False)
        key = key * len(u) + np.asarray(code.to_numpy(zero_copy_only=False), np.int64)
        uniques.append(u.to_pylist())
    distinct, inverse = np.unique(key, return_inverse=True)
    out = []
    for k in distinct.tolist():
        values = []
        for u in reversed(uniques):
            k, i = divmod(k, len(u))
            values.append(u[i])
        out.append(fn(*reversed(values)))
    return pa.array(out, type).take(pa.array(inverse.reshape(-1)))


def truthy(col):
    """Which cells of an Arrow string column Python calls true (neither null nor empty)."""
    import pyarrow.compute as pc

    return pc.fill_null(pc.not_equal(col, ""), False)


def json_strings(col):
    """Each cell of an Arrow string column as the JSON string literal ``json.dumps`` writes for it (ASCII only),
    null for null: quotes added in Arrow, and only the cells with something to escape go through Python."""
    import pyarrow as pa
    import pyarrow.compute as pc

    col = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    quoted = pc.binary_join_element_wise('"', col, '"', "")
    mask = pc.fill_null(pc.match_substring_regex(col, _NEEDS_ESCAPE_RE2), False)
    idx = pc.indices_nonzero(mask)
    if len(idx) == 0:
        return quoted
    fixed = pa.array([_q(v) for v in col.take(idx).to_pylist()], pa.string())
    return pc.replace_with_mask(quoted, mask, fixed)


def joined(*parts):
    """Row-wise concatenation of Arrow string columns and Python strings (a null part makes the row null)."""
    import pyarrow.compute as pc

    return pc.binary_join_element_wise(*parts, "")
