"""SQS consumers in framework configuration that is not code: Laravel worker commands, Shoryuken, Spring.

- ``Procfile``, Supervisor ``*.conf`` (``[program:x]`` ``command=``) and systemd units (``ExecStart=``): the worker
  command lines, read by ``visguard.linter.loaders.commandline`` (one grammar per framework: Laravel
  ``php artisan queue:work|queue:listen [connection] --timeout=N --tries=N --backoff=N --queue=a,b``, Shoryuken
  ``-q name[,weight] -c N -t N`` (a consumer per queue, ``stop_timeout`` = ``-t``), Celery ``worker --time-limit N
  --soft-time-limit N --prefetch-multiplier N -c N -Q a,b`` (merged into the SQS Celery app of the project, as
  a file of tasks is: ``settings["celery_tasks_only"]``); ``sh -c``, ``&&`` chains, ``exec``, ``env``, wrappers
  such as ``bundle exec`` taken off). One consumer per queue (platform ``laravel``, source ``procfile``
  or ``supervisor``): ``work_timeout`` = ``--timeout`` (facts.LARAVEL_WORK_TIMEOUT_DEFAULT when the flag is
  absent, located at the command), ``settings["tries"]``, ``--backoff`` -> ``settings["delays"]``,
  ``settings["connection"]``; Supervisor ``numprocs`` -> ``concurrency``, ``stopwaitsecs`` -> ``stop_timeout``.
  The queue: each name of ``--queue``; without it the connection's default queue, which Laravel's stock
  ``config/queue.php`` reads from ``SQS_QUEUE``, so ``QueueRef("env", "SQS_QUEUE")`` (the join then finds it
  through ``.env``/ECS/Kubernetes bindings, or reports it unjoined). Workers of a connection named like a
  non-SQS driver (redis, database, beanstalkd, sync) are not SQS consumers.
- ``config/shoryuken.yml``: one consumer per queue of ``queues`` (and ``groups``), platform ``shoryuken``:
  ``concurrency``, ``stop_timeout`` = ``timeout`` (facts.SHORYUKEN_SHUTDOWN_TIMEOUT_DEFAULT when absent). A
  queue written as ``<%= ENV['X'] %>`` is ``QueueRef("env", "X")``.
- ``config/aws_active_job_sqs.yml`` (aws-activejob-sqs; ``config/aws_sqs_active_job.yml`` of aws-sdk-rails): one
  consumer per entry of ``queues`` (platform ``activejob``): its URL (a literal or ``<%= ENV['X'] %>``), the
  ``visibility_timeout`` the poller sends on every receive (the queue's own, else the global one; none: the
  queue's applies) as ``visibility_override``, ``max_messages``, ``stop_timeout`` = ``shutdown_timeout``
  (facts.ACTIVEJOB_SQS_SHUTDOWN_TIMEOUT_DEFAULT when absent).
- Spring ``application.yml``/``.yaml``/``.properties``: ``spring.cloud.aws.sqs.listener.*`` defaults
  (``max-concurrent-messages`` -> concurrency, ``max-messages-per-poll``, ``poll-timeout``) as one consumer with
  ``settings["scope"] = "defaults"`` and no queue (they apply to every listener without its own values); and
  an ``EnvBinding`` per property that names a queue (a URL/ARN literal, or a key ending in ``queue``/``queue-name``
  /``queue-url``), so ``@SqsListener("${app.queue}")`` (java.py: ``QueueRef("env", "app.queue")``) joins.
YAML is read with visguard's bounded decoder; a file it refuses is a note, never an exception.
"""

from __future__ import annotations

import posixpath

from visguard import facts
from visguard.errors import VisguardError
from visguard.linter.consumers import EnvBinding, QueueRef, parse_duration
from visguard.linter.model import Consumer, Location, Note

from . import CodeResult
from .engine import Place, queue_ref

