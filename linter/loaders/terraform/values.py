"""Values the Terraform evaluator produces besides plain Python data, and the functions it evaluates.

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
from dataclasses import dataclass
from typing import Any


class EvalError(Exception):
    """An expression Terraform itself would reject (a missing key, a wrong type, an undeclared name)."""

    def __init__(self, message: str, node: Any = None):
        super().__init__(message)
        self.node = node


@dataclass(frozen=True)
class Ref:
    address: str  # module.jobs.aws_sqs_queue.this[0]
    attr: str  # arn, url, id, name, function_name ...

    def __str__(self) -> str:
        return "${" + f"{self.address}.{self.attr}" + "}"


@dataclass(frozen=True)
class Unknown:
    text: str  # the expression as written
    why: str

    def __str__(self) -> str:
        return "${" + self.text + "}"


@dataclass(frozen=True)
class Text:
    parts: tuple  # str | Ref | Unknown

    def __str__(self) -> str:
        return "".join(str(p) for p in self.parts)

    def refs(self) -> list[Ref]:
        return [p for p in self.parts if isinstance(p, Ref)]


@dataclass(frozen=True)
class Encoded:
    """``jsonencode(value)`` where value holds references: kept as the structure, decoded by the builder."""

    value: Any

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
        try:
            f = float(v.strip())
        except ValueError:
            raise EvalError(f"a number is required, got {v!r}") from None
        if not math.isfinite(f):
            raise EvalError(f"a number is required, got {v!r}")
        return int(f) if f.is_integer() and "." not in v and "e" not in v.lower() else f
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


def num_out(v: float) -> int | float:
    return int(v) if isinstance(v, float) and v.is_integer() else v


# ---------------------------------------------------------------------------------------------- functions
# Every function of the Terraform language (developer.hashicorp.com/terraform/language/functions). A call to
# a name outside this list is an error in Terraform too; one inside it that visguard does not evaluate gives
# an Unknown.
TERRAFORM_FUNCTIONS = frozenset(
    [
        "abs",
        "abspath",
        "alltrue",
        "anytrue",
        "base64decode",
        "base64encode",
        "base64gzip",
        "base64sha256",
        "base64sha512",
        "basename",
        "bcrypt",
        "can",
        "ceil",
        "chomp",
        "chunklist",
        "cidrhost",
        "cidrnetmask",
        "cidrsubnet",
        "cidrsubnets",
        "coalesce",
        "coalescelist",
        "compact",
        "concat",
        "contains",
        "csvdecode",
        "dirname",
        "distinct",
        "element",
        "endswith",
        "ephemeralasnull",
        "file",
        "filebase64",
        "filebase64sha256",
        "filebase64sha512",
        "fileexists",
        "filemd5",
        "fileset",
        "filesha1",
        "filesha256",
        "filesha512",
        "flatten",
        "floor",
        "format",
        "formatdate",
        "formatlist",
        "indent",
        "index",
        "issensitive",
        "join",
        "jsondecode",
        "jsonencode",
        "keys",
        "length",
        "list",
        "log",
        "lookup",
        "lower",
        "map",
        "matchkeys",
        "max",
        "md5",
        "merge",
        "min",
        "nonsensitive",
        "one",
        "parseint",
        "pathexpand",
        "plantimestamp",
        "pow",
        "range",
        "regex",
        "regexall",
        "replace",
        "reverse",
        "rsadecrypt",
        "sensitive",
        "setintersection",
        "setproduct",
        "setsubtract",
        "setunion",
        "sha1",
        "sha256",
        "sha512",
        "signum",
        "slice",
        "sort",
        "split",
        "startswith",
        "strcontains",
        "strrev",
        "substr",
        "sum",
        "templatefile",
        "templatestring",
        "textdecodebase64",
        "textencodebase64",
        "timeadd",
        "timecmp",
        "timestamp",
        "title",
        "tobool",
        "tolist",
        "tomap",
        "tonumber",
        "toset",
        "tostring",
        "transpose",
        "trim",
        "trimprefix",
        "trimspace",
        "trimsuffix",
        "try",
        "type",
        "upper",
        "urlencode",
        "uuid",
        "uuidv5",
        "values",
        "yamldecode",
        "yamlencode",
        "zipmap",
    ]
)


def _need(args, n, name, at_least=False):
    if (len(args) < n) if at_least else (len(args) != n):
        raise EvalError(f"{name}() takes {'at least ' if at_least else ''}{n} argument(s), got {len(args)}")


def _numbers(args, name):
    _need(args, 1, name, at_least=True)
    flat = []
    for a in args:
        flat.append(to_number(a))
    return flat


def _max(*args):
    xs = _numbers(args, "max")
    return num_out(max(xs)) if all(isinstance(x, (int, float)) for x in xs) else _unknown_call("max", args)


def _min(*args):
    xs = _numbers(args, "min")
    return num_out(min(xs)) if all(isinstance(x, (int, float)) for x in xs) else _unknown_call("min", args)


def _unknown_call(name, args):
    return Unknown(f"{name}(...)", f"{name}() of a value known only after apply")


def _jsonencode(*args):
    _need(args, 1, "jsonencode")
    v = args[0]
    if is_known(v):
        return json.dumps(v, separators=(",", ":"))
    return Encoded(v)


def _jsondecode(*args):
    _need(args, 1, "jsondecode")
    v = args[0]
    if isinstance(v, Encoded):
        return v.value
    if not isinstance(v, str):
        return Unknown("jsondecode(...)", "jsondecode() of a value known only after apply")
    try:
        return json.loads(v)
    except ValueError as exc:
        raise EvalError(f"jsondecode(): invalid JSON ({exc})") from None


def _lookup(*args):
    if len(args) not in (2, 3):
        raise EvalError(f"lookup() takes 2 or 3 arguments, got {len(args)}")
    m, k = args[0], args[1]
    if not isinstance(m, dict) or isinstance(k, SYMBOLIC):
        return Unknown("lookup(...)", "lookup() in a value not known here")
    if k in m:
        return m[k]
    if len(args) == 3:
        return args[2]
    raise EvalError(f"lookup(): no key {k!r} and no default")


def _merge(*args):
    out: dict = {}
    for a in args:
        if a is None:
            continue
        if not isinstance(a, dict):
            if isinstance(a, SYMBOLIC):
                return Unknown("merge(...)", "merge() of a value not known here")
            raise EvalError(f"merge() takes objects, got a {kind(a)}")
        out.update(a)
    return out


def _coalesce(*args):
    for a in args:
        if isinstance(a, SYMBOLIC):
            return (
                a
                if isinstance(a, (Ref, Text))
                else Unknown("coalesce(...)", "coalesce() of a value not known here")
            )
        if a is not None and a != "":
            return a
    raise EvalError("coalesce(): no non-null, non-empty argument")


def _tonumber(*args):
    _need(args, 1, "tonumber")
    return None if args[0] is None else to_number(args[0])


def _tostring(*args):
    _need(args, 1, "tostring")
    return None if args[0] is None else to_string(args[0])


def _tobool(*args):
    _need(args, 1, "tobool")
    v = args[0]
    if v is None or isinstance(v, (bool, SYMBOLIC)):
        return v
    if v in ("true", "false"):
        return v == "true"
    raise EvalError(f"tobool(): cannot convert {v!r} to a bool")


def _length(*args):
    _need(args, 1, "length")
    v = args[0]
    if isinstance(v, (list, dict, str)):
        return len(v)
    if isinstance(v, SYMBOLIC):
        return Unknown("length(...)", "length() of a value not known here")
    raise EvalError(f"length() of a {kind(v)}")


def _concat(*args):
    out = []
    for a in args:
        if not isinstance(a, list):
            return Unknown("concat(...)", "concat() of a value not known here")
        out += a
    return out


def _str_fn(fn):
    def call(*args):
        if any(isinstance(a, SYMBOLIC) for a in args):
            return Unknown("...", "a string function of a value known only after apply")
        if not all(isinstance(a, str) for a in args):
            raise EvalError("a string function needs strings")
        return fn(*args)

    return call


def _join(*args):
    _need(args, 2, "join")
    sep, items = args
    if not isinstance(items, list) or not all(isinstance(i, (str, int, float)) for i in items):
        return Unknown("join(...)", "join() of values not known here")
    return sep.join(to_string(i) for i in items)


def _keys(*args):
    _need(args, 1, "keys")
    if not isinstance(args[0], dict):
        return Unknown("keys(...)", "keys() of a value not known here")
    return sorted(args[0])


def _values(*args):
    _need(args, 1, "values")
    if not isinstance(args[0], dict):
        return Unknown("values(...)", "values() of a value not known here")
    return [args[0][k] for k in sorted(args[0])]


def _toset(*args):
    _need(args, 1, "toset")
    v = args[0]
    if isinstance(v, list):
        out = []
        for x in v:
            if x not in out:
                out.append(x)
        return sorted(out, key=lambda x: str(x)) if all(isinstance(x, str) for x in out) else out
    return v


def _tolist(*args):
    _need(args, 1, "tolist")
    return args[0]


def _element(*args):
    _need(args, 2, "element")
    lst, i = args
    if not isinstance(lst, list) or not isinstance(i, int):
        return Unknown("element(...)", "element() of a value not known here")
    if not lst:
        raise EvalError("element() of an empty list")
    return lst[i % len(lst)]


def _contains(*args):
    _need(args, 2, "contains")
    if not isinstance(args[0], list) or isinstance(args[1], SYMBOLIC):
        return Unknown("contains(...)", "contains() of a value not known here")
    return args[1] in args[0]


def _flatten(*args):
    _need(args, 1, "flatten")

    def flat(v):
        for x in v:
            if isinstance(x, list):
                yield from flat(x)
            else:
                yield x

    return list(flat(args[0])) if isinstance(args[0], list) else Unknown("flatten(...)", "not known here")


def _format(*args):
    _need(args, 1, "format", at_least=True)
    fmt, rest = args[0], list(args[1:])
    if not isinstance(fmt, str) or not all(isinstance(a, (str, int, float, bool)) for a in rest):
        return Unknown("format(...)", "format() of a value not known here")
    import re

    out, i = [], 0
    pos = 0
    for m in re.finditer(r"%(%|[-+ #0]*\d*(?:\.\d+)?[vdsfqt])", fmt):
        out.append(fmt[pos : m.start()])
        spec = m.group(1)
        pos = m.end()
        if spec == "%":
            out.append("%")
            continue
        if i >= len(rest):
            raise EvalError("format(): not enough arguments")
        a = rest[i]
        i += 1
        verb = spec[-1]
        if verb == "d":
            out.append(("%" + spec).replace("d", "d") % int(to_number(a)))
        elif verb == "f":
            out.append(("%" + spec) % float(to_number(a)))
        elif verb == "q":
            out.append(json.dumps(to_string(a)))
        else:
            out.append(to_string(a))
    out.append(fmt[pos:])
    return "".join(out)


def _abs(*args):
    _need(args, 1, "abs")
    v = to_number(args[0])
    return abs(v) if isinstance(v, (int, float)) else v


def _round(fn, name):
    def call(*args):
        _need(args, 1, name)
        v = to_number(args[0])
        return int(fn(v)) if isinstance(v, (int, float)) else v

    return call


def _zipmap(*args):
    _need(args, 2, "zipmap")
    k, v = args
    if not isinstance(k, list) or not isinstance(v, list):
        return Unknown("zipmap(...)", "zipmap() of values not known here")
    if len(k) != len(v):
        raise EvalError("zipmap(): lists of different lengths")
    return dict(zip(k, v, strict=True))


def _compact(*args):
    _need(args, 1, "compact")
    v = args[0]
    return [x for x in v if x not in (None, "")] if isinstance(v, list) else v


def _distinct(*args):
    _need(args, 1, "distinct")
    out = []
    for x in args[0] if isinstance(args[0], list) else []:
        if x not in out:
            out.append(x)
    return out if isinstance(args[0], list) else args[0]


def _one(*args):
    _need(args, 1, "one")
    v = args[0]
    if isinstance(v, list):
        if len(v) > 1:
            raise EvalError("one() of a list with more than one element")
        return v[0] if v else None
    return v


def _sum(*args):
    _need(args, 1, "sum")
    xs = [to_number(x) for x in args[0]] if isinstance(args[0], list) else None
    if xs is None or not all(isinstance(x, (int, float)) for x in xs):
        return Unknown("sum(...)", "sum() of values not known here")
    return num_out(sum(xs))


def _range(*args):
    nums = [to_number(a) for a in args]
    if not all(isinstance(n, (int, float)) for n in nums) or not 1 <= len(nums) <= 3:
        return Unknown("range(...)", "range() of values not known here")
    r = list(range(*[int(n) for n in nums]))
    if len(r) > 1024:
        raise EvalError("range(): more than 1024 elements")
    return r


def _parseint(*args):
    _need(args, 2, "parseint")
    s, base = args
    if not isinstance(s, str) or not isinstance(base, int):
        return Unknown("parseint(...)", "parseint() of a value not known here")
    try:
        return int(s, base)
    except ValueError:
        raise EvalError(f"parseint(): cannot parse {s!r} in base {base}") from None


FUNCTIONS = {
    "jsonencode": _jsonencode,
    "jsondecode": _jsondecode,
    "max": _max,
    "min": _min,
    "tonumber": _tonumber,
    "tostring": _tostring,
    "tobool": _tobool,
    "tolist": _tolist,
    "toset": _toset,
    "tomap": _tolist,
    "lookup": _lookup,
    "merge": _merge,
    "coalesce": _coalesce,
    "length": _length,
    "concat": _concat,
    "join": _join,
    "keys": _keys,
    "values": _values,
    "element": _element,
    "contains": _contains,
    "flatten": _flatten,
    "format": _format,
    "abs": _abs,
    "ceil": _round(math.ceil, "ceil"),
    "floor": _round(math.floor, "floor"),
    "zipmap": _zipmap,
    "compact": _compact,
    "distinct": _distinct,
    "one": _one,
    "sum": _sum,
    "range": _range,
    "parseint": _parseint,
    "lower": _str_fn(str.lower),
    "upper": _str_fn(str.upper),
    "trimspace": _str_fn(str.strip),
    "trimsuffix": _str_fn(lambda s, x: s[: -len(x)] if x and s.endswith(x) else s),
    "trimprefix": _str_fn(lambda s, x: s[len(x) :] if s.startswith(x) else s),
    "replace": _str_fn(
        lambda s, a, b: (
            Unknown("replace(...)", "regular expressions are not evaluated")
            if len(a) > 1 and a.startswith("/") and a.endswith("/")
            else s.replace(a, b)
        )
    ),
    "startswith": _str_fn(lambda s, x: s.startswith(x)),
    "endswith": _str_fn(lambda s, x: s.endswith(x)),
    "strcontains": _str_fn(lambda s, x: x in s),
    "split": _str_fn(lambda sep, s: s.split(sep)),
    "substr": lambda s, off, n: (
        s[off : (None if n < 0 else off + n)]
        if isinstance(s, str)
        else Unknown("substr(...)", "not known here")
    ),
    "title": _str_fn(str.title),
    "chomp": _str_fn(lambda s: s.rstrip("\r\n")),
}
