"""The audit's report: one self-contained HTML file (inline CSS, inline SVG charts, one small inline script, no
network) where a team finds what to fix first.

- **Fix first**: the findings in priority order (errors, then the highest expected duplicate rate), each with
  why it is there and its fix.
- **All findings**: a table over the findings embedded in the page, filtered by severity, rule, account,
  region, owner and baseline status (also from the URL fragment, e.g. ``report.html#severity=error&rule=VG010``),
  grouped by any of them, sortable by every column, paged. Up to ``budget`` findings are embedded (all of them in
  most fleets); beyond that the errors first, then the top findings of every rule x account group, and the
  counts of every group always cover all findings. The full list is in ``findings.csv`` and ``findings/``.
- **Counts per group** (severity, rule, account, region, owner), the baseline comparison, and charts with
  legends and axis labels; the heatmap has a row for every account with findings.

Every value from the inventory is shown through :func:`visguard.audit.neutral.visible` (no control character
or bidi override reaches the page) and HTML-escaped; the embedded data is JSON whose ``<`` are escaped, and the
script writes values with ``textContent`` only.

Rebuild from a result folder: ``python -P -m visguard.audit.report OUT/summary.json OUT/report.html``
(the findings are read from ``OUT/findings/`` when it is there).
"""

from __future__ import annotations

import html
import json
import math
import sys
from pathlib import Path

from visguard.audit.neutral import visible

SEV_COLOR = {"error": "#c0392b", "warning": "#e67e22", "info": "#2e86c1"}
SEVERITIES = ("error", "warning", "info")
RULE_SEVERITY_FALLBACK = "warning"
EMBED_BUDGET = 10_000  # findings embedded in the page; a 1M-queue fleet has ~640,000
FIX_FIRST = 25  # rows of the fix-first table
HEATMAP_MAX_ACCOUNTS = 1_000
GROUPS = ("severity", "rule", "account", "region", "owner")


def _e(x) -> str:
    return html.escape(visible(x), quote=True)


def rule_catalogue() -> dict:
    """Rule id -> the linter's Rule (title, severity, source, fix); empty when the catalogue cannot load."""
    try:
        from visguard.linter.rules import ALL_RULES
    except Exception:  # noqa: BLE001 - the report still renders without the catalogue
        return {}
    return dict(ALL_RULES)


def _rule_severity() -> dict[str, str]:
    return {rid: r.severity.value for rid, r in rule_catalogue().items()}


# ---------------------------------------------------------------------------------------------------- charts
def _svg_open(plot_id: str, title: str, w: float, h: float) -> str:
    return (
        f'<svg id="{plot_id}" class="plot" role="img" aria-label="{_e(title)}" xmlns="http://www.w3.org/2000/svg" '
        f'width="{w:.0f}" height="{h:.0f}" viewBox="0 0 {w:.0f} {h:.0f}">'
    )


def _figure(title: str, svg: str, legend: str = "") -> str:
    return f"<figure><figcaption>{_e(title)}</figcaption>{legend}{svg}</figure>"


def severity_legend() -> str:
    return (
        "<div class='legend'>"
        + "".join(f"<span><i style='background:{c}'></i>{s}</span>" for s, c in SEV_COLOR.items())
        + "</div>"
    )


def nice_step(top: float, ticks: int = 5) -> float:
    """A 1/2/5 x 10^k step giving at most ``ticks`` intervals up to ``top``."""
    raw = top / ticks
    mag = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    for m in (1, 2, 5, 10):
        if m * mag >= raw:
            return max(m * mag, 1)
    return 10 * mag


def bar_chart(
    items: list[tuple[str, int, str]],
    *,
    title: str,
    plot_id: str,
    xlabel: str,
    ylabel: str,
    width: int = 720,
    titles: dict[str, str] | None = None,
) -> str:
    """Horizontal bars (label, value, colour) with axis labels; the caption and legend are HTML (never clipped).
    ``titles``: a longer name per label (a rule's title), shown beside it (cut to fit; whole in the tooltip)."""
    titles = titles or {}
    names = {
        label: _short(f"{label} {titles[label]}" if titles.get(label) else label) for label, _, _ in items
    }
    row, pad, top_pad = 22, 70, 8
    left = max(90, min(430, 12 + 6 * max((len(n) for n in names.values()), default=0)))
    width = max(width, left + 330)
    h = top_pad + row * max(len(items), 1) + 44
    step = nice_step(max([v for _, v, _ in items] or [1]) or 1)
    top = step * math.ceil((max([v for _, v, _ in items] or [1]) or 1) / step)
    pw = width - left - pad
    base = top_pad + row * max(len(items), 1)
    out = [_svg_open(plot_id, title, width, h)]
    for i, (label, v, color) in enumerate(items):
        y = top_pad + i * row
        w = pw * v / top
        full = f"{label} {titles[label]}" if titles.get(label) else label
        out.append(
            f'<text x="{left - 6}" y="{y + 14}" text-anchor="end"><title>{_e(full)}</title>{_e(names[label])}</text>'
        )
        out.append(
            f'<rect class="bar" x="{left}" y="{y}" width="{w:.1f}" height="{row - 6}" fill="{color}">'
            f"<title>{_e(full)}: {v:,}</title></rect>"
        )
        out.append(f'<text x="{left + w + 4:.1f}" y="{y + 14}">{v:,}</text>')
    if not items:
        out.append(f'<text x="{left}" y="{top_pad + 14}">nothing to show</text>')
    out.append(f'<line x1="{left}" y1="{base}" x2="{left + pw}" y2="{base}" stroke="#555"/>')
    for k in range(round(top / step) + 1):
        x = left + pw * k * step / top
        out.append(f'<line x1="{x:.1f}" y1="{base}" x2="{x:.1f}" y2="{base + 4}" stroke="#555"/>')
        out.append(
            f'<text x="{x:.1f}" y="{base + 15}" text-anchor="middle" class="tick">{k * step:,.0f}</text>'
        )
    out.append(
        f'<text x="{left + pw / 2:.1f}" y="{h - 4}" text-anchor="middle" class="axis">{_e(xlabel)}</text>'
    )
    out.append(
        f'<text transform="translate(12,{base / 2:.1f}) rotate(-90)" text-anchor="middle" class="axis">{_e(ylabel)}</text>'
    )
    out.append("</svg>")
    return "".join(out)


def _short(text: str, n: int = 68) -> str:
    return text if len(text) <= n else text[: n - 1].rstrip() + "\u2026"


