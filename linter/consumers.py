"""Worker consumers (issues 24, 25): what names a queue, the environment a workload gets, and the one join of
consumers to queues across every input of a lint run.

Loaders read consumers where they are declared: an ECS task definition, a Beanstalk worker environment, a
pipe, a KEDA ScaledObject and its Deployment, an SDK receive call, a framework's configuration. A consumer whose
queue is a queue of the same input is attached to it by the loader (``Queue.consumers``). Otherwise the loader
leaves it in ``Model.pending`` with a :class:`QueueRef` (``Consumer.queue_ref``): a URL, an ARN, a name, or an
environment variable (application code reads ``os.environ["ORDERS_QUEUE_URL"]``). Inputs that give workloads
their environment (task definitions, Deployments, Beanstalk, ``.env`` and compose files) list it in
``Model.env`` as :class:`EnvBinding` records. :func:`join` then attaches every pending consumer to the queue its
reference names, in any model of the run; what stays unjoined becomes a note (VG902) naming the consumer and
the reference, so a clean run is never an unchecked one.

A join is a fact only when it is unique (issue 33, issue 35 §5). :class:`QueueIndex` holds the run's queues by
name, built once. A URL or an ARN fits only the queues of the account and Region it says where the queue's are
known (its ``account``/``region``, or those of its ARN: an inventory's queue); a queue whose account or Region is
not known (a template's, a Terraform root's) fits by its name alone. Of the queues that fit, those of the
consumer's own input win. A ``.env`` or compose file's binding applies to consumers in its folder and below, the
nearest folder's binding winning (as a ``.env`` loader reads it); a workload's own environment (an ECS
container, a Deployment) applies wherever its image's code is, and several of them (one per stage) join each.
Where a reference still fits several queues, none is chosen: a note (:func:`ambiguous_note`) names every
candidate with its place, and no rule judges nor fix edits any of them. A consumer joined through a binding keeps
where it is (``settings["queue_bindings"]``: queue id -> Location), which its findings carry as ``joined_by``. A Celery project's tasks often live in files with no
broker setting (tasks.py beside celeryconfig.py): their facts (delays, time limits, acks_late) are merged into
the SQS Celery apps configured in the same folder or a folder above or below (:func:`same_project`).

The declared processing time of a worker: a profile in visguard.yaml, or the annotation/tag
:data:`PROCESSING_P99_KEY` (``visguard.io/processing-p99: 20m``) on the task definition, Deployment, Beanstalk
environment or pipe; :func:`parse_duration` reads its value.
"""

from __future__ import annotations

import os
import re

from visguard.linter.model import PROCESSING_P50_KEY, PROCESSING_P99_KEY, Location, Model, Note, Queue  # noqa: F401
from visguard.records import REQUIRED, Value


class QueueRef(Value):
    """What a consumer names its queue by: ``kind`` url | arn | name | env (an environment variable's name,
    resolved through :class:`EnvBinding`) | id (a queue id of the consumer's own model) | output (``<stack>/<key>``:
    a stack's output, Serverless's ``${cf:..}``) | export (an export's name: ``Fn::ImportValue``); ``value`` as written;
    ``fallback``: for an environment variable, a QueueRef of the literal default the code writes
    (``os.environ.get("Q", "jobs")``), used when no input of the run sets the variable; ``private``: a name read
    from a file that holds secrets (a ``.env`` or compose file, :mod:`visguard.linter.loaders.code.envfiles`): it
    names a queue only when an input of the run declares a queue of that name, and is never printed or sent
    (``--queues-from aws`` does not look it up; ``str()`` says where it was read, not what)."""

    __slots__ = {"kind": REQUIRED, "value": REQUIRED, "location": None, "fallback": None, "private": False}

    def __str__(self) -> str:
        if self.private:
            loc = self.location
            return f"<the value at {loc.file}:{loc.line}>" if loc is not None else "<a value withheld>"
        return f"${self.value}" if self.kind == "env" else str(self.value)


class EnvBinding(Value):
    """An environment variable ``name`` an input gives a workload (``workload``: the task definition's
    container, the Deployment, the environment, the ``.env`` file), and the queue it names: ``queue`` (a queue
    id of the same model) or ``ref`` (a QueueRef of a URL/ARN/name written as a literal); ``folder``: the folder
    of the code it is given to, when the input says (a compose service's ``build`` context, a Lambda function's
    package: :mod:`visguard.linter.loaders.lambda_code`). A Lambda function's environment also says the function
    (``function``: its id), its timeout in seconds (``function_timeout``, where it is written:
    ``timeout_location``), its handler as written (``handler``) and the handler's file when known
    (``handler_file``): the code it binds runs in that function, which bounds its work. ``number``: the whole
    number a variable named as a consumer setting is given (``VISIBILITY_TIMEOUT=30``: :func:`setting_number`), for
    code that reads that setting from the variable; such a binding names no queue."""

    __slots__ = {
        "name": REQUIRED,
        "workload": None,
        "queue": None,
        "ref": None,
        "location": None,
        "folder": None,
        "function": None,
        "function_timeout": None,
        "timeout_location": None,
        "handler": None,
        "handler_file": None,
        "number": None,
    }


