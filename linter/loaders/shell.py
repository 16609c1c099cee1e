"""Queues the AWS CLI creates in shell scripts and Makefiles (issue 35 §2): an input kind of its own.

Teams without CloudFormation or Terraform make their queues with ``aws sqs create-queue`` (or LocalStack's
``awslocal``) in a setup script, a LocalStack ready hook (``/etc/localstack/init/ready.d/*.sh``,
``docker-entrypoint-initaws.d/*.sh``) or a Makefile target. Each such command becomes a
:class:`~visguard.linter.model.Queue` (``source="shell"``) located at the command's file:line, with the same
fields as a template's queue, so every queue rule runs on it once a consumer joins it (by name, URL or ARN; a
LocalStack or ElasticMQ URL such as ``http://localhost:4566/000000000000/orders`` names the queue ``orders``).

What is read (the commands split by :mod:`.shellwords`: quotes, continuations, ``&&``/``;`` chains, ``sh -c``,
``$(...)``, variables the script assigns, ``${VAR:-default}``; a Makefile's recipes with its variables):

- ``aws [global options] sqs create-queue --queue-name NAME [--attributes A] [--cli-input-json J]``, global
  options before or after the operation (``--endpoint-url``, ``--region`` ...), ``--opt=value`` or
  ``--opt value``;
- ``aws sqs set-queue-attributes --queue-url URL --attributes A`` on a queue created earlier in the same input
  (its URL as written, a LocalStack URL, or ``$(aws sqs get-queue-url --queue-name NAME ...)``): a later
  value wins, located at that command;
- ``--attributes`` in the forms the CLI takes (:data:`CLI_SOURCES`): JSON (``{"VisibilityTimeout": "60"}``),
  shorthand (``VisibilityTimeout=60,DelaySeconds=0``, values in quotes, ``Key@=file://x``), ``file://attrs.json``
  (read beside the script, inside its folder, through :mod:`.safe_io`, at most :data:`MAX_ATTRIBUTE_FILE` bytes);
  ``VisibilityTimeout``, ``MessageRetentionPeriod``, ``DelaySeconds``, ``FifoQueue``, ``RedrivePolicy`` (a JSON
  string: its ``deadLetterTargetArn`` is matched to a queue of the same input by the name its ARN ends in, or by
  ``$(aws sqs get-queue-attributes --queue-url URL ...)``), ``RedriveAllowPolicy``. Unset, the AWS defaults
  apply (visibility 30 s), as for any queue.

A script that polls with the CLI (``aws sqs receive-message --queue-url "$JOBS_QUEUE_URL" --visibility-timeout
900 --wait-time-seconds 20 --max-number-of-messages 1``) is a receive loop (platform ``sdk``) located at the
command, each option at the line it is written on; its queue is the URL or name as written (a queue the script
creates is attached to it), or the environment variable the whole ``--queue-url`` is (joined through the run's
bindings: ``.env``, compose, a task definition); an ``aws sqs change-message-visibility`` on the same
``--queue-url`` is its heartbeat. An option that is not a number is a note.

A worker the script starts (``exec php artisan queue:work sqs --timeout=120`` in a container's entrypoint
script, ``bundle exec shoryuken -q jobs``, ``celery -A app worker --time-limit 600``) is a pending consumer, read
as a Procfile line is (:mod:`.commandline`).

The environment a ``docker compose up|run`` command of the script or a recipe gives the services it starts
(``QUEUE_URL=... docker compose up worker``, ``export``ed variables, ``run -e VAR=...``) is read into the compose
file's ``${VAR}`` values: environment bindings of those services, located at the command (:mod:`.compose_runs`).

Not read, each said in a note (VG902) naming the command's line: a queue name only the environment knows
(``--queue-name "$QUEUE"`` with no value or default in the input), attributes that are not text the CLI could
take. A name ending in ``.fifo`` without ``FifoQueue=true`` is one SQS refuses (:func:`visguard.facts.fifo_name_mismatch`):
the queue is read as the standard queue the attributes ask for, and a note says so. A script the splitter cannot
read (a quote left open, a bound passed) is one note; the queues read before it are kept. ``--fix`` does not edit
scripts (the fix planner refuses with a reason).
"""

