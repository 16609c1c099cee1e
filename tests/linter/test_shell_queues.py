"""Queues the AWS CLI creates in shell scripts and Makefiles (the shell loader, issue 35 §2): one test per form.

Each ``aws sqs create-queue`` is a Queue located at its command's line, with the fields a template's queue has;
``set-queue-attributes`` on it updates them; the consumers of the run join it by name or by a LocalStack/ElasticMQ
URL, so the queue rules run on it. Hostile text is one note, in bounded time.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from visguard.linter.api import lint_paths
from visguard.linter.consumers import QueueIndex, QueueRef
from visguard.linter.loaders import compose_runs, registry, shell, shellwords


def load(tmp_path, text: str, name: str = "init.sh"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return registry.load(str(path))


def notes(model) -> list[str]:
    return [n.message for n in model.notes]


# ------------------------------------------------------------------------------------------------ the forms
def test_a_plain_create_queue_is_a_queue_at_its_line_with_the_aws_defaults(tmp_path):
    model = load(tmp_path, "#!/bin/sh\necho seeding\nawslocal sqs create-queue --queue-name local-queue\n")
    q = model.queues["local-queue"]
    assert (q.name, q.source, q.location.line, q.fifo) == ("local-queue", "shell", 3, False)
    assert q.visibility_timeout is None and q.effective_visibility_timeout == 30 and q.redrive is None
    assert notes(model) == []


def test_global_options_before_and_after_the_operation_and_continuations(tmp_path):
    model = load(
        tmp_path,
        'aws --endpoint-url="http://localhost:4566" --region=eu-west-1 sqs create-queue \\\n'
        "    --queue-name=orders \\\n    --output text --attributes VisibilityTimeout=90,DelaySeconds=5\n",
    )
    q = model.queues["orders"]
    assert (q.visibility_timeout, q.delay, q.location.line) == (90, 5, 1)
    assert q.location_of("visibility_timeout").line == 1


def test_json_attributes_with_a_redrive_policy_to_a_queue_of_the_script_by_arn(tmp_path):
    model = load(
        tmp_path,
        "aws sqs create-queue --queue-name jobs-dlq --attributes MessageRetentionPeriod=1209600\n"
        "aws sqs create-queue --queue-name jobs --attributes '{\n"
        '  "VisibilityTimeout": "60",\n'
        '  "RedrivePolicy": "{\\"deadLetterTargetArn\\":\\"arn:aws:sqs:us-east-1:000000000000:jobs-dlq\\",'
        '\\"maxReceiveCount\\":\\"3\\"}"\n'
        "}'\n",
    )
    q = model.queues["jobs"]
    assert q.visibility_timeout == 60 and q.location.line == 2
    assert (q.redrive.target, q.redrive.max_receive_count) == ("jobs-dlq", 3)
    assert model.queues["jobs-dlq"].message_retention == 1_209_600


def test_attribute_values_that_are_not_strings_are_read_and_noted(tmp_path):
    model = load(tmp_path, "aws sqs create-queue --queue-name q --attributes '{\"VisibilityTimeout\": 60}'\n")
    assert model.queues["q"].visibility_timeout == 60
    (note,) = notes(model)
    assert "VisibilityTimeout not written as a string" in note and "(line 1)" in note


def test_a_redrive_target_from_get_queue_attributes_of_a_created_queue(tmp_path):
    model = load(
        tmp_path,
        "DLQ_URL=$(awslocal sqs create-queue --queue-name dlq --query QueueUrl --output text)\n"
        'DLQ_ARN=$(awslocal sqs get-queue-attributes --queue-url "$DLQ_URL" --attribute-names QueueArn '
        "--query Attributes.QueueArn --output text)\n"
        "awslocal sqs create-queue --queue-name work --attributes "
        '\'{"RedrivePolicy": "{\\"deadLetterTargetArn\\":\\"\'"$DLQ_ARN"\'\\",\\"maxReceiveCount\\":\\"4\\"}"}\'\n',
    )
    assert set(model.queues) == {"dlq", "work"}
    r = model.queues["work"].redrive
    assert (r.target, r.max_receive_count) == ("dlq", 4)
    assert "$(awslocal sqs get-queue-attributes" in r.target_ref


def test_a_redrive_target_not_created_here_keeps_its_reference(tmp_path):
    model = load(
        tmp_path,
        "aws sqs create-queue --queue-name a --attributes "
        '\'{"RedrivePolicy": "{\\"deadLetterTargetArn\\":\\"arn:aws:sqs:eu-west-1:123456789012:shared-dlq\\",'
        '\\"maxReceiveCount\\":\\"5\\"}"}\'\n',
    )
    r = model.queues["a"].redrive
    assert r.target is None and r.target_ref.endswith(":shared-dlq") and r.max_receive_count == 5


def test_shorthand_values_in_quotes_and_escaped_commas():
    got, problem = shell.shorthand('VisibilityTimeout=60,Policy="a,b",Other=x\\,y,Json={"k": "v,w"}')
    assert problem is None
    assert got == {"VisibilityTimeout": "60", "Policy": "a,b", "Other": "x,y", "Json": '{"k": "v,w"}'}
    assert shell.shorthand("VisibilityTimeout")[1] is not None
    assert shell.shorthand('A="open')[1] == "the value of A has no closing quote"


def test_attributes_from_a_file_beside_the_script(tmp_path):
    (tmp_path / "attrs.json").write_text('{"VisibilityTimeout": "300", "FifoQueue": "true"}')
    (tmp_path / "vt.txt").write_text("45")
    model = load(
        tmp_path,
        "aws sqs create-queue --queue-name a.fifo --attributes file://attrs.json\n"
        "aws sqs create-queue --queue-name b --attributes VisibilityTimeout@=file://vt.txt\n",
    )
    a, b = model.queues["a.fifo"], model.queues["b"]
    assert (a.visibility_timeout, a.fifo, b.visibility_timeout) == (300, True, 45)
    assert notes(model) == []


def test_an_attributes_file_outside_the_scripts_folder_is_not_read(tmp_path):
    inner = tmp_path / "scripts"
    inner.mkdir()
    (tmp_path / "secret.json").write_text('{"VisibilityTimeout": "1"}')
    model = load(inner, "aws sqs create-queue --queue-name a --attributes file://../secret.json\n")
    assert model.queues["a"].visibility_timeout is None
    assert any("outside" in n and "line 1" in n for n in notes(model))
    model = load(inner, "aws sqs create-queue --queue-name a --attributes file:///etc/passwd\n", "b.sh")
    assert any("not read" in n for n in notes(model))


def test_variables_the_script_assigns_and_defaults(tmp_path):
    model = load(
        tmp_path,
        'QUEUE_NAME="sqs-consumer-data"\nexport VT=120\n'
        'aws sqs create-queue --queue-name "${QUEUE_NAME}" --attributes VisibilityTimeout=$VT\n'
        "aws sqs create-queue --queue-name ${OTHER_QUEUE:-fallback-queue}\n",
    )
    assert model.queues["sqs-consumer-data"].visibility_timeout == 120
    assert "fallback-queue" in model.queues


def test_a_for_loop_creates_one_queue_per_word_at_the_line_of_its_command(tmp_path):
    """``for q in $QUEUES`` (a list the script assigns), ``for q in a b`` with nested ``until ... do ... done``:
    the body once per word, ``$q`` that word; a loop over a list only the environment knows reads its body once,
    as written (a note); the commands after the loop are read on."""
    model = load(
        tmp_path,
        'QUEUES="orders audit"\n'
        "for q in $QUEUES\ndo\n"
        "  until aws sqs get-queue-url --queue-name $q; do\n"
        "    aws sqs create-queue --queue-name $q\n"
        "  done\n"
        "done\n"
        'for q in invoices "slow-jobs"; do aws sqs create-queue --queue-name "$q" --attributes VisibilityTimeout=90; done\n'
        "for q in $FROM_ENV; do aws sqs create-queue --queue-name $q; done\n"
        "aws sqs create-queue --queue-name after\n",
    )
    assert sorted(model.queues) == ["after", "audit", "invoices", "orders", "slow-jobs"]
    lines = {n: q.location.line for n, q in model.queues.items()}
    assert lines == {"orders": 5, "audit": 5, "invoices": 8, "slow-jobs": 8, "after": 10}
    assert model.queues["slow-jobs"].visibility_timeout == 90
    (note,) = notes(model)  # the loop over a list only the environment knows: its $q not known
    assert "--queue-name $q" in note and "(line 9)" in note


@pytest.mark.parametrize("words", [" ".join(f"q{i}" for i in range(65)), "a b c"])
def test_a_loop_of_too_many_words_or_without_done_is_read_once(tmp_path, words):
    text = f"for q in {words}; do aws sqs create-queue --queue-name $q; done\n"
    if words == "a b c":
        text = text.replace("; done", "")  # no done: the loop is not one
    model = load(tmp_path, text)
    assert model.queues == {}


def test_a_name_only_the_environment_knows_is_a_note_naming_the_command(tmp_path):
    model = load(tmp_path, 'echo hi\nawslocal sqs create-queue --queue-name "$QUEUE"\n')
    assert model.queues == {}
    (note,) = notes(model)
    assert "--queue-name $QUEUE" in note and "(line 2)" in note
    assert model.notes[0].location.line == 2


def test_a_value_only_the_environment_knows_is_kept_as_written(tmp_path):
    model = load(tmp_path, "aws sqs create-queue --queue-name q --attributes VisibilityTimeout=$VT\n")
    assert model.queues["q"].visibility_timeout == "$VT"  # the rules read a string as "not known here"


def test_set_queue_attributes_on_a_queue_created_before_wins_at_its_line(tmp_path):
    model = load(
        tmp_path,
        "awslocal sqs create-queue --queue-name orders --attributes VisibilityTimeout=30\n"
        "awslocal sqs set-queue-attributes --queue-url http://localhost:4566/000000000000/orders "
        "--attributes VisibilityTimeout=600\n"
        "URL=$(awslocal sqs get-queue-url --queue-name orders --output text)\n"
        'awslocal sqs set-queue-attributes --queue-url "$URL" --attributes DelaySeconds=10\n'
        "awslocal sqs set-queue-attributes --queue-url http://localhost:4566/000000000000/elsewhere "
        "--attributes DelaySeconds=1\n",
    )
    q = model.queues["orders"]
    assert (q.visibility_timeout, q.delay) == (600, 10)
    assert (q.location.line, q.location_of("visibility_timeout").line, q.location_of("delay").line) == (
        1,
        2,
        4,
    )
    assert set(model.queues) == {"orders"}


def test_a_fifo_name_without_fifoqueue_true_is_read_as_standard_and_noted(tmp_path):
    model = load(tmp_path, "aws sqs create-queue --queue-name=example-queue.fifo\n")
    q = model.queues["example-queue.fifo"]
    assert q.fifo is False
    (note,) = notes(model)
    assert "FifoQueue=true" in note and "SQS refuses" in note and "API_CreateQueue.html" in note
    model = load(tmp_path, "aws sqs create-queue --queue-name a.fifo --attributes FifoQueue=true\n", "b.sh")
    assert model.queues["a.fifo"].fifo is True and notes(model) == []


def test_sh_c_strings_and_chains(tmp_path):
    model = load(
        tmp_path,
        "sleep 5 && awslocal sqs create-queue --queue-name one; echo done\n"
        'sh -c "aws sqs create-queue --queue-name two --attributes VisibilityTimeout=7 || true"\n',
    )
    assert set(model.queues) == {"one", "two"}
    assert model.queues["two"].location.line == 2 and model.queues["two"].visibility_timeout == 7


def test_heredoc_bodies_and_comments_are_not_commands(tmp_path):
    model = load(
        tmp_path,
        "# aws sqs create-queue --queue-name commented\n"
        "cat <<'EOF' > README\naws sqs create-queue --queue-name in-a-heredoc\nEOF\n"
        "aws sqs create-queue --queue-name real  # aws sqs create-queue --queue-name trailing\n",
    )
    assert set(model.queues) == {"real"} and model.queues["real"].location.line == 5


def test_cli_input_json(tmp_path):
    model = load(
        tmp_path,
        'aws sqs create-queue --cli-input-json \'{"QueueName": "j", "Attributes": {"VisibilityTimeout": "75"}}\'\n',
    )
    assert model.queues["j"].visibility_timeout == 75


def test_a_queue_created_twice_is_read_once_and_noted(tmp_path):
    model = load(tmp_path, "aws sqs create-queue --queue-name q\naws sqs create-queue --queue-name q\n")
    assert list(model.queues) == ["q"] and model.queues["q"].location.line == 1
    assert any("created again" in n for n in notes(model))


def test_bad_numbers_are_notes_not_errors(tmp_path):
    model = load(tmp_path, "aws sqs create-queue --queue-name q --attributes VisibilityTimeout=soon\n")
    assert model.queues["q"].visibility_timeout is None
    assert any("VisibilityTimeout of the queue q" in n for n in notes(model))


# ------------------------------------------------------------------------------------------------ Makefiles
def test_a_makefile_recipe_with_the_makefiles_variables(tmp_path):
    model = load(
        tmp_path,
        "AWS_ENDPOINT_URL := http://127.0.0.1:4566\n"
        "AWS_CLI_OPTS += --endpoint-url=${AWS_ENDPOINT_URL}\n"
        "AWS_CLI_OPTS += --region=ap-northeast-1\n"
        "SQS_QUEUE_NAME := jobs\n"
        "ENV += AWS_REGION=ap-northeast-1\n"
        "GOBIN ?= $(shell go env GOPATH)/bin\n"
        "ifdef VERBOSE\n\tQUIET :=\nelse\n\tQUIET := @\nendif\n\n"
        "all: build\n\n"
        "create-queue:\n"
        "\t${QUIET} ${ENV} aws ${AWS_CLI_OPTS} sqs create-queue --queue-name=${SQS_QUEUE_NAME} \\\n"
        "\t  --attributes VisibilityTimeout=$$((60))\n"
        "other: ; aws sqs create-queue --queue-name $(PREFIX)-x\n",
        "Makefile",
    )
    q = model.queues["jobs"]
    assert q.location.line == 16 and q.visibility_timeout == "$((60))"
    assert any("--queue-name ${PREFIX}-x" in n or "$(PREFIX)-x" in n for n in notes(model))


def test_make_functions_count_brackets_not_shell_quotes(tmp_path):
    model = load(
        tmp_path,
        "Q = jobs\nQ_SQ = $(subst ','\\'',$(Q))\n"
        "q:\n\t@echo '#!$(Q_SQ)' >$@+\n\taws sqs create-queue --queue-name $(Q)\n",
        "Makefile",
    )
    assert list(model.queues) == ["jobs"] and notes(model) == []


def _env(cmds, line):
    return {k: w.display for c in cmds if c.line == line for k, w in c.environ().items()}


def test_make_exports_are_the_environment_of_each_recipe_command():
    cmds = shellwords.makefile(
        "A := 1\nexport A\nexport B = $(A)-b\nC = 3\nD = 4\nunexport D\nexport D\nunexport D\n"
        "E ?= $$HOME\n"
        "t:\n\tQ=x run one; echo $$A $$C\n\texport F=6; docker compose up\n\tdocker compose up\n\trun four\n"
    )
    assert _env(cmds, 11) == {"A": "1", "B": "1-b", "Q": "x"}
    assert [c.argv for c in cmds if c.line == 11][1] == ["echo", "1", "$C"]  # $$A: the A make exported
    assert _env(cmds, 12) == {"A": "1", "B": "1-b", "F": "6"}  # export in the same line's shell
    assert _env(cmds, 13) == {"A": "1", "B": "1-b"}  # each recipe line is its own shell
    assert _env(cmds, 14) == {}  # a line that reads no environment is not given it (expanded for nothing)
    every = shellwords.makefile(".EXPORT_ALL_VARIABLES:\nX := 1\nY = $(X)$(X)\nt:\n\trun $$Y\n")
    assert _env(every, 5) == {"X": "1", "Y": "11"}
    bare = shellwords.makefile("X := 1\nexport\nt:\n\tdocker compose up\n")
    assert _env(bare, 4) == {"X": "1"}


COMPOSE = (
    "services:\n"
    "  worker:\n    build: ./worker\n    environment:\n      - QUEUE_URL=${QUEUE_URL}\n      - OTHER_QUEUE\n"
    "  beat:\n    image: x\n    environment:\n      JOBS_QUEUE: ${JOBS_URL:-http://localhost:4566/000000000000/jobs}\n"
)


def _bindings(tmp_path, makefile: str, compose: str = COMPOSE, name: str = "compose.yaml"):
    (tmp_path / name).write_text(compose)
    model = load(tmp_path, makefile, "Makefile")
    return model, sorted((b.name, b.workload, b.ref.value, b.location.line, b.folder) for b in model.env)


def test_a_compose_run_gets_the_environment_its_recipe_gives(tmp_path):
    url = "http://localstack:4566/000000000000/orders"
    w, here = str(tmp_path / "worker"), str(tmp_path)
    model, got = _bindings(
        tmp_path, f"U = {url}\nup:\n\t@QUEUE_URL=$(U) docker compose up -d --build worker\n"
    )
    assert got == [("QUEUE_URL", "worker", url, 3, w)] and model.notes == []
    _, got = _bindings(tmp_path, f"export QUEUE_URL := {url}\nup:\n\tdocker-compose up\n")  # every service
    assert got == [
        ("QUEUE_URL", "worker", url, 3, w)
    ]  # JOBS_QUEUE: its default, the compose file's own binding
    _, got = _bindings(tmp_path, f"up:\n\tJOBS_URL={url} QUEUE_URL= docker compose up\n")
    assert got == [("JOBS_QUEUE", "beat", url, 2, here)]  # an empty QUEUE_URL is no queue
    _, got = _bindings(
        tmp_path, f"r:\n\tdocker compose run --rm -e OTHER_QUEUE={url} -e JOBS_URL=x worker python a.py\n"
    )
    assert got == [("OTHER_QUEUE", "worker", url, 2, w)]  # run -e: given to the service run, only that one
    _, got = _bindings(
        tmp_path, f"r:\n\texport OTHER_QUEUE={url}; docker compose run -e OTHER_QUEUE worker\n"
    )
    assert got == [
        ("OTHER_QUEUE", "worker", url, 2, w)
    ]  # -e VAR: the command's own VAR, and `- OTHER_QUEUE` passes it too
    (tmp_path / "ops").mkdir()
    _, got = _bindings(
        tmp_path, f"r:\n\tJOBS_URL={url} docker compose -f ops/c.yml up beat\n", name="ops/c.yml"
    )
    assert got == [("JOBS_QUEUE", "beat", url, 2, str(tmp_path / "ops"))]


def test_what_the_recipe_does_not_set_is_never_guessed(tmp_path):
    # not set (the environment make runs in may), set but unknown, make's unknown parts: no binding
    for recipe in (
        "\tdocker compose up worker\n",
        "\tQUEUE_URL=$(shell cat url) docker compose up worker\n",
        "\tQUEUE_URL=$$URL docker compose up worker\n",
        "\tQUEUE_URL=$(UNDEFINED) docker compose up worker\n",
        "\tdocker compose up $(SERVICE)\n",
        "\tQUEUE_URL=http://localstack:4566/000000000000/q docker compose ps worker\n",
    ):
        _, got = _bindings(tmp_path, "up:\n" + recipe)
        assert got == [], recipe
    model, got = _bindings(tmp_path, "up:\n\tQUEUE_URL=x docker compose -f missing.yml up\n")
    assert got == [] and any("missing.yml is not found (line 2)" in n for n in notes(model))
    model, got = _bindings(tmp_path, "up:\n\tQUEUE_URL=x docker compose -f ../../etc/c.yml up\n")
    assert got == [] and any("not read" in n for n in notes(model))
    model, got = _bindings(tmp_path, "up:\n\tQUEUE_URL=x docker compose up\n", "services: [\n")
    assert got == [] and any("compose.yaml it runs is not read" in n for n in notes(model))


def test_a_compose_run_joins_the_created_queue_to_the_services_code(tmp_path):
    (tmp_path / "worker").mkdir()
    (tmp_path / "worker" / "app.py").write_text(
        "import os, boto3\nsqs = boto3.client('sqs')\n"
        "sqs.receive_message(QueueUrl=os.environ['QUEUE_URL'], WaitTimeSeconds=20)\n"
    )
    (tmp_path / "beat").mkdir()  # another service's code does not get the worker's environment
    (tmp_path / "beat" / "app.py").write_text((tmp_path / "worker" / "app.py").read_text())
    (tmp_path / "compose.yaml").write_text(COMPOSE + "    build: ./beat\n")
    (tmp_path / "Makefile").write_text(
        "Q := jobs\nq:\n\taws sqs create-queue --queue-name $(Q)\n"
        "up:\n\tQUEUE_URL=http://localstack:4566/000000000000/$(Q) docker compose up worker beat\n"
    )
    result = lint_paths([str(tmp_path)])
    assert result.errors == []
    vg020 = [f for f in result.findings if f.rule == "VG020"]
    assert [(os.path.basename(f.location.file), f.location.line) for f in vg020] == [("Makefile", 3)]
    assert "worker/app.py:3" in vg020[0].message and "beat" not in vg020[0].message


# ------------------------------------------------------------------------------------------------ the registry
@pytest.mark.parametrize(
    "name, text, claimed",
    [
        ("init.sh", "awslocal sqs create-queue --queue-name a\n", True),
        ("setup.bash", "aws sqs create-queue --queue-name a\n", True),
        ("Makefile", "q:\n\taws sqs create-queue --queue-name a\n", True),
        ("build.sh", "make all\n", False),
        ("Makefile", "all:\n\tgo build\n", False),
    ],
)
def test_the_registry_claims_scripts_that_create_queues(tmp_path, name, text, claimed):
    path = tmp_path / name
    path.write_text(text)
    spec = registry.claim(str(path), explicit=False)
    assert (spec is not None and spec.name == "shell") is claimed


def test_a_folder_search_finds_localstack_hooks_in_a_hidden_docker_folder(tmp_path):
    hooks = tmp_path / ".docker" / "localstack"
    hooks.mkdir(parents=True)
    (hooks / "01_create.sh").write_text("awslocal sqs create-queue --queue-name order-placement\n")
    result = lint_paths([str(tmp_path)])
    assert result.errors == [] and any(str(hooks / "01_create.sh") == f for f in result.files)


def test_a_template_run_imports_no_command_reader(tmp_path):
    t = tmp_path / "stack.yaml"
    t.write_text("Resources:\n  Q:\n    Type: AWS::SQS::Queue\n")
    probe = (
        "import sys\nfrom visguard.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        "mods = ('visguard.linter.loaders.shell', 'visguard.linter.loaders.shellwords',"
        " 'visguard.linter.loaders.commandline')\n"
        "print('shell' if any(m in sys.modules for m in mods) else 'no', file=sys.stderr)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-P", "-c", probe, "lint", "--no-config", str(t)],
        capture_output=True, text=True, cwd=tmp_path, timeout=60,
    )  # fmt: skip
    assert proc.stderr.strip().splitlines()[-1] == "no"


# ------------------------------------------------------------------------------------------------ the join
@pytest.mark.parametrize(
    "url",
    [
        "http://localhost:4566/000000000000/orders",
        "http://sqs.us-east-1.localhost.localstack.cloud:4566/000000000000/orders",
        "http://localhost:9324/queue/orders",  # ElasticMQ
        "http://localstack:4566/000000000000/orders/",
    ],
)
def test_localstack_and_elasticmq_urls_join_a_script_queue_by_its_name(tmp_path, url):
    model = load(tmp_path, "awslocal sqs create-queue --queue-name orders\n")
    (found,) = QueueIndex([model]).candidates(QueueRef("url", url), None)
    assert found.id == "orders"


def test_a_consumer_joined_by_url_gets_the_queue_rules_and_fix_is_refused(tmp_path, capsys):
    (tmp_path / "init.sh").write_text("awslocal sqs create-queue --queue-name orders\n")
    (tmp_path / "worker.py").write_text(
        "import boto3\nsqs = boto3.client('sqs')\n"
        "resp = sqs.receive_message(QueueUrl='http://localhost:4566/000000000000/orders', WaitTimeSeconds=20)\n"
    )
    result = lint_paths([str(tmp_path)])
    (vg020,) = [f for f in result.findings if f.rule == "VG020"]
    assert (vg020.location.file, vg020.location.line) == (str(tmp_path / "init.sh"), 1)
    assert "--attributes" in vg020.fix
    from visguard.cli import main

    assert main(["lint", "--no-config", "--fix", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "VG020 on orders not fixed automatically" in err and "--attributes" in err and "by hand" in err
    assert (tmp_path / "init.sh").read_text() == "awslocal sqs create-queue --queue-name orders\n"


# ------------------------------------------------------------------------------------------------ hostile text
HOSTILE = [
    "aws sqs create-queue --queue-name 'open",
    'aws sqs create-queue --queue-name "open',
    "aws sqs create-queue --queue-name q\x00x --attributes VisibilityTimeout=1\x00",
    "x=$(" * 5000 + "aws sqs create-queue --queue-name deep" + ")" * 5000,
    "echo ${" * 3000 + "}" * 3000,
    "aws sqs create-queue --queue-name q " + "a" * 1_000_000,
    "aws sqs create-queue --queue-name q --attributes " + "{" * 100_000,
    "aws sqs create-queue --queue-name q --attributes '" + '{"RedrivePolicy": "' + "[" * 50_000 + "\"}'",
    "`" + "\\" * 10_001,
    "cat <<EOF\n" + "aws sqs create-queue --queue-name h\n" * 10_000,
    "A=x\n" + "A=$A$A$A$A\n" * 40 + "aws sqs create-queue --queue-name $A\n",
    "sh -c " + "'sh -c \"" * 40 + "aws sqs create-queue --queue-name nest",
    # shell functions (issue 35): recursion, doubling calls, doubling "$@", a body never closed, many calls
    'f() { aws sqs create-queue --queue-name "$1"; f "$1"; }\nf loop\n',
    "".join(f'f{i}() {{ f{i + 1} "$@"; f{i + 1} "$@"; }}\n' for i in range(40))
    + 'f40() { aws sqs create-queue --queue-name "$1"; }\nf0 q\n',
    'g() { g "$@" "$@"; }\ng a b\n',
    'f() { aws sqs create-queue --queue-name "$1"\n' + "echo '{'\n" * 1000,
    'f() { aws sqs create-queue --queue-name "$1"; }\n' + "f q\n" * 30_000,
    "".join(f"f{i}() {{ :; }}\n" for i in range(20_000)) + "f1 x\n",
    # CLI receives (issue 35): many of them, a huge option, options never closed
    "aws sqs receive-message --queue-url q --visibility-timeout 5\n" * 20_000,  # 100 read, one note
    "aws sqs receive-message --queue-url q --visibility-timeout " + "9" * 100_000,
    "aws sqs receive-message --queue-url 'q --visibility-timeout 5",
]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_scripts_are_one_note_or_read_in_bounded_time(tmp_path, text):
    start = time.process_time()
    model = load(tmp_path, text)
    assert time.process_time() - start < 10
    assert all(n.location.file == str(tmp_path / "init.sh") for n in model.notes)
    assert len(model.notes) <= 2
    for q in model.queues.values():
        assert q.source == "shell" and isinstance(q.location.line, int)


def test_hostile_makefiles_are_bounded(tmp_path):
    loop = "A = $(B)\nB = $(A)\nq:\n\taws sqs create-queue --queue-name $(A)\n"
    model = load(tmp_path, loop, "Makefile")
    # a variable that refers to itself (make refuses it) is unknown, never a guess: the one note of the create
    assert model.queues == {} and len(model.notes) == 1 and "not known here" in model.notes[0].message
    exported = (
        "".join(f"export V{i} = $(V{i + 1})$(V{i + 1})\n" for i in range(300))
        + "q:\n"
        + "\techo $$V0\n" * 5000
    )
    start = time.process_time()
    model = load(tmp_path, exported, "Makefile")  # 256 exported names at most, expanded once, not per line
    assert time.process_time() - start < 10 and len(model.notes) <= 1
    doubling = (
        "A0 := x\n" + "".join(f"A{i + 1} := $(A{i})$(A{i})\n" for i in range(40)) + "q:\n\techo $(A40)\n"
    )
    start = time.process_time()
    model = load(tmp_path, doubling, "GNUmakefile")
    assert time.process_time() - start < 10 and len(model.notes) == 1


def test_random_text_never_escapes_as_anything_but_shellerror():
    import hypothesis
    from hypothesis import strategies as st

    alphabet = st.sampled_from(
        list("aws sqs create-queue --queue-name=x $(){}`'\"\\\n;&|#<>=,-") + ["\x00", "é"]
    )

    @hypothesis.settings(max_examples=300, deadline=None)
    @hypothesis.given(st.lists(alphabet, max_size=200).map("".join))
    def run(text):
        for fn in (shellwords.commands, shellwords.makefile):
            try:
                fn(text)
            except shellwords.ShellError as exc:
                assert isinstance(exc.line, int) and exc.line >= 1

    run()


def test_the_dev_layout_of_a_localstack_hook_is_read_from_its_real_path(tmp_path):
    hooks = tmp_path / "etc" / "localstack" / "init" / "ready.d"
    hooks.mkdir(parents=True)
    (hooks / "queues.sh").write_text("#!/bin/bash\nawslocal sqs create-queue --queue-name q1\n")
    result = lint_paths([str(tmp_path)])
    assert result.errors == []
    assert os.path.join(str(hooks), "queues.sh") in result.files


def test_hostile_compose_runs_are_bounded(tmp_path):
    """Thousands of compose runs, a compose file of thousands of services and interpolations, a compose file
    that is not a mapping: bounded time, the file read once, at most one note each."""
    services = "".join(
        f"  s{i}:\n    environment:\n      - Q{i}_QUEUE=${{Q{i}:-${{Q{i}}}}}\n      - X_QUEUE=${{X}}\n"
        for i in range(3000)
    )
    (tmp_path / "compose.yaml").write_text("services:\n" + services)
    recipe = "".join("\tX=http://localstack:4566/000000000000/q docker compose up\n" for _ in range(5000))
    start = time.process_time()
    model = load(tmp_path, "up:\n" + recipe, "Makefile")
    assert time.process_time() - start < 20 and len(model.env) == compose_runs.MAX_BINDINGS
    (note,) = notes(model)
    assert "more than 10,000 environment bindings" in note
    (tmp_path / "compose.yaml").write_text("- just\n- a list\n")
    model = load(tmp_path, "up:\n\tX=1 docker compose up\n", "Makefile")
    assert model.env == [] and model.notes == []


def test_shoryukens_cli_creates_a_queue_like_create_queue(tmp_path):
    """``[bundle exec] shoryuken sqs create NAME [-a K:V ...]`` (facts.SHORYUKEN_CLI): a queue at its line, its
    ``--attributes`` pairs read, a ``.fifo`` name made FIFO; a value the pairs cannot carry leaves it unjudged."""
    model = load(
        tmp_path,
        "reset:\n\tbundle exec shoryuken sqs delete jobs\n\tbundle exec shoryuken sqs create jobs\n"
        "\tshoryuken sqs create slow -a VisibilityTimeout:600 MessageRetentionPeriod:1209600\n"
        "\tbin/shoryuken sqs create events.fifo\n"
        '\tshoryuken sqs create odd --attributes RedrivePolicy:{"maxReceiveCount":3}\n',
        "Makefile",
    )
    assert sorted(model.queues) == ["events.fifo", "jobs", "slow"]
    jobs, slow, events = model.queues["jobs"], model.queues["slow"], model.queues["events.fifo"]
    assert (jobs.location.line, jobs.visibility_timeout, jobs.redrive) == (3, None, None)
    assert (slow.visibility_timeout, slow.message_retention) == (600, 1209600)
    assert events.fifo is True
    assert any("shoryuken sqs create odd" in n and "not read" in n for n in notes(model))


# ------------------------------------------------------------------------------------------------ receive-message
def _receivers(model) -> list:
    return [*model.pending, *(c for q in model.queues.values() for c in q.consumers)]


def test_a_cli_receive_is_a_receive_loop_with_its_options_at_their_lines(tmp_path):
    model = load(
        tmp_path,
        '#!/bin/bash\nwhile true; do\n  aws sqs receive-message \\\n    --queue-url "$QUEUE_URL" \\\n'
        "    --visibility-timeout 900 \\\n    --wait-time-seconds 20 --max-number-of-messages 1\ndone\n",
        "poll.sh",
    )
    [c] = _receivers(model)
    assert (c.kind, c.platform, c.source, c.location.line) == ("worker", "sdk", "shell", 3)
    assert c.queue_ref == QueueRef("env", "QUEUE_URL", c.queue_ref.location)
    assert (c.visibility_override, c.settings["wait_time"], c.settings["max_messages"]) == (900, 20, 1)
    assert c.location_of("visibility_override").line == 5 and c.heartbeat is False


def test_a_cli_receive_of_a_queue_the_script_creates_is_its_consumer(tmp_path):
    model = load(
        tmp_path,
        "aws sqs create-queue --queue-name jobs\n"
        "aws sqs receive-message --queue-url http://localhost:4566/000000000000/jobs --visibility-timeout 5\n"
        "aws sqs change-message-visibility --queue-url http://localhost:4566/000000000000/jobs "
        '--receipt-handle "$H" --visibility-timeout 30\n',
        "init.sh",
    )
    [c] = model.queues["jobs"].consumers
    assert c.queue_ref is None and c.visibility_override == 5 and c.heartbeat is True
    assert model.pending == []


@pytest.mark.parametrize(
    ("option", "why"), [('"$VT"', "not known here"), ("ten", "not a number"), ("1e999", "not a number")]
)
def test_a_cli_receive_option_that_is_not_a_number_is_a_note(tmp_path, option, why):
    model = load(
        tmp_path, f'aws sqs receive-message --queue-url "$Q" --visibility-timeout {option}\n', "p.sh"
    )
    [c] = _receivers(model)
    assert c.visibility_override is None
    assert any("--visibility-timeout" in n and why in n for n in notes(model))


def test_random_loops_never_escape_as_anything_but_shellerror():
    import contextlib

    import hypothesis
    from hypothesis import strategies as st

    words = st.sampled_from(
        ["for", "q", "in", "a", "b", "$Q", "do", "done", "while", "until", ";", "\n", "'", '"', "#", "{", "}",
         "aws", "sqs", "create-queue", "--queue-name", "$q", "Q=x y"]
    )  # fmt: skip

    @hypothesis.settings(max_examples=300, deadline=None)
    @hypothesis.given(st.lists(words, max_size=40))
    def run(parts):
        with contextlib.suppress(shellwords.ShellError):
            shellwords.script(" ".join(parts))

    run()
