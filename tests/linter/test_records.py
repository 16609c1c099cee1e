"""visguard.records: a record class writes its fields once, in ``__slots__``; its ``__init__`` is made from them."""

from __future__ import annotations

import copy
import pickle

import pytest
from visguard.records import REQUIRED, Record, Value, fresh, internal


class Point(Value):
    __slots__ = {"x": REQUIRED, "y": 0, "tags": fresh(list), "seen": internal(fresh(set))}


class Named(Point):
    __slots__ = {"name": "p"}


class Custom(Point):
    __slots__ = ("label",)

    def __init__(self, label: str):
        super().__init__(1, 2)
        self.label = label


class Pair(Record):
    __slots__ = ("a", "b")


def test_the_generated_init_takes_the_fields_in_order_with_their_defaults():
    p = Point(3)
    assert (p.x, p.y, p.tags, p.seen) == (3, 0, [], set())
    assert Point(3, 4, ["t"]) == Point(x=3, y=4, tags=["t"])
    assert Pair(1, 2).b == 2 and Pair(b=2, a=1) == Pair(1, 2)


def test_a_fresh_default_is_a_new_object_for_each_record_and_none_asks_for_it():
    a, b = Point(1), Point(1, tags=None)
    a.tags.append("x")
    a.seen.add(1)
    assert b.tags == [] and b.seen == set()


def test_a_missing_required_field_an_internal_field_or_an_unknown_name_is_a_type_error():
    with pytest.raises(TypeError):
        Point()
    with pytest.raises(TypeError):
        Point(1, seen={2})
    with pytest.raises(TypeError):
        Pair(1, 2, 3)


def test_a_subclass_adds_its_fields_after_its_bases_and_a_hand_written_init_is_kept():
    n = Named(1, name="q")
    assert n._fields == ("x", "y", "tags", "seen", "name") and (n.x, n.name) == (1, "q")
    assert Named(1).name == "p"
    c = Custom("here")
    assert (c.x, c.y, c.label) == (1, 2, "here")
    assert Point(5).x == 5  # Custom's super().__init__ compiled Point's init for Point, not for Custom


def test_equality_hash_repr_replace_pickle_and_copy():
    p = Point(1, 2, ["a"])
    assert repr(p) == "Point(x=1, y=2, tags=['a'], seen=set())"
    assert p == Point(1, 2, ["a"]) and p != Named(1, 2, ["a"]) and p != (1, 2)
    assert Pair.__hash__ is None  # a mutable record is not hashable
    assert hash(Named(1, 2, (), name="n").replace(seen=frozenset())) == hash(
        Named(1, 2, (), "n").replace(seen=frozenset())
    )
    q = p.replace(y=9)
    assert (q.x, q.y, p.y) == (1, 9, 2)
    with pytest.raises(TypeError):
        p.replace(z=1)
    assert pickle.loads(pickle.dumps(p)) == p == copy.deepcopy(p)


def test_replace_copies_every_field_of_the_records_own_class():
    """``replace`` copies with code made once per class: a subclass's copy has its own fields too."""
    p = Point(1, 2, ["a"]).replace(x=3)
    n = Named(1, 2, ["b"], name="n").replace(x=4)
    c = Custom("here").replace(label="there", y=7)
    assert (p.x, p.y, p.tags, type(p)) == (3, 2, ["a"], Point)
    assert (n.x, n.y, n.tags, n.name, type(n)) == (4, 2, ["b"], "n", Named)
    assert (c.x, c.y, c.label, type(c)) == (1, 7, "there", Custom)
    assert Pair(1, 2).replace() == Pair(1, 2) and Pair(1, 2).replace(b=3) == Pair(1, 3)
    with pytest.raises(TypeError, match="no field z"):
        n.replace(z=1, x=2)