from __future__ import annotations

import json
import os
import posixpath

from visguard import facts
from visguard.errors import VisguardError
from visguard.linter.consumers import QueueRef, queue_name_of
from visguard.linter.model import Consumer, Location, Model, Note, Queue, Redrive

from . import safe_io, shellwords, values

# The CLI's forms of a map parameter such as --attributes: JSON, shorthand (Key=Value,Key2=Value2; "Key@=file://"
# loads a value from a file), and file:// (the parameter's value read from a file), checked 2026-12-02:
CLI_SOURCES = (
    "https://docs.aws.amazon.com/cli/latest/reference/sqs/create-queue.html",
    "https://docs.aws.amazon.com/cli/latest/userguide/shorthand-syntax.html",
    "https://docs.aws.amazon.com/cli/latest/userguide/cli-usage-parameters-file.html",
)
# The CLIs that take `sqs create-queue`: the AWS CLI and LocalStack's wrapper (https://github.com/localstack/awscli-local)
CLIS = frozenset({"aws", "awslocal", "aws2"})
# AWS CLI global options that take a value (https://docs.aws.amazon.com/cli/latest/reference/index.html#options)
_GLOBAL_VALUED = frozenset(
    {"--endpoint-url", "--region", "--profile", "--output", "--query", "--cli-read-timeout",
     "--cli-connect-timeout", "--ca-bundle", "--color", "--cli-binary-format"}
)  # fmt: skip
_FLAGS = frozenset(
    {"--debug", "--no-verify-ssl", "--no-paginate", "--no-sign-request", "--no-cli-pager", "--cli-auto-prompt",
     "--no-cli-auto-prompt"}
)  # fmt: skip
MAX_BYTES = 2_000_000  # a larger script or Makefile is not a setup script: noted, not read
MAX_RECEIVES = 100  # receive-message commands read in one script (each is a receive loop)
MAX_ATTRIBUTE_FILE = 256 * 1024  # an --attributes file:// (a policy is at most 20 KB in SQS)
SCRIPT_ENDINGS = (".sh", ".bash")
MAKEFILES = ("Makefile", "makefile", "GNUmakefile")
ENDINGS = (*SCRIPT_ENDINGS, *MAKEFILES, ".mk")
_FIELDS = {  # attribute -> (Queue field, kind)
    "VisibilityTimeout": ("visibility_timeout", "number"),
    "MessageRetentionPeriod": ("message_retention", "number"),
    "DelaySeconds": ("delay", "number"),
}


# a worker start command in a script (a container's entrypoint script): the frameworks commandline.py reads
WORKER_MARKERS = (b"queue:work", b"queue:listen", b"shoryuken", b"celery")


def claim_file(path: str, head: bytes) -> bool:
    """A shell script or Makefile whose first bytes name ``create-queue`` and ``sqs``, or a worker framework (the
    registry's plugin claim, ``registry._shell_file``, is the same test); one named on the command line without
    them is read too."""
    return os.path.basename(path).endswith(ENDINGS) and (
        ((b"create-queue" in head or b"receive-message" in head) and b"sqs" in head)
        or any(m in head for m in WORKER_MARKERS)
        or (b"compose" in head and (b"QUEUE" in head or b"SQS" in head))  # compose_runs: a queue's variable
    )


def load(path: str, options=None) -> Model:
    """One script or Makefile -> a Model of the queues its AWS CLI commands create, and notes."""
    st = safe_io.require_regular(path)
    model = Model(source_file=path)
    if st.st_size > MAX_BYTES:
        model.notes.append(
            Note(f"not read: {st.st_size / 1048576:.1f} MB, more than a setup script", Location(path), path)
        )
        return model
    data = safe_io.read_bytes(path, max_bytes=MAX_BYTES)
    return read(path, data.decode("utf-8", "replace"), model)


