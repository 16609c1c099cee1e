"""The audit's self-contained HTML report: one file, inline CSS and inline SVG plots, no script, no network.

Everything it shows comes from the summary dict the job computed (``summary.json``), so the report can be
rebuilt from that file alone: ``python -P -m visguard.audit.report OUT/summary.json OUT/report.html``.
"""

from __future__ import annotations

import html
import json
import sys
from pathlib import Path

SEV_COLOR = {"error": "#c0392b", "warning": "#e67e22", "info": "#2e86c1"}
RULE_SEVERITY_FALLBACK = "warning"


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def _rule_severity() -> dict[str, str]:
    try:
        from visguard.linter.rules import ALL_RULES
    except Exception:  # noqa: BLE001 - the report still renders without the catalogue
        return {}
    return {rid: r.severity.value for rid, r in ALL_RULES.items()}


def _rule_titles() -> dict[str, str]:
    try:
        from visguard.linter.rules import ALL_RULES
    except Exception:  # noqa: BLE001
        return {}
    return {rid: r.title for rid, r in ALL_RULES.items()}


def bar_chart(items: list[tuple[str, int, str]], *, title: str, plot_id: str, width: int = 640) -> str:
    """Horizontal bars: (label, value, colour)."""
    row, left, pad = 22, 70, 60
    h = row * max(len(items), 1) + 40
    top = max([v for _, v, _ in items] or [1]) or 1
    out = [
        f'<svg id="{plot_id}" class="plot" role="img" aria-label="{_e(title)}" xmlns="http://www.w3.org/2000/svg" '
        f'width="{width}" height="{h}" viewBox="0 0 {width} {h}">',
        f'<text x="0" y="16" class="t">{_e(title)}</text>',
    ]
    for i, (label, v, color) in enumerate(items):
        y = 30 + i * row
        w = (width - left - pad) * v / top
        out.append(f'<text x="{left - 6}" y="{y + 14}" text-anchor="end">{_e(label)}</text>')
        out.append(
            f'<rect class="bar" x="{left}" y="{y}" width="{w:.1f}" height="{row - 6}" fill="{color}"><title>{_e(label)}: {v:,}</title></rect>'
        )
        out.append(f'<text x="{left + w + 4:.1f}" y="{y + 14}">{v:,}</text>')
    if not items:
        out.append('<text x="10" y="40">nothing to show</text>')
    out.append("</svg>")
    return "".join(out)


def histogram(
    hist: dict, *, title: str, xlabel: str, plot_id: str, mark: float | None = None, width: int = 640
) -> str:
    """Vertical bars over log10 bins; ``mark`` draws a vertical line at that (linear) value."""
    counts = hist.get("counts") or []
    lo, hi, n = hist.get("lo", 0.0), hist.get("hi", 1.0), max(len(counts), 1)
    h, left, bottom, top_pad = 240, 50, 40, 28
    pw, ph = width - left - 10, h - bottom - top_pad
    top = max(counts or [1]) or 1
    out = [
        f'<svg id="{plot_id}" class="plot" role="img" aria-label="{_e(title)}" xmlns="http://www.w3.org/2000/svg" '
        f'width="{width}" height="{h}" viewBox="0 0 {width} {h}">',
        f'<text x="0" y="16" class="t">{_e(title)}</text>',
        f'<line x1="{left}" y1="{top_pad + ph}" x2="{left + pw}" y2="{top_pad + ph}" stroke="#555"/>',
    ]
    bw = pw / n
    for i, c in enumerate(counts):
        bh = ph * c / top
        a = lo + (hi - lo) * i / n
        b = lo + (hi - lo) * (i + 1) / n
        out.append(
            f'<rect class="bar" x="{left + i * bw + 1:.1f}" y="{top_pad + ph - bh:.1f}" width="{bw - 2:.1f}" '
            f'height="{bh:.1f}" fill="#5d6d7e"><title>{10**a:.3g} - {10**b:.3g}: {c:,}</title></rect>'
        )
    for k in range(int(lo), int(hi) + 1):
        x = left + pw * (k - lo) / (hi - lo)
        out.append(f'<text x="{x:.1f}" y="{top_pad + ph + 16}" text-anchor="middle">{10.0**k:g}</text>')
    if mark is not None and mark > 0:
        import math

        x = left + pw * (math.log10(mark) - lo) / (hi - lo)
        out.append(
            f'<line x1="{x:.1f}" y1="{top_pad}" x2="{x:.1f}" y2="{top_pad + ph}" stroke="#c0392b" stroke-dasharray="4 3"/>'
        )
    out.append(f'<text x="{left + pw / 2:.1f}" y="{h - 4}" text-anchor="middle">{_e(xlabel)}</text>')
    out.append(f'<text x="4" y="{top_pad + 10}">{top:,}</text>')
    out.append("</svg>")
    return "".join(out)


