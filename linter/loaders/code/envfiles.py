"""Environment variables a workload gets from ``.env`` files and docker-compose ``environment:`` (issue 25).

Application code names its queue by an environment variable (``os.environ["ORDERS_QUEUE_URL"]``); these files
say what the variable holds. They also hold secrets (``SQS_KEY``, ``SQS_SECRET``, ``QUEUE_PASSWORD``), so one rule
(:func:`binding`) decides what of them is kept, and nothing else is stored, printed or sent anywhere:

- a value shaped like an SQS queue URL or ARN becomes an :class:`~visguard.linter.consumers.EnvBinding` with a
  :class:`~visguard.linter.consumers.QueueRef` of the literal;
- a queue name (1-80 of ``A-Za-z0-9_-``, optionally ``.fifo``) in a variable whose name says queue (``QUEUE``,
  ``SQS``) becomes a *private* reference (``QueueRef.private``): ``linter.consumers.join`` joins a consumer that
  reads the variable to a queue of that name that an input of the run declares; otherwise the value is never
  printed (notes name the variable and the file) nor looked up in AWS (``--queues-from aws``).
- a whole number in a variable whose name says it is a consumer's setting (``VISIBILITY_TIMEOUT=30``,
  :func:`~visguard.linter.consumers.setting_number`) is kept as that number: code that reads the setting from
  the variable gets it (``linter.consumers.join``).

A compose value with ``${...}`` interpolation is read as Compose reads it when the variable is not set:
``${VAR:-default}`` and ``${VAR-default}`` are the default (a project ``.env`` that sets the variable is its own
binding: two different values are two candidates, never a guess); any other interpolation (``${VAR}``,
``$VAR``, ``${VAR:?error}``, ``${VAR:+other}``) leaves the value unknown and it is skipped. In a ``.env`` file
a ``${...}`` value is skipped.

Pure: ``read(path, data)`` like every reader of :mod:`visguard.linter.loaders.code`.
"""

from __future__ import annotations

import os
import re

from visguard.errors import VisguardError
from visguard.linter.consumers import EnvBinding, QueueRef, setting_number
from visguard.linter.model import Location, Note

from . import CodeResult

EXTENSIONS = (
    ".env", ".env.local", ".env.dev", ".env.development", ".env.prod", ".env.production", ".env.staging",
    ".env.test", ".env.example", "compose.yml", "compose.yaml",
)  # fmt: skip
COMPOSE = ("compose.yml", "compose.yaml")
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
_QUEUE_WORDS = ("QUEUE", "SQS")


def read(path: str, data: bytes) -> CodeResult:
    text = data.decode("utf-8-sig", errors="replace")
    if os.path.basename(path).endswith(COMPOSE):
        return _compose(path, text)
    out = CodeResult()
    for n, line in enumerate(text.splitlines(), 1):
        item = _assignment(line)
        if item is not None:
            b = binding(item[0], item[1], Location(path, line=n), path)
            if b is not None:
                out.env.append(b)
    return out


def _assignment(line: str) -> tuple[str, str] | None:
    """``KEY=VALUE`` of a .env line (``export`` and quotes allowed, ``# comment`` after an unquoted value)."""
    s = line.strip()
    if not s or s.startswith("#"):
        return None
    if s.startswith("export "):
        s = s[7:].lstrip()
    key, sep, value = s.partition("=")
    key, value = key.strip(), value.strip()
    if not sep or not _KEY.fullmatch(key):
        return None
    if value[:1] in ("'", '"'):
        end = value.find(value[0], 1)
        value = value[1:end] if end > 0 else value[1:]
    else:
        value = value.split(" #", 1)[0].strip()
    return key, value


