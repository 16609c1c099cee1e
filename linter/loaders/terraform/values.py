"""Values the Terraform evaluator produces besides plain Python data (the functions are in functions.py).

- :class:`Ref`: an attribute of a resource that only exists after ``terraform apply`` (``aws_sqs_queue.dlq.arn``);
  the model builder links it to the resource by address.
- :class:`Unknown`: an expression visguard cannot evaluate here (a variable without a value, a data source, a
  function it does not evaluate); it keeps the text as written and why. Its ``str`` is ``${...}``, the form
  the rules treat as "not known here".
- :class:`Text`: a string template holding either of them; :class:`Encoded`: ``jsonencode`` of a value holding
  them (a redrive policy that names a queue's ARN).
"""

from __future__ import annotations

import json
import math
import re

from visguard.errors import VisguardError
from visguard.records import Value

from ..values import MAX_NUMBER, describe_number

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any


MAX_STRING = 1_000_000  # characters in one string value (the Serverless loader's bound)
MAX_SHOWN_NUMBER = (
    MAX_NUMBER  # a number a message may show (no AWS setting comes near; larger: its size only)
)


class EvalError(Exception):
    """An expression Terraform itself would reject (a missing key, a wrong type, an undeclared name)."""

    def __init__(self, message: str, node: Any = None):
        super().__init__(message)
        self.node = node


class LimitError(EvalError):
    """visguard's bound on evaluation work (or a number beyond any AWS limit) was reached: reported, never caught
    by ``try()`` / ``can()``, and it refuses the whole input (:class:`Bound`)."""


class Bound(VisguardError):
    """visguard's bound on one input was reached (evaluation work, instances, a number beyond any AWS limit,
    nesting): the whole input is refused, never linted in part (a bomb is not a real estate's unread module)."""


def describe(v: Any) -> str:
    """A value for an error message without its content: a value may come from a variables file (a token
    in a Docker config), so a string is named by its type only; a number is shown when it is small."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return describe_number(v)
    if isinstance(v, str):
        return "a string"
    return f"a {kind(v)}"


class Ref(Value):
    # address: module.jobs.aws_sqs_queue.this[0]; attr: arn, url, id, name, function_name ...
    __slots__ = ("address", "attr")

    def __str__(self) -> str:
        return "${" + f"{self.address}.{self.attr}" + "}"


class Unknown(Value):
    __slots__ = ("text", "why")  # text: the expression as written

    def __str__(self) -> str:
        return "${" + self.text + "}"


class Text(Value):
    __slots__ = ("parts",)  # str | Ref | Unknown

    def __str__(self) -> str:
        return "".join(str(p) for p in self.parts)

    def refs(self) -> list[Ref]:
        return [p for p in self.parts if isinstance(p, Ref)]

    def holed(self) -> tuple[str, dict]:
        """The text with a placeholder for each reference (JSON written around ``${...}``: a policy, a container
        definition), and placeholder -> the reference, to put back once the JSON is decoded."""
        text, holes = [], {}
        for i, part in enumerate(self.parts):
            if isinstance(part, str):
                text.append(part)
            else:
                holes[f"@@visguard{i}@@"] = part
                text.append(f"@@visguard{i}@@")
        return "".join(text), holes


def unholed(v: Any, holes: dict[str, Any]) -> Any:
    """The references a JSON text held (:meth:`Text.holed`; ``"@@visguard3@@"``) put back in its decoded value."""
    if isinstance(v, str):
        if v in holes:
            return holes[v]
        if "@@visguard" in v:
            parts = [holes.get(p, p) for p in re.split(r"(@@visguard\d+@@)", v) if p]
            return Text(parts)
        return v
    if isinstance(v, dict):
        return {k: unholed(x, holes) for k, x in v.items()}
    if isinstance(v, list):
        return [unholed(x, holes) for x in v]
    return v


class Encoded(Value):
    """``jsonencode(value)`` where value holds references: kept as the structure, decoded by the builder."""

    __slots__ = ("value",)

    def __str__(self) -> str:
        return json.dumps(_plain(self.value), sort_keys=True)


def _plain(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, (Ref, Unknown, Text, Encoded)):
        return str(v)
    return v


SYMBOLIC = (Ref, Unknown, Text, Encoded)


def is_known(v: Any) -> bool:
    if isinstance(v, SYMBOLIC):
        return False
    if isinstance(v, dict):
        return all(is_known(x) for x in v.values())
    if isinstance(v, list):
        return all(is_known(x) for x in v)
    return True


def to_string(v: Any) -> Any:
    """Terraform's conversion of a primitive to a string (templates, tostring)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return str(int(v)) if v.is_integer() else repr(v)
    if isinstance(v, (str, SYMBOLIC)):
        return v
    if v is None:
        raise EvalError("a null value cannot be used in a string")
    raise EvalError(f"cannot convert a {kind(v)} to a string")


def to_number(v: Any) -> Any:
    if isinstance(v, bool):
        raise EvalError("a number is required, got a bool")
    if isinstance(v, (int, float)):
        return v
    if isinstance(v, str):
        if len(v) > 400:
            raise EvalError("a number is required, got a string of more than 400 characters")
        try:
            f = float(v.strip())
        except ValueError:
            raise EvalError("a number is required, got a string that is not a number") from None
        if not math.isfinite(f):
            raise EvalError("a number is required, got a string that is not a finite number")
        if f.is_integer() and "." not in v and "e" not in v.lower():
            return int(v.strip()) if abs(f) < MAX_SHOWN_NUMBER else int(f)
        return f
    if isinstance(v, SYMBOLIC):
        return v
    if v is None:
        raise EvalError("a number is required, got null")
    raise EvalError(f"a number is required, got a {kind(v)}")


def kind(v: Any) -> str:
    if v is None:
        return "null"
    return {dict: "object", list: "list", bool: "bool", str: "string", int: "number", float: "number"}.get(
        type(v), type(v).__name__
    )


MAX_BITS = (
    1400  # an integer result of arithmetic beyond ~10^420: refused (no AWS setting; squaring doubles it)
)


def num_out(v: float) -> int | float:
    """An arithmetic result: whole floats as int; beyond any AWS limit (or not finite) is an error, so repeated
    squaring cannot grow a number without bound."""
    if isinstance(v, float):
        if not math.isfinite(v):
            raise EvalError("the result is not a finite number")
        return int(v) if v.is_integer() else v
    if isinstance(v, int) and v.bit_length() > MAX_BITS:
        raise LimitError("the result is beyond any AWS limit (more than 420 digits)")
    return v