def histogram(
    hist: dict,
    *,
    title: str,
    xlabel: str,
    plot_id: str,
    mark: float | None = None,
    mark_label: str = "",
    ylabel: str = "queues",
    width: int = 720,
) -> str:
    """Vertical bars over log10 bins, axis labels, and ``mark``: a dashed red line at that (linear) value."""
    counts = hist.get("counts") or []
    lo, hi, n = hist.get("lo", 0.0), hist.get("hi", 1.0), max(len(counts), 1)
    h, left, bottom, top_pad = 250, 64, 44, 10
    pw, ph = width - left - 10, h - bottom - top_pad
    top = max(counts or [1]) or 1
    out = [
        _svg_open(plot_id, title, width, h),
        f'<line x1="{left}" y1="{top_pad + ph}" x2="{left + pw}" y2="{top_pad + ph}" stroke="#555"/>',
        f'<line x1="{left}" y1="{top_pad}" x2="{left}" y2="{top_pad + ph}" stroke="#555"/>',
    ]
    bw = pw / n
    for i, c in enumerate(counts):
        bh = ph * c / top
        a = lo + (hi - lo) * i / n
        b = lo + (hi - lo) * (i + 1) / n
        out.append(
            f'<rect class="bar" x="{left + i * bw + 1:.1f}" y="{top_pad + ph - bh:.1f}" width="{max(bw - 2, 0.5):.1f}" '
            f'height="{bh:.1f}" fill="#5d6d7e"><title>{10**a:.3g} - {10**b:.3g}: {c:,}</title></rect>'
        )
    if hi > lo:
        for k in range(math.ceil(lo), math.floor(hi) + 1):
            x = left + pw * (k - lo) / (hi - lo)
            out.append(
                f'<text x="{x:.1f}" y="{top_pad + ph + 16}" text-anchor="middle" class="tick">{10.0**k:g}</text>'
            )
    for k in (0, 2, 4):
        y = top_pad + ph - ph * k / 4
        out.append(
            f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end" class="tick">{top * k / 4:,.0f}</text>'
        )
    if mark is not None and mark > 0 and hi > lo:
        x = left + pw * (math.log10(mark) - lo) / (hi - lo)
        out.append(
            f'<line x1="{x:.1f}" y1="{top_pad}" x2="{x:.1f}" y2="{top_pad + ph}" stroke="#c0392b" stroke-dasharray="4 3"/>'
        )
    out.append(
        f'<text x="{left + pw / 2:.1f}" y="{h - 6}" text-anchor="middle" class="axis">{_e(xlabel)}</text>'
    )
    out.append(
        f'<text transform="translate(14,{top_pad + ph / 2:.1f}) rotate(-90)" text-anchor="middle" class="axis">{_e(ylabel)}</text>'
    )
    out.append("</svg>")
    legend = "<div class='legend'><span><i style='background:#5d6d7e'></i>" + _e(ylabel) + " per bin</span>"
    if mark is not None:
        legend += f"<span><i class='dash'></i>{_e(mark_label or f'at {mark:g}')}</span>"
    legend += "</div>"
    return _figure(title, "".join(out), legend)


def heatmap(
    cells: list[dict],
    *,
    title: str,
    plot_id: str,
    max_accounts: int = HEATMAP_MAX_ACCOUNTS,
    titles: dict[str, str] | None = None,
) -> str:
    """Findings by account (rows, most findings first) and rule (columns): every account with findings, up to
    ``max_accounts`` (the note says how many more, with how many findings, are left out). The account labels are
    a separate SVG kept in view (CSS ``position: sticky``) while the grid scrolls sideways; the rule ids head the
    columns with their titles in a key below (and as tooltips)."""
    titles = titles or {}
    per_account: dict[str, int] = {}
    for c in cells:
        per_account[c["account"]] = per_account.get(c["account"], 0) + c["count"]
    ranked = sorted(per_account, key=lambda a: (-per_account[a], str(a)))
    accounts, rest = ranked[:max_accounts], ranked[max_accounts:]
    rules = sorted({c["rule"] for c in cells})
    grid = {(c["rule"], c["account"]): c["count"] for c in cells}
    top = max(grid.values() or [1]) or 1
    cw, rh, left, top_pad = 44, 14, 110, 22
    w, h = cw * max(len(rules), 1) + 10, top_pad + rh * max(len(accounts), 1) + 6
    labels = [
        f'<svg class="plot hm-labels" aria-hidden="true" xmlns="http://www.w3.org/2000/svg" width="{left}" '
        f'height="{h}" viewBox="0 0 {left} {h}">',
        f'<text x="{left - 6}" y="{top_pad - 6}" text-anchor="end" font-size="10">account / rule</text>',
    ]
    out = [
        _svg_open(plot_id, title, w, h),
        f'<rect x="0" y="{top_pad}" width="{cw * len(rules)}" height="{rh * len(accounts)}" fill="#fafafa"/>',
    ]
    for j, r in enumerate(rules):
        tip = f"{r} {titles[r]}" if titles.get(r) else r
        out.append(
            f'<text x="{j * cw + cw / 2:.1f}" y="{top_pad - 6}" text-anchor="middle" font-size="10">'
            f"<title>{_e(tip)}</title>{_e(r)}</text>"
        )
    index = {a: i for i, a in enumerate(accounts)}
    for i, a in enumerate(accounts):
        labels.append(
            f'<text x="{left - 6}" y="{top_pad + i * rh + 11}" text-anchor="end" font-size="10">{_e(a)}</text>'
        )
    labels.append("</svg>")
    col = {r: j for j, r in enumerate(rules)}
    for (r, a), v in sorted(grid.items(), key=lambda kv: (str(kv[0][1]), kv[0][0])):
        if v <= 0 or a not in index:
            continue
        shade = 0.15 + 0.85 * v / top
        tip = f"{r} {titles[r]}" if titles.get(r) else r
        out.append(
            f'<rect x="{col[r] * cw}" y="{top_pad + index[a] * rh}" width="{cw - 2}" height="{rh - 2}" '
            f'fill="rgba(192,57,43,{shade:.3f})"><title>{_e(tip)} in {_e(a)}: {v:,}</title></rect>'
        )
    if not accounts:
        out.append(f'<text x="4" y="{top_pad + 12}">nothing to show</text>')
    out.append("</svg>")
    note = f"{len(accounts):,} accounts with findings, one row each (most findings first); columns: rules."
    if rest:
        note += (
            f" {len(rest):,} more accounts with {sum(per_account[a] for a in rest):,} findings are left out to keep "
            f"the page light: they are in the counts per account below and in findings.csv."
        )
    legend = (
        "<div class='legend'><span>findings per cell:</span><span>1</span>"
        "<i class='ramp'></i>"
        f"<span>{top:,}</span><span><i style='background:#fafafa;border:1px solid #ddd'></i>none</span></div>"
    )
    key = "".join(f"<li><b>{_e(r)}</b> {_e(titles.get(r, ''))}</li>" for r in rules)
    return (
        f"<figure><figcaption>{_e(title)}</figcaption>{legend}<p class='note' id='heatmap-note'>{_e(note)}</p>"
        f"<div class='scroll hm'>{''.join(labels)}{''.join(out)}</div>"
        f"<ul class='rule-key' id='heatmap-key'>{key}</ul></figure>"
    )


