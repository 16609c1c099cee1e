"""Python consumers (issue 25): boto3/botocore/aioboto3 receive sites and Celery/Kombu apps on SQS, read from
the tree-sitter-python syntax tree (no regular expressions over code).

SDK: every ``<client>.receive_message(QueueUrl=..., VisibilityTimeout=..., ...)`` (awaited or not) and resource
``<queue>.receive_messages(...)`` (the queue from ``sqs.Queue(url)`` / ``get_queue_by_name(QueueName=...)``) is
one consumer. A ``change_message_visibility(_batch)`` / ``message.change_visibility`` call in the same file that
does not only set 0 (a release) is its heartbeat.

Celery: the file's broker settings (``Celery(broker=...)``, ``app.conf.update(...)``, ``app.conf.<key> = ...``,
``celeryconfig.py`` and Django ``CELERY_*`` module-level names, a config dict ``{"broker_url": ...}``), task
decorators (``@app.task(time_limit=..., acks_late=...)``) and delays (``apply_async(countdown=/eta=)``,
``retry(countdown=)``, ``default_retry_delay``, ``retry_backoff_max``) make one consumer per app, or one per
``predefined_queues`` entry, when the broker is SQS.

Values: literals, literal arithmetic, names assigned once in the file (not a function's parameter),
``os.environ["X"]`` / ``os.getenv("X", default)`` (the queue is then ``$X``; a number uses the literal default),
``int(...)``, ``timedelta(...)``. Anything else is left None and named in a note.
"""

from __future__ import annotations

from visguard import facts
from visguard.linter.consumers import QueueRef
from visguard.linter.model import Consumer, Location, Note

from . import CodeResult, parse
from ._poly import walk

EXTENSIONS = (".py",)

MAX_DEPTH = 40  # nested expressions evaluated (a name's value counts one level)
MAX_SCAN = 4_000  # nodes looked at around one call (a batch's entries, a heartbeat loop)

_UNKNOWN = object()  # not evident from the code
_AWS_MODULES = {"boto3", "botocore", "aioboto3", "aiobotocore"}
_RECEIVE_KEYS = {
    "QueueUrl",
    "VisibilityTimeout",
    "WaitTimeSeconds",
    "MaxNumberOfMessages",
    "AttributeNames",
    "MessageAttributeNames",
    "MessageSystemAttributeNames",
    "ReceiveRequestAttemptId",
}
_EXTEND = {"change_message_visibility", "change_message_visibility_batch", "change_visibility"}
_DELAY_CALLS = {"apply_async", "retry", "send_task", "set", "signature", "s", "si"}
_NOW = {"now", "utcnow", "today"}
_TIMEDELTA = {
    "weeks": 604_800,
    "days": 86_400,
    "hours": 3_600,
    "minutes": 60,
    "seconds": 1,
    "milliseconds": 0.001,
}
_TIMEDELTA_POS = ("days", "seconds", "microseconds", "milliseconds", "minutes", "hours", "weeks")
_ENV_CALLS = {"os.getenv", "getenv", "os.environ.get", "environ.get", "env", "config"}

# Celery settings read, under every spelling: the Celery 4+ name, Django's CELERY_ namespace, the Celery 3 name
_CELERY_NEW = (
    "broker_url",
    "broker_transport",
    "broker_transport_options",
    "task_time_limit",
    "task_soft_time_limit",
    "task_acks_late",
    "worker_prefetch_multiplier",
    "task_default_queue",
)
_CELERY_OLD = {
    "BROKER_URL": "broker_url",
    "BROKER_TRANSPORT": "broker_transport",
    "BROKER_TRANSPORT_OPTIONS": "broker_transport_options",
    "CELERYD_TASK_TIME_LIMIT": "task_time_limit",
    "CELERYD_TASK_SOFT_TIME_LIMIT": "task_soft_time_limit",
    "CELERY_ACKS_LATE": "task_acks_late",
    "CELERYD_PREFETCH_MULTIPLIER": "worker_prefetch_multiplier",
    "CELERY_DEFAULT_QUEUE": "task_default_queue",
}
_CELERY_KEYS = {
    **{k: k for k in _CELERY_NEW},
    **{"CELERY_" + k.upper(): k for k in _CELERY_NEW},
    **_CELERY_OLD,
}
# broker_transport_options keys only Kombu's SQS transport reads (visibility_timeout is Redis's too)
_SQS_OPTIONS = {"predefined_queues", "region", "queue_name_prefix", "wait_time_seconds", "sts_role_arn"}
_TASK_DECORATORS = {"task", "shared_task"}
# words every construct read here contains (a receive call, a broker setting under any spelling)
_MARKERS = (
    b"receive_message",
    b"broker",
    b"BROKER",
    b"Celery",
    b"countdown",
    b"eta=",
    b"time_limit",
    b"acks_late",
)
_MARKERS += (b"retry_delay", b"retry_backoff_max")  # a task's facts in a file of tasks only
_CELERY_DEFAULT_QUEUE = "celery"  # task_default_queue's default (docs.celeryq.dev userguide/configuration)


