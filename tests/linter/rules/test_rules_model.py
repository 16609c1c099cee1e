"""Each rule on models built in Python: the failing case, the passing case next to it, and the edges
(unresolved values, defaults, settings). Template fixtures for every rule are in test_rule_fixtures.py."""

from __future__ import annotations

import pytest
from visguard.linter.api import lint_model
from visguard.linter.model import Consumer, LintConfig, Location, Model, Queue, Redrive, Severity, Suppression
from visguard.linter.rules import ALL_RULES, RULES


def loc(path: str, line: int = 1) -> Location:
    return Location("t.yaml", line=line, column=3, path=path)


def model(*queues: Queue) -> Model:
    m = Model(source_file="t.yaml")
    for q in queues:
        m.add(q)
    return m


def queue(qid="Orders", **kw) -> Queue:
    return Queue(id=qid, location=loc(f"Resources/{qid}"), **kw)


def dlq_pair(vt=900, mrc=5, **src_kw):
    dlq = queue("OrdersDLQ", message_retention=1_209_600)
    src = queue(redrive=Redrive("OrdersDLQ", "OrdersDLQ.Arn", mrc), visibility_timeout=vt, **src_kw)
    return src, dlq


def lam(timeout=30, **kw) -> Consumer:
    kw.setdefault("report_batch_item_failures", True)
    return Consumer(
        "Mapping", "lambda", loc("Resources/Mapping"), function_id="Fn", function_timeout=timeout, **kw
    )


def worker(**kw) -> Consumer:
    return Consumer("workers", "worker", **kw)


def rules_of(m: Model, config: LintConfig | None = None) -> list[str]:
    return [f.rule for f in lint_model(m, config)]


def fired(rule: str, m: Model, config=None) -> bool:
    return rule in rules_of(m, config)


def with_consumers(q: Queue, *cs: Consumer) -> Queue:
    q.consumers.extend(cs)
    return q


def test_registry_metadata_complete():
    assert len(RULES) >= 18
    for rid, r in ALL_RULES.items():
        assert r.id == rid and rid.startswith("VG") and len(rid) == 5
        assert r.title and r.rationale and r.fix and r.tags
        assert r.source.startswith("https://")
        assert r.severity in Severity
    for rid in ("VG001", "VG002", "VG003", "VG004", "VG010", "VG011", "VG012", "VG013", "VG014", "VG015",
                "VG020", "VG021", "VG022", "VG030", "VG031", "VG032", "VG040", "VG041"):  # fmt: skip
        assert rid in RULES, rid
    # every catalogue rule cites an AWS page, or the documentation of the platform it judges (KEDA: VG068)
    cited = [
        r
        for r in RULES.values()
        if "docs.aws.amazon.com" in r.source or r.source.startswith("https://keda.sh/")
    ]
    assert len(cited) == len(RULES)


def test_clean_pair_has_no_findings():
    src, dlq = dlq_pair()
    with_consumers(src, lam(timeout=30, batch_size=10))
    assert lint_model(model(src, dlq)) == []


@pytest.mark.parametrize(
    ("value", "bad"),
    [(43_201, True), (-1, True), (12.5, True), (0, False), (43_200, False), ("${Vt}", False), (None, False)],
)
def test_vg001(value, bad):
    assert fired("VG001", model(queue(visibility_timeout=value))) is bad


@pytest.mark.parametrize(
    ("mrc", "bad"), [(0, True), (1001, True), (2.5, True), (1, False), (1000, False), ("${M}", False)]
)
def test_vg002(mrc, bad):
    src, dlq = dlq_pair(mrc=mrc)
    assert fired("VG002", model(src, dlq)) is bad


def test_vg002_missing_count_but_not_for_an_unknown_policy():
    q = queue(redrive=Redrive("OrdersDLQ", "OrdersDLQ.Arn", None))
    assert fired("VG002", model(q, queue("OrdersDLQ")))
    q = queue(redrive=Redrive(None, "<imported with Fn::ImportValue Shared-Policy>", None))
    assert not fired("VG002", model(q))


