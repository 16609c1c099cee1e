"""Ruby consumers: aws-sdk-sqs receive_message and QueuePoller, Shoryuken workers."""

from __future__ import annotations

import pytest
from visguard.linter.loaders.code import ruby

SDK = b"""require 'aws-sdk-sqs'

QUEUE_URL = ENV.fetch('EVENTS_QUEUE_URL')

sqs = Aws::SQS::Client.new(region: 'us-east-1')
loop do
  resp = sqs.receive_message(
    queue_url: QUEUE_URL,
    max_number_of_messages: 10,
    wait_time_seconds: 20,
    visibility_timeout: 5.minutes
  )
  resp.messages.each do |msg|
    EventHandler.call(JSON.parse(msg.body))
    sqs.delete_message(queue_url: QUEUE_URL, receipt_handle: msg.receipt_handle)
  end
end
"""


def test_receive_message_keywords_env_constant_and_duration():
    res = ruby.read("bin/events_worker.rb", SDK)
    (c,) = res.consumers
    assert (c.platform, c.source, c.location.line) == ("sdk", "ruby", 7)
    assert (c.queue_ref.kind, c.queue_ref.value) == ("env", "EVENTS_QUEUE_URL")
    assert c.visibility_override == 300 and c.settings == {"max_messages": 10, "wait_time": 20}
    assert c.heartbeat is False
    assert {k: v.line for k, v in c.locations.items()} == {
        "queue_ref": 3,
        "max_messages": 9,
        "wait_time": 10,
        "visibility_override": 11,
    }


def test_queue_poller_options_and_its_visibility_change():
    data = b"""poller = Aws::SQS::QueuePoller.new(ENV['THUMBS_QUEUE_URL'])
poller.poll(visibility_timeout: 60, idle_timeout: 300) do |msg|
  poller.change_message_visibility_timeout(msg, 600) if big?(msg)
  resize(msg)
end
"""
    (c,) = ruby.read("poller.rb", data).consumers
    assert (c.queue_ref.kind, c.queue_ref.value) == ("env", "THUMBS_QUEUE_URL")
    assert (
        c.visibility_override == 60 and c.locations["visibility_override"].line == 2 and c.heartbeat is True
    )


WORKER = b"""class ChargeWorker
  include Shoryuken::Worker

  shoryuken_options queue: 'charges', auto_delete: true,
                    auto_visibility_timeout: true, retry_intervals: [30, 300, 1800]

  def perform(sqs_msg, body)
    Charge.process!(JSON.parse(body))
  end
end
"""


def test_shoryuken_worker_options():
    res = ruby.read("app/workers/charge_worker.rb", WORKER)
    (c,) = res.consumers
    assert (c.platform, c.queue_ref.kind, c.queue_ref.value) == ("shoryuken", "name", "charges")
    assert c.heartbeat is True and c.locations["heartbeat"].line == 5
    assert [d["seconds"] for d in c.settings["delays"]] == [30, 300, 1800]
    assert all(d["what"] == "retry_intervals" and d["location"].line == 5 for d in c.settings["delays"])


def test_shoryuken_without_auto_extend_or_batch_has_no_heartbeat():
    (plain,) = ruby.read(
        "a.rb", b"class A\n  include Shoryuken::Worker\n  shoryuken_options queue: :reports\nend\n"
    ).consumers
    assert plain.heartbeat is False and plain.queue_ref.value == "reports"
    batch = b"class B\n  shoryuken_options(queue: 'b', batch: true, auto_visibility_timeout: true)\nend\n"
    (c,) = ruby.read("b.rb", batch).consumers
    assert c.heartbeat is False and c.settings["batch"] is True


def test_computed_queue_is_a_note():
    data = b"class A\n  shoryuken_options queue: -> { \"#{ENV['STAGE']}_jobs\" }\nend\n"
    res = ruby.read("a.rb", data)
    (c,) = res.consumers
    assert c.queue_ref is None and len(res.notes) == 1 and res.notes[0].location.line == 2


def test_garbage_deep_nesting_and_binary_never_raise():
    for data in (b"\x00\xc3" * 4000, b"x = " + b"[" * 20_000, SDK[:200], b"def \xff\xfe"):
        assert isinstance(ruby.read("bad.rb", data).consumers, list)


