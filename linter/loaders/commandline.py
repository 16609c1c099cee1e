"""Worker start commands (issue 35 §2): the one reader of the command lines that start SQS workers.

A worker is often configured by its start command rather than a file: a Procfile line, a Supervisor
``command=``, a systemd ``ExecStart=``, a docker-compose ``command``, an ECS container's ``entryPoint`` +
``command``, a Kubernetes container's ``command`` + ``args``. Every one of them is read here, the same way, so
every place a command appears gives the same settings:

- the command line is cut into simple commands by :mod:`.shellwords` (a string is split like a shell does; a
  list, the exec form, is its words already); ``sh -c '...'``, ``&&`` chains, ``exec``, ``env A=b``, prefix
  assignments and wrappers that end in the framework's program (``bundle exec``, ``poetry run``, ``pipenv run``,
  ``uv run``, ``python -m celery``, ``php /app/artisan``) are taken off;
- each framework's options are read with its own grammar, one table per framework (:data:`GRAMMARS`: option
  spellings, whether each takes a value, the field it sets, the framework's documentation);
- :func:`workers` gives one :class:`WorkerCommand` per worker the line starts: its framework, the queues it
  names (``--queue=a,b``, ``-Q a,b``, ``-q name[,weight]``), the fields it sets (``work_timeout``, ``tries``,
  ``concurrency``, ``stop_timeout``, ``prefetch``, ``soft_time_limit``, ``delays``...), and what it could not
  read (``problems``: an option whose value is not a number).

Frameworks (checked 2026-12-02; reference/consumers.md §3):

- Laravel ``php artisan queue:work|queue:listen [connection]`` (Horizon, ``horizon``, is Redis-only: not SQS);
- Celery ``celery [-A app] worker`` (also ``celery worker -A app``, the 4.x order);
- Shoryuken ``shoryuken [start] -q queue[,weight] ... -c N -t N -C config.yml -r file -R``.
"""

from __future__ import annotations

import posixpath

from . import shellwords

