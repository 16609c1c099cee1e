"""PHP consumers: AWS SDK receiveMessage, Laravel config/queue.php connections and job classes."""

from __future__ import annotations

import time

import pytest
from visguard.linter.loaders.code import php

QUEUE_CONFIG = b"""<?php

return [
    'default' => env('QUEUE_CONNECTION', 'sync'),

    'connections' => [
        'sync' => [
            'driver' => 'sync',
        ],
        'redis' => [
            'driver' => 'redis',
            'connection' => 'default',
            'queue' => env('REDIS_QUEUE', 'default'),
            'retry_after' => 90,
        ],
        'sqs' => [
            'driver' => 'sqs',
            'key' => env('AWS_ACCESS_KEY_ID'),
            'secret' => env('AWS_SECRET_ACCESS_KEY'),
            'prefix' => env('SQS_PREFIX', 'https://sqs.us-east-1.amazonaws.com/your-account-id'),
            'queue' => env('SQS_QUEUE', 'default'),
            'suffix' => env('SQS_SUFFIX'),
            'region' => env('AWS_DEFAULT_REGION', 'us-east-1'),
            'after_commit' => false,
        ],
        'sqs-reports' => [
            'driver' => 'sqs',
            'queue' => 'https://sqs.us-east-1.amazonaws.com/123456789012/reports',
            'retry_after' => 600,
        ],
    ],
];
"""


def test_laravel_config_one_consumer_per_sqs_connection():
    res = php.read("config/queue.php", QUEUE_CONFIG)
    default, reports = res.consumers
    assert (default.platform, default.source) == ("laravel", "php")
    assert default.settings["connection"] == "sqs" and default.location.line == 16
    assert (default.queue_ref.kind, default.queue_ref.value) == ("env", "SQS_QUEUE")
    assert default.locations["queue_ref"].line == 21
    assert default.work_timeout is None and default.heartbeat is False
    assert (reports.queue_ref.kind, reports.settings["connection"]) == ("url", "sqs-reports")
    assert [n.location.line for n in res.notes] == [29]  # retry_after of the SQS connection only
    assert "retry_after" in res.notes[0].message


def test_laravel_literal_queue_name_with_literal_suffix():
    data = b"<?php return ['connections' => ['sqs' => ['driver' => 'sqs', 'queue' => 'emails', 'suffix' => '-prod']]];"
    (c,) = php.read("config/queue.php", data).consumers
    assert (c.queue_ref.kind, c.queue_ref.value) == ("name", "emails-prod")


JOB = b"""<?php

namespace App\\Jobs;

use Illuminate\\Bus\\Queueable;
use Illuminate\\Contracts\\Queue\\ShouldQueue;
use Illuminate\\Queue\\InteractsWithQueue;

class GenerateReport implements ShouldQueue
{
    use InteractsWithQueue, Queueable;

    public $timeout = 600;
    public $tries = 3;
    public $backoff = [30, 120];

    public function handle(ReportBuilder $builder)
    {
        if (! $builder->ready()) {
            $this->release(45);
            return;
        }
        $builder->run();
    }
}
"""


def test_job_class_timeout_tries_backoff_and_release():
    res = php.read("app/Jobs/GenerateReport.php", JOB)
    (c,) = res.consumers
    assert (c.platform, c.work_timeout, c.settings["tries"]) == ("laravel", 600, 3)
    assert c.settings["job_class"] == ["GenerateReport"] and c.queue_ref is None
    assert [(d["seconds"], d["what"], d["location"].line) for d in c.settings["delays"]] == [
        (30, "$backoff", 15),
        (120, "$backoff", 15),
        (45, "release", 20),
    ]
    assert c.locations["work_timeout"].line == 13 and c.locations["tries"].line == 14


def test_jobs_of_one_queue_share_the_largest_timeout():
    data = b"""<?php
class A implements ShouldQueue { public $timeout = 120; public $queue = 'media'; }
class B implements ShouldQueue { public $timeout = 900; public $queue = 'media'; }
class C implements ShouldQueue { public $timeout = 30; }
class NotAJob { public $timeout = 5000; }
"""
    media, other = php.read("app/Jobs/Media.php", data).consumers
    assert (media.queue_ref.value, media.work_timeout, media.locations["work_timeout"].line) == (
        "media",
        900,
        3,
    )
    assert media.settings["job_class"] == ["A", "B"]
    assert other.queue_ref is None and other.work_timeout == 30