@pytest.mark.parametrize(
    "written, read",
    [
        ("50000", 50000),  # outside SQS's 0-43,200: data for the range rule, not the reader's to judge
        ("50_000", 50000),
        ("1000000000000000", 10**15),  # values.MAX_NUMBER itself
        ("1000000000000001", None),  # beyond any AWS limit: not read
        ("123456789012345678901", None),  # a 21-digit visibility timeout
        ("100000000000000.minutes", None),  # beyond it in its unit
    ],
)
def test_receive_numbers_up_to_the_limit_are_read_and_beyond_it_noted(written, read):
    data = f"sqs.receive_message(queue_url: 'q', visibility_timeout: {written})\n".encode()
    res = ruby.read("w.rb", data)
    (c,) = res.consumers
    assert c.visibility_override == read
    if read is None:
        (note,) = res.notes
        assert written in note.message and "not read" in note.message and note.location.line == 1
        assert (c.id, "visibility_override") not in res.places
    else:
        assert res.notes == []
        place = res.places[(c.id, "visibility_override")]  # where the fixer edits it
        assert data[place.start : place.end].decode() == written


@pytest.mark.parametrize(
    "data, queue, visibility, notes",
    [
        # the poller made and polled in one expression: its poll options are its own
        (b"Aws::SQS::QueuePoller.new('u').poll(visibility_timeout: 7) { |m| }\n", "u", 7, 0),
        # x += 1 does not bind x to 1
        (b"x += 1\nsqs.receive_message(queue_url: 'q', visibility_timeout: x)\n", "q", None, 1),
        # a string built from constants of the file is known
        (b"S = 'prod'\nsqs.receive_message(queue_url: \"jobs-#{S}\")\n", "jobs-prod", None, 0),
        # arithmetic of literals
        (b"sqs.receive_message(queue_url: 'q', visibility_timeout: 2 * 60)\n", "q", 120, 0),
        # a method's parameter is not the file's local of the same name
        (
            b"timeout = 9\ndef work(timeout = 5)\n  sqs.receive_message(queue_url: 'q', visibility_timeout: timeout)\nend\n",
            "q",
            None,
            1,
        ),
        # a list of one queue is not "several queues"
        (b"class A\n  shoryuken_options queue: ['only']\nend\n", "only", None, 0),
        (b"class A\n  shoryuken_options queue: ['a', 'b']\nend\n", "a", None, 1),
    ],
)
def test_values_read_as_the_code_means_them(data, queue, visibility, notes):
    res = ruby.read("w.rb", data)
    (c,) = res.consumers
    assert (c.queue_ref.value, c.visibility_override, len(res.notes)) == (queue, visibility, notes)


@pytest.mark.parametrize(
    "code, env",
    [
        (b"ENV['X']", ("X", None)),
        (b"ENV.fetch('X', 'jobs')", ("X", "jobs")),
        (b"ENV.fetch('X').to_s", ("X", None)),
        (b"ENV['PREFIX'] + '_jobs'", None),  # a name built from the variable is not the variable
        (b"queue_for(ENV['X'])", None),
        (b"ENV[", None),
    ],
)
def test_an_erb_value_is_an_environment_variable_only_when_it_is_one(code, env):
    assert ruby.environment(code) == env


def test_shoryuken_non_retryable_exceptions_are_read_and_noted():
    data = b"""
class ImportWorker
  include Shoryuken::Worker
  shoryuken_options queue: 'imports', auto_delete: true,
                    non_retryable_exceptions: [Imports::InvalidFile, ArgumentError]

  def perform(sqs_msg, body); end
end
"""
    res = ruby.read("app/workers/import_worker.rb", data)
    (c,) = res.consumers
    assert c.settings["non_retryable_exceptions"] == ["Imports::InvalidFile", "ArgumentError"]
    assert c.locations["non_retryable_exceptions"].line == 5
    (note,) = [n for n in res.notes if "never reaches the dead-letter queue" in n.message]
    assert "7.0.1" in note.message and note.location.line == 5