def heatmap(cells: list[dict], *, title: str, plot_id: str, max_accounts: int = 20) -> str:
    """Findings by rule (rows) and account (columns): the accounts with the most findings."""
    per_account: dict[str, int] = {}
    for c in cells:
        per_account[c["account"]] = per_account.get(c["account"], 0) + c["count"]
    accounts = sorted(per_account, key=lambda a: (-per_account[a], a))[:max_accounts]
    rules = sorted({c["rule"] for c in cells})
    grid = {(c["rule"], c["account"]): c["count"] for c in cells}
    top = max([grid.get((r, a), 0) for r in rules for a in accounts] or [1]) or 1
    cw, rh, left, top_pad = 28, 20, 70, 110
    w, h = left + cw * max(len(accounts), 1) + 10, top_pad + rh * max(len(rules), 1) + 10
    out = [
        f'<svg id="{plot_id}" class="plot" role="img" aria-label="{_e(title)}" xmlns="http://www.w3.org/2000/svg" '
        f'width="{w}" height="{h}" viewBox="0 0 {w} {h}">',
        f'<text x="0" y="16" class="t">{_e(title)}</text>',
    ]
    for j, a in enumerate(accounts):
        x = left + j * cw + cw / 2
        out.append(
            f'<text transform="translate({x:.1f},{top_pad - 6}) rotate(-60)" font-size="10">{_e(a)}</text>'
        )
    for i, r in enumerate(rules):
        y = top_pad + i * rh
        out.append(f'<text x="{left - 6}" y="{y + 14}" text-anchor="end">{_e(r)}</text>')
        for j, a in enumerate(accounts):
            v = grid.get((r, a), 0)
            shade = 0 if v == 0 else 0.15 + 0.85 * v / top
            out.append(
                f'<rect x="{left + j * cw}" y="{y}" width="{cw - 2}" height="{rh - 2}" fill="rgba(192,57,43,{shade:.3f})" '
                f'stroke="#ddd"><title>{_e(r)} in {_e(a)}: {v:,}</title></rect>'
            )
    out.append("</svg>")
    return "".join(out)


CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#222;max-width:1100px}
h1{font-size:22px;margin:0 0 4px} h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:14px 0}
.card{border:1px solid #ddd;border-radius:6px;padding:8px 14px;min-width:110px}
.card b{display:block;font-size:20px} .card span{font-size:12px;color:#666}
svg.plot{display:block;margin:8px 0;font-size:12px} svg .t{font-weight:600;font-size:13px}
table{border-collapse:collapse;font-size:12px} td,th{border:1px solid #ddd;padding:3px 6px;text-align:left}
th{background:#f4f6f7} .error{color:#c0392b} .warning{color:#b9770e} .info{color:#2e86c1}
.note{color:#666;font-size:12px}
"""


def render(summary: dict) -> str:
    sev_of = _rule_severity()
    titles = _rule_titles()
    by_rule = summary.get("findings_by_rule", {})
    rules = sorted(by_rule, key=lambda r: (-by_rule[r], r))
    bars = [(r, by_rule[r], SEV_COLOR.get(sev_of.get(r, RULE_SEVERITY_FALLBACK), "#777")) for r in rules]
    sev = summary.get("findings_by_severity", {})
    cards = [
        ("queues", summary.get("queues", 0)),
        ("accounts", summary.get("accounts", 0)),
        ("findings", summary.get("findings", 0)),
        ("errors (severity)", sev.get("error", 0)),
        ("warnings", sev.get("warning", 0)),
        ("collector errors", summary.get("errors", 0)),
        ("quarantined", summary.get("quarantined", 0)),
    ]
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        "<title>visguard fleet audit</title>",
        f"<style>{CSS}</style></head><body>",
        "<h1>visguard fleet audit</h1>",
        f"<p class='note'>{summary.get('partitions', 0)} account/region partitions, {summary.get('mappings', 0):,} "
        f"Lambda event source mappings, {summary.get('functions', 0):,} functions; audit took "
        f"{summary.get('seconds', '?')} s.</p>",
        "<div class='cards' id='cards'>",
        *[f"<div class='card'><b>{v:,}</b><span>{_e(k)}</span></div>" for k, v in cards],
        "</div>",
        "<h2>Findings by rule</h2>",
        bar_chart(bars, title="Findings by rule (colour: severity)", plot_id="plot-rules"),
        "<h2>Findings by rule and account</h2>",
        heatmap(
            summary.get("findings_by_rule_and_account", []),
            title="Findings per rule and account (darker: more)",
            plot_id="plot-accounts",
        ),
        "<h2>Visibility timeout vs what the consumers need</h2>",
        "<p class='note'>Required visibility: 6 x function timeout + batching window for Lambda consumers (AWS "
        "guidance), the processing p99 for declared worker fleets. Left of the red line: the queue's timeout is "
        "below what its consumers need.</p>",
        histogram(
            summary.get("ratio_histogram", {}),
            title="Visibility timeout / required visibility (queues with known consumers)",
            xlabel="ratio (log scale)",
            plot_id="plot-ratio",
            mark=1.0,
        ),
        "<h2>Duplicate risk</h2>",
        "<p class='note'>Share of messages whose processing starts twice, from the engine's fast risk model "
        "(visguard.engine.risk.estimate_many) for queues whose consumers have a processing profile (Lambda "
        "Duration percentiles from CloudWatch, or a declared worker profile).</p>",
        histogram(
            summary.get("duplicate_rate_histogram", {}),
            title="Estimated duplicate rate per queue",
            xlabel="duplicate rate (log scale; 1e-07 and below in the first bin)",
            plot_id="plot-duplicates",
            mark=0.01,
        ),
        "<h2>Riskiest queues</h2>",
        _riskiest(summary.get("riskiest_queues", [])),
        "<h2>Rules</h2>",
        "<table id='rules'><tr><th>rule</th><th>severity</th><th>title</th><th>findings</th></tr>",
        *[
            f"<tr><td>{_e(r)}</td><td class='{_e(sev_of.get(r, ''))}'>{_e(sev_of.get(r, ''))}</td>"
            f"<td>{_e(titles.get(r, ''))}</td><td>{by_rule[r]:,}</td></tr>"
            for r in rules
        ],
        "</table>",
        "<h2>Collector errors and quarantine</h2>",
        _errors(summary),
        "</body></html>",
    ]
    return "\n".join(parts)


def _riskiest(rows: list[dict]) -> str:
    if not rows:
        return "<p class='note'>No queue has a processing profile.</p>"
    out = [
        "<table id='riskiest'><tr><th>queue</th><th>account</th><th>region</th><th>VT</th><th>required</th><th>duplicate rate</th><th>findings</th></tr>"
    ]
    for r in rows:
        req = r.get("required_vt")
        out.append(
            f"<tr><td>{_e(r.get('name') or r['arn'])}</td><td>{_e(r['account'])}</td><td>{_e(r['region'])}</td>"
            f"<td>{r.get('vt') if r.get('vt') is not None else ''}</td><td>{'' if req is None else f'{req:g}'}</td>"
            f"<td>{100 * (r.get('duplicate_rate') or 0):.3g} %</td>"
            f"<td class='{_e(r.get('worst') or '')}'>{r.get('findings', 0)}</td></tr>"
        )
    out.append("</table>")
    return "".join(out)


def _errors(summary: dict) -> str:
    rows = ["<table id='errors'><tr><th>what</th><th>count</th></tr>"]
    for code, n in summary.get("errors_by_code", {}).items():
        rows.append(f"<tr><td>collector error {_e(code)}</td><td>{n:,}</td></tr>")
    for why, n in summary.get("quarantine_reasons", {}).items():
        rows.append(f"<tr><td>quarantined: {_e(why)}</td><td>{n:,}</td></tr>")
    if len(rows) == 1:
        rows.append("<tr><td>none</td><td>0</td></tr>")
    rows.append("</table>")
    return "".join(rows)


def write_report(path: str | Path, summary: dict) -> Path:
    path = Path(path)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(render(summary), encoding="utf-8")
    tmp.replace(path)
    return path


if __name__ == "__main__":  # pragma: no cover - rebuild a report from summary.json
    write_report(sys.argv[2], json.loads(Path(sys.argv[1]).read_text(encoding="utf-8")))