EXTENSIONS = (
    "Procfile",
    ".conf",
    ".service",
    "shoryuken.yml",
    "shoryuken.yaml",
    "aws_active_job_sqs.yml",
    "aws_sqs_active_job.yml",
    "application.yml",
    "application.yaml",
    "application.properties",
)
MAX_BYTES = 2_000_000
_SPRING_LISTENER = "spring.cloud.aws.sqs.listener."
_SPRING_KEYS = {  # normalised key -> (field, kind)
    "maxconcurrentmessages": ("concurrency", "int"),
    "maxmessagesperpoll": ("max_messages", "int"),
    "polltimeout": ("wait_time", "duration"),
    "messagevisibility": ("visibility_override", "duration"),
}


def read(path: str, data: bytes) -> CodeResult:
    text = data[:MAX_BYTES].decode("utf-8", "replace")
    name = posixpath.basename(path.replace("\\", "/"))
    r = _Out(path, data[:MAX_BYTES])
    if name == "Procfile" or name.startswith("Procfile."):
        _procfile(r, text)
    elif name.endswith(".conf"):
        _supervisor(r, text)
    elif name.endswith(".service"):
        _systemd(r, text)
    elif name.startswith("shoryuken."):
        _shoryuken(r, text)
    elif name in ("aws_active_job_sqs.yml", "aws_sqs_active_job.yml"):
        _active_job(r, text)
    elif name.startswith("application") and name.endswith(".properties"):
        _spring(r, _properties(text))
    elif name.startswith("application"):
        _spring(r, _yaml_flat(r, text))
    return r.result


class _Out:
    def __init__(self, path: str, data: bytes = b""):
        self.path = path
        self.result = CodeResult()
        self.lines = data.split(b"\n")
        self._starts = [0]
        for raw in self.lines[:-1]:
            self._starts.append(self._starts[-1] + len(raw) + 1)

    def place(
        self, c: Consumer, field: str, line: int | None, found: list[tuple[int, int]], absent: str
    ) -> None:
        """Record where ``field``'s number is written (``found``: its (start, end) on ``line``, or on the lines
        after it), for the fixer: the one span when there is exactly one, else why there is none (``absent``: the
        form visguard writes, e.g. ``--timeout=N``)."""
        if line is None or not 1 <= line <= len(self.lines):
            return
        if len(found) == 1:
            start, end = found[0]
            self.result.places[(c.id, field)] = Place(start, end)
        else:
            start = self._starts[line - 1]
            self.result.places[(c.id, field)] = Place(start, start, reason="absent", shown=absent)

    def line_start(self, line: int) -> int:
        return self._starts[line - 1]

    def loc(self, line: int | None) -> Location:
        return Location(self.path, line=line)

    def note(self, message: str, line: int | None) -> None:
        where = f" (line {line})" if line else ""
        self.result.notes.append(Note(f"{message}{where}", self.loc(line), self.path))

    def consumer(self, line: int, platform: str, source: str, suffix: str = "") -> Consumer:
        c = Consumer(
            id=f"{self.path}:{line}{suffix}",
            kind="worker",
            platform=platform,
            source=source,
            location=self.loc(line),
        )
        self.result.consumers.append(c)
        return c

    def set(self, c: Consumer, field: str, value, line: int | None) -> None:
        if field in Consumer.__slots__:
            setattr(c, field, value)
        else:
            c.settings[field] = value
        c.locations[field] = self.loc(line)


def _ref(value: str, loc: Location) -> QueueRef:
    return queue_ref(value, loc) or QueueRef("name", value, loc)


def _link(c: Consumer, ref: QueueRef) -> None:
    c.queue_ref = ref
    c.link = {"env": "env", "name": "name"}.get(ref.kind, "literal")
    c.link_ref = ref.value
    c.locations["queue_ref"] = ref.location


def _int(value) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) < 10:
        return int(value.strip())
    return None


