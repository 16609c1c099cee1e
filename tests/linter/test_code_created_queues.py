"""Queues created by application code (issue 35 §1): a CreateQueue call whose queue name is known is a queue of the
model, located at the call, created at run time; the consumers of the same run join it by name or URL, and the
rules judge it (fixtures: tests/linter/fixtures/created/code/README.md)."""

from __future__ import annotations

import json
import os

import pytest
from visguard.cli import main
from visguard.linter.created_queues import COMPUTED_TARGET
from visguard.linter.loaders.code import loader

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "created", "code")

# folder -> file, {queue: (line of the create call, visibility, retention, fifo, redrive's maxReceiveCount or None)}
LANGUAGES = {
    "python": (
        "worker.py",
        {"py-orders": (10, 120, None, False, 5), "py-jobs.fifo": (17, 45, None, True, None)},
    ),
    "javascript": ("worker.js", {"js-jobs": (6, 40, None, False, None)}),
    "typescript": ("worker.ts", {"ts-jobs": (7, 20, 600, False, None)}),
    "java": (
        "Worker.java",
        {"java-jobs": (7, 90, None, False, None), "java-mail": (11, 15, None, False, None)},
    ),
    "go": ("worker.go", {"go-jobs": (12, 75, None, False, None)}),
    "csharp": ("Worker.cs", {"cs-jobs": (8, 50, None, False, None)}),
    "php": ("worker.php", {"php-jobs": (3, 35, None, False, None)}),
    "ruby": ("worker.rb", {"rb-jobs": (4, 25, None, False, None)}),
    "rust": ("worker.rs", {"rs-jobs": (5, 55, None, False, None)}),
    "kotlin": ("Worker.kt", {"kt-jobs": (5, 65, None, False, None)}),
}


def _lint(capsys, case: str) -> list[dict]:
    main(["lint", "--no-config", "-f", "json", os.path.join(FIXTURES, case)])
    out, err = capsys.readouterr()
    assert err == ""
    return json.loads(out)["findings"]


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_a_create_call_is_a_queue_located_at_the_call(lang):
    name, expected = LANGUAGES[lang]
    model = loader.load(os.path.join(FIXTURES, lang, name))
    got = {
        q.id: (
            q.location.line,
            q.visibility_timeout,
            q.message_retention,
            q.fifo,
            q.redrive.max_receive_count if q.redrive else None,
        )
        for q in model.queues.values()
    }
    assert got == expected
    for q in model.queues.values():
        assert q.source == "code" and f"{name}:{q.location.line} at run time" in q.created_by
    assert model.notes == []


def test_a_redrive_policy_the_code_builds_is_a_policy_with_a_computed_target():
    model = loader.load(os.path.join(FIXTURES, "python", "worker.py"))
    r = model.queues["py-orders"].redrive
    assert (r.target, r.target_ref, r.max_receive_count) == (None, COMPUTED_TARGET, 5)


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_the_consumer_joins_the_created_queue_and_vg020_runs_at_the_call(capsys, lang):
    name, expected = LANGUAGES[lang]
    findings = _lint(capsys, lang)
    without_redrive = {q: v[0] for q, v in expected.items() if v[4] is None}
    consumed = {q: line for q, line in without_redrive.items() if q != "java-mail"}  # java-mail: no consumer
    vg020 = {f["queue"]: f["line"] for f in findings if f["rule"] == "VG020"}
    assert vg020 == consumed
    for f in findings:
        if f["rule"] == "VG020":
            assert f["file"].endswith(f"{lang}/{name}")
            assert "at run time (a CreateQueue call)" in f["fix"] and "RedrivePolicy attribute" in f["fix"]
    assert not [f for f in findings if f["rule"] == "VG902"]


def test_a_declared_queue_of_the_same_name_wins(capsys):
    findings = _lint(capsys, "declared")
    assert {f["queue"] for f in findings} == {"Jobs"}
    assert not [f for f in findings if f["rule"] in ("VG020", "VG902")]


def test_a_test_that_creates_its_queue_counts(capsys):
    findings = _lint(capsys, "test-file")
    assert [(f["rule"], f["queue"], f["line"]) for f in findings if f["rule"] == "VG020"] == [
        ("VG020", "shared", 6)
    ]


def test_what_the_code_computes_is_a_note_or_kept_as_computed(capsys):
    path = os.path.join(FIXTURES, "computed", "listener.py")
    model = loader.load(path)
    # a name from a parameter: the queue declared at that call, named by it (no name: nothing joins it by one)
    unnamed = f"<name built at {path}:13>"
    assert list(model.queues) == [unnamed, "computed-visibility"]
    assert model.queues[unnamed].name is None and model.queues[unnamed].visibility_timeout == 600
    assert str(model.queues["computed-visibility"].visibility_timeout).startswith("<computed")
    notes = [n.message for n in model.notes]
    assert (
        len(notes) == 1
        and "listener.py:14 was not read: its attributes are computed (attributes)" in notes[0]
    )
    findings = _lint(capsys, "computed")
    # the receive's 10 s is not compared with a visibility the code computes; the missing redrive is still judged;
    # the unnamed queue is consumed by nothing of the run: no VG020
    assert sorted((f["rule"], f["line"]) for f in findings) == [("VG020", 15), ("VG065", 18), ("VG902", 14)]


def test_a_policy_dict_bound_to_a_name_and_dumped_names_its_dlq_by_arn(tmp_path):
    """``redrive = {"deadLetterTargetArn": "arn:aws:sqs:..:jobs-dlq", "maxReceiveCount": 3}`` then
    ``"RedrivePolicy": json.dumps(redrive)`` in the create: the policy the dict writes, its target the queue of the
    file the ARN's name is (VG022 when both keep SQS's 4 days)."""
    path = tmp_path / "setup.py"
    path.write_text(
        "import json\nimport boto3\n\nsqs = boto3.client('sqs')\n\n"
        "def create_dlq():\n    return sqs.create_queue(QueueName='jobs-dlq')\n\n"
        "def create_jobs():\n"
        "    redrive = {'deadLetterTargetArn': 'arn:aws:sqs:eu-west-1:123456789012:jobs-dlq', 'maxReceiveCount': 3}\n"
        "    return sqs.create_queue(QueueName='jobs', Attributes={'RedrivePolicy': json.dumps(redrive)})\n"
    )
    model = loader.load(str(path))
    jobs = model.queues["jobs"]
    assert (jobs.redrive.target, jobs.redrive.max_receive_count) == ("jobs-dlq", 3)
    assert jobs.redrive.target_ref == "arn:aws:sqs:eu-west-1:123456789012:jobs-dlq"


def test_a_positional_request_variable_is_not_taken_for_a_name(tmp_path):
    (tmp_path / "A.java").write_text(
        "class A { void f(SqsClient sqs, CreateQueueRequest request) { sqs.createQueue(request); "
        'sqs.createQueue("plain"); } }\n'
    )
    model = loader.load(str(tmp_path / "A.java"))
    assert list(model.queues) == ["plain"] and model.notes == []
    assert model.queues["plain"].visibility_timeout is None  # SQS's default applies


def test_a_hostile_redrive_policy_is_not_read_as_absent(tmp_path):
    (tmp_path / "w.py").write_text(
        "import boto3\nboto3.client('sqs').create_queue(QueueName='q', Attributes={'RedrivePolicy': '{not json'})\n"
    )
    q = loader.load(str(tmp_path / "w.py")).queues["q"]
    assert q.redrive is not None and q.redrive.target_ref == COMPUTED_TARGET


