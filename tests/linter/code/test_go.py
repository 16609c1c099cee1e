"""Go consumers: sqs.ReceiveMessageInput literals of the AWS SDK v2 and v1."""

from __future__ import annotations

import pytest
from visguard.linter.loaders.code import go

V2 = b"""package worker

import (
	"context"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

const visibility = 90

func Run(ctx context.Context, client *sqs.Client) error {
	queueURL := os.Getenv("WORK_QUEUE_URL")
	for {
		out, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl:            aws.String(queueURL),
			MaxNumberOfMessages: 10,
			WaitTimeSeconds:     20,
			VisibilityTimeout:   visibility,
		})
		if err != nil {
			return err
		}
		for _, m := range out.Messages {
			process(ctx, m)
		}
	}
}
"""


def test_v2_receive_input_reads_queue_env_visibility_constant_and_lines():
    res = go.read("worker/run.go", V2)
    (c,) = res.consumers
    assert (c.platform, c.source, c.kind) == ("sdk", "go", "worker")
    assert (c.queue_ref.kind, c.queue_ref.value) == ("env", "WORK_QUEUE_URL")
    assert c.visibility_override == 90 and c.settings == {"max_messages": 10, "wait_time": 20}
    assert c.heartbeat is False
    assert c.location.line == 16
    assert {k: v.line for k, v in c.locations.items()} == {
        "queue_ref": 14,
        "max_messages": 18,
        "wait_time": 19,
        "visibility_override": 11,
    }
    assert res.notes == []


def test_v2_zero_is_not_sent_so_the_queue_visibility_applies():
    res = go.read("w.go", V2.replace(b"VisibilityTimeout:   visibility", b"VisibilityTimeout:   0"))
    (c,) = res.consumers
    assert c.visibility_override is None and c.settings["zero_not_sent"] is True
    assert c.locations["zero_not_sent"].line == 20


def test_v1_pointer_zero_is_sent_and_heartbeat_is_seen():
    data = b"""package main
const queueURL = "https://sqs.us-west-2.amazonaws.com/123456789012/thumbnails"
func poll(svc *sqs.SQS) {
	res, _ := svc.ReceiveMessage(&sqs.ReceiveMessageInput{
		QueueUrl:          aws.String(queueURL),
		VisibilityTimeout: aws.Int64(0),
	})
	for _, m := range res.Messages {
		svc.ChangeMessageVisibility(&sqs.ChangeMessageVisibilityInput{
			QueueUrl: aws.String(queueURL), ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: aws.Int64(600),
		})
	}
}
"""
    (c,) = go.read("main.go", data).consumers
    assert c.visibility_override == 0 and "zero_not_sent" not in c.settings
    assert (c.queue_ref.kind, c.queue_ref.value[-10:]) == ("url", "thumbnails")
    assert c.heartbeat is True


def test_fields_set_after_the_literal_and_computed_values():
    data = b"""package main
func poll(client *sqs.Client, cfg Config) {
	input := &sqs.ReceiveMessageInput{QueueUrl: &cfg.QueueURL}
	input.VisibilityTimeout = int32(cfg.Timeout.Seconds())
	input.WaitTimeSeconds = 5
	client.ReceiveMessage(ctx, input)
}
"""
    res = go.read("main.go", data)
    (c,) = res.consumers
    assert c.queue_ref is None and c.visibility_override is None and c.settings == {"wait_time": 5}
    assert {n.location.line for n in res.notes} == {3, 4}


def test_garbage_deep_nesting_and_binary_never_raise():
    for data in (b"\x00\x01\x02" * 3000, b"package a\nfunc f() {" + b"{" * 20_000, V2[:300], b"\xff" * 10):
        assert isinstance(go.read("bad.go", data).consumers, list)
    (c,) = go.read("half.go", V2[: V2.index(b"VisibilityTimeout")]).consumers
    assert c.queue_ref.value == "WORK_QUEUE_URL"


# one number semantics for every reader (issue 34): a literal up to 10**15 is data for the rules (VisibilityTimeout
# 50,000 is the range rule's to judge), beyond it (or not finite) it is not read and the note says why in the words
# of the other inputs' readers, never "computed"
NUMBERS = [
    ("50000", 50000, None),
    ("0x1E", 30, None),
    ("30 * 2", 60, None),
    ("123456789012345678901", None, "an integer of 21 digits, beyond any AWS limit"),
    ("10 * 1e15", None, "beyond any AWS limit"),
    ("1e400", None, "not a finite number"),
]


@pytest.mark.parametrize(("written", "read", "says"), NUMBERS)
def test_one_number_semantics(written, read, says):

    src = (
        "package x\nfunc f(c *sqs.Client) {\n\tc.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: "
        f'aws.String("q"), VisibilityTimeout: {written}}})\n}}\n'
    ).encode()
    r = go.read("a.go", src)
    assert r.consumers[0].visibility_override == read
    notes = [n.message for n in r.notes]
    if says is None:
        assert notes == []
    else:
        assert len(notes) == 1 and says in notes[0] and "computed" not in notes[0], notes


def test_a_name_bound_alike_in_every_function_is_resolved_once():
    """``vt := 30`` in each of 5,000 functions, each read by a receive: the name's bindings are compared once,
    not once per use (25 million comparisons: 20 s). The bound guards only against that; the file takes ~1 s."""
    import time

    src = "package x\n" + "".join(
        f"func f{i}(c *sqs.Client) {{\n\tvt := 30\n\tc.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{{"
        f'QueueUrl: aws.String("q"), VisibilityTimeout: vt}})\n}}\n'
        for i in range(5000)
    )
    start = time.process_time()
    r = go.read("a.go", src.encode())
    assert time.process_time() - start < 10
    assert len(r.consumers) == 5000 and {c.visibility_override for c in r.consumers} == {30}
