"""Bases of visguard's small record classes: equality, repr and ``replace`` from the names in ``__slots__``.

They stand in for ``@dataclass``. Every ``visguard lint`` imports the model, and pre-commit runs it on every
commit (issue 12). ``import dataclasses`` brings ``inspect`` (with ``ast``, ``dis`` and ``tokenize``), and each
``@dataclass`` compiles its methods when its module is imported: together more than a small template's whole
lint. A record class states its fields once, in ``__slots__``, and sets each in a plain ``__init__``.

- :class:`Record`: a mutable record, as ``@dataclass``: equal when the class and every field are equal, not
  hashable.
- :class:`Value`: an immutable record by convention, as ``@dataclass(frozen=True)``: also hashable. Nothing
  stops an assignment; nothing in visguard assigns to one after ``__init__``.

Both pickle and copy (``__slots__`` objects do, from protocol 2), so the audit can ship them to Spark executors.
"""

from __future__ import annotations


class Record:
    """A mutable record whose fields are the ``__slots__`` of its class and of its bases, bases first."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._fields = tuple(n for c in reversed(cls.__mro__) for n in c.__dict__.get("__slots__", ()))

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
        unknown = set(changes) - set(self._fields)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {', '.join(sorted(unknown))}")
        new = object.__new__(type(self))
        for name in self._fields:
            object.__setattr__(new, name, changes[name] if name in changes else getattr(self, name))
        return new


class Value(Record):
    """An immutable record: a :class:`Record` that is also hashable by its fields."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(self._values())
