"""The audit's HTML report: self-contained (no script, no external resource) and rendered by a real headless
Chromium (Debian's chromium, installed by scripts/install-system-deps.sh)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from visguard.audit.report import render

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
    assert "<script" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert not re.search(r"""(src|href)\s*=\s*["']?https?:""", page)
    assert "collector error AccessDenied</td><td>2" in page
    assert page.count('class="bar"') == 2 + 5 + 7  # rule bars + histogram bins


def test_render_without_findings():
    page = render(summary(findings_by_rule={}, findings_by_rule_and_account=[], riskiest_queues=[]))
    assert "nothing to show" in page and "No queue has a processing profile" in page


@pytest.mark.slow
def test_report_renders_in_headless_chromium(audited, tmp_path):
    report = audited["out"] / "report.html"
    assert shutil.which(CHROMIUM), "chromium missing: run scripts/install-system-deps.sh"
    base = [CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run(
        [*base, "--dump-dom", report.as_uri()], capture_output=True, text=True, timeout=120, check=True
    ).stdout
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
