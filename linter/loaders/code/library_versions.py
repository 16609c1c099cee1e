"""The release of a consumer library a code consumer runs, and what that release does (issue 36: F1, F2, F8).

The code readers read what a file writes; this module, run by ``loader.py`` after a file is read, looks up the
version the repository pins (``dependencies.nearest``, within what the run was asked to lint) and settles what that
release makes of it. One record on the consumer, ``settings["library"]``: ``{"name", "version" (text), "basis":
lock | pin | range | celery | newest, "spec", "via"}`` located at ``locations["library"]`` (the pin's line; none for
the newest release), which the rules name in their findings ("Kombu 5.5.4 (poetry.lock:12)", "Kombu 5.6.2, the
newest release: no pin found").

Kombu (a Celery app on SQS, platform ``celery``), which version:
1. ``kombu`` locked or pinned exactly (a lock file, ``kombu==5.5.4``);
2. else ``celery`` locked or pinned: the newest Kombu its requirement admits (``facts.CELERY_KOMBU``: Celery 5.5.x
   requires ``kombu>=5.5.2,<5.6`` -> 5.5.4), what pip resolves it to today (``basis="celery"``);
3. else a ``kombu`` range's lower bound, else a ``celery`` range's (through the same table);
4. else the newest release (``facts.KOMBU_NEWEST_RELEASE``, ``basis="newest"``).
What it makes of the settings (pure: :func:`settle_kombu`): a ``visibility_timeout`` of 0 is Kombu's 1,800 s in
every release (``or 1800``) and a fractional one is sent as "21600.0" to CreateQueue, which SQS refuses
(``settings["kombu_fractional"]``, VG075); a rejected message is hidden for ``wait_time_seconds`` from 5.6.0, else
visible at once (``settings["reject_visibility"]``).

sqs-consumer (platform ``sqs-consumer``): the package's pin or lock as found, else no version (``None``: VG076
then assumes nothing: a handler that returns nothing is an error only where the repository says it runs 14+).
"""

from __future__ import annotations

import os

from visguard import facts
from visguard.linter.model import Location, Note

from . import dependencies


def settle(model, path: str, asked: str | None) -> None:
    """Give each library consumer of ``model`` (read from ``path``) its library's version and what it implies."""
    wanted = {c.platform for c in model.pending} & {"celery", "sqs-consumer"}
    if not wanted:
        return
    bound = dependencies.bound_of(asked, path)
    seen: set[str] = set()
    lookups: dict[tuple[str, str], tuple] = {}

    def find(package: str, ecosystem: str):
        key = (package, ecosystem)
        if key not in lookups:
            pin, notes = dependencies.nearest(package, path, ecosystem, bound)
            lookups[key] = pin
            for file, why in notes:
                if file not in seen:
                    seen.add(file)
                    model.notes.append(Note(f"{_shown(file, path)}: {why}", Location(_shown(file, path))))
        return lookups[key]

    queues = model.queues
    for c in model.pending:
        if c.platform == "celery":
            library = kombu_release(find("kombu", "python"), find("celery", "python"))
            _place(c, library, path)
            settle_kombu(c, queues.get(c.settings.get("kombu_queue")), library)
        elif c.platform == "sqs-consumer" and c.settings.get("handler"):
            pin = find("sqs-consumer", "node")
            if pin is not None:
                library = {
                    "name": "sqs-consumer",
                    "version": pin.version,
                    "basis": pin.basis,
                    "spec": pin.spec,
                    "file": pin.file,
                    "line": pin.line,
                }
                _place(c, library, path)


def _shown(file: str, path: str) -> str:
    """``file`` spelled like ``path`` (relative when the source path is relative)."""
    return file if os.path.isabs(path) else os.path.relpath(file)


def _place(c, library: dict, path: str) -> None:
    file = library.pop("file", None)
    line = library.pop("line", None)
    v = library["version"]
    library["version"] = ".".join(map(str, v)) if v is not None else None
    c.settings["library"] = library
    if file is not None:
        c.locations["library"] = Location(_shown(file, path), line=line)


def celery_kombu(celery: tuple | None) -> tuple[tuple, str]:
    """(the newest Kombu release Celery ``celery`` admits, the requirement) (``facts.CELERY_KOMBU``)."""
    rows = facts.CELERY_KOMBU
    row = rows[0]
    for r in rows:
        if celery is not None and dependencies.at_least(celery, r[0]):
            row = r
    return row[2], row[1]


def kombu_release(kombu, celery) -> dict:
    """The Kombu a Celery app runs, by the policy of the module docstring (pure: the two pins, or None)."""

    def exact(pin):
        return pin is not None and pin.version is not None and pin.basis in ("lock", "pin")

    def ranged(pin):
        return pin is not None and pin.version is not None and pin.basis == "range"

    if exact(kombu) or (ranged(kombu) and not exact(celery)):
        return {"name": "kombu", "version": kombu.version, "basis": kombu.basis, "spec": kombu.spec,
                "file": kombu.file, "line": kombu.line}  # fmt: skip
    if exact(celery) or ranged(celery):
        version, requirement = celery_kombu(celery.version)
        return {"name": "kombu", "version": version, "basis": "celery", "spec": requirement,
                "via": f"celery {celery.text}", "file": celery.file, "line": celery.line}  # fmt: skip
    return {"name": "kombu", "version": facts.KOMBU_NEWEST_RELEASE, "basis": "newest", "spec": None}


def _fixed(version: tuple | None) -> bool:
    """Whether Kombu ``version`` reads visibility_timeout as a whole number and honours 0 (#2581)."""
    fix = facts.KOMBU_VISIBILITY_FIX_RELEASE
    return fix is not None and version is not None and bool(dependencies.at_least(version, fix))


def settle_kombu(c, queue, library: dict) -> None:
    """What Kombu ``library["version"]`` makes of ``c``'s transport options (pure on the model): 0 is 1,800 s on
    the queue it creates; a fractional value is marked (the CreateQueue SQS refuses); the visibility of a
    rejected message."""
    version = dependencies.version_tuple(library["version"]) if library.get("version") else None
    vt = c.settings.get("created_visibility")
    if isinstance(vt, (int, float)) and not _fixed(version):
        if vt == 0:  # `visibility_timeout or 1800`
            c.settings["kombu_zero_read_as"] = facts.CELERY_SQS_VISIBILITY_DEFAULT
            if queue is not None:
                queue.visibility_timeout = facts.CELERY_SQS_VISIBILITY_DEFAULT  # VG077 says so
        elif isinstance(vt, float):  # str(21600.0) is "21600.0": not a whole number of seconds to SQS
            c.settings["kombu_fractional"] = True
    elif isinstance(vt, float) and vt == int(vt):  # int(float(v)) on main: 21600.0 is 21600
        c.settings["created_visibility"] = int(vt)
        if queue is not None:
            queue.visibility_timeout = int(vt)
    waits = version is not None and dependencies.at_least(version, facts.KOMBU_REJECT_WAITS_FROM)
    wait = c.settings.get("wait_time")
    wait = wait if isinstance(wait, (int, float)) else facts.KOMBU_WAIT_TIME_DEFAULT
    c.settings["reject_visibility"] = wait if waits else 0