def test_a_file_that_never_says_sqs_creates_no_sqs_queue(tmp_path):
    (tmp_path / "Q.java").write_text(
        'class Q { void f(QueueServiceClient azure) { azure.createQueue("jobs"); } }\n'
    )
    assert loader.load(str(tmp_path / "Q.java")).queues == {}


HOSTILE = {
    "deep.py": "import boto3\nsqs = boto3.client('sqs')\nsqs.create_queue(QueueName='q', Attributes="
    + "{'a': " * 2000
    + "1"
    + "}" * 2000
    + ")\n",
    "loop.py": "import boto3\nA = B\nB = A\nboto3.client('sqs').create_queue(QueueName=A, Attributes=B)\n",
    "wide.js": "const sqs = new AWS.SQS();\nsqs.createQueue({QueueName: 'q', Attributes: {"
    + ", ".join(f"K{i}: '{i}'" for i in range(20_000))
    + "}});\n",
    "chain.java": "class A { void f(SqsClient sqs) { sqs.createQueue(CreateQueueRequest.builder()"
    + '.queueName("q")' * 5000
    + ".build()); } }\n",
    # a builder chain of 5,000 calls, a map of 20,000 inserts, a set_attributes of a name bound to itself
    "chain.rs": "fn f(c: &Client) { c.create_queue()" + '.queue_name("q")' * 5000 + ".send(); }\n",
    "inserts.rs": "fn f(c: &aws_sdk_sqs::Client) {\n let mut m = HashMap::new();\n"
    + "".join(f' m.insert(QueueAttributeName::VisibilityTimeout, "{i}");\n' for i in range(20_000))
    + ' c.create_queue().queue_name("q").set_attributes(Some(m)).send();\n}\n',
    "selfmap.rs": 'fn f(c: &aws_sdk_sqs::Client) { let m = m; c.create_queue().queue_name("q")'
    + ".set_attributes(Some(m)).send(); }\n",
    # Kotlin: a builder chain of 5,000 calls, a mapOf of 20,000 pairs, a builder lambda of 5,000 assignments
    "chain.kt": "fun f(sqs: SqsClient) { sqs.createQueue(CreateQueueRequest.builder()"
    + '.queueName("q")' * 5000
    + ".build()) }\n",
    "wide.kt": 'fun f(sqs: SqsClient) { sqs.createQueue { queueName = "q"; attributes = mapOf('
    + ", ".join(f'"K{i}" to "{i}"' for i in range(20_000))
    + ") } }\n",
    "lambda.kt": "fun f(sqs: SqsClient) { sqs.createQueue {\n" + '  queueName = "q"\n' * 5000 + "} }\n",
    "huge.rb": "sqs = Aws::SQS::Client.new\nsqs.create_queue(queue_name: 'q', attributes: { 'RedrivePolicy' => '"
    + "{" * 100_000
    + "' })\n",
    # the value flow (issue 35): a class attribute of itself, a 10,000-operand `or`, a parameter reassigned under
    # 500 guards, a chain of responses naming the next queue
    "classloop.py": "import boto3\nclass C:\n    Q = C.Q\nclass D(D):\n    pass\n"
    + "boto3.client('sqs').create_queue(QueueName=C.Q or D.Q)\n",
    "or.py": "import boto3\nboto3.client('sqs').create_queue(QueueName="
    + " or ".join(["None"] * 10_000)
    + " or 'q')\n",
    "guards.py": "import boto3\ndef f(n=None):\n"
    + "    if n is None:\n        n = 'q'\n" * 500
    + "    boto3.client('sqs').create_queue(QueueName=n)\nf()\n",
    "registry.py": "import boto3\nclass A:\n    def __init__(self):\n        self.qs = []\n"
    + "".join("        self.qs.append('q')\n" for _ in range(20_000))
    + "    def run(self):\n        for x in self.qs:\n            boto3.client('sqs').create_queue(QueueName=x)\n",
    # 20,000 SetQueueAttributes calls on a created queue, and a RedrivePolicy whose ARN is a 3,000-deep chain of
    # names, each bound to a dict holding the next (read up to MAX_SET_SITES and MAX_WALK / MAX_FOLLOW)
    "sets.py": "import boto3\nsqs = boto3.client('sqs')\nu = sqs.create_queue(QueueName='q')['QueueUrl']\n"
    + "sqs.set_queue_attributes(QueueUrl=u, Attributes={'RedrivePolicy': p})\n" * 20_000,
    "arnchain.py": "import boto3\nimport json\nsqs = boto3.client('sqs')\na0 = sqs.create_queue(QueueName='q')\n"
    + "".join(f"a{i + 1} = {{'x': a{i}}}\n" for i in range(3_000))
    + "sqs.set_queue_attributes(QueueUrl=a0['QueueUrl'], "
    + "Attributes={'RedrivePolicy': json.dumps({'deadLetterTargetArn': a3000})})\n",
    # a helper called 20,000 times, a map written 20,000 times before its create call, 5,000 lets of one name
    "helpers.rb": "sqs = Aws::SQS::Client.new\ndef mk(n, attributes: {})\n  sqs.create_queue(queue_name: n, "
    "attributes: attributes)\nend\n" + "mk('q', attributes: { 'VisibilityTimeout' => '5' })\n" * 20_000,
    "writes.rb": "sqs = Aws::SQS::Client.new\nm = {}\n"
    + "m['VisibilityTimeout'] = '5'\nm.merge!('DelaySeconds' => '1')\n" * 10_000
    + "sqs.create_queue(queue_name: 'q', attributes: m)\n",
    "lets.rb": "sqs = Aws::SQS::Client.new\n"
    + 'let(:queue) { "q-#{x}" }\n' * 5_000
    + "sqs.create_queue(queue_name: queue)\nsqs.receive_message(queue_url: queue)\n",
    "responses.py": "import boto3\nsqs = boto3.client('sqs')\n"
    + "".join(f"u{i} = sqs.create_queue(QueueName=u{i + 1})['QueueUrl']\n" for i in range(3_000))
    + "sqs.create_queue(QueueName=u0)\n",
    # (the URL a create returns) a 3,000-long chain of names to a create's result; a callback given by a function
    # that calls it 5,000 times, an entry assigned 5,000 times; 20,000 defaults of an options parameter; a name
    # that is the tail of an environment variable's URL through 3,000 names
    "results.go": "package p\nfunc f(c *sqs.Client) {\n"
    + 'r0, _ := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})\n'
    + "".join(f"r{i + 1} := r{i}\n" for i in range(3_000))
    + "c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: r3000.QueueUrl})\n}\n",
    "callbacks.js": "const AWS = require('aws-sdk');\nconst C = {};\nfunction w(n, cb) {\n"
    + "  new AWS.SQS().createQueue({ QueueName: n }, function (e, d) {\n"
    + "    C[n] = new AWS.SQS({ params: { QueueUrl: d.QueueUrl } });\n" * 5_000
    + "    cb(null, C[n]);\n" * 5_000
    + "  });\n}\nw('q', function (e, q) { q.receiveMessage({}, function () {}); });\n",
    "defaults.js": "const AWS = require('aws-sdk');\nconst s = new AWS.SQS();\nfunction g(o) {\n"
    + "  if (o.VisibilityTimeout === undefined) o.VisibilityTimeout = 5;\n" * 20_000
    + "  s.receiveMessage(o, function () {});\n}\ng();\n",
    "tail.py": "import os\nimport boto3\nsqs = boto3.client('sqs')\nn0 = os.environ['Q_URL'].rsplit('/', 1)[-1]\n"
    + "".join(f"n{i + 1} = n{i}\n" for i in range(3_000))
    + "sqs.create_queue(QueueName=n3000)\n",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_create_calls_are_read_in_bounded_time(tmp_path, name):
    import time

    (tmp_path / name).write_text(HOSTILE[name])
    start = time.process_time()
    model = loader.load(str(tmp_path / name))
    assert time.process_time() - start < 10
    for q in (
        model.queues.values()
    ):  # whatever is read is a queue with a name (or named by its call), never a crash
        assert q.name == "q" or (q.name is None and q.id.startswith(("<name built at ", "$")))


def test_set_queue_attributes_after_the_create_call_changes_the_created_queue(capsys):
    """A RedrivePolicy given by SetQueueAttributes right after the create call (fixtures/created/code/set-attributes):
    on the create call's result (Python, Ruby: through a name; Ruby's hash built up after it is bound), read as a
    create's attributes would be; on a queue not
    known here (JavaScript: a URL from the environment), no queue of that file is judged on its redrive (a note).
    Only the consumed dead-letter queue, which nothing gives a policy, is VG020."""
    folder = os.path.join(FIXTURES, "set-attributes")
    queues = {}
    for name in ("bootstrap.py", "bootstrap.rb", "bootstrap.js"):
        for q in loader.load(os.path.join(folder, name)).queues.values():
            queues[q.id] = q
    py = queues["py-set-jobs"]
    # its policy's ARN is read back from the DLQ's create call (test_a_dead_letter_queue_arn_read_back...)
    assert (py.visibility_timeout, py.redrive.max_receive_count) == (90, 4)
    assert py.redrive.target == "py-set-jobs-dlq"
    assert py.location.line == 7 and py.locations["visibility_timeout"].line == 14
    assert queues["py-set-jobs-dlq"].redrive is None
    # its attributes hash is built up after it is bound (test_a_map_built_up_after_it_is_bound)
    rb = queues["rb-set-jobs"]
    assert (rb.redrive.target, rb.redrive.max_receive_count) == ("rb-set-jobs-dlq", 7)
    assert queues["rb-set-jobs-dlq"].redrive is None
    assert all(queues[n].redrive.target_ref == COMPUTED_TARGET for n in ("js-set-jobs", "js-set-other"))
    findings = _lint(capsys, "set-attributes")
    assert [(f["rule"], f["queue"]) for f in findings if f["rule"] == "VG020"] == [
        ("VG020", "py-set-jobs-dlq")
    ]
    notes = [f for f in findings if f["rule"] == "VG902" and f["file"].endswith("bootstrap.js")]
    assert len(notes) == 1 and "js-set-jobs, js-set-other" in notes[0]["message"] and notes[0]["line"] == 9


def test_a_dead_letter_queue_arn_read_back_from_its_create_call(capsys):
    """The dead-letter queue created first, its ARN read back (GetQueueAttributes of the URL its create returned),
    then the source created with a RedrivePolicy naming that ARN (fixtures/created/code/dlq-arn: Python through
    names bound once, JavaScript through its scopes): the policy's target is that queue, so VG022 judges the two
    (each DLQ keeps the default 4 days, as its source), at the dead-letter queue's create call."""
    folder = os.path.join(FIXTURES, "dlq-arn")
    for name, source, dlq in (
        ("bootstrap.py", "jobs", "jobs-dlq"),
        ("bootstrap.js", "js-jobs", "js-jobs-dlq"),
        # attrs of GetQueueAttributes(.. dlq.QueueUrl ..), the policy by Sprintf
        ("bootstrap.go", "go-jobs", "go-jobs-dlq"),
        # f"arn:aws:sqs:{REGION}:{ACCOUNT}:{DLQ}", DLQ the constant the create names
        ("built.py", "built", "built-dlq"),
    ):
        queues = loader.load(os.path.join(folder, name)).queues
        assert queues[source].redrive.target == dlq and queues[dlq].redrive is None
    findings = _lint(capsys, "dlq-arn")
    assert sorted((f["rule"], f["queue"], f["file"].rsplit("/", 1)[-1], f["line"]) for f in findings) == [
        ("VG022", "built", "built.py", 11),
        ("VG022", "go-jobs", "bootstrap.go", 13),
        ("VG022", "jobs", "bootstrap.py", 5),
        ("VG022", "js-jobs", "bootstrap.js", 6),
    ]


RUST_CREATES = """use aws_sdk_sqs::{types::QueueAttributeName, Client};

async fn setup(sqs: &Client, dlq_arn: &str) -> Result<(), aws_sdk_sqs::Error> {
    let url = sqs.create_queue().queue_name("rs-orders").send().await?.queue_url().unwrap().to_string();
    sqs.set_queue_attributes()
        .queue_url(&url)
        .attributes(QueueAttributeName::RedrivePolicy, format!(r#"{{"maxReceiveCount":"4","t":"{dlq_arn}"}}"#))
        .send()
        .await?;
    sqs.create_queue().queue_name("rs-plain").send().await?;
    let legacy = rusoto_sqs::CreateQueueRequest {
        queue_name: "rs-legacy".to_string(),
        attributes: Some(HashMap::from([("VisibilityTimeout".to_string(), "75".to_string())])),
        ..Default::default()
    };
    let none = rusoto_sqs::CreateQueueRequest { queue_name: "rs-none".into(), attributes: None, ..Default::default() };
    Ok(())
}
"""


def test_rust_set_queue_attributes_on_a_created_queue_and_rusoto_requests(tmp_path):
    """aws-sdk-sqs: a set_queue_attributes() chain whose queue_url is a create call's response gives that queue its
    (computed) RedrivePolicy; rusoto's CreateQueueRequest literals are creates, their attributes a map or None."""
    (tmp_path / "setup.rs").write_text(RUST_CREATES)
    model = loader.load(str(tmp_path / "setup.rs"))
    got = {
        q.id: (q.location.line, q.visibility_timeout, q.redrive.max_receive_count if q.redrive else None)
        for q in model.queues.values()
    }
    assert got == {
        "rs-orders": (4, None, 4),
        "rs-plain": (10, None, None),
        "rs-legacy": (11, 75, None),
        "rs-none": (16, None, None),
    }
    assert model.queues["rs-orders"].redrive.target_ref == COMPUTED_TARGET
    assert model.notes == []


def test_a_map_built_up_after_it_is_bound(capsys):
    """Attributes bound to a literal map, then written (``m['K'] = v``, ``m[:k] = v``, ``merge!``, ``store``,
    Python ``update``) before the create call (fixtures/created/code/built-up): the writes that are statements of
    the block the map is bound in are applied in order; a write in a branch or a loop leaves that key not known; the
    map passed to a method visguard does not know is not read; a write after the create call does not count."""
    folder = os.path.join(FIXTURES, "built-up")
    rb = loader.load(os.path.join(folder, "bootstrap.rb"))
    jobs, mail = rb.queues["rb-built-jobs"], rb.queues["rb-mail"]
    assert (jobs.visibility_timeout, jobs.redrive.target, jobs.redrive.max_receive_count) == (
        30,
        "rb-built-dlq",
        3,
    )
    assert jobs.locations["redrive"].line == 10
    assert (mail.visibility_timeout, mail.message_retention) == (45, 86400)
    assert (mail.redrive.target, mail.redrive.max_receive_count) == ("rb-mail-dlq", 6)
    maybe = rb.queues["rb-maybe"]  # a policy only in a branch: there is one, or none; its target is not known
    assert (maybe.visibility_timeout, maybe.redrive.target, maybe.redrive.target_ref) == (
        20,
        None,
        COMPUTED_TARGET,
    )
    assert str(rb.queues["rb-looped"].visibility_timeout).startswith("<computed: written at line 39")
    assert "rb-tuned" not in rb.queues
    assert [n.message.split(" was not read")[0] for n in rb.notes] == [
        f"the queue rb-tuned created at {os.path.join(folder, 'bootstrap.rb')}:35"
    ]
    py = loader.load(os.path.join(folder, "bootstrap.py"))
    built = py.queues["py-built-jobs"]
    assert (built.visibility_timeout, built.delay, built.redrive.target) == (30, 5, "py-built-dlq")
    assert py.queues["py-later"].visibility_timeout == 40
    findings = _lint(capsys, "built-up")
    assert sorted((f["rule"], f["queue"], f["file"].rsplit("/", 1)[-1], f["line"]) for f in findings) == [
        ("VG022", "py-built-jobs", "bootstrap.py", 7),
        ("VG022", "rb-built-jobs", "bootstrap.rb", 7),
        ("VG902", os.path.join(folder, "bootstrap.rb"), "bootstrap.rb", 35),
    ]


@pytest.mark.parametrize(
    "code",
    [
        "m = {}\nm[key_of(x)] = {deadLetterTargetArn: arn}.to_json\n",  # a computed key
        "m = {}\nm['RedrivePolicy'] ||= '{}'\n",  # ||=
        "m = {}\nother = m\nother['RedrivePolicy'] = p\n",  # aliased
        "m = {}\ndef later(m)\n  m['X'] = 1\nend\nm.compact!\n",  # a method not known to only read
    ],
)
def test_a_map_written_in_a_way_not_followed_is_not_known(tmp_path, code):
    (tmp_path / "w.rb").write_text(
        "sqs = Aws::SQS::Client.new\n" + code + "sqs.create_queue(queue_name: 'q', attributes: m)\n"
    )
    model = loader.load(str(tmp_path / "w.rb"))
    assert model.queues == {} and "its attributes are computed" in model.notes[0].message


def test_a_queue_whose_name_is_known_only_at_run_time(capsys):
    """``queue = "vg-test-#{SecureRandom.uuid}"`` then ``create_queue(queue_name: queue)`` (fixtures/created/code/
    unnamed): the queue declared at that call, named by it, no name (nothing joins it by one). A consumer of the very
    binding its name is (``Shoryuken.add_queue(queue, ..)``), or of the URL its create returned (Python), reads it:
    VG020 at the create call; one nothing consumes is not VG020; a dead-letter queue found by its name's binding
    (``get_queue_url(queue_name: dlq_name)``) is the source's: VG022 at the dead-letter queue's create call."""
    folder = os.path.join(FIXTURES, "unnamed")
    spec = loader.load(os.path.join(folder, "launcher_spec.rb"))
    qid = f"<name built at {os.path.join(folder, 'launcher_spec.rb')}:7>"
    assert list(spec.queues) == [qid] and spec.queues[qid].name is None
    (c,) = spec.pending
    assert (c.platform, c.queue_ref.kind, c.queue_ref.value, c.heartbeat) == ("shoryuken", "id", qid, None)
    assert spec.notes == []
    producer = loader.load(os.path.join(folder, "producer_spec.rb"))
    assert producer.pending == [] and producer.notes == []  # add_queue of a queue not known: nothing
    findings = _lint(capsys, "unnamed")
    got = sorted(
        (f["rule"], f["file"].rsplit("/", 1)[-1], f["line"]) for f in findings if f["rule"] != "VG065"
    )
    assert got == [
        ("VG020", "launcher_spec.rb", 7),
        ("VG020", "let_spec.rb", 4),  # RSpec: let(:queue), let!(:queue_url) { create_queue(..).queue_url }
        ("VG020", "worker.py", 7),
        ("VG022", "dlq_spec.rb", 5),
    ]
    (dlq,) = [f for f in findings if f["rule"] == "VG022"]
    assert dlq["queue"] == f"<name built at {os.path.join(folder, 'dlq_spec.rb')}:9>"


def test_an_unnamed_queue_is_never_joined_by_a_name(tmp_path, capsys):
    """Two files each creating a queue under a run-time name, consumers of literal names in a third: no join; a
    Shoryuken registration of a name two creates share picks neither (never a guess)."""
    (tmp_path / "a.rb").write_text('sqs = Aws::SQS::Client.new\nsqs.create_queue(queue_name: "a-#{x}")\n')
    (tmp_path / "b.rb").write_text(
        'sqs = Aws::SQS::Client.new\nq = "b-#{x}"\nsqs.create_queue(queue_name: q)\n'
        "sqs.create_queue(queue_name: q, attributes: { 'VisibilityTimeout' => '5' })\n"
        "Shoryuken.add_queue(q, 1, 'default')\n"
    )
    (tmp_path / "c.rb").write_text(
        "sqs = Aws::SQS::Client.new\nsqs.receive_message(queue_url: 'a-')\nsqs.receive_message(queue_url: 'b-')\n"
    )
    b = loader.load(str(tmp_path / "b.rb"))
    assert len(b.queues) == 2 and b.pending == []
    main(["lint", "--no-config", "-f", "json", str(tmp_path)])
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert not [f for f in findings if f["rule"] not in ("VG902",)]


def test_a_helper_that_creates_the_queue_it_is_given(capsys):
    """``def create_test_queue(name, attributes: {})`` in a helper file, called by specs with run-time names
    (fixtures/created/code/helper): each call is a queue created at the helper's create call, with what the call
    passes (the parameter's default when it passes none), read in the calling file with its consumers and its
    dead-letter queue. One VG020 at the helper's create call for its consumed queues without a redrive policy (not
    one per call); VG022 where the dead-letter queue's attributes are passed (its call); the helper's own create
    call is no queue of its own, and a call whose queue nothing consumes is no finding."""
    folder = os.path.join(FIXTURES, "helper")
    spec = os.path.join(folder, "spec")
    main(["lint", "--no-config", "-f", "json", folder])
    findings = json.loads(capsys.readouterr().out)["findings"]
    got = sorted(
        (f["rule"], f["file"].rsplit("/", 1)[-1], f["line"]) for f in findings if f["rule"] != "VG065"
    )
    assert got == [("VG020", "queue_helper.rb", 4), ("VG022", "dlq_spec.rb", 4)]
    (vg020,) = [f for f in findings if f["rule"] == "VG020"]
    assert vg020["queue"] == f"<name built at {os.path.join(spec, 'jobs_spec.rb')}:2>"
    assert vg020["message"].endswith("(and 1 more queue created by this call)")
    (vg022,) = [f for f in findings if f["rule"] == "VG022"]
    assert vg022["queue"] == f"<name built at {os.path.join(spec, 'dlq_spec.rb')}:8>"
    # the VG065 notes are the specs' Shoryuken registrations (no processing time declared), at their own lines
    assert sorted((f["file"].rsplit("/", 1)[-1], f["line"]) for f in findings if f["rule"] == "VG065") == [
        ("dlq_spec.rb", 9),
        ("jobs_spec.rb", 3),
        ("mail_spec.rb", 3),
    ]


def test_a_helper_call_is_read_with_its_arguments(tmp_path):
    """In one file: a helper's attributes default, a call's own attributes, a literal name through the helper (a
    queue of that name, joined as any), a call with more arguments than the method takes (another method: not read),
    and a helper whose parameter is not the name (not a helper)."""
    (tmp_path / "Gemfile").write_text("")
    (tmp_path / "setup.rb").write_text(
        "SQS = Aws::SQS::Client.new\n"
        "def make(name, attributes = { 'VisibilityTimeout' => '45' })\n"
        "  SQS.create_queue(queue_name: name, attributes: attributes)\n"
        "end\n"
        "def fixed(other)\n  SQS.create_queue(queue_name: 'fixed-q')\nend\n"
        "make('helped-a')\n"
        "make('helped-b', { 'VisibilityTimeout' => '50' })\n"
        "make('x', {}, 3)\n"
    )
    model = loader.load(str(tmp_path / "setup.rb"))
    got = {
        q.id: (q.visibility_timeout, q.location.line, q.locations.get("attributes", q.location).line)
        for q in model.queues.values()
    }
    assert got == {"fixed-q": (None, 6, 6), "helped-a": (45, 3, 8), "helped-b": (50, 3, 9)}


def test_a_python_helper_that_creates_the_queue_it_is_given(tmp_path, capsys):
    """The same for a Python function of the package (``def make_queue(name, attributes=None)``), called with an
    f-string name and a receive of the URL it returns: one queue per call, VG020 once at the helper's create."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "queues.py").write_text(
        "import boto3\nsqs = boto3.client('sqs')\n\n\ndef make_queue(name, attributes={}):\n"
        "    return sqs.create_queue(QueueName=name, Attributes=attributes)['QueueUrl']\n"
    )
    (tmp_path / "test_jobs.py").write_text(
        "import uuid\n\nimport boto3\nfrom queues import make_queue\n\nsqs = boto3.client('sqs')\n"
        "url = make_queue(f'jobs-{uuid.uuid4()}', attributes={'VisibilityTimeout': '60'})\n"
        "sqs.receive_message(QueueUrl=url)\n"
        "other = make_queue(f'other-{uuid.uuid4()}')\n"
        "sqs.receive_message(QueueUrl=other)\n"
    )
    main(["lint", "--no-config", "-f", "json", str(tmp_path)])
    findings = json.loads(capsys.readouterr().out)["findings"]
    (vg020,) = [f for f in findings if f["rule"] == "VG020"]
    assert (vg020["file"].rsplit("/", 1)[-1], vg020["line"]) == ("queues.py", 6)
    assert vg020["message"].endswith("(and 1 more queue created by this call)")


def test_a_write_after_the_use_in_the_loop_around_it_is_not_known(tmp_path):
    """The create call in a loop, the map written after it in the same loop: the next pass sees the write, so the
    key is not known; a write after a use in straight code is not what the queue was created with."""
    (tmp_path / "w.rb").write_text(
        "sqs = Aws::SQS::Client.new\nattrs = { 'VisibilityTimeout' => '10' }\n"
        "%w[a b].each do |n|\n  sqs.create_queue(queue_name: 'looped', attributes: attrs)\n"
        "  attrs['VisibilityTimeout'] = '20'\nend\n"
        "once = { 'VisibilityTimeout' => '10' }\nsqs.create_queue(queue_name: 'once', attributes: once)\n"
        "once['VisibilityTimeout'] = '20'\n"
    )
    queues = loader.load(str(tmp_path / "w.rb")).queues
    assert str(queues["looped"].visibility_timeout).startswith("<computed: written at line 5")
    assert queues["once"].visibility_timeout == 10


def test_a_rake_task_is_ruby_its_created_queue_judged_with_its_worker():
    """A Rakefile (and ``*.rake``) is Ruby: the queue its task creates is the queue its Shoryuken worker consumes
    (no redrive policy: VG020 at the create call)."""
    from visguard.linter.api import lint_paths

    result = lint_paths([os.path.join(FIXTURES, "rake")])
    assert not result.errors
    got = [
        (f.rule, os.path.basename(f.location.file), f.location.line)
        for f in result.findings
        if f.rule == "VG020"
    ]
    assert got == [("VG020", "Rakefile", 7)]


def test_the_url_a_create_call_returns_is_the_created_queue(capsys):
    """``queue.QueueUrl`` of ``queue, err := svc.CreateQueue(..)`` (Go v1 and v2), ``data.QueueUrl`` of an SDK v2
    callback (and ``await createQueue(..).promise()``), ``const { QueueUrl } = await client.send(new
    CreateQueueCommand(..))`` and ``created.QueueUrl`` (v3),
    ``createQueue(..).queueUrl()`` (Java, a builder or a lambda), ``(await CreateQueueAsync(..)).QueueUrl`` (C#),
    ``resp["QueueUrl"]`` (Python): the receive reads the queue the create names (VG060 at the receive's value: the
    create writes no VisibilityTimeout; VG020 at the create). A create named by a parameter is the queue declared at
    that call, read through the same result (VG020, its 30 s agree); a ``QueueUrl`` field of anything else is not
    joined."""
    findings = _lint(capsys, "result-url")
    got = {
        (f["rule"], f["file"].split("result-url/")[-1], f["line"]) for f in findings if f["rule"] != "VG065"
    }
    vg060 = {
        ("go1/main.go", 23),
        ("go2/worker.go", 16),
        ("callback.js", 8),
        ("callback.js", 18),
        ("destructure.ts", 7),
        ("destructure.ts", 12),
        ("Worker.java", 7),
        ("Worker.java", 12),
        ("Worker.cs", 9),
        ("worker.py", 8),
    }
    vg020 = {("go1/main.go", 12), ("go2/worker.go", 11), ("go2/worker.go", 21), ("callback.js", 6), ("callback.js", 17),
             ("destructure.ts", 6), ("destructure.ts", 11), ("Worker.java", 6), ("Worker.java", 11), ("Worker.cs", 8),
             ("worker.py", 7)}  # fmt: skip
    unjoined = {("VG902", "go2/worker.go", 28)}
    assert got == {("VG060", *k) for k in vg060} | {("VG020", *k) for k in vg020} | unjoined
    unjoined_notes = [f["message"] for f in findings if f["rule"] == "VG902" and "computed" in f["message"]]
    assert len(unjoined_notes) == 1 and "s.QueueUrl" in unjoined_notes[0]


def _rows(findings, folder):
    return sorted(
        (
            f["rule"],
            f["file"].split(f"{folder}/")[-1],
            f["line"],
            f["queue"] if f["rule"] != "VG902" else None,
        )
        for f in findings
        if f["rule"] != "VG065"
    )


def test_a_queue_created_under_the_name_an_environment_variable_gives(capsys):
    """``QueueName: JOBS_URL?.split("/").pop()`` (a seed script), ``os.environ["MAIL_QUEUE"]``,
    ``os.environ["REPORTS_URL"].rsplit("/", 1)[-1]``: the queue that variable names (``$VAR``), read by every
    consumer of the run that reads the variable (another file's, without a default): VG020 at the create, VG060 at
    a receive's 60 s vs SQS's 30 s. A consumer of another variable is not joined."""
    findings = _lint(capsys, os.path.join("env-named", "js"))
    assert _rows(findings, "js") == [
        ("VG020", "test/seed.ts", 9, "$JOBS_URL"),
        ("VG902", "src/worker.ts", 8, None),
    ]
    findings = _lint(capsys, os.path.join("env-named", "python"))
    assert _rows(findings, "python") == [
        ("VG020", "bootstrap.py", 9, "$MAIL_QUEUE"),
        ("VG020", "bootstrap.py", 10, "$REPORTS_URL"),
        ("VG060", "worker.py", 9, "$REPORTS_URL"),
    ]


def test_an_environment_named_create_of_a_declared_queue_creates_nothing(capsys):
    """The ``.env`` binding of the variable names a queue a template declares (with its dead-letter queue): that
    queue is the one the consumer reads; the create is not a queue of its own (no VG020 at it)."""
    findings = _lint(capsys, os.path.join("env-named", "declared"))
    assert [(f["rule"], f["queue"]) for f in findings] == [("VG065", "Orders")]


def test_an_sdk_v2_client_bound_to_a_queue_and_an_options_parameter_with_defaults(capsys):
    """``new AWS.SQS({ params: { QueueUrl: data.QueueUrl } })`` inside the created queue's callback: the client's
    receive, given no QueueUrl, sends that one (the created queue). Its ``options`` parameter is defaulted in the
    function's body (``if (options.K === undefined) options.K = V``, ``options.K = options.K || V``,
    ``options.K ??= V``): V where the calls leave K unset (``poll(handler)``), the call's value where they set it
    (``pollOwn({ VisibilityTimeout: 30 })``)."""
    model = loader.load(os.path.join(FIXTURES, "client-params", "jobs.js"))
    got = {
        c.location.line: (
            c.queue_ref.value,
            c.visibility_override,
            c.settings.get("wait_time"),
            getattr(c, "max_messages", c.settings.get("max_messages")),
        )
        for c in model.pending
    }
    assert got == {
        12: ("js-bound", 240, 10, None),
        21: ("https://sqs.eu-west-1.amazonaws.com/123456789012/js-own", 30, None, 5),
    }
    findings = _lint(capsys, "client-params")
    assert sorted((f["rule"], f["line"]) for f in findings if f["rule"] != "VG065") == [
        ("VG020", 9),
        ("VG060", 8),
        ("VG902", 21),
    ]


def test_a_callback_given_a_client_bound_to_the_queue_its_helper_creates(capsys):
    """``withQueue(queueName, function (err, client) { client.receiveMessage(options, ..) })`` where
    ``withQueue`` (this file) calls ``done(null, clients[queueName])`` and stores ``clients[queueName] = new
    AWS.SQS({ params: { QueueUrl: res.QueueUrl } })`` in its ``createQueue`` callback: the receive reads the queue
    declared at that create for the call whose callback receives (``withQueue`` pinned at ``consume``'s call, that
    pinned at main.js:3: the queue "pool-a" that create makes for this call chain, creates._per_call_site), with
    ``options``' default of 120 s (VG060 at the default, VG020 at the create). A call that passes its options from
    another file is not read with the defaults of this one (a note, never a guess); a sender of the same helper is
    no consumer (its "pool-a" is the consumer's queue; "pool-b", consumed by no read receive, no finding)."""
    findings = _lint(capsys, "client-callback")
    rows = sorted(
        (f["rule"], f["file"].split("client-callback/")[-1], f["line"])
        for f in findings
        if f["rule"] != "VG065"
    )
    assert rows == [
        ("VG020", "pool.js", 7),
        ("VG060", "pool.js", 16),
        ("VG902", "main.js", 4),
        ("VG902", "main.js", 4),
    ]
    assert {f["queue"] for f in findings if f["rule"] in ("VG020", "VG060")} == {"pool-a"}
    assert [f["consumer"] for f in findings if f["rule"] == "VG060"] == [
        f"{os.path.join(FIXTURES, 'client-callback', 'main.js')}:3"
    ]


def test_callbacks_of_two_calls_of_a_creating_helper_receive_from_their_own_queues(capsys):
    """fixtures/created/code/client-callback-many: ``work("jobs-a")``, ``work("jobs-b")`` and ``send("jobs-c", ..)``
    each reach ``openQueue(name, cb)``, which creates ``name`` and calls back with a client bound to its URL. Each
    ``work`` call is a consumer of the queue the create makes for its own call ("jobs-a", "jobs-b"), with the 90 s
    default of ``work``'s options; "jobs-c" is only sent to. The findings of the two queues of the one create call
    are one per rule at each place: VG020 at the create, VG060 at the default, each saying there is one more."""
    findings = _lint(capsys, "client-callback-many")
    here = os.path.join(FIXTURES, "client-callback-many")
    consumed = sorted((f["consumer"], f["queue"]) for f in findings if f["rule"] == "VG065")
    assert consumed == [
        (f"{os.path.join(here, 'main.js')}:3", "jobs-a"),
        (f"{os.path.join(here, 'main.js')}:4", "jobs-b"),
    ]
    rows = sorted((f["rule"], f["file"].split("client-callback-many/")[-1], f["line"]) for f in findings)
    assert rows == [
        ("VG020", "jobs.js", 7),
        ("VG060", "jobs.js", 16),
        ("VG065", "main.js", 3),
        ("VG065", "main.js", 4),
    ]
    vg020, vg060 = (next(f for f in findings if f["rule"] == r) for r in ("VG020", "VG060"))
    assert vg020["message"].endswith("(and 1 more queue created by this call)")
    assert vg060["message"].endswith(
        f"(and 1 more queue created by the call at {os.path.join(here, 'jobs.js')}:7)"
    )
    assert "90 s" in vg060["message"]


def test_a_constructor_that_creates_the_queue_it_is_given(capsys):
    """``JobQueue(queue_name="ctor-jobs.fifo", queue_attr=ATTRS)`` (fixtures/created/code/constructor): the create
    call in the constructor (inside ``try/except QueueDoesNotExist``) and in an async method given
    ``self.queue_name`` is read once per call site, each a queue located at the create call with that call's name
    and attributes (a module dict of the calling file). The consumed one (``jobs.take()``) has no redrive policy
    (VG020 at the create call) and its receive's 20 s wins over the queue's 0 (VG060); the one only sent to is no
    finding."""
    folder = os.path.join(FIXTURES, "constructor", "app")
    queues = {}
    for q in loader.load(os.path.join(folder, "queues.py")).queues.values():
        queues[q.id] = q
    findings = _lint(capsys, "constructor")
    got = sorted((f["rule"], f["queue"], f["line"]) for f in findings if f["rule"] in ("VG020", "VG060"))
    assert got == [("VG020", "ctor-jobs.fifo", 13), ("VG060", "ctor-jobs.fifo", 3)]


def test_a_constructor_called_20000_times_is_read_in_bounded_time(tmp_path):
    import time

    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "q.py").write_text(
        "import boto3\nclass Q:\n    def __init__(self, name, attr=None):\n"
        "        self.url = boto3.client('sqs').create_queue(QueueName=name, Attributes=attr)['QueueUrl']\n"
        + "".join(f"Q('q{i}', {{'VisibilityTimeout': '5'}})\n" for i in range(20_000))
    )
    start = time.process_time()
    main(["lint", "--no-config", "-f", "json", str(tmp_path)])
    assert time.process_time() - start < 20


def test_a_create_guarded_by_a_value_the_call_gives_is_no_queue_of_that_call():
    """fixtures/created/code/guarded (Python): ``if self.url is None: create``, ``url or create(...)``, ``if
    existing: return existing else: create`` (a helper) are read per call site with the site pinned
    (creates._unreached): a call that passes a URL creates nothing; one that passes none creates its queue (with
    its attributes, ``self.attributes or {}``); one that passes an environment variable's value (not known) is as
    if the create ran."""
    got = sorted((q.id, q.location.line, q.visibility_timeout) for q in _code_queues("guarded").values())
    assert got == [
        ("guard-made", 17, 45),
        ("guard-maybe", 17, None),
        ("lane-made", 27, None),
        ("topic-made", 34, None),
    ]


def test_a_constructor_create_guarded_by_a_value_the_call_gives_javascript():
    """fixtures/created/code/guarded-js: ``if (!this.url) { ... new CreateQueueCommand({QueueName: this.name,
    Attributes: this.attrs}) }`` of a class built as ``new Channel(name, url, ATTRS)`` in three places: read per
    call site (creates._per_call_site, JavaScript too); the call given GIVEN (imported) creates nothing, the one
    given ``undefined`` creates its queue with its attributes, the one given an environment variable is as if the
    create ran; ``url ?? (await ...CreateQueueCommand(...)).QueueUrl`` creates only for the call that gives no url."""
    got = sorted((q.id, q.location.line, q.visibility_timeout) for q in _code_queues("guarded-js").values())
    assert got == [("js-lane-made", 30, None), ("js-made", 16, 45), ("js-maybe", 16, 45)]


def _code_queues(case: str) -> dict:
    from visguard.linter.loaders import registry

    queues, errors = {}, []
    for item in registry.discover([os.path.join(FIXTURES, case)], errors=errors):
        if item.loader.name == "code":
            queues.update(item.loader.load(item.path, registry.LoadOptions()).queues)
    assert not errors
    return queues


def test_a_test_helper_with_keyword_only_parameters_and_a_map_built_in_branches(capsys):
    """fixtures/created/code/helper-kwonly: ``make_queue(client, name, *, fifo=False, visibility=None)`` (keyword-only
    parameters after ``*``) builds its attributes in branches and returns the created queue's URL after them; the
    tests receive from that URL. Each call is a queue at the helper's create call (its RedrivePolicy written
    nowhere: none), joined to the receive through the helper's return (the one ``return`` its body ends in) and
    the test's local ``url`` (``attrs`` of another function is another variable): VG020 on both, one finding at
    the create call saying how many more (linter.api._one_per_create_call)."""
    findings = _lint(capsys, "helper-kwonly")
    got = [(f["rule"], f["line"], f["message"]) for f in findings if f["rule"] == "VG020"]
    assert [(rule, line) for rule, line, _ in got] == [("VG020", 11)]
    assert got[0][2].endswith("(and 1 more queue created by this call)")


def test_a_helper_builds_each_call_sites_attributes_and_sets_the_redrive_of_the_url_it_is_given():
    """fixtures/created/code/site-attrs/ts: ``createQueue(name, options = {})`` builds ``attributes`` from
    ``String(options.visibilityTimeout ?? 30)`` / ``String(options.retention || 345600)``, then writes keys under
    ``if (options.fifo)``, ``if (options.slow) ... else if (!options.visibilityTimeout)``: each call site's queue
    has its own values (a key its literal options object does not write is undefined: the guard is false), each
    located where that site's value is written. ``setRedrive(url, arn, n = 3)`` (a SetQueueAttributes on the URL
    it is given) sets the redrive of the queue each call's URL is, with that call's maxReceiveCount; its
    dead-letter queue is not read (a Map's get), so the other queues' redrive is left not known."""
    q = _code_queues(os.path.join("site-attrs", "ts"))
    got = {
        k: (v.visibility_timeout, v.message_retention, v.redrive.max_receive_count if v.redrive else None)
        for k, v in q.items()
    }
    assert got == {
        "ts-dead": (30, 1209600, None),
        "ts-slow": (120, 345600, 5),
        "ts-jobs.fifo": (30, 345600, 3),
        "ts-plain": (30, 345600, None),
        "ts-slower": (300, 345600, None),
    }
    assert q["ts-slow"].redrive.target_ref == COMPUTED_TARGET
    assert q["ts-dead"].redrive.target_ref == COMPUTED_TARGET  # perhaps the dead-letter queue: not judged
    assert q["ts-slow"].location_of("visibility_timeout").file.endswith("setup.ts")
    assert q["ts-slow"].location_of("visibility_timeout").line == 9
    assert q["ts-slower"].location_of("visibility_timeout").file.endswith("sqs.ts")
    assert q["ts-slower"].location_of("visibility_timeout").line == 23


def test_a_guarded_write_the_site_does_not_decide_leaves_the_attribute_computed(tmp_path):
    """``if (options.fast)`` where a call passes ``{ fast: process.env.FAST }`` (not known): that site's
    VisibilityTimeout is computed (no rule judges it); the call that passes nothing keeps the literal."""
    (tmp_path / "package.json").write_text('{"name": "x", "version": "0.0.0"}')
    (tmp_path / "q.js").write_text(
        'import { SQSClient, CreateQueueCommand } from "@aws-sdk/client-sqs";\n'
        "const sqs = new SQSClient({});\n"
        "export async function make(name, options = {}) {\n"
        '  const attrs = { VisibilityTimeout: "60" };\n'
        "  if (options.fast) {\n"
        '    attrs.VisibilityTimeout = "5";\n'
        "  }\n"
        "  return (await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attrs }))).QueueUrl;\n"
        "}\n"
        'await make("g-maybe", { fast: process.env.FAST });\n'
        'await make("g-plain");\n'
    )
    q = _code_queues(str(tmp_path))
    assert q["g-plain"].visibility_timeout == 60
    assert str(q["g-maybe"].visibility_timeout).startswith("<computed")


def test_a_python_helper_builds_each_calls_attributes_and_a_redrive_helper_sets_the_url_it_is_given(capsys):
    """fixtures/created/code/site-attrs/py: ``make_queue(name, visibility=None, fifo=False)`` builds ``attrs``
    with ``str(visibility or 30)`` and writes ``attrs["FifoQueue"]`` under ``if fifo:``; each call's queue has its
    own values, read with the call pinned (the FIFO write only for the call that passes ``fifo=True``), located
    where the call writes them. ``set_redrive(url, arn, count=3)`` sets the redrive of the queue each call's URL is
    (the result of that create call), with its count; the dead-letter queue (a dict's entry) is not read, so the
    other queues' redrive is not judged. The worker's receive with 30 s on the 120 s queue is VG060 at the receive's
    30 (the shorter value is the one to raise); no VG020 (the consumed queue has its redrive)."""
    q = _code_queues(os.path.join("site-attrs", "py"))
    got = {
        k: (v.visibility_timeout, v.fifo, v.redrive.max_receive_count if v.redrive else None)
        for k, v in q.items()
    }
    assert got == {
        "pa-dead": (60, False, None),
        "pa-slow": (120, False, 5),
        "pa-jobs.fifo": (30, True, 3),
        "pa-plain": (30, False, None),
    }
    assert all(v.redrive.target_ref == COMPUTED_TARGET for v in q.values())
    at = q["pa-slow"].location_of("visibility_timeout")
    assert (os.path.basename(at.file), at.line) == ("setup_queues.py", 9)
    findings = _lint(capsys, os.path.join("site-attrs", "py"))
    got = sorted((f["rule"], f["queue"], os.path.basename(f["file"]), f["line"]) for f in findings)
    assert [g for g in got if g[0] != "VG065"] == [("VG060", "pa-slow", "setup_queues.py", 18)]


def test_a_python_guarded_write_no_call_decides_is_computed(tmp_path):
    """``if fast:`` is the call's (decided per call); ``if os.environ.get("SLOW"):`` is no call's value: the key
    it writes is computed for every call (no rule judges it)."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "h.py").write_text(
        "import os\nimport boto3\n\n\ndef make(name, fast=False):\n"
        '    attrs = {"VisibilityTimeout": "60", "MessageRetentionPeriod": "3600"}\n'
        "    if fast:\n"
        '        attrs["VisibilityTimeout"] = "5"\n'
        "    if os.environ.get('SLOW'):\n"
        '        attrs["MessageRetentionPeriod"] = "600"\n'
        "    return boto3.client('sqs').create_queue(QueueName=name, Attributes=attrs)['QueueUrl']\n"
        "\n\nmake('h-one')\nmake('h-two', fast=True)\n"
    )
    q = _code_queues(str(tmp_path))
    assert (q["h-one"].visibility_timeout, q["h-two"].visibility_timeout) == (60, 5)
    assert all(str(v.message_retention).startswith("<computed") for v in q.values())


def test_a_java_helper_creates_one_queue_per_call_with_spring_properties_and_constants(tmp_path, capsys):
    """Java (issue 35 §1): ``private void create(String name)`` around ``createQueue(CreateQueueRequest...)``,
    called with two ``@Value("${app.sqs.queue-*}")`` fields bound in ``application.yml`` and a constant: three
    queues created at the helper's call, and the Spring listeners naming those properties join them; one VG020 at
    the create call for the three (their listeners throw), not one per call."""
    java = tmp_path / "src" / "main" / "java" / "ex"
    java.mkdir(parents=True)
    (tmp_path / "pom.xml").write_text("<project/>\n")
    res = tmp_path / "src" / "main" / "resources"
    res.mkdir(parents=True)
    (res / "application.yml").write_text(
        "app:\n  sqs:\n    queue-orders: orders-new\n    queue-cancel: orders-gone\n"
    )
    (java / "QueueSetup.java").write_text(
        "package ex;\n"
        "import org.springframework.beans.factory.annotation.Value;\n"
        "import software.amazon.awssdk.services.sqs.SqsClient;\n"
        "import software.amazon.awssdk.services.sqs.model.CreateQueueRequest;\n"
        "public class QueueSetup {\n"
        "    private final SqsClient sqs;\n"
        '    @Value("${app.sqs.queue-orders}") private String orders;\n'
        '    @Value("${app.sqs.queue-cancel}") private String cancel;\n'
        '    private static final String AUDIT = "audit-log";\n'
        "    QueueSetup(SqsClient sqs) { this.sqs = sqs; }\n"
        "    public void init() { create(orders); create(cancel); create(AUDIT); }\n"
        "    private void create(String name) {\n"
        "        sqs.createQueue(CreateQueueRequest.builder().queueName(name).build());\n"
        "    }\n"
        "}\n"
    )
    (java / "Listeners.java").write_text(
        "package ex;\n"
        "import io.awspring.cloud.sqs.annotation.SqsListener;\n"
        "public class Listeners {\n"
        '    @SqsListener("${app.sqs.queue-orders}")\n'
        "    public void onOrder(String b) { throw new IllegalStateException(b); }\n"
        '    @SqsListener("${app.sqs.queue-cancel}")\n'
        "    public void onCancel(String b) { throw new IllegalStateException(b); }\n"
        '    @SqsListener("audit-log")\n'
        "    public void onAudit(String b) { throw new IllegalStateException(b); }\n"
        "}\n"
    )
    main(["lint", "--no-config", "-f", "json", str(tmp_path)])
    findings = json.loads(capsys.readouterr().out)["findings"]
    joined = {f["queue"]: f["line"] for f in findings if f["rule"] == "VG065"}
    assert joined == {"orders-new": 4, "orders-gone": 6, "audit-log": 8}
    (vg020,) = [f for f in findings if f["rule"] == "VG020"]
    assert (vg020["file"].rsplit("/", 1)[-1], vg020["line"]) == ("QueueSetup.java", 13)
    assert vg020["message"].endswith("(and 2 more queues created by this call)")


def test_a_go_helper_returns_the_url_of_the_queue_each_call_creates(tmp_path, capsys):
    """Go (issue 35 §1): ``func mustQueue(ctx, c, name string) string`` creates ``name`` with a literal map of
    attributes and returns ``*out.QueueUrl``; two calls give two queues, and each receive of the URL its call
    returns joins its own: the 10 s receive override of a 30 s queue is VG060 at that receive, one VG020 at the
    helper's create call for both."""
    (tmp_path / "go.mod").write_text("module example.com/w\n\ngo 1.22\n")
    (tmp_path / "main.go").write_text(
        "package main\n\n"
        'import (\n\t"context"\n\n\t"github.com/aws/aws-sdk-go-v2/aws"\n\t"github.com/aws/aws-sdk-go-v2/service/sqs"\n)\n\n'
        "func mustQueue(ctx context.Context, c *sqs.Client, name string) string {\n"
        "\tout, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{\n"
        "\t\tQueueName:  aws.String(name),\n"
        '\t\tAttributes: map[string]string{"VisibilityTimeout": "30"},\n'
        "\t})\n"
        "\tif err != nil {\n\t\tpanic(err)\n\t}\n"
        "\treturn *out.QueueUrl\n"
        "}\n\n"
        "func main() {\n"
        "\tctx := context.Background()\n"
        "\tc := sqs.New(sqs.Options{})\n"
        '\tjobs := mustQueue(ctx, c, "go-jobs")\n'
        '\tmail := mustQueue(ctx, c, "go-mail")\n'
        "\tc.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(jobs), VisibilityTimeout: 10})\n"
        "\tc.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(mail)})\n"
        "}\n"
    )
    model = loader.load(str(tmp_path / "main.go"))
    assert {q.id: (q.location.line, q.visibility_timeout) for q in model.queues.values()} == {
        "go-jobs": (11, 30),
        "go-mail": (11, 30),
    }
    main(["lint", "--no-config", "-f", "json", str(tmp_path)])
    findings = json.loads(capsys.readouterr().out)["findings"]
    got = sorted((f["rule"], f["queue"], f["line"]) for f in findings if f["rule"] != "VG065")
    assert got == [("VG020", "go-jobs", 11), ("VG060", "go-jobs", 26)]
