"""Score a visguard run on issue 35's blind set against the issues its truth lists.

    python3 scripts/blind35_score.py tests/linter/fixtures/consumers/blind35/expect-dev.tsv OUTDIR [--consumer-places]

OUTDIR holds ``<owner+name>.json``, the output of ``visguard lint --no-config --format json <repo>``. A finding
matches an expected issue when the rule is the same, its file (or the file that joined it, for a finding located at
the queue) ends with the expected path (``*`` allowed) and its line is within 3 of the expected line. Counted as
findings: severity warning or error; each matches at most one issue. Prints every miss and every unmatched finding.

``--consumer-places`` (reported apart, never instead of the strict figure): a finding of the right rule also
matches when its consumer (a code consumer's id is its ``file:line``) is at the expected place: the same issue of
the same consumer, which visguard locates where the value to change is written (a constant, the queue) while the
truth's convention locates it at the receive or the listener declaration.
"""

from __future__ import annotations

import fnmatch
import json
import os
import sys

CONSUMER_PLACES = False


def _places(finding: dict) -> list[tuple[str | None, int | None]]:
    joined = finding.get("joined_by") or {}
    out = [(finding.get("file"), finding.get("line")), (joined.get("file"), joined.get("line"))]
    consumer = finding.get("consumer") or ""
    if CONSUMER_PLACES and consumer.rsplit(":", 1)[-1].isdigit():
        path, line = consumer.rsplit(":", 1)
        out.append((path, int(line)))
    return out


def _matches(finding: dict, rule: str, path: str, line: int) -> bool:
    if finding["rule"] != rule:
        return False
    return any(
        f and n and fnmatch.fnmatch(f, "*/" + path) and abs(n - line) <= 3 for f, n in _places(finding)
    )


def main(expect_file: str, out: str) -> int:
    with open(expect_file, encoding="utf-8") as fh:
        expected = [ln.rstrip("\n").split("\t") for ln in fh if ln.strip() and not ln.startswith("#")]
    names = {e[0] for e in expected} | {f[:-5] for f in os.listdir(out) if f.endswith(".json")}
    found = missed = extra = 0
    by_kind: dict[str, list[int]] = {}
    for repo in sorted(names):
        try:
            with open(os.path.join(out, repo + ".json"), encoding="utf-8") as fh:
                findings = [f for f in json.load(fh)["findings"] if f["severity"] in ("warning", "error")]
        except (OSError, ValueError, KeyError) as e:
            print(f"{repo}: no output ({e})")
            findings = []
        used: set[int] = set()
        for _, rule, where, kind, note in (e for e in expected if e[0] == repo):
            path, line = where.rsplit(":", 1)
            hit = next(
                (i for i, f in enumerate(findings) if i not in used and _matches(f, rule, path, int(line))),
                None,
            )
            tally = by_kind.setdefault(kind, [0, 0])
            if hit is None:
                missed += 1
                tally[1] += 1
                print(f"  MISS  {repo} {rule} {where} ({note})")
            else:
                used.add(hit)
                found += 1
                tally[0] += 1
        for i, f in enumerate(findings):
            if i not in used:
                extra += 1
                print(f"  EXTRA {repo} {f['rule']} {f.get('file')}:{f.get('line')} {f['message'][:140]}")
    share = 100 * found / max(1, found + missed)
    kinds = ", ".join(f"{k} {a}/{a + b}" for k, (a, b) in sorted(by_kind.items()))
    print(
        f"found {found}/{found + missed} ({share:.0f} %); unmatched warnings/errors {extra}; by kind: {kinds}"
    )
    return 0


if __name__ == "__main__":
    CONSUMER_PLACES = "--consumer-places" in sys.argv[3:]
    sys.exit(main(*sys.argv[1:3]))
