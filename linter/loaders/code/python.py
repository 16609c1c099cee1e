"""Python consumers (issue 25): boto3/botocore/aioboto3 receive sites and Celery/Kombu apps on SQS.

Where they are is ``languages/python.scm``; this module is the Python entry of the code engine (``engine.py``) and
what a query cannot say: which receive calls are SQS's, the values Python writes that the engine's tables do not
(``os.environ["X"]``, ``os.getenv("X", default=d)``, ``int(...)``, ``timedelta(...)``, dict literals and
``**dict`` arguments), and Celery's configuration merge.

SDK: every ``<client>.receive_message(QueueUrl=..., VisibilityTimeout=..., ...)`` (awaited or not) and resource
``<queue>.receive_messages(...)`` (the queue from ``sqs.Queue(url)`` / ``get_queue_by_name(QueueName=...)``) is
one consumer. A ``change_message_visibility(_batch)`` / ``message.change_visibility`` call in the same file that
does not only set 0 (a release) is its heartbeat.

Celery: the file's broker settings (``Celery(broker=...)``, ``app.conf.update(...)``, ``app.conf.<key> = ...``,
``celeryconfig.py`` and Django ``CELERY_*`` module-level names, a config dict ``{"broker_url": ...}``), task
decorators (``@app.task(time_limit=..., acks_late=...)``) and delays (``apply_async(countdown=/eta=)``,
``retry(countdown=)``, ``default_retry_delay``, ``retry_backoff_max``) make one consumer per app, or one per
``predefined_queues`` entry, when the broker is SQS.

Values (``engine.evaluate``): literals, literal arithmetic, names assigned once in the file (not a function's
parameter; ``self.x`` attributes too), ``os.environ["X"]`` / ``os.getenv("X", default)`` (the queue is then ``$X``;
a number uses the literal default), ``int(...)``, ``timedelta(...)``. Anything else is left None and named in a
note; a number literal beyond ``values.MAX_NUMBER`` is not read and noted.
"""

from __future__ import annotations

import bisect
import re

from visguard import facts
from visguard.linter.consumers import QueueRef
from visguard.linter.loaders import values
from visguard.linter.model import Consumer, Location, Note

from . import CodeResult, creates
from .engine import (
    ANNOTATION_FIELDS,
    FLOW,
    MAX_AGREE,
    MAX_BYTES,
    MAX_DEPTH,
    NOT_A_NUMBER,
    File,
    Language,
    Reader,
    Value,
    _around,
    braces,
    classes_of,
    compose,
    descendants,
    env_of,
    evaluate,
    printf,
    queue_ref,
    returns_of,
    text,
    unknown,
)
from .engine import returned as returned_by

EXTENSIONS = (".py",)


def _hook(node, f: File, depth: int) -> Value | None:
    """What the engine's tables cannot say of Python (:data:`_HOOKS`): the node's Value, or None."""
    h = _HOOKS.get(node.type)
    return h(node, f, depth) if h is not None else None


def _signature(fn, f: File):
    """How the calls of the function ``fn`` name it and pass its parameters (engine.Flow): (the names it is
    called by: its own, a class's for ``__init__`` and the names of subclasses that do not define their own,
    [(parameter, its default node or None, positional)], 1 for a method's ``self``/``cls`` else 0)."""
    if fn.type != "function_definition":
        return None
    name = text(fn.child_by_field_name("name"))
    holder = fn.parent
    decorators = []
    if holder is not None and holder.type == "decorated_definition":
        decorators = [text(d).lstrip("@").strip() for d in holder.named_children if d.type == "decorator"]
        holder = holder.parent
    cls = holder.parent if holder is not None and holder.type == "block" else None
    in_class = cls is not None and cls.type == "class_definition"
    names: tuple[str, ...] = (name,)
    if in_class and name == "__init__":
        names = _constructors(text(cls.child_by_field_name("name")), f)
    params, positional = [], True
    for p in fn.child_by_field_name("parameters").named_children:
        if p.type == "identifier":
            params.append((text(p), None, positional))
        elif p.type in ("default_parameter", "typed_default_parameter"):
            params.append((text(p.child_by_field_name("name")), p.child_by_field_name("value"), positional))
        elif p.type == "typed_parameter" and p.named_children:
            params.append((text(p.named_children[0]), None, positional))
        elif p.type == "list_splat_pattern":
            params.append(("*" + text(p).lstrip("*"), None, False))
            positional = False
        elif p.type == "dictionary_splat_pattern":
            params.append(("**" + text(p).lstrip("*"), None, False))
        elif p.type == "keyword_separator":
            positional = False
    bound = 1 if in_class and "staticmethod" not in decorators and params and params[0][2] else 0
    return names, params, bound


def _constructors(cls: str, f: File) -> tuple[str, ...]:
    """``cls`` and the module-level classes of its package that derive from it without an ``__init__`` of
    their own (``class Listener(AsyncSqsListener)``: a call ``Listener(...)`` runs ``AsyncSqsListener``'s)."""
    out = [cls]
    for g in [f, *FLOW.files_with(f, (cls,))]:
        for node in g.root.named_children:
            if node.type == "decorated_definition":
                node = node.child_by_field_name("definition")
            if node is None or node.type != "class_definition":
                continue
            bases = node.child_by_field_name("superclasses")
            body = node.child_by_field_name("body")
            if bases is None or not any(_last(text(b)) == cls for b in bases.named_children):
                continue
            own = any(
                (d.child_by_field_name("definition") if d.type == "decorated_definition" else d) is not None
                and text(
                    (
                        d.child_by_field_name("definition") if d.type == "decorated_definition" else d
                    ).child_by_field_name("name")
                )
                == "__init__"
                for d in (body.named_children if body is not None else ())
                if d.type in ("function_definition", "decorated_definition")
            )
            sub = text(node.child_by_field_name("name"))
            if not own and sub not in out:
                out.append(sub)
    return tuple(out)


def _super_calls(fn, f: File) -> list:
    """engine.Language.super_calls: for a class's ``__init__``, the ``super().__init__(...)`` (also
    ``super(Sub, self).__init__(...)``) calls in the ``__init__`` of the classes of its package deriving from it
    (``class Billing(BaseWorker)``, ``(workers.BaseWorker)``); a subclass without an ``__init__`` of its own is
    among the constructor's names already (:func:`_constructors`)."""
    if fn.type != "function_definition" or text(fn.child_by_field_name("name")) != "__init__":
        return []
    holder = (
        fn.parent.parent if fn.parent is not None and fn.parent.type == "decorated_definition" else fn.parent
    )
    cls = holder.parent if holder is not None and holder.type == "block" else None
    if cls is None or cls.type != "class_definition":
        return []
    base, out = text(cls.child_by_field_name("name")), []
    for g in [f, *FLOW.files_with(f, (base,))]:
        for node in classes_of(g, ("class_definition",)):
            bases = node.child_by_field_name("superclasses")
            body = node.child_by_field_name("body")
            if bases is None or body is None or not any(_last(text(b)) == base for b in bases.named_children):
                continue
            for d in body.named_children:
                init = d.child_by_field_name("definition") if d.type == "decorated_definition" else d
                if init is None or init.type != "function_definition":
                    continue
                if text(init.child_by_field_name("name")) != "__init__":
                    continue
                stack = [init.child_by_field_name("body")]
                while stack:
                    n = stack.pop()
                    if n is None or n.type in ("function_definition", "class_definition", "lambda"):
                        continue  # a nested function's or class's super is its own
                    callee = n.child_by_field_name("function") if n.type == "call" else None
                    inner = callee.child_by_field_name("object") if callee is not None else None
                    if (
                        callee is not None
                        and callee.type == "attribute"
                        and text(callee.child_by_field_name("attribute")) == "__init__"
                        and inner is not None
                        and inner.type == "call"
                        and text(inner.child_by_field_name("function")) == "super"
                    ):
                        out.append((g, n, init, text(node.child_by_field_name("name"))))
                        continue
                    stack.extend(reversed(n.named_children))
    return out


def _imported(f: File, key: str):
    """(the File of the module a name of ``f`` is imported from, the name there), or None: ``QUEUE_URL`` of
    ``from .settings import QUEUE_URL`` (``as`` too), ``settings.QUEUE_URL`` of ``import settings`` or ``from app
    import settings``. A module is a file of the project the run was offered (engine.Flow): relative to ``f``
    for a relative import, else to the project's folder or ``f``'s."""
    if f.path is None or not FLOW.offered:
        return None
    head, _, rest = key.partition(".")
    if "." in rest:
        return None
    for stmt in f.root.named_children:
        if stmt.type == "import_from_statement":
            module = stmt.child_by_field_name("module_name")
            for name in stmt.children_by_field_name("name"):
                real, alias = _aliased(name)
                if alias != head:
                    continue
                if rest:  # `from app import settings`: the module app.settings
                    got = _module(f, module, real)
                    return (got, rest) if got is not None else None
                got = _module(f, module, None)
                return (got, real) if got is not None and "." not in real else None
        elif stmt.type == "import_statement" and rest:
            for name in stmt.children_by_field_name("name"):
                real, alias = _aliased(name)
                if alias == head or (name.type == "dotted_name" and real == head):
                    got = _module(f, None, real)
                    return (got, rest) if got is not None else None
    return None


def _aliased(name) -> tuple[str, str]:
    if name.type == "aliased_import":
        return text(name.child_by_field_name("name")), text(name.child_by_field_name("alias"))
    return text(name), text(name).split(".")[0]


MAX_IMPORT_ROOTS = 12  # folders above a file tried as the root an absolute import is resolved from


def _module(f: File, module, extra: str | None) -> File | None:
    """The File of the module ``module`` (a module_name node; None: none) plus ``extra`` (a dotted name) names."""
    import os

    parts, bases = [], []
    if module is not None and module.type == "relative_import":
        dots = len(text(module.child(0))) if module.child_count else 1
        base = os.path.dirname(os.path.abspath(f.path))
        for _ in range(dots - 1):
            base = os.path.dirname(base)
        bases = [base]
        inner = [c for c in module.named_children if c.type == "dotted_name"]
        parts = text(inner[0]).split(".") if inner else []
    else:  # the project's folder, the file's, then each folder above it (a Lambda package's root, a src/ layout)
        top, here = FLOW.root(f.path), os.path.dirname(os.path.abspath(f.path))
        bases = [top, here]
        for _ in range(
            MAX_IMPORT_ROOTS
        ):  # only files the run was offered are ever opened (FLOW.offered_file)
            up = os.path.dirname(here)
            if up == here:
                break
            if up != top:
                bases.append(up)
            here = up
        parts = text(module).split(".") if module is not None else []
    if extra:
        parts += extra.split(".")
    for base in bases:
        for candidate in (os.path.join(base, *parts) + ".py", os.path.join(base, *parts, "__init__.py")):
            path = FLOW.offered_file(candidate)
            if path is not None and os.path.abspath(path) != os.path.abspath(f.path):
                return FLOW.file(path, f.lang)
    return None


def _call_args(call, f: File):
    """(positional argument nodes, {keyword: value node}, whether it passes ``*x``/``**x``) of ``call``; of a
    function's name handed to a thread or an executor (the flow query's indirect calls), what that call gives
    it."""
    if call.type in ("identifier", "attribute"):
        return _handed_args(call, f)
    args = call.child_by_field_name("arguments")
    if args is None or args.type != "argument_list":
        return None
    pos, kw, splat = [], {}, False
    for a in args.named_children:
        if a.type == "keyword_argument":
            kw[text(a.child_by_field_name("name"))] = a.child_by_field_name("value")
        elif a.type == "dictionary_splat":
            got = _splat_pairs(f, a.named_children[0] if a.named_children else None)
            if got is None:
                splat = True
            else:
                kw.update(got[0])
                splat = splat or got[1]  # it may pass more than those: the rest is not known
                for k in got[2] - got[0].keys() - kw.keys():
                    kw[k] = None  # a key the spread cannot hold and the dict does not keep: not passed
        elif a.type == "list_splat":
            splat = True
        elif a.type != "comment":
            pos.append(a)
    return pos, kw, splat


