"""Values from inventories are hostile until shown otherwise: queue names, tags, consumer ids and error texts
come from accounts the auditor does not control. These pure functions make one value safe for one output.

- :func:`visible` shows control characters (C0, DEL, C1) and bidirectional overrides as ``\\xNN`` / ``\\uNNNN``
  text, so no ESC sequence, no forged line and no reordered text reaches a terminal, an HTML page or a sheet.
- :func:`csv_cell` also defuses spreadsheet formulas (OWASP "CSV injection"): a cell that starts with
  ``= + - @``, a tab or a carriage return gets a leading ``'``, so Excel, LibreOffice and Google Sheets show it
  as text instead of evaluating it.
"""

from __future__ import annotations

from visguard.neutralize import printable

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def visible(value) -> str:
    """``value`` as text with every control, bidi or other non-printable character shown escaped
    (:func:`visguard.neutralize.printable`, the one neutraliser); None is the empty string."""
    if value is None:
        return ""
    return printable(value)


def csv_cell(value) -> str:
    """A CSV cell: :func:`visible`, and a leading ``'`` before anything a spreadsheet would run as a formula."""
    s = visible(value)
    # checked on the raw value too: a leading tab/CR is escaped by visible() but was meant as a formula prefix
    raw = value if isinstance(value, str) else s
    if s.startswith(_FORMULA_START) or raw.startswith(_FORMULA_START):
        return "'" + s
    return s


# The same two checks for a whole Arrow column (RE2 syntax): only the cells that match go through Python.
# What str.isprintable() calls non-printable: categories C (controls, format, surrogates, private use,
# unassigned) and Z except the plain space.
_UNSAFE_RE2 = r"[\p{C}\p{Zl}\p{Zp}\x{a0}\x{1680}\x{2000}-\x{200a}\x{202f}\x{205f}\x{3000}]"
_FORMULA_RE2 = r"^[=+\-@\t\r]"


def neutral_column(col, *, csv: bool = False):
    """An Arrow string column with :func:`visible` (or :func:`csv_cell` when ``csv``) applied to every cell,
    vectorised: the regular expressions run in Arrow and only the few matching cells are rewritten."""
    import pyarrow as pa
    import pyarrow.compute as pc

    col = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    if col.type != pa.string():
        col = col.cast(pa.string())
    mask = pc.match_substring_regex(col, _UNSAFE_RE2)
    if csv:
        mask = pc.or_(mask, pc.match_substring_regex(col, _FORMULA_RE2))
    mask = pc.fill_null(mask, False)
    idx = pc.indices_nonzero(mask).to_pylist()
    if not idx:
        return col
    fix = csv_cell if csv else visible
    fixed = pa.array([fix(v) for v in col.take(pa.array(idx)).to_pylist()], pa.string())
    return pc.replace_with_mask(col, mask, fixed)