def test_vg003_type_mismatch_both_ways():
    src, dlq = dlq_pair()
    dlq.fifo = True
    assert fired("VG003", model(src, dlq))
    src.fifo = True
    assert not fired("VG003", model(src, dlq))
    dlq.fifo = False
    assert fired("VG003", model(src, dlq))


@pytest.mark.parametrize(
    ("target_ref", "bad"),
    [
        (None, True),
        ("Topic (AWS::SNS::Topic, not an SQS queue)", True),
        ("arn:aws:sns:us-east-1:123456789012:topic", True),
        ("arn:aws:sqs:us-east-1:123456789012:shared-dlq", False),
        ("${DlqArn}", False),
        ("<imported with Fn::ImportValue Shared-DLQ>", False),
    ],
)
def test_vg004(target_ref, bad):
    q = queue(redrive=Redrive(None, target_ref, 5))
    assert fired("VG004", model(q)) is bad


def test_vg004_target_resolved_in_scope_but_absent():
    # A fleet inventory resolves the DLQ ARN inside a collected account and region; the queue is not there.
    arn = "arn:aws:sqs:us-east-1:123456789012:deleted-dlq"
    q = queue(redrive=Redrive(arn, arn, 5))
    msgs = [f.message for f in lint_model(model(q)) if f.rule == "VG004"]
    assert msgs == [f"redrive target {arn} does not exist"]
    src, dlq = dlq_pair()
    assert not fired("VG004", model(src, dlq))


def test_vg005_retention_and_delay():
    assert fired("VG005", model(queue(message_retention=30)))
    assert fired("VG005", model(queue(delay=901)))
    assert not fired("VG005", model(queue(message_retention=60, delay=900)))


def test_vg010_uses_default_timeouts_and_reports_deploy_failure():
    q = with_consumers(queue(visibility_timeout=20), lam(timeout=60))
    (f,) = [f for f in lint_model(model(q)) if f.rule == "VG010"]
    assert f.severity is Severity.ERROR and "20 s" in f.message and "60 s" in f.message
    assert "360 s" in f.fix  # 6 x 60 + 0
    # unset visibility timeout is the 30 s default; unset function timeout the 3 s default
    assert fired("VG010", model(with_consumers(queue(), lam(timeout=31))))
    assert not fired("VG010", model(with_consumers(queue(), lam(timeout=None))))


def test_vg010_skips_unknown_function_and_vg050_reports_it():
    c = Consumer("Mapping", "unknown", function_id=None, note="function imported with Fn::ImportValue")
    m = model(with_consumers(queue(visibility_timeout=1), c))
    assert not fired("VG010", m)
    (f,) = [f for f in lint_model(m) if f.rule == "VG050"]
    assert f.severity is Severity.INFO and "ImportValue" in f.message


def test_vg011_six_times_plus_window_and_configurable_multiplier():
    q = with_consumers(queue(visibility_timeout=179), lam(timeout=30))
    assert fired("VG011", model(q))
    q.visibility_timeout = 180  # exactly 6 x 30 with no batching window
    assert not fired("VG011", model(q))
    q.consumers[0].batching_window = 5
    (f,) = [f for f in lint_model(model(q)) if f.rule == "VG011"]
    assert "185 s" in f.message
    assert not fired("VG011", model(q), LintConfig(settings={"lambda_multiplier": 3}))
    q.visibility_timeout = 10  # below the function timeout: VG010, not also VG011
    assert "VG011" not in rules_of(model(q)) and "VG010" in rules_of(model(q))


