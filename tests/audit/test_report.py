"""The audit's HTML report: self-contained (no script, no external resource) and rendered by a real headless
Chromium (Debian's chromium, installed by scripts/install-system-deps.sh)."""

from __future__ import annotations

import re
import shutil
import subprocess
from html.parser import HTMLParser

import pytest
from visguard.audit.report import heatmap, render, rule_catalogue, select_embedded

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def summary(**kw) -> dict:
    s = {
        "queues": 3,
        "accounts": 2,
        "findings": 3,
        "partitions": 2,
        "findings_by_rule": {"VG010": 1, "VG031": 2},
        "findings_by_severity": {"error": 1, "warning": 2, "info": 0},
        "findings_by_rule_and_account": [
            {"rule": "VG010", "account": "111111111111", "count": 1},
            {"rule": "VG031", "account": "222222222222", "count": 2},
        ],
        "ratio_histogram": {"lo": -2.0, "hi": 3.0, "bins": 5, "counts": [0, 1, 2, 0, 0]},
        "duplicate_rate_histogram": {"lo": -7.0, "hi": 0.0, "bins": 7, "counts": [1, 0, 0, 0, 0, 1, 1]},
        "riskiest_queues": [
            {
                "account": "111111111111",
                "region": "us-east-1",
                "arn": "arn:x",
                "name": "<script>alert(1)</script>",
                "vt": 30.0,
                "required_vt": 360.0,
                "duplicate_rate": 0.25,
                "findings": 2,
                "worst": "error",
            },
        ],  # fmt: skip
        "errors_by_code": {"AccessDenied": 2},
        "quarantine_reasons": {"attribute VisibilityTimeout is missing": 1},
    }
    s.update(kw)
    return s


def test_render_is_self_contained_and_escaped():
    page = render(summary())
    for plot in ("plot-rules", "plot-accounts", "plot-ratio", "plot-duplicates"):
        assert f'id="{plot}"' in page
    assert "<script" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # no findings: no script
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "default-src 'none'" in page  # the page's own CSP: nothing is fetched from anywhere
    assert "collector error AccessDenied</td><td>2" in page
    assert page.count('class="bar"') == 2 + 5 + 7  # rule bars + histogram bins


def test_render_without_findings():
    page = render(summary(findings_by_rule={}, findings_by_rule_and_account=[], riskiest_queues=[]))
    assert "nothing to show" in page and "No queue has CloudWatch traffic or a processing profile" in page


def test_charts_have_legends_axis_labels_and_uncut_titles():
    page = render(summary())
    rules = page[page.index('id="plot-rules"') : page.index("</svg>", page.index('id="plot-rules"'))]
    assert ">findings</text>" in rules and ">rule</text>" in rules  # both axes labelled
    assert page.count("class='legend'") >= 4  # severity colours, heatmap scale, two histograms
    assert (
        "<figcaption>Findings per account and rule (darker: more)</figcaption>" in page
    )  # HTML: never clipped
    assert ">queues</text>" in page and "ratio 1: timeout equals the need" in page


def test_heatmap_covers_every_account():
    cells = [{"rule": "VG031", "account": f"{100000000000 + i}", "count": 1 + i % 7} for i in range(120)]
    cells += [{"rule": "VG010", "account": "100000000005", "count": 3}]
    svg = heatmap(cells, title="t", plot_id="h")
    for i in range(120):
        assert f">{100000000000 + i}</text>" in svg
    assert "120 accounts with findings" in svg and "left out" not in svg
    assert svg.count("<rect x=") == 121 + 1  # one cell per (rule, account) with findings + the background


def test_heatmap_says_what_it_leaves_out():
    cells = [{"rule": "VG031", "account": f"a{i:04d}", "count": 1} for i in range(30)]
    svg = heatmap(cells, title="t", plot_id="h", max_accounts=25)
    assert "25 accounts with findings" in svg and "5 more accounts with 5 findings are left out" in svg


def test_large_fleet_embeds_top_of_every_group_with_counts():
    import pyarrow as pa
    from visguard.audit.outputs import prioritise

    n_err, rows = 30, []
    for i in range(3000):
        sev = "error" if i < n_err else "warning"
        rows.append((f"a{i % 40:02d}", "VG010" if sev == "error" else f"VG0{20 + i % 7}", sev, f"q{i}"))
    t = prioritise(
        pa.table(
            {
                "account": [r[0] for r in rows],
                "region": ["us-east-1"] * len(rows),
                "queue_arn": [f"arn:aws:sqs:us-east-1:{r[0]}:{r[3]}" for r in rows],
                "queue_name": [r[3] for r in rows],
                "rule": [r[1] for r in rows],
                "severity": [r[2] for r in rows],
                "message": ["m"] * len(rows),
                "consumer": [None] * len(rows),
                "fix": ["f"] * len(rows),
                "estimate": [None] * len(rows),
            }
        )
    )
    idx = select_embedded(t, budget=500)
    kept = t.take(idx)
    assert len(idx) <= 500 and kept.column("severity").to_pylist().count("error") == n_err
    groups = {
        (r, a)
        for r, a in zip(kept.column("rule").to_pylist(), kept.column("account").to_pylist(), strict=True)
    }
    assert groups == {(r[1], r[0]) for r in rows} and len(groups) == 7 * 40 + 30  # every rule x account group
    page = render(summary(findings=3000), t, budget=500)
    assert "This page holds" in page and "of the 3,000 findings" in page


