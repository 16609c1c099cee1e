"""The Terraform functions visguard evaluates, and the names of all the others.

A call to a name Terraform does not have is an error (as in Terraform); a Terraform function visguard does not
evaluate (``cidrsubnet``, ``timestamp``...) gives an Unknown; the functions that read files (``file``,
``templatefile``...) are the evaluator's own (template.py). Functions of values known only
after apply give an Unknown too, never a guess.
"""

from __future__ import annotations

import json
import math

from .values import (
    MAX_STRING,
    SYMBOLIC,
    Encoded,
    EvalError,
    LimitError,
    Ref,
    Text,
    Unknown,
    is_known,
    kind,
    num_out,
    to_number,
    to_string,
    unholed,
)

# ---------------------------------------------------------------------------------------------- functions
# Every function of the Terraform language (developer.hashicorp.com/terraform/language/functions). A call to
# a name outside this list is an error in Terraform too; one inside it that visguard does not evaluate gives
# an Unknown.
TERRAFORM_FUNCTIONS = frozenset(
    """abs abspath alltrue anytrue base64decode base64encode base64gzip base64sha256 base64sha512 basename
    bcrypt can ceil chomp chunklist cidrhost cidrnetmask cidrsubnet cidrsubnets coalesce coalescelist
    compact concat contains csvdecode dirname distinct element endswith ephemeralasnull file filebase64
    filebase64sha256 filebase64sha512 fileexists filemd5 fileset filesha1 filesha256 filesha512 flatten
    floor format formatdate formatlist indent index issensitive join jsondecode jsonencode keys length list
    log lookup lower map matchkeys max md5 merge min nonsensitive one parseint pathexpand plantimestamp pow
    range regex regexall replace reverse rsadecrypt sensitive setintersection setproduct setsubtract
    setunion sha1 sha256 sha512 signum slice sort split startswith strcontains strrev substr sum
    templatefile templatestring textdecodebase64 textencodebase64 timeadd timecmp timestamp title tobool
    tolist tomap tonumber toset tostring transpose trim trimprefix trimspace trimsuffix try type upper
    urlencode uuid uuidv5 values yamldecode yamlencode zipmap""".split()  # noqa: SIM905
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
    if isinstance(v, Text):  # a rendered template holding references: decoded around them
        text, holes = v.holed()
        try:
            return unholed(_decoded("jsondecode", text), holes)
        except EvalError:
            return Unknown(
                "jsondecode(...)", "jsondecode() of a document holding values known only after apply"
            )
    if not isinstance(v, str):
        return Unknown("jsondecode(...)", "jsondecode() of a value known only after apply")
    return _decoded("jsondecode", v)


def _yamldecode(*args):
    _need(args, 1, "yamldecode")
    v = args[0]
    if not isinstance(v, str):
        return Unknown("yamldecode(...)", "yamldecode() of a value known only after apply")
    return _decoded("yamldecode", v)


def _decoded(name: str, text: str):
    """A JSON or YAML document as Terraform values, through the linter's bounded decoders (nesting, aliases,
    number sizes: loaders.decode); a document that is not one is Terraform's error too."""
    from visguard.errors import VisguardError

    from .. import decode

    if len(text) > MAX_STRING:
        raise LimitError(f"{name}(): a document longer than {MAX_STRING:,} characters (visguard's bound)")
    try:
        doc = (
            decode.loads_json(text, file=name) if name == "jsondecode" else decode.loads_yaml(text, file=name)
        )
    except VisguardError as exc:
        raise EvalError(f"{name}(): {exc.detail}") from None
    except RecursionError:
        raise LimitError(f"{name}(): the document is nested too deeply") from None
    return _plain(doc)


def _plain(v):
    """Decoded JSON/YAML as the evaluator's values: plain dicts (string keys) and lists; a YAML timestamp as its
    text, as Terraform's yamldecode gives it."""
    if isinstance(v, dict):
        return {k if isinstance(k, str) else to_string(k): _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if v is None or isinstance(v, (str, bool, int, float)):
        return v
    if hasattr(v, "isoformat"):
        return v.isoformat()
    return to_string(str(v))


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
    raise EvalError("lookup(): no such key and no default")


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
    raise EvalError(
        f"tobool(): cannot convert {'this string' if isinstance(v, str) else 'a ' + kind(v)} to a bool"
    )


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
            return Unknown("...", "a string function of a value not known here")
        if not all(isinstance(a, str) for a in args):
            raise EvalError("a string function needs strings")
        return fn(*args)

    return call


def _join(*args):
    _need(args, 2, "join")
    sep, items = args
    if not isinstance(items, list) or not all(isinstance(i, (str, int, float)) for i in items):
        return Unknown("join(...)", "join() of values not known here")
    if not isinstance(sep, str):
        raise EvalError("join(): the separator must be a string")
    texts = [to_string(i) for i in items]
    _fits("join", len(sep) * max(len(texts) - 1, 0) + sum(len(t) for t in texts))
    return sep.join(texts)


def _fits(name: str, n: int) -> None:
    """A string result of ``n`` characters is refused before it is built beyond :data:`MAX_STRING`."""
    if n > MAX_STRING:
        raise LimitError(
            f"{name}(): the result would be longer than {MAX_STRING:,} characters (visguard's bound on one value)"
        )


def _replace(s, a, b):
    if len(a) > 1 and a.startswith("/") and a.endswith("/"):
        return Unknown("replace(...)", "regular expressions are not evaluated")
    count = s.count(a) if a else len(s) + 1
    _fits("replace", len(s) + count * (len(b) - len(a)))
    return s.replace(a, b)


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


def _unique(items: list) -> list:
    """``items`` without repeats, first occurrence kept (linear: a key per element, not a scan of the output)."""
    out, seen = [], set()
    for x in items:
        k = _identity(x)
        if k not in seen:
            seen.add(k)
            out.append(x)
    return out


def _identity(x):
    if isinstance(x, (dict, list)):
        return ("c", json.dumps(x, sort_keys=True, default=str))
    if isinstance(x, SYMBOLIC):
        return ("s", type(x).__name__, str(x))
    return (type(x) is bool, x)  # True == 1 in Python, not in Terraform


def _toset(*args):
    _need(args, 1, "toset")
    v = args[0]
    if isinstance(v, list):
        out = _unique(v)
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
    pos = size = 0
    for m in re.finditer(r"%(%|[-+ #0]*\d*(?:\.\d+)?[vdsfqt])", fmt):
        out.append(fmt[pos : m.start()])
        spec = m.group(1)
        pos = m.end()
        if any(int(w) > 1000 for w in re.findall(r"\d+", spec)):
            raise EvalError("format(): a width or precision above 1000")
        size += len(out[-1]) + (len(out[-2]) if len(out) > 1 else 0)
        _fits("format", size)  # checked as it grows: 100,000 "%1000d" would make 100 MB
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
    return _unique(args[0]) if isinstance(args[0], list) else args[0]


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
        raise EvalError(f"parseint(): the string is not a number in base {base}") from None


FUNCTIONS = {
    "jsonencode": _jsonencode,
    "jsondecode": _jsondecode,
    "yamldecode": _yamldecode,
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
    "replace": _str_fn(_replace),
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