# ------------------------------------------------------------------------------------------- worker commands
_WORKER_WORDS = ("artisan", "celery", "shoryuken")


def _worker(r: _Out, command: str, line: int, source: str, extra: dict | None = None) -> None:
    """The consumers one worker command line starts (``visguard.linter.loaders.commandline``: Laravel
    ``queue:work``, Shoryuken, Celery), if it starts any."""
    from visguard.linter.loaders import commandline, shellwords

    try:
        found = commandline.workers(command, line=line)
    except shellwords.ShellError as exc:
        if any(w in command for w in _WORKER_WORDS):
            r.note(f"the worker command cannot be split like a shell does ({exc.message})", line)
        return
    for w in found:
        for problem in w.problems:
            r.note(f"{w.framework} worker: {problem}: not read", line)
        if w.framework == "laravel":
            _laravel(r, w, line, source, extra or {})
        elif w.framework == "shoryuken":
            _shoryuken_command(r, w, line, source, extra or {})
        else:
            _celery_command(r, w, line, source, extra or {})


def worker_consumers(path: str, data: bytes, command: str, line: int, source: str) -> CodeResult:
    """The consumers the worker ``command`` written at ``line`` of ``path`` starts (a compose service's command)."""
    r = _Out(path, data[:MAX_BYTES])
    _worker(r, command, line, source)
    return r.result


def _extra(r: _Out, c: Consumer, extra: dict) -> None:
    """Supervisor's ``numprocs`` (concurrency) and ``stopwaitsecs`` (stop_timeout), located where written."""
    for field, (value, vline) in extra.items():
        r.set(c, field, value, vline)
        if field == "stop_timeout":
            at = r.line_start(vline)
            spans = [(at + i, at + j) for i, j in _key_number(r.lines[vline - 1], b"stopwaitsecs", b"=")]
            r.place(c, field, vline, spans, "stopwaitsecs=N")


def _laravel(r: _Out, w, line: int, source: str, extra: dict) -> None:
    queues = [q for q in w.queues if q.text] or [None]
    for queue in queues:
        c = r.consumer(line, "laravel", source, f":{queue.display}" if len(queues) > 1 else "")
        c.heartbeat = False
        c.locations["queue_ref"] = c.location
        if w.connection is not None:
            r.set(c, "connection", w.connection, line)
        if queue is None:  # the connection's default queue: the stock config/queue.php reads SQS_QUEUE
            _link(c, QueueRef("env", "SQS_QUEUE", r.loc(line)))
        elif queue.known:
            _link(c, _ref(queue.text, r.loc(line)))
        else:
            r.note(f"queue:work --queue={queue.display}: the queue is not known here", line)
        timeout = w.fields.get("work_timeout")
        r.set(c, "work_timeout", timeout if timeout is not None else facts.LARAVEL_WORK_TIMEOUT_DEFAULT, line)
        r.place(c, "work_timeout", line, _flag_spans(r, line, source), "--timeout=N")
        if "tries" in w.fields:
            r.set(c, "tries", w.fields["tries"], line)
        for seconds in w.fields.get("delays", ()):
            c.settings.setdefault("delays", []).append(
                {"seconds": seconds, "what": "--backoff", "location": r.loc(line)}
            )
            c.locations["delays"] = r.loc(line)
        _extra(r, c, extra)


def _shoryuken_command(r: _Out, w, line: int, source: str, extra: dict) -> None:
    """``shoryuken -q name[,weight] ... -c N -t N``: one consumer per queue (a worker with no ``-q`` reads its
    queues from ``-C``'s file, which the shoryuken.yml reader reads)."""
    for index, queue in enumerate(w.queues, 1):
        c = r.consumer(line, "shoryuken", source, f":{queue.display}" if queue.known else f":{index}")
        c.heartbeat = False
        if queue.known:
            _link(c, _ref(queue.text, r.loc(line)))
        else:
            c.locations["queue_ref"] = r.loc(line)
            r.note(f"shoryuken -q {queue.display}: the queue is not known here", line)
        if "concurrency" in w.fields:
            r.set(c, "concurrency", w.fields["concurrency"], line)
        if "stop_timeout" in w.fields:
            r.set(c, "stop_timeout", w.fields["stop_timeout"], line)
        else:
            c.stop_timeout = facts.SHORYUKEN_SHUTDOWN_TIMEOUT_DEFAULT
        _extra(r, c, extra)


