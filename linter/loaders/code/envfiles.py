"""Environment variables a workload gets from ``.env`` files and docker-compose ``environment:`` (issue 25).

Application code names its queue by an environment variable (``os.environ["ORDERS_QUEUE_URL"]``); these files
say what the variable holds. Each variable whose value is an SQS queue URL or ARN, or a queue name in a variable
whose name says queue (``QUEUE``, ``SQS``), becomes an :class:`~visguard.linter.consumers.EnvBinding` with a
:class:`~visguard.linter.consumers.QueueRef` of the literal; ``linter.consumers.join`` then joins a consumer that
reads the variable to the queue of that name in any input of the run. Other variables are not kept (a ``.env``
file holds secrets: nothing else of it is stored or printed). A value with ``${...}`` interpolation is not a
literal and is skipped.

Pure: ``read(path, data)`` like every reader of :mod:`visguard.linter.loaders.code`.
"""

from __future__ import annotations

import os
import re

from visguard.errors import VisguardError
from visguard.linter.consumers import EnvBinding, QueueRef, queue_name_of
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


def binding(name: str, value, location: Location, workload: str) -> EnvBinding | None:
    """The binding of variable ``name`` when ``value`` names a queue (a URL, an ARN, or a name in a queue
    variable); None otherwise."""
    if not isinstance(value, str) or not value or "${" in value or len(value) > 2048:
        return None
    queue = queue_name_of(value)
    if queue is None:
        return None
    upper = name.upper()
    named = any(w in upper for w in _QUEUE_WORDS)
    if value.startswith("arn:"):
        kind = "arn"
    elif value.startswith(("http://", "https://")):
        if not (named or ".sqs." in value or "//sqs." in value or "queue.amazonaws.com" in value):
            return None
        kind = "url"
    elif named:
        kind = "name"
    else:
        return None
    return EnvBinding(name, workload=workload, ref=QueueRef(kind, value, location), location=location)


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
        if not isinstance(spec, dict) or "environment" not in spec:
            continue
        env = spec["environment"]
        line, col = position_of(spec, "environment")
        if isinstance(env, dict):
            items = [(k, v, position_of(env, k)) for k, v in env.items()]
        elif isinstance(env, list):
            items = [(*_split(x), (line, col)) for x in env if isinstance(x, str) and "=" in x]
        else:
            continue
        for key, value, (ln, c) in items:
            b = binding(
                str(key),
                value,
                Location(path, line=ln, column=c, path=f"services/{service}/environment/{key}"),
                str(service),
            )
            if b is not None:
                out.env.append(b)
    return out


def _split(item: str) -> tuple[str, str]:
    key, _, value = item.partition("=")
    return key.strip(), value.strip()