SDK = b"""<?php
use Aws\\Sqs\\SqsClient;

const QUEUE_URL = 'https://sqs.eu-central-1.amazonaws.com/123456789012/imports';

$client = new SqsClient(['region' => 'eu-central-1', 'version' => '2012-11-05']);
while (true) {
    $result = $client->receiveMessage([
        'QueueUrl' => QUEUE_URL,
        'MaxNumberOfMessages' => 10,
        'WaitTimeSeconds' => 20,
        'VisibilityTimeout' => 60,
    ]);
    foreach ($result->get('Messages') ?? [] as $message) {
        import_rows($message['Body']);
        $client->deleteMessage(['QueueUrl' => QUEUE_URL, 'ReceiptHandle' => $message['ReceiptHandle']]);
    }
}
"""


def test_sdk_receive_message_array_options():
    res = php.read("bin/import.php", SDK)
    (c,) = res.consumers
    assert (c.platform, c.source, c.location.line) == ("sdk", "php", 8)
    assert c.queue_ref.kind == "url" and c.queue_ref.value.endswith("/imports")
    assert c.visibility_override == 60 and c.settings == {"max_messages": 10, "wait_time": 20}
    assert c.heartbeat is False and c.locations["visibility_override"].line == 12
    assert res.notes == []


def test_sdk_env_queue_heartbeat_and_options_variable():
    data = b"""<?php
$params = ['QueueUrl' => getenv('IMPORT_QUEUE'), 'VisibilityTimeout' => $timeout];
$r = $sqs->receiveMessage($params);
$sqs->changeMessageVisibility(['QueueUrl' => getenv('IMPORT_QUEUE'), 'VisibilityTimeout' => 300]);
"""
    res = php.read("w.php", data)
    (c,) = res.consumers
    assert (c.queue_ref.kind, c.queue_ref.value) == ("env", "IMPORT_QUEUE") and c.heartbeat is True
    assert c.visibility_override is None and len(res.notes) == 1 and res.notes[0].location.line == 2


def test_garbage_deep_nesting_and_binary_never_raise():
    for data in (b"\x00\x9f" * 4000, b"<?php $a = " + b"[" * 20_000, QUEUE_CONFIG[:500], b"<?php \xff\xfe"):
        assert isinstance(php.read("bad.php", data).consumers, list)


@pytest.mark.parametrize(
    "written, read",
    [
        ("50000", 50000),  # outside SQS's 0-43,200: data for the range rule, not the reader's to judge
        ("'50000'", 50000),  # a string of digits is a number
        ("1000000000000000", 10**15),  # values.MAX_NUMBER itself
        ("1000000000000001", None),  # beyond any AWS limit: not read
        ("123456789012345678901", None),  # a 21-digit visibility timeout
        ("'123456789012345678901'", None),
    ],
)
def test_receive_numbers_up_to_the_limit_are_read_and_beyond_it_noted(written, read):
    data = f"<?php\n$sqs->receiveMessage(['QueueUrl' => 'q', 'VisibilityTimeout' => {written}]);\n".encode()
    res = php.read("w.php", data)
    (c,) = res.consumers
    assert c.visibility_override == read
    if read is None:
        (note,) = res.notes
        assert written.strip("'") in note.message and "not read" in note.message and note.location.line == 2
        assert (c.id, "visibility_override") not in res.places
    else:
        assert res.notes == []
        place = res.places[(c.id, "visibility_override")]  # where the fixer edits it
        assert data[place.start : place.end].decode() == written.strip("'")


