"""Rules never crash, whatever the loaders hand them: hypothesis builds models with every field type the
model allows (numbers out of range, unresolved strings, None) and runs the whole catalogue over them."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from visguard.linter.api import lint_model
from visguard.linter.model import Consumer, Finding, Location, Model, Queue, Redrive, Suppression

num = st.one_of(
    st.none(),
    st.integers(-10, 2_000_000),
    st.floats(-10, 100_000, allow_nan=False),
    st.sampled_from(["${Vt}", "<imported>"]),
)
pos = st.one_of(st.none(), st.floats(0.001, 60_000, allow_nan=False))
count = st.one_of(st.none(), st.integers(-1, 20_000))
ids = st.sampled_from(["A", "B", "C", "D"])


@st.composite
def consumers(draw):
    kind = draw(st.sampled_from(["lambda", "worker", "unknown"]))
    return Consumer(
        id=draw(st.sampled_from(["M1", "M2", "workers"])),
        kind=kind,
        function_id=draw(st.one_of(st.none(), st.just("Fn"))) if kind != "worker" else None,
        function_timeout=draw(
            st.one_of(st.none(), st.integers(-5, 6000), st.floats(0, 6000, allow_nan=False))
        ),
        batch_size=draw(count),
        batching_window=draw(st.one_of(st.none(), st.integers(-1, 400))),
        report_batch_item_failures=draw(st.booleans()),
        reserved_concurrency=draw(count),
        max_concurrency=draw(count),
        processing_p50=draw(pos),
        processing_p99=draw(pos),
        heartbeat_interval=draw(st.one_of(st.none(), st.floats(-1, 50_000, allow_nan=False))),
        heartbeat_extend_by=draw(pos),
        concurrency=draw(count),
        arrival_rate=draw(pos),
    )


@st.composite
def models(draw):
    m = Model(source_file="f.yaml")
    for qid in draw(st.lists(ids, min_size=1, max_size=4, unique=True)):
        redrive = None
        if draw(st.booleans()):
            target = draw(st.one_of(st.none(), ids))
            redrive = Redrive(target, draw(st.one_of(st.none(), st.just("x"), st.just("${P}"))), draw(num))
        m.add(
            Queue(
                id=qid,
                location=Location("f.yaml", 1, 1, f"Resources/{qid}"),
                fifo=draw(st.booleans()),
                visibility_timeout=draw(num),
                message_retention=draw(num),
                delay=draw(num),
                redrive=redrive,
                consumers=draw(st.lists(consumers(), max_size=3)),
                suppressions=draw(
                    st.lists(
                        st.builds(
                            Suppression,
                            st.sampled_from(["VG020", "VG999", "*"]),
                            st.sampled_from([None, "", "ok"]),
                        ),
                        max_size=2,
                    )
                ),
                arrival_rate=draw(pos),
            )
        )
    return m


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(models())
def test_rules_never_crash(m):
    findings = lint_model(m)
    assert all(isinstance(f, Finding) and f.message and f.queue in m.queues for f in findings)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(models())
def test_consumers_only_rules_stay_quiet_without_consumers(m):
    """``consumers_only`` lets lint_model skip a rule on queues without consumers: that must never hide a
    finding. Each marked rule runs on every queue of the model with its consumers removed."""
    from visguard.linter.api import RuleContext
    from visguard.linter.rules import RULES

    marked = [r for r in RULES.values() if r.consumers_only]
    assert len(marked) >= 10  # the judgement rules of consumers are marked
    for q in m.queues.values():
        q.consumers = []
    ctx = RuleContext(m)
    for q in m.queues.values():
        for rule in marked:
            ctx.rule = rule
            assert list(rule.check(q, ctx)) == [], rule.id


def test_unmarked_rules_can_fire_without_consumers():
    """The flag is not set on rules that judge the queue alone (a FIFO timeout, a DLQ, a redrive loop)."""
    from visguard.linter.rules import RULES

    assert not any(
        RULES[i].consumers_only for i in ("VG001", "VG002", "VG003", "VG004", "VG022", "VG023", "VG041")
    )


@st.composite
def any_consumers(draw):
    """A consumer of any kind with any worker setting too (a platform, its own visibility, stop and work
    timeouts): what a rule that declares ``kinds`` must not judge unless the kind is one of them."""
    c = draw(consumers())
    return c.replace(
        platform=draw(
            st.sampled_from([None, "ecs", "beanstalk", "pipes", "keda", "sdk", "celery", "sqs-consumer"])
        ),
        visibility_override=draw(st.one_of(st.none(), st.integers(0, 50_000))),
        stop_timeout=draw(st.one_of(st.none(), st.integers(0, 200))),
        work_timeout=draw(st.one_of(st.none(), st.floats(0, 50_000, allow_nan=False))),
        heartbeat=draw(st.one_of(st.none(), st.booleans())),
        settings=draw(
            st.fixed_dictionaries({}, optional={"acks_late": st.booleans(), "zero_not_sent": st.booleans()})
        ),
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(models(), st.lists(any_consumers(), min_size=1, max_size=4))
def test_rules_with_kinds_stay_quiet_without_a_consumer_of_those_kinds(m, more):
    """``Rule.kinds`` lets lint_model skip a rule on a queue without a consumer of those kinds: that must never
    hide a finding. Each such rule runs on every queue with the consumers of its kinds removed."""
    from visguard.linter.api import RuleContext
    from visguard.linter.rules import RULES

    declared = [r for r in RULES.values() if r.kinds is not None]
    assert declared and all(r.consumers_only for r in declared)
    for q in m.queues.values():
        everyone = q.consumers + more
        for rule in declared:
            q.consumers = [c for c in everyone if c.kind not in rule.kinds]
            ctx = RuleContext(m)  # nothing computed for another set of consumers is reused
            ctx.rule = rule
            assert list(rule.check(q, ctx)) == [], rule.id
        q.consumers = everyone