# framework -> {option spelling: (field or None, takes a value, kind)}: kind int | seconds | list | name | flag.
# A field None is an option that is read past (its value skipped) but sets nothing visguard judges.
LARAVEL_SOURCE = "https://laravel.com/docs/12.x/queues#running-the-queue-worker"
CELERY_SOURCE = "https://docs.celeryq.dev/en/stable/reference/cli.html#celery-worker"
SHORYUKEN_SOURCE = "https://github.com/ruby-shoryuken/shoryuken/wiki/Shoryuken-options"
GRAMMARS: dict[str, dict[str, tuple[str | None, bool, str]]] = {
    # php artisan queue:work --help (Laravel 12): every option takes "=value" or the next word (Symfony Console)
    "laravel": {
        "--queue": ("queues", True, "list"),  # the queues to work, in priority order
        "--timeout": ("work_timeout", True, "seconds"),  # seconds a job may run (default 60)
        "--tries": ("tries", True, "int"),  # attempts before a job is failed (default 1)
        "--backoff": ("delays", True, "list"),  # seconds to wait before retrying a failed job (default 0)
        "--sleep": ("sleep", True, "seconds"),  # seconds to sleep when no job is available (default 3)
        "--max-time": ("max_time", True, "seconds"),  # seconds the worker runs before it stops
        "--max-jobs": ("max_jobs", True, "int"),
        "--memory": (None, True, "int"),
        "--rest": (None, True, "seconds"),
        "--name": (None, True, "name"),
        "--delay": ("delays", True, "list"),  # the older spelling of --backoff
        "--once": (None, False, "flag"),
        "--stop-when-empty": (None, False, "flag"),
        "--force": (None, False, "flag"),
        "--quiet": (None, False, "flag"),
        "-q": (None, False, "flag"),
        "-v": (None, False, "flag"),
        "-vv": (None, False, "flag"),
        "-vvv": (None, False, "flag"),
        "--verbose": (None, False, "flag"),
        "--no-interaction": (None, False, "flag"),
        "-n": (None, False, "flag"),
        "--env": (None, True, "name"),
    },
    # celery worker --help (Celery 5.x): short options take the next word (or are glued: -c4), long ones "="
    # or the next word
    "celery": {
        "-Q": ("queues", True, "list"),
        "--queues": ("queues", True, "list"),
        "-X": (None, True, "list"),  # --exclude-queues
        "--exclude-queues": (None, True, "list"),
        "-c": ("concurrency", True, "int"),
        "--concurrency": ("concurrency", True, "int"),
        "--time-limit": ("work_timeout", True, "seconds"),  # task_time_limit: the hard limit
        "--soft-time-limit": ("soft_time_limit", True, "seconds"),  # task_soft_time_limit
        "--prefetch-multiplier": ("prefetch", True, "int"),  # worker_prefetch_multiplier (default 4)
        "--max-tasks-per-child": (None, True, "int"),
        "--max-memory-per-child": (None, True, "int"),
        "--autoscale": (None, True, "list"),
        "-A": ("app", True, "name"),
        "--app": ("app", True, "name"),
        "-b": ("broker", True, "name"),
        "--broker": ("broker", True, "name"),
        "-l": (None, True, "name"),
        "--loglevel": (None, True, "name"),
        "-n": (None, True, "name"),
        "--hostname": (None, True, "name"),
        "-P": (None, True, "name"),
        "--pool": (None, True, "name"),
        "-O": (None, True, "name"),
        "-f": (None, True, "name"),
        "--logfile": (None, True, "name"),
        "--pidfile": (None, True, "name"),
        "--statedb": (None, True, "name"),
        "-S": (None, True, "name"),
        "--scheduler": (None, True, "name"),
        "--config": (None, True, "name"),
        "--workdir": (None, True, "name"),
        "-E": (None, False, "flag"),
        "--task-events": (None, False, "flag"),
        "-B": (None, False, "flag"),
        "--beat": (None, False, "flag"),
        "-D": (None, False, "flag"),
        "--detach": (None, False, "flag"),
        "--without-gossip": (None, False, "flag"),
        "--without-mingle": (None, False, "flag"),
        "--without-heartbeat": (None, False, "flag"),
        "--purge": (None, False, "flag"),
        "--discard": (None, False, "flag"),
        "-q": (None, False, "flag"),
        "--quiet": (None, False, "flag"),
    },
    # shoryuken --help (Shoryuken 6/7): -q takes "name[,weight]" and may repeat
    "shoryuken": {
        "-q": ("queues", True, "queue"),
        "--queues": ("queues", True, "queue"),
        "-c": ("concurrency", True, "int"),
        "--concurrency": ("concurrency", True, "int"),
        "-t": ("stop_timeout", True, "seconds"),  # the shutdown timeout (default 8)
        "--timeout": ("stop_timeout", True, "seconds"),
        "-C": ("config", True, "name"),
        "--config": ("config", True, "name"),
        "-r": (None, True, "name"),
        "--require": (None, True, "name"),
        "-d": ("delay", True, "seconds"),  # seconds to pause after an empty receive
        "--delay": ("delay", True, "seconds"),
        "-L": (None, True, "name"),
        "--logfile": (None, True, "name"),
        "-P": (None, True, "name"),
        "--pidfile": (None, True, "name"),
        "-R": (None, False, "flag"),
        "--rails": (None, False, "flag"),
        "-D": (None, False, "flag"),
        "--daemon": (None, False, "flag"),
        "-v": (None, False, "flag"),
        "--verbose": (None, False, "flag"),
    },
}
SOURCES = {"laravel": LARAVEL_SOURCE, "celery": CELERY_SOURCE, "shoryuken": SHORYUKEN_SOURCE}
# programs that run the next word (`bundle exec shoryuken`, `poetry run celery`)
_WRAPPERS = {"bundle": "exec", "poetry": "run", "pipenv": "run", "uv": "run", "pdm": "run", "rye": "run"}
_PYTHONS = ("python", "python3", "python2")
_ARTISAN_COMMANDS = ("queue:work", "queue:listen")
# Laravel connections named like a driver that is not SQS (config/queue.php's stock connection names)
MAX_QUEUES = 100  # queues one worker command names (a worker reads a handful)
NOT_SQS_CONNECTIONS = frozenset({"redis", "database", "beanstalkd", "sync", "null", "rabbitmq", "failover"})