@pytest.mark.parametrize(
    "code, queue, visibility",
    [
        # a URL built from literals and constants of the file
        (
            "const ACCOUNT = '1'; $sqs->receiveMessage(['QueueUrl' => 'https://sqs.x/' . ACCOUNT . '/q']);",
            "https://sqs.x/1/q",
            None,
        ),
        # arithmetic of literals
        ("$sqs->receiveMessage(['QueueUrl' => 'q', 'VisibilityTimeout' => 2 * 60]);", "q", 120),
        # $t += 10 and $t++ change $t: it is not the 30 first assigned
        (
            "$t = 30; $t += 10; $sqs->receiveMessage(['QueueUrl' => 'q', 'VisibilityTimeout' => $t]);",
            "q",
            None,
        ),
        ("$t = 30; $t++; $sqs->receiveMessage(['QueueUrl' => 'q', 'VisibilityTimeout' => $t]);", "q", None),
        # a parameter is not the file's variable of the same name
        ("$u = 'global'; function f($u) { $sqs->receiveMessage(['QueueUrl' => $u]); }", None, None),
    ],
)
def test_values_read_as_the_code_means_them(code, queue, visibility):
    res = php.read("w.php", f"<?php\n{code}\n".encode())
    (c,) = res.consumers
    assert (c.queue_ref.value if c.queue_ref else None, c.visibility_override) == (queue, visibility)


def test_only_classes_that_implement_should_queue_are_jobs():
    data = b"""<?php
class ShouldQueueHelper { public $timeout = 5; }
class Job extends Base implements \\Illuminate\\Contracts\\Queue\\ShouldQueue { public $timeout = 60; }
"""
    (c,) = php.read("app/Jobs/Job.php", data).consumers
    assert (c.settings["job_class"], c.work_timeout) == (["Job"], 60)


def _elements(n: int) -> str:
    return ", ".join(f"'k{i}' => {i}" for i in range(n))


@pytest.mark.parametrize(
    "data, consumers",
    [
        # a connection array of thousands of elements (a query of the elements around 'driver' was quadratic)
        (f"<?php return ['sqs' => [{_elements(3000)}, 'driver' => 'sqs', 'queue' => 'q']];", 1),
        (f"<?php return [{_elements(20000)}];", 0),
        (f"<?php $sqs->receiveMessage(['QueueUrl' => 'q', {_elements(20000)}]);", 1),
        # thousands of job classes, each with its calls
        (
            "<?php\n"
            + "".join(
                f"class J{i} implements ShouldQueue {{ public $timeout = {i}; function h() {{ $this->release(1); }} }}\n"
                for i in range(3000)
            ),
            1,
        ),
    ],
)
def test_large_arrays_and_many_classes_never_hang(data, consumers):
    start = time.monotonic()
    res = php.read("config/queue.php", data.encode())
    assert time.monotonic() - start < 20  # a guard against a hang only: the reading takes well under 1 s
    assert len(res.consumers) == consumers


# ------------------------------------------------------------------------------------ Laravel 13 (issue 36)
ATTRIBUTED = b"""<?php

namespace App\\Jobs;

use Illuminate\\Contracts\\Queue\\ShouldQueue;
use Illuminate\\Queue\\Attributes\\Backoff;
use Illuminate\\Queue\\Attributes\\FailOnTimeout;
use Illuminate\\Queue\\Attributes\\Timeout;
use Illuminate\\Queue\\Attributes\\Tries;

#[Tries(5)]
#[Backoff([10, 60, 300])]
#[Timeout(120), FailOnTimeout]
#[\\Illuminate\\Queue\\Attributes\\Queue('ocr')]
class ProcessInvoiceOcr implements ShouldQueue
{
    public $timeout = 30;

    public function handle(): void {}
}
"""


def test_laravel_13_attributes_win_over_the_properties():
    (c,) = php.read("app/Jobs/ProcessInvoiceOcr.php", ATTRIBUTED).consumers
    assert (c.work_timeout, c.locations["work_timeout"].line) == (120, 13)
    assert c.settings["tries"] == 5 and c.settings["fail_on_timeout"] is True
    assert [d["seconds"] for d in c.settings["delays"]] == [10, 60, 300]
    assert (c.queue_ref.kind, c.queue_ref.value) == ("name", "ocr")


def test_an_attribute_alone_makes_a_job():
    data = b"<?php\n#[Timeout(900)]\nclass Transcode implements ShouldQueue { public function handle() {} }\n"
    (c,) = php.read("app/Jobs/Transcode.php", data).consumers
    assert c.work_timeout == 900 and c.queue_ref is None  # outside a run: no config/queue.php to read