def _celery_command(r: _Out, w, line: int, source: str, extra: dict) -> None:
    """``celery -A app worker --time-limit N ...``: the worker's own settings, merged (as a tasks-only record,
    ``linter.consumers``) into the SQS Celery app of the same project; with no such app the broker is not SQS, or
    not known, and nothing is said. ``-Q`` names are kept in ``settings["command_queues"]``."""
    if not {"work_timeout", "soft_time_limit", "prefetch", "concurrency"} & w.fields.keys() and not w.queues:
        return
    c = r.consumer(line, "celery", source)
    c.heartbeat = False
    c.settings["celery_tasks_only"] = True
    c.settings["command"] = True
    for field in ("work_timeout", "soft_time_limit", "prefetch", "concurrency"):
        if field in w.fields:
            r.set(c, field, w.fields[field], line)
    if w.queues:
        c.settings["command_queues"] = [q.display for q in w.queues]
    _extra(r, c, extra)


def _procfile(r: _Out, text: str) -> None:
    for n, raw in enumerate(text.splitlines(), 1):
        name, colon, command = raw.partition(":")
        if colon and name.strip() and not name.lstrip().startswith("#"):
            _worker(r, command.strip(), n, "procfile")


def _supervisor(r: _Out, text: str) -> None:
    """``[program:x]`` sections: ``command``, ``numprocs``, ``stopwaitsecs`` (continuation lines joined)."""
    sections: list[dict] = []
    current: dict | None = None
    last = None
    for n, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if not stripped or stripped[0] in "#;":
            continue
        if stripped.startswith("[") and stripped.endswith("]"):
            current = {} if stripped[1:-1].strip().startswith("program:") else None
            if current is not None:
                sections.append(current)
            last = None
            continue
        if current is None:
            continue
        if raw[:1] in (" ", "\t") and last is not None:
            value, line = current[last]
            current[last] = (f"{value} {stripped}", line)
            continue
        key, eq, value = stripped.partition("=")
        if eq:
            last = key.strip()
            current[last] = (value.strip(), n)
    for sec in sections:
        if "command" not in sec:
            continue
        extra = {}
        if _int(sec.get("numprocs", (None,))[0]) is not None:
            extra["concurrency"] = (_int(sec["numprocs"][0]), sec["numprocs"][1])
        if _int(sec.get("stopwaitsecs", (None,))[0]) is not None:
            extra["stop_timeout"] = (_int(sec["stopwaitsecs"][0]), sec["stopwaitsecs"][1])
        command, line = sec["command"]
        _worker(r, command, line, "supervisor", extra)


def _systemd(r: _Out, text: str) -> None:
    """A systemd unit's ``[Service]`` ``ExecStart=`` lines (continuations joined; the ``-@+!:`` prefixes, which
    change how systemd runs the command, taken off)."""
    section = None
    lines = text.splitlines()
    n = 0
    while n < len(lines):
        first, raw = n + 1, lines[n].strip()
        n += 1
        while raw.endswith("\\") and n < len(lines):
            raw = raw[:-1] + " " + lines[n].strip()
            n += 1
        if raw.startswith("[") and raw.endswith("]"):
            section = raw[1:-1].strip()
        elif section == "Service" and raw.startswith("ExecStart="):
            _worker(r, raw[len("ExecStart=") :].lstrip("-@+!:"), first, "systemd")