class WorkerCommand:
    """One worker a command line starts: ``framework`` (laravel | celery | shoryuken), ``queues`` (the names as
    written, each a :class:`~.shellwords.Word`; [] when the command names none), ``fields`` (field -> value, the
    option's spelling in ``options``), ``connection`` (Laravel's), ``command`` (the words, for messages),
    ``problems`` (what was not read, one sentence each), ``line`` (the command's line in its text, 1-based)."""

    __slots__ = (
        "framework",
        "queues",
        "fields",
        "options",
        "connection",
        "command",
        "problems",
        "line",
        "weights",
    )

    def __init__(self, framework: str, line: int):
        self.framework, self.line = framework, line
        self.queues: list[shellwords.Word] = []
        self.weights: dict[str, int] = {}
        self.fields: dict = {}
        self.options: dict[str, str] = {}
        self.connection: str | None = None
        self.command: list[str] = []
        self.problems: list[str] = []

    def __repr__(self) -> str:
        return f"WorkerCommand({self.framework!r}, queues={[q.display for q in self.queues]}, {self.fields})"


def workers(command, *, line: int = 1) -> list[WorkerCommand]:
    """The workers ``command`` starts: a string (split like a shell does) or a list of words (the exec form of
    ECS, Kubernetes and compose; ``entryPoint + command`` joined by the caller). Raises
    :class:`~.shellwords.ShellError` on a string a shell could not split."""
    if isinstance(command, (list, tuple)):
        words = [
            shellwords.Word(str(w).replace("\x00", ""), []) for w in command if isinstance(w, (str, int))
        ]
        cmds = shellwords.simple(shellwords.Command(words, line))
    else:
        cmds = shellwords.commands(str(command), line=line)
    out = []
    for cmd in cmds:
        found = _worker(cmd)
        if found is not None:
            out.append(found)
    return out


def _program(words: list[shellwords.Word]) -> tuple[str, int] | None:
    """(framework, index of its first argument) of a command's words, after wrappers."""
    i = 0
    while i < len(words):
        head = posixpath.basename(words[i].text)
        if head in _WRAPPERS and i + 1 < len(words) and words[i + 1].text == _WRAPPERS[head]:
            i += 2
            continue
        if head in _PYTHONS or head.startswith("python3."):
            j = i + 1
            while j < len(words) and words[j].text.startswith("-") and words[j].text != "-m":
                j += 1
            if j + 1 < len(words) and words[j].text == "-m":
                i = j + 1
                continue
            return None
        if head == "php" or head.startswith("php"):
            j = i + 1
            while j < len(words) and words[j].text.startswith("-"):
                j += 2 if words[j].text in ("-d", "-c") else 1
            if j < len(words) and posixpath.basename(words[j].text) == "artisan":
                k = j + 1
                if k < len(words) and words[k].text in _ARTISAN_COMMANDS:
                    return "laravel", k + 1
            return None
        if head == "artisan" and i + 1 < len(words) and words[i + 1].text in _ARTISAN_COMMANDS:
            return "laravel", i + 2
        if head == "celery":
            rest = [w.text for w in words[i + 1 :]]
            if "worker" not in rest:
                return None
            return "celery", i + 1
        if head == "shoryuken":
            return "shoryuken", i + 1
        return None
    return None


def _worker(cmd: shellwords.Command) -> WorkerCommand | None:
    found = _program(cmd.words)
    if found is None:
        return None
    framework, at = found
    grammar = GRAMMARS[framework]
    w = WorkerCommand(framework, cmd.line)
    w.command = cmd.argv
    words = cmd.words[at:]
    i = 0
    positional: list[shellwords.Word] = []
    while i < len(words):
        word = words[i]
        text = word.text
        if not text.startswith("-") or text == "-":
            positional.append(word)
            i += 1
            continue
        key, eq, value = text.partition("=") if text.startswith("--") else (text, "", "")
        spec = grammar.get(key)
        if spec is None and not text.startswith("--") and len(text) > 2 and text[:2] in grammar:
            key, value, eq = text[:2], text[2:], "="  # -c4, -Qa,b: a short option glued to its value
            spec = grammar[key]
        if spec is None:  # an option this table does not know: its value, if any, is not guessed
            i += 1
            continue
        field, valued, kind = spec
        if valued and not eq:
            if i + 1 < len(words):
                value, i = words[i + 1].text, i + 1
                word = words[i]
            else:
                value = ""
        i += 1
        if field is None or not valued:
            continue
        _set(w, field, kind, shellwords.Word(value, word.parts), key)
    if framework == "celery":
        names = [p.text for p in positional]
        if "worker" not in names:
            return None
    if framework == "laravel":
        conn = next((p for p in positional), None)
        if conn is not None:
            w.connection = conn.display
            if conn.known and conn.text.lower() in NOT_SQS_CONNECTIONS:
                return None
    return w