# What a value of a .env/compose file must look like to be kept (and so ever printed or sent): an SQS queue URL
# (``https://sqs.<region>.amazonaws.com/<account>/<name>``, the legacy hosts, or any host with an account and a
# queue name as its path, e.g. LocalStack's, in a variable whose name says queue) or queue ARN. A queue name is kept
# only as a private reference: the join uses it when an input of the run declares that queue, nothing else does.
_QUEUE_NAME = r"[A-Za-z0-9_-]{1,80}(?:\.fifo)?"
_SQS_URL = re.compile(
    r"https?://([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*)(?::\d{1,5})?/(?:\d{12}|queue)/" + _QUEUE_NAME + "/?"
)
_SQS_HOST = re.compile(r"(?:sqs\.[a-z0-9-]+|[a-z0-9-]+\.queue|queue)\.amazonaws\.com(?:\.cn)?")
_SQS_ARN = re.compile(r"arn:aws(?:-[a-z]+)*:sqs:[a-z0-9-]+:\d{12}:" + _QUEUE_NAME)


def binding(name: str, value, location: Location, workload: str) -> EnvBinding | None:
    """The binding of variable ``name`` when ``value`` is shaped like an SQS queue URL or ARN, or is a queue name
    in a variable whose name says queue (a :class:`QueueRef` with ``private=True``); None otherwise: any other
    value of a .env or compose file is neither kept nor printed nor sent anywhere."""
    number = setting_number(name, value)
    if number is not None:  # VISIBILITY_TIMEOUT=30: the number of a setting the code reads from the variable
        return EnvBinding(name, workload=workload, location=location, number=number)
    if not isinstance(value, str) or not value or len(value) > 2048:
        return None
    named = any(w in name.upper() for w in _QUEUE_WORDS)
    url = _SQS_URL.fullmatch(value)
    if url is not None and (named or _SQS_HOST.fullmatch(url.group(1))):
        ref = QueueRef("url", value, location)
    elif _SQS_ARN.fullmatch(value):
        ref = QueueRef("arn", value, location)
    elif named and re.fullmatch(_QUEUE_NAME, value):
        ref = QueueRef("name", value, location, private=True)
    else:
        return None
    return EnvBinding(name, workload=workload, ref=ref, location=location)


def _compose(path: str, text: str) -> CodeResult:
    from ..decode import loads, position_of

    out = CodeResult()
    try:
        doc = loads(text, file=path)
    except VisguardError as exc:  # a compose file is read for its environment only: its errors are notes
        where = f" (line {exc.place})" if exc.place else ""
        out.notes.append(Note(f"compose file not read{where}: {exc.detail}", Location(path, line=None)))
        return out
    services = doc.get("services") if isinstance(doc, dict) else None
    if not isinstance(services, dict):
        return out
    for service, spec in services.items():
        if isinstance(spec, dict) and ("command" in spec or "entrypoint" in spec):
            _compose_worker(path, text, out, str(service), spec)
        if not isinstance(spec, dict) or "environment" not in spec:
            continue
        env = spec["environment"]
        line, col = position_of(spec, "environment")
        if isinstance(env, dict):
            items = [(k, v, position_of(env, k)) for k, v in env.items()]
        elif isinstance(env, list):
            items = [
                (*_split(x), _item_at(text, line, x) or (line, col))
                for x in env
                if isinstance(x, str) and "=" in x
            ]
        else:
            continue
        context = _build_context(path, spec.get("build"))
        for key, value, (ln, c) in items:
            b = binding(
                str(key),
                interpolated(value) if isinstance(value, str) else value,
                Location(path, line=ln, column=c, path=f"services/{service}/environment/{key}"),
                str(service),
            )
            if b is not None:  # the service's own code, when compose says where it is built from
                out.env.append(b if context is None else b.replace(folder=context))
    return out


def _item_at(text: str, line: int | None, item: str) -> tuple[int, int] | None:
    """(line, column) of the list item ``- KEY=VALUE`` of an ``environment:`` key at ``line`` (the YAML decoder keeps
    no position for a list's items): the first line below that says it, quoted or not, within a bounded scan."""
    if not line:
        return None
    key = item.partition("=")[0]
    lines = text.splitlines()
    for n in range(line, min(len(lines), line + 400)):
        s = lines[n].lstrip()
        if s.startswith("-") and s[1:].lstrip().lstrip("\"'").startswith(key + "="):
            return n + 1, len(lines[n]) - len(s) + 1
    return None


