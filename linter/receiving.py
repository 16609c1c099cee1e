"""Whether a workload that is only given a queue's URL receives from it (issue 35 §5).

A Deployment or an ECS container that gets ``ORDERS_QUEUE_URL`` may be the queue's consumer or its producer: the
URL alone does not say. A workload is a consumer when its platform consumes (a Lambda mapping, a pipe, a KEDA
trigger, a Beanstalk worker: their loaders say so), when its IAM grants receiving (``sqs:ReceiveMessage``: the ECS
loaders read the task role), or when its code receives. This module decides the last: the code of a workload is
the folder its image is built from (:func:`image_folder`), and what that code does is told by

- the run's code consumers (receive loops, frameworks) read in that folder: it receives;
- else a bounded byte scan of the folder's source files (:func:`scan`): a receive API or a worker framework named
  (:data:`RECEIVES`) is receiving; SendMessage calls (:data:`SENDS`) and no receive is sending only.

:func:`verdict` says ``"receives"``, ``"sends"`` or None (no code visible, or Celery's, which does both): the join
drops a send-only workload from its queues and marks one whose code is not visible (``receive_assumed``), so VG065
says that receiving is assumed. Only folders inside what the run was asked to lint are read (``roots``), each
file through ``safe_io`` (regular files, bounded), at most :data:`MAX_FILES` files and :data:`MAX_BYTES` bytes a
workload, so a large repository costs a bounded scan per workload given a URL, and nothing otherwise.
"""

from __future__ import annotations

import os
import re

# bytes that name a receive: the SDKs' receive calls and the worker frameworks the code loader reads (a subset of
# the code loader's markers without the ones a producer writes too: Celery's apply_async, a bare "queue")
RECEIVES = (
    b"ReceiveMessage", b"receive_message", b"receiveMessage", b"SqsListener", b"sqs-consumer", b"nestjs-sqs",
    b"squiss", b"queue:work", b"Shoryuken", b"shoryuken", b"QueuePoller", b"SqsMessageDrivenChannelAdapter",
)  # fmt: skip
# bytes that name a send: SendMessage(Batch|Command|Request|Input|Async), send_message(_batch), sendMessage(Batch),
# boto3's Queue.send_messages
SENDS = (b"SendMessage", b"send_message", b"sendMessage")
# a framework whose one application both sends and receives: its start command decides, not its code
BOTH = (b"celery", b"Celery")
SOURCE_ENDINGS = (".py", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx", ".java", ".kt", ".go", ".cs",
                  ".php", ".rb", ".rs", ".sh")  # fmt: skip
SKIP = frozenset({"node_modules", "vendor", ".git", ".venv", "venv", "__pycache__", "dist", "build", "target",
                  "test", "tests", "__tests__", "spec"})  # fmt: skip
MAX_FILES = 2000  # source files read for one workload
MAX_BYTES = 32 * 1024 * 1024  # bytes read for one workload (each file: safe_io's head, 256 KB)
DOCKERFILES = ("Dockerfile", "Containerfile")
# tags that name a version or a stage, not what the image is (csuvikg/app:producer names it; :latest does not)
_GENERIC_TAG = re.compile(r"(?i)^(latest|stable|main|master|dev|develop|prod|production|staging|test|edge|"
                          r"v?\d[\w.\-]*|[0-9a-f]{7,64})$")  # fmt: skip


def _norm(name: str) -> str:
    return name.lower().replace("_", "-")


def image_names(image: str) -> set[str]:
    """What an image reference says the image is: its repository's last part and a tag that is not a version
    (``registry/team/orders-worker:1.2`` -> ``orders-worker``; ``csuvikg/kedaexample:producer`` -> ``kedaexample``,
    ``producer``), normalised (lower case, ``_`` as ``-``)."""
    if not isinstance(image, str) or not image or "${" in image or len(image) > 512:
        return set()
    ref = image.split("@", 1)[0]  # a digest says nothing of the name
    last = ref.rsplit("/", 1)[-1]
    name, _, tag = last.partition(":")
    out = {_norm(name)} if name else set()
    if tag and not _GENERIC_TAG.match(tag):
        out.add(_norm(tag))
    return out