# ------------------------------------------------------------------------------------------- YAML
def _documents(r: _Out, text: str) -> list:
    """The YAML documents of ``text`` (split at ``---``, lines kept), each decoded by visguard's bounded decoder."""
    from visguard.linter.loaders.decode import loads_yaml

    lines = text.splitlines()
    starts = [0] + [i + 1 for i, x in enumerate(lines) if x.rstrip() == "---"]
    ends = [s - 1 for s in starts[1:]] + [len(lines)]
    docs = []
    for start, end in zip(starts, ends, strict=True):
        part = "\n" * start + "\n".join(lines[start:end])
        try:
            doc = loads_yaml(part, file=r.path)
        except (VisguardError, RecursionError) as exc:
            r.note(f"not read: {getattr(exc, 'message', None) or str(exc).splitlines()[0][:200]}", start + 1)
            continue
        if doc is not None:
            docs.append(doc)
    return docs


def _line(node, key) -> int | None:
    pos = getattr(node, "key_pos", {}).get(key)
    return pos[0] if pos else getattr(node, "line", None)


def _erb_env(value: str) -> tuple[str, str | None] | None:
    """``<%= ENV['X'] %>`` / ``<%= ENV.fetch('X', 'default') %>``: the variable's name and its literal default
    (read with the Ruby grammar)."""
    body = value.strip()
    if not (body.startswith("<%=") and body.endswith("%>")):
        return None
    from . import ruby

    return ruby.environment(body[3:-2].strip().encode())


def _shoryuken(r: _Out, text: str) -> None:
    for doc in _documents(r, text):
        if not isinstance(doc, dict):
            continue
        groups = [(doc, None)]
        if isinstance(doc.get("groups"), dict):
            groups += [(g, name) for name, g in doc["groups"].items() if isinstance(g, dict)]
        timeout = _int(doc.get("timeout"))
        if "timeout" in doc and timeout is None:
            r.note(f"shoryuken timeout {doc['timeout']!r} is not a number of seconds", _line(doc, "timeout"))
        for g, gname in groups:
            queues = g.get("queues")
            if not isinstance(queues, list):
                continue
            concurrency = _int(g.get("concurrency", doc.get("concurrency")))
            cline = _line(g if "concurrency" in g else doc, "concurrency")
            qline = _line(g, "queues")
            for index, q in enumerate(queues, 1):
                name = q[0] if isinstance(q, list) and q else q
                if not isinstance(name, str):
                    r.note(f"a Shoryuken queue entry {str(q)[:60]} is not a name", qline)
                    continue
                suffix = f":{name}" if "<%" not in name else f":{index}"
                c = r.consumer(qline or 1, "shoryuken", "yaml", suffix)
                env = _erb_env(name)
                if env is not None:
                    fallback = _ref(env[1], r.loc(qline)) if env[1] else None
                    _link(c, QueueRef("env", env[0], r.loc(qline), fallback))
                elif "<%" in name:
                    c.locations["queue_ref"] = r.loc(qline)
                    r.note(f"the Shoryuken queue {name[:60]} is computed by ERB: not joined", qline)
                else:
                    _link(c, _ref(name, r.loc(qline)))
                if concurrency is not None:
                    r.set(c, "concurrency", concurrency, cline)
                if gname is not None:
                    c.settings["group"] = gname
                if timeout is not None:
                    tline = _line(doc, "timeout")
                    r.set(c, "stop_timeout", timeout, tline)
                    if tline is not None and 1 <= tline <= len(r.lines):
                        at = r.line_start(tline)
                        spans = [
                            (at + i, at + j) for i, j in _key_number(r.lines[tline - 1], b"timeout", b":")
                        ]
                        r.place(c, "stop_timeout", tline, spans, "timeout: N")
                else:
                    c.stop_timeout = facts.SHORYUKEN_SHUTDOWN_TIMEOUT_DEFAULT