class FindingRows(HTMLParser):
    """The rows of the rendered findings table (``table#findings tbody``) as the browser left them."""

    def __init__(self):
        super().__init__()
        self.rows: list[dict] = []
        self.in_table = self.in_body = False
        self.cell: list[str] | None = None
        self.matching = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("id") == "findings":
            self.in_table = True
        elif self.in_table and tag == "tbody":
            self.in_body = True
        elif self.in_body and tag == "tr" and "data-sev" in a:
            self.rows.append({"sev": a["data-sev"], "rule": a["data-rule"], "cells": []})
        elif self.in_body and tag == "td" and self.rows and "grp" not in (a.get("class") or ""):
            self.cell = []
            if "data-arn" in a:
                self.rows[-1]["arn"] = a["data-arn"]
        if a.get("id") == "status":
            self.matching = int(a["data-matching"])

    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.rows[-1]["cells"].append("".join(self.cell))
            self.cell = None
        elif tag == "table" and self.in_table:
            self.in_table = self.in_body = False

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def dump_dom(url: str, profile) -> str:
    cmd = [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", url]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True).stdout


def finding_rows(url: str, profile) -> FindingRows:
    p = FindingRows()
    p.feed(dump_dom(url, profile))
    return p


@pytest.mark.slow
def test_report_renders_in_headless_chromium(audited, tmp_path):
    report = audited["out"] / "report.html"
    assert shutil.which(CHROMIUM), "chromium missing: run scripts/install-system-deps.sh"
    base = [CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    dom = dump_dom(report.as_uri(), tmp_path / "profile")
    s = audited["summary"]
    # the browser parsed the page into the DOM we expect: four plots, one bar per rule, the riskiest table
    for plot in ("plot-rules", "plot-accounts", "plot-ratio", "plot-duplicates"):
        assert f'id="{plot}"' in dom, plot
    rule_svg = dom[dom.index('id="plot-rules"') : dom.index("</svg>", dom.index('id="plot-rules"'))]
    assert rule_svg.count('class="bar"') == len(s["findings_by_rule"])
    assert dom.count("<tr>", dom.index('id="riskiest"')) >= len(s["riskiest_queues"])
    assert f"<b>{s['queues']:,}</b>" in dom
    shot = tmp_path / "report.png"
    subprocess.run(
        [*base, f"--screenshot={shot}", "--window-size=1200,1600", report.as_uri()],
        capture_output=True,
        timeout=120,
        check=True,
    )
    import matplotlib.image as mpimg

    img = mpimg.imread(shot)
    assert img.shape[0] == 1600 and img.shape[1] == 1200
    # not a blank page: bars and text put many distinct colours on it
    assert len({tuple(px) for px in (img[::8, ::8, :3] * 255).astype(int).reshape(-1, 3).tolist()}) > 20


@pytest.mark.slow
def test_every_error_finding_is_listed_with_rule_and_fix_and_filters_work(audited, tmp_path):
    from visguard.audit.outputs import findings_table

    report = audited["out"] / "report.html"
    findings = findings_table(str(audited["out"])).to_pylist()
    errors = {(f["rule"], f["queue_arn"], f["fix"]) for f in findings if f["severity"] == "error"}
    assert len(errors) == audited["summary"]["findings_by_severity"]["error"] > 0

    # the filter comes from the URL fragment: the page's script reads it, filters, and renders the rows
    got = finding_rows(report.as_uri() + "#severity=error&per=all", tmp_path / "p1")
    assert got.matching == len(got.rows) == len(errors)
    assert {r["sev"] for r in got.rows} == {"error"}
    # columns: # severity rule (id and title) account region owner queue consumer message fix observed
    # estimated state baseline
    titles = {rid: r.title for rid, r in rule_catalogue().items()}
    assert {(r["cells"][2], r["arn"], r["cells"][9]) for r in got.rows} == {
        (f"{rule} {titles[rule]}", arn, fix) for rule, arn, fix in errors
    }

    rule = max(audited["summary"]["findings_by_rule"], key=audited["summary"]["findings_by_rule"].get)
    account = findings[0]["account"]
    want = [f for f in findings if f["rule"] == rule and f["account"] == account]
    got = finding_rows(report.as_uri() + f"#rule={rule}&account={account}&per=all", tmp_path / "p2")
    assert got.matching == len(got.rows) == len(want) > 0
    assert {(r["rule"], r["cells"][3]) for r in got.rows} == {(rule, account)}
    assert sorted(r["arn"] for r in got.rows) == sorted(f["queue_arn"] for f in want)

    # paged by default: 100 rows a page, the status line counts them all
    got = finding_rows(report.as_uri(), tmp_path / "p3")
    assert got.matching == len(findings) and len(got.rows) == min(100, len(findings))
    assert [int(r["cells"][0]) for r in got.rows] == list(range(1, len(got.rows) + 1))  # fix-first order
    assert got.rows[0]["sev"] == "error"


def test_axis_ticks_are_round_numbers():
    from visguard.audit.report import nice_step

    assert [nice_step(x) for x in (1, 7, 596, 1000, 640_000)] == [1, 2, 200, 200, 200_000]
    page = render(summary(findings_by_rule={"VG031": 596, "VG010": 3}))
    rules = page[page.index('id="plot-rules"') : page.index("</svg>", page.index('id="plot-rules"'))]
    ticks = re.findall(r'class="tick">([\d,]+)<', rules)
    assert ticks == ["0", "200", "400", "600"]