def _compose_worker(path: str, text: str, out: CodeResult, service: str, spec: dict) -> None:
    """A service's ``entrypoint`` + ``command``: the worker it starts (Laravel, Shoryuken, Celery), read as a
    Procfile line is (visguard.linter.loaders.code.frameworks, one command-line reader)."""
    import shlex

    from ..decode import position_of
    from . import frameworks

    parts = []
    for key in ("entrypoint", "command"):
        v = spec.get(key)
        if isinstance(v, list) and all(isinstance(x, str) for x in v):
            parts.append(shlex.join(v))
        elif isinstance(v, str):
            parts.append(v)
        elif v is not None:
            return  # a number, a mapping: not a command
    lines = [position_of(spec, key)[0] for key in ("command", "entrypoint") if key in spec]
    line = next((n for n in lines if n), 1)  # the command's line (its options), else the entrypoint's
    found = frameworks.worker_consumers(path, text.encode("utf-8"), " ".join(parts), line, "compose")
    context = _build_context(path, spec.get("build"))
    for c in found.consumers:
        c.settings["service"] = service
        if context is not None:  # the code it runs (consumers._fold_laravel_connections)
            c.settings["build_context"] = context
    out.consumers += found.consumers
    out.notes += found.notes
    out.places.update(found.places)


def _build_context(path: str, build) -> str | None:
    """The folder a compose service is built from (``build: ./worker`` or ``build: {context: ./worker}``),
    relative to the compose file; None for none, a Git URL or a value that is not a path."""
    import os

    context = build.get("context", ".") if isinstance(build, dict) else build
    if not isinstance(context, str) or not context or "://" in context or context.startswith("git@"):
        return None
    if len(context) > 1024 or "\x00" in context:
        return None
    return os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(path)), context))


_INTERPOLATION = re.compile(
    r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^${}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)|\$\{[^}]*\}?"
)


def interpolated(value: str, env: dict | None = None) -> str | None:
    """A compose value as Compose interpolates it (the Compose file reference, "Interpolation") with the
    variables ``env`` gives (NAME -> its text, or None: set to a value not known here), the others unset: ``$$``
    is ``$``; ``${VAR}``/``$VAR`` is VAR's value; ``${VAR:-d}`` / ``${VAR-d}`` is VAR's value when it is set (and
    not empty, for ``:-``), else ``d`` (a literal default: a default that interpolates again is not read);
    ``${VAR:+o}`` / ``${VAR+o}`` is ``o`` when ``env`` sets it (not empty, for ``:+``), else empty;
    ``${VAR:?e}`` is VAR's value. A variable ``env`` does not give (the environment Compose runs in may) and has
    no default, or whose value is not known, makes the value unknown (None)."""
    if "$" not in value:
        return value
    env = env or {}
    out, pos = [], 0
    for m in _INTERPOLATION.finditer(value):
        out.append(value[pos : m.start()])
        pos = m.end()
        if m.group(0) == "$$":
            out.append("$")
            continue
        name = m.group(1) or m.group(4)
        if name is None:  # ${...} that is no variable Compose reads
            return None
        op, given = m.group(2), m.group(3)
        is_set = name in env
        got = env.get(name)
        if op in ("-", ":-"):
            use_default = not is_set or (op == ":-" and got == "")
            if use_default:
                out.append(given)
                continue
        elif op in ("+", ":+"):
            if not is_set or (got is None and op == ":+"):
                return None  # whether it is set (or empty) is not known here
            out.append(given if op == "+" or got != "" else "")
            continue
        if not is_set or got is None:
            return None
        out.append(got)
    out.append(value[pos:])
    return "".join(out)


def _split(item: str) -> tuple[str, str]:
    key, _, value = item.partition("=")
    return key.strip(), value.strip()
