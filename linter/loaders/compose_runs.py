"""The environment a ``docker compose`` command of a script or Makefile gives the services it starts (issue 35).

A Makefile target or a setup script often starts the workers itself and hands them their queue there::

    up:
        QUEUE_URL=$(QUEUE_URL_IN_CONTAINER) docker compose up -d --build worker

while the compose file only passes the variable on (``environment: [QUEUE_URL=${QUEUE_URL}]``). The compose
file's own reader (:mod:`visguard.linter.loaders.code.envfiles`) leaves such a value unknown (the environment
Compose runs in is not known there). Here, for each ``docker compose up|run|create|start`` / ``docker-compose ...``
command (:data:`SUBCOMMANDS`), the variables the command's process gets from its input (prefix assignments
``A=b cmd``, ``export A=b`` before it, a Makefile's exported variables: ``shellwords.Command.environ``) are the
interpolation variables of the compose file the command reads (``-f FILE``, ``--project-directory DIR``, else
the first of :data:`COMPOSE_FILES` in the script's folder, as Compose looks for it), and every ``environment:``
value of the services the command names (all of them when it names none: ``up``, ``create``, ``start``) that
interpolates a variable the command sets (the others are the compose file's own bindings) becomes an :class:`~visguard.linter.consumers.EnvBinding` of that service, located at the command's
line (where the value is written), applying to the service's build context (else the compose file's folder), as
the compose file's own bindings do. ``docker compose run -e VAR=value SERVICE`` (``--env``) gives VAR to that
service directly; ``-e VAR`` passes the command's own VAR.

What is not known is not guessed: a variable the input does not set (the environment may), a value with an
unknown part (``$(shell ...)``, a variable of make's environment), a compose file not found or not read (a note),
a service the file does not have. Bounded: the compose file is read once per input (at most :data:`MAX_BYTES`,
inside the script's folder, through :mod:`.safe_io`), at most :data:`MAX_RUNS` commands are read and
:data:`MAX_BINDINGS` bindings kept (a note says so).
"""

from __future__ import annotations

import os
import posixpath

from visguard.errors import VisguardError
from visguard.linter.model import Location, Model, Note

from . import safe_io, shellwords

# https://docs.docker.com/compose/intro/compose-application-model/#the-compose-file (checked 2026-12-03): the
# default path of a Compose file is compose.yaml (preferred) or compose.yml in the working directory; Compose also
# supports docker-compose.yaml and docker-compose.yml for backwards compatibility
COMPOSE_FILES = ("compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml")
SUBCOMMANDS = frozenset({"up", "run", "create", "start"})
MAX_BYTES = 1_000_000
MAX_RUNS = 200
MAX_BINDINGS = 10_000  # bindings one input's compose runs give (then a note, the rest not read)
# options of `docker compose` (before the subcommand) and of its subcommands that take a value
# (https://docs.docker.com/reference/cli/docker/compose/, .../compose/up/, .../compose/run/, checked 2026-12-03)
_GLOBAL_VALUED = frozenset(
    {"-f", "--file", "-p", "--project-name", "--project-directory", "--env-file", "--profile", "--ansi",
     "--parallel", "--progress"}
)  # fmt: skip
_VALUED = frozenset(
    {"--scale", "-t", "--timeout", "--wait-timeout", "--exit-code-from", "--attach", "--no-attach", "--pull",
     "--name", "-w", "--workdir", "-u", "--user", "--entrypoint", "-l", "--label", "-p", "--publish", "-v",
     "--volume", "--cap-add", "--cap-drop", "--env-from-file"}
)  # fmt: skip


def read(path: str, commands: list[shellwords.Command], model: Model) -> None:
    """The bindings the compose commands of ``commands`` (the script or Makefile at ``path``) give their
    services, added to ``model.env``; what is not read, a note."""
    files: dict[str, object] = {}  # compose file -> its services (or None: not read)
    runs = 0
    for cmd in commands:
        run = _compose(cmd)
        if run is None:
            continue
        runs += 1
        if runs > MAX_RUNS:
            return
        files_given, folder, sub, services, given = run
        environ = {}
        for name, w in cmd.environ().items():
            environ[name] = w.text if w.known else None
        compose = _compose_file(path, files_given, folder, cmd.line, model)
        if compose is None:
            continue
        if compose not in files:
            files[compose] = _services(compose, path, cmd.line, model)
        doc = files[compose]
        if not isinstance(doc, dict):
            continue
        names = services or ([] if sub == "run" else list(doc))
        for service in names:
            spec = doc.get(service)
            if not isinstance(spec, dict):
                continue
            _service(
                path, cmd.line, compose, str(service), spec, environ, given if sub == "run" else {}, model
            )
            if len(model.env) > MAX_BINDINGS:
                del model.env[MAX_BINDINGS:]
                message = f"the compose runs give more than {MAX_BINDINGS:,} environment bindings: the rest not read"
                _note(model, path, cmd.line, message)
                return