# ------------------------------------------------------------------------------------------- ActiveJob
def _active_job(r: _Out, text: str) -> None:
    for doc in _documents(r, text):
        queues = doc.get("queues") if isinstance(doc, dict) else None
        if not isinstance(queues, dict):
            continue
        shutdown = _int(doc.get("shutdown_timeout"))
        for name, spec in queues.items():
            own = spec if isinstance(spec, dict) else {"url": spec}
            url = own.get("url")
            qline = _line(queues, name)
            c = r.consumer(qline or 1, "activejob", "yaml", f":{name}")
            c.heartbeat = False
            uline = _line(own, "url") if isinstance(spec, dict) else qline
            env = _erb_env(url) if isinstance(url, str) else None
            if env is not None:
                fallback = _ref(env[1], r.loc(uline)) if env[1] else None
                _link(c, QueueRef("env", env[0], r.loc(uline), fallback))
            elif isinstance(url, str) and url.strip() and "<%" not in url:
                _link(c, _ref(url.strip(), r.loc(uline)))
            else:
                c.locations["queue_ref"] = r.loc(uline)
                r.note(
                    f"the URL of the ActiveJob queue {name} is computed ({str(url)[:60]}): not joined", uline
                )
            for key, field in (
                ("visibility_timeout", "visibility_override"),
                ("max_messages", "max_messages"),
            ):
                holder = own if key in own else doc if key in doc else None
                if holder is None:
                    continue
                value = _int(holder.get(key))
                if value is None:
                    r.note(f"ActiveJob {key} {holder.get(key)!r} is not a whole number", _line(holder, key))
                else:
                    r.set(c, field, value, _line(holder, key))
            if shutdown is not None:
                r.set(c, "stop_timeout", shutdown, _line(doc, "shutdown_timeout"))
            else:
                c.stop_timeout = facts.ACTIVEJOB_SQS_SHUTDOWN_TIMEOUT_DEFAULT


# ------------------------------------------------------------------------------------------- Spring
def _yaml_flat(r: _Out, text: str) -> dict:
    """Dotted keys -> (scalar, line) of every document (later documents, e.g. profiles, do not override)."""
    out: dict = {}
    for doc in _documents(r, text):
        stack = [("", doc, None)]
        while stack:
            prefix, node, line = stack.pop()
            if isinstance(node, dict):
                for k, v in node.items():
                    stack.append((f"{prefix}.{k}" if prefix else str(k), v, _line(node, k)))
            elif not isinstance(node, list) and prefix and prefix not in out:
                out[prefix] = (node, line)
    return out


def _properties(text: str) -> dict:
    out: dict = {}
    for n, raw in enumerate(text.splitlines(), 1):
        s = raw.strip()
        if not s or s[0] in "#!":
            continue
        cut = min((i for i in (s.find("="), s.find(":")) if i > 0), default=-1)
        if cut > 0:
            out.setdefault(s[:cut].strip(), (s[cut + 1 :].strip(), n))
    return out


def _norm(key: str) -> str:
    return key.replace("-", "").replace("_", "").lower()


def _names_queue(key: str, value) -> bool:
    """Whether property ``key`` may name a queue: a URL/ARN literal, or a key with a word about queues in it
    (``app.queue``, ``app.sqs.queue-orders``, ``cloud.aws.sqs.queue.url``, ``cloud.aws.dlq.name``, ``app.sqs.orders``:
    a segment that says queue or dlq, or a value under an ``sqs`` segment). A listener joins only through the key it names, so a binding no
    listener names is inert."""
    if not isinstance(value, str) or not value or "${" in value or key.startswith(_SPRING_LISTENER):
        return False
    if value.startswith(("https://sqs.", "arn:aws")) and ("sqs" in value):
        return True
    segments = [_norm(s) for s in key.split(".")]
    return any("queue" in s or "dlq" in s for s in segments) or "sqs" in segments[:-1]