# ---------------------------------------------------------------------------------------------------- data
def select_embedded(t, budget: int = EMBED_BUDGET) -> list[int]:
    """Row indices (in fix-first order) of the findings to embed: all when they fit; else the errors first (up
    to half the budget), then the top K of every rule x account group, K as large as the budget allows."""
    n = t.num_rows
    if n <= budget:
        return list(range(n))
    sev = t.column("severity").to_pylist()
    rules = t.column("rule").to_pylist()
    accts = t.column("account").to_pylist()
    chosen = [i for i in range(n) if sev[i] == "error"][: budget // 2]
    taken = set(chosen)
    rank, sizes = [0] * n, {}
    for i in range(n):
        if i in taken:
            continue
        g = (rules[i], accts[i])
        rank[i] = sizes.get(g, 0)
        sizes[g] = rank[i] + 1
    room = budget - len(chosen)
    lo, hi = 0, max(sizes.values() or [0])
    while lo < hi:  # the largest K with sum(min(size, K)) <= room
        k = (lo + hi + 1) // 2
        if sum(min(s, k) for s in sizes.values()) <= room:
            lo = k
        else:
            hi = k - 1
    keep = [i for i in range(n) if i in taken or rank[i] < lo]
    return keep


def _json_for_script(obj) -> str:
    return (
        json.dumps(obj, ensure_ascii=True, separators=(",", ":"))
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
    )


def embedded_data(t, idx: list[int], *, titles: dict[str, str], totals: dict) -> dict:
    """The page's data: dictionary-coded low-cardinality columns, one array per row."""
    keys = ("severity", "rule", "account", "region", "owner", "baseline", "fix", "state")
    dicts: dict[str, list[str]] = {k: [] for k in keys}
    pos: dict[str, dict[str, int]] = {k: {} for k in keys}

    def code(k, v):
        v = visible(v)
        p = pos[k].get(v)
        if p is None:
            p = pos[k][v] = len(dicts[k])
            dicts[k].append(v)
        return p

    import pyarrow as pa

    total = t.num_rows
    if len(idx) < total:  # only the embedded rows become Python objects
        t = t.take(pa.array(idx, pa.int64()))
    idx = range(len(idx))
    cols = {
        c: t.column(c).to_pylist()
        for c in (*keys, "priority", "queue_name", "queue_arn", "consumer", "message", "duplicate_rate")
    }
    seen = t.column("observed_redelivery").to_pylist() if "observed_redelivery" in t.column_names else None
    located = "source_repository" in t.column_names  # --sources: a link to the declaring line per finding
    if located:
        where = {c: t.column(c).to_pylist() for c in ("source_repository", "source_file", "source_line")}
    rows = []
    for i in idx:
        arn = cols["queue_arn"][i] or ""
        name = cols["queue_name"][i] or ""
        rate = cols["duplicate_rate"][i]
        rows.append(
            [
                cols["priority"][i],
                *(code(k, cols[k][i]) for k in keys),
                "" if arn.rsplit(":", 1)[-1] == name else visible(name),
                visible(arn),
                visible(cols["consumer"][i]),
                visible(cols["message"][i]),
                None if rate is None else float(f"{rate:.4g}"),
                _observed_cell(None if seen is None else seen[i]),
            ]
        )
        if located:
            rows[-1] += list(source_link(*(where[c][i] for c in where)))
    return {
        "cols": ["priority", *keys, "name", "arn", "consumer", "message", "rate", "seen"]
        + (["src", "href"] if located else []),
        "dicts": dicts,
        "titles": {visible(k): visible(v) for k, v in titles.items()},
        "rows": rows,
        "totals": totals,
        "total": total,
    }


def source_link(repository, file, line) -> tuple[str, str]:
    """(the text, the file:// address) of a finding's declaring line ("" when it has none)."""
    if not repository:
        return "", ""
    import os
    import urllib.parse

    text = f"{repository}:{file}:{line}" if line not in (None, "") else f"{repository}:{file}"
    path = os.path.join(os.path.abspath(str(repository)), str(file or ""))
    href = "file://" + urllib.parse.quote(path) + (f"#L{line}" if line not in (None, "") else "")
    return visible(text), href


def _observed_cell(v):
    """An observed rate for the page's JSON: a number, "none deleted" (infinite), or null."""
    if v is None:
        return None
    return "none deleted" if v == math.inf else float(f"{v:.4g}")


def group_counts(t) -> dict[str, dict[str, dict[str, int]]]:
    """For each group column: value -> {"all": n, "error": n, "warning": n, "info": n}, over every open finding
    (Arrow's group_by; only the group keys go through Python)."""
    if "state" in t.column_names:
        import pyarrow.compute as pc

        t = t.select([*GROUPS, "state"])  # the groups only: the filter copies what it keeps
        t = t.filter(pc.equal(t.column("state"), "open"))
    out = {}
    for g in GROUPS:
        sub = t.select([g, "severity"]) if g != "severity" else t.select(["severity"])
        keys = [g, "severity"] if g != "severity" else ["severity"]
        agg = sub.group_by(keys).aggregate([([], "count_all")]).to_pylist()
        acc: dict[str, dict[str, int]] = {}
        for r in agg:
            d = acc.setdefault(visible(r[g]), {"all": 0, "error": 0, "warning": 0, "info": 0})
            d["all"] += r["count_all"]
            if r["severity"] in d:
                d[r["severity"]] += r["count_all"]
        out[g] = dict(sorted(acc.items(), key=lambda kv: (-kv[1]["error"], -kv[1]["all"], kv[0])))
    return out


# ---------------------------------------------------------------------------------------------------- page
CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#222;max-width:1280px}
h1{font-size:22px;margin:0 0 4px} h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd}
nav a{margin-right:12px;font-size:13px}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:14px 0}
.card{border:1px solid #ddd;border-radius:6px;padding:8px 14px;min-width:110px}
.card b{display:block;font-size:20px} .card span{font-size:12px;color:#666}
figure{margin:10px 0} figcaption{font-weight:600;font-size:13px;margin-bottom:4px}
svg.plot{display:block;margin:4px 0;font-size:12px} svg .tick{font-size:10px;fill:#555} svg .axis{font-size:12px;fill:#333}
.legend{display:flex;gap:14px;font-size:12px;color:#444;align-items:center;margin:2px 0}
.legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-2px}
.legend i.dash{border-top:2px dashed #c0392b;height:0;width:18px;vertical-align:3px}
.legend i.ramp{width:120px;background:linear-gradient(90deg,rgba(192,57,43,.15),rgba(192,57,43,1))}
.scroll{max-height:520px;overflow:auto;border:1px solid #eee}
.scroll.hm{display:flex;align-items:flex-start} .scroll.hm svg.plot{margin:0;flex:none}
.scroll.hm svg.hm-labels{position:sticky;left:0;z-index:1;background:#fff}
.rule-key{columns:2;font-size:11px;color:#444;margin:4px 0;padding-left:18px}
.suppressed{color:#7f8c8d}
table{border-collapse:collapse;font-size:12px} td,th{border:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f4f6f7} th[data-sort]{cursor:pointer} th[data-sort]:hover{background:#e5e8e8}
.error{color:#c0392b;font-weight:600} .warning{color:#b9770e} .info{color:#2e86c1}
.note{color:#666;font-size:12px} .mono{font-family:ui-monospace,monospace;font-size:11px;word-break:break-all}
.controls{display:flex;flex-wrap:wrap;gap:8px;align-items:center;font-size:12px;margin:6px 0}
.controls select,.controls input{font-size:12px;max-width:220px}
tr.grp td{background:#eef2f3;font-weight:600} td.num{text-align:right}
details{margin:6px 0} summary{cursor:pointer;font-weight:600;font-size:13px}
"""


def render(summary: dict, findings=None, *, budget: int = EMBED_BUDGET) -> str:
    """The page. ``findings``: the prioritised table from :func:`visguard.audit.outputs.prioritise` (or any
    findings table: it is prioritised here), or None for a report of the summary alone."""
    rules_cat = rule_catalogue()
    sev_of = {rid: r.severity.value for rid, r in rules_cat.items()}
    titles = {rid: r.title for rid, r in rules_cat.items()}
    by_rule = summary.get("findings_by_rule", {})
    rules = sorted(by_rule, key=lambda r: (-by_rule[r], r))
    bars = [(r, by_rule[r], SEV_COLOR.get(sev_of.get(r, RULE_SEVERITY_FALLBACK), "#777")) for r in rules]
    sev = summary.get("findings_by_severity", {})
    base = summary.get("baseline")
    cards = [
        ("queues", summary.get("queues", 0)),
        ("accounts", summary.get("accounts", 0)),
        ("findings", summary.get("findings", 0)),
        ("errors (severity)", sev.get("error", 0)),
        ("warnings", sev.get("warning", 0)),
        ("suppressed (not fixed)", summary.get("suppressed", 0)),
        ("queues redelivering (observed)", summary.get("queues_redelivering", 0)),
        ("collector errors", summary.get("errors", 0)),
        ("quarantined", summary.get("quarantined", 0)),
    ]
    if base:
        cards += [
            ("new since baseline", base["new"]),
            ("resolved", base["resolved"]),
            ("suppressed since baseline", base.get("suppressed_since_baseline", 0)),
            ("unchanged", base["unchanged"]),
        ]
    t = None
    if findings is not None:
        t = findings
        if "priority" not in t.column_names:
            from visguard.audit.outputs import prioritise

            t = prioritise(findings)
        if "baseline" not in t.column_names:
            import pyarrow as pa

            t = t.append_column("baseline", pa.nulls(t.num_rows, pa.string()))
        if "title" not in t.column_names:
            import pyarrow as pa

            t = t.append_column(
                "title", pa.array([titles.get(r or "", "") for r in t.column("rule").to_pylist()])
            )
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; style-src 'unsafe-inline'; "
        "script-src 'unsafe-inline'; img-src data:\">",
        "<title>visguard fleet audit</title>",
        f"<style>{CSS}</style></head><body>",
        "<h1>visguard fleet audit</h1>",
        f"<p class='note'>{summary.get('partitions', 0)} account/region partitions, {summary.get('mappings', 0):,} "
        f"Lambda event source mappings, {summary.get('functions', 0):,} functions; audit took "
        f"{_e(summary.get('seconds', '?'))} s.</p>",
        _owners_note(summary),
        "<nav><a href='#fix-first'>Fix first</a><a href='#all-findings'>All findings</a>"
        "<a href='#groups'>Counts per group</a>"
        + ("<a href='#baseline'>Since the baseline</a>" if base else "")
        + "<a href='#charts'>Charts</a><a href='#rules'>Rules</a><a href='#errors'>Collector errors</a></nav>",
        "<div class='cards' id='cards'>",
        *[f"<div class='card'><b>{v:,}</b><span>{_e(k)}</span></div>" for k, v in cards],
        "</div>",
        _outputs_note(summary),
    ]
    if t is not None:
        counts = group_counts(t)
        parts += [
            _fix_first(t, titles),
            _all_findings(t, titles, budget, counts),
            _groups(counts, summary, titles),
        ]
    else:
        parts.append(
            "<h2 id='fix-first'>Fix first</h2><p class='note' id='all-findings'>This report was built from "
            "summary.json alone: the findings are in findings.csv and findings/ (Parquet).</p>"
        )
    if base:
        parts.append(_baseline(base, titles))
    parts += [
        "<h2 id='charts'>Findings by rule</h2>",
        _figure(
            "Findings per rule (bar colour: the rule's severity)",
            bar_chart(
                bars,
                title="Findings per rule",
                plot_id="plot-rules",
                xlabel="findings",
                ylabel="rule",
                titles=titles,
            ),
            severity_legend(),
        ),
        "<h2>Findings by account and rule</h2>",
        heatmap(
            summary.get("findings_by_rule_and_account", []),
            title="Findings per account and rule (darker: more)",
            plot_id="plot-accounts",
            titles=titles,
        ),
        "<h2>Visibility timeout vs what the consumers need</h2>",
        "<p class='note'>Required visibility: 6 x function timeout + batching window for Lambda consumers (AWS "
        "guidance), the processing p99 for declared worker fleets. Left of the red line: the queue's timeout is "
        "below what its consumers need.</p>",
        histogram(
            summary.get("ratio_histogram", {}),
            title="Visibility timeout / required visibility (queues with known consumers)",
            xlabel="visibility timeout / required visibility (log scale)",
            plot_id="plot-ratio",
            mark=1.0,
            mark_label="ratio 1: timeout equals the need",
        ),
        "<h2>Duplicate risk</h2>",
        "<p class='note'>An estimate, not an observation: the share of messages whose processing starts twice, "
        "from the engine's fast risk model (visguard.engine.risk.estimate_many) for queues whose consumers have a "
        "processing profile (Lambda Duration percentiles from CloudWatch, or a declared worker profile). What "
        "CloudWatch saw is in the riskiest queues below (observed redelivery) and in VG042 findings; where a "
        f"queue has traffic, that observation ranks it. {summary.get('queues_observed', 0):,} queues had traffic "
        f"in the metrics window, {summary.get('queues_redelivering', 0):,} of them redelivering 1 % or more.</p>",
        histogram(
            summary.get("duplicate_rate_histogram", {}),
            title="Estimated duplicate rate per queue",
            xlabel="duplicate rate (log scale; 1e-07 and below in the first bin)",
            plot_id="plot-duplicates",
            mark=0.01,
            mark_label="1 % of messages processed twice",
        ),
        "<h2>Riskiest queues</h2>",
        "<p class='note'>The queues whose messages are processed again most often: observed redelivery "
        "(CloudWatch: received / deleted - 1 over the collection window) where the queue had traffic, else the "
        "engine's estimate; both are shown side by side. Their findings rank first in the fix-first order after "
        "the errors.</p>",
        _riskiest(summary.get("riskiest_queues", [])),
        "<h2 id='rules'>Rules</h2>",
        "<table id='rules-table'><tr><th>rule</th><th>severity</th><th>title</th><th>findings</th><th>fix</th></tr>",
        *[
            f"<tr><td>{_e(r)}</td><td class='{_e(sev_of.get(r, ''))}'>{_e(sev_of.get(r, ''))}</td>"
            f"<td>{_e(titles.get(r, ''))}</td><td class='num'>{by_rule[r]:,}</td>"
            f"<td>{_e(rules_cat[r].fix if r in rules_cat else '')}</td></tr>"
            for r in rules
        ],
        "</table>",
        "<h2 id='errors'>Collector errors and quarantine</h2>",
        _errors(summary),
        _quarantined(summary),
    ]
    if summary.get("sources"):
        parts.insert(-3, _sources(summary["sources"]))
    if t is not None:
        parts.append(f"<script>{SCRIPT}</script>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _sources(src: dict) -> str:
    """--sources: how the deployed queues were joined to their declarations, and why the others were not."""
    rows = "".join(
        f"<tr><td>{_e(k)}</td><td class='num'>{v:,}</td></tr>"
        for k, v in (src.get("queues_by_join") or {}).items()
    )
    why = "".join(
        f"<tr><td>{_e(k)}</td><td class='num'>{v:,}</td></tr>"
        for k, v in (src.get("not_joined_reasons") or {}).items()
    )
    return (
        "<h2 id='sources'>Where the queues are declared</h2>"
        f"<p class='note'>{src.get('roots', 0):,} source folders, {src.get('declarations', 0):,} declarations, "
        f"{src.get('root_errors', 0):,} inputs that could not be linted, {src.get('drift_findings', 0):,} drifted "
        "settings (VG085). Each finding of a joined queue links to its declaring line; every queue, joined or not "
        "(with the reason), is in <code>placement/</code>; one SARIF file per repository in <code>sarif/</code>.</p>"
        f"<table id='sources-joined'><tr><th>joined by</th><th>queues</th></tr>{rows}</table>"
        f"<table id='sources-not-joined'><tr><th>not joined: why</th><th>queues</th></tr>{why}</table>"
    )


def _outputs_note(summary: dict) -> str:
    out = summary.get("outputs")
    if not out:
        return ""
    files = ", ".join(f"<code>{_e(v)}</code>" for v in out.values())
    owner = summary.get("owner_tag")
    tag = (
        f" Owner: the queue's tag {_e(owner if isinstance(owner, str) else ' / '.join(owner))}."
        if owner
        else ""
    )
    return f"<p class='note' id='outputs'>Files beside this report: {files}.{tag}</p>"


def _sev_cell(s) -> str:
    return f"<td class='{_e(s if s in SEV_COLOR else '')}'>{_e(s)}</td>"


def _fix_first(t, titles: dict[str, str]) -> str:
    import pyarrow.compute as pc
    from visguard.audit.outputs import ORDER_WORDS, fmt_share, why

    open_ = t.filter(pc.equal(t.column("state"), "open")) if "state" in t.column_names else t
    head = open_.slice(0, FIX_FIRST).to_pylist()
    out = [
        "<h2 id='fix-first'>Fix first</h2>",
        f"<p class='note' id='order'>{_e(ORDER_WORDS)} The first "
        f"{min(FIX_FIRST, open_.num_rows):,} of {open_.num_rows:,} open findings; all of them in the table below "
        "and in findings.csv (column <code>priority</code>).</p>",
        "<table id='fix-first-table'><tr><th>#</th><th>severity</th><th>rule</th><th>queue</th><th>account</th>"
        "<th>region</th><th>owner</th><th>observed redelivery</th><th>estimated duplicates</th>"
        "<th>why here</th><th>fix</th></tr>",
    ]
    for r in head:
        out.append(
            f"<tr><td class='num'>{r['priority']}</td>{_sev_cell(r['severity'])}"
            f"<td>{_rule_cell(r['rule'], titles)}</td>"
            f"<td title='{_e(r['queue_arn'])}'>{_e(r['queue_name'] or r['queue_arn'])}{_src(r)}</td>"
            f"<td>{_e(r['account'])}</td>"
            f"<td>{_e(r['region'])}</td><td>{_e(r['owner'])}</td>"
            f"<td class='num'>{_e(fmt_share(r.get('observed_redelivery')))}</td>"
            f"<td class='num'>{_e(fmt_share(r.get('duplicate_rate')))}</td>"
            f"<td>{_e(why(r, titles))}</td><td>{_e(r['fix'])}</td></tr>"
        )
    if not head:
        out.append("<tr><td colspan='11'>no findings</td></tr>")
    out.append("</table>")
    return "".join(out)


def _src(r: dict) -> str:
    """The link to the finding's declaring line (``--sources``), after the queue's name."""
    text, href = source_link(r.get("source_repository"), r.get("source_file"), r.get("source_line"))
    return f"<br><a class='src' href='{_e(href)}'>{_e(text)}</a>" if text else ""


def _rule_cell(rule, titles: dict[str, str]) -> str:
    """A rule id with its title beside it."""
    t = titles.get(rule or "")
    return f"<b>{_e(rule)}</b> {_e(t)}" if t else _e(rule)


def _all_findings(t, titles: dict[str, str], budget: int, counts: dict) -> str:
    idx = select_embedded(t, budget)
    totals = {g: {k: v["all"] for k, v in d.items()} for g, d in counts.items()}
    data = embedded_data(t, idx, titles=titles, totals=totals)
    if len(idx) < t.num_rows:
        scope = (
            f"This page holds {len(idx):,} of the {t.num_rows:,} findings: the errors first, then the top findings "
            f"of every rule x account group in fix-first order. Group headers show how many each group has in "
            f"all; every finding is in findings.csv and findings/ (Parquet)."
        )
    else:
        scope = f"All {t.num_rows:,} findings are in this table."
    selects = "".join(
        f"<label>{g} <select id='f-{g}' data-filter='{g}'><option value=''>all</option></select></label>"
        for g in (*GROUPS, "baseline", "state")
    )
    return (
        "<h2 id='all-findings'>All findings</h2>"
        f"<p class='note' id='scope'>{_e(scope)} Filters and grouping are kept in the address "
        "(e.g. <code>#severity=error&amp;owner=payments</code>) so a filtered view can be shared.</p>"
        f"<div class='controls' id='controls'>{selects}"
        "<label>text <input id='f-q' type='search' placeholder='queue, message, consumer'></label>"
        "<label>group by <select id='group'><option value=''>none</option>"
        + "".join(f"<option value='{g}'>{g}</option>" for g in GROUPS)
        + "</select></label><label>per page <select id='per'><option>50</option><option selected>100</option>"
        "<option>500</option><option value='all'>all</option></select></label>"
        "<button id='prev' type='button'>&lt; prev</button><span id='page'></span>"
        "<button id='next' type='button'>next &gt;</button></div>"
        "<p class='note' id='status'>The table needs JavaScript; without it use findings.csv.</p>"
        "<table id='findings'><thead><tr>"
        "<th data-sort='priority'>#</th><th data-sort='severity'>severity</th><th data-sort='rule'>rule</th>"
        "<th data-sort='account'>account</th><th data-sort='region'>region</th><th data-sort='owner'>owner</th>"
        "<th data-sort='arn'>queue</th><th data-sort='consumer'>consumer</th><th data-sort='message'>message</th>"
        "<th data-sort='fix'>fix</th><th data-sort='seen'>observed redelivery</th><th data-sort='rate'>estimated "
        "duplicates</th><th data-sort='state'>state</th><th data-sort='baseline'>since baseline</th>"
        "</tr></thead><tbody></tbody></table>"
        f"<script type='application/json' id='vg-data'>{_json_for_script(data)}</script>"
    )


def _groups(counts: dict, summary: dict, titles: dict[str, str] | None = None) -> str:
    titles = titles or {}
    tag = summary.get("owner_tag")
    out = [
        "<h2 id='groups'>Counts per group</h2><p class='note'>Every open finding counted (not only those on this "
        "page; suppressed ones are not); a group's name opens the table filtered to it."
        + ("" if tag else " Owner: the queue's owner tag, blank where the queue has none.")
        + "</p>"
    ]
    for g in GROUPS:
        d = counts[g]
        rows = "".join(
            f"<tr><td><a href='#{g}={_e(_frag(k))}'>{_e(k) if k else '(none)'}</a>"
            + (f" {_e(titles.get(k, ''))}" if g == "rule" else "")
            + "</td>"
            f"<td class='num'>{v['all']:,}</td><td class='num error'>{v['error']:,}</td>"
            f"<td class='num'>{v['warning']:,}</td><td class='num'>{v['info']:,}</td></tr>"
            for k, v in d.items()
        )
        out.append(
            f"<details id='by-{g}' {'open' if g in ('severity', 'rule', 'owner') else ''}><summary>by {g} "
            f"({len(d):,})</summary><div class='scroll'><table><tr><th>{g}</th><th>findings</th><th>errors</th>"
            f"<th>warnings</th><th>infos</th></tr>{rows}</table></div></details>"
        )
    return "".join(out)


def _frag(v: str) -> str:
    from urllib.parse import quote

    return quote(v, safe="")


def _baseline(base: dict, titles: dict[str, str] | None = None) -> str:
    titles = titles or {}

    def table(tid: str, rows: list[dict], why: bool = False) -> str:
        body = "".join(
            f"<tr>{_sev_cell(r.get('severity'))}<td>{_rule_cell(r.get('rule'), titles)}</td>"
            f"<td class='mono'>{_e(r.get('queue_arn'))}</td>"
            f"<td>{_e(r.get('account'))}</td><td>{_e(r.get('owner'))}</td><td>{_e(r.get('message'))}</td>"
            + (f"<td>{_e(r.get('suppressed_by'))}</td>" if why else f"<td>{_e(r.get('fix'))}</td>")
            + "</tr>"
            for r in rows
        )
        last = "suppressed by" if why else "fix"
        return (
            f"<table id='{tid}'><tr><th>severity</th><th>rule</th><th>queue</th><th>account</th><th>owner</th>"
            f"<th>message</th><th>{last}</th></tr>{body or '<tr><td colspan=7>none</td></tr>'}</table>"
        )

    ns, rs = base.get("new_by_severity", {}), base.get("resolved_by_severity", {})
    return (
        "<h2 id='baseline'>Since the baseline</h2>"
        f"<p class='note'>Compared with {_e(base.get('previous'))} ({base.get('previous_findings', 0):,} findings "
        "then) by fingerprint: rule + queue ARN + consumer (the message's numbers may change). A finding "
        "counts as resolved only when it is no longer found by a rule that still runs. "
        "All of them in baseline-diff.csv.</p>"
        f"<table id='baseline-counts'><tr><th></th><th>all</th><th>errors</th><th>warnings</th><th>infos</th></tr>"
        f"<tr><td>new</td><td class='num'>{base.get('new', 0):,}</td>"
        + "".join(f"<td class='num'>{ns.get(s, 0):,}</td>" for s in SEVERITIES)
        + f"</tr><tr><td>resolved</td><td class='num'>{base.get('resolved', 0):,}</td>"
        + "".join(f"<td class='num'>{rs.get(s, 0):,}</td>" for s in SEVERITIES)
        + f"</tr><tr><td>suppressed since the baseline (not fixed)</td><td class='num'>"
        f"{base.get('suppressed_since_baseline', 0):,}</td><td colspan=3></td></tr>"
        f"<tr><td>unchanged</td><td class='num'>{base.get('unchanged', 0):,}</td><td colspan=3></td></tr></table>"
        f"<h3>New ({base.get('new', 0):,}; the first {len(base.get('new_sample', [])):,})</h3>"
        + table("baseline-new", base.get("new_sample", []))
        + f"<h3>Resolved ({base.get('resolved', 0):,}; the first {len(base.get('resolved_sample', [])):,})</h3>"
        + table("baseline-resolved", base.get("resolved_sample", []))
        + f"<h3>Suppressed since the baseline ({base.get('suppressed_since_baseline', 0):,}): a suppression or a "
        "rule turned off is not a fix, so these are not counted as resolved</h3>"
        + table("baseline-suppressed", base.get("suppressed_sample", []), why=True)
    )


def _riskiest(rows: list[dict]) -> str:
    if not rows:
        return "<p class='note'>No queue has CloudWatch traffic or a processing profile.</p>"
    from visguard.audit.outputs import fmt_share

    out = [
        "<table id='riskiest'><tr><th>queue</th><th>account</th><th>region</th><th>VT</th><th>required</th>"
        "<th>observed redelivery</th><th>received / deleted</th><th>oldest message</th>"
        "<th>estimated duplicates</th><th>findings</th></tr>"
    ]
    for r in rows:
        req = r.get("required_vt")
        seen = math.inf if r.get("none_deleted") else r.get("observed_rate")
        vol = (
            f"{r['received']:,.0f} / {r['deleted']:,.0f}"
            if r.get("received") is not None and r.get("deleted") is not None
            else ""
        )
        age = "" if r.get("age_oldest") is None else f"{r['age_oldest']:,.0f} s"
        out.append(
            f"<tr><td>{_e(r.get('name') or r['arn'])}</td><td>{_e(r['account'])}</td><td>{_e(r['region'])}</td>"
            f"<td>{_e(r.get('vt') if r.get('vt') is not None else '')}</td><td>{'' if req is None else f'{req:g}'}</td>"
            f"<td class='num'>{_e(fmt_share(seen))}</td><td class='num'>{_e(vol)}</td><td class='num'>{_e(age)}</td>"
            f"<td class='num'>{_e(fmt_share(r.get('duplicate_rate')))}</td>"
            f"<td class='{_e(r.get('worst') or '')}'>{_e(r.get('findings', 0))}</td></tr>"
        )
    out.append("</table>")
    return "".join(out)


def _errors(summary: dict) -> str:
    rows = ["<table id='errors-table'><tr><th>what</th><th>count</th></tr>"]
    for code, n in summary.get("errors_by_code", {}).items():
        rows.append(f"<tr><td>collector error {_e(code)}</td><td>{n:,}</td></tr>")
    for why, n in summary.get("quarantine_reasons", {}).items():
        rows.append(f"<tr><td>quarantined: {_e(why)}</td><td>{n:,}</td></tr>")
    if len(rows) == 1:
        rows.append("<tr><td>none</td><td>0</td></tr>")
    rows.append("</table>")
    return "".join(rows)


def _owners_note(summary: dict) -> str:
    """Who deployed the queues (issue 39 §1): counts of summary.json's ``owners``."""
    o = summary.get("owners")
    if not o:
        return ""
    return (
        f"<p class='note' id='owners'>Deployed by: {o.get('cloudformation', 0):,} queues by a CloudFormation stack, "
        f"{o.get('terraform', 0):,} by a Terraform state, {o.get('unknown', 0):,} unknown (created by hand, or by "
        "a tool whose state was not given to <code>visguard audit collect</code>).</p>"
    )


def _quarantined(summary: dict) -> str:
    """The quarantined records by name: what the audit could not check, and why."""
    rows = summary.get("quarantine_samples") or []
    if not rows:
        return ""
    n = summary.get("quarantined", len(rows))
    body = "".join(
        f"<tr><td>{_e(r.get('kind'))}</td><td class='mono'>{_e(r.get('arn'))}</td><td>{_e(r.get('account'))}</td>"
        f"<td>{_e(r.get('region'))}</td><td class='mono'>{_e(r.get('file'))}</td><td>{_e(r.get('reason'))}</td></tr>"
        for r in rows
    )
    return (
        f"<h3>Quarantined ({n:,}; {'all' if len(rows) >= n else f'the first {len(rows):,}'} named here, all in "
        "quarantine/)</h3><table id='quarantine-table'><tr><th>kind</th><th>queue</th><th>account</th>"
        f"<th>region</th><th>file</th><th>reason</th></tr>{body}</table>"
    )


# The table's script: reads the embedded JSON, applies the filters from the controls and the URL fragment,
# groups, sorts and pages. Values go into the DOM with textContent only.
SCRIPT = r"""
(function(){
"use strict";
var D=JSON.parse(document.getElementById('vg-data').textContent);
var K=D.cols, I={}; K.forEach(function(k,i){I[k]=i;});
var CODED=['severity','rule','account','region','owner','baseline','fix','state'];
var FILTERS=['severity','rule','account','region','owner','baseline','state'];
var SEVRANK={error:0,warning:1,info:2};
var st={q:'',group:'',sort:'priority',dir:1,per:100,page:0,f:{}};
var HASBASE=D.dicts.baseline.some(function(v){return v!=='';});
if(!HASBASE){var bh=document.querySelector("#findings th[data-sort='baseline']"); if(bh)bh.parentNode.removeChild(bh);}
function val(r,k){var v=r[I[k]]; return CODED.indexOf(k)>=0?D.dicts[k][v]:v;}
function $(id){return document.getElementById(id);}
function el(tag,text,cls){var e=document.createElement(tag); if(text!==undefined&&text!==null)e.textContent=String(text); if(cls)e.className=cls; return e;}
FILTERS.forEach(function(k){
  var s=$('f-'+k), n={}; D.rows.forEach(function(r){var v=r[I[k]]; n[v]=(n[v]||0)+1;});
  D.dicts[k].map(function(v,i){return [v,i];}).sort(function(a,b){return k==='severity'?SEVRANK[a[0]]-SEVRANK[b[0]]:(a[0]<b[0]?-1:a[0]>b[0]?1:0);})
   .forEach(function(p){var o=el('option',(p[0]===''?'(none)':p[0])+' ('+(n[p[1]]||0)+')'); o.value=String(p[1]); s.appendChild(o);});
  if(k==='baseline'&&D.dicts[k].length<2){s.parentNode.style.display='none';}
});
function readHash(){
  var h=new URLSearchParams(location.hash.replace(/^#/,''));
  FILTERS.forEach(function(k){st.f[k]=h.has(k)?D.dicts[k].indexOf(h.get(k)):null; if(st.f[k]===-1)st.f[k]=-2;});
  st.q=h.get('q')||''; st.group=h.get('group')||''; st.sort=h.get('sort')||'priority'; st.dir=h.get('dir')==='desc'?-1:1;
  var p=h.get('per'); st.per=p==='all'?Infinity:(parseInt(p,10)||100); st.page=parseInt(h.get('page'),10)||0;
  FILTERS.forEach(function(k){$('f-'+k).value=st.f[k]===null||st.f[k]<0?'':String(st.f[k]);}); $('f-q').value=st.q; $('group').value=st.group;
  $('per').value=st.per===Infinity?'all':String(st.per);
}
function writeHash(){
  var h=new URLSearchParams();
  FILTERS.forEach(function(k){if(st.f[k]!==null&&st.f[k]>=0)h.set(k,D.dicts[k][st.f[k]]);});
  if(st.q)h.set('q',st.q); if(st.group)h.set('group',st.group);
  if(st.sort!=='priority'){h.set('sort',st.sort); if(st.dir<0)h.set('dir','desc');}
  if(st.per!==100)h.set('per',st.per===Infinity?'all':String(st.per)); if(st.page)h.set('page',String(st.page));
  history.replaceState(null,'',location.pathname+location.search+(h.toString()?'#'+h.toString():''));
}
function cmp(a,b,k){
  var x=val(a,k), y=val(b,k);
  if(k==='severity'){x=SEVRANK[x]; y=SEVRANK[y];}
  if(x===null||x===undefined||x==='')return (y===null||y===undefined||y==='')?0:1;
  if(y===null||y===undefined||y==='')return -1;
  return x<y?-1:x>y?1:0;
}
function render(){
  var fq=st.q.toLowerCase();
  var rows=D.rows.filter(function(r){
    for(var i=0;i<FILTERS.length;i++){var k=FILTERS[i]; if(st.f[k]!==null&&r[I[k]]!==st.f[k])return false;}
    if(fq){var s=(r[I.arn]+' '+r[I.name]+' '+r[I.message]+' '+r[I.consumer]).toLowerCase(); if(s.indexOf(fq)<0)return false;}
    return true;});
  rows.sort(function(a,b){
    var c=0; if(st.group){c=cmp(a,b,st.group); if(st.group!=='severity'&&c===0){}}
    if(c===0&&st.sort)c=st.dir*cmp(a,b,st.sort);
    return c||(a[I.priority]-b[I.priority]);});
  var pages=st.per===Infinity?1:Math.max(1,Math.ceil(rows.length/st.per));
  if(st.page>=pages)st.page=pages-1;
  var start=st.per===Infinity?0:st.page*st.per, shown=rows.slice(start,st.per===Infinity?rows.length:start+st.per);
  var tb=document.querySelector('#findings tbody'); tb.textContent='';
  var last=null, gcount={};
  if(st.group)rows.forEach(function(r){var g=val(r,st.group); gcount[g]=(gcount[g]||0)+1;});
  shown.forEach(function(r){
    if(st.group){var g=val(r,st.group); if(g!==last){last=g; var tr=el('tr',null,'grp'), td=el('td');
      td.colSpan=HASBASE?14:13; var all=(D.totals[st.group]||{})[g];
      td.textContent=st.group+' '+(g===''?'(none)':g)+': '+gcount[g]+' here'+(all!==undefined?' of '+all+' in all':'');
      tr.appendChild(td); tb.appendChild(tr);}}
    var tr=el('tr'); var sev=val(r,'severity'); tr.setAttribute('data-sev',sev); tr.setAttribute('data-rule',val(r,'rule'));
    tr.appendChild(el('td',r[I.priority],'num')); tr.appendChild(el('td',sev,sev));
    var rid=val(r,'rule'), rt=el('td'); rt.appendChild(el('b',rid)); rt.appendChild(document.createTextNode(' '+(D.titles[rid]||''))); tr.appendChild(rt);
    tr.appendChild(el('td',val(r,'account'))); tr.appendChild(el('td',val(r,'region'))); tr.appendChild(el('td',val(r,'owner')));
    var arn=r[I.arn], q=el('td',r[I.name]||arn.split(':').pop(),'queue'); q.title=arn; q.setAttribute('data-arn',arn); tr.appendChild(q);
    if(I.src!==undefined&&r[I.src]){var a=el('a',r[I.src],'src'); a.href=r[I.href]; q.appendChild(document.createElement('br')); q.appendChild(a);}
    tr.appendChild(el('td',r[I.consumer],'mono')); tr.appendChild(el('td',r[I.message],'msg'));
    tr.appendChild(el('td',val(r,'fix'),'fix'));
    var sn=r[I.seen]; tr.appendChild(el('td',sn===null?'':(typeof sn==='string'?sn:(100*sn).toPrecision(3)+' %'),'num'));
    tr.appendChild(el('td',r[I.rate]===null?'':(100*r[I.rate]).toPrecision(3)+' %','num'));
    tr.appendChild(el('td',val(r,'state'),val(r,'state')==='suppressed'?'suppressed':''));
    if(HASBASE)tr.appendChild(el('td',val(r,'baseline')));
    tb.appendChild(tr);});
  $('status').textContent=rows.length+' of the '+D.rows.length+' findings on this page match'+
    (D.total>D.rows.length?' ('+D.total+' in the fleet: see findings.csv)':'')+'; showing '+
    (shown.length?(start+1)+'-'+(start+shown.length):'none')+'.';
  $('status').setAttribute('data-matching',String(rows.length));
  $('page').textContent=' page '+(st.page+1)+' of '+pages+' ';
  $('prev').disabled=st.page<=0; $('next').disabled=st.page>=pages-1;
  writeHash();
}
FILTERS.forEach(function(k){$('f-'+k).addEventListener('change',function(){st.f[k]=this.value===''?null:parseInt(this.value,10); st.page=0; render();});});
$('f-q').addEventListener('input',function(){st.q=this.value; st.page=0; render();});
$('group').addEventListener('change',function(){st.group=this.value; st.page=0; render();});
$('per').addEventListener('change',function(){st.per=this.value==='all'?Infinity:parseInt(this.value,10); st.page=0; render();});
$('prev').addEventListener('click',function(){st.page--; render();});
$('next').addEventListener('click',function(){st.page++; render();});
Array.prototype.forEach.call(document.querySelectorAll('#findings th[data-sort]'),function(th){
  th.addEventListener('click',function(){var k=th.getAttribute('data-sort'); if(st.sort===k)st.dir=-st.dir; else {st.sort=k; st.dir=1;} render();});});
window.addEventListener('hashchange',function(){readHash(); render(); var t=$('all-findings'); if(t&&location.hash.indexOf('=')>0)t.scrollIntoView();});
readHash(); render();
if(location.hash.indexOf('=')>0){var a=$('all-findings'); if(a)a.scrollIntoView();}
})();
"""


def write_report(path: str | Path, summary: dict, findings=None, diff: dict | None = None) -> Path:
    """Write the page atomically. ``diff``: a baseline comparison (default: ``summary["baseline"]``)."""
    path = Path(path)
    if diff is not None:
        summary = {**summary, "baseline": diff}
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(render(summary, findings), encoding="utf-8")
    tmp.replace(path)
    return path


def main(argv: list[str]) -> int:  # pragma: no cover - exercised by hand
    summary_path, out = Path(argv[0]), Path(argv[1])
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    findings = None
    if (summary_path.parent / "findings").is_dir():
        from visguard.audit.outputs import findings_table

        findings = findings_table(str(summary_path.parent))
    write_report(out, summary, findings)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