# ``f(**opts)``: the keywords a dictionary splat passes, when the file says them (issue 35): a dict literal of
# string keys (``opts = {"visibility": v}``), a dataclass instance's dict field (``spec.opts`` of ``spec =
# Spec(opts={...})``, also the one instance a ``for spec in REGISTRY`` loop gives), and a comprehension over one of
# them that keeps its pairs (``{k: v for k, v in D.items() if v is not None}``, ``... or k in KEEP`` of a literal
# set of names): a pair the condition drops is not passed (the parameter's default). A dict literal that also
# spreads its function's own ``**extra`` parameter is open: its keys that are the function's named parameters
# (which ``extra`` never holds) and those after the spread are known, what else it passes is not. Anything else
# (another condition, a value the condition needs that is not known, a pair of another file): not read, the
# splat unknown. Returns ({key: value node}, open, the keys it cannot pass: an open dict's own function's named
# parameters) or None.
_SPLATS = [0]  # splats being read (a splat read inside a splat's value: bounded)
MAX_SPLAT = 8  # dicts, fields and comprehensions followed for one splat, and splats read inside one


def _splat_pairs(f: File, node, depth: int = 0) -> dict | None:
    if node is None or depth > MAX_SPLAT or _SPLATS[0] > MAX_SPLAT:
        return None
    _SPLATS[0] += 1
    try:
        return _pairs_of(f, _deref(f, node), depth)
    finally:
        _SPLATS[0] -= 1


def _pairs_of(f: File, node, depth: int) -> dict | None:
    if node is None:
        return None
    if node.type == "dictionary":
        out, open_, cannot = {}, False, set()
        for pair in node.named_children:
            if pair.type == "comment":
                continue
            if pair.type == "dictionary_splat":
                named = _own_kwargs(f, pair)
                if named is None:
                    return None  # a spread of what is not known here
                out = {k: v for k, v in out.items() if k in named}  # what `**extra` cannot hold stays
                open_, cannot = True, cannot | named if not open_ else cannot & named
                continue
            if pair.type != "pair":
                return None
            key = evaluate(pair.child_by_field_name("key"), f)
            if key.kind != "str":
                return None
            out[key.value] = pair.child_by_field_name("value")
        return out, open_, (cannot if open_ else set())
    if node.type == "attribute":  # spec.opts: a dataclass instance's field
        found = _class_of(f, node.child_by_field_name("object"), depth + 1)
        if found is None or found[2] is None or found[3].path != f.path or not _is_data(found[1]):
            return None
        got = _call_args(found[2], f)
        field = got[1].get(text(node.child_by_field_name("attribute"))) if got is not None else None
        return _splat_pairs(f, field, depth + 1) if field is not None else None
    if node.type != "dictionary_comprehension":
        return None
    body = node.child_by_field_name("body")
    loops = [c for c in node.named_children if c.type == "for_in_clause"]
    conds = [c for c in node.named_children if c.type == "if_clause"]
    if body is None or body.type != "pair" or len(loops) != 1 or len(conds) > 1:
        return None
    k, v = text(body.child_by_field_name("key")), text(body.child_by_field_name("value"))
    left, right = loops[0].child_by_field_name("left"), loops[0].child_by_field_name("right")
    names = [text(c) for c in left.named_children] if left is not None and left.type == "pattern_list" else []
    fn = right.child_by_field_name("function") if right is not None and right.type == "call" else None
    if (
        names != [k, v]
        or fn is None
        or fn.type != "attribute"
        or text(fn.child_by_field_name("attribute")) != "items"
    ):
        return None
    source = _splat_pairs(f, fn.child_by_field_name("object"), depth + 1)
    if source is None:
        return None
    cond = conds[0].named_children[0] if conds and conds[0].named_children else None
    out = {}
    for key, value in source[0].items():
        keep = _keeps(f, cond, k, v, key, value)
        if keep is None:
            return None
        if keep:
            out[key] = value
    return out, source[1], source[2]


def _own_kwargs(f: File, spread) -> set | None:
    """The named parameters of the function around ``spread`` (``**extra`` in a dict literal) when ``extra`` is
    that function's ``**extra`` parameter (which never holds them); None otherwise."""
    inner = spread.named_children[0] if spread.named_children else None
    if inner is None or inner.type != "identifier":
        return None
    up = f.parent(spread)
    for _ in range(256):  # the function around it (a nested decorator's: its factory's) that takes **extra
        if up is None:
            return None
        if up.type == "function_definition":
            sig = _signature(up, f)
            keys = [k for k, _, _ in sig[1]] if sig is not None else []
            if "**" + text(inner) in keys:
                return {k for k in keys if not k.startswith("*")}
            if text(inner) in keys or "*" + text(inner) in keys:
                return None  # the name is another parameter of this function
        up = f.parent(up)
    return None


def _keeps(f: File, cond, k: str, v: str, key: str, value) -> bool | None:
    """Whether the comprehension's condition keeps the pair (``key``, ``value`` node); None: not known."""
    if cond is None:
        return True
    if cond.type == "parenthesized_expression" and cond.named_children:
        return _keeps(f, cond.named_children[0], k, v, key, value)
    if cond.type == "boolean_operator":
        op = text(cond.child_by_field_name("operator")).strip()
        a = _keeps(f, cond.child_by_field_name("left"), k, v, key, value)
        b = _keeps(f, cond.child_by_field_name("right"), k, v, key, value)
        if op == "or":
            return True if a is True or b is True else (None if a is None or b is None else False)
        if op == "and":
            return False if a is False or b is False else (None if a is None or b is None else True)
        return None
    if cond.type != "comparison_operator" or len(cond.named_children) != 2:
        return None
    left, right = cond.named_children
    op = " ".join(text(c) for c in cond.children if not c.is_named)
    if op == "is not" and text(left) == v and right.type == "none":
        got = evaluate(value, f)
        return None if got.kind == "unknown" else got.kind != "none"
    if op in ("in", "not in") and text(left) == k:
        members = _deref(f, right)
        if members is None or members.type not in ("set", "list", "tuple"):
            return None
        names = [evaluate(m, f) for m in members.named_children if m.type != "comment"]
        if any(n.kind != "str" for n in names):
            return None
        inside = key in {n.value for n in names}
        return inside if op == "in" else not inside
    return None


def _handed_args(fn_node, f: File):
    """What a function handed over at ``fn_node`` is called with: ``Thread(target=f, args=(a,), kwargs={...})``
    (Process, Timer too), ``submit(f, a, k=b)``, ``to_thread(f, a)``, ``start_new_thread(f, (a,))``,
    ``run_in_executor(x, f, a)``; None for another place."""
    holder = f.parent(fn_node)
    keyword = holder is not None and holder.type == "keyword_argument"
    arglist = f.parent(holder) if keyword else holder
    call = f.parent(arglist) if arglist is not None and arglist.type == "argument_list" else None
    if call is None or call.type != "call":
        return None
    got = _call_args(call, f)
    if got is None:
        return None
    pos, kw, splat = got
    if keyword:  # Thread(target=f, args=(...), kwargs={...})
        args, kwargs = kw.get("args"), kw.get("kwargs")
        if (args is not None and args.type not in ("tuple", "list")) or (
            kwargs is not None and kwargs.type != "dictionary"
        ):
            return [], {}, True
        out_pos = [a for a in (args.named_children if args is not None else ()) if a.type != "comment"]
        out_kw = {}
        for pair in kwargs.named_children if kwargs is not None else ():
            key = pair.child_by_field_name("key") if pair.type == "pair" else None
            k = evaluate(key, f) if key is not None else None
            if k is None or k.kind != "str":
                return [], {}, True
            out_kw[k.value] = pair.child_by_field_name("value")
        return out_pos, out_kw, any(a.type == "list_splat" for a in out_pos)
    name = _name(call)
    at = next((i for i, a in enumerate(pos) if a.start_byte == fn_node.start_byte), None)
    if at is None:
        return None
    rest = pos[at + 1 :]
    if name == "start_new_thread":  # _thread.start_new_thread(f, (a, b))
        if len(rest) != 1 or rest[0].type not in ("tuple", "list"):
            return [], {}, True
        return [a for a in rest[0].named_children if a.type != "comment"], {}, False
    return rest, ({} if name == "run_in_executor" else kw), splat


PYTHON = Language(
    "python",
    "python",
    numbers={"integer", "float"},
    strings={"string"},
    string_parts={"string_content"},
    names={"identifier"},
    members={"attribute": ("object", "attribute")},
    wrappers={"parenthesized_expression", "keyword_argument", "pair", "assignment"},
    lists={"list", "tuple"},
    bools={"true": True, "false": False},
    binary={"binary_operator"},
    calls={"call": "arguments"},
    hook=_hook,
    signature=_signature,
    call_args=_call_args,
    super_calls=lambda fn, f: _super_calls(fn, f),
    package="imports",
    imported=_imported,
)