def test_vg012_quotes_the_engine_estimate():
    q = with_consumers(queue(visibility_timeout=60), worker(processing_p50=20, processing_p99=90))
    (f,) = [f for f in lint_model(model(q)) if f.rule == "VG012"]
    assert "processed twice" in f.message and f.estimate["duplicate_rate"] > 0.01
    assert f.estimate["source"] == "engine"
    assert f"{100 * f.estimate['duplicate_rate']:.1f} %" in f.message
    assert not fired(
        "VG012",
        model(with_consumers(queue(visibility_timeout=600), worker(processing_p50=20, processing_p99=90))),
    )
    # heartbeating consumers are VG015's business
    q = with_consumers(
        queue(visibility_timeout=60), worker(processing_p50=20, processing_p99=90, heartbeat_interval=20)
    )
    assert not fired("VG012", model(q))


def test_vg012_threshold_setting():
    q = with_consumers(queue(visibility_timeout=60), worker(processing_p50=20, processing_p99=90))
    assert not fired("VG012", model(q), LintConfig(settings={"target_duplicate_rate": 0.5}))


def test_vg013_far_too_long():
    q = with_consumers(queue(visibility_timeout=43_200), worker(processing_p50=2, processing_p99=10))
    (f,) = [f for f in lint_model(model(q)) if f.rule == "VG013"]
    assert f.severity is Severity.INFO and "crash" in f.message and f.estimate["recovery_p99"] > 40_000
    q.visibility_timeout = 60
    assert not fired("VG013", model(q))
    lq = with_consumers(queue(visibility_timeout=43_200), lam(timeout=10))
    assert fired("VG013", model(lq))


def test_vg014_12h_cap():
    assert fired("VG014", model(with_consumers(queue(), worker(processing_p99=50_000))))
    c = worker(processing_p99=100, heartbeat_interval=30, heartbeat_extend_by=50_000)
    assert fired("VG014", model(with_consumers(queue(), c)))
    assert not fired("VG014", model(with_consumers(queue(), worker(processing_p99=40_000))))


@pytest.mark.parametrize(
    ("vt", "hb", "extend", "bad"),
    [
        (60, 30, None, False),
        (60, 45, None, True),
        (60, 90, None, True),
        (600, 60, 100, True),
        (600, 40, 100, False),
    ],
)
def test_vg015(vt, hb, extend, bad):
    c = worker(processing_p99=100, heartbeat_interval=hb, heartbeat_extend_by=extend)
    assert fired("VG015", model(with_consumers(queue(visibility_timeout=vt), c))) is bad


def test_vg020_only_for_consumed_queues():
    assert fired("VG020", model(with_consumers(queue(visibility_timeout=600), lam())))
    assert not fired("VG020", model(queue(visibility_timeout=600)))


def test_vg021_lambda_low_receive_count():
    src, dlq = dlq_pair(mrc=3)
    with_consumers(src, lam())
    assert fired("VG021", model(src, dlq))
    src.redrive.max_receive_count = 5
    assert not fired("VG021", model(src, dlq))


def test_vg022_retention_standard_only():
    src, dlq = dlq_pair()
    dlq.message_retention = 345_600  # the 4-day default, same as the source's default
    assert fired("VG022", model(src, dlq))
    src.fifo = dlq.fifo = True
    assert not fired("VG022", model(src, dlq))


def test_vg023_redrive_loop_reported_once():
    a = queue("A", redrive=Redrive("B", "B.Arn", 5))
    b = queue("B", redrive=Redrive("A", "A.Arn", 5))
    findings = [f for f in lint_model(model(a, b)) if f.rule == "VG023"]
    assert len(findings) == 1 and "A -> B -> A" in findings[0].message
    selfloop = queue("S", redrive=Redrive("S", "S.Arn", 5))
    assert fired("VG023", model(selfloop))
    src, dlq = dlq_pair()
    assert not fired("VG023", model(src, dlq))


def test_vg024_single_receive_with_workers():
    src, dlq = dlq_pair(mrc=1)
    with_consumers(src, worker())
    assert fired("VG024", model(src, dlq))
    src.redrive.max_receive_count = 3
    assert not fired("VG024", model(src, dlq))