def read(path: str, data: bytes) -> CodeResult:
    """The consumers ``data`` (a Python file at ``path``) declares; never raises on odd code."""
    if not any(marker in data for marker in _MARKERS):  # nothing to read: no parse
        return CodeResult()
    root = _parse(data)
    if root is None:
        message = "python: the parser gave up recovering from syntax errors; no consumer read"
        return CodeResult(notes=[Note(message, Location(path, 1))])
    f = _File(path, data, root)
    consumers = _sdk(f) + _celery(f)
    return CodeResult(consumers=consumers, notes=f.notes)


def _parse(data: bytes):
    return parse("python", data)


class _File:
    """One parsed file: its calls (with the called name), assignments (by the text of their target), imports,
    and the notes written while reading it."""

    def __init__(self, path: str, data: bytes, root):
        self.path, self.data = path, data
        self.ascii = data.isascii()
        self.notes: list[Note] = []
        self.calls: list[tuple[object, str]] = []
        self.assigns: dict[str, list] = {}  # target text -> right-hand nodes, in file order
        self.assign_nodes: list = []
        self.imports: set[str] = set()
        self._memo: dict[str, tuple] = {}
        self._busy: set[str] = set()
        self._noted: set[tuple[str, Location]] = set()
        for node in walk(root):
            t = node.type
            if t == "call":
                fn = node.child_by_field_name("function")
                if fn is not None and fn.type == "attribute":
                    fn = fn.child_by_field_name("attribute")
                if fn is not None and fn.type == "identifier":
                    self.calls.append((node, self.text(fn)))
            elif t == "assignment":
                left, right = node.child_by_field_name("left"), _right(node)
                if left is not None and right is not None:
                    self.assigns.setdefault(self.text(left), []).append(right)
                    self.assign_nodes.append((node, left, right))
            elif t in ("import_statement", "import_from_statement"):
                for child in node.named_children:
                    if child.type in ("dotted_name", "aliased_import"):
                        self.imports.add(self.text(child).split(".")[0])
        self.aws = bool(self.imports & _AWS_MODULES)

    # -------------------------------------------------------------------------------------------- places
    def text(self, node) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def loc(self, node) -> Location:
        row, col = node.start_point
        if not self.ascii and col:
            start = node.start_byte
            col = len(self.data[start - col : start].decode("utf-8", "replace"))
        return Location(self.path, row + 1, col + 1)

    def note(self, node, message: str, address: str | None = None) -> None:
        loc = self.loc(node)
        if (message, loc) not in self._noted:
            self._noted.add((message, loc))
            self.notes.append(Note(message, loc, address))

    def shown(self, node) -> str:
        text = " ".join(self.text(node).split())
        return text if len(text) <= 80 else text[:77] + "..."

    # -------------------------------------------------------------------------------------------- arguments
    def kwargs(self, call) -> dict[str, object]:
        """Keyword arguments of ``call`` -> their keyword_argument node (``**{...}`` / ``**name`` of a dict
        literal included, keyed to the dict's pair)."""
        out: dict[str, object] = {}
        args = call.child_by_field_name("arguments")
        for child in args.named_children if args is not None else ():
            if child.type == "keyword_argument":
                name = child.child_by_field_name("name")
                if name is not None:
                    out[self.text(name)] = child
            elif child.type == "dictionary_splat" and child.named_children:
                d, _ = self.value(child.named_children[0])
                if isinstance(d, _Dict):
                    out.update(d.pairs)
        return out

    def positional(self, call) -> list:
        args = call.child_by_field_name("arguments")
        if args is None:
            return []
        return [
            c
            for c in args.named_children
            if c.type not in ("keyword_argument", "dictionary_splat", "comment")
        ]

    # -------------------------------------------------------------------------------------------- values
    def value(self, node, depth: int = 0) -> tuple[object, str | None]:
        """(value, environment variable) of an expression: the value is ``_UNKNOWN`` when the code computes it
        (or, for an environment variable, when no literal default is written)."""
        if node is None or depth > MAX_DEPTH:
            return _UNKNOWN, None
        t = node.type
        if t in ("keyword_argument", "pair"):
            return self.value(node.child_by_field_name("value"), depth + 1)
        if t == "integer":
            try:
                return int(self.text(node).rstrip("lLjJ"), 0), None
            except ValueError:
                return _UNKNOWN, None
        if t == "float":
            try:
                return float(self.text(node)), None
            except ValueError:
                return _UNKNOWN, None
        if t in ("true", "false"):
            return t == "true", None
        if t == "none":
            return None, None
        if t == "string":
            return self.string(node), None
        if t == "concatenated_string":
            parts = [self.string(c) for c in node.named_children if c.type == "string"]
            return ("".join(parts) if all(isinstance(p, str) for p in parts) else _UNKNOWN), None
        if t == "parenthesized_expression" and node.named_children:
            return self.value(node.named_children[0], depth + 1)
        if t == "unary_operator":
            v, env = self.value(node.child_by_field_name("argument"), depth + 1)
            op = self.text(node.child_by_field_name("operator"))
            if _number(v) and op in ("-", "+"):
                return (-v if op == "-" else v), env
            return _UNKNOWN, env
        if t == "binary_operator":
            return self.arithmetic(node, depth)
        if t in ("identifier", "attribute"):
            return self.name_value(node, depth)
        if t == "subscript":
            return self.subscript(node, depth)
        if t == "call":
            return self.call_value(node, depth)
        if t == "dictionary":
            return _Dict(self, node), None
        if t in ("list", "tuple"):
            return [c for c in node.named_children if c.type != "comment"], None
        return _UNKNOWN, None

    def string(self, node):
        if any(c.type == "interpolation" for c in node.named_children):
            return _UNKNOWN
        start = node.child(0)
        if start is not None and "b" in self.text(start).lower():
            return _UNKNOWN
        return "".join(self.text(c) for c in node.named_children if c.type == "string_content")

    def arithmetic(self, node, depth: int):
        op = self.text(node.child_by_field_name("operator"))
        a, env_a = self.value(node.child_by_field_name("left"), depth + 1)
        b, env_b = self.value(node.child_by_field_name("right"), depth + 1)
        env = env_a or env_b
        if isinstance(a, str) and isinstance(b, str) and op == "+":
            return a + b, env
        if not (_number(a) and _number(b)):
            return _UNKNOWN, env
        try:
            if op == "+":
                return a + b, env
            if op == "-":
                return a - b, env
            if op == "*":
                return a * b, env
            if op == "/" and b:
                return a / b, env
            if op == "//" and b:
                return a // b, env
            if op == "**" and abs(b) <= 64:
                return a**b, env
        except (OverflowError, ValueError):
            pass
        return _UNKNOWN, env

    def resolve(self, node):
        """The one expression a name (``X``, ``self.queue_url``) is assigned in this file, or None (not
        assigned, assigned different values, or a parameter of the enclosing function)."""
        if node.type == "identifier" and _is_parameter(node, self):
            return None
        rights = self.assigns.get(self.text(node))
        if not rights:
            return None
        first = self.text(rights[0])
        if any(self.text(r) != first for r in rights[1:]):
            return None
        return rights[0]

    def deref(self, node, depth: int = 0):
        """``node`` after following names to the one expression they are assigned."""
        seen: set[str] = set()
        while node is not None and node.type in ("identifier", "attribute") and len(seen) < MAX_DEPTH:
            key = self.text(node)
            if key in seen:
                return node
            seen.add(key)
            right = self.resolve(node)
            if right is None:
                return node
            node = right
        return node

    def name_value(self, node, depth: int):
        key = self.text(node)
        if node.type == "identifier" and _is_parameter(node, self):
            return _UNKNOWN, None
        if key in self._memo:
            return self._memo[key]
        if key in self._busy:
            return _UNKNOWN, None
        right = self.resolve(node)
        if right is None:
            return _UNKNOWN, None
        self._busy.add(key)
        try:
            out = self.value(right, depth + 1)
        finally:
            self._busy.discard(key)
        self._memo[key] = out
        return out

    def subscript(self, node, depth: int):
        obj = node.child_by_field_name("value")
        keys = node.children_by_field_name("subscript")
        if obj is None or len(keys) != 1:
            return _UNKNOWN, None
        key, _ = self.value(keys[0], depth + 1)
        if self.text(obj) in ("os.environ", "environ"):
            return (_UNKNOWN, key) if isinstance(key, str) else (_UNKNOWN, None)
        d, _ = self.value(obj, depth + 1)
        if isinstance(d, _Dict) and isinstance(key, str) and key in d.pairs:
            return self.value(d.pairs[key], depth + 1)
        return _UNKNOWN, None

    def env_call(self, call):
        """(variable, default node) of ``os.getenv("X", d)`` / ``os.environ.get`` / ``env.int("X", default=d)``."""
        fn = self.text(call.child_by_field_name("function"))
        if fn not in _ENV_CALLS and not fn.startswith("env."):
            return None
        args = self.positional(call)
        name, _ = self.value(args[0]) if args else (_UNKNOWN, None)
        if not isinstance(name, str) or not name:
            return None
        default = args[1] if len(args) > 1 else self.kwargs(call).get("default")
        return name, default

    def call_value(self, call, depth: int):
        fn = call.child_by_field_name("function")
        name = _last(self.text(fn)) if fn is not None else ""
        env = self.env_call(call)
        if env is not None:
            var, default = env
            v, _ = self.value(default, depth + 1) if default is not None else (_UNKNOWN, None)
            return v, var
        args = self.positional(call)
        if name in ("int", "float", "str") and len(args) == 1:
            v, var = self.value(args[0], depth + 1)
            try:
                if v is _UNKNOWN or v is None or isinstance(v, (_Dict, list)):
                    return _UNKNOWN, var
                return {"int": int, "float": float, "str": str}[name](v), var
            except (ValueError, OverflowError, TypeError):
                return _UNKNOWN, var
        if name == "timedelta":
            return self.timedelta(call, args, depth)
        if name == "dict" and not args:
            return _Dict(self, None, self.kwargs(call)), None
        return _UNKNOWN, None

    def timedelta(self, call, args, depth: int):
        total = 0.0
        named = [(k, self.value(v, depth + 1)[0]) for k, v in self.kwargs(call).items()]
        for unit, node in zip(_TIMEDELTA_POS, args, strict=False):
            named.append((unit, self.value(node, depth + 1)[0]))
        for unit, v in named:
            if not _number(v):
                return _UNKNOWN, None
            total += v * (_TIMEDELTA.get(unit) or (1e-6 if unit == "microseconds" else 0))
        return total, None

    # -------------------------------------------------------------------------------------------- queues
    def queue_ref(self, node, name_kind: bool = False) -> QueueRef | None:
        """What a QueueUrl/QueueName/url argument names: a literal, ``$VAR``, or a get_queue_url result."""
        target = node.child_by_field_name("value") if node.type in ("keyword_argument", "pair") else node
        target = self.deref(target)
        where = self.loc(node)
        call = self.get_queue_url(target)
        if call is not None:
            qn = self.kwargs(call).get("QueueName")
            return self.queue_ref(qn, name_kind=True) if qn is not None else None
        v, env = self.value(target)
        if env:
            fallback = None
            if isinstance(v, str) and v:  # os.environ.get("Q", "<literal default>")
                fallback = QueueRef("name" if name_kind else _ref_kind(v), v, where)
            return QueueRef("env", env, where, fallback)
        if isinstance(v, str) and v:
            kind = "name" if name_kind else _ref_kind(v)
            return QueueRef(kind, v, where)
        return None

    def get_queue_url(self, node):
        """The ``get_queue_url(...)`` call of ``x.get_queue_url(...)["QueueUrl"]`` / ``.get("QueueUrl")``."""
        if node is None:
            return None
        if node.type == "await" and node.named_children:
            node = node.named_children[0]
        inner = None
        if node.type == "subscript":
            inner = node.child_by_field_name("value")
        elif node.type == "call":
            fn = node.child_by_field_name("function")
            if fn is not None and fn.type == "attribute" and _last(self.text(fn)) == "get":
                inner = fn.child_by_field_name("object")
        if inner is not None:
            inner = self.deref(inner)
            if inner.type == "await" and inner.named_children:
                inner = inner.named_children[0]
            if (
                inner.type == "call"
                and _last(self.text(inner.child_by_field_name("function"))) == "get_queue_url"
            ):
                return inner
        return None

    def resource_queue(self, receiver):
        """QueueRef of a resource ``Queue`` object (``sqs.Queue(url)``, ``get_queue_by_name(QueueName=)``);
        False when the receiver is not such an object."""
        node = self.deref(receiver)
        if node is not None and node.type == "await" and node.named_children:
            node = node.named_children[0]
        if node is None or node.type != "call":
            return False
        name = _last(self.text(node.child_by_field_name("function")))
        kw = self.kwargs(node)
        if name == "Queue":
            args = self.positional(node)
            arg = kw.get("url") or (args[0] if args else None)
            return self.queue_ref(arg) if arg is not None else None
        if name in ("get_queue_by_name", "create_queue"):
            qn = kw.get("QueueName")
            return self.queue_ref(qn, name_kind=True) if qn is not None else None
        return False


