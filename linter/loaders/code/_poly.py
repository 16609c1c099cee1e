"""What the Java, Go, C#, PHP and Ruby readers share: walking a tree-sitter tree without recursion, a file's
single-assignment bindings, queue references from literals, and building located consumers and notes.

Every reader keeps its grammar's node names to itself; this module knows none of them.
"""

from __future__ import annotations

from visguard.linter.consumers import QueueRef
from visguard.linter.model import Consumer, Location, Note

from . import CodeResult, column, parser
from . import parse as budgeted_parse

# Larger files are read up to this size (generated or vendored code; the input kind skips most of them).
MAX_BYTES = 2_000_000


# ReceiveMessage's parameters (the API's names) -> the consumer fields they set; every SDK spells them its own way
# (Go, .NET, PHP as the API does; Ruby in snake_case: :func:`snake`).
RECEIVE_FIELDS = {
    "QueueUrl": "queue",
    "VisibilityTimeout": "visibility_override",
    "WaitTimeSeconds": "wait_time",
    "MaxNumberOfMessages": "max_messages",
}


def snake(name: str) -> str:
    """``VisibilityTimeout`` -> ``visibility_timeout`` (the Ruby SDK's keyword arguments)."""
    return "".join(f"_{ch.lower()}" if ch.isupper() and i else ch.lower() for i, ch in enumerate(name))


def parse(language: str, data: bytes):
    """The root node of ``data`` in ``language`` (tree-sitter recovers from any input; never raises); an empty
    tree when the parse ran out of its CPU budget (``visguard.linter.loaders.code.parse``)."""
    root = budgeted_parse(language, data[:MAX_BYTES])
    return root if root is not None else parser(language).parse(b"").root_node


def walk(root):
    """Every node under ``root`` in document order, iteratively (deep nesting never recurses in Python), with a
    tree cursor (a third of the cost of asking every node for its children)."""
    cursor = root.walk()
    while True:
        yield cursor.node
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent() or cursor.node == root:
                return


def text(node) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def line(node) -> int:
    return node.start_point[0] + 1


def queue_ref(value: str, location: Location | None, kind: str | None = None) -> QueueRef | None:
    """A queue reference from a literal: a URL, an ARN or a name (None for an empty string)."""
    value = value.strip()
    if not value:
        return None
    if kind is None:
        kind = (
            "url"
            if value.startswith(("https://", "http://"))
            else "arn"
            if value.startswith("arn:")
            else "name"
        )
    return QueueRef(kind, value, location)


class Reader:
    """One file being read: its path, its result, and helpers to locate values and note what is not read."""

    def __init__(self, path: str, source: str, data: bytes = b""):
        self.path = path
        self.source = source
        self.data = data  # the bytes parsed: columns are counted in code points of them
        self.result = CodeResult()
        self._ids: set[str] = set()

    def loc(self, node) -> Location:
        return Location(self.path, line=line(node), column=column(self.data, node))

    def note(self, message: str, node) -> None:
        self.result.notes.append(Note(f"{message} (line {line(node)})", self.loc(node), self.path))

    def consumer(self, node, platform: str, **fields) -> Consumer:
        c = Consumer(
            id=f"{self.path}:{line(node)}",
            kind="worker",
            platform=platform,
            source=self.source,
            location=self.loc(node),
            **fields,
        )
        if c.id in self._ids:
            c.id = f"{c.id}:{column(self.data, node)}"
        self._ids.add(c.id)
        self.result.consumers.append(c)
        return c

    def set(self, c: Consumer, field: str, value, node) -> None:
        """Set ``field`` of ``c`` (a Consumer field, else a settings key) and locate it."""
        if field in Consumer.__slots__:
            setattr(c, field, value)
        else:
            c.settings[field] = value
        c.locations[field] = self.loc(node)
        self.result.spans[(c.id, field)] = (node.start_byte, node.end_byte)

    def delay(self, c: Consumer, seconds, what: str, node) -> None:
        c.settings.setdefault("delays", []).append(
            {"seconds": seconds, "what": what, "location": self.loc(node)}
        )
        c.locations.setdefault("delays", self.loc(node))


def number(value) -> int | float | None:
    """An int/float from a literal's text (``30``, ``30L``, ``1_000``, ``30.0``), None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    s = str(value).strip().rstrip("lLuUfFdDmM").replace("_", "")
    if not s or len(s) > 18:
        return None
    try:
        return (
            int(s, 0) if not s.startswith("0") or s == "0" or s[:2].lower() in ("0x", "0o", "0b") else int(s)
        )
    except ValueError:
        try:
            f = float(s)
        except ValueError:
            return None
        return int(f) if f.is_integer() else f


class Value:
    """What an expression evaluates to, as far as a static reader can tell: ``kind`` int | str | env | bool |
    list | unknown; ``value``; ``node`` (where it is written); ``why`` (for unknown: what the code does)."""

    __slots__ = ("kind", "value", "node", "why", "default")

    def __init__(self, kind: str, value, node, why: str = "", default: Value | None = None):
        self.kind, self.value, self.node, self.why = kind, value, node, why
        self.default = default  # for env: the literal default the code writes (ENV.fetch("Q", "jobs"))

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Value({self.kind}, {self.value!r})"


def apply_number(
    r: Reader, c: Consumer, field: str, v: Value | None, what: str, *, zero_ok: bool = True
) -> None:
    """Set a numeric ``field`` from ``v`` (an int), else note why it is not read."""
    if v is None:
        return
    if v.kind == "int" and isinstance(v.value, (int, float)):
        r.set(c, field, v.value, v.node)
    elif v.kind == "env":
        r.note(f"{what} comes from the environment variable {v.value}: not read", v.node)
    else:
        r.note(f"{what} is computed ({v.why or text(v.node)[:60]}): not read", v.node)


def apply_queue(r: Reader, c: Consumer, v: Value | None, what: str) -> None:
    """Set ``c.queue_ref`` from ``v`` (a literal or an environment variable), else note why not."""
    if v is None:
        return
    if v.kind == "str":
        ref = queue_ref(v.value, r.loc(v.node))
    elif v.kind == "env":
        ref = QueueRef("env", v.value, r.loc(v.node))
        if v.default is not None and v.default.kind == "str" and v.default.value:
            ref.fallback = queue_ref(v.default.value, r.loc(v.default.node))
    elif v.kind == "name":
        ref = queue_ref(v.value, r.loc(v.node), "name")
    else:
        r.note(f"{what}: the queue is computed ({v.why or text(v.node)[:60]}), not joined", v.node)
        return
    if ref is not None:
        c.queue_ref = ref
        c.link = {"env": "env", "name": "name"}.get(ref.kind, "literal")
        c.link_ref = ref.value
        c.locations["queue_ref"] = ref.location