def read(path: str, text: str, model: Model | None = None) -> Model:
    """The queues of ``text`` (the script or Makefile at ``path``): pure but for ``file://`` attributes."""
    model = model or Model(source_file=path)
    name = os.path.basename(path)
    try:
        commands = (
            shellwords.makefile(text)
            if name in MAKEFILES or name.endswith(".mk")
            else shellwords.commands(text)
        )
    except shellwords.ShellError as exc:
        model.notes.append(
            Note(f"not read past line {exc.line}: {exc.message}", Location(path, line=exc.line), path)
        )
        commands = []
    _Builder(path, model, text).run(commands)
    _workers(path, text, commands, model)
    if "compose" in text:
        from . import compose_runs

        compose_runs.read(path, commands, model)
    return model


def _workers(path: str, text: str, commands: list, model: Model) -> None:
    """The workers the script starts (``exec php artisan queue:work sqs --timeout=120`` in an entrypoint script):
    pending consumers, read as a Procfile line is (visguard.linter.loaders.commandline)."""
    if not any(m in text for m in ("queue:work", "queue:listen", "shoryuken", "celery")):
        return
    import shlex

    from .code import frameworks

    data = text.encode("utf-8")
    for cmd in commands:
        found = frameworks.worker_consumers(path, data, shlex.join(cmd.argv), cmd.line, "shell")
        model.pending += found.consumers
        model.notes += found.notes


def _shoryuken_create(words: list) -> tuple[str, dict[str, shellwords.Word]] | None:
    """``[bundle exec] shoryuken sqs create NAME [-a|--attributes K:V ...]`` (facts.SHORYUKEN_CLI) as the AWS
    CLI's create-queue: ("create-queue", {"--queue-name": NAME, "--attributes": K=V,...}); a value that the
    shorthand cannot carry (a comma, a JSON value) leaves the attributes out, with ``--attributes-unread``."""
    from visguard import facts

    if len(words) > 2 and [w.text for w in words[:2]] == ["bundle", "exec"]:
        words = words[2:]
    if not words or posixpath.basename(words[0].text) != "shoryuken":
        return None
    rest = words[1:]
    if len(rest) < 3 or tuple(w.text for w in rest[:2]) != facts.SHORYUKEN_CLI_CREATE:
        return None
    name, pairs, unread, i = None, [], False, 2
    while i < len(rest):
        w = rest[i]
        if w.text in ("-a", "--attributes") or w.text.startswith("--attributes="):
            if "=" in w.text:
                rest = [*rest[: i + 1], shellwords.Word(w.text.split("=", 1)[1], w.parts), *rest[i + 1 :]]
            i += 1
            while i < len(rest) and not rest[i].text.startswith("-"):
                key, colon, value = rest[i].text.partition(":")
                if not colon or not rest[i].known or "," in value or value.startswith(("{", "[")):
                    unread = True
                else:
                    pairs.append(f"{key}={value}")
                i += 1
            continue
        if name is None and not w.text.startswith("-"):
            name = w
        i += 1
    if name is None:
        return None
    opts: dict[str, shellwords.Word] = {"--queue-name": name}
    if name.text.endswith(".fifo") and not any(p.startswith("FifoQueue=") for p in pairs):
        pairs.append("FifoQueue=true")
    if pairs:
        opts["--attributes"] = shellwords.Word(",".join(pairs), [])
    if unread:
        opts["--attributes-unread"] = shellwords.Word("true", [])
    return "create-queue", opts


def _sqs(cmd: shellwords.Command) -> tuple[str, dict[str, shellwords.Word]] | None:
    """(operation, {option: value}) of an ``aws ... sqs OPERATION ...`` command (or Shoryuken's
    ``shoryuken sqs create``: :func:`_shoryuken_create`), else None."""
    words = cmd.words
    if words and posixpath.basename(words[0].text) not in CLIS:
        return _shoryuken_create(words)
    if not words:
        return None
    positional: list[str] = []
    opts: dict[str, shellwords.Word] = {}
    i = 1
    while i < len(words):
        w = words[i]
        if w.text.startswith("--"):
            key, eq, value = w.text.partition("=")
            if eq:
                opts[key] = shellwords.Word(value, w.parts)
            elif key in _FLAGS or (
                key not in _GLOBAL_VALUED and (i + 1 >= len(words) or words[i + 1].text.startswith("--"))
            ):
                opts[key] = shellwords.Word("true", [])
            elif i + 1 < len(words):
                opts[key] = words[i + 1]
                i += 1
        else:
            positional.append(w.text)
        i += 1
    if len(positional) < 2 or positional[0] != "sqs":
        return None
    return positional[1], opts