class _Dict:
    """A dictionary literal (or ``dict(k=v)``): string key -> its pair node, evaluated on demand."""

    __slots__ = ("pairs",)

    def __init__(self, f: _File, node, pairs: dict | None = None):
        self.pairs: dict[str, object] = dict(pairs or {})
        for child in node.named_children if node is not None else ():
            if child.type == "pair":
                key, _ = f.value(child.child_by_field_name("key"))
                if isinstance(key, str):
                    self.pairs[key] = child
            elif child.type == "dictionary_splat" and child.named_children:
                d, _ = f.value(child.named_children[0])
                if isinstance(d, _Dict):
                    self.pairs.update(d.pairs)


def _right(assign):
    right = assign.child_by_field_name("right")
    while right is not None and right.type == "assignment":  # a = b = 1
        right = right.child_by_field_name("right")
    return right


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _tidy(v):
    """7200.0 -> 7200 (a timedelta's or a division's whole seconds)."""
    return int(v) if isinstance(v, float) and v.is_integer() else v


def _last(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def _ref_kind(value: str) -> str:
    if value.startswith(("https://", "http://")):
        return "url"
    if value.startswith("arn:"):
        return "arn"
    return "name"


def _enclosing(node, types: tuple[str, ...], stop: tuple[str, ...] = ()):
    n = node.parent
    for _ in range(256):
        if n is None or n.type in stop:
            return None
        if n.type in types:
            return n
        n = n.parent
    return None


def _is_parameter(node, f: _File) -> bool:
    """True when identifier ``node`` is a parameter of a function (or lambda) around it."""
    name = f.text(node)
    n = node.parent
    for _ in range(256):
        if n is None:
            return False
        if n.type in ("function_definition", "lambda"):
            params = n.child_by_field_name("parameters")
            for p in params.named_children if params is not None else ():
                ident = (
                    p if p.type == "identifier" else (p.child_by_field_name("name") or _first_identifier(p))
                )
                if ident is not None and f.text(ident) == name:
                    return True
        n = n.parent
    return False


def _has_splat(call) -> bool:
    args = call.child_by_field_name("arguments")
    return args is not None and any(c.type == "dictionary_splat" for c in args.named_children)


def _first_identifier(node):
    for c in node.named_children:
        if c.type == "identifier":
            return c
    return None


def _in_function(node) -> bool:
    return _enclosing(node, ("function_definition", "lambda")) is not None


def _walk(node, limit: int = MAX_SCAN):
    """Nodes under ``node`` (itself included), at most ``limit`` of them, without recursion."""
    stack, seen = [node], 0
    while stack and seen < limit:
        n = stack.pop()
        seen += 1
        yield n
        stack.extend(reversed(n.children))


# ------------------------------------------------------------------------------------------------ SDK receives
def _sdk(f: _File) -> list[Consumer]:
    extends = [(call, name) for call, name in f.calls if name in _EXTEND]
    beats = [(call, name) for call, name in extends if not _releases_only(f, call, name)]
    heartbeat = bool(beats)
    interval = extend_by = None
    for call, _ in beats:
        if interval is None:
            interval = _heartbeat_interval(f, call)
        if extend_by is None:
            v, _ = f.value(f.kwargs(call).get("VisibilityTimeout"))
            extend_by = v if _number(v) else None
    out = []
    for call, name in f.calls:
        if name not in ("receive_message", "receive_messages"):
            continue
        kw = f.kwargs(call)
        aws_keys = bool(kw.keys() & _RECEIVE_KEYS)
        ref = None
        if name == "receive_message":
            # the SDK's requires QueueUrl: a call without it (nor a ``**dict``) is a wrapper's or another library's
            if "QueueUrl" in kw:
                ref = f.queue_ref(kw["QueueUrl"])
            elif not (f.aws and _has_splat(call)):
                continue
        else:
            fn = call.child_by_field_name("function")
            receiver = fn.child_by_field_name("object") if fn.type == "attribute" else None
            ref = f.resource_queue(receiver) if receiver is not None else False
            if ref is False:
                if not (aws_keys or (f.aws and not any(k[:1].islower() for k in kw))):
                    continue
                ref = None
        out.append(_sdk_consumer(f, call, kw, ref, heartbeat, interval, extend_by, beats))
    return out


def _sdk_consumer(f: _File, call, kw, ref, heartbeat, interval, extend_by, beats) -> Consumer:
    loc = f.loc(call)
    cid = f"{f.path}:{loc.line}"
    c = Consumer(
        cid, "worker", location=loc, platform="sdk", source="python", queue_ref=ref, heartbeat=heartbeat
    )
    if ref is not None:
        c.locations["queue_ref"] = ref.location
    if heartbeat:
        c.locations["heartbeat"] = f.loc(beats[0][0])
        if interval is not None:
            c.heartbeat_interval, c.locations["heartbeat_interval"] = interval
        if extend_by is not None:
            c.heartbeat_extend_by = extend_by
    vt = kw.get("VisibilityTimeout")
    if vt is not None:
        c.visibility_override = _seconds(f, vt, "the VisibilityTimeout of this receive", cid)
        c.locations["visibility_override"] = f.loc(vt)
    for key, setting in (("WaitTimeSeconds", "wait_time"), ("MaxNumberOfMessages", "max_messages")):
        if key in kw:
            v = _seconds(f, kw[key], f"the {key} of this receive", cid)
            if v is not None:
                c.settings[setting] = v
                c.locations[setting] = f.loc(kw[key])
    return c


def _seconds(f: _File, node, what: str, address: str):
    """A number the code writes (literal, constant, environment default), else None and a note."""
    v, env = f.value(node)
    if _number(v):
        if env:
            f.note(
                node, f"{what} comes from the environment variable {env}; its default {v:g} is used", address
            )
        return _tidy(v)
    if env:
        f.note(
            node,
            f"{what} comes from the environment variable {env}, which sets no default here: not checked",
            address,
        )
    else:
        f.note(node, f"{what} is computed ({f.shown(node)}): visguard does not guess it", address)
    return None


def _releases_only(f: _File, call, name: str) -> bool:
    """True when a change-visibility call only sets 0 (gives the message back), which is no heartbeat."""
    if name != "change_message_visibility_batch":
        v, _ = f.value(f.kwargs(call).get("VisibilityTimeout"))
        return v == 0 and _number(v)
    entries = f.kwargs(call).get("Entries")
    if entries is None:
        return False
    values = []
    for n in _walk(entries.child_by_field_name("value") or entries):
        if n.type == "pair" and f.value(n.child_by_field_name("key"))[0] == "VisibilityTimeout":
            values.append(f.value(n)[0])
    return bool(values) and all(_number(v) and v == 0 for v in values)


def _heartbeat_interval(f: _File, call):
    """(seconds, location) of a literal sleep/wait in a ``while`` loop that extends visibility and receives
    nothing: a dedicated heartbeat loop."""
    loop = _enclosing(call, ("while_statement",), ("function_definition", "class_definition", "module"))
    if loop is None:
        return None
    found = None
    for n in _walk(loop):
        if n.type != "call":
            continue
        name = _last(f.text(n.child_by_field_name("function")))
        if name in ("receive_message", "receive_messages"):
            return None
        if name in ("sleep", "wait") and found is None:
            args = f.positional(n)
            arg = args[0] if args else f.kwargs(n).get("timeout")
            v, env = f.value(arg) if arg is not None else (_UNKNOWN, None)
            if _number(v) and not env and v > 0:
                found = (v, f.loc(arg))
    return found


# ------------------------------------------------------------------------------------------------ Celery
def _celery(f: _File) -> list[Consumer]:
    # setting -> (position, value node), per scope: the module (None), or a settings class of its own (a file
    # often holds one per environment: class Config / class Test(Config) with a fake broker)
    scopes: dict[int | None, dict[str, tuple[int, object]]] = {None: {}}
    apps = []

    def put(key: str, node, at: int) -> None:
        setting = _CELERY_KEYS.get(key)
        cls = _enclosing(node, ("class_definition",))
        conf = scopes.setdefault(cls.start_byte if cls is not None else None, {})
        if setting is not None and (setting not in conf or conf[setting][0] <= at):
            conf[setting] = (at, node)

    def put_dict(d, at: int) -> None:
        for k, pair in d.pairs.items():
            put(k, pair, at)

    for assign, left, right in f.assign_nodes:
        at = assign.start_byte
        if left.type == "identifier" and not _in_function(assign):
            key = f.text(left)
            if key in _CELERY_KEYS:
                put(key, right, at)
            elif right.type == "dictionary":
                d = _Dict(f, right)
                if any(_CELERY_KEYS.get(k) in ("broker_url", "broker_transport_options") for k in d.pairs):
                    put_dict(d, at)
        elif left.type == "attribute":
            obj = left.child_by_field_name("object")
            attr = left.child_by_field_name("attribute")
            if obj is not None and attr is not None and _last(f.text(obj)) == "conf":
                put(f.text(attr), right, at)
    for call, name in f.calls:
        fn = call.child_by_field_name("function")
        at = call.start_byte
        if name == "Celery":
            apps.append(call)
            for k, arg in f.kwargs(call).items():
                put("broker_url" if k == "broker" else k, arg, at)
        elif name in ("update", "config_from_object") and fn.type == "attribute":
            obj = fn.child_by_field_name("object")
            if name == "update" and _last(f.text(obj)) != "conf":
                continue
            for arg in f.positional(call)[:1]:
                d, _ = f.value(arg)
                if isinstance(d, _Dict):
                    put_dict(d, at)
            if name == "update":
                for k, arg in f.kwargs(call).items():
                    put(k, arg, at)
    module = scopes.pop(None)
    # the first settings on SQS, in file order (a class's settings over the module's)
    known = False  # a broker written as a literal (transport or URL) that is not SQS
    for conf in [{**module, **c} for c in scopes.values() if c] or [module]:
        if not conf:
            continue
        opts_node = conf.get("broker_transport_options", (0, None))[1]
        opts = f.value(opts_node)[0] if opts_node is not None else None
        opts = opts if isinstance(opts, _Dict) else None
        if _is_sqs(f, conf, opts):
            return _celery_consumers(f, conf, opts, apps)
        known = known or _broker_written(f, conf)
    return [] if known else _celery_tasks_only(f, module)


def _broker_written(f: _File, conf) -> bool:
    for key in ("broker_transport", "broker_url"):
        v = f.value(conf[key][1])[0] if key in conf else None
        if isinstance(v, str) and v:
            return True
    return False


def _celery_tasks_only(f: _File, conf) -> list[Consumer]:
    """The task facts of a file that names no broker (tasks.py beside a celeryconfig.py): one consumer with no
    queue, ``settings["celery_tasks_only"]``, that ``linter.consumers.join`` merges into the SQS Celery apps of
    the same project (and drops when there is none: the broker is not SQS, or not known). Notes about computed
    task values wait in ``settings["celery_tasks_notes"]`` until then: a Redis app's tasks are not noted."""
    before = len(f.notes)
    tasks = _tasks(f, f.path)
    notes = f.notes[before:]
    del f.notes[before:]
    conf = {
        k: v for k, v in conf.items() if k in ("task_time_limit", "task_soft_time_limit", "task_acks_late")
    }
    firsts = [d["location"] for d in tasks["delays"]]
    firsts += [f.loc(node) for key in ("time_limit", "soft_time_limit") for _, node in tasks[key]]
    firsts += [f.loc(node) for node in tasks["acks_late"]] + [f.loc(node) for _, node in conf.values()]
    if not firsts:
        return []
    loc = min(firsts, key=lambda at: (at.line, at.column))
    cid = f"{f.path}:{loc.line}"
    c = Consumer(cid, "worker", location=loc, platform="celery", source="python", heartbeat=False)
    c.settings["celery_tasks_only"] = True
    _task_settings(f, c, conf, tasks)
    if notes:
        c.settings["celery_tasks_notes"] = [Note(n.message, n.location, cid) for n in notes]
    return [c]


def _celery_consumers(f: _File, conf, opts, apps) -> list[Consumer]:
    anchor = apps[0] if apps else (conf.get("broker_url") or conf.get("broker_transport_options"))[1]
    loc = f.loc(anchor)
    base_id = f"{f.path}:{loc.line}"
    tasks = _tasks(f, base_id)
    queues = _celery_queues(f, conf, opts, base_id)
    out = []
    for qname, ref, predefined in queues:
        cid = base_id if len(queues) == 1 and not predefined else f"{base_id}[{qname}]"
        c = Consumer(
            cid, "worker", location=loc, platform="celery", source="python", queue_ref=ref, heartbeat=False
        )
        if ref is not None and ref.location is not None:
            c.locations["queue_ref"] = ref.location
        _celery_settings(f, c, conf, opts, tasks, predefined)
        out.append(c)
    return out


def _is_sqs(f: _File, conf, opts) -> bool:
    """The broker is SQS: ``broker_transport`` says so, or the broker URL (``sqs://``, an SQS endpoint), or,
    when neither is written as a literal, transport options only Kombu's SQS transport reads."""
    transport = conf.get("broker_transport")
    v = f.value(transport[1])[0] if transport else None
    if isinstance(v, str) and v:
        return "sqs" in v.lower()
    url = conf.get("broker_url")
    v = f.value(url[1])[0] if url else None
    if isinstance(v, str) and v:
        v = v.lower()
        return v.split("://", 1)[0] in ("sqs", "sqs+https", "sqs+http") or (
            v.startswith("https://sqs.") and "amazonaws.com" in v
        )
    return opts is not None and bool(opts.pairs.keys() & _SQS_OPTIONS)


def _celery_queues(f: _File, conf, opts, base_id: str) -> list[tuple[str, QueueRef | None, bool]]:
    """(queue name, reference, predefined?) of each queue the app reads: each ``predefined_queues`` entry (its
    ``url``), else the default queue (``task_default_queue``, "celery") after ``queue_name_prefix``."""
    predefined = (
        f.value(opts.pairs["predefined_queues"])[0] if opts and "predefined_queues" in opts.pairs else None
    )
    if isinstance(predefined, _Dict) and predefined.pairs:
        out = []
        for name, pair in predefined.pairs.items():
            spec = f.value(pair)[0]
            url = spec.pairs.get("url") if isinstance(spec, _Dict) else None
            if url is None:
                out.append((name, QueueRef("name", name, f.loc(pair)), True))
                continue
            ref = f.queue_ref(url)
            if ref is None:
                f.note(
                    url,
                    f"the url of the Celery predefined queue {name} is computed: its queue is not known",
                    base_id,
                )
            out.append((name, ref, True))
        return out
    prefix, where = "", None
    if opts and "queue_name_prefix" in opts.pairs:
        where = opts.pairs["queue_name_prefix"]
        v, env = f.value(where)
        prefix = v if isinstance(v, str) and not env else None
    name, env = _CELERY_DEFAULT_QUEUE, None
    if "task_default_queue" in conf:
        where = conf["task_default_queue"][1]
        name, env = f.value(where)
    if env and prefix == "":
        return [(env, QueueRef("env", env, f.loc(where)), False)]
    if not isinstance(name, str) or not name or prefix is None or env:
        f.note(where, "the Celery queue name is computed here: its queue is not known", base_id)
        return [(str(name), None, False)]
    node = where or (conf.get("broker_url") or conf["broker_transport_options"])[1]
    return [(name, QueueRef("name", prefix + name, f.loc(node)), False)]


def _tasks(f: _File, address: str) -> dict:
    """Per-task settings from ``@app.task(...)`` / ``@shared_task(...)`` decorators and delays from calls."""
    out: dict[str, list] = {"time_limit": [], "soft_time_limit": [], "acks_late": [], "delays": []}
    for call, name in f.calls:
        kw = f.kwargs(call)
        if name in _TASK_DECORATORS and call.parent is not None and call.parent.type == "decorator":
            for key in ("time_limit", "soft_time_limit"):
                if key in kw:
                    v = _seconds(f, kw[key], f"the Celery task {key}", address)
                    if v is not None:
                        out[key].append((v, kw[key]))
            if "acks_late" in kw and f.value(kw["acks_late"])[0] is True:
                out["acks_late"].append(kw["acks_late"])
            for key in ("default_retry_delay", "retry_backoff_max"):
                if key in kw:
                    _delay(f, out["delays"], kw[key], key, address)
        elif name in _DELAY_CALLS:
            if "countdown" in kw:
                _delay(f, out["delays"], kw["countdown"], f"{name} countdown", address)
            if "eta" in kw:
                _delay(f, out["delays"], kw["eta"], f"{name} eta", address, eta=True)
    return out


def _delay(f: _File, delays: list, node, what: str, address: str, eta: bool = False) -> None:
    value = node.child_by_field_name("value")
    if (
        eta
        and value is not None
        and value.type == "binary_operator"
        and f.text(value.child_by_field_name("operator")) == "+"
    ):
        sides = [value.child_by_field_name("left"), value.child_by_field_name("right")]
        nows = [
            s
            for s in sides
            if s is not None and s.type == "call" and _last(f.text(s.child_by_field_name("function"))) in _NOW
        ]
        if len(nows) == 1:
            v, _ = f.value(sides[1] if nows[0] is sides[0] else sides[0])
            if _number(v):
                delays.append({"seconds": _tidy(v), "what": what, "location": f.loc(node)})
                return
        f.note(node, f"the Celery {what} is computed ({f.shown(node)}): visguard does not guess it", address)
        return
    if eta:
        f.note(node, f"the Celery {what} is computed ({f.shown(node)}): visguard does not guess it", address)
        return
    v = _seconds(f, node, f"the Celery {what}", address)
    if v is not None:
        delays.append({"seconds": v, "what": what, "location": f.loc(node)})


def _celery_settings(f: _File, c: Consumer, conf, opts, tasks, predefined: bool) -> None:
    vt = opts.pairs.get("visibility_timeout") if opts else None
    if vt is not None:
        v = _seconds(f, vt, "the Celery broker_transport_options visibility_timeout", c.id)
        if v is not None:
            c.settings["created_visibility"] = v
            c.locations["created_visibility"] = f.loc(vt)
    elif not predefined:  # Kombu creates the queue with its default
        c.settings["created_visibility"] = facts.CELERY_SQS_VISIBILITY_DEFAULT
    wait = opts.pairs.get("wait_time_seconds") if opts else None
    if wait is not None:
        v = _seconds(f, wait, "the Celery wait_time_seconds", c.id)
        if v is not None:
            c.settings["wait_time"], c.locations["wait_time"] = v, f.loc(wait)
    _task_settings(f, c, conf, tasks)


def _task_settings(f: _File, c: Consumer, conf, tasks) -> None:
    """Time limits, acks_late, prefetch and delays: the global settings of ``conf`` and the tasks' own."""
    limits = {}
    for setting, key in (("task_time_limit", "time_limit"), ("task_soft_time_limit", "soft_time_limit")):
        found = list(tasks[key])
        if setting in conf:
            node = conf[setting][1]
            v = _seconds(f, node, f"the Celery {setting}", c.id)
            if v is not None:
                found.append((v, node))
        limits[key] = max(found, key=lambda x: x[0]) if found else None
    hard, soft = limits["time_limit"], limits["soft_time_limit"]
    if hard or soft:  # the hard limit ends the work; a soft one (an exception in the task) when none is set
        c.work_timeout = (hard or soft)[0]
        c.locations["work_timeout"] = f.loc((hard or soft)[1])
    if soft:
        c.settings["soft_time_limit"], c.locations["soft_time_limit"] = soft[0], f.loc(soft[1])
    acks = conf.get("task_acks_late")
    acks_value = f.value(acks[1])[0] if acks else None
    if acks_value is True or tasks["acks_late"]:  # globally, or for a task
        where = acks[1] if acks_value is True else tasks["acks_late"][0]
        c.settings["acks_late"], c.locations["acks_late"] = True, f.loc(where)
    elif acks_value is False:
        c.settings["acks_late"], c.locations["acks_late"] = False, f.loc(acks[1])
    if "worker_prefetch_multiplier" in conf:
        node = conf["worker_prefetch_multiplier"][1]
        v = _seconds(f, node, "the Celery worker_prefetch_multiplier", c.id)
        if v is not None:
            c.settings["prefetch"], c.locations["prefetch"] = v, f.loc(node)
    if tasks["delays"]:
        c.settings["delays"] = list(tasks["delays"])
        c.locations["delays"] = tasks["delays"][0]["location"]