def _set(w: WorkerCommand, field: str, kind: str, value: shellwords.Word, spelling: str) -> None:
    w.options[field] = spelling
    shown = value.display
    if field == "queues" and len(w.queues) >= MAX_QUEUES:
        _too_many(w, spelling)
        return
    if kind == "list" and field == "queues":
        names = [q for q in value.text.split(",", MAX_QUEUES) if q]
        for q in names[: MAX_QUEUES - len(w.queues)]:
            _queue(w, shellwords.Word(q, value.parts))
        if len(names) > MAX_QUEUES:
            _too_many(w, spelling)
        return
    if kind == "queue":  # shoryuken: name[,weight]
        name, _, weight = value.text.partition(",")
        if name:
            _queue(w, shellwords.Word(name, value.parts))
            if weight.strip().isdigit():
                w.weights[name] = int(weight)
        return
    if kind == "list" and field == "delays":
        seconds = [_number(x) for x in value.text.split(",") if x.strip()]
        if any(s is None for s in seconds) or not seconds:
            w.problems.append(f"{spelling}={shown} is not a list of seconds")
            return
        w.fields[field] = seconds
        return
    if kind in ("int", "seconds"):
        n = _number(value.text)
        if n is None:
            w.problems.append(
                f"{spelling} {shown} is not a number{' of seconds' if kind == 'seconds' else ''}"
            )
            return
        w.fields[field] = n
        return
    w.fields[field] = shown


def _queue(w: WorkerCommand, q: shellwords.Word) -> None:
    if all(q.text != have.text for have in w.queues):  # a queue named twice is worked once
        w.queues.append(q)


def _too_many(w: WorkerCommand, spelling: str) -> None:
    problem = f"{spelling}: more than {MAX_QUEUES} queues in one command"
    if problem not in w.problems:
        w.problems.append(problem)


def _number(text: str) -> int | None:
    text = text.strip()
    return int(text) if text.isdigit() and len(text) < 10 else None


# ------------------------------------------------------------------------------------------------- infrastructure
def settle(c, command, location) -> list[str]:
    """The worker ``command`` (a string, or the exec form's list: ECS ``entryPoint + command``, Kubernetes
    ``command + args``) onto the workload consumer ``c`` that runs it (an ECS task definition, a Deployment):
    ``settings["framework"]`` (laravel | celery | shoryuken), ``work_timeout`` (Laravel ``--timeout``, its default
    60 s when absent; Celery ``--time-limit``), ``settings`` ``tries``, ``soft_time_limit``, ``prefetch``,
    ``delays``, ``command_queues`` (the names the command gives), each located at ``location`` (where the command
    is written). Returns what could not be read, one sentence each, for the caller's note; a command that starts no
    known worker, or several, sets nothing."""
    from visguard import facts

    try:
        found = workers(command)
    except shellwords.ShellError as exc:
        return [f"the container's command cannot be split like a shell does ({exc.message})"]
    if len(found) != 1:
        return []
    w = found[0]
    c.settings["framework"] = w.framework
    c.locations["framework"] = location
    if (
        w.framework == "laravel" and "work_timeout" not in w.options
    ):  # the default, when --timeout is not given
        w.fields["work_timeout"] = facts.LARAVEL_WORK_TIMEOUT_DEFAULT
    for field in ("work_timeout", "tries", "soft_time_limit", "prefetch"):
        if field in w.fields:
            if field == "work_timeout":
                c.work_timeout = w.fields[field]
            else:
                c.settings[field] = w.fields[field]
            c.locations[field] = location
    if w.fields.get("delays"):
        c.settings["delays"] = [
            {"seconds": s, "what": w.options["delays"], "location": location} for s in w.fields["delays"]
        ]
        c.locations["delays"] = location
    if w.queues:
        c.settings["command_queues"] = [q.display for q in w.queues]
    return [f"{w.framework} worker: {p}: not read" for p in w.problems]
