"""One reading of the settings every builder takes from its input: CloudFormation and SAM (and so cdk.out and
Serverless services, which become CloudFormation first), Terraform (HCL, JSON syntax, plan JSON) and visguard.yaml.

The policy, the same for every input:

- **a number** is an int or a float as written, or a string holding one in ASCII decimal or exponent notation
  (``"600"``, ``" 6e2 "``: CloudFormation, Terraform and the AWS APIs all take numbers written as strings). A whole
  float is an int (``600.0`` -> 600).
- **bad input** (:class:`BadValue`) is what no AWS API could take as that setting: a boolean, a word, a list or a
  mapping; NaN or infinity; a number beyond +-10**15 (:data:`MAX_NUMBER`: no SQS or Lambda setting comes near it,
  and 10**400 would overflow a rule's float arithmetic); a string of more than 400 characters. The last three are
  ``bound``: visguard's own limits on an input, which the Terraform loader applies to the whole input rather than
  to one resource.
- **data for the rules** is any other number, however far outside the AWS range: a visibility timeout of 50,000
  (VG001), a maxReceiveCount of 0 (VG002), a retention of 10 s (VG005), a batch size of 20 (VG030), a Lambda
  timeout of 0.5 s (VG032). A loader never judges a range; the rules do, with the AWS source.
- **not known here**: a value only the deployed stack or ``terraform apply`` knows (each builder's symbolic
  values) is kept as its text, which the rules treat as "not known here".

:func:`integer` (a count: batch size, concurrency) is a number without a fraction; :func:`boolean` is true/false
or the strings "true"/"false" in any case; :func:`string` (a name) is a string or a number (``600`` -> "600").

Each builder calls these with the value it resolved and turns a :class:`BadValue` into its own error, at its own
place and in its own words (a Terraform message never shows a string's content: it may come from a variables
file).
"""

from __future__ import annotations

import math

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

MAX_NUMBER = 10**15  # largest magnitude of any setting (see the module docstring)
MAX_TEXT = (
    400  # longest string read as a number (int() of thousands of digits is slow, and refused past 4,300)
)
_NUMERIC_CHARS = frozenset("0123456789+-.eE")  # decimal or exponent notation; float() then says if it is one


class BadValue(ValueError):
    """A value no AWS API could take: ``expected`` what ("a number"), ``got`` what it is, without a string's
    content ("true", "a list", "an integer of 21 digits, beyond any AWS limit"); ``text``: the string, when it was
    one (a builder may quote it); ``bound``: beyond visguard's limits on an input."""

    def __init__(self, expected: str, got: str, *, text: str | None = None, bound: bool = False):
        super().__init__(f"expected {expected}, got {got}")
        self.expected, self.got, self.text, self.bound = expected, got, text, bound

    def quoted(self) -> str:
        """The message with the string quoted (shortened) when it was one: for inputs whose messages may show
        their values (a template, a visguard.yaml; never Terraform's)."""
        if self.text is None:
            return str(self)
        text = self.text if len(self.text) <= 40 else self.text[:37] + "..."
        return f"expected {self.expected}, got {text!r}"


def describe_number(v: int | float) -> str:
    """A number for a message: itself when small, else its size (``str`` of 4,300 digits is refused by Python)."""
    if isinstance(v, int):
        if abs(v) < MAX_NUMBER:
            return str(v)
        if v.bit_length() < 14_000:
            return f"an integer of {len(str(abs(v))):,} digits"
        return f"an integer of about {int(abs(v).bit_length() * 0.30103) + 1:,} digits"
    if not math.isfinite(v) or abs(v) >= MAX_NUMBER:
        return f"{v:.3g}"
    return repr(v)


def _kind(v: Any) -> str:
    return {dict: "a mapping", list: "a list", tuple: "a list"}.get(type(v), f"a {type(v).__name__}")


def number(v: Any, *, unknown: tuple = (), expected: str = "a number") -> int | float | str | None:
    """``v`` as a number (see the module docstring): None stays None, a value of the ``unknown`` types is kept as
    its text; anything no AWS API could take raises :class:`BadValue`."""
    if v is None:
        return None
    if unknown and isinstance(v, unknown):
        return str(v)
    if isinstance(v, bool):
        raise BadValue(expected, "true" if v else "false")
    if isinstance(v, str):
        text = v.strip()
        if len(text) > MAX_TEXT:
            raise BadValue(expected, f"a string of more than {MAX_TEXT} characters", bound=True)
        try:
            if not _NUMERIC_CHARS.issuperset(text):  # "1_000", "nan", "٣": Python reads them, no AWS API does
                raise ValueError(text)
            v = int(text) if text.lstrip("+-").isdigit() else float(text)
        except ValueError:
            raise BadValue(expected, "a string that is not a number", text=text) from None
    if isinstance(v, (int, float)):
        if isinstance(v, float) and not math.isfinite(v):
            raise BadValue(expected, describe_number(v), bound=True)
        if abs(v) > MAX_NUMBER:
            raise BadValue(expected, f"{describe_number(v)}, beyond any AWS limit", bound=True)
        return int(v) if isinstance(v, float) and v.is_integer() else v
    raise BadValue(expected, _kind(v))


def integer(v: Any, *, unknown: tuple = (), expected: str = "a whole number") -> int | str | None:
    """A count (batch size, concurrency): :func:`number` without a fraction."""
    n = number(v, unknown=unknown, expected=expected)
    if isinstance(n, float):
        raise BadValue(expected, describe_number(n))
    return n


def boolean(v: Any, *, unknown: tuple = ()) -> bool | None:
    """true/false, or the strings "true"/"false" in any case; None (or a value not known here) is None."""
    if v is None or (unknown and isinstance(v, unknown)):
        return None
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and v.strip().lower() in ("true", "false"):
        return v.strip().lower() == "true"
    if isinstance(v, str):
        raise BadValue("true or false", "a string", text=v)
    if isinstance(v, (int, float)):
        raise BadValue("true or false", describe_number(v))
    raise BadValue("true or false", _kind(v))


def string(v: Any, *, unknown: tuple = ()) -> str | None:
    """A name: a string, or a number written where a name goes (``600`` -> "600"); None when not known here."""
    if v is None or (unknown and isinstance(v, unknown)):
        return None
    if isinstance(v, bool):
        raise BadValue("a string", "a boolean")
    if isinstance(v, (str, int, float)):
        return str(v)
    raise BadValue("a string", _kind(v))


def function_name(v: str) -> str:
    """The function of ``name``, ``name:alias``, ``123456789012:function:name`` or a full ARN (Lambda API,
    CreateEventSourceMapping, FunctionName)."""
    parts = v.split(":")
    if "function" in parts:
        i = parts.index("function")
        return parts[i + 1] if i + 1 < len(parts) else v
    return parts[0]
