"""An environment variable read with a literal default names the default queue as the reference's fallback, in
every reader that sees one (found on public worker applications: tests/linter/fixtures/code/REAL-WORLD.md)."""

from __future__ import annotations

import textwrap

import pytest
from visguard.linter.loaders.code import frameworks, javascript, php, python, ruby

URL = "https://sqs.eu-west-1.amazonaws.com/123456789012/jobs"

CASES = [
    (
        python,
        "worker.py",
        f"""
        import os, boto3
        sqs = boto3.client("sqs")
        sqs.receive_message(QueueUrl=os.environ.get("JOBS_Q", "{URL}"), VisibilityTimeout=0)
        """,
    ),
    (
        javascript,
        "worker.ts",
        f"""
        import {{ Consumer }} from "sqs-consumer";
        Consumer.create({{ queueUrl: process.env.JOBS_Q ?? "{URL}", handleMessage: async () => {{}} }});
        """,
    ),
    (
        php,
        "worker.php",
        f"""
        <?php
        $client = new Aws\\Sqs\\SqsClient([]);
        $client->receiveMessage(['QueueUrl' => env('JOBS_Q', '{URL}'), 'VisibilityTimeout' => 0]);
        """,
    ),
    (
        ruby,
        "worker.rb",
        f"""
        require "aws-sdk-sqs"
        sqs = Aws::SQS::Client.new
        sqs.receive_message(queue_url: ENV.fetch("JOBS_Q", "{URL}"), visibility_timeout: 0)
        """,
    ),
    (
        frameworks,
        "shoryuken.yml",
        """
        concurrency: 5
        queues:
          - <%= ENV.fetch("JOBS_Q", "jobs") %>
        """,
    ),
]


@pytest.mark.parametrize(("reader", "name", "code"), CASES, ids=[c[1] for c in CASES])
def test_an_environment_default_is_the_references_fallback(reader, name, code):
    data = textwrap.dedent(code).lstrip("\n").encode()
    consumers = reader.read(f"app/{name}", data).consumers
    assert len(consumers) == 1
    ref = consumers[0].queue_ref
    assert (ref.kind, ref.value) == ("env", "JOBS_Q")
    assert ref.fallback is not None and ref.fallback.value in (URL, "jobs")
    assert ref.fallback.kind == ("name" if name == "shoryuken.yml" else "url")


@pytest.mark.parametrize(("reader", "name", "code"), CASES, ids=[c[1] for c in CASES])
def test_without_a_default_there_is_no_fallback(reader, name, code):
    code = code.replace(f', "{URL}"', "").replace(f", '{URL}'", "").replace(f' ?? "{URL}"', "")
    code = code.replace(', "jobs"', "")
    consumers = reader.read(f"app/{name}", textwrap.dedent(code).lstrip("\n").encode()).consumers
    assert len(consumers) == 1 and consumers[0].queue_ref.kind == "env"
    assert consumers[0].queue_ref.fallback is None