# what each call the query captures (``@call``, named ``@call.name``) is to the reader
_ROLES = {
    "receive_message": "receive",
    "receive_messages": "receive",
    "change_message_visibility": "heartbeat",
    "change_message_visibility_batch": "heartbeat",
    "change_visibility": "heartbeat",
    "sleep": "sleep",
    "wait": "sleep",
    "Celery": "app",
    "update": "update",
    "config_from_object": "update",
    "task": "task",  # under a decorator
    "shared_task": "task",
    **{name: "delay" for name in ("apply_async", "retry", "send_task", "set", "signature", "s", "si")},
}
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
_NOW = {"now", "utcnow", "today"}
_TIMEDELTA = {
    "weeks": 604_800,
    "days": 86_400,
    "hours": 3_600,
    "minutes": 60,
    "seconds": 1,
    "milliseconds": 0.001,
    "microseconds": 1e-6,
}
_TIMEDELTA_POS = ("days", "seconds", "microseconds", "milliseconds", "minutes", "hours", "weeks")
_ENV_CALLS = {"os.getenv", "getenv", "os.environ.get", "environ.get", "env", "config"}  # and env.int(...)
_CONVERSIONS = {"int": int, "float": float, "str": str}

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
# words every construct read here contains (a receive call, a broker setting under any spelling)
_MARKERS = (
    b"receive_message",
    b"create_queue",
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
    f = File(PYTHON, data, path=path)
    if f.gave_up:
        message = "python: the parser gave up recovering from syntax errors; no consumer read"
        return CodeResult(notes=[Note(message, Location(path, 1))])
    r = Reader(path, "python", data, PYTHON, lines=False)
    calls = _calls(f)
    aws = any(text(n).split(".")[0] in _AWS_MODULES for n in calls.get("import", ()))
    _sdk(f, r, calls, aws)
    _celery(f, r, calls)
    creates.read(f, r)  # the queues the code creates (issue 35)
    return r.finish()


# ------------------------------------------------------------------------------------------------ values
# what the engine's tables cannot say of Python: each hook gives the node's Value (None: the engine's own)
def _string(node, f: File, depth: int):
    start = node.child(0)
    prefix = text(start)[:-1].lower() if start is not None else ""  # "", "f", "b", "rb", ...
    if "b" in prefix:  # bytes are no queue name
        return unknown(node)
    if "f" in prefix and any(c.type == "interpolation" for c in node.named_children):
        return _fstring(node, f, depth)
    return None


def _fstring(node, f: File, depth: int) -> Value:
    """An f-string whose every ``{x}`` is a known string or number (no conversion, no format spec); with an
    environment variable among them, a pattern (engine.compose)."""
    vs = []
    for k in node.named_children:
        if k.type == "string_content":
            vs.append(Value("str", text(k), k))
        elif k.type == "interpolation":
            inner = [x for x in k.named_children if x.type != "comment"]
            if len(inner) != 1:
                return unknown(node, f"{_shown(node)}: {{{text(k)[1:-1][:40]}}} is formatted")
            vs.append(evaluate(inner[0], f, depth + 1))
    return compose(node, vs, lambda ps: "".join(str(p.value) for p in ps), _shown(node))


def _percent(node, f: File, depth: int) -> Value | None:
    """``"%s-%s" % (a, b)``: a known format of known parts; None for another operator (the engine's)."""
    if text(node.child_by_field_name("operator")).strip() != "%":
        return None
    left = evaluate(node.child_by_field_name("left"), f, depth + 1)
    if left.kind != "str":
        return None
    right = node.child_by_field_name("right")
    items = right.named_children if right is not None and right.type == "tuple" else [right]
    args = [evaluate(a, f, depth + 1) for a in items if a is not None]
    return compose(node, args, lambda ps: printf(left.value, ps), _shown(node))


def _concatenated(node, f: File, depth: int) -> Value:
    parts = [evaluate(c, f, depth + 1) for c in node.named_children if c.type == "string"]
    if not all(p.kind == "str" for p in parts):
        return unknown(node)
    v = Value("str", "".join(p.value for p in parts), node)
    v.computed = True
    return v


def _unary(node, f: File, depth: int) -> Value:
    v = evaluate(node.child_by_field_name("argument"), f, depth + 1)
    op = text(node.child_by_field_name("operator"))
    if v.kind != "int" or op not in ("-", "+"):
        out = unknown(node)
        out.env = env_of(v)
        return out
    if op == "+":
        return v
    out = Value("int", -v.value, v.node)
    out.computed, out.env = True, v.env
    return out


def _subscript(node, f: File, depth: int) -> Value:
    obj = node.child_by_field_name("value")
    keys = node.children_by_field_name("subscript")
    if obj is None or len(keys) != 1:
        return unknown(node)
    key = evaluate(keys[0], f, depth + 1)
    if text(obj) in ("os.environ", "environ"):
        return Value("env", key.value, node) if key.kind == "str" and key.value else unknown(node)
    if key.kind == "str" and key.value and obj.type == "identifier":  # options["queue_url"] of **options
        got = _kwargs_get(node, obj, [keys[0]], f, depth)
        if got is not None:
            return unknown(node, f"{_shown(node)}: not passed") if got.kind == "none" else got
    d = evaluate(obj, f, depth + 1)
    if d.kind == "dict" and key.kind == "str" and key.value in d.value:
        return evaluate(d.value[key.value], d.file or f, depth + 1)
    if d.kind == "list" and key.kind == "int" and 0 <= key.value < len(d.value):  # setup()[0] of a tuple
        return d.value[key.value]
    if d.kind == "queue" and key.kind == "str" and key.value == "QueueUrl":
        return _response_url(d, node)
    return unknown(node)


# ------------------------------------------------------------------------------------------ "x, else the queue N"
# (issue 35 §1) ``create_queue(QueueName=N)`` / ``get_queue_url(QueueName=N)`` evaluate to a response of the queue
# N (Value ``queue``: the Value of N), whose ``["QueueUrl"]`` / ``.get("QueueUrl")`` is that queue (a name, or the
# environment variable N is); ``None`` is ``none`` (not given); ``a or b`` is ``a`` when it is known and not empty,
# ``b`` when ``a`` is nothing (None, "", not passed), an environment variable with ``b`` as its default; a parameter
# that its function reassigns only when not given (``if x is None: x = ...``, ``if not x: ...``, ``x = x or ...``)
# is what its calls pass, else what those assignments give (one value; several: unknown, naming them). Each
# step is one evaluate (MAX_DEPTH bounds the nesting), the reassignments of one parameter at most MAX_AGREE.
def _response(node, f: File, depth: int) -> Value | None:
    """The response Value of a ``create_queue``/``get_queue_url`` call (None: another call)."""
    kw = _kwargs(f, node, depth)
    name = kw.get("QueueName")
    if name is None:
        return unknown(node, f"{_shown(node)} names no QueueName")
    v = evaluate(name, f, depth + 1)
    if v.kind not in ("str", "env") or (v.kind == "str" and not v.value.strip()):
        return unknown(node, f"the queue named {v.why or _shown(name)}")
    return Value("queue", v, node)


def _response_url(d: Value, node) -> Value:
    """The queue a response's QueueUrl is: the name (a ``name`` Value) or the environment variable it names."""
    inner = d.value
    if inner.kind == "env":
        return inner
    out = Value("name", inner.value.strip(), inner.node)
    out.via, out.file = inner.via, inner.file
    return out


def _or(node, f: File, depth: int) -> Value | None:
    """``a or b`` (None for ``and``: the engine's)."""
    if text(node.child_by_field_name("operator")).strip() != "or":
        return None
    a = evaluate(node.child_by_field_name("left"), f, depth + 1)
    b_node = node.child_by_field_name("right")
    if _nothing(a) or (a.kind in ("dict", "list") and not a.value):  # `attrs or {}`: an empty map is false
        return evaluate(b_node, f, depth + 1)
    if a.kind in ("str", "int", "name", "dict", "list") or (a.kind == "bool" and a.value):
        return a
    if a.kind == "env" and (a.default is None or _nothing(a.default)):  # os.getenv("Q", "") or "orders"
        b = evaluate(b_node, f, depth + 1)
        if b.kind == "int":
            b.env = a.value
            return b
        out = Value("env", a.value, a.node, default=b if b.kind == "str" else None)
        out.file = a.file
        return out
    out = unknown(node, f"{_shown(node)}: {a.why or _shown(a.node)}, else {_shown(b_node)}")
    out.env = env_of(a)
    return out


def _nothing(v: Value) -> bool:
    """Whether ``v`` is "not given": None, an empty string, False."""
    return v.kind == "none" or (v.kind == "str" and v.value == "") or (v.kind == "bool" and not v.value)


def _guarded(f: File, name: str, fn, assignment) -> bool:
    """Whether ``assignment`` (of the parameter ``name``, in ``fn``) runs only when ``name`` is not given: the
    body of ``if name is None:`` / ``if not name:`` / ``if name == None:``, or ``name = name or ...``."""
    right = assignment.child_by_field_name("right")
    for _ in range(MAX_DEPTH):  # `name = name or a or b`: the chain's first operand is the name
        if (
            right is None
            or right.type != "boolean_operator"
            or text(right.child_by_field_name("operator")) != "or"
        ):
            break
        right = right.child_by_field_name("left")
        if right is not None and text(right) == name:
            return True
    block = assignment.parent.parent if assignment.parent is not None else None
    stmt = block.parent if block is not None and block.type == "block" else None
    if stmt is None or stmt.type != "if_statement" or stmt.child_by_field_name("consequence") != block:
        return False
    cond = stmt.child_by_field_name("condition")
    if cond is None:
        return False
    if cond.type == "not_operator":
        arg = cond.child_by_field_name("argument")
        return arg is not None and text(arg) == name
    kids = cond.named_children
    ops = [text(c) for c in cond.children if not c.is_named]
    return (
        cond.type == "comparison_operator"
        and len(kids) == 2
        and text(kids[0]) == name
        and kids[1].type == "none"
        and " ".join(ops) in ("is", "==")
    )


def _defaulted_parameter(node, f: File, depth: int) -> Value | None:
    """A parameter its function reassigns only when it is not given (see above), read after those
    assignments: its calls' value when known and not nothing, else the assignments' one value. None when the
    name is no such parameter (the engine reads it)."""
    name = text(node)
    found = f.param_of(name, node.start_byte)
    if found is None:
        return None
    fn = found[0]
    bound = f.bindings.get(name, {})
    starts = f._binding_starts.get(name)
    if (
        starts is None
    ):  # sorted once: a parameter name reassigned in each of 3,000 functions is read 3,000 times
        starts = f._binding_starts[name] = sorted(bound)
    lo, hi = bisect.bisect_left(starts, fn.start_byte), bisect.bisect_left(starts, fn.end_byte)
    if hi - lo > MAX_AGREE:
        return None
    inside = [bound[at][0] for at in starts[lo:hi]]
    assigns = [n.parent for n in inside]
    if any(a is None or a.end_byte > node.start_byte for a in assigns):
        # read inside its own reassignment (`url = url or ...`: that one does not reach it), or before one (a
        # loop could bring it back): the engine's parameter
        return None
    if not assigns or len(assigns) > MAX_AGREE or depth >= MAX_DEPTH:
        return None
    if any(a.type != "assignment" or not _guarded(f, name, fn, a) for a in assigns):
        return None
    given = f.argument(node, name, depth + 1)
    if given.kind != "unknown" and not _nothing(given):
        return given
    if given.kind == "unknown" and not given.why.endswith("no call of it in its package passes it"):
        return unknown(node, f"{name}: {given.why}")
    got = []
    for a in assigns:
        right = a.child_by_field_name("right")
        v = evaluate(right, f, depth + 1)
        if v.kind == "unknown" or _nothing(v):
            return unknown(node, f"{name} when not given: {v.why or _shown(right)}")
        got.append(v)
    if len({(v.kind, repr(v.value) if v.kind != "env" else v.value) for v in got}) > 1:
        shown_ = ", ".join(_shown(v.node) for v in got[:3])
        return unknown(node, f"{name} when not given is one of several values ({shown_})")
    return got[0]


def _identifier(node, f: File, depth: int) -> Value | None:
    """A name: a parameter reassigned when not given, a ``for`` loop's name (:func:`_loop_element`), a local of
    another function (not this one's: unknown); None for the engine's reading."""
    name = text(node)
    if f.is_param(name, node.start_byte):
        return _defaulted_parameter(node, f, depth) if name in f.bindings else None
    got = _loop_element(node, f, depth) if name in _loop_names(f) else None
    if got is not None:
        return got
    got = _unpacked(node, f, depth)
    if got is not None:
        return got
    if name in f.bindings and not _in_scope(f, name, node):
        return unknown(node, f"{name} is a local name of another function")
    return None


_FUNCTION_KINDS = ("function_definition", "lambda")
_UNPACKING = re.compile(rb"(?m)^[ \t]*\(?[A-Za-z_]\w*[ \t]*,[\w \t,()]*=[^=]")  # a, b = ...: a byte prefilter
MAX_UNPACK_NODES = 200_000  # nodes of a file searched for ``a, b = call()`` (once per file)


def _unpacked(node, f: File, depth: int) -> Value | None:
    """A name bound by unpacking a call's result (``url, _ = setup()``) once in the function around ``node``,
    before it: that item of the tuple the call returns (engine.returned); None when the name is bound so nowhere."""
    index = getattr(f, "_py_unpacked", None)
    if index is None and not _UNPACKING.search(f.data[:MAX_BYTES]):
        index = f._py_unpacked = {}
    if index is None:
        index = {}
        for n in descendants(f.root, MAX_UNPACK_NODES):
            if n.type == "assignment":
                left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
                if left is not None and right is not None and left.type in ("pattern_list", "tuple_pattern"):
                    for i, k in enumerate(left.named_children):
                        if k.type == "identifier":
                            index.setdefault(text(k), []).append((k, i, right))
        f._py_unpacked = index
    entries = index.get(text(node))
    if not entries:
        return None
    fn = _around(f, node, _FUNCTION_KINDS)
    found = [
        e for e in entries if e[0].start_byte < node.start_byte and _around(f, e[0], _FUNCTION_KINDS) == fn
    ]
    if not found:
        return None
    if len(found) > 1:
        return unknown(node, f"{text(node)} is unpacked more than once")
    name, i, right = found[0]
    v = evaluate(right, f, depth + 1)
    if v.kind == "list" and i < len(v.value):
        out = v.value[i]
        return out if out.kind != "unknown" else unknown(node, out.why or text(node))
    return unknown(node, f"{text(node)} of {_shown(right)}: {v.why or 'not a tuple visguard reads'}")


_FOR_TARGET = re.compile(rb"\bfor\s+([A-Za-z_][\w\s,()\[\]]{0,200}?)\s+in\b")


def _loop_names(f: File) -> frozenset:
    """The names a ``for`` of the file may bind (a byte search, once per file): only those are looked up as a
    loop's (:func:`_loop_of` walks up the tree)."""
    got = getattr(f, "_py_loop_names", None)
    if got is None:
        names = set()
        for m in _FOR_TARGET.finditer(f.data[:MAX_BYTES]):
            names.update(w.decode() for w in re.findall(rb"[A-Za-z_]\w*", m.group(1)))
        got = f._py_loop_names = frozenset(names)
    return got


def _in_scope(f: File, name: str, use) -> bool:
    """Whether a binding of ``name`` is in scope at ``use``: one at module (or class) level, or one in a function
    around ``use`` (a closure's). Where each binding's function is, is found once per file; a use looks in its
    functions by bisection."""
    index = f.__dict__.setdefault("_py_scopes", {})
    got = index.get(name)
    if got is None:
        top, inside = False, []
        for n, _ in f.bindings.get(name, {}).values():
            up = f.parent(n)
            for _ in range(256):
                if up is None or up.type in ("function_definition", "lambda"):
                    break
                up = f.parent(up)
            if up is None or re.search(
                rb"\b(?:global|nonlocal)\s[^\n]*\b" + re.escape(name.encode()) + rb"\b", up.text or b""
            ):  # at module level, or `global NAME` in its function: the module's (nonlocal: as before)
                top = True
                break
            inside.append(n.start_byte)
        got = index[name] = (top, sorted(inside))
    top, starts = got
    if top:
        return True
    up = f.parent(use)
    for _ in range(256):
        if up is None:
            return False
        if up.type in ("function_definition", "lambda"):
            lo = bisect.bisect_left(starts, up.start_byte)
            if lo < len(starts) and starts[lo] < up.end_byte:
                return True
        up = f.parent(up)
    return False


# ------------------------------------------------------------------------------------------ registries
# (issue 35 §1) a decorator that registers its handler under its parameter (``self.routes[queue_url] = fn``,
# ``self.handlers.append((queue_url, fn))``) and a loop that receives from each (``for url, fn in
# self.routes.items(): receive(QueueUrl=url)``): the loop's name is each element the code puts in the collection
# (a field of the class, or a module-level name), one value when they all agree (several: unknown, named).
# Bounded: MAX_WALK nodes of the class (or module) walked once per collection, at most MAX_AGREE elements.
MAX_WALK = 50_000
_VIEWS = {"items": None, "keys": 0, "values": 1}  # dict view -> the part of a (key, value) element it gives


def _loop_element(node, f: File, depth: int) -> Value | None:
    """The value of ``node``, a name a ``for`` loop binds (``for url, fn in self.routes.items()``); None when
    it is no such name (the engine reads it)."""
    name = text(node)
    loop = _loop_of(f, node)
    if loop is None or depth >= MAX_DEPTH:
        return None
    stmt, names = loop
    at = names.index(name) if len(names) > 1 else None
    right = _unawait(stmt.child_by_field_name("right"))
    view = "list"
    if right is not None and right.type == "call":
        fn = right.child_by_field_name("function")
        args = right.child_by_field_name("arguments")
        if fn is None or fn.type != "attribute" or text(fn.child_by_field_name("attribute")) not in _VIEWS:
            return unknown(node, f"{name}: each of {_shown(right)}")
        if args is not None and args.named_children:
            return unknown(node, f"{name}: each of {_shown(right)}")
        view = text(fn.child_by_field_name("attribute"))
        right = fn.child_by_field_name("object")
    elements = _elements(f, right)
    what = f"{name}: each of {_shown(stmt.child_by_field_name('right'))}"
    if isinstance(elements, str):
        return unknown(node, f"{what}: {elements}")
    kind, items = elements
    picks = []
    for key, value in items:
        part = key if kind == "list" else (key, value)
        if kind == "dict":
            which = _VIEWS.get(view, 0) if view != "list" else 0  # iterating a dict gives its keys
            if which is None:  # items(): (key, value)
                part = (key, value)
                if at is None:
                    return unknown(node, f"{what}: a (key, value) pair")
                part = part[at] if at < 2 else None
            else:
                part = part[which] if at is None else None
        elif at is not None:  # a list of tuples: `for url, fn in self.handlers`
            kids = [k for k in part.named_children if k.type != "comment"] if part.type == "tuple" else []
            part = kids[at] if at < len(kids) else None
        if part is None:
            return unknown(node, f"{what}: an element visguard cannot take apart")
        picks.append(part)
    if not picks:
        return unknown(node, f"{what}: the code puts nothing in it that visguard reads")
    got = []
    for p in picks:
        v = evaluate(p, f, depth + 1)
        if v.kind == "unknown":
            return unknown(node, f"{what}: {v.why or _shown(p)}")
        got.append(v)
    distinct = {(v.kind, repr(v.value) if v.kind != "queue" else repr(v.value.value)) for v in got}
    if len(distinct) > 1:
        shown_ = ", ".join(_shown(v.node) for v in got[:3])
        return unknown(node, f"{what}: {len(got)} different values ({shown_})")
    out = got[0]
    out.computed = True
    return out


def _loop_of(f: File, node):
    """(the ``for`` statement around ``node`` in its function that binds its name, the names its target binds
    in order) or None."""
    name = text(node)
    up = f.parent(node)
    if up is not None and up.type == "attribute" and up.child_by_field_name("attribute") == node:
        return None  # the `x` of `a.x` is no name
    for _ in range(48):
        if up is None or up.type in ("function_definition", "class_definition", "module"):
            return None
        if up.type == "for_statement":
            left = up.child_by_field_name("left")
            names = (
                [left]
                if left is not None and left.type == "identifier"
                else (
                    left.named_children
                    if left is not None and left.type in ("pattern_list", "tuple_pattern")
                    else []
                )
            )
            if any(n.type == "identifier" and text(n) == name for n in names):
                body = up.child_by_field_name("body")
                if (
                    body is not None and body.start_byte <= node.start_byte
                ):  # read in the loop, not in its target
                    return up, [text(n) if n.type == "identifier" else None for n in names]
        up = f.parent(up)
    return None


def _elements(f: File, coll):
    """("dict", [(key node, value node)]) or ("list", [(element node, None)]) of what the code puts in the
    collection ``coll`` (``self.x`` of its class, or a module-level name), or why not (a str)."""
    if coll is None or coll.type not in ("identifier", "attribute"):
        return "a collection visguard does not follow"
    key = f.key(coll)
    own = key.startswith("self.")
    scope = f.root
    if own:
        up = f.parent(coll)
        for _ in range(64):
            if up is None or up.type == "class_definition":
                break
            up = f.parent(up)
        if up is None:
            return "a field outside a class"
        scope = up
    cache = f.__dict__.setdefault("_py_collections", {})
    found = cache.get((scope.start_byte, key))
    if found is not None:
        return found
    kind, items, why, seen = None, [], None, 0
    stack = [scope]
    while stack and why is None:
        n = stack.pop()
        seen += 1
        if seen > MAX_WALK:
            why = f"more than {MAX_WALK:,} nodes to look through"
            break
        t = n.type
        got = None
        if t == "assignment":
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            if left is not None and f.key(left) == key and right is not None:  # self.x = {...} / [...]
                if right.type == "dictionary" and all(p.type == "pair" for p in right.named_children):
                    got = ("dict", [(p.child_by_field_name("key"), p.child_by_field_name("value"))
                                    for p in right.named_children])  # fmt: skip
                elif right.type in ("list", "set", "tuple"):
                    got = ("list", [(e, None) for e in right.named_children if e.type != "comment"])
                elif (
                    right.type == "call"
                    and text(right.child_by_field_name("function"))
                    in ("dict", "list", "set", "defaultdict", "OrderedDict")
                    and not right.child_by_field_name("arguments").named_children[1:]
                ):
                    got = (
                        "dict" if "dict" in text(right.child_by_field_name("function")).lower() else "list",
                        [],
                    )
                else:
                    why = f"{key} is set to {_shown(right)}"
            elif (
                left is not None
                and left.type == "subscript"
                and f.key(left.child_by_field_name("value") or left) == key
            ):
                subs = left.children_by_field_name("subscript")
                got = ("dict", [(subs[0], right)]) if len(subs) == 1 else None
        elif t == "augmented_assignment":
            left = n.child_by_field_name("left")
            if left is not None and f.key(left) == key:
                why = f"{key} is extended by {_shown(n)}"
        elif t == "call":
            fn = n.child_by_field_name("function")
            if fn is not None and fn.type == "attribute" and f.key(fn.child_by_field_name("object")) == key:
                method = text(fn.child_by_field_name("attribute"))
                args = _positional(n)
                if method in ("append", "add") and len(args) == 1:
                    got = ("list", [(args[0], None)])
                elif method == "insert" and len(args) == 2:
                    got = ("list", [(args[1], None)])
                elif method == "setdefault" and len(args) == 2:
                    got = ("dict", [(args[0], args[1])])
                elif method in ("update", "extend", "__setitem__"):
                    why = f"{key} is filled by {_shown(n)}"
        if got is not None:
            if kind is not None and got[0] != kind:
                why = f"{key} is filled both as a list and as a map"
            kind = got[0]
            items += got[1]
            if len(items) > MAX_AGREE:
                why = f"more than {MAX_AGREE} elements"
        stack.extend(reversed(n.children))
    found = why if why is not None else ((kind or "list"), items)
    cache[(scope.start_byte, key)] = found
    return found


def _await(node, f: File, depth: int) -> Value:
    kids = [k for k in node.named_children if k.type != "comment"]
    return evaluate(kids[0], f, depth + 1) if kids else unknown(node)


def _dictionary(node, f: File, depth: int) -> Value:
    """A dict literal: Value ``dict`` of its string keys -> their pair nodes (evaluated when asked)."""
    pairs: dict[str, object] = {}
    for child in node.named_children:
        if child.type == "pair":
            key = evaluate(child.child_by_field_name("key"), f, depth + 1)
            if key.kind == "str":
                pairs[key.value] = child
        elif child.type == "dictionary_splat" and child.named_children:
            d = evaluate(child.named_children[0], f, depth + 1)
            if d.kind == "dict":
                pairs.update(d.value)
    return Value("dict", pairs, node)


def _call(node, f: File, depth: int) -> Value:
    fn = node.child_by_field_name("function")
    full = text(fn)
    name = full.rsplit(".", 1)[-1]
    args = _positional(node)
    if full in _ENV_CALLS or full.startswith("env."):
        var = evaluate(args[0], f, depth + 1) if args else None
        if var is not None and var.kind == "str" and var.value:
            at = args[1] if len(args) > 1 else _kwargs(f, node, depth).get("default")
            default = evaluate(at, f, depth + 1) if at is not None else None
            if default is not None and default.kind == "int":  # a number: the default, of the variable
                default.env = var.value
                return default
            return Value("env", var.value, node, default=default)
    if name == "get" and fn.type == "attribute" and 1 <= len(args) <= 2:
        got = _kwargs_get(node, fn.child_by_field_name("object"), args, f, depth)
        if got is not None:
            return got
        key = evaluate(args[0], f, depth + 1)
        if key.kind == "str" and key.value == "QueueUrl":  # create_queue(...).get("QueueUrl")
            d = evaluate(fn.child_by_field_name("object"), f, depth + 1)
            if d.kind == "queue":
                return _response_url(d, node)
    if name in _URL_CALLS and fn.type == "attribute":
        return _response(node, f, depth)
    if name == "format" and fn.type == "attribute":
        template = evaluate(fn.child_by_field_name("object"), f, depth + 1)
        if template.kind == "str":
            pos = [evaluate(a, f, depth + 1) for a in args]
            kw = {k: evaluate(v, f, depth + 1) for k, v in _kwargs(f, node, depth).items()}
            keys = list(kw)
            return compose(
                node,
                pos + [kw[k] for k in keys],
                lambda ps: braces(
                    template.value, ps[: len(pos)], dict(zip(keys, ps[len(pos) :], strict=True))
                ),
                _shown(node),
            )
    if name in _CONVERSIONS and len(args) == 1:
        return _convert(node, _CONVERSIONS[name], evaluate(args[0], f, depth + 1))
    if name == "timedelta":
        return _timedelta(node, f, args, depth)
    if name == "dict" and not args:
        return Value("dict", _kwargs(f, node, depth), node)
    if fn.type == "identifier":
        decl = _functions(f).get(full)
        if decl is not None and depth < MAX_DEPTH and FLOW.spend():
            # a function of the file (``def setup(): ...; return {"payments": url}``): what its returns give with
            # this call's arguments, when they agree (engine.returned)
            got = returned_by(f, decl, node, f, depth, full)
            returned = _returns(f).get(full) if got.kind == "unknown" else None
            if returned is None or not FLOW.spend():
                return got
            # a helper of the file that only returns an expression (``def _env_int(name, default): return
            # int(os.environ.get(name, str(default)))``): that expression with this call's arguments
            alone = FLOW.called(f, returned[0], node, f, returned[1], depth)
            return alone if alone.kind != "unknown" else got
    return unknown(node)


def _returns(f: File) -> dict:
    """The module-level functions of ``f`` whose body ends in their one ``return EXPR`` (a docstring aside; the
    statements before it straight: :func:`_only_return`): name -> (their definition, EXPR), once per file; a name
    defined twice is none of them."""
    got = getattr(f, "_py_returns", None)
    if got is None:
        got, seen = {}, set()
        for node in f.root.named_children:
            inner = node.child_by_field_name("definition") if node.type == "decorated_definition" else node
            if inner is None or inner.type != "function_definition":
                continue
            name = text(inner.child_by_field_name("name"))
            body = inner.child_by_field_name("body")
            stmts = [c for c in body.named_children if c.type != "comment"] if body is not None else []
            if (
                stmts
                and stmts[0].type == "expression_statement"
                and stmts[0].named_children
                and (stmts[0].named_children[0].type == "string")
            ):
                stmts = stmts[1:]  # its docstring
            one = stmts[-1] if stmts and stmts[-1].type == "return_statement" else None
            if one is not None and len(stmts) > 1 and not _only_return(body, one):
                one = None  # another return, a yield, a try: which value it gives is not the last line's
            expr = one.named_children[0] if one is not None and one.named_children else None
            if name in seen:
                got.pop(name, None)
            elif expr is not None and node.type != "decorated_definition":
                got[name] = (inner, expr)
            seen.add(name)
        f._py_returns = got
    return got


_NOT_STRAIGHT = {"return_statement", "yield", "try_statement", "with_statement", "raise_statement"}
MAX_BODY_NODES = 2_000  # nodes of a function's body looked at for another return


def _only_return(body, last) -> bool:
    """Whether the function body ``body`` (its last statement the return ``last``) returns nowhere else, yields
    nothing and catches nothing (nested functions and classes aside): its value is ``last``'s expression, read
    with the assignments before it (``attributes = {}`` ... ``return create_queue(..., Attributes=attributes)``)."""
    stack, seen = [c for c in body.named_children if c.id != last.id], 0
    while stack:
        n = stack.pop()
        seen += 1
        if seen > MAX_BODY_NODES or n.type in _NOT_STRAIGHT:
            return False
        if n.type in ("function_definition", "class_definition", "lambda"):
            continue
        stack.extend(n.named_children)
    return True


def _functions(f: File) -> dict:
    """The module-level functions of ``f`` (not decorated: a decorator may change what a call returns), name ->
    definition, once per file; a name defined twice is none of them."""
    got = getattr(f, "_py_functions", None)
    if got is None:
        got, seen = {}, set()
        for node in f.root.named_children:
            if node.type != "function_definition":
                continue
            name = text(node.child_by_field_name("name"))
            if name in seen:
                got.pop(name, None)
            else:
                got[name] = node
            seen.add(name)
        f._py_functions = got
    return got


def _kwargs_get(node, obj, args: list, f: File, depth: int) -> Value | None:
    """``kwargs.get("wait_time", 0)`` where ``kwargs`` is the function's ``**kwargs``: what its calls pass as
    ``wait_time=``, else the default (engine.Flow); None for another ``.get``."""
    if obj is None or obj.type != "identifier":
        return None
    found = f.param_of(text(obj), obj.start_byte)
    if found is None:
        return None
    sig = _signature(found[0], f)
    if sig is None or ("**" + text(obj)) not in [k for k, _, _ in sig[1]]:
        return None
    word = evaluate(args[0], f, depth + 1)
    if word.kind != "str" or not word.value:
        return None
    return FLOW.argument(
        f, found[0], found[1], word.value, sig, depth, keyword=(args[1] if len(args) > 1 else None)
    )


def _convert(node, to, v: Value) -> Value:
    """``int(v)`` / ``float(v)`` / ``str(v)``; of an environment variable, its default converted."""
    var = env_of(v)
    src = v.default if v.kind == "env" else v
    if src is None or src.kind not in ("int", "str"):
        out = Value("env", var, node) if var else unknown(node)
        return out
    try:
        got = to(src.value)
        if to is not str:
            got = values.number(got)
    except (ValueError, OverflowError, TypeError):  # values.BadValue is a ValueError
        return Value("env", var, node) if var else unknown(node)
    out = Value("str" if to is str else "int", got, src.node)
    out.via, out.scale, out.env = src.via, src.scale, var
    out.computed = src.computed or (src.kind == "int" and got != src.value)
    return out


def _timedelta(node, f: File, args: list, depth: int) -> Value:
    named = [(k, evaluate(v, f, depth + 1)) for k, v in _kwargs(f, node, depth).items()]
    named += [(unit, evaluate(a, f, depth + 1)) for unit, a in zip(_TIMEDELTA_POS, args, strict=False)]
    total = 0.0
    for unit, v in named:
        if v.kind != "int":
            return unknown(node)
        total += v.value * _TIMEDELTA.get(unit, 0)
    try:
        out = Value("int", values.number(total), node)
    except values.BadValue:
        return unknown(node)
    out.computed = True
    return out


# ------------------------------------------------------------------------------------------ settings classes
# (issue 35 §1) ``Config.QUEUE`` of ``class Config: QUEUE = os.getenv("Q", "orders")``, in this module or imported
# from another of the package (``from .config import Config``, ``import config`` then ``config.Config.QUEUE``), and
# an instance's ``settings.QUEUE`` (``settings = Settings()``, here or imported): the class attribute, a base's when
# the class does not set it, a dataclass/pydantic instance's keyword argument over its default, a pydantic
# ``BaseSettings`` field the environment variable of its name with the default as fallback. Bounded: at most
# MAX_BASES classes up, names followed MAX_DEPTH deep, each module looked up one FLOW step (FLOW.spend), the
# classes of a file indexed once (``_classes``: one dict per parsed file, dropped with it).
MAX_BASES = 4
_SETTINGS_BASES = ("BaseSettings",)  # pydantic / pydantic-settings: a field is read from the environment
_DATA_DECORATORS = ("dataclass", "dataclasses.dataclass", "attr.s", "attrs.define", "define", "frozen")


def _classes(f: File) -> dict:
    """The module-level classes of ``f``: name -> class_definition node (decorated ones too), once per file."""
    got = getattr(f, "_py_classes", None)
    if got is None:
        got = {}
        for node in f.root.named_children:
            inner = node.child_by_field_name("definition") if node.type == "decorated_definition" else node
            if inner is not None and inner.type == "class_definition":
                got.setdefault(text(inner.child_by_field_name("name")), inner)
        f._py_classes = got
    return got


def _class_of(f: File, obj, depth: int):
    """(the File, the class node, the call that made the instance or None, the File of that call) ``obj`` names:
    a class of ``f`` or of a module it imports, or a name bound once to a call of one (``settings = Settings()``);
    None for anything else (the engine reads it)."""
    if depth > MAX_DEPTH or obj is None:
        return None
    if obj.type == "call":
        callee_node = obj.child_by_field_name("function")
        decl = _functions(f).get(text(callee_node)) if callee_node is not None else None
        exprs = returns_of(decl) if decl is not None else None
        if exprs is not None and len(exprs) == 1 and FLOW.spend():  # `q = holder()`: the instance it returns
            return _class_of(f, _unawait(exprs[0]), depth + 1)
        if (
            callee_node is None or not _last(text(callee_node)).lstrip("_")[:1].isupper()
        ):  # a class by its name
            return None
        got = _class_of(f, callee_node, depth + 1)
        return (got[0], got[1], obj, f) if got is not None and got[2] is None else None
    if obj.type == "identifier":
        name = text(obj)
        if name in ("self", "cls"):
            return None
        cls = _classes(f).get(name)
        if cls is not None:
            return f, cls, None, None
        if f.is_param(name, obj.start_byte):
            return None
        if name in _loop_names(f):
            loop = _loop_of(f, obj)
            if loop is not None:  # `for spec in REGISTRY`: the one instance the code puts there
                stmt, names = loop
                right = _unawait(stmt.child_by_field_name("right"))
                items = _elements(f, right) if len(names) == 1 and right is not None else None
                if isinstance(items, tuple) and items[0] == "list" and len(items[1]) == 1:
                    return _class_of(f, items[1][0][0], depth + 1)
                return None
        if name in f.bindings and not _in_scope(f, name, obj):
            return None  # bound only in another function: not this name's value
        right, _ = f.resolve(obj)
        if right is not None:
            return _class_of(f, _unawait(right), depth + 1) if right.type in ("call", "await") else None
    elif obj.type != "attribute" or obj.child_by_field_name("object").type != "identifier":
        return None  # `a.b.C`: a package's module's class is not followed
    key = f.key(obj)
    # `Config` of `from .config import Config` (a class or an instance), `config.Config` of `import config`
    names = _import_names(f)[0 if obj.type == "identifier" else 1]
    if key.split(".")[0] not in names or not FLOW.spend():
        return None
    got = _imported(f, key)
    if got is None:
        return None
    g, name = got
    cls = _classes(g).get(name)
    if cls is not None:
        return g, cls, None, None
    right, _ = g._found(name)
    if right is not None and right.type == "call":
        return _class_of(g, right, depth + 1)
    return None


def _import_names(f: File) -> tuple[frozenset, frozenset]:
    """The names ``f``'s module-level imports bind, once per file: (by ``from X import name`` (``as``), any)."""
    got = getattr(f, "_py_imports", None)
    if got is None:
        froms, every = set(), set()
        for stmt in f.root.named_children:
            if stmt.type in ("import_from_statement", "import_statement"):
                for name in stmt.children_by_field_name("name"):
                    every.add(_aliased(name)[1])
                    if stmt.type == "import_from_statement":
                        froms.add(_aliased(name)[1])
        got = f._py_imports = (frozenset(froms), frozenset(every))
    return got


def _class_fields(cls) -> dict:
    """The attributes a class body assigns: name -> [(its name node, its value node or None: annotated only)]."""
    out: dict[str, list] = {}
    body = cls.child_by_field_name("body")
    for stmt in body.named_children if body is not None else ():
        if stmt.type != "expression_statement" or not stmt.named_children:
            continue
        a = stmt.named_children[0]
        left = a.child_by_field_name("left") if a.type == "assignment" else None
        if left is not None and left.type == "identifier":
            out.setdefault(text(left), []).append((left, a.child_by_field_name("right")))
    return out


def _base_names(cls) -> list:
    bases = cls.child_by_field_name("superclasses")
    return [b for b in bases.named_children if b.type in ("identifier", "attribute")] if bases else []


def _is_data(cls) -> bool:
    """A dataclass (attrs) class: its instances take its fields as keyword arguments."""
    holder = cls.parent
    if holder is None or holder.type != "decorated_definition":
        return False
    for d in holder.named_children:
        if d.type == "decorator":
            name = text(d).lstrip("@").strip().split("(")[0]
            if name in _DATA_DECORATORS:
                return True
    return False


def _settings_attribute(node, f: File, depth: int) -> Value | None:
    """The value of ``X.attr`` when ``X`` is a settings class or its instance (see above); None when it is not."""
    obj, attr = node.child_by_field_name("object"), node.child_by_field_name("attribute")
    if obj is None or attr is None or depth > MAX_DEPTH or text(obj) in ("self", "cls"):
        return None
    found = _class_of(f, obj, depth + 1)
    if found is None:
        return None
    g, cls, call, caller = found
    name = text(attr)
    settings = False
    for _ in range(MAX_BASES):
        if call is not None and (_is_data(cls) or settings or _derives(g, cls, _SETTINGS_BASES)):
            pos, kw, splat = _call_args(call, caller) or ([], {}, True)
            if kw.get(name) is not None:  # Settings(QUEUE="q"): the instance's own
                v = evaluate(kw[name], caller, depth + 1)
                if v.file is None and caller is not f:
                    v.file = caller
                return v
            if pos or splat:
                return unknown(node, f"{_shown(node)}: {_shown(call)} passes arguments visguard does not map")
        if call is not None and b"__init__" in (cls.text or b"") and f"self.{name}".encode() in cls.text:
            return unknown(node, f"{_shown(node)} is set by {text(cls.child_by_field_name('name'))}.__init__")
        settings = settings or _derives(g, cls, _SETTINGS_BASES)
        fields = _class_fields(cls).get(name)
        if fields:
            if len(fields) > 1 and any(text(r) != text(fields[0][1]) for _, r in fields[1:] if r is not None):
                return unknown(node, f"{_shown(node)} is assigned more than once in its class")
            left, right = fields[-1]
            return _field_value(node, g, cls, left, right, settings, depth)
        up = None
        for base in _base_names(cls):
            up = _class_of(g, base, depth + 1)
            if up is not None:
                break
        if up is None:
            return unknown(
                node, f"{_shown(node)}: the class {text(cls.child_by_field_name('name'))} sets no {name}"
            )
        g, cls = up[0], up[1]
    return unknown(node, f"{_shown(node)}: beyond {MAX_BASES} base classes")


def _derives(g: File, cls, names: tuple[str, ...]) -> bool:
    """Whether ``cls`` names one of ``names`` among its bases (by the base's last name), or a base of its
    package's does, at most MAX_BASES up."""
    for _ in range(MAX_BASES):
        bases = _base_names(cls)
        if any(_last(text(b)) in names for b in bases):
            return True
        up = next((u for u in (_classes(g).get(text(b)) for b in bases) if u is not None), None)
        if up is None:
            return False
        cls = up
    return False


def _env_prefixed(cls) -> bool:
    """Whether a pydantic settings class renames its variables (``env_prefix`` in ``model_config`` or its inner
    ``class Config``): then a field's variable is not its name."""
    return b"env_prefix" in (cls.text or b"") or b"alias" in (cls.text or b"")


def _field_value(node, g: File, cls, left, right, settings: bool, depth: int) -> Value:
    """A class attribute's value (``right`` in ``g``; None: annotated only), read as the attribute ``node``."""
    if (
        settings
    ):  # pydantic: the variable of the field's name (case-insensitive: written upper), else the default
        if _env_prefixed(cls):
            return unknown(
                node, f"{_shown(node)}: a pydantic field whose variable is renamed (env_prefix, alias)"
            )
        default = evaluate(right, g, depth + 1) if right is not None else None
        if default is not None:
            if default.kind == "unknown":
                return unknown(node, f"{_shown(node)}: its default {default.why or _shown(right)}")
            if default.file is None:
                default.file = g
            if default.kind == "int":  # a number: the default, of the variable (as os.getenv's)
                default.env = text(left).upper()
                return default
        v = Value("env", text(left).upper(), left, default=default)
        v.file = g
        return v
    if right is None:
        return unknown(node, f"{_shown(node)} is declared without a value")
    v = evaluate(right, g, depth + 1)
    if v.kind == "unknown":
        out = unknown(node, v.why or _shown(node))
        out.env = v.env
        return out
    if v.via is None:
        v.via = left
    if v.file is None:
        v.file = g
    return v


def _own_attribute(node, f: File, depth: int) -> Value | None:
    """``self.x`` read in a class whose methods assign ``self.x``, when another class of the file assigns a
    ``self.x`` too: the assignments of its own class (two classes of one file each with ``self.queue_url =
    queue_url`` are two values, not one binding of the file); None when every assignment is the class's own, or
    none is (an inherited field: the engine reads the file's)."""
    if depth > MAX_DEPTH:
        return None
    own = _own_binding(f, node)
    if own is None:
        return None
    name, right = own
    v = evaluate(right, f, depth + 1)
    if v.kind == "unknown":
        out = unknown(node, v.why or text(node))
        out.env = v.env
        return out
    if v.via is None:
        v.via = name
    return v


def _own_binding(f: File, node):
    """(name node, value node) of the one way ``self.x`` (``node``) is assigned in its own class when another
    class of the file assigns a ``self.x`` too (:func:`_own_attribute`), else None."""
    obj = node.child_by_field_name("object") if node.type == "attribute" else None
    if obj is None or text(obj) not in ("self", "cls"):
        return None
    bound = f.bindings.get(f.key(node))
    if not bound or len(bound) < 2:
        return None
    cls = _class_around(f, node)
    if cls is None:
        return None
    own = [(n, r) for n, r in bound.values() if cls.start_byte <= n.start_byte < cls.end_byte]
    if not own or len(own) == len(bound):
        return None
    if any(r is None for _, r in own) or len({text(r) for _, r in own}) > 1:
        return None  # assigned in several ways in its class: the engine's agreement reads them (all, named)
    return own[0]


def _class_around(f: File, node):
    up = f.parent(node)
    for _ in range(256):
        if up is None or up.type == "class_definition":
            return up
        up = f.parent(up)
    return None


def _conditional(node, f: File, depth: int) -> Value | None:
    """``a if x is not None else b`` (``is None``, or ``x`` alone, its truth) when what ``x`` is is known here
    (``None`` not given, a literal, a number): the branch it takes; None (the engine's unknown) otherwise."""
    kids = [c for c in node.named_children if c.type != "comment"]
    if len(kids) != 3 or depth > MAX_DEPTH:
        return None
    then, cond, other = kids
    test = _truth(f, cond, depth)
    if test is None:
        return None
    return evaluate(then if test else other, f, depth + 1)


def _truth(f: File, cond, depth: int) -> bool | None:
    if cond.type == "parenthesized_expression" and len(cond.named_children) == 1:
        return _truth(f, cond.named_children[0], depth)
    if cond.type == "not_operator":
        got = _truth(f, cond.child_by_field_name("argument"), depth)
        return None if got is None else not got
    if cond.type == "comparison_operator" and len(cond.named_children) == 2:
        left, right = cond.named_children
        op = " ".join(text(c) for c in cond.children if not c.is_named)
        if right.type != "none" or op not in ("is", "is not"):
            return None
        v = evaluate(left, f, depth + 1)
        if v.kind == "none":
            return op == "is"
        if v.kind in ("str", "int", "bool", "name", "queue", "dict"):
            return op == "is not"
        return None  # not known (an environment variable may be unset)
    if cond.type in ("identifier", "attribute"):
        v = evaluate(cond, f, depth + 1)
        if v.kind == "none":
            return False
        if v.kind in ("str", "int", "bool"):
            return bool(v.value)
        if v.kind in ("name", "queue"):
            return True
    return None


def _subclass_attribute(node, f: File, depth: int) -> Value | None:
    """``self.x`` of an object of a subclass being read (engine.Flow.subclasses_pinned): the one ``self.x = ...``
    of the most derived subclass's ``__init__`` that sets it, read in its file (unknown when it sets it more than
    once or in another method too); None when no such subclass sets it."""
    obj = node.child_by_field_name("object") if node.type == "attribute" else None
    if obj is None or text(obj) != "self" or depth > MAX_DEPTH:
        return None
    key = "self." + text(node.child_by_field_name("attribute"))
    for g, init in FLOW.subclasses_pinned():
        cls = _class_around(g, init)
        found, stack = [], [cls] if cls is not None else []
        while stack and len(found) < 4:
            n = stack.pop()
            if n.type == "assignment" and text(n.child_by_field_name("left")) == key:
                found.append(n)
            stack.extend(n.named_children)
        if not found:
            continue
        right = found[0].child_by_field_name("right")
        if len(found) > 1 or right is None or not (init.start_byte <= found[0].start_byte < init.end_byte):
            return unknown(node, f"{key} is set by {text(cls.child_by_field_name('name'))} in several places")
        v = evaluate(right, g, depth + 1)
        if v.file is None and g is not f:
            v.file = g
        return v
    return None


def _attribute(node, f: File, depth: int) -> Value | None:
    got = _subclass_attribute(node, f, depth)
    if got is not None:
        return got
    got = _own_attribute(node, f, depth)
    if got is not None:
        return got
    got = _property(node, f, depth)
    return got if got is not None else _settings_attribute(node, f, depth)


_PROPERTIES = frozenset(("property", "cached_property", "functools.cached_property"))


def _property(node, f: File, depth: int) -> Value | None:
    """``self.queue_url`` where nothing assigns ``self.queue_url`` and its class defines it as a property
    (``@property def queue_url(self): return ...``, ``@cached_property``): what the property returns, read in
    the class (its ``self.x`` as the class's); None for any other attribute."""
    obj = node.child_by_field_name("object")
    attr = node.child_by_field_name("attribute")
    if obj is None or attr is None or text(obj) not in ("self", "cls") or depth > MAX_DEPTH:
        return None
    if f.bindings.get(f.key(node)):
        return None  # assigned somewhere: the engine reads the assignments
    cls = _class_around(f, node)
    body = cls.child_by_field_name("body") if cls is not None else None
    for item in body.named_children if body is not None else ():
        if item.type != "decorated_definition":
            continue
        fn = item.child_by_field_name("definition")
        decorators = {text(d).lstrip("@").strip() for d in item.named_children if d.type == "decorator"}
        if fn is None or fn.type != "function_definition" or not decorators & _PROPERTIES:
            continue
        if text(fn.child_by_field_name("name")) != text(attr):
            continue
        exprs = returns_of(fn)
        if not exprs or len(exprs) > 1:
            return unknown(
                node, f"the property {text(attr)} returns {'nothing' if not exprs else 'several values'}"
            )
        v = evaluate(exprs[0], f, depth + 1)
        if v.kind == "unknown":
            out = unknown(node, f"the property {text(attr)} returns {v.why or text(exprs[0])}")
            out.env = v.env
            return out
        return v
    return None


_HOOKS = {
    "attribute": _attribute,
    "none": lambda node, f, depth: Value("none", None, node),
    "boolean_operator": _or,
    "identifier": _identifier,
    "await": _await,
    "string": _string,
    "concatenated_string": _concatenated,
    "unary_operator": _unary,
    "subscript": _subscript,
    "dictionary": _dictionary,
    "call": _call,
    "binary_operator": _percent,
    "conditional_expression": _conditional,
}


# ------------------------------------------------------------------------------------------------ arguments
def _kwargs(f: File, call, depth: int = 0) -> dict[str, object]:
    """Keyword arguments of ``call`` -> their keyword_argument node (``**{...}`` / ``**name`` of a dict literal
    included, keyed to the dict's pair)."""
    out: dict[str, object] = {}
    args = call.child_by_field_name("arguments")
    for child in args.named_children if args is not None else ():
        if child.type == "keyword_argument":
            name = child.child_by_field_name("name")
            if name is not None:
                out[text(name)] = child
        elif child.type == "dictionary_splat" and child.named_children:
            d = evaluate(child.named_children[0], f, depth + 1)
            if d.kind == "dict":
                out.update(d.value)
    return out


def _positional(call) -> list:
    args = call.child_by_field_name("arguments")
    if args is None:
        return []
    return [
        c for c in args.named_children if c.type not in ("keyword_argument", "dictionary_splat", "comment")
    ]


def _has_splat(call) -> bool:
    args = call.child_by_field_name("arguments")
    return args is not None and any(c.type == "dictionary_splat" for c in args.named_children)


def _calls(f: File) -> dict[str, list]:
    """The calls the query captures by their role (:data:`_ROLES`), and the ``import`` and ``entry.visibility``
    captures, each in document order (an outer call before the calls in it); one pass over the matches."""
    found: dict[str, dict] = {}
    for _, caps in f.matches:
        if "call" in caps:
            node = caps["call"][0]
            role = _ROLES[text(caps["call.name"][0])]
            if role == "task" and (node.parent is None or node.parent.type != "decorator"):
                continue
        elif "import" in caps:
            node, role = caps["import"][0], "import"
        elif "entry.visibility" in caps:
            node, role = caps["entry.visibility"][0], "entry"
        else:
            continue
        found.setdefault(role, {})[(node.start_byte, -node.end_byte)] = node
    return {role: [calls[k] for k in sorted(calls)] for role, calls in found.items()}


def _preorder(node) -> tuple[int, int]:
    return node.start_byte, -node.end_byte


def _name(call) -> str:
    """The called name: ``receive_message`` of ``sqs.receive_message(...)``."""
    fn = call.child_by_field_name("function")
    if fn is not None and fn.type == "attribute":
        fn = fn.child_by_field_name("attribute")
    return text(fn)


def _last(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def _bound(f: File, node):
    """The one expression name ``node`` is assigned in the file, or None (``a = b = 1``: ``1``); None for a name a
    ``for`` loop around it binds, or one bound only in other functions (not in scope there)."""
    if node.type == "identifier" and not f.is_param(text(node), node.start_byte):
        name = text(node)
        if (name in _loop_names(f) and _loop_of(f, node) is not None) or (
            name in f.bindings and not _in_scope(f, name, node)
        ):
            return None
    own = _own_binding(f, node)
    right = own[1] if own is not None else f.resolve(node)[0]
    while right is not None and right.type == "assignment":
        right = right.child_by_field_name("right")
    return right


def _deref(f: File, node):
    """``node`` after following names to the one expression they are assigned."""
    seen: set[str] = set()
    while node is not None and node.type in ("identifier", "attribute") and len(seen) < MAX_DEPTH:
        key = f.key(node)
        if key in seen:
            return node
        seen.add(key)
        right = _bound(f, node)
        if right is None:
            return node
        node = right
    return node


def _unawait(node):
    return (
        node.named_children[0] if node is not None and node.type == "await" and node.named_children else node
    )


def _enclosing(node, types: tuple[str, ...], stop: tuple[str, ...] = ()):
    n = node.parent
    for _ in range(256):
        if n is None or n.type in stop:
            return None
        if n.type in types:
            return n
        n = n.parent
    return None


def _in_function(node) -> bool:
    return _enclosing(node, ("function_definition", "lambda")) is not None


def _inside(node, outer) -> bool:
    return outer.start_byte <= node.start_byte and node.end_byte <= outer.end_byte


def _first_inside(nodes: list, outer) -> int | None:
    """The index of the first of ``nodes`` (in document order) inside ``outer``, or None."""
    i = bisect.bisect_left(nodes, outer.start_byte, key=lambda n: n.start_byte)
    return i if i < len(nodes) and _inside(nodes[i], outer) else None


def _shown(node) -> str:
    s = " ".join(text(node).split())
    return s if len(s) <= 80 else s[:77] + "..."


def _seconds(f: File, r: Reader, node, what: str, address: str, c=None, field=None) -> Value | None:
    """The number ``node`` writes (a literal, a constant, an environment variable's default), else None and a
    note (none when consumer ``c``'s annotation states ``field``: engine.Reader.annotated)."""
    v = evaluate(node, f)
    var = env_of(v)
    if v.kind == "int":
        if var:
            r.note(
                f"{what} comes from the environment variable {var}; its default {v.value:g} is used",
                node,
                address,
            )
        return v
    if var:
        r.note(
            f"{what} comes from the environment variable {var}, which sets no default here: not checked",
            node,
            address,
        )
    elif v.kind == "bad" or v.why.endswith(
        NOT_A_NUMBER
    ):  # beyond any AWS limit (values.MAX_NUMBER), NaN, inf
        literal = text(v.node) if v.kind == "bad" else v.why[: -len(NOT_A_NUMBER)].strip()
        r.note(f"{what}: {literal} is beyond any number visguard reads (10**15): not read", node, address)
    elif c is not None and r.annotated(c, field):
        return None
    else:
        why = _shown(node)
        if v.why and v.why not in why:  # the expression, and the part of it that stopped the reading
            why = f"{why}: {v.why}"
        example = "<n>" if field == "max_messages" else "<seconds>"
        hint = f"; {r.hint(ANNOTATION_FIELDS[field], example)}" if field in ANNOTATION_FIELDS else ""
        r.note(f"{what} is computed ({why}): visguard does not guess it{hint}", node, address)
    return None


# ------------------------------------------------------------------------------------------------ queues
def _queue_ref(f: File, r: Reader, node, name_kind: bool = False) -> QueueRef | None:
    """What a QueueUrl/QueueName/url argument names: a literal, ``$VAR``, or a get_queue_url result."""
    target = node.child_by_field_name("value") if node.type in ("keyword_argument", "pair") else node
    target = _deref(f, target)
    where = r.loc(node)
    kind = "name" if name_kind else None
    call = _get_queue_url(f, target)
    if call is not None:
        qn = _kwargs(f, call).get("QueueName")
        return _queue_ref(f, r, qn, name_kind=True) if qn is not None else None
    v = evaluate(target, f)
    if r.elsewhere(v):  # written in another file (the call that passes it): located there
        where = r.at(v, v.node)
    var = env_of(v)
    if var:
        default = v.default if v.kind == "env" else v
        fallback = None
        if (
            default is not None and default.kind == "str" and default.value
        ):  # os.environ.get("Q", "<literal>")
            fallback = queue_ref(default.value, where, kind)
        return QueueRef("env", var, where, fallback)
    if v.kind == "str" and v.value:
        return queue_ref(v.value, where, kind)
    if v.kind == "name" and v.value:  # the queue a create_queue/get_queue_url response names
        return queue_ref(v.value, where, "name")
    return None


# calls whose response's QueueUrl is the URL of the queue their QueueName names
_URL_CALLS = ("get_queue_url", "create_queue")


def _get_queue_url(f: File, node):
    """The ``get_queue_url(...)`` call of ``x.get_queue_url(...)["QueueUrl"]`` / ``.get("QueueUrl")``."""
    node = _unawait(node)
    if node is None:
        return None
    inner = None
    if node.type == "subscript":
        inner = node.child_by_field_name("value")
    elif node.type == "call":
        fn = node.child_by_field_name("function")
        if fn is not None and fn.type == "attribute" and _last(text(fn)) == "get":
            inner = fn.child_by_field_name("object")
    if inner is not None:
        inner = _unawait(_deref(f, inner))
        if inner.type == "call" and _last(text(inner.child_by_field_name("function"))) in _URL_CALLS:
            return inner
    return None


def _resource_queue(f: File, r: Reader, receiver):
    """QueueRef of a resource ``Queue`` object (``sqs.Queue(url)``, ``get_queue_by_name(QueueName=)``); False
    when the receiver is not such an object."""
    node = _unawait(_deref(f, receiver))
    if node is None or node.type != "call":
        return False
    name = _last(text(node.child_by_field_name("function")))
    kw = _kwargs(f, node)
    if name == "Queue":
        args = _positional(node)
        arg = kw.get("url") or (args[0] if args else None)
        return _queue_ref(f, r, arg) if arg is not None else None
    if name in ("get_queue_by_name", "create_queue"):
        qn = kw.get("QueueName")
        return _queue_ref(f, r, qn, name_kind=True) if qn is not None else None
    return False


# ------------------------------------------------------------------------------------------------ SDK receives
def _sdk(f: File, r: Reader, calls: dict, aws: bool) -> None:
    receives = calls.get("receive", [])
    entries = calls.get("entry", [])
    beats = [call for call in calls.get("heartbeat", ()) if not _releases_only(f, call, entries)]
    interval = extend_by = None
    for call in beats:
        if interval is None:
            interval = _heartbeat_interval(f, call, receives, calls.get("sleep", []))
        if extend_by is None:
            v = evaluate(_kwargs(f, call).get("VisibilityTimeout"), f)
            extend_by = v.value if v.kind == "int" else None
    for call in receives:
        # a receive shared by the call sites of one function (``@listener(queue_url=..., visibility_timeout=60)``
        # of a listener library): one consumer per call site (engine.Reader.per_call_site)
        r.per_call_site(lambda call=call: _receive(f, r, call, aws, beats, interval, extend_by))


def _receive(f: File, r: Reader, call, aws: bool, beats, interval, extend_by):
    """The consumer of one receive call (None: not an SQS receive)."""
    kw = _kwargs(f, call)
    ref = None
    if _name(call) == "receive_message":
        # the SDK's requires QueueUrl: a call without it (nor a ``**dict``) is a wrapper's or another library's
        if "QueueUrl" in kw:
            ref = _queue_ref(f, r, kw["QueueUrl"])
        elif not (aws and _has_splat(call)):
            return None
    else:
        fn = call.child_by_field_name("function")
        receiver = fn.child_by_field_name("object") if fn.type == "attribute" else None
        ref = _resource_queue(f, r, receiver) if receiver is not None else False
        if ref is False:
            aws_keys = bool(kw.keys() & _RECEIVE_KEYS)
            if not (aws_keys or (aws and not any(k[:1].islower() for k in kw))):
                return None
            ref = None
    c = r.consumer(call, "sdk", queue_ref=ref, heartbeat=bool(beats))
    if ref is not None:
        c.locations["queue_ref"] = ref.location
    if beats:
        c.locations["heartbeat"] = r.loc(beats[0])
        if interval is not None:
            r.set(c, "heartbeat_interval", interval[0].value, interval[1], interval[0])
        if extend_by is not None:
            c.heartbeat_extend_by = extend_by
    if ref is None and "QueueUrl" in kw and not r.annotated(c, "queue"):
        v = evaluate(_deref(f, kw["QueueUrl"].child_by_field_name("value")), f)
        if v.pattern is not None:  # built of parts, some known only where it runs (engine.compose)
            c.settings["queue_pattern"] = v.pattern
            c.locations["queue_pattern"] = r.loc(kw["QueueUrl"])
        why = f"{_shown(kw['QueueUrl'])}: not given (None)" if v.kind == "none" else v.why
        before = len(r.result.notes)
        r.note(
            f"the QueueUrl of this receive is computed ({why or _shown(kw['QueueUrl'])}): not joined; "
            f"{r.hint('queue', '<name or URL>')}",
            kw["QueueUrl"],
            c.id,
        )
        value = kw["QueueUrl"].child_by_field_name("value")
        if value is not None:  # a queue the file creates may be it (creates.py)
            r.computed_queues.append((c, value, r.result.notes[before:]))
    vt = kw.get("VisibilityTimeout")
    if vt is not None:
        v = _seconds(f, r, vt, "the VisibilityTimeout of this receive", c.id, c, "visibility_override")
        if v is not None or "visibility_override" not in c.locations:
            r.set(c, "visibility_override", v.value if v else None, vt, v)
    for key, setting in (("WaitTimeSeconds", "wait_time"), ("MaxNumberOfMessages", "max_messages")):
        if key in kw:
            v = _seconds(f, r, kw[key], f"the {key} of this receive", c.id, c, setting)
            if v is not None:
                r.set(c, setting, v.value, kw[key], v)
    return c


def _releases_only(f: File, call, entries_visibility: list) -> bool:
    """True when a change-visibility call only sets 0 (gives the message back), which is no heartbeat."""
    kw = _kwargs(f, call)
    if _name(call) != "change_message_visibility_batch":
        v = evaluate(kw.get("VisibilityTimeout"), f)
        return v.kind == "int" and v.value == 0
    entries = kw.get("Entries")
    if entries is None:
        return False
    entries = entries.child_by_field_name("value") or entries
    at = _first_inside(entries_visibility, entries)
    found = []
    for p in entries_visibility[at:] if at is not None else ():
        if not _inside(p, entries):
            break
        found.append(evaluate(p, f))
    return bool(found) and all(v.kind == "int" and v.value == 0 for v in found)


def _heartbeat_interval(f: File, call, receives: list, sleeps: list) -> tuple[Value, object] | None:
    """(value, argument) of the literal sleep/wait of a ``while`` loop that extends visibility and receives
    nothing: a dedicated heartbeat loop."""
    loop = _enclosing(call, ("while_statement",), ("function_definition", "class_definition", "module"))
    if loop is None or _first_inside(receives, loop) is not None:
        return None
    at = _first_inside(sleeps, loop)
    for n in sleeps[at:] if at is not None else ():
        if not _inside(n, loop):
            break
        args = _positional(n)
        arg = args[0] if args else _kwargs(f, n).get("timeout")
        v = evaluate(arg, f) if arg is not None else None
        if v is not None and v.kind == "int" and not env_of(v) and v.value > 0:
            return v, arg
    return None


# ------------------------------------------------------------------------------------------------ Celery
def _plain(f: File, node) -> Value:
    """A Celery setting's value as the app reads it without its environment: an environment variable's default."""
    v = evaluate(node, f)
    if v.kind == "env":
        return v.default if v.default is not None else unknown(node)
    return v


def _celery(f: File, r: Reader, calls: dict) -> None:
    # setting -> (position, value node), per scope: the module (None), or a settings class of its own (a file
    # often holds one per environment: class Config / class Test(Config) with a fake broker)
    scopes: dict[int | None, dict[str, tuple[int, object]]] = {None: {}}

    def put(key: str, node, at: int) -> None:
        setting = _CELERY_KEYS.get(key)
        cls = _enclosing(node, ("class_definition",))
        conf = scopes.setdefault(cls.start_byte if cls is not None else None, {})
        if setting is not None and (setting not in conf or conf[setting][0] <= at):
            conf[setting] = (at, node)

    def put_dict(pairs: dict, at: int) -> None:
        for k, pair in pairs.items():
            put(k, pair, at)

    bound = sorted(
        ((name, value) for slot in f.bindings.values() for name, value in slot.values() if value is not None),
        key=lambda nv: nv[0].start_byte,
    )
    for left, right in bound:
        at = left.start_byte
        while right.type == "assignment":  # a = b = 1
            right = right.child_by_field_name("right")
        if left.type == "identifier" and not _in_function(left):
            key = text(left)
            if key in _CELERY_KEYS:
                put(key, right, at)
            elif right.type == "dictionary":
                d = evaluate(right, f).value
                if any(_CELERY_KEYS.get(k) in ("broker_url", "broker_transport_options") for k in d):
                    put_dict(d, at)
        elif left.type == "attribute":
            obj = left.child_by_field_name("object")
            attr = left.child_by_field_name("attribute")
            if obj is not None and attr is not None and _last(text(obj)) == "conf":
                put(text(attr), right, at)
    for call in sorted(calls.get("app", []) + calls.get("update", []), key=_preorder):
        at = call.start_byte
        if _name(call) == "Celery":
            for k, arg in _kwargs(f, call).items():
                put("broker_url" if k == "broker" else k, arg, at)
            continue
        name = _name(call)
        owner = call.child_by_field_name("function").child_by_field_name("object")
        if name == "update" and _last(text(owner)) != "conf":
            continue
        for arg in _positional(call)[:1]:
            d = evaluate(arg, f)
            if d.kind == "dict":
                put_dict(d.value, at)
        if name == "update":
            for k, arg in _kwargs(f, call).items():
                put(k, arg, at)
    apps = calls.get("app", [])
    module = scopes.pop(None)
    # the first settings on SQS, in file order (a class's settings over the module's)
    known = False  # a broker written as a literal (transport or URL) that is not SQS
    for conf in [{**module, **c} for c in scopes.values() if c] or [module]:
        if not conf:
            continue
        opts_node = conf.get("broker_transport_options", (0, None))[1]
        opts = evaluate(opts_node, f) if opts_node is not None else None
        opts = opts.value if opts is not None and opts.kind == "dict" else None
        if _is_sqs(f, conf, opts):
            _celery_consumers(f, r, conf, opts, apps, calls)
            return
        known = known or _broker_written(f, conf)
    if not known:
        _celery_tasks_only(f, r, module, calls)


def _broker_written(f: File, conf) -> bool:
    for key in ("broker_transport", "broker_url"):
        v = _plain(f, conf[key][1]) if key in conf else None
        if v is not None and v.kind == "str" and v.value:
            return True
    return False


def _celery_tasks_only(f: File, r: Reader, conf, calls: dict) -> None:
    """The task facts of a file that names no broker (tasks.py beside a celeryconfig.py): one consumer with no
    queue, ``settings["celery_tasks_only"]``, that ``linter.consumers.join`` merges into the SQS Celery apps of
    the same project (and drops when there is none: the broker is not SQS, or not known). Notes about computed
    task values wait in ``settings["celery_tasks_notes"]`` until then: a Redis app's tasks are not noted."""
    notes = r.result.notes
    before = len(notes)
    tasks = _tasks(f, r, calls, r.path)
    held = notes[before:]
    del notes[before:]
    conf = {
        k: v for k, v in conf.items() if k in ("task_time_limit", "task_soft_time_limit", "task_acks_late")
    }
    firsts = [d["location"] for d in tasks["delays"]]
    firsts += [r.loc(node) for key in ("time_limit", "soft_time_limit") for _, node in tasks[key]]
    firsts += [r.loc(node) for node in tasks["acks_late"]] + [r.loc(node) for _, node in conf.values()]
    if not firsts:
        return
    loc = min(firsts, key=lambda at: (at.line, at.column))
    cid = f"{r.path}:{loc.line}"
    c = Consumer(cid, "worker", location=loc, platform="celery", source="python", heartbeat=False)
    c.settings["celery_tasks_only"] = True
    _task_settings(f, r, c, conf, tasks)
    if held:
        c.settings["celery_tasks_notes"] = [Note(n.message, n.location, cid) for n in held]
    r.result.consumers.append(c)


def _celery_consumers(f: File, r: Reader, conf, opts, apps, calls: dict) -> None:
    anchor = apps[0] if apps else (conf.get("broker_url") or conf.get("broker_transport_options"))[1]
    loc = r.loc(anchor)
    base_id = f"{r.path}:{loc.line}"
    tasks = _tasks(f, r, calls, base_id)
    queues = _celery_queues(f, r, conf, opts, base_id)
    for qname, ref, predefined in queues:
        cid = base_id if len(queues) == 1 and not predefined else f"{base_id}[{qname}]"
        c = Consumer(
            cid, "worker", location=loc, platform="celery", source="python", queue_ref=ref, heartbeat=False
        )
        if ref is not None and ref.location is not None:
            c.locations["queue_ref"] = ref.location
        _celery_settings(f, r, c, conf, opts, tasks, predefined)
        r.result.consumers.append(c)
        if not predefined and ref is not None:  # the queue Kombu creates when no input declares it
            _kombu_queue(f, r, c, ref, conf.get("broker_transport_options"))


def _kombu_queue(f: File, r: Reader, c: Consumer, ref: QueueRef, opts_at) -> None:
    """The queue Kombu's SQS transport would create for ``c`` (visguard.linter.created_queues decides at the join
    whether it is the one the worker reads), located at the transport options (else the app)."""
    from visguard.linter import created_queues

    where = evaluate(opts_at[1], f).node if opts_at else None  # the options' dict, followed through a name
    loc = r.loc(where if where is not None else opts_at[1]) if opts_at else c.location
    q = created_queues.kombu_queue(
        ref.value if ref.kind == "name" else f"${ref.value}",
        ref.value if ref.kind == "name" else None,
        loc,
        c.settings.get("created_visibility"),
        c.locations.get("created_visibility"),
    )
    c.settings["kombu_queue"] = q.id
    r.result.queues.append(q)


def _is_sqs(f: File, conf, opts) -> bool:
    """The broker is SQS: ``broker_transport`` says so, or the broker URL (``sqs://``, an SQS endpoint), or,
    when neither is written as a literal, transport options only Kombu's SQS transport reads."""
    transport = conf.get("broker_transport")
    v = _plain(f, transport[1]) if transport else None
    if v is not None and v.kind == "str" and v.value:
        return "sqs" in v.value.lower()
    url = conf.get("broker_url")
    v = _plain(f, url[1]) if url else None
    if v is not None and v.kind == "str" and v.value:
        s = v.value.lower()
        return s.split("://", 1)[0] in ("sqs", "sqs+https", "sqs+http") or (
            s.startswith("https://sqs.") and "amazonaws.com" in s
        )
    return opts is not None and bool(opts.keys() & _SQS_OPTIONS)


def _celery_queues(f: File, r: Reader, conf, opts, base_id: str) -> list[tuple[str, QueueRef | None, bool]]:
    """(queue name, reference, predefined?) of each queue the app reads: each ``predefined_queues`` entry (its
    ``url``), else the default queue (``task_default_queue``, "celery") after ``queue_name_prefix``, as Kombu
    names it in SQS (``created_queues.kombu_name``)."""
    from visguard.linter import created_queues

    predefined = _plain(f, opts["predefined_queues"]) if opts and "predefined_queues" in opts else None
    if predefined is not None and predefined.kind == "dict" and predefined.value:
        out = []
        for name, pair in predefined.value.items():
            spec = _plain(f, pair)
            url = spec.value.get("url") if spec.kind == "dict" else None
            if url is None:
                out.append((name, QueueRef("name", name, r.loc(pair)), True))
                continue
            ref = _queue_ref(f, r, url)
            if ref is None:
                r.note(
                    f"the url of the Celery predefined queue {name} is computed: its queue is not known",
                    url,
                    base_id,
                )
            out.append((name, ref, True))
        return out
    prefix, where = "", None
    if opts and "queue_name_prefix" in opts:
        where = opts["queue_name_prefix"]
        v = evaluate(where, f)
        prefix = v.value if v.kind == "str" and not env_of(v) else None
    name, env = _CELERY_DEFAULT_QUEUE, None
    if "task_default_queue" in conf:
        where = conf["task_default_queue"][1]
        v = evaluate(where, f)
        env = env_of(v)
        v = v.default if v.kind == "env" else v
        name = v.value if v is not None and v.kind == "str" else None
    if env and prefix == "":
        ref = QueueRef("env", env, r.loc(where))
        if name:  # the code's default, when no input of the run sets the variable
            ref.fallback = QueueRef("name", created_queues.kombu_name("", name), r.loc(where))
        return [(env, ref, False)]
    if not name or prefix is None or env:
        r.note("the Celery queue name is computed here: its queue is not known", where, base_id)
        return [(str(name), None, False)]
    node = where or (conf.get("broker_url") or conf["broker_transport_options"])[1]
    return [(name, QueueRef("name", created_queues.kombu_name(prefix, name), r.loc(node)), False)]


def _tasks(f: File, r: Reader, calls: dict, address: str) -> dict:
    """Per-task settings from ``@app.task(...)`` / ``@shared_task(...)`` decorators and delays from calls."""
    out: dict[str, list] = {"time_limit": [], "soft_time_limit": [], "acks_late": [], "delays": []}
    found = [(call, True) for call in calls.get("task", ())] + [
        (call, False) for call in calls.get("delay", ())
    ]
    for call, task in sorted(found, key=lambda ct: _preorder(ct[0])):
        kw = _kwargs(f, call)
        if task:
            for key in ("time_limit", "soft_time_limit"):
                if key in kw:
                    v = _seconds(f, r, kw[key], f"the Celery task {key}", address)
                    if v is not None:
                        out[key].append((v, kw[key]))
            if "acks_late" in kw:
                v = _plain(f, kw["acks_late"])
                if v.kind == "bool" and v.value is True:
                    out["acks_late"].append(kw["acks_late"])
            for key in ("default_retry_delay", "retry_backoff_max"):
                if key in kw:
                    _delay(f, r, out["delays"], kw[key], key, address)
        else:
            name = _name(call)
            if "countdown" in kw:
                _delay(f, r, out["delays"], kw["countdown"], f"{name} countdown", address)
            if "eta" in kw:
                _delay(f, r, out["delays"], kw["eta"], f"{name} eta", address, eta=True)
    return out


def _delay(f: File, r: Reader, delays: list, node, what: str, address: str, eta: bool = False) -> None:
    value = node.child_by_field_name("value")
    if eta:
        if (
            value is not None
            and value.type == "binary_operator"
            and text(value.child_by_field_name("operator")) == "+"
        ):
            sides = [value.child_by_field_name("left"), value.child_by_field_name("right")]
            nows = [
                s
                for s in sides
                if s is not None
                and s.type == "call"
                and _last(text(s.child_by_field_name("function"))) in _NOW
            ]
            if len(nows) == 1:
                v = evaluate(sides[1] if nows[0] is sides[0] else sides[0], f)
                if v.kind == "int":
                    delays.append({"seconds": v.value, "what": what, "location": r.loc(node)})
                    return
        r.note(f"the Celery {what} is computed ({_shown(node)}): visguard does not guess it", node, address)
        return
    v = _seconds(f, r, node, f"the Celery {what}", address)
    if v is not None:
        delays.append({"seconds": v.value, "what": what, "location": r.loc(node)})


def _celery_settings(f: File, r: Reader, c: Consumer, conf, opts, tasks, predefined: bool) -> None:
    vt = opts.get("visibility_timeout") if opts else None
    if vt is not None:
        v = _seconds(f, r, vt, "the Celery broker_transport_options visibility_timeout", c.id)
        if v is not None:
            r.set(c, "created_visibility", v.value, vt, v)
    elif not predefined:  # Kombu creates the queue with its default
        c.settings["created_visibility"] = facts.CELERY_SQS_VISIBILITY_DEFAULT
    wait = opts.get("wait_time_seconds") if opts else None
    if wait is not None:
        v = _seconds(f, r, wait, "the Celery wait_time_seconds", c.id)
        if v is not None:
            r.set(c, "wait_time", v.value, wait, v)
    _task_settings(f, r, c, conf, tasks)


def _task_settings(f: File, r: Reader, c: Consumer, conf, tasks) -> None:
    """Time limits, acks_late, prefetch and delays: the global settings of ``conf`` and the tasks' own."""
    limits = {}
    for setting, key in (("task_time_limit", "time_limit"), ("task_soft_time_limit", "soft_time_limit")):
        found = list(tasks[key])
        if setting in conf:
            node = conf[setting][1]
            v = _seconds(f, r, node, f"the Celery {setting}", c.id)
            if v is not None:
                found.append((v, node))
        limits[key] = max(found, key=lambda x: x[0].value) if found else None
    hard, soft = limits["time_limit"], limits["soft_time_limit"]
    if hard or soft:  # the hard limit ends the work; a soft one (an exception in the task) when none is set
        v, node = hard or soft
        r.set(c, "work_timeout", v.value, node, v)
    if soft:
        r.set(c, "soft_time_limit", soft[0].value, soft[1], soft[0])
    acks = conf.get("task_acks_late")
    acks_value = _plain(f, acks[1]) if acks else None
    acks_value = acks_value.value if acks_value is not None and acks_value.kind == "bool" else None
    if acks_value is True or tasks["acks_late"]:  # globally, or for a task
        r.set(c, "acks_late", True, acks[1] if acks_value is True else tasks["acks_late"][0])
    elif acks_value is False:
        r.set(c, "acks_late", False, acks[1])
    if "worker_prefetch_multiplier" in conf:
        node = conf["worker_prefetch_multiplier"][1]
        v = _seconds(f, r, node, "the Celery worker_prefetch_multiplier", c.id)
        if v is not None:
            r.set(c, "prefetch", v.value, node, v)
    if tasks["delays"]:
        c.settings["delays"] = list(tasks["delays"])
        c.locations["delays"] = tasks["delays"][0]["location"]
