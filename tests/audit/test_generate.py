"""The synthetic fleet generator: schema-valid, exact counts, deterministic, and every planted kind of record."""

from __future__ import annotations

import contextlib
import json
from collections import Counter

from visguard.audit import generate, inventory
from visguard.cli import main


def recs(root) -> list[dict]:
    return [r for _, _, r in inventory.iter_records(root)]


def test_counts_schema_and_mix(tmp_path):
    c = generate.generate(4000, 5, 3, str(tmp_path))
    rows = recs(tmp_path)
    assert all(isinstance(r, dict) for r in rows)
    assert inventory.validate_records(rows) == []
    kinds = Counter(r["kind"] for r in rows)
    assert kinds == {
        "queue": 4000,
        "mapping": c["mappings"],
        "function": c["functions"],
        "worker": c["workers"],
        "partition": 15,
    }
    queues = [r for r in rows if r["kind"] == "queue"]
    arns = {q["arn"] for q in queues}
    assert len(arns) == 4000
    fifo = [q for q in queues if q["attributes"].get("FifoQueue") == "true"]
    assert 0.05 < len(fifo) / 4000 < 0.15 and all(q["name"].endswith(".fifo") for q in fifo)
    redrive = [q for q in queues if "RedrivePolicy" in q["attributes"]]
    parsed = []
    for q in redrive:
        with contextlib.suppress(ValueError):
            parsed.append(json.loads(q["attributes"]["RedrivePolicy"]))
    assert len(redrive) > len(parsed) >= 1000  # a few are not JSON, by design
    targets = [p["deadLetterTargetArn"] for p in parsed]
    assert sum(t in arns for t in targets) > 0.99 * len(targets)  # the rest dangle, by design
    chained = [
        q
        for q in queues
        if q["name"].replace(".fifo", "").endswith("-dlq") and "RedrivePolicy" in q["attributes"]
    ]
    assert chained  # DLQ chains
    assert sum("VisibilityTimeout" not in q["attributes"] for q in queues) == 2  # 0.05 % of 4,000
    assert sum(q["attributes"].get("VisibilityTimeout") == "thirty" for q in queues) == 1
    maps = [r for r in rows if r["kind"] == "mapping"]
    assert any(m["function_arn"].endswith(":live") for m in maps)  # alias-qualified
    assert any(m["account"] != m["event_source_arn"].split(":")[4] for m in maps)  # cross-account
    timeouts = {r["timeout"] for r in rows if r["kind"] == "function"}
    assert min(timeouts) == 3 and max(timeouts) == 900
    assert any(q["tags"].get("visguard:consumer") == "worker" and q["metrics"] for q in queues)
    # CloudWatch evidence: most queues with traffic are healthy, some redeliver, some have no traffic at all
    main = [q["metrics"] for q in queues if q["metrics"] and "-dlq" not in q["name"]]
    busy = [m for m in main if m["received"]]
    redelivering = [m for m in busy if m["received"] > 1.01 * m["deleted"]]
    assert 0.03 * len(busy) < len(redelivering) < 0.5 * len(busy)
    assert any(m["received"] == 0 for m in main)
    assert all(m["deleted"] <= m["received"] for m in busy)


def test_worker_records(tmp_path):
    """A few main queues without another consumer are read by an ECS service or a pipe; some are inconsistent on
    purpose (a stop timeout below the declared p99, a pipe target's timeout above the queue's visibility)."""
    c = generate.generate(4000, 5, 3, str(tmp_path))
    rows = recs(tmp_path)
    queues = {q["arn"]: q for q in rows if q["kind"] == "queue"}
    by_url = {q["url"]: q for q in queues.values()}
    workers = [r for r in rows if r["kind"] == "worker"]
    ecs = [w for w in workers if w["platform"] == "ecs"]
    pipes = [w for w in workers if w["platform"] == "pipes"]
    n_main = sum("-dlq" not in q["name"] for q in queues.values())
    assert len(workers) == c["workers"] and 0.02 * n_main < len(ecs) < 0.04 * n_main and pipes
    mapped = {m["event_source_arn"] for m in rows if m["kind"] == "mapping"}
    read = [queues.get(w["queue"]) or by_url[w["queue"]] for w in workers]
    assert not {q["arn"] for q in read} & mapped  # never a queue with a Lambda consumer
    assert not any(q["tags"].get("visguard:consumer") for q in read)  # nor one with a declared worker fleet
    by_url_ref = [w for w in ecs if w["queue"].startswith("https://")]
    assert by_url_ref and all(w["account"] != by_url[w["queue"]]["account"] for w in by_url_ref)
    assert any(w["processing_p99"] and w["stop_timeout"] < w["processing_p99"] for w in ecs)
    vt = {
        id(w): float(q["attributes"].get("VisibilityTimeout", "nan").replace("thirty", "nan"))
        for w, q in zip(workers, read, strict=True)
    }
    assert any(w["work_timeout"] > vt[id(w)] for w in pipes)
    assert all(w["heartbeat"] is False for w in pipes)


def test_same_seed_same_fleet(tmp_path):
    generate.generate(500, 2, 9, str(tmp_path / "a"))
    generate.generate(500, 2, 9, str(tmp_path / "b"))
    generate.generate(500, 2, 10, str(tmp_path / "c"))
    files = [sorted(p.read_text() for p in inventory.partition_files(tmp_path / x)) for x in "abc"]
    assert files[0] == files[1] != files[2]


def test_cli(tmp_path, capsys):
    assert main(["audit", "generate", "--queues", "50", "--accounts", "2", "--out", str(tmp_path)]) == 0
    assert "generated 50 queues" in capsys.readouterr().err
    assert main(["audit", "generate", "--queues", "0", "--out", str(tmp_path)]) == 1
    assert "--queues" in capsys.readouterr().err
    assert main(["audit", "run", "--inventory", str(tmp_path / "nope"), "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "nope" in err and "not found" in err and len(err.strip().splitlines()) == 1
    assert main(["audit", "bogus"]) == 1
    assert main(["audit", "--help"]) == 0