def _laravel(tmp_path, job: str, env: str = "QUEUE_CONNECTION=sqs\nSQS_QUEUE=jobs\n", default="'database'"):
    app = tmp_path / "app"
    (app / "app" / "Jobs").mkdir(parents=True)
    (app / "config").mkdir()
    (app / "composer.json").write_text('{"require": {"laravel/framework": "^13.0"}}')
    (app / ".env").write_text(env)
    (app / "config" / "queue.php").write_text(
        f"<?php\nreturn [\n  'default' => env('QUEUE_CONNECTION', {default}),\n  'connections' => [\n"
        "    'database' => ['driver' => 'database', 'queue' => 'default'],\n"
        "    'sqs' => ['driver' => 'sqs', 'queue' => env('SQS_QUEUE', 'default'), 'suffix' => env('SQS_SUFFIX')],\n"
        "  ],\n];\n"
    )
    (app / "app" / "Jobs" / "Job.php").write_text(job)
    (tmp_path / "main.tf").write_text(
        'resource "aws_sqs_queue" "dlq" {\n  name = "jobs-dlq"\n  message_retention_seconds = 1209600\n}\n'
        'resource "aws_sqs_queue" "jobs" {\n  name = "jobs"\n  visibility_timeout_seconds = 300\n'
        "  redrive_policy = jsonencode({\n    deadLetterTargetArn = aws_sqs_queue.dlq.arn\n"
        "    maxReceiveCount     = 5\n  })\n}\n"
    )
    from visguard.linter.api import lint_paths

    return [f for f in lint_paths([str(tmp_path)]).findings if f.rule == "VG072"]


LONG_JOB = "<?php\nclass Transcode implements ShouldQueue\n{\n    public $timeout = 900;\n}\n"


@pytest.mark.parametrize(
    ("job", "env", "default", "judged"),
    [
        (LONG_JOB, "QUEUE_CONNECTION=sqs\nSQS_QUEUE=jobs\n", "'database'", True),  # .env picks the connection
        (LONG_JOB, "SQS_QUEUE=jobs\n", "'sqs'", True),  # the fallback of env('QUEUE_CONNECTION', 'sqs')
        (LONG_JOB, "SQS_QUEUE=jobs\n", "'database'", False),  # the default connection is not SQS
        (
            "<?php\n#[Timeout(900)]\nclass T implements ShouldQueue {}\n",
            "QUEUE_CONNECTION=sqs\nSQS_QUEUE=jobs\n",
            "'database'",
            True,
        ),  # fmt: skip
        (
            "<?php\n#[Timeout(900)]\n#[Connection('database')]\nclass T implements ShouldQueue {}\n",
            "QUEUE_CONNECTION=sqs\nSQS_QUEUE=jobs\n",
            "'database'",
            False,
        ),  # fmt: skip
        (
            "<?php\n#[Timeout(240)]\nclass T implements ShouldQueue {}\n",
            "QUEUE_CONNECTION=sqs\nSQS_QUEUE=jobs\n",
            "'database'",
            False,
        ),  # fmt: skip
    ],
)
def test_a_job_naming_no_queue_is_judged_on_its_connections_default_queue(
    tmp_path, job, env, default, judged
):
    got = _laravel(tmp_path, job, env, default)
    assert bool(got) is judged
    if judged:
        assert got[0].queue == "aws_sqs_queue.jobs" and got[0].location.file.endswith("Job.php")


@pytest.mark.parametrize(
    ("attribute", "timeout", "note"),
    [
        (b"#[Timeout('abc')]", None, "job #[Timeout] is computed"),
        (
            b"#[Timeout(env('JOB_TIMEOUT'))]",
            None,
            "job #[Timeout] comes from the environment variable JOB_TIMEOUT",
        ),
        (b"#[Timeout]", None, None),  # no argument: nothing read, no job
        (b"#[Timeout(120)] #[Timeout(30)]", 30, None),
        (b"#[\\Vendor\\Other\\Timeout(5), Retry(3)]", 5, None),
        (b"#[Timeout(" + b"(" * 400 + b"1" + b")" * 400 + b")]", None, None),
    ],
)
def test_attribute_values_are_read_or_noted_never_guessed(attribute, timeout, note):
    res = php.read("app/Jobs/J.php", b"<?php\n" + attribute + b"\nclass J implements ShouldQueue {}\n")
    assert [c.work_timeout for c in res.consumers] in ([timeout], [] if timeout is None else [timeout])
    if note:
        assert any(n.message.startswith(note) for n in res.notes)