def _spring(r: _Out, props: dict) -> None:
    listener = {k: v for k, v in props.items() if k.startswith(_SPRING_LISTENER)}
    if listener:
        first = min((line or 1) for _, line in listener.values())
        c = r.consumer(first, "spring", "yaml" if not r.path.endswith(".properties") else "properties")
        c.settings["scope"] = "defaults"
        c.heartbeat = False
        c.stop_timeout = facts.SPRING_LISTENER_SHUTDOWN_DEFAULT
        for key, (value, line) in listener.items():
            spec = _SPRING_KEYS.get(_norm(key[len(_SPRING_LISTENER) :]))
            if spec is None:
                continue
            field, kind = spec
            number = _int(value) if kind == "int" else _spring_duration(value)
            if number is None:
                r.note(f"{key} = {str(value)[:60]} is not read (a placeholder or not a number)", line)
            else:
                r.set(c, field, number, line)
    for key, (value, line) in props.items():
        if _names_queue(key, value):
            r.result.env.append(
                EnvBinding(key, workload=r.path, ref=_ref(value, r.loc(line)), location=r.loc(line))
            )


def _spring_duration(value) -> float | None:
    """Spring Boot Duration: ``10s``, ``1m``, ``PT30S``; a bare number is milliseconds."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value / 1000
    if not isinstance(value, str):
        return None
    v = value.strip()
    if v.upper().startswith("PT"):
        return parse_duration(v[2:].lower())
    if v.isdigit():
        return int(v) / 1000
    return parse_duration(v)


# ------------------------------------------------------------------------------------------- places of numbers
def _flag_spans(r: _Out, line: int, source: str) -> list[tuple[int, int]]:
    """(start, end) of N of each ``--timeout=N`` / ``--timeout N`` of the command on ``line`` (and, in a
    Supervisor file, its continuation lines)."""
    if not 1 <= line <= len(r.lines):
        return []
    lines = [r.lines[line - 1]]
    if source == "supervisor":
        for more in r.lines[line:]:
            if more[:1] in (b" ", b"\t") and more.strip():
                lines.append(more)
            else:
                break
    found, at = [], r.line_start(line)
    for raw in lines:
        found += [(at + i, at + j) for i, j in _flag(raw, b"--timeout")]
        at += len(raw) + 1
    return found


def _flag(raw: bytes, flag: bytes) -> list[tuple[int, int]]:
    """(start, end) of N in each ``--flag=N`` / ``--flag N`` word of a command line (N digits, then the word
    ends: a space, a quote, the line's end)."""
    out = []
    i = raw.find(flag)
    while i >= 0:
        before = raw[i - 1 : i]
        j = i + len(flag)
        if before in (b"", b" ", b"\t", b"'", b'"') and raw[j : j + 1] in (b"=", b" "):
            k = j + 1
            while raw[k : k + 1] == b" " and raw[j : j + 1] == b" ":
                k += 1
            m = k
            while raw[m : m + 1].isdigit():
                m += 1
            if m > k and raw[m : m + 1] in (b"", b" ", b"\t", b"'", b'"', b"\r", b";", b"&"):
                out.append((k, m))
        i = raw.find(flag, j)
    return out


def _key_number(raw: bytes, key: bytes, sep: bytes) -> list[tuple[int, int]]:
    """(start, end) of N in ``key<sep> N`` at the start of a line (a trailing comment allowed)."""
    body = raw.lstrip(b" \t")
    lead = len(raw) - len(body)
    if not body.startswith(key):
        return []
    rest = body[len(key) :].lstrip(b" \t")
    if not rest.startswith(sep):
        return []
    k = lead + len(body) - len(rest) + 1
    while raw[k : k + 1] in (b" ", b"\t"):
        k += 1
    m = k
    while raw[m : m + 1].isdigit():
        m += 1
    tail = raw[m:].strip()
    if m == k or (tail and not tail.startswith((b"#", b";"))):
        return []
    return [(k, m)]
