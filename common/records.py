"""The base of visguard's record classes: fields written once, as ``__slots__``; ``__init__``, equality, repr and
``replace`` made from them.

A record class names its fields, bases' first, in ``__slots__``: a tuple (every field required) or a mapping of
field -> default (:data:`REQUIRED` for none)::

    class Location(Value):
        __slots__ = {"file": REQUIRED, "line": None, "column": None, "path": None, "construct_path": None}

A default made fresh for each record is ``fresh(list)`` (the ``__init__`` parameter defaults to None, and None
gives a fresh ``list()``); a field that is not an ``__init__`` parameter, set by the record's own code later, is
``internal(default)``. A class that defines ``__init__`` itself keeps it.

- :class:`Record`: a mutable record, as ``@dataclass``: equal when the class and every field are equal, not
  hashable.
- :class:`Value`: an immutable record by convention, as ``@dataclass(frozen=True)``: also hashable. Nothing
  stops an assignment; nothing in visguard assigns to one after ``__init__``.

Why not ``dataclasses``: ``visguard lint`` runs on every commit (pre-commit), and ``import dataclasses`` brings
``inspect`` while each ``@dataclass`` compiles its methods when its module is imported. Here a class's
``__init__`` is compiled on its first instantiation, so a class a run never builds costs nothing
(benchmarks/RESULTS.md, "Start-up"). Records pickle and copy (``__slots__`` objects do, from protocol 2), so the
audit can ship them to Spark executors.
"""

from __future__ import annotations


class _Required:
    __slots__ = ()

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED = _Required()  # a field without a default: an __init__ argument is needed


class fresh:  # noqa: N801 - reads as a default: ``"consumers": fresh(list)``
    """A default made fresh for each record by calling ``factory`` (``list``, ``dict``, ``set``)."""

    __slots__ = ("factory",)

    def __init__(self, factory):
        self.factory = factory

    def __repr__(self) -> str:
        return f"fresh({self.factory.__name__})"


class internal:  # noqa: N801 - reads as a default: ``"unread": internal(None)``
    """A field that is not an ``__init__`` parameter: set to ``default`` (or ``fresh(...)``) by ``__init__``."""

    __slots__ = ("default",)

    def __init__(self, default):
        self.default = default


class Record:
    """A mutable record whose fields are the ``__slots__`` of its class and of its bases, bases first."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()
    _field_set: frozenset[str] = frozenset()
    _defaults: dict[str, object] = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        defaults: dict[str, object] = {}
        for c in reversed(cls.__mro__):
            slots = c.__dict__.get("__slots__", ())
            if isinstance(slots, str):
                slots = (slots,)
            for name in slots:
                defaults[name] = slots[name] if isinstance(slots, dict) else REQUIRED
        cls._fields = tuple(defaults)
        cls._field_set = frozenset(defaults)
        cls._defaults = defaults
        if cls._fields:
            cls._copy = _first_copy(cls)
        if "__init__" not in cls.__dict__ and cls._fields:
            cls.__init__ = _first_init(cls)  # type: ignore[method-assign]

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name in self._fields)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  # mutable: equal records may stop being equal

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__name__}({fields})"

    def replace(self, **changes):
        """A copy with ``changes`` applied (``dataclasses.replace``); an unknown field is a TypeError."""
        cls = type(self)
        if not cls._field_set.issuperset(changes):
            unknown = set(changes) - cls._field_set
            raise TypeError(f"{cls.__name__} has no field {', '.join(sorted(unknown))}")
        new = object.__new__(cls)
        self._copy(new)
        for name, value in changes.items():
            object.__setattr__(new, name, value)
        return new


class Value(Record):
    """An immutable record: a :class:`Record` that is also hashable by its fields."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(self._values())


def _first_init(cls):
    """Stands in for ``cls.__init__`` until the first record: compiles the real one, puts it on ``cls``, runs it
    (a subclass that calls ``super().__init__`` reaches it too)."""

    def __init__(self, *args, **kwargs):
        cls.__init__ = init = _make_init(cls)
        init(self, *args, **kwargs)

    return __init__


def _first_copy(cls):
    """Stands in for ``cls._copy`` until the first ``replace``: compiles the real one, puts it on ``cls``, runs it."""

    def _copy(self, new):
        cls._copy = copy = _make_copy(cls)
        copy(self, new)

    return _copy


def _make_copy(cls):
    """``def _copy(self, new): new.a = self.a; ...``: ``replace``'s copy of every field, compiled once for ``cls``
    (a finding is copied as it is worded, fixed and given its changes: the hot path of a fleet audit)."""
    body = [f"new.{name} = self.{name}" for name in cls._fields]
    source = "def _copy(self, new):\n    " + "\n    ".join(body or ["pass"]) + "\n"
    env: dict[str, object] = {}
    exec(compile(source, f"<record {cls.__qualname__}>", "exec"), env)
    return env["_copy"]


def _make_init(cls):
    """``def __init__(self, a, b=_d_b, c=None): self.a = a; ...``, compiled once for ``cls``."""
    params, body = [], []
    env: dict[str, object] = {}
    for name, default in cls._defaults.items():
        if isinstance(default, internal):
            value = default.default
            if isinstance(value, fresh):
                env[f"_f_{name}"] = value.factory
                body.append(f"self.{name} = _f_{name}()")
            else:
                env[f"_d_{name}"] = value
                body.append(f"self.{name} = _d_{name}")
            continue
        if default is REQUIRED:
            params.append(name)
            body.append(f"self.{name} = {name}")
        elif isinstance(default, fresh):
            env[f"_f_{name}"] = default.factory
            params.append(f"{name}=None")
            body.append(f"self.{name} = _f_{name}() if {name} is None else {name}")
        else:
            env[f"_d_{name}"] = default
            params.append(f"{name}=_d_{name}")
            body.append(f"self.{name} = {name}")
    source = f"def __init__(self, {', '.join(params)}):\n    " + "\n    ".join(body or ["pass"]) + "\n"
    exec(compile(source, f"<record {cls.__qualname__}>", "exec"), env)
    init = env["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init