def _compose(cmd: shellwords.Command):
    """(``-f`` files, ``--project-directory``, subcommand, services named, ``-e`` values) of a
    ``docker compose`` command, else None."""
    words = cmd.words
    if not words:
        return None
    head = posixpath.basename(words[0].text)
    if head == "docker" and len(words) > 1 and words[1].text == "compose":
        i = 2
    elif head == "docker-compose":
        i = 1
    else:
        return None
    files: list[shellwords.Word] = []
    folder = None
    while i < len(words) and words[i].text.startswith("-"):
        key, eq, value = words[i].text.partition("=")
        if key in _GLOBAL_VALUED:
            w = (
                shellwords.Word(value, words[i].parts)
                if eq
                else (words[i + 1] if i + 1 < len(words) else None)
            )
            i += 1 if eq else 2
            if key in ("-f", "--file") and w is not None:
                files.append(w)
            elif key == "--project-directory" and w is not None:
                folder = w
        else:
            i += 1
    if i >= len(words) or words[i].text not in SUBCOMMANDS:
        return None
    sub = words[i].text
    i += 1
    services: list[str] = []
    given: dict[str, str | None] = {}
    passed: list[str] = []  # -e VAR: the command's own VAR
    while i < len(words):
        w = words[i]
        key, eq, value = w.text.partition("=")
        if w.text.startswith("-") and key in ("-e", "--env"):
            item = shellwords.Word(value, w.parts) if eq else (words[i + 1] if i + 1 < len(words) else None)
            i += 1 if eq else 2
            if item is not None:
                name, has, v = item.text.partition("=")
                if has:
                    given[name] = v if item.known else None
                else:
                    passed.append(name)
            continue
        if w.text.startswith("-"):
            i += 1 if eq or key not in _VALUED else 2
            continue
        if not w.known:
            return None  # a service (or the run's command) not known here
        services.append(w.text)
        i += 1
        if sub == "run":
            break  # the rest is the command the run starts
    environ = cmd.environ()
    for name in passed:
        w = environ.get(name)
        given[name] = w.text if w is not None and w.known else None
    return files, folder, sub, services, given


def _compose_file(path: str, files: list, folder, line: int, model: Model) -> str | None:
    """The compose file a command reads (its first ``-f`` file; else the default names in its project folder,
    the script's folder unless ``--project-directory`` says), inside the script's folder; None (noted when it
    was named) when there is none."""
    base = os.path.dirname(os.path.abspath(path))
    if folder is not None:
        if not folder.known:
            return None
        base = os.path.normpath(os.path.join(base, folder.text))
    if files:
        w = files[0]
        if not w.known:
            _note(model, path, line, f"the compose file {w.display} is not known here")
            return None
        candidates = [w.text]
    else:
        candidates = list(COMPOSE_FILES)
    root = os.path.dirname(os.path.abspath(path))
    for name in candidates:
        try:
            found = safe_io.confined(
                root, os.path.relpath(os.path.join(base, name), root), file=path, entry="-f"
            )
        except VisguardError as exc:
            if files:
                _note(model, path, line, f"the compose file {name}: not read ({exc.detail})")
            return None
        if os.path.isfile(found):
            return found
    if files:
        _note(model, path, line, f"the compose file {candidates[0]} is not found")
    return None


def _services(compose: str, path: str, line: int, model: Model):
    from .decode import loads

    try:
        text = safe_io.read_bytes(compose, max_bytes=MAX_BYTES).decode("utf-8-sig", "replace")
        doc = loads(text, file=compose)
    except VisguardError as exc:
        _note(
            model,
            path,
            line,
            f"the compose file {os.path.basename(compose)} it runs is not read: {exc.detail}",
        )
        return None
    services = doc.get("services") if isinstance(doc, dict) else None
    return services if isinstance(services, dict) else None


def _service(path, line, compose, service, spec, environ, given, model: Model) -> None:
    from .code.envfiles import _build_context, _split, binding, interpolated

    context = _build_context(compose, spec.get("build")) or os.path.dirname(os.path.abspath(compose))
    env = spec.get("environment")
    items: list[tuple[str, object]] = []
    if isinstance(env, dict):
        items = [(str(k), v) for k, v in env.items()]
    elif isinstance(env, list):
        items = [_split(x) if "=" in x else (x.strip(), None) for x in env if isinstance(x, str)]
    values: dict[str, str | None] = {}
    for key, value in items:
        if value is None:  # `- VAR` / `VAR:` with no value: the variable of the environment Compose runs in
            values[key] = environ.get(key)
        elif isinstance(value, str) and "$" in value:
            got = interpolated(value, environ)
            if got != interpolated(
                value
            ):  # what the command's environment changes (the rest is the file's own)
                values[key] = got
    values.update(given)  # run -e VAR=value: given to the container, over the file's
    where = Location(path, line=line, path=f"services/{service}/environment")
    for key, value in values.items():
        b = binding(key, value, where, service)
        if b is not None:
            model.env.append(b.replace(folder=context))


def _note(model, path: str, line: int | None, message: str) -> None:
    """A note of the script at ``path``, located at the command's ``line`` and saying it."""
    model.notes.append(Note(f"{message} (line {line})", Location(path, line=line), path))