@pytest.mark.parametrize(
    ("fifo", "batch", "window", "bad"),
    [(False, 100, 0, True), (False, 100, 1, False), (True, 10, 5, True), (True, 20, 0, True), (True, 10, 0, False),
     (False, 10, 0, False), (False, 20_000, 5, True)],
)  # fmt: skip
def test_vg030(fifo, batch, window, bad):
    q = with_consumers(
        queue(visibility_timeout=900, fifo=fifo), lam(batch_size=batch, batching_window=window)
    )
    assert fired("VG030", model(q)) is bad


def test_vg031_partial_batch_responses():
    q = with_consumers(queue(visibility_timeout=900), lam(report_batch_item_failures=False))
    assert fired("VG031", model(q))  # default batch size 10
    q.consumers[0].batch_size = 1
    assert not fired("VG031", model(q))


def test_vg032_lambda_timeout_limit_and_setting():
    q = with_consumers(queue(visibility_timeout=43_200), lam(timeout=1200))
    assert fired("VG032", model(q))
    assert not fired("VG032", model(q), LintConfig(settings={"lambda_max_timeout": 5400}))


def test_vg033_concurrency():
    q = with_consumers(queue(visibility_timeout=900), lam(reserved_concurrency=2))
    assert fired("VG033", model(q))
    q.consumers[0].reserved_concurrency, q.consumers[0].max_concurrency = 10, 20
    assert fired("VG033", model(q))
    q.consumers[0].max_concurrency = 10
    assert not fired("VG033", model(q))


def test_vg034_processing_beyond_function_timeout():
    q = with_consumers(queue(visibility_timeout=900), lam(timeout=30, processing_p50=10, processing_p99=60))
    (f,) = [f for f in lint_model(model(q)) if f.rule == "VG034"]
    assert "time out" in f.message and 0.01 < f.estimate["timeout_rate"] < 0.2
    q.consumers[0].function_timeout = 90
    assert not fired("VG034", model(q))


def test_vg040_inflight_quota():
    q = with_consumers(
        queue(visibility_timeout=900, arrival_rate=5000), worker(processing_p50=20, processing_p99=60)
    )
    (f,) = [f for f in lint_model(model(q)) if f.rule == "VG040"]
    assert f.estimate["inflight"] > 96_000
    q.arrival_rate = 100
    assert not fired("VG040", model(q))
    q.arrival_rate = 5000
    q.consumers[0].concurrency = 50  # 50 workers hold at most 500 messages
    assert not fired("VG040", model(q))


def test_vg041_fifo_group_block():
    q = with_consumers(queue(visibility_timeout=3600, fifo=True), worker(processing_p50=5, processing_p99=30))
    assert fired("VG041", model(q))
    q.fifo = False
    assert not fired("VG041", model(q))
    q.fifo, q.visibility_timeout = True, 120
    assert not fired("VG041", model(q))


def test_severity_override_and_disable():
    q = with_consumers(queue(visibility_timeout=900), lam(report_batch_item_failures=False))
    cfg = LintConfig(severity_overrides={"VG020": Severity.ERROR}, disabled={"VG031"})
    found = {f.rule: f.severity for f in lint_model(model(q), cfg)}
    assert found == {"VG020": Severity.ERROR}


def test_suppression_with_reason_hides_without_reason_is_reported():
    q = with_consumers(queue(visibility_timeout=900), lam())
    q.suppressions.append(Suppression("VG020", "batch job; failures are reconciled nightly"))
    assert rules_of(model(q)) == []
    q.suppressions[0] = Suppression("VG020", "  ")
    assert sorted(rules_of(model(q))) == ["VG020", "VG900"]
    q.suppressions[0] = Suppression("VG02O", "typo")
    assert sorted(rules_of(model(q))) == ["VG020", "VG901"]


def test_consumer_scoped_suppression():
    q = with_consumers(queue(visibility_timeout=900), lam(report_batch_item_failures=False))
    q.consumers.append(Consumer("Other", "lambda", function_id="Fn2", function_timeout=30))
    q.redrive = Redrive(None, "arn:aws:sqs:us-east-1:123456789012:dlq", 5)
    q.suppressions.append(Suppression("VG031", "idempotent handler", consumer="Mapping"))
    found = [(f.rule, f.consumer) for f in lint_model(model(q))]
    assert found == [("VG031", "Other")]


