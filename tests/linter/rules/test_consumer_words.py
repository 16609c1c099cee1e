"""One word table for worker consumers (issue 34): one label per consumer whatever rule fires, and every setting
key of ``visguard.linter.consumer_words`` with a short form (a message's ``setting = value``) and a long form (a
fix sentence's), both naming one setting."""

from __future__ import annotations

import pytest
from visguard.linter import consumer_words
from visguard.linter.api import lint_model
from visguard.linter.model import Consumer, Location, Model, Queue

# every worker platform and source the table words (plus each platform's any-source entries with a source its
# readers give), and the labels of platforms the table names
PLATFORM_SOURCES = sorted(
    {(p, s or {"sqs-consumer": "javascript", "celery": "python", "spring": "java", "laravel": "php",
               "shoryuken": "ruby"}.get(p, "cloudformation"))
     for p, s, _ in consumer_words.WORDS if p not in consumer_words.GENERATIONS}
    | {("sdk", lang) for lang in ("python", "javascript", "typescript", "java", "go", "csharp", "php", "ruby", "rust", "kotlin")}
)  # fmt: skip


def _model(c: Consumer, vt=600) -> Model:
    q = Queue(id="Jobs", location=Location("infra/main.tf", line=1), name="jobs", visibility_timeout=vt,
              locations={"visibility_timeout": Location("infra/main.tf", line=3)}, source="terraform")  # fmt: skip
    q.consumers.append(c)
    m = Model(source_file="infra/main.tf")
    m.add(q)
    return m


def _consumer(platform: str, source: str, **kw) -> Consumer:
    loc = Location(f"app/{platform}-{source}.src", line=12)
    fields = ("visibility_override", "work_timeout", "heartbeat_interval", "stop_timeout", "processing_p99")
    locations = {k: Location(loc.file, line=13) for k in fields if kw.get(k) is not None}
    return Consumer(
        f"{loc.file}:12", "worker", loc, platform=platform, source=source, locations=locations, **kw
    )


# settings that make the worker rules fire on one consumer: each variant is linted on its own queue
VARIANTS = [
    {"visibility_override": 0},  # VG065 (no processing time), VG070 (receive with 0)
    {"visibility_override": 30, "processing_p99": 600},  # VG060 (differs from the queue's), VG061
    {"visibility_override": 60, "work_timeout": 900},  # VG072 (a framework's limit), VG060
    {"visibility_override": 30, "heartbeat_interval": 30},  # VG073 (sqs-consumer), VG060
    {"processing_p99": 600, "stop_timeout": 10},  # VG062 (stop before the work ends), VG012
    {"work_timeout": 900, "settings": {"acks_late": True}},  # VG072 on the queue's timeout (Celery)
]


@pytest.mark.parametrize(
    ("platform", "source"), PLATFORM_SOURCES, ids=[f"{p}-{s}" for p, s in PLATFORM_SOURCES]
)
def test_one_consumer_has_one_label_in_every_rule_that_names_it(platform, source):
    """Every finding about a worker consumer names it by ``consumer_words.label`` (VG065's "receive loop
    app/worker.py:12" is VG070's too), never by another word for its platform."""
    fired, named = set(), []
    for kw in VARIANTS:
        c = _consumer(platform, source, **kw)
        for f in lint_model(_model(c, vt=120)):
            if f.consumer != c.id:
                continue
            fired.add(f.rule)
            if consumer_words.label(c) not in f.message or f"{platform} consumer" in f.message:
                named.append((f.rule, f.message))
    assert fired, "no worker rule fired: the variants are stale"
    if platform == "sdk":
        assert {"VG065", "VG070"} <= fired
    assert named == []


def test_the_label_is_one_for_every_worker_platform():
    """Every platform the table words has its own label (no worker is just "consumer")."""
    assert {p for p, _ in PLATFORM_SOURCES} <= set(consumer_words.LABELS)


def test_a_generation_words_only_its_own_platform():
    """A library generation's words (Spring Cloud AWS 2.x's properties) replace its platform's for its fields only,
    and only on a consumer of that platform."""
    c = _consumer("spring", "java")
    three = consumer_words.term(c, "visibility_override")
    c.settings["words"] = "spring2"
    assert (
        consumer_words.term(c, "visibility_override") == "cloud.aws.sqs.listener.visibility-timeout" != three
    )
    assert consumer_words.term(c, "stop_timeout") == consumer_words.word(
        "stop_timeout", "spring", "java", "short"
    )
    other = _consumer("sqs-consumer", "javascript")
    other.settings["words"] = "spring2"
    assert "cloud.aws" not in consumer_words.term(other, "visibility_override")
    assert set(consumer_words.GENERATIONS.values()) <= set(consumer_words.LABELS)


KEYS = sorted(consumer_words.WORDS.items(), key=lambda kv: tuple(map(str, kv[0])))


@pytest.mark.parametrize(("key", "forms"), [*KEYS, *[((None, None, f), w) for f, w in consumer_words.GENERIC.items()]],
                         ids=lambda v: "/".join(map(str, v)) if isinstance(v, tuple) and len(v) == 3 else "")  # fmt: skip
def test_every_setting_key_has_a_short_and_a_long_form_of_one_name(key, forms):
    short, long = forms
    assert short and long
    name = short.split(" (")[0]  # "VisibilityTimeout (receive_message)": the setting, then where it is passed
    assert name.lower() in long.lower(), (key, short, long)


@pytest.mark.parametrize(
    ("platform", "source"), PLATFORM_SOURCES, ids=[f"{p}-{s}" for p, s in PLATFORM_SOURCES]
)
def test_term_and_the_fix_words_come_from_the_same_entry(platform, source):
    """``term`` (a message's short form) and the vocabulary's word (a fix's long form) of one consumer are the two
    forms of one table entry."""
    c = _consumer(platform, source)
    for field in consumer_words.FIELDS:
        pair = consumer_words.WORDS.get((platform, source, field)) or consumer_words.WORDS.get(
            (platform, None, field)
        )
        pair = pair or consumer_words.GENERIC[field]
        assert (consumer_words.term(c, field), consumer_words.for_consumer(field, c)) == pair