def _inside(path: str, roots: list[str]) -> bool:
    p = os.path.realpath(path)
    return any(os.path.commonpath([p, r]) == r for r in roots)


def _has_dockerfile(folder: str) -> bool:
    return any(os.path.isfile(os.path.join(folder, n)) for n in DOCKERFILES)


def image_folder(images: list[str], near: str, roots: list[str]) -> str | None:
    """The folder the workload's image is built from: a folder with a Dockerfile whose name is what an image says
    (:func:`image_names`), at most two levels below the folder of the file that declares the workload or one of
    its two parents, inside the run's ``roots``; None unless exactly one folder fits."""
    names = set().union(*(image_names(i) for i in images)) if images else set()
    if not names or not roots:
        return None
    roots = [os.path.realpath(r) for r in roots]
    bases, b = [], os.path.realpath(near)
    for _ in range(3):
        if _inside(b, roots):
            bases.append(b)
        parent = os.path.dirname(b)
        if parent == b:
            break
        b = parent
    found: set[str] = set()
    listed = 0
    for base in bases:
        level = [base]
        for _ in range(3):  # the base itself, its sub-folders, theirs
            nxt = []
            for folder in level:
                if _norm(os.path.basename(folder)) in names and _has_dockerfile(folder):
                    found.add(folder)
                try:
                    with os.scandir(folder) as it:
                        for e in it:
                            listed += 1
                            if listed > 20_000:
                                return None  # a tree too large to search for it: not known
                            if (
                                e.name not in SKIP
                                and not e.name.startswith(".")
                                and e.is_dir(follow_symlinks=False)
                            ):
                                nxt.append(e.path)
                except OSError:
                    continue
            level = nxt
    return found.pop() if len(found) == 1 else None


def scan(folder: str) -> tuple[str | None, str | None]:
    """(the first file naming a receive, the first naming a send) among the source files of ``folder`` (tests,
    vendored and built folders skipped), read through ``safe_io`` within :data:`MAX_FILES`/:data:`MAX_BYTES`; a
    folder of a framework that does both (Celery) counts as receiving."""
    from visguard.linter.loaders import safe_io

    receive = send = None
    files = total = 0
    for top, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in SKIP and not d.startswith("."))
        for n in sorted(names):
            if not n.endswith(SOURCE_ENDINGS):
                continue
            path = os.path.join(top, n)
            files += 1
            if files > MAX_FILES or total > MAX_BYTES:
                return receive, send
            try:
                data = safe_io.read_head(path)
            except Exception:  # noqa: BLE001 - unreadable, a FIFO, a link outside: not evidence either way
                continue
            total += len(data)
            if receive is None and any(m in data for m in RECEIVES + BOTH):
                receive = path
            if send is None and any(m in data for m in SENDS):
                send = path
            if receive is not None:
                return receive, send
    return receive, send


def verdict(
    c, near: str, roots: list[str], code_files: list[str]
) -> tuple[str | None, str | None, str | None]:
    """(``"receives"`` | ``"sends"`` | None, the file that says so, the image's folder) for workload consumer ``c``
    declared in a file of folder ``near``: its image's folder (``c.settings["images"]``) holds a code consumer of
    the run (``code_files``) or names a receive; it names only sends; or nothing is known."""
    folder = image_folder(list(c.settings.get("images") or ()), near, roots)
    if folder is None:
        return None, None, None
    for f in code_files:
        if os.path.commonpath([os.path.realpath(f), folder]) == folder:
            return "receives", f, folder
    receive, send = scan(folder)
    if receive is not None:
        return "receives", receive, folder
    if send is not None:
        return "sends", send, folder
    return None, None, folder
