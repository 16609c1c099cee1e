"""Ruby consumers: aws-sdk-sqs receive_message and QueuePoller, Shoryuken workers."""

from __future__ import annotations

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