# A variable whose name says it is a consumer's setting (a timeout, a wait, a batch, a count of workers): its
# value, when a plain whole number, is kept (:func:`setting_number`); every other value that names no queue is
# neither kept nor printed (an input's environment also holds secrets).
_SETTING_WORDS = ("TIMEOUT", "VISIBILITY", "WAIT", "BATCH", "MAX_MESSAGES", "MAX_NUMBER", "CONCURRENCY", "POLL",
                  "INTERVAL", "SECONDS", "DELAY", "WORKERS", "PREFETCH", "HEARTBEAT", "EXTEND")  # fmt: skip
_WHOLE = re.compile(r"[0-9]{1,9}")


def setting_number(name: str, value) -> int | None:
    """The whole number (0 to 999999999) an environment variable named as a setting holds (``VISIBILITY_TIMEOUT``
    ``"30"`` or ``30``), else None."""
    if not isinstance(name, str) or not any(w in name.upper() for w in _SETTING_WORDS):
        return None
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value < 10**9 else None
    if isinstance(value, str) and _WHOLE.fullmatch(value.strip()):
        return int(value.strip())
    return None


# ----------------------------------------------------------------------------------------------- names
_URL = re.compile(r"^https?://(?:[^/]+)/(\d{12}|[^/]+)/([^/?#]+)/?$")
_ARN = re.compile(r"^arn:aws[a-z-]*:sqs:([^:]*):([^:]*):([^:/]+)$")


def queue_name_of(ref: QueueRef | str) -> str | None:
    """The queue name a URL, an ARN or a name says (None: not a queue name, e.g. an unresolved reference)."""
    value = ref.value if isinstance(ref, QueueRef) else ref
    if not isinstance(value, str) or not value or "${" in value or value.startswith("<"):
        return None
    m = _URL.match(value)
    if m:
        return m.group(2)
    m = _ARN.match(value)
    if m:
        return m.group(3)
    if re.fullmatch(r"[A-Za-z0-9_-]{1,80}(\.fifo)?", value):
        return value
    return None


def _queue_names(queue: Queue) -> set[str]:
    names = {n for n in (queue.name, queue_name_of(queue.arn) if queue.arn else None) if n}
    return names


_URL_HOST = re.compile(
    r"^https?://(?:sqs\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?|([a-z0-9-]+)\.queue\.amazonaws\.com)/"
)


_ACCOUNT, _REGION = re.compile(r"\d{12}"), re.compile(r"[a-z]{2}(?:-[a-z]+)+-\d{1,2}")


def _known(value: str | None, shape: re.Pattern) -> str | None:
    return value if value and shape.fullmatch(value) else None  # ${AWS::Region}, a placeholder: not known


def where_of(ref: QueueRef | str) -> tuple[str | None, str | None]:
    """(account, Region) a URL or an ARN says (None where it does not say, e.g. a LocalStack host's Region)."""
    value = ref.value if isinstance(ref, QueueRef) else ref
    if not isinstance(value, str):
        return None, None
    m = _ARN.match(value)
    if m:
        return _known(m.group(2), _ACCOUNT), _known(m.group(1), _REGION)
    m = _URL.match(value)
    if m:
        host = _URL_HOST.match(value)
        return _known(m.group(1), _ACCOUNT), _known(
            (host.group(1) or host.group(2)) if host else None, _REGION
        )
    return None, None


def _queue_where(q: Queue) -> tuple[str | None, str | None]:
    account, region = where_of(q.arn) if q.arn else (None, None)
    return q.account or account, q.region or region


def _fits(ref: QueueRef, q: Queue) -> bool:
    """A reference that says its account/Region names only a queue of that account/Region, when the queue's is
    known; a queue whose account/Region is not known (a template's) is matched by its name alone."""
    if ref.kind not in ("url", "arn"):
        return True
    said, have = where_of(ref), _queue_where(q)
    return all(x is None or y is None or x == y for x, y in zip(said, have, strict=True))