def test_config_suppression_with_queue_glob():
    a = with_consumers(queue("orders-eu", visibility_timeout=900), lam())
    b = with_consumers(queue("billing", visibility_timeout=900), lam())
    cfg = LintConfig(suppressions=[Suppression("VG020", "legacy")], suppression_queues={0: "orders-*"})
    assert [f.queue for f in lint_model(model(a, b), cfg)] == ["billing"]


def test_vg016_zero_visibility_with_workers():
    assert fired("VG016", model(with_consumers(queue(visibility_timeout=0), worker())))
    assert not fired("VG016", model(with_consumers(queue(visibility_timeout=0), lam())))  # VG010's case
    assert not fired("VG016", model(with_consumers(queue(visibility_timeout=30), worker())))


def test_vg040_lambda_bounded_by_mapping_concurrency():
    # 5000 msg/s x 30 s would be 150,000 in flight, but 1,250 invokes x 10 records hold at most 12,500
    q = with_consumers(queue(visibility_timeout=900, arrival_rate=5000), lam(timeout=30))
    assert not fired("VG040", model(q))
    q.consumers[0].batch_size, q.consumers[0].batching_window = 200, 5
    assert fired("VG040", model(q))


def test_the_context_quotes_the_engines_full_estimate():
    """``RuleContext.risk`` asks the engine for the rate first and for the crash-recovery time only when a rule
    reads it: both are the full estimate's, and one consumer's figures are computed once."""
    from visguard.engine.risk import Profile, estimate
    from visguard.linter.context import RuleContext

    c = worker(processing_p50=20, processing_p99=90)
    ctx = RuleContext(model(with_consumers(queue(visibility_timeout=60), c)))
    r = ctx.risk(60.0, c, 5)
    full = estimate(60.0, Profile.lognormal(p50=20, p99=90), max_receive_count=5)
    assert (r.source, r.duplicate_rate) == ("engine", full.duplicate_rate)
    assert r.as_dict()["recovery_p99"] == round(full.recovery_p99, 3) and r.recovery_p99 == full.recovery_p99
    assert ctx.risk(60.0, c, 5) is r and ctx.risk(60.0, c, None) is not r


def test_the_context_computes_a_need_once_per_consumer_and_settings():
    """Several rules and the audit ask for a consumer's visibility need: computed once per consumer and the
    settings it depends on, so a rule's own setting never gets another rule's need."""
    from visguard.linter.context import RuleContext
    from visguard.linter.rules import Rule
    from visguard.linter.rules._base import work_of
    from visguard.policy import need

    c = lam(timeout=30, batching_window=10)
    q = with_consumers(queue(visibility_timeout=60), c)
    ctx = RuleContext(model(q), LintConfig(settings={"lambda_multiplier": 5}))
    n = ctx.need(c)
    assert n.visibility_timeout == 5 * 30 + 10 and ctx.need(c) is n
    assert ctx.need(c.replace()) is not n and ctx.need(c.replace()) == n  # another consumer: its own
    assert ctx.queue_need(q).visibility_timeout == 160 and ctx.queue_need(q) is ctx.queue_need(q)
    # a rule whose default multiplier differs gets the need under its own setting (no visguard.yaml value)
    ctx = RuleContext(model(q))
    ctx.rule = Rule(id="VG999", title="t", severity=Severity.INFO, rationale="r", source="s", fix="f",
                    settings={"lambda_multiplier": 3})  # fmt: skip
    assert (
        ctx.need(c).visibility_timeout
        == 3 * 30 + 10
        == need(work_of(c), lambda_multiplier=3).visibility_timeout
    )
    assert ctx.queue_need(q).visibility_timeout == 100
    ctx.rule = None
    assert ctx.need(c).visibility_timeout == 6 * 30 + 10
    assert ctx.queue_need(q).visibility_timeout == 190