# aws sqs receive-message's options -> the consumer's fields (the engine's RECEIVE_API names)
_RECEIVE_OPTIONS = {
    "--visibility-timeout": "visibility_override",
    "--wait-time-seconds": "wait_time",
    "--max-number-of-messages": "max_messages",
}


class _Builder:
    def __init__(self, path: str, model: Model, text: str = ""):
        self.path, self.model, self.text = path, model, text
        self.lines: list[str] | None = None
        # receive-message commands, and their --queue-url
        self.receivers: list[tuple[Consumer | None, str | None]] = []
        self.extends: set[str | None] = set()  # the --queue-url of each change-message-visibility
        self.folder = os.path.dirname(os.path.abspath(path))
        self.targets: dict[str, shellwords.Word] = {}  # queue id -> its deadLetterTargetArn as read

    def loc(self, line: int) -> Location:
        return Location(self.path, line=line)

    def note(self, message: str, line: int, address: str | None = None) -> None:
        """Note ``message`` at ``line``, once (a function called again at one line says it once)."""
        note = Note(f"{message} (line {line})", self.loc(line), address or self.path)
        if not any(n.message == note.message and n.location == note.location for n in self.model.notes[-8:]):
            self.model.notes.append(note)

    def run(self, commands: list[shellwords.Command]) -> None:
        for cmd in commands:
            op = _sqs(cmd)
            if op is None:
                continue
            operation, opts = op
            if operation == "create-queue":
                self.create(cmd, opts)
            elif operation == "set-queue-attributes":
                self.set_attributes(cmd, opts)
            elif operation == "receive-message":
                self.receive(cmd, opts)
            elif operation == "change-message-visibility":
                self.extends.add(self.queue_key(opts.get("--queue-url")))
        for q in self.model.queues.values():
            self.link_redrive(q)
        for c, key in self.receivers:
            if c is None:  # the mark of the receives past MAX_RECEIVES
                continue
            if key is not None and key in self.extends:
                c.heartbeat = True  # the script extends its messages' visibility (change-message-visibility)
            ref = c.queue_ref
            name = queue_name_of(ref) if ref is not None and ref.kind != "env" else None
            queue = self.model.queues.get(name) if name else None
            if queue is not None:  # a queue this script creates
                c.queue_ref = None
                queue.consumers.append(c)
            else:
                self.model.pending.append(c)

    # -- receive-message (issue 35: a worker script that polls with the CLI)
    def receive(self, cmd, opts: dict) -> None:
        """``aws sqs receive-message --queue-url URL [--visibility-timeout N] [--wait-time-seconds N]
        [--max-number-of-messages N]``: a receive loop of the script (platform ``sdk``), joined to its queue by
        the URL as written, or by the environment variable it is (``--queue-url "$QUEUE_URL"``)."""
        line = cmd.line
        if len(self.receivers) >= MAX_RECEIVES:
            if len(self.receivers) == MAX_RECEIVES:
                self.note(
                    f"more than {MAX_RECEIVES} aws sqs receive-message commands: the rest are not read", line
                )
                self.receivers.append((None, None))
            return
        url = opts.get("--queue-url")
        ref = self.receive_ref(url, line)
        c = Consumer(id=f"{self.path}:{line}", kind="worker", platform="sdk", source="shell",
                     location=self.loc(line), queue_ref=ref)  # fmt: skip
        c.heartbeat = False if "change-message-visibility" not in self.text else None
        for option, field in _RECEIVE_OPTIONS.items():
            w = opts.get(option)
            if w is None:
                continue
            at = self.option_loc(option, line)
            if not w.known:
                self.note(f"aws sqs receive-message {option} {w.display}: not known here; not checked", line)
                continue
            try:
                n = values.integer(w.text, unknown=())
            except values.BadValue:
                n = None
            if not isinstance(n, int) or isinstance(n, bool):
                self.note(f"aws sqs receive-message {option} {w.display}: not a number; not checked", line)
                continue
            if field in Consumer.__slots__:
                setattr(c, field, n)
            else:
                c.settings[field] = n
            c.locations[field] = at
        if ref is None and url is not None:
            c.settings["queue_unknown"] = url.display
        self.receivers.append((c, self.queue_key(url)))

    def receive_ref(self, url, line: int) -> QueueRef | None:
        if url is None:
            return None
        if url.known:
            text = url.text.strip()
            url_like = text.startswith(("https://", "http://"))
            kind = "url" if url_like else "arn" if text.startswith("arn:") else "name"
            return QueueRef(kind, text, self.loc(line)) if text else None
        parts = url.unknowns()
        if len(parts) == 1 and parts[0].name and url.display == parts[0].display:
            return QueueRef("env", parts[0].name, self.loc(line))
        name = self.queue_of(url)  # $(aws sqs get-queue-url --queue-name jobs ...)
        return QueueRef("name", name, self.loc(line)) if name else None

    def queue_key(self, url) -> str | None:
        if url is None:
            return None
        return url.display

    def option_loc(self, option: str, line: int) -> Location:
        """Where ``option`` is written: the first line from the command's that holds it (a continued command)."""
        lines = self.lines or self.text.splitlines()
        self.lines = lines
        for n in range(line, min(line + 50, len(lines) + 1)):
            if option in lines[n - 1]:
                return Location(self.path, line=n)
        return self.loc(line)

    # -- create-queue
    def create(self, cmd, opts: dict) -> None:
        line = cmd.line
        given = self.input_json(opts, line)
        name_word = opts.get("--queue-name")
        name = name_word.display if name_word is not None else given.get("QueueName")
        if name_word is not None and not name_word.known:
            self.note(
                f"aws sqs create-queue --queue-name {name_word.display}: the queue's name is not known here (set "
                "by the environment, or computed); its settings are not checked",
                line,
            )
            return
        if not isinstance(name, str) or not name:
            self.note("aws sqs create-queue without a --queue-name: not read", line)
            return
        attrs = dict(given.get("Attributes") or {}) if isinstance(given.get("Attributes"), dict) else {}
        attrs.update(self.attributes(opts.get("--attributes"), line, name))
        if "--attributes-unread" in opts:  # shoryuken sqs create -a with a value the reader does not split
            self.note(
                f"shoryuken sqs create {name}: some --attributes are not read; its settings are not checked",
                line,
                name,
            )
            return
        if name in self.model.queues:
            self.note(f"the queue {name} is created again here; the first create-queue is read", line, name)
            return
        q = self.model.add(Queue(id=name, name=name, location=self.loc(line), source="shell"))
        q.locations["name"] = self.loc(line)
        self.apply(q, attrs, line)
        fifo = q.fifo if isinstance(q.fifo, bool) else False
        problem = facts.fifo_name_mismatch(name, fifo)
        if problem:  # SQS refuses this CreateQueue (facts.FIFO_NAME_SOURCE); LocalStack may not
            self.note(
                f"aws sqs create-queue --queue-name {name}: {problem}, and the attributes do not set "
                f"FifoQueue=true: SQS refuses this queue ({facts.FIFO_NAME_SOURCE}); read as the "
                f"{'FIFO' if fifo else 'standard'} queue the attributes ask for",
                line,
                name,
            )

    def input_json(self, opts: dict, line: int) -> dict:
        """``--cli-input-json '{"QueueName": ..., "Attributes": {...}}'`` (or ``file://``), else {}."""
        w = opts.get("--cli-input-json")
        if w is None:
            return {}
        text = self.text_of(w, line, "--cli-input-json")
        if text is None:
            return {}
        try:
            doc = json.loads(text, strict=False)
        except (ValueError, RecursionError):
            self.note("--cli-input-json is not JSON: not read", line)
            return {}
        return doc if isinstance(doc, dict) else {}

    # -- set-queue-attributes
    def set_attributes(self, cmd, opts: dict) -> None:
        line = cmd.line
        url = opts.get("--queue-url")
        name = self.queue_of(url) if url is not None else None
        if name is None or name not in self.model.queues:
            return  # a queue this input does not create: another input's (its template's, the deployed one)
        q = self.model.queues[name]
        self.apply(q, self.attributes(opts.get("--attributes"), line, name), line)

    def queue_of(self, word: shellwords.Word) -> str | None:
        """The queue a --queue-url (or an ARN) names: as written, or the queue a ``$(aws sqs create-queue|get-queue-url
        |get-queue-attributes ...)`` it holds asks for."""
        if word.known:
            return queue_name_of(word.text)
        for part in word.unknowns():
            for inner in part.commands:
                op = _sqs(inner)
                if op is None:
                    continue
                operation, opts = op
                if operation in ("create-queue", "get-queue-url") and "--queue-name" in opts:
                    w = opts["--queue-name"]
                    return w.text if w.known else None
                if operation == "get-queue-attributes" and "--queue-url" in opts:
                    return self.queue_of(opts["--queue-url"])
            if part.name is not None:
                return None
        return None

    # -- attributes
    def text_of(self, w: shellwords.Word, line: int, what: str) -> str | None:
        """A parameter's text: as written, or a ``file://`` file's (beside the script, inside its folder)."""
        text = w.text
        if text.startswith(("file://", "fileb://")):
            written = text.split("://", 1)[1]
            if not w.known:
                self.note(f"{what} {w.display}: the file is not known here: not read", line)
                return None
            try:
                path = safe_io.confined(self.folder, written, file=self.path, entry=what)
                return safe_io.read_bytes(path, max_bytes=MAX_ATTRIBUTE_FILE).decode("utf-8", "replace")
            except VisguardError as exc:
                self.note(f"{what} {text[:120]}: not read ({exc.detail})", line)
                return None
        return text

    def attributes(self, w: shellwords.Word | None, line: int, name: str) -> dict:
        """--attributes as {attribute: value as written} (values keep unknown parts as marks)."""
        if w is None:
            return {}
        text = self.text_of(w, line, "--attributes")
        if text is None:
            return {}
        stripped = text.strip()
        if stripped.startswith("{"):
            try:
                doc = json.loads(stripped, strict=False)
            except (ValueError, RecursionError):
                self.note(f"--attributes of the queue {name} is not JSON the CLI reads: not read", line, name)
                return {}
            if not isinstance(doc, dict):
                return {}
            wrong = sorted(str(k) for k, v in doc.items() if not isinstance(v, str))
            if (
                wrong
            ):  # --attributes is a map of strings: botocore refuses a number or an object before sending
                self.note(
                    f"--attributes of the queue {name}: {', '.join(wrong)[:120]} not written as a string (the CLI "
                    "refuses the command); read as written",
                    line,
                    name,
                )
            return {str(k): _word(v, w) for k, v in doc.items()}
        out, problem = shorthand(stripped)
        if problem:
            self.note(f"--attributes of the queue {name}: {problem}", line, name)
        for key, value in list(out.items()):
            if key.endswith("@"):  # Key@=file://x: the value read from a file
                del out[key]
                loaded = self.text_of(shellwords.Word(value, w.parts), line, f"--attributes {key}=")
                if loaded is not None:
                    out[key[:-1]] = loaded
        return {k: _word(v, w) for k, v in out.items()}

    def apply(self, q: Queue, attrs: dict, line: int) -> None:
        for key, raw in attrs.items():
            if key in _FIELDS:
                field, _ = _FIELDS[key]
                if isinstance(raw, shellwords.Word):  # a part only the environment knows: kept as written
                    setattr(q, field, raw.display)
                else:
                    try:
                        setattr(q, field, values.number(raw))
                    except values.BadValue as exc:
                        self.note(f"{key} of the queue {q.id}: {exc.quoted()}", line, q.id)
                        continue
                q.locations[field] = self.loc(line)
            elif key == "FifoQueue":
                try:
                    fifo = values.boolean(raw if not isinstance(raw, shellwords.Word) else None)
                except values.BadValue as exc:
                    self.note(f"FifoQueue of the queue {q.id}: {exc.quoted()}", line, q.id)
                    continue
                if fifo is not None:
                    q.fifo = fifo
                    q.locations["fifo"] = self.loc(line)
            elif key == "RedrivePolicy":
                self.redrive(q, raw, line)
            elif key == "RedriveAllowPolicy":
                policy = _policy(raw)
                if isinstance(policy, dict):
                    q.redrive_allow = policy
                    q.locations["redrive_allow"] = self.loc(line)

    def redrive(self, q: Queue, raw, line: int) -> None:
        if isinstance(raw, str) and not raw.strip():  # RedrivePolicy="": removes the policy
            q.redrive = None
            return
        parts = raw.parts if isinstance(raw, shellwords.Word) else []
        policy = _policy(raw)
        if not isinstance(policy, dict):
            self.note(f"RedrivePolicy of the queue {q.id} is not a JSON object: not read", line, q.id)
            return
        mrc = policy.get("maxReceiveCount")
        if isinstance(mrc, str) and shellwords.Word(mrc, parts).known is False:
            mrc = shellwords.Word(mrc, parts).display
        else:
            try:
                mrc = values.integer(mrc)
            except values.BadValue as exc:
                self.note(f"RedrivePolicy maxReceiveCount of the queue {q.id}: {exc.quoted()}", line, q.id)
                mrc = None
        target = policy.get("deadLetterTargetArn")
        target_word = shellwords.Word(target, parts) if isinstance(target, str) else None
        q.redrive = Redrive(
            target=None,
            target_ref=target_word.display if target_word is not None else None,
            max_receive_count=mrc,
            location=self.loc(line),
        )
        q.locations["redrive"] = self.loc(line)
        q.locations["redrive.max_receive_count"] = self.loc(line)
        q.locations["redrive.target"] = self.loc(line)
        if target_word is not None:
            self.targets[q.id] = target_word

    def link_redrive(self, q: Queue) -> None:
        """The dead-letter queue: a queue of this input that the target's ARN (or its ``$(...)``) names."""
        word = self.targets.get(q.id)
        if q.redrive is None or word is None:
            return
        name = self.queue_of(word)
        if name is not None and name in self.model.queues and name != q.id:
            q.redrive.target = name