class QueueIndex:
    """The queues of a lint run by name (a queue's name and the name its ARN says), built once: each lookup costs
    the queues of that name only."""

    def __init__(self, models: list[Model]):
        self.by_name: dict[str, list[tuple[Model, Queue]]] = {}
        self.by_export: dict[str, list[tuple[Model, Queue]]] = {}  # "output:<stack>/<key>", "export:<name>"
        for m in models:
            for q in m.queues.values():
                for n in _queue_names(q):
                    self.by_name.setdefault(n, []).append((m, q))
                for e in q.exports:
                    if e.startswith("output:") and q.stack:
                        self.by_export.setdefault(f"output:{q.stack}/{e[7:]}", []).append((m, q))
                    elif e.startswith("export:"):
                        self.by_export.setdefault(e, []).append((m, q))

    def candidates(self, ref: QueueRef, home: Model | None) -> list[Queue]:
        """Every queue ``ref`` may name: an ARN's own queue first; else those of the name that fit the account
        and Region it says; of them, those of ``home`` (the consumer's own input) when it has any."""
        if ref.kind == "id":
            q = home.queues.get(ref.value) if home is not None else None
            return [q] if q is not None else []
        if ref.kind in ("output", "export"):  # another stack's output or export (${cf:..}, Fn::ImportValue)
            return _unique(q for _, q in self.by_export.get(f"{ref.kind}:{ref.value}", ()))
        name = queue_name_of(ref)
        found = [(m, q) for m, q in self.by_name.get(name, ()) if _fits(ref, q)] if name else []
        if ref.kind == "arn" and any(q.arn == ref.value for _, q in found):
            found = [(m, q) for m, q in found if q.arn == ref.value]
        own = [(m, q) for m, q in found if m is home]
        return _unique(q for _, q in own or found)


def _unique(queues) -> list[Queue]:
    out: list[Queue] = []
    for q in queues:
        if all(q is not x for x in out):
            out.append(q)
    return out


def find_queue(model: Model, ref: QueueRef) -> Queue | None:
    """The queue of ``model`` that ``ref`` names (an id, or a name/URL/ARN matched to the queue's name or ARN,
    in the account/Region a URL or ARN says); the first when several fit (the join names them all instead)."""
    found = QueueIndex([model]).candidates(ref, model)
    return found[0] if found else None


# ----------------------------------------------------------------------------------------------- durations
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)")
_UNIT = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86_400}