def _word(value, w: shellwords.Word):
    """An attribute's value: as read, or a Word when it holds parts only the environment knows."""
    return shellwords.Word(value, w.parts) if isinstance(value, str) and "\x00" in value else value


def _policy(raw):
    if isinstance(raw, shellwords.Word):
        raw = raw.text
    if isinstance(raw, dict):
        return raw
    if not isinstance(raw, str):
        return None
    try:
        return json.loads(raw, strict=False)
    except (ValueError, RecursionError):
        return None


def shorthand(text: str) -> tuple[dict, str | None]:
    """The CLI's shorthand for a map, ``Key=Value,Key2="a,b",Key3@=file://x`` -> ({key: value}, a problem or
    None): a value in double or single quotes (a backslash escapes the quote), ``\\,`` a literal comma, a value
    that starts with ``{`` or ``[`` running to its closing bracket."""
    out: dict[str, str] = {}
    i, n = 0, len(text)
    while i < n:
        eq = text.find("=", i)
        if eq < 0:
            return out, f"{text[i : i + 60]!r} is not Key=Value"
        key = text[i:eq].strip()
        i = eq + 1
        if i < n and text[i] in "\"'":
            quote, j, buf = text[i], i + 1, []
            while j < n and text[j] != quote:
                if text[j] == "\\" and j + 1 < n:
                    j += 1
                buf.append(text[j])
                j += 1
            if j >= n:
                return out, f"the value of {key} has no closing quote"
            value, i = "".join(buf), j + 1
        elif i < n and text[i] in "{[":
            depth, j, quote = 0, i, None
            while j < n:
                c = text[j]
                if quote:
                    if c == "\\":
                        j += 1
                    elif c == quote:
                        quote = None
                elif c == '"':
                    quote = c
                elif c in "{[":
                    depth += 1
                elif c in "}]":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            value, i = text[i : j + 1], j + 1
        else:
            buf, j = [], i
            while j < n and text[j] != ",":
                if text[j] == "\\" and text[j + 1 : j + 2] == ",":
                    j += 1
                buf.append(text[j])
                j += 1
            value, i = "".join(buf), j
        out[key] = value
        if i < n and text[i] == ",":
            i += 1
    return out, None


def _register() -> None:
    from .registry import LoaderSpec, register

    register(LoaderSpec("shell", None, claim_file, load, ENDINGS), before="cloudformation")


_register()