def parse_duration(value) -> float | None:
    """Seconds from ``20m``, ``90s``, ``1h30m``, ``1500ms``, ``600`` (seconds) or a number; None when it is not
    a duration (a caller reports it as bad input with its place)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value) if value >= 0 else None
    if not isinstance(value, str):
        return None
    text = value.strip().lower().replace(" ", "")
    if not text or len(text) > 32:
        return None
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return float(text)
    pos, total = 0, 0.0
    for m in _DURATION.finditer(text):
        if m.start() != pos:
            return None
        total += float(m.group(1)) * _UNIT[m.group(2)]
        pos = m.end()
    return total if pos == len(text) and pos else None


# ----------------------------------------------------------------------------------------------- the join
def _bindings(models: list[Model], numbers: bool = False) -> dict[str, list[tuple[Model, EnvBinding]]]:
    """The bindings of every variable, by name: those naming a queue (or set, to a value not known), or with
    ``numbers`` those giving a setting its number (EnvBinding.number)."""
    out: dict[str, list[tuple[Model, EnvBinding]]] = {}
    for m in models:
        for b in m.env:
            if (b.number is not None) == numbers:
                out.setdefault(b.name, []).append((m, b))
    return out


def _settings_from_env(models: list[Model], numbers: dict, homes: dict, through: list) -> None:
    """A setting the code reads from an environment variable (its default, or no value: ``Consumer.from_env``,
    written by the code readers, field -> [variable, seconds per unit]) is the number the consumer's environment gives
    that variable (the bindings that reach it, :func:`_applicable`), located there, when they agree on one; the
    reader's note that the default is used (or that the value is not read) is then dropped. A consumer joined to
    several queues by several workloads' environments (``through``: (consumer, queue, binding)) has, per queue,
    the number the workload that joined it gives, located there (``setting_for``, ``setting_at``: what
    ``Consumer.value_for`` and ``Consumer.location_of`` answer for that queue)."""
    consumers = {}
    for m in models:
        for c in [x for q in m.queues.values() for x in q.consumers] + m.unjoined:
            consumers.setdefault(id(c), c)
    joins: dict[int, list] = {}  # consumer -> [(queue, the binding that joined it)], once
    for x, q, joined in through:
        joins.setdefault(id(x), []).append((q, joined))
    stale = set()
    for c in consumers.values():
        for field, (var, scale) in list(c.from_env.items()):
            bound = _one_package(_applicable(numbers.get(var, []), c, homes), c)
            if not bound:
                continue
            was = c.locations.get(field)
            per_queue = {}
            for q, joined in joins.get(id(c), ()):
                same = [n for _, n in bound if _same_workload(n, joined)]
                if same:
                    per_queue[q.id] = same[0]
            given = {b.number for _, b in bound}
            if len(given) == 1:
                b = bound[0][1]
                _put(c, field, _seconds(b.number, scale))
                if b.location is not None:
                    c.locations[field] = b.location
            elif not per_queue:
                continue
            for qid, b in per_queue.items():
                c.settings.setdefault("setting_for", {}).setdefault(field, {})[qid] = _seconds(
                    b.number, scale
                )
                if b.location is not None:
                    c.settings.setdefault("setting_at", {}).setdefault(field, {})[qid] = b.location
            c.settings.setdefault("setting_bindings", {})[field] = var
            if was is not None:
                stale.add((was.file, was.line, var))
    if stale:
        for m in models:
            m.notes = [n for n in m.notes if not _about_env(n, stale)]


def _seconds(n: int, scale: float):
    value = n * scale
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _put(c, field: str, value) -> None:
    if field in type(c).__slots__:
        setattr(c, field, value)
    else:
        c.settings[field] = value


def _same_workload(a: EnvBinding, b: EnvBinding) -> bool:
    """Whether two bindings are given by one workload (one compose service, one container, one file's)."""
    fa = a.location.file if a.location is not None else None
    fb = b.location.file if b.location is not None else None
    return a.workload == b.workload and fa == fb


def _about_env(n: Note, stale: set) -> bool:
    """Whether note ``n`` is a reader's word on a setting read from a variable the environment now gives."""
    loc = n.location
    return loc is not None and any(
        (loc.file, loc.line) == (f, ln) and f"environment variable {var}" in n.message for f, ln, var in stale
    )


_COMPOSE = ("compose.yml", "compose.yaml", "docker-compose.yml", "docker-compose.yaml")


def binding_folder(b: EnvBinding) -> str | None:
    """The folder a ``.env`` or compose file's binding applies to (that folder and below, as a ``.env`` loader
    reads the nearest one; a compose service's build context when it has one: ``EnvBinding.folder``); None for every other binding: a workload's own environment (an ECS container, a
    Deployment, a Beanstalk environment) or a framework's configuration (Spring's ``src/main/resources`` is not
    above the code), which apply to the code its image runs, wherever it is."""
    if b.folder:  # a compose service's build context: its own code, not its neighbours'
        return os.path.abspath(b.folder)
    f = b.location.file if b.location is not None else None
    base = os.path.basename(f) if f else ""
    if not (base == ".env" or base.startswith(".env.") or base.endswith(".env") or base.endswith(_COMPOSE)):
        return None
    return os.path.dirname(os.path.abspath(f))


def _applicable(bound: list, c, homes: dict[str, str] | None = None) -> list:
    """The bindings of one variable that reach consumer ``c``: every workload's own (only where its code is, when
    the folder its image is built from is known: ``homes``), and the file bindings of the nearest folder at or
    above ``c``'s file (all of them when ``c``'s file is not known)."""
    here = _folder(c)
    own, files = [], []
    service = (getattr(c, "settings", None) or {}).get("service")
    if service is not None and c.location is not None:  # a process a compose service starts sees only its
        compose = os.path.abspath(c.location.file)  # own service's environment, never a sibling's
        mine = [(m, b) for m, b in bound
                if b.location is not None and os.path.abspath(b.location.file) == compose and b.workload == str(service)]  # fmt: skip
        if mine:  # its own service's: whatever folder the service is built from
            return mine
        bound = [
            (m, b) for m, b in bound if b.location is None or os.path.abspath(b.location.file) != compose
        ]
    for m, b in bound:
        f = binding_folder(b)
        if f is None:
            code = (homes or {}).get(b.workload) if b.workload else None
            if (
                code is not None
                and here is not None
                and os.path.commonpath([os.path.realpath(here), code]) != code
            ):
                continue  # the environment of a workload whose code is elsewhere
            own.append((m, b))
        elif here is None or os.path.commonpath([here, f]) == f:
            files.append((len(f), m, b))
    nearest = max((n for n, _, _ in files), default=None) if here is not None else None
    return own + [(m, b) for n, m, b in files if nearest is None or n == nearest]


def _resolve(ref: QueueRef, home: Model, index: QueueIndex, env, c, homes=None):
    """(joined, ambiguous, applied): the queues ``ref`` names, each with the binding that named it (an
    environment variable); the references that name several queues (binding or None, candidates); whether a
    binding of the run reached ``c`` (else the code's literal default is used)."""
    joined: list[tuple[Queue, EnvBinding | None]] = []
    ambiguous: list[tuple[EnvBinding | None, list[Queue]]] = []
    if ref.kind != "env":
        found = _nearest(index.candidates(ref, home), c)
        if len(found) == 1:
            joined.append((found[0], None))
        elif found:
            ambiguous.append((None, found))
        return joined, ambiguous, False
    bound = _one_package(_applicable(env.get(ref.value, []), c, homes), c)
    for m, b in bound:
        q = m.queues.get(b.queue) if b.queue is not None else None
        found = [q] if q is not None else _nearest(index.candidates(b.ref, m), c) if b.ref is not None else []
        if len(found) > 1:
            ambiguous.append((b, found))
        elif found and all(found[0] is not x for x, _ in joined):
            joined.append((found[0], b))
    if not bound and ref.fallback is not None:  # set for no process of this consumer: the code's default
        j, a, _ = _resolve(ref.fallback, home, index, env, c, homes)
        return j, a, False
    return joined, ambiguous, bool(bound)


def _nearest(found: list[Queue], c) -> list[Queue]:
    """Of several queues one reference fits, the one declared nearest above the consumer's file (issue 35 §5): a
    declaration in the consumer's folder or one of its ancestors applies to it, one in a sibling folder does not
    (``examples/a/init.sh`` and ``examples/b/init.sh`` each creating ``jobs`` for the ``main.go`` beside it), and of
    the ancestors the deepest. Two at that one folder, or none above the consumer (``infra/staging`` and
    ``infra/prod`` for ``src/worker.py``), leave every candidate."""
    here = _folder(c)
    if len(found) < 2 or here is None:
        return found
    depth: dict[int, int] = {}
    for q in found:
        f = q.location.file if q.location is not None else None
        d = os.path.dirname(os.path.abspath(f)) if f else None
        if d is not None and os.path.commonpath([d, here]) == d:
            depth[id(q)] = d.count(os.sep)
    if not depth:
        return found
    deepest = max(depth.values())
    near = [q for q in found if depth.get(id(q)) == deepest]
    return near if len(near) == 1 else found


def _one_package(bound: list, c) -> list:
    """Of the Lambda functions whose environments reach ``c`` (their package holds its file), those it runs in:
    the function whose handler is ``c``'s file when one is; else all of them when they run one handler (one
    function per stage: each is joined), else none when they bind different queues (several functions of one
    package, each with its handler: which one runs ``c``'s code is not known, issue 35 §5)."""
    functions = [(m, b) for m, b in bound if b.function is not None]
    if len({b.function for _, b in functions}) < 2:
        return bound
    rest = [(m, b) for m, b in bound if b.function is None]
    here = os.path.abspath(c.location.file) if c.location is not None and c.location.file else None
    mine = [(m, b) for m, b in functions if b.handler_file is not None and b.handler_file == here]
    if mine:
        return rest + mine
    one_handler = (
        None not in {b.handler for _, b in functions} and len({b.handler for _, b in functions}) == 1
    )
    if one_handler or len({(b.queue, b.ref and (b.ref.kind, b.ref.value)) for _, b in functions}) == 1:
        return bound
    c.settings["lambda_ambiguous"] = sorted({b.function for _, b in functions})
    return rest


def _workload_of(q: Queue, b: EnvBinding | None, c):
    """The consumer of ``q`` that runs the process ``c`` was read from: the ECS task definition, the
    Deployment, the Beanstalk environment whose environment variable ``b`` named the queue (None: not known)."""
    if b is None or not b.workload:
        return None
    for w in q.consumers:
        if w is not c and (
            w.id == b.workload
            or b.workload.startswith(f"{w.id}/")
            or w.settings.get("workload") == b.workload
        ):
            return w
    return None


def _in_function(c, b: EnvBinding) -> None:
    """Code whose environment is a Lambda function's runs in that function: its invocation (every message it
    receives in it) is bounded by the function's timeout, the consumer's limit on its work (``work_timeout``)."""
    c.settings.setdefault("function", b.function)
    t = b.function_timeout
    if c.work_timeout is None and isinstance(t, (int, float)) and not isinstance(t, bool) and t > 0:
        c.work_timeout = t
        if b.timeout_location is not None:
            c.locations["work_timeout"] = b.timeout_location


def _inherit(c, w) -> None:
    """Code read from a workload's image runs with the workload's declared processing time."""
    c.settings["workload"] = w.id
    for f in ("processing_p50", "processing_p99"):
        if getattr(c, f) is None and getattr(w, f) is not None:
            setattr(c, f, getattr(w, f))
            if f in w.locations:
                c.locations[f] = w.locations[f]


CODE_SOURCES = frozenset({"python", "javascript", "java", "go", "csharp", "php", "ruby", "rust", "kotlin"})


def _producers_out(models: list[Model], roots) -> dict[str, str]:
    """A workload only given a queue's URL (``settings["images"]``: a Deployment, an ECS container whose role does
    not grant receiving) is a consumer when its code receives: the folder its image is built from holds a code
    consumer of the run or names a receive (:mod:`visguard.linter.receiving`). One whose code only sends is no
    consumer: it leaves its queues and ``pending``. One whose code is not visible stays, ``receive_assumed``.
    Returns the folder of each workload's code where it is known (workload -> folder): its own environment
    applies to the code there only (:func:`_applicable`)."""
    workloads = [c for m in models for c in [*m.pending, *(c for q in m.queues.values() for c in q.consumers)]
                 if "images" in c.settings and c.kind == "worker"]  # fmt: skip
    if not workloads:
        return {}
    from visguard.linter import receiving

    code = [c.location.file for m in models for c in [*m.pending, *(c for q in m.queues.values() for c in q.consumers)]
            if c.source in CODE_SOURCES and c.location is not None and c.location.file]  # fmt: skip
    roots = [os.path.realpath(r) for r in roots or ()]
    senders: set[int] = set()
    homes: dict[str, str] = {}
    for c in workloads:
        near = os.path.dirname(os.path.abspath(c.location.file)) if c.location and c.location.file else None
        said, where, folder = receiving.verdict(c, near, roots, code) if near else (None, None, None)
        if folder is not None:
            homes[c.settings.get("workload") or c.id] = folder
        if said == "sends":
            senders.add(id(c))
        elif said == "receives":
            c.settings["receives_in"] = where
        else:
            c.settings["receive_assumed"] = True
    if senders:
        for m in models:
            m.pending = [c for c in m.pending if id(c) not in senders]
            for q in m.queues.values():
                q.consumers = [c for c in q.consumers if id(c) not in senders]
    return homes


def join(models: list[Model], roots=()) -> None:
    """Attach every pending consumer of ``models`` to the queue(s) its reference names (an environment variable
    bound to several queues, e.g. one per stage, joins each); an unjoined consumer becomes a note of its model.
    A workload only given a queue's URL whose code only sends is no consumer (:func:`_producers_out`; its code is
    looked for inside ``roots``, the paths the run was asked to lint). Idempotent: joined consumers leave
    ``pending``."""
    import sys

    manifests = sys.modules.get("visguard.linter.loaders.kubernetes")  # imported when a manifest was loaded
    if (
        manifests is not None
    ):  # a ScaledObject and the Deployment it scales may be in two inputs: read together
        manifests.link(models)
    if any(q.source == "code" for m in models for q in m.queues.values()):  # queues created at run time
        from visguard.linter.created_queues import settle

        settle(models)
    homes = _producers_out(models, roots)
    env = _bindings(models)
    index = QueueIndex(models)
    tasks_only = [(m, c) for m in models for c in m.pending if c.settings.get("celery_tasks_only")]
    for m in models:
        m.pending = [c for c in m.pending if not c.settings.get("celery_tasks_only")]
    through_env, unjoined = [], []
    for m in models:
        still = []
        for c in m.pending:
            ref = c.queue_ref
            queues, ambiguous, applied = (
                _resolve(ref, m, index, env, c, homes) if ref is not None else ([], [], False)
            )
            m.notes += [ambiguous_note(c, b, found) for b, found in ambiguous]
            if not queues:
                if ambiguous:
                    m.unjoined.append(c)
                else:
                    if ref is not None and ref.kind == "env" and not applied and ref.value in env:
                        c.settings["queue_env_elsewhere"] = [_place(b.location) for _, b in env[ref.value]]
                    elif (
                        ref is not None and ref.kind == "env" and applied
                    ):  # set, to a queue no input declares
                        named = [
                            f"{b.ref} ({_place(b.location)})"
                            for _, b in env.get(ref.value, [])
                            if b.ref is not None
                        ]
                        if named:
                            c.settings["queue_env_names"] = named[:MAX_NAMED]
                    still.append(c)
                continue
            if (
                ref.kind in ("output", "export") and ref.location is not None
            ):  # the note that the stack's output
                m.notes = [
                    n for n in m.notes if not _said_unknown(n, ref.location)
                ]  # is not known: it is joined
            if ref.kind == "env" and not applied:  # joined by the code's literal default
                c.settings["queue_fallback"] = ref.fallback.value
                if ref.fallback.location is not None:
                    c.locations["queue_fallback"] = ref.fallback.location
            for q, b in queues:
                if all(x is not c for x in q.consumers):
                    q.consumers.append(c)
                if b is not None:
                    through_env.append((c, q, b))
                    if b.location is not None:  # which binding made the join, per queue
                        c.settings.setdefault("queue_bindings", {})[q.id] = b.location
        unjoined.append((m, still))
    _merge_celery_tasks(tasks_only, models, [c for _, still in unjoined for c in still])
    for m, still in unjoined:
        m.notes += [unjoined_note(c) for c in still]
        m.unjoined += still
    for m in models:
        m.pending = []
    for c, q, b in through_env:  # once every consumer is attached: the workload may have been pending too
        if b.function is not None:
            _in_function(c, b)
        w = _workload_of(q, b, c)
        if w is not None:
            _inherit(c, w)
    numbers = _bindings(models, numbers=True)
    if numbers:
        _settings_from_env(models, numbers, homes, through_env)
    _fold_laravel_connections(models)


MAX_NAMED = 4  # the values a note names that a variable is set to


def _said_unknown(n: Note, at: Location) -> bool:
    """Whether note ``n`` says the stack output or import at ``at`` is not known (said before the join found it)."""
    loc = n.location
    return (
        loc is not None
        and (loc.file, loc.line) == (at.file, at.line)
        and ("${cf" in n.message or "Fn::ImportValue" in n.message)
    )


def _fold_laravel_connections(models: list[Model]) -> None:
    """A Laravel ``config/queue.php`` connection stands for its application's worker only while no worker command
    of that application is visible. Once ``php artisan queue:work <connection>`` is (a Procfile line, a compose
    service's or a container's command), that command is the process that receives, with its own work limit,
    and the connection's record is no consumer of its own: it leaves every queue it was joined to (it was
    joined through every service's environment, a web service's that only sends included). Same application:
    the folder above ``config/`` and the worker's (a compose service's build context, else its file's folder)
    are one in the other (:func:`same_project`), or the worker is the workload whose environment joined the
    connection; same connection: the command names
    it, or names none (the default connection)."""
    queues = [q for m in models for q in m.queues.values()]
    configs = {id(c): c for q in queues for c in q.consumers if c.settings.get("laravel_connection")}
    if not configs:
        return
    workers = [c for q in queues for c in q.consumers
               if c.platform == "laravel" and not c.settings.get("laravel_connection")
               or c.settings.get("framework") == "laravel"]  # fmt: skip
    folded = set()
    for key, cfg in configs.items():
        app = os.path.dirname(_folder(cfg) or "")
        for w in workers:
            conn = w.settings.get("connection")
            if conn is not None and conn != cfg.settings.get("connection"):
                continue
            here = w.settings.get("build_context") or _folder(w)
            workload = cfg.settings.get("workload")
            if (workload is not None and workload in (w.id, w.settings.get("workload"))) or (
                app and here and same_project(app, here)
            ):
                folded.add(key)
                break
    if folded:
        for q in queues:
            q.consumers = [c for c in q.consumers if id(c) not in folded]


def _folder(c) -> str | None:
    loc = c.location
    return os.path.dirname(os.path.abspath(loc.file)) if loc is not None and loc.file else None


def same_project(config_dir: str, tasks_dir: str) -> bool:
    """A Celery app configured in ``config_dir`` runs the tasks of ``tasks_dir``: one folder is the other or
    one of its ancestors (app/celeryconfig.py with app/tasks.py or app/tasks/*.py; proj/settings.py with
    proj/app/tasks.py; tasks.py at the root of the repository with app/celery.py). Two sibling folders
    (services/a, services/b) are two projects."""
    return os.path.commonpath([config_dir, tasks_dir]) in (config_dir, tasks_dir)


def _merge_celery_tasks(tasks_only, models: list[Model], unjoined) -> None:
    """Merge each tasks-only Celery consumer (a file of tasks with no broker: ``settings["celery_tasks_only"]``)
    into every SQS Celery app of the run configured in the same project (:func:`same_project`): its delays are
    added (at their own places), the larger work_timeout is kept (with its place), acks_late is or-ed, and its
    notes about computed values join its model's. A tasks-only consumer is never attached to a queue nor noted:
    with no SQS app of its project its broker is not SQS, or not known."""
    if not tasks_only:
        return
    apps, seen = [], set()
    for c in [c for m in models for q in m.queues.values() for c in q.consumers] + list(unjoined):
        if c.platform == "celery" and not c.settings.get("celery_tasks_only") and id(c) not in seen:
            seen.add(id(c))
            apps.append(c)
    for m, t in tasks_only:
        tasks_dir = _folder(t)
        targets = [a for a in apps if tasks_dir and _folder(a) and same_project(_folder(a), tasks_dir)]
        for a in targets:
            _merge_into(a, t)
        if targets:
            m.notes += t.settings.get("celery_tasks_notes") or []


def _merge_into(a, t) -> None:
    merged = a.settings.setdefault("celery_tasks_merged", [])
    if t.id in merged:
        return
    merged.append(t.id)
    if t.settings.get("delays"):
        a.settings["delays"] = list(a.settings.get("delays") or []) + list(t.settings["delays"])
        a.locations.setdefault("delays", t.locations.get("delays"))
    if t.work_timeout is not None and (a.work_timeout is None or t.work_timeout > a.work_timeout):
        a.work_timeout, a.locations["work_timeout"] = t.work_timeout, t.locations.get("work_timeout")
    if t.settings.get("acks_late") is True and a.settings.get("acks_late") is not True:
        a.settings["acks_late"], a.locations["acks_late"] = True, t.locations.get("acks_late")


def unjoined_note(c) -> Note:
    ref = c.queue_ref
    what = f"{c.platform or c.kind} consumer {c.id}"
    if ref is None and c.settings.get("queue_unknown"):
        why = f"its queue is {c.settings['queue_unknown']}, a value not known here"
    elif ref is None:
        why = "it names no queue visguard can read"
    elif c.settings.get("lambda_ambiguous"):
        why = (f"its queue comes from the environment variable {ref.value}, which several Lambda functions of its "
               f"package set to different queues ({', '.join(c.settings['lambda_ambiguous'])}), and none has "
               "its file as handler: which one runs it is not known")  # fmt: skip
    elif ref.kind == "env" and c.settings.get("queue_env_elsewhere"):
        places = ", ".join(c.settings["queue_env_elsewhere"])
        why = (f"its queue comes from the environment variable {ref.value}, which only files of other folders "
               f"set ({places}): a .env or compose file applies to its own folder and below, a Lambda "
               "function's environment to its package's")  # fmt: skip
    elif ref.kind == "env" and c.settings.get("queue_env_names"):
        names = ", ".join(c.settings["queue_env_names"])
        why = (f"its queue comes from {ref.value}, set to {names}, a queue no input of this run declares (lint "
               "the queue's template, Terraform or script in the same run)")  # fmt: skip
    elif ref.kind == "env":
        why = f"its queue comes from the environment variable {ref.value}, which no input of this run sets"
    else:
        why = f"its queue {ref.value} is not declared in any input of this run"
    loc = c.location or (ref.location if ref is not None else None) or Location("<unknown>")
    return Note(
        f"{what} was not checked against a queue: {why}",
        loc,
        c.id,
        fix="Lint the queue's template or Terraform in the same run, set the variable where the workload gets "
        "its environment (.env, compose, the ECS task definition, the Deployment), or give the deployed queues: "
        "--queues-from INVENTORY_DIR (visguard audit collect) or --queues-from aws.",
    )


def _place(loc: Location | None) -> str:
    if loc is None or not loc.file:
        return "<unknown>"
    return f"{loc.file}:{loc.line}" if loc.line else loc.file


def ambiguous_note(c, b: EnvBinding | None, found: list[Queue]) -> Note:
    """No queue chosen: ``c``'s reference (through binding ``b``) fits every queue of ``found``; each named."""
    ref = b.ref if b is not None and b.ref is not None else c.queue_ref
    via = f" (through {b.name} at {_place(b.location)})" if b is not None else ""
    names = ", ".join(f"{q.id} at {_place(q.location)}" for q in found)
    loc = c.location or (ref.location if ref is not None else None) or Location("<unknown>")
    return Note(
        f"{c.platform or c.kind} consumer {c.id} was not checked against a queue: its queue {ref}{via} fits {len(found)} queues "
        f"of this run ({names}): none is chosen",
        loc,
        c.id,
        fix=_AMBIGUOUS_FIX[ref is not None and ref.kind in ("url", "arn")],
    )


_AMBIGUOUS_FIX = {  # does the reference already give an account and Region?
    False: "Name the queue by its URL or ARN (with its account and Region), or lint each environment in its own "
    "run (or --exclude the others), so that one queue fits.",
    True: "The queues that fit declare no account or Region to tell them apart: lint each environment in its own run "
    "(or --exclude the others), so that one queue fits.",
}
